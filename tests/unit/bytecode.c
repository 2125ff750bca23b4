/*
 * bytecode.c -- unit tests of the .bc format (vm/bytecode): writing,
 * reading every byte of it back, refusing every kind of damaged file with
 * "NAME: offset N: reason", and the loader that adds the verifier.
 *
 * Damaged files are made here, from a valid image, so every test says
 * exactly which bytes it breaks.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vm/asm/asm.h"
#include "vm/bytecode/bcformat.h"
#include "vm/bytecode/bytecode.h"
#include "vm/verify/verify.h"

/* A program with something in every section: types, ints, doubles,
 * strings, two classes with fields, statics and methods, line tables. */
static const char sample[] =
    ".type 0 J\n"
    ".type 1 LNode;\n"
    ".type 2 V\n"
    ".type 3 [LString;\n"
    ".type 4 D\n"
    ".int 0 -9223372036854775808\n"
    ".int 1 42\n"
    ".double 0 0.1\n"
    ".double 1 -0\n"
    ".double 2 bits=7ff8000000000123\n"
    ".string 0 \"sum: \"\n"
    ".string 1 \"tab\\there \\\"quoted\\\" \\xff\"\n"
    ".class Node \"list.gcl\"\n"
    ".field 0 value J\n"
    ".field 1 next LNode;\n"
    ".method 0 make static\n"
    "    .params J LNode;\n"
    "    .returns LNode;\n"
    "    .plocals J\n"
    "    .rlocals LNode; LNode;\n"
    "    .stack 1 2\n"
    "    .line 3\n"
    "    new Node\n"
    "    rstore 1\n"
    "    .line 4\n"
    "    rload 1\n"
    "    pload 0\n"
    "    putfp Node.value\n"
    "    .line 5\n"
    "    rload 1\n"
    "    rload 0\n"
    "    putfr Node.next\n"
    "    rload 1\n"
    "    retr\n"
    ".method 1 sum instance\n"
    "    .returns J\n"
    "    .rlocals LNode;\n"
    "    .stack 2 2\n"
    "    .line 9\n"
    "    rload 0\n"
    "    getfr Node.next\n"
    "    anull\n"
    "    req\n"
    "    jf more\n"
    "    rload 0\n"
    "    getfp Node.value\n"
    "    retp\n"
    "more:\n"
    "    .line 10\n"
    "    rload 0\n"
    "    getfp Node.value\n"
    "    rload 0\n"
    "    getfr Node.next\n"
    "    call Node.sum\n"
    "    iadd\n"
    "    retp\n"
    ".class list \"list.gcl\"\n"
    ".static 0 count J\n"
    ".method 2 main static\n"
    "    .params [LString;\n"
    "    .returns V\n"
    "    .rlocals [LString;\n"
    "    .stack 2 2\n"
    "    .line 14\n"
    "    ldi 1\n"
    "    anull\n"
    "    call Node.make\n"
    "    lds 0\n"
    "    rpop\n"
    "    call Node.sum\n"
    "    printi 1\n"
    "    ldd 0\n"
    "    printd 1\n"
    "    ret\n"
    ".entry list.main\n";

static Program *sample_program(void) {
    char err[512];
    Program *p = asm_parse_verified("sample.s", sample, strlen(sample), err, sizeof err);
    cr_assert_not_null(p, "%s", err);
    return p;
}

static uint8_t *sample_image(size_t *len) {
    Program *p = sample_program();
    uint8_t *image = bc_serialize(p, len);
    cr_assert_not_null(image);
    program_free(p);
    return image;
}

static void put_u32(uint8_t *at, uint32_t v) {
    for (int i = 0; i < 4; i++) at[i] = (uint8_t)(v >> (8 * i));
}

/* Parses an exact-size copy (so a sanitizer sees any read past the end) and
 * returns the error, or "" if it parsed. */
static const char *parse_error(const uint8_t *image, size_t len) {
    static char err[512];
    uint8_t *copy = malloc(len ? len : 1);
    cr_assert_not_null(copy);
    if (len) memcpy(copy, image, len);
    err[0] = '\0';
    Program *p = bc_parse(copy, len, "t.bc", err, sizeof err);
    if (p) {
        err[0] = '\0';
        program_free(p);
    }
    free(copy);
    return err;
}

#define ASSERT_PARSE_ERROR(image, len, expected)                                           \
    do {                                                                                   \
        const char *got_ = parse_error(image, len);                                        \
        cr_assert_str_eq(got_, expected);                                                  \
    } while (0)

/* ---- round trips ---------------------------------------------------------------------- */

Test(roundtrip, serialize_parse_serialize_is_identical) {
    size_t len;
    uint8_t *image = sample_image(&len);
    char err[512];
    Program *p = bc_parse(image, len, "t.bc", err, sizeof err);
    cr_assert_not_null(p, "%s", err);
    size_t len2;
    uint8_t *image2 = bc_serialize(p, &len2);
    cr_assert_eq(len2, len);
    cr_assert_eq(memcmp(image, image2, len), 0);
    /* What was read is what was written. */
    cr_assert_eq(p->ints[0], INT64_MIN);
    cr_assert_eq(p->num_strings, 2);
    cr_assert_str_eq(p->strings[1].chars, "tab\there \"quoted\" \xff");
    uint64_t bits;
    memcpy(&bits, &p->doubles[2], sizeof bits);
    cr_assert_eq(bits, UINT64_C(0x7ff8000000000123), "NaN payloads survive");
    cr_assert_eq(p->methods[1].num_lines, 2);
    free(image2);
    program_free(p);
    free(image);
}

Test(roundtrip, code_offset_is_where_the_code_is) {
    size_t len;
    uint8_t *image = sample_image(&len);
    char err[512];
    Program *p = bc_parse(image, len, "t.bc", err, sizeof err);
    cr_assert_not_null(p, "%s", err);
    for (uint32_t i = 0; i < p->num_methods; i++) {
        const ProgMethod *m = &p->methods[i];
        cr_assert_leq((size_t)m->code_offset + m->code_len, len);
        cr_assert_eq(memcmp(image + m->code_offset, m->code, m->code_len), 0, "method %u", i);
    }
    program_free(p);
    free(image);
}

Test(roundtrip, file_written_and_loaded) {
    char dir[] = "/tmp/gclab-bc-XXXXXX", path[64], err[512];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/prog.bc", dir);
    Program *p = sample_program();
    cr_assert(bc_write_file(p, path, err, sizeof err), "%s", err);
    program_free(p);
    Program *loaded = bc_load_file(path, err, sizeof err);
    cr_assert_not_null(loaded, "%s", err);
    size_t len, len2;
    uint8_t *image = sample_image(&len), *image2 = bc_serialize(loaded, &len2);
    cr_assert(len == len2 && memcmp(image, image2, len) == 0);
    free(image);
    free(image2);
    program_free(loaded);
    unlink(path);
    cr_assert_eq(rmdir(dir), 0, "bc_write_file left something behind: %s", strerror(errno));
}

/* ---- damaged images ------------------------------------------------------------------- */

Test(damaged, every_truncation_is_an_error_with_an_offset) {
    size_t len;
    uint8_t *image = sample_image(&len);
    for (size_t cut = 0; cut < len; cut++) {
        const char *err = parse_error(image, cut);
        cr_assert(strncmp(err, "t.bc: offset ", 13) == 0, "cut at %zu: \"%s\"", cut, err);
        cr_assert(strstr(err, "truncated file") != NULL, "cut at %zu: \"%s\"", cut, err);
    }
    free(image);
}

Test(damaged, empty_file) { ASSERT_PARSE_ERROR((const uint8_t *)"", 0, "t.bc: offset 0: truncated file: the header needs 8 bytes, the file has 0"); }

Test(damaged, bad_magic) {
    ASSERT_PARSE_ERROR((const uint8_t *)"NOPE\1\0\0\0", 8, "t.bc: offset 0: bad magic (not a gclab bytecode file)");
    ASSERT_PARSE_ERROR((const uint8_t *)"#!", 2, "t.bc: offset 0: bad magic (not a gclab bytecode file)");
}

Test(damaged, bad_version) {
    size_t len;
    uint8_t *image = sample_image(&len);
    image[4] = 7;
    ASSERT_PARSE_ERROR(image, len, "t.bc: offset 4: unsupported version 7.0 (this loader reads 1.1)");
    image[4] = 1;
    image[6] = 2;
    ASSERT_PARSE_ERROR(image, len, "t.bc: offset 4: unsupported version 1.2 (this loader reads 1.1)");
    free(image);
}

Test(damaged, trailing_bytes) {
    size_t len;
    uint8_t *image = sample_image(&len);
    uint8_t *longer = calloc(len + 3, 1);
    memcpy(longer, image, len);
    char expected[128];
    snprintf(expected, sizeof expected, "t.bc: offset %zu: 3 unexpected bytes after the end of the program", len);
    ASSERT_PARSE_ERROR(longer, len + 3, expected);
    free(longer);
    free(image);
}

Test(damaged, hostile_count_is_refused_before_allocating) {
    size_t len;
    uint8_t *image = sample_image(&len);
    put_u32(image + 8, 65536); /* the type count, at its limit */
    char expected[160];
    snprintf(expected, sizeof expected,
             "t.bc: offset 8: truncated file: type count 65536 runs past end of file (%zu bytes left)", len - 12);
    ASSERT_PARSE_ERROR(image, len, expected);
    put_u32(image + 8, 0xFFFFFFFFu);
    ASSERT_PARSE_ERROR(image, len, "t.bc: offset 8: 4294967295 types; the limit is 65536");
    free(image);
}

Test(damaged, string_length_past_the_end) {
    size_t len;
    uint8_t *image = sample_image(&len);
    put_u32(image + 12, 65535); /* the length of the first type descriptor, at its limit */
    ASSERT_PARSE_ERROR(image, len, "t.bc: offset 12: truncated file: type descriptor length 65535 runs past end of file");
    put_u32(image + 12, 65536);
    ASSERT_PARSE_ERROR(image, len, "t.bc: offset 12: type descriptor is 65536 bytes long; the limit is 65535");
    free(image);
}

/* Every 4-byte window set to 0xFFFFFFFF, and every byte set to a few
 * values: the reader must refuse or accept without crashing, and whatever it
 * accepts the verifier must get through without crashing too. */
Test(damaged, mutations_never_crash) {
    size_t len;
    uint8_t *image = sample_image(&len);
    uint8_t *copy = malloc(len);
    static const uint8_t values[] = {0x00, 0x01, 0x02, 0x7f, 0x80, 0xfe, 0xff};
    char err[512];
    int accepted = 0;
    for (size_t at = 0; at < len; at++) {
        for (size_t v = 0; v <= sizeof values; v++) {
            memcpy(copy, image, len);
            if (v == sizeof values) {
                if (at + 4 > len) continue;
                put_u32(copy + at, 0xFFFFFFFFu);
            } else {
                copy[at] = values[v];
            }
            Program *p = bc_parse(copy, len, "t.bc", err, sizeof err);
            if (!p) {
                cr_assert(strncmp(err, "t.bc: offset ", 13) == 0, "at %zu: \"%s\"", at, err);
                continue;
            }
            VerifyError verr;
            if (verify_program(p, &verr)) accepted++;
            program_free(p);
        }
    }
    cr_assert_gt(accepted, 0, "some mutations (of constants, say) are harmless");
    free(copy);
    free(image);
}

/* ---- out-of-range indexes and bad declarations, at their offsets -------------------------- */

typedef struct Located {
    uint8_t *image;
    size_t len;
    Program *p;
    BcOffsets where;
} Located;

static Located locate_sample(void) {
    Located l;
    char err[512];
    l.image = sample_image(&l.len);
    l.p = bc_parse_located(l.image, l.len, "t.bc", &l.where, err, sizeof err);
    cr_assert_not_null(l.p, "%s", err);
    return l;
}

static void located_free(Located *l) {
    program_free(l->p);
    bc_offsets_free(&l->where);
    free(l->image);
}

/* Offsets inside a method record (bcformat.c: name, owner, flags, params...). */
static size_t method_owner_at(const Located *l, uint32_t m) { return l->where.methods[m] + 4 + strlen(l->p->methods[m].name); }

static void expect_at(const Located *l, size_t offset, const char *reason) {
    char expected[300];
    snprintf(expected, sizeof expected, "t.bc: offset %zu: %s", offset, reason);
    ASSERT_PARSE_ERROR(l->image, l->len, expected);
}

Test(indexes, field_type_and_owner) {
    Located l = locate_sample();
    size_t type_at = l.where.fields[1] + 4 + strlen("next");
    put_u32(l.image + type_at, 99);
    expect_at(&l, type_at, "type index 99 out of range (5 types)");
    put_u32(l.image + type_at, 1);
    put_u32(l.image + type_at + 4, 2);
    expect_at(&l, type_at + 4, "owner class index 2 out of range (2 classes)");
    located_free(&l);
}

Test(indexes, class_member_lists) {
    Located l = locate_sample();
    /* class 0: name "Node", source "list.gcl", then its field list. */
    size_t fields_at = l.where.classes[0] + 4 + 4 + 4 + 8 + 4;
    put_u32(l.image + fields_at + 4, 50);
    expect_at(&l, fields_at + 4, "field index 50 out of range (2 fields)");
    put_u32(l.image + fields_at + 4, 1);
    size_t methods_at = fields_at + 8 + 4 + 4; /* two fields, an empty static list, the method count */
    put_u32(l.image + methods_at, 3);
    expect_at(&l, methods_at, "method index 3 out of range (3 methods)");
    located_free(&l);
}

Test(indexes, method_owner_flags_and_types) {
    Located l = locate_sample();
    size_t owner_at = method_owner_at(&l, 0);
    put_u32(l.image + owner_at, 5);
    expect_at(&l, owner_at, "owner class index 5 out of range (2 classes)");
    put_u32(l.image + owner_at, 0);
    l.image[owner_at + 4] = 0x03;
    expect_at(&l, owner_at + 4, "unknown method flags 0x03");
    l.image[owner_at + 4] = 0x01;
    size_t param_at = owner_at + 4 + 1 + 4; /* the first parameter type */
    put_u32(l.image + param_at, 5);
    expect_at(&l, param_at, "type index 5 out of range (5 types)");
    /* Make the second parameter (a Node) an int: two int parameters, one int local. */
    put_u32(l.image + param_at, 0);
    put_u32(l.image + param_at + 4, 0);
    size_t plocals_at = param_at + 8 + 4;
    expect_at(&l, plocals_at, "1 primitive locals but 2 primitive parameters");
    located_free(&l);
}

Test(indexes, entry_and_descriptors) {
    Located l = locate_sample();
    put_u32(l.image + l.where.entry, 3);
    expect_at(&l, l.where.entry, "entry method index 3 out of range (3 methods)");
    put_u32(l.image + l.where.entry, 2);
    l.image[l.where.types[1] + 4] = 'Q'; /* "LNode;" becomes "QNode;" */
    expect_at(&l, l.where.types[1], "malformed type descriptor \"QNode;\": it starts with none of Z B C S I J F D V L [");
    l.image[l.where.types[1] + 4] = '['; /* "[Node;" */
    expect_at(&l, l.where.types[1], "malformed type descriptor \"[Node;\": it starts with none of Z B C S I J F D V L [");
    l.image[l.where.types[1] + 9] = '_'; /* "[Node_" */
    l.image[l.where.types[1] + 5] = 'L'; /* "[Lode_" */
    expect_at(&l, l.where.types[1], "malformed type descriptor \"[Lode_\": the class name has no ';' after it");
    located_free(&l);
}

Test(indexes, string_with_a_nul) {
    Located l = locate_sample();
    /* The strings follow the doubles; string 0 is "sum: ". */
    size_t strings_at = l.where.types[4] + 4 + 1 + 4 + 16 + 4 + 24;
    cr_assert_eq(memcmp(l.image + strings_at + 8, "sum: ", 5), 0, "the test knows where string 0 is");
    l.image[strings_at + 8 + 2] = 0;
    expect_at(&l, strings_at + 8 + 2, "string contains a NUL byte");
    located_free(&l);
}

Test(indexes, line_tables) {
    Located l = locate_sample();
    const ProgMethod *m = &l.p->methods[1];
    size_t lines_at = m->code_offset + m->code_len + 4; /* entry 0: pc, line */
    put_u32(l.image + lines_at, 9999);
    char reason[128];
    snprintf(reason, sizeof reason, "line table pc 9999 is past the end of the code (%u bytes)", m->code_len);
    expect_at(&l, lines_at, reason);
    put_u32(l.image + lines_at, 0);
    put_u32(l.image + lines_at + 8, 0);
    put_u32(l.image + lines_at, 5);
    expect_at(&l, lines_at + 8, "line table is not sorted by pc (0 after 5)");
    located_free(&l);
}

/* ---- the loader: reading files, and the verifier's errors at their offsets ---------------- */

/* Writes `text` (assembled but not verified) to a temporary .bc file and
 * loads it; returns the loader's error, with the image's offsets in *l. */
static const char *load_error(const char *text, Located *l, char *path, size_t path_size) {
    static char err[600];
    char dir[] = "/tmp/gclab-load-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, path_size, "%s/bad.bc", dir);
    Program *p = asm_parse("bad.s", text, strlen(text), err, sizeof err);
    cr_assert_not_null(p, "%s", err);
    cr_assert(bc_write_file(p, path, err, sizeof err), "%s", err);
    l->image = bc_serialize(p, &l->len);
    program_free(p);
    l->p = bc_parse_located(l->image, l->len, path, &l->where, err, sizeof err);
    cr_assert_not_null(l->p, "%s", err);
    Program *loaded = bc_load_file(path, err, sizeof err);
    cr_assert_null(loaded, "the loader accepted it");
    unlink(path);
    rmdir(dir);
    return err;
}

Test(loader, code_error_offset_is_code_offset_plus_pc) {
    Located l;
    char path[64], expected[400];
    const char *err = load_error(".double 0 2.5\n.class C \"t.gcl\"\n.method 0 main static\n    .returns J\n"
                                 "    .stack 2 0\n    pushi 1\n    ldd 0\n    iadd\n    retp\n.entry C.main\n",
                                 &l, path, sizeof path);
    snprintf(expected, sizeof expected,
             "%s: offset %u: in C.main: type mismatch: IADD needs int, int but the stack has int, double", path,
             l.p->methods[0].code_offset + 8);
    cr_assert_str_eq(err, expected);
    located_free(&l);
}

Test(loader, declaration_errors_point_at_the_declaration) {
    Located l;
    char path[64], expected[400];
    const char *err = load_error(".class C \"t.gcl\"\n.field 0 nothing V\n.method 0 main static\n    .returns V\n"
                                 "    .stack 0 0\n    ret\n.entry C.main\n",
                                 &l, path, sizeof path);
    snprintf(expected, sizeof expected, "%s: offset %u: field C.nothing has type void: void is only a return type", path,
             l.where.fields[0]);
    cr_assert_str_eq(err, expected);
    located_free(&l);

    err = load_error(".class C \"t.gcl\"\n.method 0 main instance\n    .returns V\n    .rlocals LC;\n"
                     "    .stack 0 0\n    ret\n.entry C.main\n",
                     &l, path, sizeof path);
    snprintf(expected, sizeof expected, "%s: offset %u: the entry method C.main must be static", path, l.where.entry);
    cr_assert_str_eq(err, expected);
    located_free(&l);

    err = load_error(".class C \"t.gcl\"\n.method 0 main static\n    .returns V\n    .plocals B\n"
                     "    .stack 0 0\n    ret\n.entry C.main\n",
                     &l, path, sizeof path);
    snprintf(expected, sizeof expected, "%s: offset %u: in C.main: primitive local 0 has type byte, not int, double or bool",
             path, l.where.methods[0]);
    cr_assert_str_eq(err, expected);
    located_free(&l);
}

Test(loader, missing_file_and_directory) {
    char err[512];
    cr_assert_null(bc_load_file("/nonexistent/nosuch.bc", err, sizeof err));
    cr_assert_str_eq(err, "/nonexistent/nosuch.bc: cannot read: No such file or directory");
    cr_assert_null(bc_load_file("/tmp", err, sizeof err));
    cr_assert_str_eq(err, "/tmp: cannot read: Is a directory");
}

/* ---- atomic writes ------------------------------------------------------------------------- */

static int entries_in(const char *dir) {
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
    closedir(d);
    return n;
}

Test(write, failure_leaves_nothing_behind) {
    char dir[] = "/tmp/gclab-write-XXXXXX", path[80], err[512];
    cr_assert_not_null(mkdtemp(dir));
    Program *p = sample_program();

    snprintf(path, sizeof path, "%s/no/such/dir/prog.bc", dir);
    cr_assert_not(bc_write_file(p, path, err, sizeof err));
    cr_assert(strstr(err, "prog.bc: cannot write: No such file or directory") != NULL, "%s", err);
    cr_assert_eq(entries_in(dir), 0);

    /* The target is a directory: the rename fails after the data is written,
     * and the temporary file must go. */
    snprintf(path, sizeof path, "%s/taken", dir);
    cr_assert_eq(mkdir(path, 0700), 0);
    cr_assert_not(bc_write_file(p, path, err, sizeof err));
    cr_assert(strstr(err, "taken: cannot write: ") != NULL, "%s", err);
    cr_assert_eq(entries_in(dir), 1, "only the directory remains");
    rmdir(path);

    /* A successful write replaces an existing file whole. */
    snprintf(path, sizeof path, "%s/prog.bc", dir);
    FILE *old = fopen(path, "w");
    fputs("old contents, much longer than nothing at all", old);
    fclose(old);
    cr_assert(bc_write_file(p, path, err, sizeof err), "%s", err);
    cr_assert_eq(entries_in(dir), 1);
    size_t len;
    uint8_t *image = sample_image(&len);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq((size_t)st.st_size, len);
    free(image);
    unlink(path);
    program_free(p);
    rmdir(dir);
}

/* ---- limits (vm/limits.h): each size at its limit loads, one more is refused
 * with a message naming the limit ------------------------------------------------ */

static void *grow(void *table, uint32_t count, size_t size) {
    void *grown = realloc(table, (size_t)count * size);
    cr_assert_not_null(grown);
    return grown;
}

static char *repeated(char c, size_t n, const char *before, const char *after) {
    size_t b = strlen(before), a = strlen(after);
    char *s = malloc(b + n + a + 1);
    cr_assert_not_null(s);
    memcpy(s, before, b);
    memset(s + b, c, n);
    memcpy(s + b + n, after, a + 1);
    return s;
}

/* Serializes p (which it frees) and returns the parse error, "" if none. */
static const char *limit_error(Program *p) {
    size_t len;
    uint8_t *image = bc_serialize(p, &len);
    cr_assert_not_null(image);
    program_free(p);
    const char *err = parse_error(image, len);
    free(image);
    return err;
}

#define ASSERT_WITHIN_LIMIT(p) cr_assert_str_eq(limit_error(p), "")
#define ASSERT_OVER_LIMIT(p, reason)                                                     \
    do {                                                                                 \
        const char *err_ = limit_error(p);                                               \
        cr_assert(strncmp(err_, "t.bc: offset ", 13) == 0 && strstr(err_, reason),      \
                  "error \"%s\" should say \"%s\"", err_, reason);                       \
    } while (0)

static Program *with_types(uint32_t count, const char *desc) {
    Program *p = sample_program();
    p->types = grow(p->types, count, sizeof *p->types);
    for (uint32_t t = p->num_types; t < count; t++) p->types[t] = strdup(desc);
    p->num_types = count;
    return p;
}

Test(limits, array_nesting) {
    char *at_limit = repeated('[', 255, "", "J"), *over = repeated('[', 256, "", "J");
    ASSERT_WITHIN_LIMIT(with_types(6, at_limit));
    ASSERT_OVER_LIMIT(with_types(6, over), "array type nests 256 deep; the limit is 255");
    free(at_limit);
    free(over);
}

Test(limits, thirty_thousand_deep_array_type_is_refused_at_once) {
    char *deep = repeated('[', 30000, "", "J");
    ASSERT_OVER_LIMIT(with_types(6, deep), "array type nests 30000 deep; the limit is 255");
    free(deep);
}

Test(limits, array_levels_in_all_types) {
    /* The sample's "[LString;" and 257 types of 255 levels: 65536 levels;
     * then one more. */
    char *deep = repeated('[', 255, "", "J");
    ASSERT_WITHIN_LIMIT(with_types(5 + 257, deep));
    Program *p = with_types(5 + 257, deep);
    p->types = grow(p->types, p->num_types + 1, sizeof *p->types);
    p->types[p->num_types++] = strdup("[J");
    ASSERT_OVER_LIMIT(p, "65537 array levels in all types; the limit is 65536");
    free(deep);
}

Test(limits, array_level_bytes_in_all_types) {
    /* The sample's own "[LString;" counts 9; 511 descriptors of 32768 bytes
     * and one of 32759 make 16 MiB; one byte more is over. */
    char *big = repeated('x', 32768 - 3, "[L", ";"), *last = repeated('x', 32759 - 3, "[L", ";");
    Program *p = with_types(5 + 511, big);
    p->types = grow(p->types, p->num_types + 1, sizeof *p->types);
    p->types[p->num_types++] = strdup(last);
    ASSERT_WITHIN_LIMIT(p);
    p = with_types(5 + 511, big);
    p->types = grow(p->types, p->num_types + 1, sizeof *p->types);
    p->types[p->num_types++] = repeated('x', 32760 - 3, "[L", ";");
    ASSERT_OVER_LIMIT(p, "16777217 bytes of array descriptors at all levels; the limit is 16777216");
    free(big);
    free(last);
}

Test(limits, types) {
    ASSERT_WITHIN_LIMIT(with_types(65536, "J"));
    ASSERT_OVER_LIMIT(with_types(65537, "J"), "65537 types; the limit is 65536");
}

static Program *with_constants(uint32_t ints, uint32_t doubles, uint32_t strings) {
    Program *p = sample_program();
    p->ints = grow(p->ints, ints, sizeof *p->ints);
    for (uint32_t i = p->num_ints; i < ints; i++) p->ints[i] = i;
    p->num_ints = ints;
    p->doubles = grow(p->doubles, doubles, sizeof *p->doubles);
    for (uint32_t i = p->num_doubles; i < doubles; i++) p->doubles[i] = i;
    p->num_doubles = doubles;
    p->strings = grow(p->strings, strings, sizeof *p->strings);
    for (uint32_t i = p->num_strings; i < strings; i++) p->strings[i] = (ProgString){strdup("s"), 1};
    p->num_strings = strings;
    return p;
}

Test(limits, constants) {
    ASSERT_WITHIN_LIMIT(with_constants(65536, 65536, 65536));
    ASSERT_OVER_LIMIT(with_constants(65537, 2, 2), "65537 int constants; the limit is 65536");
    ASSERT_OVER_LIMIT(with_constants(2, 65537, 2), "65537 double constants; the limit is 65536");
    ASSERT_OVER_LIMIT(with_constants(2, 2, 65537), "65537 string constants; the limit is 65536");
}

static Program *with_string_of(uint32_t len) {
    Program *p = sample_program();
    free(p->strings[0].chars);
    p->strings[0] = (ProgString){repeated('s', len, "", ""), len};
    return p;
}

Test(limits, string_length) {
    ASSERT_WITHIN_LIMIT(with_string_of(65535));
    ASSERT_OVER_LIMIT(with_string_of(65536), "string is 65536 bytes long; the limit is 65535");
}

static Program *with_classes_and_fields(uint32_t classes, uint32_t fields, uint32_t statics) {
    Program *p = sample_program();
    p->classes = grow(p->classes, classes, sizeof *p->classes);
    for (uint32_t c = p->num_classes; c < classes; c++) {
        char name[32];
        snprintf(name, sizeof name, "C%u", c);
        p->classes[c] = (ProgClass){.name = strdup(name), .source_file = strdup("c.gcl")};
    }
    p->num_classes = classes;
    ProgField **tables[] = {&p->fields, &p->statics};
    uint32_t *counts[] = {&p->num_fields, &p->num_statics}, wanted[] = {fields, statics};
    for (int k = 0; k < 2; k++) {
        *tables[k] = grow(*tables[k], wanted[k], sizeof **tables[k]);
        for (uint32_t f = *counts[k]; f < wanted[k]; f++)
            (*tables[k])[f] = (ProgField){.name = strdup("f"), .type = 0, .owner_class = 0};
        *counts[k] = wanted[k];
    }
    return p;
}

Test(limits, classes_fields_statics) {
    ASSERT_WITHIN_LIMIT(with_classes_and_fields(65536, 65536, 65536));
    ASSERT_OVER_LIMIT(with_classes_and_fields(65537, 2, 1), "65537 classes; the limit is 65536");
    ASSERT_OVER_LIMIT(with_classes_and_fields(2, 65537, 1), "65537 fields; the limit is 65536");
    ASSERT_OVER_LIMIT(with_classes_and_fields(2, 2, 65537), "65537 statics; the limit is 65536");
}

static Program *with_class_fields_listed(uint32_t count) {
    Program *p = sample_program();
    ProgClass *c = &p->classes[0];
    c->fields = grow(c->fields, count, sizeof *c->fields);
    for (uint32_t i = c->num_fields; i < count; i++) c->fields[i] = 0;
    c->num_fields = count;
    return p;
}

Test(limits, members_of_one_class) {
    ASSERT_WITHIN_LIMIT(with_class_fields_listed(65536));
    ASSERT_OVER_LIMIT(with_class_fields_listed(65537), "65537 fields in one class; the limit is 65536");
}

static void copy_method(ProgMethod *to, const ProgMethod *from) {
    *to = *from;
    to->name = strdup(from->name);
    to->signature = NULL;
    to->param_types = malloc((from->num_params + 1) * sizeof *to->param_types);
    memcpy(to->param_types, from->param_types, from->num_params * sizeof *to->param_types);
    to->prim_local_types = malloc((from->num_prim_locals + 1) * sizeof *to->prim_local_types);
    memcpy(to->prim_local_types, from->prim_local_types, from->num_prim_locals * sizeof *to->prim_local_types);
    to->ref_local_types = malloc((from->num_ref_locals + 1) * sizeof *to->ref_local_types);
    memcpy(to->ref_local_types, from->ref_local_types, from->num_ref_locals * sizeof *to->ref_local_types);
    to->code = malloc(from->code_len);
    memcpy(to->code, from->code, from->code_len);
    to->lines = malloc((from->num_lines + 1) * sizeof *to->lines);
    memcpy(to->lines, from->lines, from->num_lines * sizeof *to->lines);
}

static Program *with_methods(uint32_t count) {
    Program *p = sample_program();
    p->methods = grow(p->methods, count, sizeof *p->methods);
    for (uint32_t m = p->num_methods; m < count; m++) copy_method(&p->methods[m], &p->methods[0]);
    p->num_methods = count;
    return p;
}

Test(limits, methods) {
    ASSERT_WITHIN_LIMIT(with_methods(65536));
    ASSERT_OVER_LIMIT(with_methods(65537), "65537 methods; the limit is 65536");
}

/* Method 0 (make(J, LNode;)) with `params` int parameters and `locals`
 * primitive locals of type J (type 0). */
static Program *with_params_and_locals(uint32_t params, uint32_t locals) {
    Program *p = sample_program();
    ProgMethod *m = &p->methods[0];
    m->param_types = grow(m->param_types, params, sizeof *m->param_types);
    for (uint32_t i = 0; i < params; i++) m->param_types[i] = 0;
    m->num_params = params;
    m->prim_local_types = grow(m->prim_local_types, locals, sizeof *m->prim_local_types);
    for (uint32_t i = 0; i < locals; i++) m->prim_local_types[i] = 0;
    m->num_prim_locals = locals;
    return p;
}

Test(limits, parameters_and_locals) {
    ASSERT_WITHIN_LIMIT(with_params_and_locals(255, 65536));
    ASSERT_OVER_LIMIT(with_params_and_locals(256, 256), "256 parameters; the limit is 255");
    ASSERT_OVER_LIMIT(with_params_and_locals(1, 65537), "65537 primitive locals; the limit is 65536");
}

static Program *with_code_and_lines(uint32_t code_len, uint32_t lines) {
    Program *p = sample_program();
    ProgMethod *m = &p->methods[0];
    m->code = grow(m->code, code_len, 1);
    memset(m->code, 0, code_len);
    m->code_len = code_len;
    m->lines = grow(m->lines, lines, sizeof *m->lines);
    for (uint32_t i = 0; i < lines; i++) m->lines[i] = (LineEntry){0, 1};
    m->num_lines = lines;
    return p;
}

Test(limits, code_and_line_table) {
    ASSERT_WITHIN_LIMIT(with_code_and_lines(65535, 65535));
    ASSERT_OVER_LIMIT(with_code_and_lines(65536, 1), "65536 bytes of code; the limit is 65535");
    ASSERT_OVER_LIMIT(with_code_and_lines(10, 65536), "65536 line table entries; the limit is 65535");
}
