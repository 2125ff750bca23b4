/*
 * heapsize.h -- how big a heap is between collections: the one sizing
 * policy every collector follows, after every collection, modelled on the
 * HotSpot JVM's free-ratio bounds (-XX:MinHeapFreeRatio,
 * -XX:MaxHeapFreeRatio), set to 50% and 75% rather than the JVM's 40% and
 * 70%: at least half free after a collection is Lua's pause of 200%
 * (collect when the heap has doubled), and it buys back most of the speed
 * the copying and compacting collectors lost to collecting more often
 * than a fixed 64 MiB heap did, while every benchmark's peak RSS stays
 * below lua5.4's where it was (docs/heap-sizing.md, "Memory against
 * speed").
 *
 * A collector's capacity (gc->stats.capacity_bytes, GC_FINISH's
 * total_object_space) is what objects may occupy before the next
 * collection.  At the end of each collection, with `live` bytes surviving
 * and `request` bytes still to allocate (the request that triggered it, or
 * 0), the capacity becomes
 *
 *     needed = live + request
 *     at least needed / (1 - GC_HEAP_MIN_FREE_PERCENT/100)   (grow: >= 50% free)
 *     at most  needed / (1 - GC_HEAP_MAX_FREE_PERCENT/100)   (shrink: <= 75% free)
 *     and within [floor, ceiling]
 *
 * and stays as it was when it already lies between the two bounds, so a
 * live set that wobbles does not resize the heap at every collection.  The
 * floor is the initial heap (-Xms) and the ceiling the maximum (--heap,
 * -Xmx), each in the collector's own terms (gc_heap_floor): half of each
 * for a semispace, the part past the young block for a generational old
 * generation.  When needed exceeds the ceiling the capacity is the
 * ceiling, the request does not fit and the VM reports out of memory with
 * the maximum in its message (oom.c).
 *
 * Giving memory back (the collector's part, docs/heap-sizing.md):
 * a region (region.h) hands the pages past its lowered limit back with
 * madvise(MADV_DONTNEED) (gc_region_set_budget); marksweep and refcount
 * (budget.h) trim their free pool and ask jemalloc to purge the arena's
 * unused pages ("arena.<i>.purge", gc_memory_purge) when their capacity
 * falls.
 *
 * Invariant: floor <= capacity <= ceiling, and capacity is a multiple of
 * OBJ_ALIGN, at every collection's end.
 */
#ifndef GCLAB_GC_HEAPSIZE_H
#define GCLAB_GC_HEAPSIZE_H

#include <stddef.h>

#include "gc/gc.h"

#define GC_HEAP_MIN_FREE_PERCENT 50u
#define GC_HEAP_MAX_FREE_PERCENT 75u

/* The capacity after a collection (see the top).  `floor` <= `ceiling`. */
size_t gc_heap_size_for(size_t capacity, size_t live, size_t request, size_t floor, size_t ceiling);

/* The initial heap (-Xms) as a part of `ceiling`, the collector's share of
 * the maximum (config.heap_bytes): its `ceiling` / heap_bytes fraction of
 * config.initial_heap_bytes, or `ceiling` itself when no initial heap was
 * given (0: a heap of fixed size, as with -Xms equal to -Xmx). */
size_t gc_heap_floor(const GcConfig *config, size_t ceiling);

#endif
