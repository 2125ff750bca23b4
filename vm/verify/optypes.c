/*
 * optypes.c -- the fixed operand types of instructions (see optypes.h).
 * Semantics from opcodes.h: comparisons push a bool, JT/JF/NOT take a bool,
 * string operations accept null where a string is expected (SCAT prints it
 * as "null", SEQ compares null-safely).
 */
#include "optypes.h"

#include "vm/opcodes.h"

#define T(pin, pout, rin, rout) {pin, pout, rin, rout}

const OpTypes verify_op_types[256] = {
    [OP_NOP] = T("", "", "", ""),
    [OP_PUSHI] = T("", "J", "", ""),
    [OP_LDI] = T("", "J", "", ""),
    [OP_LDD] = T("", "D", "", ""),
    [OP_LDS] = T("", "", "", "S"),
    [OP_PUSHZ] = T("", "Z", "", ""),
    [OP_ANULL] = T("", "", "", "N"),
    [OP_PPOP] = T("?", "", "", ""),
    [OP_RPOP] = T("", "", "R", ""),

    [OP_IADD] = T("JJ", "J", "", ""),
    [OP_ISUB] = T("JJ", "J", "", ""),
    [OP_IMUL] = T("JJ", "J", "", ""),
    [OP_IDIV] = T("JJ", "J", "", ""),
    [OP_IREM] = T("JJ", "J", "", ""),
    [OP_INEG] = T("J", "J", "", ""),
    [OP_IAND] = T("JJ", "J", "", ""),
    [OP_IOR] = T("JJ", "J", "", ""),
    [OP_IXOR] = T("JJ", "J", "", ""),
    [OP_ISHL] = T("JJ", "J", "", ""),
    [OP_ISHR] = T("JJ", "J", "", ""),

    [OP_DADD] = T("DD", "D", "", ""),
    [OP_DSUB] = T("DD", "D", "", ""),
    [OP_DMUL] = T("DD", "D", "", ""),
    [OP_DDIV] = T("DD", "D", "", ""),
    [OP_DNEG] = T("D", "D", "", ""),
    [OP_I2D] = T("J", "D", "", ""),
    [OP_D2I] = T("D", "J", "", ""),

    [OP_IEQ] = T("JJ", "Z", "", ""),
    [OP_INE] = T("JJ", "Z", "", ""),
    [OP_ILT] = T("JJ", "Z", "", ""),
    [OP_ILE] = T("JJ", "Z", "", ""),
    [OP_IGT] = T("JJ", "Z", "", ""),
    [OP_IGE] = T("JJ", "Z", "", ""),
    [OP_DEQ] = T("DD", "Z", "", ""),
    [OP_DNE] = T("DD", "Z", "", ""),
    [OP_DLT] = T("DD", "Z", "", ""),
    [OP_DLE] = T("DD", "Z", "", ""),
    [OP_DGT] = T("DD", "Z", "", ""),
    [OP_DGE] = T("DD", "Z", "", ""),
    [OP_ZEQ] = T("ZZ", "Z", "", ""),
    [OP_ZNE] = T("ZZ", "Z", "", ""),
    [OP_NOT] = T("Z", "Z", "", ""),
    [OP_REQ] = T("", "Z", "RR", ""),
    [OP_RNE] = T("", "Z", "RR", ""),
    [OP_SEQ] = T("", "Z", "SS", ""),

    [OP_JMP] = T("", "", "", ""),
    [OP_JT] = T("Z", "", "", ""),
    [OP_JF] = T("Z", "", "", ""),

    [OP_SCAT] = T("", "", "SS", "S"),
    [OP_I2S] = T("J", "", "", "S"),
    [OP_D2S] = T("D", "", "", "S"),
    [OP_Z2S] = T("Z", "", "", "S"),
    [OP_SLEN] = T("", "J", "S", ""),
    [OP_SCHAR] = T("J", "J", "S", ""),
    [OP_SSUB] = T("JJ", "", "S", "S"),
    [OP_CHR] = T("J", "", "", "S"),
    [OP_PARSEI] = T("", "J", "S", ""),

    [OP_PRINTI] = T("J", "", "", ""),
    [OP_PRINTD] = T("D", "", "", ""),
    [OP_PRINTZ] = T("Z", "", "", ""),
    [OP_PRINTS] = T("", "", "S", ""),
    [OP_EXIT] = T("J", "", "", ""),

    [OP_JOIN] = T("", "", "T", ""),
    [OP_SLEEP] = T("J", "", "", ""),
    [OP_MONENTER] = T("", "", "R", ""),
    [OP_MONEXIT] = T("", "", "R", ""),
    [OP_WAIT] = T("J", "", "R", ""),
    [OP_NOTIFY] = T("", "", "R", ""),
    [OP_INTERRUPT] = T("", "", "T", ""),
    [OP_INTERRUPTED] = T("", "Z", "", ""),
};
