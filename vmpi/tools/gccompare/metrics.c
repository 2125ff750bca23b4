/*
 * metrics.c -- the rows of gccompare's table (metrics.h), the one list of
 * them: gccompare's report (report.c) and the lab page's table (docs/lab.md,
 * through vm/tools/lab/compare_rows.c) both show these.
 */
#include "metrics.h"

/* The table's rows, top to bottom; the CSV's too. */
const Metric compare_metrics[] = {
    {"collections", "collections", SHOW_COUNT},
    {"collections_freeing", "  that freed objects", SHOW_COUNT},
    {"collections_moving", "  that moved objects", SHOW_COUNT},
    {"collections_renewing_arenas", "  that renewed arenas", SHOW_COUNT},
    {"collections_copying", "  that copied objects", SHOW_COUNT},
    {"collections_sliding", "  that slid objects", SHOW_COUNT},
    {"collections_scavenging", "  that only scavenged", SHOW_COUNT},
    {"collections_freeing_survivors", "  that freed a structure", SHOW_COUNT},
    {"pause_p50_ns", "pause p50 (ms)", SHOW_MS},
    {"pause_p95_ns", "pause p95 (ms)", SHOW_MS},
    {"pause_max_ns", "pause max (ms)", SHOW_MS},
    {"gc_time_ns", "GC time (ms)", SHOW_MS},
    {"run_time_ns", "run time (ms)", SHOW_MS},
    {"throughput", "throughput (%)", SHOW_PERCENT},
    {"peak_used_bytes", "peak used (KiB)", SHOW_KIB},
    {"peak_capacity_bytes", "peak capacity (KiB)", SHOW_KIB},
    {"objects_allocated", "objects allocated", SHOW_COUNT},
    {"bytes_allocated", "bytes allocated", SHOW_COUNT},
    {"objects_moved", "objects moved", SHOW_COUNT},
    {"bytes_moved", "bytes moved", SHOW_COUNT},
    {"objects_freed", "objects freed", SHOW_COUNT},
    {"bytes_freed", "bytes freed", SHOW_COUNT},
    {"objects_freed_per_collection", "objects freed per collection", SHOW_RATIO},
    {"arenas_created", "arenas created", SHOW_COUNT},
    {"live_objects_at_exit", "objects live at exit", SHOW_COUNT},
    /* refcount only (figures_add_cycles_off) */
    {"live_objects_at_exit_cycles_off", "live at exit, cycles off", SHOW_COUNT},
    {"unreclaimed_cycles_off", "unreclaimed, cycles off", SHOW_COUNT},
};
const size_t num_compare_metrics = sizeof compare_metrics / sizeof compare_metrics[0];
