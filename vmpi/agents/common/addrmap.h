/*
 * addrmap.h -- a map from object IDs to what the event stream said about
 * them (arena, size, and a tag the agent chooses: hprof's heap=sites, the
 * allocation site), laid out by address, for an agent that tracks every
 * object.  idmap.h is the map for IDs that are few or far apart.
 *
 * An object ID is its address, a multiple of 8 (docs/architecture.md,
 * "Object, class and arena IDs").  The map cuts the address space into
 * pages of ADDRMAP_PAGE_BYTES; a page it has seen an object in has an entry
 * for each 8-byte word of it (12 bytes: arena, size, tag) and a bit per
 * word saying whether an object is there.  So a bump allocator's objects
 * land in consecutive entries, as they do in the heap: recording them is a
 * stream of stores, not a cache miss each, and removing an arena walks its
 * pages' bits in address order.  A directory (open addressing on the page
 * number) finds a page; the last page used is remembered, since the next
 * ID is usually in it.
 *
 * Pages and the directory come from mmap, not malloc, so that the map may
 * grow during a collection, when an agent must not call malloc (JVMPI 1.2,
 * section 1.5): an object may move to a page no object was in before.
 * Memory running out is the only failure: addrmap_put returns NULL.
 *
 * Invariant: an entry is present exactly when its bit is set; `count` is
 * the number of bits set, and each arena's count and ID range are as
 * arena_ranges.h says.  ID 0 and IDs that are not a multiple of 8 are
 * never present (addrmap_put refuses them).
 */
#ifndef GCLAB_AGENT_ADDRMAP_H
#define GCLAB_AGENT_ADDRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena_ranges.h"

typedef struct AddrEntry {
    int32_t arena_id;
    uint32_t size;      /* bytes */
    uint32_t tag;       /* the agent's own */
} AddrEntry;

#define ADDRMAP_PAGE_SHIFT 16 /* 64 KiB of addresses a page */
#define ADDRMAP_PAGE_BYTES ((uint64_t)1 << ADDRMAP_PAGE_SHIFT)
#define ADDRMAP_WORDS (ADDRMAP_PAGE_BYTES / 8)

typedef struct AddrPage {
    uint64_t number;                      /* its first address >> ADDRMAP_PAGE_SHIFT */
    uint64_t present[ADDRMAP_WORDS / 64]; /* bit w: an object at word w */
    AddrEntry entries[ADDRMAP_WORDS];
} AddrPage;

typedef struct AddrMap {
    AddrPage **directory; /* open addressing on the page number, at most half full */
    size_t capacity;      /* a power of two, or 0 */
    size_t num_pages;
    AddrPage *last;       /* the page last used, or NULL */
    size_t count;         /* entries */
    ArenaRanges arenas;
} AddrMap;

/* An empty map; it allocates nothing until the first put. */
void addrmap_init(AddrMap *map);
void addrmap_free(AddrMap *map);

/* The entry for `id`, or NULL. */
const AddrEntry *addrmap_find(const AddrMap *map, uint64_t id);

/* Adds `id` with tag 0, or, if it is present, gives its entry the new arena
 * and size (and tag 0) after copying it as it was to *replaced and setting
 * *was_present.  Returns the entry (valid until the map changes); NULL,
 * the map unchanged, if `id` is 0 or not a multiple of 8 or memory ran
 * out. */
AddrEntry *addrmap_put(AddrMap *map, uint64_t id, int32_t arena_id, uint32_t size, AddrEntry *replaced,
                       bool *was_present);

/* Removes `id`, copying its entry to *taken; false if it was not there. */
bool addrmap_take(AddrMap *map, uint64_t id, AddrEntry *taken);

/* Removes every entry in `arena_id`; `removing`, unless NULL, sees each
 * just before it goes.  Returns how many. */
size_t addrmap_remove_arena(AddrMap *map, int32_t arena_id,
                            void (*removing)(const AddrEntry *entry, void *context), void *context);

#endif
