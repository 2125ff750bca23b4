/*
 * weak.c -- clearing weak roots whose objects died (weak.h).  The VM's
 * enumerator takes a plain slot visitor, so the collector's liveness test
 * travels to it in a small context record (as in trace.c).
 */
#include "weak.h"

typedef struct WeakClearing {
    bool (*is_live)(const Obj *obj, void *ctx);
    void *ctx;
} WeakClearing;

static void clear_if_dead(Obj **slot, void *ctx) {
    const WeakClearing *clearing = ctx;
    if (!clearing->is_live(*slot, clearing->ctx)) *slot = NULL;
}

void gc_clear_dead_weak_roots(const Gc *gc, bool (*is_live)(const Obj *obj, void *ctx), void *ctx) {
    WeakClearing clearing = {is_live, ctx};
    gc_visit_weak_roots(gc, clear_if_dead, &clearing);
}
