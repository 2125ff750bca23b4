/*
 * hprof_sampled.h -- hprof's sampled allocation sites (sample=BYTES): the
 * SITES table estimated from heap sampling's SAMPLED_OBJECT_ALLOC events
 * alone (JVMTI 11, SetHeapSamplingInterval), without OBJECT_ALLOC, so that
 * the program runs at nearly full speed (docs/hprof.md).
 *
 * A site is a trace (numbered with heap=sites' traces, hprof_sites.h) and a
 * class.  Each sample adds its weight to its site's estimates: the VM
 * samples an object of s bytes with probability p = 1 - exp(-s / interval)
 * (vmpi/runtime/heap_sampling.h), so a sample stands for 1 / p objects and s / p
 * bytes -- about `interval` bytes for objects much smaller than the
 * interval, and exactly itself at interval 0.  Summed over the samples,
 * these are unbiased estimates of the bytes and objects each site
 * allocated.
 *
 * Live estimates (sample_live=y): the sampled objects are followed as heap=sites follows
 * every object, in a map of their own (OBJECT_FREE takes one out,
 * OBJECT_MOVE re-keys it, ARENA_DELETE empties its arena, an ID a sample
 * reuses was freed unreported), and a site's live estimates are the
 * weights of its sampled objects still alive: each survives or dies with
 * the objects it stands for, so these are unbiased estimates of the live
 * bytes and objects, as JVMTI heap sampling's live-heap profiles are made
 * (JVMTI 11, SampledObjectAlloc, with the object's collection followed).
 * The other objects' frees and moves still reach the agent: a call and a
 * map lookup each, in the collections only, never at an allocation -- but
 * in a program whose collections free or move most of what it allocates,
 * that is most of the cost (docs/hprof.md), so they are asked for.
 *
 * Invariant: a site's `samples` is the number of samples added to it and
 * its allocated estimates the sum of their weights; its `live_samples` the
 * number of its samples in the map and its live estimates the sum of their
 * weights.  Samples come only between collections (they are allocations),
 * so adding one may allocate memory; hprof_sampled_reserve at GC_START
 * makes room for every move, so that nothing between GC_START and
 * GC_FINISH allocates (JVMPI 1.2, section 1.5).
 */
#ifndef GCLAB_HPROF_SAMPLED_H
#define GCLAB_HPROF_SAMPLED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/idmap.h"
#include "common/trace_output.h"
#include "hprof_sites.h"
#include "hprof_stacks.h"
#include "vmpi.h"

typedef struct HprofSampledSite {
    HprofSite site;             /* trace, is_array, class_id; the exact live and
                                   allocated counts stay 0 */
    uint64_t samples, live_samples;
    double bytes, objects;      /* the allocated estimates */
    double live_bytes, live_objects;
} HprofSampledSite;

typedef struct HprofSampled {
    int32_t interval;           /* the sampling interval asked of the VM */
    bool live;                  /* sample_live=y: live estimates, `objects` followed */
    HprofSampledSite *sites;
    size_t num_sites, sites_capacity;
    IdMap objects;              /* with `live`, the sampled objects alive: ID -> arena,
                                   size, tag = site */
    uint64_t samples;
    bool out_of_memory;         /* a sample could not be counted */
} HprofSampled;

/* False if out of memory. */
bool hprof_sampled_init(HprofSampled *s, int32_t interval, bool live);

/* A SAMPLED_OBJECT_ALLOC whose call trace is number `trace` (hprof_sites_trace;
 * UINT32_MAX if that ran out of memory). */
void hprof_sampled_add(HprofSampled *s, const VMPI_Event *sample, uint32_t trace);

/* OBJECT_FREE, OBJECT_MOVE and ARENA_DELETE, for the sampled objects
 * (with `live` only). */
void hprof_sampled_free_object(HprofSampled *s, uint64_t obj_id);
void hprof_sampled_move(HprofSampled *s, uint64_t obj_id, int32_t new_arena, uint64_t new_obj_id);
void hprof_sampled_delete_arena(HprofSampled *s, int32_t arena_id);
/* At GC_START: room for every move.  False if memory ran out. */
bool hprof_sampled_reserve(HprofSampled *s);

/* The sampled SITES table, ordered by estimated live bytes (then
 * allocated) as the SITES table is, cut at `cutoff` of the live bytes;
 * without `live`, only the allocated estimates, ordered and cut by them.
 * class_name names a site's class (in `buffer`) as the heap=sites table
 * does. */
void hprof_sampled_write(const HprofSampled *s, TraceOutput *out, double cutoff, const char *date,
                         const char *(*class_name)(const HprofSite *site, char *buffer, size_t size));

/* For pprof= and folded=: one stack per sampled site under the heap
 * profile's four kinds (the two alloc_ ones without `live`), its estimates
 * rounded to whole bytes and objects.
 * False if memory ran out. */
bool hprof_sampled_add_stacks(const HprofSampled *s, HprofStacks *stacks,
                              const char *(*class_name)(const HprofSite *site, char *buffer, size_t size));

#endif
