/*
 * budget.h -- --heap for collectors whose objects are blocks of their own
 * from the memory layer (memory.h), allocated and freed one by one
 * (marksweep, refcount).  Their heap is not a region that fills up, so
 * --heap (config.heap_bytes) is a budget on the sum of obj_size over the
 * allocated objects:
 *
 *   gc_budget_fits     would `bytes` more stay within the budget?
 *   gc_budget_admit    makes a zeroed block a new object: fills its header,
 *                      counts it in the statistics, posts OBJECT_ALLOC;
 *   gc_budget_settle   at the end of a collection, after the frees:
 *                      total_bytes, and the free pool trimmed to what can
 *                      be allocated before the budget is reached again.
 *
 * Invariant, given that the collector counts each free in objects_freed,
 * bytes_freed and used_* as it frees: gc->stats.used_objects / used_bytes
 * are the count and byte sum of the allocated objects; total_bytes is
 * max(heap_bytes, used_bytes) after every collection, and rises with
 * used_bytes in between (while the VM has disabled collection a heap may
 * grow past its budget: there is nothing else to do).
 */
#ifndef GCLAB_GC_BUDGET_H
#define GCLAB_GC_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../gc.h"
#include "collect.h"
#include "memory.h"

static inline bool gc_budget_fits(const Gc *gc, size_t bytes) {
    return gc->stats.used_bytes + bytes <= gc->config.heap_bytes;
}

/* `block` (zero-filled, `bytes` == obj_size_for(cls, length)) becomes an
 * object of class `cls` in arena `arena_id`, with gc->fresh_gc_word.  An
 * agent may walk the heap from its OBJECT_ALLOC handler, so the caller
 * lists the block where its walk_heap looks before it calls this. */
static inline Obj *gc_budget_admit(Gc *gc, void *block, uint32_t arena_id, const RtClass *cls,
                                   uint32_t length, size_t bytes) {
    GcStats *stats = &gc->stats;
    stats->used_objects++;
    stats->used_bytes += bytes;
    if (GC_UNLIKELY(stats->used_bytes > stats->total_bytes)) stats->total_bytes = stats->used_bytes;
    return gc_new_object(gc, block, arena_id, cls, length, bytes);
}

static inline void gc_budget_settle(Gc *gc, GcMemory *memory) {
    GcStats *stats = &gc->stats;
    gc_stats_set_total(stats, gc->config.heap_bytes);
    /* Until the next collection at most the rest of the budget is
     * allocated, so pooled blocks beyond that would only sit idle. */
    gc_memory_trim(memory, (size_t)(stats->total_bytes - stats->used_bytes));
}

#endif
