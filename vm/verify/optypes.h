/*
 * optypes.h -- the operand types of every instruction whose types do not
 * depend on its operand or on the method (private to the verifier).
 *
 * op_info[] (opcodes.h) says how many values an instruction pops and pushes
 * on each stack; this table says of which types, one letter per value,
 * bottom of the stack first.  The two agree by construction (a unit test
 * checks every entry's lengths against op_info), so the verifier takes depths
 * from op_info and types from here.
 *
 *   primitive letters  J int, D double, Z bool, ? any primitive
 *   reference letters  S a string (or null); T a Thread (or null); R any
 *                      reference (inputs only);
 *                      N the null type (outputs only)
 */
#ifndef GCLAB_OPTYPES_H
#define GCLAB_OPTYPES_H

typedef struct OpTypes {
    const char *prims_in, *prims_out;
    const char *refs_in, *refs_out;
} OpTypes;

/* Indexed by opcode byte.  prims_in == NULL for the instructions whose types
 * come from their operand or the method (locals, fields, statics, arrays,
 * calls, returns, duplication): verify_code.c handles those one by one. */
extern const OpTypes verify_op_types[256];

#endif
