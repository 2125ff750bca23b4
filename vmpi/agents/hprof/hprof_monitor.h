/*
 * hprof_monitor.h -- hprof's monitor=y: the monitor sections of the JDK's
 * HPROF text output (the HPROF agent manual names them under "monitor
 * contention"; the layout is its source's):
 *
 *   MONITOR DUMP BEGIN
 *       THREAD 200001, trace 300002, status: R
 *       THREAD 200002, trace 300005, status: MW
 *       MONITOR Counter(0x300040000078)
 *   	owner: thread 200001, entry count: 2
 *   	waiting to enter: thread 200002
 *   	waiting to be notified:
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
 *      1 75.00% 75.00%     310 300004 Counter (Java)
 *      2 25.00% 100.00%       1 300003 held (Raw)
 *   MONITOR TIME END
 *
 * MONITOR DUMP is read from a MONITOR_DUMP (JVMPI 1.2 section 4.4, as
 * vmpi/runtime/monitor_dump.c builds it), requested at each dump: every live VM
 * thread with the TRACE of its stack and its status (R runnable, MW
 * monitor wait, CW condition wait, with "S|" when suspended and "intr|"
 * when interrupted; a thread that has ended is left out, though the VM
 * keeps its record), then every monitor of the language in use, named by
 * its object's class and ID, and every raw monitor, each with its owner,
 * entry count and waiters (waiting to enter, then waiting to be notified).
 * Raw monitors named with a leading '_' are agents' private locks (hprof's
 * own among them) and are left out, as their contention events are.  A
 * thread that is not a VM thread (an agent's system thread) has no number:
 * `<agent thread>`.
 *
 * MONITOR TIME is built from the contention events: from
 * MONITOR_CONTENDED_ENTER (RAW_MONITOR_CONTENDED_ENTER) to _ENTERED, the
 * time (wall clock) a thread waited to enter a monitor another thread held,
 * and from MONITOR_WAIT to MONITOR_WAITED the time it waited to be
 * notified (or for its timeout), as JDK hprof counts a wait as a hit of
 * its monitor.  Each is charged to the monitor -- a raw monitor by its
 * name, "(Raw)", a monitor of the language by its object's class, "(Java)",
 * as JDK hprof keys them (objects move, classes do not) -- and to the TRACE
 * of the waiting thread (empty for an agent thread), which tells an entry
 * (the synchronized line) from a wait (the wait call's line).  Rows are
 * ranked by time, cut at `cutoff`; `total` is the sum in milliseconds, and
 * the column header is written when there is a row.
 *
 * Invariant: `contentions` holds one entry per (monitor, trace) that waited
 * at least once; a thread's wait starts at its CONTENDED_ENTER or WAIT
 * (kept per OS thread: each VM thread has its own, and agent threads share
 * the NULL thread ID) and is charged at its CONTENDED_ENTERED or WAITED.
 */
#ifndef GCLAB_HPROF_MONITOR_H
#define GCLAB_HPROF_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/trace_output.h"
#include "vmpi.h"

typedef struct HprofContention {
    VMPI_RawMonitor id;   /* NULL: a monitor of the language */
    char *name;           /* the raw monitor's, or the object's class's */
    uint32_t trace;       /* the waiting thread's, as an index into the sites' traces */
    uint64_t count;
    int64_t time;         /* ns waited */
} HprofContention;

/* The number of `trace` of thread `env` as a TRACE record (its index into
 * the sites' traces), UINT32_MAX if it could not be recorded; and a
 * thread's number in THREAD records, 0 if none. */
typedef uint32_t (*HprofTraceIndex)(VMPI_ThreadID env, const VMPI_CallTrace *trace);
typedef uint32_t (*HprofThreadNumber)(VMPI_ThreadID env);

/* The name of an object's class, NULL if it cannot be learnt (with GC
 * disabled: the object ID stays valid). */
typedef const char *(*HprofObjectClassName)(void *object);

typedef struct HprofMonitors {
    HprofContention *contentions;
    size_t num_contentions, capacity;
    char *dump_text;      /* the last MONITOR DUMP's lines, or NULL */
    size_t dump_len;
    bool failed;          /* out of memory, or a malformed dump */
} HprofMonitors;


/* RAW_MONITOR_CONTENDED_ENTER, MONITOR_CONTENDED_ENTER or MONITOR_WAIT:
 * the calling thread starts waiting. */
void hprof_monitor_contended_enter(void);

/* RAW_MONITOR_CONTENDED_ENTERED: the calling thread's wait, charged to the
 * monitor and `trace` (UINT32_MAX: not recorded, the profile is failed). */
void hprof_monitor_contended_entered(HprofMonitors *m, const VMPI_Event *event, uint32_t trace);

/* MONITOR_CONTENDED_ENTERED or MONITOR_WAITED: the same for a monitor of
 * the language, on an object of class `class_name` (NULL: unknown, the
 * profile is failed). */
void hprof_monitor_java_waited(HprofMonitors *m, const char *class_name, uint32_t trace);

/* A MONITOR_DUMP, read into text: threads whose live_thread_number is 0
 * are left out; owners and waiters are named by thread_number. */
void hprof_monitor_read_dump(HprofMonitors *m, const VMPI_Event *event, HprofTraceIndex trace_index,
                             HprofThreadNumber thread_number, HprofThreadNumber live_thread_number,
                             HprofObjectClassName object_class);

/* Both sections: the last dump read (empty if none), and the times so far;
 * TRACE numbers are HPROF_FIRST_TRACE + index.  False, with nothing
 * written, if out of memory. */
bool hprof_monitors_write(const HprofMonitors *m, TraceOutput *out, const char *date, double cutoff);

#endif
