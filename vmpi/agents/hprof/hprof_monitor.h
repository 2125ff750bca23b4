/*
 * hprof_monitor.h -- hprof's monitor=y: the monitor sections of the JDK's
 * HPROF text output (the HPROF agent manual names them under "monitor
 * contention"; the layout is its source's):
 *
 *   MONITOR DUMP BEGIN
 *       THREAD 200001, trace 300002, status: R
 *       RAW MONITOR "held"(0x55d0c3a1e2b0)
 *   	owner: thread 200001, entry count: 2
 *   	waiting to enter: <agent thread>
 *   	waiting to be notified:
 *       RAW MONITOR "free"(0x55d0c3a1e340) unowned
 *   	waiting to enter:
 *   	waiting to be notified:
 *   MONITOR DUMP END
 *
 *   MONITOR TIME BEGIN (total = 12 ms) DATE
 *   rank   self  accum   count trace monitor
 *      1 100.00% 100.00%       1 300003 held (Raw)
 *   MONITOR TIME END
 *
 * MONITOR DUMP is read from a MONITOR_DUMP (JVMPI 1.2 section 4.4, as
 * vmpi/monitor_dump.c builds it), requested at each dump: every VM thread
 * with the TRACE of its stack and its status (R runnable, MW monitor wait,
 * CW condition wait, with "S|" when suspended and "intr|" when
 * interrupted), then every raw monitor with its owner, entry count and
 * waiters.  gclab's language has no monitors yet, so raw monitors are all
 * there is; those named with a leading '_' are agents' private locks
 * (hprof's own among them) and are left out, as their contention events
 * are.  A thread that is not a VM thread (an agent's system thread) has no
 * number: `<agent thread>`.
 *
 * MONITOR TIME is built from RAW_MONITOR_CONTENDED_ENTER and _ENTERED: the
 * time (wall clock) a thread waited to enter a monitor another thread held,
 * charged to the monitor and the TRACE of the waiting thread (empty for an
 * agent thread), ranked by time, cut at `cutoff`; `total` is the sum in
 * milliseconds, and the column header is written when there is a row.
 *
 * Invariant: `contentions` holds one entry per (monitor, trace) that waited
 * at least once; a thread's wait starts at its CONTENDED_ENTER (kept per OS
 * thread: agent threads share the NULL thread ID) and is charged at its
 * CONTENDED_ENTERED.
 */
#ifndef GCLAB_HPROF_MONITOR_H
#define GCLAB_HPROF_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/trace_output.h"
#include "vmpi.h"

typedef struct HprofContention {
    VMPI_RawMonitor id;
    char *name;
    uint32_t trace;       /* the waiting thread's, as an index into the sites' traces */
    uint64_t count;
    int64_t time;         /* ns waited */
} HprofContention;

/* The number of `trace` of thread `env` as a TRACE record (its index into
 * the sites' traces), UINT32_MAX if it could not be recorded; and a
 * thread's number in THREAD records, 0 if none. */
typedef uint32_t (*HprofTraceIndex)(VMPI_ThreadID env, const VMPI_CallTrace *trace);
typedef uint32_t (*HprofThreadNumber)(VMPI_ThreadID env);

typedef struct HprofMonitors {
    HprofContention *contentions;
    size_t num_contentions, capacity;
    char *dump_text;      /* the last MONITOR DUMP's lines, or NULL */
    size_t dump_len;
    bool failed;          /* out of memory, or a malformed dump */
} HprofMonitors;

void hprof_monitors_free(HprofMonitors *m);

/* RAW_MONITOR_CONTENDED_ENTER: the calling thread starts waiting. */
void hprof_monitor_contended_enter(void);

/* RAW_MONITOR_CONTENDED_ENTERED: the calling thread's wait, charged to the
 * monitor and `trace` (UINT32_MAX: not recorded, the profile is failed). */
void hprof_monitor_contended_entered(HprofMonitors *m, const VMPI_Event *event, uint32_t trace);

/* A MONITOR_DUMP, read into text. */
void hprof_monitor_read_dump(HprofMonitors *m, const VMPI_Event *event, HprofTraceIndex trace_index,
                             HprofThreadNumber thread_number);

/* Both sections: the last dump read (empty if none), and the times so far;
 * TRACE numbers are HPROF_FIRST_TRACE + index.  False, with nothing
 * written, if out of memory. */
bool hprof_monitors_write(const HprofMonitors *m, TraceOutput *out, const char *date, double cutoff);

#endif
