/*
 * heap_model.c -- builds a HeapModel (heap_model.h) from a trace in two
 * passes.
 *
 * The tiles cut each arena's address range into equal parts, and that range
 * is known only once every object has been seen.  So the first pass reads the
 * JSON (trace_read.c), follows the live set to learn each arena's range and
 * each collection's live count (for the object budget), and writes every heap
 * event as a fixed-size record to a temporary file; the second pass replays
 * those records and builds the boundaries, phases, tile moves and object
 * detail.  The trace's JSON is parsed only once.
 */
#include "heap_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "dump_read.h"
#include "live_map.h"
#include "trace_read.h"
#include "vmpi.h"

/* A heap event as the first pass writes it for the second. */
typedef struct {
    uint8_t kind;             /* HeapEventKind */
    uint8_t arena, new_arena; /* arena indexes */
    uint16_t class_index;
    uint32_t size;
    uint64_t id, new_id;      /* GC_FINISH: used_objects, used_object_space */
    int64_t total_object_space;
} Record;

/* Room for one more item in a growing array (the agents' doubling). */
#define grow_array(array, count, capacity) \
    agent_grow((void **)&(array), &(capacity), (count) + 1, sizeof *(array), 64)

static bool say(char *err, size_t err_size, const char *why) {
    snprintf(err, err_size, "%s", why);
    return false;
}

/* ---- the first pass: the JSON to records --------------------------------------- */

typedef struct {
    HeapModel *model;
    LiveMap live;
    LiveMap class_ids;       /* class ID -> its index, in class_index */
    LiveMap array_class_ids; /* class ID -> the index of the arrays of it (NAME[]) */
    size_t classes_capacity;
    uint64_t *live_at_start; /* objects live at each GC_START */
    size_t num_gcs, gcs_capacity;
    uint64_t clock, first_gc_clock; /* bytes allocated so far, and before the first GC_START */
    size_t names_capacity;
    bool in_gc;
    FILE *records;
} FirstPass;

static int arena_index(const HeapModel *model, uint32_t id) {
    for (size_t a = 0; a < model->num_arenas; a++)
        if (model->arenas[a].id == id) return (int)a;
    return -1;
}

/* A class, found by its ID in `ids` from now on. */
static bool add_class(FirstPass *pass, LiveMap *ids, uint64_t class_id, const char *name, uint16_t *index) {
    HeapModel *model = pass->model;
    if (model->num_classes == UINT16_MAX) return false;
    if (!grow_array(model->class_names, model->num_classes, pass->classes_capacity)) return false;
    snprintf(model->class_names[model->num_classes], MODEL_NAME_SIZE, "%s", name);
    *index = (uint16_t)model->num_classes++;
    LiveObject entry = {.id = class_id, .class_index = *index};
    return !class_id || live_map_put(ids, &entry);
}

/* The class an OBJECT_ALLOC's object counts under (common/lifetimes.h,
 * "Classes"): an array of objects apart from its element class's instances,
 * under the array class CLASS_LOAD named so (Node[]) if there is one. */
static bool class_of(FirstPass *pass, uint64_t class_id, bool object_array, uint16_t *index) {
    LiveMap *ids = object_array ? &pass->array_class_ids : &pass->class_ids;
    LiveObject *known = live_map_get(ids, class_id);
    if (known) {
        *index = known->class_index;
        return true;
    }
    LiveObject *element = object_array && class_id ? live_map_get(&pass->class_ids, class_id) : NULL;
    char name[MODEL_NAME_SIZE];
    if (element)
        snprintf(name, sizeof name, "%.*s%s", (int)(sizeof name - sizeof LIFE_ARRAY_SUFFIX),
                 pass->model->class_names[element->class_index], LIFE_ARRAY_SUFFIX);
    else
        snprintf(name, sizeof name, "%s", class_id ? LIFE_CLASS_NOT_LOADED : LIFE_NO_CLASS);
    for (size_t c = 0; element && c < pass->model->num_classes; c++)
        if (strcmp(pass->model->class_names[c], name) == 0) {
            LiveObject entry = {.id = class_id, .class_index = (uint16_t)c};
            *index = (uint16_t)c;
            return live_map_put(ids, &entry);
        }
    return add_class(pass, ids, class_id, name, index);
}

/* The index of a phase name or free cause, added if new (at most 256). */
static bool mechanism_name(FirstPass *pass, const char *name, uint16_t *index) {
    HeapModel *model = pass->model;
    size_t i = 0;
    while (i < model->num_mechanism_names && strcmp(model->mechanism_names[i], name) != 0) i++;
    if (i == model->num_mechanism_names) {
        if (i == 256 || !grow_array(model->mechanism_names, model->num_mechanism_names, pass->names_capacity)) return false;
        snprintf(model->mechanism_names[model->num_mechanism_names++], MODEL_NAME_SIZE, "%s", name);
    }
    *index = (uint16_t)i;
    return true;
}

static void widen(ModelArena *arena, uint64_t address, uint32_t size) {
    if (!arena->hi) {
        arena->lo = address;
        arena->hi = address + size;
    }
    if (address < arena->lo) arena->lo = address;
    if (address + size > arena->hi) arena->hi = address + size;
}

/* Removes every live object of arena `a` from `live`, calling `each` on it. */
static bool empty_arena(LiveMap *live, int a, void (*each)(void *, const LiveObject *), void *context) {
    size_t count = 0, capacity = 0;
    uint64_t *ids = NULL;
    LIVE_MAP_FOR_EACH(live, object) {
        if (object->arena_index != a) continue;
        if (!grow_array(ids, count, capacity)) {
            free(ids);
            return false;
        }
        ids[count++] = object->id;
    }
    for (size_t i = 0; i < count; i++) {
        LiveObject removed;
        live_map_take(live, ids[i], &removed);
        if (each) each(context, &removed);
    }
    free(ids);
    return true;
}

static bool first_pass_event(void *context, const HeapEvent *event, char *err, size_t err_size) {
    FirstPass *pass = context;
    HeapModel *model = pass->model;
    Record record = {.kind = (uint8_t)event->kind};
    int a = -1, to = -1;
    if (event->kind == HEAP_OBJECT_ALLOC || event->kind == HEAP_OBJECT_MOVE || event->kind == HEAP_ARENA_DELETE) {
        a = arena_index(model, event->arena_id);
        if (a < 0) return say(err, err_size, "names an arena no ARENA_NEW created");
    }
    if ((event->kind == HEAP_OBJECT_FREE || event->kind == HEAP_OBJECT_MOVE || event->kind == HEAP_ARENA_DELETE) &&
        !pass->in_gc)
        return say(err, err_size, "a free, move or arena delete outside GC_START..GC_FINISH");
    switch (event->kind) {
    case HEAP_ARENA_NEW:
        a = arena_index(model, event->arena_id);
        if (a < 0) {
            if (model->num_arenas == MODEL_MAX_ARENAS) return say(err, err_size, "more arenas than heapview draws (16)");
            a = (int)model->num_arenas++;
            model->arenas[a].id = event->arena_id;
            snprintf(model->arenas[a].name, MODEL_NAME_SIZE, "%s", event->name ? event->name : "");
        }
        model->totals.arena_news++;
        break;
    case HEAP_ARENA_DELETE:
        if (!empty_arena(&pass->live, a, NULL, NULL)) return say(err, err_size, "out of memory");
        break;
    case HEAP_CLASS_LOAD:
        if (!live_map_get(&pass->class_ids, event->class_id) &&
            !add_class(pass, &pass->class_ids, event->class_id, event->name ? event->name : "?", &record.class_index))
            return say(err, err_size, "out of memory, or more than 65535 classes");
        return true;
    case HEAP_OBJECT_ALLOC: {
        if (!event->obj_id) return say(err, err_size, "OBJECT_ALLOC with a null obj_id");
        if (live_map_get(&pass->live, event->obj_id)) return say(err, err_size, "OBJECT_ALLOC of an ID already live");
        if (!class_of(pass, event->class_id, event->is_array == VMPI_CLASS, &record.class_index))
            return say(err, err_size, "out of memory");
        LiveObject object = {event->obj_id, event->size, record.class_index, (uint8_t)a, LIVE_NO_DETAIL, 0, 0};
        if (!live_map_put(&pass->live, &object)) return say(err, err_size, "out of memory");
        widen(&model->arenas[a], event->obj_id, event->size);
        pass->clock += event->size;
        break;
    }
    case HEAP_OBJECT_FREE: {
        LiveObject freed;
        if (!live_map_take(&pass->live, event->obj_id, &freed)) return say(err, err_size, "OBJECT_FREE of an ID not live");
        break;
    }
    case HEAP_OBJECT_MOVE: {
        to = arena_index(model, event->new_arena_id);
        if (to < 0) return say(err, err_size, "names an arena no ARENA_NEW created");
        LiveObject moved;
        if (!live_map_take(&pass->live, event->obj_id, &moved)) return say(err, err_size, "OBJECT_MOVE of an ID not live");
        if (!event->new_obj_id || live_map_get(&pass->live, event->new_obj_id))
            return say(err, err_size, "OBJECT_MOVE onto an ID already live");
        moved.id = event->new_obj_id;
        moved.arena_index = (uint8_t)to;
        if (!live_map_put(&pass->live, &moved)) return say(err, err_size, "out of memory");
        widen(&model->arenas[to], event->new_obj_id, moved.size);
        break;
    }
    case HEAP_GC_START:
        if (pass->in_gc) return say(err, err_size, "GC_START inside a collection");
        pass->in_gc = true;
        if (!pass->num_gcs) pass->first_gc_clock = pass->clock;
        if (!grow_array(pass->live_at_start, pass->num_gcs, pass->gcs_capacity)) return say(err, err_size, "out of memory");
        pass->live_at_start[pass->num_gcs++] = pass->live.count;
        break;
    case HEAP_GC_FINISH:
        if (!pass->in_gc) return say(err, err_size, "GC_FINISH with no GC_START");
        pass->in_gc = false;
        record.id = (uint64_t)event->used_objects;
        record.new_id = (uint64_t)event->used_object_space;
        record.total_object_space = event->total_object_space;
        /* A one-arena heap spans its whole capacity, used or not. */
        if (model->num_arenas == 1 && model->arenas[0].hi &&
            model->arenas[0].lo + (uint64_t)event->total_object_space > model->arenas[0].hi)
            model->arenas[0].hi = model->arenas[0].lo + (uint64_t)event->total_object_space;
        break;
    case HEAP_SHUT_DOWN:
        break;
    case HEAP_GC_PHASE_START:
    case HEAP_OBJECT_FREE_CAUSE:
        if (!pass->in_gc) return true; /* only a collection's own are drawn */
        if (!mechanism_name(pass, event->name, &record.class_index)) return say(err, err_size, "out of memory");
        break;
    case HEAP_OBJECT_GREYED:
    case HEAP_OBJECT_BLACKENED:
        if (!pass->in_gc) return true;
        break;
    }
    record.arena = (uint8_t)(a < 0 ? 0 : a);
    record.new_arena = (uint8_t)(to < 0 ? 0 : to);
    record.size = event->size;
    if (event->kind != HEAP_GC_FINISH) {
        record.id = event->obj_id;
        record.new_id = event->new_obj_id;
    }
    if (fwrite(&record, sizeof record, 1, pass->records) != 1)
        return say(err, err_size, "cannot write heapview's temporary file");
    return true;
}

/* ---- which collections get object detail --------------------------------------- */

/* Every stride-th collection in full, the smallest stride whose collections'
 * live objects fit the budget, if that still details DETAIL_SPREAD of them
 * (or all, when there are fewer).  Otherwise -- a big heap -- DETAIL_SPREAD
 * collections spread evenly over the run, each with the objects in the same
 * leading share of every arena's addresses, as big as its part of the budget
 * allows: zoomed in there, the page draws single objects. */
#define DETAIL_SPREAD 32

static void choose_detail(HeapModel *model, const uint64_t *live_at_start, size_t budget) {
    size_t wanted = model->num_gcs < DETAIL_SPREAD ? model->num_gcs : DETAIL_SPREAD;
    if (!wanted || !budget) return;
    for (size_t stride = 1; stride <= model->num_gcs && model->num_gcs / stride + 1 >= wanted; stride *= 2) {
        uint64_t total = 0;
        size_t chosen = 0;
        for (size_t k = 0; k < model->num_gcs; k += stride, chosen++) total += live_at_start[k];
        if (total <= budget && chosen >= wanted) {
            for (size_t k = 0; k < model->num_gcs; k += stride) {
                model->gcs[k].has_detail = true;
                model->gcs[k].detail_window = 1.0;
            }
            return;
        }
    }
    double share = (double)budget / (double)wanted;
    for (size_t i = 0; i < wanted; i++) {
        ModelGc *gc = &model->gcs[i * model->num_gcs / wanted];
        size_t k = (size_t)(gc - model->gcs);
        gc->has_detail = true;
        gc->detail_window = live_at_start[k] <= share ? 1.0 : share / (double)live_at_start[k];
    }
}

/* ---- the second pass: records to the model ------------------------------------ */

typedef struct {
    HeapModel *model;
    const ModelOptions *options;
    LiveMap live;
    ModelGc *gc;              /* the collection under way, or NULL */
    uint64_t clock;
    Count allocated[MODEL_MAX_ARENAS]; /* since the last boundary */
    uint64_t *tile_bytes;     /* per tile of every arena: scratch for a snapshot */
    uint64_t *tile_emptied;   /* bytes emptied in this collection */
    uint64_t *class_bytes;    /* per tile and class: scratch for a snapshot */
    size_t class_slots;       /* classes counted per tile (at most 256) */
    size_t states_capacity;
    size_t detail_capacity;
    size_t phases_capacity, moves_capacity;
    bool moved_any;
    size_t deleting;          /* the phase of the ARENA_DELETE under way */
    uint64_t first_gc_clock;  /* the early snapshots' clocks lead up to it */
    size_t early_capacity;
    DumpReader *dumps;        /* or NULL */
    /* interval scratch for fragmentation */
    uint64_t (*intervals)[2];
    size_t intervals_capacity;
} SecondPass;

static size_t tile_of(const HeapModel *model, int a, uint64_t address) {
    const ModelArena *arena = &model->arenas[a];
    size_t tile = (size_t)((address - arena->lo) / arena->tile_bytes);
    return tile < model->tiles ? tile : model->tiles - 1;
}

/* Adds `size` bytes at `address` in arena a to per-tile counters, split over
 * the tiles the range covers. */
static void spread(const HeapModel *model, int a, uint64_t address, uint64_t size, uint64_t *per_tile,
                   uint64_t *per_class, size_t class_slots, uint16_t class_index) {
    const ModelArena *arena = &model->arenas[a];
    uint64_t end = address + size;
    while (address < end) {
        size_t tile = tile_of(model, a, address);
        uint64_t tile_end = arena->lo + (tile + 1) * arena->tile_bytes;
        uint64_t part = (tile == model->tiles - 1 || end < tile_end ? end : tile_end) - address;
        size_t slot = (size_t)a * model->tiles + tile;
        per_tile[slot] += part;
        if (per_class) per_class[slot * class_slots + (class_index < class_slots ? class_index : class_slots - 1)] += part;
        address += part;
    }
}

static uint8_t share(uint64_t bytes, uint64_t whole) {
    if (!bytes) return 0;
    uint64_t scaled = (bytes * 255 + whole - 1) / whole; /* any bytes at all show */
    return (uint8_t)(scaled > 255 ? 255 : scaled);
}

/* Appends the tiles of the live set to *states (a boundary's, or an early
 * one's). */
static bool snapshot_into(SecondPass *pass, bool with_emptied, uint8_t **states, size_t *states_size,
                          size_t *capacity) {
    HeapModel *model = pass->model;
    size_t total_tiles = model->num_arenas * model->tiles;
    size_t need = *states_size + total_tiles * 3;
    if (!agent_grow((void **)states, capacity, need, 1, total_tiles * 3 * 16)) return false;
    memset(pass->tile_bytes, 0, total_tiles * sizeof *pass->tile_bytes);
    memset(pass->class_bytes, 0, total_tiles * pass->class_slots * sizeof *pass->class_bytes);
    LIVE_MAP_FOR_EACH(&pass->live, object)
        spread(model, object->arena_index, object->id, object->size, pass->tile_bytes, pass->class_bytes,
               pass->class_slots, object->class_index);
    uint8_t *out = *states + *states_size;
    for (size_t slot = 0; slot < total_tiles; slot++) {
        uint64_t whole = model->arenas[slot / model->tiles].tile_bytes;
        const uint64_t *classes = pass->class_bytes + slot * pass->class_slots;
        size_t top = 0;
        for (size_t c = 1; c < pass->class_slots; c++)
            if (classes[c] > classes[top]) top = c;
        out[slot * 3] = share(pass->tile_bytes[slot], whole);
        out[slot * 3 + 1] = with_emptied ? share(pass->tile_emptied[slot], whole) : 0;
        out[slot * 3 + 2] = (uint8_t)top;
    }
    *states_size = need;
    return true;
}

static bool snapshot(SecondPass *pass, bool with_emptied) {
    return snapshot_into(pass, with_emptied, &pass->model->states, &pass->model->states_size, &pass->states_capacity);
}

/* Before the first collection, the heap at even steps of the clock. */
static bool early_snapshot(SecondPass *pass) {
    HeapModel *model = pass->model;
    if (model->totals.collections || model->num_early == EARLY_SNAPSHOTS ||
        pass->clock * EARLY_SNAPSHOTS < (model->num_early + 1) * pass->first_gc_clock)
        return true;
    model->early[model->num_early++].clock = model->totals.allocated;
    return snapshot_into(pass, false, &model->early_states, &model->early_states_size, &pass->early_capacity);
}

/* ---- lifetimes ------------------------------------------------------------------------ */

const char *const root_kind_names[NUM_ROOT_KINDS] = {"frame", "native", "global", "thread", "monitor", "static", "unknown"};

/* The collections counted so far include the one freeing it. */
static void life_ends(SecondPass *pass, const LiveObject *object) {
    life_died(&pass->model->lives[object->class_index], pass->model->totals.collections - object->born_gc - 1,
              pass->clock - object->born_clock);
}

/* ---- scenes: what the step-through view plays ----------------------------------------- */

static bool has_scene(const ModelGc *gc) {
    return gc->has_detail && gc->detail_window >= 1.0 && gc->detail_count <= SCENE_MAX_OBJECTS;
}

/* One entry of the collection's scene, in the events' order. */
static bool scene_entry(SecondPass *pass, SceneEntryKind kind, uint32_t value) {
    ModelScene *scene = &pass->gc->scene;
    if (!grow_array(scene->order, scene->num_order, scene->order_capacity)) return false;
    scene->order[scene->num_order++] = (uint32_t)kind << SCENE_KIND_SHIFT | value;
    return true;
}

/* An object's step (moved, freed, greyed, blackened) in its collection's scene. */
static bool scene_step(SecondPass *pass, const LiveObject *object, SceneEntryKind kind) {
    ModelGc *gc = pass->gc;
    if (!gc || !has_scene(gc) || !object || object->detail == LIVE_NO_DETAIL) return true;
    return scene_entry(pass, kind, (uint32_t)(object->detail - gc->detail_first));
}

typedef struct {
    SecondPass *pass;
    ModelGc *gc;
} SceneBuild;

/* A survivor's record in the scene, by its address after the collection. */
static bool scene_index(SceneBuild *build, uint64_t id, uint32_t *index) {
    LiveObject *object = live_map_get(&build->pass->live, id);
    if (!object || object->detail == LIVE_NO_DETAIL) return false;
    *index = (uint32_t)(object->detail - build->gc->detail_first);
    return true;
}

static bool scene_root(void *context, const char *kind, uint64_t id) {
    SceneBuild *build = context;
    ModelScene *scene = &build->gc->scene;
    uint32_t index, k = 0;
    if (!scene_index(build, id, &index)) return true; /* not an object of this heap: ignored */
    while (k < NUM_ROOT_KINDS - 1 && strcmp(root_kind_names[k], kind) != 0) k++;
    if (!grow_array(scene->roots, scene->num_roots, scene->roots_capacity)) return false;
    scene->roots[scene->num_roots][0] = k;
    scene->roots[scene->num_roots++][1] = index;
    return true;
}

static bool scene_reference(void *context, uint64_t from, uint64_t to) {
    SceneBuild *build = context;
    ModelScene *scene = &build->gc->scene;
    uint32_t from_index, to_index;
    if (!scene_index(build, from, &from_index) || !scene_index(build, to, &to_index)) return true;
    if (!grow_array(scene->refs, scene->num_refs, scene->refs_capacity)) return false;
    scene->refs[scene->num_refs][0] = from_index;
    scene->refs[scene->num_refs++][1] = to_index;
    return true;
}

/* The references the collection's survivors hold, from the dump taken after
 * it, while the live map still knows each survivor's detail record. */
static bool scene_references(SecondPass *pass, ModelGc *gc, char *err, size_t err_size) {
    if (!pass->dumps || !has_scene(gc)) return true;
    SceneBuild build = {pass, gc};
    DumpSink sink = {&build, scene_root, scene_reference};
    return dump_read_after(pass->dumps, (long)(gc - pass->model->gcs) + 1, &sink, &gc->scene.has_refs, err, err_size);
}

static void count_live(SecondPass *pass, Count *per_arena) {
    memset(per_arena, 0, MODEL_MAX_ARENAS * sizeof *per_arena);
    LIVE_MAP_FOR_EACH(&pass->live, object) {
        per_arena[object->arena_index].objects++;
        per_arena[object->arena_index].bytes += object->size;
    }
}

static Phase *phase(SecondPass *pass, PhaseKind kind, int a, int to) {
    ModelGc *gc = pass->gc;
    for (size_t i = 0; i < gc->num_phases; i++)
        if (gc->phases[i].kind == kind && gc->phases[i].arena == a && gc->phases[i].to_arena == to)
            return &gc->phases[i];
    if (gc->num_phases == 0) pass->phases_capacity = 0;
    if (!grow_array(gc->phases, gc->num_phases, pass->phases_capacity)) return NULL;
    Phase *added = &gc->phases[gc->num_phases++];
    *added = (Phase){(uint8_t)kind, (uint8_t)a, (uint8_t)to, {0, 0}};
    return added;
}

static bool tile_move(SecondPass *pass, int from, size_t from_tile, int to, size_t to_tile, uint32_t size) {
    ModelGc *gc = pass->gc;
    /* Moves come in address or Cheney order, so the pair just seen is the
     * likeliest; a short scan back finds most others. */
    for (size_t i = gc->num_moves; i-- > 0 && i + 64 >= gc->num_moves;) {
        TileMove *move = &gc->moves[i];
        if (move->from_arena == from && move->to_arena == to && move->from_tile == from_tile && move->to_tile == to_tile) {
            move->count.objects++;
            move->count.bytes += size;
            return true;
        }
    }
    if (gc->num_moves == 0) pass->moves_capacity = 0;
    if (!grow_array(gc->moves, gc->num_moves, pass->moves_capacity)) return false;
    gc->moves[gc->num_moves++] = (TileMove){(uint8_t)from, (uint8_t)to, (uint16_t)from_tile, (uint16_t)to_tile, {1, size}};
    return true;
}

static int by_bytes_down(const void *left, const void *right) {
    const TileMove *a = left, *b = right;
    return a->count.bytes < b->count.bytes ? 1 : a->count.bytes > b->count.bytes ? -1 : 0;
}

/* Merges repeated tile pairs and keeps the biggest `keep`. */
static void settle_tile_moves(ModelGc *gc, size_t keep) {
    if (!gc->num_moves) return;
    qsort(gc->moves, gc->num_moves, sizeof *gc->moves, by_bytes_down);
    /* Pairs can repeat when the scan back missed them: merge after sorting by pair. */
    size_t kept = 0;
    for (size_t i = 0; i < gc->num_moves; i++) {
        TileMove *move = &gc->moves[i];
        size_t j = 0;
        while (j < kept && !(gc->moves[j].from_arena == move->from_arena && gc->moves[j].to_arena == move->to_arena &&
                             gc->moves[j].from_tile == move->from_tile && gc->moves[j].to_tile == move->to_tile))
            j++;
        if (j < kept) {
            gc->moves[j].count.objects += move->count.objects;
            gc->moves[j].count.bytes += move->count.bytes;
        } else if (kept < keep) {
            gc->moves[kept++] = *move;
        } else {
            gc->moves_left_out.objects += move->count.objects;
            gc->moves_left_out.bytes += move->count.bytes;
        }
    }
    gc->num_moves = kept;
}

#define FRAGMENTATION_SAMPLES 64

static int by_address(const void *left, const void *right) {
    const uint64_t *a = left, *b = right;
    return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* Free bytes and the largest run of free addresses in each arena, for a run
 * whose objects never move (marksweep, refcount): the gaps between live
 * objects across the arena's range. */
static bool fragmentation(SecondPass *pass, ModelGc *gc) {
    HeapModel *model = pass->model;
    for (size_t a = 0; a < model->num_arenas; a++) {
        size_t count = 0;
        LIVE_MAP_FOR_EACH(&pass->live, object) {
            if (object->arena_index != a) continue;
            if (!grow_array(pass->intervals, count, pass->intervals_capacity)) return false;
            pass->intervals[count][0] = object->id;
            pass->intervals[count++][1] = object->id + object->size;
        }
        qsort(pass->intervals, count, sizeof *pass->intervals, by_address);
        uint64_t at = model->arenas[a].lo, largest = 0, free_bytes = 0;
        for (size_t i = 0; i <= count; i++) {
            uint64_t next = i < count ? pass->intervals[i][0] : model->arenas[a].hi;
            if (next > at) {
                free_bytes += next - at;
                if (next - at > largest) largest = next - at;
            }
            if (i < count && pass->intervals[i][1] > at) at = pass->intervals[i][1];
        }
        gc->free_bytes[a] = free_bytes;
        gc->largest_free[a] = largest;
    }
    gc->has_fragmentation = true;
    return true;
}

static bool add_detail(SecondPass *pass, LiveObject *object) {
    HeapModel *model = pass->model;
    if (!agent_grow((void **)&model->detail, &pass->detail_capacity, (model->num_detail + 1) * DETAIL_WORDS,
                    sizeof *model->detail, 4096 * DETAIL_WORDS))
        return false;
    uint32_t *record = model->detail + model->num_detail * DETAIL_WORDS;
    record[DETAIL_OFFSET] = (uint32_t)(object->id - model->arenas[object->arena_index].lo);
    record[DETAIL_SIZE] = object->size;
    record[DETAIL_CLASS_ARENA] = (uint32_t)object->class_index << 8 | object->arena_index;
    record[DETAIL_FATE] = FATE_STAYED;
    record[DETAIL_NEW_OFFSET] = record[DETAIL_OFFSET];
    object->detail = (uint32_t)model->num_detail++;
    return true;
}

static void set_fate(SecondPass *pass, const LiveObject *object, uint32_t fate, int to, uint64_t new_address) {
    if (object->detail == LIVE_NO_DETAIL) return;
    uint32_t *record = pass->model->detail + (size_t)object->detail * DETAIL_WORDS;
    record[DETAIL_FATE] = fate | (uint32_t)to << 8;
    if (fate == FATE_MOVED) record[DETAIL_NEW_OFFSET] = (uint32_t)(new_address - pass->model->arenas[to].lo);
}

static void empty(SecondPass *pass, const LiveObject *object, int a) {
    spread(pass->model, a, object->id, object->size, pass->tile_emptied, NULL, 0, 0);
}

static void died_with_arena(void *context, const LiveObject *object) {
    SecondPass *pass = context;
    life_ends(pass, object);
    Phase *deleted = &pass->gc->phases[pass->deleting];
    deleted->count.objects++;
    deleted->count.bytes += object->size;
    pass->model->totals.died.objects++;
    pass->model->totals.died.bytes += object->size;
    empty(pass, object, object->arena_index);
    set_fate(pass, object, FATE_DIED, object->arena_index, 0);
}

static bool gc_start(SecondPass *pass) {
    HeapModel *model = pass->model;
    ModelGc *gc = pass->gc = &model->gcs[model->totals.collections++];
    gc->clock = pass->clock;
    memcpy(gc->allocated, pass->allocated, sizeof gc->allocated);
    memset(pass->allocated, 0, sizeof pass->allocated);
    memset(pass->tile_emptied, 0, model->num_arenas * model->tiles * sizeof *pass->tile_emptied);
    count_live(pass, gc->live_before);
    if (gc->has_detail) {
        gc->detail_first = model->num_detail;
        uint64_t window[MODEL_MAX_ARENAS];
        for (size_t a = 0; a < model->num_arenas; a++)
            window[a] = (uint64_t)(gc->detail_window * (double)(model->arenas[a].hi - model->arenas[a].lo));
        LIVE_MAP_FOR_EACH(&pass->live, object)
            if (object->id - model->arenas[object->arena_index].lo < window[object->arena_index] &&
                !add_detail(pass, object))
                return false;
        gc->detail_count = model->num_detail - gc->detail_first;
    }
    return snapshot(pass, false);
}

static bool gc_finish(SecondPass *pass, const Record *record, char *err, size_t err_size) {
    ModelGc *gc = pass->gc;
    gc->used_objects = (int64_t)record->id;
    gc->used_object_space = (int64_t)record->new_id;
    gc->total_object_space = record->total_object_space;
    count_live(pass, gc->live_after);
    settle_tile_moves(gc, pass->options->tile_moves);
    /* Sorting the live set costs more than the rest of a collection: at
     * most FRAGMENTATION_SAMPLES collections, spread evenly, get it. */
    size_t k = (size_t)(gc - pass->model->gcs);
    size_t stride = (pass->model->num_gcs + FRAGMENTATION_SAMPLES - 1) / FRAGMENTATION_SAMPLES;
    if (!pass->moved_any && k % stride == 0 && !fragmentation(pass, gc)) return say(err, err_size, "out of memory");
    if (!scene_references(pass, gc, err, err_size)) return false;
    if (gc->has_detail)
        LIVE_MAP_FOR_EACH(&pass->live, object) object->detail = LIVE_NO_DETAIL;
    pass->gc = NULL;
    return snapshot(pass, true) || say(err, err_size, "out of memory");
}

static bool second_pass_record(SecondPass *pass, const Record *record, char *err, size_t err_size) {
    HeapModel *model = pass->model;
    int a = record->arena, to = record->new_arena;
    switch ((HeapEventKind)record->kind) {
    case HEAP_ARENA_NEW:
        if (pass->gc && !phase(pass, PHASE_RENEW, a, a)) return say(err, err_size, "out of memory");
        return true;
    case HEAP_ARENA_DELETE:
        model->totals.arena_deletes++;
        Phase *deleting = phase(pass, PHASE_DELETE, a, a);
        if (!deleting) return say(err, err_size, "out of memory");
        pass->deleting = (size_t)(deleting - pass->gc->phases);
        return empty_arena(&pass->live, a, died_with_arena, pass) || say(err, err_size, "out of memory");
    case HEAP_OBJECT_ALLOC: {
        LiveObject object = {record->id, record->size, record->class_index, (uint8_t)a, LIVE_NO_DETAIL,
                             (uint32_t)model->totals.collections, pass->clock};
        if (!live_map_put(&pass->live, &object)) return say(err, err_size, "out of memory");
        life_born(&model->lives[record->class_index], record->size);
        pass->clock += record->size;
        pass->allocated[a].objects++;
        pass->allocated[a].bytes += record->size;
        model->totals.allocated.objects++;
        model->totals.allocated.bytes += record->size;
        return early_snapshot(pass) || say(err, err_size, "out of memory");
    }
    case HEAP_OBJECT_FREE: {
        LiveObject freed;
        live_map_take(&pass->live, record->id, &freed);
        Phase *freeing = phase(pass, PHASE_FREE, freed.arena_index, freed.arena_index);
        if (!freeing) return say(err, err_size, "out of memory");
        freeing->count.objects++;
        freeing->count.bytes += freed.size;
        model->totals.freed.objects++;
        model->totals.freed.bytes += freed.size;
        empty(pass, &freed, freed.arena_index);
        set_fate(pass, &freed, FATE_FREED, freed.arena_index, 0);
        life_ends(pass, &freed);
        return scene_step(pass, &freed, SCENE_MOVED_OR_FREED) || say(err, err_size, "out of memory");
    }
    case HEAP_OBJECT_MOVE: {
        LiveObject moved;
        live_map_take(&pass->live, record->id, &moved);
        Phase *moving = phase(pass, PHASE_MOVE, a, to);
        if (!moving || !tile_move(pass, a, tile_of(model, a, record->id), to, tile_of(model, to, record->new_id), moved.size))
            return say(err, err_size, "out of memory");
        moving->count.objects++;
        moving->count.bytes += moved.size;
        model->totals.moved.objects++;
        model->totals.moved.bytes += moved.size;
        pass->moved_any = true;
        empty(pass, &moved, a);
        set_fate(pass, &moved, FATE_MOVED, to, record->new_id);
        if (!scene_step(pass, &moved, SCENE_MOVED_OR_FREED)) return say(err, err_size, "out of memory");
        moved.id = record->new_id;
        moved.arena_index = (uint8_t)to;
        if (!live_map_put(&pass->live, &moved)) return say(err, err_size, "out of memory");
        return true;
    }
    case HEAP_GC_START:
        return gc_start(pass) || say(err, err_size, "out of memory");
    case HEAP_GC_FINISH:
        return gc_finish(pass, record, err, err_size);
    case HEAP_SHUT_DOWN:
        model->end_clock = pass->clock;
        memcpy(model->end_allocated, pass->allocated, sizeof model->end_allocated);
        count_live(pass, model->end_live);
        memset(pass->tile_emptied, 0, model->num_arenas * model->tiles * sizeof *pass->tile_emptied);
        return snapshot(pass, false) || say(err, err_size, "out of memory");
    case HEAP_CLASS_LOAD:
        return true;
    case HEAP_GC_PHASE_START:
    case HEAP_OBJECT_FREE_CAUSE:
        if (!pass->gc || !has_scene(pass->gc)) return true;
        return scene_entry(pass, record->kind == HEAP_GC_PHASE_START ? SCENE_PHASE : SCENE_FREE_CAUSE, record->class_index) ||
               say(err, err_size, "out of memory");
    case HEAP_OBJECT_GREYED:
    case HEAP_OBJECT_BLACKENED:
        return scene_step(pass, live_map_get(&pass->live, record->id),
                          record->kind == HEAP_OBJECT_GREYED ? SCENE_GREYED : SCENE_BLACKENED) ||
               say(err, err_size, "out of memory");
    }
    return true;
}

static bool second_pass(HeapModel *model, const ModelOptions *options, FILE *records, uint64_t first_gc_clock,
                        DumpReader *dumps, char *err, size_t err_size) {
    SecondPass pass = {.model = model, .options = options, .first_gc_clock = first_gc_clock, .dumps = dumps};
    live_map_init(&pass.live);
    size_t total_tiles = model->num_arenas * model->tiles;
    pass.class_slots = model->num_classes < 256 ? (model->num_classes ? model->num_classes : 1) : 256;
    pass.tile_bytes = calloc(total_tiles ? total_tiles : 1, sizeof *pass.tile_bytes);
    pass.tile_emptied = calloc(total_tiles ? total_tiles : 1, sizeof *pass.tile_emptied);
    pass.class_bytes = calloc((total_tiles ? total_tiles : 1) * pass.class_slots, sizeof *pass.class_bytes);
    model->lives = calloc(model->num_classes ? model->num_classes : 1, sizeof *model->lives);
    bool ok = pass.tile_bytes && pass.tile_emptied && pass.class_bytes && model->lives;
    if (!ok) say(err, err_size, "out of memory");
    Record record;
    rewind(records);
    while (ok && fread(&record, sizeof record, 1, records) == 1) ok = second_pass_record(&pass, &record, err, err_size);
    if (ok && ferror(records)) ok = say(err, err_size, "cannot read heapview's temporary file");
    live_map_free(&pass.live);
    free(pass.tile_bytes);
    free(pass.tile_emptied);
    free(pass.class_bytes);
    free(pass.intervals);
    return ok;
}

/* ---- the whole ------------------------------------------------------------------------ */

HeapModel *heap_model_build(const char *path, const char *dumps, const ModelOptions *options, char *err,
                            size_t err_size) {
    HeapModel *model = calloc(1, sizeof *model);
    if (!model) return say(err, err_size, "out of memory"), NULL;
    snprintf(model->source, sizeof model->source, "%s", path);
    model->tiles = options->tiles;
    FirstPass first = {.model = model, .records = tmpfile()};
    live_map_init(&first.live);
    live_map_init(&first.class_ids);
    live_map_init(&first.array_class_ids);
    bool ok = first.records != NULL;
    if (!ok) say(err, err_size, "cannot create heapview's temporary file");
    ok = ok && trace_read(path, model->collector, sizeof model->collector, first_pass_event, &first, err, err_size);
    live_map_free(&first.live);
    live_map_free(&first.class_ids);
    live_map_free(&first.array_class_ids);
    if (ok) {
        for (size_t a = 0; a < model->num_arenas; a++) {
            ModelArena *arena = &model->arenas[a];
            uint64_t span = arena->hi > arena->lo ? arena->hi - arena->lo : 1;
            arena->tile_bytes = (span + model->tiles - 1) / model->tiles;
        }
        model->gcs = calloc(first.num_gcs ? first.num_gcs : 1, sizeof *model->gcs);
        ok = model->gcs != NULL || say(err, err_size, "out of memory");
        if (ok) {
            model->num_gcs = first.num_gcs;
            choose_detail(model, first.live_at_start, options->object_budget);
            DumpReader reader;
            ok = !dumps || dump_read_open(&reader, dumps, err, err_size);
            uint64_t first_gc_clock = first.num_gcs ? first.first_gc_clock : first.clock;
            ok = ok && second_pass(model, options, first.records, first_gc_clock, dumps ? &reader : NULL, err, err_size);
            if (dumps) dump_read_close(&reader);
        }
    }
    free(first.live_at_start);
    if (first.records) fclose(first.records);
    if (!ok) {
        heap_model_free(model);
        return NULL;
    }
    return model;
}

void heap_model_free(HeapModel *model) {
    if (!model) return;
    for (size_t k = 0; k < model->num_gcs; k++) {
        free(model->gcs[k].phases);
        free(model->gcs[k].moves);
        free(model->gcs[k].scene.order);
        free(model->gcs[k].scene.refs);
        free(model->gcs[k].scene.roots);
    }
    free(model->lives);
    free(model->mechanism_names);
    free(model->early_states);
    free(model->gcs);
    free(model->class_names);
    free(model->states);
    free(model->detail);
    free(model);
}
