/*
 * event_port.c -- the collectors' event port (gc/event_port.h) before the
 * layer above listens: every event goes nowhere.
 */
#include "gc/event_port.h"

static void ignore_arena_new(uint32_t arena_id, const char *arena_name) {
    (void)arena_id;
    (void)arena_name;
}
static void ignore_arena_delete(uint32_t arena_id) { (void)arena_id; }
static void ignore_object_alloc(const uint64_t *bytes_allocated, uint32_t arena_id, const Obj *obj, size_t size) {
    (void)bytes_allocated;
    (void)arena_id;
    (void)obj;
    (void)size;
}

/* Only the events posted whether wanted or not need a body; the others are
 * never called while gc_event_wanted and the countdown say nobody listens. */
static const GcEventListener nobody = {
    .arena_new = ignore_arena_new,
    .arena_delete = ignore_arena_delete,
    .object_alloc = ignore_object_alloc,
};

const GcEventListener *gc_event_listener = &nobody;
uint8_t gc_event_wanted[GC_EVENT_KINDS];
int64_t gc_alloc_event_countdown = GC_ALLOC_EVENT_NEVER;

void gc_set_event_listener(const GcEventListener *listener) {
    if (listener) {
        gc_event_listener = listener;
        return;
    }
    gc_event_listener = &nobody;
    for (int kind = 0; kind < GC_EVENT_KINDS; kind++) gc_event_wanted[kind] = 0;
    gc_alloc_event_countdown = GC_ALLOC_EVENT_NEVER;
}
