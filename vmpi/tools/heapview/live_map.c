/*
 * live_map.c -- the live objects by ID: linear probing with backward-shift
 * removal (live_map.h says why).
 */
#include "live_map.h"

#include <stdlib.h>

static size_t home_slot(const LiveMap *map, uint64_t id) {
    /* Object IDs are aligned addresses: mix the bits so that neighbours
     * spread over the table (Fibonacci hashing). */
    return (size_t)((id * 0x9E3779B97F4A7C15ull) >> 17) & (map->capacity - 1);
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

static void insert_slot(LiveMap *map, const LiveObject *object) {
    size_t slot = home_slot(map, object->id);
    while (map->slots[slot].id) slot = (slot + 1) & (map->capacity - 1);
    map->slots[slot] = *object;
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
    for (size_t slot = home_slot(map, id);; slot = (slot + 1) & (map->capacity - 1)) {
        if (map->slots[slot].id == id) return &map->slots[slot];
        if (!map->slots[slot].id) return NULL;
    }
}

bool live_map_take(LiveMap *map, uint64_t id, LiveObject *removed) {
    LiveObject *found = live_map_get(map, id);
    if (!found) return false;
    *removed = *found;
    size_t mask = map->capacity - 1;
    size_t hole = (size_t)(found - map->slots);
    /* Shift back each following entry whose home lies at or before the hole
     * (cyclically), so every probe run stays unbroken. */
    for (size_t next = (hole + 1) & mask; map->slots[next].id; next = (next + 1) & mask) {
        size_t home = home_slot(map, map->slots[next].id);
        if (((next - home) & mask) >= ((next - hole) & mask)) {
            map->slots[hole] = map->slots[next];
            hole = next;
        }
    }
    map->slots[hole].id = 0;
    map->count--;
    return true;
}
