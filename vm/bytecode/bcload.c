/*
 * bcload.c -- the loader vmrun and vmdis use: read a .bc file (or take its
 * bytes from the caller), parse it, lay it out and verify it.  A program it returns has passed the verifier, so
 * the interpreter may trust it.  Every error, the verifier's included, is
 * "NAME: offset N: reason" with N a byte offset in the file: for an
 * instruction, the method's code offset plus the pc; for a declaration, the
 * offset of its record.
 */
#include <stdio.h>
#include <stdlib.h>

#include "vm/readfile.h"
#include "vm/verify/verify.h"
#include "bcformat.h"
#include "bytecode.h"

/* The file offset of what a verifier error is about (0 if the error names
 * nothing in the file, as "out of memory" does). */
static uint32_t error_offset(const Program *p, const BcOffsets *where, const VerifyError *e) {
    switch (e->place) {
    case VERIFY_IN_CODE:
        return e->method < p->num_methods ? p->methods[e->method].code_offset + e->pc : 0;
    case VERIFY_IN_METHOD: return e->method < p->num_methods ? where->methods[e->method] : 0;
    case VERIFY_IN_TYPE: return e->index < p->num_types ? where->types[e->index] : 0;
    case VERIFY_IN_CLASS: return e->index < p->num_classes ? where->classes[e->index] : 0;
    case VERIFY_IN_FIELD: return e->index < p->num_fields ? where->fields[e->index] : 0;
    case VERIFY_IN_STATIC: return e->index < p->num_statics ? where->statics[e->index] : 0;
    case VERIFY_IN_ENTRY: return where->entry;
    case VERIFY_IN_NATIVE: return e->index < p->num_natives ? where->natives[e->index] : 0;
    }
    return 0;
}

Program *bc_load_image(const uint8_t *data, size_t len, const char *name, char *err, size_t errsize) {
    BcOffsets where;
    Program *p = bc_parse_located(data, len, name, &where, err, errsize);
    if (!p) return NULL;
    VerifyError verr;
    if (!verify_program(p, &verr)) {
        char reason[512];
        verify_describe(p, &verr, reason, sizeof reason);
        snprintf(err, errsize, "%s: offset %u: %s", name, error_offset(p, &where, &verr), reason);
        program_free(p);
        p = NULL;
    }
    bc_offsets_free(&where);
    return p;
}

Program *bc_load_file(const char *path, char *err, size_t errsize) {
    size_t len;
    uint8_t *data = read_whole_file(path, &len, err, errsize);
    if (!data) return NULL;
    Program *p = bc_load_image(data, len, path, err, errsize);
    free(data);
    return p;
}
