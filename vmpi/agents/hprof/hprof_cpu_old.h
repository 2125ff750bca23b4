/*
 * hprof_cpu_old.h -- hprof's cpu=old: the older HPROF's `prof`-style method
 * timing, one line per pair of methods that called each other,
 *
 *     count callee caller time
 *     1 fib.main <unknown caller> 412
 *     1 fib.fib fib.main 412
 *     465 fib.fib fib.fib 1903
 *
 * the number of calls of `callee` made from `caller`, and the thread CPU
 * time those calls took in milliseconds, their callees' included (so a
 * recursive method's time counts once per level it is on the stack), as
 * the JVMTI HPROF writes it for cpu=old (the HPROF agent manual names the
 * option; this is its source's "old prof" layout).  A thread's outermost
 * call has no caller: `<unknown caller>`.
 *
 * The calls are timed as cpu=times times them (hprof_cpu_times.h, the same
 * shadow stacks from METHOD_ENTRY and METHOD_EXIT), but charged to a pair
 * instead of a trace: no call trace is taken.  Invariant: pairs[i] is the
 * i-th pair first called, and its costs are HprofCpuTimes.costs[i].
 */
#ifndef GCLAB_HPROF_CPU_OLD_H
#define GCLAB_HPROF_CPU_OLD_H

#include <stddef.h>
#include <stdint.h>

#include "hprof_cpu_times.h"
#include "vmpi.h"

typedef struct HprofCallPair {
    VMPI_MethodID callee, caller; /* caller NULL: the thread's outermost call */
} HprofCallPair;

typedef struct HprofCpuOld {
    HprofCallPair *pairs;
    size_t num_pairs, capacity;
} HprofCpuOld;


/* The index of the pair, added if new; UINT32_MAX if memory ran out.  A
 * program's call graph has few edges, so a pair is looked up by a scan
 * from the last one added (recursion and loops repeat the recent ones). */
uint32_t hprof_cpu_old_pair(HprofCpuOld *o, VMPI_MethodID callee, VMPI_MethodID caller);

/* The pairs called, by count (then by first call), with their counts and
 * times, in *rows (to free); their number, or -1 if memory ran out. */
ptrdiff_t hprof_cpu_old_rows(const HprofCpuOld *o, const HprofCpuTimes *costs, HprofCpuRow **rows);

#endif
