/*
 * monitor.h -- the language's monitors: synchronized blocks, wait, notify
 * and notifyAll on any object (docs/language.md "Monitors").
 *
 * An object has no monitor word.  A monitor record is made when a thread
 * first enters the object's monitor and freed as soon as nobody owns it,
 * waits to enter it or waits on it (monitor.c), so a program that never
 * contends pays one small record per object it holds locked.  The records'
 * object slots are roots (vm_enumerate_roots): a moving collector updates
 * them, and heap dumps report them as ROOT_MONITOR_USED.
 *
 * Every function runs in the thread holding the scheduler's baton, with
 * its state saved; `slot` is a root slot holding the object (the top of
 * the thread's reference stack), re-read after anything that may block.
 */
#ifndef GCLAB_INTERP_MONITOR_H
#define GCLAB_INTERP_MONITOR_H

#include <stdbool.h>
#include <stdint.h>

#include "vm/vm.h"
#include "scheduler.h"

struct VmMonitor;

/* What a thread enters or waits on, kept in its scheduler record. */
typedef struct VmMonitorWait {
    struct VmMonitor *monitor;  /* ENTERING or WAITING: the monitor; else NULL */
    uint64_t ticket;            /* arrival order: the earliest entrant gets the monitor */
    uint32_t saved_count;       /* the entry count to restore once it owns the monitor again */
} VmMonitorWait;

void vm_monitor_enter(VMThread *thread, Obj **slot);
/* A runtime error if `thread` does not own the monitor. */
void vm_monitor_exit(VMThread *thread, Obj **slot);
/* timeout_ms 0: until notified.  A runtime error if not the owner. */
void vm_monitor_wait(VMThread *thread, Obj **slot, int64_t timeout_ms);
void vm_monitor_notify(VMThread *thread, Obj **slot, bool all);

/* A thread that ends gives up the monitors it still owns (bytecode that
 * never exits them: the compiler's code always does). */
void vm_monitors_release(VMThread *thread);

/* Each monitor in use: its object slot (for the collector and heap dumps),
 * owner (NULL if none), entry count and the threads entering and waiting. */
typedef struct VmMonitorInfo {
    const struct VmMonitor *monitor;
    Obj **object;
    VMThread *owner;
    uint32_t count;
    uint32_t num_entering, num_waiting;
} VmMonitorInfo;
void vm_monitors_each(VM *vm, void (*visit)(const VmMonitorInfo *info, void *ctx), void *ctx);

/* Whether `thread` is in `state` (ENTERING or WAITING) on `monitor`. */
bool vm_monitor_holds_up(const VMThread *thread, const struct VmMonitor *monitor, VmThreadState state);

void vm_monitors_free(VM *vm);

#endif
