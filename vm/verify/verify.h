/*
 * verify.h -- the bytecode verifier.  Every program is verified before it
 * runs, whether it came from a .bc file, vmas or vmc.
 */
#ifndef GCLAB_VERIFY_H
#define GCLAB_VERIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "../program.h"

typedef struct VerifyError {
    uint32_t method;   /* index of the method, or PROG_NONE for program-level errors */
    uint32_t pc;       /* offset of the instruction within the method's code */
    char message[256];
} VerifyError;

/* Checks p (already laid out): every index in bounds, every branch target an
 * instruction start, stack depths and types consistent on every path, every
 * operand of the type its instruction needs, every call matching its
 * callee's signature, every path ending in a return of the right kind.
 * Returns false and fills *err at the first problem. */
bool verify_program(const Program *p, VerifyError *err);

#endif
