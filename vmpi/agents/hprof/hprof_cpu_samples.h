/*
 * hprof_cpu_samples.h -- hprof's cpu=samples: a system thread that, every
 * `interval` milliseconds, suspends each runnable VM thread in turn, takes
 * its call trace, resumes it and hands the trace to the agent to count (the
 * HPROF agent manual, "CPU Usage Sampling Profiles (cpu=samples)": "the
 * stack of all running threads").  A thread blocked in join, sleep, wait or
 * a contended monitor is skipped, as JDK hprof skips threads that are not
 * runnable: it uses no CPU, and would not reach a safepoint to be
 * suspended at before it runs again (docs/architecture.md, "Threads").
 * A runnable thread waiting for the scheduler's baton is sampled where it
 * stopped: it parks once it has the baton.  A thread can still block
 * between the sampler's look at it and its safepoint (main calling join
 * right after starting its threads); SuspendThread would then wait until
 * it runs again, and the sampler with it.  A second system thread, the
 * unstaller, looks every interval and gives such a suspension up
 * (ResumeThread): that thread is not sampled in that round.
 *
 * The sampler runs on an agent system thread (CreateSystemThread), started
 * at JVM_INIT_DONE and stopped at JVM_SHUT_DOWN before the profile is
 * written.  It reads a thread's stack only while the thread is parked at a
 * safepoint (SuspendThread returns then; vmpi/runtime/threads.c), so the trace is
 * whole; it holds no lock while it suspends, and takes the agent's lock
 * only to copy the list of threads and to count a trace, after resuming:
 * a thread waiting for that lock could otherwise never reach its safepoint.
 * A thread that ends or a VM that shuts down while a SuspendThread waits
 * makes it give up; that thread is simply not sampled then.
 *
 * Invariant: `live` lists the threads started and not ended (THREAD_START
 * and THREAD_END, under the agent's lock); `state` (under `control`) is
 * RUNNING exactly while the sampler thread may still sample;
 * `suspending` (under `control`) is the thread the sampler is suspending
 * or has suspended, NULL between two; `unstaller_running` (under
 * `control`) is true until the unstaller has left its loop.
 */
#ifndef GCLAB_HPROF_CPU_SAMPLES_H
#define GCLAB_HPROF_CPU_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/agent_common.h"
#include "vmpi.h"

typedef enum HprofSamplerState {
    HPROF_SAMPLER_IDLE,     /* not started */
    HPROF_SAMPLER_RUNNING,
    HPROF_SAMPLER_STOPPING, /* asked to stop; its thread has not yet */
    HPROF_SAMPLER_STOPPED,  /* its thread has ended its loop: no more samples */
} HprofSamplerState;

/* Counts one trace of thread `env`; called on the sampler thread with the
 * agent's lock held and the thread resumed. */
typedef void (*HprofSampleRecorder)(VMPI_ThreadID env, VMPI_CallTrace *trace);

typedef struct HprofSampler {
    VMPI_Interface *vmpi;
    AgentLock *lock;                /* the agent's */
    int32_t interval_ms, depth;
    HprofSampleRecorder record;
    VMPI_RawMonitor control;        /* guards state; the sampler sleeps on it */
    HprofSamplerState state;
    VMPI_ThreadID suspending;       /* under control */
    bool unstaller_running;         /* under control */
    VMPI_ThreadID *live;            /* under the agent's lock */
    size_t num_live, live_capacity;
    VMPI_ThreadID *to_sample;       /* the sampler's copy of `live` */
    size_t to_sample_capacity;
    VMPI_CallFrame *frames;         /* depth frames */
    uint64_t samples;               /* traces taken */
} HprofSampler;

/* False if out of memory. */
bool hprof_sampler_init(HprofSampler *s, VMPI_Interface *vmpi, AgentLock *lock, int32_t interval_ms, int32_t depth,
                        HprofSampleRecorder record);

/* THREAD_START and THREAD_END, under the agent's lock.  False if out of
 * memory: the thread will not be sampled. */
bool hprof_sampler_thread_start(HprofSampler *s, VMPI_ThreadID env);
void hprof_sampler_thread_end(HprofSampler *s, VMPI_ThreadID env);

/* At JVM_INIT_DONE: starts the sampler thread.  False if it could not be
 * created. */
bool hprof_sampler_start(HprofSampler *s);

/* At JVM_SHUT_DOWN, without the agent's lock: stops the sampler and waits
 * until its thread has taken its last sample and the unstaller has
 * stopped -- or, if `in_gc` (the VM is
 * exiting from inside a collection, where the agent's lock stays held and
 * the sampler may wait for it for good), at most 100 ms. */
void hprof_sampler_stop(HprofSampler *s, bool in_gc);

#endif
