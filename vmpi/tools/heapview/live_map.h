/*
 * live_map.h -- the objects a trace says are live, by ID (their address).
 *
 * An open-addressing table with linear probing, keyed by the object ID,
 * each run of entries kept in the order of their home slots (Robin Hood
 * hashing), so a lookup stops early and a removal shifts back only the
 * entries displaced from their home (no tombstones): a long run of
 * allocations and frees never degrades the probes.  IDs are unique among
 * live objects (docs/contracts.md), so a key is inserted only when absent.
 * Neighbouring addresses get neighbouring slots (live_map.c says why).
 * The table doubles when it is half full.
 */
#ifndef HEAPVIEW_LIVE_MAP_H
#define HEAPVIEW_LIVE_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LIVE_NO_DETAIL UINT32_MAX

typedef struct {
    uint64_t id;        /* the object's ID (address); 0 marks an empty slot */
    uint32_t size;      /* bytes, header included */
    uint16_t class_index;
    uint8_t arena_index;
    uint32_t detail;    /* its record in the current collection's detail, or LIVE_NO_DETAIL */
    uint32_t born_gc;   /* collections before its allocation (its lifetime in collections) */
    uint64_t born_clock;/* bytes allocated before it (its lifetime in bytes allocated) */
} LiveObject;

typedef struct {
    LiveObject *slots;
    size_t capacity;    /* a power of two */
    size_t count;
} LiveMap;

void live_map_init(LiveMap *map);
void live_map_free(LiveMap *map);
/* Adds `object` (its id must not be live); false if memory ran out. */
bool live_map_put(LiveMap *map, const LiveObject *object);
/* The live object with this ID, or NULL. */
LiveObject *live_map_get(LiveMap *map, uint64_t id);
/* Removes the object with this ID into *removed; false if it is not live. */
bool live_map_take(LiveMap *map, uint64_t id, LiveObject *removed);

#define LIVE_MAP_FOR_EACH(map, object) \
    for (LiveObject *object = (map)->slots; object < (map)->slots + (map)->capacity; object++) \
        if (object->id)

#endif
