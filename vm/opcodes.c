/* opcodes.c -- the opcode table, indexed by opcode byte (see opcodes.h). */
#include "opcodes.h"

const OpInfo op_info[256] = {
#define GCLAB_OP_INFO(name, code, opnd, ppop, ppush, rpop, rpush) \
    [code] = {#name, opnd, ppop, ppush, rpop, rpush},
    GCLAB_OPCODES(GCLAB_OP_INFO)
#undef GCLAB_OP_INFO
};
