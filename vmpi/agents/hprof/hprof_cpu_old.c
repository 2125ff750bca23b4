/*
 * hprof_cpu_old.c -- call counts and times per pair of methods (see
 * hprof_cpu_old.h).
 */
#include "hprof_cpu_old.h"

#include <stdlib.h>

#include "common/grow.h"

uint32_t hprof_cpu_old_pair(HprofCpuOld *o, VMPI_MethodID callee, VMPI_MethodID caller) {
    for (size_t i = o->num_pairs; i-- > 0;)
        if (o->pairs[i].callee == callee && o->pairs[i].caller == caller) return (uint32_t)i;
    if (!agent_grow((void **)&o->pairs, &o->capacity, o->num_pairs + 1, sizeof *o->pairs, 64)) return UINT32_MAX;
    o->pairs[o->num_pairs] = (HprofCallPair){callee, caller};
    return (uint32_t)o->num_pairs++;
}

static int by_count(const void *a, const void *b) {
    const HprofCpuRow *x = a, *y = b;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return x->trace < y->trace ? -1 : x->trace > y->trace;
}

ptrdiff_t hprof_cpu_old_rows(const HprofCpuOld *o, const HprofCpuTimes *costs, HprofCpuRow **rows) {
    int64_t total;
    ptrdiff_t n = hprof_cpu_times_rows(costs, o->num_pairs, rows, &total);
    if (n > 0) qsort(*rows, (size_t)n, sizeof **rows, by_count);
    return n;
}
