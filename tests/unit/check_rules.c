/*
 * check_rules.c -- the event-stream contract checker (vmpi/agents/check/
 * check_rules.c) on synthetic streams: one valid stream per collector row,
 * and for every rule it checks (1-9, 12) a stream that breaks it, with the
 * message it must give; rule 9 once or more per row.  Rule 10, the agent's
 * side (vmpi/agents/check/check_asked.c), is tested the same way at the end.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "vmpi/agents/check/check_asked.h"
#include "vmpi/agents/check/check_rules.h"

#define CLASS ((uintptr_t)0x7000)
#define THREAD ((uintptr_t)0x9000)
#define SIZE 32

static CheckRules *rules;

static void start(CheckRow row) {
    rules = check_rules_create(row);
    cr_assert_not_null(rules);
}

static void stop(void) { check_rules_destroy(rules); }

static int feed(VMPI_Event e) { return check_rules_feed(rules, &e); }

static int arena_new_named(int32_t id, char *name) {
    VMPI_Event e = {.event_type = VMPI_EVENT_ARENA_NEW};
    e.u.new_arena.arena_id = id;
    e.u.new_arena.arena_name = name;
    return feed(e);
}

static int arena_new(int32_t id) { return arena_new_named(id, "heap"); }

static int arena_delete(int32_t id) {
    VMPI_Event e = {.event_type = VMPI_EVENT_ARENA_DELETE};
    e.u.delete_arena.arena_id = id;
    return feed(e);
}

static int class_load(uintptr_t class_id) {
    VMPI_Event e = {.event_type = VMPI_EVENT_CLASS_LOAD};
    e.u.class_load.class_name = "Node";
    e.u.class_load.class_id = (VMPI_ObjectID)class_id;
    return feed(e);
}

static int alloc_of(int32_t arena, uintptr_t obj, uintptr_t class_id) {
    VMPI_Event e = {.event_type = VMPI_EVENT_OBJECT_ALLOC};
    e.u.obj_alloc.arena_id = arena;
    e.u.obj_alloc.class_id = (VMPI_ObjectID)class_id;
    e.u.obj_alloc.size = SIZE;
    e.u.obj_alloc.obj_id = (VMPI_ObjectID)obj;
    return feed(e);
}

static int alloc(int32_t arena, uintptr_t obj) { return alloc_of(arena, obj, CLASS); }

static int free_object(uintptr_t obj) {
    VMPI_Event e = {.event_type = VMPI_EVENT_OBJECT_FREE};
    e.u.obj_free.obj_id = (VMPI_ObjectID)obj;
    return feed(e);
}

static int move(int32_t from, uintptr_t obj, int32_t to, uintptr_t new_obj) {
    VMPI_Event e = {.event_type = VMPI_EVENT_OBJECT_MOVE};
    e.u.obj_move.arena_id = from;
    e.u.obj_move.obj_id = (VMPI_ObjectID)obj;
    e.u.obj_move.new_arena_id = to;
    e.u.obj_move.new_obj_id = (VMPI_ObjectID)new_obj;
    return feed(e);
}

static int gc_start(void) { return feed((VMPI_Event){.event_type = VMPI_EVENT_GC_START}); }

static int gc_finish(int64_t objects) {
    VMPI_Event e = {.event_type = VMPI_EVENT_GC_FINISH};
    e.u.gc_info.used_objects = objects;
    e.u.gc_info.used_object_space = objects * SIZE;
    e.u.gc_info.total_object_space = 1 << 20;
    return feed(e);
}

/* The rule `rc` names and the message says what is wrong. */
static void expect(int rc, int rule, const char *words) {
    cr_assert_eq(rc, rule, "expected rule %d, got %d (%s)", rule, rc, check_rules_message(rules));
    cr_assert(strstr(check_rules_message(rules), words), "message '%s' lacks '%s'", check_rules_message(rules),
              words);
}

/* A one-arena start: arena 1 and the class. */
static void one_arena(CheckRow row) {
    start(row);
    cr_assert_eq(arena_new(1), 0);
    cr_assert_eq(class_load(CLASS), 0);
}

static void two_arenas(CheckRow row) {
    one_arena(row);
    cr_assert_eq(arena_new(2), 0);
}

/* ---- the rows' names ------------------------------------------------------------ */

Test(check_rules, row_names_list_every_row_in_table_order) {
    char names[128];
    check_row_names(names, sizeof names, ", ");
    cr_assert_str_eq(names, "marksweep, markcompact, semispace, generational, refcount");
    check_row_names(names, sizeof names, "|");
    cr_assert_str_eq(names, "marksweep|markcompact|semispace|generational|refcount");
    char cut[12];
    check_row_names(cut, sizeof cut, "|");
    cr_assert_str_eq(cut, "marksweep|m", "cut short to fit");
    CheckRow row;
    cr_assert(check_row_by_name("generational", &row));
    cr_assert_eq(row, CHECK_ROW_GENERATIONAL);
    cr_assert_not(check_row_by_name("copying", &row));
}

/* ---- valid streams, one per row ------------------------------------------------ */

Test(check_rules, marksweep_stream_passes, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(alloc(1, 0x100), 0);
    cr_assert_eq(alloc(1, 0x120), 0);
    cr_assert_eq(alloc(1, 0x140), 0);
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(free_object(0x120), 0);
    cr_assert_eq(gc_finish(2), 0);
    cr_assert_eq(alloc(1, 0x120), 0, "a freed ID may be reused");
    cr_assert_eq(check_rules_live_objects(rules), 3);
    cr_assert_eq(check_rules_collections(rules), 1);
    cr_assert_eq(check_rules_events(rules), 9);
}

Test(check_rules, markcompact_stream_passes, .fini = stop) {
    one_arena(CHECK_ROW_MARKCOMPACT);
    cr_assert_eq(alloc(1, 0x100), 0);
    cr_assert_eq(alloc(1, 0x120), 0);
    cr_assert_eq(alloc(1, 0x140), 0);
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(free_object(0x100), 0);
    cr_assert_eq(move(1, 0x120, 1, 0x100), 0);
    cr_assert_eq(move(1, 0x140, 1, 0x120), 0);
    cr_assert_eq(gc_finish(2), 0);
    cr_assert_eq(alloc(1, 0x140), 0);
    cr_assert_eq(check_rules_live_objects(rules), 3);
}

Test(check_rules, semispace_stream_passes, .fini = stop) {
    two_arenas(CHECK_ROW_SEMISPACE);
    cr_assert_eq(alloc(1, 0x100), 0);
    cr_assert_eq(alloc(1, 0x120), 0);
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(move(1, 0x100, 2, 0x2000), 0);
    cr_assert_eq(arena_delete(1), 0);
    cr_assert_eq(arena_new(1), 0);
    cr_assert_eq(gc_finish(1), 0);
    /* the semispaces have swapped: allocation goes on in arena 2 */
    cr_assert_eq(alloc(2, 0x2020), 0);
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(move(2, 0x2000, 1, 0x100), 0);
    cr_assert_eq(move(2, 0x2020, 1, 0x120), 0);
    cr_assert_eq(arena_delete(2), 0);
    cr_assert_eq(arena_new(2), 0);
    cr_assert_eq(gc_finish(2), 0);
    cr_assert_eq(check_rules_live_objects(rules), 2);
}

Test(check_rules, generational_stream_passes, .fini = stop) {
    two_arenas(CHECK_ROW_GENERATIONAL); /* 1 nursery, 2 old */
    cr_assert_eq(alloc(1, 0x100), 0);
    cr_assert_eq(alloc(1, 0x120), 0);
    /* minor: survivors to the old arena, the nursery deleted and remade */
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(move(1, 0x100, 2, 0x5000), 0);
    cr_assert_eq(arena_delete(1), 0);
    cr_assert_eq(arena_new(1), 0);
    cr_assert_eq(gc_finish(1), 0);
    cr_assert_eq(alloc(1, 0x100), 0);
    cr_assert_eq(alloc(1, 0x120), 0);
    /* major: the old arena frees and slides, the nursery as before */
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(move(1, 0x100, 2, 0x5020), 0);
    cr_assert_eq(free_object(0x5000), 0);
    cr_assert_eq(move(2, 0x5020, 2, 0x5000), 0);
    cr_assert_eq(arena_delete(1), 0);
    cr_assert_eq(arena_new(1), 0);
    cr_assert_eq(gc_finish(1), 0);
    cr_assert_eq(check_rules_live_objects(rules), 1);
}

Test(check_rules, refcount_stream_passes, .fini = stop) {
    one_arena(CHECK_ROW_REFCOUNT);
    cr_assert_eq(alloc(1, 0x100), 0);
    cr_assert_eq(alloc(1, 0x120), 0);
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(free_object(0x100), 0);
    cr_assert_eq(gc_finish(1), 0);
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(free_object(0x120), 0);
    cr_assert_eq(gc_finish(0), 0);
    cr_assert_eq(check_rules_live_objects(rules), 0);
}

Test(check_rules, threads_and_requested_events_pass, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    VMPI_Event start_thread = {.event_type = VMPI_EVENT_THREAD_START, .env_id = (VMPI_ThreadID)THREAD};
    start_thread.u.thread_start.thread_env_id = (VMPI_ThreadID)THREAD;
    cr_assert_eq(feed(start_thread), 0, "a thread's own THREAD_START may name it");
    cr_assert_eq(alloc(1, 0x100), 0);
    VMPI_Event again = {.event_type = VMPI_EVENT_OBJECT_ALLOC | VMPI_REQUESTED_EVENT,
                        .env_id = (VMPI_ThreadID)THREAD};
    again.u.obj_alloc.arena_id = 1;
    again.u.obj_alloc.class_id = (VMPI_ObjectID)CLASS;
    again.u.obj_alloc.obj_id = (VMPI_ObjectID)0x100;
    again.u.obj_alloc.size = SIZE;
    cr_assert_eq(feed(again), 0, "a requested OBJECT_ALLOC describes a live object again");
    cr_assert_eq(check_rules_live_objects(rules), 1);
    cr_assert_eq(feed((VMPI_Event){.event_type = VMPI_EVENT_THREAD_END, .env_id = (VMPI_ThreadID)THREAD}), 0);
}

Test(check_rules, many_objects_survive_table_growth, .fini = stop) {
    one_arena(CHECK_ROW_MARKCOMPACT);
    for (uintptr_t i = 1; i <= 5000; i++) cr_assert_eq(alloc(1, i * 64), 0);
    cr_assert_eq(gc_start(), 0);
    for (uintptr_t i = 1; i <= 5000; i += 2) cr_assert_eq(free_object(i * 64), 0);
    for (uintptr_t i = 2; i <= 5000; i += 2) cr_assert_eq(move(1, i * 64, 1, i * 32), 0);
    cr_assert_eq(gc_finish(2500), 0);
    cr_assert_eq(check_rules_live_objects(rules), 2500);
}

/* ---- rule 1: an object ID appears only while defined -------------------------------- */

Test(check_rules, rule1_free_of_undefined_object, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(gc_start(), 0);
    expect(free_object(0x100), 1, "object 256 is freed but not defined");
}

Test(check_rules, rule1_alloc_of_defined_id, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(alloc(1, 0x100), 0);
    expect(alloc(1, 0x100), 1, "allocated while still defined");
}

Test(check_rules, rule1_free_after_move_uses_old_id, .fini = stop) {
    one_arena(CHECK_ROW_MARKCOMPACT);
    cr_assert_eq(alloc(1, 0x120), 0);
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(move(1, 0x120, 1, 0x100), 0);
    expect(free_object(0x120), 1, "object 288 is freed but not defined");
}

Test(check_rules, rule1_requested_alloc_of_unknown_object, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    VMPI_Event e = {.event_type = VMPI_EVENT_OBJECT_ALLOC | VMPI_REQUESTED_EVENT};
    e.u.obj_alloc.arena_id = 1;
    e.u.obj_alloc.class_id = (VMPI_ObjectID)CLASS;
    e.u.obj_alloc.obj_id = (VMPI_ObjectID)0x100;
    expect(feed(e), 1, "requested OBJECT_ALLOC names object 256, which is not defined");
}

/* ---- rule 2: OBJECT_ALLOC names an arena that exists ----------------------------------- */

Test(check_rules, rule2_alloc_in_missing_arena, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    expect(alloc(7, 0x100), 2, "arena 7, which does not exist");
}

/* ---- rule 3: OBJECT_MOVE ------------------------------------------------------------------ */

Test(check_rules, rule3_move_of_undefined_object, .fini = stop) {
    one_arena(CHECK_ROW_MARKCOMPACT);
    cr_assert_eq(gc_start(), 0);
    expect(move(1, 0x100, 1, 0x80), 3, "object 256 is moved but not defined");
}

Test(check_rules, rule3_move_names_wrong_old_arena, .fini = stop) {
    two_arenas(CHECK_ROW_GENERATIONAL);
    cr_assert_eq(alloc(1, 0x100), 0);
    cr_assert_eq(gc_start(), 0);
    expect(move(2, 0x100, 2, 0x5000), 3, "moved out of arena 2, but it is in arena 1");
}

Test(check_rules, rule3_move_to_missing_arena, .fini = stop) {
    two_arenas(CHECK_ROW_GENERATIONAL);
    cr_assert_eq(alloc(1, 0x100), 0);
    cr_assert_eq(gc_start(), 0);
    expect(move(1, 0x100, 3, 0x5000), 3, "moved to arena 3, which does not exist");
}

Test(check_rules, rule3_move_onto_defined_id, .fini = stop) {
    one_arena(CHECK_ROW_MARKCOMPACT);
    cr_assert_eq(alloc(1, 0x100), 0);
    cr_assert_eq(alloc(1, 0x120), 0);
    cr_assert_eq(gc_start(), 0);
    expect(move(1, 0x120, 1, 0x100), 3, "moved to ID 256, which is already defined");
}

/* ---- rule 4: ARENA_DELETE undefines its IDs; arena IDs are reused only after it ------------- */

Test(check_rules, rule4_delete_of_missing_arena, .fini = stop) {
    two_arenas(CHECK_ROW_SEMISPACE);
    cr_assert_eq(gc_start(), 0);
    expect(arena_delete(5), 4, "arena 5 is deleted but does not exist");
}

Test(check_rules, rule4_arena_created_twice, .fini = stop) {
    two_arenas(CHECK_ROW_SEMISPACE);
    expect(arena_new(2), 4, "arena 2 is created again while it exists");
}

Test(check_rules, rule4_delete_undefines_objects, .fini = stop) {
    two_arenas(CHECK_ROW_GENERATIONAL);
    cr_assert_eq(alloc(1, 0x100), 0);
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(arena_delete(1), 0);
    expect(move(1, 0x100, 2, 0x5000), 3, "object 256 is moved but not defined");
}

/* ---- rule 5: frees, moves and deletes only inside a collection; brackets alternate ----------- */

Test(check_rules, rule5_free_outside_collection, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(alloc(1, 0x100), 0);
    expect(free_object(0x100), 5, "OBJECT_FREE outside a collection");
}

Test(check_rules, rule5_move_outside_collection, .fini = stop) {
    one_arena(CHECK_ROW_MARKCOMPACT);
    cr_assert_eq(alloc(1, 0x100), 0);
    expect(move(1, 0x100, 1, 0x80), 5, "OBJECT_MOVE outside a collection");
}

Test(check_rules, rule5_delete_outside_collection, .fini = stop) {
    two_arenas(CHECK_ROW_SEMISPACE);
    expect(arena_delete(1), 5, "ARENA_DELETE outside a collection");
}

Test(check_rules, rule5_nested_gc_start, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(gc_start(), 0);
    expect(gc_start(), 5, "GC_START while a collection is running");
}

Test(check_rules, rule5_finish_without_start, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    expect(gc_finish(0), 5, "GC_FINISH without a GC_START");
}

/* ---- rule 6: GC_FINISH's statistics match the stream ------------------------------------------ */

Test(check_rules, rule6_used_objects_wrong, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(alloc(1, 0x100), 0);
    cr_assert_eq(alloc(1, 0x120), 0);
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(free_object(0x100), 0);
    expect(gc_finish(2), 6, "used_objects 2, but the stream has 1 live objects");
}

Test(check_rules, rule6_used_space_wrong, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(alloc(1, 0x100), 0);
    cr_assert_eq(gc_start(), 0);
    VMPI_Event e = {.event_type = VMPI_EVENT_GC_FINISH};
    e.u.gc_info.used_objects = 1;
    e.u.gc_info.used_object_space = SIZE + 8;
    e.u.gc_info.total_object_space = 4096;
    expect(feed(e), 6, "used_object_space 40, but the live objects take 32 bytes");
}

Test(check_rules, rule6_total_less_than_used, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(alloc(1, 0x100), 0);
    cr_assert_eq(gc_start(), 0);
    VMPI_Event e = {.event_type = VMPI_EVENT_GC_FINISH};
    e.u.gc_info.used_objects = 1;
    e.u.gc_info.used_object_space = SIZE;
    e.u.gc_info.total_object_space = SIZE - 1;
    expect(feed(e), 6, "total_object_space 31, less than used_object_space 32");
}

/* ---- rule 7: a level-0 heap dump lists exactly the live IDs ------------------------------------- */

static int level0_dump(const uintptr_t *ids, size_t n) {
    char bytes[64 * (1 + sizeof(void *))];
    for (size_t i = 0; i < n; i++) {
        bytes[i * (1 + sizeof(void *))] = VMPI_NORMAL_OBJECT;
        void *id = (void *)ids[i];
        memcpy(&bytes[i * (1 + sizeof(void *)) + 1], &id, sizeof id);
    }
    VMPI_Event e = {.event_type = VMPI_EVENT_HEAP_DUMP | VMPI_REQUESTED_EVENT};
    e.u.heap_dump.dump_level = 0;
    e.u.heap_dump.begin = bytes;
    e.u.heap_dump.end = bytes + n * (1 + sizeof(void *));
    return feed(e);
}

Test(check_rules, rule7_dump_matches_or_not, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(alloc(1, 0x100), 0);
    cr_assert_eq(alloc(1, 0x120), 0);
    uintptr_t both[] = {0x120, 0x100};
    cr_assert_eq(level0_dump(both, 2), 0);
    uintptr_t one[] = {0x100};
    expect(level0_dump(one, 1), 7, "lists 1 objects, but the stream has 2 live");
}

/* A dump between collections (check's random points) sees the IDs the last
 * collection's moves and frees left, not the ones before it. */
Test(check_rules, rule7_dump_mid_run_follows_moves_and_frees, .fini = stop) {
    one_arena(CHECK_ROW_MARKCOMPACT);
    for (uintptr_t obj = 0x100; obj <= 0x140; obj += 0x20) cr_assert_eq(alloc(1, obj), 0);
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(free_object(0x100), 0);
    cr_assert_eq(move(1, 0x120, 1, 0x100), 0); /* slides onto the freed object's ID */
    cr_assert_eq(gc_finish(2), 0);
    uintptr_t after[] = {0x140, 0x100};
    cr_assert_eq(level0_dump(after, 2), 0);
    uintptr_t before_the_move[] = {0x120, 0x140};
    expect(level0_dump(before_the_move, 2), 7, "lists 1 objects, but the stream has 2 live");
}

/* Handlers that overlap: a dump may list an object whose OBJECT_ALLOC is
 * still on its way on another thread.  It must come by the next GC_START. */
Test(check_rules, rule7_dump_before_the_alloc_in_flight, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(alloc(1, 0x100), 0);
    uintptr_t ahead[] = {0x100, 0x120};
    cr_assert_eq(level0_dump(ahead, 2), 0, "0x120's OBJECT_ALLOC may be in flight");
    cr_assert_eq(level0_dump(ahead, 2), 0, "listed again before it came");
    cr_assert_eq(alloc(1, 0x120), 0, "its OBJECT_ALLOC defines it");
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(gc_finish(2), 0);
    cr_assert_eq(level0_dump(ahead, 2), 0);
}

Test(check_rules, rule7_dump_lists_an_object_never_announced, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(alloc(1, 0x100), 0);
    uintptr_t unknown[] = {0x100, 0x120};
    cr_assert_eq(level0_dump(unknown, 2), 0);
    expect(gc_start(), 7, "listed object 288, but no OBJECT_ALLOC announced it by the next GC_START");
}

Test(check_rules, rule7_dump_after_shut_down_lists_only_live, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(alloc(1, 0x100), 0);
    uintptr_t unknown[] = {0x100, 0x120};
    cr_assert_eq(level0_dump(unknown, 2), 0);
    expect(feed((VMPI_Event){.event_type = VMPI_EVENT_JVM_SHUT_DOWN}), 7,
           "listed object 288, but no OBJECT_ALLOC announced it by JVM_SHUT_DOWN");
}

Test(check_rules, rule7_final_dump_lists_an_unknown_object, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(alloc(1, 0x100), 0);
    cr_assert_eq(feed((VMPI_Event){.event_type = VMPI_EVENT_JVM_SHUT_DOWN}), 0);
    uintptr_t unknown[] = {0x100, 0x120};
    expect(level0_dump(unknown, 2), 7, "lists object 288, which the stream says is not live");
}

/* ---- late attach: a stream that begins with a catch-up ------------------------------------------ */

static int replayed_arena(int32_t id, char *name) {
    VMPI_Event e = {.event_type = VMPI_EVENT_ARENA_NEW | VMPI_REQUESTED_EVENT};
    e.u.new_arena.arena_id = id;
    e.u.new_arena.arena_name = name;
    return feed(e);
}

static int requested_alloc(int32_t arena, uintptr_t obj) {
    VMPI_Event e = {.event_type = VMPI_EVENT_OBJECT_ALLOC | VMPI_REQUESTED_EVENT};
    e.u.obj_alloc.arena_id = arena;
    e.u.obj_alloc.class_id = (VMPI_ObjectID)CLASS;
    e.u.obj_alloc.size = SIZE;
    e.u.obj_alloc.obj_id = (VMPI_ObjectID)obj;
    return feed(e);
}

/* generational, attached after collections: the replay names its arenas,
 * the dump lists two objects, one of them already promoted to the old
 * generation (no row rule applies to what the catch-up learns), and every
 * rule holds from then on. */
Test(check_rules, late_attach_learns_the_heap_then_checks_everything, .fini = stop) {
    start(CHECK_ROW_GENERATIONAL);
    cr_assert_eq(class_load(CLASS), 0);
    check_rules_begin_catch_up(rules);
    cr_assert_eq(replayed_arena(1, "young"), 0);
    cr_assert_eq(replayed_arena(2, "old"), 0);
    uintptr_t ids[] = {0x100, 0x900};
    cr_assert_eq(level0_dump(ids, 2), 0, "the catch-up's dump is what is learned, not compared");
    cr_assert_eq(requested_alloc(1, 0x100), 0);
    cr_assert_eq(requested_alloc(2, 0x900), 0);
    cr_assert_eq(check_rules_end_catch_up(rules, 2), 0);
    cr_assert_eq(check_rules_learned_late(rules), 2);
    cr_assert_eq(check_rules_arenas(rules), 2);
    cr_assert_eq(level0_dump(ids, 2), 0);
    cr_assert_eq(alloc(1, 0x120), 0);
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(move(1, 0x100, 2, 0x920), 0);
    cr_assert_eq(arena_delete(1), 0);
    cr_assert_eq(arena_new_named(1, "young"), 0);
    expect(gc_finish(3), 6, "used_objects 3, but the stream has 2 live objects");
}

Test(check_rules, late_attach_learns_fewer_objects_than_the_dump_lists, .fini = stop) {
    start(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(class_load(CLASS), 0);
    check_rules_begin_catch_up(rules);
    cr_assert_eq(replayed_arena(1, "heap"), 0);
    cr_assert_eq(requested_alloc(1, 0x100), 0);
    expect(check_rules_end_catch_up(rules, 2), 7, "learned 1 objects by requested OBJECT_ALLOCs, but its level-0 dump listed 2");
}

Test(check_rules, late_attach_object_in_an_arena_not_replayed, .fini = stop) {
    start(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(class_load(CLASS), 0);
    check_rules_begin_catch_up(rules);
    cr_assert_eq(replayed_arena(1, "heap"), 0);
    expect(requested_alloc(3, 0x100), 2, "in arena 3, which the ARENA_NEW replay did not name");
}

/* Outside a catch-up a requested OBJECT_ALLOC teaches nothing, and a replay
 * names only arenas that exist. */
Test(check_rules, requests_outside_a_catch_up_define_nothing, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(replayed_arena(1, "heap"), 0);
    expect(requested_alloc(1, 0x100), 1, "a requested OBJECT_ALLOC names object 256, which is not defined");
    stop();
    one_arena(CHECK_ROW_MARKSWEEP);
    expect(replayed_arena(2, "heap"), 4, "a requested ARENA_NEW replays arena 2, which does not exist");
}

Test(check_rules, rule7_dump_lists_an_object_twice, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(alloc(1, 0x100), 0);
    uintptr_t twice[] = {0x100, 0x100};
    expect(level0_dump(twice, 2), 7, "lists object 256 twice");
}

/* ---- rule 8: defining events come first ------------------------------------------------------------ */

Test(check_rules, rule8_object_of_unloaded_class, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    expect(alloc_of(1, 0x100, 0x7777), 8, "class 30583 before its CLASS_LOAD");
}

Test(check_rules, rule8_event_from_unstarted_thread, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    VMPI_Event e = {.event_type = VMPI_EVENT_GC_START, .env_id = (VMPI_ThreadID)THREAD};
    expect(feed(e), 8, "thread 36864 appears before its THREAD_START");
}

Test(check_rules, rule8_method_before_its_class, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    VMPI_Event e = {.event_type = VMPI_EVENT_METHOD_ENTRY};
    e.u.method.method_id = (VMPI_MethodID)0x4444;
    expect(feed(e), 8, "METHOD_ENTRY names method 17476 before the CLASS_LOAD");
}

/* ---- rule 9: each collector keeps its row ------------------------------------------------------------ */

Test(check_rules, rule9_marksweep_moves, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(alloc(1, 0x100), 0);
    cr_assert_eq(gc_start(), 0);
    expect(move(1, 0x100, 1, 0x80), 9, "marksweep never moves objects");
}

Test(check_rules, rule9_marksweep_second_arena, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    expect(arena_new(2), 9, "marksweep uses one arena");
}

Test(check_rules, rule9_marksweep_deletes_arena, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(gc_start(), 0);
    expect(arena_delete(1), 9, "marksweep never deletes its arena");
}

Test(check_rules, rule9_markcompact_second_arena, .fini = stop) {
    one_arena(CHECK_ROW_MARKCOMPACT);
    expect(arena_new(2), 9, "markcompact uses one arena");
}

Test(check_rules, rule9_markcompact_deletes_arena, .fini = stop) {
    one_arena(CHECK_ROW_MARKCOMPACT);
    cr_assert_eq(gc_start(), 0);
    expect(arena_delete(1), 9, "markcompact never deletes its arena");
}

Test(check_rules, rule9_semispace_frees, .fini = stop) {
    two_arenas(CHECK_ROW_SEMISPACE);
    cr_assert_eq(alloc(1, 0x100), 0);
    cr_assert_eq(gc_start(), 0);
    expect(free_object(0x100), 9, "semispace never frees single objects");
}

Test(check_rules, rule9_semispace_move_within_arena, .fini = stop) {
    two_arenas(CHECK_ROW_SEMISPACE);
    cr_assert_eq(alloc(1, 0x100), 0);
    cr_assert_eq(gc_start(), 0);
    expect(move(1, 0x100, 1, 0x80), 9, "semispace moves objects to the other semispace");
}

Test(check_rules, rule9_semispace_delete_not_renewed, .fini = stop) {
    two_arenas(CHECK_ROW_SEMISPACE);
    cr_assert_eq(alloc(1, 0x100), 0);
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(move(1, 0x100, 2, 0x2000), 0);
    cr_assert_eq(arena_delete(1), 0);
    expect(gc_finish(1), 9, "semispace deleted arena 1 but did not create it again");
}

Test(check_rules, rule9_semispace_deletes_the_wrong_space, .fini = stop) {
    two_arenas(CHECK_ROW_SEMISPACE);
    cr_assert_eq(alloc(1, 0x100), 0);
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(move(1, 0x100, 2, 0x2000), 0);
    expect(arena_delete(2), 9, "semispace deletes arena 2, but this collection evacuates arena 1");
}

Test(check_rules, rule9_semispace_third_arena, .fini = stop) {
    two_arenas(CHECK_ROW_SEMISPACE);
    expect(arena_new(3), 9, "semispace has two arenas");
}

Test(check_rules, rule9_semispace_allocates_in_both, .fini = stop) {
    two_arenas(CHECK_ROW_SEMISPACE);
    cr_assert_eq(alloc(1, 0x100), 0);
    expect(alloc(2, 0x2000), 9, "semispace allocates in one semispace between collections");
}

Test(check_rules, rule9_generational_allocates_in_old, .fini = stop) {
    two_arenas(CHECK_ROW_GENERATIONAL);
    cr_assert_eq(alloc(1, 0x100), 0);
    expect(alloc(2, 0x5000), 9, "generational allocates only in its youngest arena (arena 1)");
}

/* The generational collector's own arenas: 1 nursery, 2 and 3 survivor
 * spaces, 4 the old generation, which it names "old". */
static void generational_arenas(void) {
    start(CHECK_ROW_GENERATIONAL);
    cr_assert_eq(arena_new_named(1, "nursery"), 0);
    cr_assert_eq(arena_new_named(2, "survivor-0"), 0);
    cr_assert_eq(arena_new_named(3, "survivor-1"), 0);
    cr_assert_eq(arena_new_named(4, "old"), 0);
    cr_assert_eq(class_load(CLASS), 0);
}

Test(check_rules, generational_pretenures_in_the_old_arena, .fini = stop) {
    generational_arenas();
    cr_assert_eq(alloc(4, 0x9000), 0, "a large object may be born in the old generation");
    cr_assert_eq(alloc(1, 0x100), 0, "a pretenured first object does not make old the youngest");
    cr_assert_eq(alloc(4, 0x9100), 0);
    cr_assert_eq(alloc(1, 0x120), 0);
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(move(1, 0x100, 2, 0x2000), 0);
    cr_assert_eq(arena_delete(1), 0);
    cr_assert_eq(arena_new_named(1, "nursery"), 0);
    cr_assert_eq(arena_delete(3), 0);
    cr_assert_eq(arena_new_named(3, "survivor-1"), 0);
    cr_assert_eq(gc_finish(3), 0);
    cr_assert_eq(check_rules_live_objects(rules), 3);
}

Test(check_rules, rule9_generational_allocates_in_a_survivor_space, .fini = stop) {
    generational_arenas();
    cr_assert_eq(alloc(4, 0x9000), 0);
    cr_assert_eq(alloc(1, 0x100), 0);
    expect(alloc(2, 0x2000), 9, "generational allocates only in its youngest arena (arena 1) and pretenures only "
                                "in its \"old\" arena, but this allocation is in arena 2");
}

Test(check_rules, rule9_generational_old_arena_is_known_by_name, .fini = stop) {
    two_arenas(CHECK_ROW_GENERATIONAL); /* neither is named "old" */
    cr_assert_eq(alloc(1, 0x100), 0);
    expect(alloc(2, 0x5000), 9, "but this allocation is in arena 2");
}

Test(check_rules, rule9_generational_moves_into_nursery, .fini = stop) {
    two_arenas(CHECK_ROW_GENERATIONAL);
    cr_assert_eq(alloc(1, 0x100), 0);
    cr_assert_eq(gc_start(), 0);
    expect(move(1, 0x100, 1, 0x80), 9, "generational never moves objects into its youngest arena");
}

Test(check_rules, rule9_generational_frees_in_nursery, .fini = stop) {
    two_arenas(CHECK_ROW_GENERATIONAL);
    cr_assert_eq(alloc(1, 0x100), 0);
    cr_assert_eq(gc_start(), 0);
    expect(free_object(0x100), 9, "generational empties its youngest arena (arena 1) with ARENA_DELETE");
}

Test(check_rules, rule9_generational_delete_not_renewed, .fini = stop) {
    two_arenas(CHECK_ROW_GENERATIONAL);
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(arena_delete(1), 0);
    expect(gc_finish(0), 9, "generational deleted arena 1 but did not create it again");
}

Test(check_rules, rule9_generational_new_arena_late, .fini = stop) {
    two_arenas(CHECK_ROW_GENERATIONAL);
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(gc_finish(0), 0);
    expect(arena_new(3), 9, "generational creates its arenas at start-up");
}

Test(check_rules, rule9_refcount_moves, .fini = stop) {
    one_arena(CHECK_ROW_REFCOUNT);
    cr_assert_eq(alloc(1, 0x100), 0);
    cr_assert_eq(gc_start(), 0);
    expect(move(1, 0x100, 1, 0x80), 9, "refcount never moves objects");
}

Test(check_rules, rule9_refcount_second_arena, .fini = stop) {
    one_arena(CHECK_ROW_REFCOUNT);
    expect(arena_new(2), 9, "refcount uses one arena");
}

/* ---- rule 12: gclab's mechanism events ---------------------------------------------------------------- */

static int phase(int32_t code, char *name) {
    VMPI_Event e = {.event_type = code};
    e.u.gc_phase.phase_name = name;
    return feed(e);
}

static int object_event(int32_t code, uintptr_t obj) {
    VMPI_Event e = {.event_type = code};
    e.u.gc_object.obj_id = (VMPI_ObjectID)obj;
    return feed(e);
}

static int forwarded(uintptr_t obj, uintptr_t new_obj) {
    VMPI_Event e = {.event_type = VMPI_EVENT_OBJECT_FORWARDED};
    e.u.obj_forward.obj_id = (VMPI_ObjectID)obj;
    e.u.obj_forward.new_obj_id = (VMPI_ObjectID)new_obj;
    return feed(e);
}

static int count_is(uintptr_t obj, int32_t count) {
    VMPI_Event e = {.event_type = VMPI_EVENT_REFCOUNT_CHANGE};
    e.u.refcount_change.obj_id = (VMPI_ObjectID)obj;
    e.u.refcount_change.count = count;
    return feed(e);
}

static int freed_because(uintptr_t obj, char *cause) {
    VMPI_Event e = {.event_type = VMPI_EVENT_OBJECT_FREE_CAUSE};
    e.u.free_cause.obj_id = (VMPI_ObjectID)obj;
    e.u.free_cause.cause = cause;
    int rc = feed(e);
    return rc ? rc : free_object(obj);
}

/* Valid streams, one per kind of algorithm, with every event required. */
Test(check_rules, rule12_marksweep_mark_and_sweep_pass, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    check_rules_expect_mechanism(rules);
    cr_assert_eq(alloc(1, 0x1000), 0);
    cr_assert_eq(alloc(1, 0x2000), 0);
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(phase(VMPI_EVENT_GC_PHASE_START, "mark"), 0);
    cr_assert_eq(object_event(VMPI_EVENT_OBJECT_GREYED, 0x1000), 0);
    cr_assert_eq(object_event(VMPI_EVENT_OBJECT_BLACKENED, 0x1000), 0);
    cr_assert_eq(phase(VMPI_EVENT_GC_PHASE_END, "mark"), 0);
    cr_assert_eq(phase(VMPI_EVENT_GC_PHASE_START, "sweep"), 0);
    cr_assert_eq(freed_because(0x2000, "unmarked"), 0);
    cr_assert_eq(phase(VMPI_EVENT_GC_PHASE_END, "sweep"), 0);
    cr_assert_eq(gc_finish(1), 0);
}

Test(check_rules, rule12_markcompact_forwards_then_moves_pass, .fini = stop) {
    one_arena(CHECK_ROW_MARKCOMPACT);
    check_rules_expect_mechanism(rules);
    cr_assert_eq(alloc(1, 0x1000), 0);
    cr_assert_eq(alloc(1, 0x2000), 0);
    cr_assert_eq(alloc(1, 0x3000), 0);
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(freed_because(0x1000, "unmarked"), 0);
    cr_assert_eq(forwarded(0x2000, 0x1000), 0);
    cr_assert_eq(forwarded(0x3000, 0x1020), 0);
    cr_assert_eq(move(1, 0x2000, 1, 0x1000), 0);
    cr_assert_eq(move(1, 0x3000, 1, 0x1020), 0);
    cr_assert_eq(gc_finish(2), 0);
}

Test(check_rules, rule12_refcount_counts_pass, .fini = stop) {
    one_arena(CHECK_ROW_REFCOUNT);
    check_rules_expect_mechanism(rules);
    cr_assert_eq(alloc(1, 0x1000), 0);
    cr_assert_eq(count_is(0x1000, 1), 0);
    cr_assert_eq(count_is(0x1000, 2), 0);
    cr_assert_eq(count_is(0x1000, 1), 0);
    cr_assert_eq(count_is(0x1000, 0), 0);
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(freed_because(0x1000, "zero-count"), 0);
    cr_assert_eq(gc_finish(0), 0);
}

Test(check_rules, rule12_phase_outside_a_collection, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    expect(phase(VMPI_EVENT_GC_PHASE_START, "mark"), 12, "GC_PHASE_START outside a collection");
}

Test(check_rules, rule12_phase_ends_another, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(phase(VMPI_EVENT_GC_PHASE_START, "mark"), 0);
    expect(phase(VMPI_EVENT_GC_PHASE_END, "sweep"), 12, "\"mark\" is the innermost open phase");
}

Test(check_rules, rule12_phase_ends_none, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(gc_start(), 0);
    expect(phase(VMPI_EVENT_GC_PHASE_END, "sweep"), 12, "ends no open phase");
}

Test(check_rules, rule12_phase_left_open, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(phase(VMPI_EVENT_GC_PHASE_START, "mark"), 0);
    expect(gc_finish(0), 12, "phase \"mark\" is open");
}

Test(check_rules, rule12_greyed_object_not_defined, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(gc_start(), 0);
    expect(object_event(VMPI_EVENT_OBJECT_GREYED, 0x1000), 12, "OBJECT_GREYED names object 4096, which is not defined");
}

Test(check_rules, rule12_blackened_outside_a_collection, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(alloc(1, 0x1000), 0);
    expect(object_event(VMPI_EVENT_OBJECT_BLACKENED, 0x1000), 12, "OBJECT_BLACKENED outside a collection");
}

Test(check_rules, rule12_refcount_greys, .fini = stop) {
    one_arena(CHECK_ROW_REFCOUNT);
    cr_assert_eq(alloc(1, 0x1000), 0);
    cr_assert_eq(gc_start(), 0);
    expect(object_event(VMPI_EVENT_OBJECT_GREYED, 0x1000), 12, "refcount does not post OBJECT_GREYED");
}

Test(check_rules, rule12_move_elsewhere_than_forwarded, .fini = stop) {
    two_arenas(CHECK_ROW_SEMISPACE);
    cr_assert_eq(alloc(1, 0x1000), 0);
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(forwarded(0x1000, 0x5000), 0);
    expect(move(1, 0x1000, 2, 0x6000), 12, "moved to 24576, but its OBJECT_FORWARDED said 20480");
}

Test(check_rules, rule12_forwarded_never_moved, .fini = stop) {
    one_arena(CHECK_ROW_MARKCOMPACT);
    cr_assert_eq(alloc(1, 0x2000), 0);
    cr_assert_eq(gc_start(), 0);
    cr_assert_eq(forwarded(0x2000, 0x1000), 0);
    expect(gc_finish(1), 12, "object 8192 was forwarded to 4096 but never moved");
}

Test(check_rules, rule12_move_without_forward, .fini = stop) {
    one_arena(CHECK_ROW_MARKCOMPACT);
    check_rules_expect_mechanism(rules);
    cr_assert_eq(alloc(1, 0x2000), 0);
    cr_assert_eq(gc_start(), 0);
    expect(move(1, 0x2000, 1, 0x1000), 12, "moved without an OBJECT_FORWARDED");
}

Test(check_rules, rule12_free_without_cause, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    check_rules_expect_mechanism(rules);
    cr_assert_eq(alloc(1, 0x1000), 0);
    cr_assert_eq(gc_start(), 0);
    expect(free_object(0x1000), 12, "freed without an OBJECT_FREE_CAUSE");
}

Test(check_rules, rule12_cause_names_another_object, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(alloc(1, 0x1000), 0);
    cr_assert_eq(alloc(1, 0x2000), 0);
    cr_assert_eq(gc_start(), 0);
    VMPI_Event e = {.event_type = VMPI_EVENT_OBJECT_FREE_CAUSE};
    e.u.free_cause.obj_id = (VMPI_ObjectID)0x1000;
    e.u.free_cause.cause = "unmarked";
    cr_assert_eq(feed(e), 0);
    expect(free_object(0x2000), 12, "the OBJECT_FREE_CAUSE before it named object 4096");
}

Test(check_rules, rule12_cause_of_another_row, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    cr_assert_eq(alloc(1, 0x1000), 0);
    cr_assert_eq(gc_start(), 0);
    expect(freed_because(0x1000, "zero-count"), 12, "marksweep does not free objects for the cause \"zero-count\"");
}

Test(check_rules, rule12_refcount_frees_a_counted_object, .fini = stop) {
    one_arena(CHECK_ROW_REFCOUNT);
    cr_assert_eq(alloc(1, 0x1000), 0);
    cr_assert_eq(count_is(0x1000, 1), 0);
    cr_assert_eq(gc_start(), 0);
    expect(freed_because(0x1000, "cascade"), 12, "freed (cascade) with a reference count of 1");
}

Test(check_rules, rule12_count_jumps, .fini = stop) {
    one_arena(CHECK_ROW_REFCOUNT);
    cr_assert_eq(alloc(1, 0x1000), 0);
    expect(count_is(0x1000, 2), 12, "reference count goes from 0 to 2");
}

Test(check_rules, rule12_remembered_outside_generational, .fini = stop) {
    one_arena(CHECK_ROW_MARKCOMPACT);
    cr_assert_eq(alloc(1, 0x1000), 0);
    expect(object_event(VMPI_EVENT_REMEMBERED_SET_ADD, 0x1000), 12, "markcompact does not post REMEMBERED_SET_ADD");
}

/* ---- the checker itself ---------------------------------------------------------------------------- */

Test(check_rules, first_violation_sticks, .fini = stop) {
    one_arena(CHECK_ROW_MARKSWEEP);
    expect(gc_finish(0), 5, "GC_FINISH without a GC_START");
    cr_assert_eq(alloc(1, 0x100), 5, "after a violation feed keeps answering with it");
}

Test(check_rules, rows_by_name) {
    CheckRow row;
    cr_assert(check_row_by_name("semispace", &row));
    cr_assert_eq(row, CHECK_ROW_SEMISPACE);
    cr_assert(check_row_by_name("refcount", &row));
    cr_assert_eq(row, CHECK_ROW_REFCOUNT);
    cr_assert_not(check_row_by_name("copying", &row));
    cr_assert_not(check_row_by_name(NULL, &row));
}

/* ---- rule 10: only what the agent asked for arrives (check_asked.c) ------------------------------------ */

static CheckAsked asked;

static void asked_with_allocs(void) {
    check_asked_init(&asked);
    check_asked_enable(&asked, VMPI_EVENT_OBJECT_ALLOC, true);
}

static void expect_asked(int rc, const char *words) {
    cr_assert_eq(rc, 10, "expected rule 10, got %d", rc);
    cr_assert(strstr(asked.message, words), "message '%s' lacks '%s'", asked.message, words);
}

Test(check_asked, enabled_events_and_answered_requests_pass) {
    asked_with_allocs();
    cr_assert_eq(check_asked_event(&asked, VMPI_EVENT_OBJECT_ALLOC), 0);
    check_asked_request_begin(&asked, VMPI_EVENT_HEAP_DUMP);
    cr_assert_eq(check_asked_event(&asked, VMPI_EVENT_HEAP_DUMP | VMPI_REQUESTED_EVENT), 0,
                 "a requested event need not be enabled");
    cr_assert_eq(check_asked_request_end(&asked, VMPI_OK), 0);
    check_asked_request_begin(&asked, VMPI_EVENT_OBJECT_ALLOC);
    cr_assert_eq(check_asked_event(&asked, VMPI_EVENT_OBJECT_ALLOC | VMPI_REQUESTED_EVENT), 0);
    cr_assert_eq(check_asked_request_end(&asked, VMPI_OK), 0);
    check_asked_request_begin(&asked, VMPI_EVENT_OBJECT_ALLOC);
    cr_assert_eq(check_asked_request_end(&asked, VMPI_ERR), 0, "a refused request sends nothing");
}

Test(check_asked, event_never_enabled) {
    asked_with_allocs();
    expect_asked(check_asked_event(&asked, VMPI_EVENT_METHOD_ENTRY), "METHOD_ENTRY arrived, but the agent has it disabled");
}

Test(check_asked, event_disabled_mid_run) {
    asked_with_allocs();
    check_asked_enable(&asked, VMPI_EVENT_METHOD_ENTRY, true);
    cr_assert_eq(check_asked_event(&asked, VMPI_EVENT_METHOD_ENTRY), 0);
    check_asked_enable(&asked, VMPI_EVENT_METHOD_ENTRY, false);
    cr_assert_eq(check_asked_event(&asked, VMPI_EVENT_OBJECT_ALLOC), 0, "the others stay enabled");
    cr_assert_eq(check_asked_event(&asked, VMPI_EVENT_METHOD_ENTRY), 0,
                 "posted on another thread before DisableEvent returned: in flight");
    check_asked_enable(&asked, VMPI_EVENT_GC_START, true);
    cr_assert_eq(check_asked_event(&asked, VMPI_EVENT_GC_START), 0);
    expect_asked(check_asked_event(&asked, VMPI_EVENT_METHOD_ENTRY), "METHOD_ENTRY arrived, but the agent has it disabled");
    check_asked_enable(&asked, VMPI_EVENT_METHOD_ENTRY, true);
    cr_assert_eq(check_asked_event(&asked, VMPI_EVENT_METHOD_ENTRY), 0, "enabled again");
}

Test(check_asked, unknown_event_code) {
    asked_with_allocs();
    expect_asked(check_asked_event(&asked, VMPI_EVENT_CODE_LIMIT + 1), "an unknown event arrived");
}

Test(check_asked, requested_bit_without_a_request) {
    asked_with_allocs();
    expect_asked(check_asked_event(&asked, VMPI_EVENT_HEAP_DUMP | VMPI_REQUESTED_EVENT),
                 "a requested HEAP_DUMP arrived, but no RequestEvent of the agent's is running");
    check_asked_request_begin(&asked, VMPI_EVENT_HEAP_DUMP);
    cr_assert_eq(check_asked_event(&asked, VMPI_EVENT_HEAP_DUMP | VMPI_REQUESTED_EVENT), 0);
    cr_assert_eq(check_asked_request_end(&asked, VMPI_OK), 0);
    expect_asked(check_asked_event(&asked, VMPI_EVENT_OBJECT_ALLOC | VMPI_REQUESTED_EVENT),
                 "a requested OBJECT_ALLOC arrived, but no RequestEvent");
}

Test(check_asked, answer_without_the_bit) {
    asked_with_allocs();
    check_asked_request_begin(&asked, VMPI_EVENT_OBJECT_ALLOC);
    expect_asked(check_asked_event(&asked, VMPI_EVENT_OBJECT_ALLOC),
                 "RequestEvent(OBJECT_ALLOC) is running, but OBJECT_ALLOC arrived without the VMPI_REQUESTED_EVENT bit");
}

Test(check_asked, answer_of_another_type) {
    asked_with_allocs();
    check_asked_request_begin(&asked, VMPI_EVENT_HEAP_DUMP);
    expect_asked(check_asked_event(&asked, VMPI_EVENT_OBJECT_DUMP | VMPI_REQUESTED_EVENT),
                 "RequestEvent(HEAP_DUMP) is running, but a requested OBJECT_DUMP arrived");
}

Test(check_asked, ok_without_an_answer) {
    asked_with_allocs();
    check_asked_request_begin(&asked, VMPI_EVENT_HEAP_DUMP);
    expect_asked(check_asked_request_end(&asked, VMPI_OK), "RequestEvent(HEAP_DUMP) returned VMPI_OK but sent no requested HEAP_DUMP");
}

Test(check_asked, two_answers_to_one_request) {
    asked_with_allocs();
    check_asked_request_begin(&asked, VMPI_EVENT_HEAP_DUMP);
    cr_assert_eq(check_asked_event(&asked, VMPI_EVENT_HEAP_DUMP | VMPI_REQUESTED_EVENT), 0);
    cr_assert_eq(check_asked_event(&asked, VMPI_EVENT_HEAP_DUMP | VMPI_REQUESTED_EVENT), 0);
    expect_asked(check_asked_request_end(&asked, VMPI_OK), "RequestEvent(HEAP_DUMP) sent 2 requested events, not one");
    check_asked_request_begin(&asked, VMPI_EVENT_ARENA_NEW);
    cr_assert_eq(check_asked_event(&asked, VMPI_EVENT_ARENA_NEW | VMPI_REQUESTED_EVENT), 0);
    cr_assert_eq(check_asked_event(&asked, VMPI_EVENT_ARENA_NEW | VMPI_REQUESTED_EVENT), 0);
    cr_assert_eq(check_asked_request_end(&asked, VMPI_OK), 0, "ARENA_NEW replays every live arena");
}
