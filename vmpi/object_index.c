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
 * Cost, honestly: the first question after the heap changed pays one walk
 * (O(n), plus a sort, O(n log n), for collectors whose walk is not in
 * address order: marksweep and refcount walk their object tables); each
 * further question costs O(log n), and O(1) when it names the object after
 * the one named last in address order -- an agent asking in the order of a
 * level-0 dump, under a collector that walks in address order -- or the
 * same object again (guard.c checks the ID, then request.c looks it up).
 * Amortized over a catch-up of n requests on an unchanged heap that is
 * O(log n) per request at worst.  A heap that changes between every two
 * questions (an agent requesting from its own OBJECT_ALLOC handler) pays a
 * walk per question, as before.
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
    bool built;             /* objects and epoch describe the heap at epoch */
    size_t last_found;      /* where the last question was answered */
} index_;

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
    if (index_.count == index_.capacity) {
        size_t capacity = index_.capacity ? index_.capacity * 2 : 1024;
        IndexedObject *grown = realloc(index_.objects, capacity * sizeof *grown);
        if (!grown) {
            build->out_of_memory = true;
            return;
        }
        index_.objects = grown;
        index_.capacity = capacity;
    }
    uintptr_t address = (uintptr_t)obj;
    if (index_.count > 0 && address <= index_.objects[index_.count - 1].address) build->sorted = false;
    index_.objects[index_.count++] = (IndexedObject){address, arena_id};
}

static int by_address(const void *a, const void *b) {
    uintptr_t x = ((const IndexedObject *)a)->address, y = ((const IndexedObject *)b)->address;
    return (x > y) - (x < y);
}

/* Makes the index describe the heap now; false if memory ran out. */
static bool index_heap(Gc *gc) {
    HeapEpoch now = heap_epoch(gc);
    if (index_.built && same_epoch(&index_.epoch, &now)) return true;
    index_.built = false;
    index_.count = 0;
    index_.last_found = 0;
    IndexBuild build = {.sorted = true};
    gc->ops->walk_heap(gc, index_object, &build);
    if (build.out_of_memory) return false;
    if (!build.sorted) qsort(index_.objects, index_.count, sizeof *index_.objects, by_address);
    index_.epoch = now;
    index_.built = true;
    return true;
}

/* ---- asking ------------------------------------------------------------------------------------ */

/* The position of `address` in the index, or SIZE_MAX. */
static size_t position_of(uintptr_t address) {
    size_t hint = index_.last_found;
    for (size_t at = hint; at < index_.count && at <= hint + 1; at++)
        if (index_.objects[at].address == address) return at;
    size_t low = 0, high = index_.count;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (index_.objects[mid].address < address) low = mid + 1;
        else high = mid;
    }
    return low < index_.count && index_.objects[low].address == address ? low : SIZE_MAX;
}

/* The fallback without an index: one walk for one question. */
typedef struct ObjectSearch {
    uintptr_t wanted;
    Obj *found;
    uint32_t arena_id;
} ObjectSearch;

static void match_object(Obj *obj, uint32_t arena_id, void *ctx) {
    ObjectSearch *search = ctx;
    if ((uintptr_t)obj != search->wanted) return;
    search->found = obj;
    search->arena_id = arena_id;
}

bool vmpi_find_object(const void *object_id, Obj **obj, VMPI_ArenaID *arena_id) {
    Gc *gc = vmpi_gc();
    /* Mid-collection the heap is half processed and cannot be walked. */
    if (!gc || !object_id || gc_is_collecting(gc)) return false;
    uintptr_t address = (uintptr_t)object_id;
    if (!index_heap(gc)) {
        ObjectSearch search = {.wanted = address};
        gc->ops->walk_heap(gc, match_object, &search);
        if (!search.found) return false;
        *obj = search.found;
        *arena_id = (VMPI_ArenaID)search.arena_id;
        return true;
    }
    size_t at = position_of(address);
    if (at == SIZE_MAX) return false;
    index_.last_found = at;
    *obj = (Obj *)index_.objects[at].address;
    *arena_id = (VMPI_ArenaID)index_.objects[at].arena_id;
    return true;
}
