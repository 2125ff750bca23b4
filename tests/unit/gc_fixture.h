/*
 * gc_fixture.h -- a miniature VM for collector unit tests: a few classes,
 * a root array, and an event recorder.  Every collector's test file
 * (tests/unit/gc_NAME.c) and gc_common.c include it, so each collector is
 * tested against the same world.
 *
 *   fx_node_class     an instance: 2 reference fields, 1 primitive field
 *   fx_array_class    an array of references to nodes ("Node[]")
 *   fx_bytes_class    an array of bytes (no references)
 *   fx_string_class   a string
 *
 * Roots are fx_roots[0 .. FX_NUM_ROOTS): the heap's GcConfig.roots visits
 * every one of them (NULL slots included, as a VM's stack would).  Helpers
 * that allocate keep what they build in a root slot, so they are correct
 * under a moving collector too: after any allocation, read objects again
 * through fx_roots, never through a pointer held across it.
 *
 * The recorder (fx_record_events) registers an in-process VMPI listener
 * (vmpi/control.h) and keeps a copy of every event it is sent.  Criterion
 * runs each test in its own process, so listeners never leak between tests.
 */
#ifndef GCLAB_TESTS_GC_FIXTURE_H
#define GCLAB_TESTS_GC_FIXTURE_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "gc/gc.h"
#include "vmpi/control.h"
#include "vmpi/vmpi.h"

/* ---- classes ---------------------------------------------------------------- */

static RtClass fx_node_class = {
    .name = "Node", .kind = CLASS_INSTANCE, .num_ref_fields = 2, .num_prim_fields = 1,
    .class_id = 0x1000, .program_index = 0,
};
static RtClass fx_array_class = {
    .name = "Node[]", .kind = CLASS_ARRAY, .elem_kind = ELEM_REF, .elem_size = sizeof(Obj *),
    .elem_class = &fx_node_class, .class_id = 0x2000, .program_index = UINT32_MAX,
};
static RtClass fx_bytes_class = {
    .name = "byte[]", .kind = CLASS_ARRAY, .elem_kind = ELEM_BYTE, .elem_size = 1,
    .class_id = 0x3000, .program_index = UINT32_MAX,
};
static RtClass fx_string_class = {
    .name = "String", .kind = CLASS_STRING, .class_id = 0x4000, .program_index = UINT32_MAX,
};

#define FX_NODE_BYTES (sizeof(Obj) + 3 * 8)

static inline bool fx_is_known_class(void *vm, const RtClass *cls) {
    (void)vm;
    return cls == &fx_node_class || cls == &fx_array_class || cls == &fx_bytes_class ||
           cls == &fx_string_class;
}

/* ---- roots -------------------------------------------------------------------- */

#define FX_NUM_ROOTS 16
static Obj *fx_roots[FX_NUM_ROOTS];

static inline void fx_enumerate_roots(void *vm, GcSlotVisitor visit, void *ctx) {
    (void)vm;
    for (int i = 0; i < FX_NUM_ROOTS; i++) visit(&fx_roots[i], ctx);
}

/* A configuration with the fixture's roots and classes; verification on, so
 * every collection in a test is checked before and after. */
static inline GcConfig fx_config(size_t heap_bytes) {
    return (GcConfig){
        .heap_bytes = heap_bytes,
        .young_bytes = heap_bytes / 4,
        .tenure_age = 2,
        .verify = true,
        .roots = {.enumerate = fx_enumerate_roots, .vm = NULL},
        .is_known_class = fx_is_known_class,
    };
}

static inline Gc *fx_create(const char *collector, const GcConfig *config) {
    const GcOps *ops = gc_ops_by_name(collector);
    cr_assert_not_null(ops, "no collector named %s", collector);
    Gc *gc = ops->create(config);
    cr_assert_not_null(gc, "%s: create failed", collector);
    return gc;
}

/* ---- building objects (move-safe: results live in root slots) -------------- */

static inline Obj **fx_left(Obj *node) { return obj_ref_field(node, 0); }
static inline Obj **fx_right(Obj *node) { return obj_ref_field(node, 1); }
static inline uint64_t *fx_value(Obj *node) { return obj_prim_field(node, 0); }

/* A node with value `value` and null children, stored in fx_roots[root]. */
static inline Obj *fx_new_node(Gc *gc, int root, uint64_t value) {
    Obj *node = gc_alloc(gc, &fx_node_class, 0);
    cr_assert_not_null(node, "node allocation failed");
    *fx_value(node) = value;
    fx_roots[root] = node;
    return node;
}

/* fx_roots[root] becomes a list of `n` nodes with values n-1 .. 0 from the
 * head, linked through the left field.  fx_roots[scratch] is overwritten. */
static inline void fx_build_list(Gc *gc, int root, int scratch, uint64_t n) {
    fx_roots[root] = NULL;
    for (uint64_t i = 0; i < n; i++) {
        fx_new_node(gc, scratch, i);
        gc_write_ref(gc, fx_roots[scratch], fx_left(fx_roots[scratch]), fx_roots[root]);
        fx_roots[root] = fx_roots[scratch];
    }
    fx_roots[scratch] = NULL;
}

/* Checks the list built by fx_build_list: length n, values n-1 .. 0. */
static inline void fx_assert_list(Obj *head, uint64_t n) {
    uint64_t count = 0;
    for (Obj *node = head; node != NULL; node = *fx_left(node)) {
        cr_assert_eq(node->cls, &fx_node_class);
        cr_assert_eq(*fx_value(node), n - 1 - count, "node %llu holds %llu",
                     (unsigned long long)count, (unsigned long long)*fx_value(node));
        count++;
    }
    cr_assert_eq(count, n, "list has %llu nodes, expected %llu", (unsigned long long)count,
                 (unsigned long long)n);
}

/* Allocates `n` nodes that nothing references. */
static inline void fx_make_garbage(Gc *gc, uint64_t n) {
    for (uint64_t i = 0; i < n; i++)
        cr_assert_not_null(gc_alloc(gc, &fx_node_class, 0), "garbage allocation %llu failed",
                           (unsigned long long)i);
}

/* True if the `bytes` bytes at `start` are all zero (free heap space must be). */
static inline bool fx_all_zero(const void *start, size_t bytes) {
    const uint8_t *p = start;
    for (size_t i = 0; i < bytes; i++)
        if (p[i] != 0) return false;
    return true;
}

/* Counts what walk_heap visits. */
typedef struct FxHeapCount {
    uint64_t objects, bytes;
    uint32_t arena_id; /* last arena seen */
} FxHeapCount;

static inline void fx_count_object(Obj *obj, uint32_t arena_id, void *ctx) {
    FxHeapCount *count = ctx;
    count->objects++;
    count->bytes += obj_size(obj);
    count->arena_id = arena_id;
}

static inline FxHeapCount fx_count_heap(Gc *gc) {
    FxHeapCount count = {0, 0, 0};
    gc->ops->walk_heap(gc, fx_count_object, &count);
    return count;
}

/* Where walk_heap lists one object: how many times (an exact walk lists a
 * live object once and a dead one never), and in which arena (0 if none). */
typedef struct FxFinding {
    const void *obj;
    uint32_t arena_id;
    int times;
} FxFinding;

static inline void fx_find_object(Obj *obj, uint32_t arena_id, void *ctx) {
    FxFinding *finding = ctx;
    if ((const void *)obj != finding->obj) return;
    finding->arena_id = arena_id;
    finding->times++;
}

static inline FxFinding fx_find_in_heap(Gc *gc, const void *obj) {
    FxFinding finding = {obj, 0, 0};
    gc->ops->walk_heap(gc, fx_find_object, &finding);
    return finding;
}

/* ---- recording events ---------------------------------------------------------- */

typedef struct FxEvent {
    int32_t type;
    VMPI_ArenaID arena_id;
    char arena_name[32];
    const void *obj_id;
    VMPI_ArenaID new_arena_id;  /* OBJECT_MOVE only */
    const void *new_obj_id;     /* OBJECT_MOVE only */
    int32_t size;
    int32_t is_array;
    const void *class_id;
    int64_t used_objects, used_object_space, total_object_space;
} FxEvent;

#define FX_MAX_EVENTS 4096
static FxEvent fx_events[FX_MAX_EVENTS];
static int fx_num_events;

static inline void fx_notify(VMPI_Event *event) {
    cr_assert_lt(fx_num_events, FX_MAX_EVENTS, "too many events");
    FxEvent *e = &fx_events[fx_num_events++];
    memset(e, 0, sizeof *e);
    e->type = event->event_type;
    switch (event->event_type) {
    case VMPI_EVENT_ARENA_NEW:
        e->arena_id = event->u.new_arena.arena_id;
        snprintf(e->arena_name, sizeof e->arena_name, "%s", event->u.new_arena.arena_name);
        break;
    case VMPI_EVENT_ARENA_DELETE:
        e->arena_id = event->u.delete_arena.arena_id;
        break;
    case VMPI_EVENT_OBJECT_ALLOC:
        e->arena_id = event->u.obj_alloc.arena_id;
        e->obj_id = event->u.obj_alloc.obj_id;
        e->size = event->u.obj_alloc.size;
        e->is_array = event->u.obj_alloc.is_array;
        e->class_id = event->u.obj_alloc.class_id;
        break;
    case VMPI_EVENT_OBJECT_FREE:
        e->obj_id = event->u.obj_free.obj_id;
        break;
    case VMPI_EVENT_OBJECT_MOVE:
        e->arena_id = event->u.obj_move.arena_id;
        e->obj_id = event->u.obj_move.obj_id;
        e->new_arena_id = event->u.obj_move.new_arena_id;
        e->new_obj_id = event->u.obj_move.new_obj_id;
        break;
    case VMPI_EVENT_GC_FINISH:
        e->used_objects = event->u.gc_info.used_objects;
        e->used_object_space = event->u.gc_info.used_object_space;
        e->total_object_space = event->u.gc_info.total_object_space;
        break;
    default:
        break;
    }
}

/* Starts recording the heap events and GC_START / GC_FINISH. */
static inline void fx_record_events(void) {
    VMPI_Interface *iface = vmpi_register_listener(fx_notify);
    cr_assert_not_null(iface, "vmpi_register_listener failed");
    static const int32_t codes[] = {
        VMPI_EVENT_ARENA_NEW,  VMPI_EVENT_ARENA_DELETE, VMPI_EVENT_OBJECT_ALLOC,
        VMPI_EVENT_OBJECT_FREE, VMPI_EVENT_OBJECT_MOVE, VMPI_EVENT_GC_START,
        VMPI_EVENT_GC_FINISH,
    };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        cr_assert_eq(iface->EnableEvent(codes[i], NULL), VMPI_OK, "cannot enable %s",
                     vmpi_event_name(codes[i]));
    fx_num_events = 0;
}

/* Checks that exactly the events `expected[0 .. count)` were recorded, in
 * order: every field fx_notify records except class_id and is_array (what
 * an expected entry leaves out must be 0, as fx_notify leaves it). */
static inline void fx_assert_events(const FxEvent *expected, int count) {
    cr_assert_eq(fx_num_events, count, "got %d events, expected %d", fx_num_events, count);
    for (int i = 0; i < count; i++) {
        const FxEvent *want = &expected[i], *got = &fx_events[i];
        cr_assert_eq(got->type, want->type, "event %d is %s, expected %s", i,
                     vmpi_event_name(got->type), vmpi_event_name(want->type));
        cr_assert_eq(got->arena_id, want->arena_id, "event %d: arena_id", i);
        cr_assert_str_eq(got->arena_name, want->arena_name, "event %d: arena_name", i);
        cr_assert_eq(got->obj_id, want->obj_id, "event %d: obj_id", i);
        cr_assert_eq(got->new_arena_id, want->new_arena_id, "event %d: new_arena_id", i);
        cr_assert_eq(got->new_obj_id, want->new_obj_id, "event %d: new_obj_id", i);
        cr_assert_eq(got->size, want->size, "event %d: size", i);
        cr_assert_eq(got->used_objects, want->used_objects, "event %d: used_objects", i);
        cr_assert_eq(got->used_object_space, want->used_object_space, "event %d: used_object_space", i);
        cr_assert_eq(got->total_object_space, want->total_object_space, "event %d: total_object_space", i);
    }
}

/* ---- the event stream against a model -------------------------------------------
 * fx_stream replays the heap events onto a table of the IDs they define,
 * each with its arena and size, and checks as it goes the event-stream
 * rules every collector keeps (docs/contracts.md): an ID is used only while defined
 * and defined again only once undefined (rules 1, 3); objects are born and
 * moved only into arenas that exist, a move out of the arena the ID is in
 * (2, 3); an arena's delete undefines its IDs, and it is made again only
 * once deleted (4); frees, moves and arena deletes lie between GC_START and
 * GC_FINISH (5); GC_FINISH reports the stream's live objects and bytes (6);
 * and, once fx_stream.gc is set, walk_heap lists exactly the live IDs, in
 * their arenas, with their sizes, at every event, even in the middle of a
 * collection (7).  A collector's own row of the mapping table is its test's
 * `row` check, called after those with each event and, for OBJECT_FREE and
 * OBJECT_MOVE, what the stream held for the ID before.
 *
 * The table is open addressing with linear probing, deleting by shifting
 * the rest of the cluster back; it stays at most half full. */

#define FX_STREAM_CAPACITY 2048u /* a power of two, above twice the live objects */
#define FX_STREAM_MASK (FX_STREAM_CAPACITY - 1)
#define FX_STREAM_MAX_ARENA 8u

typedef struct FxStreamEntry {
    const void *id; /* NULL: an empty slot */
    uint32_t arena;
    int32_t size;
} FxStreamEntry;

typedef void (*FxStreamRow)(const VMPI_Event *event, const FxStreamEntry *before);

static struct FxStream {
    FxStreamEntry ids[FX_STREAM_CAPACITY];
    uint32_t live;
    FxStreamRow row;
    Gc *gc; /* walked at every event, once set */
    bool collecting;
    bool exists[FX_STREAM_MAX_ARENA + 1]; /* by arena ID */
    uint64_t walks, frees, deaths, moves, collections;
} fx_stream;

static inline uint32_t fx_stream_home(const void *id) { return (uint32_t)((uintptr_t)id >> 3) & FX_STREAM_MASK; }

/* The entry of `id`, or the empty slot where it would go. */
static inline FxStreamEntry *fx_stream_slot(const void *id) {
    uint32_t i = fx_stream_home(id);
    while (fx_stream.ids[i].id != NULL && fx_stream.ids[i].id != id) i = (i + 1) & FX_STREAM_MASK;
    return &fx_stream.ids[i];
}

static inline void fx_stream_define(const void *id, uint32_t arena, int32_t size) {
    FxStreamEntry *entry = fx_stream_slot(id);
    cr_assert_null(entry->id, "ID %p is defined again while defined (rule 1/3)", id);
    cr_assert_lt(fx_stream.live, FX_STREAM_CAPACITY / 2);
    *entry = (FxStreamEntry){id, arena, size};
    fx_stream.live++;
}

/* Undefines `id` and returns what it was. */
static inline FxStreamEntry fx_stream_undefine(const void *id) {
    FxStreamEntry *entry = fx_stream_slot(id);
    cr_assert_not_null(entry->id, "ID %p is used but not defined (rule 1)", id);
    FxStreamEntry gone = *entry;
    uint32_t hole = (uint32_t)(entry - fx_stream.ids);
    fx_stream.ids[hole].id = NULL;
    for (uint32_t i = (hole + 1) & FX_STREAM_MASK; fx_stream.ids[i].id != NULL; i = (i + 1) & FX_STREAM_MASK) {
        uint32_t home = fx_stream_home(fx_stream.ids[i].id);
        if (((i - home) & FX_STREAM_MASK) >= ((i - hole) & FX_STREAM_MASK)) {
            fx_stream.ids[hole] = fx_stream.ids[i];
            fx_stream.ids[i].id = NULL;
            hole = i;
        }
    }
    fx_stream.live--;
    return gone;
}

/* Rule 4: every ID in a deleted arena is undefined with it. */
static inline void fx_stream_delete_arena(uint32_t arena) {
    static FxStreamEntry before[FX_STREAM_CAPACITY];
    memcpy(before, fx_stream.ids, sizeof before);
    memset(fx_stream.ids, 0, sizeof fx_stream.ids);
    fx_stream.live = 0;
    for (uint32_t i = 0; i < FX_STREAM_CAPACITY; i++) {
        if (before[i].id == NULL) continue;
        if (before[i].arena == arena) fx_stream.deaths++;
        else fx_stream_define(before[i].id, before[i].arena, before[i].size);
    }
}

static inline void fx_stream_assert_listed(Obj *obj, uint32_t arena_id, void *ctx) {
    FxStreamEntry *entry = fx_stream_slot(obj);
    cr_assert_not_null(entry->id, "walk_heap lists %p, which the stream does not define", (void *)obj);
    cr_assert_eq(entry->arena, arena_id);
    cr_assert_eq(entry->size, (int32_t)obj_size(obj));
    (*(uint32_t *)ctx)++;
}

/* Rule 7's view: walk_heap lists exactly the IDs the stream says are live. */
static inline void fx_stream_assert_heap(Gc *gc) {
    uint32_t seen = 0;
    gc->ops->walk_heap(gc, fx_stream_assert_listed, &seen);
    cr_assert_eq(seen, fx_stream.live, "walk_heap lists %u objects, the stream has %u", seen, fx_stream.live);
    fx_stream.walks++;
}

static inline void fx_stream_apply(VMPI_Event *event, FxStreamEntry *before) {
    switch (event->event_type) {
    case VMPI_EVENT_OBJECT_ALLOC: {
        uint32_t arena = (uint32_t)event->u.obj_alloc.arena_id;
        cr_assert(arena <= FX_STREAM_MAX_ARENA && fx_stream.exists[arena],
                  "OBJECT_ALLOC in arena %u, which does not exist (rule 2)", arena);
        fx_stream_define(event->u.obj_alloc.obj_id, arena, event->u.obj_alloc.size);
        break;
    }
    case VMPI_EVENT_OBJECT_FREE:
        cr_assert(fx_stream.collecting, "OBJECT_FREE outside GC_START .. GC_FINISH (rule 5)");
        *before = fx_stream_undefine(event->u.obj_free.obj_id);
        fx_stream.frees++;
        break;
    case VMPI_EVENT_OBJECT_MOVE: {
        uint32_t from = (uint32_t)event->u.obj_move.arena_id, to = (uint32_t)event->u.obj_move.new_arena_id;
        cr_assert(fx_stream.collecting, "OBJECT_MOVE outside GC_START .. GC_FINISH (rule 5)");
        *before = fx_stream_undefine(event->u.obj_move.obj_id);
        cr_assert_eq(before->arena, from, "moved out of arena %u but it is in arena %u (rule 3)", from,
                     before->arena);
        cr_assert(to <= FX_STREAM_MAX_ARENA && fx_stream.exists[to],
                  "moved into arena %u, which does not exist (rule 3)", to);
        fx_stream_define(event->u.obj_move.new_obj_id, to, before->size);
        fx_stream.moves++;
        break;
    }
    case VMPI_EVENT_ARENA_DELETE: {
        uint32_t arena = (uint32_t)event->u.delete_arena.arena_id;
        cr_assert(fx_stream.collecting, "ARENA_DELETE outside GC_START .. GC_FINISH (rule 5)");
        cr_assert(arena <= FX_STREAM_MAX_ARENA && fx_stream.exists[arena], "arena %u deleted twice", arena);
        fx_stream_delete_arena(arena);
        fx_stream.exists[arena] = false;
        break;
    }
    case VMPI_EVENT_ARENA_NEW: {
        uint32_t arena = (uint32_t)event->u.new_arena.arena_id;
        cr_assert_leq(arena, FX_STREAM_MAX_ARENA, "arena %u", arena);
        cr_assert(!fx_stream.exists[arena], "arena %u made while it exists (rule 4)", arena);
        fx_stream.exists[arena] = true;
        break;
    }
    case VMPI_EVENT_GC_START:
        cr_assert(!fx_stream.collecting, "GC_START twice (rule 5)");
        fx_stream.collecting = true;
        break;
    case VMPI_EVENT_GC_FINISH: {
        cr_assert(fx_stream.collecting, "GC_FINISH without GC_START (rule 5)");
        fx_stream.collecting = false;
        fx_stream.collections++;
        int64_t bytes = 0;
        for (uint32_t i = 0; i < FX_STREAM_CAPACITY; i++)
            if (fx_stream.ids[i].id != NULL) bytes += fx_stream.ids[i].size;
        cr_assert_eq(event->u.gc_info.used_objects, (int64_t)fx_stream.live, "rule 6");
        cr_assert_eq(event->u.gc_info.used_object_space, bytes, "rule 6");
        cr_assert_geq(event->u.gc_info.total_object_space, bytes, "rule 6");
        break;
    }
    default:
        break;
    }
}

static inline void fx_stream_notify(VMPI_Event *event) {
    FxStreamEntry before = {NULL, 0, 0};
    fx_stream_apply(event, &before);
    fx_stream.row(event, &before);
    if (fx_stream.gc != NULL) fx_stream_assert_heap(fx_stream.gc);
}

/* Starts the model, empty, with the collector's `row` check; call it before
 * the heap is created (its ARENA_NEW events make the arenas exist). */
static inline void fx_stream_listen(FxStreamRow row) {
    memset(&fx_stream, 0, sizeof fx_stream);
    fx_stream.row = row;
    VMPI_Interface *iface = vmpi_register_listener(fx_stream_notify);
    cr_assert_not_null(iface, "vmpi_register_listener failed");
    static const int32_t codes[] = {VMPI_EVENT_OBJECT_ALLOC, VMPI_EVENT_OBJECT_FREE, VMPI_EVENT_OBJECT_MOVE,
                                    VMPI_EVENT_ARENA_NEW,    VMPI_EVENT_ARENA_DELETE, VMPI_EVENT_GC_START,
                                    VMPI_EVENT_GC_FINISH};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        cr_assert_eq(iface->EnableEvent(codes[i], NULL), VMPI_OK, "cannot enable %s",
                     vmpi_event_name(codes[i]));
}

/* ---- behaviours every collector shares ----------------------------------------
 * What must hold for every collector, written once: each collector's test
 * file calls these on its own heap. */

/* fx_roots[root] becomes a reference array of `len` nodes; node i holds
 * 1000 + i and points back at the array (left) and at itself (right), so
 * every node is on two cycles.  `garbage` unreachable nodes follow each
 * element, spreading the survivors out.  fx_roots[scratch] is overwritten. */
static inline void fx_build_cyclic_array(Gc *gc, int root, int scratch, uint32_t len, uint64_t garbage) {
    fx_roots[root] = gc_alloc(gc, &fx_array_class, len);
    cr_assert_not_null(fx_roots[root], "array allocation failed");
    for (uint32_t i = 0; i < len; i++) {
        Obj *node = fx_new_node(gc, scratch, 1000 + i);
        Obj *array = fx_roots[root];
        gc_write_ref(gc, array, &((Obj **)obj_body(array))[i], node);
        gc_write_ref(gc, node, fx_left(node), array);
        gc_write_ref(gc, node, fx_right(node), node);
        fx_make_garbage(gc, garbage);
    }
    fx_roots[scratch] = NULL;
}

/* Checks an array built by fx_build_cyclic_array, wherever it now lies. */
static inline void fx_assert_cyclic_array(Obj *array, uint32_t len) {
    cr_assert_eq(array->cls, &fx_array_class);
    cr_assert_eq(array->length, len);
    for (uint32_t i = 0; i < len; i++) {
        Obj *node = ((Obj **)obj_body(array))[i];
        cr_assert_eq(*fx_value(node), 1000 + i, "element %u", i);
        cr_assert_eq(*fx_left(node), array, "element %u points back at the array", i);
        cr_assert_eq(*fx_right(node), node, "element %u points at itself", i);
    }
}

/* Leaves behind an unreachable cycle of two nodes, built through
 * fx_roots[a] and fx_roots[b], which are NULL afterwards. */
static inline void fx_make_garbage_cycle(Gc *gc, int a, int b) {
    fx_new_node(gc, a, 1);
    fx_new_node(gc, b, 2);
    gc_write_ref(gc, fx_roots[a], fx_left(fx_roots[a]), fx_roots[b]);
    gc_write_ref(gc, fx_roots[b], fx_left(fx_roots[b]), fx_roots[a]);
    fx_roots[a] = fx_roots[b] = NULL;
}

/* On a fresh heap with room to spare (so nothing collects or moves),
 * allocates a node, a 5-element reference array and a 13-byte array into
 * made[0..2] and checks that each has its header filled and its body zeroed,
 * and that the statistics and walk_heap (arena `arena_id`) count them. */
static inline void fx_assert_allocation_fills_headers(Gc *gc, uint32_t arena_id, Obj *made[3]) {
    made[0] = gc_alloc(gc, &fx_node_class, 0);
    made[1] = gc_alloc(gc, &fx_array_class, 5);
    made[2] = gc_alloc(gc, &fx_bytes_class, 13);
    const RtClass *classes[3] = {&fx_node_class, &fx_array_class, &fx_bytes_class};
    const uint32_t lengths[3] = {0, 5, 13};
    uint64_t expect = 0;
    for (int i = 0; i < 3; i++) {
        cr_assert_not_null(made[i], "allocation %d failed", i);
        cr_assert_eq(made[i]->cls, classes[i]);
        cr_assert_eq(made[i]->length, lengths[i]);
        cr_assert_eq(made[i]->gc_word, gc->fresh_gc_word);
        size_t bytes = obj_size(made[i]);
        for (size_t b = sizeof(Obj); b < bytes; b++)
            cr_assert_eq(((const uint8_t *)made[i])[b], 0, "object %d, byte %zu", i, b);
        expect += bytes;
    }
    cr_assert_eq(gc->stats.objects_allocated, 3);
    cr_assert_eq(gc->stats.bytes_allocated, expect);
    FxHeapCount heap = fx_count_heap(gc);
    cr_assert_eq(heap.objects, 3);
    cr_assert_eq(heap.bytes, expect);
    cr_assert_eq(heap.arena_id, arena_id);
    cr_assert_eq(gc_used_objects(gc), 3);
    cr_assert_eq(gc_used_bytes(gc), expect);
}

/* Checks that the registry has `collector` and that it publishes
 * `expected` (description aside); returns its ops. */
static inline const GcOps *fx_assert_constraints(const char *collector, const GcConstraints *expected) {
    const GcOps *ops = gc_ops_by_name(collector);
    cr_assert_not_null(ops, "no collector named %s", collector);
    const GcConstraints *c = ops->constraints;
    cr_assert_str_eq(c->name, expected->name);
    cr_assert_eq(c->moves_objects, expected->moves_objects);
    cr_assert_eq(c->barrier, expected->barrier);
    cr_assert_eq(c->num_arenas, expected->num_arenas);
    for (uint32_t i = 0; i < c->num_arenas; i++) {
        cr_assert_eq(c->arenas[i].arena_id, expected->arenas[i].arena_id, "arena %u", i);
        cr_assert_str_eq(c->arenas[i].name, expected->arenas[i].name, "arena %u", i);
    }
    return ops;
}

/* For a heap with room for exactly `capacity` nodes: a root node and
 * capacity - 1 garbage ones fill it without a collection, the next one
 * needs one, and ten heaps' worth of garbage never runs out of memory. */
static inline void fx_assert_collects_when_full(Gc *gc, uint64_t capacity) {
    fx_new_node(gc, 0, 42);
    fx_make_garbage(gc, capacity - 1);
    cr_assert_eq(gc->stats.collections, 0, "heap not yet full");
    cr_assert_eq(fx_count_heap(gc).bytes, capacity * FX_NODE_BYTES);
    fx_make_garbage(gc, 1);
    cr_assert_eq(gc->stats.collections, 1, "the node past capacity needs a collection");
    cr_assert_eq(fx_count_heap(gc).objects, 2);
    fx_make_garbage(gc, 10 * capacity);
    cr_assert_eq(*fx_value(fx_roots[0]), 42);
    cr_assert_leq(fx_count_heap(gc).bytes, capacity * FX_NODE_BYTES);
}

/* Builds a list in fx_roots[root] (linked through left) until the heap
 * refuses a node, and returns how many nodes it holds.  Checks that the
 * collector collected before giving up, that the list is intact after the
 * failed request, and that the OOM message names the collector. */
static inline uint64_t fx_fill_until_out_of_memory(Gc *gc, int root) {
    fx_roots[root] = NULL;
    uint64_t built = 0;
    Obj *node;
    while ((node = gc_alloc(gc, &fx_node_class, 0)) != NULL) {
        gc_write_ref(gc, node, fx_left(node), fx_roots[root]);
        fx_roots[root] = node;
        built++;
    }
    cr_assert_geq(gc->stats.collections, 1, "a collection was tried before giving up");
    uint64_t length = 0;
    for (node = fx_roots[root]; node != NULL; node = *fx_left(node)) length++;
    cr_assert_eq(length, built, "the list is intact after the failed request");
    char message[256];
    gc_describe_oom(gc, FX_NODE_BYTES, message, sizeof message);
    cr_assert(strstr(message, "out of memory") != NULL, "%s", message);
    cr_assert(strstr(message, gc->ops->constraints->name) != NULL, "%s", message);
    return built;
}

/* Under --gc-stress every allocation collects first, and there is no
 * inline fast path (gc->alloc_region stays &gc_closed_region).  Builds a 200-node
 * list in fx_roots[0] (fx_roots[1] is scratch), then allocates 50 garbage
 * nodes, of which only the last survives. */
static inline void fx_assert_stress_collects_every_allocation(const char *collector) {
    GcConfig config = fx_config(1 << 20);
    config.stress = true;
    Gc *gc = fx_create(collector, &config);
    cr_assert_eq(gc->alloc_region, &gc_closed_region, "no fast path under --gc-stress");
    fx_build_list(gc, 0, 1, 200);
    cr_assert_eq(gc->stats.collections, 200);
    cr_assert_eq(fx_count_heap(gc).objects, 200);
    fx_make_garbage(gc, 50);
    cr_assert_eq(gc->stats.collections, 250);
    cr_assert_eq(fx_count_heap(gc).objects, 201, "only the last garbage node is still there");
    fx_assert_list(fx_roots[0], 200);
    cr_assert_eq(gc->alloc_region, &gc_closed_region, "nor after collections");
    gc->ops->destroy(gc);
}

/* Undoes every gc_disable still in force. */
static inline void fx_enable_gc(Gc *gc) {
    while (gc_enable(gc)) continue;
}

/* Under nested DisableGC (depth 2, left set) neither `garbage` new nodes
 * nor a requested collection collect anything, even past the budget. */
static inline void fx_assert_disabled_gc_does_not_collect(Gc *gc, uint64_t garbage) {
    uint64_t collections = gc->stats.collections, objects = fx_count_heap(gc).objects;
    gc_disable(gc); /* nested, as DisableGC calls nest */
    gc_disable(gc);
    fx_make_garbage(gc, garbage);
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc->stats.collections, collections);
    cr_assert_eq(fx_count_heap(gc).objects, objects + garbage);
}

/* A request for more than `capacity` bytes (what the heap can ever hold)
 * fails at once: no collection, no object. */
static inline void fx_assert_oversized_request_fails(Gc *gc, size_t capacity) {
    uint64_t collections = gc->stats.collections, objects = fx_count_heap(gc).objects;
    cr_assert_null(gc_alloc(gc, &fx_bytes_class, (uint32_t)capacity));
    cr_assert_eq(gc->stats.collections, collections, "no collection for a hopeless request");
    cr_assert_eq(fx_count_heap(gc).objects, objects);
}

/* For a collector without a barrier: its write_barrier op is a plain store. */
static inline void fx_assert_plain_store_barrier(Gc *gc) {
    fx_new_node(gc, 0, 1);
    Obj *b = fx_new_node(gc, 1, 2);
    Obj *a = fx_roots[0]; /* b's allocation may have moved it */
    gc->ops->write_barrier(gc, a, fx_left(a), b);
    cr_assert_eq(*fx_left(a), b);
    gc->ops->write_barrier(gc, a, fx_left(a), NULL);
    cr_assert_null(*fx_left(a));
}

/* destroy ends a heap with objects in it without posting any event. */
static inline void fx_assert_destroy_posts_no_events(const char *collector, size_t heap_bytes) {
    fx_record_events();
    GcConfig config = fx_config(heap_bytes);
    Gc *gc = fx_create(collector, &config);
    fx_new_node(gc, 0, 1);
    int before = fx_num_events;
    gc->ops->destroy(gc);
    cr_assert_eq(fx_num_events, before);
}

#endif
