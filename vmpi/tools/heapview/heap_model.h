/*
 * heap_model.h -- what the picture shows of one run, built from its trace.
 *
 * The model keeps the exact heap state at every collection boundary (at each
 * GC_START, at each GC_FINISH, and at the end of the run) and the deltas in
 * between:
 *   - per arena, the objects and bytes allocated since the last boundary,
 *     and the live objects and bytes at each boundary.  No object dies
 *     between collections (docs/event-mapping.md: every OBJECT_FREE,
 *     OBJECT_MOVE and ARENA_DELETE lies inside a GC bracket), so the live
 *     bytes only grow between two boundaries: the values at the boundaries
 *     are the series' exact peaks and troughs, and nothing between them is
 *     kept;
 *   - per collection, what it did, in the order each kind of work first
 *     appears (moves from arena to arena, frees, arena deletes and renewals),
 *     and its moves aggregated from tile to tile;
 *   - per boundary, each arena's tiles: a fixed number of equal address
 *     ranges, each with the share of it live objects occupy, the share that
 *     emptied in this collection (freed, died with its arena or moved away:
 *     the page draws it faded) and the class with the most bytes in it;
 *   - for some collections (as many as the object budget allows, spread
 *     over the run), every object live at GC_START with its address, size,
 *     class and fate (stayed, moved to where, freed, died with its arena);
 *     in a heap too big for the budget, the objects of a leading share of
 *     each arena's addresses.
 *
 * The clock is the bytes allocated so far, the same for every collector of
 * the same program, so that runs line up side by side.
 */
#ifndef HEAPVIEW_HEAP_MODEL_H
#define HEAPVIEW_HEAP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/lifetimes.h"

#define MODEL_MAX_ARENAS 16
#define MODEL_NAME_SIZE 64

typedef struct {
    uint64_t objects, bytes;
} Count;

typedef struct {
    uint32_t id;
    char name[MODEL_NAME_SIZE];
    uint64_t lo, hi;     /* addresses the arena's objects occupy: [lo, hi) */
    uint64_t tile_bytes; /* the address range of one tile */
} ModelArena;

/* One kind of work in a collection, in the order it first appears. */
typedef enum { PHASE_MOVE, PHASE_FREE, PHASE_DELETE, PHASE_RENEW } PhaseKind;

typedef struct {
    uint8_t kind;                 /* PhaseKind */
    uint8_t arena, to_arena;      /* arena indexes; to_arena for PHASE_MOVE */
    Count count;                  /* moved, freed, or died with the deleted arena */
} Phase;

typedef struct {
    uint8_t from_arena, to_arena;
    uint16_t from_tile, to_tile;
    Count count;
} TileMove;

/* The object detail's fates. */
enum { FATE_STAYED, FATE_MOVED, FATE_FREED, FATE_DIED };

/* One detail record: five little-endian uint32s. */
enum { DETAIL_OFFSET, DETAIL_SIZE, DETAIL_CLASS_ARENA, DETAIL_FATE, DETAIL_NEW_OFFSET, DETAIL_WORDS };

/* A collection's scene, for the step-through view, when heapview has the
 * heap dump its collection left (the heapdump agent) and detail of all of
 * its objects: indexes are detail records counted from detail_first. */
/* A scene's entries: the kind in the top 4 bits, under it a detail record
 * (moved or freed, greyed, blackened) or a mechanism name (a phase begins,
 * the cause of the next free). */
enum { SCENE_KIND_SHIFT = 28 };
typedef enum { SCENE_MOVED_OR_FREED, SCENE_PHASE, SCENE_GREYED, SCENE_BLACKENED, SCENE_FREE_CAUSE } SceneEntryKind;

typedef struct {
    uint32_t *order;                       /* its entries, in the events' order */
    size_t num_order, order_capacity;
    uint32_t (*refs)[2];                   /* from, to: a reference between survivors */
    size_t num_refs, refs_capacity;
    uint32_t (*roots)[2];                  /* kind (RootKind), object */
    size_t num_roots, roots_capacity;
    bool has_refs;
} ModelScene;

/* Collections with at most this many objects get a scene: the step-through
 * view is for small heaps, and a scene's data grows with its objects. */
#define SCENE_MAX_OBJECTS 4096

/* What holds a root, as the heapdump agent names it. */
typedef enum { ROOT_FRAME, ROOT_NATIVE, ROOT_GLOBAL, ROOT_THREAD, ROOT_MONITOR, ROOT_STATIC, ROOT_UNKNOWN, NUM_ROOT_KINDS } RootKind;
extern const char *const root_kind_names[NUM_ROOT_KINDS];

typedef struct {
    uint64_t clock;                        /* bytes allocated before its GC_START */
    Count allocated[MODEL_MAX_ARENAS];     /* since the previous boundary */
    Count live_before[MODEL_MAX_ARENAS], live_after[MODEL_MAX_ARENAS];
    Phase *phases;
    size_t num_phases;
    TileMove *moves;                       /* the biggest, by bytes */
    size_t num_moves;
    Count moves_left_out;                  /* tile moves beyond the kept ones */
    int64_t used_objects, used_object_space, total_object_space; /* its GC_FINISH */
    bool has_fragmentation;                /* for a run that has moved nothing; 64 spread over the run */
    uint64_t free_bytes[MODEL_MAX_ARENAS], largest_free[MODEL_MAX_ARENAS];
    bool has_detail;
    double detail_window;                  /* the leading share of each arena's addresses detailed */
    size_t detail_first, detail_count;     /* records in HeapModel.detail */
    ModelScene scene;                      /* order kept when detail_window is 1 */
} ModelGc;

/* Lifetimes per class (common/lifetimes.h, shared with the gcstats agent):
 * the program's demographics (docs/heapview.md, "Lifetimes"). */

/* The heap before the first collection, at EARLY_SNAPSHOTS even steps of the
 * clock up to it (or to the end of a run that never collects). */
#define EARLY_SNAPSHOTS 8
typedef struct {
    Count clock;        /* objects and bytes allocated when taken */
} ModelEarly;

typedef struct {
    Count allocated, moved, freed, died;   /* died: with an ARENA_DELETE */
    uint64_t arena_news, arena_deletes, collections;
} ModelTotals;

typedef struct {
    char collector[MODEL_NAME_SIZE];
    char source[512];
    ModelArena arenas[MODEL_MAX_ARENAS];
    size_t num_arenas;
    char (*class_names)[MODEL_NAME_SIZE];
    size_t num_classes;
    ModelGc *gcs;
    size_t num_gcs;
    uint64_t end_clock;
    Count end_allocated[MODEL_MAX_ARENAS], end_live[MODEL_MAX_ARENAS];
    ModelTotals totals;
    size_t tiles;          /* per arena */
    /* Boundary b (GC k's start is 2k, its finish 2k+1, the end 2*num_gcs),
     * arena a, tile t: bytes at ((b * num_arenas + a) * tiles + t) * 3 are
     * the occupancy (0-255), the emptied share (0-255) and the class index
     * (255 for any class past the 255th). */
    uint8_t *states;
    size_t states_size;
    uint32_t *detail;      /* DETAIL_WORDS per record */
    size_t num_detail;
    ClassLife *lives;      /* per class */
    char (*mechanism_names)[MODEL_NAME_SIZE]; /* phase names and free causes the trace gave */
    size_t num_mechanism_names;
    ModelEarly early[EARLY_SNAPSHOTS];
    size_t num_early;
    uint8_t *early_states; /* as states, one snapshot per early entry */
    size_t early_states_size;
} HeapModel;

typedef struct {
    size_t tiles;           /* per arena strip */
    size_t object_budget;   /* detail records, over the whole run */
    size_t tile_moves;      /* tile-to-tile moves kept per collection */
} ModelOptions;

/* Builds the model of the trace at `path`, with the heapdump agent's dumps
 * at `dumps` if not NULL; NULL, with why in err. */
HeapModel *heap_model_build(const char *path, const char *dumps, const ModelOptions *options, char *err,
                            size_t err_size);
void heap_model_free(HeapModel *model);

#endif
