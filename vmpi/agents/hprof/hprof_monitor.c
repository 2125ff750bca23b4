/*
 * hprof_monitor.c -- monitor=y: the MONITOR DUMP and MONITOR TIME sections
 * (see hprof_monitor.h).
 */
#define _GNU_SOURCE /* open_memstream, with -std=c11 */
#include "hprof_monitor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/dump_reader.h"
#include "common/grow.h"
#include "hprof_sites.h"

/* ---- MONITOR TIME ------------------------------------------------------------------ */

/* When this OS thread started waiting for a monitor (ns, monotonic). */
static _Thread_local int64_t waiting_since;

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

void hprof_monitor_contended_enter(void) { waiting_since = now_ns(); }

/* A raw monitor is its ID (id NULL: a monitor of the language, which is its
 * class's name). */
static bool same_monitor(const HprofContention *c, VMPI_RawMonitor id, const char *name) {
    return c->id == id && (id || strcmp(c->name, name) == 0);
}

static HprofContention *contention(HprofMonitors *m, VMPI_RawMonitor id, const char *name, uint32_t trace) {
    if (!name) name = "";
    for (size_t i = 0; i < m->num_contentions; i++)
        if (m->contentions[i].trace == trace && same_monitor(&m->contentions[i], id, name)) return &m->contentions[i];
    if (!agent_grow((void **)&m->contentions, &m->capacity, m->num_contentions + 1, sizeof *m->contentions, 16))
        return NULL;
    char *copy = strdup(name);
    if (!copy) return NULL;
    m->contentions[m->num_contentions] = (HprofContention){.id = id, .name = copy, .trace = trace};
    return &m->contentions[m->num_contentions++];
}

/* The calling thread's wait, which started at hprof_monitor_contended_enter,
 * charged to the monitor and trace. */
static void charge(HprofMonitors *m, VMPI_RawMonitor id, const char *name, uint32_t trace) {
    int64_t waited = now_ns() - waiting_since;
    HprofContention *c = trace == UINT32_MAX ? NULL : contention(m, id, name, trace);
    if (!c) {
        m->failed = true;
        return;
    }
    c->count++;
    c->time += waited > 0 ? waited : 0;
}

void hprof_monitor_contended_entered(HprofMonitors *m, const VMPI_Event *event, uint32_t trace) {
    charge(m, event->u.raw_monitor.id, event->u.raw_monitor.name, trace);
}

void hprof_monitor_java_waited(HprofMonitors *m, const char *class_name, uint32_t trace) {
    if (!class_name) m->failed = true; /* the object's class could not be learnt */
    else charge(m, NULL, class_name, trace);
}

/* ---- MONITOR DUMP -------------------------------------------------------------------- */

static void *take_pointer(DumpReader *r) { return (void *)(uintptr_t)dump_take_id(r); }

/* text NULL: a record read and not written. */
static void write_thread(FILE *text, VMPI_ThreadID env, HprofThreadNumber thread_number) {
    if (!text) return;
    uint32_t number = env ? thread_number(env) : 0;
    if (number) fprintf(text, "thread %u", number);
    else fputs("<agent thread>", text);
}

/* "\tLABEL: thread 200002, <agent thread>" from a count and that many IDs. */
static void write_waiters(FILE *text, DumpReader *r, const char *label, HprofThreadNumber thread_number) {
    if (text) fprintf(text, "\t%s:", label);
    uint32_t n = dump_take_u4(r);
    for (uint32_t i = 0; i < n && !r->overrun; i++) {
        if (text) fputs(i ? ", " : " ", text);
        write_thread(text, take_pointer(r), thread_number);
    }
    if (text) fputc('\n', text);
}

/* A monitor's owner line, for an owned one. */
static void write_owner(FILE *out, VMPI_ThreadID owner, uint32_t entries, HprofThreadNumber thread_number) {
    if (!entries) return;
    fputs("\towner: ", out);
    write_thread(out, owner, thread_number);
    fprintf(out, ", entry count: %u\n", entries);
}

/* One JVMPI_MONITOR_RAW record (vmpi/runtime/monitor_dump.c gives its layout). */
static void read_raw_monitor(FILE *text, DumpReader *r, HprofThreadNumber thread_number) {
    const char *name = take_pointer(r);
    void *id = take_pointer(r);
    VMPI_ThreadID owner = take_pointer(r);
    uint32_t entries = dump_take_u4(r);
    bool shown = !r->overrun && name && name[0] != '_';
    FILE *out = shown ? text : NULL; /* an agent's private lock: read, not written */
    if (out) {
        fprintf(out, "    RAW MONITOR \"%s\"(%p)%s\n", name, id, entries ? "" : " unowned");
        write_owner(out, owner, entries, thread_number);
    }
    write_waiters(out, r, "waiting to enter", thread_number);
    write_waiters(out, r, "waiting to be notified", thread_number);
}

/* One JVMPI_MONITOR_JAVA record: a monitor of the language, on an object,
 * named by the object's class and its ID. */
static void read_java_monitor(FILE *text, DumpReader *r, HprofThreadNumber thread_number,
                              HprofObjectClassName object_class) {
    void *object = take_pointer(r);
    VMPI_ThreadID owner = take_pointer(r);
    uint32_t entries = dump_take_u4(r);
    if (!r->overrun) {
        const char *class_name = object_class(object);
        fprintf(text, "    MONITOR %s(%p)%s\n", class_name ? class_name : "<unknown class>", object,
                entries ? "" : " unowned");
        write_owner(text, owner, entries, thread_number);
    }
    write_waiters(text, r, "waiting to enter", thread_number);
    write_waiters(text, r, "waiting to be notified", thread_number);
}

/* JVMTI HPROF's letters for a thread's state. */
static void write_status(FILE *text, int32_t status) {
    if (status & VMPI_THREAD_SUSPENDED) fputs("S|", text);
    if (status & VMPI_THREAD_INTERRUPTED) fputs("intr|", text);
    switch (status & ~(VMPI_THREAD_SUSPENDED | VMPI_THREAD_INTERRUPTED)) {
    case VMPI_THREAD_RUNNABLE: fputs("R", text); break;
    case VMPI_THREAD_MONITOR_WAIT: fputs("MW", text); break;
    case VMPI_THREAD_CONDVAR_WAIT: fputs("CW", text); break;
    default: fputs("UN", text);
    }
}

void hprof_monitor_read_dump(HprofMonitors *m, const VMPI_Event *event, HprofTraceIndex trace_index,
                             HprofThreadNumber thread_number, HprofThreadNumber live_thread_number,
                             HprofObjectClassName object_class) {
    free(m->dump_text);
    m->dump_text = NULL;
    m->dump_len = 0;
    FILE *text = open_memstream(&m->dump_text, &m->dump_len);
    if (!text) {
        m->failed = true;
        return;
    }
    for (int32_t t = 0; t < event->u.monitor_dump.num_traces; t++) {
        const VMPI_CallTrace *trace = &event->u.monitor_dump.traces[t];
        if (!live_thread_number(trace->env_id)) continue; /* it has ended: the VM keeps its record */
        uint32_t index = trace_index(trace->env_id, trace);
        if (index == UINT32_MAX) m->failed = true;
        fprintf(text, "    THREAD %u, trace %u, status: ", thread_number(trace->env_id), HPROF_FIRST_TRACE + index);
        write_status(text, event->u.monitor_dump.threads_status[t]);
        fputc('\n', text);
    }
    DumpReader r = {.at = event->u.monitor_dump.begin, .end = event->u.monitor_dump.end};
    while (r.at < r.end && !r.overrun) {
        uint8_t type = dump_take_u1(&r);
        if (type == VMPI_MONITOR_RAW) read_raw_monitor(text, &r, thread_number);
        else if (type == VMPI_MONITOR_JAVA) read_java_monitor(text, &r, thread_number, object_class);
        else r.overrun = true; /* the VM makes no other (monitor_dump.c) */
    }
    if (fclose(text) != 0 || r.overrun) m->failed = true;
}

/* ---- writing --------------------------------------------------------------------------- */

static const HprofMonitors *sorted; /* for by_time */

static int by_time(const void *a, const void *b) {
    const HprofContention *x = &sorted->contentions[*(const size_t *)a];
    const HprofContention *y = &sorted->contentions[*(const size_t *)b];
    if (x->time != y->time) return x->time > y->time ? -1 : 1;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

bool hprof_monitors_write(const HprofMonitors *m, TraceOutput *out, const char *date, double cutoff) {
    size_t *order = malloc((m->num_contentions + 1) * sizeof *order);
    if (!order) return false;
    trace_output_text(out, "MONITOR DUMP BEGIN\n");
    if (m->dump_text) trace_output_bytes(out, m->dump_text, m->dump_len);
    trace_output_text(out, "MONITOR DUMP END\n");

    int64_t total = 0;
    for (size_t i = 0; i < m->num_contentions; i++) total += m->contentions[i].time;
    char line[512];
    snprintf(line, sizeof line, "MONITOR TIME BEGIN (total = %lld ms) %s\n", (long long)(total / 1000000), date);
    trace_output_text(out, line);
    if (m->num_contentions > 0) {
        for (size_t i = 0; i < m->num_contentions; i++) order[i] = i;
        sorted = m;
        qsort(order, m->num_contentions, sizeof *order, by_time);
        trace_output_text(out, "rank   self  accum   count trace monitor\n");
        double accum = 0;
        for (size_t i = 0; i < m->num_contentions; i++) {
            const HprofContention *c = &m->contentions[order[i]];
            double self = total ? (double)c->time / (double)total : 0;
            if (self < cutoff) break;
            accum += self;
            snprintf(line, sizeof line, "%4zu %5.2f%% %5.2f%% %7llu %5u %s (%s)\n", i + 1, self * 100,
                     accum * 100, (unsigned long long)c->count, HPROF_FIRST_TRACE + c->trace, c->name,
                     c->id ? "Raw" : "Java");
            trace_output_text(out, line);
        }
    }
    free(order);
    trace_output_text(out, "MONITOR TIME END\n");
    return true;
}
