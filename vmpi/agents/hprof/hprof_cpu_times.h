/*
 * hprof_cpu_times.h -- hprof's cpu=times: exact call counts and the thread
 * CPU time spent in each method, by the call trace that entered it (the
 * HPROF agent manual, "CPU Usage Times Profiling (cpu=times)").
 *
 * Every thread keeps a shadow stack of the calls it is in: METHOD_ENTRY
 * pushes a call (its trace, the time it started), METHOD_EXIT pops it and
 * charges the trace with the call's self time, its time less that of the
 * calls it made.  A trace's count is the number of entries made under it,
 * so a call still on the stack at JVM_SHUT_DOWN is counted, and its time
 * runs up to the exit (hprof_cpu_times_close).  A runtime error ends the
 * VM without METHOD_EXITs for the frames it leaves: they are closed the
 * same way.
 *
 * Invariant: the sum of the self times charged equals the time the
 * outermost calls took.  Costs are indexed by trace number (the traces are
 * hprof_sites.h's, shared with heap=sites), so entering a method costs a
 * GetCallTrace, a trace lookup and two clock reads; memory is only taken
 * for a new trace or a deeper stack than any before.
 */
#ifndef GCLAB_HPROF_CPU_TIMES_H
#define GCLAB_HPROF_CPU_TIMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hprof_sites.h"
#include "vmpi.h"

typedef struct HprofCall {
    VMPI_MethodID method_id;
    uint32_t trace;       /* index into HprofSites.traces */
    int64_t start;        /* thread CPU time (ns) when entered */
    int64_t callees;      /* time (ns) spent in the calls it made */
} HprofCall;

typedef struct HprofThreadCalls {
    VMPI_ThreadID env;
    HprofCall *calls;
    size_t depth, capacity;
    int64_t last_time;    /* the thread's CPU time at its last event */
} HprofThreadCalls;

typedef struct HprofCost {
    uint64_t count;       /* entries under the trace */
    int64_t self_time;    /* ns */
    int64_t total_time;   /* ns, the calls' own and their callees' (cpu=old) */
} HprofCost;

typedef struct HprofCpuTimes {
    HprofThreadCalls *threads;
    size_t num_threads;
    HprofCost *costs;     /* by trace index; costs_capacity entries */
    size_t costs_capacity;
    uint64_t lost;        /* entries not recorded for want of memory */
} HprofCpuTimes;


/* METHOD_ENTRY on thread `env`, entered under `trace` (an index into the
 * sites' traces, UINT32_MAX if it could not be recorded), at CPU time `now`. */
void hprof_cpu_times_enter(HprofCpuTimes *c, VMPI_ThreadID env, VMPI_MethodID method, uint32_t trace,
                           int64_t now);

/* cpu=samples (hprof_cpu_samples.h) keeps its counts here too: one sample
 * under `trace` counts as an entry that took one unit of time, so that the
 * rows rank traces by samples. */
void hprof_cpu_times_sample(HprofCpuTimes *c, uint32_t trace);

/* METHOD_EXIT of `method` on thread `env` at CPU time `now`. */
void hprof_cpu_times_exit(HprofCpuTimes *c, VMPI_ThreadID env, VMPI_MethodID method, int64_t now);

/* At JVM_SHUT_DOWN, on thread `env` at CPU time `now`: every call still on
 * a stack ends, the other threads' at their last event. */
void hprof_cpu_times_close(HprofCpuTimes *c, VMPI_ThreadID env, int64_t now);

/* The method of `env`'s innermost call, NULL if it is in none (cpu=old:
 * the caller of the method being entered). */
VMPI_MethodID hprof_cpu_times_caller(const HprofCpuTimes *c, VMPI_ThreadID env);

/* DATA_RESET_REQUEST, or the front end's "clear CPU sampling", on thread
 * `env` at CPU time `now`: every count and time starts again from zero, and
 * a call on a stack is charged only its time from now on (the other
 * threads' from their last event). */
void hprof_cpu_times_reset(HprofCpuTimes *c, VMPI_ThreadID env, int64_t now);

/* One row of the CPU TIME table. */
typedef struct HprofCpuRow {
    uint32_t trace;
    uint64_t count;
    int64_t self_time, total_time;
} HprofCpuRow;

/* The traces entered, by self time (then trace number), in *rows (to
 * free); their number, or -1 if memory ran out.  *total is the sum of the
 * self times (ns). */
ptrdiff_t hprof_cpu_times_rows(const HprofCpuTimes *c, size_t num_traces, HprofCpuRow **rows, int64_t *total);

#endif
