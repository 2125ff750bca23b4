/*
 * verify_internal.h -- what the two halves of the verifier share: verify.c
 * checks the program's declarations, verify_code.c each method's code.
 */
#ifndef GCLAB_VERIFY_INTERNAL_H
#define GCLAB_VERIFY_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "verify.h"

typedef struct Verifier {
    const Program *p;
    VerifyError *err;
    char **class_descs;   /* "LName;" of each class: what NEW pushes, what a field or method's owner is */
} Verifier;

/* Fills v->err (place, method, pc or index, formatted message); returns
 * false so callers can `return verify_fail(...)`. */
bool verify_fail(const Verifier *v, VerifyPlace place, uint32_t method, uint32_t pc_or_index, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* verify_fail with its arguments in a va_list. */
bool verify_vfail(const Verifier *v, VerifyPlace place, uint32_t method, uint32_t pc_or_index, const char *fmt,
                  va_list ap) __attribute__((format(printf, 5, 0)));

/* A type as a programmer would write it in the language: "int", "double",
 * "bool", "string", "Tree", "byte[]", "Tree[][]"; "null" for the null type
 * (desc == NULL).  Returns buf. */
const char *verify_type_name(const char *desc, char *buf, size_t size);

/* "Tree.check", for messages; "?" if a part is out of range. */
const char *verify_method_name(const Program *p, uint32_t method, char *buf, size_t size);

/* Checks the code of one method whose declaration has been checked. */
bool verify_method_code(const Verifier *v, uint32_t method);

#endif
