/*
 * addrmap.c -- the agents' object map laid out by address (see addrmap.h).
 */
#include "addrmap.h"

#include <sys/mman.h>

/* Zeroed memory straight from the kernel (see addrmap.h: no malloc). */
static void *map_zeroed(size_t bytes) {
    void *memory = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return memory == MAP_FAILED ? NULL : memory;
}

static uint64_t page_number(uint64_t id) { return id >> ADDRMAP_PAGE_SHIFT; }
static size_t word_in_page(uint64_t id) { return (size_t)(id & (ADDRMAP_PAGE_BYTES - 1)) >> 3; }

/* The directory slot where a search for page `number` starts. */
static size_t directory_home(size_t capacity, uint64_t number) {
    return (size_t)((number * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & (capacity - 1);
}

static AddrPage *page_in_directory(const AddrMap *map, uint64_t number) {
    if (!map->capacity) return NULL;
    for (size_t i = directory_home(map->capacity, number);; i = (i + 1) & (map->capacity - 1)) {
        AddrPage *page = map->directory[i];
        if (!page || page->number == number) return page;
    }
}

static void directory_insert(AddrPage **directory, size_t capacity, AddrPage *page) {
    size_t i = directory_home(capacity, page->number);
    while (directory[i]) i = (i + 1) & (capacity - 1);
    directory[i] = page;
}

/* Page `number`, remembered as the last one used; NULL if the map has none. */
static AddrPage *page_of(AddrMap *map, uint64_t number) {
    if (map->last && map->last->number == number) return map->last;
    AddrPage *page = page_in_directory(map, number);
    if (page) map->last = page;
    return page;
}

/* Page `number`, made if the map has none; NULL if memory ran out. */
static AddrPage *page_made(AddrMap *map, uint64_t number) {
    AddrPage *page = page_of(map, number);
    if (page) return page;
    if ((map->num_pages + 1) * 2 > map->capacity) {
        size_t capacity = map->capacity ? map->capacity * 2 : 64;
        AddrPage **directory = map_zeroed(capacity * sizeof *directory);
        if (!directory) return NULL;
        for (size_t i = 0; i < map->capacity; i++)
            if (map->directory[i]) directory_insert(directory, capacity, map->directory[i]);
        if (map->directory) munmap(map->directory, map->capacity * sizeof *map->directory);
        map->directory = directory;
        map->capacity = capacity;
    }
    page = map_zeroed(sizeof *page);
    if (!page) return NULL;
    page->number = number;
    directory_insert(map->directory, map->capacity, page);
    map->num_pages++;
    return map->last = page;
}

void addrmap_init(AddrMap *map) { *map = (AddrMap){0}; }

void addrmap_free(AddrMap *map) {
    for (size_t i = 0; i < map->capacity; i++)
        if (map->directory[i]) munmap(map->directory[i], sizeof *map->directory[i]);
    if (map->directory) munmap(map->directory, map->capacity * sizeof *map->directory);
    *map = (AddrMap){0};
}

static bool storable(uint64_t id) { return id != 0 && id % 8 == 0; }

static bool is_present(const AddrPage *page, size_t word) {
    return page->present[word / 64] >> (word % 64) & 1;
}

const AddrEntry *addrmap_find(const AddrMap *map, uint64_t id) {
    if (!storable(id)) return NULL;
    const AddrPage *page = map->last && map->last->number == page_number(id) ? map->last
                                                                              : page_in_directory(map, page_number(id));
    size_t word = word_in_page(id);
    return page && is_present(page, word) ? &page->entries[word] : NULL;
}

AddrEntry *addrmap_put(AddrMap *map, uint64_t id, int32_t arena_id, uint32_t size, AddrEntry *replaced,
                       bool *was_present) {
    AddrPage *page = storable(id) ? page_made(map, page_number(id)) : NULL;
    if (!page) return NULL;
    size_t word = word_in_page(id);
    AddrEntry *entry = &page->entries[word];
    *was_present = is_present(page, word);
    if (*was_present) {
        *replaced = *entry;
        arena_range_drop(&map->arenas, entry->arena_id, 1);
    } else {
        page->present[word / 64] |= UINT64_C(1) << (word % 64);
        map->count++;
    }
    *entry = (AddrEntry){.arena_id = arena_id, .size = size};
    arena_range_add(&map->arenas, arena_id, id);
    return entry;
}

bool addrmap_take(AddrMap *map, uint64_t id, AddrEntry *taken) {
    AddrPage *page = storable(id) ? page_of(map, page_number(id)) : NULL;
    size_t word = word_in_page(id);
    if (!page || !is_present(page, word)) return false;
    *taken = page->entries[word];
    page->present[word / 64] &= ~(UINT64_C(1) << (word % 64));
    map->count--;
    arena_range_drop(&map->arenas, taken->arena_id, 1);
    return true;
}

/* Removes the entries of `arena_id` in `page`, in address order; returns
 * how many (the caller drops them from the map's counts). */
static size_t remove_in_page(AddrPage *page, int32_t arena_id,
                             void (*removing)(const AddrEntry *entry, void *context), void *context) {
    size_t removed = 0;
    for (size_t k = 0; k < ADDRMAP_WORDS / 64; k++) {
        uint64_t kept = page->present[k];
        for (uint64_t bits = kept; bits; bits &= bits - 1) {
            size_t word = k * 64 + (size_t)__builtin_ctzll(bits);
            if (page->entries[word].arena_id != arena_id) continue;
            if (removing) removing(&page->entries[word], context);
            kept &= ~(UINT64_C(1) << (word % 64));
            removed++;
        }
        page->present[k] = kept;
    }
    return removed;
}

size_t addrmap_remove_arena(AddrMap *map, int32_t arena_id,
                            void (*removing)(const AddrEntry *entry, void *context), void *context) {
    const ArenaRange *range = arena_range_of(&map->arenas, arena_id);
    size_t removed = 0;
    if (range && range->count == 0) return 0;
    uint64_t first = range ? page_number(range->low) : 0, last = range ? page_number(range->high) : 0;
    if (range && last - first < map->num_pages) {
        /* The arena's own pages, while it has entries left. */
        for (uint64_t number = first; number <= last && removed < range->count; number++) {
            AddrPage *page = page_of(map, number);
            if (page) removed += remove_in_page(page, arena_id, removing, context);
        }
    } else {
        for (size_t i = 0; i < map->capacity; i++)
            if (map->directory[i]) removed += remove_in_page(map->directory[i], arena_id, removing, context);
    }
    map->count -= removed;
    arena_range_drop(&map->arenas, arena_id, removed);
    return removed;
}
