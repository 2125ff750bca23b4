/*
 * gc_thread.c -- the GC thread: an OS thread that runs no program, on which
 * every collection runs, as HotSpot's VM thread runs its collections
 * (docs/architecture.md "Threads").
 *
 * Invariant: a collection runs only here, while the program thread that
 * asked for it -- the baton holder (scheduler.c), from an allocation or a
 * safepoint's RunGC -- waits in vm_gc_thread_run, and every other program
 * thread waits for the baton at a safepoint.  So every program thread is
 * stopped for the whole collection (JVMPI's thread-suspended mode), and
 * GC_START, OBJECT_MOVE, OBJECT_FREE, ARENA_NEW, ARENA_DELETE and
 * GC_FINISH reach agents on this OS thread, where GetCurrentThread and the
 * events' env_id are NULL: no program thread runs here, as on an agent's
 * system thread.  The request and the answer pass under `lock`, so what the
 * collector wrote happens before the asking thread goes on, and what that
 * thread wrote happens before the collection.
 *
 * Without --seed, program threads may be out in agents'
 * handlers without the baton; the asking thread first waits until they are
 * back at safepoints (vm_thread_stop_for_collection).
 *
 * The thread starts with the VM's first collection and ends with the VM
 * (vm_gc_thread_stop, from vm_destroy).  A collection asked for on the GC
 * thread itself (none should be: RunGC is refused inside a collection)
 * runs in place rather than wait for itself.  The browser build has no OS
 * threads and runs every collection in place.
 */
#include "vm/threads/gc_thread.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "vm/internal.h"
#include "vm/threads/scheduler.h"

typedef struct VmGcThread {
    VM *vm;
    pthread_t os_thread;
    pthread_mutex_t lock;
    pthread_cond_t asked;      /* work was set, or stopping */
    pthread_cond_t done;       /* work was run: it is NULL again */
    GcCollectionWork work;     /* the collection asked for; NULL when none is */
    GcCollectionCall *call;
    bool stopping;
} VmGcThread;

static _Thread_local VM *collecting_for;

VM *vm_gc_thread_vm(void) { return collecting_for; }

static void *run_gc_thread(void *arg) {
    VmGcThread *self = arg;
    collecting_for = self->vm;
    pthread_mutex_lock(&self->lock);
    for (;;) {
        while (!self->work && !self->stopping) pthread_cond_wait(&self->asked, &self->lock);
        if (!self->work) break;
        self->work(self->call);
        self->work = NULL;
        pthread_cond_broadcast(&self->done);
    }
    pthread_mutex_unlock(&self->lock);
    return NULL;
}

static VmGcThread *start(VM *vm) {
    VmGcThread *self = calloc(1, sizeof *self);
    if (!self) return NULL;
    self->vm = vm;
    pthread_mutex_init(&self->lock, NULL);
    pthread_cond_init(&self->asked, NULL);
    pthread_cond_init(&self->done, NULL);
    if (pthread_create(&self->os_thread, NULL, run_gc_thread, self) != 0) {
        pthread_cond_destroy(&self->done);
        pthread_cond_destroy(&self->asked);
        pthread_mutex_destroy(&self->lock);
        free(self);
        return NULL;
    }
    return self;
}

void vm_gc_thread_run(void *vm_arg, GcCollectionWork work, GcCollectionCall *call) {
    VM *vm = vm_arg;
    if (collecting_for == vm) {
        work(call);
        return;
    }
#ifdef GCLAB_WASM
    /* A page has no OS threads (docs/lab.md): the collection runs on the
     * asking thread, which looks like the GC thread while it does -- no VM
     * thread current, so agents see what they see on the GC thread. */
    VMThread *asking = vm_current_thread();
    vm_set_current_thread(NULL);
    collecting_for = vm;
    work(call);
    collecting_for = NULL;
    vm_set_current_thread(asking);
    return;
#endif
    /* Every program thread stops: the ones out in agents' handlers come
     * back to a safepoint first (scheduler.h). */
    vm_thread_stop_for_collection(vm_current_thread());
    if (!vm->gc_thread) vm->gc_thread = start(vm);
    VmGcThread *self = vm->gc_thread;
    if (!self) {
        fputs("vmrun: cannot create the GC thread\n", stderr);
        vm_exit(vm, 1);
    }
    pthread_mutex_lock(&self->lock);
    self->work = work;
    self->call = call;
    pthread_cond_signal(&self->asked);
    while (self->work) pthread_cond_wait(&self->done, &self->lock);
    pthread_mutex_unlock(&self->lock);
}

void vm_gc_thread_stop_mutators(void *vm) {
    (void)vm;
    vm_thread_stop_for_collection(vm_current_thread());
}

void vm_gc_thread_stop(VM *vm) {
    VmGcThread *self = vm->gc_thread;
    if (!self) return;
    pthread_mutex_lock(&self->lock);
    self->stopping = true;
    pthread_cond_signal(&self->asked);
    pthread_mutex_unlock(&self->lock);
    pthread_join(self->os_thread, NULL);
    pthread_cond_destroy(&self->done);
    pthread_cond_destroy(&self->asked);
    pthread_mutex_destroy(&self->lock);
    free(self);
    vm->gc_thread = NULL;
}
