/*
 * trace.c -- marking the roots (trace.h).  The VM's root enumerator takes a
 * plain slot visitor, so the collector's try_mark and its mark stack travel
 * to it in a small context record.
 */
#include "trace.h"

typedef struct RootMarking {
    GcMarkStack *stack;
    GcTryMark try_mark;
    void *ctx;
} RootMarking;

static void mark_root_slot(Obj **slot, void *ctx) {
    RootMarking *marking = ctx;
    Obj *obj = *slot;
    if (obj != NULL && marking->try_mark(obj, marking->ctx)) {
        gc_post_object_greyed(obj);
        gc_objlist_push(marking->stack, obj);
    }
}

void gc_trace_mark_roots(const Gc *gc, GcMarkStack *stack, GcTryMark try_mark, void *ctx) {
    RootMarking marking = {stack, try_mark, ctx};
    gc_visit_roots(gc, mark_root_slot, &marking);
}
