/*
 * arena_ranges.h -- for the agents' object maps (idmap.h, addrmap.h): how
 * many entries each of the first ARENA_RANGES arena IDs has, and the
 * lowest and highest ID among them since it last had none, so that
 * removing a whole arena looks only where its objects can be.
 *
 * Invariant: every entry of a tracked arena lies in its [low, high], and
 * `count` is its number of entries.  Arenas seen after the first
 * ARENA_RANGES are untracked: removing one looks everywhere.
 */
#ifndef GCLAB_AGENT_ARENA_RANGES_H
#define GCLAB_AGENT_ARENA_RANGES_H

#include <stddef.h>
#include <stdint.h>

#define ARENA_RANGES 8

typedef struct ArenaRange {
    int32_t arena_id;
    size_t count;       /* its entries */
    uint64_t low, high; /* its entries' IDs lie in [low, high] (low > high: none yet) */
} ArenaRange;

typedef struct ArenaRanges {
    ArenaRange ranges[ARENA_RANGES]; /* the first arena IDs seen */
    uint32_t num_ranges;
} ArenaRanges;

/* The range of `arena_id`, made if there is room; NULL if untracked. */
static inline ArenaRange *arena_range_of(ArenaRanges *arenas, int32_t arena_id) {
    for (uint32_t i = 0; i < arenas->num_ranges; i++)
        if (arenas->ranges[i].arena_id == arena_id) return &arenas->ranges[i];
    if (arenas->num_ranges == ARENA_RANGES) return NULL;
    ArenaRange *range = &arenas->ranges[arenas->num_ranges++];
    *range = (ArenaRange){.arena_id = arena_id, .low = UINT64_MAX, .high = 0};
    return range;
}

/* An entry with ID `id` joined `arena_id`. */
static inline void arena_range_add(ArenaRanges *arenas, int32_t arena_id, uint64_t id) {
    ArenaRange *range = arena_range_of(arenas, arena_id);
    if (!range) return;
    range->count++;
    if (id < range->low) range->low = id;
    if (id > range->high) range->high = id;
}

/* `n` entries left `arena_id`. */
static inline void arena_range_drop(ArenaRanges *arenas, int32_t arena_id, size_t n) {
    ArenaRange *range = arena_range_of(arenas, arena_id);
    if (range && (range->count -= n) == 0) *range = (ArenaRange){.arena_id = arena_id, .low = UINT64_MAX};
}

#endif
