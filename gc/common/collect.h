/*
 * collect.h -- the bracket around every collection, the same for every
 * collector so that it can never be forgotten or differ:
 *
 *     GcCollection c = gc_collection_begin(gc, GC_COLLECTION_MAJOR, reason);
 *     ... mark, sweep, copy, slide; post OBJECT_FREE / OBJECT_MOVE /
 *         ARENA_DELETE / ARENA_NEW; keep gc->stats exact ...
 *     gc_collection_end(gc, &c);
 *
 * gc_collection_begin   verifies the heap (--verify-heap), posts GC_START,
 *                       starts the pause clock.
 * gc_collection_end     stops the clock, verifies the heap again, counts the
 *                       collection and its pause in gc->stats, writes the
 *                       --gc-log line, posts GC_FINISH with gc_used_objects,
 *                       gc_used_bytes and gc_total_bytes (gc.h).
 *
 * The pause is the collector's own work: it excludes verification and the
 * agents' handling of GC_START and GC_FINISH.
 *
 * Invariant: every OBJECT_FREE, OBJECT_MOVE and ARENA_DELETE a collector
 * posts lies between one begin and its end (docs/event-mapping.md,
 * event-stream rule 5), and at gc_collection_end every object the
 * collection freed is counted in objects_freed / bytes_freed, so that
 * gc_used_objects / gc_used_bytes are exactly the count and byte sum of
 * the live objects (rule 6).
 */
#ifndef GCLAB_GC_COLLECT_H
#define GCLAB_GC_COLLECT_H

#include <stdint.h>

#include "gc/gc.h"

typedef enum GcCollectionKind {
    GC_COLLECTION_MINOR, /* young generation only: counts in minor_collections */
    GC_COLLECTION_MAJOR, /* the whole heap: counts in major_collections */
    GC_COLLECTION_CYCLE, /* refcount cycle detection: counts in cycle_collections */
} GcCollectionKind;

/* One collection in progress: what gc_collection_end needs to report it. */
typedef struct GcCollection {
    GcCollectionKind kind;
    GcReason reason;
    uint64_t start_ns;        /* CLOCK_MONOTONIC */
    uint64_t objects_before;  /* gc_used_objects at the start */
    uint64_t bytes_before;    /* gc_used_bytes at the start */
} GcCollection;

GcCollection gc_collection_begin(Gc *gc, GcCollectionKind kind, GcReason reason);
void gc_collection_end(Gc *gc, const GcCollection *collection);

/* Counts the outcome of collecting `objects_before` objects of
 * `bytes_before` bytes: `live_*` of them survived, `moved_*` of those were
 * moved, and the rest were freed (explicitly or with their arena). */
static inline void gc_stats_count_survivors(GcStats *stats, uint64_t objects_before, uint64_t bytes_before,
                                            uint64_t live_objects, uint64_t live_bytes,
                                            uint64_t moved_objects, uint64_t moved_bytes) {
    stats->objects_freed += objects_before - live_objects;
    stats->bytes_freed += bytes_before - live_bytes;
    stats->objects_moved += moved_objects;
    stats->bytes_moved += moved_bytes;
}

#endif
