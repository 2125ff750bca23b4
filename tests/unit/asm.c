/*
 * asm.c -- unit tests of gclab assembly (vm/asm): what the assembler builds,
 * that printing and re-assembling gives back the same bytes, and that every
 * kind of bad text is refused as "NAME:LINE: reason".
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/asm/asm.h"
#include "vm/bytecode/bytecode.h"
#include "vm/opcodes.h"

static Program *assemble(const char *text) {
    char err[512];
    Program *p = asm_parse("t.s", text, strlen(text), err, sizeof err);
    cr_assert_not_null(p, "%s", err);
    return p;
}

/* The error for text, or "" if it assembles (with verification if asked). */
static const char *asm_error(const char *text, bool verify) {
    static char err[512];
    Program *p = verify ? asm_parse_verified("t.s", text, strlen(text), err, sizeof err)
                        : asm_parse("t.s", text, strlen(text), err, sizeof err);
    if (p) {
        err[0] = '\0';
        program_free(p);
    }
    return err;
}

#define ASM_ERROR(text, expected) cr_assert_str_eq(asm_error(text, false), expected)

/* asm_print to a string. */
static char *print_to_string(const Program *p, size_t *len) {
    char *text = NULL;
    FILE *out = open_memstream(&text, len);
    cr_assert_not_null(out);
    asm_print(p, out);
    fclose(out);
    return text;
}

/* Prints p, assembles the listing, and checks both serialize identically. */
static void assert_print_round_trip(const Program *p) {
    size_t text_len, len1, len2;
    char *text = print_to_string(p, &text_len);
    char err[512];
    Program *again = asm_parse("listing.s", text, text_len, err, sizeof err);
    cr_assert_not_null(again, "the listing does not assemble: %s\n%s", err, text);
    uint8_t *image1 = bc_serialize(p, &len1), *image2 = bc_serialize(again, &len2);
    cr_assert(len1 == len2 && memcmp(image1, image2, len1) == 0, "listing differs:\n%s", text);
    free(image1);
    free(image2);
    program_free(again);
    free(text);
}

static const char program_text[] =
    "; a bit of everything\n"
    ".type 0 J\n"
    ".type 1 J            ; a duplicate: descriptors resolve to the first\n"
    ".int 0 9223372036854775807\n"
    ".int 1 -0x10\n"
    ".double 0 1e300\n"
    ".double 1 -0\n"
    ".double 2 inf\n"
    ".double 3 -inf\n"
    ".double 4 bits=7ff0000000000001\n"
    ".double 5 0.30000000000000004\n"
    ".string 0 \"\"\n"
    ".string 1 \"line\\nbreak \\\\ \\\"q\\\" \\x01 caf\xc3\xa9\"\n"
    ".class \"odd name\" \"my file.gcl\"\n"
    ".field 1 \"weird;field\" LString;\n"
    ".static 0 s [[D\n"
    ".method 1 \"get it\" instance\n"
    "    .returns 1\n"
    "    .rlocals \"Lodd name;\"\n"
    "    .stack 1 1\n"
    "    rload 0\n"
    "    getfr 1\n"
    "    slen\n"
    "    retp\n"
    ".class Main main.gcl\n"
    ".field 0 count J\n"
    ".method 0 main static\n"
    "    .returns V\n"
    "    .plocals J D Z\n"
    "    .rlocals [[D\n"
    "    .stack 3 2\n"
    "    .line 1\n"
    "    .line 2\n"
    "top:\n"
    "    0: pushi -2147483648\n"
    "    pstore 0\n"
    "    .line 7\n"
    "loop: pload 0\n"
    "    pushi 2147483647\n"
    "    ilt\n"
    "    jf out\n"
    "    iinc 0\n"
    "    jmp loop\n"
    "out:\n"
    "    pushz 1\n"
    "    jt skip\n"
    "    jmp top\n"
    "skip:\n"
    "    ldd 4\n"
    "    printd 0\n"
    "    pushi 2\n"
    "    newarr [[D\n"
    "    putsr 0\n"
    "    ret\n"
    ".entry Main.main\n";

Test(roundtrip, print_then_assemble_gives_the_same_bytes) {
    Program *p = assemble(program_text);
    assert_print_round_trip(p);
    program_free(p);
}

Test(roundtrip, what_the_text_builds) {
    Program *p = assemble(program_text);
    cr_assert_eq(p->num_types, 8, "J, J, LString;, [[D, Lodd name;, V, D, Z");
    cr_assert_str_eq(p->classes[0].name, "odd name");
    cr_assert_str_eq(p->classes[0].source_file, "my file.gcl");
    cr_assert_str_eq(p->fields[1].name, "weird;field");
    cr_assert_eq(p->fields[1].owner_class, 0);
    cr_assert_eq(p->fields[0].owner_class, 1);
    cr_assert_eq(p->ints[1], -16);
    cr_assert_str_eq(p->strings[1].chars, "line\nbreak \\ \"q\" \x01 caf\xc3\xa9");
    cr_assert_eq(p->entry_method, 0);
    const ProgMethod *main_method = &p->methods[0];
    cr_assert_eq(main_method->num_lines, 3);
    cr_assert_eq(main_method->lines[0].pc, 0);
    cr_assert_eq(main_method->lines[1].pc, 0);
    cr_assert_eq(main_method->lines[2].pc, 8, "after pushi (5 bytes) and pstore (3)");
    /* "jmp loop" at pc 25 goes back to pc 8: offset -17, little-endian. */
    cr_assert_eq(main_method->code[25], OP_JMP);
    const uint8_t *operand = main_method->code + 26;
    uint32_t offset = operand[0] | (uint32_t)operand[1] << 8 | (uint32_t)operand[2] << 16 | (uint32_t)operand[3] << 24;
    cr_assert_eq((int32_t)offset, 8 - 25);
    program_free(p);
}

Test(roundtrip, names_and_indexes_assemble_alike) {
    const char *by_name = ".class C \"c.gcl\"\n.field 0 f J\n.static 0 s LC;\n"
                          ".method 0 main static\n    .returns V\n    .stack 1 1\n"
                          "    new C\n    getfp C.f\n    ppop\n    getsr C.s\n    rpop\n    call C.main\n    ret\n"
                          ".entry C.main\n";
    const char *by_index = ".type 0 J\n.type 1 LC;\n.type 2 V\n.class C \"c.gcl\"\n.field 0 f 0\n.static 0 s 1\n"
                           ".method 0 main static\n    .returns 2\n    .stack 1 1\n"
                           "    new 0\n    getfp 0\n    ppop\n    getsr 0\n    rpop\n    call 0\n    ret\n"
                           ".entry 0\n";
    Program *a = assemble(by_name), *b = assemble(by_index);
    size_t la, lb;
    uint8_t *ia = bc_serialize(a, &la), *ib = bc_serialize(b, &lb);
    cr_assert(la == lb && memcmp(ia, ib, la) == 0);
    free(ia);
    free(ib);
    program_free(a);
    program_free(b);
}

Test(roundtrip, listing_of_unverifiable_code_still_round_trips) {
    /* vmas --no-verify output: an unknown opcode and an odd jump print as
     * .bytes and a relative offset, and still assemble back. */
    Program *p = assemble(".class C \"c.gcl\"\n.method 0 main static\n    .returns V\n    .stack 0 0\n"
                          "    jmp +3\n    .bytes 0xff 1 2\n.entry 0\n");
    assert_print_round_trip(p);
    program_free(p);
}

/* ---- errors ------------------------------------------------------------------------- */

#define CLASS_AND_METHOD ".class C \"c.gcl\"\n.method 0 main static\n    .returns V\n    .stack 1 1\n"

Test(errors, instructions_and_operands) {
    ASM_ERROR(CLASS_AND_METHOD "    frobnicate\n", "t.s:5: unknown instruction 'frobnicate'");
    ASM_ERROR(CLASS_AND_METHOD "    IADD\n", "t.s:5: opcodes are written in lower case: 'IADD'");
    ASM_ERROR(CLASS_AND_METHOD "    iadd 1\n", "t.s:5: iadd takes no operand");
    ASM_ERROR(CLASS_AND_METHOD "    pushi\n", "t.s:5: pushi takes one operand");
    ASM_ERROR(CLASS_AND_METHOD "    pushz 256\n", "t.s:5: the operand must be a number from 0 to 255, not '256'");
    ASM_ERROR(CLASS_AND_METHOD "    pushi 2147483648\n",
              "t.s:5: the operand must be a number from -2147483648 to 2147483647, not '2147483648'");
    ASM_ERROR(CLASS_AND_METHOD "    pload 65536\n", "t.s:5: the operand must be a number from 0 to 65535, not '65536'");
    ASM_ERROR(CLASS_AND_METHOD "    ldi x\n", "t.s:5: the operand must be a number from 0 to 65535, not 'x'");
    ASM_ERROR(CLASS_AND_METHOD "    .bytes 300\n", "t.s:5: a byte must be a number from 0 to 255, not '300'");
}

Test(errors, labels_and_pcs) {
    ASM_ERROR(CLASS_AND_METHOD "    jmp nowhere\n    ret\n.entry 0\n", "t.s:5: undefined label nowhere");
    ASM_ERROR(CLASS_AND_METHOD "a:\n    nop\na:\n    ret\n", "t.s:7: label a defined twice (first at line 5)");
    ASM_ERROR(CLASS_AND_METHOD "    nop\n    3: ret\n", "t.s:6: this instruction is at pc 1, not 3");
    ASM_ERROR(CLASS_AND_METHOD "    jmp 9\n", "t.s:5: a jump needs a label or a signed offset, not '9'");
    ASM_ERROR(CLASS_AND_METHOD "9lives:\n", "t.s:5: bad label name '9lives'");
}

Test(errors, strings_and_numbers) {
    ASM_ERROR(".string 0 \"open\n", "t.s:1: unterminated string");
    ASM_ERROR(".string 0 \"a\\0b\"\n", "t.s:1: unknown escape \\0");
    ASM_ERROR(".string 0 \"a\\x00b\"\n", "t.s:1: a string cannot contain a NUL byte");
    ASM_ERROR(".string 0 \"a\\xZZ\"\n", "t.s:1: \\x needs two hexadecimal digits");
    ASM_ERROR(".string 0 bare\n", "t.s:1: the text of a .string must be quoted");
    ASM_ERROR(".int 0 99999999999999999999\n", "t.s:1: bad int '99999999999999999999'");
    ASM_ERROR(".double 0 1.5x\n", "t.s:1: bad double '1.5x'");
    ASM_ERROR(".int 1 5\n", "t.s:1: expected index 0 here ('1'): pools are numbered in order from 0");
    char with_nul[] = ".int 0 1\n.int 1 2\0\n";
    Program *p = asm_parse("t.s", with_nul, sizeof with_nul - 1, (char[256]){0}, 256);
    cr_assert_null(p, "a NUL byte in the text is refused");
}

Test(errors, declarations) {
    ASM_ERROR(".field 0 f J\n", "t.s:1: a .field must follow a .class");
    ASM_ERROR(".class C\n.field 0 f J\n.field 0 g J\n", "t.s:3: field 0 is declared twice (first at line 2)");
    ASM_ERROR(".class C\n.field 0 f Q\n", "t.s:2: malformed type descriptor \"Q\"");
    ASM_ERROR(".type 0 [V\n", "t.s:1: malformed type descriptor \"[V\"");
    ASM_ERROR(".class C\n.field 0 f 3\n", "t.s:2: type 3 is not declared (declare it with .type first, or write its descriptor)");
    ASM_ERROR(".class C\n.method 0 m static\n    .stack 0 0\n    ret\n.entry 0\n", "t.s:2: method m has no .returns");
    ASM_ERROR(".class C\n.method 0 m static\n    .returns V\n    ret\n.entry 0\n", "t.s:2: method m has no .stack");
    ASM_ERROR(".class C\n.method 0 m static\n    .params J\n    .returns V\n    .stack 0 0\n    ret\n.entry 0\n",
              "t.s:2: method m has 0 primitive and 0 reference locals but needs 1 and 0 for its parameters");
    ASM_ERROR(".class C\n.method 0 m static\n    .returns V\n    .stack 0 0\n    ret\n    .returns V\n",
              "t.s:6: .returns must come before the method's code");
    ASM_ERROR(".class C\n.method 0 m static\n    .returns V\n    .stack 0 0\n    ret\n    .line 4\n.entry 0\n",
              "t.s:6: .line must come before an instruction");
    ASM_ERROR(".params J\n", "t.s:1: .params outside a method");
    ASM_ERROR("    ret\n", "t.s:1: code outside a method (add a .method)");
    ASM_ERROR(".frob 1\n", "t.s:1: unknown directive .frob");
    ASM_ERROR(".class C\n.method 0 m static\n    .returns V\n    .stack 0 0\n    ret\n", "t.s:6: no .entry directive");
    ASM_ERROR(".class C\n.method 1 m static\n    .returns V\n    .stack 0 0\n    ret\n.entry 1\n",
              "t.s:7: method 0 is not declared (methods are numbered from 0 without gaps)");
    ASM_ERROR(".class C\n.method 0 m static\n    .returns V\n    .stack 0 0\n    call C.nope\n    ret\n.entry 0\n",
              "t.s:5: no method named C.nope");
    ASM_ERROR(".class C\n.method 0 m static\n    .returns V\n    .stack 0 0\n    ret\n.entry 3\n",
              "t.s:6: entry method 3 is not declared");
}

Test(errors, verified_assembly_reports_the_line) {
    const char *text = ".double 0 2.5\n"
                       ".class C \"c.gcl\"\n"
                       ".method 0 main static\n"
                       "    .returns J\n"
                       "    .stack 2 0\n"
                       "    pushi 1\n"
                       "    ldd 0\n"
                       "    iadd\n"
                       "    retp\n"
                       ".entry C.main\n";
    cr_assert_str_empty(asm_error(text, false), "unverified assembly accepts it");
    cr_assert_str_eq(asm_error(text, true),
                     "t.s:8: in C.main: type mismatch: IADD needs int, int but the stack has int, double");
    cr_assert_str_eq(asm_error(".class C\n.field 0 v V\n.method 0 main static\n    .returns V\n    .stack 0 0\n"
                               "    ret\n.entry 0\n",
                               true),
                     "t.s:2: field C.v has type void: void is only a return type");
}
