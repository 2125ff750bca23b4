/*
 * idmap.h -- a hash map from VMPI IDs to what the event stream said about
 * them: for objects their arena, size and a tag, kind and stamp the agent
 * chooses (hprof: the allocation site); for classes, methods and threads nothing but
 * presence.  Shared by the bundled agents (vmpi/agents/common is linked into
 * each).
 *
 * Open addressing with linear probing, and deletion by shifting the rest of
 * the cluster back (no tombstones), so a map that is only inserted into and
 * removed from never needs rebuilding.  Invariant: at least one slot is
 * empty, and every entry sits between its home slot and the first empty
 * slot after it.  ID 0 (NULL) is the empty marker and is never stored.
 * An ID's home slot keeps address locality (idmap.c, home_slot): IDs a few
 * bytes apart have homes a few slots apart, so a program that allocates,
 * sweeps or compacts in address order walks the table, not all over it.
 *
 * Removing a whole arena need not scan the table.  The map keeps each
 * arena's entry count and ID range (arena_ranges.h).  When that range
 * spans fewer 512-byte blocks than the table has slots / 64, idmap_remove_arena visits only the slot runs
 * those blocks hash to (a young generation's few MiB, out of a table of
 * millions of slots); an empty arena costs nothing.
 *
 * Only idmap_init and idmap_reserve allocate.  An agent reserves room before
 * a collection, so that inserts during it (thread-suspended mode, no
 * malloc allowed) never need to grow the map.
 */
#ifndef GCLAB_AGENT_IDMAP_H
#define GCLAB_AGENT_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena_ranges.h"

typedef struct IdEntry {
    uint64_t id;        /* 0: empty slot */
    int32_t arena_id;   /* objects: the arena the ID lives in */
    uint32_t size;      /* objects: bytes */
    uint32_t tag;       /* the agent's own: 0 when inserted */
    uint32_t kind;      /* the agent's own too (gcstats: the object's class) */
    uint64_t stamp;     /* the agent's own too (gcstats: the bytes allocated before the object) */
} IdEntry;

typedef struct IdMap {
    IdEntry *slots;
    size_t capacity;    /* a power of two */
    unsigned shift;     /* 64 - log2(capacity): hash to slot */
    size_t count;
    ArenaRanges arenas; /* each tracked arena's entries and their IDs' range */
} IdMap;

bool idmap_init(IdMap *map, size_t capacity);
void idmap_free(IdMap *map);

/* Grows the map so that `count` entries fit while it stays at most half
 * full.  False if memory ran out (the map is unchanged). */
bool idmap_grow(IdMap *map, size_t count);

/* Grows the map, if needed, so that `count` entries fit while it stays at
 * most half full: inline, as an agent asks before every insert.  False if
 * memory ran out (the map is unchanged). */
static inline bool idmap_reserve(IdMap *map, size_t count) {
    return count <= map->capacity / 2 || idmap_grow(map, count);
}

/* True if one more entry fits without growing. */
static inline bool idmap_has_room(const IdMap *map) { return map->count + 1 < map->capacity; }

/* The entry for `id`, or NULL (always NULL for 0). */
IdEntry *idmap_find(const IdMap *map, uint64_t id);

/* Adds `id`, which must not be present; the caller made room.  Returns its
 * entry (valid until the next insert or remove). */
IdEntry *idmap_insert(IdMap *map, uint64_t id, int32_t arena_id, uint32_t size);

/* Adds `id`, or, if it is present, gives its entry the new arena and size
 * (and tag 0), after copying the entry as it was to *replaced and setting
 * *was_present: one walk of the table for what idmap_find and
 * idmap_insert do in two.  The caller made room.  Returns the entry (valid
 * until the next insert or remove). */
IdEntry *idmap_put(IdMap *map, uint64_t id, int32_t arena_id, uint32_t size, IdEntry *replaced,
                   bool *was_present);

/* Removes an entry idmap_find returned. */
void idmap_remove(IdMap *map, IdEntry *entry);

/* Removes every entry, keeping the table (no allocation). */
void idmap_clear(IdMap *map);

/* Removes every entry in `arena_id`; returns how many, and their bytes.
 * `removing`, unless NULL, sees each entry just before it goes. */
size_t idmap_remove_arena(IdMap *map, int32_t arena_id, uint64_t *bytes,
                          void (*removing)(const IdEntry *entry, void *context), void *context);

#endif
