/*
 * hang_watch.c -- strict mode's hang report: a handler that has not
 * returned after the hang limit (--vmpi-hang-limit, 10 s unless told) ends
 * the run with a report of every thread that is inside an agent's handler,
 * instead of leaving the runner hung (docs/contracts.md, "Deadlocks are
 * named, not hung").
 *
 * Invariant: a delivery in strict mode holds one slot of `watched` from
 * just before NotifyEvent until it returns (vmpi_hang_watch_begin/_end);
 * only the thread that claimed a slot writes it, and it publishes the slot
 * by storing `since_ns` last (release), so the watchdog, which reads a
 * slot only when it sees since_ns non-zero (acquire), reads a whole one.
 * A delivery that finds every slot busy is not watched.
 *
 * The watchdog is a detached thread started by the first watched delivery.
 * It looks every quarter of a second; when a slot is older than the limit
 * it prints the report and leaves with _exit(1): the agent is stuck, so
 * JVM_SHUT_DOWN could not reach it, and exit()'s handlers could wait on
 * what it holds.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "dispatch.h"
#include "strict.h"
#include "vmpi/control.h"

#define WATCH_SLOTS 64
#define WATCH_PERIOD_NS 250000000L

typedef struct WatchedDelivery {
    atomic_bool busy;
    _Atomic uint64_t since_ns;         /* 0 while the slot is being filled or free */
    const VmpiAgent *agent;
    int32_t event_type;
    VMPI_ThreadID env;                 /* the program thread, or NULL */
    bool on_system_thread;
    const char *const *calling;        /* that thread's vmpi_calling */
} WatchedDelivery;

static WatchedDelivery watched[WATCH_SLOTS];
static unsigned hang_limit_s = VMPI_DEFAULT_HANG_LIMIT_S;

void vmpi_set_hang_limit(unsigned seconds) { hang_limit_s = seconds; }

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Who a slot's thread is, in words. */
static void describe_thread(const WatchedDelivery *w, char *out, size_t size) {
    VMPI_ThreadInfo info;
    if (w->env && vmpi_get_thread_info(w->env, &info) == VMPI_OK && info.thread_name)
        snprintf(out, size, "thread '%s'", info.thread_name);
    else if (w->env) snprintf(out, size, "thread %p", (void *)w->env);
    else if (w->on_system_thread) snprintf(out, size, "a system thread of agent '%s'", vmpi_agent_name(w->agent));
    else snprintf(out, size, "the GC thread");
}

static void describe_delivery(const WatchedDelivery *w, uint64_t now, const char *prefix) {
    char thread[128];
    describe_thread(w, thread, sizeof thread);
    const char *event = vmpi_event_name(w->event_type & ~VMPI_REQUESTED_EVENT);
    const char *calling = *w->calling;
    fprintf(stderr, "%sagent '%s', NotifyEvent(%s) on %s, for %.1f s%s%s\n", prefix, vmpi_agent_name(w->agent),
            event ? event : "?", thread, (double)(now - w->since_ns) / 1e9, calling ? ", inside " : "",
            calling ? calling : "");
}

static _Noreturn void report_hang(const WatchedDelivery *stuck, uint64_t now) {
    describe_delivery(stuck, now, "vmpi: hang: ");
    Gc *gc = vmpi_gc();
    if (gc && gc_is_collecting(gc))
        fputs("vmpi: a collection is running: every program thread is stopped until it ends\n", stderr);
    if (vmpi_hold_wanted())
        fputs("vmpi: an agent's thread waits in RequestEvent for the program threads to stop at a safepoint\n", stderr);
    for (int i = 0; i < WATCH_SLOTS; i++) {
        const WatchedDelivery *w = &watched[i];
        if (w != stuck && atomic_load_explicit(&w->since_ns, memory_order_acquire) != 0)
            describe_delivery(w, now, "vmpi:   also in a handler: ");
    }
    fprintf(stderr, "vmpi: the run is ended after %u s (--vmpi-hang-limit)\n", hang_limit_s);
    _exit(1);
}

static void *watchdog(void *arg) {
    (void)arg;
    const struct timespec period = {0, WATCH_PERIOD_NS};
    for (;;) {
        nanosleep(&period, NULL);
        uint64_t now = now_ns(), limit = (uint64_t)hang_limit_s * 1000000000u;
        for (int i = 0; i < WATCH_SLOTS; i++) {
            uint64_t since = atomic_load_explicit(&watched[i].since_ns, memory_order_acquire);
            /* A delivery may have begun after `now` was read: since > now. */
            if (since != 0 && since < now && now - since > limit) report_hang(&watched[i], now);
        }
    }
    return NULL;
}

static void start_watchdog(void) {
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&thread, &attr, watchdog, NULL) != 0)
        fputs("vmpi: warning: no thread to watch for hangs: a hung handler will hang the run\n", stderr);
    pthread_attr_destroy(&attr);
}

int vmpi_hang_watch_begin(const VmpiAgent *agent, int32_t event_type) {
    if (hang_limit_s == 0) return -1;
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, start_watchdog);
    for (int i = 0; i < WATCH_SLOTS; i++) {
        WatchedDelivery *w = &watched[i];
        if (atomic_exchange(&w->busy, true)) continue;
        w->agent = agent;
        w->event_type = event_type;
        w->env = vmpi_on_system_thread ? NULL : vmpi_current_env();
        w->on_system_thread = vmpi_on_system_thread;
        w->calling = &vmpi_calling;
        atomic_store_explicit(&w->since_ns, now_ns(), memory_order_release);
        return i;
    }
    return -1;
}

void vmpi_hang_watch_end(int slot) {
    if (slot < 0) return;
    atomic_store_explicit(&watched[slot].since_ns, 0, memory_order_release);
    atomic_store(&watched[slot].busy, false);
}
