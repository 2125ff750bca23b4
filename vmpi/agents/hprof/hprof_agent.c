/*
 * hprof_agent.c -- hprof: the HPROF heap profiler for gclab, driven by VMPI
 * events.  Options and output follow the HPROF agent manual; docs/hprof.md
 * says what is implemented so far.
 *
 *     -agentlib:hprof=heap=sites|dump|all[,file=F][,depth=N][,cutoff=X][,...]
 *
 * heap=sites tracks every object from OBJECT_ALLOC to OBJECT_FREE (through
 * OBJECT_MOVE and ARENA_DELETE) under its allocation site (hprof_sites.h)
 * and at JVM_SHUT_DOWN (dump on exit, doe=y) writes the manual's text
 * layout: a header, THREAD START/END records, the TRACEs, and the SITES
 * table ordered by live bytes.  heap=dump tracks the same and writes the
 * HEAP DUMP section from a level-2 HEAP_DUMP (hprof_dump.h); heap=all
 * writes both.  DATA_DUMP_REQUEST (SIGQUIT) appends a dump of the same
 * kind; doe=n leaves only those.  Before writing, it asks the VM for a
 * level-0 HEAP_DUMP and checks that the objects it holds live are exactly
 * the VM's heap; verbose=y says so on standard error.
 *
 * Locking follows JVMPI 1.2 section 1.5 (agent_common.h): one raw monitor
 * guards the agent's state; GC_START takes it and GC_FINISH gives it back,
 * and GC_START reserves the sampled objects' map's room so that the moves,
 * frees and arena deletes in between never call malloc (heap=sites' map
 * takes its pages from mmap: vmpi/agents/common/addrmap.h).  The file is
 * complete or absent (vmpi/agents/common/trace_output.h): written under a
 * temporary name and renamed at JVM_SHUT_DOWN.  A VM that shuts down from
 * inside a collection (gc_fatal_exit) gets no profile: writing it would
 * allocate.
 *
 * cpu=times counts every METHOD_ENTRY and times it to its METHOD_EXIT by
 * call trace (hprof_cpu_times.h), sharing the traces with heap=sites, and
 * writes the CPU TIME (ms) table after the sites.  cpu=samples counts the
 * traces a sampler thread takes every `interval` ms (hprof_cpu_samples.h)
 * in the same table of costs by trace, and writes the CPU SAMPLES table.
 * cpu=old times calls as cpu=times does but by pair of methods, callee and
 * caller (hprof_cpu_old.h), and writes the older HPROF's prof lines.
 * monitor=y writes the MONITOR DUMP (from a MONITOR_DUMP asked for at each
 * dump) and MONITOR TIME (from the contention and wait events of the
 * language's monitors and of raw monitors) sections (hprof_monitor.h);
 * a monitor of the language is named by its object's class, which hprof
 * asks the VM for (RequestEvent(OBJECT_ALLOC)).
 *
 * format=b writes the same dumps in the HPROF binary format instead
 * (hprof_binary.h), into the same file.
 *
 * sample=BYTES enables heap sampling's SAMPLED_OBJECT_ALLOC instead of the
 * object events, and writes a SITES table of estimates (hprof_sampled.h).
 *
 * DATA_RESET_REQUEST (SIGUSR2) sets every site's allocated totals and the
 * CPU counts back to zero.  With net=host:port the output goes to a front
 * end over TCP instead of a file, and the front end's commands, read on a
 * system thread (hprof_net.h), are served here at the safepoint the reader
 * asks for, under the lock: the manual's sections written on demand, plus
 * a HEAP SUMMARY line.
 *
 * pprof= and folded= write the same tables, at the same dumps, as a pprof
 * profile and as folded stacks (hprof_export.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/agent_common.h"
#include "common/grow.h"
#include "hprof_batch.h"
#include "hprof_call_sites.h"
#include "hprof_binary.h"
#include "hprof_control.h"
#include "hprof_cpu_old.h"
#include "hprof_cpu_samples.h"
#include "hprof_cpu_times.h"
#include "hprof_dump.h"
#include "hprof_export.h"
#include "hprof_monitor.h"
#include "hprof_net.h"
#include "hprof_options.h"
#include "hprof_sampled.h"
#include "hprof_sites.h"
#include "vmpi.h"

#define FIRST_THREAD_NUMBER 200001

typedef struct ClassInfo {
    char *name, *source;
} ClassInfo;

typedef struct MethodInfo {
    char *name;
    uint32_t class_index;
} MethodInfo;

typedef struct ThreadRecord {
    bool start;           /* THREAD START, else THREAD END */
    uint32_t number;
    uint64_t object;
    char *name, *group;   /* START only */
} ThreadRecord;

static VMPI_Interface *vmpi;
static AgentLock lock;
static const int32_t wanted[] = {
    VMPI_EVENT_OBJECT_ALLOC,  VMPI_EVENT_OBJECT_FREE,         VMPI_EVENT_OBJECT_MOVE,
    VMPI_EVENT_ARENA_DELETE,  VMPI_EVENT_GC_START,            VMPI_EVENT_GC_FINISH,
    VMPI_EVENT_CLASS_LOAD,    VMPI_EVENT_THREAD_START,        VMPI_EVENT_THREAD_END,
    VMPI_EVENT_JVM_SHUT_DOWN, VMPI_EVENT_DATA_DUMP_REQUEST,   VMPI_EVENT_DATA_RESET_REQUEST,
};
static HprofOptions opts;
static TraceOutput out;
static bool closed;                 /* after JVM_SHUT_DOWN */
static uint32_t dumps_written;      /* at exit and on request (DATA_DUMP_REQUEST, the front end) */
static bool header_written;
static bool alloc_traces = true;    /* the front end's CONTROL turns them off and on */
static bool exit_requested;         /* the front end's EXIT THE VM */
static HprofCpuSwitches cpu_switches; /* the front end's CONTROL 3 and 4 (hprof_control.h) */
static HprofSitesSent sites_sent;   /* what its last ALLOC SITES found, for an incremental one */
static size_t threads_written, traces_written; /* records already in an earlier dump */
static HprofSites sites;
static HprofBatches batches;        /* OBJECT_ALLOCs not yet in `sites` (hprof_batch.h) */
/* The depth of the VM's call sites (EnableCallSites), 0 if it keeps none;
 * allocations are batched while depth= is no deeper. */
static int32_t call_site_depth;
static HprofCallSites call_site_traces; /* call site -> TRACE (hprof_call_sites.h) */
/* The calling thread's batch, once made.  Initial-exec: read at every
 * allocation, it is one load, not a call to __tls_get_addr (the 8 bytes
 * come from the static TLS that the C library keeps for dlopen). */
static _Thread_local HprofBatch *thread_batch __attribute__((tls_model("initial-exec")));
static HprofDump dump;               /* heap=dump: the last level-2 dump, as text */
static HprofCpuTimes cpu_times;     /* cpu=times; cpu=samples' counts; cpu=old's by pair (hprof_cpu_times.h) */
static HprofCpuOld cpu_old;         /* cpu=old: the pairs of methods (hprof_cpu_old.h) */
static HprofSampler sampler;        /* cpu=samples (hprof_cpu_samples.h) */
static HprofMonitors monitors;      /* monitor=y (hprof_monitor.h) */
static HprofBinary binary;          /* format=b (hprof_binary.h) */
static HprofSampled sampled;        /* sample= (hprof_sampled.h) */
static HprofExport export;          /* pprof= and folded= (hprof_export.h) */
static VMPI_CallFrame *frames;      /* GetCallTrace's buffer: opts.depth frames */
static IdMap class_ids, method_ids; /* ID -> tag = index below */
static ClassInfo *classes;
static size_t num_classes, classes_capacity;
static MethodInfo *methods;
static size_t num_methods, methods_capacity;
static VMPI_ThreadID *thread_envs;  /* thread number - FIRST_THREAD_NUMBER */
static size_t num_threads, thread_envs_capacity;
static ThreadRecord *thread_records;
static size_t num_thread_records, thread_records_capacity;
static bool out_of_memory;

/* The VM's heap at exit, from a level-0 HEAP_DUMP: its objects, and how many
 * of them (and their bytes) the object map holds. */
static uint64_t vm_objects, vm_objects_tracked, vm_bytes_tracked;
static bool vm_heap_seen;

/* heap=sites and heap=dump keep every live object in the object map: its
 * size and allocation trace. */
static bool tracks_objects(void) { return opts.heap_sites || opts.heap_dump; }

/* sample= asks the VM for heap sampling; with sample_live=y hprof follows
 * the sampled objects' frees and moves (hprof_sampled.h). */
static bool samples_heap(void) { return opts.sample_interval >= 0; }
static bool follows_samples(void) { return samples_heap() && opts.sample_live; }

/* ---- names ------------------------------------------------------------------------- */

static char *copy_string(const char *text) {
    char *copy = strdup(text ? text : "");
    if (!copy) out_of_memory = true;
    return copy;
}

/* Room for item `count` of *items (agent_grow); out of memory if none. */
static bool push(void **items, size_t *capacity, size_t count, size_t item_size) {
    if (agent_grow(items, capacity, count + 1, item_size, 16)) return true;
    out_of_memory = true;
    return false;
}

static void record_class(const VMPI_Event *event) {
    uint64_t id = (uint64_t)(uintptr_t)event->u.class_load.class_id;
    if (!id || idmap_find(&class_ids, id)) return;
    if (!push((void **)&classes, &classes_capacity, num_classes, sizeof *classes) ||
        !idmap_reserve(&class_ids, class_ids.count + 1))
        return;
    classes[num_classes] = (ClassInfo){copy_string(event->u.class_load.class_name),
                                       copy_string(event->u.class_load.source_name)};
    idmap_insert(&class_ids, id, 0, 0)->tag = (uint32_t)num_classes;
    for (int32_t i = 0; i < event->u.class_load.num_methods; i++) {
        const VMPI_Method *m = &event->u.class_load.methods[i];
        uint64_t method_id = (uint64_t)(uintptr_t)m->method_id;
        if (!method_id || idmap_find(&method_ids, method_id)) continue;
        if (!push((void **)&methods, &methods_capacity, num_methods, sizeof *methods) ||
            !idmap_reserve(&method_ids, method_ids.count + 1))
            break;
        methods[num_methods] = (MethodInfo){copy_string(m->method_name), (uint32_t)num_classes};
        idmap_insert(&method_ids, method_id, 0, 0)->tag = (uint32_t)num_methods++;
    }
    num_classes++;
}

static const ClassInfo *class_info(uint64_t class_id) {
    const IdEntry *e = idmap_find(&class_ids, class_id);
    return e ? &classes[e->tag] : NULL;
}

/* The class a site counts, as the manual names them ("Node", "int[]"), in
 * `buffer`. */
static const char *site_class_name(const HprofSite *site, char *buffer, size_t size) {
    const ClassInfo *c = class_info(site->class_id);
    bool primitive = site->is_array > VMPI_CLASS && site->is_array <= VMPI_LONG;
    snprintf(buffer, size, "%s%s", primitive ? hprof_primitive_name(site->is_array) : c ? c->name : "<unknown class>",
             site->is_array != VMPI_NORMAL_OBJECT ? "[]" : "");
    return buffer;
}

static uint32_t thread_number(VMPI_ThreadID env) {
    for (size_t i = 0; i < num_threads; i++)
        if (thread_envs[i] == env) return FIRST_THREAD_NUMBER + (uint32_t)i;
    return 0;
}

/* The thread object of thread `env` (its THREAD START's obj=), 0 if none. */
static uint64_t thread_object(VMPI_ThreadID env) {
    uint32_t number = thread_number(env);
    for (size_t i = 0; number && i < num_thread_records; i++)
        if (thread_records[i].start && thread_records[i].number == number) return thread_records[i].object;
    return 0;
}

static void record_thread(const VMPI_Event *event, bool start) {
    VMPI_ThreadID env = start ? event->u.thread_start.thread_env_id : event->env_id;
    uint32_t number = thread_number(env);
    if (start && !number) {
        if (!push((void **)&thread_envs, &thread_envs_capacity, num_threads, sizeof *thread_envs)) return;
        thread_envs[num_threads] = env;
        number = FIRST_THREAD_NUMBER + (uint32_t)num_threads++;
    }
    if (opts.cpu_samples && number) {
        if (!start) hprof_sampler_thread_end(&sampler, env);
        else if (!hprof_sampler_thread_start(&sampler, env)) out_of_memory = true;
    }
    if (!number || !push((void **)&thread_records, &thread_records_capacity, num_thread_records, sizeof *thread_records)) return;
    ThreadRecord *r = &thread_records[num_thread_records++];
    *r = (ThreadRecord){.start = start, .number = number};
    if (start) {
        r->object = (uint64_t)(uintptr_t)event->u.thread_start.thread_id;
        r->name = copy_string(event->u.thread_start.thread_name);
        r->group = copy_string(event->u.thread_start.group_name);
    }
}

/* A thread's number while it lives, 0 once its THREAD_END came (the VM
 * keeps an ended thread's record: MONITOR_DUMP still lists it). */
static uint32_t live_thread_number(VMPI_ThreadID env) {
    uint32_t number = thread_number(env);
    for (size_t i = 0; i < num_thread_records && number; i++)
        if (!thread_records[i].start && thread_records[i].number == number) number = 0;
    return number;
}

/* ---- the text output ----------------------------------------------------------------- */

static void write_line(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void write_line(const char *format, ...) {
    char line[512];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    trace_output_text(&out, line);
}

static void write_header(const char *date) {
    if (header_written) return;
    header_written = true;
    write_line("JAVA PROFILE 1.0.1, created %s\n\n", date);
    trace_output_text(&out, "Header for -agentlib:hprof ASCII Output (gclab VMPI, after JDK 5.0 JVMTI based)\n"
                            "\nThe layout is the HPROF agent manual's: THREAD START/END records, TRACEs\n"
                            "(frames Class.method(File:line), innermost first), the HEAP DUMP\n"
                            "(heap=dump), the SITES table (heap=sites), and the CPU SAMPLES\n"
                            "(cpu=samples) or CPU TIME (ms) table (cpu=times), or the older\n"
                            "HPROF's prof lines, count callee caller time (cpu=old).\n"
                            "\n--------\n\n");
}

/* The THREAD records since the last dump. */
static void write_new_threads(void) {
    for (size_t i = threads_written; i < num_thread_records; i++) {
        const ThreadRecord *r = &thread_records[i];
        if (r->start)
            write_line("THREAD START (obj=%llx, id = %u, name=\"%s\", group=\"%s\")\n",
                       (unsigned long long)r->object, r->number, r->name ? r->name : "",
                       r->group ? r->group : "");
        else
            write_line("THREAD END (id = %u)\n", r->number);
    }
    threads_written = num_thread_records;
}

/* A method's class, name and source file ("" if unknown). */
static HprofMethodName method_name(VMPI_MethodID method_id) {
    const IdEntry *e = idmap_find(&method_ids, (uint64_t)(uintptr_t)method_id);
    const MethodInfo *m = e ? &methods[e->tag] : NULL;
    const ClassInfo *c = m ? &classes[m->class_index] : NULL;
    return (HprofMethodName){c ? c->name : "<unknown class>", m ? m->name : "<unknown method>",
                             c ? c->source : ""};
}

/* Writes "Class.method"; returns the method's names. */
static HprofMethodName write_method_name(VMPI_MethodID method_id) {
    HprofMethodName names = method_name(method_id);
    trace_output_text(&out, names.class_name);
    trace_output_text(&out, ".");
    trace_output_text(&out, names.method_name);
    return names;
}

static void write_frame(const VMPI_CallFrame *frame) {
    trace_output_text(&out, "\t");
    HprofMethodName names = write_method_name(frame->method_id);
    trace_output_text(&out, "(");
    trace_output_text(&out, names.source[0] ? names.source : "Unknown Source");
    if (opts.lineno && frame->lineno > 0) write_line(":%d", frame->lineno);
    trace_output_text(&out, ")\n");
}

/* The TRACEs since the last dump. */
static void write_new_traces(void) {
    for (size_t i = traces_written; i < sites.num_traces; i++) {
        const HprofTrace *t = &sites.traces[i];
        write_line("TRACE %zu:", HPROF_FIRST_TRACE + i);
        if (opts.thread) write_line(" (thread=%u)", t->thread);
        trace_output_text(&out, "\n");
        if (t->num_frames == 0) trace_output_text(&out, "\t<empty>\n");
        for (int32_t f = 0; f < t->num_frames; f++) write_frame(&sites.frames[t->first_frame + (size_t)f]);
    }
    traces_written = sites.num_traces;
}

/* Site order: live bytes, then allocated bytes, descending (by_alloc_bytes,
 * the front end's order: the other way round); then trace and class, so
 * that the table does not depend on qsort. */
static int by_trace_and_class(const HprofSite *x, const HprofSite *y) {
    if (x->trace != y->trace) return x->trace < y->trace ? -1 : 1;
    if (x->is_array != y->is_array) return x->is_array < y->is_array ? -1 : 1;
    return x->class_id < y->class_id ? -1 : x->class_id > y->class_id;
}

static int by_alloc_bytes(const void *a, const void *b) {
    const HprofSite *x = &sites.sites[*(const uint32_t *)a], *y = &sites.sites[*(const uint32_t *)b];
    if (x->alloc_bytes != y->alloc_bytes) return x->alloc_bytes > y->alloc_bytes ? -1 : 1;
    if (x->live_bytes != y->live_bytes) return x->live_bytes > y->live_bytes ? -1 : 1;
    return by_trace_and_class(x, y);
}

static int by_live_bytes(const void *a, const void *b) {
    const HprofSite *x = &sites.sites[*(const uint32_t *)a], *y = &sites.sites[*(const uint32_t *)b];
    if (x->live_bytes != y->live_bytes) return x->live_bytes > y->live_bytes ? -1 : 1;
    if (x->alloc_bytes != y->alloc_bytes) return x->alloc_bytes > y->alloc_bytes ? -1 : 1;
    return by_trace_and_class(x, y);
}

/* The sites in the table's order, by allocated or live bytes, and their
 * live bytes; NULL if out of memory. */
static uint32_t *sites_in_order(bool by_alloc, uint64_t *total_live) {
    uint32_t *order = malloc((sites.num_sites ? sites.num_sites : 1) * sizeof *order);
    if (!order) {
        out_of_memory = true;
        return NULL;
    }
    *total_live = 0;
    for (size_t i = 0; i < sites.num_sites; i++) {
        order[i] = (uint32_t)i;
        *total_live += sites.sites[i].live_bytes;
    }
    qsort(order, sites.num_sites, sizeof *order, by_alloc ? by_alloc_bytes : by_live_bytes);
    return order;
}

/* The SITES table; with `only_changed`, only the sites changed since it
 * was marked (the front end's incremental ALLOC SITES). */
static void write_sites(const char *date, double cutoff, bool by_alloc, const HprofSitesSent *only_changed) {
    uint64_t total_live;
    uint32_t *order = sites_in_order(by_alloc, &total_live);
    if (!order) return;
    write_line("SITES BEGIN (ordered by %s%s) %s\n", by_alloc ? "allocated bytes" : "live bytes",
               only_changed ? ", incremental" : "", date);
    trace_output_text(&out, "          percent          live          alloc'ed  stack class\n"
                            " rank   self  accum     bytes objs     bytes  objs trace name\n");
    double accum = 0;
    for (size_t i = 0; i < sites.num_sites; i++) {
        const HprofSite *site = &sites.sites[order[i]];
        double self = total_live ? (double)site->live_bytes / (double)total_live : 0;
        if (!by_alloc && self < cutoff) break;
        if (by_alloc && self < cutoff) continue;
        accum += self;
        if (only_changed && !hprof_sites_sent_changed(only_changed, order[i], site)) continue;
        write_line("%5zu %5.2f%% %5.2f%% %9llu %4llu %9llu %5llu %5zu ", i + 1, self * 100, accum * 100,
                   (unsigned long long)site->live_bytes, (unsigned long long)site->live_objects,
                   (unsigned long long)site->alloc_bytes, (unsigned long long)site->alloc_objects,
                   HPROF_FIRST_TRACE + (size_t)site->trace);
        char class_name[256];
        trace_output_text(&out, site_class_name(site, class_name, sizeof class_name));
        trace_output_text(&out, "\n");
    }
    trace_output_text(&out, "SITES END\n");
    free(order);
}

/* The manual's CPU SAMPLES or CPU TIME (ms) table (the layout of JDK
 * hprof's text output): one row per trace sampled or entered, by samples or
 * self time, cut at `cutoff`; the method is the trace's innermost frame. */
static void write_cpu_table(const char *date, double cutoff) {
    HprofCpuRow *rows;
    int64_t total;
    ptrdiff_t num_rows = hprof_cpu_times_rows(&cpu_times, sites.num_traces, &rows, &total);
    if (num_rows < 0) {
        out_of_memory = true;
        return;
    }
    const char *title = opts.cpu_samples ? "CPU SAMPLES" : "CPU TIME (ms)";
    write_line("%s BEGIN (total = %lld) %s\n", title, (long long)(opts.cpu_samples ? total : total / 1000000), date);
    if (num_rows > 0) trace_output_text(&out, "rank   self  accum   count trace method\n");
    double accum = 0;
    for (ptrdiff_t i = 0; i < num_rows; i++) {
        const HprofCpuRow *row = &rows[i];
        double self = total ? (double)row->self_time / (double)total : 0;
        if (self < cutoff) break;
        accum += self;
        write_line("%4td %5.2f%% %5.2f%% %7llu %5zu ", i + 1, self * 100, accum * 100,
                   (unsigned long long)row->count, HPROF_FIRST_TRACE + (size_t)row->trace);
        const HprofTrace *t = &sites.traces[row->trace];
        if (t->num_frames > 0)
            write_method_name(sites.frames[t->first_frame].method_id);
        else
            trace_output_text(&out, "<empty trace>");
        trace_output_text(&out, "\n");
    }
    write_line("%s END\n", title);
    free(rows);
}

/* cpu=old: the older HPROF's prof lines, by count (hprof_cpu_old.h). */
static void write_cpu_old(void) {
    HprofCpuRow *rows;
    ptrdiff_t num_rows = hprof_cpu_old_rows(&cpu_old, &cpu_times, &rows);
    if (num_rows < 0) {
        out_of_memory = true;
        return;
    }
    trace_output_text(&out, "count callee caller time\n");
    for (ptrdiff_t i = 0; i < num_rows; i++) {
        const HprofCallPair *pair = &cpu_old.pairs[rows[i].trace];
        write_line("%llu ", (unsigned long long)rows[i].count);
        write_method_name(pair->callee);
        trace_output_text(&out, " ");
        if (pair->caller) write_method_name(pair->caller);
        else trace_output_text(&out, "<unknown caller>");
        write_line(" %lld\n", (long long)(rows[i].total_time / 1000000));
    }
    free(rows);
}

static void report_write_error(int error) {
    fprintf(stderr, "hprof: cannot write %s: %s\n", opts.file, strerror(error));
}

/* format=b: the same dump as records (hprof_binary.h); the threads are
 * already written, as they started and ended. */
static void write_binary_dump(void) {
    uint64_t total_live;
    uint32_t *order = opts.heap_sites ? sites_in_order(false, &total_live) : NULL;
    if (!opts.heap_sites || order)
        hprof_binary_write_dump(&binary, &sites, opts.heap_dump, order, opts.cutoff);
    free(order);
    if (opts.cpu_samples) { /* the text's CPU SAMPLES rows, every one: the record has no cutoff */
        HprofCpuRow *rows;
        int64_t total;
        ptrdiff_t num_rows = hprof_cpu_times_rows(&cpu_times, sites.num_traces, &rows, &total);
        if (num_rows < 0) out_of_memory = true;
        else hprof_binary_write_cpu_samples(&binary, rows, (size_t)num_rows, (uint64_t)total);
        free(rows);
    }
}

/* pprof= and folded=: the tables of this dump as stacks, for their files. */
static void export_tables(void) {
    HprofStacks stacks;
    hprof_stacks_init(&stacks, &sites, method_name);
    bool done = (!opts.heap_sites || hprof_stacks_add_sites(&stacks, site_class_name)) &&
                (!samples_heap() || hprof_sampled_add_stacks(&sampled, &stacks, site_class_name)) &&
                (!opts.cpu_times || hprof_stacks_add_cpu_times(&stacks, &cpu_times)) &&
                (!opts.cpu_samples || hprof_stacks_add_cpu_samples(&stacks, &cpu_times, opts.interval * 1000000LL)) &&
                hprof_export_dump(&export, &stacks);
    hprof_stacks_free(&stacks);
    if (!done) out_of_memory = true;
}

/* The date as the manual's section headers write it. */
static void date_now(char date[64]) {
    time_t now = time(NULL);
    struct tm local;
    strftime(date, 64, "%a %b %e %H:%M:%S %Y", localtime_r(&now, &local));
}

/* One dump, at exit or on request, appended to the file: the header the
 * first time, the threads and traces that are new since the last dump, then
 * the sections asked for, as they are now (or the same in format=b). */
static void write_dump(void) {
    char date[64];
    date_now(date);
    const char *heap = opts.heap_sites ? "allocation sites"
                       : opts.heap_dump ? "Java heap"
                       : samples_heap() ? "sampled allocation sites" : "";
    const char *cpu = opts.cpu_times     ? "CPU usage by timing methods"
                      : opts.cpu_samples ? "CPU usage by sampling running threads"
                      : opts.cpu_old     ? "CPU usage in old prof format"
                                         : "";
    if (opts.verbose)
        fprintf(stderr, "Dumping %s%s%s ...", heap, heap[0] && cpu[0] ? " and " : "", cpu);
    dumps_written++;
    if (opts.binary) {
        write_binary_dump();
    } else {
        write_header(date);
        write_new_threads();
        write_new_traces();
        if (opts.heap_dump) hprof_dump_write(&dump, &out, date);
        if (opts.heap_sites) write_sites(date, opts.cutoff, false, NULL);
        if (samples_heap()) hprof_sampled_write(&sampled, &out, opts.cutoff, date, site_class_name);
        if (opts.cpu_times || opts.cpu_samples) write_cpu_table(date, opts.cutoff);
        if (opts.cpu_old) write_cpu_old();
        if (opts.monitor && !hprof_monitors_write(&monitors, &out, date, opts.cutoff)) out_of_memory = true;
    }
    if (hprof_export_wanted(&export)) export_tables();
}

/* DATA_DUMP_REQUEST (SIGQUIT): a dump now, written through to the file,
 * which is published at exit with the rest. */
static void dump_on_request(void) {
    write_dump();
    trace_output_flush(&out);
    if (opts.verbose) fprintf(stderr, " done.\n");
}

/* DATA_RESET_REQUEST (SIGUSR2): the allocated totals of every site and the
 * CPU counts start again from zero; live counts describe the heap and stay. */
static void reset_counts(VMPI_ThreadID env) {
    for (size_t i = 0; i < sites.num_sites; i++) sites.sites[i].alloc_bytes = sites.sites[i].alloc_objects = 0;
    hprof_cpu_times_reset(&cpu_times, env, vmpi->GetCurrentThreadCpuTime());
}

/* At exit: the last dump (doe=y), then the file is published, unless
 * something in it would be wrong or no dump was made. */
static void write_profile(void) {
    if (opts.doe) write_dump();
    if (opts.binary) {
        FILE *stream = binary.out;
        dump.failed |= binary.failed;
        hprof_binary_close(&binary);
        fclose(stream);
    }
    if (dumps_written == 0) {
        if (opts.verbose) fprintf(stderr, "hprof: doe=n and no dump was requested: %s not written\n", opts.file);
        trace_output_abandon(&out);
        hprof_export_abandon(&export);
        return;
    }
    if (dump.failed) {
        fprintf(stderr, "\nhprof: the heap dump could not be read (out of memory, or a malformed buffer); "
                        "%s not written\n", opts.file);
        trace_output_abandon(&out);
        hprof_export_abandon(&export);
        return;
    }
    if (out_of_memory || sites.untracked || cpu_times.lost || sampled.out_of_memory || monitors.failed) {
        fprintf(stderr, "\nhprof: %llu allocations and %llu method entries could not be tracked (out of memory, "
                        "or allocations made during a collection): the profile would be wrong; %s not written\n",
                (unsigned long long)sites.untracked, (unsigned long long)cpu_times.lost, opts.file);
        trace_output_abandon(&out);
        hprof_export_abandon(&export);
        return;
    }
    int error = trace_output_close(&out);
    if (error) report_write_error(error);
    hprof_export_publish(&export);
    if (opts.verbose && opts.doe) fprintf(stderr, " done.\n");
}

/* The level-0 HEAP_DUMP asked for at JVM_SHUT_DOWN: ty (u1), object ID. */
static void count_vm_heap(const VMPI_Event *event) {
    const char *p = event->u.heap_dump.begin, *end = event->u.heap_dump.end;
    const size_t record = 1 + sizeof(void *);
    for (; p + record <= end; p += record) {
        void *id;
        memcpy(&id, p + 1, sizeof id);
        const AddrEntry *e = addrmap_find(&sites.objects, (uint64_t)(uintptr_t)id);
        vm_objects++;
        if (e) {
            vm_objects_tracked++;
            vm_bytes_tracked += e->size;
        }
    }
    vm_heap_seen = true;
}

/* The agreement between the sites table and the VM's heap. */
static void check_against_vm_heap(void) {
    if (!vm_heap_seen) {
        fprintf(stderr, "hprof: the VM sent no heap dump at exit: live counts are unchecked\n");
        return;
    }
    uint64_t live_objects = 0, live_bytes = 0;
    for (size_t i = 0; i < sites.num_sites; i++) {
        live_objects += sites.sites[i].live_objects;
        live_bytes += sites.sites[i].live_bytes;
    }
    bool agrees = vm_objects == vm_objects_tracked && vm_objects == live_objects &&
                  vm_bytes_tracked == live_bytes && live_objects == sites.objects.count;
    if (agrees) {
        if (opts.verbose)
            fprintf(stderr, "hprof: live at exit: %llu objects, %llu bytes; the VM's heap agrees\n",
                    (unsigned long long)live_objects, (unsigned long long)live_bytes);
    } else {
        fprintf(stderr, "hprof: internal error: the sites table counts %llu live objects (%llu bytes), "
                        "the VM's heap holds %llu objects of which %llu are tracked (%llu bytes)\n",
                (unsigned long long)live_objects, (unsigned long long)live_bytes,
                (unsigned long long)vm_objects, (unsigned long long)vm_objects_tracked,
                (unsigned long long)vm_bytes_tracked);
    }
}

/* ---- events -------------------------------------------------------------------------- */

static void drop_lines_unless_lineno(VMPI_CallTrace *trace) {
    if (!opts.lineno)
        for (int32_t i = 0; i < trace->num_frames; i++) trace->frames[i].lineno = 0;
}

/* The thread's call trace in `frames`, `depth` deep, lines dropped with
 * lineno=n. */
static VMPI_CallTrace call_trace(VMPI_ThreadID env) {
    VMPI_CallTrace trace = {.env_id = env, .frames = frames};
    vmpi->GetCallTrace(&trace, opts.depth);
    drop_lines_unless_lineno(&trace);
    return trace;
}

/* The thread's call trace now as a TRACE record: its index. */
static uint32_t current_trace_index(VMPI_ThreadID env) {
    VMPI_CallTrace trace = call_trace(env);
    return hprof_sites_trace(&sites, &trace, opts.thread ? thread_number(env) : 0);
}

/* A trace taken elsewhere (the sampler's, a monitor dump's) as a TRACE
 * record: cut to `depth` frames in `frames`, lines dropped with lineno=n;
 * its index in the sites' traces. */
static uint32_t trace_index(VMPI_ThreadID env, const VMPI_CallTrace *taken) {
    VMPI_CallTrace trace = {.env_id = env, .frames = frames,
                            .num_frames = taken->num_frames < opts.depth ? taken->num_frames : opts.depth};
    for (int32_t i = 0; i < trace.num_frames; i++) frames[i] = taken->frames[i];
    drop_lines_unless_lineno(&trace);
    return hprof_sites_trace(&sites, &trace, opts.thread ? thread_number(env) : 0);
}

/* cpu=times: the entered method's trace (its frame innermost); cpu=old:
 * the pair of it and its caller.  The time is taken after the agent's own
 * work, so that it is not charged. */
static void method_entry(const VMPI_Event *event) {
    VMPI_MethodID method = event->u.method.method_id;
    uint32_t number;
    if (opts.cpu_old) {
        number = hprof_cpu_old_pair(&cpu_old, method, hprof_cpu_times_caller(&cpu_times, event->env_id));
    } else {
        number = current_trace_index(event->env_id);
    }
    hprof_cpu_times_enter(&cpu_times, event->env_id, method, number, vmpi->GetCurrentThreadCpuTime());
}

/* cpu=samples: a trace the sampler took (hprof_cpu_samples.h), on its
 * thread with the lock held. */
static void record_sample(VMPI_ThreadID env, VMPI_CallTrace *trace) {
    if (!closed && hprof_cpu_switches_on(&cpu_switches, thread_object(env)))
        hprof_cpu_times_sample(&cpu_times, trace_index(env, trace));
}

/* An allocation recorded at once: its trace taken now. */
static void record_alloc(const HprofAlloc *alloc, const VMPI_CallTrace *trace) {
    hprof_sites_alloc(&sites, alloc, trace, opts.thread ? thread_number(trace->env_id) : 0);
}

/* The TRACE of a call site, read from its frames (the call trace the
 * allocation had), cut and numbered as an allocation's trace is. */
static uint32_t call_site_trace(VMPI_CallSiteID site, VMPI_ThreadID env, uint32_t thread) {
    VMPI_CallTrace taken = {.env_id = env, .frames = frames,
                            .num_frames = site ? vmpi->GetCallSiteFrames(site, frames, opts.depth) : 0};
    drop_lines_unless_lineno(&taken);
    return hprof_sites_trace(&sites, &taken, thread);
}

/* The allocation site of a batched allocation: the one its call site had
 * last time if the class is the same, else its trace's (numbered in the
 * order recording at once would give: the trace first, then the site). */
static uint32_t batched_site(const HprofBatchedRecord *record) {
    const HprofAlloc *alloc = &record->alloc;
    uint32_t thread = opts.thread ? thread_number(record->env) : 0;
    HprofCallSiteEntry *known = record->site ? hprof_call_sites_find(&call_site_traces, record->site, thread) : NULL;
    if (known && known->site_number != UINT32_MAX && known->class_id == alloc->class_id &&
        known->is_array == alloc->is_array)
        return known->site_number;
    uint32_t trace = known ? known->trace : call_site_trace(record->site, record->env, thread);
    uint32_t site_number = hprof_sites_site(&sites, trace, alloc->is_array, alloc->class_id);
    if (!known && record->site && trace != UINT32_MAX)
        known = hprof_call_sites_add(&call_site_traces, record->site, thread, trace);
    if (known && site_number != UINT32_MAX) {
        known->class_id = alloc->class_id;
        known->is_array = alloc->is_array;
        known->site_number = site_number;
    }
    return site_number;
}

/* A batched allocation, drained into the sites table under the lock. */
static void record_batched(const HprofBatchedRecord *record) {
    hprof_sites_alloc_at(&sites, &record->alloc, batched_site(record));
}

/* Every thread's batched allocations into the sites table, before an event
 * that may read it (hprof_batch.h); under the lock, outside collections
 * (GC_START's own handling may allocate, so it drains too). */
static void drain_batches(void) { hprof_batches_drain(&batches, record_batched); }

/* The front end may turn allocation traces off: the object is still
 * tracked, under the empty trace. */
static void take_alloc_trace(VMPI_CallTrace *trace) {
    if (!alloc_traces) return;
    vmpi->GetCallTrace(trace, opts.depth);
    drop_lines_unless_lineno(trace);
}

/* OBJECT_ALLOC with the lock held: recorded at once. */
static void object_alloc(const VMPI_Event *event) {
    if (atomic_load(&lock.in_gc)) { /* no allocation allowed now: the site cannot be recorded */
        sites.untracked++;
        return;
    }
    VMPI_CallTrace trace = {.env_id = event->env_id, .frames = frames};
    take_alloc_trace(&trace);
    HprofAlloc alloc = hprof_alloc_of(event);
    record_alloc(&alloc, &trace);
}

/* OBJECT_ALLOC outside a collection, with no lock: into the calling
 * thread's batch, with its call site, drained when full.  False if it
 * cannot be batched (the VM keeps no call sites this deep, no batch for
 * want of memory, a full one): the caller records it at once. */
static bool batch_alloc(const VMPI_Event *event) {
    if (closed) return true;
    if (opts.depth > call_site_depth) return false;
    if (!thread_batch) { /* this thread's first allocation */
        vmpi->RawMonitorEnter(lock.monitor);
        thread_batch = hprof_batches_add(&batches);
        vmpi->RawMonitorExit(lock.monitor);
    }
    HprofBatchedRecord record = {.alloc = hprof_alloc_of(event), .env = event->env_id,
                                 .site = alloc_traces ? event->u.obj_alloc.site : 0};
    bool full;
    if (!thread_batch || !hprof_batch_append(thread_batch, &record, &full)) return false;
    if (full) {
        vmpi->RawMonitorEnter(lock.monitor);
        if (!closed) drain_batches();
        vmpi->RawMonitorExit(lock.monitor);
    }
    return true;
}

/* sample=: the sample's own call trace, cut as GetCallTrace's would be. */
static void sampled_alloc(const VMPI_Event *event) {
    VMPI_CallTrace trace = {.env_id = event->env_id, .frames = frames,
                            .num_frames = event->u.sampled_alloc.num_frames < opts.depth
                                              ? event->u.sampled_alloc.num_frames : opts.depth};
    for (int32_t i = 0; i < trace.num_frames; i++) {
        frames[i].method_id = event->u.sampled_alloc.frames[i].method_id;
        frames[i].lineno = opts.lineno ? event->u.sampled_alloc.frames[i].lineno : 0;
    }
    hprof_sampled_add(&sampled, event,
                      hprof_sites_trace(&sites, &trace, opts.thread ? thread_number(event->env_id) : 0));
}

/* ---- monitors of the language (monitor=y) ----------------------------------------- */

/* The class of the object object_class_name asks about, from the
 * OBJECT_ALLOC the VM answers with on the same thread, inside the
 * request. */
static _Thread_local bool asking_object_class;
static _Thread_local HprofSite object_class;

/* The requested OBJECT_ALLOC that answers object_class_name: true if this
 * event is it. */
static bool answers_object_class(const VMPI_Event *event) {
    /* The type first: a thread-local costs a call in a shared library, and
     * this runs at every event. */
    if (event->event_type != (VMPI_EVENT_OBJECT_ALLOC | VMPI_REQUESTED_EVENT) || !asking_object_class) return false;
    object_class = (HprofSite){.class_id = (uint64_t)(uintptr_t)event->u.obj_alloc.class_id,
                               .is_array = event->u.obj_alloc.is_array};
    return true;
}

/* The name of the class of a monitor's object ("Counter", "int[]"), in
 * this thread's buffer, until the next call; NULL if the VM knows no such
 * object.  With GC disabled, as in the monitor events and dumps. */
static const char *object_class_name(void *object) {
    static _Thread_local char name[256];
    asking_object_class = true;
    int32_t answer = vmpi->RequestEvent(VMPI_EVENT_OBJECT_ALLOC, object);
    asking_object_class = false;
    return answer == VMPI_OK ? site_class_name(&object_class, name, sizeof name) : NULL;
}

/* MONITOR_CONTENDED_ENTERED and MONITOR_WAITED: the wait, charged to the
 * object's class and the thread's trace now (the synchronized or wait
 * line). */
static void java_monitor_waited(const VMPI_Event *event, VMPI_ObjectID object) {
    const char *class_name = object_class_name(object);
    hprof_monitor_java_waited(&monitors, class_name, current_trace_index(event->env_id));
}

static void handle_event(const VMPI_Event *event) {
    switch (event->event_type & ~VMPI_REQUESTED_EVENT) {
    case VMPI_EVENT_OBJECT_ALLOC: object_alloc(event); break;
    case VMPI_EVENT_SAMPLED_OBJECT_ALLOC: sampled_alloc(event); break;
    case VMPI_EVENT_METHOD_ENTRY: method_entry(event); break;
    case VMPI_EVENT_METHOD_EXIT:
        hprof_cpu_times_exit(&cpu_times, event->env_id, event->u.method.method_id, vmpi->GetCurrentThreadCpuTime());
        break;
    case VMPI_EVENT_OBJECT_FREE:
        if (tracks_objects()) hprof_sites_free_object(&sites, (uint64_t)(uintptr_t)event->u.obj_free.obj_id);
        if (follows_samples()) hprof_sampled_free_object(&sampled, (uint64_t)(uintptr_t)event->u.obj_free.obj_id);
        break;
    case VMPI_EVENT_OBJECT_MOVE:
        if (tracks_objects())
            hprof_sites_move(&sites, (uint64_t)(uintptr_t)event->u.obj_move.obj_id,
                             (int32_t)(intptr_t)event->u.obj_move.new_arena_id,
                             (uint64_t)(uintptr_t)event->u.obj_move.new_obj_id);
        if (follows_samples())
            hprof_sampled_move(&sampled, (uint64_t)(uintptr_t)event->u.obj_move.obj_id,
                               (int32_t)(intptr_t)event->u.obj_move.new_arena_id,
                               (uint64_t)(uintptr_t)event->u.obj_move.new_obj_id);
        break;
    case VMPI_EVENT_ARENA_DELETE:
        if (tracks_objects()) hprof_sites_delete_arena(&sites, (int32_t)(intptr_t)event->u.delete_arena.arena_id);
        if (follows_samples()) hprof_sampled_delete_arena(&sampled, (int32_t)(intptr_t)event->u.delete_arena.arena_id);
        break;
    case VMPI_EVENT_GC_START:
        if (follows_samples() && !hprof_sampled_reserve(&sampled)) out_of_memory = true;
        break;
    case VMPI_EVENT_CLASS_LOAD:
        record_class(event);
        if (opts.binary) hprof_binary_class_load(&binary, event);
        else if (opts.heap_dump || opts.net[0]) hprof_dump_learn_class(&dump, event); /* net: DUMP HEAP */
        break;
    case VMPI_EVENT_THREAD_START:
        record_thread(event, true);
        if (opts.binary) hprof_binary_thread_start(&binary, thread_number(event->u.thread_start.thread_env_id), event);
        break;
    case VMPI_EVENT_THREAD_END:
        record_thread(event, false);
        if (opts.binary) hprof_binary_thread_end(&binary, thread_number(event->env_id));
        break;
    case VMPI_EVENT_HEAP_DUMP:
        if (event->u.heap_dump.dump_level == VMPI_DUMP_LEVEL_0) count_vm_heap(event);
        else if (opts.binary) hprof_binary_read_heap_dump(&binary, event, &sites, thread_number);
        else hprof_dump_read(&dump, event, &sites, thread_number);
        break;
    case VMPI_EVENT_DATA_DUMP_REQUEST: dump_on_request(); break;
    case VMPI_EVENT_RAW_MONITOR_CONTENDED_ENTER: hprof_monitor_contended_enter(); break;
    case VMPI_EVENT_RAW_MONITOR_CONTENDED_ENTERED:
        hprof_monitor_contended_entered(&monitors, event, current_trace_index(event->env_id));
        break;
    case VMPI_EVENT_MONITOR_DUMP:
        hprof_monitor_read_dump(&monitors, event, trace_index, thread_number, live_thread_number, object_class_name);
        break;
    case VMPI_EVENT_MONITOR_CONTENDED_ENTER:
    /* A NULL object is a sleep (JVMPI 1.2, MONITOR_WAIT), no monitor's: hprof
     * charges monitors their waits, not threads their sleeps. */
    case VMPI_EVENT_MONITOR_WAIT:
        if (event->u.monitor_wait.object) hprof_monitor_contended_enter();
        break;
    case VMPI_EVENT_MONITOR_CONTENDED_ENTERED: java_monitor_waited(event, event->u.monitor.object); break;
    case VMPI_EVENT_MONITOR_WAITED:
        if (event->u.monitor_wait.object) java_monitor_waited(event, event->u.monitor_wait.object);
        break;
    case VMPI_EVENT_DATA_RESET_REQUEST: reset_counts(event->env_id); break;
    case VMPI_EVENT_JVM_INIT_DONE:
        if (opts.cpu_samples && !hprof_sampler_start(&sampler)) {
            fprintf(stderr, "hprof: cannot start the sampler thread: no CPU samples\n");
            out_of_memory = true;
        }
        if (opts.net[0] && !hprof_net_start_reader(vmpi))
            fprintf(stderr, "hprof: %s gets the profile but no command is read\n", opts.net);
        break;
    case VMPI_EVENT_JVM_SHUT_DOWN:
        closed = true;
        if (atomic_load(&lock.in_gc)) {
            trace_output_abandon(&out);
            hprof_export_abandon(&export);
            break;
        }
        if (tracks_objects() && opts.doe) check_against_vm_heap();
        hprof_cpu_times_close(&cpu_times, event->env_id, vmpi->GetCurrentThreadCpuTime());
        write_profile();
        if (opts.net[0]) hprof_net_finish();
        break;
    }
}

/* heap=dump: the level-2 dump the HEAP DUMP section is made from.  The VM
 * disables GC for the whole dump; a dump that did not come is reported. */
static void request_heap_dump(void) {
    if (vmpi->RequestEvent(VMPI_EVENT_HEAP_DUMP, &(VMPI_HeapDumpArg){VMPI_DUMP_LEVEL_2}) != VMPI_OK) {
        fprintf(stderr, "hprof: the VM sent no level-2 heap dump\n");
        dump.failed = true;
    }
}

/* ---- the front end's commands (net=, hprof_net.h) ------------------------------------- */

/* HEAP SUMMARY, as one text line (the binary record's four totals). */
static void write_heap_summary(const char *date) {
    uint64_t live_bytes = 0, live_objects = 0, alloc_bytes = 0, alloc_objects = 0;
    for (size_t i = 0; i < sites.num_sites; i++) {
        const HprofSite *site = &sites.sites[i];
        live_bytes += site->live_bytes;
        live_objects += site->live_objects;
        alloc_bytes += site->alloc_bytes;
        alloc_objects += site->alloc_objects;
    }
    write_line("HEAP SUMMARY (live bytes = %llu, live objects = %llu, allocated bytes = %llu, "
               "allocated objects = %llu) %s\n",
               (unsigned long long)live_bytes, (unsigned long long)live_objects, (unsigned long long)alloc_bytes,
               (unsigned long long)alloc_objects, date);
}

static void control(const HprofCommand *command, VMPI_ThreadID env) {
    switch (command->flags) {
    case HPROF_CONTROL_ALLOC_TRACES_ON: alloc_traces = true; break;
    case HPROF_CONTROL_ALLOC_TRACES_OFF: alloc_traces = false; break;
    case HPROF_CONTROL_CLEAR_CPU: hprof_cpu_times_reset(&cpu_times, env, vmpi->GetCurrentThreadCpuTime()); break;
    case HPROF_CONTROL_SET_DEPTH: {
        int32_t depth = command->depth < HPROF_MAX_DEPTH ? command->depth : HPROF_MAX_DEPTH;
        VMPI_CallFrame *grown = realloc(frames, ((size_t)depth + 1) * sizeof *frames);
        if (grown) {
            frames = grown;
            opts.depth = depth;
            hprof_call_sites_clear(&call_site_traces); /* a site's trace was cut to the old depth */
        }
        break;
    }
    case HPROF_CONTROL_CPU_SAMPLING_ON:
    case HPROF_CONTROL_CPU_SAMPLING_OFF:
        if (!hprof_cpu_switches_set(&cpu_switches, command->thread, command->flags == HPROF_CONTROL_CPU_SAMPLING_ON))
            out_of_memory = true;
        break;
    }
}

/* format=b over net=: the profile is the binary stream, and the answers
 * below are text, so only the commands that answer nothing are served;
 * the others are skipped, with one word each time. */
static bool answers_in_text(const HprofCommand *command) {
    return command->tag != HPROF_CMD_EXIT && command->tag != HPROF_CMD_CONTROL;
}

/* One command, under the lock, its answer flushed to the front end.
 * Returns whether it asks the VM to exit. */
static bool serve_command(const HprofCommand *command, VMPI_ThreadID env) {
    if (opts.binary && answers_in_text(command)) {
        fprintf(stderr, "hprof: command 0x%02x skipped: format=b has no answer for it on the socket\n",
                (unsigned)command->tag);
        return false;
    }
    char date[64];
    date_now(date);
    if (!opts.binary) write_header(date);
    switch (command->tag) {
    case HPROF_CMD_DUMP_HEAP:
        write_new_threads();
        write_new_traces();
        hprof_dump_write(&dump, &out, date);
        break;
    case HPROF_CMD_ALLOC_SITES:
        write_new_traces();
        write_sites(date, command->cutoff, command->flags & HPROF_SITES_BY_ALLOCATION,
                    command->flags & HPROF_SITES_INCREMENTAL ? &sites_sent : NULL);
        if (!hprof_sites_sent_mark(&sites_sent, &sites)) out_of_memory = true;
        break;
    case HPROF_CMD_HEAP_SUMMARY: write_heap_summary(date); break;
    case HPROF_CMD_EXIT: return true;
    case HPROF_CMD_DUMP_TRACES:
        write_new_threads();
        write_new_traces();
        break;
    case HPROF_CMD_CPU_SAMPLES:
        write_new_traces();
        if (opts.cpu_times || opts.cpu_samples) {
            write_cpu_table(date, command->cutoff);
        } else { /* no CPU profile was asked for: no samples */
            write_line("CPU SAMPLES BEGIN (total = 0) %s\n", date);
            trace_output_text(&out, "CPU SAMPLES END\n");
        }
        break;
    case HPROF_CMD_CONTROL: control(command, env); break;
    default: break; /* FORCE GC is never queued: the reader runs it (hprof_net.h) */
    }
    trace_output_flush(&out);
    return false;
}

/* The commands queued, each under the lock; a heap dump is asked for
 * before the lock is taken (it comes back through notify_event).  At a
 * safepoint, or at JVM_SHUT_DOWN for those still queued. */
static void serve_commands(VMPI_ThreadID env) {
    HprofCommand command;
    while (!exit_requested && !closed && hprof_net_next_command(&command)) {
        if (command.tag == HPROF_CMD_DUMP_HEAP && !opts.binary) request_heap_dump();
        vmpi->RawMonitorEnter(lock.monitor);
        drain_batches();
        exit_requested = serve_command(&command, env);
        vmpi->RawMonitorExit(lock.monitor);
        if (hprof_net_lost(out.write_errno)) return;
    }
}

/* After the connection is lost, outside a collection: hprof stops, and
 * the program goes on without it (and without pprof= and folded= files). */
static void stop_profiling(void) {
    closed = true;
    hprof_export_abandon(&export);
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) vmpi->DisableEvent(wanted[i], NULL);
    vmpi->DisableEvent(VMPI_EVENT_METHOD_ENTRY, NULL);
    vmpi->DisableEvent(VMPI_EVENT_METHOD_EXIT, NULL);
}

static void notify_event(VMPI_Event *event) {
    int32_t code = event->event_type & ~VMPI_REQUESTED_EVENT;
    if (answers_object_class(event)) return; /* inside object_class_name, which holds the lock */
    if (code == VMPI_EVENT_OBJECT_ALLOC && !atomic_load(&lock.in_gc) && batch_alloc(event)) return;
    if (opts.net[0] && !closed && !atomic_load(&lock.in_gc)) {
        if (hprof_net_lost(out.write_errno)) {
            stop_profiling();
            return;
        }
        if (event->event_type == (VMPI_EVENT_DATA_DUMP_REQUEST | VMPI_REQUESTED_EVENT)) { /* the reader's */
            serve_commands(event->env_id);
            if (exit_requested) vmpi->ProfilerExit(0); /* JVM_SHUT_DOWN comes, and the exit dump */
            return;
        }
        if (code == VMPI_EVENT_JVM_SHUT_DOWN) serve_commands(event->env_id); /* those still queued */
    }
    /* The VM's heap, to check the table against, before the lock is taken:
     * the dump comes back through this function. */
    bool outside_gc = !closed && !atomic_load(&lock.in_gc);
    bool at_exit = code == VMPI_EVENT_JVM_SHUT_DOWN && opts.doe;
    if (at_exit && outside_gc && tracks_objects())
        vmpi->RequestEvent(VMPI_EVENT_HEAP_DUMP, &(VMPI_HeapDumpArg){VMPI_DUMP_LEVEL_0});
    if ((at_exit || code == VMPI_EVENT_DATA_DUMP_REQUEST) && outside_gc && opts.heap_dump) request_heap_dump();
    if ((at_exit || code == VMPI_EVENT_DATA_DUMP_REQUEST) && outside_gc && opts.monitor)
        vmpi->RequestEvent(VMPI_EVENT_MONITOR_DUMP, NULL);
    /* The sampler's last sample is taken before the lock is (it takes it). */
    if (code == VMPI_EVENT_JVM_SHUT_DOWN && opts.cpu_samples) hprof_sampler_stop(&sampler, atomic_load(&lock.in_gc));
    bool entered = agent_lock_before(vmpi, &lock, code);
    if (!closed && (code == VMPI_EVENT_GC_START || !atomic_load(&lock.in_gc))) drain_batches();
    if (!closed) handle_event(event);
    agent_lock_after(vmpi, &lock, code, entered);
}

/* ---- start-up -------------------------------------------------------------------------- */

/* The events only the object map needs. */
static bool is_heap_sites_event(int32_t code) {
    return code == VMPI_EVENT_OBJECT_ALLOC || code == VMPI_EVENT_OBJECT_FREE || code == VMPI_EVENT_OBJECT_MOVE ||
           code == VMPI_EVENT_ARENA_DELETE;
}

VMPI_EXPORT int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)reserved;
    switch (hprof_parse_options(options, &opts)) {
    case HPROF_PARSE_OK: break;
    case HPROF_PARSE_HELP: /* the manual's `help`: the usage, and the VM stops with success */
        hprof_print_usage(stdout);
        fflush(stdout);
        exit(0);
    case HPROF_PARSE_ERROR: return VMPI_ERR;
    }
    if (!agent_get_env(vm, "hprof", &vmpi)) return VMPI_ERR;
    frames = calloc((size_t)opts.depth + 1, sizeof *frames);
    if (!frames || !hprof_sites_init(&sites) || !idmap_init(&class_ids, 64) || !idmap_init(&method_ids, 256) ||
        !hprof_dump_init(&dump) ||
        (opts.cpu_samples && !hprof_sampler_init(&sampler, vmpi, &lock, opts.interval, opts.depth, record_sample))) {
        fprintf(stderr, "hprof: out of memory\n");
        return VMPI_ERR;
    }
    if (opts.net[0]) { /* the profile goes to the front end; messages name it */
        if (!hprof_net_connect(opts.net, &out) || !agent_lock_create(vmpi, "hprof", &lock)) return VMPI_ERR;
        snprintf(opts.file, sizeof opts.file, "%s", opts.net);
    } else if (!agent_open_output(vmpi, "hprof", opts.file, &out, &lock)) {
        return VMPI_ERR;
    }
    FILE *stream = opts.binary ? hprof_binary_stream(&out) : NULL;
    if (opts.binary && (!stream || !hprof_binary_open(&binary, stream, vmpi->GetCollectorName))) {
        fprintf(stderr, "hprof: out of memory\n");
        trace_output_abandon(&out);
        return VMPI_ERR;
    }
    if (opts.binary) hprof_binary_control_settings(&binary, tracks_objects(), opts.cpu_samples, opts.depth);
    if (!hprof_export_open(&export, &opts)) {
        trace_output_abandon(&out);
        return VMPI_ERR;
    }
    vmpi->NotifyEvent = notify_event;
    if (tracks_objects() && opts.depth > 0 && vmpi->EnableCallSites(opts.depth) == VMPI_OK)
        call_site_depth = opts.depth;
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
        if (tracks_objects() || !is_heap_sites_event(wanted[i]) || (follows_samples() && wanted[i] != VMPI_EVENT_OBJECT_ALLOC))
            vmpi->EnableEvent(wanted[i], NULL);
    if (!hprof_sampled_init(&sampled, opts.sample_interval, opts.sample_live)) {
        fprintf(stderr, "hprof: out of memory\n");
        trace_output_abandon(&out);
        return VMPI_ERR;
    }
    hprof_cpu_switches_init(&cpu_switches);
    if (samples_heap()) {
        vmpi->SetHeapSamplingInterval(opts.sample_interval);
        vmpi->EnableEvent(VMPI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    }
    /* JVM_INIT_DONE starts the sampler thread and the command reader. */
    if (opts.cpu_samples || opts.net[0]) vmpi->EnableEvent(VMPI_EVENT_JVM_INIT_DONE, NULL);
    if (opts.monitor) {
        vmpi->EnableEvent(VMPI_EVENT_RAW_MONITOR_CONTENDED_ENTER, NULL);
        vmpi->EnableEvent(VMPI_EVENT_RAW_MONITOR_CONTENDED_ENTERED, NULL);
        vmpi->EnableEvent(VMPI_EVENT_MONITOR_CONTENDED_ENTER, NULL);
        vmpi->EnableEvent(VMPI_EVENT_MONITOR_CONTENDED_ENTERED, NULL);
        vmpi->EnableEvent(VMPI_EVENT_MONITOR_WAIT, NULL);
        vmpi->EnableEvent(VMPI_EVENT_MONITOR_WAITED, NULL);
    }
    if (opts.cpu_times || opts.cpu_old) {
        vmpi->EnableEvent(VMPI_EVENT_METHOD_ENTRY, NULL);
        vmpi->EnableEvent(VMPI_EVENT_METHOD_EXIT, NULL);
    }
    return VMPI_OK;
}
