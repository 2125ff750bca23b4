/*
 * bcread.c -- parsing a .bc image into a Program (format: bcformat.c).
 *
 * The image is hostile until proven otherwise.  Invariant: the reader never
 * reads a byte it has not first checked is inside the image, never allocates
 * for a count it has not first compared with the bytes left (each item has a
 * least encoded size, so a count of 0xFFFFFFFF in a small file is refused
 * before any malloc), and never keeps an index it has not range-checked.
 * Every error is "NAME: offset N: reason" with N the offset of the item that
 * is wrong.  Every count and length is also held to its limit (limits.h),
 * so what a valid file can make the loader, verifier and linker do is
 * linear in its size.  Whatever is structurally sound but semantically wrong (a type
 * confusion in the code, a bad constant index) is left to the verifier.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/limits.h"
#include "bcformat.h"
#include "bytecode.h"

typedef struct Reader {
    const uint8_t *data;
    size_t len;
    size_t pos;
    const char *name;
    char *err;
    size_t errsize;
} Reader;

/* Records the error at `offset`; always returns false so callers can
 * `return fail_at(...)`. */
__attribute__((format(printf, 3, 4))) static bool fail_at(Reader *r, size_t offset, const char *fmt, ...) {
    int used = snprintf(r->err, r->errsize, "%s: offset %zu: ", r->name, offset);
    if (used >= 0 && (size_t)used < r->errsize) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err + used, r->errsize - (size_t)used, fmt, ap);
        va_end(ap);
    }
    return false;
}

static size_t left(const Reader *r) { return r->len - r->pos; }

static bool need(Reader *r, size_t size, const char *what) {
    if (left(r) < size)
        return fail_at(r, r->pos, "truncated file: %s needs %zu bytes, %zu left", what, size, left(r));
    return true;
}

static uint64_t take_uint(Reader *r, int size) {
    uint64_t v = 0;
    for (int i = 0; i < size; i++) v |= (uint64_t)r->data[r->pos + (size_t)i] << (8 * i);
    r->pos += (size_t)size;
    return v;
}

static bool read_u8(Reader *r, const char *what, uint8_t *out) {
    if (!need(r, 1, what)) return false;
    *out = (uint8_t)take_uint(r, 1);
    return true;
}

static bool read_u16(Reader *r, const char *what, uint16_t *out) {
    if (!need(r, 2, what)) return false;
    *out = (uint16_t)take_uint(r, 2);
    return true;
}

static bool read_u32(Reader *r, const char *what, uint32_t *out) {
    if (!need(r, 4, what)) return false;
    *out = (uint32_t)take_uint(r, 4);
    return true;
}

static bool read_u64(Reader *r, const char *what, uint64_t *out) {
    if (!need(r, 8, what)) return false;
    *out = take_uint(r, 8);
    return true;
}

/* A str: u32 length, then that many bytes with no NUL among them.  The
 * result is NUL-terminated. */
static bool read_str(Reader *r, const char *what, char **out, uint32_t *len_out) {
    size_t at = r->pos;
    uint32_t len;
    if (!read_u32(r, what, &len)) return false;
    if (len > PROG_MAX_STRING_BYTES)
        return fail_at(r, at, "%s is %u bytes long; the limit is %u", what, len, PROG_MAX_STRING_BYTES);
    if (len > left(r))
        return fail_at(r, at, "truncated file: %s length %u runs past end of file", what, len);
    const uint8_t *bytes = r->data + r->pos;
    const uint8_t *nul = memchr(bytes, 0, len);
    if (nul) return fail_at(r, (size_t)(nul - r->data), "%s contains a NUL byte", what);
    char *s = malloc((size_t)len + 1);
    if (!s) return fail_at(r, at, "out of memory");
    memcpy(s, bytes, len);
    s[len] = '\0';
    r->pos += len;
    *out = s;
    if (len_out) *len_out = len;
    return true;
}

/* A list count, refused over `limit` (limits.h; `plural` names the items
 * in that message) and unless `count` items of at least `min_size` bytes
 * each fit in what is left: the guard that keeps a hostile count from
 * becoming a huge allocation. */
static bool read_count(Reader *r, const char *what, size_t min_size, uint32_t limit, const char *plural,
                       uint32_t *out) {
    size_t at = r->pos;
    if (!read_u32(r, what, out)) return false;
    if (*out > limit) return fail_at(r, at, "%u %s; the limit is %u", *out, plural, limit);
    if ((uint64_t)*out * min_size > left(r))
        return fail_at(r, at, "truncated file: %s %u runs past end of file (%zu bytes left)", what, *out, left(r));
    return true;
}

/* An index that must be below `limit`; `plural` names what it indexes. */
static bool read_index(Reader *r, const char *what, uint32_t limit, const char *plural, uint32_t *out) {
    size_t at = r->pos;
    if (!read_u32(r, what, out)) return false;
    if (*out >= limit) return fail_at(r, at, "%s %u out of range (%u %s)", what, *out, limit, plural);
    return true;
}

/* calloc for `count` items, which read_count has already bounded by the
 * image size; count 0 gives NULL, which is not an error. */
static bool alloc_items(Reader *r, void **out, uint32_t count, size_t size) {
    *out = NULL;
    if (count == 0) return true;
    *out = calloc(count, size);
    if (!*out) return fail_at(r, r->pos, "out of memory");
    return true;
}

/* A list of at most `max_count` u32 items (`counted` names them in that
 * message), each an index below `limit` when `limit` is not PROG_NONE
 * (class member lists are checked later, once their targets have been
 * counted). */
static bool read_u32_list(Reader *r, const char *count_what, uint32_t max_count, const char *counted,
                          const char *item_what, uint32_t limit, const char *plural, uint32_t *count,
                          uint32_t **items, size_t *items_at) {
    if (!read_count(r, count_what, BC_MIN_U32, max_count, counted, count)) return false;
    if (items_at) *items_at = r->pos;
    if (!alloc_items(r, (void **)items, *count, sizeof **items)) return false;
    for (uint32_t i = 0; i < *count; i++) {
        bool ok = limit == PROG_NONE ? read_u32(r, item_what, &(*items)[i])
                                     : read_index(r, item_what, limit, plural, &(*items)[i]);
        if (!ok) return false;
    }
    return true;
}

/* The natives list of a 1.1 file (bcformat.c): never empty, so that each
 * image has one encoding (a program without natives is written as 1.0). */
static bool read_natives(Reader *r, Program *p, BcOffsets *where) {
    size_t at = r->pos;
    uint32_t n;
    if (!read_count(r, "native count", BC_MIN_NATIVE, PROG_MAX_TABLE_ENTRIES, "natives", &n)) return false;
    if (n == 0) return fail_at(r, at, "a version 1.1 file declares at least one native (without natives it is 1.0)");
    if (!alloc_items(r, (void **)&p->natives, n, sizeof *p->natives) ||
        !alloc_items(r, (void **)&where->natives, n, sizeof *where->natives))
        return false;
    p->num_natives = n;
    for (uint32_t i = 0; i < n; i++) {
        ProgNative *native = &p->natives[i];
        where->natives[i] = (uint32_t)r->pos;
        uint8_t flags;
        if (!read_str(r, "native name", &native->name, NULL) || !read_str(r, "native library", &native->library, NULL))
            return false;
        size_t flags_at = r->pos;
        if (!read_u8(r, "native flags", &flags)) return false;
        if (flags & ~BC_NATIVE_TAKES_ENV) return fail_at(r, flags_at, "unknown native flags 0x%02x", flags);
        native->takes_env = flags & BC_NATIVE_TAKES_ENV;
        if (!read_u32_list(r, "native parameter count", PROG_MAX_PARAMS, "parameters", "type index", p->num_types,
                           "types", &native->num_params, &native->param_types, NULL) ||
            !read_index(r, "type index", p->num_types, "types", &native->return_type))
            return false;
    }
    return true;
}

static bool read_header(Reader *r, uint16_t *minor) {
    size_t have = r->len < sizeof bc_magic ? r->len : sizeof bc_magic;
    if (have > 0 && memcmp(r->data, bc_magic, have) != 0)
        return fail_at(r, 0, "bad magic (not a gclab bytecode file)");
    if (r->len < BC_HEADER_SIZE)
        return fail_at(r, 0, "truncated file: the header needs %d bytes, the file has %zu", BC_HEADER_SIZE, r->len);
    r->pos = sizeof bc_magic;
    uint16_t major;
    read_u16(r, "major version", &major);
    read_u16(r, "minor version", minor);
    if (major != BC_VERSION_MAJOR || *minor > BC_VERSION_MINOR)
        return fail_at(r, 4, "unsupported version %u.%u (this loader reads %d.%d)", major, *minor, BC_VERSION_MAJOR,
                       BC_VERSION_MINOR);
    return true;
}

static bool read_pools(Reader *r, Program *p, BcOffsets *where) {
    uint32_t n;
    if (!read_count(r, "type count", BC_MIN_STR, PROG_MAX_TABLE_ENTRIES, "types", &n)) return false;
    if (!alloc_items(r, (void **)&p->types, n, sizeof *p->types)) return false;
    if (!alloc_items(r, (void **)&where->types, n, sizeof *where->types)) return false;
    p->num_types = n;
    ArrayLevels array_levels = {0};
    for (uint32_t i = 0; i < n; i++) {
        where->types[i] = (uint32_t)r->pos;
        if (!read_str(r, "type descriptor", &p->types[i], NULL)) return false;
        char why[160];
        if (!array_levels_add(&array_levels, p->types[i], why, sizeof why))
            return fail_at(r, where->types[i], "%s", why);
        const char *problem = type_descriptor_problem(p->types[i]);
        if (problem)
            return fail_at(r, where->types[i], "malformed type descriptor \"%.60s\": %s", p->types[i], problem);
    }

    if (!read_count(r, "int constant count", BC_MIN_NUMBER, PROG_MAX_TABLE_ENTRIES, "int constants", &n)) return false;
    if (!alloc_items(r, (void **)&p->ints, n, sizeof *p->ints)) return false;
    p->num_ints = n;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t bits;
        if (!read_u64(r, "int constant", &bits)) return false;
        p->ints[i] = (int64_t)bits;
    }

    if (!read_count(r, "double constant count", BC_MIN_NUMBER, PROG_MAX_TABLE_ENTRIES, "double constants", &n)) return false;
    if (!alloc_items(r, (void **)&p->doubles, n, sizeof *p->doubles)) return false;
    p->num_doubles = n;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t bits;
        if (!read_u64(r, "double constant", &bits)) return false;
        memcpy(&p->doubles[i], &bits, sizeof bits);
    }

    if (!read_count(r, "string constant count", BC_MIN_STR, PROG_MAX_TABLE_ENTRIES, "string constants", &n)) return false;
    if (!alloc_items(r, (void **)&p->strings, n, sizeof *p->strings)) return false;
    p->num_strings = n;
    for (uint32_t i = 0; i < n; i++)
        if (!read_str(r, "string", &p->strings[i].chars, &p->strings[i].len)) return false;
    return true;
}

/* Where each class's three member lists start, for the range checks made
 * once the fields, statics and methods have been counted. */
typedef struct ClassListsAt {
    size_t fields, statics, methods;
} ClassListsAt;

static bool read_classes(Reader *r, Program *p, BcOffsets *where, ClassListsAt **lists_at) {
    uint32_t n;
    if (!read_count(r, "class count", BC_MIN_CLASS, PROG_MAX_TABLE_ENTRIES, "classes", &n)) return false;
    if (!alloc_items(r, (void **)&p->classes, n, sizeof *p->classes)) return false;
    if (!alloc_items(r, (void **)&where->classes, n, sizeof *where->classes)) return false;
    if (!alloc_items(r, (void **)lists_at, n, sizeof **lists_at)) return false;
    p->num_classes = n;
    for (uint32_t i = 0; i < n; i++) {
        ProgClass *c = &p->classes[i];
        ClassListsAt *at = &(*lists_at)[i];
        where->classes[i] = (uint32_t)r->pos;
        if (!read_str(r, "class name", &c->name, NULL) ||
            !read_str(r, "source file name", &c->source_file, NULL) ||
            !read_u32_list(r, "class field count", PROG_MAX_TABLE_ENTRIES, "fields in one class", "field index",
                           PROG_NONE, NULL, &c->num_fields, &c->fields, &at->fields) ||
            !read_u32_list(r, "class static count", PROG_MAX_TABLE_ENTRIES, "statics in one class",
                           "static index", PROG_NONE, NULL, &c->num_statics, &c->statics, &at->statics) ||
            !read_u32_list(r, "class method count", PROG_MAX_TABLE_ENTRIES, "methods in one class",
                           "method index", PROG_NONE, NULL, &c->num_methods, &c->methods, &at->methods))
            return false;
    }
    return true;
}

static bool read_fields(Reader *r, Program *p, const char *kind, ProgField **out, uint32_t *count,
                        uint32_t **offsets) {
    char what[64], plural[64];
    snprintf(what, sizeof what, "%s count", kind);
    snprintf(plural, sizeof plural, "%ss", kind);
    uint32_t n;
    if (!read_count(r, what, BC_MIN_FIELD, PROG_MAX_TABLE_ENTRIES, plural, &n)) return false;
    if (!alloc_items(r, (void **)out, n, sizeof **out)) return false;
    if (!alloc_items(r, (void **)offsets, n, sizeof **offsets)) return false;
    *count = n;
    snprintf(what, sizeof what, "%s name", kind);
    for (uint32_t i = 0; i < n; i++) {
        ProgField *f = &(*out)[i];
        (*offsets)[i] = (uint32_t)r->pos;
        if (!read_str(r, what, &f->name, NULL) || !read_index(r, "type index", p->num_types, "types", &f->type) ||
            !read_index(r, "owner class index", p->num_classes, "classes", &f->owner_class))
            return false;
    }
    return true;
}

/* A method needs a local slot for each parameter (program_layout relies on
 * it), so the counts are compared here, where the offset is known. */
static bool check_locals_cover_params(Reader *r, const Program *p, const ProgMethod *m, size_t plocals_at,
                                      size_t rlocals_at) {
    uint32_t prim_params = 0, ref_params = m->is_static ? 0 : 1;
    for (uint32_t i = 0; i < m->num_params; i++) {
        if (type_is_ref(p->types[m->param_types[i]])) ref_params++;
        else prim_params++;
    }
    if (m->num_prim_locals < prim_params)
        return fail_at(r, plocals_at, "%u primitive locals but %u primitive parameters", m->num_prim_locals,
                       prim_params);
    if (m->num_ref_locals < ref_params)
        return fail_at(r, rlocals_at, "%u reference locals but %u reference parameters (receiver included)",
                       m->num_ref_locals, ref_params);
    return true;
}

static bool read_lines(Reader *r, ProgMethod *m) {
    if (!read_count(r, "line table count", BC_MIN_LINE, PROG_MAX_LINE_ENTRIES, "line table entries", &m->num_lines)) return false;
    if (!alloc_items(r, (void **)&m->lines, m->num_lines, sizeof *m->lines)) return false;
    for (uint32_t i = 0; i < m->num_lines; i++) {
        size_t at = r->pos;
        LineEntry *e = &m->lines[i];
        if (!read_u32(r, "line table pc", &e->pc) || !read_u32(r, "line number", &e->line)) return false;
        if (e->pc >= m->code_len)
            return fail_at(r, at, "line table pc %u is past the end of the code (%u bytes)", e->pc, m->code_len);
        if (i > 0 && e->pc < m->lines[i - 1].pc)
            return fail_at(r, at, "line table is not sorted by pc (%u after %u)", e->pc, m->lines[i - 1].pc);
    }
    return true;
}

static bool read_method(Reader *r, Program *p, ProgMethod *m) {
    uint8_t flags;
    size_t flags_at, plocals_at, rlocals_at;
    if (!read_str(r, "method name", &m->name, NULL) ||
        !read_index(r, "owner class index", p->num_classes, "classes", &m->owner_class))
        return false;
    flags_at = r->pos;
    if (!read_u8(r, "method flags", &flags)) return false;
    if (flags & ~BC_METHOD_STATIC) return fail_at(r, flags_at, "unknown method flags 0x%02x", flags);
    m->is_static = flags & BC_METHOD_STATIC;
    if (!read_u32_list(r, "parameter count", PROG_MAX_PARAMS, "parameters", "type index", p->num_types, "types",
                       &m->num_params, &m->param_types, NULL) ||
        !read_index(r, "type index", p->num_types, "types", &m->return_type))
        return false;
    plocals_at = r->pos;
    if (!read_u32_list(r, "primitive local count", PROG_MAX_LOCALS, "primitive locals", "type index",
                       p->num_types, "types", &m->num_prim_locals, &m->prim_local_types, NULL))
        return false;
    rlocals_at = r->pos;
    if (!read_u32_list(r, "reference local count", PROG_MAX_LOCALS, "reference locals", "type index",
                       p->num_types, "types", &m->num_ref_locals, &m->ref_local_types, NULL) ||
        !check_locals_cover_params(r, p, m, plocals_at, rlocals_at))
        return false;
    if (!read_u32(r, "max primitive stack", &m->max_pstack) || !read_u32(r, "max reference stack", &m->max_rstack) ||
        !read_count(r, "code length", 1, PROG_MAX_CODE_BYTES, "bytes of code", &m->code_len))
        return false;
    m->code_offset = (uint32_t)r->pos;
    if (!alloc_items(r, (void **)&m->code, m->code_len, 1)) return false;
    if (m->code_len) memcpy(m->code, r->data + r->pos, m->code_len);
    r->pos += m->code_len;
    return read_lines(r, m);
}

/* Each class's member lists name fields, statics and methods, which come
 * later in the file; now they are counted, check the lists in place. */
static bool check_class_lists(Reader *r, const Program *p, const ClassListsAt *lists_at) {
    for (uint32_t c = 0; c < p->num_classes; c++) {
        const ProgClass *cls = &p->classes[c];
        for (uint32_t i = 0; i < cls->num_fields; i++)
            if (cls->fields[i] >= p->num_fields)
                return fail_at(r, lists_at[c].fields + 4 * (size_t)i, "field index %u out of range (%u fields)",
                               cls->fields[i], p->num_fields);
        for (uint32_t i = 0; i < cls->num_statics; i++)
            if (cls->statics[i] >= p->num_statics)
                return fail_at(r, lists_at[c].statics + 4 * (size_t)i, "static index %u out of range (%u statics)",
                               cls->statics[i], p->num_statics);
        for (uint32_t i = 0; i < cls->num_methods; i++)
            if (cls->methods[i] >= p->num_methods)
                return fail_at(r, lists_at[c].methods + 4 * (size_t)i, "method index %u out of range (%u methods)",
                               cls->methods[i], p->num_methods);
    }
    return true;
}

static bool read_program(Reader *r, Program *p, BcOffsets *where) {
    ClassListsAt *lists_at = NULL;
    uint16_t minor = 0;
    bool ok = read_header(r, &minor) && read_pools(r, p, where) && read_classes(r, p, where, &lists_at) &&
              read_fields(r, p, "field", &p->fields, &p->num_fields, &where->fields) &&
              read_fields(r, p, "static", &p->statics, &p->num_statics, &where->statics);
    if (ok) {
        uint32_t n;
        ok = read_count(r, "method count", BC_MIN_METHOD, PROG_MAX_TABLE_ENTRIES, "methods", &n) &&
             alloc_items(r, (void **)&p->methods, n, sizeof *p->methods) &&
             alloc_items(r, (void **)&where->methods, n, sizeof *where->methods);
        if (ok) p->num_methods = n;
        for (uint32_t i = 0; ok && i < n; i++) {
            where->methods[i] = (uint32_t)r->pos;
            ok = read_method(r, p, &p->methods[i]);
        }
    }
    if (ok && minor >= BC_MINOR_NATIVES) ok = read_natives(r, p, where);
    if (ok) {
        where->entry = (uint32_t)r->pos;
        ok = read_index(r, "entry method index", p->num_methods, "methods", &p->entry_method);
    }
    ok = ok && check_class_lists(r, p, lists_at);
    if (ok && r->pos != r->len)
        ok = fail_at(r, r->pos, "%zu unexpected bytes after the end of the program", left(r));
    free(lists_at);
    return ok;
}

void bc_offsets_free(BcOffsets *where) {
    free(where->types);
    free(where->classes);
    free(where->fields);
    free(where->statics);
    free(where->methods);
    free(where->natives);
    memset(where, 0, sizeof *where);
}

Program *bc_parse_located(const uint8_t *data, size_t len, const char *name, BcOffsets *where, char *err,
                          size_t errsize) {
    Reader r = {.data = data, .len = len, .name = name, .err = err, .errsize = errsize};
    BcOffsets offsets = {0};
    if (len > UINT32_MAX) {
        fail_at(&r, 0, "file too large (%zu bytes; offsets are 32-bit)", len);
        return NULL;
    }
    Program *p = calloc(1, sizeof *p);
    if (!p) {
        fail_at(&r, 0, "out of memory");
        return NULL;
    }
    if (!read_program(&r, p, &offsets)) {
        bc_offsets_free(&offsets);
        program_free(p);
        return NULL;
    }
    /* Everything program_layout checks has been checked above with its
     * offset, so a failure here is resource exhaustion. */
    const char *why;
    if (!program_layout(p, &why)) {
        fail_at(&r, 0, "%s", why);
        bc_offsets_free(&offsets);
        program_free(p);
        return NULL;
    }
    if (where) *where = offsets;
    else bc_offsets_free(&offsets);
    return p;
}

Program *bc_parse(const uint8_t *data, size_t len, const char *name, char *err, size_t errsize) {
    return bc_parse_located(data, len, name, NULL, err, errsize);
}
