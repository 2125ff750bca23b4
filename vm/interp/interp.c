/*
 * interp.c -- the bytecode interpreter: one dispatch loop per thread.
 *
 * The loop keeps the machine state in local variables, which the compiler
 * keeps in registers: pc, the two operand-stack pointers (psp, rsp: the next
 * free slot), the running frame's locals (pl, rl) and the frame itself (fp).
 * Dispatch is computed goto (one indirect jump per instruction, each from its
 * own site, so the branch predictor learns instruction pairs), over code
 * that linking rewrote with superinstructions (quicken.h) so that common
 * sequences take one dispatch.
 *
 * INSTRUCTION_START costs nothing while disabled (Lua's hook idea, adapted
 * to computed goto): dispatch reads a table that is either the opcodes'
 * labels or, while the event is enabled, one hook label in every entry; the
 * hook posts the event and jumps to the instruction's own label.  The
 * table is chosen when the loop starts and after every safepoint, and
 * enabling or disabling the event requests one (VM_REQUEST_DISPATCH).
 *
 * Calls are Lua-style: a caller pushes the arguments on its operand stacks
 * and they become the callee's first locals where they lie, so a call copies
 * nothing.  A frame's locals are followed by its operand stack:
 *
 *     pstack: ... caller operands | callee plocals (args first) | callee operands ...
 *     rstack: ... caller operands | callee rlocals (args first) | callee operands ...
 *
 * A return pops the callee's locals and pushes the result where its first
 * argument was.
 *
 * Invariants, which the verifier (verify.h) makes cheap to keep:
 *   - nothing checks stack bounds, local indexes or operand types per
 *     instruction: the verifier proved them for every path.  Stack room is
 *     checked once per call from the callee's declared needs.
 *   - the only object addresses held outside the heap are rstack slots
 *     (and statics and interned strings).  Before anything out of line
 *     that may collect or look at the stack -- an allocation, an event,
 *     printing -- OUT_OF_LINE saves the registers to the thread (pc, the
 *     stack tops, the depth), and reloads them after.  So a collection sees exactly the live slots
 *     [rstack, rtop), an error trace or an agent's call trace sees the
 *     right line, and after the call every object is re-read from its slot,
 *     where a moving collector may have rewritten it.  (Reloading also
 *     means no register has to survive the call, which leaves the
 *     compiler more registers for the fast paths.)
 *   - every reference store into a heap object goes through gc_write_ref,
 *     with no save around it unless the barrier may free objects or post
 *     an event (gc_barrier_calls_out); it never collects or allocates.
 *   - every change to a reference slot of the stack goes through
 *     run_loop.h's macros, which count it when the collector counts root
 *     references (refcount's immediate mode) and are plain stores
 *     otherwise: the loop is compiled once each way.

 *   - every taken jump and every call polls for requests from outside
 *     (a signal; safepoint.h): one load and one branch, and the request is
 *     served out of line with the state saved.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "vmpi/post.h"
#include "vm/opcodes.h"
#include "vm/internal.h"
#include "vm/interp/call_sites.h"
#include "vm/threads/monitor.h"
#include "vm/native/native.h"
#include "vm/link/quicken.h"
#include "vm/threads/safepoint.h"
#include "vm/threads/scheduler.h"

/* Operands are read little-endian straight from the code (opcodes.h). */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "operands are decoded as host integers");

#define UNLIKELY(x) __builtin_expect(!!(x), 0)

static inline uint32_t read_u16(const uint8_t *p) {
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline int32_t read_i32(const uint8_t *p) {
    int32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Primitive slots hold int64, double or bool (0/1) as 64 bits. */
static inline double as_double(uint64_t bits) {
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static inline uint64_t double_bits(double d) {
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return bits;
}

/* D2I: truncate toward zero, NaN -> 0, saturate outside the int64 range
 * (a plain C conversion would be undefined there). */
static inline int64_t double_to_int(double d) {
    if (isnan(d)) return 0;
    if (d >= 9223372036854775808.0) return INT64_MAX;
    if (d < -9223372036854775808.0) return INT64_MIN;
    return (int64_t)d;
}

/* A write that fails (a closed pipe, a full disk, a signal while blocked)
 * ends the program through vm_output_failed; checking the results costs
 * nothing next to the write. */
static void print_bytes(VMThread *thread, const char *text, size_t len, uint8_t newline) {
    if (UNLIKELY(fwrite(text, 1, len, stdout) != len || (newline && putc('\n', stdout) == EOF)))
        vm_output_failed(thread);
}

/* The text of a primitive for I2S, D2S, Z2S and PRINTI, PRINTD, PRINTZ:
 * `op` says which kind `value` is.  Returns the length written to text. */
static size_t format_prim(uint8_t op, uint64_t value, char text[VM_NUMBER_TEXT_MAX]) {
    switch (op) {
    case OP_I2S: case OP_PRINTI:
        return vm_format_int((int64_t)value, text);
    case OP_D2S: case OP_PRINTD:
        return vm_format_double(as_double(value), text);
    default: /* Z2S, PRINTZ */
        strcpy(text, value ? "true" : "false");
        return value ? 4 : 5;
    }
}

static void print_prim(VMThread *thread, uint8_t op, uint64_t value, uint8_t newline) {
    char text[VM_NUMBER_TEXT_MAX];
    print_bytes(thread, text, format_prim(op, value, text), newline);
}

/* PRINTS: a null string prints as "null" (docs/language.md). */
static void print_string(VMThread *thread, const Obj *s, uint8_t newline) {
    if (s) print_bytes(thread, str_chars(s), s->length, newline);
    else print_bytes(thread, "null", 4, newline);
}

/* Clears the locals of `callee` after its arguments (program.h: they
 * start as 0 and null).  Out of line, through the method's
 * enter_out_of_line: a call to a method with no more locals than arguments
 * (fib) skips it with one branch, and the call's fast path keeps its
 * registers instead of saving them around a memset. */
void vm_enter_clearing_locals(const LinkedMethod *callee, Frame *caller, uint64_t *pl, Obj **rl) {
    (void)caller;
    for (uint32_t i = callee->num_prim_args; i < callee->num_prim_locals; i++) pl[i] = 0;
    for (uint32_t i = callee->num_ref_args; i < callee->num_ref_locals; i++) rl[i] = NULL;
}

/* Fills frame `fp` for a call of `lm` whose locals start at pl / rl. */
static inline void fill_frame(Frame *fp, const LinkedMethod *lm, uint64_t *pl, Obj **rl) {
    fp->method = lm->method;
    fp->code = lm->code;
    fp->pc = lm->code;
    fp->plocals = pl;
    fp->rlocals = rl;
}

/* True if `need` bytes of stack do not fit between `base` and `end`. */
static inline bool stack_short(const void *base, const void *end, uint32_t need) {
    return (uintptr_t)end - (uintptr_t)base < need;
}

/* Fills the interpreter's dispatch table `live`: while an agent wants
 * INSTRUCTION_START every entry is `hook`, otherwise it is a copy of
 * `opcodes`.  Called when the interpreter starts and after every
 * safepoint, which is where a change of the event takes effect
 * (VM_REQUEST_DISPATCH): so dispatch itself never tests the event, and an
 * instruction costs the same whether or not the hook exists. */
static void select_dispatch(const void **live, const void *const *opcodes, const void *hook) {
    if (VMPI_IS_ENABLED(INSTRUCTION_START))
        for (int i = 0; i < 256; i++) live[i] = hook;
    else
        memcpy(live, opcodes, 256 * sizeof *live);
}

/* The dispatch loop, twice (run_loop.h): run_plain stores references into
 * the stack as they are, run_counting_roots counts them too.  vm_run_entry
 * picks one from the collector. */
#define RUN_LOOP run_plain
#define COUNTS_ROOTS 0
#include "vm/interp/run_loop.h"
#define RUN_LOOP run_counting_roots
#define COUNTS_ROOTS 1
#include "vm/interp/run_loop.h"

/* main(string[] args): a string array of the arguments after the program's
 * name, left in rstack[0], which becomes main's reference local 0. */
static void push_args_array(VMThread *thread, const RtClass *array_class, int argc, char **argv) {
    Obj **slot = thread->rstack;
    thread->rtop = slot;
    /* The array is a root while its strings are made. */
    vm_push_root(thread, vm_alloc(thread, array_class, (uint32_t)argc));
    for (int i = 0; i < argc; i++) {
        Obj *arg = vm_string_from_bytes(thread, argv[i], strlen(argv[i]));
        gc_write_ref(thread->vm->gc, *slot, (Obj **)obj_body(*slot) + i, arg);
    }
}

uint64_t vm_run_entry(VMThread *thread, const LinkedMethod *entry) {
    /* The frame fits: the verifier bounds locals and stack depths far
     * below VM_STACK_SLOTS.  Calls check their callee's room. */
    Frame *base = &thread->frames[0];
    fill_frame(base, entry, thread->pstack, thread->rstack);
    CallSiteTree *call_sites = atomic_load(&vm_call_site_tree);
    if (call_sites) base->site_node = vm_call_site_root(call_sites, entry->method);
    if (entry->has_more_locals) vm_enter_clearing_locals(entry, NULL, thread->pstack, thread->rstack);
    thread->depth = 1;
    thread->rtop = thread->rstack + entry->num_ref_locals;
    thread->ptop = thread->pstack + entry->num_prim_locals;
    if (vmpi_method_entry_enabled())
        vmpi_send_method_entry(thread, entry->method, entry->has_receiver ? thread->rstack : NULL);
    /* A signal that came while the program was loading is served here. */
    if (vm_safepoint_requested()) vm_safepoint(thread);
    if (thread->vm->gc->counts_roots) return run_counting_roots(thread, base);
    return run_plain(thread, base);
}

int vm_run_main(VM *vm, int argc, char **argv) {
    VMThread *thread = vm->threads[0];
    vm_set_current_thread(thread);
    const ProgMethod *main_method = &vm->program->methods[vm->program->entry_method];
    const LinkedMethod *entry = &vm->linked_methods[vm->program->entry_method];
    thread->depth = 0;
    thread->rtop = thread->rstack;
    if (vm->uses_threads) vm_thread_make_object(thread);
    if (entry->num_ref_args == 1)
        push_args_array(thread, vm->type_class[main_method->param_types[0]], argc, argv);
    uint64_t result = vm_run_entry(thread, entry);
    vm_thread_finish(thread);
    /* int main() returns the exit status, which the OS truncates to 8 bits. */
    return vm->program->types[main_method->return_type][0] == 'J' ? (int)(result & 255) : 0;
}
