/*
 * live_map.c -- the live objects by ID: linear probing kept in Robin Hood
 * order, with backward-shift removal (live_map.h says why).
 */
#include "live_map.h"

#include <stdlib.h>

/* Object IDs are addresses, and a trace names them in runs of neighbours:
 * an allocator hands out consecutive addresses, a sweep frees and a
 * compaction moves in address order.  So each block of addresses
 * keeps its order in a run of BLOCK_SLOTS slots (one per 16 bytes, the
 * smallest object), and only the blocks are scattered over the table
 * (Fibonacci hashing): neighbouring objects share cache lines, where
 * scattering every object made almost every lookup a cache miss. */
#define BLOCK_SHIFT 10 /* 1 KiB of addresses: measured best of 256 B to 64 KiB */
#define SLOT_SHIFT 4   /* 16 bytes an object at least */
#define BLOCK_SLOTS ((size_t)1 << (BLOCK_SHIFT - SLOT_SHIFT))

static size_t home_slot(const LiveMap *map, uint64_t id) {
    size_t block = (size_t)(((id >> BLOCK_SHIFT) * 0x9E3779B97F4A7C15ull) >> 17);
    return (block * BLOCK_SLOTS + (size_t)((id >> SLOT_SHIFT) & (BLOCK_SLOTS - 1))) & (map->capacity - 1);
}

void live_map_init(LiveMap *map) {
    map->slots = NULL;
    map->capacity = 0;
    map->count = 0;
}

void live_map_free(LiveMap *map) {
    free(map->slots);
    live_map_init(map);
}

/* How far past its home slot an entry sits. */
static size_t distance(const LiveMap *map, size_t slot, uint64_t id) {
    return (slot - home_slot(map, id)) & (map->capacity - 1);
}

/* Robin Hood insertion: an entry nearer its home gives its slot to the one
 * being placed and moves on, so each run is ordered by home slot. */
static void insert_slot(LiveMap *map, const LiveObject *object) {
    LiveObject carried = *object;
    size_t mask = map->capacity - 1, slot = home_slot(map, carried.id);
    for (size_t dist = 0; map->slots[slot].id; slot = (slot + 1) & mask, dist++) {
        size_t theirs = distance(map, slot, map->slots[slot].id);
        if (theirs < dist) {
            LiveObject displaced = map->slots[slot];
            map->slots[slot] = carried;
            carried = displaced;
            dist = theirs;
        }
    }
    map->slots[slot] = carried;
    map->count++;
}

static bool grow(LiveMap *map) {
    size_t capacity = map->capacity ? map->capacity * 2 : 1024;
    LiveObject *old_slots = map->slots;
    size_t old_capacity = map->capacity;
    map->slots = calloc(capacity, sizeof *map->slots);
    if (!map->slots) {
        map->slots = old_slots;
        return false;
    }
    map->capacity = capacity;
    map->count = 0;
    for (size_t i = 0; i < old_capacity; i++)
        if (old_slots[i].id) insert_slot(map, &old_slots[i]);
    free(old_slots);
    return true;
}

bool live_map_put(LiveMap *map, const LiveObject *object) {
    if ((map->count + 1) * 2 > map->capacity && !grow(map)) return false;
    insert_slot(map, object);
    return true;
}

LiveObject *live_map_get(LiveMap *map, uint64_t id) {
    if (!map->capacity || !id) return NULL;
    size_t mask = map->capacity - 1;
    for (size_t slot = home_slot(map, id), dist = 0;; slot = (slot + 1) & mask, dist++) {
        if (map->slots[slot].id == id) return &map->slots[slot];
        /* past an entry nearer its home, the runs' order says id is absent */
        if (!map->slots[slot].id || distance(map, slot, map->slots[slot].id) < dist) return NULL;
    }
}

bool live_map_take(LiveMap *map, uint64_t id, LiveObject *removed) {
    LiveObject *found = live_map_get(map, id);
    if (!found) return false;
    *removed = *found;
    size_t mask = map->capacity - 1;
    size_t hole = (size_t)(found - map->slots);
    /* Shift the following entries back one until an empty slot or one at
     * its home: in a sweep's run of neighbours, most are at home. */
    for (size_t next = (hole + 1) & mask; map->slots[next].id && distance(map, next, map->slots[next].id) > 0;
         next = (next + 1) & mask) {
        map->slots[hole] = map->slots[next];
        hole = next;
    }
    map->slots[hole].id = 0;
    map->count--;
    return true;
}
