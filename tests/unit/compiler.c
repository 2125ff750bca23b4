/*
 * compiler.c -- unit tests for vmc's compiler (vm/compiler): the shape of
 * the programs it builds, that the verifier accepts them, and the exact
 * message of each compile error.  Programs are compiled from strings; the
 * end-to-end behaviour of compiled programs is tested by the examples.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/compiler/compiler.h"
#include "vm/opcodes.h"
#include "vm/verify/verify.h"

static char err[512];

/* Compiles src as "path", asserting success and verification. */
static Program *compile_as(const char *path, const char *src) {
    Program *p = compile_source(path, src, strlen(src), err, sizeof err);
    cr_assert_not_null(p, "compile failed: %s", err);
    VerifyError verr;
    bool ok = verify_program(p, &verr);
    cr_assert(ok, "verifier rejected the program: method %u pc %u: %s", verr.method, verr.pc, verr.message);
    return p;
}

static Program *compile_ok(const char *src) { return compile_as("t.gcl", src); }

static void expect_error(const char *src, const char *message) {
    Program *p = compile_source("t.gcl", src, strlen(src), err, sizeof err);
    if (p) program_free(p);
    cr_assert_null(p, "expected an error: %s", message);
    cr_assert_str_eq(err, message);
}

static const ProgMethod *method_named(const Program *p, const char *cls, const char *name) {
    for (uint32_t i = 0; i < p->num_methods; i++) {
        const ProgMethod *m = &p->methods[i];
        if (strcmp(m->name, name) == 0 && strcmp(p->classes[m->owner_class].name, cls) == 0) return m;
    }
    cr_assert_fail("no method %s.%s", cls, name);
    return NULL;
}

/* The opcodes of m in order, as a string of opcode names ("PLOAD PUSHI IADD ..."). */
static void opcode_list(const ProgMethod *m, char *buf, size_t size) {
    buf[0] = '\0';
    for (uint32_t pc = 0; pc < m->code_len;) {
        size_t used = strlen(buf);
        snprintf(buf + used, size - used, "%s%s", used ? " " : "", op_info[m->code[pc]].name);
        pc += op_size(m->code[pc]);
    }
}

static uint32_t operand_at(const ProgMethod *m, uint32_t pc) {
    return op_operand_get(m->code + pc + 1, op_operand_size(op_info[m->code[pc]].operand));
}

static const char *trees_src =
    "// binary trees\n"
    "class Tree {\n"
    "    Tree left;\n"
    "    Tree right;\n"
    "\n"
    "    static Tree make(int depth) {\n"
    "        Tree t = new Tree();\n"
    "        if (depth > 0) {\n"
    "            t.left = make(depth - 1);\n"
    "            t.right = make(depth - 1);\n"
    "        }\n"
    "        return t;\n"
    "    }\n"
    "\n"
    "    int check() {\n"
    "        if (left == null) return 1;\n"
    "        return 1 + left.check() + right.check();\n"
    "    }\n"
    "}\n"
    "\n"
    "int main(string[] args) {\n"
    "    int depth = 10;\n"
    "    if (len(args) > 0) depth = parseInt(args[0]);\n"
    "    println(\"check: \" + Tree.make(depth).check());\n"
    "    return 0;\n"
    "}\n";

Test(compiler, program_shape) {
    Program *p = compile_as("dir/trees.gcl", trees_src);
    cr_assert_eq(p->num_classes, 2);
    cr_assert_str_eq(p->classes[0].name, "trees");
    cr_assert_str_eq(p->classes[1].name, "Tree");
    cr_assert_str_eq(p->classes[0].source_file, "trees.gcl");
    cr_assert_str_eq(p->classes[1].source_file, "trees.gcl");
    cr_assert_eq(p->classes[1].num_fields, 2);
    cr_assert_eq(p->classes[1].num_ref_fields, 2);
    cr_assert_str_eq(p->fields[p->classes[1].fields[1]].name, "right");

    const ProgMethod *main_m = method_named(p, "trees", "main");
    const ProgMethod *make = method_named(p, "Tree", "make");
    const ProgMethod *check = method_named(p, "Tree", "check");
    cr_assert_str_eq(main_m->signature, "([LString;)J");
    cr_assert_str_eq(make->signature, "(J)LTree;");
    cr_assert_str_eq(check->signature, "()J");
    cr_assert(make->is_static);
    cr_assert_not(check->is_static);
    cr_assert_eq(&p->methods[p->entry_method], main_m);
    /* check(): `this` is reference local 0 and its only local. */
    cr_assert_eq(check->num_ref_locals, 1);
    cr_assert_str_eq(p->types[check->ref_local_types[0]], "LTree;");
    /* make(int depth): depth is prim local 0, t is ref local 0. */
    cr_assert_eq(make->num_prim_locals, 1);
    cr_assert_eq(make->num_ref_locals, 1);
    cr_assert_str_eq(p->types[make->prim_local_types[0]], "J");
    program_free(p);
}

Test(compiler, line_table_marks_each_statement_once_per_line) {
    Program *p = compile_ok("void main() {\n"
                            "    int a = 1;\n"
                            "    a = a + 2; a = a * 3;\n"
                            "\n"
                            "    println(a);\n"
                            "}\n");
    const ProgMethod *m = method_named(p, "t", "main");
    cr_assert_eq(m->num_lines, 4);
    uint32_t lines[] = {2, 3, 5, 6};
    for (uint32_t i = 0; i < 4; i++) cr_assert_eq(m->lines[i].line, lines[i], "entry %u", i);
    cr_assert_eq(m->lines[0].pc, 0);
    /* The implicit RET at the end carries the closing brace's line. */
    cr_assert_eq(m->lines[3].pc, m->code_len - 1);
    cr_assert_eq(m->code[m->code_len - 1], OP_RET);
    program_free(p);
}

Test(compiler, exact_stack_depths) {
    Program *p = compile_ok("int f(int a, int b) { return a + b * 2; }\n"
                            "string g(string s) { return s + (s + s); }\n"
                            "void main() { f(1, 2); g(\"x\"); }\n");
    cr_assert_eq(method_named(p, "t", "f")->max_pstack, 3);
    cr_assert_eq(method_named(p, "t", "f")->max_rstack, 0);
    cr_assert_eq(method_named(p, "t", "g")->max_rstack, 3);
    const ProgMethod *m = method_named(p, "t", "main");
    cr_assert_eq(m->max_pstack, 2);
    cr_assert_eq(m->max_rstack, 1);
    char ops[512];
    opcode_list(m, ops, sizeof ops);
    /* Unused results are popped from their own stacks. */
    cr_assert_str_eq(ops, "PUSHI PUSHI CALL PPOP LDS CALL RPOP RET");
    program_free(p);
}

Test(compiler, increments_and_compound_assignment) {
    Program *p = compile_ok("class P { int x; string s; }\n"
                            "void main() {\n"
                            "    int i = 0; i++; i += 1; i--;\n"
                            "    P p = new P(); p.x += 2;\n"
                            "    byte[] b = new byte[4]; b[i] *= 3;\n"
                            "    string[] ss = new string[2]; ss[1] += i;\n"
                            "}\n");
    char ops[1024];
    opcode_list(method_named(p, "t", "main"), ops, sizeof ops);
    cr_assert_str_eq(ops,
                     "PUSHI PSTORE IINC IINC PLOAD PUSHI ISUB PSTORE "
                     "NEW RSTORE RLOAD RDUP GETFP PUSHI IADD PUTFP "
                     "PUSHI NEWARR RSTORE RLOAD PLOAD RDUP PDUP AGETB PUSHI IMUL APUTB "
                     "PUSHI NEWARR RSTORE RLOAD PUSHI RDUP PDUP AGETR PLOAD I2S SCAT APUTR RET");
    bool has_byte_array = false;
    for (uint32_t t = 0; t < p->num_types; t++) has_byte_array |= strcmp(p->types[t], "[B") == 0;
    cr_assert(has_byte_array);
    program_free(p);
}

Test(compiler, narrow_arrays_use_their_array_type) {
    Program *p = compile_ok("void main() { char[] c = new char[3]; float[] f = new float[1]; f[0] = 1; c[0] = 65; }\n");
    const ProgMethod *m = method_named(p, "t", "main");
    /* PUSHI 3; NEWARR [C */
    cr_assert_eq(m->code[5], OP_NEWARR);
    cr_assert_str_eq(p->types[operand_at(m, 5)], "[C");
    char ops[512];
    opcode_list(m, ops, sizeof ops);
    /* An int stored into a float array is promoted first (the literal directly). */
    cr_assert_str_eq(ops, "PUSHI NEWARR RSTORE PUSHI NEWARR RSTORE RLOAD PUSHI LDD APUTF RLOAD PUSHI PUSHI APUTC RET");
    program_free(p);
}

Test(compiler, short_circuit_conditions_jump) {
    Program *p = compile_ok("bool f(int a, int b) { return a > 0 && b > 0 || !(a == b); }\n"
                            "void main() { if (f(1, 2) && f(2, 1)) println(1); }\n");
    char ops[512];
    opcode_list(method_named(p, "t", "f"), ops, sizeof ops);
    cr_assert_str_eq(ops, "PLOAD PUSHI IGT JF PLOAD PUSHI IGT JT PLOAD PLOAD IEQ JT PUSHZ JMP PUSHZ RETP");
    opcode_list(method_named(p, "t", "main"), ops, sizeof ops);
    cr_assert_str_eq(ops, "PUSHI PUSHI CALL JF PUSHI PUSHI CALL JF PUSHI PRINTI RET");
    program_free(p);
}

Test(compiler, loops_test_at_the_bottom) {
    Program *p = compile_ok("void main() { for (int i = 0; i < 3; i++) { if (i == 1) continue; println(i); } }\n");
    const ProgMethod *m = method_named(p, "t", "main");
    char ops[512];
    opcode_list(m, ops, sizeof ops);
    cr_assert_str_eq(ops, "PUSHI PSTORE JMP PLOAD PUSHI IEQ JF JMP PLOAD PRINTI IINC PLOAD PUSHI ILT JT RET");
    program_free(p);
}

Test(compiler, strings_and_builtins) {
    Program *p = compile_ok("void main() {\n"
                            "    string s = \"a\\tb\" + 1 + 2.5 + true + null;\n"
                            "    println(s == \"x\"); println(s != null); println();\n"
                            "    print(charAt(s, 0)); print(substr(s, 0, 1)); print(chr(65));\n"
                            "    print(str(1) + str(1.5) + str(false)); print(toInt(2.5) + toInt(3));\n"
                            "    print(toDouble(2)); print(len(s) + len(new int[3])); exit(0);\n"
                            "}\n");
    char ops[2048];
    opcode_list(method_named(p, "t", "main"), ops, sizeof ops);
    cr_assert_str_eq(ops,
                     "LDS PUSHI I2S SCAT LDD D2S SCAT PUSHZ Z2S SCAT ANULL SCAT RSTORE "
                     "RLOAD LDS SEQ PRINTZ RLOAD ANULL RNE PRINTZ LDS PRINTS "
                     "RLOAD PUSHI SCHAR PRINTI RLOAD PUSHI PUSHI SSUB PRINTS PUSHI CHR PRINTS "
                     "PUSHI I2S LDD D2S SCAT PUSHZ Z2S SCAT PRINTS LDD D2I LDD D2I IADD PRINTI "
                     "PUSHI I2D PRINTD RLOAD SLEN PUSHI NEWARR ALEN IADD PRINTI PUSHI EXIT RET");
    bool found_tab = false;
    for (uint32_t i = 0; i < p->num_strings; i++) found_tab |= strcmp(p->strings[i].chars, "a\tb") == 0;
    cr_assert(found_tab);
    program_free(p);
}

/* An int argument to a double parameter is wrapped in I2D where it stands:
 * the arguments after it stay in the call. */
Test(compiler, int_arguments_widen_in_any_position) {
    Program *p = compile_ok("double f(double a, int b, double c) { return a + b + c; }\n"
                            "void main() { int i = 1; print(f(i, i, i)); }\n");
    const ProgMethod *main_method = method_named(p, "t", "main");
    char ops[256];
    opcode_list(main_method, ops, sizeof ops);
    cr_assert_str_eq(ops, "PUSHI PSTORE PLOAD I2D PLOAD PLOAD I2D CALL PRINTD RET");
    uint32_t pc = 0;
    while (main_method->code[pc] != OP_CALL) pc += op_size(main_method->code[pc]);
    cr_assert_eq(operand_at(main_method, pc), (uint32_t)(method_named(p, "t", "f") - p->methods));
    program_free(p);
}

Test(compiler, globals_statics_and_big_constants) {
    Program *p = compile_ok("int count;\n"
                            "class C { static double total; static void bump() { count += 1; total = total + 0.5; } }\n"
                            "void main() { C.bump(); C.total = 2; println(count + 5000000000 + 0x7fffffffffffffff); }\n");
    cr_assert_eq(p->num_statics, 2);
    cr_assert_str_eq(p->statics[0].name, "count");
    cr_assert_eq(p->statics[0].owner_class, 0);
    cr_assert_str_eq(p->statics[1].name, "total");
    cr_assert_eq(p->statics[1].owner_class, 1);
    cr_assert_eq(p->num_ints, 2);
    cr_assert_eq(p->ints[0], 5000000000);
    cr_assert_eq(p->ints[1], INT64_MAX);
    program_free(p);
}

Test(compiler, dead_code_is_not_emitted) {
    Program *p = compile_ok("int f(int x) { while (true) { if (x > 3) return x; x++; } }\n"
                            "int g(bool b) { if (b) { return 1; } else { return 2; } }\n"
                            "void h() { return; println(1); }\n"
                            "void main() { for (;;) { break; println(2); } }\n");
    cr_assert_eq(method_named(p, "t", "h")->code_len, 1);
    char ops[512];
    opcode_list(method_named(p, "t", "f"), ops, sizeof ops);
    cr_assert_str_eq(ops, "PLOAD PUSHI IGT JF PLOAD RETP IINC JMP");
    opcode_list(method_named(p, "t", "g"), ops, sizeof ops);
    cr_assert_str_eq(ops, "PLOAD JF PUSHI RETP PUSHI RETP");
    opcode_list(method_named(p, "t", "main"), ops, sizeof ops);
    cr_assert_str_eq(ops, "JMP RET");
    program_free(p);
}

Test(compiler, declarations_reset_to_default_and_shadow) {
    Program *p = compile_ok("void main() { int n = 3; while (n > 0) { int k; double d; bool z; string s; k++; n--; }\n"
                            "  { int n2 = 1; } { int n2 = 2; println(n2); } }\n");
    const ProgMethod *m = method_named(p, "t", "main");
    /* n, k, d, z, n2, n2: one slot each, no reuse. */
    cr_assert_eq(m->num_prim_locals, 6);
    cr_assert_eq(m->num_ref_locals, 1);
    cr_assert_str_eq(p->types[m->prim_local_types[2]], "D");
    cr_assert_str_eq(p->types[m->prim_local_types[3]], "Z");
    program_free(p);
}

Test(compiler, instance_calls_and_this) {
    Program *p = compile_ok("class A { int v; A next;\n"
                            "  int get() { return v; }\n"
                            "  int sum() { if (next == null) return get(); return this.get() + next.sum(); }\n"
                            "  static A of(int v) { A a = new A(); a.v = v; return a; } }\n"
                            "int main() { A a = A.of(1); a.next = A.of(2); return a.sum(); }\n");
    char ops[512];
    opcode_list(method_named(p, "A", "sum"), ops, sizeof ops);
    cr_assert_str_eq(ops, "RLOAD GETFR ANULL REQ JF RLOAD CALL RETP RLOAD CALL RLOAD GETFR CALL IADD RETP");
    cr_assert_str_eq(method_named(p, "t", "main")->signature, "()J");
    program_free(p);
}

Test(compiler, user_functions_hide_builtins) {
    Program *p = compile_ok("int len(int x) { return x; }\nvoid main() { int len = len(3); println(len); }\n");
    char ops[256];
    opcode_list(method_named(p, "t", "main"), ops, sizeof ops);
    cr_assert_str_eq(ops, "PUSHI CALL PSTORE PLOAD PRINTI RET");
    program_free(p);
}

Test(compiler, qualified_names_and_hex_patterns) {
    Program *p = compile_ok("int n;\n"
                            "int twice(int x) { return 2 * x; }\n"
                            "class K { static int twice(int x) { return t.twice(x) + 1; } }\n"
                            "void main() { t.n = 0xffffffffffffffff; println(K.twice(n)); }\n");
    const ProgMethod *k = method_named(p, "K", "twice");
    /* PLOAD 0; CALL t.twice: the module's function, not K's own. */
    cr_assert_eq(k->code[3], OP_CALL);
    cr_assert_eq(&p->methods[operand_at(k, 3)], method_named(p, "t", "twice"));
    char ops[256];
    opcode_list(method_named(p, "t", "main"), ops, sizeof ops);
    cr_assert_str_eq(ops, "PUSHI PUTSP GETSP CALL PRINTI RET");
    cr_assert_eq((int32_t)operand_at(method_named(p, "t", "main"), 0), -1);
    program_free(p);
    /* The file's class takes its name from the path, so the path can be wrong. */
    p = compile_source("dir/String.gcl", "void main() {}", 14, err, sizeof err);
    cr_assert_null(p);
    cr_assert_str_eq(err, "dir/String.gcl: the file name cannot name a class ('String')");
}

/* ---- compile errors ------------------------------------------------------------- */

Test(compiler_errors, lexical) {
    expect_error("void main() {\n  string s = \"abc;\n}\n", "t.gcl:2:14: unterminated string");
    expect_error("void main() { println(\"a\\qb\"); }", "t.gcl:1:25: bad escape '\\q'");
    expect_error("void main() { println(\"a\\0\"); }", "t.gcl:1:25: '\\0' cannot appear in a string (strings hold no NUL byte)");
    expect_error("void main() { int x = 99999999999999999999; }", "t.gcl:1:23: integer literal too large");
    expect_error("void main() { int x = 12ab; }", "t.gcl:1:23: bad number literal");
    expect_error("void main() { int x = 0x; }", "t.gcl:1:23: bad hex literal");
    expect_error("void main() { int x = 'ab'; }", "t.gcl:1:23: character literal holds more than one byte");
    expect_error("void main() { int x = ''; }", "t.gcl:1:23: empty character literal");
    expect_error("void main() { int x = 1 @ 2; }", "t.gcl:1:25: unexpected character '@'");
    expect_error("void main() { int x = 1e999; }", "t.gcl:1:23: number literal too large");
    expect_error("void main() {}\n\x01", "t.gcl:2:1: unexpected byte 0x01");
}

Test(compiler_errors, syntax) {
    expect_error("void main() {\n  println(\"hi\")\n}\n", "t.gcl:3:1: expected ';' after expression");
    expect_error("void main() {\n  int x = 1\n  x++;\n}\n", "t.gcl:3:3: expected ';' after variable declaration");
    expect_error("void main() { x + 1; }", "t.gcl:1:15: not a statement");
    expect_error("void main() { if x {} }", "t.gcl:1:18: expected '(' after 'if'");
    expect_error("void main() { int x = (1 + ; }", "t.gcl:1:28: expected expression");
    expect_error("void main() {", "t.gcl:1:14: expected '}' before end of file");
    expect_error("int g = 1;\nvoid main() {}", "t.gcl:1:7: globals take no initializer: assign them in code");
    expect_error("static int g;", "t.gcl:1:1: 'static' is only for class members: top-level functions and globals are static already");
    expect_error("class A { int x }", "t.gcl:1:17: expected ';' after field");
    expect_error("void main() { var x; }", "t.gcl:1:20: expected '=': a 'var' declaration needs an initial value");
    expect_error("void main() { new A(1); }", "t.gcl:1:21: expected ')' after 'new Name(': classes take no constructor arguments");
    expect_error("42", "t.gcl:1:1: expected class, function or variable declaration");
}

Test(compiler_errors, names) {
    expect_error("void main() {\n  println(x);\n}\n", "t.gcl:2:11: undefined variable 'x'");
    expect_error("void main() { f(); }", "t.gcl:1:15: undefined function 'f'");
    expect_error("void main() { Foo f; }", "t.gcl:1:15: unknown class 'Foo'");
    expect_error("void main() { var f = new Foo(); }", "t.gcl:1:27: unknown class 'Foo'");
    expect_error("class A {} class A {} void main() {}", "t.gcl:1:18: duplicate class 'A'");
    expect_error("class t {} void main() {}", "t.gcl:1:7: class 't' has the same name as the file's own class");
    expect_error("class String {} void main() {}", "t.gcl:1:7: the class name 'String' is reserved for strings");
    expect_error("class A { int x; void x() {} } void main() {}", "t.gcl:1:23: 'x' is already declared in class A");
    expect_error("int f; void f() {} void main() {}", "t.gcl:1:13: 'f' is already declared");
    expect_error("void main() { int x = 1; int x = 2; }", "t.gcl:1:30: 'x' is already declared in this scope");
    expect_error("void f(int a, int a) {} void main() {}", "t.gcl:1:19: 'a' is already declared in this scope");
    expect_error("class A { int v; static int f() { return v; } } void main() {}",
                 "t.gcl:1:42: cannot use instance field 'v' in a static function");
    expect_error("class A { int v; static A f() { return this; } } void main() {}",
                 "t.gcl:1:40: cannot use 'this' in a static function");
    expect_error("class A { void m() {} static void f() { m(); } } void main() {}",
                 "t.gcl:1:41: cannot call instance method 'm' from a static function");
    expect_error("class A { static void s() {} } void main() { A a = new A(); a.s(); }",
                 "t.gcl:1:63: 's' is static: call it as A.s(...)");
    expect_error("class A { void m() {} } void main() { A.m(); }",
                 "t.gcl:1:41: cannot call instance method 'm' without an object");
    expect_error("class A { int v; } void main() { println(A.v); }",
                 "t.gcl:1:44: 'v' is an instance field of A: it needs an object, not the class");
    expect_error("class A { } void main() { A a = new A(); println(a.nope); }", "t.gcl:1:52: class A has no field 'nope'");
    expect_error("class A { } void main() { println(A); }", "t.gcl:1:35: 'A' is a class, not a value");
    expect_error("void main() { string s = \"x\"; println(s.length); }", "t.gcl:1:41: cannot access field 'length' of type string");
}

Test(compiler_errors, types) {
    expect_error("void main() {\n    int x = \"hello\";\n}\n", "t.gcl:2:13: type mismatch: cannot assign string to int");
    expect_error("void main() { int x; x = 1.5; }", "t.gcl:1:26: type mismatch: cannot assign double to int");
    expect_error("void main() { int x = 1; x += 0.5; }", "t.gcl:1:31: type mismatch: cannot assign double to int");
    expect_error("void main() { double d = 1; d++; }", "t.gcl:1:30: operator '++' cannot be applied to double");
    expect_error("void main() { bool b = true; b -= 1; }", "t.gcl:1:32: operator '-=' cannot be applied to bool and int");
    expect_error("void main() { println(1 + true); }", "t.gcl:1:25: operator '+' cannot be applied to int and bool");
    expect_error("void main() { println(1.5 % 2); }", "t.gcl:1:27: operator '%' cannot be applied to double and int");
    expect_error("void main() { println(\"a\" < \"b\"); }", "t.gcl:1:27: operator '<' cannot be applied to string and string");
    expect_error("class A {} class B {} void main() { println(new A() == new B()); }",
                 "t.gcl:1:53: operator '==' cannot be applied to A and B");
    expect_error("class A {} void main() { println(\"x\" + new A()); }",
                 "t.gcl:1:38: operator '+' cannot be applied to string and A");
    expect_error("void main() { println(-true); }", "t.gcl:1:23: operator '-' cannot be applied to bool");
    expect_error("void main() { if (1) {} }", "t.gcl:1:19: condition must be bool, not int");
    expect_error("void main() { while (\"x\") {} }", "t.gcl:1:22: condition must be bool, not string");
    expect_error("void f(int a) {} void main() { f(\"x\"); }", "t.gcl:1:34: type mismatch: argument 1 of 'f' must be int, not string");
    expect_error("void f(int a) {} void main() { f(1, 2); }", "t.gcl:1:32: wrong argument count for 'f': expected 1, got 2");
    expect_error("void main() { println(charAt(\"x\")); }", "t.gcl:1:23: wrong argument count for 'charAt': expected 2, got 1");
    expect_error("void main() { println(1, 2); }", "t.gcl:1:15: wrong argument count for 'println': expected 0 or 1, got 2");
    expect_error("void main() { println(len(3)); }", "t.gcl:1:27: type mismatch: len takes a string or an array, not int");
    expect_error("void main() { println(toDouble(1.5)); }",
                 "t.gcl:1:32: type mismatch: argument 1 of 'toDouble' must be int, not double");
    expect_error("void main() { int[] a = new int[2]; a[1.5] = 1; }", "t.gcl:1:39: array index must be int, not double");
    expect_error("void main() { int a = 1; a[0] = 1; }", "t.gcl:1:26: cannot index a value of type int");
    expect_error("void main() { int[] a = new int[true]; }", "t.gcl:1:33: array length must be int, not bool");
    expect_error("void main() { byte b; }", "t.gcl:1:15: 'byte' is only for array elements (byte[])");
    expect_error("void main() { void v; }", "t.gcl:1:15: 'void' is only for function results");
    expect_error("void main() { var x = null; }", "t.gcl:1:23: cannot infer the type of 'x' from null");
    expect_error("void f() {} void main() { int x = f(); }", "t.gcl:1:35: 'f' returns no value");
    expect_error("void main() { 1 = 2; }", "t.gcl:1:15: cannot assign to this expression");
    expect_error("void main() { int[] a = null; string[] b = a; }",
                 "t.gcl:1:44: type mismatch: cannot assign int[] to string[]");
}

Test(compiler_errors, control_flow) {
    expect_error("void main() { break; }", "t.gcl:1:15: break outside loop");
    expect_error("void main() { if (true) continue; }", "t.gcl:1:25: continue outside loop");
    expect_error("int f(int x) {\n  if (x > 0) return 1;\n}\nvoid main() {}", "t.gcl:3:1: missing return in function 'f'");
    expect_error("int f() { while (true) { break; } }\nvoid main() {}", "t.gcl:1:35: missing return in function 'f'");
    expect_error("int f() { return; }\nvoid main() {}", "t.gcl:1:11: missing return value: function 'f' returns int");
    expect_error("void f() { return 1; }\nvoid main() {}", "t.gcl:1:19: cannot return a value from void function 'f'");
    expect_error("string f() { return 1; }\nvoid main() {}", "t.gcl:1:21: type mismatch: function 'f' returns string, not int");
    expect_error("void f() {}", "t.gcl:1:1: no function 'main'");
    expect_error("double main() { return 1; }",
                 "t.gcl:1:8: main must be declared as void main(), int main(), void main(string[] args) or int main(string[] args)");
    expect_error("void main(int x) {}",
                 "t.gcl:1:6: main must be declared as void main(), int main(), void main(string[] args) or int main(string[] args)");
}

Test(compiler_errors, returns_that_are_accepted) {
    Program *p = compile_ok("int a(bool b) { if (b) return 1; else return 2; }\n"
                            "int b() { while (true) { while (true) { break; } } }\n"
                            "int c() { for (;;) {} }\n"
                            "int d() { { return 1; } }\n"
                            "double e() { return 1; }\n"
                            "string f() { return null; }\n"
                            "void main() {}\n");
    program_free(p);
}

Test(compiler_errors, nesting_limits) {
    size_t depth = 5000;
    char *src = malloc(depth * 2 + 64);
    strcpy(src, "void main() { int x = ");
    size_t n = strlen(src);
    for (size_t i = 0; i < depth; i++) src[n++] = '(';
    src[n++] = '1';
    for (size_t i = 0; i < depth; i++) src[n++] = ')';
    strcpy(src + n, "; }");
    Program *p = compile_source("t.gcl", src, strlen(src), err, sizeof err);
    cr_assert_null(p);
    cr_assert(strstr(err, "nesting too deep"), "%s", err);
    /* A long flat chain is fine to parse but too tall to walk recursively. */
    char *chain = malloc(depth * 2 + 64);
    strcpy(chain, "void main() { int x = 1");
    n = strlen(chain);
    for (size_t i = 0; i < depth; i++) {
        chain[n++] = '+';
        chain[n++] = '1';
    }
    strcpy(chain + n, "; }");
    p = compile_source("t.gcl", chain, strlen(chain), err, sizeof err);
    cr_assert_null(p);
    cr_assert(strstr(err, "expression nested too deeply"), "%s", err);
    free(src);
    free(chain);
}

/* Truncations and byte mutations of a valid program: every one must give a
 * verifiable program or a "t.gcl:LINE:COL: message" error, never a crash. */
Test(compiler_fuzz, mutations_never_crash) {
    size_t len = strlen(trees_src);
    char *buf = malloc(len + 1);
    uint64_t seed = 12345;
    unsigned compiled = 0, rejected = 0;
    for (int round = 0; round < 3000; round++) {
        memcpy(buf, trees_src, len + 1);
        size_t n = len;
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        if (round < (int)len) {
            n = (size_t)round;   /* every prefix */
        } else {
            for (int k = 0; k < 3; k++) {
                seed = seed * 6364136223846793005u + 1442695040888963407u;
                size_t at = (size_t)(seed >> 33) % len;
                static const char alphabet[] = "(){};=+-*/\"'\\.,[]<>!&|0xe9aZ _\n\t\x01\xff";
                buf[at] = alphabet[(seed >> 20) % (sizeof alphabet - 1)];
            }
        }
        Program *p = compile_source("t.gcl", buf, n, err, sizeof err);
        if (p) {
            VerifyError verr;
            cr_assert(verify_program(p, &verr), "round %d: verifier: %s", round, verr.message);
            program_free(p);
            compiled++;
        } else {
            cr_assert(strncmp(err, "t.gcl:", 6) == 0, "round %d: %s", round, err);
            rejected++;
        }
    }
    cr_assert(compiled > 0 && rejected > 0);
    free(buf);
}

/* ---- threads and monitors (docs/language.md "Threads", "Monitors") ---------- */

Test(compiler, start_passes_the_call_and_its_name) {
    Program *p = compile_ok("void f(int n, string s) {}\n"
                            "void main() { Thread t = start(f(1, \"x\")); start(f(2, \"y\"), \"named\"); join(t); sleep(5); }\n");
    const ProgMethod *m = method_named(p, "t", "main");
    char ops[512];
    opcode_list(m, ops, sizeof ops);
    cr_assert_str_eq(ops, "PUSHI LDS ANULL START RSTORE PUSHI LDS LDS START RPOP RLOAD JOIN PUSHI SLEEP RET");
    program_free(p);
}

/* Every way out of a synchronized block exits its monitor: the end,
 * break, continue and return (with the value computed first). */
Test(compiler, synchronized_exits_on_every_path) {
    Program *p = compile_ok("class L { int n; }\n"
                            "int f(L a, L b) {\n"
                            "  while (true) {\n"
                            "    synchronized (a) {\n"
                            "      if (a.n == 1) break;\n"
                            "      synchronized (b) { if (b.n == 2) return 7; }\n"
                            "    }\n"
                            "  }\n"
                            "  return 0;\n"
                            "}\n"
                            "void main() { L l = new L(); synchronized (l) { wait(l); wait(l, 3); notify(l); notifyAll(l); } }\n");
    const ProgMethod *f = method_named(p, "t", "f");
    char ops[1024];
    opcode_list(f, ops, sizeof ops);
    cr_assert_str_eq(ops, "RLOAD RDUP RSTORE MONENTER RLOAD GETFP PUSHI IEQ JF RLOAD MONEXIT JMP "
                          "RLOAD RDUP RSTORE MONENTER RLOAD GETFP PUSHI IEQ JF PUSHI RLOAD MONEXIT RLOAD MONEXIT RETP "
                          "RLOAD MONEXIT RLOAD MONEXIT JMP PUSHI RETP");
    const ProgMethod *m = method_named(p, "t", "main");
    opcode_list(m, ops, sizeof ops);
    cr_assert_str_eq(ops, "NEW RSTORE RLOAD RDUP RSTORE MONENTER RLOAD PUSHI WAIT RLOAD PUSHI WAIT RLOAD NOTIFY "
                          "RLOAD NOTIFY RLOAD MONEXIT RET");
    program_free(p);
}

Test(compiler_errors, threads_and_monitors) {
    expect_error("void main() { start(println(1)); }", "t.gcl:1:21: start cannot run built-in function 'println'");
    expect_error("void main() { start(1); }", "t.gcl:1:21: start takes a call of a function or method");
    expect_error("void f() {}\nvoid main() { start(f(), 3); }",
                 "t.gcl:2:26: type mismatch: argument 2 of 'start' must be string, not int");
    expect_error("void main() { join(1); }", "t.gcl:1:20: type mismatch: argument 1 of 'join' must be Thread, not int");
    expect_error("void main() { synchronized (1) {} }",
                 "t.gcl:1:29: synchronized needs an object, array, string or thread, not int");
    expect_error("void main() { wait(null); }",
                 "t.gcl:1:20: type mismatch: wait takes an object, array, string or thread, not null");
    expect_error("class Thread { int n; }\nvoid main() {}", "t.gcl:1:7: the class name 'Thread' is reserved for threads");
}

/* interrupt(t) pops the Thread; interrupted() pushes a bool, dropped as a
 * statement and usable as a condition. */
Test(compiler, interrupt_and_interrupted) {
    Program *p = compile_ok("void f() {}\n"
                            "void main() { Thread t = start(f()); interrupt(t); interrupted(); if (interrupted()) sleep(1); }\n");
    const ProgMethod *m = method_named(p, "t", "main");
    char ops[1024];
    opcode_list(m, ops, sizeof ops);
    cr_assert_str_eq(ops, "ANULL START RSTORE RLOAD INTERRUPT INTERRUPTED PPOP INTERRUPTED JF PUSHI SLEEP RET");
    program_free(p);
}

Test(compiler_errors, interrupts) {
    expect_error("void main() { interrupt(1); }",
                 "t.gcl:1:25: type mismatch: argument 1 of 'interrupt' must be Thread, not int");
    expect_error("void main() { interrupt(); }", "t.gcl:1:15: wrong argument count for 'interrupt': expected 1, got 0");
    expect_error("void main() { int b = interrupted(); }", "t.gcl:1:23: type mismatch: cannot assign bool to int");
}
