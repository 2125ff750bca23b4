/*
 * hprof_stacks.c -- hprof's tables as stacks with values (see
 * hprof_stacks.h).
 */
#include "hprof_stacks.h"

#include <stdlib.h>
#include <string.h>

#include "common/grow.h"

/* Go's heap profile's kinds, in its order (runtime/pprof), so that
 * `go tool pprof -sample_index=inuse_space` and the rest work as on Go's. */
const HprofValueType hprof_heap_value_types[HPROF_HEAP_VALUE_TYPES] = {
    {"alloc_objects", "count"}, {"alloc_space", "bytes"},
    {"inuse_objects", "count"}, {"inuse_space", "bytes"},
};

const HprofValueType hprof_cpu_times_value_types[HPROF_CPU_TIMES_VALUE_TYPES] = {
    {"calls", "count"}, {"cpu", "nanoseconds"},
};

/* Go's CPU profile's kinds, in its order (runtime/pprof). */
const HprofValueType hprof_cpu_samples_value_types[HPROF_CPU_SAMPLES_VALUE_TYPES] = {
    {"samples", "count"}, {"cpu", "nanoseconds"},
};

void hprof_stacks_init(HprofStacks *s, const HprofSites *sites, HprofMethodNamer *name_method) {
    *s = (HprofStacks){.sites = sites, .name_method = name_method};
}

void hprof_stacks_free(HprofStacks *s) {
    for (size_t i = 0; i < s->num_stacks; i++) free(s->stacks[i].class_name);
    free(s->stacks);
    hprof_stacks_init(s, s->sites, s->name_method);
}

size_t hprof_stacks_add_types(HprofStacks *s, const HprofValueType *types, size_t n) {
    size_t first = s->num_types;
    /* The tables that can be asked for together have fewer kinds than the
     * room: running out is a mistake in the code, not in the input. */
    if (first + n > HPROF_MAX_VALUE_TYPES) abort();
    memcpy(&s->types[first], types, n * sizeof *types);
    s->num_types += n;
    return first;
}

HprofStack *hprof_stacks_add(HprofStacks *s, uint32_t trace, const char *class_name) {
    if (!agent_grow((void **)&s->stacks, &s->capacity, s->num_stacks + 1, sizeof *s->stacks, 256)) return NULL;
    char *name = NULL;
    if (class_name && !(name = strdup(class_name))) return NULL;
    HprofStack *stack = &s->stacks[s->num_stacks++];
    *stack = (HprofStack){.trace = trace, .class_name = name};
    return stack;
}

ptrdiff_t hprof_stacks_type_index(const HprofStacks *s, const char *type) {
    for (size_t i = 0; i < s->num_types; i++)
        if (strcmp(s->types[i].type, type) == 0) return (ptrdiff_t)i;
    return -1;
}

bool hprof_stacks_add_sites(HprofStacks *s, HprofSiteClassNamer *class_name) {
    size_t first = hprof_stacks_add_types(s, hprof_heap_value_types, HPROF_HEAP_VALUE_TYPES);
    for (size_t i = 0; i < s->sites->num_sites; i++) {
        const HprofSite *site = &s->sites->sites[i];
        char name[256];
        HprofStack *stack = hprof_stacks_add(s, site->trace, class_name(site, name, sizeof name));
        if (!stack) return false;
        int64_t *values = &stack->values[first];
        values[0] = (int64_t)site->alloc_objects;
        values[1] = (int64_t)site->alloc_bytes;
        values[2] = (int64_t)site->live_objects;
        values[3] = (int64_t)site->live_bytes;
    }
    return true;
}

/* A CPU table's rows (hprof_cpu_times_rows) under its two kinds, `types`:
 * the count, then the row's self time times `nanos_per_unit`, in
 * nanoseconds (1 for cpu=times, whose self time is in nanoseconds; the
 * interval for cpu=samples, whose sample is one unit).  False if memory ran
 * out. */
static bool add_cpu_rows(HprofStacks *s, const HprofCpuTimes *costs, const HprofValueType types[2],
                         int64_t nanos_per_unit) {
    size_t first = hprof_stacks_add_types(s, types, 2);
    HprofCpuRow *rows;
    int64_t total;
    ptrdiff_t num_rows = hprof_cpu_times_rows(costs, s->sites->num_traces, &rows, &total);
    if (num_rows < 0) return false;
    ptrdiff_t i = 0;
    for (HprofStack *stack; i < num_rows && (stack = hprof_stacks_add(s, rows[i].trace, NULL)); i++) {
        stack->values[first] = (int64_t)rows[i].count;
        stack->values[first + 1] = rows[i].self_time * nanos_per_unit;
    }
    free(rows);
    return i == num_rows;
}

bool hprof_stacks_add_cpu_times(HprofStacks *s, const HprofCpuTimes *cpu_times) {
    return add_cpu_rows(s, cpu_times, hprof_cpu_times_value_types, 1);
}

bool hprof_stacks_add_cpu_samples(HprofStacks *s, const HprofCpuTimes *cpu_samples, int64_t interval_nanos) {
    return add_cpu_rows(s, cpu_samples, hprof_cpu_samples_value_types, interval_nanos);
}
