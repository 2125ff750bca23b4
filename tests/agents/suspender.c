/*
 * suspender.c -- a test agent for real thread suspension (SuspendThread,
 * ResumeThread, ThreadHasRun, GetThreadStatus; vmpi/runtime/threads.c).  A system
 * thread suspends the program's main thread and checks, on stderr:
 *
 *   suspender: first safepoint: status=suspended has_run=0 frames=N stable
 *   suspender: resumed: status=runnable has_run=1
 *   suspender: running: K suspensions, every trace stable, has_run 0 while suspended, 1 after
 *   suspender: done
 *
 * First, main waits in JVM_INIT_DONE until its own status shows the system
 * thread's suspension, so that it parks at its very first safepoint: the
 * test does not depend on scheduling.  Then, while the program runs (a long
 * one, binary_trees with a large depth, so that suspensions also land
 * during collections), it suspends main K times at whatever safepoint main
 * reaches next.  While suspended, main's call trace, read twice a little
 * apart, must be the same, and ThreadHasRun false; after ResumeThread,
 * ThreadHasRun must become true.  Last, it suspends main for good and ends
 * the VM with ProfilerExit(0) from the system thread, main parked.
 *
 * With the option "at_exit", nothing of that: at JVM_SHUT_DOWN, the thread
 * shutting down starts a system thread that suspends main, which will never
 * reach a safepoint again -- it has ended, or (after a runtime error) it is
 * the one inside JVM_SHUT_DOWN.  SuspendThread must give up rather than
 * hang:
 *
 *   suspender: at exit: SuspendThread returned, status=runnable
 *
 * A step that waits gives up after about ten seconds and says so.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "vmpi.h"

#define SUSPENSIONS 20
#define MAX_FRAMES 64

static VMPI_Interface *vmpi;
static VMPI_ThreadID main_env;
static atomic_bool at_exit_done;

static void pause_ms(long ms) {
    struct timespec delay = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&delay, NULL);
}

static bool suspended(void) { return vmpi->GetThreadStatus(main_env) & VMPI_THREAD_SUSPENDED; }

/* main's trace now, into frames. */
static int32_t trace_of_main(VMPI_CallFrame *frames) {
    VMPI_CallTrace trace = {.env_id = main_env, .frames = frames};
    vmpi->GetCallTrace(&trace, MAX_FRAMES);
    return trace.num_frames;
}

/* Reads main's trace twice, 2 ms apart; its depth if the two are the same
 * and not empty, else -1. */
static int32_t stable_trace(void) {
    VMPI_CallFrame first[MAX_FRAMES], second[MAX_FRAMES];
    int32_t n = trace_of_main(first);
    pause_ms(2);
    int32_t m = trace_of_main(second);
    if (n <= 0 || n != m) return -1;
    for (int32_t i = 0; i < n; i++)
        if (first[i].method_id != second[i].method_id || first[i].lineno != second[i].lineno) return -1;
    return n;
}

/* Waits up to about ten seconds for main to have run; whether it did. */
static bool wait_until_main_ran(void) {
    for (int i = 0; i < 10000; i++) {
        if (vmpi->ThreadHasRun(main_env)) return true;
        pause_ms(1);
    }
    return false;
}

static void first_safepoint(void) {
    vmpi->SuspendThread(main_env);
    int32_t frames = stable_trace();
    fprintf(stderr, "suspender: first safepoint: status=%s has_run=%d frames=%d %s\n",
            suspended() ? "suspended" : "runnable", (int)vmpi->ThreadHasRun(main_env), (int)frames,
            frames > 0 ? "stable" : "unstable");
    vmpi->ResumeThread(main_env);
    bool ran = wait_until_main_ran();
    fprintf(stderr, "suspender: resumed: status=%s has_run=%d\n", suspended() ? "suspended" : "runnable", ran);
}

static void while_running(void) {
    int stable = 0, not_run = 0, ran_after = 0;
    for (int i = 0; i < SUSPENSIONS; i++) {
        pause_ms(5);
        vmpi->SuspendThread(main_env);
        if (!suspended()) break; /* main ended: the program was too short */
        if (stable_trace() > 0) stable++;
        if (!vmpi->ThreadHasRun(main_env)) not_run++;
        vmpi->ResumeThread(main_env);
        if (wait_until_main_ran()) ran_after++;
    }
    if (stable == SUSPENSIONS && not_run == SUSPENSIONS && ran_after == SUSPENSIONS)
        fprintf(stderr, "suspender: running: %d suspensions, every trace stable, has_run 0 while suspended, 1 after\n",
                SUSPENSIONS);
    else
        fprintf(stderr, "suspender: running: of %d suspensions, %d stable traces, %d has_run 0 while suspended, "
                        "%d has_run 1 after\n", SUSPENSIONS, stable, not_run, ran_after);
}

static void sampler(void *arg) {
    (void)arg;
    first_safepoint();
    while_running();
    vmpi->SuspendThread(main_env);
    fprintf(stderr, "suspender: done\n");
    vmpi->ProfilerExit(suspended() ? 0 : 3);
}

static void suspend_at_exit(void *arg) {
    (void)arg;
    vmpi->SuspendThread(main_env);
    fprintf(stderr, "suspender: at exit: SuspendThread returned, status=%s\n",
            suspended() ? "suspended" : "runnable");
    atomic_store(&at_exit_done, true);
}

static bool exit_mode;

static void notify_event(VMPI_Event *event) {
    if (event->event_type == VMPI_EVENT_JVM_INIT_DONE) {
        main_env = event->env_id;
        if (exit_mode) return;
        if (vmpi->CreateSystemThread("suspender", 0, sampler) != VMPI_OK) {
            fprintf(stderr, "suspender: CreateSystemThread failed\n");
            return;
        }
        for (int i = 0; i < 10000 && !suspended(); i++) pause_ms(1);
        if (!suspended()) fprintf(stderr, "suspender: the system thread did not suspend main\n");
    } else if (event->event_type == VMPI_EVENT_JVM_SHUT_DOWN) {
        if (vmpi->CreateSystemThread("suspender", 0, suspend_at_exit) != VMPI_OK) {
            fprintf(stderr, "suspender: CreateSystemThread failed\n");
            return;
        }
        for (int i = 0; i < 10000 && !atomic_load(&at_exit_done); i++) pause_ms(1);
        if (!atomic_load(&at_exit_done)) fprintf(stderr, "suspender: at exit: SuspendThread hangs\n");
    }
}

int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)reserved;
    if (vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1) != VMPI_OK) return VMPI_ERR;
    exit_mode = options && strcmp(options, "at_exit") == 0;
    vmpi->NotifyEvent = notify_event;
    if (exit_mode && vmpi->EnableEvent(VMPI_EVENT_JVM_SHUT_DOWN, NULL) != VMPI_OK) return VMPI_ERR;
    return vmpi->EnableEvent(VMPI_EVENT_JVM_INIT_DONE, NULL);
}
