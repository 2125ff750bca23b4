/*
 * object_index.c -- finding a live object by its ID without walking the
 * heap per question: RequestEvent(OBJECT_ALLOC / OBJECT_DUMP) and guard.c's
 * check that an object ID names a live object (vmpi_find_object).
 *
 * An agent that enables the heap events late learns the heap by a level-0
 * dump and then one RequestEvent(OBJECT_ALLOC) per ID (docs/contracts.md,
 * "Late attach").  Walking the heap for each request made that O(n^2): a
 * million objects would not finish.  Instead one heap walk builds an index
 * -- every live object's address and arena, sorted by address -- and the
 * index serves every request until the heap changes.
 *
 * Invariant: the index is used only while its epoch equals the heap's.  The
 * epoch is the collector (its Gc) and its statistics that change whenever
 * the set of live objects or their addresses do -- objects allocated,
 * freed and moved, and collections (every collector keeps them exact,
 * gc/gc.h) -- with the arena table's generation (arenas.c), which
 * advances at every ARENA_NEW and ARENA_DELETE (an arena delete frees its
 * objects) and when a VM attaches.  So nothing on the allocation path pays
 * for the index: the collectors count what they count anyway, and vmpi
 * compares the counts only when asked.
 *
 * Cost, honestly: the first question after the heap changed is answered
 * by one walk, O(n), as before, and the same question again (guard.c
 * checks an ID, then request.c looks it up) from that answer.  The next
 * different question about the same heap builds the index: one more walk,
 * plus a sort, O(n log n), for the collectors whose walk is not in address
 * order (marksweep and refcount walk their object tables).  Every further
 * question costs O(log n), and O(1) when it names the object after the one
 * named last in address order -- an agent asking in the order of a level-0
 * dump, under a collector that walks in address order.  Amortized over a
 * catch-up of n requests on an unchanged heap that is O(log n) a request at
 * worst.  A heap that changes between every two requests (an agent
 * requesting from its own OBJECT_ALLOC handler) never gets an index and
 * pays one walk a request, as before, never a sort.
 *
 * If memory for the index runs out, each question walks the heap instead:
 * slower, never wrong.
 */
#include <stdlib.h>

#include "dispatch.h"

typedef struct IndexedObject {
    uintptr_t address;  /* the object ID */
    uint32_t arena_id;
} IndexedObject;

/* What the index was built from; equal epochs mean an unchanged heap. */
typedef struct HeapEpoch {
    const Gc *gc;
    uint64_t objects_allocated, objects_freed, objects_moved, collections;
    uint64_t arena_generation;
} HeapEpoch;

static struct {
    IndexedObject *objects; /* [0 .. count), by address */
    size_t count, capacity;
    HeapEpoch epoch;
    bool built;             /* objects describe the heap at epoch */
    size_t last_found;      /* where the last question was answered */
} live_index;

/* The last question about a heap with no index, and its answer. */
static struct {
    HeapEpoch epoch;
    uintptr_t address;
    Obj *found;             /* NULL: no live object has that ID */
    uint32_t arena_id;
} last_walk;

static HeapEpoch heap_epoch(const Gc *gc) {
    return (HeapEpoch){.gc = gc,
                       .objects_allocated = gc->stats.objects_allocated,
                       .objects_freed = gc->stats.objects_freed,
                       .objects_moved = gc->stats.objects_moved,
                       .collections = gc->stats.collections,
                       .arena_generation = vmpi_arena_generation};
}

static bool same_epoch(const HeapEpoch *a, const HeapEpoch *b) {
    return a->gc == b->gc && a->objects_allocated == b->objects_allocated &&
           a->objects_freed == b->objects_freed && a->objects_moved == b->objects_moved &&
           a->collections == b->collections && a->arena_generation == b->arena_generation;
}

/* ---- building ------------------------------------------------------------------------------ */

typedef struct IndexBuild {
    bool out_of_memory;
    bool sorted; /* every address so far above the one before */
} IndexBuild;

static void index_object(Obj *obj, uint32_t arena_id, void *ctx) {
    IndexBuild *build = ctx;
    if (build->out_of_memory) return;
    if (live_index.count == live_index.capacity) {
        size_t capacity = live_index.capacity ? live_index.capacity * 2 : 1024;
        IndexedObject *grown = realloc(live_index.objects, capacity * sizeof *grown);
        if (!grown) {
            build->out_of_memory = true;
            return;
        }
        live_index.objects = grown;
        live_index.capacity = capacity;
    }
    uintptr_t address = (uintptr_t)obj;
    if (live_index.count > 0 && address <= live_index.objects[live_index.count - 1].address) build->sorted = false;
    live_index.objects[live_index.count++] = (IndexedObject){address, arena_id};
}

static int by_address(const void *a, const void *b) {
    uintptr_t x = ((const IndexedObject *)a)->address, y = ((const IndexedObject *)b)->address;
    return (x > y) - (x < y);
}

/* Makes the index describe the heap at `now`; false if memory ran out. */
static bool index_heap(Gc *gc, const HeapEpoch *now) {
    live_index.built = false;
    live_index.count = 0;
    live_index.last_found = 0;
    IndexBuild build = {.sorted = true};
    gc->ops->walk_heap(gc, index_object, &build);
    if (build.out_of_memory) return false;
    if (!build.sorted) qsort(live_index.objects, live_index.count, sizeof *live_index.objects, by_address);
    live_index.epoch = *now;
    live_index.built = true;
    return true;
}

/* ---- asking ------------------------------------------------------------------------------------ */

/* The position of `address` in the index, or SIZE_MAX. */
static size_t position_of(uintptr_t address) {
    size_t hint = live_index.last_found;
    for (size_t at = hint; at < live_index.count && at <= hint + 1; at++)
        if (live_index.objects[at].address == address) return at;
    size_t low = 0, high = live_index.count;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (live_index.objects[mid].address < address) low = mid + 1;
        else high = mid;
    }
    return low < live_index.count && live_index.objects[low].address == address ? low : SIZE_MAX;
}

/* Without an index: one walk for one question, remembered in last_walk. */
static void match_object(Obj *obj, uint32_t arena_id, void *ctx) {
    (void)ctx;
    if ((uintptr_t)obj != last_walk.address) return;
    last_walk.found = obj;
    last_walk.arena_id = arena_id;
}

/* The VM vouches for the object: the answer to the next question about it
 * on this heap is known without a walk, as if one had just been made.  So
 * a recorder's RequestEvent(OBJECT_ALLOC) after every allocation costs
 * O(1), not a walk of the heap each. */
void vmpi_note_live_object(const Obj *obj) {
    Gc *gc = vmpi_gc();
    if (!gc || !obj || gc_is_collecting(gc)) return;
    last_walk.epoch = heap_epoch(gc);
    last_walk.address = (uintptr_t)obj;
    last_walk.found = (Obj *)obj;
    last_walk.arena_id = gc_arena_of(gc, obj);
}

static bool answer(Obj *found, uint32_t found_arena_id, Obj **obj, VMPI_ArenaID *arena_id) {
    if (!found) return false;
    *obj = found;
    *arena_id = (VMPI_ArenaID)found_arena_id;
    return true;
}

bool vmpi_find_object(const void *object_id, Obj **obj, VMPI_ArenaID *arena_id) {
    Gc *gc = vmpi_gc();
    /* Mid-collection the heap is half processed and cannot be walked. */
    if (!gc || !object_id || gc_is_collecting(gc)) return false;
    uintptr_t address = (uintptr_t)object_id;
    HeapEpoch now = heap_epoch(gc);
    bool indexed = live_index.built && same_epoch(&live_index.epoch, &now);
    if (!indexed && same_epoch(&last_walk.epoch, &now)) {
        /* The same question again (guard.c checks an ID, then request.c
         * looks it up) has its answer; another one about the same heap
         * builds the index. */
        if (address == last_walk.address) return answer(last_walk.found, last_walk.arena_id, obj, arena_id);
        indexed = index_heap(gc, &now);
    }
    if (!indexed) {
        last_walk.epoch = now;
        last_walk.address = address;
        last_walk.found = NULL;
        gc->ops->walk_heap(gc, match_object, NULL);
        return answer(last_walk.found, last_walk.arena_id, obj, arena_id);
    }
    size_t at = position_of(address);
    if (at == SIZE_MAX) return false;
    live_index.last_found = at;
    return answer((Obj *)live_index.objects[at].address, live_index.objects[at].arena_id, obj, arena_id);
}
