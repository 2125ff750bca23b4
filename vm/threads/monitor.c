/*
 * monitor.c -- the language's monitors (monitor.h): records made on the
 * first enter and freed when nobody owns, enters or waits on them.
 *
 * Invariant: a VmMonitor exists exactly while its owner is set, or some
 * thread is ENTERING or WAITING on it (num_entering, num_waiting count
 * them); its `object` slot is a root, updated by moving collectors.  Only
 * the baton holder (scheduler.c) reads or writes a record, so there are no
 * locks.  A monitor is handed over, never raced for: the owner that exits
 * gives it to the entrant that came first (the lowest ticket), which runs
 * when the scheduler next hands it the baton, already the owner.  notify
 * moves waiters, earliest first, from waiting to entering.
 *
 * Events (JVMPI 1.2): MONITOR_CONTENDED_ENTER when a thread must wait to
 * enter, MONITOR_CONTENDED_ENTERED when it has entered after waiting,
 * MONITOR_CONTENDED_EXIT when it exits a monitor others wait to enter;
 * MONITOR_WAIT (the timeout, 0 for none) and MONITOR_WAITED (the
 * milliseconds actually waited, on the scheduler's clock, until notified,
 * timed out or interrupted, and the monitor entered again).
 */
#include "monitor.h"

#include <stdlib.h>

#include "vmpi/post.h"
#include "vm/internal.h"
#include "scheduler.h"

typedef struct VmMonitor {
    Obj *object;
    VMThread *owner;
    uint32_t count;               /* entries by the owner not yet exited */
    uint32_t num_entering, num_waiting;
    struct VmMonitor *next;
} VmMonitor;

struct VmMonitors {
    VmMonitor *first;
    uint64_t next_ticket;
};

static struct VmMonitors *table_of(VM *vm) {
    if (!vm->monitors) vm->monitors = calloc(1, sizeof *vm->monitors);
    return vm->monitors;
}

static VmMonitor *find(const VM *vm, const Obj *object) {
    if (!vm->monitors) return NULL;
    for (VmMonitor *m = vm->monitors->first; m; m = m->next)
        if (m->object == object) return m;
    return NULL;
}

static void free_if_unused(VM *vm, VmMonitor *m) {
    if (m->owner || m->num_entering || m->num_waiting) return;
    VmMonitor **link = &vm->monitors->first;
    while (*link != m) link = &(*link)->next;
    *link = m->next;
    gc_write_root(vm->gc, &m->object, NULL); /* counted, when roots are */
    free(m);
}

/* The monitor of `thread`'s object, which `thread` must own. */
static VmMonitor *owned(VMThread *thread, Obj *const *slot, const char *what) {
    VmMonitor *m = find(thread->vm, *slot);
    if (!m || m->owner != thread) vm_runtime_errorf(thread, "%s without owning the object's monitor", what);
    return m;
}

/* Blocks `thread` until the monitor is handed to it (ENTERING). */
static void wait_to_enter(VMThread *thread, VmMonitor *m, uint32_t count) {
    VmMonitorWait *wait = vm_thread_monitor_wait(thread);
    wait->monitor = m;
    wait->ticket = thread->vm->monitors->next_ticket++;
    wait->saved_count = count;
    m->num_entering++;
    vm_thread_block(thread, VM_THREAD_ENTERING, 0);
    wait->monitor = NULL;
}

/* The thread in `state` on `m` that came first (the lowest ticket), or NULL. */
static VMThread *earliest(VM *vm, const VmMonitor *m, VmThreadState state) {
    VMThread *first = NULL;
    uint64_t ticket = 0;
    for (uint32_t i = 0; i < vm->num_threads; i++) {
        VMThread *t = vm->threads[i];
        if (vm_thread_state(t) != state) continue;
        const VmMonitorWait *wait = vm_thread_monitor_wait(t);
        if (wait->monitor == m && (!first || wait->ticket < ticket)) {
            first = t;
            ticket = wait->ticket;
        }
    }
    return first;
}

/* The owner gives the monitor up: to the earliest entrant, or to nobody. */
static void hand_over(VM *vm, VmMonitor *m) {
    VMThread *next = earliest(vm, m, VM_THREAD_ENTERING);
    m->owner = next;
    if (!next) return;
    m->count = vm_thread_monitor_wait(next)->saved_count;
    m->num_entering--;
    vm_thread_wake(next);
}

/* The monitor of the object in `slot`, made if it has none. */
static VmMonitor *monitor_of(VMThread *thread, Obj **slot) {
    VM *vm = thread->vm;
    VmMonitor *m = find(vm, *slot);
    if (m) return m;
    struct VmMonitors *table = table_of(vm);
    m = calloc(1, sizeof *m);
    if (!table || !m) vm_runtime_errorf(thread, "out of memory entering a monitor");
    gc_write_root(vm->gc, &m->object, *slot);
    m->next = table->first;
    table->first = m;
    return m;
}

/* Enters `m` if nobody else owns it; false if another thread does. */
static bool enter_if_free(VMThread *thread, VmMonitor *m) {
    if (!m->owner) {
        m->owner = thread;
        m->count = 1;
        return true;
    }
    if (m->owner != thread) return false;
    m->count++;
    return true;
}

void vm_monitor_enter(VMThread *thread, Obj **slot) {
    if (enter_if_free(thread, monitor_of(thread, slot))) return;
    vmpi_post_MONITOR_CONTENDED_ENTER(thread, *slot);
    /* The handlers may have let the other threads run (docs/contracts.md,
     * "Handlers that overlap"): the owner may have left, and the monitor
     * been freed, meanwhile.  The object has not moved: no collection
     * starts while a thread is out in a handler. */
    VmMonitor *m = monitor_of(thread, slot);
    if (!enter_if_free(thread, m)) wait_to_enter(thread, m, 1);
    vmpi_post_MONITOR_CONTENDED_ENTERED(thread, *slot);
}

void vm_monitor_exit(VMThread *thread, Obj **slot) {
    VmMonitor *m = owned(thread, slot, "monitor exit");
    if (--m->count > 0) return;
    if (m->num_entering) vmpi_post_MONITOR_CONTENDED_EXIT(thread, *slot);
    hand_over(thread->vm, m);
    free_if_unused(thread->vm, m);
}

/* Gives `m` up, waits to be notified, interrupted or for `timeout_ms`, and
 * owns `m` again, with its entry count, when it returns. */
static void release_and_wait(VMThread *thread, VmMonitor *m, int64_t timeout_ms) {
    VM *vm = thread->vm;
    uint32_t count = m->count;
    VmMonitorWait *wait = vm_thread_monitor_wait(thread);
    wait->monitor = m;
    wait->ticket = vm->monitors->next_ticket++;
    wait->saved_count = count; /* what hand_over restores once notified */
    m->num_waiting++;
    hand_over(vm, m);
    bool unnotified = vm_thread_block(thread, VM_THREAD_WAITING, timeout_ms);
    if (unnotified) {
        /* Timed out or interrupted: it enters again like any other thread. */
        m->num_waiting--;
        wait->monitor = NULL;
        if (!m->owner) {
            m->owner = thread;
            m->count = count;
        } else {
            wait_to_enter(thread, m, count);
        }
    }
    /* Notified: notify moved it to ENTERING and hand_over gave it the monitor. */
    wait->monitor = NULL;
}

/* Interrupted before it waits, it does not release the monitor and
 * returns at once (MONITOR_WAITED: 0 ms), as Java's wait throws at once. */
void vm_monitor_wait(VMThread *thread, Obj **slot, int64_t timeout_ms) {
    VM *vm = thread->vm;
    VmMonitor *m = owned(thread, slot, "wait");
    if (timeout_ms < 0) vm_runtime_errorf(thread, "wait: negative timeout %lld", (long long)timeout_ms);
    vmpi_post_MONITOR_WAIT(thread, *slot, timeout_ms);
    uint64_t began = vm_thread_clock_us(vm);
    if (!vm_thread_is_interrupted(thread)) release_and_wait(thread, m, timeout_ms);
    if (VMPI_IS_ENABLED(MONITOR_WAITED)) {
        int64_t waited_ms = (int64_t)((vm_thread_clock_us(vm) - began) / 1000u);
        vmpi_send_MONITOR_WAITED(thread, *slot, waited_ms);
    }
}

void vm_monitor_notify(VMThread *thread, Obj **slot, bool all) {
    VM *vm = thread->vm;
    VmMonitor *m = owned(thread, slot, all ? "notifyAll" : "notify");
    while (m->num_waiting) {
        VMThread *first = earliest(vm, m, VM_THREAD_WAITING);
        /* A waiter whose time ran out meanwhile is no longer WAITING. */
        if (!first || !vm_thread_transition(first, VM_THREAD_WAITING, VM_THREAD_ENTERING)) break;
        VmMonitorWait *wait = vm_thread_monitor_wait(first);
        m->num_waiting--;
        m->num_entering++;
        wait->ticket = vm->monitors->next_ticket++;
        if (!all) break;
    }
}

void vm_monitors_release(VMThread *thread) {
    VM *vm = thread->vm;
    if (!vm->monitors) return;
    for (VmMonitor *m = vm->monitors->first, *next; m; m = next) {
        next = m->next;
        if (m->owner != thread) continue;
        hand_over(vm, m);
        free_if_unused(vm, m);
    }
}

void vm_monitors_each(VM *vm, void (*visit)(const VmMonitorInfo *info, void *ctx), void *ctx) {
    if (!vm->monitors) return;
    for (VmMonitor *m = vm->monitors->first; m; m = m->next) {
        VmMonitorInfo info = {.monitor = m, .object = &m->object, .owner = m->owner, .count = m->owner ? m->count : 0,
                              .num_entering = m->num_entering, .num_waiting = m->num_waiting};
        visit(&info, ctx);
    }
}

bool vm_monitor_holds_up(const VMThread *thread, const VmMonitor *monitor, VmThreadState state) {
    return vm_thread_state(thread) == state &&
           vm_thread_monitor_wait((VMThread *)thread)->monitor == monitor;
}

void vm_monitors_free(VM *vm) {
    if (!vm->monitors) return;
    for (VmMonitor *m = vm->monitors->first, *next; m; m = next) {
        next = m->next;
        free(m);
    }
    free(vm->monitors);
    vm->monitors = NULL;
}
