/*
 * scheduler.h -- threads in the language: starting, joining, sleeping,
 * blocking on monitors, and which VM thread runs (scheduler.c says how).
 *
 * Every function here is called by the running thread, the one that holds
 * the baton, with its state saved (the interpreter's OUT_OF_LINE): it may
 * give the baton away and get it back before it returns, and meanwhile
 * other threads run, collect and move objects.  So callers re-read every
 * object from its root slot afterwards.
 */
#ifndef GCLAB_INTERP_SCHEDULER_H
#define GCLAB_INTERP_SCHEDULER_H

#include <stdbool.h>
#include <stdint.h>

#include "vm/vm.h"

/* Where a thread is, for the scheduler and GetThreadStatus. */
typedef enum VmThreadState {
    VM_THREAD_NEW,          /* started, not yet counted live: not to be handed the baton */
    VM_THREAD_RUNNABLE,     /* running, or ready to run when handed the baton */
    VM_THREAD_JOINING,      /* waiting for another thread to end */
    VM_THREAD_SLEEPING,     /* sleep(ms) */
    VM_THREAD_ENTERING,     /* waiting to enter a monitor another thread owns */
    VM_THREAD_WAITING,      /* wait(o) or wait(o, ms), until notified or timed out */
    VM_THREAD_PARKED,       /* suspended by an agent (vmpi_serve_suspension) */
    VM_THREAD_IN_HANDLER,   /* in an agent's handler, the baton given away
                               (vm_thread_leave_for_handler); to agents runnable,
                               as a JVM thread in native code */
    VM_THREAD_ENDED,
} VmThreadState;

/* START: a new thread that will run `entry`.  Its arguments, and above
 * them the thread's name (a string, or null for "thread-N"), are the top
 * of `parent`'s stacks; the arguments are copied to the new thread's
 * stacks and the caller pops them all.  Returns the new thread; its Thread
 * handle is thread->object.  The new thread runs when the scheduler hands
 * it the baton; the parent goes on. */
VMThread *vm_thread_start(VMThread *parent, const LinkedMethod *entry);

/* Makes `thread`'s Thread handle (main's, at the first START). */
void vm_thread_make_object(VMThread *thread);

/* An agent's system thread (JVMPI 1.2 CreateSystemThread), added by
 * `creator`, the running thread: a thread of the VM named `name` (copied)
 * whose parent is `creator`, with a Thread handle allocated on creator's
 * behalf, a root like every thread's.  It runs no bytecode: it has no
 * stacks and no scheduler record, so the scheduler never hands it the
 * baton and a collection or safepoint never waits for it.  NULL if out of
 * memory. */
VMThread *vm_thread_add_system(VMThread *creator, const char *name);

/* Passes the baton to the next runnable thread, if any (sleep(0)). */
void vm_thread_yield(VMThread *thread);

/* Moves `thread` from state `from` to `to` if it is still in `from` (a
 * timed wait may have ended meanwhile); true if it moved. */
bool vm_thread_transition(VMThread *thread, VmThreadState from, VmThreadState to);

/* monitor.c's per-thread record (monitor.h); makes the scheduler if the
 * program has none yet. */
struct VmMonitorWait *vm_thread_monitor_wait(VMThread *thread);

/* ---- agents' handlers outside the VM (docs/architecture.md "Threads") ----------
 * Without --seed or --one-at-a-time, a program thread that holds
 * the baton gives it away while agents' handlers run for an event it
 * posts, so that other threads run and their handlers overlap.  No
 * collection starts while such a thread is out: the event's object IDs
 * stay valid (JVMPI sends them with GC disabled), and what the posting
 * code holds in C locals stays where it is until the thread is back at a
 * safepoint. */

/* Gives the baton away for a handler; false (the handler then runs with
 * the baton held, and GC disabled) under --seed, with one thread, while a
 * collection waits, or if `thread` does not hold the baton. */
bool vm_thread_leave_for_handler(VMThread *thread);
/* After the handler: takes the baton back.  If a collection waits, the
 * thread runs only to its next safepoint, then the collector goes on. */
void vm_thread_return_from_handler(VMThread *thread);
/* A call from a handler run outside that needs the VM still (RequestEvent,
 * EnableEvent, another thread's state): takes the baton for the call, and
 * gives it back after. */
void vm_thread_borrow_baton(VMThread *thread);
void vm_thread_lend_baton_back(VMThread *thread);
/* A handler that keeps the VM (a monitor event's that waits, an event
 * posted while a collection waits, a collector's event on a program
 * thread) blocks entering a raw monitor, which a handler outside the VM
 * may hold while it waits to borrow the baton: the holder lends the baton
 * to such borrowers, and to nobody else, until it has the monitor
 * (vm_thread_take_back_after_block).  As a JVM thread in an agent's native
 * code does not hold up a safepoint.  False (nothing lent) if `thread` does
 * not hold the baton or another lends it already. */
bool vm_thread_lend_while_blocked(VMThread *thread);
void vm_thread_take_back_after_block(VMThread *thread);
/* Called by the baton holder, at a point where a collection may run,
 * before it collects: returns, holding the baton, once no thread is out in
 * a handler and every thread that came back has reached a safepoint. */
void vm_thread_stop_for_collection(VMThread *thread);

/* Joins the OS threads of ended threads and frees the scheduler (vm_destroy). */
void vm_scheduler_free(VM *vm);

/* JOIN: returns when `target` (a Thread handle, not null) has ended. */
void vm_thread_join(VMThread *thread, const Obj *target);

/* SLEEP: gives the baton away for `ms` milliseconds (of the logical clock
 * under --seed); 0 or less only yields.  Returns early if interrupted, at
 * once if the interrupted flag is set. */
void vm_thread_sleep(VMThread *thread, int64_t ms);

/* Blocks `thread` in `state` (ENTERING or WAITING) until another thread
 * makes it runnable (vm_thread_wake) or, if `timeout_ms` > 0, that time has
 * passed, or (WAITING) it is interrupted.  Returns true if it woke by the
 * time or an interrupt rather than by vm_thread_wake. */
bool vm_thread_block(VMThread *thread, VmThreadState state, int64_t timeout_ms);

/* INTERRUPT: sets the interrupted flag of the thread behind `target` (a
 * Thread handle, not null) and, if it sleeps or waits, makes it runnable
 * (a waiter enters the monitor again before wait returns).  A thread that
 * has ended, or is joining or entering a monitor, is not woken. */
void vm_thread_interrupt(VMThread *thread, const Obj *target);

/* INTERRUPTED: the running thread's interrupted flag, which it clears. */
bool vm_thread_interrupted(VMThread *thread);

/* Whether the flag is set, leaving it (wait, and GetThreadStatus from
 * agent threads). */
bool vm_thread_is_interrupted(const VMThread *thread);

/* Whether agents know `thread`: false for a thread started that has not
 * yet run, and so not yet posted its THREAD_START (JVMPI 1.2, THREAD_START:
 * a thread's ID means nothing to an agent before it). */
bool vm_thread_announced(const VMThread *thread);

/* Makes a blocked thread runnable; it runs when next handed the baton. */
void vm_thread_wake(VMThread *thread);

/* Now on the clock sleeps and timed waits use, in microseconds: logical
 * under --seed (scheduler.c), CLOCK_MONOTONIC otherwise. */
uint64_t vm_thread_clock_us(const VM *vm);

/* The thread's state, read by agent threads too (GetThreadStatus). */
VmThreadState vm_thread_state(const VMThread *thread);

/* A safepoint while other threads live (VM_REQUEST_SCHEDULE): counts the
 * running thread's time slice down and passes the baton at its end. */
void vm_thread_tick(VMThread *thread);

/* A safepoint that serves an agent's SuspendThread: the thread parks in
 * vmpi_serve_suspension without the baton, so the others keep running. */
void vm_thread_serve_suspension(VMThread *thread);

/* The running thread's function has returned: THREAD_END, wakes its
 * joiners and passes the baton on for good.  For main, first waits until
 * every other thread has ended (the program ends with its last thread). */
void vm_thread_finish(VMThread *thread);

/* The Thread handle of the thread `thread` (main's is made at the first
 * START), and the thread behind a handle. */
VMThread *vm_thread_of_object(const VM *vm, const Obj *object);

#endif
