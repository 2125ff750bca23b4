/*
 * budget.h -- the heap's size for collectors whose objects are blocks of
 * their own from the memory layer (memory.h), allocated and freed one by
 * one (marksweep, refcount).  Their heap is not a region that fills up, so
 * its capacity (gc->stats.capacity_bytes, sized by heapsize.h between
 * -Xms and --heap) is a budget on the sum of obj_size over the allocated
 * objects:
 *
 *   gc_budget_fits     would `bytes` more stay within the budget?
 *   gc_budget_settle   at the end of a collection, after the frees: the
 *                      budget resized from what survived (heapsize.h),
 *                      the free pool trimmed to what can be allocated
 *                      before the budget is reached again, and, when the
 *                      budget fell, the freed pages purged back to the
 *                      system.
 *
 * Statistics follow gc.h's one rule: gc_new_object counts each object
 * allocated, the collector counts each free, and what is in use is the
 * difference (gc_used_bytes).  While the VM has disabled collection a heap
 * grows past its budget, as every collector's does (gc.h): there is nothing
 * else to do, and it stops only when the memory layer refuses a block.
 */
#ifndef GCLAB_GC_BUDGET_H
#define GCLAB_GC_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gc/gc.h"
#include "heapsize.h"
#include "memory.h"

static inline bool gc_budget_fits(const Gc *gc, size_t bytes) {
    return gc_used_bytes(gc) + bytes <= gc->stats.capacity_bytes;
}

/* `request`: what the allocation that collected still needs, or 0. */
static inline void gc_budget_settle(Gc *gc, GcMemory *memory, size_t request) {
    uint64_t before = gc->stats.capacity_bytes;
    size_t ceiling = gc->config.heap_bytes;
    gc->stats.capacity_bytes = gc_heap_size_for((size_t)before, (size_t)gc_used_bytes(gc), request,
                                                gc_heap_floor(&gc->config, ceiling), ceiling);
    /* Until the next collection at most the rest of the budget is
     * allocated, so pooled blocks beyond that would only sit idle. */
    gc_memory_trim(memory, (size_t)(gc_total_bytes(gc) - gc_used_bytes(gc)));
    if (gc->stats.capacity_bytes < before) gc_memory_purge(memory);
}

#endif
