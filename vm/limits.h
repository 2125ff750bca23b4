/*
 * limits.h -- the largest size of everything a program can express, checked
 * when a .bc file is loaded (bcread.c, and the verifier for the depths), so
 * that load, verify and link cost time and memory linear in the file's size
 * and a program over a limit gets a message naming the limit and where.
 * docs/limits.md gives each value and why; they follow the JVM's class-file
 * limits (The Java Virtual Machine Specification, section 4.11) where the
 * formats agree.
 */
#ifndef GCLAB_LIMITS_H
#define GCLAB_LIMITS_H

/* Every table an instruction indexes with a u16 operand (types, int,
 * double and string constants, classes, fields, statics, methods), and the
 * member lists of one class: all of it addressable. */
#define PROG_MAX_TABLE_ENTRIES 65536u

/* A str: a name, a source file name, a type descriptor, a string constant
 * (JVM: CONSTANT_Utf8's u2 length). */
#define PROG_MAX_STRING_BYTES 65535u

/* Array dimensions in one type ("[[[J" is 3).  Linking makes a class and a
 * name per level, so the cost of a type grows with the square of its depth;
 * the JVM's limit keeps it small. */
#define PROG_MAX_ARRAY_DIMENSIONS 255u

/* Linking makes a runtime class, with a name, for every level of every
 * array type ("[[J" makes "long[][]" and "long[]"), so the cost of linking
 * is bounded by these two sums over the program's types: the array levels,
 * and the descriptor bytes at each level ("[[J" counts 3 + 2). */
#define PROG_MAX_ARRAY_LEVELS 65536u
#define PROG_MAX_ARRAY_LEVEL_BYTES (16u << 20)

/* Parameters of one method, the receiver not counted (JVM: 255 slots). */
#define PROG_MAX_PARAMS 255u

/* Locals of each kind in one method: all addressable by a u16 operand. */
#define PROG_MAX_LOCALS 65536u

/* Operand stack depth of each kind in one method (JVM: max_stack, a u2). */
#define PROG_MAX_STACK_DEPTH 65535u

/* Bytes of code in one method (JVM: code_length < 65536). */
#define PROG_MAX_CODE_BYTES 65535u

/* Line table entries of one method (JVM: line_number_table_length, a u2). */
#define PROG_MAX_LINE_ENTRIES 65535u

#endif
