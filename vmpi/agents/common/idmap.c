/*
 * idmap.c -- the agents' ID hash map (see idmap.h).
 */
#include "idmap.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* A large table is touched all over (one object's slot per allocation):
 * with 4 KiB pages nearly every touch misses the TLB, which in a virtual
 * machine costs a two-level page walk.  So a table of 2 MiB or more is
 * aligned to 2 MiB and asks for transparent huge pages (Linux, madvise;
 * elsewhere, or if refused, it is an ordinary allocation). */
#define HUGE_PAGE ((size_t)2 << 20)

static IdEntry *alloc_zeroed(size_t capacity) {
    size_t bytes = capacity * sizeof(IdEntry);
    if (bytes < HUGE_PAGE) return calloc(capacity, sizeof(IdEntry));
    void *slots;
    if (posix_memalign(&slots, HUGE_PAGE, bytes) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(slots, bytes, MADV_HUGEPAGE);
#endif
    memset(slots, 0, bytes);
    return slots;
}

/* IDs are addresses, and a program touches its objects in address order:
 * a bump allocator hands out consecutive addresses, a sweep or a compaction
 * walks the heap upwards.  So the home slot keeps locality: the 512-byte
 * block an ID lies in is spread over the table by Fibonacci hashing (the
 * multiply mixes every bit of the block number into the top ones), and the
 * ID's 8-byte word within the block is added to that, so the objects of one
 * block have their homes in one run of 64 slots.  Consecutive allocations
 * then touch neighbouring slots, not a random cache line and page each. */
#define BLOCK_SHIFT 9
#define WORDS_PER_BLOCK (1u << (BLOCK_SHIFT - 3))

/* The first slot of the run where block `block`'s IDs have their homes. */
static size_t block_home(const IdMap *map, uint64_t block) {
    return (size_t)((block * UINT64_C(0x9E3779B97F4A7C15)) >> map->shift);
}

static size_t home_slot(const IdMap *map, uint64_t id) {
    size_t word = (size_t)(id >> 3) & (WORDS_PER_BLOCK - 1);
    return (block_home(map, id >> BLOCK_SHIFT) + word) & (map->capacity - 1);
}

static bool alloc_slots(IdMap *map, size_t capacity) {
    IdEntry *slots = alloc_zeroed(capacity);
    if (!slots) return false;
    unsigned log2 = 0;
    while (((size_t)1 << log2) < capacity) log2++;
    map->slots = slots;
    map->capacity = capacity;
    map->shift = 64 - log2;
    map->count = 0;
    map->arenas.num_ranges = 0;
    return true;
}

bool idmap_init(IdMap *map, size_t capacity) {
    size_t power = 16;
    while (power < capacity) power *= 2;
    return alloc_slots(map, power);
}

void idmap_free(IdMap *map) {
    free(map->slots);
    map->slots = NULL;
    map->capacity = map->count = 0;
}

void idmap_clear(IdMap *map) {
    memset(map->slots, 0, map->capacity * sizeof *map->slots);
    map->count = 0;
    map->arenas.num_ranges = 0;
}

bool idmap_grow(IdMap *map, size_t count) {
    if (count <= map->capacity / 2) return true;
    size_t capacity = map->capacity;
    while (count > capacity / 2) capacity *= 2;
    IdMap grown;
    if (!alloc_slots(&grown, capacity)) return false;
    for (size_t i = 0; i < map->capacity; i++) {
        const IdEntry *e = &map->slots[i];
        if (e->id) *idmap_insert(&grown, e->id, e->arena_id, e->size) = *e;
    }
    free(map->slots);
    *map = grown;
    return true;
}

IdEntry *idmap_find(const IdMap *map, uint64_t id) {
    if (id == 0) return NULL; /* the empty marker names nothing */
    size_t mask = map->capacity - 1;
    for (size_t i = home_slot(map, id);; i = (i + 1) & mask) {
        IdEntry *e = &map->slots[i];
        if (e->id == id) return e;
        if (e->id == 0) return NULL;
    }
}

IdEntry *idmap_insert(IdMap *map, uint64_t id, int32_t arena_id, uint32_t size) {
    size_t mask = map->capacity - 1;
    size_t i = home_slot(map, id);
    while (map->slots[i].id) i = (i + 1) & mask;
    map->slots[i] = (IdEntry){.id = id, .arena_id = arena_id, .size = size};
    map->count++;
    arena_range_add(&map->arenas, arena_id, id);
    return &map->slots[i];
}

IdEntry *idmap_put(IdMap *map, uint64_t id, int32_t arena_id, uint32_t size, IdEntry *replaced,
                   bool *was_present) {
    size_t mask = map->capacity - 1;
    size_t i = home_slot(map, id);
    while (map->slots[i].id && map->slots[i].id != id) i = (i + 1) & mask;
    IdEntry *e = &map->slots[i];
    *was_present = e->id != 0;
    if (*was_present) {
        *replaced = *e;
        arena_range_drop(&map->arenas, e->arena_id, 1);
    } else {
        map->count++;
    }
    *e = (IdEntry){.id = id, .arena_id = arena_id, .size = size};
    arena_range_add(&map->arenas, arena_id, id);
    return e;
}

/* Backward-shift deletion: walk the cluster after the hole and move back
 * every entry whose home slot does not lie (cyclically) in (hole, j]. */
void idmap_remove(IdMap *map, IdEntry *entry) {
    arena_range_drop(&map->arenas, entry->arena_id, 1);
    size_t mask = map->capacity - 1;
    size_t hole = (size_t)(entry - map->slots);
    for (size_t j = (hole + 1) & mask; map->slots[j].id; j = (j + 1) & mask) {
        size_t home = home_slot(map, map->slots[j].id);
        bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (!stays) {
            map->slots[hole] = map->slots[j];
            hole = j;
        }
    }
    map->slots[hole] = (IdEntry){0};
    map->count--;
}

/* Removes slot i's entry if it is in `arena_id`; true if it did (a later
 * entry may have shifted into slot i: look at it again). */
typedef struct ArenaRemoval {
    int32_t arena_id;
    size_t removed;
    uint64_t bytes;
    void (*removing)(const IdEntry *entry, void *context);
    void *context;
} ArenaRemoval;

static bool remove_if_in_arena(IdMap *map, size_t i, ArenaRemoval *r) {
    IdEntry *e = &map->slots[i];
    if (!e->id || e->arena_id != r->arena_id) return false;
    r->bytes += e->size;
    r->removed++;
    if (r->removing) r->removing(e, r->context);
    idmap_remove(map, e);
    return true;
}

size_t idmap_remove_arena(IdMap *map, int32_t arena_id, uint64_t *bytes,
                          void (*removing)(const IdEntry *entry, void *context), void *context) {
    ArenaRemoval r = {.arena_id = arena_id, .removing = removing, .context = context};
    const ArenaRange *arena = arena_range_of(&map->arenas, arena_id);
    size_t mask = map->capacity - 1;
    uint64_t first_block = arena ? arena->low >> BLOCK_SHIFT : 0, last_block = arena ? arena->high >> BLOCK_SHIFT : 0;
    if (arena && arena->count == 0) {
        /* nothing to remove */
    } else if (arena && last_block - first_block < map->capacity / WORDS_PER_BLOCK / 2) {
        /* Each block's entries have their homes in the run of WORDS_PER_BLOCK
         * slots from its block home, and lie between their home and the
         * first empty slot after it: so walk the run, then on to an empty
         * slot.  A removal shifts entries back only into the slot being
         * looked at or later ones, so none is missed. */
        for (uint64_t block = first_block; block <= last_block && arena->count > 0; block++) {
            size_t i = block_home(map, block);
            for (size_t walked = 0; walked < WORDS_PER_BLOCK || map->slots[i].id; walked++, i = (i + 1) & mask)
                while (remove_if_in_arena(map, i, &r)) continue;
        }
    } else {
        /* The whole table.  A removal may shift a later entry back into
         * slot i, so slot i is looked at again; entries shifted across the
         * end of the table land in slots not yet visited, and those that
         * wrap the other way were kept. */
        for (size_t i = 0; i < map->capacity; i++)
            while (remove_if_in_arena(map, i, &r)) continue;
    }
    *bytes = r.bytes;
    return r.removed;
}
