/*
 * verify.h -- the bytecode verifier.  Every program is verified before it
 * runs, whether it came from a .bc file, vmas or vmc.
 */
#ifndef GCLAB_VERIFY_H
#define GCLAB_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vm/program.h"

/* What an error is about, so a loader can point at it in its own file: an
 * instruction, or one declaration. */
typedef enum VerifyPlace {
    VERIFY_IN_CODE,    /* methods[method].code at pc */
    VERIFY_IN_METHOD,  /* the declaration of methods[method] (signature, locals, depths, line table) */
    VERIFY_IN_TYPE,    /* types[index] */
    VERIFY_IN_CLASS,   /* classes[index] */
    VERIFY_IN_FIELD,   /* fields[index] */
    VERIFY_IN_STATIC,  /* statics[index] */
    VERIFY_IN_ENTRY,   /* Program.entry_method */
    VERIFY_IN_NATIVE,  /* natives[index] */
} VerifyPlace;

typedef struct VerifyError {
    uint32_t method;   /* index of the method, or PROG_NONE for program-level errors */
    uint32_t pc;       /* offset of the instruction within the method's code */
    char message[256];
    VerifyPlace place;
    uint32_t index;    /* the type, class, field, static or native, for those places */
    bool over_limit;   /* the program is over one of vm/limits.h's limits (not malformed) */
} VerifyError;

/* Checks p (already laid out): every index in bounds, every branch target an
 * instruction start, stack depths and types consistent on every path, every
 * operand of the type its instruction needs, every call matching its
 * callee's signature, every path ending in a return of the right kind.
 * Returns false and fills *err at the first problem. */
bool verify_program(const Program *p, VerifyError *err);

/* The error as a message: "in Tree.check: <message>" when it is inside a
 * method, otherwise the message alone. */
void verify_describe(const Program *p, const VerifyError *err, char *buf, size_t size);

#endif
