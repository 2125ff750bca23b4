/*
 * region.h -- a contiguous block of heap memory that objects are carved out
 * of with a bump pointer: the heap of a compacting collector, a semispace, a
 * nursery.  It is what gc_alloc's inline fast path (gc.h) allocates from.
 *
 *     start            top              limit             end
 *       | objects ...   | free, all zero  | reserve, zero   |
 *
 *   [start, top)    the objects, back to back (sizes are multiples of
 *                   OBJ_ALIGN, so each header follows the last object's
 *                   obj_size bytes, and a walk can parse the region);
 *   [top, limit)    free; [start, limit) is the budget (--heap, a
 *                   semispace's half, a nursery's --young);
 *   [limit, end)    an optional reserve past the budget, which a collector
 *                   may use when it must not collect (VMPI DisableGC).
 *
 * Invariants:
 *   - every byte in [top, end) is zero, because gc_alloc does not clear the
 *     memory it hands out: whoever lowers top (a compaction, an emptied
 *     semispace) zero-fills what it gives back (gc_region_cut);
 *   - while the region is the one published to the fast path
 *     (gc->bump_ptr != NULL, see gc_region_publish), the fast path advances
 *     gc->bump_ptr and not region->top, so gc->bump_ptr is the true top; a
 *     collector calls gc_region_reclaim before it changes the region, and
 *     gc_region_current_top to find the top without changing anything.
 *     Under --gc-stress, or while top is past limit, nothing is published
 *     and region->top is always the true top.
 */
#ifndef GCLAB_GC_REGION_H
#define GCLAB_GC_REGION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../gc.h"
#include "collect.h"
#include "memory.h"

typedef struct GcRegion {
    uint8_t *start;
    uint8_t *top;    /* first free byte */
    uint8_t *limit;  /* end of the budget: start + budget */
    uint8_t *end;    /* end of the block: limit + reserve */
} GcRegion;

/* Gets a zero-filled block of budget + reserve bytes from `memory`; false
 * if there is none (or the sum overflows). */
bool gc_region_init(GcRegion *region, GcMemory *memory, size_t budget, size_t reserve);
void gc_region_release(GcRegion *region, GcMemory *memory);

static inline size_t gc_region_used(const GcRegion *region) {
    return (size_t)(region->top - region->start);
}

/* Can `bytes` more be carved below `bound` (region->limit, or region->end
 * to dip into the reserve)? */
static inline bool gc_region_fits(const GcRegion *region, const uint8_t *bound, size_t bytes) {
    return region->top <= bound && (size_t)(bound - region->top) >= bytes;
}

/* Carves `bytes` (a multiple of OBJ_ALIGN that gc_region_fits) off the
 * top: zero-filled memory, not yet an object. */
static inline void *gc_region_bump(GcRegion *region, size_t bytes) {
    void *block = region->top;
    region->top += bytes;
    return block;
}

/* Lowers top to `new_top` and zero-fills what is given back, keeping the
 * free part zero for the fast path. */
static inline void gc_region_cut(GcRegion *region, uint8_t *new_top) {
    memset(new_top, 0, (size_t)(region->top - new_top));
    region->top = new_top;
}

/* Empties a region that holds only garbage (and forwarded objects): its
 * used part is zero-filled for reuse, and its arena `arena_id` is deleted
 * (every object still in it dies implicitly) and made anew with the same
 * ID and `name`.  Within a collection. */
static inline void gc_region_renew(GcRegion *region, uint32_t arena_id, const char *name) {
    gc_region_cut(region, region->start);
    vmpi_post_arena_delete((VMPI_ArenaID)arena_id);
    vmpi_post_arena_new((VMPI_ArenaID)arena_id, name);
}

/* The true top of `region` (see the invariant above), without changing
 * anything: for walking the heap.  `region` must be the one last
 * published, if any is. */
static inline uint8_t *gc_region_current_top(const Gc *gc, const GcRegion *region) {
    return gc->bump_ptr != NULL ? gc->bump_ptr : region->top;
}

/* Takes the true top back from the fast path and turns the fast path off,
 * so that region->top is the truth until gc_region_publish: done on entry
 * to the slow path and to a collection.  `region` must be the one last
 * published, if any is. */
static inline void gc_region_reclaim(Gc *gc, GcRegion *region) {
    region->top = gc_region_current_top(gc, region);
    gc->bump_ptr = gc->bump_limit = NULL;
}

/* Hands [top, limit) to gc_alloc's fast path, in arena `arena_id`; nothing
 * under --gc-stress (every allocation must reach the collector) or when the
 * reserve is in use (top past limit: the budget is spent). */
static inline void gc_region_publish(Gc *gc, GcRegion *region, uint32_t arena_id) {
    if (gc->config.stress || region->top > region->limit) {
        gc->bump_ptr = gc->bump_limit = NULL;
        return;
    }
    gc->bump_ptr = region->top;
    gc->bump_limit = region->limit;
    gc->bump_arena_id = arena_id;
}

/* The slow path's twin of gc_alloc's fast path: carves an object of class
 * `cls` (`bytes` == obj_size_for(cls, length), known to fit), fills its
 * header, counts it and posts OBJECT_ALLOC in arena `arena_id`. */
static inline Obj *gc_region_alloc_object(Gc *gc, GcRegion *region, uint32_t arena_id,
                                          const RtClass *cls, uint32_t length, size_t bytes) {
    return gc_new_object(gc, gc_region_bump(region, bytes), arena_id, cls, length, bytes);
}

/* The fast path counts only objects_allocated and bytes_allocated, so a
 * collector with one brings used_objects / used_bytes up to date from them
 * whenever it is entered: every object allocated and not yet freed is in
 * use (moves change neither count).  total_bytes follows, from the heap's
 * `capacity` (gc_stats_set_total). */
static inline void gc_stats_count_used(GcStats *stats, uint64_t capacity) {
    stats->used_objects = stats->objects_allocated - stats->objects_freed;
    stats->used_bytes = stats->bytes_allocated - stats->bytes_freed;
    gc_stats_set_total(stats, capacity);
}

#endif
