/*
 * safepoint.h -- requests from outside the interpreter (signal handlers:
 * stop, data dump, data reset; an agent thread's SuspendThread; a thread
 * switch later),
 * and the points where a running thread serves them.
 *
 * Invariant: a request is served only at a safepoint, where the thread's
 * state is saved (the interpreter's OUT_OF_LINE), so whatever serves it may
 * walk the stack, post events, collect or exit.  The interpreter polls at
 * every taken jump and every call -- the places any loop or recursion must
 * pass -- so a running program reaches a safepoint within a bounded number
 * of instructions.  A poll is one relaxed load of vm_pending_requests and
 * one branch that is not taken until something is requested.
 *
 * Requesting is async-signal-safe: a lock-free atomic OR into one word.
 */
#ifndef GCLAB_INTERP_SAFEPOINT_H
#define GCLAB_INTERP_SAFEPOINT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "vm/vm.h"

/* What a thread is asked to do at its next safepoint: one bit per kind. */
typedef enum VmRequest {
    VM_REQUEST_STOP = 1u << 0,       /* SIGINT or SIGTERM: shut down, exit 128 + signal */
    VM_REQUEST_DATA_DUMP = 1u << 1,  /* SIGQUIT: DATA_DUMP_REQUEST and a stack trace */
    VM_REQUEST_DATA_RESET = 1u << 2, /* SIGUSR2: DATA_RESET_REQUEST */
    VM_REQUEST_DISPATCH = 1u << 3,   /* INSTRUCTION_START was enabled or disabled:
                                        the interpreter picks its dispatch table again */
    VM_REQUEST_SUSPEND = 1u << 4,    /* an agent's SuspendThread: park until resumed
                                        (vmpi/runtime/threads.c, vmpi_serve_suspension) */
    VM_REQUEST_AGENT_DATA_DUMP = 1u << 5, /* an agent's RequestEvent(DATA_DUMP_REQUEST), from
                                             any thread: DATA_DUMP_REQUEST to that agent */
    VM_REQUEST_SCHEDULE = 1u << 6,   /* set while more than one thread lives: every poll
                                        counts the time slice down, inline, and goes out
                                        of line when it ends (scheduler.c); never cleared
                                        by serving it */
    VM_REQUEST_RUN_GC = 1u << 7,     /* RunGC from an agent's system thread: collect here
                                        (vmpi/runtime/gc_control.c, vmpi_serve_requested_gc) */
    VM_REQUEST_HOLD = 1u << 8,       /* a request from an agent's system thread that reads
                                        the heap: stop here (vmpi/runtime/program_hold.c) */
} VmRequest;

/* The pending VmRequest bits, for every thread of the process. */
extern _Atomic uint32_t vm_pending_requests;

/* Polls left in the running thread's time slice while VM_REQUEST_SCHEDULE
 * is set.  Only the baton holder touches it (scheduler.c), so it needs no
 * atomics. */
extern uint32_t vm_slice_polls_left;

/* Asks every thread to serve `request` at its next safepoint. */
static inline void vm_request(VmRequest request) {
    atomic_fetch_or_explicit(&vm_pending_requests, request, memory_order_relaxed);
}

static inline bool vm_safepoint_requested(void) {
    return atomic_load_explicit(&vm_pending_requests, memory_order_relaxed) != 0;
}

/* The interpreter's poll: true when vm_safepoint must run.  With several
 * threads alive and nothing else pending, a poll only counts the slice
 * down (a call into vm_safepoint per poll made a 4-thread fib use 79% more
 * instructions than fib alone). */
static inline bool vm_safepoint_due(void) {
    uint32_t pending = atomic_load_explicit(&vm_pending_requests, memory_order_relaxed);
    if (__builtin_expect(pending == 0, 1)) return false;
    return pending != VM_REQUEST_SCHEDULE || --vm_slice_polls_left == 0;
}

/* Serves every pending request, and clears the ones it served; `thread`'s
 * state is saved.  Returns unless a request ends the program
 * (VM_REQUEST_STOP does, through vm_exit).  VM_REQUEST_DISPATCH is only
 * cleared, and the result says it was pending: the interpreter then
 * chooses its dispatch table again (interp.c, SAFEPOINT_POLL). */
__attribute__((noinline)) bool vm_safepoint(VMThread *thread);

#endif
