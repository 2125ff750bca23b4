/*
 * asm.h -- gclab assembly: the text form of a program.  vmdis prints a
 * program in exactly the syntax vmas reads, so assembling the output of
 * vmdis gives back the same .bc byte for byte.  The syntax is documented at
 * the top of asm.c.
 */
#ifndef GCLAB_ASM_H
#define GCLAB_ASM_H

#include <stddef.h>
#include <stdio.h>

#include "vm/program.h"

/* Assembles source text into a laid-out program that is NOT verified (so
 * tests can build programs the verifier must reject); on failure returns
 * NULL with err = "NAME:LINE: reason". */
Program *asm_parse(const char *name, const char *text, size_t len, char *err, size_t errsize);

/* asm_parse, then verify_program; a verifier error is reported at the line
 * of the instruction or declaration it is about:
 * "NAME:LINE: in Tree.check: reason". */
Program *asm_parse_verified(const char *name, const char *text, size_t len, char *err, size_t errsize);

/* Prints p as assembly. */
void asm_print(const Program *p, FILE *out);

#endif
