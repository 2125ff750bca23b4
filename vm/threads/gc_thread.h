/*
 * gc_thread.h -- the GC thread: the OS thread, no program thread, on which
 * every collection runs (gc_thread.c).
 */
#ifndef GCLAB_THREADS_GC_THREAD_H
#define GCLAB_THREADS_GC_THREAD_H

#include "gc/gc.h"
#include "vm/vm.h"

/* GcConfig.runner's run for `vm` (a VM *): runs work(call) on the VM's GC
 * thread, starting it the first time, and returns when it is done. */
void vm_gc_thread_run(void *vm, GcCollectionWork work, GcCollectionCall *call);

/* The runner's stop hook (gc.h): the program threads out in agents'
 * handlers come back to safepoints (vm_thread_stop_for_collection). */
void vm_gc_thread_stop_mutators(void *vm);

/* The VM the calling OS thread collects for: non-NULL only on a GC thread. */
VM *vm_gc_thread_vm(void);

/* Ends the VM's GC thread, if it started, and frees its record. */
void vm_gc_thread_stop(VM *vm);

#endif
