/*
 * interp.c -- tests of the VM: linking, the interpreter's semantics, runtime
 * errors and their traces, exit statuses, the root set, and vmrun's
 * command-line parser.
 *
 * Programs are written in the source language (docs/language.md) and
 * compiled in memory.  Each run happens in a forked child whose stdout and
 * stderr go to temporary files, so a test can check the exit status and
 * both outputs of a program that ends in a runtime error (which exits the
 * process).  Every run uses --gc-stress and --verify-heap unless it says
 * otherwise: an interpreter that held an object across an allocation, or
 * missed a root, fails here rather than in a long program.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gc/common/heapsize.h"
#include "vm/asm/asm.h"
#include "vm/compiler/compiler.h"
#include "vm/tools/vmrun/heap_options.h"
#include "vm/tools/vmrun/options.h"
#include "vm/link/quicken.h"
#include "vm/opcodes.h"
#include "vm/verify/verify.h"
#include "vm/vm.h"
#include "vmpi/control.h"
#include "vmpi/vmpi.h"

/* ---- running a program in a child process ------------------------------------ */

/* Under -DGCLAB_SANITIZE=ON: the children below are forks of Criterion's
 * threaded runner, where LeakSanitizer cannot stop the other threads and
 * writes a warning to the stderr the tests compare.  A run that ends in
 * vm_exit frees nothing on purpose, so there is no leak check to lose. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void) { return "detect_leaks=0"; }

typedef struct Run {
    int status;       /* exit status, or 128 + signal */
    char out[16384];
    char err[16384];
} Run;

typedef struct RunConfig {
    size_t heap_bytes;  /* 0: 4m */
    bool no_stress;     /* skip --gc-stress (long loops) */
    bool plain_code;    /* without superinstructions (VMOptions.plain_code) */
    bool assembly;      /* the source is assembly (vm/asm/asm.c), not the language */
    bool trace_methods; /* an agent prints "> name" / "< name" for METHOD_ENTRY / EXIT */
    bool trace_calls;   /* an agent prints GetCallTrace's frames at each METHOD_ENTRY */
    bool trace_exits;   /* with trace_calls: at each METHOD_EXIT too, after "< " */
    bool trace_receivers; /* an agent prints "> name this=CLASS|null" for METHOD_ENTRY2 */
    bool check_instructions; /* an agent checks INSTRUCTION_START's order (check_instruction) */
    const char *hook_method; /* INSTRUCTION_START enabled only while this method runs */
} RunConfig;

/* The method-event agent of RunConfig.trace_methods: it writes into the
 * program's own stdout, so the log interleaves with the program's output. */
static void print_method_event(VMPI_Event *event) {
    const ProgMethod *m = (const ProgMethod *)event->u.method.method_id;
    printf("%c %s\n", event->event_type == VMPI_EVENT_METHOD_ENTRY ? '>' : '<', m->name);
}

/* The call-trace agent of RunConfig.trace_calls: at each METHOD_ENTRY it
 * asks the VM for the running thread's call trace (JVMPI 1.2, GetCallTrace)
 * and prints its frames, callee first, as "name:line". */
static VMPI_Interface *call_trace_agent;
static void print_call_trace(VMPI_Event *event) {
    VMPI_CallFrame frames[8];
    VMPI_CallTrace trace = {.env_id = event->env_id, .frames = frames};
    call_trace_agent->GetCallTrace(&trace, 8);
    if (event->event_type == VMPI_EVENT_METHOD_EXIT) printf("< ");
    for (int32_t i = 0; i < trace.num_frames; i++) {
        const ProgMethod *m = (const ProgMethod *)frames[i].method_id;
        printf("%s%s:%d", i ? " " : "", m->name, frames[i].lineno);
    }
    printf("\n");
}

/* The receiver agent of RunConfig.trace_receivers (JVMPI 1.2,
 * METHOD_ENTRY2): the entered method and the class of its `this`. */
static void print_receiver(VMPI_Event *event) {
    const ProgMethod *m = (const ProgMethod *)event->u.method_entry2.method_id;
    const Obj *receiver = (const Obj *)event->u.method_entry2.obj_id;
    printf("> %s this=%s\n", m->name, receiver ? receiver->cls->name : "null");
}

/* The agent of RunConfig.check_instructions.  Each INSTRUCTION_START must
 * be for the instruction the previous one leads to: the next instruction,
 * a jump's target (a conditional one's when is_true says it jumps), or a
 * callee's first instruction; only after a return is the next one not
 * predicted.  A breach is printed into the program's output; JVM_SHUT_DOWN
 * prints how many conditional branches jumped and how many did not. */
static const Program *running_program;
static const ProgMethod *next_method;
static int64_t next_offset = -1;
static uint32_t branches_taken, branches_not_taken;
static void check_instruction(VMPI_Event *event) {
    if (event->event_type == VMPI_EVENT_JVM_SHUT_DOWN) {
        printf("branches: %s taken, %s not taken\n", branches_taken ? "some" : "none",
               branches_not_taken ? "some" : "none");
        return;
    }
    const ProgMethod *m = (const ProgMethod *)event->u.instruction.method_id;
    uint32_t offset = (uint32_t)event->u.instruction.offset;
    if (next_offset >= 0 && (m != next_method || offset != next_offset))
        printf("INSTRUCTION_START %s@%u, expected %s@%lld\n", m->name, offset, next_method->name,
               (long long)next_offset);
    uint8_t op = m->code[offset];
    int32_t jump;
    memcpy(&jump, m->code + offset + 1, sizeof jump);
    bool conditional = op == OP_JT || op == OP_JF;
    if (conditional) {
        if (event->u.instruction.is_true) branches_taken++;
        else branches_not_taken++;
    } else if (event->u.instruction.is_true) {
        printf("INSTRUCTION_START %s@%u: is_true set for no branch\n", m->name, offset);
    }
    next_method = m;
    if (op == OP_JMP || (conditional && event->u.instruction.is_true)) {
        next_offset = (int64_t)offset + jump;
    } else if (op == OP_CALL) {
        uint16_t callee;
        memcpy(&callee, m->code + offset + 1, sizeof callee);
        next_method = &running_program->methods[callee];
        next_offset = 0;
    } else if (op == OP_RET || op == OP_RETP || op == OP_RETR) {
        next_offset = -1;
    } else {
        next_offset = (int64_t)offset + op_size(op);
    }
}

/* The agent of RunConfig.hook_method: INSTRUCTION_START on at that
 * method's entry and off at its exit, and the method of each
 * INSTRUCTION_START printed once per run of consecutive events. */
static VMPI_Interface *hook_agent;
static const char *hook_method;
static const ProgMethod *last_hooked;
static void hook_one_method(VMPI_Event *event) {
    const ProgMethod *m = (const ProgMethod *)event->u.method.method_id;
    switch (event->event_type) {
    case VMPI_EVENT_METHOD_ENTRY:
    case VMPI_EVENT_METHOD_EXIT:
        if (strcmp(m->name, hook_method) == 0 && event->event_type == VMPI_EVENT_METHOD_ENTRY)
            hook_agent->EnableEvent(VMPI_EVENT_INSTRUCTION_START, NULL);
        else if (strcmp(m->name, hook_method) == 0)
            hook_agent->DisableEvent(VMPI_EVENT_INSTRUCTION_START, NULL);
        last_hooked = NULL;
        break;
    default: /* INSTRUCTION_START */
        m = (const ProgMethod *)event->u.instruction.method_id;
        if (m != last_hooked) printf("instructions of %s from offset %d\n", m->name, event->u.instruction.offset);
        last_hooked = m;
        break;
    }
}

static void read_all(FILE *file, char *buf, size_t size) {
    rewind(file);
    size_t n = fread(buf, 1, size - 1, file);
    buf[n] = '\0';
    fclose(file);
}

/* The child: compile, verify, link, run; exits with the program's status. */
static _Noreturn void child_run(const char *source, RunConfig config, int argc, char **argv) {
    char err[512];
    Program *program = config.assembly ? asm_parse_verified("t.s", source, strlen(source), err, sizeof err)
                                       : compile_source("t.gcl", source, strlen(source), err, sizeof err);
    if (!program) {
        fprintf(stderr, "compile error: %s\n", err);
        _exit(99);
    }
    VerifyError verr;
    if (!verify_program(program, &verr)) {
        fprintf(stderr, "verify error: %s\n", verr.message);
        _exit(98);
    }
    if (config.trace_methods) {
        VMPI_Interface *agent = vmpi_register_listener(print_method_event);
        agent->EnableEvent(VMPI_EVENT_METHOD_ENTRY, NULL);
        agent->EnableEvent(VMPI_EVENT_METHOD_EXIT, NULL);
    }
    running_program = program;
    if (config.check_instructions) {
        VMPI_Interface *agent = vmpi_register_listener(check_instruction);
        agent->EnableEvent(VMPI_EVENT_INSTRUCTION_START, NULL);
        agent->EnableEvent(VMPI_EVENT_JVM_SHUT_DOWN, NULL);
    }
    if (config.hook_method) {
        hook_method = config.hook_method;
        hook_agent = vmpi_register_listener(hook_one_method);
        hook_agent->EnableEvent(VMPI_EVENT_METHOD_ENTRY, NULL);
        hook_agent->EnableEvent(VMPI_EVENT_METHOD_EXIT, NULL);
    }
    if (config.trace_receivers)
        vmpi_register_listener(print_receiver)->EnableEvent(VMPI_EVENT_METHOD_ENTRY2, NULL);
    if (config.trace_calls) {
        call_trace_agent = vmpi_register_listener(print_call_trace);
        call_trace_agent->EnableEvent(VMPI_EVENT_METHOD_ENTRY, NULL);
        if (config.trace_exits) call_trace_agent->EnableEvent(VMPI_EVENT_METHOD_EXIT, NULL);
    }
    VMOptions options = {
        .gc_name = GC_DEFAULT_COLLECTOR,
        .gc = {.heap_bytes = config.heap_bytes ? config.heap_bytes : (size_t)4 << 20,
               .young_bytes = (size_t)256 << 10,
               .tenure_age = 2,
               .rc_cycles = true,
               .stress = !config.no_stress,
               .verify = !config.no_stress},
        .plain_code = config.plain_code,
    };
    VM *vm = vm_create(program, "t.gcl", &options);
    if (!vm) _exit(97);
    vm_exit(vm, vm_run_main(vm, argc, argv));
}

static Run *run_with(const char *source, RunConfig config, int argc, char **argv) {
    static Run run;
    FILE *out = tmpfile(), *err = tmpfile();
    cr_assert(out && err);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        dup2(fileno(out), STDOUT_FILENO);
        dup2(fileno(err), STDERR_FILENO);
        child_run(source, config, argc, argv);
    }
    int wstatus;
    cr_assert(waitpid(pid, &wstatus, 0) == pid);
    run.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
    read_all(out, run.out, sizeof run.out);
    read_all(err, run.err, sizeof run.err);
    cr_assert(run.status < 97 || run.status > 99, "the test program did not start: %s", run.err);
    return &run;
}

static Run *run(const char *source) { return run_with(source, (RunConfig){0}, 0, NULL); }

/* Runs twice, with and without superinstructions (quicken.h), and expects
 * exit status 0, nothing on stderr, and exactly `out` both times. */
static void expect_output_config(const char *source, RunConfig config, const char *out) {
    for (int plain = 0; plain <= 1; plain++) {
        config.plain_code = plain;
        Run *r = run_with(source, config, 0, NULL);
        cr_expect_eq(r->status, 0, "plain=%d: status %d, stderr:\n%s", plain, r->status, r->err);
        cr_expect_str_eq(r->err, "", "plain=%d: %s", plain, r->err);
        cr_expect_str_eq(r->out, out, "plain=%d: got\n%s", plain, r->out);
    }
}

static void expect_output(const char *source, const char *out) {
    expect_output_config(source, (RunConfig){0}, out);
}

/* Runs twice (as above) and expects a runtime error: status 1, exactly
 * `out` on stdout and exactly `err` on stderr. */
static void expect_error_config(const char *source, RunConfig config, const char *out, const char *err) {
    for (int plain = 0; plain <= 1; plain++) {
        config.plain_code = plain;
        Run *r = run_with(source, config, 0, NULL);
        cr_expect_eq(r->status, 1, "plain=%d: status %d", plain, r->status);
        cr_expect_str_eq(r->out, out, "plain=%d", plain);
        cr_expect_str_eq(r->err, err, "plain=%d", plain);
    }
}

static void expect_error(const char *source, const char *out, const char *err) {
    expect_error_config(source, (RunConfig){0}, out, err);
}

/* ---- output and exit status ------------------------------------------------------ */

Test(interp, hello) {
    expect_output("void main() { println(\"hello\"); print(1); print(true); println(2.5); println(); }",
                  "hello\n1true2.5\n\n");
}

Test(interp, int_main_returns_exit_status) {
    cr_expect_eq(run("int main() { return 42; }")->status, 42);
    /* The OS keeps 8 bits of the status. */
    cr_expect_eq(run("int main() { return 256 + 7; }")->status, 7);
    cr_expect_eq(run("int main() { return -1; }")->status, 255);
    cr_expect_eq(run("void main() { }")->status, 0);
}

Test(interp, exit_flushes_output_and_uses_status) {
    Run *r = run("void main() { print(\"before\"); exit(3); println(\"after\"); }");
    cr_expect_eq(r->status, 3);
    cr_expect_str_eq(r->out, "before");
}

Test(interp, main_receives_arguments) {
    char *argv[] = {"one", "", "three"};
    Run *r = run_with("int main(string[] args) {"
                      "  println(len(args));"
                      "  for (int i = 0; i < len(args); i++) println(\"[\" + args[i] + \"]\");"
                      "  return len(args);"
                      "}",
                      (RunConfig){0}, 3, argv);
    cr_expect_eq(r->status, 3);
    cr_expect_str_eq(r->out, "3\n[one]\n[]\n[three]\n");
}

Test(interp, main_without_arguments_gets_empty_array) {
    expect_output("void main(string[] args) { println(len(args)); }", "0\n");
}

/* ---- integer and double semantics -------------------------------------------------- */

Test(interp, int_arithmetic_wraps) {
    expect_output("void main() {"
                  "  int max = 9223372036854775807;"
                  "  int min = -max - 1;"
                  "  println(max + 1);"
                  "  println(min - 1);"
                  "  println(max * 2);"
                  "  println(-min);"
                  "  println(min / -1);"
                  "  println(min % -1);"
                  "  println(-7 / 2);"
                  "  println(-7 % 2);"
                  "  println(7 % -2);"
                  "}",
                  "-9223372036854775808\n9223372036854775807\n-2\n-9223372036854775808\n"
                  "-9223372036854775808\n0\n-3\n-1\n1\n");
}

Test(interp, shifts_mask_their_count) {
    expect_output("void main() {"
                  "  println(1 << 64);"
                  "  println(1 << 63);"
                  "  println(-8 >> 1);"
                  "  println(-1 >> 70);"
                  "  println(5 & 3); println(5 | 3); println(5 ^ 3);"
                  "}",
                  "1\n-9223372036854775808\n-4\n-1\n1\n7\n6\n");
}

Test(interp, double_formatting) {
    expect_output("void main() {"
                  "  println(1.0); println(0.1); println(1e100); println(-2.5); println(100.0);"
                  "  println(1.0 / 3.0); println(123456789012345678.0); println(-0.0);"
                  "  double zero = 0.0;"
                  "  println(1.0 / zero); println(-1.0 / zero); println(zero / zero);"
                  "  println(\"d=\" + 2.0); println(str(0.5));"
                  "}",
                  "1.0\n0.1\n1e+100\n-2.5\n100.0\n0.33333333333333\n1.2345678901235e+17\n-0.0\n"
                  "inf\n-inf\nnan\nd=2.0\n0.5\n");
}

Test(interp, double_to_int_truncates_and_saturates) {
    expect_output("void main() {"
                  "  double zero = 0.0;"
                  "  println(toInt(-2.7)); println(toInt(2.7));"
                  "  println(toInt(1e300)); println(toInt(-1e300)); println(toInt(zero / zero));"
                  "  println(toDouble(3)); println(1 + 0.5);"
                  "}",
                  "-2\n2\n9223372036854775807\n-9223372036854775808\n0\n3.0\n1.5\n");
}

Test(interp, comparisons) {
    expect_output("void main() {"
                  "  double zero = 0.0; double nan = zero / zero;"
                  "  println(1 < 2); println(2 <= 1); println(nan == nan); println(nan != nan);"
                  "  println(1.5 > 1); println(true == false); println(!false);"
                  "}",
                  "true\nfalse\nfalse\ntrue\ntrue\nfalse\ntrue\n");
}

/* ---- arrays of every element kind ------------------------------------------------------ */

Test(interp, narrow_arrays_truncate_and_widen) {
    expect_output("void main() {"
                  "  byte[] b = new byte[2]; b[0] = 200; b[1] = -1; println(b[0]); println(b[1]);"
                  "  char[] c = new char[1]; c[0] = -1; println(c[0]);"
                  "  short[] s = new short[1]; s[0] = 40000; println(s[0]);"
                  "  int32[] i = new int32[1]; i[0] = 2147483648; println(i[0]);"
                  "  float[] f = new float[1]; f[0] = 0.1; println(f[0]);"
                  "  bool[] z = new bool[2]; z[1] = true; println(z[0]); println(z[1]);"
                  "  double[] d = new double[1]; d[0] = 0.1; println(d[0]);"
                  "  int[] j = new int[3]; j[2] = -5; println(j[0] + j[2]); println(len(j));"
                  "}",
                  "-56\n-1\n65535\n-25536\n-2147483648\n0.10000000149012\nfalse\ntrue\n0.1\n-5\n3\n");
}

Test(interp, reference_arrays_and_objects) {
    expect_output("class P { int x; double y; bool z; P next; string name; }"
                  "void main() {"
                  "  P[] ps = new P[3];"
                  "  for (int i = 0; i < 3; i++) { ps[i] = new P(); ps[i].x = i * 10; ps[i].name = \"p\" + i; }"
                  "  ps[2].next = ps[0]; ps[1].y = 1.5; ps[0].z = true;"
                  "  println(ps[2].next.x + ps[1].x); println(ps[1].y); println(ps[0].z);"
                  "  println(ps[2].name); println(ps[1].next == null);"
                  "  int[][] grid = new int[][2]; grid[1] = new int[4]; grid[1][3] = 7;"
                  "  println(grid[1][3]); println(grid[0] == null);"
                  "}",
                  "10\n1.5\ntrue\np2\ntrue\n7\ntrue\n");
}

/* ---- strings ------------------------------------------------------------------------------ */

Test(interp, string_operations) {
    expect_output("void main() {"
                  "  string s = \"hello\"; string n = null;"
                  "  println(s + \", \" + n + \" \" + 42 + \" \" + true + \" \" + 1.5);"
                  "  println(len(s)); println(charAt(s, 1)); println(substr(s, 1, 3));"
                  "  println(substr(s, 5, 5) == \"\"); println(chr(65) + chr(321));"
                  "  println(charAt(chr(200), 0));"
                  "  println(parseInt(\"-9223372036854775808\")); println(parseInt(\"0042\"));"
                  "  println(s == \"hel\" + \"lo\"); println(n == null); println(s == n);"
                  "  println(str(-12)); println(str(false)); print(n); println();"
                  "}",
                  "hello, null 42 true 1.5\n5\n101\nel\ntrue\nAA\n200\n"
                  "-9223372036854775808\n42\ntrue\ntrue\nfalse\n-12\nfalse\nnull\n");
}

/* ---- statics, calls, recursion -------------------------------------------------------------- */

Test(interp, statics_calls_and_locals_start_cleared) {
    expect_output("int counter; string last;"
                  "class C { static int made; int v; }"
                  "int bump(int by) { counter += by; last = \"n\" + counter; return counter; }"
                  "int fresh() { int a; string s; if (s == null) return a; return -1; }"
                  "void main() {"
                  "  bump(2); bump(3); println(counter); println(last);"
                  "  println(fresh()); C.made = 4; println(C.made);"
                  "}",
                  "5\nn5\n0\n4\n");
}

Test(interp, instance_methods_and_deep_recursion) {
    expect_output("class Tree { Tree left; Tree right;"
                  "  static Tree make(int d) { Tree t = new Tree();"
                  "    if (d > 0) { t.left = make(d - 1); t.right = make(d - 1); } return t; }"
                  "  int check() { if (left == null) return 1; return 1 + left.check() + right.check(); } }"
                  "int down(int n) { if (n == 0) return 0; return 1 + down(n - 1); }"
                  "void main() { println(Tree.make(8).check()); println(down(50000)); }",
                  "511\n50000\n");
}

/* ---- runtime errors: message and trace ------------------------------------------------------------- */

Test(interp, null_reference_trace) {
    expect_error("class Node { Node next; int value; }\n"
                 "int sum(Node list) {\n"
                 "  int total = 0;\n"
                 "  while (true) {\n"
                 "    total += list.value;\n"
                 "    list = list.next;\n"
                 "  }\n"
                 "}\n"
                 "void main() {\n"
                 "  print(\"partial\");\n"
                 "  println(sum(new Node()));\n"
                 "}\n",
                 "partial",
                 "error: null reference\n"
                 "    at t.sum (t.gcl:5)\n"
                 "    at t.main (t.gcl:11)\n");
}

Test(interp, null_operands_of_every_kind) {
    const char *cases[] = {
        "int[] a; println(a[0]);",       "int[] a; a[0] = 1;",   "int[] a; println(len(a));",
        "string s; println(len(s));",    "string s; println(charAt(s, 0));",
        "string s; println(substr(s, 0, 0));", "string s; println(parseInt(s));",
        "C c; println(c.x);",            "C c; c.x = 1;",        "C c; c.next = null;",
        "C c; C d = c.next;",           "C c; c.m();",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char source[512];
        snprintf(source, sizeof source, "class C { int x; C next; void m() { } }\nvoid main() {\n%s\n}\n", cases[i]);
        Run *r = run(source);
        cr_expect_eq(r->status, 1, "%s: status %d", cases[i], r->status);
        cr_expect_str_eq(r->err, "error: null reference\n    at t.main (t.gcl:3)\n", "%s", cases[i]);
    }
}

Test(interp, bounds_and_arithmetic_errors) {
    const struct {
        const char *code;
        const char *message;
    } cases[] = {
        {"int[] a = new int[10]; a[10] = 1;", "array index 10 out of bounds for length 10"},
        {"int[] a = new int[10]; println(a[-1]);", "array index -1 out of bounds for length 10"},
        {"byte[] a = new byte[0]; println(a[0]);", "array index 0 out of bounds for length 0"},
        {"int[] a = new int[-1];", "negative array length -1"},
        {"int z = 0; println(5 / z);", "division by zero"},
        {"int z = 0; println(5 % z);", "division by zero"},
        {"println(charAt(\"abc\", 3));", "string index 3 out of bounds for length 3"},
        {"println(substr(\"abc\", 2, 1));", "substring [2, 1) out of bounds for length 3"},
        {"println(substr(\"abc\", 0, 4));", "substring [0, 4) out of bounds for length 3"},
        {"println(parseInt(\"abc\"));", "parseInt: not an integer: \"abc\""},
        {"println(parseInt(\"\"));", "parseInt: not an integer: \"\""},
        {"println(parseInt(\"-\"));", "parseInt: not an integer: \"-\""},
        {"println(parseInt(\"+1\"));", "parseInt: not an integer: \"+1\""},
        {"println(parseInt(\" 1\"));", "parseInt: not an integer: \" 1\""},
        {"println(parseInt(\"9223372036854775808\"));", "parseInt: not an integer: \"9223372036854775808\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char source[512], expected[512];
        snprintf(source, sizeof source, "void main() {\n%s\n}\n", cases[i].code);
        snprintf(expected, sizeof expected, "error: %s\n    at t.main (t.gcl:2)\n", cases[i].message);
        Run *r = run(source);
        cr_expect_eq(r->status, 1, "%s: status %d", cases[i].code, r->status);
        cr_expect_str_eq(r->err, expected, "%s", cases[i].code);
    }
}

Test(interp, stack_overflow_trace_is_capped) {
    Run *r = run("int forever(int depth) {\n  return forever(depth + 1) + 1;\n}\n"
                 "void main() {\n  println(forever(0));\n}\n");
    cr_expect_eq(r->status, 1);
    const char *line = "    at t.forever (t.gcl:2)\n";
    cr_expect(strncmp(r->err, "error: stack overflow\n", 22) == 0, "%s", r->err);
    /* 20 frames shown, then a count of the rest, which ends in main. */
    const char *p = r->err + 22;
    for (int i = 0; i < 20; i++, p += strlen(line)) cr_assert(strncmp(p, line, strlen(line)) == 0, "frame %d", i);
    unsigned more;
    cr_expect(sscanf(p, "    ... %u more frames\n", &more) == 1, "%s", p);
    cr_expect_gt(more, 1000);
}

Test(interp, out_of_memory_is_a_runtime_error) {
    Run *r = run_with("class B { int[] data; B next; }\n"
                      "void main() {\n"
                      "  B chain = null;\n"
                      "  while (true) { B b = new B(); b.data = new int[128]; b.next = chain; chain = b; }\n"
                      "}\n",
                      (RunConfig){.heap_bytes = (size_t)256 << 10, .no_stress = true}, 0, NULL);
    cr_expect_eq(r->status, 1);
    cr_expect(strncmp(r->err, "error: out of memory", 20) == 0, "%s", r->err);
    cr_expect(strstr(r->err, "\n    at t.main (t.gcl:4)\n") != NULL, "%s", r->err);
}

/* ---- superinstructions (vm/link/quicken.h) ---------------------------------------- */

Test(interp, quicken_rewrites_only_first_bytes) {
    uint8_t code[] = {
        OP_PLOAD, 0, 0, OP_PLOAD, 1, 0, OP_ILT, OP_JF, 11, 0, 0, 0,   /*  0: -> JGE at 6 */
        OP_PUSHI, 5, 0, 0, 0, OP_IADD,                                 /* 12: IADD_K */
        OP_PUSHI, 0, 0, 0, 0, OP_IDIV,                                 /* 18: k = 0 stays */
        OP_PUSHI, 2, 0, 0, 0, OP_IGT, OP_JT, 6, 0, 0, 0,               /* 24: JGT_K */
        OP_RLOAD, 0, 0, OP_GETFR, 1, 0,                                /* 35: RLOAD_GETFR */
        OP_PLOAD, 0, 0, OP_PLOAD, 1, 0, OP_IADD,                       /* 41: PLOAD, then PLOAD_IADD */
        OP_PLOAD, 0, 0, OP_PUSHI, 2, 0, 0, 0, OP_ILT, OP_JF, 0, 0, 0, 0, /* 48: JGE_LK */
        OP_PLOAD, 0, 0, OP_PUSHI, 1, 0, 0, 0, OP_ISUB,                 /* 62: PLOAD_ISUB_K */
        OP_PLOAD, 1, 0, OP_PLOAD, 0, 0, OP_IEQ, OP_JT, 0, 0, 0, 0,     /* 71: JEQ_LL */
        OP_PLOAD, 0, 0, OP_RETP,                                       /* 83: PLOAD_RETP */
        OP_PDUP, OP_IADD, OP_RETP,                                     /* 87: PDUP, then IADD_RETP */
        OP_RET,
    };
    uint8_t original[sizeof code];
    memcpy(original, code, sizeof code);
    vm_quicken(code, sizeof code);
    const struct {
        size_t at;
        uint8_t op;
    } rewritten[] = {{0, QOP_JGE_LL},      {12, QOP_IADD_K},       {24, QOP_JGT_K},
                     {35, QOP_RLOAD_GETFR}, {44, QOP_PLOAD_IADD},   {48, QOP_JGE_LK},
                     {62, QOP_PLOAD_ISUB_K}, {71, QOP_JEQ_LL},      {83, QOP_PLOAD_RETP},
                     {88, QOP_IADD_RETP}};
    for (size_t i = 0; i < sizeof code; i++) {
        uint8_t want = original[i];
        for (size_t r = 0; r < sizeof rewritten / sizeof rewritten[0]; r++)
            if (rewritten[r].at == i) want = rewritten[r].op;
        cr_expect_eq(code[i], want, "byte %zu: 0x%02x, expected 0x%02x", i, code[i], want);
    }
}

Test(interp, branch_into_the_middle_of_a_superinstruction) {
    /* "pushi 100; iadd" and "pushi 2; ilt; jf" become superinstructions; the
     * jump to `mid` must still run the plain iadd found there. */
    const char *source = ".class t t.s\n"
                         ".method 0 main static\n"
                         ".returns J\n"
                         ".plocals J\n"
                         ".stack 3 0\n"
                         "  pushi 0\n"
                         "  pstore 0\n"
                         "top:\n"
                         "  pushi 1000\n"
                         "  pload 0\n"
                         "  pushi 0\n"
                         "  ine\n"
                         "  jt second\n"
                         "  pushi 100\n"
                         "mid:\n"
                         "  iadd\n"
                         "  printi 1\n"
                         "  iinc 0\n"
                         "  pload 0\n"
                         "  pushi 2\n"
                         "  ilt\n"
                         "  jf end\n"
                         "  jmp top\n"
                         "second:\n"
                         "  pushi 7\n"
                         "  jmp mid\n"
                         "end:\n"
                         "  pload 0\n"
                         "  pushi 40\n"
                         "  iadd\n"
                         "  retp\n"
                         ".entry t.main\n";
    for (int plain = 0; plain <= 1; plain++) {
        Run *r = run_with(source, (RunConfig){.assembly = true, .plain_code = plain}, 0, NULL);
        cr_expect_eq(r->status, 42, "plain=%d: status %d: %s", plain, r->status, r->err);
        cr_expect_str_eq(r->out, "1100\n1007\n", "plain=%d", plain);
    }
}

Test(interp, fused_field_load_fails_at_the_field_access_line) {
    const char *source = ".class t t.s\n"
                         ".field 0 next Lt;\n"
                         ".field 1 value J\n"
                         ".method 0 main static\n"
                         ".returns V\n"
                         ".rlocals Lt;\n"
                         ".stack 1 1\n"
                         ".line 3\n"
                         "  rload 0\n"
                         ".line 4\n"
                         "  %s\n"
                         "  %s\n"
                         "  ret\n"
                         ".entry t.main\n";
    const char *accesses[][2] = {{"getfr t.next", "rpop"}, {"getfp t.value", "ppop"}};
    for (size_t i = 0; i < 2; i++) {
        char text[1024];
        snprintf(text, sizeof text, source, accesses[i][0], accesses[i][1]);
        expect_error_config(text, (RunConfig){.assembly = true}, "", "error: null reference\n    at t.main (t.s:4)\n");
    }
}

Test(interp, int_operators_with_immediates_and_fused_jumps) {
    /* Each operator with a constant right operand (a superinstruction) and
     * with a variable one (plain), including the divisors 0 and -1 that
     * must stay unfused. */
    expect_output("void main() {"
                  "  int a = -7; int k3 = 3; int m1 = -1;"
                  "  println(a + 3); println(a - 3); println(a * 3); println(a / 3); println(a % 3);"
                  "  println(a & 3); println(a | 3); println(a ^ 3); println(a << 3); println(a >> 1);"
                  "  println(a / k3); println(a % k3); println(a / -1); println(a % -1); println(a / m1);"
                  "  println(a == -7); println(a != -7); println(a < -7); println(a <= -7); println(a > -8); println(a >= -6);"
                  "  int n = 0;"
                  "  for (int i = 0; i < 10; i++) { if (i == 3) n += 100; if (i != 5) n++; if (i <= 2) n += 10;"
                  "    if (i > 7) n += 1000; if (i >= 9) n += 10000; if (i < k3) n += 100000; }"
                  "  println(n);"
                  "}",
                  "-4\n-10\n-21\n-2\n-1\n1\n-5\n-6\n-56\n-4\n-2\n-1\n7\n0\n7\n"
                  "true\nfalse\nfalse\ntrue\ntrue\nfalse\n312139\n");
}

/* Every compare-and-branch of a local with a constant (PLOAD; PUSHI; Ixx;
 * Jx) and of two locals (PLOAD; PLOAD; Ixx; Jx), after JT and after JF,
 * with the left operand below, equal to and above the right one -- and
 * operands beyond 32 bits, which the comparison must see whole; then a
 * local plus and minus constants, wrapping at the ends of int. */
Test(interp, fused_local_compares_and_arithmetic) {
    static const char *const compares[] = {"ieq", "ine", "ilt", "ile", "igt", "ige"};
    static const int64_t lefts[] = {-3, 5, 7, (int64_t)1 << 40, -((int64_t)1 << 40)};
    char source[32768], expected[4096];
    size_t len = (size_t)snprintf(source, sizeof source,
                                  ".class t t.s\n.int 0 1099511627776\n.int 1 -1099511627776\n"
                                  ".int 2 9223372036854775807\n.int 3 -9223372036854775808\n"
                                  ".method 0 main static\n.returns V\n.plocals J J\n.stack 3 0\n");
    size_t out_len = 0;
    int label = 0;
    for (size_t c = 0; c < 6; c++)
        for (int jump_if_true = 0; jump_if_true <= 1; jump_if_true++)
            for (int against_local = 0; against_local <= 1; against_local++)
                for (size_t l = 0; l < sizeof lefts / sizeof lefts[0]; l++) {
                    int64_t left = lefts[l], right = 5;
                    const char *load_left = left == lefts[3] ? "ldi 0" : left == lefts[4] ? "ldi 1" : NULL;
                    char pushed[32];
                    snprintf(pushed, sizeof pushed, "pushi %lld", (long long)left);
                    len += (size_t)snprintf(source + len, sizeof source - len,
                                            "  %s\n  pstore 0\n  pushi 5\n  pstore 1\n  pload 0\n  %s\n"
                                            "  %s\n  %s L%d\n  pushi 0\n  printi 1\n  jmp E%d\n"
                                            "L%d:\n  pushi 1\n  printi 1\nE%d:\n",
                                            load_left ? load_left : pushed, against_local ? "pload 1" : "pushi 5",
                                            compares[c], jump_if_true ? "jt" : "jf", label, label, label, label);
                    label++;
                    bool holds[] = {left == right, left != right, left < right,
                                    left <= right, left > right, left >= right};
                    bool jumps = jump_if_true ? holds[c] : !holds[c];
                    out_len += (size_t)snprintf(expected + out_len, sizeof expected - out_len, "%d\n", jumps);
                }
    /* x + 3, x - 3 and x - -2147483648 around the ends of int: they wrap. */
    static const char *const arithmetic[][2] = {
        {"ldi 2", "pushi 3\n  iadd"}, {"ldi 3", "pushi 3\n  isub"}, {"pushi 7", "pushi -2147483648\n  isub"},
        {"ldi 3", "pushi -1\n  iadd"}, {"pushi -7", "pushi 3\n  iadd"}};
    for (size_t a = 0; a < sizeof arithmetic / sizeof arithmetic[0]; a++)
        len += (size_t)snprintf(source + len, sizeof source - len, "  %s\n  pstore 0\n  pload 0\n  %s\n  printi 1\n",
                                arithmetic[a][0], arithmetic[a][1]);
    out_len += (size_t)snprintf(expected + out_len, sizeof expected - out_len,
                                "-9223372036854775806\n9223372036854775805\n2147483655\n"
                                "9223372036854775807\n-4\n");
    snprintf(source + len, sizeof source - len, "  ret\n.entry t.main\n");
    cr_assert_lt(len, sizeof source - 64);
    cr_assert_lt(out_len, sizeof expected - 1);
    expect_output_config(source, (RunConfig){.assembly = true}, expected);
}

/* PLOAD a; RETP and IADD; RETP (superinstructions) return the local and
 * the sum, and METHOD_EXIT's call trace is at the RETP's line, not the
 * line of the instruction fused with it. */
Test(interp, fused_returns) {
    expect_output_config(".class t t.s\n"
                         ".method 0 id static\n.params J\n.returns J\n.plocals J\n.stack 1 0\n"
                         ".line 2\n  pload 0\n.line 3\n  retp\n"
                         ".method 1 twice static\n.params J\n.returns J\n.plocals J\n.stack 2 0\n"
                         ".line 4\n  pload 0\n  pdup\n.line 5\n  iadd\n.line 6\n  retp\n"
                         ".method 2 main static\n.returns V\n.stack 1 0\n"
                         ".line 8\n  pushi 41\n  call t.id\n  call t.twice\n  printi 1\n.line 9\n  ret\n"
                         ".entry t.main\n",
                         (RunConfig){.assembly = true, .trace_calls = true, .trace_exits = true},
                         "main:8\nid:2 main:8\n< id:3 main:8\ntwice:4 main:8\n< twice:6 main:8\n82\n< main:9\n");
}

Test(interp, division_by_a_zero_constant_still_fails) {
    expect_error("void main() {\n  int a = 5;\n  println(a / 0);\n}\n", "",
                 "error: division by zero\n    at t.main (t.gcl:3)\n");
}

/* ---- method events ----------------------------------------------------------------------- */

Test(interp, method_entry_and_exit_events_bracket_every_call) {
    expect_output_config("int twice(int n) { return 2 * n; }\n"
                         "void show(string s) { println(s); }\n"
                         "int main() { show(\"x\" + twice(3)); return twice(1) - 2; }\n",
                         (RunConfig){.trace_methods = true},
                         "> main\n> twice\n< twice\n> show\nx6\n< show\n> twice\n< twice\n< main\n");
}

/* METHOD_ENTRY2 at every call, main's included, with the receiver for an
 * instance method (under --gc-stress, so a receiver read after a
 * collection would be caught) and NULL for a static one; METHOD_ENTRY's
 * agent, loaded first, sees the same calls. */
Test(interp, method_entry2_carries_the_receiver) {
    expect_output_config("class Box { int v;\n"
                         "  int get() { return v; }\n"
                         "  static Box of(int v) { Box b = new Box(); b.v = v; return b; } }\n"
                         "class Big { int v; int get() { return 10 * v; } }\n"
                         "void main() { Box b = Box.of(4); Big g = new Big(); g.v = 2;\n"
                         "  println(b.get() + g.get()); }\n",
                         (RunConfig){.trace_receivers = true, .trace_methods = true},
                         "> main\n> main this=null\n> of\n> of this=null\n< of\n"
                         "> get\n> get this=Box\n< get\n> get\n> get this=Big\n< get\n24\n< main\n");
}

/* INSTRUCTION_START before every instruction, in the order they run, with
 * is_true saying where each conditional branch went -- with and without
 * superinstructions, under --gc-stress. */
Test(interp, instruction_start_follows_every_instruction) {
    expect_output_config("int sum(int[] a) { int s = 0;\n"
                         "  for (int i = 0; i < len(a); i++) { if (a[i] > 2) s = s + a[i]; else s = s - 1; }\n"
                         "  return s; }\n"
                         "void main() { int[] a = new int[6]; for (int i = 0; i < 6; i++) a[i] = i * i;\n"
                         "  string t = \"x\"; while (len(t) < 4) t = t + \"y\";\n"
                         "  println(t + sum(a)); }\n",
                         (RunConfig){.check_instructions = true},
                         "xyyy52\nbranches: some taken, some not taken\n");
}

/* Enabled and disabled while the program runs, INSTRUCTION_START takes
 * effect at the next safepoint: the call's, so it covers exactly the
 * instructions of the method that enabled it, from its first. */
Test(interp, instruction_start_switches_at_a_safepoint) {
    expect_output_config("int twice(int n) { int r = 0; for (int i = 0; i < 2; i++) r = r + n; return r; }\n"
                         "int main() { int a = twice(3); int b = twice(a); println(a + b); return 0; }\n",
                         (RunConfig){.hook_method = "twice"},
                         "instructions of twice from offset 0\ninstructions of twice from offset 0\n18\n");
}

/* GetCallTrace on real frames: each frame's line is the line of its call
 * site (the callee's own frame: its first line), with and without
 * superinstructions, since frames point into the VM's linked code. */
Test(interp, call_traces_name_each_frame_with_its_current_line) {
    expect_output_config("int leaf(int n) {\n"
                         "    return n + 1;\n"
                         "}\n"
                         "int middle(int n) {\n"
                         "    int m = n * 2;\n"
                         "    return leaf(m);\n"
                         "}\n"
                         "int main() {\n"
                         "    int x = 1;\n"
                         "    x = middle(x);\n"
                         "    return x - 3;\n"
                         "}\n",
                         (RunConfig){.trace_calls = true},
                         "main:9\nmiddle:5 main:10\nleaf:2 middle:6 main:10\n");
}

/* ---- the root set ------------------------------------------------------------------------------ */

typedef struct SlotLog {
    Obj **slots[64];
    int count;
} SlotLog;

static void log_slot(Obj **slot, void *ctx) {
    SlotLog *log = ctx;
    cr_assert_lt(log->count, 64);
    log->slots[log->count++] = slot;
}

static bool logged(const SlotLog *log, Obj **slot) {
    for (int i = 0; i < log->count; i++)
        if (log->slots[i] == slot) return true;
    return false;
}

Test(interp, roots_are_exactly_the_live_reference_slots) {
    const char *source = "string a; string b; int n;\n"
                         "void main() { a = \"x\"; println(\"y\"); }\n";
    char err[256];
    Program *program = compile_source("t.gcl", source, strlen(source), err, sizeof err);
    cr_assert(program, "%s", err);
    VMOptions options = {.gc_name = GC_DEFAULT_COLLECTOR, .gc = {.heap_bytes = (size_t)1 << 20}};
    VM *vm = vm_create(program, "t.gcl", &options);
    cr_assert(vm);
    cr_assert_eq(program->num_strings, 2);
    cr_assert_eq(program->num_ref_statics, 2);

    VMThread *thread = vm->threads[0];
    Obj *x = vm->string_consts[0], *y = vm->string_consts[1];
    vm->ref_statics[0] = x;   /* a is set, b stays null */
    thread->rstack[0] = x;
    thread->rstack[1] = NULL; /* a null slot is not visited */
    thread->rstack[2] = y;
    thread->rstack[3] = y;    /* above rtop: dead */
    thread->rtop = thread->rstack + 3;

    SlotLog log = {0};
    vm_enumerate_roots(vm, log_slot, &log);
    cr_expect_eq(log.count, 5);
    cr_expect(logged(&log, &thread->rstack[0]));
    cr_expect(logged(&log, &thread->rstack[2]));
    cr_expect(logged(&log, &vm->ref_statics[0]));
    cr_expect(logged(&log, &vm->string_consts[0]));
    cr_expect(logged(&log, &vm->string_consts[1]));
    cr_expect(!logged(&log, &thread->rstack[3]));
    cr_expect(!logged(&log, &vm->ref_statics[1]));

    thread->rtop = thread->rstack;
    vm_destroy(vm);
    program_free(program);
}

/* ---- linked classes ---------------------------------------------------------------------------- */

Test(interp, linked_classes_and_names) {
    const char *source = "class Tree { Tree left; int v; double w; }\n"
                         "void main() { int[][] g = new int[][1]; Tree[] t = new Tree[1]; byte[] b = new byte[1];"
                         " string[] s = new string[1]; }\n";
    char err[256];
    Program *program = compile_source("t.gcl", source, strlen(source), err, sizeof err);
    cr_assert(program, "%s", err);
    VMOptions options = {.gc_name = GC_DEFAULT_COLLECTOR, .gc = {.heap_bytes = (size_t)1 << 20}};
    VM *vm = vm_create(program, "t.gcl", &options);
    cr_assert(vm);

    const char *want[] = {"int[][]", "int[]", "Tree[]", "byte[]", "String[]"};
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        const RtClass *found = NULL;
        for (uint32_t i = 0; i < vm_num_linked_classes(vm); i++)
            if (strcmp(vm_linked_class(vm, i)->name, want[w]) == 0) found = vm_linked_class(vm, i);
        cr_assert(found, "no class %s", want[w]);
        cr_expect_eq(found->kind, CLASS_ARRAY);
        cr_expect_eq(found->class_id, (uint64_t)(uintptr_t)found);
        if (strcmp(want[w], "int[][]") == 0) {
            cr_expect_eq(found->elem_kind, ELEM_REF);
            cr_expect_str_eq(found->elem_class->name, "int[]");
        }
        if (strcmp(want[w], "int[]") == 0) cr_expect(found->elem_kind == ELEM_LONG && found->elem_size == 8);
        if (strcmp(want[w], "byte[]") == 0) cr_expect(found->elem_kind == ELEM_BYTE && found->elem_size == 1);
        if (strcmp(want[w], "String[]") == 0) cr_expect_eq(found->elem_class, &vm->string_class);
    }
    const RtClass *tree = vm_linked_class(vm, 0);
    cr_expect_str_eq(tree->name, program->classes[0].name);
    cr_expect_eq(vm_linked_class(vm, program->num_classes), &vm->string_class);
    cr_expect_eq(vm_linked_class(vm, vm_num_linked_classes(vm)), NULL);
    vm_destroy(vm);
    program_free(program);
}

/* ---- vmrun's command line -------------------------------------------------------------------------- */

/* Parses "vmrun" and the given arguments.  The argument vector is static:
 * the parsed record points into it. */
static bool parse(RunOptions *o, char *err, int argc, ...) {
    static char *argv[32] = {"vmrun"};
    va_list args;
    va_start(args, argc);
    for (int i = 1; i <= argc; i++) argv[i] = va_arg(args, char *);
    va_end(args);
    return vm_parse_command_line(argc + 1, argv, o, err, 256);
}

Test(options, sizes) {
    char err[256];
    size_t bytes;
    cr_expect(vm_parse_size("64m", "--heap", &bytes, err, sizeof err) && bytes == (size_t)64 << 20);
    cr_expect(vm_parse_size("512K", "--heap", &bytes, err, sizeof err) && bytes == (size_t)512 << 10);
    cr_expect(vm_parse_size("1g", "--heap", &bytes, err, sizeof err) && bytes == (size_t)1 << 30);
    cr_expect(vm_parse_size("12345", "--heap", &bytes, err, sizeof err) && bytes == 12345);
    const char *bad[] = {"", "abc", "m", "12mb", "-5", "1.5m", " 1m", "99999999999999999999g", "17179869184g"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_expect(!vm_parse_size(bad[i], "--heap", &bytes, err, sizeof err), "%s accepted", bad[i]);
        cr_expect(strstr(err, "--heap") != NULL, "%s", err);
    }
}

Test(options, defaults_and_program_arguments) {
    RunOptions o;
    char err[256];
    cr_assert(parse(&o, err, 4, "--gc-stress", "prog.gcl", "--heap=1m", "x"), "%s", err);
    cr_expect_str_eq(o.program_path, "prog.gcl");
    cr_expect_eq(o.program_argc, 2);
    cr_expect_str_eq(o.program_argv[0], "--heap=1m"); /* the program's, not vmrun's */
    cr_expect(o.vm.gc.stress);
    cr_expect_str_eq(o.vm.gc_name, GC_DEFAULT_COLLECTOR);
    cr_expect_eq(o.vm.gc.heap_bytes, gc_heap_default_max(VM_MIN_HEAP_BYTES));
    cr_expect_eq(o.vm.gc.initial_heap_bytes, VM_DEFAULT_INITIAL_HEAP_BYTES);
    cr_expect_eq(o.vm.gc.young_bytes, VM_DEFAULT_YOUNG_BYTES);
    cr_expect(o.vm.gc.rc_cycles);
    cr_expect_null(o.vm.gc.log);
    run_options_free(&o);

    cr_assert(parse(&o, err, 8, "--heap=128k", "--tenure=5", "--rc-cycles=off", "--seed=99", "--gc-log",
                    "-agentlib:trace=file=x", "-agentpath:/p/liba.so", "p.bc"),
              "%s", err);
    cr_expect_eq(o.vm.gc.young_bytes, (size_t)32 << 10); /* a quarter of a small heap */
    cr_expect_eq(o.vm.gc.tenure_age, 5);
    cr_expect(!o.vm.gc.rc_cycles);
    cr_expect_eq(o.vm.seed, 99);
    cr_expect_eq(o.vm.gc.log, stderr);
    cr_assert_eq(o.num_agents, 2);
    cr_expect(strcmp(o.agents[0].spec, "trace=file=x") == 0 && !o.agents[0].is_path);
    cr_expect(strcmp(o.agents[1].spec, "/p/liba.so") == 0 && o.agents[1].is_path);
    run_options_free(&o);
}

/* The JVM's spellings: -Xmx is --heap, -Xmn is --young, -Xms the initial
 * heap; -verbose:gc and -Xlog:gc are --gc-log.  The last size given wins. */
Test(options, jvm_heap_flags) {
    RunOptions o;
    char err[256];
    cr_assert(parse(&o, err, 5, "-Xmx256m", "-Xms8m", "-Xmn2m", "-verbose:gc", "p.gcl"), "%s", err);
    cr_expect_eq(o.vm.gc.heap_bytes, (size_t)256 << 20);
    cr_expect_eq(o.vm.gc.initial_heap_bytes, (size_t)8 << 20);
    cr_expect_eq(o.vm.gc.young_bytes, (size_t)2 << 20);
    cr_expect_eq(o.vm.gc.log, stderr);
    run_options_free(&o);

    cr_assert(parse(&o, err, 4, "--heap=1g", "-Xmx512k", "-Xlog:gc", "p.gcl"), "%s", err);
    cr_expect_eq(o.vm.gc.heap_bytes, (size_t)512 << 10);
    cr_expect_eq(o.vm.gc.initial_heap_bytes, (size_t)512 << 10); /* the default 1m, capped by the maximum */
    cr_expect_eq(o.vm.gc.log, stderr);
    run_options_free(&o);
}

/* Sizes that disagree with each other are refused after the last option. */
Test(options, heap_sizes_must_agree) {
    RunOptions o;
    char err[256];
    cr_expect(!parse(&o, err, 3, "-Xmx4m", "-Xms8m", "p.gcl"));
    cr_expect_str_eq(err, "-Xms (8388608 bytes) must be at most the maximum heap, --heap or -Xmx (4194304 bytes)");
    run_options_free(&o);
    cr_expect(!parse(&o, err, 3, "--heap=64m", "--young=40m", "p.gcl"));
    cr_expect(strncmp(err, "--young or -Xmn (41943040 bytes) must be at most half of the maximum heap", 72) == 0,
              "%s", err);
    run_options_free(&o);
    cr_expect(parse(&o, err, 3, "-Xms4m", "-Xmx4m", "p.gcl"), "%s", err); /* a fixed heap */
    run_options_free(&o);
}

Test(options, errors) {
    RunOptions o;
    char err[256];
    const struct {
        const char *arg;
        const char *message;
    } cases[] = {
        {"--frobnicate", "unknown option '--frobnicate' (try --help)"},
        {"--gc=nosuch", "unknown collector 'nosuch' (available: "},
        {"--heap=0", "--heap=0 is too small"},
        {"--heap=abc", "invalid size 'abc' for --heap"},
        {"--heap", "option '--heap' needs a value"},
        {"--young", "option '--young' needs a value"},
        {"-Xmx", "-Xmx needs a size"},
        {"-Xmx=64m", "invalid size '=64m' for -Xmx"},
        {"-Xmx12q", "invalid size '12q' for -Xmx"},
        {"-Xms1k", "-Xms1k is too small (at least 64k)"},
        {"-Xmn1k", "-Xmn1k is too small (at least 16k)"},
        {"-Xmx99999999999999999999", "size '99999999999999999999' for -Xmx is too large"},
        {"-verbose:class", "unknown option '-verbose:class'"},
        {"--tenure=99", "invalid --tenure=99"},
        {"--rc-cycles=maybe", "invalid --rc-cycles=maybe"},
        {"--seed=-1", "invalid --seed=-1"},
        {"-agentlib:", "-agentlib: needs an agent name"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_expect(!parse(&o, err, 2, cases[i].arg, "p.gcl"), "%s accepted", cases[i].arg);
        cr_expect(strncmp(err, cases[i].message, strlen(cases[i].message)) == 0, "%s: %s", cases[i].arg, err);
        run_options_free(&o);
    }
    cr_expect(!parse(&o, err, 1, "--gc-stress"));
    cr_expect(strstr(err, "usage") != NULL, "%s", err);
    run_options_free(&o);
    cr_expect(parse(&o, err, 1, "--help") && o.help);
    run_options_free(&o);
}
