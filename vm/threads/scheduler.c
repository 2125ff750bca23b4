/*
 * scheduler.c -- VM threads: one OS thread each, and a baton that only one
 * of them holds at a time.
 *
 * Invariant: exactly one VM thread runs bytecode, posts events or touches
 * the heap at a time -- the one named by sched->running, the baton holder.
 * Every other VM thread's OS thread waits on its own condition variable in
 * await_baton, with its state saved at a safepoint (its frames, pc and
 * stack tops in its VMThread), so its stack is as still as a suspended
 * thread's and a collection scans it like any other.  So the collectors,
 * the monitor table and the VM's other shared state need no locks.  The
 * baton changes hands only at a safepoint, under `lock`: in a poll whose
 * time slice is over (vm_thread_tick), when the running thread blocks
 * (join, sleep, a contended monitor, wait) or parks for an agent's
 * SuspendThread, and when it ends.  Each VM thread keeps its own OS thread,
 * so the _Thread_local current thread, per-thread CPU time
 * (CLOCK_THREAD_CPUTIME_ID) and vmpi_serve_suspension's parking work as for
 * the main thread.  An agent's system thread is a VM thread with a Thread
 * handle but no scheduler record (vm_thread_add_system): it runs agent
 * code, never bytecode, concurrently, and is never handed the baton.
 *
 * Preemption costs single-threaded programs nothing: the interpreter's poll
 * is still one load and one branch.  While a second thread lives,
 * VM_REQUEST_SCHEDULE stays set in vm_pending_requests, so every poll also
 * counts vm_slice_polls_left down, inline (safepoint.h), and goes out of
 * line to vm_thread_tick when the slice is over.  A slice is a
 * number of polls drawn from a generator seeded with --seed (a fixed seed
 * without one), and the next thread is the next runnable one in creation
 * order, so the interleaving depends only on the program and the seed.
 * Sleeps and timed waits run on a clock: under --seed a logical one, one
 * microsecond per poll of a multi-threaded program (the polls of the slice
 * so far are added when the clock is read, see logical_now), which jumps
 * to the earliest deadline when every thread is blocked; otherwise CLOCK_MONOTONIC
 * (then timed threads wake themselves with pthread_cond_timedwait).  So
 * under --seed the interleaving and every event stream repeat exactly.
 *
 * When no thread can run and none has a deadline or is parked (an agent
 * could resume it), the program is deadlocked: a runtime error in the
 * thread that blocked last.
 *
 * Handlers outside the VM (the default; never under --seed or --one-at-a-time):
 * for the events JVMPI sends in its multi-threaded modes, the posting
 * thread gives the baton away while agents' handlers run (IN_HANDLER) and
 * waits for it again after, so handlers of different threads overlap as in
 * a JVM.  A thread back from its handler spins for the baton a while, and
 * the holder hands it over at its next handler (spin_for_baton; how often:
 * keeps_for_handler).  `outside` counts such threads.  A collection drains
 * them first (vm_thread_stop_for_collection): the holder that would
 * collect becomes `collector`, and while it is set the baton goes only to
 * threads coming back from a handler, each for the polls up to its next
 * safepoint, then to the collector once `outside` is 0; nobody leaves
 * meanwhile.  A thread that comes back and wants a collection of its own
 * stays at that point (a safepoint too) until the waiting collector has
 * collected.
 *
 * Interrupts (docs/language.md "Threads"): interrupt(t), run by the baton
 * holder, sets t's flag and, if t sleeps or waits, makes it runnable there
 * and then, as its deadline would; so no deadlock check or --seed schedule
 * ever sees a wake that is still to come.  A thread blocked in join or
 * entering a monitor is not woken.  sleep and wait return at once while
 * the flag is set; only interrupted() clears it.
 */
#define _GNU_SOURCE /* PTHREAD_MUTEX_ADAPTIVE_NP */
#include "scheduler.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vmpi/post.h"
#include "vm/internal.h"
#include "monitor.h"
#include "safepoint.h"

/* A time slice, in safepoint polls: drawn from [SLICE_MIN, SLICE_MIN + SLICE_SPREAD). */
#define SLICE_MIN 20000u
#define SLICE_SPREAD 80000u
/* The polls a thread runs with the baton before it gives it away for a
 * handler (vm_thread_leave_for_handler). */
#define LEAVE_AFTER_POLLS 1000u
/* How long a thread back from a handler watches for the baton before it
 * sleeps on its condition variable (spin_for_baton), in microseconds: a
 * thread that allocates or calls posts its next event well within it, even
 * keeping the baton through its handlers (HANDOFF_AFTER_POLLS) when each
 * takes a few microseconds.  A tenth of it timed out worse. */
#define SPIN_US 500u
/* The polls a thread runs with a baton a spinner handed it before it hands
 * it to the next spinner (vm_thread_leave_for_handler): each handoff moves
 * the VM's working set to the other core. */
#define HANDOFF_AFTER_POLLS 64u

typedef struct VmThreadSched {
    pthread_t os_thread;
    bool has_os_thread;          /* main runs on the process's own */
    pthread_cond_t wake;         /* signalled when handed the baton */
    _Atomic int state;           /* VmThreadState */
    uint64_t deadline_us;        /* SLEEPING or timed WAITING: when it wakes; 0 for none */
    bool woke_unnotified;        /* the last block ended by its deadline or an interrupt */
    _Atomic bool interrupted;    /* interrupt() set it, interrupted() clears it; agents read it */
    const VMThread *join_target; /* JOINING: the thread; NULL for main waiting for all */
    const LinkedMethod *entry;   /* what a started thread runs */
    bool unannounced;            /* started, not yet run: its THREAD_START not posted */
    char *name;                  /* the name VMThread.name points to */
    VmMonitorWait monitor;       /* monitor.c's record of what it enters or waits on */
    bool outside;                /* left the baton for a handler, not back at a safepoint yet */
    bool borrowing;              /* out, and waits for or holds the baton for a call (borrow_baton) */
} VmThreadSched;

typedef struct VmScheduler {
    /* The baton holder; NULL while every thread is blocked or parked.
     * Written with `lock` held, read without it by a thread that spins for
     * the baton (spin_for_baton): so atomic, and alone on its cache line,
     * which the holder does not write while it keeps the baton. */
    _Alignas(64) VMThread *_Atomic running;
    _Alignas(64) pthread_mutex_t lock;
    uint32_t live;               /* threads that have not ended */
    uint32_t slice_polls;        /* the current slice's length; vm_slice_polls_left counts it down */
    uint64_t random_state;
    bool seeded;
    uint64_t logical_us;         /* --seed's clock when the current slice began */
    uint32_t outside;            /* threads whose `outside` is set */
    VMThread *_Atomic collector; /* the holder waiting to collect until `outside` is 0, or NULL;
                                    atomic for a spinner handed the baton (come_back) */
    VMThread *lender;            /* the holder blocked in a handler that keeps the VM, or NULL:
                                    meanwhile the baton goes only to borrowers and back to it */
    VMThread *spinner;           /* the thread back from a handler that spins for the baton, or NULL */
    uint32_t handed_at;          /* the slice's polls when the baton last went to a spinner */
} VmScheduler;

static uint64_t next_random(VmScheduler *s) {
    /* splitmix64 */
    uint64_t z = (s->random_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

uint32_t vm_slice_polls_left;

/* --seed's clock now: where the slice began, plus the polls made in it. */
static uint64_t logical_now(const VmScheduler *s) { return s->logical_us + (s->slice_polls - vm_slice_polls_left); }

/* Moves the slice's start to now, so that logical_us is the clock. */
static void fold_clock(VmScheduler *s) {
    s->logical_us = logical_now(s);
    s->slice_polls = vm_slice_polls_left;
}

static void new_slice(VmScheduler *s) {
    fold_clock(s);
    s->handed_at = 0;
    s->slice_polls = vm_slice_polls_left = SLICE_MIN + (uint32_t)(next_random(s) % SLICE_SPREAD);
}

static uint64_t monotonic_us(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

uint64_t vm_thread_clock_us(const VM *vm) {
    const VmScheduler *s = vm->scheduler;
    return s && s->seeded ? logical_now(s) : monotonic_us();
}

static VmThreadState state_of(const VMThread *t) { return (VmThreadState)atomic_load(&t->sched->state); }

static void set_state(VMThread *t, VmThreadState state) { atomic_store(&t->sched->state, (int)state); }

VmThreadState vm_thread_state(const VMThread *thread) {
    return thread->sched ? state_of(thread) : VM_THREAD_RUNNABLE;
}

static VmThreadSched *new_sched_record(void) {
    VmThreadSched *record = calloc(1, sizeof *record);
    if (!record) return NULL;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&record->wake, &attr);
    pthread_condattr_destroy(&attr);
    atomic_init(&record->state, VM_THREAD_RUNNABLE);
    return record;
}

/* The scheduler, made when the program starts its first thread: until
 * then main runs alone and nothing here costs anything. */
static VmScheduler *scheduler_of(VMThread *running) {
    VM *vm = running->vm;
    if (vm->scheduler) return vm->scheduler;
    VmScheduler *s = aligned_alloc(_Alignof(VmScheduler), sizeof *s);
    running->sched = new_sched_record();
    if (!s || !running->sched) vm_runtime_errorf(running, "out of memory starting a thread");
    memset(s, 0, sizeof *s);
    /* Threads on two cores often take the lock at once around a handoff:
     * a mutex that spins a little before it sleeps saves a futex call. */
    pthread_mutexattr_t lock_attr;
    pthread_mutexattr_init(&lock_attr);
#ifdef PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP
    pthread_mutexattr_settype(&lock_attr, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
    pthread_mutex_init(&s->lock, &lock_attr);
    pthread_mutexattr_destroy(&lock_attr);
    s->running = running;
    s->live = 1;
    s->seeded = vm->seeded;
    s->random_state = vm->seeded ? vm->seed : 0x67636c6162u; /* "gclab" */
    s->slice_polls = vm_slice_polls_left; /* what an earlier VM of the process left: no time yet */
    new_slice(s);
    vm->scheduler = s;
    return s;
}

/* ---- the baton (all with s->lock held) ----------------------------------------- */

/* Ends a sleep or wait without a notify: its deadline passed, or it was
 * interrupted.  The thread runs when next handed the baton. */
static void wake_unnotified(VMThread *t) {
    t->sched->deadline_us = 0;
    t->sched->woke_unnotified = true;
    set_state(t, VM_THREAD_RUNNABLE);
}

/* Makes runnable every timed thread whose deadline has passed on the
 * logical clock (--seed); without --seed timed threads wake themselves. */
static void wake_due(VM *vm, VmScheduler *s) {
    if (!s->seeded) return;
    fold_clock(s);
    for (uint32_t i = 0; i < vm->num_threads; i++) {
        VMThread *t = vm->threads[i];
        if (!t->sched || !t->sched->deadline_us || t->sched->deadline_us > s->logical_us) continue;
        VmThreadState state = state_of(t);
        if (state != VM_THREAD_SLEEPING && state != VM_THREAD_WAITING) continue;
        wake_unnotified(t);
    }
}

/* The next runnable thread after `self` in creation order (self last). */
static VMThread *next_runnable(VM *vm, const VMThread *self) {
    uint32_t n = vm->num_threads, at = 0;
    while (at < n && vm->threads[at] != self) at++;
    for (uint32_t k = 1; k <= n; k++) {
        VMThread *t = vm->threads[(at + k) % n];
        if (t->sched && state_of(t) == VM_THREAD_RUNNABLE) return t;
    }
    return NULL;
}

/* With no thread runnable: the earliest deadline of a timed thread (0 if
 * none), and whether some thread is parked by an agent. */
static uint64_t earliest_deadline(const VM *vm, bool *parked) {
    uint64_t earliest = 0;
    *parked = false;
    for (uint32_t i = 0; i < vm->num_threads; i++) {
        const VMThread *t = vm->threads[i];
        if (!t->sched) continue;
        VmThreadState state = state_of(t);
        if (state == VM_THREAD_PARKED || state == VM_THREAD_IN_HANDLER) *parked = true;
        uint64_t d = t->sched->deadline_us;
        if ((state == VM_THREAD_SLEEPING || state == VM_THREAD_WAITING) && d && (!earliest || d < earliest))
            earliest = d;
    }
    return earliest;
}

/* A thread out for a handler that waits for the baton: back from it, or
 * borrowing the VM for a call; NULL if none. */
static VMThread *thread_coming_back(const VM *vm) {
    for (uint32_t i = 0; i < vm->num_threads; i++) {
        VMThread *t = vm->threads[i];
        if (t->sched && t->sched->outside && state_of(t) == VM_THREAD_RUNNABLE) return t;
    }
    return NULL;
}

/* While a collector waits: a thread back from a handler, to run to its
 * next safepoint; else the collector once no thread is out; else nobody
 * until one comes back. */
static VMThread *next_for_collection(const VM *vm, const VmScheduler *s) {
    VMThread *returning = thread_coming_back(vm);
    if (returning) return returning;
    return s->outside == 0 ? s->collector : NULL;
}

/* Makes `next` (or nobody) the holder, after everything else the handover
 * writes: a spinner takes the baton without the lock (spin_for_baton), and
 * then no longer spins. */
static void hand_baton(VmScheduler *s, VMThread *next) {
    if (next && s->spinner == next) s->spinner = NULL;
    s->running = next;
}

/* `self`, back from a handler, is at a safepoint: no longer out. */
static void arrive_at_safepoint(VmScheduler *s, VMThread *self) {
    if (!self->sched->outside) return;
    self->sched->outside = false;
    s->outside--;
}

/* Hands the baton from `self` to the next runnable thread, or to nobody
 * while every thread waits for time to pass or an agent to resume one.
 * Returns false if no thread can ever run again (a deadlock). */
static bool pass_baton(VM *vm, VmScheduler *s, VMThread *self) {
    if (s->collector) {
        VMThread *holder = next_for_collection(vm, s);
        new_slice(s);
        hand_baton(s, holder);
        if (holder && holder != self) pthread_cond_signal(&holder->sched->wake);
        return true; /* the threads out in handlers come back */
    }
    VMThread *next = next_runnable(vm, self);
    while (!next) {
        bool parked;
        uint64_t deadline = earliest_deadline(vm, &parked);
        if (!deadline && !parked) return false;
        if (!deadline || !s->seeded) break; /* timed threads wake themselves; an agent resumes */
        fold_clock(s);
        if (deadline > s->logical_us) s->logical_us = deadline;
        wake_due(vm, s);
        next = next_runnable(vm, self);
    }
    new_slice(s);
    hand_baton(s, next);
    if (next && next != self) pthread_cond_signal(&next->sched->wake);
    return true;
}

/* The baton holder's, after the baton changed hands: the allocation
 * countdown (gc/event_port.h, for heap sampling) was the last thread's, so
 * the next allocation goes out of line and counts this one's. */
static void baton_changed_hands(void) {
    if (gc_alloc_event_countdown != GC_ALLOC_EVENT_NEVER) gc_alloc_event_countdown = GC_ALLOC_EVENT_ALWAYS;
}

/* Waits until `self` holds the baton.  Without --seed a timed thread
 * wakes itself at its deadline: it becomes runnable, and takes the baton
 * if nobody holds it. */
static void await_baton(VmScheduler *s, VMThread *self) {
    VmThreadSched *me = self->sched;
    while (s->running != self) {
        bool timed = !s->seeded && me->deadline_us != 0;
        if (!timed) {
            pthread_cond_wait(&me->wake, &s->lock);
            continue;
        }
        struct timespec until = {.tv_sec = (time_t)(me->deadline_us / 1000000u),
                                 .tv_nsec = (long)(me->deadline_us % 1000000u) * 1000};
        pthread_cond_timedwait(&me->wake, &s->lock, &until);
        if (s->running == self || monotonic_us() < me->deadline_us) continue;
        VmThreadState state = state_of(self);
        if (state == VM_THREAD_SLEEPING || state == VM_THREAD_WAITING) wake_unnotified(self);
        if (!s->running && !s->collector && !s->lender && state_of(self) == VM_THREAD_RUNNABLE) s->running = self;
    }
    baton_changed_hands();
}

/* Gives the baton away in `state` (with a deadline if timeout_us > 0)
 * and returns holding it again. */
static bool block(VMThread *self, VmThreadState state, uint64_t timeout_us) {
    VM *vm = self->vm;
    VmScheduler *s = scheduler_of(self);
    pthread_mutex_lock(&s->lock);
    self->sched->woke_unnotified = false;
    self->sched->deadline_us = timeout_us ? vm_thread_clock_us(vm) + timeout_us : 0;
    arrive_at_safepoint(s, self);
    set_state(self, state);
    if (!pass_baton(vm, s, self)) {
        pthread_mutex_unlock(&s->lock);
        vm_runtime_errorf(self, "deadlock: every thread is blocked");
    }
    await_baton(s, self);
    bool unnotified = self->sched->woke_unnotified;
    pthread_mutex_unlock(&s->lock);
    return unnotified;
}

bool vm_thread_block(VMThread *thread, VmThreadState state, int64_t timeout_ms) {
    return block(thread, state, timeout_ms > 0 ? (uint64_t)timeout_ms * 1000u : 0);
}

void vm_thread_wake(VMThread *thread) {
    VmScheduler *s = thread->vm->scheduler;
    pthread_mutex_lock(&s->lock);
    thread->sched->deadline_us = 0;
    set_state(thread, VM_THREAD_RUNNABLE);
    pthread_mutex_unlock(&s->lock);
}

bool vm_thread_transition(VMThread *thread, VmThreadState from, VmThreadState to) {
    VmScheduler *s = thread->vm->scheduler;
    pthread_mutex_lock(&s->lock);
    bool moved = state_of(thread) == from;
    if (moved) {
        thread->sched->deadline_us = 0;
        set_state(thread, to);
    }
    pthread_mutex_unlock(&s->lock);
    return moved;
}

VmMonitorWait *vm_thread_monitor_wait(VMThread *thread) {
    scheduler_of(thread);
    return &thread->sched->monitor;
}

void vm_thread_tick(VMThread *thread) {
    VmScheduler *s = thread->vm->scheduler;
    /* A poll that came out of line for another request has not counted
     * itself yet (safepoint.h, vm_safepoint_due). */
    if (vm_slice_polls_left > 0 && --vm_slice_polls_left > 0) return;
    pthread_mutex_lock(&s->lock);
    arrive_at_safepoint(s, thread);
    wake_due(thread->vm, s);
    pass_baton(thread->vm, s, thread); /* `thread` is runnable: never a deadlock */
    await_baton(s, thread);
    pthread_mutex_unlock(&s->lock);
}

/* vmpi_serve_suspension_handing_off's hooks: the baton goes to another
 * thread while `thread` is parked, and comes back once it is resumed. */
static void release_for_park(void *arg) {
    VMThread *thread = arg;
    VmScheduler *s = thread->vm->scheduler;
    pthread_mutex_lock(&s->lock);
    arrive_at_safepoint(s, thread);
    set_state(thread, VM_THREAD_PARKED);
    pass_baton(thread->vm, s, thread); /* a parked thread may be resumed: never a deadlock */
    pthread_mutex_unlock(&s->lock);
}

static void reacquire_after_park(void *arg) {
    VMThread *thread = arg;
    VmScheduler *s = thread->vm->scheduler;
    pthread_mutex_lock(&s->lock);
    set_state(thread, VM_THREAD_RUNNABLE);
    if (!s->running && !s->collector && !s->lender) s->running = thread;
    await_baton(s, thread);
    pthread_mutex_unlock(&s->lock);
}

void vm_thread_serve_suspension(VMThread *thread) {
    if (!thread->vm->scheduler) {
        vmpi_serve_suspension(thread);
        return;
    }
    vmpi_serve_suspension_handing_off(thread, release_for_park, reacquire_after_park, thread);
}

/* ---- agents' handlers outside the VM (scheduler.h) ------------------------------ */

/* A thread out in a handler that waits to borrow the baton, or NULL. */
static VMThread *waiting_borrower(const VM *vm) {
    for (uint32_t i = 0; i < vm->num_threads; i++) {
        VMThread *t = vm->threads[i];
        if (t->sched && t->sched->borrowing && state_of(t) == VM_THREAD_RUNNABLE) return t;
    }
    return NULL;
}

/* Whether `thread`, holding the baton, keeps it while its handlers run:
 * when a spinner waits for it but this thread has had it only a few polls
 * since it was handed over (HANDOFF_AFTER_POLLS), and no other thread is in
 * a handler, where it could call for the VM (borrow_baton) and this
 * handler wait on it. */
static bool keeps_for_handler(const VmScheduler *s, const VMThread *thread, uint32_t polls) {
    if (!s->spinner || polls - s->handed_at >= HANDOFF_AFTER_POLLS) return false;
    const VM *vm = thread->vm;
    for (uint32_t i = 0; i < vm->num_threads; i++) {
        const VMThread *t = vm->threads[i];
        if (t == thread || !t->sched) continue;
        if (t->sched->borrowing || state_of(t) == VM_THREAD_IN_HANDLER) return false;
    }
    return true;
}

bool vm_thread_leave_for_handler(VMThread *thread) {
    VmScheduler *s = thread->vm->scheduler;
    if (!s || s->seeded || !thread->vm->concurrent_handlers || !thread->sched) return false;
    /* refcount's immediate mode frees on the program thread that drops a
     * last reference, in a collection that does not wait for handlers. */
    if (thread->vm->gc->counts_roots) return false;
    pthread_mutex_lock(&s->lock);
    uint32_t polls = s->slice_polls - vm_slice_polls_left;
    bool leaves = s->running == thread && !s->collector && !keeps_for_handler(s, thread, polls);
    if (leaves) {
        if (!thread->sched->outside) s->outside++;
        thread->sched->outside = true;
        set_state(thread, VM_THREAD_IN_HANDLER);
        /* A thread back from a handler, or borrowing the VM for a call in
         * one, gets the baton at once: this handler may wait for it; a
         * borrower first, then the one spinning for it, which costs no
         * futex wake.  Else
         * waking another thread costs a futex wake now and a wait when the
         * handler is done: it is done only when one waits for the baton and
         * this thread has had it for LEAVE_AFTER_POLLS polls of its slice,
         * so an event-heavy thread hands over about once in so many polls.
         * Otherwise the baton is left free: a thread that wants it meanwhile
         * (a handler's call that needs the VM, a sleeper whose time is up)
         * takes it, and this one takes it back after, if still free. */
        VMThread *returning = waiting_borrower(thread->vm);
        if (!returning) returning = s->spinner ? s->spinner : thread_coming_back(thread->vm);
        if (returning) {
            s->handed_at = polls;
            hand_baton(s, returning);
            pthread_cond_signal(&returning->sched->wake);
        } else if (polls >= LEAVE_AFTER_POLLS && next_runnable(thread->vm, thread)) {
            pass_baton(thread->vm, s, thread); /* it comes back: never a deadlock */
        } else {
            s->running = NULL;
        }
    }
    pthread_mutex_unlock(&s->lock);
    return leaves;
}

static void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Whether `thread`, back from a handler, may take a free baton. */
static bool may_take_free_baton(const VmScheduler *s, const VMThread *thread) {
    return !s->running && (!s->lender || thread->sched->borrowing);
}

/* Without the lock: `thread`, the spinner, back from a handler while
 * another holds the baton, watches for it a while before it sleeps.  The
 * holder is likely to leave for a handler of its own soon (an allocating
 * thread does every few dozen instructions), and then it hands the baton
 * to the spinner (vm_thread_leave_for_handler) with no futex wake and no
 * wait: sleeping at once would cost both, each handler, every time two
 * threads take turns.  One thread spins at a time, so the spinning takes
 * at most one core from the others.  True if handed the baton: the
 * acquire pairs with the holder's store, so what the holder did before it
 * is seen, as after taking the lock. */
static bool spin_for_baton(VmScheduler *s, VMThread *thread) {
    uint64_t until = monotonic_us() + SPIN_US;
    for (uint32_t round = 1;; round++) {
        VMThread *holder = atomic_load_explicit(&s->running, memory_order_acquire);
        if (holder == thread) return true;
        if (!holder || (round % 64 == 0 && monotonic_us() >= until)) return false;
        cpu_relax();
    }
}

/* For the thread that holds the baton again: a collector may wait
 * meanwhile, and then it runs only the polls up to its next safepoint. */
static void back_in_vm(VmScheduler *s) {
    if (atomic_load(&s->collector)) s->slice_polls = vm_slice_polls_left = 1;
}

/* `thread`, out in a handler, waits for the baton, to return or to borrow
 * it for a call; with the lock taken and let go of here.  Handed it while
 * spinning, it goes on without taking the lock again, which the thread
 * that handed it over is likely to want at that very moment. */
static void come_back(VmScheduler *s, VMThread *thread, bool borrowing) {
    pthread_mutex_lock(&s->lock);
    thread->sched->borrowing = borrowing;
    set_state(thread, VM_THREAD_RUNNABLE);
    if (may_take_free_baton(s, thread)) s->running = thread;
    if (s->running != thread && !s->spinner) {
        s->spinner = thread;
        pthread_mutex_unlock(&s->lock);
        if (spin_for_baton(s, thread)) {
            baton_changed_hands();
            back_in_vm(s);
            return;
        }
        pthread_mutex_lock(&s->lock);
        if (s->spinner == thread) s->spinner = NULL;
        if (may_take_free_baton(s, thread)) s->running = thread;
    }
    await_baton(s, thread);
    back_in_vm(s);
    pthread_mutex_unlock(&s->lock);
}

void vm_thread_return_from_handler(VMThread *thread) { come_back(thread->vm->scheduler, thread, false); }

void vm_thread_borrow_baton(VMThread *thread) { come_back(thread->vm->scheduler, thread, true); }

/* With the lock held: hands a lent baton to the next borrower, else leaves
 * it free for a borrower or the lender. */
static void pass_lent_baton(VmScheduler *s, VM *vm) {
    hand_baton(s, waiting_borrower(vm));
    if (s->running) pthread_cond_signal(&s->running->sched->wake);
    else if (s->lender) pthread_cond_signal(&s->lender->sched->wake);
}

void vm_thread_lend_baton_back(VMThread *thread) {
    VmScheduler *s = thread->vm->scheduler;
    pthread_mutex_lock(&s->lock);
    thread->sched->borrowing = false;
    set_state(thread, VM_THREAD_IN_HANDLER);
    if (s->lender) pass_lent_baton(s, thread->vm);
    else pass_baton(thread->vm, s, thread);
    pthread_mutex_unlock(&s->lock);
}

bool vm_thread_lend_while_blocked(VMThread *thread) {
    VmScheduler *s = thread->vm->scheduler;
    if (!s || s->seeded || !thread->vm->concurrent_handlers || !thread->sched) return false;
    pthread_mutex_lock(&s->lock);
    bool lends = s->running == thread && !s->lender;
    if (lends) {
        s->lender = thread;
        pass_lent_baton(s, thread->vm);
    }
    pthread_mutex_unlock(&s->lock);
    return lends;
}

void vm_thread_take_back_after_block(VMThread *thread) {
    VmScheduler *s = thread->vm->scheduler;
    pthread_mutex_lock(&s->lock);
    while (s->running != thread) {
        if (!s->running) s->running = thread;
        else pthread_cond_wait(&thread->sched->wake, &s->lock);
    }
    s->lender = NULL;
    pthread_mutex_unlock(&s->lock);
}

void vm_thread_stop_for_collection(VMThread *thread) {
    VmScheduler *s = thread ? thread->vm->scheduler : NULL;
    if (!s || s->seeded || !thread->vm->concurrent_handlers || !thread->sched) return;
    pthread_mutex_lock(&s->lock);
    /* Where a collection may start is a safepoint for this thread too. */
    arrive_at_safepoint(s, thread);
    while (s->outside > 0 || (s->collector && s->collector != thread)) {
        /* Another holder waits to collect: this one came back from a
         * handler and waits at this safepoint until that one has. */
        if (!s->collector) s->collector = thread;
        pass_baton(thread->vm, s, thread);
        await_baton(s, thread);
        if (s->collector == thread && s->outside == 0) break;
    }
    if (s->collector == thread) s->collector = NULL;
    pthread_mutex_unlock(&s->lock);
}

/* ---- starting, joining, sleeping, ending --------------------------------------- */

VMThread *vm_thread_of_object(const VM *vm, const Obj *object) {
    uint64_t index = *obj_prim_field((Obj *)object, 0);
    if (index >= vm->num_threads || vm->threads[index]->object != object) return NULL;
    return vm->threads[index];
}

/* `thread`'s Thread handle, allocated by the running thread `allocator`. */
static void make_object(VMThread *thread, VMThread *allocator) {
    VM *vm = thread->vm;
    Obj *object = vm_alloc(allocator, &vm->thread_class, 0);
    uint32_t index = 0;
    while (vm->threads[index] != thread) index++;
    *obj_prim_field(object, 0) = index;
    gc_write_root(vm->gc, &thread->object, object);
}

void vm_thread_make_object(VMThread *thread) { make_object(thread, thread); }

/* An ended thread's stacks are only reserved address space, but a program
 * may start many threads: it gives them back (so does a system thread,
 * which never has frames). */
static void release_stacks(VMThread *thread) {
    free(thread->pstack);
    free(thread->rstack);
    free(thread->frames);
    thread->pstack = thread->ptop = thread->pstack_end = NULL;
    thread->rstack = thread->rtop = thread->rstack_end = NULL;
    thread->frames = NULL;
}

VMThread *vm_thread_add_system(VMThread *creator, const char *name) {
    char *own_name = strdup(name);
    VMThread *thread = own_name ? vm_thread_new(creator->vm, own_name) : NULL;
    if (!thread) {
        free(own_name);
        return NULL;
    }
    thread->system_name = own_name;
    thread->parent = creator;
    release_stacks(thread);
    thread->max_depth = 0;
    vm_link_thread_class(creator->vm);
    make_object(thread, creator);
    return thread;
}

static void *run_started_thread(void *arg) {
    VMThread *thread = arg;
    VmScheduler *s = thread->vm->scheduler;
    vm_set_current_thread(thread);
    pthread_mutex_lock(&s->lock);
    await_baton(s, thread);
    pthread_mutex_unlock(&s->lock);
    thread->sched->unannounced = false;
    vmpi_post_thread_start(thread);
    vm_run_entry(thread, thread->sched->entry);
    vm_thread_finish(thread);
    return NULL;
}

VMThread *vm_thread_start(VMThread *parent, const LinkedMethod *entry) {
#ifdef GCLAB_WASM
    /* One OS thread per VM thread, and a page has none to give (docs/lab.md). */
    vm_runtime_errorf(parent, "this build (WebAssembly, in a browser) runs no threads but main: a thread cannot start");
#endif
    VM *vm = parent->vm;
    VmScheduler *s = scheduler_of(parent);
    if (!parent->object) vm_thread_make_object(parent);
    VMThread *child = vm_thread_new(vm, NULL);
    if (child) child->sched = new_sched_record();
    if (!child || !child->sched) vm_runtime_errorf(parent, "out of memory starting a thread");
    /* Not runnable until it is counted live: the OBJECT_ALLOC of its
     * handle may give the baton away (vm_thread_leave_for_handler). */
    set_state(child, VM_THREAD_NEW);
    child->parent = parent;
    child->sched->entry = entry;
    child->sched->unannounced = true;
    /* The arguments move from the parent's stacks to the child's; the name
     * stays on the parent's, above them, until the interpreter pops it. */
    Obj **name_slot = parent->rtop - 1;
    Obj **ref_args = name_slot - entry->num_ref_args;
    memcpy(child->rstack, ref_args, entry->num_ref_args * sizeof *ref_args);
    if (vm->gc->counts_roots) /* on both stacks until the interpreter pops the parent's */
        for (uint32_t i = 0; i < entry->num_ref_args; i++) gc_root_gained(vm->gc, ref_args[i]);
    memcpy(child->pstack, parent->ptop - entry->num_prim_args, entry->num_prim_args * sizeof *child->pstack);
    child->rtop = child->rstack + entry->num_ref_args;
    child->ptop = child->pstack + entry->num_prim_args;
    const Obj *name = *name_slot;
    size_t len = name ? name->length : 0;
    child->sched->name = malloc(len + sizeof "thread-4294967295");
    if (!child->sched->name) vm_runtime_errorf(parent, "out of memory starting a thread");
    if (name) {
        memcpy(child->sched->name, str_chars(name), len);
        child->sched->name[len] = '\0';
    } else {
        sprintf(child->sched->name, "thread-%u", child->id);
    }
    child->name = child->sched->name;
    vm_thread_make_object(child);
    pthread_mutex_lock(&s->lock);
    s->live++;
    set_state(child, VM_THREAD_RUNNABLE);
    pthread_mutex_unlock(&s->lock);
    vm_request(VM_REQUEST_SCHEDULE);
    vmpi_threads_overlap(true);
    if (pthread_create(&child->sched->os_thread, NULL, run_started_thread, child) != 0)
        vm_runtime_errorf(parent, "cannot create an OS thread for a new thread");
    child->sched->has_os_thread = true;
    return child;
}

void vm_thread_join(VMThread *thread, const Obj *target_object) {
    VMThread *target = vm_thread_of_object(thread->vm, target_object);
    if (target == thread) vm_runtime_errorf(thread, "a thread cannot join itself");
    if (!target || !target->sched || state_of(target) == VM_THREAD_ENDED) return;
    thread->sched->join_target = target;
    block(thread, VM_THREAD_JOINING, 0);
}

static void sleep_for(VMThread *thread, int64_t ms) {
    if (vm_thread_is_interrupted(thread)) return;
    if (!thread->vm->scheduler) {
        /* Alone: nobody to hand the baton to, only time to let pass. */
        if (ms <= 0) return;
        if (thread->vm->seeded) return; /* the logical clock jumps */
        struct timespec span = {.tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000};
        while (nanosleep(&span, &span) != 0 && !vm_stop_requested()) {}
        return;
    }
    if (ms <= 0) {
        vm_thread_yield(thread);
        return;
    }
    block(thread, VM_THREAD_SLEEPING, (uint64_t)ms * 1000u);
}

/* JVMPI 1.2, MONITOR_WAIT and MONITOR_WAITED: "NULL indicates the thread
 * is in Thread.sleep"; the timeout is the sleep's, then the time slept. */
void vm_thread_sleep(VMThread *thread, int64_t ms) {
    vmpi_post_MONITOR_WAIT(thread, NULL, ms);
    uint64_t began = vm_thread_clock_us(thread->vm);
    sleep_for(thread, ms);
    if (VMPI_IS_ENABLED(MONITOR_WAITED)) {
        int64_t slept_ms = (int64_t)((vm_thread_clock_us(thread->vm) - began) / 1000u);
        vmpi_send_MONITOR_WAITED(thread, NULL, slept_ms);
    }
}

void vm_thread_yield(VMThread *thread) {
    VmScheduler *s = thread->vm->scheduler;
    pthread_mutex_lock(&s->lock);
    arrive_at_safepoint(s, thread);
    pass_baton(thread->vm, s, thread);
    await_baton(s, thread);
    pthread_mutex_unlock(&s->lock);
}

/* ---- interrupts ------------------------------------------------------------------ */

void vm_thread_interrupt(VMThread *thread, const Obj *target_object) {
    VMThread *target = vm_thread_of_object(thread->vm, target_object);
    if (!target || !target->sched) return;
    VmScheduler *s = thread->vm->scheduler;
    pthread_mutex_lock(&s->lock);
    VmThreadState state = state_of(target);
    if (state != VM_THREAD_ENDED) atomic_store(&target->sched->interrupted, true);
    if (state == VM_THREAD_SLEEPING || state == VM_THREAD_WAITING) wake_unnotified(target);
    pthread_mutex_unlock(&s->lock);
}

bool vm_thread_interrupted(VMThread *thread) {
    return thread->sched && atomic_exchange(&thread->sched->interrupted, false);
}

bool vm_thread_is_interrupted(const VMThread *thread) {
    return thread->sched && atomic_load(&thread->sched->interrupted);
}

bool vm_thread_announced(const VMThread *thread) { return !thread->sched || !thread->sched->unannounced; }

/* With the lock held: makes runnable the threads that wait for `ended`
 * (and main, waiting for every thread, when only it is left). */
static void wake_joiners(VM *vm, VmScheduler *s, const VMThread *ended) {
    for (uint32_t i = 0; i < vm->num_threads; i++) {
        VMThread *t = vm->threads[i];
        if (!t->sched || state_of(t) != VM_THREAD_JOINING) continue;
        if (t->sched->join_target == ended || (t->sched->join_target == NULL && s->live == 1))
            set_state(t, VM_THREAD_RUNNABLE);
    }
}

void vm_thread_finish(VMThread *thread) {
    VM *vm = thread->vm;
    VmScheduler *s = vm->scheduler;
    if (!thread->parent) {
        /* main: the program ends with its last thread. */
        if (s && s->live > 1) {
            thread->sched->join_target = NULL;
            block(thread, VM_THREAD_JOINING, 0);
        }
        vm_thread_end(thread);
        return;
    }
    vm_monitors_release(thread);
    vm_thread_end(thread);
    release_stacks(thread);
    pthread_mutex_lock(&s->lock);
    arrive_at_safepoint(s, thread);
    set_state(thread, VM_THREAD_ENDED);
    s->live--;
    if (s->live == 1) {
        atomic_fetch_and(&vm_pending_requests, ~(uint32_t)VM_REQUEST_SCHEDULE);
        vmpi_threads_overlap(false);
    }
    wake_joiners(vm, s, thread);
    if (!pass_baton(vm, s, thread)) {
        /* Every thread left waits forever: report it in the one that waits. */
        fprintf(stderr, "error: deadlock: every thread is blocked\n");
        pthread_mutex_unlock(&s->lock);
        vm_exit(vm, 1);
    }
    pthread_mutex_unlock(&s->lock);
}

void vm_scheduler_free(VM *vm) {
    VmScheduler *s = vm->scheduler;
    if (!s) return;
    for (uint32_t i = 0; i < vm->num_threads; i++) {
        VmThreadSched *record = vm->threads[i]->sched;
        if (!record) continue;
        if (record->has_os_thread) pthread_join(record->os_thread, NULL);
        pthread_cond_destroy(&record->wake);
        free(record->name);
        free(record);
        vm->threads[i]->sched = NULL;
    }
    pthread_mutex_destroy(&s->lock);
    free(s);
    vm->scheduler = NULL;
}
