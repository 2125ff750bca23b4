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
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../gc/common/collect.h"
#include "internal.h"
#include "../../vmpi/control.h"

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

static void print_stack_trace(const VMThread *thread) {
    uint32_t shown = thread->depth < TRACE_MAX_FRAMES ? thread->depth : TRACE_MAX_FRAMES;
    for (uint32_t i = 0; i < shown; i++) print_frame(thread->vm, &thread->frames[thread->depth - 1 - i]);
    if (thread->depth > shown) fprintf(stderr, "    ... %u more frames\n", thread->depth - shown);
}

/* Prints `message` and the thread's stack trace, then exits with status 1. */
static _Noreturn void vm_runtime_error(VMThread *thread, const char *message) {
    fflush(stdout);
    fprintf(stderr, "error: %s\n", message);
    print_stack_trace(thread);
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
    char message[256];
    gc_describe_oom(thread->vm->gc, obj_size_for(cls, length), message, sizeof message);
    vm_runtime_error(thread, message);
}

_Noreturn void vm_exit(VM *vm, int status) {
    /* A program whose output was lost (disk full, closed pipe) must not
     * report success. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "vmrun: error writing the program's output\n");
        if (status == 0) status = 1;
    }
    if (vm->gc != NULL && vm->gc->config.log != NULL) gc_log_summary(vm->gc);
    vmpi_shutdown();
    exit(status);
}
