/*
 * quicken.c -- rewriting a method's linked code with superinstructions
 * (quicken.h says what they are and why the rewrite is invisible).
 *
 * The scan walks the instructions in order.  At each one it tries the
 * longest sequence first (PLOAD; PUSHI or PLOAD; compare; jump), then
 * triples (PUSHI; compare; jump, PLOAD; PUSHI; add), then pairs; a match
 * replaces the first opcode byte and the scan continues after the whole
 * sequence.  Instructions inside a sequence keep their own opcodes, so code
 * that branches to them runs them one at a time, as before.
 */
#include "quicken.h"

#include <stdbool.h>
#include <string.h>

#include "vm/opcodes.h"

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
    /* comparisons only: after the comparison, after PUSHI k, after PLOAD
     * a; PUSHI k, and after PLOAD a; PLOAD b */
    uint8_t jump, jump_immediate, jump_local_immediate, jump_locals;
} IntOperator;

static const IntOperator int_operators[] = {
    {OP_IADD, QOP_IADD_K, 0, 0, 0, 0, 0},
    {OP_ISUB, QOP_ISUB_K, 0, 0, 0, 0, 0},
    {OP_IMUL, QOP_IMUL_K, 0, 0, 0, 0, 0},
    {OP_IDIV, QOP_IDIV_K, 0, 0, 0, 0, 0},
    {OP_IREM, QOP_IREM_K, 0, 0, 0, 0, 0},
    {OP_IAND, QOP_IAND_K, 0, 0, 0, 0, 0},
    {OP_IOR, QOP_IOR_K, 0, 0, 0, 0, 0},
    {OP_IXOR, QOP_IXOR_K, 0, 0, 0, 0, 0},
    {OP_ISHL, QOP_ISHL_K, 0, 0, 0, 0, 0},
    {OP_ISHR, QOP_ISHR_K, 0, 0, 0, 0, 0},
    {OP_IEQ, QOP_IEQ_K, OP_INE, QOP_JEQ, QOP_JEQ_K, QOP_JEQ_LK, QOP_JEQ_LL},
    {OP_INE, QOP_INE_K, OP_IEQ, QOP_JNE, QOP_JNE_K, QOP_JNE_LK, QOP_JNE_LL},
    {OP_ILT, QOP_ILT_K, OP_IGE, QOP_JLT, QOP_JLT_K, QOP_JLT_LK, QOP_JLT_LL},
    {OP_ILE, QOP_ILE_K, OP_IGT, QOP_JLE, QOP_JLE_K, QOP_JLE_LK, QOP_JLE_LL},
    {OP_IGT, QOP_IGT_K, OP_ILE, QOP_JGT, QOP_JGT_K, QOP_JGT_LK, QOP_JGT_LL},
    {OP_IGE, QOP_IGE_K, OP_ILT, QOP_JGE, QOP_JGE_K, QOP_JGE_LK, QOP_JGE_LL},
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

/* The instructions at the scan's position: up to four opcodes (OP_NOP past
 * the end of the code) and where each starts, at[4] being where the fourth
 * ends. */
typedef struct Window {
    uint8_t op[4];
    uint32_t at[5];
} Window;

static Window window_at(const uint8_t *code, uint32_t len, uint32_t pc) {
    Window w;
    w.at[0] = pc;
    for (int i = 0; i < 4; i++) {
        w.op[i] = w.at[i] < len ? code[w.at[i]] : OP_NOP;
        w.at[i + 1] = w.at[i] + op_size(w.op[i]);
    }
    return w;
}

static bool is_branch(uint8_t op) { return op == OP_JT || op == OP_JF; }

/* The superinstruction for the sequence at code[pc], and in *covered the
 * bytes it spans; 0 (and the first instruction's size) if there is none. */
static uint8_t match_at(const uint8_t *code, uint32_t len, uint32_t pc, uint32_t *covered) {
    Window w = window_at(code, len, pc);
    uint8_t first = w.op[0], second = w.op[1], third = w.op[2];
    *covered = w.at[1] - pc;
    if (w.at[1] >= len) return 0;
    const IntOperator *op2 = int_operator(second), *op3 = int_operator(third);

    /* Sequences that would run past the end read OP_NOP there and match
     * nothing. */
    if (first == OP_PLOAD && (second == OP_PUSHI || second == OP_PLOAD) && op3 && op3->negation &&
        is_branch(w.op[3])) {
        *covered = w.at[4] - pc;
        const IntOperator *cond = jump_condition(op3, w.op[3]);
        return second == OP_PUSHI ? cond->jump_local_immediate : cond->jump_locals;
    }
    if (first == OP_PLOAD && second == OP_PUSHI && (third == OP_IADD || third == OP_ISUB)) {
        *covered = w.at[3] - pc;
        return third == OP_IADD ? QOP_PLOAD_IADD_K : QOP_PLOAD_ISUB_K;
    }
    if (first == OP_PUSHI && op2) {
        int32_t k;
        memcpy(&k, code + pc + 1, sizeof k);
        if (op2->negation && is_branch(third)) {
            *covered = w.at[3] - pc;
            return jump_condition(op2, third)->jump_immediate;
        }
        /* Division by 0 must fail, and by -1 may overflow: leave those to
         * IDIV and IREM, which check. */
        if ((second == OP_IDIV || second == OP_IREM) && (k == 0 || k == -1)) return 0;
        *covered = w.at[2] - pc;
        return op2->with_immediate;
    }
    const IntOperator *op1 = int_operator(first);
    if (op1 && op1->negation && is_branch(second)) {
        *covered = w.at[2] - pc;
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
        {OP_PLOAD, OP_RETP, QOP_PLOAD_RETP},
        {OP_IADD, OP_RETP, QOP_IADD_RETP},
    };
    /* "PLOAD a; PLOAD b; IADD": better as PLOAD a, then PLOAD_IADD b. */
    if (first == OP_PLOAD && second == OP_PLOAD && third == OP_IADD) return 0;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        if (pairs[i].first == first && pairs[i].second == second) {
            *covered = w.at[2] - pc;
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
