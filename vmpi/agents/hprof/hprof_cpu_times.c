/*
 * hprof_cpu_times.c -- call counts and times per trace (see
 * hprof_cpu_times.h).
 */
#include "hprof_cpu_times.h"

#include <stdlib.h>
#include <string.h>

/* The thread's stack, added if new; NULL if memory ran out.  Programs have
 * few threads and the last one asked for is nearly always the next. */
static HprofThreadCalls *thread_calls(HprofCpuTimes *c, VMPI_ThreadID env) {
    for (size_t i = c->num_threads; i-- > 0;)
        if (c->threads[i].env == env) return &c->threads[i];
    HprofThreadCalls *grown = realloc(c->threads, (c->num_threads + 1) * sizeof *grown);
    if (!grown) return NULL;
    c->threads = grown;
    grown[c->num_threads] = (HprofThreadCalls){.env = env};
    return &grown[c->num_threads++];
}

/* Doubles an array's capacity until index `needed - 1` fits, zeroing the
 * new part. */
static bool grow_zeroed(void **items, size_t *capacity, size_t needed, size_t item_size) {
    if (needed <= *capacity) return true;
    size_t cap = *capacity ? *capacity : 64;
    while (cap < needed) cap *= 2;
    char *grown = realloc(*items, cap * item_size);
    if (!grown) return false;
    memset(grown + *capacity * item_size, 0, (cap - *capacity) * item_size);
    *items = grown;
    *capacity = cap;
    return true;
}

void hprof_cpu_times_enter(HprofCpuTimes *c, VMPI_ThreadID env, VMPI_MethodID method, uint32_t trace,
                           int64_t now) {
    HprofThreadCalls *t = thread_calls(c, env);
    if (!t || trace == UINT32_MAX ||
        !grow_zeroed((void **)&c->costs, &c->costs_capacity, (size_t)trace + 1, sizeof *c->costs) ||
        !grow_zeroed((void **)&t->calls, &t->capacity, t->depth + 1, sizeof *t->calls)) {
        c->lost++;
        return;
    }
    c->costs[trace].count++;
    t->calls[t->depth++] = (HprofCall){.method_id = method, .trace = trace, .start = now};
    t->last_time = now;
}

void hprof_cpu_times_sample(HprofCpuTimes *c, uint32_t trace) {
    if (trace == UINT32_MAX ||
        !grow_zeroed((void **)&c->costs, &c->costs_capacity, (size_t)trace + 1, sizeof *c->costs)) {
        c->lost++;
        return;
    }
    c->costs[trace].count++;
    c->costs[trace].self_time++;
}

/* Ends the thread's innermost call at `now`. */
static void end_call(HprofCpuTimes *c, HprofThreadCalls *t, int64_t now) {
    HprofCall *call = &t->calls[--t->depth];
    int64_t elapsed = now > call->start ? now - call->start : 0;
    int64_t self = elapsed > call->callees ? elapsed - call->callees : 0;
    c->costs[call->trace].self_time += self;
    c->costs[call->trace].total_time += elapsed;
    if (t->depth > 0) t->calls[t->depth - 1].callees += elapsed;
}

void hprof_cpu_times_exit(HprofCpuTimes *c, VMPI_ThreadID env, VMPI_MethodID method, int64_t now) {
    HprofThreadCalls *t = thread_calls(c, env);
    if (!t) return;
    t->last_time = now;
    /* An entry lost for want of memory leaves no call: an exit that matches
     * none on the stack is its own, and one that matches a call further out
     * ends the calls whose exits were lost with it. */
    size_t match = t->depth;
    while (match > 0 && t->calls[match - 1].method_id != method) match--;
    if (match == 0) return;
    while (t->depth >= match) end_call(c, t, now);
}

VMPI_MethodID hprof_cpu_times_caller(const HprofCpuTimes *c, VMPI_ThreadID env) {
    for (size_t i = c->num_threads; i-- > 0;) {
        const HprofThreadCalls *t = &c->threads[i];
        if (t->env == env) return t->depth ? t->calls[t->depth - 1].method_id : NULL;
    }
    return NULL;
}

void hprof_cpu_times_close(HprofCpuTimes *c, VMPI_ThreadID env, int64_t now) {
    for (size_t i = 0; i < c->num_threads; i++) {
        HprofThreadCalls *t = &c->threads[i];
        int64_t end = t->env == env ? now : t->last_time;
        while (t->depth > 0) end_call(c, t, end);
    }
}

void hprof_cpu_times_reset(HprofCpuTimes *c, VMPI_ThreadID env, int64_t now) {
    if (c->costs) memset(c->costs, 0, c->costs_capacity * sizeof *c->costs);
    for (size_t i = 0; i < c->num_threads; i++) {
        HprofThreadCalls *t = &c->threads[i];
        int64_t start = t->env == env ? now : t->last_time;
        for (size_t d = 0; d < t->depth; d++) {
            t->calls[d].start = start;
            t->calls[d].callees = 0;
        }
    }
}

static int by_self_time(const void *a, const void *b) {
    const HprofCpuRow *x = a, *y = b;
    if (x->self_time != y->self_time) return x->self_time > y->self_time ? -1 : 1;
    return x->trace < y->trace ? -1 : x->trace > y->trace;
}

ptrdiff_t hprof_cpu_times_rows(const HprofCpuTimes *c, size_t num_traces, HprofCpuRow **rows, int64_t *total) {
    size_t known = num_traces < c->costs_capacity ? num_traces : c->costs_capacity;
    *rows = malloc((known ? known : 1) * sizeof **rows);
    *total = 0;
    if (!*rows) return -1;
    size_t n = 0;
    for (size_t i = 0; i < known; i++) {
        const HprofCost *cost = &c->costs[i];
        if (!cost->count) continue; /* a trace of heap=sites only */
        (*rows)[n++] = (HprofCpuRow){(uint32_t)i, cost->count, cost->self_time, cost->total_time};
        *total += cost->self_time;
    }
    qsort(*rows, n, sizeof **rows, by_self_time);
    return (ptrdiff_t)n;
}
