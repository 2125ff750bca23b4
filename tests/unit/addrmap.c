/*
 * addrmap.c -- the agents' object map laid out by address
 * (vmpi/agents/common/addrmap.h) against a plain list of what it should
 * hold: puts, finds, takes, IDs it refuses, and addrmap_remove_arena both
 * ways (walking the pages of an arena whose IDs lie close together,
 * visiting every page when they do not), with arenas that share pages and
 * more arenas than the map tracks.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "common/addrmap.h"

#define MAX_IDS 20000

typedef struct Expected {
    uint64_t id;
    int32_t arena_id;
    uint32_t size, tag;
} Expected;

static Expected expected[MAX_IDS];
static size_t num_expected;

static void reset(void) { num_expected = 0; }

static size_t expected_index(uint64_t id) {
    size_t i = 0;
    while (i < num_expected && expected[i].id != id) i++;
    return i;
}

/* Every ID the list holds is found with its arena, size and tag, and the
 * count is the list's. */
static void assert_agrees(AddrMap *map) {
    cr_assert_eq(map->count, num_expected);
    for (const Expected *x = expected; x < expected + num_expected; x++) {
        const AddrEntry *e = addrmap_find(map, x->id);
        cr_assert(e && e->arena_id == x->arena_id && e->size == x->size && e->tag == x->tag,
                  "ID %#llx lost or changed", (unsigned long long)x->id);
    }
}

/* Puts `id`, checking what it replaced against the list. */
static void put(AddrMap *map, uint64_t id, int32_t arena_id) {
    size_t i = expected_index(id);
    AddrEntry old = {0};
    bool was_present = false;
    AddrEntry *e = addrmap_put(map, id, arena_id, (uint32_t)(id & 0xfff8), &old, &was_present);
    cr_assert_not_null(e);
    cr_assert_eq(e->tag, 0);
    cr_assert_eq(was_present, i < num_expected);
    if (was_present) {
        cr_assert_eq(old.arena_id, expected[i].arena_id);
        cr_assert_eq(old.size, expected[i].size);
        cr_assert_eq(old.tag, expected[i].tag);
    } else {
        num_expected++;
    }
    e->tag = (uint32_t)(id >> 3);
    expected[i] = (Expected){id, arena_id, (uint32_t)(id & 0xfff8), (uint32_t)(id >> 3)};
}

static void take(AddrMap *map, uint64_t id) {
    size_t i = expected_index(id);
    AddrEntry taken;
    cr_assert_eq(addrmap_take(map, id, &taken), i < num_expected);
    if (i == num_expected) return;
    cr_assert_eq(taken.arena_id, expected[i].arena_id);
    cr_assert_eq(taken.tag, expected[i].tag);
    expected[i] = expected[--num_expected];
}

static size_t seen_removed;
static void count_removed(const AddrEntry *entry, void *arena_id) {
    cr_assert_eq(entry->arena_id, *(int32_t *)arena_id);
    seen_removed++;
}

/* addrmap_remove_arena, checked against the list, which drops the same. */
static void remove_arena(AddrMap *map, int32_t arena_id) {
    size_t want = 0, kept = 0;
    for (size_t i = 0; i < num_expected; i++) {
        if (expected[i].arena_id == arena_id) want++;
        else expected[kept++] = expected[i];
    }
    num_expected = kept;
    seen_removed = 0;
    cr_assert_eq(addrmap_remove_arena(map, arena_id, count_removed, &arena_id), want);
    cr_assert_eq(seen_removed, want);
    assert_agrees(map);
}

TestSuite(addrmap, .init = reset);

Test(addrmap, put_find_take_keep_every_other_entry) {
    AddrMap map;
    addrmap_init(&map);
    /* 24-byte objects packed over several pages. */
    for (uint64_t k = 0; k < 9000; k++) put(&map, 0x300000000000u + 24 * k, 1);
    assert_agrees(&map);
    cr_assert_null(addrmap_find(&map, 0x300000000008u), "between two IDs");
    cr_assert_null(addrmap_find(&map, 0x7f0000000000u), "a page the map never saw");
    for (uint64_t k = 0; k < 9000; k += 3) take(&map, 0x300000000000u + 24 * k);
    take(&map, 0x300000000008u); /* not there: refused, nothing changes */
    assert_agrees(&map);
    /* Taken IDs come back, and present ones are replaced. */
    for (uint64_t k = 0; k < 9000; k += 2) put(&map, 0x300000000000u + 24 * k, 2);
    assert_agrees(&map);
    addrmap_free(&map);
}

Test(addrmap, refuses_zero_and_ids_between_words) {
    AddrMap map;
    addrmap_init(&map);
    AddrEntry old;
    bool was_present;
    cr_assert_null(addrmap_put(&map, 0, 1, 16, &old, &was_present));
    cr_assert_null(addrmap_put(&map, 0x300000000004u, 1, 16, &old, &was_present));
    cr_assert_eq(map.count, 0);
    put(&map, 0x300000000000u, 1);
    cr_assert_null(addrmap_find(&map, 0x300000000001u));
    cr_assert_null(addrmap_find(&map, 0));
    cr_assert(!addrmap_take(&map, 0x300000000001u, &old));
    assert_agrees(&map);
    addrmap_free(&map);
}

Test(addrmap, remove_arena_walks_close_ids_and_visits_every_page_for_far_ones) {
    AddrMap map;
    addrmap_init(&map);
    /* Two young arenas whose objects alternate word by word in the same
     * pages (each walked, keeping the other's entries), and an old one a
     * page apart and more (every page visited), which grows the directory
     * several times. */
    for (uint64_t k = 0; k < 8000; k++) put(&map, 0x300000000000u + 8 * k, k % 2 ? 3 : 1);
    for (uint64_t k = 0; k < 4000; k++) put(&map, 0x310000000000u + 0x30000u * k, 2);
    assert_agrees(&map);
    int32_t order[] = {1, 1 /* empty now */, 2, 3};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) remove_arena(&map, order[i]);
    cr_assert_eq(map.count, 0);
    /* The young arena's addresses again, reused by another arena. */
    for (uint64_t k = 0; k < 8000; k++) put(&map, 0x300000000000u + 8 * k, 4);
    remove_arena(&map, 4);
    cr_assert_eq(map.count, 0);
    addrmap_free(&map);
}

Test(addrmap, more_arenas_than_tracked_are_still_removed_whole) {
    AddrMap map;
    addrmap_init(&map);
    int32_t arenas = ARENA_RANGES + 4;
    for (uint64_t k = 0; k < 6000; k++) put(&map, 0x300000000000u + 24 * k, (int32_t)(k % (uint64_t)arenas) + 1);
    for (int32_t a = arenas; a >= 1; a--) remove_arena(&map, a);
    addrmap_free(&map);
}

Test(addrmap, random_puts_takes_and_arena_removals_agree_with_the_list) {
    AddrMap map;
    addrmap_init(&map);
    srand(7);
    for (int round = 0; round < 200; round++) {
        for (int k = 0; k < 40; k++) {
            uint64_t id = 0x300000000000u + 8 * (uint64_t)(rand() % 40000);
            if (rand() % 4) put(&map, id, 1 + rand() % 3);
            else take(&map, id);
        }
        if (round % 10 == 9) remove_arena(&map, 1 + rand() % 3);
    }
    assert_agrees(&map);
    addrmap_free(&map);
}
