/*
 * opcodes.h -- the instruction set, as one X-macro table.
 *
 * gclab is a dual-stack machine.  Each frame has primitive locals and an
 * operand stack of 8-byte primitives (int, double, bool), and separately
 * reference locals and an operand stack of object references.  Because
 * references never share a slot with integers, the reference stack of a
 * thread *is* its precise root set: a collector scans it from bottom to top
 * with no stack maps, and the verifier proves no integer can become a
 * reference (see verify_code.c).
 *
 * Columns:
 *   name     mnemonic, as vmas/vmdis spell it (lower-cased)
 *   code     the byte in a .bc file: stable, never reused
 *   operand  OPND_NONE, OPND_U8, OPND_U16 (an index), OPND_I32 (an
 *            immediate), OPND_JUMP (i32, relative to the instruction start)
 *   ppop ppush rpop rpush
 *            primitive and reference stack effect; VAR for calls and
 *            returns, whose effect the verifier takes from the signature
 *
 * Instruction encoding: one opcode byte, then the operand little-endian.
 */
#ifndef GCLAB_OPCODES_H
#define GCLAB_OPCODES_H

#include <stdint.h>

enum { OPND_NONE, OPND_U8, OPND_U16, OPND_I32, OPND_JUMP };
#define VAR (-1)

/*        name      code  operand    ppop ppush rpop rpush */
#define GCLAB_OPCODES(X) \
    X(NOP,      0x00, OPND_NONE, 0, 0, 0, 0) \
    /* constants */ \
    X(PUSHI,    0x01, OPND_I32,  0, 1, 0, 0) /* int immediate */ \
    X(LDI,      0x02, OPND_U16,  0, 1, 0, 0) /* int constant #n */ \
    X(LDD,      0x03, OPND_U16,  0, 1, 0, 0) /* double constant #n */ \
    X(LDS,      0x04, OPND_U16,  0, 0, 0, 1) /* interned string constant #n */ \
    X(PUSHZ,    0x05, OPND_U8,   0, 1, 0, 0) /* bool immediate 0/1 */ \
    X(ANULL,    0x06, OPND_NONE, 0, 0, 0, 1) \
    /* locals and stack shuffling */ \
    X(PLOAD,    0x10, OPND_U16,  0, 1, 0, 0) \
    X(PSTORE,   0x11, OPND_U16,  1, 0, 0, 0) \
    X(RLOAD,    0x12, OPND_U16,  0, 0, 0, 1) \
    X(RSTORE,   0x13, OPND_U16,  0, 0, 1, 0) \
    X(PPOP,     0x14, OPND_NONE, 1, 0, 0, 0) \
    X(RPOP,     0x15, OPND_NONE, 0, 0, 1, 0) \
    X(PDUP,     0x16, OPND_NONE, 1, 2, 0, 0) \
    X(RDUP,     0x17, OPND_NONE, 0, 0, 1, 2) \
    X(IINC,     0x18, OPND_U16,  0, 0, 0, 0) /* int local #n += 1 */ \
    /* int arithmetic (64-bit, wrapping) */ \
    X(IADD,     0x20, OPND_NONE, 2, 1, 0, 0) \
    X(ISUB,     0x21, OPND_NONE, 2, 1, 0, 0) \
    X(IMUL,     0x22, OPND_NONE, 2, 1, 0, 0) \
    X(IDIV,     0x23, OPND_NONE, 2, 1, 0, 0) \
    X(IREM,     0x24, OPND_NONE, 2, 1, 0, 0) \
    X(INEG,     0x25, OPND_NONE, 1, 1, 0, 0) \
    X(IAND,     0x26, OPND_NONE, 2, 1, 0, 0) \
    X(IOR,      0x27, OPND_NONE, 2, 1, 0, 0) \
    X(IXOR,     0x28, OPND_NONE, 2, 1, 0, 0) \
    X(ISHL,     0x29, OPND_NONE, 2, 1, 0, 0) \
    X(ISHR,     0x2a, OPND_NONE, 2, 1, 0, 0) \
    /* double arithmetic */ \
    X(DADD,     0x30, OPND_NONE, 2, 1, 0, 0) \
    X(DSUB,     0x31, OPND_NONE, 2, 1, 0, 0) \
    X(DMUL,     0x32, OPND_NONE, 2, 1, 0, 0) \
    X(DDIV,     0x33, OPND_NONE, 2, 1, 0, 0) \
    X(DNEG,     0x34, OPND_NONE, 1, 1, 0, 0) \
    X(I2D,      0x35, OPND_NONE, 1, 1, 0, 0) \
    X(D2I,      0x36, OPND_NONE, 1, 1, 0, 0) \
    /* comparisons: push a bool */ \
    X(IEQ,      0x40, OPND_NONE, 2, 1, 0, 0) \
    X(INE,      0x41, OPND_NONE, 2, 1, 0, 0) \
    X(ILT,      0x42, OPND_NONE, 2, 1, 0, 0) \
    X(ILE,      0x43, OPND_NONE, 2, 1, 0, 0) \
    X(IGT,      0x44, OPND_NONE, 2, 1, 0, 0) \
    X(IGE,      0x45, OPND_NONE, 2, 1, 0, 0) \
    X(DEQ,      0x46, OPND_NONE, 2, 1, 0, 0) \
    X(DNE,      0x47, OPND_NONE, 2, 1, 0, 0) \
    X(DLT,      0x48, OPND_NONE, 2, 1, 0, 0) \
    X(DLE,      0x49, OPND_NONE, 2, 1, 0, 0) \
    X(DGT,      0x4a, OPND_NONE, 2, 1, 0, 0) \
    X(DGE,      0x4b, OPND_NONE, 2, 1, 0, 0) \
    X(ZEQ,      0x4c, OPND_NONE, 2, 1, 0, 0) \
    X(ZNE,      0x4d, OPND_NONE, 2, 1, 0, 0) \
    X(NOT,      0x4e, OPND_NONE, 1, 1, 0, 0) \
    X(REQ,      0x4f, OPND_NONE, 0, 1, 2, 0) /* reference identity */ \
    X(RNE,      0x50, OPND_NONE, 0, 1, 2, 0) \
    X(SEQ,      0x51, OPND_NONE, 0, 1, 2, 0) /* string contents (null-safe) */ \
    /* control */ \
    X(JMP,      0x58, OPND_JUMP, 0, 0, 0, 0) \
    X(JT,       0x59, OPND_JUMP, 1, 0, 0, 0) /* pop bool, jump if true */ \
    X(JF,       0x5a, OPND_JUMP, 1, 0, 0, 0) \
    X(CALL,     0x5b, OPND_U16,  VAR, VAR, VAR, VAR) /* method #n */ \
    X(RET,      0x5c, OPND_NONE, 0, 0, 0, 0) /* void */ \
    X(RETP,     0x5d, OPND_NONE, 1, 0, 0, 0) /* primitive result */ \
    X(RETR,     0x5e, OPND_NONE, 0, 0, 1, 0) /* reference result */ \
    /* objects */ \
    X(NEW,      0x60, OPND_U16,  0, 0, 0, 1) /* class #n */ \
    X(GETFP,    0x61, OPND_U16,  0, 1, 1, 0) /* field #n, primitive */ \
    X(PUTFP,    0x62, OPND_U16,  1, 0, 1, 0) \
    X(GETFR,    0x63, OPND_U16,  0, 0, 1, 1) /* field #n, reference */ \
    X(PUTFR,    0x64, OPND_U16,  0, 0, 2, 0) /* [obj value] */ \
    X(GETSP,    0x65, OPND_U16,  0, 1, 0, 0) /* static #n */ \
    X(PUTSP,    0x66, OPND_U16,  1, 0, 0, 0) \
    X(GETSR,    0x67, OPND_U16,  0, 0, 0, 1) \
    X(PUTSR,    0x68, OPND_U16,  0, 0, 1, 0) \
    /* arrays: NEWARR takes the array type #n; element ops are typed */ \
    X(NEWARR,   0x70, OPND_U16,  1, 0, 0, 1) \
    X(ALEN,     0x71, OPND_NONE, 0, 1, 1, 0) \
    X(AGETZ,    0x72, OPND_NONE, 1, 1, 1, 0) /* [arr] [index] -> value */ \
    X(AGETB,    0x73, OPND_NONE, 1, 1, 1, 0) \
    X(AGETC,    0x74, OPND_NONE, 1, 1, 1, 0) \
    X(AGETS,    0x75, OPND_NONE, 1, 1, 1, 0) \
    X(AGETI,    0x76, OPND_NONE, 1, 1, 1, 0) \
    X(AGETJ,    0x77, OPND_NONE, 1, 1, 1, 0) \
    X(AGETF,    0x78, OPND_NONE, 1, 1, 1, 0) \
    X(AGETD,    0x79, OPND_NONE, 1, 1, 1, 0) \
    X(AGETR,    0x7a, OPND_NONE, 1, 0, 1, 1) \
    X(APUTZ,    0x7b, OPND_NONE, 2, 0, 1, 0) /* [arr] [index value] */ \
    X(APUTB,    0x7c, OPND_NONE, 2, 0, 1, 0) \
    X(APUTC,    0x7d, OPND_NONE, 2, 0, 1, 0) \
    X(APUTS,    0x7e, OPND_NONE, 2, 0, 1, 0) \
    X(APUTI,    0x7f, OPND_NONE, 2, 0, 1, 0) \
    X(APUTJ,    0x80, OPND_NONE, 2, 0, 1, 0) \
    X(APUTF,    0x81, OPND_NONE, 2, 0, 1, 0) \
    X(APUTD,    0x82, OPND_NONE, 2, 0, 1, 0) \
    X(APUTR,    0x83, OPND_NONE, 1, 0, 2, 0) /* [arr value] [index] */ \
    /* strings */ \
    X(SCAT,     0x90, OPND_NONE, 0, 0, 2, 1) /* concatenate; null prints "null" */ \
    X(I2S,      0x91, OPND_NONE, 1, 0, 0, 1) \
    X(D2S,      0x92, OPND_NONE, 1, 0, 0, 1) \
    X(Z2S,      0x93, OPND_NONE, 1, 0, 0, 1) \
    X(SLEN,     0x94, OPND_NONE, 0, 1, 1, 0) \
    X(SCHAR,    0x95, OPND_NONE, 1, 1, 1, 0) /* [s] [i] -> byte at i */ \
    X(SSUB,     0x96, OPND_NONE, 2, 0, 1, 1) /* [s] [from to] -> substring */ \
    X(CHR,      0x97, OPND_NONE, 1, 0, 0, 1) /* byte -> one-byte string */ \
    X(PARSEI,   0x98, OPND_NONE, 0, 1, 1, 0) /* decimal string -> int */ \
    /* input/output and process */ \
    X(PRINTI,   0xa0, OPND_U8,   1, 0, 0, 0) /* operand 1: newline after */ \
    X(PRINTD,   0xa1, OPND_U8,   1, 0, 0, 0) \
    X(PRINTZ,   0xa2, OPND_U8,   1, 0, 0, 0) \
    X(PRINTS,   0xa3, OPND_U8,   0, 0, 1, 0) \
    X(EXIT,     0xa4, OPND_NONE, 1, 0, 0, 0) /* exit with status */ \
    /* threads and monitors (vm/threads/scheduler.c, monitor.c) */ \
    X(START,    0xb0, OPND_U16,  VAR, VAR, VAR, VAR) /* method #n's args, name -> Thread */ \
    X(JOIN,     0xb1, OPND_NONE, 0, 0, 1, 0) /* wait until the thread has ended */ \
    X(SLEEP,    0xb2, OPND_NONE, 1, 0, 0, 0) /* milliseconds */ \
    X(MONENTER, 0xb3, OPND_NONE, 0, 0, 1, 0) /* enter the object's monitor */ \
    X(MONEXIT,  0xb4, OPND_NONE, 0, 0, 1, 0) \
    X(WAIT,     0xb5, OPND_NONE, 1, 0, 1, 0) /* [obj] [ms, 0: no timeout] */ \
    X(NOTIFY,   0xb6, OPND_U8,   0, 0, 1, 0) /* operand 1: notify every waiter */ \
    X(INTERRUPT, 0xb7, OPND_NONE, 0, 0, 1, 0) /* set the thread's interrupted flag; wake it if it sleeps or waits */ \
    X(INTERRUPTED, 0xb8, OPND_NONE, 0, 1, 0, 0) /* the running thread's flag, as a bool; clears it */ \
    /* native calls (vm/native/native.c) */ \
    X(CALLN,    0xbf, OPND_U16,  VAR, VAR, VAR, VAR) /* native #n */

typedef enum Opcode {
#define GCLAB_OP_ENUM(name, code, opnd, ppop, ppush, rpop, rpush) OP_##name = code,
    GCLAB_OPCODES(GCLAB_OP_ENUM)
#undef GCLAB_OP_ENUM
} Opcode;

typedef struct OpInfo {
    const char *name;   /* NULL for unassigned codes */
    uint8_t operand;
    int8_t ppop, ppush, rpop, rpush;
} OpInfo;

/* Indexed by opcode byte; unassigned codes have name == NULL. */
extern const OpInfo op_info[256];

static inline int op_operand_size(int operand) {
    static const int sizes[] = {0, 1, 2, 4, 4};
    return sizes[operand];
}

/* Bytes of the instruction whose opcode byte is `op`: the opcode and its operand. */
static inline uint32_t op_size(uint8_t op) { return 1u + (uint32_t)op_operand_size(op_info[op].operand); }

/* The `size`-byte little-endian operand at `at`, zero-extended (an
 * OPND_I32 or OPND_JUMP operand reads back as int32_t through a cast). */
static inline uint32_t op_operand_get(const uint8_t *at, int size) {
    uint32_t value = 0;
    for (int i = 0; i < size; i++) value |= (uint32_t)at[i] << (8 * i);
    return value;
}

/* Writes `value` as a `size`-byte little-endian operand at `at`. */
static inline void op_operand_put(uint8_t *at, uint32_t value, int size) {
    for (int i = 0; i < size; i++) at[i] = (uint8_t)(value >> (8 * i));
}

#endif
