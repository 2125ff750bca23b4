/*
 * event_port.h -- how a collector tells the layer above what it does: an
 * arena made or emptied, an object allocated, moved or freed, a collection
 * begun and finished (the heap events of any algorithm, the VMPI patent's
 * five and JVMPI's GC_START / GC_FINISH).
 *
 * gc/ declares the port and posts to it; it never knows who listens.  The
 * layer above (vmpi, docs/architecture.md) fills in the listener and says
 * which events it wants, as whippet's gc-event-listener.h has the embedder
 * fill in the collector's listener.  Until somebody listens, every event
 * goes nowhere.
 *
 * Invariant: posting an event nobody wants costs one load and one
 * predictable branch (gc_post_X below); only a wanted event goes out of
 * line, through the listener.  The arena events are the exception: they
 * always reach the listener, which keeps the table of live arenas that a
 * late listener is told of (vmpi/runtime/arenas.c); they are rare.
 */
#ifndef GCLAB_GC_EVENT_PORT_H
#define GCLAB_GC_EVENT_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gc/object.h"

/* What the layer above is told, one function per event.  Arena IDs are
 * each collector's own small integers (docs/event-mapping.md). */
typedef struct GcEventListener {
    void (*arena_new)(uint32_t arena_id, const char *arena_name);
    void (*arena_delete)(uint32_t arena_id);
    /* `obj`'s header is filled in; *bytes_allocated is the heap's count of
     * bytes allocated, this object's included. */
    void (*object_alloc)(const uint64_t *bytes_allocated, uint32_t arena_id, const Obj *obj, size_t size);
    void (*object_free)(const Obj *obj);
    void (*object_move)(uint32_t arena_id, const Obj *obj, uint32_t new_arena_id, const Obj *new_obj);
    void (*gc_start)(void);
    void (*gc_finish)(int64_t used_objects, int64_t used_object_space, int64_t total_object_space);
    /* The mechanism events (docs/mechanism-events.md): how the collector
     * works, in its algorithm's terms.  `kind` is the GcEventKind posted. */
    void (*phase)(int kind, const char *phase_name);
    void (*object_step)(int kind, const Obj *obj); /* greyed, blackened, remembered */
    void (*object_forwarded)(const Obj *obj, const Obj *new_obj);
    void (*refcount_change)(const Obj *obj, uint32_t count);
    void (*object_free_cause)(const Obj *obj, const char *cause);
} GcEventListener;

/* The events a listener may want or not; the allocation event has its own
 * countdown (gc_alloc_event_countdown). */
typedef enum GcEventKind {
    GC_EVENT_OBJECT_FREE,
    GC_EVENT_OBJECT_MOVE,
    GC_EVENT_GC_START,
    GC_EVENT_GC_FINISH,
    GC_EVENT_PHASE_START,
    GC_EVENT_PHASE_END,
    GC_EVENT_OBJECT_GREYED,
    GC_EVENT_OBJECT_BLACKENED,
    GC_EVENT_OBJECT_FORWARDED,
    GC_EVENT_REMEMBERED_SET_ADD, /* the two a write barrier posts: adjacent */
    GC_EVENT_REFCOUNT_CHANGE,
    GC_EVENT_OBJECT_FREE_CAUSE,
    GC_EVENT_KINDS
} GcEventKind;

/* The listener (never NULL: one that ignores everything until the layer
 * above sets its own) and, per kind, non-zero while it wants the event. */
extern const GcEventListener *gc_event_listener;
extern uint8_t gc_event_wanted[GC_EVENT_KINDS];

/* The allocation event costs one subtraction and one branch: it goes out
 * of line when the countdown, lowered by every allocation's size, falls
 * below 0.  The listener keeps it at GC_ALLOC_EVENT_ALWAYS while it wants
 * every allocation, at the bytes to its next sample while it samples, at
 * GC_ALLOC_EVENT_NEVER otherwise; no run reaches either end (2^62 bytes). */
#define GC_ALLOC_EVENT_ALWAYS (-(INT64_C(1) << 62))
#define GC_ALLOC_EVENT_NEVER (INT64_C(1) << 62)
extern int64_t gc_alloc_event_countdown;

/* Sets the listener (NULL: nobody listens again). */
void gc_set_event_listener(const GcEventListener *listener);

#define GC_EVENT_WANTED(kind) __builtin_expect(gc_event_wanted[kind] != 0, 0)

static inline void gc_post_arena_new(uint32_t arena_id, const char *arena_name) {
    gc_event_listener->arena_new(arena_id, arena_name);
}
static inline void gc_post_arena_delete(uint32_t arena_id) { gc_event_listener->arena_delete(arena_id); }
static inline void gc_post_object_alloc(const uint64_t *bytes_allocated, uint32_t arena_id, const Obj *obj,
                                        size_t size) {
    if (__builtin_expect((gc_alloc_event_countdown -= (int64_t)size) < 0, 0))
        gc_event_listener->object_alloc(bytes_allocated, arena_id, obj, size);
}
static inline void gc_post_object_free(const Obj *obj) {
    if (GC_EVENT_WANTED(GC_EVENT_OBJECT_FREE)) gc_event_listener->object_free(obj);
}
static inline void gc_post_object_move(uint32_t arena_id, const Obj *obj, uint32_t new_arena_id,
                                       const Obj *new_obj) {
    if (GC_EVENT_WANTED(GC_EVENT_OBJECT_MOVE)) gc_event_listener->object_move(arena_id, obj, new_arena_id, new_obj);
}
static inline void gc_post_gc_start(void) {
    if (GC_EVENT_WANTED(GC_EVENT_GC_START)) gc_event_listener->gc_start();
}
static inline void gc_post_gc_finish(int64_t used_objects, int64_t used_object_space, int64_t total_object_space) {
    if (GC_EVENT_WANTED(GC_EVENT_GC_FINISH))
        gc_event_listener->gc_finish(used_objects, used_object_space, total_object_space);
}

/* ---- the mechanism events (docs/mechanism-events.md) -------------------------
 * A collection's phases, named in the algorithm's terms ("mark",
 * "compute-addresses", "scan"), and per object the steps it takes. */
static inline void gc_post_phase_start(const char *phase_name) {
    if (GC_EVENT_WANTED(GC_EVENT_PHASE_START)) gc_event_listener->phase(GC_EVENT_PHASE_START, phase_name);
}
static inline void gc_post_phase_end(const char *phase_name) {
    if (GC_EVENT_WANTED(GC_EVENT_PHASE_END)) gc_event_listener->phase(GC_EVENT_PHASE_END, phase_name);
}
/* Tri-colour marking: `obj` turned grey (marked, to be scanned) or black
 * (scanned: each of its children is grey or black). */
static inline void gc_post_object_greyed(const Obj *obj) {
    if (GC_EVENT_WANTED(GC_EVENT_OBJECT_GREYED)) gc_event_listener->object_step(GC_EVENT_OBJECT_GREYED, obj);
}
static inline void gc_post_object_blackened(const Obj *obj) {
    if (GC_EVENT_WANTED(GC_EVENT_OBJECT_BLACKENED)) gc_event_listener->object_step(GC_EVENT_OBJECT_BLACKENED, obj);
}
/* `obj`'s forwarding address is `new_obj` (a copy made, or a place planned). */
static inline void gc_post_object_forwarded(const Obj *obj, const Obj *new_obj) {
    if (GC_EVENT_WANTED(GC_EVENT_OBJECT_FORWARDED)) gc_event_listener->object_forwarded(obj, new_obj);
}
/* A generational write barrier (or a promotion) put `obj` into the remembered set. */
static inline void gc_post_remembered_set_add(const Obj *obj) {
    if (GC_EVENT_WANTED(GC_EVENT_REMEMBERED_SET_ADD))
        gc_event_listener->object_step(GC_EVENT_REMEMBERED_SET_ADD, obj);
}
/* `obj`'s reference count has changed to `count`. */
static inline void gc_post_refcount_change(const Obj *obj, uint32_t count) {
    if (GC_EVENT_WANTED(GC_EVENT_REFCOUNT_CHANGE)) gc_event_listener->refcount_change(obj, count);
}
/* Whether either event a write barrier may post is wanted: their kinds are
 * adjacent, so one 16-bit load and one branch test both. */
_Static_assert(GC_EVENT_REFCOUNT_CHANGE == GC_EVENT_REMEMBERED_SET_ADD + 1, "barrier events are adjacent");
static inline bool gc_barrier_events_wanted(void) {
    uint16_t both;
    memcpy(&both, &gc_event_wanted[GC_EVENT_REMEMBERED_SET_ADD], sizeof both);
    return __builtin_expect(both != 0, 0);
}

/* Why an object is freed: OBJECT_FREE_CAUSE's cause. */
#define GC_FREE_UNMARKED "unmarked"     /* a trace did not reach it */
#define GC_FREE_ZERO_COUNT "zero-count" /* its own reference count fell to zero */
#define GC_FREE_CASCADE "cascade"       /* a freed object held its last reference */
#define GC_FREE_CYCLE "cycle"           /* trial deletion found it on a garbage cycle */

/* OBJECT_FREE_CAUSE then OBJECT_FREE: `obj` is freed, for `cause`. */
static inline void gc_post_object_free_because(const Obj *obj, const char *cause) {
    if (GC_EVENT_WANTED(GC_EVENT_OBJECT_FREE_CAUSE)) gc_event_listener->object_free_cause(obj, cause);
    gc_post_object_free(obj);
}

#endif
