/*
 * region.h -- a contiguous block of heap memory that objects are carved out
 * of with a bump pointer: the heap of a compacting collector, a semispace, a
 * nursery.  It is what gc_alloc's inline fast path (gc.h) allocates from.
 *
 *     start            top              limit                          end
 *       | objects ...   | free, all zero  | room to grow, zero, untouched |
 *
 *   [start, top)    the objects, back to back (sizes are multiples of
 *                   OBJ_ALIGN, so each header follows the last object's
 *                   obj_size bytes, and a walk can parse the region);
 *   [top, limit)    free; [start, limit) is the budget (the heap's
 *                   capacity, a semispace, a nursery's --young), which
 *                   the sizing policy moves after each collection
 *                   (heapsize.h, gc_region_set_budget);
 *   [limit, end)    room past the budget: a reserve the collector needs
 *                   (a generational old generation's evacuation reserve)
 *                   and beyond it room to grow while an agent holds
 *                   collection disabled (VMPI DisableGC).  The region is
 *                   address space (memory.h): gc_region_init reserves as
 *                   much as the machine has physical memory (within a
 *                   quarter of ulimit -v), at most GC_REGION_MAX_BYTES,
 *                   and less, down to budget + reserve, if the system
 *                   refuses that much, so growing stops only where real
 *                   memory would run out -- and then the allocation
 *                   fails like any other (the VM's out-of-memory path).  Pages
 *                   past the limit cost memory only once a disabled
 *                   collector bumps into them, and the cut that next
 *                   empties them hands them back.
 *
 * Invariants:
 *   - every byte in [top, end) is zero, because gc_alloc does not clear the
 *     memory it hands out: whoever lowers top (a compaction, an emptied
 *     semispace) zero-fills what it gives back (gc_region_cut);
 *   - top is the one allocation pointer: gc_alloc's fast path bumps it in
 *     place through gc->alloc_region, and the collector reads and moves the
 *     same field, so there is nothing to take back before a collection or
 *     to hand out after one.  The fast path bumps only below limit; under
 *     --gc-stress gc->alloc_region is &gc_closed_region, so every request
 *     reaches the collector;
 *   - end - start is a multiple of the page size.
 */
#ifndef GCLAB_GC_REGION_H
#define GCLAB_GC_REGION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gc/gc.h"
#include "memory.h"

/* GcRegion itself is in gc.h, where gc_alloc bumps it. */

/* The most a region reserves (32 GiB): what a compaction can address, a
 * planned address being 32 bits of OBJ_ALIGN units in gc_word (compact.h). */
#if SIZE_MAX > UINT32_MAX
#define GC_REGION_MAX_BYTES (((size_t)UINT32_MAX + 1) * OBJ_ALIGN)
#else /* a 32-bit build (the browser's, docs/lab.md): half its address space */
#define GC_REGION_MAX_BYTES ((size_t)1 << 31)
#endif

/* Gets a zero-filled region from `memory` for arena `arena_id`: a budget of
 * `budget` bytes, then `reserve` bytes the collector needs past it, then
 * room to grow (see the top).  False if not even budget + reserve can be
 * had (or the sum overflows). */
bool gc_region_init(GcRegion *region, GcMemory *memory, size_t budget, size_t reserve, uint32_t arena_id);
void gc_region_release(GcRegion *region, GcMemory *memory);

/* Gives back the region's address space past start + `bytes` (a multiple
 * of the page size, at least limit - start and at most end - start), so
 * that two regions that must hold the same (two semispaces) are equal. */
void gc_region_shrink(GcRegion *region, GcMemory *memory, size_t bytes);

/* Moves the limit to start + `budget` (a multiple of OBJ_ALIGN, at most
 * end - start): the heap sizing policy's resize (heapsize.h).  A lower
 * limit hands the free pages it leaves behind, above the top, back to the
 * system (madvise); a higher one costs nothing until its pages are
 * touched.  The arena keeps its ID and its address range (the start): only
 * its capacity changes, which GC_FINISH reports (docs/event-mapping.md). */
void gc_region_set_budget(GcRegion *region, size_t budget);

static inline size_t gc_region_budget(const GcRegion *region) {
    return (size_t)(region->limit - region->start);
}

/* gc_region_cut's part past the limit, out of line: zero-fills the grown
 * part above max(new_top, limit) and hands its pages back. */
void gc_region_cut_growth(GcRegion *region, uint8_t *new_top);

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
 * free part zero for the fast path; pages past the limit (a heap that grew
 * while collection was disabled) go back to the system. */
static inline void gc_region_cut(GcRegion *region, uint8_t *new_top) {
    if (region->top > region->limit) gc_region_cut_growth(region, new_top);
    memset(new_top, 0, (size_t)(region->top - new_top));
    region->top = new_top;
}

/* Empties a region that holds only garbage (and forwarded objects): its
 * used part is zero-filled for reuse, and its arena is deleted (every
 * object still in it dies implicitly) and made anew with the same ID and
 * `name`.  Within a collection. */
static inline void gc_region_renew(GcRegion *region, const char *name) {
    gc_region_cut(region, region->start);
    gc_post_arena_delete(region->arena_id);
    gc_post_arena_new(region->arena_id, name);
}

/* Makes `region` the one gc_alloc's fast path bumps -- or none under
 * --gc-stress (every allocation must reach the collector) or when
 * `region` is NULL. */
static inline void gc_region_open(Gc *gc, GcRegion *region) {
    gc->alloc_region = region != NULL && !gc->config.stress ? region : &gc_closed_region;
}

/* The slow path's bump, the fast path's twin: carves an object of class
 * `cls` (`bytes` == obj_size_for(cls, length), known to fit), fills its
 * header, counts it and posts OBJECT_ALLOC in the region's arena. */
static inline Obj *gc_region_alloc_object(Gc *gc, GcRegion *region, const RtClass *cls, uint32_t length,
                                          size_t bytes) {
    return gc_new_object(gc, gc_region_bump(region, bytes), region->arena_id, cls, length, bytes);
}

#endif
