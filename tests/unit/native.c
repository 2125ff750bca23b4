/*
 * native.c -- unit tests of native declarations through the toolchain:
 * the .bc natives list (vm/bytecode/bcformat.c) written and read back,
 * refused with "NAME: offset N: reason" when damaged, the verifier's
 * checks of native signatures and CALLN, vmdis | vmas round trips, and the
 * compiler's errors for natives.  Calls themselves are tested by running
 * programs (tests/native/).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/asm/asm.h"
#include "vm/bytecode/bcformat.h"
#include "vm/bytecode/bytecode.h"
#include "vm/compiler/compiler.h"
#include "vm/verify/verify.h"

/* Two natives: cos (a number) and strlen (a string), called by main. */
static const char with_natives[] =
    ".double 0 0.5\n"
    ".string 0 \"four\"\n"
    ".class C \"t.gcl\"\n"
    ".method 0 main static\n"
    "    .returns V\n"
    "    .stack 1 1\n"
    "    ldd 0\n"
    "    calln 0\n"
    "    printd 1\n"
    "    lds 0\n"
    "    calln 1\n"
    "    printi 1\n"
    "    ret\n"
    ".native 0 cos \"libm.so.6\" D D\n"
    ".native 1 strlen \"libc.so.6\" J LString;\n"
    ".entry C.main\n";

static Program *assemble(const char *text, bool verify, char *err, size_t errsize) {
    return verify ? asm_parse_verified("n.s", text, strlen(text), err, errsize)
                  : asm_parse("n.s", text, strlen(text), err, errsize);
}

static uint8_t *image_of(const char *text, size_t *len) {
    char err[512];
    Program *p = assemble(text, true, err, sizeof err);
    cr_assert_not_null(p, "%s", err);
    uint8_t *image = bc_serialize(p, len);
    cr_assert_not_null(image);
    program_free(p);
    return image;
}

static void put_u32(uint8_t *at, uint32_t v) {
    for (int i = 0; i < 4; i++) at[i] = (uint8_t)(v >> (8 * i));
}

/* The loader's error for an exact-size copy of image, or "" if it loads. */
static const char *load_error(const uint8_t *image, size_t len) {
    static char err[512];
    uint8_t *copy = malloc(len ? len : 1);
    cr_assert_not_null(copy);
    memcpy(copy, image, len);
    err[0] = '\0';
    Program *p = bc_load_image(copy, len, "t.bc", err, sizeof err);
    if (p) err[0] = '\0';
    program_free(p);
    free(copy);
    return err;
}

Test(natives_format, round_trip_is_identical_and_version_1_1) {
    size_t len;
    uint8_t *image = image_of(with_natives, &len);
    cr_assert_eq(image[6], 1, "a program with natives is a 1.1 file");
    char err[512];
    Program *p = bc_load_image(image, len, "t.bc", err, sizeof err);
    cr_assert_not_null(p, "%s", err);
    cr_assert_eq(p->num_natives, 2);
    cr_assert_str_eq(p->natives[1].name, "strlen");
    cr_assert_str_eq(p->natives[1].library, "libc.so.6");
    cr_assert_str_eq(p->types[p->natives[1].param_types[0]], "LString;");
    cr_assert_eq(p->natives[1].num_ref_args, 1);
    cr_assert_eq(p->natives[0].num_prim_args, 1);
    size_t len2;
    uint8_t *image2 = bc_serialize(p, &len2);
    cr_assert_eq(len2, len);
    cr_assert_eq(memcmp(image, image2, len), 0);
    free(image2);
    program_free(p);
    free(image);
}

/* A program without natives. */
static const char plain[] = ".class C \"t.gcl\"\n.method 0 main static\n    .returns V\n    .stack 0 0\n    ret\n"
                            ".entry C.main\n";

Test(natives_format, no_natives_stays_version_1_0) {
    size_t len;
    uint8_t *image = image_of(plain, &len);
    cr_assert_eq(image[6], 0);
    /* The same bytes marked 1.1 lack the natives list: the entry index (0)
     * is read as an empty natives list, which 1.1 does not allow. */
    image[6] = 1;
    cr_assert(strstr(load_error(image, len), "declares at least one native") != NULL, "%s", load_error(image, len));
    free(image);
}

Test(natives_format, empty_natives_list_in_1_1_is_refused) {
    size_t len;
    uint8_t *image = image_of(plain, &len);
    uint8_t *longer = calloc(len + 4, 1);
    memcpy(longer, image, len - 4);
    memcpy(longer + len, image + len - 4, 4); /* an empty natives list, then the entry */
    longer[6] = 1;
    char expected[200];
    snprintf(expected, sizeof expected,
             "t.bc: offset %zu: a version 1.1 file declares at least one native (without natives it is 1.0)", len - 4);
    cr_assert_str_eq(load_error(longer, len + 4), expected);
    free(longer);
    free(image);
}

Test(natives_format, every_truncation_is_an_error) {
    size_t len;
    uint8_t *image = image_of(with_natives, &len);
    for (size_t cut = 0; cut < len; cut++) {
        const char *err = load_error(image, cut);
        cr_assert(strncmp(err, "t.bc: offset ", 13) == 0 && strstr(err, "truncated file"), "cut at %zu: \"%s\"", cut,
                  err);
    }
    free(image);
}

Test(natives_format, indexes_are_checked_at_their_offsets) {
    size_t len;
    uint8_t *image = image_of(with_natives, &len);
    char err[512];
    BcOffsets where;
    Program *p = bc_parse_located(image, len, "t.bc", &where, err, sizeof err);
    cr_assert_not_null(p, "%s", err);
    /* native 1: name "strlen", library "libc.so.6", flags, one parameter, result. */
    size_t flags_at = where.natives[1] + 4 + 6 + 4 + 9;
    size_t params_at = flags_at + 1;
    image[flags_at] = 0x02;
    char flags_error[200];
    snprintf(flags_error, sizeof flags_error, "t.bc: offset %zu: unknown native flags 0x02", flags_at);
    cr_assert_str_eq(load_error(image, len), flags_error);
    image[flags_at] = 0;
    size_t result_at = params_at + 4 + 4;
    put_u32(image + params_at + 4, 77);
    char expected[200];
    snprintf(expected, sizeof expected, "t.bc: offset %zu: type index 77 out of range (%u types)", params_at + 4,
             p->num_types);
    cr_assert_str_eq(load_error(image, len), expected);
    put_u32(image + params_at + 4, p->natives[1].param_types[0]);
    put_u32(image + result_at, 78);
    snprintf(expected, sizeof expected, "t.bc: offset %zu: type index 78 out of range (%u types)", result_at,
             p->num_types);
    cr_assert_str_eq(load_error(image, len), expected);
    put_u32(image + params_at, 0xFFFFFFFFu);
    snprintf(expected, sizeof expected, "t.bc: offset %zu: 4294967295 parameters; the limit is 255", params_at);
    cr_assert_str_eq(load_error(image, len), expected);
    bc_offsets_free(&where);
    program_free(p);
    free(image);
}

/* Every byte of the natives list set to a few values: refused with an
 * offset, or loaded and verified, never a crash. */
Test(natives_format, mutations_never_crash) {
    size_t len;
    uint8_t *image = image_of(with_natives, &len);
    char err[512];
    BcOffsets where;
    Program *p = bc_parse_located(image, len, "t.bc", &where, err, sizeof err);
    cr_assert_not_null(p, "%s", err);
    size_t start = where.natives[0] - 4, end = where.entry;
    bc_offsets_free(&where);
    program_free(p);
    static const uint8_t values[] = {0x00, 0x01, 0x02, 0x7f, 0x80, 0xff};
    uint8_t *copy = malloc(len);
    for (size_t at = start; at < end; at++) {
        for (size_t v = 0; v < sizeof values; v++) {
            memcpy(copy, image, len);
            copy[at] = values[v];
            const char *error = load_error(copy, len);
            cr_assert(error[0] == '\0' || strncmp(error, "t.bc: offset ", 13) == 0, "at %zu: \"%s\"", at, error);
        }
    }
    free(copy);
    free(image);
}

/* ---- the verifier ---------------------------------------------------------------------- */

static const char *verify_error(const char *text) {
    static char err[512];
    Program *p = assemble(text, true, err, sizeof err);
    if (p) {
        program_free(p);
        return "";
    }
    return err;
}

#define NATIVE_PROGRAM(code, stack, native)                                                          \
    ".class C \"t.gcl\"\n.method 0 main static\n    .returns V\n    .stack " stack "\n" code "    ret\n" \
    native "\n.entry C.main\n"

Test(natives_verify, signatures_c_cannot_express_are_refused) {
    cr_assert_str_eq(verify_error(NATIVE_PROGRAM("", "0 0", ".native 0 f \"libc.so.6\" V LC;")),
                     "n.s:6: native f: parameter 1 has type C: only a native that takes the env can be given or return objects");
    cr_assert_str_eq(verify_error(NATIVE_PROGRAM("", "0 0", ".native 0 f \"libc.so.6\" LC;")),
                     "n.s:6: native f: result type C: only a native that takes the env can be given or return objects");
    cr_assert_str_eq(verify_error(NATIVE_PROGRAM("", "0 0", ".native 0 f \"libc.so.6\" env LC; LC; J")), "",
                     "with the env, objects are passed as references");
    cr_assert_str_eq(verify_error(NATIVE_PROGRAM("", "0 0", ".native 0 f \"libc.so.6\" env V [LC;")),
                     "n.s:6: native f: parameter 1 has type C[]: C can be passed only numbers, bools, strings and arrays of those");
    cr_assert_str_eq(verify_error(NATIVE_PROGRAM("", "0 0", ".native 0 f \"libc.so.6\" V [[J")),
                     "n.s:6: native f: parameter 1 has type int[][]: C can be passed only numbers, bools, strings and arrays of those");
    cr_assert_str_eq(verify_error(NATIVE_PROGRAM("", "0 0", ".native 0 f \"libc.so.6\" V [LString;")),
                     "n.s:6: native f: parameter 1 has type string[]: C can be passed only numbers, bools, strings and arrays of those");
    cr_assert_str_eq(verify_error(NATIVE_PROGRAM("", "0 0", ".native 0 f \"libc.so.6\" [D")),
                     "n.s:6: native f: result type double[]: C cannot return an array (it has no length)");
    cr_assert_str_eq(verify_error(NATIVE_PROGRAM("", "0 0", ".native 0 f \"libc.so.6\" J V")),
                     "n.s:6: native f: parameter 1 has type void: void is only a result");
    cr_assert_str_eq(verify_error(NATIVE_PROGRAM("", "0 0", ".native 0 f \"\" V")), "n.s:6: native f names no library");
    cr_assert_str_eq(verify_error(NATIVE_PROGRAM("", "0 0", ".native 0 \"\" \"libc.so.6\" V")),
                     "n.s:6: native 0 has an empty name");
}

Test(natives_verify, calls_match_the_signature_by_stack_kind) {
    /* int32, byte and float take an int or double from the stack. */
    cr_assert_str_eq(verify_error(NATIVE_PROGRAM("    pushi 1\n    pushi 2\n    calln 0\n    ppop\n", "2 0",
                                                 ".native 0 f \"libc.so.6\" I I B")),
                     "");
    cr_assert_str_eq(verify_error(NATIVE_PROGRAM("    pushi 1\n    calln 0\n    ppop\n", "1 0",
                                                 ".native 0 f \"libc.so.6\" F F")),
                     "n.s:6: in C.main: call to native f: argument 1 is int, not double");
    cr_assert_str_eq(verify_error(NATIVE_PROGRAM("    calln 0\n", "0 0", ".native 0 f \"libc.so.6\" V LString;")),
                     "n.s:5: in C.main: call to native f: it takes 0 primitive and 1 reference arguments but the stacks hold only 0 and 0");
    cr_assert_str_eq(verify_error(NATIVE_PROGRAM("    anull\n    calln 0\n", "0 1", ".native 0 f \"libc.so.6\" V [I")),
                     "", "null is passed as NULL");
    cr_assert_str_eq(verify_error(NATIVE_PROGRAM("    calln 1\n", "0 0", ".native 0 f \"libc.so.6\" V")),
                     "n.s:5: in C.main: CALLN 1: native 1 does not exist (the program has 1)");
    /* The result: an int32 comes back as a primitive, not a reference. */
    cr_assert_str_eq(verify_error(NATIVE_PROGRAM("    calln 0\n    rpop\n", "1 0", ".native 0 f \"libc.so.6\" I")),
                     "n.s:6: in C.main: reference stack underflow: RPOP needs 1 value but the stack has 0");
    cr_assert_str_eq(verify_error(NATIVE_PROGRAM("    calln 0\n    pushi 1\n    iadd\n    ppop\n", "2 0",
                                                 ".native 0 f \"libc.so.6\" I")),
                     "", "an int32 result is an int on the stack");
}

Test(natives_asm, disassembly_reassembles_to_the_same_bytes) {
    size_t len;
    uint8_t *image = image_of(with_natives, &len);
    char err[512];
    Program *p = bc_load_image(image, len, "t.bc", err, sizeof err);
    cr_assert_not_null(p, "%s", err);
    char *text = NULL;
    size_t text_len = 0;
    FILE *out = open_memstream(&text, &text_len);
    asm_print(p, out);
    fclose(out);
    cr_assert(strstr(text, ".native 1 strlen \"libc.so.6\"") != NULL, "%s", text);
    cr_assert(strstr(text, "calln 0") != NULL && strstr(text, "; cos") != NULL, "%s", text);
    Program *again = asm_parse_verified("dis.s", text, text_len, err, sizeof err);
    cr_assert_not_null(again, "%s\n%s", err, text);
    size_t len2;
    uint8_t *image2 = bc_serialize(again, &len2);
    cr_assert_eq(len2, len);
    cr_assert_eq(memcmp(image, image2, len), 0);
    free(image2);
    program_free(again);
    free(text);
    program_free(p);
    free(image);
}

/* ---- the compiler ---------------------------------------------------------------------- */

static const char *compile_error(const char *source) {
    static char err[512];
    Program *p = compile_source("t.gcl", source, strlen(source), err, sizeof err);
    if (p) {
        program_free(p);
        return "";
    }
    return err;
}

Test(natives_compiler, declarations_compile_to_the_native_table) {
    static const char source[] = "native \"libm.so.6\" double cos(double x);\n"
                                 "native \"libc.so.6\" int32 abs(int32 x);\n"
                                 "native \"libt.so\" void fill(float[] a, byte b, char c, string s);\n"
                                 "class P { int x; }\n"
                                 "native env \"libt.so\" P twin(P p);\n"
                                 "int main() { println(cos(1) + abs(-2)); fill(null, 1, 2, \"s\"); return 0; }\n";
    char err[512];
    Program *p = compile_source("t.gcl", source, strlen(source), err, sizeof err);
    cr_assert_not_null(p, "%s", err);
    VerifyError verr;
    cr_assert(verify_program(p, &verr), "%s", verr.message);
    cr_assert_eq(p->num_natives, 4);
    cr_assert(p->natives[3].takes_env && !p->natives[2].takes_env);
    cr_assert_str_eq(p->types[p->natives[3].return_type], "LP;");
    cr_assert_str_eq(p->natives[1].name, "abs");
    cr_assert_str_eq(p->types[p->natives[1].return_type], "I");
    cr_assert_str_eq(p->types[p->natives[2].param_types[0]], "[F");
    cr_assert_str_eq(p->types[p->natives[2].param_types[1]], "B");
    cr_assert_str_eq(p->types[p->natives[2].param_types[2]], "C");
    cr_assert_str_eq(p->natives[2].library, "libt.so");
    program_free(p);
}

Test(natives_compiler, errors) {
    cr_assert_str_eq(compile_error("class P { int x; }\nnative \"l.so\" void f(P p);\nvoid main() {}\n"),
                     "t.gcl:2:22: only a 'native env' function can be given or return objects (P)");
    cr_assert_str_eq(compile_error("class P { int x; }\nnative env \"l.so\" P f(P p, P[] ps);\nvoid main() {}\n"),
                     "t.gcl:2:28: C can be passed only numbers, bools, strings and arrays of numbers or bools, not P[]");
    cr_assert_str_eq(compile_error("native \"l.so\" int[] f();\nvoid main() {}\n"),
                     "t.gcl:1:15: a native function cannot return an array (C gives no length)");
    cr_assert_str_eq(compile_error("native \"l.so\" void f(string[] s);\nvoid main() {}\n"),
                     "t.gcl:1:22: C can be passed only numbers, bools, strings and arrays of numbers or bools, not string[]");
    cr_assert_str_eq(compile_error("native \"l.so\" void f();\nvoid f() {}\nvoid main() {}\n"),
                     "t.gcl:1:20: 'f' is already declared");
    cr_assert_str_eq(compile_error("native \"l.so\" void f() {}\nvoid main() {}\n"),
                     "t.gcl:1:24: expected ';' after a native declaration (it has no body)");
    cr_assert_str_eq(compile_error("native \"\" void f();\nvoid main() {}\n"), "t.gcl:1:8: the library's name is empty");
    cr_assert_str_eq(compile_error("native \"l.so\" int f(int a);\nvoid main() { Thread t = start(f(1)); }\n"),
                     "t.gcl:2:32: start cannot run native function 'f'");
    cr_assert_str_eq(compile_error("native \"l.so\" int f(int a);\nvoid main() { f(1.5); }\n"),
                     "t.gcl:2:17: type mismatch: argument 1 of 'f' must be int, not double");
}
