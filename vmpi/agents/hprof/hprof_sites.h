/*
 * hprof_sites.h -- hprof's allocation bookkeeping: stack traces, allocation
 * sites, and every live object's site.
 *
 * A trace is the `depth` innermost frames (method, line) of an allocation,
 * deduplicated and numbered from 300001 in order of first use, as the HPROF
 * agent manual's traces are.  A site is a trace and a class (class ID and
 * array kind); it counts allocated and live bytes and objects.  Live objects
 * sit in an AddrMap (vmpi/agents/common/addrmap.h) whose tag is their site.
 *
 * Invariant: a site's live bytes and objects are the sum over the objects
 * in the map tagged with it.  OBJECT_FREE, ARENA_DELETE and an ID that an
 * OBJECT_ALLOC or OBJECT_MOVE reuses take an object out; OBJECT_MOVE re-keys
 * it.  hprof_sites_alloc allocates memory with malloc, and the agent calls
 * it outside collections only (JVMPI 1.2, section 1.5); a move, inside
 * one, may add a page to the object map, which takes it from mmap.
 */
#ifndef GCLAB_HPROF_SITES_H
#define GCLAB_HPROF_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/addrmap.h"
#include "vmpi.h"

#define HPROF_FIRST_TRACE 300001

typedef struct HprofTrace {
    uint64_t hash;
    uint32_t thread;        /* thread number with thread=y, else 0 */
    int32_t num_frames;
    size_t first_frame;     /* index into HprofSites.frames */
} HprofTrace;

typedef struct HprofSite {
    uint32_t trace;         /* index into HprofSites.traces */
    int32_t is_array;       /* VMPI_NORMAL_OBJECT, VMPI_CLASS or a primitive kind */
    uint64_t class_id;      /* the class, or the element class of a VMPI_CLASS array */
    uint64_t live_bytes, live_objects, alloc_bytes, alloc_objects;
} HprofSite;

typedef struct HprofSites {
    HprofTrace *traces;
    size_t num_traces, traces_capacity;
    VMPI_CallFrame *frames;
    size_t num_frames, frames_capacity;
    uint32_t *trace_index;  /* open addressing: trace number + 1, 0 empty */
    size_t trace_index_capacity;
    HprofSite *sites;
    size_t num_sites, sites_capacity;
    uint32_t *site_index;   /* open addressing: site number + 1, 0 empty */
    size_t site_index_capacity;
    AddrMap objects;        /* live object ID -> arena, size, tag = site */
    uint64_t untracked;     /* objects lost for want of memory */
} HprofSites;

/* What hprof_sites_alloc records of an OBJECT_ALLOC. */
typedef struct HprofAlloc {
    uint64_t obj, class_id;
    int32_t arena, is_array;
    uint32_t size;
} HprofAlloc;

static inline HprofAlloc hprof_alloc_of(const VMPI_Event *alloc) {
    return (HprofAlloc){.obj = (uint64_t)(uintptr_t)alloc->u.obj_alloc.obj_id,
                        .class_id = (uint64_t)(uintptr_t)alloc->u.obj_alloc.class_id,
                        .arena = (int32_t)(intptr_t)alloc->u.obj_alloc.arena_id,
                        .is_array = alloc->u.obj_alloc.is_array,
                        .size = (uint32_t)alloc->u.obj_alloc.size};
}

bool hprof_sites_init(HprofSites *s);

/* OBJECT_ALLOC, with the allocating thread's call trace (already cut to
 * the wanted depth) and its thread number for thread=y (else 0). */
void hprof_sites_alloc(HprofSites *s, const HprofAlloc *alloc, const VMPI_CallTrace *trace,
                       uint32_t thread);
/* The number (index into sites) of the site of a trace's number and a
 * class, added if new; UINT32_MAX if memory ran out or `trace_number` is
 * UINT32_MAX. */
uint32_t hprof_sites_site(HprofSites *s, uint32_t trace_number, int32_t is_array, uint64_t class_id);
/* OBJECT_ALLOC with its site's number already known (hprof_sites_site);
 * UINT32_MAX, memory having run out, leaves the object untracked. */
void hprof_sites_alloc_at(HprofSites *s, const HprofAlloc *alloc, uint32_t site_number);
/* The number (index into traces) of a call trace (already cut to the
 * wanted depth) with thread number `thread` (0 without thread=y), added if
 * new; UINT32_MAX if memory ran out.  cpu=times shares the traces. */
uint32_t hprof_sites_trace(HprofSites *s, const VMPI_CallTrace *trace, uint32_t thread);
void hprof_sites_free_object(HprofSites *s, uint64_t obj_id);
void hprof_sites_move(HprofSites *s, uint64_t obj_id, int32_t new_arena, uint64_t new_obj_id);
void hprof_sites_delete_arena(HprofSites *s, int32_t arena_id);

#endif
