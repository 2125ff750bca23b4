/*
 * idmap.c -- the agents' ID map (vmpi/agents/common/idmap.h) against a
 * plain list of what it should hold: inserts, finds, removals, and
 * idmap_remove_arena both ways (walking an arena's blocks when its IDs lie
 * close together, scanning the table when they do not), with IDs packed
 * densely enough that their home runs overlap and clusters wrap around the
 * end of the table, and more arenas than the map tracks.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "vmpi/agents/common/idmap.h"

#define MAX_IDS 20000

typedef struct Expected {
    uint64_t id;
    int32_t arena_id;
    uint32_t size;
} Expected;

static Expected expected[MAX_IDS];
static size_t num_expected;

/* Every ID the list holds is found with its arena and size, and no other. */
static void assert_agrees(const IdMap *map) {
    cr_assert_eq(map->count, num_expected);
    for (size_t i = 0; i < num_expected; i++) {
        const IdEntry *e = idmap_find(map, expected[i].id);
        cr_assert_not_null(e, "ID %#llx lost", (unsigned long long)expected[i].id);
        cr_assert_eq(e->arena_id, expected[i].arena_id);
        cr_assert_eq(e->size, expected[i].size);
    }
}

static void insert(IdMap *map, uint64_t id, int32_t arena_id) {
    cr_assert_null(idmap_find(map, id));
    cr_assert(idmap_reserve(map, map->count + 1));
    idmap_insert(map, id, arena_id, (uint32_t)(id & 0xffff));
    expected[num_expected++] = (Expected){id, arena_id, (uint32_t)(id & 0xffff)};
}

/* idmap_remove_arena, checked against the list, which drops the same. */
static void remove_arena(IdMap *map, int32_t arena_id) {
    size_t want = 0, kept = 0;
    uint64_t want_bytes = 0;
    for (size_t i = 0; i < num_expected; i++) {
        if (expected[i].arena_id == arena_id) {
            want++;
            want_bytes += expected[i].size;
        } else {
            expected[kept++] = expected[i];
        }
    }
    num_expected = kept;
    uint64_t bytes;
    cr_assert_eq(idmap_remove_arena(map, arena_id, &bytes, NULL, NULL), want);
    cr_assert_eq(bytes, want_bytes);
    assert_agrees(map);
}

static void reset(void) { num_expected = 0; }

TestSuite(idmap, .init = reset);

Test(idmap, insert_find_remove_keep_every_other_entry) {
    IdMap map;
    cr_assert(idmap_init(&map, 16));
    /* 16-byte objects packed in one region: neighbouring homes, long clusters. */
    for (uint64_t k = 0; k < 5000; k++) insert(&map, 0x300000000000u + 16 * k, 1);
    assert_agrees(&map);
    cr_assert_null(idmap_find(&map, 0), "0 is the empty marker");
    cr_assert_null(idmap_find(&map, 0x300000000008u), "between two IDs");
    for (size_t i = 0; i < num_expected;) { /* remove every third */
        if (expected[i].id % 48 == 0) {
            idmap_remove(&map, idmap_find(&map, expected[i].id));
            expected[i] = expected[--num_expected];
        } else {
            i++;
        }
    }
    assert_agrees(&map);
    idmap_free(&map);
}

Test(idmap, remove_arena_walks_close_ids_and_scans_far_ones) {
    IdMap map;
    cr_assert(idmap_init(&map, 16));
    /* Two young arenas of IDs 8 bytes apart (walked: every home of their
     * blocks is taken, so entries spill past their runs) and an old one
     * spread over a wide range (scanned). */
    for (uint64_t k = 0; k < 3000; k++) {
        insert(&map, 0x300000000000u + 8 * k, 1);
        insert(&map, 0x300100000000u + 8 * k, 3);
        insert(&map, 0x310000000000u + 0x100000u * k, 2);
    }
    assert_agrees(&map);
    remove_arena(&map, 1);
    remove_arena(&map, 1); /* empty now */
    remove_arena(&map, 2);
    /* The young arena again, at the same addresses: reused IDs. */
    for (uint64_t k = 0; k < 3000; k++) insert(&map, 0x300000000000u + 8 * k, 1);
    remove_arena(&map, 3);
    remove_arena(&map, 1);
    cr_assert_eq(map.count, 0);
    idmap_free(&map);
}

Test(idmap, remove_arena_finds_entries_spilled_past_their_blocks_run) {
    IdMap map;
    cr_assert(idmap_init(&map, 16));
    /* A crowded table first (8000 IDs, 125 full blocks), then, again and
     * again, two blocks of another arena whose runs land among them: their
     * entries spill past their runs, up to the next empty slot. */
    for (uint64_t k = 0; k < 8000; k++) insert(&map, 0x300000000000u + 8 * k, 2);
    for (uint64_t round = 0; round < 40; round++) {
        for (uint64_t k = 0; k < 128; k++) insert(&map, 0x300100000000u + 0x10000u * round + 8 * k, 1);
        remove_arena(&map, 1);
    }
    idmap_free(&map);
}

Test(idmap, more_arenas_than_tracked_are_still_removed_whole) {
    IdMap map;
    cr_assert(idmap_init(&map, 16));
    int32_t arenas = ARENA_RANGES + 4;
    for (uint64_t k = 0; k < 600; k++)
        insert(&map, 0x300000000000u + 24 * k, (int32_t)(k % (uint64_t)arenas) + 1);
    for (int32_t a = arenas; a >= 1; a--) remove_arena(&map, a);
    idmap_free(&map);
}

Test(idmap, a_small_table_wraps_clusters_around_its_end) {
    IdMap map;
    cr_assert(idmap_init(&map, 16));
    srand(7);
    for (int round = 0; round < 50; round++) {
        for (int k = 0; k < 7; k++) {
            uint64_t id = 0x300000000000u + 8 * (uint64_t)(rand() % 4096);
            if (!idmap_find(&map, id)) insert(&map, id, 1 + rand() % 2);
        }
        remove_arena(&map, 1 + rand() % 2);
    }
    idmap_free(&map);
}

Test(idmap, put_adds_a_new_id_and_moves_a_present_one_to_its_new_arena) {
    IdMap map;
    cr_assert(idmap_init(&map, 16));
    for (uint64_t k = 0; k < 2000; k++) insert(&map, 0x300000000000u + 8 * k, 1);
    for (uint64_t k = 0; k < 3000; k += 2) { /* half of them again, and 500 new ones */
        uint64_t id = 0x300000000000u + 8 * k;
        IdEntry old = {0};
        bool was_present = false;
        cr_assert(idmap_reserve(&map, map.count + 1));
        IdEntry *e = idmap_put(&map, id, 2, 7, &old, &was_present);
        cr_assert_eq(e->id, id);
        cr_assert_eq(e->tag, 0);
        cr_assert_eq(was_present, k < 2000);
        if (was_present) {
            cr_assert_eq(old.id, id);
            cr_assert_eq(old.arena_id, 1);
            cr_assert_eq(old.size, (uint32_t)(id & 0xffff));
        }
        size_t i = 0;
        while (i < num_expected && expected[i].id != id) i++;
        if (i == num_expected) num_expected++;
        expected[i] = (Expected){id, 2, 7};
    }
    assert_agrees(&map);
    /* The arenas' counts and ranges followed: each is removed whole. */
    remove_arena(&map, 1);
    remove_arena(&map, 2);
    cr_assert_eq(map.count, 0);
    idmap_free(&map);
}
