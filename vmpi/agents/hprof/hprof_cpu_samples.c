/*
 * hprof_cpu_samples.c -- the cpu=samples sampler thread (see
 * hprof_cpu_samples.h).
 */
#include "hprof_cpu_samples.h"

#include <stdlib.h>

/* The sampler its thread runs: CreateSystemThread passes no argument. */
static HprofSampler *running;

bool hprof_sampler_init(HprofSampler *s, VMPI_Interface *vmpi, AgentLock *lock, int32_t interval_ms, int32_t depth,
                        HprofSampleRecorder record) {
    *s = (HprofSampler){.vmpi = vmpi, .lock = lock, .interval_ms = interval_ms, .depth = depth, .record = record};
    s->frames = calloc((size_t)depth + 1, sizeof *s->frames);
    s->control = vmpi->RawMonitorCreate("_hprof_sampler");
    return s->frames && s->control;
}

/* Grows *items to hold at least `needed` thread IDs. */
static bool reserve(VMPI_ThreadID **items, size_t *capacity, size_t needed) {
    if (needed <= *capacity) return true;
    size_t cap = *capacity ? 2 * *capacity : 8;
    while (cap < needed) cap *= 2;
    VMPI_ThreadID *grown = realloc(*items, cap * sizeof *grown);
    if (!grown) return false;
    *items = grown;
    *capacity = cap;
    return true;
}

bool hprof_sampler_thread_start(HprofSampler *s, VMPI_ThreadID env) {
    if (!reserve(&s->live, &s->live_capacity, s->num_live + 1)) return false;
    s->live[s->num_live++] = env;
    return true;
}

void hprof_sampler_thread_end(HprofSampler *s, VMPI_ThreadID env) {
    for (size_t i = 0; i < s->num_live; i++)
        if (s->live[i] == env) {
            s->live[i] = s->live[--s->num_live];
            return;
        }
}

/* The threads to sample now, copied into to_sample; how many. */
static size_t threads_to_sample(HprofSampler *s) {
    s->vmpi->RawMonitorEnter(s->lock->monitor);
    size_t n = reserve(&s->to_sample, &s->to_sample_capacity, s->num_live) ? s->num_live : 0;
    for (size_t i = 0; i < n; i++) s->to_sample[i] = s->live[i];
    s->vmpi->RawMonitorExit(s->lock->monitor);
    return n;
}

static void set_suspending(HprofSampler *s, VMPI_ThreadID env) {
    s->vmpi->RawMonitorEnter(s->control);
    s->suspending = env;
    s->vmpi->RawMonitorExit(s->control);
}

/* One round: each thread suspended, traced, resumed, then counted. */
static void sample_threads(HprofSampler *s) {
    VMPI_Interface *vmpi = s->vmpi;
    size_t n = threads_to_sample(s);
    for (size_t i = 0; i < n; i++) {
        VMPI_ThreadID env = s->to_sample[i];
        /* A blocked thread (join, sleep, wait, a contended monitor) uses no
         * CPU, and reaches no safepoint to be suspended at until it runs
         * again: the round would stall on it. */
        if (vmpi->GetThreadStatus(env) != VMPI_THREAD_RUNNABLE) continue;
        set_suspending(s, env);
        vmpi->SuspendThread(env);
        bool suspended = vmpi->GetThreadStatus(env) & VMPI_THREAD_SUSPENDED; /* not if it ended, the VM is
                                                                             * exiting or the unstaller gave up */
        VMPI_CallTrace trace = {.env_id = env, .frames = s->frames};
        if (suspended) vmpi->GetCallTrace(&trace, s->depth);
        vmpi->ResumeThread(env);
        set_suspending(s, NULL);
        if (!suspended) continue;
        vmpi->RawMonitorEnter(s->lock->monitor);
        s->record(env, &trace);
        s->samples++;
        vmpi->RawMonitorExit(s->lock->monitor);
    }
}

/* The loop of both system threads: `act` every interval, without
 * `control`, until the sampler is stopped.  Returns with `control` held. */
static void each_interval(HprofSampler *s, void (*act)(HprofSampler *s)) {
    VMPI_Interface *vmpi = s->vmpi;
    vmpi->RawMonitorEnter(s->control);
    while (s->state == HPROF_SAMPLER_RUNNING) {
        vmpi->RawMonitorWait(s->control, s->interval_ms); /* woken early by a stop */
        if (s->state != HPROF_SAMPLER_RUNNING) break;
        vmpi->RawMonitorExit(s->control);
        act(s);
        vmpi->RawMonitorEnter(s->control);
    }
}

static void sampler_thread(void *arg) {
    (void)arg;
    HprofSampler *s = running;
    each_interval(s, sample_threads);
    s->state = HPROF_SAMPLER_STOPPED;
    s->vmpi->RawMonitorNotifyAll(s->control);
    s->vmpi->RawMonitorExit(s->control);
}

/* If the sampler is suspending a thread that has blocked meanwhile (not
 * runnable, so it reaches no safepoint until it runs again), gives that
 * suspension up with ResumeThread, which makes SuspendThread return
 * (vmpi/runtime/threads.c).  A parked thread counts as runnable, so a suspension
 * that succeeded is left alone. */
static void unstall(HprofSampler *s) {
    VMPI_Interface *vmpi = s->vmpi;
    vmpi->RawMonitorEnter(s->control);
    VMPI_ThreadID target = s->suspending;
    vmpi->RawMonitorExit(s->control);
    if (!target) return;
    int32_t status = vmpi->GetThreadStatus(target) & ~(VMPI_THREAD_SUSPENDED | VMPI_THREAD_INTERRUPTED);
    if (status != VMPI_THREAD_RUNNABLE) vmpi->ResumeThread(target);
}

static void unstaller_thread(void *arg) {
    (void)arg;
    HprofSampler *s = running;
    each_interval(s, unstall);
    s->unstaller_running = false;
    s->vmpi->RawMonitorNotifyAll(s->control);
    s->vmpi->RawMonitorExit(s->control);
}

bool hprof_sampler_start(HprofSampler *s) {
    running = s;
    s->state = HPROF_SAMPLER_RUNNING;
    if (s->vmpi->CreateSystemThread("hprof sampler", 0, sampler_thread) != VMPI_OK) {
        s->state = HPROF_SAMPLER_IDLE;
        return false;
    }
    /* Without it the sampler still samples, but a round may wait for a
     * thread that blocked as it was being suspended. */
    s->unstaller_running = s->vmpi->CreateSystemThread("hprof sampler unstaller", 0, unstaller_thread) == VMPI_OK;
    return true;
}

void hprof_sampler_stop(HprofSampler *s, bool in_gc) {
    VMPI_Interface *vmpi = s->vmpi;
    if (!s->control) return;
    vmpi->RawMonitorEnter(s->control);
    if (s->state == HPROF_SAMPLER_RUNNING) {
        s->state = HPROF_SAMPLER_STOPPING;
        vmpi->RawMonitorNotifyAll(s->control);
    }
    /* In a collection the agent's lock stays held: a sampler waiting for it
     * never stops, and is given a moment to park there for good before the
     * VM unloads the agent. */
    if (in_gc && s->state == HPROF_SAMPLER_STOPPING) vmpi->RawMonitorWait(s->control, 100);
    while (!in_gc && (s->state == HPROF_SAMPLER_STOPPING || s->unstaller_running))
        vmpi->RawMonitorWait(s->control, 0);
    vmpi->RawMonitorExit(s->control);
}
