/*
 * marksweep.c -- the mark-and-sweep collector (--gc=marksweep).
 *
 * Invariant, between collections:
 *   - objects[0 .. num_objects) are exactly the allocated objects, in
 *     allocation order, each its own block from the memory layer and each
 *     with gc_word == gc->fresh_gc_word ("unmarked");
 *   - gc_used_bytes <= the capacity (sized after each collection between
 *     -Xms and --heap: budget.h), except while the VM has disabled
 *     collection (then the heap grows past its budget);
 *   - gc->alloc_region is gc_closed_region: every gc_alloc comes to
 *     ms_alloc_slow.
 * Events: the VMPI patent's MARK-AND-SWEEP GARBAGE COLLECTOR, in the order
 * docs/event-mapping.md gives (its marksweep section), the one place it is
 * written; tests/unit/gc_marksweep.c checks this file posts it.
 * Mechanism events (docs/mechanism-events.md): phases "mark" and "sweep";
 * OBJECT_FREE_CAUSE "unmarked" before each OBJECT_FREE.
 *
 * Marking is gc/common/trace.h's; the mark bit flips meaning at every
 * collection (as Lua's two whites do), so the sweep never writes to a
 * survivor.  Storage and the free pool: docs/collectors/marksweep.md.
 */
#include <stdlib.h>

#include "gc/common/budget.h"
#include "gc/common/collect.h"
#include "gc/common/memory.h"
#include "gc/common/trace.h"
#include "gc/common/weak.h"
#include "gc/gc.h"

#define MS_ARENA_ID 1u
#define MS_TABLE_INITIAL_CAPACITY 1024u
/* How many table entries ahead the sweep prefetches object headers: the
 * table is read in order but the headers it points to are scattered. */
#define MS_SWEEP_PREFETCH 8u

typedef struct MarkSweep {
    Gc gc;                   /* first, so a Gc * is a MarkSweep * */
    GcMemory memory;
    Obj **objects;           /* every allocated object, in allocation order */
    size_t num_objects;
    size_t objects_capacity;
    uint32_t mark_value;     /* gc_word of a marked object, during a collection */
    GcMarkStack mark_stack;  /* kept between collections to avoid malloc */
} MarkSweep;

extern const GcOps gc_marksweep_ops;

/* ---- marking ------------------------------------------------------------- */

static inline bool ms_try_mark(Obj *obj, void *ctx) {
    const MarkSweep *ms = ctx;
    if (obj->gc_word == ms->mark_value) return false;
    obj->gc_word = ms->mark_value;
    return true;
}

/* Marked in this collection: alive (weak.h). */
static bool ms_is_marked(const Obj *obj, void *ctx) {
    const MarkSweep *ms = ctx;
    return obj->gc_word == ms->mark_value;
}

/* ---- sweeping ------------------------------------------------------------ */

/* Frees every unmarked object (posting OBJECT_FREE for each) and slides the
 * marked ones down the table. */
static void ms_sweep(MarkSweep *ms) {
    Obj **objects = ms->objects;
    size_t count = ms->num_objects, kept = 0;
    uint64_t freed_objects = 0, freed_bytes = 0;
    for (size_t i = 0; i < count; i++) {
        if (i + MS_SWEEP_PREFETCH < count) __builtin_prefetch(objects[i + MS_SWEEP_PREFETCH]);
        Obj *obj = objects[i];
        if (obj->gc_word == ms->mark_value) {
            objects[kept++] = obj;
            continue;
        }
        size_t bytes = obj_size(obj);
        gc_post_object_free_because(obj, GC_FREE_UNMARKED);
        freed_objects++;
        freed_bytes += bytes;
        gc_memory_free(&ms->memory, obj, bytes);
    }
    ms->num_objects = kept;

    GcStats *stats = &ms->gc.stats;
    stats->objects_freed += freed_objects;
    stats->bytes_freed += freed_bytes;
}

/* ---- the object table ---------------------------------------------------- */

/* Reallocates the table to `capacity` entries; false (the table as it
 * was) if there is no memory. */
static bool ms_resize_table(MarkSweep *ms, size_t capacity) {
    Obj **objects = realloc(ms->objects, capacity * sizeof *objects);
    if (objects == NULL) return false;
    ms->objects = objects;
    ms->objects_capacity = capacity;
    return true;
}

static bool ms_grow_table(MarkSweep *ms) {
    return ms_resize_table(ms, ms->objects_capacity ? ms->objects_capacity * 2 : MS_TABLE_INITIAL_CAPACITY);
}

/* Gives back table space a shrunken heap no longer needs (a quarter-full
 * table halves), so one burst of allocation does not pin memory forever.
 * Keeping the larger table when realloc fails is harmless. */
static void ms_shrink_table(MarkSweep *ms) {
    if (ms->objects_capacity > MS_TABLE_INITIAL_CAPACITY && ms->num_objects < ms->objects_capacity / 4)
        ms_resize_table(ms, ms->objects_capacity / 2);
}

/* ---- collecting ---------------------------------------------------------- */

/* Mark (gc/common/trace.h, gc_trace_mark_reachable), then sweep, then
 * size the heap for what survived and `request` (gc/common/heapsize.h). */
static void ms_collect_call(GcCollectionCall *call) {
    MarkSweep *ms = (MarkSweep *)call->gc;
    Gc *gc = call->gc;
    GcCollection collection = gc_collection_begin(gc, GC_COLLECTION_MAJOR, call->reason);
    ms->mark_value = gc->fresh_gc_word ^ 1u;
    gc_trace_mark_reachable(gc, &ms->mark_stack, ms_try_mark, ms);
    gc_clear_dead_weak_roots(gc, ms_is_marked, ms);
    gc_post_phase_start("sweep");
    ms_sweep(ms);
    gc_post_phase_end("sweep");
    gc->fresh_gc_word = ms->mark_value;
    ms_shrink_table(ms);
    gc_budget_settle(gc, &ms->memory, call->request);
    gc_collection_end(gc, &collection);
}

static void ms_collect_for(MarkSweep *ms, GcReason reason, size_t request) {
    gc_run_collection(&ms->gc, ms_collect_call, reason, request, 0);
}

static void ms_collect(Gc *gc, GcReason reason) { ms_collect_for((MarkSweep *)gc, reason, 0); }

/* ---- allocating ---------------------------------------------------------- */

/* Makes room for `bytes` more: collects when the budget would be exceeded
 * (or always, under --gc-stress).  False if the request cannot be met. */
static bool ms_make_room(MarkSweep *ms, size_t bytes) {
    Gc *gc = &ms->gc;
    if (GC_LIKELY(gc_budget_fits(gc, bytes) && !gc->config.stress)) return true;
    /* A request larger than the maximum heap can never be met. */
    if (bytes > gc->config.heap_bytes) return false;
    /* Collection disabled: the heap grows past its budget (docs/collectors/marksweep.md). */
    if (gc_disabled_once_stopped(gc)) return true;
    ms_collect_for(ms, gc_alloc_reason(gc), bytes);
    return gc_budget_fits(gc, bytes);
}

/* If full, collect; then take a block of its own. */
static Obj *ms_alloc_slow(Gc *gc, const RtClass *cls, uint32_t length, size_t bytes) {
    MarkSweep *ms = (MarkSweep *)gc;
    if (!ms_make_room(ms, bytes)) return NULL;
    if (GC_UNLIKELY(ms->num_objects == ms->objects_capacity) && !ms_grow_table(ms)) return NULL;
    void *block = gc_memory_alloc_zeroed(&ms->memory, bytes);
    if (GC_UNLIKELY(block == NULL)) return NULL;
    /* Listed before OBJECT_ALLOC is posted: its handler may walk the heap. */
    ms->objects[ms->num_objects++] = block;
    return gc_new_object(gc, block, MS_ARENA_ID, cls, length, bytes);
}

/* ---- the heap as a whole ------------------------------------------------- */

static void ms_walk_heap(Gc *gc, GcObjectVisitor visit, void *ctx) {
    MarkSweep *ms = (MarkSweep *)gc;
    for (size_t i = 0; i < ms->num_objects; i++) visit(ms->objects[i], MS_ARENA_ID, ctx);
}

static Gc *ms_create(const GcConfig *config) {
    MarkSweep *ms = calloc(1, sizeof *ms);
    if (ms == NULL) return NULL;
    if (!gc_memory_init(&ms->memory)) {
        free(ms);
        return NULL;
    }
    Gc *gc = &ms->gc;
    gc_objlist_init(&ms->mark_stack);
    gc_init(gc, &gc_marksweep_ops, config, gc_heap_floor(config, config->heap_bytes));
    return gc;
}

/* Frees every object and the heap itself.  No events: the heap's end is
 * not a collection (its objects simply cease with the VM). */
static void ms_destroy(Gc *gc) {
    MarkSweep *ms = (MarkSweep *)gc;
    for (size_t i = 0; i < ms->num_objects; i++) {
        Obj *obj = ms->objects[i];
        gc_memory_free(&ms->memory, obj, obj_size(obj));
    }
    free(ms->objects);
    gc_objlist_free(&ms->mark_stack);
    gc_memory_release(&ms->memory);
    free(ms);
}

/* ---- the collector's tables ---------------------------------------------- */

static const GcArenaInfo ms_arenas[] = {{MS_ARENA_ID, "heap"}};

static const GcConstraints ms_constraints = {
    .name = "marksweep",
    .description = "mark-and-sweep: objects never move; dead ones return to the free pool",
    .moves_objects = false,
    .barrier = GC_BARRIER_NONE,
    .num_arenas = 1,
    .arenas = ms_arenas,
};

const GcOps gc_marksweep_ops = {
    .constraints = &ms_constraints,
    .create = ms_create,
    .destroy = ms_destroy,
    .alloc_slow = ms_alloc_slow,
    .write_barrier = gc_store_without_barrier,
    .collect = ms_collect,
    .walk_heap = ms_walk_heap,
};
