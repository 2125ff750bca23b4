/*
 * thread.c -- VM thread records: their two stacks, their frames, and which
 * one is running on this OS thread.
 *
 * Invariant: a thread's roots are exactly rstack[0 .. rtop) (vm.h).  A new
 * thread has rtop == rstack, so it adds no roots until the interpreter
 * pushes some.  vm_current_thread() is a _Thread_local, so each OS thread
 * sees its own VM thread, and NULL when it runs none (agent threads).
 */
#include <stdlib.h>
#include <string.h>

#include "vmpi/post.h"
#include "vm/internal.h"

static _Thread_local VMThread *current_thread;

VMThread *vm_current_thread(void) { return current_thread; }

void vm_set_current_thread(VMThread *thread) { current_thread = thread; }

/* Room for one more thread in vm->threads.  The old table is kept, not
 * freed: an agent's thread may be reading it (vm.h). */
static bool make_room_for_thread(VM *vm) {
    if (vm->num_threads < vm->threads_capacity) return true;
    if (vm->num_retired_threads == sizeof vm->retired_threads / sizeof vm->retired_threads[0]) return false;
    uint32_t capacity = vm->threads_capacity ? 2 * vm->threads_capacity : 8;
    VMThread **grown = malloc(capacity * sizeof *grown);
    if (!grown) return false;
    if (vm->num_threads) memcpy(grown, vm->threads, vm->num_threads * sizeof *grown);
    if (vm->threads) vm->retired_threads[vm->num_retired_threads++] = vm->threads;
    __atomic_store_n(&vm->threads, grown, __ATOMIC_RELEASE);
    vm->threads_capacity = capacity;
    return true;
}

VMThread *vm_thread_new(VM *vm, const char *name) {
    if (!make_room_for_thread(vm)) return NULL;

    /* A record of the fixed-address heap under --seed: its address is the
     * thread's VMPI ID (gc/common/fixed.h). */
    VMThread *thread = gc_record_calloc(1, sizeof *thread);
    if (!thread) return NULL;
    thread->vm = vm;
    thread->id = vm->num_threads + 1;
    thread->name = name;
    /* malloc, not calloc: the interpreter writes every slot before reading
     * it (the verifier proves it for operands; calls clear new locals). */
    thread->pstack = malloc(VM_STACK_SLOTS * sizeof *thread->pstack);
    thread->rstack = malloc(VM_STACK_SLOTS * sizeof *thread->rstack);
    thread->frames = malloc(VM_MAX_FRAMES * sizeof *thread->frames);
    if (!thread->pstack || !thread->rstack || !thread->frames) {
        vm_thread_free(thread);
        return NULL;
    }
    thread->pstack_end = thread->pstack + VM_STACK_SLOTS;
    thread->rstack_end = thread->rstack + VM_STACK_SLOTS;
    thread->rtop = thread->rstack;
    thread->ptop = thread->pstack;
    thread->depth = 0;
    thread->max_depth = VM_MAX_FRAMES;

    vm->threads[vm->num_threads] = thread;
    __atomic_store_n(&vm->num_threads, vm->num_threads + 1, __ATOMIC_RELEASE);
    return thread;
}

VMThread *vm_thread_create(VM *vm, const char *name) {
    VMThread *thread = vm_thread_new(vm, name);
    if (!thread) return NULL;
    current_thread = thread;
    vmpi_post_thread_start(thread);
    return thread;
}

void vm_thread_end(VMThread *thread) {
    /* An ended thread holds no roots: popped first, since with counted
     * roots that may free objects, in collections of their own. */
    thread->depth = 0;
    thread->ptop = thread->pstack;
    vm_pop_roots_to(thread, thread->rstack);
    vmpi_post_THREAD_END(thread);
    vmpi_thread_ended(thread);
    if (current_thread == thread) current_thread = NULL;
}

void vm_thread_free(VMThread *thread) {
    if (!thread) return;
    if (current_thread == thread) current_thread = NULL;
    free(thread->pstack);
    free(thread->rstack);
    free(thread->frames);
    free(thread->system_name);
    gc_record_free(thread);
}
