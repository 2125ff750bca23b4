/*
 * internal.h -- what the files of vm/interp share with each other and with
 * nobody else: thread records, allocation with the out-of-memory exit,
 * strings and number formatting.
 *
 * Invariant kept by every function here that allocates: it may run a
 * collection, and a collection may move every object.  So a caller passes no
 * object address across one of these calls; objects it needs afterwards sit
 * in root slots (a thread's rstack below rtop, statics, interned strings)
 * and are re-read from there when the call returns.
 */
#ifndef GCLAB_INTERP_INTERNAL_H
#define GCLAB_INTERP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "vm.h"

/* ---- threads (thread.c) ------------------------------------------------- */

/* Sizes of a thread's stacks.  The stacks are reserved, not touched: the OS
 * gives pages only as deep recursion reaches them. */
#define VM_MAX_FRAMES 200000u
#define VM_STACK_SLOTS (4u * 1024 * 1024)

/* Creates a thread record with empty stacks, adds it to vm->threads, makes
 * it the current thread and posts THREAD_START.  NULL if out of memory. */
VMThread *vm_thread_create(VM *vm, const char *name);

/* The record alone: added to vm->threads, not current, no event (a thread
 * START makes, scheduler.c). */
VMThread *vm_thread_new(VM *vm, const char *name);

/* Runs `entry`, whose arguments are already the first slots of the
 * thread's stacks, as the thread's bottom frame, until it returns
 * (interp.c); returns its primitive result (0 for void). */
uint64_t vm_run_entry(VMThread *thread, const LinkedMethod *entry);

/* LinkedMethod.enter_out_of_line while no agent asks for call sites:
 * clears the callee's locals beyond its arguments (interp.c). */
void vm_enter_clearing_locals(const LinkedMethod *callee, Frame *caller, uint64_t *pl, Obj **rl);

/* Posts THREAD_END and stops naming `thread` as the current thread. */
void vm_thread_end(VMThread *thread);

/* Frees a thread's stacks and record (vm_destroy). */
void vm_thread_free(VMThread *thread);

void vm_set_current_thread(VMThread *thread);

/* ---- a thread's reference stack outside the interpreter's loop ------------ */

/* Pushes `obj` (or null) onto `thread`'s reference stack: a root from now
 * on, counted when the collector counts roots (gc.h, gc_write_root). */
static inline void vm_push_root(VMThread *thread, Obj *obj) {
    *thread->rtop++ = obj;
    Gc *gc = thread->vm->gc;
    if (gc->counts_roots) gc_root_gained(gc, obj);
}

/* Pops `thread`'s reference stack down to `top`; each reference popped is
 * uncounted, when the collector counts roots, after its slot is popped
 * (which may free objects: the thread's state must be saved). */
static inline void vm_pop_roots_to(VMThread *thread, Obj **top) {
    Gc *gc = thread->vm->gc;
    if (!gc->counts_roots) {
        thread->rtop = top;
        return;
    }
    while (thread->rtop > top) {
        Obj *popped = *--thread->rtop;
        gc_root_lost(gc, popped);
    }
}

/* ---- allocation (errors.c holds the failure path) ------------------------- */

/* Prints "error: out of memory: ..." with the stack trace and exits 1. */
_Noreturn void vm_out_of_memory(VMThread *thread, const RtClass *cls, uint32_t length);

/* Allocates through the collector's fast path; never returns NULL.  The
 * caller has stored thread->rtop (see vm.h). */
static inline Obj *vm_alloc(VMThread *thread, const RtClass *cls, uint32_t length) {
    Obj *obj = gc_alloc(thread->vm->gc, cls, length);
    if (GC_UNLIKELY(obj == NULL)) vm_out_of_memory(thread, cls, length);
    return obj;
}

/* ---- runtime errors with a formatted message (errors.c) ------------------ */

_Noreturn void vm_runtime_errorf(VMThread *thread, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* The thread's stack trace as a runtime error prints it, on stderr (also
 * used by VMPI's crash report). */
void vm_print_stack_trace(const VMThread *thread);

/* ---- output and signals (errors.c, safepoint.c) --------------------------- */

/* A write to stdout failed (errno says why); the thread's state is saved.
 * Serves a pending stop if a signal interrupted the write, otherwise prints
 * one message and exits (errors.c gives the status). */
_Noreturn void vm_output_failed(VMThread *thread);

/* True once SIGINT or SIGTERM has asked the VM to stop. */
bool vm_stop_requested(void);

/* ---- strings and number formatting (strings.c) ---------------------------- */

/* Longest text vm_format_int / vm_format_double write, NUL included. */
#define VM_NUMBER_TEXT_MAX 32

/* Decimal text of `value`; returns its length. */
size_t vm_format_int(int64_t value, char *buf);

/* docs/language.md's double format: "%.14g", plus ".0" when that reads as an
 * integer; "inf", "-inf" and "nan" for the non-finite values. */
size_t vm_format_double(double value, char *buf);

/* A new string holding bytes[0 .. len).  `bytes` must not point into the
 * heap (the allocation may move it). */
Obj *vm_string_from_bytes(VMThread *thread, const char *bytes, size_t len);

/* The string operations of opcodes.h that allocate.  Their operands are the
 * top slots of the thread's rstack (below thread->rtop, so they stay roots
 * and are re-read after allocating); each returns the new string, and the
 * caller pops the operands and pushes it. */
Obj *vm_string_concat(VMThread *thread, Obj **operands);              /* SCAT */
Obj *vm_string_substring(VMThread *thread, Obj **operand, int64_t from, int64_t to); /* SSUB */

/* Contents equal (SEQ); null equals only null. */
int vm_string_equals(const Obj *a, const Obj *b);

/* PARSEI: `s` is not null.  A runtime error if it is not a decimal int. */
int64_t vm_parse_int(VMThread *thread, const Obj *s);

#endif
