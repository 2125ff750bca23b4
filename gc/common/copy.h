/*
 * copy.h -- evacuating live objects by copying them (Cheney's algorithm),
 * for every copying collector: the semispace collector's whole collection
 * and the generational collector's minor collections.
 *
 * A copying collection condemns some objects (all of from-space; the young
 * generation) and copies every one of them that is reachable into
 * destination regions, leaving the rest behind to die with their arena.
 * Each copy is appended at a region's bump pointer, and the region itself
 * is the queue of objects still to scan (C. J. Cheney, 1970):
 *
 *     start            scan                top               limit
 *       | black: copied  | grey: copied,     | free, zero-filled |
 *       | and scanned    | not yet scanned   |                   |
 *
 * Scanning a grey object forwards each of its reference slots: a slot that
 * names a condemned object is redirected to the object's copy, copying it
 * first (onto the end of some region: a new grey object) if this is the
 * first reference to it.  Slots naming objects that are not condemned (old
 * objects in a minor collection) are left alone.  Roots are forwarded first;
 * then the scan pointers chase the tops until no region has grey objects
 * left.  That is a breadth-first traversal with no stack and no recursion.
 *
 * Forwarding.  Once an object is copied, its old header says where the copy
 * is: `cls` holds the copy's address and gc_word has GC_FORWARDED set.
 * GC_FORWARDED is the top bit of gc_word and belongs to this file; the other
 * 31 bits stay the collector's (ages, for instance) and travel with the copy.
 * A forwarded header is never read as a header again: its size is the
 * copy's (gc_copy_any_size), and walks skip it (gc_copy_walk_region).
 *
 * Where copies go is the collector's choice, made per object through a
 * GcCopyPolicy: which objects are condemned (and from which arena), and
 * which region a condemned object's copy goes to, and its copy's gc_word --
 * so a generational collector can send young survivors to a survivor space
 * and old enough ones to the old generation, counting ages in gc_word.
 *
 * Events (docs/event-mapping.md, the semispace and generational rows): one
 * OBJECT_MOVE(old arena, old address, new arena, new address) per copy, in
 * the order the copies are made, posted once the copy is complete and the
 * old header forwarded, just after OBJECT_FORWARDED(old address, new
 * address).  Mechanism events (docs/mechanism-events.md): OBJECT_BLACKENED
 * as the scan pointer passes a copy; phases "flip" (the roots' objects
 * copied) and "scan" (gc_copy_reachable; a collector that forwards more
 * than the roots brackets its own).  Deleting the condemned arenas afterwards is the
 * collector's business.
 *
 * Like trace.h, the hot functions are inline "templates": a collector passes
 * a pointer to its own static const GcCopyPolicy, the compiler folds the
 * callbacks into direct calls and inlines them, and the scan loop has no
 * indirect call.  Roots are few, so forwarding them is out of line.
 *
 * Invariants while copying:
 *   - a condemned object is either unforwarded (not yet reached) or
 *     forwarded to exactly one complete copy in a region;
 *   - in every registered region, [start, scan) are scanned copies, whose
 *     slots name only copies and objects that are not condemned, and
 *     [scan, top) are copies still to scan;
 *   - when gc_copy_reachable returns, no region has grey objects, so every
 *     condemned object reachable from the roots (or from a slot the
 *     collector forwarded itself, such as a remembered set) has been copied,
 *     and every slot that was scanned names a copy.
 */
#ifndef GCLAB_GC_COPY_H
#define GCLAB_GC_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gc/gc.h"

/* ---- forwarding ------------------------------------------------------------- */

/* gc_word bit of an object that has been copied elsewhere. */
#define GC_FORWARDED (UINT32_C(1) << 31)

static inline bool gc_is_forwarded(const Obj *obj) { return (obj->gc_word & GC_FORWARDED) != 0; }

/* Where a forwarded object's copy is. */
static inline Obj *gc_forwarding_address(const Obj *obj) { return (Obj *)(uintptr_t)obj->cls; }

/* Turns `obj`'s header into a forwarding pointer to `copy`. */
static inline void gc_set_forwarding(Obj *obj, const Obj *copy) {
    obj->cls = (const RtClass *)(const void *)copy;
    obj->gc_word |= GC_FORWARDED;
}

/* The size of `obj`, forwarded or not (a copy is as big as its original). */
static inline size_t gc_copy_any_size(const Obj *obj) {
    return obj_size(gc_is_forwarded(obj) ? gc_forwarding_address(obj) : obj);
}

/* ---- regions and the policy ------------------------------------------------- */

/* A destination: a bump region that copies are appended to (see the top). */
typedef struct GcCopyRegion {
    uint8_t *start;
    uint8_t *scan;      /* Cheney's scan pointer */
    uint8_t *top;       /* next copy goes here */
    uint8_t *limit;
    uint32_t arena_id;  /* the arena copies here belong to (OBJECT_MOVE's new arena) */
} GcCopyRegion;

/* `bytes` of empty space at `start` as a destination in arena `arena_id`. */
static inline GcCopyRegion gc_copy_region(void *start, size_t bytes, uint32_t arena_id) {
    uint8_t *base = start;
    return (GcCopyRegion){.start = base, .scan = base, .top = base, .limit = base + bytes,
                          .arena_id = arena_id};
}

/* Which arena a condemned object lies in, and GC_COPY_NOT_CONDEMNED for an
 * object that stays where it is.  (Arena IDs start at 1.) */
#define GC_COPY_NOT_CONDEMNED 0u

typedef struct GcCopyPolicy {
    /* GC_COPY_NOT_CONDEMNED, or the arena `obj` is evacuated from.  It must
     * not condemn a copy made in this collection. */
    uint32_t (*condemned_arena)(const Obj *obj, void *ctx);
    /* The region `obj`'s copy goes to: one of the copier's regions, with at
     * least `bytes` free.  *copy_gc_word starts as obj's gc_word (without
     * GC_FORWARDED); the policy may change it, e.g. to count an age. */
    GcCopyRegion *(*destination)(const Obj *obj, size_t bytes, uint32_t *copy_gc_word, void *ctx);
} GcCopyPolicy;

/* One copying collection in progress. */
#define GC_COPY_MAX_REGIONS 4u

typedef struct GcCopier {
    void *ctx;                                  /* passed to the policy */
    GcCopyRegion *regions[GC_COPY_MAX_REGIONS]; /* every region the policy copies into */
    uint32_t num_regions;
    uint64_t objects_copied;                    /* copies made so far */
    uint64_t bytes_copied;
} GcCopier;

/* A copier with no regions yet; add every destination before copying. */
static inline GcCopier gc_copier(void *ctx) { return (GcCopier){.ctx = ctx}; }
void gc_copier_add_region(GcCopier *copier, GcCopyRegion *region);

/* Stops the process: a policy chose a region without room for a copy (a
 * collector bug; half the heap is forwarded, so there is no way back). */
__attribute__((noreturn)) void gc_copy_region_full(const GcCopyRegion *region, size_t bytes);

/* ---- copying ---------------------------------------------------------------- */

/* Copies unforwarded condemned `obj`, which lies in arena `from_arena`, to
 * the region the policy picks, forwards it and posts OBJECT_MOVE.  Returns
 * the copy (grey: its slots still name the old objects). */
GC_ALWAYS_INLINE Obj *gc_copy_object(GcCopier *copier, const GcCopyPolicy *policy, Obj *obj,
                                   uint32_t from_arena) {
    size_t bytes = obj_size(obj);
    uint32_t gc_word = obj->gc_word;
    GcCopyRegion *to = policy->destination(obj, bytes, &gc_word, copier->ctx);
    if (GC_UNLIKELY((size_t)(to->limit - to->top) < bytes)) gc_copy_region_full(to, bytes);
    Obj *copy = (Obj *)to->top;
    to->top += bytes;
    memcpy(copy, obj, bytes);
    copy->gc_word = gc_word;
    gc_set_forwarding(obj, copy);
    copier->objects_copied++;
    copier->bytes_copied += bytes;
    gc_post_object_forwarded(obj, copy);
    gc_post_object_move(from_arena, obj, to->arena_id, copy);
    return copy;
}

/* Makes `*slot` name the copy of what it names, if that is condemned:
 * follows the forwarding pointer, or makes the copy. */
GC_ALWAYS_INLINE void gc_copy_forward_slot(GcCopier *copier, const GcCopyPolicy *policy, Obj **slot) {
    Obj *obj = *slot;
    if (obj == NULL) return;
    uint32_t from_arena = policy->condemned_arena(obj, copier->ctx);
    if (from_arena == GC_COPY_NOT_CONDEMNED) return;
    *slot = gc_is_forwarded(obj) ? gc_forwarding_address(obj)
                                 : gc_copy_object(copier, policy, obj, from_arena);
}

/* Forwards every reference slot of `obj`: scans it. */
GC_ALWAYS_INLINE void gc_copy_forward_slots(GcCopier *copier, const GcCopyPolicy *policy, Obj *obj) {
    size_t count;
    Obj **slots = obj_ref_slots(obj, &count);
    for (size_t s = 0; s < count; s++) gc_copy_forward_slot(copier, policy, &slots[s]);
}

/* Forwards every root slot (out of line: the VM's enumerator calls back). */
void gc_copy_forward_roots(const Gc *gc, GcCopier *copier, const GcCopyPolicy *policy);

/* After the scan: each weak slot naming a condemned object names its copy,
 * or NULL if it was not copied (it died).  gc/common/weak.h. */
void gc_copy_settle_weak_roots(const Gc *gc, GcCopier *copier, const GcCopyPolicy *policy);

/* Scans grey objects in every region until there are none: Cheney's loop.
 * Scanning one region may append to another, so it goes round until a
 * whole pass finds nothing to scan. */
GC_ALWAYS_INLINE void gc_copy_scan(GcCopier *copier, const GcCopyPolicy *policy) {
    bool scanned;
    do {
        scanned = false;
        for (uint32_t i = 0; i < copier->num_regions; i++) {
            GcCopyRegion *region = copier->regions[i];
            while (region->scan < region->top) {
                Obj *obj = (Obj *)region->scan;
                gc_copy_forward_slots(copier, policy, obj);
                gc_post_object_blackened(obj);
                region->scan += obj_size(obj);
                scanned = true;
            }
        }
    } while (scanned);
}

/* The whole evacuation: afterwards every condemned object reachable from
 * the roots (and from any slot forwarded before this call) is copied and
 * forwarded, and every root and copied slot names a copy. */
GC_ALWAYS_INLINE void gc_copy_reachable(const Gc *gc, GcCopier *copier, const GcCopyPolicy *policy) {
    gc_post_phase_start("flip");
    gc_copy_forward_roots(gc, copier, policy);
    gc_post_phase_end("flip");
    gc_post_phase_start("scan");
    gc_copy_scan(copier, policy);
    gc_post_phase_end("scan");
    gc_copy_settle_weak_roots(gc, copier, policy);
}

/* ---- walking ---------------------------------------------------------------- */

/* Visits the objects laid end to end in [start, top) with arena `arena_id`,
 * skipping forwarded ones (their copies are visited where they now are). */
void gc_copy_walk_region(const uint8_t *start, const uint8_t *top, uint32_t arena_id,
                         GcObjectVisitor visit, void *ctx);

#endif
