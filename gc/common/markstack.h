/*
 * markstack.h -- the explicit stack of objects a tracing collector has
 * marked but not yet scanned (the "grey" objects of tri-colour marking).
 *
 * Tracing never recurses on the C stack: a list a million nodes long would
 * overflow it.  Instead a marked object is pushed here, and the tracer pops
 * and scans until the stack is empty (trace.h).
 *
 * Invariant: items[0 .. count) are the pushed, not yet popped objects, and
 * count <= capacity.  The stack keeps its capacity between collections, so
 * a collector in a steady state does not call malloc while it marks.
 * Growing doubles the capacity; if malloc refuses, the process cannot go on
 * collecting and exits with one "out of memory" message (status 1).
 */
#ifndef GCLAB_GC_MARKSTACK_H
#define GCLAB_GC_MARKSTACK_H

#include <stddef.h>

#include "../../vm/object.h"

typedef struct GcMarkStack {
    Obj **items;
    size_t count;
    size_t capacity;
} GcMarkStack;

/* An empty stack that has not allocated yet; gc_markstack_free undoes it. */
void gc_markstack_init(GcMarkStack *stack);
void gc_markstack_free(GcMarkStack *stack);

/* Makes room for at least one more item (out of line: rare). */
void gc_markstack_grow(GcMarkStack *stack);

static inline void gc_markstack_push(GcMarkStack *stack, Obj *obj) {
    if (__builtin_expect(stack->count == stack->capacity, 0)) gc_markstack_grow(stack);
    stack->items[stack->count++] = obj;
}

/* The most recently pushed object, or NULL if the stack is empty. */
static inline Obj *gc_markstack_pop(GcMarkStack *stack) {
    return stack->count > 0 ? stack->items[--stack->count] : NULL;
}

#endif
