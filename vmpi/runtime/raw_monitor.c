/*
 * raw_monitor.c -- JVMPI raw monitors on a pthread mutex and condition
 * variable (JVMPI 1.2 section 2, RawMonitorCreate .. RawMonitorDestroy).
 *
 * Invariant: `entries` is how many times the owning thread has entered the
 * monitor and is only touched by the thread holding `lock`.  A thread may
 * enter a monitor it already holds, as with Java monitors: the owner counts
 * its own entries, so `lock`, a plain (non-recursive) mutex, is held once
 * while `entries` is non-zero, and entering or leaving a monitor held
 * several times touches no mutex.  RawMonitorWait releases every entry,
 * waits, and takes them all back.
 *
 * Invariant: `owner` is the owning thread's `me` token while `entries` is
 * non-zero, and NULL otherwise; only the owner writes it.  So a thread
 * asks whether it holds a monitor with one atomic load
 * (vmpi_raw_monitor_held_by_me): no other thread can store its token.
 *
 * Invariant: `holder` is the owner's VM thread while `entries` is non-zero
 * and the owner is a program thread, NULL otherwise (nobody, the GC
 * thread, an agent's system thread).  guard.c reads it on the GC thread
 * inside a collection, when every program thread is stopped: a monitor a
 * program thread holds then stays held until the collection ends.
 *
 * Invariant: `live` lists every monitor RawMonitorCreate made and
 * RawMonitorDestroy has not destroyed, so that guard.c can refuse any other
 * ID before it is followed (vmpi_is_raw_monitor).  `destroyed` counts the
 * destructions: a thread that found an ID in `live` and has seen no
 * destruction since knows it is still live without walking the list again
 * (agents enter and exit their monitor at every event).
 *
 * Contention events (RAW_MONITOR_CONTENDED_ENTER, _ENTERED, _EXIT) are sent
 * when enabled, except for monitors whose name starts with '_' (JVMPI 1.2,
 * RawMonitorCreate).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dispatch.h"

typedef struct RawMonitor {
    struct RawMonitor *next_live;   /* the registry of live monitors */
    pthread_mutex_t lock;
    pthread_cond_t notified;
    atomic_uint entries;            /* atomic: the monitor dump reads it from any thread */
    _Atomic(const void *) owner;    /* the owner's `me`, NULL when nobody holds it */
    _Atomic(VMPI_ThreadID) holder;  /* the owner's VM thread, if it is one */
    atomic_int waiting_to_enter;
    atomic_int waiting_to_be_notified;
    char name[]; /* NUL-terminated copy of the creator's name */
} RawMonitor;

static RawMonitor *monitor_of(VMPI_RawMonitor id) { return (RawMonitor *)(void *)id; }

static RawMonitor *live;
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_uint_fast64_t destroyed;

/* The calling thread's token: its address names the thread (owner). */
static _Thread_local char me;

/* The monitor this thread last found live, and `destroyed` at that time. */
static _Thread_local VMPI_RawMonitor last_live;
static _Thread_local uint_fast64_t last_live_destroyed;

bool vmpi_is_raw_monitor(VMPI_RawMonitor id) {
    uint_fast64_t destroyed_now = atomic_load(&destroyed);
    if (id && id == last_live && destroyed_now == last_live_destroyed) return true;
    pthread_mutex_lock(&live_lock);
    const RawMonitor *m = live;
    while (m && m != monitor_of(id)) m = m->next_live;
    pthread_mutex_unlock(&live_lock);
    if (m) {
        last_live = id;
        last_live_destroyed = destroyed_now;
    }
    return m != NULL;
}

VMPI_RawMonitor vmpi_raw_monitor_create(char *lock_name) {
    const char *name = lock_name ? lock_name : "";
    size_t len = strlen(name);
    RawMonitor *m = calloc(1, sizeof *m + len + 1);
    if (!m) return NULL;
    memcpy(m->name, name, len + 1);
    pthread_mutex_init(&m->lock, NULL);
    pthread_condattr_t cattr;
    pthread_condattr_init(&cattr);
    pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
    pthread_cond_init(&m->notified, &cattr);
    pthread_condattr_destroy(&cattr);
    atomic_init(&m->waiting_to_enter, 0);
    atomic_init(&m->owner, NULL);
    atomic_init(&m->holder, NULL);
    pthread_mutex_lock(&live_lock);
    m->next_live = live;
    live = m;
    pthread_mutex_unlock(&live_lock);
    return (VMPI_RawMonitor)(void *)m;
}

static void post_contention(int32_t code, RawMonitor *m) {
    if (!vmpi_enabled[code] || m->name[0] == '_') return;
    VMPI_Event event = {.event_type = code, .env_id = vmpi_current_env()};
    event.u.raw_monitor.name = m->name;
    event.u.raw_monitor.id = (VMPI_RawMonitor)(void *)m;
    vmpi_dispatch(&event, false);
}

/* The calling thread's VM thread if it runs the program, else NULL. */
static VMPI_ThreadID program_thread(void) { return vmpi_on_system_thread ? NULL : vmpi_current_env(); }

/* Whether the calling thread owns `m`: only the owner stores its token. */
static bool held_by_me(const RawMonitor *m) {
    return atomic_load_explicit(&m->owner, memory_order_relaxed) == &me;
}

/* Adds `delta` to the owner's count of entries and returns the new count.
 * Only the owner writes it, so no read-modify-write need be atomic; other
 * threads (the monitor dump) only read it. */
static uint32_t add_entries(RawMonitor *m, int delta) {
    uint32_t entries = atomic_load_explicit(&m->entries, memory_order_relaxed) + (uint32_t)delta;
    atomic_store_explicit(&m->entries, entries, memory_order_relaxed);
    return entries;
}

void vmpi_raw_monitor_enter(VMPI_RawMonitor lock_id) {
    RawMonitor *m = monitor_of(lock_id);
    if (!m) return;
    if (held_by_me(m)) {
        add_entries(m, 1);
        return;
    }
    if (pthread_mutex_trylock(&m->lock) != 0) {
        post_contention(VMPI_EVENT_RAW_MONITOR_CONTENDED_ENTER, m);
        atomic_fetch_add(&m->waiting_to_enter, 1);
        /* A handler that holds the VM must not keep a handler outside it,
         * which may hold this monitor, from borrowing the VM (dispatch.h). */
        bool lent = vmpi_lend_vm_while_blocked();
        pthread_mutex_lock(&m->lock);
        if (lent) vmpi_take_vm_back();
        atomic_fetch_sub(&m->waiting_to_enter, 1);
        post_contention(VMPI_EVENT_RAW_MONITOR_CONTENDED_ENTERED, m);
    }
    m->entries = 1;
    atomic_store_explicit(&m->owner, &me, memory_order_relaxed);
    atomic_store_explicit(&m->holder, program_thread(), memory_order_relaxed);
}

bool vmpi_raw_monitor_held_by_me(VMPI_RawMonitor lock_id) { return held_by_me(monitor_of(lock_id)); }

void vmpi_raw_monitor_exit(VMPI_RawMonitor lock_id) {
    RawMonitor *m = monitor_of(lock_id);
    if (!m || !held_by_me(m)) return;
    /* The last entry: CONTENDED_EXIT goes out while the monitor is still
     * held, so that the waiter's _ENTERED comes after it (a handler may
     * enter the monitor again meanwhile, or even leave it). */
    if (m->entries == 1 && atomic_load(&m->waiting_to_enter) > 0) {
        post_contention(VMPI_EVENT_RAW_MONITOR_CONTENDED_EXIT, m);
        if (!held_by_me(m)) return;
    }
    if (add_entries(m, -1) > 0) return;
    atomic_store_explicit(&m->holder, NULL, memory_order_relaxed);
    atomic_store_explicit(&m->owner, NULL, memory_order_relaxed);
    pthread_mutex_unlock(&m->lock);
}

/* Waits `ms` milliseconds, or until notified; 0 waits until notified.  The
 * caller must hold the monitor (JVMPI 1.2, RawMonitorWait). */
void vmpi_raw_monitor_wait(VMPI_RawMonitor lock_id, int64_t ms) {
    RawMonitor *m = monitor_of(lock_id);
    if (!m || !held_by_me(m)) return;
    uint32_t entries = m->entries;
    m->entries = 0;
    atomic_store(&m->holder, NULL);
    atomic_store(&m->owner, NULL);
    atomic_fetch_add(&m->waiting_to_be_notified, 1);
    if (ms <= 0) {
        pthread_cond_wait(&m->notified, &m->lock);
    } else {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += (time_t)(ms / 1000);
        until.tv_nsec += (long)(ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        int rc;
        do rc = pthread_cond_timedwait(&m->notified, &m->lock, &until);
        while (rc == EINTR);
    }
    atomic_fetch_sub(&m->waiting_to_be_notified, 1);
    m->entries = entries;
    atomic_store(&m->owner, &me);
    atomic_store(&m->holder, program_thread());
}

const char *vmpi_raw_monitor_name(VMPI_RawMonitor lock_id) { return monitor_of(lock_id)->name; }

VMPI_ThreadID vmpi_raw_monitor_holder(VMPI_RawMonitor lock_id) {
    return atomic_load_explicit(&monitor_of(lock_id)->holder, memory_order_relaxed);
}

const char *vmpi_raw_monitor_one_held_by_me(void) {
    const char *name = NULL;
    pthread_mutex_lock(&live_lock);
    for (const RawMonitor *m = live; m && !name; m = m->next_live)
        if (held_by_me(m)) name = m->name;
    pthread_mutex_unlock(&live_lock);
    return name;
}

void vmpi_raw_monitor_notify_all(VMPI_RawMonitor lock_id) {
    RawMonitor *m = monitor_of(lock_id);
    if (m) pthread_cond_broadcast(&m->notified);
}

void vmpi_raw_monitor_destroy(VMPI_RawMonitor lock_id) {
    RawMonitor *m = monitor_of(lock_id);
    if (!m) return;
    pthread_mutex_lock(&live_lock);
    RawMonitor **link = &live;
    while (*link && *link != m) link = &(*link)->next_live;
    if (*link) *link = m->next_live;
    atomic_fetch_add(&destroyed, 1);
    pthread_mutex_unlock(&live_lock);
    pthread_cond_destroy(&m->notified);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

/* For the monitor dump (monitor_dump.c): each live monitor as the calling
 * thread can see it. */
void vmpi_raw_monitor_each(void (*visit)(const VmpiRawMonitorView *view, void *ctx), void *ctx) {
    pthread_mutex_lock(&live_lock);
    for (RawMonitor *m = live; m; m = m->next_live) {
        VmpiRawMonitorView view = {
            .name = m->name,
            .id = (VMPI_RawMonitor)(void *)m,
            .held_by_caller = vmpi_raw_monitor_held_by_me((VMPI_RawMonitor)(void *)m),
            .entries = atomic_load(&m->entries),
            .waiting_to_enter = (uint32_t)atomic_load(&m->waiting_to_enter),
            .waiting_to_be_notified = (uint32_t)atomic_load(&m->waiting_to_be_notified),
        };
        visit(&view, ctx);
    }
    pthread_mutex_unlock(&live_lock);
}
