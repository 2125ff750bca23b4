/*
 * objlist.h -- a growable list of objects, pushed and popped at its end:
 * what a collector keeps aside while it works.  The tracing collectors'
 * mark stack is one (GcMarkStack: the objects marked but not yet scanned,
 * the grey objects of tri-colour marking, trace.h), and so are
 * generational's remembered set and refcount's object table, zero-count
 * table, candidate buffer and work lists.
 *
 * Tracing never recurses on the C stack (a list a million nodes long would
 * overflow it): a marked object is pushed here, and the tracer pops and
 * scans until the list is empty.
 *
 * Invariant: items[0 .. count) are the objects pushed and not yet popped,
 * and count <= capacity.  A list keeps its capacity until it is freed, so
 * a collector in a steady state does not call malloc while it works.
 * Growing doubles the capacity; if malloc refuses, the process cannot go on
 * collecting and exits with one "out of memory" message (status 1).
 */
#ifndef GCLAB_GC_OBJLIST_H
#define GCLAB_GC_OBJLIST_H

#include <stdbool.h>
#include <stddef.h>

#include "gc/object.h"

typedef struct GcObjectList {
    Obj **items;
    size_t count;
    size_t capacity;
} GcObjectList;

/* A tracing collector's grey objects (trace.h). */
typedef GcObjectList GcMarkStack;

/* An empty list that has not allocated yet; gc_objlist_free undoes it. */
void gc_objlist_init(GcObjectList *list);
void gc_objlist_free(GcObjectList *list);

/* Makes room for at least one more item (out of line: rare); out of memory
 * it ends the run, as it must mid-collection. */
void gc_objlist_grow(GcObjectList *list);

/* Makes room for at least one more item, or says there is none: for the
 * allocation path, which can fail the request instead (and the VM then
 * reports the program's out of memory). */
bool gc_objlist_make_room(GcObjectList *list);

static inline void gc_objlist_push(GcObjectList *list, Obj *obj) {
    if (__builtin_expect(list->count == list->capacity, 0)) gc_objlist_grow(list);
    list->items[list->count++] = obj;
}

/* The most recently pushed object, or NULL if the list is empty. */
static inline Obj *gc_objlist_pop(GcObjectList *list) {
    return list->count > 0 ? list->items[--list->count] : NULL;
}

#endif
