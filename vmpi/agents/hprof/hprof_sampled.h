/*
 * hprof_sampled.h -- hprof's sampled allocation sites (sample=BYTES): the
 * SITES table estimated from heap sampling's SAMPLED_OBJECT_ALLOC events
 * alone (JVMTI 11, SetHeapSamplingInterval), without OBJECT_ALLOC, so that
 * the program runs at nearly full speed (docs/hprof.md).
 *
 * A site is a trace (numbered with heap=sites' traces, hprof_sites.h) and a
 * class.  Each sample adds its weight to its site's estimates: the VM
 * samples an object of s bytes with probability p = 1 - exp(-s / interval)
 * (vmpi/heap_sampling.h), so a sample stands for 1 / p objects and s / p
 * bytes -- about `interval` bytes for objects much smaller than the
 * interval, and exactly itself at interval 0.  Summed over the samples,
 * these are unbiased estimates of the bytes and objects each site
 * allocated.  Live bytes cannot be had this way: that would take
 * OBJECT_FREE and OBJECT_MOVE for every object, which costs what heap=sites
 * costs.
 *
 * Invariant: a site's `samples` is the number of samples added to it and
 * its estimates the sum of their weights.  Samples come only between
 * collections (they are allocations), so adding one may allocate memory.
 */
#ifndef GCLAB_HPROF_SAMPLED_H
#define GCLAB_HPROF_SAMPLED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/trace_output.h"
#include "hprof_sites.h"
#include "vmpi.h"

typedef struct HprofSampledSite {
    HprofSite site;             /* trace, is_array, class_id; the live and
                                   allocated counts stay 0 */
    uint64_t samples;
    double bytes, objects;      /* the estimates */
} HprofSampledSite;

typedef struct HprofSampled {
    int32_t interval;           /* the sampling interval asked of the VM */
    HprofSampledSite *sites;
    size_t num_sites, sites_capacity;
    uint64_t samples;
    bool out_of_memory;         /* a sample could not be counted */
} HprofSampled;

void hprof_sampled_init(HprofSampled *s, int32_t interval);

/* A SAMPLED_OBJECT_ALLOC whose call trace is number `trace` (hprof_sites_trace;
 * UINT32_MAX if that ran out of memory). */
void hprof_sampled_add(HprofSampled *s, const VMPI_Event *sample, uint32_t trace);

/* The sampled SITES table, ordered by estimated bytes, cut at `cutoff`;
 * class_name names a site's class (in `buffer`) as the heap=sites table
 * does. */
void hprof_sampled_write(const HprofSampled *s, TraceOutput *out, double cutoff, const char *date,
                         const char *(*class_name)(const HprofSite *site, char *buffer, size_t size));

#endif
