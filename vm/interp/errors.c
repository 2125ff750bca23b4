/*
 * errors.c -- runtime errors, their stack traces, and the VM's one exit.
 *
 * A runtime error (docs/language.md, "Runtime errors") prints
 *
 *     error: null reference
 *         at Tree.check (trees.gcl:14)
 *         at trees.main (trees.gcl:22)
 *
 * to stderr and exits with status 1.  Invariant: the caller has stored the
 * running frame's pc and the thread's depth (the interpreter does so before
 * any instruction that can fail), so the trace names the failing line.
 *
 * Every way out of a running VM goes through vm_exit, which flushes the
 * program's output and shuts agents down (JVM_SHUT_DOWN) before exiting, so
 * that no agent output is lost or half-written.
 *
 * Output that cannot be written ends the program: one message,
 * "vmrun: cannot write standard output: REASON", and status 141 for a
 * closed pipe (128 + SIGPIPE, what a shell reports when SIGPIPE kills a
 * process, so `vmrun prog | head` looks the same with SIGPIPE ignored or
 * not) or 1 for any other failure (a full disk).  vmrun ignores SIGPIPE so
 * that a closed pipe is an EPIPE seen here, not a silent death.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#include "vm/internal.h"
#include "vm/threads/safepoint.h"
#include "vmpi/control.h"

/* Deep recursion would otherwise print thousands of identical lines. */
#define TRACE_MAX_FRAMES 20u

static void print_frame(const VM *vm, const Frame *frame) {
    const ProgMethod *m = frame->method;
    const ProgClass *owner = &vm->program->classes[m->owner_class];
    const char *file = owner->source_file && owner->source_file[0] ? owner->source_file : vm->program_path;
    uint32_t line = program_line_of(m, vm_frame_offset(frame));
    if (line)
        fprintf(stderr, "    at %s.%s (%s:%u)\n", owner->name, m->name, file, line);
    else
        fprintf(stderr, "    at %s.%s (%s)\n", owner->name, m->name, file);
}

void vm_print_stack_trace(const VMThread *thread) {
    uint32_t shown = thread->depth < TRACE_MAX_FRAMES ? thread->depth : TRACE_MAX_FRAMES;
    for (uint32_t i = 0; i < shown; i++) print_frame(thread->vm, &thread->frames[thread->depth - 1 - i]);
    if (thread->depth > shown) fprintf(stderr, "    ... %u more frames\n", thread->depth - shown);
}

/* Prints `message` and the thread's stack trace, then exits with status 1. */
static _Noreturn void vm_runtime_error(VMThread *thread, const char *message) {
    fflush(stdout);
    fprintf(stderr, "error: %s\n", message);
    vm_print_stack_trace(thread);
    vm_exit(thread->vm, 1);
}

_Noreturn void vm_runtime_errorf(VMThread *thread, const char *format, ...) {
    char message[512];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    vm_runtime_error(thread, message);
}

_Noreturn void vm_out_of_memory(VMThread *thread, const RtClass *cls, uint32_t length) {
    char message[384];
    gc_describe_oom(thread->vm->gc, obj_size_for(cls, length), message, sizeof message);
    /* Not the program's fault alone when an agent keeps collection off. */
    const char *holder = vmpi_gc_disabled_by();
    if (holder) {
        size_t len = strlen(message);
        snprintf(message + len, sizeof message - len,
                 "; garbage collection is disabled by agent '%s' (DisableGC not matched by EnableGC)",
                 holder);
    }
    vm_runtime_error(thread, message);
}

/* The exit status for output lost to error `err` (see the top). */
static int output_error_status(int err) { return err == EPIPE ? 128 + SIGPIPE : 1; }

static void report_output_error(int err) {
    fprintf(stderr, "vmrun: cannot write standard output: %s\n", strerror(err));
}

_Noreturn void vm_output_failed(VMThread *thread) {
    int err = errno;
    /* What is still buffered cannot be written either; dropping it keeps
     * vm_exit from blocking or failing on it again. */
    __fpurge(stdout);
    clearerr(stdout);
    /* Interrupted while blocked in the write: the signal asked to stop. */
    if (err == EINTR && vm_stop_requested()) vm_safepoint(thread);
    report_output_error(err);
    vm_exit(thread->vm, output_error_status(err));
}

_Noreturn void vm_exit(VM *vm, int status) {
    /* A program whose output was lost (disk full, closed pipe) must not
     * report success. */
    if (fflush(stdout) != 0) {
        int err = errno;
        __fpurge(stdout);
        report_output_error(err);
        if (status == 0) status = output_error_status(err);
    }
    if (vm->gc != NULL && vm->gc->config.log != NULL) gc_log_summary(vm->gc);
    vmpi_shutdown();
    exit(status);
}
