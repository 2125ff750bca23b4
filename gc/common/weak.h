/*
 * weak.h -- weak roots: slots outside the heap that name an object without
 * keeping it alive (the VM's weak global references, vm/native/native_env.c).
 * The VM lists them through GcRoots.enumerate_weak; no tracer, copier or
 * counter ever treats them as roots.
 *
 * Invariant, kept by every collector: when a collection ends, every weak
 * slot is NULL or names a live object at its current address.  So each
 * collector, once it knows what lives (and where it went), settles the
 * weak slots -- through the two functions here, one shared rule:
 *
 *   marksweep      after marking, gc_clear_dead_weak_roots (unmarked = dead)
 *   markcompact    in gc_compact_region (compact.c): dead cleared after
 *   generational     marking, survivors updated with the other slots
 *   semispace      after Cheney's scan (copy.c, gc_copy_settle_weak_roots):
 *   generational     a condemned object is forwarded (moved) or dead
 *   refcount       as each object is freed (rc_free)
 */
#ifndef GCLAB_GC_WEAK_H
#define GCLAB_GC_WEAK_H

#include <stdbool.h>

#include "gc/gc.h"

/* Calls visit(slot, ctx) for every weak slot holding an object (none if the
 * VM lists no weak roots). */
static inline void gc_visit_weak_roots(const Gc *gc, GcSlotVisitor visit, void *ctx) {
    if (gc->config.roots.enumerate_weak != NULL) gc->config.roots.enumerate_weak(gc->config.roots.vm, visit, ctx);
}

/* Sets to NULL every weak slot whose object `is_live` says is dead. */
void gc_clear_dead_weak_roots(const Gc *gc, bool (*is_live)(const Obj *obj, void *ctx), void *ctx);

#endif
