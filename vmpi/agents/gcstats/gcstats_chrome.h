/*
 * gcstats_chrome.h -- the gcstats agent's timeline: a run as Chrome trace
 * JSON (the "Trace Event Format" that Perfetto and chrome://tracing open),
 * written as the events arrive.
 *
 * One process (pid 1, named after the collector) with one track (tid) per
 * collector phase:
 *
 *   tid 1 "collections"     one slice per collection, GC_START..GC_FINISH,
 *                           its arguments on the closing "E" record
 *   tid 2 "free"            within a collection, each stretch of OBJECT_FREEs
 *   tid 3 "move"            each stretch of OBJECT_MOVEs
 *   tid 4 "arena renewal"   each stretch of ARENA_DELETE / ARENA_NEW
 *
 * and counters ("C" records): "arena N NAME" (used_bytes, objects) per
 * arena, "heap used" (bytes) and "heap capacity" (GC_FINISH's
 * total_object_space: VMPI reports capacity for the heap, not per arena).
 *
 * Invariant: every "B" record is followed, on its track, by its "E" before
 * the file is closed, and timestamps never decrease: every record is written
 * under the agent's lock with a time read under it.  Like trace_output.h,
 * nothing here allocates or uses stdio, so it may run in thread-suspended
 * mode; the file is complete or absent (written under a temporary name and
 * renamed at close).
 */
#ifndef GCLAB_GCSTATS_CHROME_H
#define GCLAB_GCSTATS_CHROME_H

#include <stdbool.h>
#include <stdint.h>

#include "common/trace_output.h"

/* The phases of a collection, each a track of its own. */
typedef enum ChromePhase {
    CHROME_PHASE_NONE,
    CHROME_PHASE_FREE,
    CHROME_PHASE_MOVE,
    CHROME_PHASE_RENEW,
} ChromePhase;

/* What the closing record of a collection's slice carries. */
typedef struct ChromeCollection {
    const char *kind;      /* what it did: "free", "move+renew", ... */
    uint64_t pause_ns;
    uint64_t objects_moved, bytes_moved;
    uint64_t objects_freed, bytes_freed;
    int64_t used_bytes, capacity_bytes; /* GC_FINISH's */
} ChromeCollection;

typedef struct ChromeTrace {
    TraceOutput out;
    bool begun;            /* the opening and the track names are written */
    uint64_t records;      /* written so far: a comma goes before every record but the first */
    bool in_collection;
    ChromePhase phase;     /* the open phase slice, NONE if none */
} ChromeTrace;

/* Opens `path`; false with errno set if it cannot be opened. */
bool chrome_open(ChromeTrace *trace, const char *path);

/* Writes the opening and the process and track names: at the first event,
 * once the VM can say which collector runs (NULL: "unknown"). */
void chrome_begin(ChromeTrace *trace, const char *collector);

/* Times are nanoseconds from the run's start. */
void chrome_collection_begin(ChromeTrace *trace, uint64_t ns);
/* Enters `phase` (closing the one before, if another) within a collection. */
void chrome_phase(ChromeTrace *trace, uint64_t ns, ChromePhase phase);
void chrome_collection_end(ChromeTrace *trace, uint64_t ns, const ChromeCollection *collection);

void chrome_arena_counter(ChromeTrace *trace, uint64_t ns, int32_t arena_id, const char *arena_name,
                          uint64_t used_bytes, uint64_t objects);
/* A one-series counter: "heap used", "heap capacity". */
void chrome_counter(ChromeTrace *trace, uint64_t ns, const char *name, uint64_t bytes);

/* Closes any slice still open (a run that ends inside a collection), ends
 * the JSON and publishes the file.  Returns 0 or the errno of the first
 * failure (the file is then removed). */
int chrome_close(ChromeTrace *trace, uint64_t ns);

#endif
