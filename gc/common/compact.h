/*
 * compact.h -- sliding compaction of one bump region in place (the Lisp-2
 * algorithm), for every collector that keeps a heap, or a generation of one,
 * as a region (region.h) and must squeeze the garbage out of it: the
 * generational collector's old generation, and the shape of markcompact's
 * whole heap.
 *
 * gc_compact_region runs four passes:
 *
 *   1. mark    every object reachable from the roots (trace.h), into a mark
 *              bitmap over the region (markbits.h), not into the headers;
 *   2. plan    in address order, give each survivor its new address -- the
 *              region's start plus the sizes of the survivors below it --
 *              kept in its gc_word as an offset in OBJ_ALIGN units, and
 *              post OBJECT_FREE for each dead object;
 *   3. update  every root slot and every reference slot of every survivor
 *              to the planned address of its referent;
 *   4. slide   the survivors down to their planned addresses in address
 *              order, posting OBJECT_MOVE for each that changes address,
 *              give each gc->fresh_gc_word again, and zero-fill what is
 *              given back above the new top (the fast path does not clear
 *              memory).
 *
 * Survivors keep their order, so afterwards the region is one block of
 * objects followed by one block of free, zeroed space.  Passes 2 to 4 step
 * from survivor to survivor through the bitmap (64 granules a word), so each
 * costs the survivors plus region size / 512; only when an agent has enabled
 * OBJECT_FREE does pass 2 also visit each dead object, to post its event.
 *
 * Preconditions: every object reachable from the roots lies in it, and
 * every reference to an object in it is a root or a slot of an object in it
 * (a generational collector empties its young generation first).  The gc_word
 * of the objects is the compactor's while it runs; 32 bits of OBJ_ALIGN
 * units address GC_REGION_MAX_BYTES (region.h), so gc_compactor_init refuses a
 * larger region.
 *
 * Events (docs/event-mapping.md, the markcompact row and the generational
 * row's old generation): within the caller's GC_START .. GC_FINISH, first
 * one OBJECT_FREE per dead object, then one OBJECT_MOVE(arena, old, arena,
 * new) per survivor that changes address, in address order.  After the
 * frees the defined IDs are the survivors' old addresses; survivor i moves
 * down to n_i < o_i, above the new places of the survivors before it and
 * below the old places of those after it, so each move's new ID is defined
 * by no one (event-stream rule 3).
 *
 * Heap walks during a compaction.  An agent may walk the heap from its
 * handler of one of these events (say, to ask about an object it was just
 * told moved), so each survivor is in its new place before its OBJECT_MOVE
 * is posted, and the compactor records how far it has gone;
 * gc_compact_walk_region then visits exactly the objects the event stream
 * says are live at that moment.
 *
 * Invariant between compactions: the bitmap is all clear and the phase is
 * GC_COMPACT_IDLE.
 */
#ifndef GCLAB_GC_COMPACT_H
#define GCLAB_GC_COMPACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gc/gc.h"
#include "markbits.h"
#include "objlist.h"
#include "region.h"

/* Where the event stream of a compaction stands (gc_compact_walk_region). */
typedef enum GcCompactPhase {
    GC_COMPACT_IDLE,     /* not compacting, or no event posted yet */
    GC_COMPACT_FREEING,  /* pass 2 (and 3): OBJECT_FREEs */
    GC_COMPACT_SLIDING,  /* pass 4: OBJECT_MOVEs */
} GcCompactPhase;

/* What a compactor keeps between compactions, to avoid malloc in them. */
typedef struct GcCompactor {
    GcMarkBits marks;        /* one bit per granule of the whole region, start to end */
    GcMarkStack mark_stack;
    GcCompactPhase phase;
    uint8_t *freed_to;       /* FREEING: the dead below have been freed */
    uint8_t *moved_from;     /* SLIDING: the survivors below have moved ... */
    uint8_t *moved_to;       /* ... and lie end to end in [region start, moved_to) */
} GcCompactor;

/* What one compaction found and did. */
typedef struct GcCompaction {
    uint64_t live_objects, live_bytes;   /* the survivors */
    uint64_t moved_objects, moved_bytes; /* survivors whose address changed */
} GcCompaction;

/* A compactor for `region` (start to end, reserve included); false if the
 * region is too large or there is no memory for the bitmap. */
bool gc_compactor_init(GcCompactor *compactor, const GcRegion *region);
void gc_compactor_free(GcCompactor *compactor);

/* Compacts `region` (see the top).
 * Statistics are the caller's: it learns from the result what survived and
 * moved, and the dead are what the region held before minus the survivors. */
GcCompaction gc_compact_region(const Gc *gc, GcCompactor *compactor, GcRegion *region);

/* Visits, with the region's arena, exactly the objects of `region` that
 * the event stream says are live: between compactions every object in
 * [region start, top) (`top` is region->top, or further while copies are
 * being appended), and during
 * one -- from an agent's event handler -- the survivors already freed
 * around or slid, plus the objects not yet reached. */
void gc_compact_walk_region(const GcCompactor *compactor, const GcRegion *region, const uint8_t *top,
                            GcObjectVisitor visit, void *ctx);

#endif
