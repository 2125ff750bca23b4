/*
 * collect.c -- the collection bracket (collect.h): verification, GC_START /
 * GC_FINISH, pause timing, collection statistics and the --gc-log line.
 */
#include "collect.h"

#include <sys/resource.h>
#include <time.h>

#include "verify.h"

static uint64_t monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static const char *kind_name(GcCollectionKind kind) {
    switch (kind) {
    case GC_COLLECTION_MINOR: return "minor";
    case GC_COLLECTION_MAJOR: return "major";
    case GC_COLLECTION_CYCLE: return "cycle";
    }
    return "?";
}

static const char *reason_name(GcReason reason) {
    switch (reason) {
    case GC_REASON_ALLOC: return "alloc";
    case GC_REASON_STRESS: return "stress";
    case GC_REASON_REQUESTED: return "requested";
    case GC_REASON_ZERO_COUNT: return "zero-count";
    }
    return "?";
}

GcCollection gc_collection_begin(Gc *gc, GcCollectionKind kind, GcReason reason) {
    if (gc->config.verify) gc_verify_heap(gc);
    gc->collecting = true;
    gc_post_gc_start();
    GcCollection collection = {
        .kind = kind,
        .reason = reason,
        .objects_before = gc_used_objects(gc),
        .bytes_before = gc_used_bytes(gc),
    };
    collection.start_ns = monotonic_ns();
    return collection;
}

static void count_collection(GcStats *stats, GcCollectionKind kind, uint64_t pause_ns) {
    stats->collections++;
    switch (kind) {
    case GC_COLLECTION_MINOR: stats->minor_collections++; break;
    case GC_COLLECTION_MAJOR: stats->major_collections++; break;
    case GC_COLLECTION_CYCLE: stats->cycle_collections++; break;
    }
    stats->total_pause_ns += pause_ns;
    if (pause_ns > stats->max_pause_ns) stats->max_pause_ns = pause_ns;
}

/* [gc 3] marksweep major (alloc): 1824 -> 310 objects, 58.4 KiB -> 9.9 KiB of 1024.0 KiB, pause 0.081 ms */
static void write_log_line(const Gc *gc, const GcCollection *collection, uint64_t pause_ns) {
    const GcStats *stats = &gc->stats;
    fprintf(gc->config.log,
            "[gc %llu] %s %s (%s): %llu -> %llu objects, %.1f KiB -> %.1f KiB of %.1f KiB, "
            "pause %.3f ms\n",
            (unsigned long long)stats->collections, gc->ops->constraints->name,
            kind_name(collection->kind), reason_name(collection->reason),
            (unsigned long long)collection->objects_before, (unsigned long long)gc_used_objects(gc),
            (double)collection->bytes_before / 1024.0, (double)gc_used_bytes(gc) / 1024.0,
            (double)gc_total_bytes(gc) / 1024.0, (double)pause_ns / 1e6);
    fflush(gc->config.log);
}

void gc_collection_end(Gc *gc, const GcCollection *collection) {
    uint64_t pause_ns = monotonic_ns() - collection->start_ns;
    if (gc->config.verify) gc_verify_heap(gc);
    count_collection(&gc->stats, collection->kind, pause_ns);
    if (gc->config.log != NULL) write_log_line(gc, collection, pause_ns);
    gc_post_gc_finish((int64_t)gc_used_objects(gc), (int64_t)gc_used_bytes(gc),
                        (int64_t)gc_total_bytes(gc));
    gc->collecting = false;
}

/* [gc] marksweep: 7 collections (0 minor, 7 major, 0 cycle), pause total
 * 63.1 ms, longest 12.3 ms; 2097150 objects allocated (64.0 MiB), 1900000
 * freed, 0 moved (0.0 MiB); peak RSS 89480 KiB
 *
 * The whole run in one line, so that one program run under each collector
 * can be compared side by side. */
void gc_log_summary(const Gc *gc) {
    const GcStats *stats = &gc->stats;
    struct rusage usage;
    long peak_rss_kib = getrusage(RUSAGE_SELF, &usage) == 0 ? usage.ru_maxrss : -1;
    fprintf(gc->config.log,
            "[gc] %s: %llu collections (%llu minor, %llu major, %llu cycle), pause total %.3f ms, "
            "longest %.3f ms; %llu objects allocated (%.1f MiB), %llu freed, %llu moved (%.1f MiB); "
            "peak RSS %ld KiB\n",
            gc->ops->constraints->name, (unsigned long long)stats->collections,
            (unsigned long long)stats->minor_collections, (unsigned long long)stats->major_collections,
            (unsigned long long)stats->cycle_collections, (double)stats->total_pause_ns / 1e6,
            (double)stats->max_pause_ns / 1e6, (unsigned long long)stats->objects_allocated,
            (double)stats->bytes_allocated / (1024.0 * 1024.0), (unsigned long long)stats->objects_freed,
            (unsigned long long)stats->objects_moved, (double)stats->bytes_moved / (1024.0 * 1024.0),
            peak_rss_kib);
    fflush(gc->config.log);
}
