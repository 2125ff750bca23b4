/*
 * bcformat.h -- constants of the .bc format (documented in bcformat.c) and
 * the reader's located-parse entry point, private to vm/bytecode.
 */
#ifndef GCLAB_BCFORMAT_H
#define GCLAB_BCFORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "vm/program.h"

extern const uint8_t bc_magic[4];
enum { BC_VERSION_MAJOR = 1, BC_VERSION_MINOR = 1 };
/* The first minor version with a natives list (bcformat.c). */
enum { BC_MINOR_NATIVES = 1 };
enum { BC_HEADER_SIZE = 8 };
enum { BC_METHOD_STATIC = 0x01 };
enum { BC_NATIVE_TAKES_ENV = 0x01 };

/* Least encoded size of each kind of item (see bcformat.c). */
enum {
    BC_MIN_STR = 4,
    BC_MIN_U32 = 4,
    BC_MIN_NUMBER = 8,
    BC_MIN_LINE = 8,
    BC_MIN_CLASS = 20,
    BC_MIN_FIELD = 12,
    BC_MIN_METHOD = 41,
    BC_MIN_NATIVE = 17,
};

/* The file offset of every declaration of a parsed program, so an error the
 * verifier finds in a declaration can be reported where it is in the file. */
typedef struct BcOffsets {
    uint32_t *types, *classes, *fields, *statics, *methods;
    uint32_t entry;
    uint32_t *natives;
} BcOffsets;

/* bc_parse, also filling *where (if not NULL) on success; free it with
 * bc_offsets_free. */
Program *bc_parse_located(const uint8_t *data, size_t len, const char *name, BcOffsets *where, char *err,
                          size_t errsize);
void bc_offsets_free(BcOffsets *where);

#endif
