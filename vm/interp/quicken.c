/*
 * quicken.c -- rewriting a method's linked code with superinstructions
 * (quicken.h says what they are and why the rewrite is invisible).
 *
 * The scan walks the instructions in order.  At each one it tries the
 * longest sequence first (PUSHI; compare; jump), then pairs; a match
 * replaces the first opcode byte and the scan continues after the whole
 * sequence.  Instructions inside a sequence keep their own opcodes, so code
 * that branches to them runs them one at a time, as before.
 */
#include "quicken.h"

#include <stdbool.h>
#include <string.h>

#include "../opcodes.h"

#define CHECK_PUBLIC_BELOW_QUICK(name, code, opnd, ppop, ppush, rpop, rpush)       \
    _Static_assert((code) < QUICK_FIRST,                                           \
                   "opcode " #name " collides with the interpreter's superinstructions (quicken.h)");
GCLAB_OPCODES(CHECK_PUBLIC_BELOW_QUICK)
#undef CHECK_PUBLIC_BELOW_QUICK

/* Each int operator: its PUSHI-immediate form, and for comparisons the
 * comparison that is its negation and its two compare-and-jump forms. */
typedef struct IntOperator {
    uint8_t op;
    uint8_t with_immediate;
    uint8_t negation;        /* comparisons only, else 0 */
    uint8_t jump, jump_immediate;
} IntOperator;

static const IntOperator int_operators[] = {
    {OP_IADD, QOP_IADD_K, 0, 0, 0},
    {OP_ISUB, QOP_ISUB_K, 0, 0, 0},
    {OP_IMUL, QOP_IMUL_K, 0, 0, 0},
    {OP_IDIV, QOP_IDIV_K, 0, 0, 0},
    {OP_IREM, QOP_IREM_K, 0, 0, 0},
    {OP_IAND, QOP_IAND_K, 0, 0, 0},
    {OP_IOR, QOP_IOR_K, 0, 0, 0},
    {OP_IXOR, QOP_IXOR_K, 0, 0, 0},
    {OP_ISHL, QOP_ISHL_K, 0, 0, 0},
    {OP_ISHR, QOP_ISHR_K, 0, 0, 0},
    {OP_IEQ, QOP_IEQ_K, OP_INE, QOP_JEQ, QOP_JEQ_K},
    {OP_INE, QOP_INE_K, OP_IEQ, QOP_JNE, QOP_JNE_K},
    {OP_ILT, QOP_ILT_K, OP_IGE, QOP_JLT, QOP_JLT_K},
    {OP_ILE, QOP_ILE_K, OP_IGT, QOP_JLE, QOP_JLE_K},
    {OP_IGT, QOP_IGT_K, OP_ILE, QOP_JGT, QOP_JGT_K},
    {OP_IGE, QOP_IGE_K, OP_ILT, QOP_JGE, QOP_JGE_K},
};

static const IntOperator *int_operator(uint8_t op) {
    for (size_t i = 0; i < sizeof int_operators / sizeof int_operators[0]; i++)
        if (int_operators[i].op == op) return &int_operators[i];
    return NULL;
}

/* The comparison `cmp` followed by a JT (jump if it holds) or a JF (jump if
 * its negation holds): the operator whose jump forms to use. */
static const IntOperator *jump_condition(const IntOperator *cmp, uint8_t jump_op) {
    return jump_op == OP_JT ? cmp : int_operator(cmp->negation);
}

/* The superinstruction for the sequence at code[pc], and in *covered the
 * bytes it spans; 0 (and the first instruction's size) if there is none. */
static uint8_t match_at(const uint8_t *code, uint32_t len, uint32_t pc, uint32_t *covered) {
    uint8_t first = code[pc];
    uint32_t second_at = pc + op_size(first);
    *covered = op_size(first);
    if (second_at >= len) return 0;
    uint8_t second = code[second_at];
    uint32_t third_at = second_at + op_size(second);
    uint8_t third = third_at < len ? code[third_at] : OP_NOP;
    const IntOperator *op2 = int_operator(second);

    if (first == OP_PUSHI && op2) {
        int32_t k;
        memcpy(&k, code + pc + 1, sizeof k);
        if (op2->negation && (third == OP_JT || third == OP_JF)) {
            *covered = third_at + op_size(third) - pc;
            return jump_condition(op2, third)->jump_immediate;
        }
        /* Division by 0 must fail, and by -1 may overflow: leave those to
         * IDIV and IREM, which check. */
        if ((second == OP_IDIV || second == OP_IREM) && (k == 0 || k == -1)) return 0;
        *covered = third_at - pc;
        return op2->with_immediate;
    }
    const IntOperator *op1 = int_operator(first);
    if (op1 && op1->negation && (second == OP_JT || second == OP_JF)) {
        *covered = third_at - pc;
        return jump_condition(op1, second)->jump;
    }
    static const struct {
        uint8_t first, second, quick;
    } pairs[] = {
        {OP_PLOAD, OP_PLOAD, QOP_PLOAD2},
        {OP_RLOAD, OP_RLOAD, QOP_RLOAD2},
        {OP_RLOAD, OP_GETFP, QOP_RLOAD_GETFP},
        {OP_RLOAD, OP_GETFR, QOP_RLOAD_GETFR},
        {OP_PLOAD, OP_IADD, QOP_PLOAD_IADD},
        {OP_IADD, OP_PSTORE, QOP_IADD_PSTORE},
    };
    /* "PLOAD a; PLOAD b; IADD": better as PLOAD a, then PLOAD_IADD b. */
    if (first == OP_PLOAD && second == OP_PLOAD && third == OP_IADD) return 0;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        if (pairs[i].first == first && pairs[i].second == second) {
            *covered = third_at - pc;
            return pairs[i].quick;
        }
    }
    return 0;
}

void vm_quicken(uint8_t *code, uint32_t len) {
    uint32_t pc = 0;
    while (pc < len) {
        uint32_t covered;
        uint8_t quick = match_at(code, len, pc, &covered);
        if (quick) code[pc] = quick;
        pc += covered;
    }
}
