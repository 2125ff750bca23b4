/*
 * verifier.c -- unit tests of the bytecode verifier (vm/verify).
 *
 * Programs are written in assembly (asm_parse does not verify), so each test
 * states its code plainly; the verifier must accept the well-typed ones and
 * reject each kind of malformed one with a message that says what is wrong.
 * The fixtures in tests/malformed are run through the whole loader.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm/asm/asm.h"
#include "vm/bytecode/bytecode.h"
#include "vm/opcodes.h"
#include "vm/readfile.h"
#include "vm/verify/optypes.h"
#include "vm/verify/verify.h"

/* Class C (fields n:int, next:C, x:double; statics count:int, name:string;
 * methods main, make(int, C) C, get() int), class D (field d:int).  Each test
 * adds method 4, "D.t", after it. */
static const char prelude[] =
    ".int 0 7\n"
    ".double 0 1.5\n"
    ".string 0 \"s\"\n"
    ".class C \"t.gcl\"\n"
    ".field 0 n J\n"
    ".field 1 next LC;\n"
    ".field 3 x D\n"
    ".static 0 count J\n"
    ".static 1 name LString;\n"
    ".method 0 main static\n"
    "    .returns V\n"
    "    .stack 0 0\n"
    "    ret\n"
    ".method 1 make static\n"
    "    .params J LC;\n"
    "    .returns LC;\n"
    "    .plocals J\n"
    "    .rlocals LC;\n"
    "    .stack 1 1\n"
    "    rload 0\n"
    "    retr\n"
    ".method 2 get instance\n"
    "    .returns J\n"
    "    .rlocals LC;\n"
    "    .stack 1 1\n"
    "    rload 0\n"
    "    getfp C.n\n"
    "    retp\n"
    ".method 3 put instance\n"
    "    .params J\n"
    "    .returns V\n"
    "    .plocals J\n"
    "    .rlocals LC;\n"
    "    .stack 1 1\n"
    "    rload 0\n"
    "    pload 0\n"
    "    putfp C.n\n"
    "    ret\n"
    ".class D \"t.gcl\"\n"
    ".field 2 d J\n"
    ".entry C.main\n";

static VerifyError last_error;

/* Assembles prelude + method, verifies it, and returns "" if it verifies or
 * the described error ("in D.t: ...") if not. */
static const char *verify_text(const char *method) {
    static char message[600];
    size_t len = strlen(prelude) + strlen(method);
    char *text = malloc(len + 1);
    cr_assert_not_null(text);
    strcpy(text, prelude);
    strcat(text, method);
    char err[512];
    Program *p = asm_parse("t.s", text, len, err, sizeof err);
    free(text);
    cr_assert_not_null(p, "assembly failed: %s", err);
    message[0] = '\0';
    if (!verify_program(p, &last_error)) verify_describe(p, &last_error, message, sizeof message);
    program_free(p);
    return message;
}

#define ACCEPT(method)                                                        \
    do {                                                                      \
        const char *msg_ = verify_text(method);                               \
        cr_assert_str_empty(msg_, "should verify, but: %s", msg_);            \
    } while (0)

#define REJECT(method, expected)                                              \
    do {                                                                      \
        const char *msg_ = verify_text(method);                               \
        cr_assert(strstr(msg_, expected) != NULL, "expected \"%s\" in \"%s\"", expected, msg_); \
    } while (0)

#define STATIC_T(params, returns, plocals, rlocals, stack) \
    ".method 4 t static\n    .params " params "\n    .returns " returns "\n    .plocals " plocals \
    "\n    .rlocals " rlocals "\n    .stack " stack "\n"

/* ---- the table of fixed operand types agrees with op_info ------------------------- */

Test(optypes, lengths_match_op_info) {
    for (int op = 0; op < 256; op++) {
        const OpTypes *t = &verify_op_types[op];
        if (!t->prims_in) continue;
        cr_assert_not_null(op_info[op].name, "types for unassigned opcode 0x%02x", op);
        cr_assert_eq((int)strlen(t->prims_in), op_info[op].ppop, "%s primitive pops", op_info[op].name);
        cr_assert_eq((int)strlen(t->prims_out), op_info[op].ppush, "%s primitive pushes", op_info[op].name);
        cr_assert_eq((int)strlen(t->refs_in), op_info[op].rpop, "%s reference pops", op_info[op].name);
        cr_assert_eq((int)strlen(t->refs_out), op_info[op].rpush, "%s reference pushes", op_info[op].name);
    }
    cr_assert_null(verify_op_types[OP_CALL].prims_in, "CALL's effect comes from the callee");
}

/* ---- well-typed code is accepted ----------------------------------------------------- */

Test(accept, every_kind_of_instruction) {
    ACCEPT(STATIC_T("J D Z LC; [J", "J", "J D Z J", "LC; [J LString; [B [LC; [[J [D [Z [C [S [I [F", "6 4")
           "    pload 0\n    pload 1\n    d2i\n    iadd\n    pstore 3\n    iinc 3\n"
           "    pload 1\n    ldd 0\n    dmul\n    pload 0\n    i2d\n    dsub\n    dneg\n    printd 1\n"
           "    pload 2\n    not\n    pushz 1\n    zeq\n    printz 0\n"
           "    ldi 0\n    pushi -3\n    irem\n    ineg\n    pushi 2\n    ishl\n    pushi 1\n    ishr\n"
           "    pushi 6\n    iand\n    pushi 1\n    ior\n    pushi 5\n    ixor\n    printi 1\n"
           "    pload 1\n    ldd 0\n    dlt\n    pload 0\n    pushi 0\n    ige\n    zne\n    ppop\n"
           "    lds 0\n    pload 0\n    i2s\n    scat\n    pload 1\n    d2s\n    scat\n    pload 2\n    z2s\n    scat\n"
           "    rdup\n    slen\n    ppop\n    rdup\n    pushi 0\n    schar\n    chr\n    scat\n"
           "    pushi 0\n    pushi 1\n    ssub\n    rdup\n    anull\n    seq\n    ppop\n    rdup\n    parsei\n    ppop\n"
           "    rstore 2\n    rload 2\n    prints 1\n    anull\n    prints 0\n"
           "    new C\n    rdup\n    pushi 9\n    putfp C.n\n    rdup\n    getfr C.next\n    putfr C.next\n"
           "    rload 0\n    rdup\n    getfp C.x\n    putfp C.x\n    rload 0\n    call C.get\n    ppop\n"
           "    rload 0\n    pushi 3\n    call C.put\n"
           "    pushi 1\n    anull\n    call C.make\n    rstore 0\n"
           "    getsp C.count\n    putsp C.count\n    getsr C.name\n    putsr C.name\n"
           "    rload 1\n    alen\n    newarr [J\n    rstore 1\n"
           "    rload 1\n    pushi 0\n    pushi 5\n    aputj\n    rload 1\n    pushi 0\n    agetj\n    ppop\n"
           "    rload 3\n    pushi 0\n    pushi 5\n    aputb\n    rload 3\n    pushi 0\n    agetb\n    ppop\n"
           "    rload 4\n    rload 0\n    pushi 0\n    aputr\n    rload 4\n    pushi 0\n    agetr\n    rstore 0\n"
           "    rload 5\n    pushi 0\n    agetr\n    rstore 1\n    rload 5\n    rload 1\n    pushi 0\n    aputr\n"
           "    rload 6\n    pushi 0\n    ldd 0\n    aputd\n    rload 6\n    pushi 0\n    agetd\n    ppop\n"
           "    rload 11\n    pushi 0\n    ldd 0\n    aputf\n    rload 11\n    pushi 0\n    agetf\n    ppop\n"
           "    rload 7\n    pushi 0\n    pushz 1\n    aputz\n    rload 7\n    pushi 0\n    agetz\n    ppop\n"
           "    rload 8\n    pushi 0\n    pushi 65\n    aputc\n    rload 9\n    pushi 0\n    pushi 1\n    aputs\n"
           "    rload 9\n    pushi 0\n    agets\n    ppop\n    rload 10\n    pushi 0\n    ageti\n    ppop\n"
           "    rload 0\n    anull\n    req\n    rload 0\n    rload 0\n    rne\n    zeq\n    jt yes\n    nop\n"
           "yes:\n    pload 3\n    retp\n");
}

Test(accept, null_joins_with_a_type) {
    /* One path brings null, the other a C: after the join it is a C, so
     * reading its field is fine (a null fails at run time, not here). */
    ACCEPT(STATIC_T("Z", "J", "Z", "", "1 1")
           "    pload 0\n    jt make\n    anull\n    jmp join\nmake:\n    new C\njoin:\n    getfp C.n\n    retp\n");
    ACCEPT(STATIC_T("Z", "J", "Z", "", "1 1")
           "    pload 0\n    jt make\n    new C\n    jmp join\nmake:\n    anull\njoin:\n    getfp C.n\n    retp\n");
}

Test(accept, loops_and_null_receivers) {
    ACCEPT(STATIC_T("", "V", "J", "", "2 1")
           "    pushi 0\n    pstore 0\nloop:\n    pload 0\n    pushi 10\n    ilt\n    jf done\n    iinc 0\n    jmp loop\n"
           "done:\n    anull\n    call C.get\n    printi 1\n    anull\n    getfr C.next\n    rpop\n    anull\n    alen\n    exit\n");
}

Test(accept, big_method_with_many_joins) {
    /* 3000 conditional blocks, each ending at a join point reached two ways. */
    size_t cap = 3000 * 64 + 512, used = 0;
    char *body = malloc(cap);
    cr_assert_not_null(body);
    used += (size_t)snprintf(body + used, cap - used, STATIC_T("Z", "J", "Z J", "", "1 0"));
    for (int i = 0; i < 3000; i++)
        used += (size_t)snprintf(body + used, cap - used, "    pload 0\n    jf s%d\n    iinc 1\ns%d:\n", i, i);
    snprintf(body + used, cap - used, "    pload 1\n    retp\n");
    ACCEPT(body);
    /* The same with the last block wrong: the verifier gets through all the
     * others to find it. */
    snprintf(body + used, cap - used, "    pload 0\n    retp\n");
    REJECT(body, "type mismatch: RETP needs int (the return type) but the stack has bool");
    free(body);
}

/* ---- type confusion -------------------------------------------------------------------- */

Test(reject, int_used_as_reference) {
    REJECT(STATIC_T("", "LC;", "", "", "1 1") "    pushi 1\n    retr\n",
           "in D.t: reference stack underflow: RETR needs 1 value but the stack has 0");
    REJECT(STATIC_T("", "V", "", "", "1 2") "    new C\n    pushi 1\n    new C\n    putfr C.n\n    ret\n",
           "PUTFR 0 (C.n): the field holds a primitive (use PUTFP)");
    REJECT(STATIC_T("", "V", "J", "", "1 1") "    rload 0\n    rpop\n    ret\n",
           "RLOAD 0: reference local 0 does not exist (the method has 0)");
}

Test(reject, iadd_on_double) {
    REJECT(STATIC_T("", "J", "", "", "2 0") "    pushi 1\n    ldd 0\n    iadd\n    retp\n",
           "in D.t: type mismatch: IADD needs int, int but the stack has int, double");
    cr_assert_eq(last_error.pc, 8, "the error is at the IADD");
    cr_assert_eq(last_error.place, VERIFY_IN_CODE);
}

Test(reject, conditions_need_bools) {
    REJECT(STATIC_T("", "V", "", "", "1 0") "    pushi 1\n    jt +5\n    ret\n",
           "type mismatch: JT needs bool but the stack has int");
    REJECT(STATIC_T("", "V", "", "", "2 0") "    pushi 1\n    pushz 0\n    zeq\n    ppop\n    ret\n",
           "type mismatch: ZEQ needs bool, bool but the stack has int, bool");
}

Test(reject, returns) {
    REJECT(STATIC_T("", "V", "", "", "0 1") "    anull\n    retr\n", "RETR in a method that returns void (use RET)");
    REJECT(STATIC_T("", "J", "", "", "0 0") "    ret\n", "RET in a method that returns int (use RETP)");
    REJECT(STATIC_T("", "LC;", "", "", "1 0") "    pushi 1\n    retp\n", "RETP in a method that returns C (use RETR)");
    REJECT(STATIC_T("", "J", "", "", "1 0") "    ldd 0\n    retp\n",
           "type mismatch: RETP needs int (the return type) but the stack has double");
    REJECT(STATIC_T("", "LC;", "", "", "0 1") "    new D\n    retr\n",
           "type mismatch: RETR needs C (the return type) but the reference stack has D");
}

Test(reject, calls) {
    REJECT(STATIC_T("", "V", "", "", "1 1") "    ldd 0\n    anull\n    call C.make\n    rpop\n    ret\n",
           "call to C.make: expected (int, C) but the stacks have (double, null)");
    REJECT(STATIC_T("", "V", "", "", "1 1") "    pushi 1\n    new D\n    call C.make\n    rpop\n    ret\n",
           "call to C.make: expected (int, C) but the stacks have (int, D)");
    REJECT(STATIC_T("", "V", "", "", "1 1") "    new D\n    call C.get\n    ppop\n    ret\n",
           "call to C.get: expected (this C) but the stacks have (this D)");
    REJECT(STATIC_T("", "V", "", "", "1 1") "    anull\n    call C.make\n    rpop\n    ret\n",
           "call to C.make: expected (int, C) but the stacks hold only 0 primitive and 1 reference values");
    REJECT(STATIC_T("", "V", "", "", "0 0") "    call 99\n    ret\n", "CALL 99: method 99 does not exist (the program has 5)");
}

Test(reject, locals) {
    REJECT(STATIC_T("", "V", "J", "", "1 0") "    ldd 0\n    pstore 0\n    ret\n",
           "type mismatch: PSTORE needs int (the type of primitive local 0) but the stack has double");
    REJECT(STATIC_T("", "V", "D", "", "0 0") "    iinc 0\n    ret\n", "IINC 0: primitive local 0 has type double, not int");
    REJECT(STATIC_T("", "V", "J", "", "1 0") "    pload 1\n    ppop\n    ret\n",
           "PLOAD 1: primitive local 1 does not exist (the method has 1)");
    REJECT(STATIC_T("", "V", "", "LC;", "0 1") "    new D\n    rstore 0\n    ret\n",
           "type mismatch: RSTORE needs C (the type of reference local 0) but the reference stack has D");
}

Test(reject, fields_and_statics) {
    REJECT(STATIC_T("", "V", "", "", "1 1") "    new D\n    getfp C.n\n    ppop\n    ret\n",
           "type mismatch: GETFP 0 (C.n) needs a C object but the reference stack has D");
    REJECT(STATIC_T("", "V", "", "", "1 1") "    new C\n    getfp C.next\n    ppop\n    ret\n",
           "GETFP 1 (C.next): the field holds a reference (use GETFR)");
    REJECT(STATIC_T("", "V", "", "", "1 1") "    new C\n    ldd 0\n    putfp C.n\n    ret\n",
           "type mismatch: PUTFP 0 (C.n) needs int but the stack has double");
    REJECT(STATIC_T("", "V", "", "", "0 2") "    new C\n    new D\n    putfr C.next\n    ret\n",
           "type mismatch: PUTFR 1 (C.next) needs C but the reference stack has D");
    REJECT(STATIC_T("", "V", "", "", "1 1") "    new C\n    getfp 9\n    ppop\n    ret\n",
           "GETFP 9: field 9 does not exist (the program has 4)");
    REJECT(STATIC_T("", "V", "", "", "1 0") "    getsp 5\n    ppop\n    ret\n",
           "GETSP 5: static 5 does not exist (the program has 2)");
    REJECT(STATIC_T("", "V", "", "", "1 1") "    getsr C.count\n    rpop\n    ret\n",
           "GETSR 0 (C.count): the static holds a primitive (use GETSP)");
    REJECT(STATIC_T("", "V", "", "", "0 1") "    new C\n    putsr C.name\n    ret\n",
           "type mismatch: PUTSR 1 (C.name) needs string but the reference stack has C");
    REJECT(STATIC_T("", "V", "", "", "0 1") "    new 7\n    rpop\n    ret\n", "NEW 7: class 7 does not exist (the program has 2)");
}

Test(reject, arrays) {
    REJECT(STATIC_T("", "V", "", "[B", "2 1") "    rload 0\n    pushi 0\n    agetj\n    ppop\n    ret\n",
           "type mismatch: AGETJ needs int[] but the reference stack has byte[]");
    REJECT(STATIC_T("", "V", "", "[J", "2 1") "    rload 0\n    pushi 0\n    agetr\n    rpop\n    ret\n",
           "type mismatch: AGETR needs an array of references but the reference stack has int[]");
    REJECT(STATIC_T("", "V", "", "[LC;", "2 2") "    rload 0\n    new D\n    pushi 0\n    aputr\n    ret\n",
           "type mismatch: APUTR stores into C[] but the value is D");
    REJECT(STATIC_T("", "V", "", "[D", "2 1") "    rload 0\n    pushi 0\n    pushi 1\n    aputd\n    ret\n",
           "type mismatch: APUTD needs a double value but the stack has int");
    REJECT(STATIC_T("", "V", "", "[F", "2 1") "    rload 0\n    ldd 0\n    agetf\n    ppop\n    ret\n",
           "type mismatch: AGETF needs an int index but the stack has double");
    REJECT(STATIC_T("", "V", "", "", "1 1") "    new C\n    alen\n    ppop\n    ret\n",
           "type mismatch: ALEN needs an array but the reference stack has C");
    REJECT(STATIC_T("", "V", "", "", "1 1") "    pushi 3\n    newarr J\n    rpop\n    ret\n",
           "NEWARR 0: type int is not an array type");
    REJECT(STATIC_T("", "V", "", "", "1 1") "    ldd 0\n    newarr [J\n    rpop\n    ret\n",
           "type mismatch: NEWARR needs int (the length) but the stack has double");
}

Test(reject, strings_and_printing) {
    REJECT(STATIC_T("", "V", "", "", "1 1") "    new C\n    slen\n    ppop\n    ret\n",
           "type mismatch: SLEN needs string but the reference stack has C");
    REJECT(STATIC_T("", "V", "", "", "0 2") "    lds 0\n    new C\n    scat\n    rpop\n    ret\n",
           "type mismatch: SCAT needs string, string but the reference stack has string, C");
    REJECT(STATIC_T("", "V", "", "", "1 0") "    ldd 0\n    printi 1\n    ret\n",
           "type mismatch: PRINTI needs int but the stack has double");
    REJECT(STATIC_T("", "V", "", "", "1 0") "    pushi 1\n    printi 2\n    ret\n",
           "PRINTI operand 2 is not 0 or 1 (the newline flag)");
    REJECT(STATIC_T("", "V", "", "", "1 0") "    pushz 2\n    ppop\n    ret\n", "PUSHZ operand 2 is not 0 or 1");
}

Test(reject, constants) {
    REJECT(STATIC_T("", "V", "", "", "1 0") "    ldi 1\n    ppop\n    ret\n", "LDI 1: int constant 1 does not exist (the program has 1)");
    REJECT(STATIC_T("", "V", "", "", "1 0") "    ldd 4\n    ppop\n    ret\n",
           "LDD 4: double constant 4 does not exist (the program has 1)");
    REJECT(STATIC_T("", "V", "", "", "0 1") "    lds 2\n    rpop\n    ret\n",
           "LDS 2: string constant 2 does not exist (the program has 1)");
}

/* ---- control flow and stack depth ------------------------------------------------------ */

Test(reject, stack_depth_mismatch_at_join) {
    REJECT(STATIC_T("Z", "V", "Z", "", "1 0") "    pload 0\n    jt join\n    pushi 1\njoin:\n    ret\n",
           "primitive stack depth differs at join (pc 13): 1 vs 0");
    REJECT(STATIC_T("Z", "V", "Z", "", "1 1") "    pload 0\n    jt join\n    anull\njoin:\n    ret\n",
           "reference stack depth differs at join (pc 9): 1 vs 0");
    REJECT(STATIC_T("Z", "V", "Z", "", "2 0") "    pushi 1\n    pload 0\n    jt join\n    ppop\n    ldd 0\njoin:\n    ppop\n    ret\n",
           "primitive stack types differ at join (pc 17): double vs int in slot 0");
}

Test(reject, falling_off_the_end) {
    REJECT(STATIC_T("", "V", "", "", "1 0") "    pushi 1\n    ppop\n", "execution falls off the end of the code after PPOP");
    REJECT(STATIC_T("Z", "V", "Z", "", "1 0") "    pload 0\n    jf +6\n    ret\n    nop\n",
           "execution falls off the end of the code after NOP");
}

Test(reject, jump_targets) {
    REJECT(STATIC_T("", "V", "", "", "1 0") "    jmp +6\n    pushi 1\n    ppop\n    ret\n", "jump target 6 is not an instruction start");
    REJECT(STATIC_T("", "V", "", "", "0 0") "    jmp -5\n    ret\n", "jump target -5 is outside the method (code is 6 bytes)");
    REJECT(STATIC_T("", "V", "", "", "0 0") "    jmp +6\n    ret\n", "jump target 6 is outside the method");
}

Test(reject, undecodable_code) {
    REJECT(STATIC_T("", "V", "", "", "0 0") "    .bytes 255\n    ret\n", "unknown opcode 0xff");
    REJECT(STATIC_T("", "V", "", "", "0 0") "    nop\n    .bytes 1 0 0\n", "the operand of PUSHI runs past the end of the code");
}

Test(reject, stack_overflow_and_underflow) {
    REJECT(STATIC_T("", "V", "", "", "1 0") "    pushi 1\n    pushi 2\n    iadd\n    ppop\n    ret\n",
           "primitive stack overflow: PUSHI makes the depth 2, more than the method's maximum 1");
    REJECT(STATIC_T("", "V", "", "", "0 1") "    anull\n    rdup\n    req\n    ret\n",
           "reference stack overflow: RDUP makes the depth 2, more than the method's maximum 1");
    REJECT(STATIC_T("", "V", "", "", "1 0") "    pushi 1\n    iadd\n    ret\n",
           "primitive stack underflow: IADD needs 2 values but the stack has 1");
    REJECT(STATIC_T("", "V", "", "", "0 0") "    rpop\n    ret\n", "reference stack underflow: RPOP needs 1 value but the stack has 0");
}

/* ---- declarations ------------------------------------------------------------------------ */

Test(reject, method_declarations) {
    REJECT(".method 4 t static\n    .returns V\n    .plocals LC;\n    .stack 0 0\n    ret\n",
           "in D.t: primitive local 0 has type C, not int, double or bool");
    REJECT(".method 4 t static\n    .returns V\n    .plocals B\n    .stack 0 0\n    ret\n",
           "primitive local 0 has type byte, not int, double or bool");
    REJECT(".method 4 t static\n    .returns V\n    .rlocals J\n    .stack 0 0\n    ret\n",
           "reference local 0 has type int, not a reference type");
    REJECT(".method 4 t static\n    .params J\n    .returns V\n    .plocals D\n    .stack 0 0\n    ret\n",
           "parameter 1 has type int but primitive local 0, where it arrives, has type double");
    REJECT(".method 4 t instance\n    .returns V\n    .rlocals LC;\n    .stack 0 0\n    ret\n",
           "reference local 0 (the receiver) has type C but the method belongs to class D");
    REJECT(".method 4 t static\n    .params V\n    .returns V\n    .plocals J\n    .stack 0 0\n    ret\n",
           "parameter 1 has type void: void is only a return type");
    REJECT(".method 4 t static\n    .returns I\n    .stack 0 0\n    ret\n",
           "return type int32: byte, char, short, int32 and float are only array element types");
    REJECT(".method 4 t static\n    .returns V\n    .stack 70000 0\n    ret\n", "primitive stack depth 70000; the limit is 65535");
    REJECT(".method 4 t static\n    .returns V\n    .stack 1 65536\n    ret\n", "reference stack depth 65536; the limit is 65535");
    cr_assert(last_error.over_limit, "a depth over its limit is marked as such");
    REJECT(".method 4 t static\n    .returns V\n    .stack 0 0\n", "in D.t: the method has no code");
    cr_assert(!last_error.over_limit, "a method with no code is malformed, not over a limit");
    cr_assert_eq(last_error.place, VERIFY_IN_METHOD);
    cr_assert_eq(last_error.method, 4);
}

Test(reject, field_types) {
    REJECT(".field 4 b B\n", "field D.b has type byte: byte, char, short, int32 and float are only array element types");
    cr_assert_eq(last_error.place, VERIFY_IN_FIELD);
    cr_assert_eq(last_error.index, 4);
    cr_assert_eq(last_error.method, PROG_NONE);
    REJECT(".static 2 v V\n", "static D.v has type void");
}

Test(reject, class_names_and_types) {
    REJECT(".class D \"u.gcl\"\n", "class D is declared twice (classes 1 and 2)");
    REJECT(".class String \"u.gcl\"\n", "class String: the name String is reserved for strings");
    REJECT(".class \"a;b\" \"u.gcl\"\n", "class name \"a;b\" contains ';'");
    REJECT(".field 4 w [LNowhere;\n", "type [LNowhere; names class Nowhere, which is not declared");
}

/* Programs no assembler text can express: change them after assembling. */
static const char *verify_mutated(void (*mutate)(Program *)) {
    static char message[600];
    char err[512];
    Program *p = asm_parse("t.s", prelude, strlen(prelude), err, sizeof err);
    cr_assert_not_null(p, "%s", err);
    mutate(p);
    message[0] = '\0';
    if (!verify_program(p, &last_error)) verify_describe(p, &last_error, message, sizeof message);
    program_free(p);
    return message;
}

static void field_owned_elsewhere(Program *p) { p->fields[0].owner_class = 1; }
static void field_listed_twice(Program *p) { p->classes[0].fields[1] = p->classes[0].fields[0]; }
static void line_inside_instruction(Program *p) {
    ProgMethod *m = &p->methods[2];
    m->lines = calloc(1, sizeof *m->lines);
    m->lines[0] = (LineEntry){1, 3};
    m->num_lines = 1;
}
static void entry_is_instance(Program *p) { p->entry_method = 2; }
static void entry_takes_int(Program *p) { p->entry_method = 1; }

Test(reject, class_member_lists) {
    const char *msg = verify_mutated(field_owned_elsewhere);
    cr_assert(strstr(msg, "class C lists field D.n, which belongs to another class"), "%s", msg);
    msg = verify_mutated(field_listed_twice);
    cr_assert(strstr(msg, "class C lists field n twice"), "%s", msg);
}

Test(reject, line_table_and_entry) {
    const char *msg = verify_mutated(line_inside_instruction);
    cr_assert(strstr(msg, "in C.get: line table entry for line 3 is at pc 1, which is not an instruction start"), "%s", msg);
    msg = verify_mutated(entry_is_instance);
    cr_assert(strstr(msg, "the entry method C.get must be static"), "%s", msg);
    cr_assert_eq(last_error.place, VERIFY_IN_ENTRY);
    msg = verify_mutated(entry_takes_int);
    cr_assert(strstr(msg, "the entry method C.make must take no parameters or one string[]"), "%s", msg);
}

/* ---- tests/malformed, through the loader -------------------------------------------------- */

/* The text after "; expect: " on the first line of a fixture. */
static char *expected_text(const char *text) {
    const char *tag = "; expect: ";
    cr_assert(strncmp(text, tag, strlen(tag)) == 0, "a fixture starts with '%s'", tag);
    const char *start = text + strlen(tag);
    size_t len = strcspn(start, "\n");
    char *expected = malloc(len + 1);
    memcpy(expected, start, len);
    expected[len] = '\0';
    return expected;
}

Test(malformed, every_fixture_is_rejected_by_the_loader) {
    const char *dir_path = GCLAB_SOURCE_DIR "/tests/malformed";
    DIR *dir = opendir(dir_path);
    cr_assert_not_null(dir, "cannot open %s", dir_path);
    char tmpdir[] = "/tmp/gclab-malformed-XXXXXX";
    cr_assert_not_null(mkdtemp(tmpdir));
    int checked = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        size_t name_len = strlen(entry->d_name);
        if (name_len < 3 || strcmp(entry->d_name + name_len - 2, ".s") != 0) continue;
        char path[1024], bc_path[1024], err[1024];
        snprintf(path, sizeof path, "%s/%s", dir_path, entry->d_name);
        snprintf(bc_path, sizeof bc_path, "%s/%.*s.bc", tmpdir, (int)(name_len - 2), entry->d_name);
        size_t len;
        char *text = (char *)read_whole_file(path, &len, err, sizeof err);
        cr_assert_not_null(text, "%s", err);
        char *expected = expected_text(text);
        Program *p = asm_parse(entry->d_name, text, len, err, sizeof err);
        cr_assert_not_null(p, "%s does not assemble: %s", entry->d_name, err);
        cr_assert(bc_write_file(p, bc_path, err, sizeof err), "%s", err);
        program_free(p);
        Program *loaded = bc_load_file(bc_path, err, sizeof err);
        cr_assert_null(loaded, "%s was accepted", entry->d_name);
        char prefix[1100];
        snprintf(prefix, sizeof prefix, "%s: offset ", bc_path);
        cr_assert(strncmp(err, prefix, strlen(prefix)) == 0, "%s: error \"%s\" does not start \"%s\"", entry->d_name, err, prefix);
        cr_assert(strstr(err, expected) != NULL, "%s: expected \"%s\" in \"%s\"", entry->d_name, expected, err);
        /* The assembler's own verification reports the same reason. */
        cr_assert_null(asm_parse_verified(entry->d_name, text, len, err, sizeof err));
        cr_assert(strstr(err, expected) != NULL, "%s: vmas says \"%s\"", entry->d_name, err);
        unlink(bc_path);
        free(expected);
        free(text);
        checked++;
    }
    closedir(dir);
    rmdir(tmpdir);
    cr_assert_geq(checked, 10, "only %d fixtures found in %s", checked, dir_path);
}
