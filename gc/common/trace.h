/*
 * trace.h -- finding everything reachable from the roots, for every tracing
 * collector (marksweep, markcompact, the old generation).
 *
 * Tracing is tri-colour marking with an explicit stack (objlist.h, GcMarkStack):
 *
 *   white  not marked: not yet known to be reachable
 *   grey   marked and on the mark stack: reachable, children not yet looked at
 *   black  marked and popped: reachable, every child marked (grey or black)
 *
 * Invariant while draining: no black object points at a white one.  When the
 * stack is empty every object is black or white, so the white ones are
 * exactly the unreachable ones.
 *
 * What "marked" means belongs to the collector (a bit in gc_word, a bitmap,
 * a side table), so it passes a GcTryMark.  The drain loop is an inline
 * "template": always inlined into the collector that calls it with its own
 * static try_mark, which the compiler then inlines too, so the hot loop has
 * no indirect call.  Roots are few and come through the VM's callback, so
 * marking them is out of line.
 *
 * Events (docs/mechanism-events.md): the mark phase is bracketed by
 * GC_PHASE_START/END "mark"; OBJECT_GREYED as an object is marked, and
 * OBJECT_BLACKENED once every child of it is grey or black.
 *
 * References are found only through obj_ref_slots (gc/object.h) and roots
 * only through GcConfig.roots, so a tracer can never disagree with the
 * verifier or the heap dump about what points where.
 */
#ifndef GCLAB_GC_TRACE_H
#define GCLAB_GC_TRACE_H

#include <stdbool.h>
#include <stddef.h>

#include "gc/gc.h"
#include "objlist.h"

/* Marks `obj` (never NULL) if it is unmarked.  Returns true if it was
 * unmarked, i.e. it has just turned grey and must be scanned. */
typedef bool (*GcTryMark)(Obj *obj, void *ctx);

/* Calls visit(slot, ctx) for every root slot (none if the heap has no root
 * enumerator, as in some unit tests). */
static inline void gc_visit_roots(const Gc *gc, GcSlotVisitor visit, void *ctx) {
    if (gc->config.roots.enumerate != NULL) gc->config.roots.enumerate(gc->config.roots.vm, visit, ctx);
}

/* Calls visit(slot, ctx) for every reference slot inside `obj`. */
static inline void gc_visit_ref_slots(const Obj *obj, GcSlotVisitor visit, void *ctx) {
    size_t count;
    Obj **slots = obj_ref_slots(obj, &count);
    for (size_t i = 0; i < count; i++) visit(&slots[i], ctx);
}

/* Marks every object a root points at and pushes it on `stack`. */
void gc_trace_mark_roots(const Gc *gc, GcMarkStack *stack, GcTryMark try_mark, void *ctx);

/* Pops and scans grey objects until the stack is empty: every unmarked
 * child is marked and pushed. */
GC_ALWAYS_INLINE void gc_trace_drain(GcMarkStack *stack, GcTryMark try_mark, void *ctx) {
    /* Read once: the loop's calls keep the compiler from hoisting the
     * loads, and an agent that enables them mid-collection sees them from
     * the next one. */
    const bool post_colours = GC_EVENT_WANTED(GC_EVENT_OBJECT_GREYED) || GC_EVENT_WANTED(GC_EVENT_OBJECT_BLACKENED);
    Obj *obj;
    while ((obj = gc_objlist_pop(stack)) != NULL) {
        size_t count;
        Obj **slots = obj_ref_slots(obj, &count);
        for (size_t i = 0; i < count; i++) {
            Obj *child = slots[i];
            if (child != NULL && try_mark(child, ctx)) {
                if (GC_UNLIKELY(post_colours)) gc_post_object_greyed(child);
                gc_objlist_push(stack, child);
            }
        }
        if (GC_UNLIKELY(post_colours)) gc_post_object_blackened(obj);
    }
}

/* The whole mark phase: afterwards exactly the objects reachable from the
 * roots are marked (given that none was marked before). */
GC_ALWAYS_INLINE void gc_trace_mark_reachable(const Gc *gc, GcMarkStack *stack, GcTryMark try_mark,
                                             void *ctx) {
    gc_post_phase_start("mark");
    gc_trace_mark_roots(gc, stack, try_mark, ctx);
    gc_trace_drain(stack, try_mark, ctx);
    gc_post_phase_end("mark");
}

#endif
