/*
 * gcstats_agent.c -- the gcstats agent: what a collector did in one run,
 * measured from the event stream alone, written as one JSON object, and
 * optionally the run's timeline as Chrome trace JSON (gcstats_chrome.h).
 *
 *     -agentlib:gcstats[=file=F][,chrome=C]
 *
 *   file=F     where the statistics go (default gcstats.json; "-" is
 *              standard output)
 *   chrome=C   also write the run as Chrome trace JSON to C, for Perfetto
 *              and chrome://tracing
 *
 * Every figure comes from the heap events and GC_START/GC_FINISH, the same
 * under every collector (docs/event-mapping.md), and from this agent's own
 * clock; docs/gcstats.md defines each one.  In short:
 *   - a pause is the wall time from GC_START to GC_FINISH as this agent
 *     sees them, so it includes what every agent does with the events in
 *     between (this one too); the run is
 *     the agent's VMPI_OnLoad to JVM_SHUT_DOWN (so it holds every collection,
 *     those of start-up too), and throughput is 1 - GC time / run;
 *   - objects and bytes freed count OBJECT_FREE and the objects an
 *     ARENA_DELETE took with it; a move is one OBJECT_MOVE; the sizes come
 *     from each object's OBJECT_ALLOC, followed through its moves (idmap.h);
 *   - peak used is the most bytes in use at once (allocated and not yet
 *     freed), peak capacity the largest total_object_space a GC_FINISH
 *     reported: VMPI tells the heap's capacity only there, and not per arena;
 *   - a collection's kind is what its events show it did ("free", "move",
 *     "renew" for arenas deleted and re-created, joined by '+'), since
 *     GC_FINISH does not name minor, major or cycle collections; the
 *     counts of collections that copied (moved into another arena), slid
 *     (moved within one), scavenged (renewed arenas and touched no object
 *     outside them: a semispace flip, a generational minor collection) and
 *     freed two or more objects that had survived an earlier collection,
 *     one of which could refer to the others (a structure dropped whole:
 *     refcount's cascades) are what docs/gcstats.md calls each collector's
 *     pattern.  Which objects can refer to others comes from CLASS_LOAD's
 *     instance fields and OBJECT_ALLOC's is_array.
 * Per class it also counts the objects' lifetimes (common/lifetimes.h, as
 * heapview does): each object's class, the collections finished and the
 * bytes allocated before it are kept in its map entry, and read when it
 * dies.
 * As a check on itself the agent compares its live count with every
 * GC_FINISH's used_objects and used_object_space ("gc_finish_disagreements",
 * which is 0 unless something is wrong).
 *
 * Locking as the other bundled agents (agent_common.h): GC_START takes the
 * lock and GC_FINISH gives it back.  Between them (thread-suspended mode)
 * nothing allocates: the object map only shrinks or re-keys during a
 * collection, and the pause list grows at GC_FINISH, which may allocate.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/agent_common.h"
#include "common/grow.h"
#include "common/idmap.h"
#include "common/lifetimes.h"
#include "gcstats_chrome.h"
#include "vmpi.h"

#define USAGE "file=F, chrome=F"
#define MAX_ARENAS 64                        /* arena IDs followed one by one */
#define COUNTER_SAMPLE_BYTES (64 * 1024)     /* allocation between two counter samples */
#define GCSTATS_FORMAT_VERSION 2 /* docs/gcstats.md, "The JSON": what changed */

typedef struct Arena {
    bool live;
    char name[32];
    uint64_t objects, bytes; /* in use */
} Arena;

typedef struct Totals {
    uint64_t collections, collections_freeing, collections_moving, collections_renewing;
    uint64_t collections_copying, collections_sliding, collections_scavenging, collections_freeing_survivors;
    uint64_t gc_time_ns, pause_max_ns;
    uint64_t objects_allocated, bytes_allocated;
    uint64_t objects_moved, bytes_moved;
    uint64_t objects_freed, bytes_freed;
    uint64_t arenas_created, arenas_deleted;
    uint64_t used_bytes, peak_used_bytes;
    int64_t peak_capacity_bytes;   /* -1 until a GC_FINISH */
    int64_t capacity_bytes;        /* the last GC_FINISH's */
    uint64_t untracked_objects;    /* allocations not followed, for want of memory */
    uint64_t gc_finish_disagreements;
} Totals;

/* What the collection in progress did so far.  The arena masks have bit
 * N for arena ID N (bit 63 for every ID from 63 up: never renewed). */
typedef struct Collection {
    uint64_t start_ns;
    Totals before;
    bool freed, moved, renewed, copied, slid; /* freed: an OBJECT_FREE */
    bool died_with_arena;    /* an ARENA_DELETE took objects with it */
    uint64_t touched_arenas; /* arenas an object was freed or moved out of */
    uint64_t deleted_arenas; /* arenas ARENA_DELETE emptied */
    uint64_t survivors_freed; /* freed objects born before an earlier collection ended */
    bool referrer_freed;      /* one of them could refer to other objects */
} Collection;

/* The least number of freed survivors that makes a collection one that
 * freed a structure (collections_freeing_survivors), one of them able to
 * refer to the others: one alone may be a single dropped object. */
#define STRUCTURE_SURVIVORS 2

/* The classes objects are counted by (lifetimes.h, "Classes"), in this
 * order: allocations whose class is none (class_id NULL) or was never
 * loaded; then each class CLASS_LOAD named, followed by the arrays of it
 * ("Node" and "Node[]"). */
#define CLASS_NAME_SIZE 64
enum { CLASS_NONE, CLASS_NOT_LOADED };
typedef struct ClassEntry {
    char name[CLASS_NAME_SIZE];
    ClassLife life;
} ClassEntry;

static VMPI_Interface *vmpi;
static AgentLock lock;
static bool closed; /* after JVM_SHUT_DOWN */
static char stats_path[4096], chrome_path[4096];
static TraceOutput stats_out;
static ChromeTrace chrome;
static bool chrome_on;

static IdMap objects;
/* Class ID -> its index in classes (tag; its arrays' is the next) and
 * whether its instances have reference fields (kind 1). */
static IdMap loaded_classes;
static ClassEntry *classes;
static size_t num_classes, classes_capacity;
static Arena arenas[MAX_ARENAS];
static Totals totals;
static Collection current;
static bool collecting;
static uint64_t *pauses; /* ns, one per collection */
static size_t pauses_capacity, num_pauses;
static uint64_t start_ns, allocated_since_sample; /* start_ns: VMPI_OnLoad's clock */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec - start_ns;
}

static Arena *arena_of(int32_t arena_id) {
    return arena_id >= 0 && arena_id < MAX_ARENAS ? &arenas[arena_id] : NULL;
}

static uint64_t arena_bit(int32_t arena_id) {
    return (uint64_t)1 << (arena_id >= 0 && arena_id < 63 ? arena_id : 63);
}

/* An object's tag: TAG_REFERS if it can hold references (a reference array,
 * or an instance of a class with reference fields), and below it the number
 * of collections finished before its allocation (saturating): it survived
 * one if another has finished since. */
#define TAG_REFERS 0x80000000u
#define TAG_BIRTH_MAX (TAG_REFERS - 1)

/* A new object's tag (above) and, in *class_index, the index in `classes`
 * of its class: one lookup of the class an OBJECT_ALLOC names. */
static uint32_t object_tag(const VMPI_Event *event, uint32_t *class_index) {
    int32_t kind = event->u.obj_alloc.is_array;
    uint64_t class_id = (uint64_t)(uintptr_t)event->u.obj_alloc.class_id;
    const IdEntry *loaded = class_id ? idmap_find(&loaded_classes, class_id) : NULL;
    if (loaded) *class_index = loaded->tag + (kind == VMPI_CLASS); /* its arrays: the entry after it */
    else *class_index = class_id ? CLASS_NOT_LOADED : CLASS_NONE;
    bool refers = kind == VMPI_CLASS || (kind == VMPI_NORMAL_OBJECT && loaded && loaded->kind);
    uint32_t birth = totals.collections < TAG_BIRTH_MAX ? (uint32_t)totals.collections : TAG_BIRTH_MAX;
    return birth | (refers ? TAG_REFERS : 0);
}

/* An object dies: its class's lifetimes count it, at the collections
 * finished and the bytes allocated since its allocation. */
static void life_ends(const IdEntry *object) {
    life_died(&classes[object->kind].life, totals.collections - (object->tag & TAG_BIRTH_MAX),
              totals.bytes_allocated - object->stamp);
}

static void count_if_survivor(const IdEntry *object) {
    if ((object->tag & TAG_BIRTH_MAX) >= totals.collections) return;
    current.survivors_freed++;
    if (object->tag & TAG_REFERS) current.referrer_freed = true;
}

/* A class to count objects by, NAME followed by SUFFIX; false if memory ran out. */
static bool add_class(const char *name, const char *suffix) {
    if (!agent_grow((void **)&classes, &classes_capacity, num_classes + 1, sizeof *classes, 64)) return false;
    classes[num_classes] = (ClassEntry){0};
    snprintf(classes[num_classes].name, sizeof classes[num_classes].name, "%s%s", name, suffix);
    num_classes++;
    return true;
}

/* Remembers the class, to count its objects' lifetimes, and whether its
 * instances have a reference field (an object or array signature). */
static void class_load(const VMPI_Event *event) {
    uint64_t class_id = (uint64_t)(uintptr_t)event->u.class_load.class_id;
    const char *name = event->u.class_load.class_name;
    if (!class_id || idmap_find(&loaded_classes, class_id) ||
        !idmap_reserve(&loaded_classes, loaded_classes.count + 1) || !add_class(name ? name : "?", "") ||
        !add_class(name ? name : "?", LIFE_ARRAY_SUFFIX))
        return;
    IdEntry *loaded = idmap_insert(&loaded_classes, class_id, 0, 0);
    loaded->tag = (uint32_t)(num_classes - 2);
    for (int32_t i = 0; i < event->u.class_load.num_instance_fields; i++) {
        const char *signature = event->u.class_load.instances[i].field_signature;
        if (signature && (signature[0] == 'L' || signature[0] == '[')) loaded->kind = 1;
    }
}

/* ---- the timeline's counters ------------------------------------------------------------ */

static void sample_arena(uint64_t ns, int32_t arena_id) {
    const Arena *arena = arena_of(arena_id);
    if (chrome_on && arena) chrome_arena_counter(&chrome, ns, arena_id, arena->name, arena->bytes, arena->objects);
}

static void sample_heap(uint64_t ns) {
    if (!chrome_on) return;
    for (int32_t id = 0; id < MAX_ARENAS; id++)
        if (arenas[id].live) sample_arena(ns, id);
    chrome_counter(&chrome, ns, "heap used", totals.used_bytes);
    allocated_since_sample = 0;
}

static void enter_phase(ChromePhase phase) {
    if (chrome_on) chrome_phase(&chrome, now_ns(), phase);
}

/* ---- heap events -------------------------------------------------------------------------- */

static void object_alloc(const VMPI_Event *event) {
    uint32_t size = (uint32_t)event->u.obj_alloc.size;
    int32_t arena_id = event->u.obj_alloc.arena_id;
    totals.objects_allocated++;
    totals.bytes_allocated += size;
    totals.used_bytes += size;
    if (totals.used_bytes > totals.peak_used_bytes) totals.peak_used_bytes = totals.used_bytes;
    bool room = collecting ? idmap_has_room(&objects) : idmap_reserve(&objects, objects.count + 1);
    if (!room) {
        totals.untracked_objects++;
        return;
    }
    IdEntry *object = idmap_insert(&objects, (uint64_t)(uintptr_t)event->u.obj_alloc.obj_id, arena_id, size);
    object->tag = object_tag(event, &object->kind);
    object->stamp = totals.bytes_allocated - size; /* allocated before it */
    life_born(&classes[object->kind].life, size);
    Arena *arena = arena_of(arena_id);
    if (arena) arena->objects++, arena->bytes += size;
    if ((allocated_since_sample += size) >= COUNTER_SAMPLE_BYTES && chrome_on) {
        uint64_t ns = now_ns();
        sample_arena(ns, arena_id);
        chrome_counter(&chrome, ns, "heap used", totals.used_bytes);
        allocated_since_sample = 0;
    }
}

/* The object leaves its arena's counts (it dies or moves). */
static void leave_arena(const IdEntry *object) {
    Arena *arena = arena_of(object->arena_id);
    if (arena) arena->objects--, arena->bytes -= object->size;
}

static void object_free(const VMPI_Event *event) {
    enter_phase(CHROME_PHASE_FREE);
    current.freed = true;
    totals.objects_freed++;
    IdEntry *object = idmap_find(&objects, (uint64_t)(uintptr_t)event->u.obj_free.obj_id);
    if (!object) return; /* an allocation that was not followed */
    current.touched_arenas |= arena_bit(object->arena_id);
    count_if_survivor(object);
    life_ends(object);
    totals.bytes_freed += object->size;
    totals.used_bytes -= object->size;
    leave_arena(object);
    idmap_remove(&objects, object);
}

static void object_move(const VMPI_Event *event) {
    enter_phase(CHROME_PHASE_MOVE);
    current.moved = true;
    totals.objects_moved++;
    IdEntry *object = idmap_find(&objects, (uint64_t)(uintptr_t)event->u.obj_move.obj_id);
    if (!object) return;
    IdEntry moved = *object;
    int32_t to = event->u.obj_move.new_arena_id;
    current.touched_arenas |= arena_bit(object->arena_id);
    if (to == object->arena_id) current.slid = true;
    else current.copied = true;
    totals.bytes_moved += moved.size;
    leave_arena(object);
    idmap_remove(&objects, object); /* first: a move may keep its address */
    /* room: one just left */
    IdEntry *copy = idmap_insert(&objects, (uint64_t)(uintptr_t)event->u.obj_move.new_obj_id, to, moved.size);
    copy->tag = moved.tag;
    copy->kind = moved.kind;
    copy->stamp = moved.stamp;
    Arena *arena = arena_of(to);
    if (arena) arena->objects++, arena->bytes += moved.size;
}

static void arena_new(const VMPI_Event *event) {
    if (collecting) {
        enter_phase(CHROME_PHASE_RENEW);
        current.renewed = true;
    }
    totals.arenas_created++;
    Arena *arena = arena_of(event->u.new_arena.arena_id);
    if (!arena) return;
    *arena = (Arena){.live = true};
    const char *name = event->u.new_arena.arena_name;
    snprintf(arena->name, sizeof arena->name, "%s", name ? name : "");
    if (chrome_on) sample_arena(now_ns(), event->u.new_arena.arena_id);
}

static void died_with_arena(const IdEntry *object, void *context) {
    (void)context;
    count_if_survivor(object);
    life_ends(object);
}

/* Every object still in the arena dies with it (docs/event-mapping.md). */
static void arena_delete(const VMPI_Event *event) {
    int32_t arena_id = event->u.delete_arena.arena_id;
    enter_phase(CHROME_PHASE_RENEW);
    current.renewed = true;
    current.deleted_arenas |= arena_bit(arena_id);
    totals.arenas_deleted++;
    uint64_t bytes = 0;
    uint64_t died = idmap_remove_arena(&objects, arena_id, &bytes, died_with_arena, NULL);
    if (died) current.died_with_arena = true;
    totals.objects_freed += died;
    totals.bytes_freed += bytes;
    totals.used_bytes -= bytes;
    Arena *arena = arena_of(arena_id);
    if (!arena) return;
    arena->objects = arena->bytes = 0;
    if (chrome_on) sample_arena(now_ns(), arena_id);
    arena->live = false;
}

/* ---- collections -------------------------------------------------------------------------- */

static void gc_start(void) {
    current = (Collection){.before = totals};
    collecting = true;
    if (chrome_on) {
        uint64_t ns = now_ns();
        sample_heap(ns);
        chrome_collection_begin(&chrome, ns);
    }
    current.start_ns = now_ns(); /* last: the pause is the VM's, not the timeline's writing */
}

/* What the collection did, from its events: "free", "move+renew", ... */
static const char *collection_kind(const Collection *c) {
    static const char *const kinds[] = {"none",  "free",       "move",       "free+move",
                                        "renew", "free+renew", "move+renew", "free+move+renew"};
    return kinds[c->freed | c->moved << 1 | c->renewed << 2];
}

static void gc_finish(const VMPI_Event *event) {
    uint64_t end_ns = now_ns(), pause = end_ns - current.start_ns;
    collecting = false;
    totals.collections++;
    /* Freed objects, one by one or with their arena: as objects_freed counts. */
    totals.collections_freeing += current.freed || current.died_with_arena;
    totals.collections_moving += current.moved;
    totals.collections_renewing += current.renewed;
    totals.collections_copying += current.copied;
    totals.collections_sliding += current.slid;
    /* Arena 63's bit also stands for every higher ID, which is never known renewed. */
    uint64_t renewed = current.deleted_arenas & ~arena_bit(63);
    totals.collections_scavenging += current.renewed && !(current.touched_arenas & ~renewed);
    totals.collections_freeing_survivors += current.survivors_freed >= STRUCTURE_SURVIVORS && current.referrer_freed;
    totals.gc_time_ns += pause;
    if (pause > totals.pause_max_ns) totals.pause_max_ns = pause;
    /* GC_FINISH may allocate (it is not thread-suspended mode). */
    if (agent_grow((void **)&pauses, &pauses_capacity, num_pauses + 1, sizeof *pauses, 256))
        pauses[num_pauses++] = pause;
    int64_t capacity = event->u.gc_info.total_object_space;
    totals.capacity_bytes = capacity;
    if (capacity > totals.peak_capacity_bytes) totals.peak_capacity_bytes = capacity;
    if (!totals.untracked_objects && ((int64_t)objects.count != event->u.gc_info.used_objects ||
                                      (int64_t)totals.used_bytes != event->u.gc_info.used_object_space))
        totals.gc_finish_disagreements++;
    if (!chrome_on) return;
    ChromeCollection summary = {
        .kind = collection_kind(&current),
        .pause_ns = pause,
        .objects_moved = totals.objects_moved - current.before.objects_moved,
        .bytes_moved = totals.bytes_moved - current.before.bytes_moved,
        .objects_freed = totals.objects_freed - current.before.objects_freed,
        .bytes_freed = totals.bytes_freed - current.before.bytes_freed,
        .used_bytes = event->u.gc_info.used_object_space,
        .capacity_bytes = capacity,
    };
    chrome_collection_end(&chrome, end_ns, &summary);
    sample_heap(end_ns);
    chrome_counter(&chrome, end_ns, "heap capacity", (uint64_t)capacity);
}

/* ---- the report ----------------------------------------------------------------------------- */

static int by_value(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The nearest-rank percentile `p` (0-100) of the sorted pauses; 0 if none. */
static uint64_t percentile(unsigned p) {
    if (!num_pauses) return 0;
    size_t rank = (num_pauses * p + 99) / 100; /* ceil(n p / 100), at least 1 for p > 0 */
    return pauses[rank ? rank - 1 : 0];
}

static void stat_line(const char *name, uint64_t value) {
    trace_output_text(&stats_out, ",\n  \"");
    trace_output_text(&stats_out, name);
    trace_output_text(&stats_out, "\": ");
    trace_output_uint(&stats_out, value);
}

/* The pause percentiles, or null for a run that ends inside a collection:
 * qsort may allocate, which thread-suspended mode forbids. */
static void percentile_lines(void) {
    if (collecting) {
        trace_output_text(&stats_out, ",\n  \"pause_p50_ns\": null,\n  \"pause_p95_ns\": null");
        return;
    }
    if (num_pauses) qsort(pauses, num_pauses, sizeof *pauses, by_value); /* none: pauses is NULL */
    stat_line("pause_p50_ns", percentile(50));
    stat_line("pause_p95_ns", percentile(95));
}

static void uint_array(const uint64_t *values, size_t count) {
    for (size_t i = 0; i < count; i++) {
        trace_output_text(&stats_out, i ? ", " : "[");
        trace_output_uint(&stats_out, values[i]);
    }
    trace_output_text(&stats_out, "]");
}

/* Per class that had objects, in the order of `classes`: docs/gcstats.md,
 * "The JSON". */
static void lifetime_lines(void) {
    TraceOutput *out = &stats_out;
    trace_output_text(out, ",\n  \"lifetimes\": [");
    bool first = true;
    for (size_t c = 0; c < num_classes; c++) {
        const ClassLife *life = &classes[c].life;
        if (!life->allocated_objects) continue;
        trace_output_text(out, first ? "\n    {\"class\": " : ",\n    {\"class\": ");
        first = false;
        trace_output_string(out, classes[c].name);
        trace_output_text(out, ", \"allocated\": ");
        trace_output_uint(out, life->allocated_objects);
        trace_output_text(out, ", \"allocated_bytes\": ");
        trace_output_uint(out, life->allocated_bytes);
        trace_output_text(out, ", \"died_at\": ");
        uint_array(life->died_at, LIFE_AGES);
        trace_output_text(out, ", \"span\": ");
        uint_array(life->span, LIFE_SPANS);
        trace_output_text(out, ", \"bytes_lived\": ");
        trace_output_uint(out, life->bytes_lived);
        trace_output_text(out, ", \"live_at_exit\": ");
        trace_output_uint(out, life->allocated_objects - life_deaths(life));
        trace_output_text(out, "}");
    }
    trace_output_text(out, first ? "]" : "\n  ]");
}

static void write_report(uint64_t run_ns) {
    TraceOutput *out = &stats_out;
    trace_output_text(out, "{\n  \"format\": \"gclab-gcstats\",\n  \"version\": ");
    trace_output_uint(out, GCSTATS_FORMAT_VERSION);
    trace_output_text(out, ",\n  \"collector\": ");
    trace_output_string(out, vmpi->GetCollectorName());
    stat_line("collections", totals.collections);
    stat_line("collections_freeing", totals.collections_freeing);
    stat_line("collections_moving", totals.collections_moving);
    stat_line("collections_renewing_arenas", totals.collections_renewing);
    stat_line("collections_copying", totals.collections_copying);
    stat_line("collections_sliding", totals.collections_sliding);
    stat_line("collections_scavenging", totals.collections_scavenging);
    stat_line("collections_freeing_survivors", totals.collections_freeing_survivors);
    percentile_lines();
    stat_line("pause_max_ns", totals.pause_max_ns);
    stat_line("gc_time_ns", totals.gc_time_ns);
    stat_line("run_time_ns", run_ns);
    char throughput[64];
    snprintf(throughput, sizeof throughput, ",\n  \"throughput\": %.6f",
             run_ns ? 1.0 - (double)totals.gc_time_ns / (double)run_ns : 1.0);
    trace_output_text(out, throughput);
    stat_line("objects_allocated", totals.objects_allocated);
    stat_line("bytes_allocated", totals.bytes_allocated);
    stat_line("objects_moved", totals.objects_moved);
    stat_line("bytes_moved", totals.bytes_moved);
    stat_line("objects_freed", totals.objects_freed);
    stat_line("bytes_freed", totals.bytes_freed);
    stat_line("arenas_created", totals.arenas_created);
    stat_line("arenas_deleted", totals.arenas_deleted);
    stat_line("peak_used_bytes", totals.peak_used_bytes);
    if (totals.peak_capacity_bytes >= 0)
        stat_line("peak_capacity_bytes", (uint64_t)totals.peak_capacity_bytes);
    else
        trace_output_text(out, ",\n  \"peak_capacity_bytes\": null");
    stat_line("live_objects_at_exit", totals.objects_allocated - totals.objects_freed);
    stat_line("live_bytes_at_exit", totals.used_bytes);
    stat_line("untracked_objects", totals.untracked_objects);
    stat_line("gc_finish_disagreements", totals.gc_finish_disagreements);
    lifetime_lines();
    trace_output_text(out, "\n}\n");
}

/* Possibly still in thread-suspended mode (a run that ends inside a
 * collection): agent_say, not stdio. */
static void shut_down(void) {
    uint64_t end_ns = now_ns();
    closed = true;
    write_report(end_ns); /* times count from VMPI_OnLoad */
    int error = trace_output_close(&stats_out);
    if (error) agent_say("gcstats: cannot write %s: %s\n", stats_path, strerror(error));
    if (chrome_on && (error = chrome_close(&chrome, end_ns)))
        agent_say("gcstats: cannot write %s: %s\n", chrome_path, strerror(error));
}

static void handle_event(int32_t code, const VMPI_Event *event) {
    switch (code) {
    case VMPI_EVENT_OBJECT_ALLOC: object_alloc(event); break;
    case VMPI_EVENT_OBJECT_FREE: object_free(event); break;
    case VMPI_EVENT_OBJECT_MOVE: object_move(event); break;
    case VMPI_EVENT_ARENA_NEW: arena_new(event); break;
    case VMPI_EVENT_ARENA_DELETE: arena_delete(event); break;
    case VMPI_EVENT_GC_START: gc_start(); break;
    case VMPI_EVENT_GC_FINISH: gc_finish(event); break;
    case VMPI_EVENT_CLASS_LOAD: class_load(event); break;
    case VMPI_EVENT_JVM_SHUT_DOWN: shut_down(); break;
    }
}

static void notify_event(VMPI_Event *event) {
    int32_t code = event->event_type & ~VMPI_REQUESTED_EVENT;
    bool entered = agent_lock_before(vmpi, &lock, code);
    if (chrome_on && !chrome.begun) chrome_begin(&chrome, vmpi->GetCollectorName());
    if (!closed) handle_event(code, event);
    agent_lock_after(vmpi, &lock, code, entered);
}

/* ---- start-up ----------------------------------------------------------------------------- */

static bool path_option(const char *item, const char *value, char *path, size_t size) {
    if ((size_t)snprintf(path, size, "%s", value) < size) return true;
    fprintf(stderr, "gcstats: %s=: file name too long\n", item);
    return false;
}

/* Parses "file=F,chrome=C"; on error prints one line and returns false. */
static bool parse_options(char *options) {
    snprintf(stats_path, sizeof stats_path, "gcstats.json");
    chrome_path[0] = '\0';
    char *item, *value;
    while (agent_next_option(&options, &item, &value)) {
        if (strcmp(item, "file") == 0 && value && *value) {
            if (!path_option(item, value, stats_path, sizeof stats_path)) return false;
        } else if (strcmp(item, "chrome") == 0 && value && *value) {
            if (!path_option(item, value, chrome_path, sizeof chrome_path)) return false;
        } else {
            agent_bad_option("gcstats", item, value, USAGE);
            return false;
        }
    }
    return true;
}

VMPI_EXPORT int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)reserved;
    if (!agent_get_env(vm, "gcstats", &vmpi) || !parse_options(options)) return VMPI_ERR;
    if (!idmap_init(&objects, 1024) || !idmap_init(&loaded_classes, 64) ||
        !add_class(LIFE_NO_CLASS, "") || !add_class(LIFE_CLASS_NOT_LOADED, "")) {
        fprintf(stderr, "gcstats: out of memory\n");
        return VMPI_ERR;
    }
    if (!agent_open_output(vmpi, "gcstats", stats_path, &stats_out, &lock)) return VMPI_ERR;
    start_ns = now_ns();
    totals.peak_capacity_bytes = -1;
    if (chrome_path[0]) {
        if (!chrome_open(&chrome, chrome_path)) {
            fprintf(stderr, "gcstats: cannot open %s: %s\n", chrome_path, strerror(errno));
            trace_output_abandon(&stats_out);
            return VMPI_ERR;
        }
        chrome_on = true;
    }
    vmpi->NotifyEvent = notify_event;
    static const int32_t wanted[] = {
        VMPI_EVENT_ARENA_NEW,   VMPI_EVENT_ARENA_DELETE, VMPI_EVENT_OBJECT_ALLOC,   VMPI_EVENT_OBJECT_FREE,
        VMPI_EVENT_OBJECT_MOVE, VMPI_EVENT_GC_START,     VMPI_EVENT_GC_FINISH,
        VMPI_EVENT_CLASS_LOAD,  VMPI_EVENT_JVM_SHUT_DOWN,
    };
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) vmpi->EnableEvent(wanted[i], NULL);
    return VMPI_OK;
}
