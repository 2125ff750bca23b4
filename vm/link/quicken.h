/*
 * quicken.h -- the interpreter's private superinstructions.
 *
 * A stack machine spends most of its time dispatching: `i < n` is three
 * instructions (PLOAD, PLOAD, ILT) and a branch.  When the VM links a
 * program it copies each method's code and "quickens" the copy: where two
 * to four instructions that often run together start, it replaces the
 * first opcode byte with a private opcode that does the work of all of them
 * in one dispatch.  Measured on examples/bench, this halves the dispatches
 * of the `loop` benchmark and makes it about 2x faster (fib about 20%).
 * The forms on locals (compare-and-branch, a local plus a constant, fused
 * returns) then took fib's calls from 10 dispatches to 6 and its leaves
 * from 4 to 2: about 18% fewer instructions on fib.
 *
 * Invariants that make the rewrite invisible:
 *   - only the first byte of a sequence changes.  Its operands, and the
 *     instructions after it, stay where they were, so every offset in the
 *     quickened copy is the same as in the method's code (line tables,
 *     branch offsets, error traces), and a branch to the middle of a
 *     sequence still finds the original instruction there.
 *   - a superinstruction never allocates and so is never a safepoint; one
 *     that can fail (a null receiver) fails with pc at the instruction that
 *     failed, so traces are exact.
 *   - private opcodes live in [QUICK_FIRST, 0xff], which no public opcode
 *     may use (checked at compile time in quicken.c).  They exist only in
 *     the VM's copy: never in a .bc file, never seen by the verifier,
 *     assembler or disassembler.  The verifier has already checked the
 *     original sequence, and each superinstruction means exactly that
 *     sequence.
 */
#ifndef GCLAB_INTERP_QUICKEN_H
#define GCLAB_INTERP_QUICKEN_H

#include <stdint.h>

#define QUICK_FIRST 0xc0

/*        name           code  what it replaces */
#define GCLAB_QUICK_OPCODES(X) \
    X(PLOAD2,          0xc0) /* PLOAD a; PLOAD b */ \
    X(RLOAD2,          0xc1) /* RLOAD a; RLOAD b */ \
    X(RLOAD_GETFP,     0xc2) /* RLOAD a; GETFP f */ \
    X(RLOAD_GETFR,     0xc3) /* RLOAD a; GETFR f */ \
    /* PUSHI k; <int operator>: the operator with an immediate right operand */ \
    X(IADD_K,          0xc4) \
    X(ISUB_K,          0xc5) \
    X(IMUL_K,          0xc6) \
    X(IDIV_K,          0xc7) /* only for k not 0 or -1: cannot fail or overflow */ \
    X(IREM_K,          0xc8) /* likewise */ \
    X(IAND_K,          0xc9) \
    X(IOR_K,           0xca) \
    X(IXOR_K,          0xcb) \
    X(ISHL_K,          0xcc) \
    X(ISHR_K,          0xcd) \
    X(IEQ_K,           0xce) \
    X(INE_K,           0xcf) \
    X(ILT_K,           0xd0) \
    X(ILE_K,           0xd1) \
    X(IGT_K,           0xd2) \
    X(IGE_K,           0xd3) \
    /* <int comparison>; JT or JF: jump if the comparison (JT) or its \
     * negation (JF) holds -- for ints, !(a < b) is exactly a >= b */ \
    X(JEQ,             0xd4) \
    X(JNE,             0xd5) \
    X(JLT,             0xd6) \
    X(JLE,             0xd7) \
    X(JGT,             0xd8) \
    X(JGE,             0xd9) \
    /* PUSHI k; <int comparison>; JT or JF */ \
    X(JEQ_K,           0xda) \
    X(JNE_K,           0xdb) \
    X(JLT_K,           0xdc) \
    X(JLE_K,           0xdd) \
    X(JGT_K,           0xde) \
    X(JGE_K,           0xdf) \
    /* The commonest arithmetic, fused with its operand's load or its \
     * result's store: the value stays in a register instead of making a \
     * round trip through the stack (about 1.6x on the loop benchmark). */ \
    X(PLOAD_IADD,      0xe0) /* PLOAD a; IADD */ \
    X(IADD_PSTORE,     0xe1) /* IADD; PSTORE a */ \
    /* A local and a constant, or two locals, compared and branched on in \
     * one dispatch: `if (n < 2)`, `while (i < n)`.  PLOAD a; PUSHI k; \
     * <int comparison>; JT or JF (jumping as the J*_K forms do) ... */ \
    X(JEQ_LK,          0xe2) \
    X(JNE_LK,          0xe3) \
    X(JLT_LK,          0xe4) \
    X(JLE_LK,          0xe5) \
    X(JGT_LK,          0xe6) \
    X(JGE_LK,          0xe7) \
    /* ... and PLOAD a; PLOAD b; <int comparison>; JT or JF */ \
    X(JEQ_LL,          0xe8) \
    X(JNE_LL,          0xe9) \
    X(JLT_LL,          0xea) \
    X(JLE_LL,          0xeb) \
    X(JGT_LL,          0xec) \
    X(JGE_LL,          0xed) \
    /* A call's arguments and results: `n - 1`, `i + 1`, `return n`, `return a + b` */ \
    X(PLOAD_IADD_K,    0xee) /* PLOAD a; PUSHI k; IADD */ \
    X(PLOAD_ISUB_K,    0xef) /* PLOAD a; PUSHI k; ISUB */ \
    X(PLOAD_RETP,      0xf0) /* PLOAD a; RETP */ \
    X(IADD_RETP,       0xf1) /* IADD; RETP */

enum {
#define GCLAB_QUICK_ENUM(name, code) QOP_##name = code,
    GCLAB_QUICK_OPCODES(GCLAB_QUICK_ENUM)
#undef GCLAB_QUICK_ENUM
};

/* Rewrites `code` (a verified method's code, `len` bytes) in place with
 * superinstructions. */
void vm_quicken(uint8_t *code, uint32_t len);

#endif
