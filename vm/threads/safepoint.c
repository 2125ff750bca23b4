/*
 * safepoint.c -- serving requests at safepoints (safepoint.h), and the
 * signal handlers that post them.
 *
 * The first SIGINT or SIGTERM only asks the VM to stop: the running thread
 * stops at its next safepoint, posts JVM_SHUT_DOWN through vm_exit so every
 * agent flushes and closes its files, and exits 128 + the signal (130, 143),
 * as a shell reports a process the signal killed.  A second signal exits at
 * once from the handler, with only async-signal-safe calls: for a VM stuck
 * where no safepoint comes (an agent's endless loop).
 *
 * The handlers are installed without SA_RESTART, so a program blocked in a
 * write (stdout into a pipe nobody reads) gets EINTR and its print path
 * serves the stop (vm_output_failed).
 *
 * SIGQUIT and SIGUSR2 never end the program (docs/architecture.md,
 * "Signals").  SIGQUIT asks for a data dump, as a JVM's thread dump: at the
 * next safepoint the VM prints the running thread's stack trace on stderr
 * and posts DATA_DUMP_REQUEST to the agents that enabled it (JVMPI 1.2,
 * DATA_DUMP_REQUEST; hprof dumps its profile there).  SIGUSR2 posts
 * DATA_RESET_REQUEST.  Their handlers only set a request bit; each request
 * is served once per safepoint however many signals came before it, and is
 * lost if the program ends first.  They are installed with SA_RESTART, so
 * that a write they interrupt goes on instead of failing.
 *
 * VM_REQUEST_SUSPEND comes from an agent's system thread calling
 * SuspendThread (vmpi/runtime/threads.c): the thread serves it last, by parking in
 * vmpi_serve_suspension until it is resumed.  A safepoint is the only place
 * a thread parks: its frames are saved and no collection is under way.
 */
#include "safepoint.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vmpi/post.h"
#include "vm/internal.h"
#include "scheduler.h"

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "a signal handler posts requests with a lock-free atomic");

_Atomic uint32_t vm_pending_requests;

/* The signal a VM_REQUEST_STOP is for, set before the request is posted. */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig) {
    if (atomic_load(&vm_pending_requests) & VM_REQUEST_STOP) {
        static const char message[] = "vmrun: second signal: exiting without shutting down agents\n";
        ssize_t ignored = write(STDERR_FILENO, message, sizeof message - 1);
        (void)ignored;
        _exit(128 + sig);
    }
    stop_signal = sig;
    atomic_fetch_or(&vm_pending_requests, VM_REQUEST_STOP);
}

/* A signal the VM was started with ignored stays ignored (as in HotSpot and
 * the shell's rule for `nohup` and background jobs). */
static bool install_stop_handler(int sig, const struct sigaction *action) {
    struct sigaction old;
    if (sigaction(sig, NULL, &old) != 0) return false;
    return old.sa_handler == SIG_IGN || sigaction(sig, action, NULL) == 0;
}

static void on_data_signal(int sig) {
    atomic_fetch_or(&vm_pending_requests, sig == SIGQUIT ? VM_REQUEST_DATA_DUMP : VM_REQUEST_DATA_RESET);
}

bool vm_install_signal_handlers(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    sigaddset(&action.sa_mask, SIGINT);
    sigaddset(&action.sa_mask, SIGTERM);
    action.sa_flags = 0; /* no SA_RESTART: a blocked write returns EINTR */
    if (!install_stop_handler(SIGINT, &action) || !install_stop_handler(SIGTERM, &action)) return false;
    action.sa_handler = on_data_signal;
    action.sa_flags = SA_RESTART;
    return install_stop_handler(SIGQUIT, &action) && install_stop_handler(SIGUSR2, &action);
}

bool vm_stop_requested(void) {
    return atomic_load_explicit(&vm_pending_requests, memory_order_relaxed) & VM_REQUEST_STOP;
}

bool vm_safepoint(VMThread *thread) {
    uint32_t pending = atomic_load(&vm_pending_requests);
    if (pending & VM_REQUEST_STOP) {
        int sig = stop_signal;
        fprintf(stderr, "vmrun: stopped by %s\n", sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal");
        vm_exit(thread->vm, 128 + sig);
    }
    /* Cleared before they are served: a signal that comes meanwhile asks again. */
    uint32_t data = atomic_fetch_and(&vm_pending_requests,
                                     ~(uint32_t)(VM_REQUEST_DATA_DUMP | VM_REQUEST_DATA_RESET | VM_REQUEST_DISPATCH |
                                                 VM_REQUEST_AGENT_DATA_DUMP | VM_REQUEST_SUSPEND |
                                                 VM_REQUEST_RUN_GC | VM_REQUEST_HOLD));
    if (data & VM_REQUEST_DATA_DUMP) {
        fprintf(stderr, "vmrun: SIGQUIT: stack trace of thread %s\n", thread->name);
        vm_print_stack_trace(thread);
        vmpi_post_DATA_DUMP_REQUEST(NULL);
    }
    if (data & VM_REQUEST_DATA_RESET) vmpi_post_DATA_RESET_REQUEST(NULL);
    if (data & VM_REQUEST_AGENT_DATA_DUMP) vmpi_send_requested_data_dumps();
    /* After the data dumps: an agent thread asks for them, then for a
     * collection, in the order it wants them. */
    if (data & VM_REQUEST_RUN_GC) vmpi_serve_requested_gc();
    if (data & VM_REQUEST_HOLD) {
        vm_thread_stop_for_collection(thread); /* the threads in handlers first */
        vmpi_serve_hold();
    }
    /* Last, so that a suspended thread has served everything else; a
     * thread that passes the baton on meets the rest when it has it again. */
    if (data & VM_REQUEST_SUSPEND) vm_thread_serve_suspension(thread);
    if (pending & VM_REQUEST_SCHEDULE) vm_thread_tick(thread);
    return (data & VM_REQUEST_DISPATCH) != 0;
}
