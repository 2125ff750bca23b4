/* trace_threads.h -- the thread numbers of the trace formats
 * (docs/trace-format.md): the i-th thread whose THREAD_START was written
 * is thread i + 1; 0 is none, or any other thread (the GC thread, an
 * agent's own).  One table, kept by whoever writes a trace -- the trace
 * agent and the VM's recorder, whose files must be the same byte for
 * byte.  Not locked: the writer's lock covers it. */
#ifndef GCLAB_TRACE_THREADS_H
#define GCLAB_TRACE_THREADS_H

#include <stdint.h>

#include "vmpi.h"

#define TRACE_MAX_THREADS 1024

typedef struct TraceThreads {
    VMPI_ThreadID envs[TRACE_MAX_THREADS]; /* thread number i + 1 */
    uint32_t count;
    /* The thread of the last event: runs of events come from one thread. */
    VMPI_ThreadID last_env;
    uint32_t last_number;
} TraceThreads;

static inline uint32_t trace_threads_find(const TraceThreads *threads, VMPI_ThreadID env) {
    if (!env) return 0;
    for (uint32_t i = 0; i < threads->count; i++)
        if (threads->envs[i] == env) return i + 1;
    return 0;
}

/* Before `event` is written: a THREAD_START numbers its thread, the first
 * time that thread is seen. */
static inline void trace_threads_note(TraceThreads *threads, const VMPI_Event *event) {
    if ((event->event_type & ~VMPI_REQUESTED_EVENT) != VMPI_EVENT_THREAD_START) return;
    VMPI_ThreadID started = event->u.thread_start.thread_env_id;
    if (threads->count < TRACE_MAX_THREADS && !trace_threads_find(threads, started))
        threads->envs[threads->count++] = started;
}

/* The number of the thread an event came on. */
static inline uint32_t trace_thread_number(TraceThreads *threads, VMPI_ThreadID env) {
    if (env != threads->last_env || !threads->last_number) {
        threads->last_env = env;
        threads->last_number = trace_threads_find(threads, env);
    }
    return threads->last_number;
}

#endif
