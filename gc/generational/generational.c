/*
 * generational.c -- the generational collector (--gc=generational), gclab's
 * default: a copied nursery, two survivor spaces, promotion by age, and a
 * mark-compact old generation.
 *
 * Invariant, between collections:
 *   - each space's [start, top) holds its objects end to end, none
 *     forwarded; to-survivor is empty; every space's [top, end) is zero;
 *   - a young object's gc_word is its age; an old one's is 0 or GEN_REMEMBERED;
 *   - every old object holding a reference to a young one is in the
 *     remembered set, once, exactly when its GEN_REMEMBERED bit is set;
 *   - old.end - old.top >= the bytes in use in the nursery and
 *     from-survivor: an evacuation always has room (gen_evacuation_room);
 *   - old.limit - old.start, the old generation's budget, is sized after
 *     each major collection between its shares of -Xms and --heap
 *     (gc/common/heapsize.h); so is the nursery's budget, just before it
 *     (gen_size_nursery): GEN_NURSERY_PER_OLD_LIVE times the old
 *     generation's live data, between config.initial_young_bytes and
 *     -Xmn (nursery_bytes, the most it takes); the survivor spaces keep
 *     their sizes;
 *   - old.top <= old.limit, except while (or just after) an agent held
 *     collection disabled: then allocations that find the nursery full go
 *     to the old generation past its budget, as far as its room to grow
 *     (region.h) reaches, keeping an evacuation's room;
 *   - the fast path bumps the nursery only while old.top <= old.limit.
 * Events: the VMPI patent's GENERATIONAL GARBAGE COLLECTOR, in the order
 * docs/event-mapping.md gives (its generational section), the one place it is
 * written; tests/unit/gc_generational.c checks this file posts it.
 * Mechanism events (docs/mechanism-events.md): phase "minor" (or "major",
 * holding "promote" and the compaction's phases), each evacuation in
 * "flip", "remembered-set" and "scan"; REMEMBERED_SET_ADD per object the
 * barrier or a promotion puts into the remembered set.
 *
 * Minor collection, when the nursery is full: the nursery and from-survivor
 * are condemned; their survivors are copied (Cheney: gc/common/copy.h) to
 * to-survivor, age plus one, or promoted to the old generation once their
 * age reaches --tenure.  Major collection, when the old generation might
 * not take what a minor one would promote, or when it may have to shrink
 * (gen_old_may_shrink): everything young is promoted, then the old
 * generation is compacted (Lisp-2: gc/common/compact.h) and its budget
 * sized for the survivors (gc/common/heapsize.h).  An
 * object larger than the nursery is born old.  The spaces' sizes, the
 * remembered set against a card table, the reserves and growth while
 * collection is disabled:
 * docs/collectors/generational.md.
 */
#include <stdlib.h>

#include "gc/common/collect.h"
#include "gc/common/compact.h"
#include "gc/common/copy.h"
#include "gc/common/heapsize.h"
#include "gc/common/memory.h"
#include "gc/common/objlist.h"
#include "gc/common/region.h"
#include "gc/gc.h"

#define GEN_NURSERY 1u
#define GEN_SURVIVOR_0 2u /* survivors[i] is arena GEN_SURVIVOR_0 + i */
#define GEN_OLD 4u

/* Each survivor space is this fraction of the nursery's most. */
#define GEN_SURVIVOR_FRACTION 8u
/* The nursery's budget after a major collection: this many times the old
 * generation's live data, within [config.initial_young_bytes, -Xmn].  A
 * program with little long-lived data gets a small nursery (little
 * resident memory; a minor collection copies little anyway), one with much
 * gets the whole -Xmn, which keeps minor collections rare where each has
 * the most to trace (docs/heap-sizing.md). */
#define GEN_NURSERY_PER_OLD_LIVE 4u
/* A minor collection becomes a major one once this many old budgets have
 * been allocated since the last major one, so that the old generation's
 * size follows a live set that has fallen (minor collections never see
 * old garbage) at a cost of one old-generation compaction per that much
 * allocation. */
#define GEN_MAJOR_EVERY_OLD_BUDGETS 4u
/* Under --gc-stress, one collection in this many is a major one. */
#define GEN_STRESS_MAJOR_PERIOD 8u

/* gc_word: the age of a young object (minor collections survived, at most
 * GEN_AGE_MASK), and the remembered bit of an old one.  Bit 31 is copy.h's
 * GC_FORWARDED during a minor collection, and the whole word is the
 * compactor's during a major one. */
#define GEN_AGE_MASK UINT32_C(0xff)
#define GEN_REMEMBERED (UINT32_C(1) << 8)

/* One evacuation of the young generation in progress (gen_evacuate). */
typedef struct GenCopying {
    GcCopyRegion to_survivor;    /* copies that stay young */
    GcCopyRegion old;            /* promoted copies */
    uint32_t tenure_age;         /* promote at this age; 0 promotes everything */
    uint64_t promoted_objects;
} GenCopying;

typedef struct Generational {
    Gc gc;                      /* first, so a Gc * is a Generational * */
    GcMemory memory;
    uint8_t *young_block;       /* the nursery, then survivor-0, then survivor-1 */
    size_t young_block_bytes;
    GcRegion nursery;
    GcRegion survivors[2];
    unsigned from;              /* survivors[from] is from-survivor, the other to-survivor */
    GcRegion old;               /* its budget, a reserve for one evacuation, room to grow */
    size_t nursery_bytes, survivor_bytes; /* the nursery's most (-Xmn), and each survivor space */
    size_t old_bytes;           /* the most the old budget may be: --heap less the young block */
    uint32_t tenure_age;        /* config.tenure_age, at most GEN_AGE_MASK */
    uint64_t old_objects;
    GcObjectList remembered;    /* the remembered set */
    GcCompactor compactor;      /* the old generation's mark bitmap and stack */
    uint64_t stress_collections;
    uint64_t allocated_at_major; /* stats.bytes_allocated at the last major collection */
    GenCopying *copying;        /* during an evacuation, else NULL */
} Generational;

extern const GcOps gc_generational_ops;

/* gen_arenas[id - 1] describes arena `id`. */
static const GcArenaInfo gen_arenas[] = {
    {GEN_NURSERY, "nursery"},
    {GEN_SURVIVOR_0, "survivor-0"},
    {GEN_SURVIVOR_0 + 1, "survivor-1"},
    {GEN_OLD, "old"},
};

/* ---- the spaces ---------------------------------------------------------- */

/* The young block's range is kept in the Gc record, where the inline
 * barrier in gc.h reads it. */
static inline bool gen_is_young(const Generational *g, const void *p) { return gc_is_young(&g->gc, p); }

/* Bytes in use in the nursery and from-survivor: what an evacuation may
 * have to promote. */
static inline size_t gen_young_used(const Generational *g) {
    return gc_region_used(&g->nursery) + gc_region_used(&g->survivors[g->from]);
}

/* The invariant's test: can `bytes` more be allocated, young or old, and
 * everything young still be evacuated into the old generation? */
static inline bool gen_evacuation_room(const Generational *g, size_t bytes) {
    return (size_t)(g->old.end - g->old.top) >= gen_young_used(g) + bytes;
}

static inline bool gen_old_within_budget(const Generational *g) { return g->old.top <= g->old.limit; }

/* Opens the nursery to the fast path -- unless the old generation is over
 * its budget: then every allocation must reach the slow path, which
 * collects or fails. */
static void gen_open_nursery(Generational *g) {
    gc_region_open(&g->gc, gen_old_within_budget(g) ? &g->nursery : NULL);
}

/* ---- the write barrier --------------------------------------------------- */

static void gen_remember(Generational *g, Obj *obj) {
    obj->gc_word |= GEN_REMEMBERED;
    gc_objlist_push(&g->remembered, obj);
    gc_post_remembered_set_add(obj);
}

/* Stores, then remembers `holder` if it is old, `value` young, and holder
 * not yet remembered.  Most stores are into young objects: the first test
 * ends them. */
static void gen_write_barrier(Gc *gc, Obj *holder, Obj **slot, Obj *value) {
    Generational *g = (Generational *)gc;
    *slot = value;
    if (!gen_is_young(g, holder) && gen_is_young(g, value) && !(holder->gc_word & GEN_REMEMBERED))
        gen_remember(g, holder);
}

static bool gen_refers_to_young(const Generational *g, const Obj *obj) {
    size_t count;
    Obj **slots = obj_ref_slots(obj, &count);
    for (size_t i = 0; i < count; i++)
        if (gen_is_young(g, slots[i])) return true;
    return false;
}

/* ---- evacuating the young generation ------------------------------------- */

/* The nursery and from-survivor are condemned; to-survivor holds copies
 * made in this collection and the old generation is not collected. */
static inline uint32_t gen_condemned_arena(const Obj *obj, void *ctx) {
    const Generational *g = ctx;
    if ((uintptr_t)obj - (uintptr_t)g->nursery.start < g->nursery_bytes) return GEN_NURSERY;
    if ((uintptr_t)obj - (uintptr_t)g->survivors[g->from].start < g->survivor_bytes)
        return g->survivors[g->from].arena_id;
    return GC_COPY_NOT_CONDEMNED;
}

/* To-survivor with its age plus one, or the old generation once it is old
 * enough or to-survivor is full. */
static inline GcCopyRegion *gen_destination(const Obj *obj, size_t bytes, uint32_t *copy_gc_word,
                                            void *ctx) {
    Generational *g = ctx;
    GenCopying *copying = g->copying;
    uint32_t age = (*copy_gc_word & GEN_AGE_MASK) + 1;
    GcCopyRegion *survivor = &copying->to_survivor;
    if (age < copying->tenure_age && (size_t)(survivor->limit - survivor->top) >= bytes) {
        *copy_gc_word = age;
        return survivor;
    }
    *copy_gc_word = 0;
    copying->promoted_objects++;
    return &copying->old;
}

static const GcCopyPolicy gen_copy_policy = {
    .condemned_arena = gen_condemned_arena,
    .destination = gen_destination,
};

/* Forwards every slot of every remembered object (they are roots of the
 * young generation) and keeps in the set only those still referring to a
 * young object -- a copy in to-survivor -- afterwards. */
static void gen_forward_remembered(Generational *g, GcCopier *copier) {
    GcObjectList *set = &g->remembered;
    size_t kept = 0;
    for (size_t i = 0; i < set->count; i++) {
        Obj *obj = set->items[i];
        gc_copy_forward_slots(copier, &gen_copy_policy, obj);
        if (gen_refers_to_young(g, obj)) set->items[kept++] = obj;
        else obj->gc_word &= ~GEN_REMEMBERED;
    }
    set->count = kept;
}

/* Remembers each object promoted at or after `from` that refers to a young
 * object that stayed young. */
static void gen_remember_promoted(Generational *g, uint8_t *from) {
    for (uint8_t *scan = from; scan < g->old.top; scan += obj_size((Obj *)scan))
        if (gen_refers_to_young(g, (Obj *)scan)) gen_remember(g, (Obj *)scan);
}

/* Empties a young space that holds only garbage and forwarded objects. */
static void gen_renew_space(GcRegion *space) {
    gc_region_renew(space, gen_arenas[space->arena_id - 1].name);
}

/* Copies every live young object out of the nursery and from-survivor --
 * to to-survivor, or promoted once `tenure_age` is reached (0: all of
 * them) -- then empties both spaces and swaps the survivor spaces' roles.
 * The old generation has room for it all (the invariant). */
static void gen_evacuate(Generational *g, uint32_t tenure_age) {
    GcStats *stats = &g->gc.stats;
    GcRegion *from = &g->survivors[g->from], *to = &g->survivors[1 - g->from];
    uint64_t young_objects = gc_used_objects(&g->gc) - g->old_objects;
    uint64_t young_bytes = gen_young_used(g);
    uint8_t *promoted_start = g->old.top;
    GenCopying copying = {
        .to_survivor = gc_copy_region(to->start, g->survivor_bytes, to->arena_id),
        .old = gc_copy_region(g->old.top, (size_t)(g->old.end - g->old.top), GEN_OLD),
        .tenure_age = tenure_age,
    };
    g->copying = &copying;
    GcCopier copier = gc_copier(g);
    gc_copier_add_region(&copier, &copying.to_survivor);
    gc_copier_add_region(&copier, &copying.old);
    gc_post_phase_start("flip");
    gc_copy_forward_roots(&g->gc, &copier, &gen_copy_policy);
    gc_post_phase_end("flip");
    gc_post_phase_start("remembered-set");
    gen_forward_remembered(g, &copier);
    gc_post_phase_end("remembered-set");
    /* Cheney's scan: gc/common/copy.h, gc_copy_scan. */
    gc_post_phase_start("scan");
    gc_copy_scan(&copier, &gen_copy_policy);
    gc_post_phase_end("scan");
    gc_copy_settle_weak_roots(&g->gc, &copier, &gen_copy_policy);
    to->top = copying.to_survivor.top;
    g->old.top = copying.old.top;
    g->copying = NULL;
    /* Only objects that stayed young can make a promoted object remembered. */
    if (to->top != to->start) gen_remember_promoted(g, promoted_start);

    gen_renew_space(&g->nursery);
    gen_renew_space(from);
    g->from = 1 - g->from;

    /* Every young survivor was copied. */
    gc_stats_count_survivors(stats, young_objects, young_bytes, copier.objects_copied, copier.bytes_copied,
                             copier.objects_copied, copier.bytes_copied);
    g->old_objects += copying.promoted_objects;
}

/* ---- collecting ---------------------------------------------------------- */

/* The heap's capacity: the nursery, one survivor space (the other is
 * always empty between collections) and the old generation's budget. */
static uint64_t gen_capacity(const Generational *g) {
    return gc_region_budget(&g->nursery) + g->survivor_bytes + gc_region_budget(&g->old);
}

/* Sizes the nursery's budget for the old generation's live data (see
 * GEN_NURSERY_PER_OLD_LIVE); the nursery is empty.  A lowered limit hands
 * the pages above it back (gc_region_set_budget). */
static void gen_size_nursery(Generational *g) {
    size_t floor = g->gc.config.initial_young_bytes;
    if (floor == 0 || floor > g->nursery_bytes) floor = g->nursery_bytes;
    size_t old_live = gc_region_used(&g->old);
    size_t budget = old_live > g->nursery_bytes / GEN_NURSERY_PER_OLD_LIVE ? g->nursery_bytes
                                                                          : old_live * GEN_NURSERY_PER_OLD_LIVE;
    budget = budget < floor ? floor : budget & ~(size_t)(OBJ_ALIGN - 1);
    gc_region_set_budget(&g->nursery, budget);
}

/* Sizes the old generation's budget (gc/common/heapsize.h) for what it
 * holds, `request` and the most the next minor collection may promote --
 * the nursery, sized first, and a survivor space -- since a minor
 * collection that might not fit within the budget becomes a major one
 * (gen_collect_now). */
static void gen_size_old(Generational *g, size_t request) {
    gen_size_nursery(g);
    size_t promotable = gc_region_budget(&g->nursery) + g->survivor_bytes;
    size_t budget = gc_heap_size_for(gc_region_budget(&g->old), gc_region_used(&g->old), request + promotable,
                                     gc_heap_floor(&g->gc.config, g->old_bytes), g->old_bytes);
    gc_region_set_budget(&g->old, budget);
    g->gc.stats.capacity_bytes = gen_capacity(g);
}

/* A major collection's second half: the old generation, now holding every
 * object, is compacted (Lisp-2: gc/common/compact.c, gc_compact_region),
 * then sized for the survivors and `request`. */
static void gen_compact_old(Generational *g, size_t request) {
    GcStats *stats = &g->gc.stats;
    uint64_t bytes_before = gc_region_used(&g->old);
    GcCompaction compaction = gc_compact_region(&g->gc, &g->compactor, &g->old);
    gc_stats_count_survivors(stats, g->old_objects, bytes_before, compaction.live_objects,
                             compaction.live_bytes, compaction.moved_objects, compaction.moved_bytes);
    g->old_objects = compaction.live_objects;
    gen_size_old(g, request);
}

/* Is a major collection due to size the old generation down?  Only when
 * it is above its floor and GEN_MAJOR_EVERY_OLD_BUDGETS of its budgets
 * have been allocated since the last major collection. */
static bool gen_old_may_shrink(const Generational *g) {
    size_t budget = gc_region_budget(&g->old);
    uint64_t allocated = g->gc.stats.bytes_allocated - g->allocated_at_major;
    return budget > gc_heap_floor(&g->gc.config, g->old_bytes) &&
           allocated >= (uint64_t)budget * GEN_MAJOR_EVERY_OLD_BUDGETS;
}

/* Runs one collection of `kind` -- a major one instead of a minor one if
 * the old generation's budget might not hold what the minor one would
 * promote, or if it may have to shrink (gen_old_may_shrink).  `request`:
 * what a pretenured allocation still needs in the old generation, or 0.
 * call->detail: the kind asked for, and then the kind it ran. */
static void gen_collect_call(GcCollectionCall *call) {
    Generational *g = (Generational *)call->gc;
    Gc *gc = call->gc;
    GcCollectionKind kind = (GcCollectionKind)call->detail;
    GcReason reason = call->reason;
    size_t request = call->request;
    if (kind == GC_COLLECTION_MINOR && (!gc_region_fits(&g->old, g->old.limit, gen_young_used(g)) ||
                                        gen_old_may_shrink(g)))
        kind = GC_COLLECTION_MAJOR;
    GcCollection collection = gc_collection_begin(gc, kind, reason);
    if (kind == GC_COLLECTION_MAJOR) {
        gc_post_phase_start("major");
        gc_post_phase_start("promote");
        gen_evacuate(g, 0);
        gc_post_phase_end("promote");
        gen_compact_old(g, request);
        g->allocated_at_major = gc->stats.bytes_allocated;
        gc_post_phase_end("major");
    } else {
        gc_post_phase_start("minor");
        gen_evacuate(g, g->tenure_age);
        gc_post_phase_end("minor");
    }
    gen_open_nursery(g);
    gc_collection_end(gc, &collection);
    call->detail = (int)kind;
}

static GcCollectionKind gen_collect_now(Generational *g, GcCollectionKind kind, GcReason reason,
                                        size_t request) {
    return (GcCollectionKind)gc_run_collection(&g->gc, gen_collect_call, reason, request, (int)kind);
}

/* On request (VMPI RunGC, tests): the whole heap. */
static void gen_collect(Gc *gc, GcReason reason) {
    gen_collect_now((Generational *)gc, GC_COLLECTION_MAJOR, reason, 0);
}

/* ---- allocating ---------------------------------------------------------- */

/* Can an object of `bytes` go into `space` now, within every budget? */
static bool gen_fits(const Generational *g, const GcRegion *space, size_t bytes) {
    return gc_region_fits(space, space->limit, bytes) && gen_old_within_budget(g);
}

/* Collection disabled: the nursery while it has room, then the old
 * generation past its budget, as far as the invariant allows. */
static GcRegion *gen_room_while_disabled(Generational *g, GcRegion *space, size_t bytes) {
    if (!gen_evacuation_room(g, bytes)) return NULL;
    if (space == &g->nursery && gc_region_fits(space, space->limit, bytes)) return space;
    return &g->old;
}

/* Finds the space for a new object of `bytes`: the nursery, or the old
 * generation for one larger than the nursery.  Collects when it is full
 * (and at every allocation under --gc-stress), a major collection before
 * giving up.  NULL if the request cannot be met. */
static GcRegion *gen_make_room(Generational *g, size_t bytes) {
    Gc *gc = &g->gc;
    bool pretenured = bytes > gc_region_budget(&g->nursery);
    GcRegion *space = pretenured ? &g->old : &g->nursery;
    /* A request larger than the old generation of the maximum heap can
     * never be met. */
    if (pretenured && bytes > g->old_bytes) return NULL;
    if (gc_disabled_once_stopped(gc)) return gen_room_while_disabled(g, space, bytes);
    bool major_done = false;
    if (gc->config.stress) {
        bool major = ++g->stress_collections % GEN_STRESS_MAJOR_PERIOD == 0;
        GcCollectionKind kind = major ? GC_COLLECTION_MAJOR : GC_COLLECTION_MINOR;
        major_done = gen_collect_now(g, kind, GC_REASON_STRESS, pretenured ? bytes : 0) == GC_COLLECTION_MAJOR;
    }
    /* A minor collection empties the nursery; only a major one can make
     * room in the old generation. */
    if (!gen_fits(g, space, bytes) && !major_done)
        gen_collect_now(g, pretenured ? GC_COLLECTION_MAJOR : GC_COLLECTION_MINOR, GC_REASON_ALLOC,
                        pretenured ? bytes : 0);
    return gen_fits(g, space, bytes) ? space : NULL;
}

/* If full, collect; then bump -- and close the fast path if a pretenured
 * object took the old generation past its budget. */
static Obj *gen_alloc_slow(Gc *gc, const RtClass *cls, uint32_t length, size_t bytes) {
    Generational *g = (Generational *)gc;
    GcRegion *space = gen_make_room(g, bytes);
    if (space == NULL) return NULL;
    if (space == &g->old) g->old_objects++;
    Obj *obj = gc_region_alloc_object(gc, space, cls, length, bytes);
    gen_open_nursery(g);
    return obj;
}

/* ---- the heap as a whole ------------------------------------------------- */

/* Also exact in the middle of a collection (an agent handling OBJECT_MOVE
 * may ask about objects): during an evacuation forwarded objects are
 * skipped, and to-survivor and the old generation are walked up to their
 * copies so far; during a compaction the compactor knows what has been
 * freed and slid (compact.h). */
static void gen_walk_heap(Gc *gc, GcObjectVisitor visit, void *ctx) {
    Generational *g = (Generational *)gc;
    const GenCopying *copying = g->copying;
    gc_copy_walk_region(g->nursery.start, g->nursery.top, GEN_NURSERY, visit, ctx);
    for (unsigned i = 0; i < 2; i++) {
        const GcRegion *space = &g->survivors[i];
        bool receiving = copying != NULL && i != g->from;
        gc_copy_walk_region(space->start, receiving ? copying->to_survivor.top : space->top, space->arena_id,
                            visit, ctx);
    }
    const uint8_t *old_top = copying != NULL ? copying->old.top : g->old.top;
    gc_compact_walk_region(&g->compactor, &g->old, old_top, visit, ctx);
}

static bool region_holds(const GcRegion *region, const Obj *obj) {
    return (const uint8_t *)obj >= region->start && (const uint8_t *)obj < region->top;
}

/* Outside a collection: the young space the object lies in, or the old
 * generation. */
static uint32_t gen_arena_of(Gc *gc, const Obj *obj) {
    Generational *g = (Generational *)gc;
    if (region_holds(&g->nursery, obj)) return GEN_NURSERY;
    for (unsigned i = 0; i < 2; i++)
        if (region_holds(&g->survivors[i], obj)) return g->survivors[i].arena_id;
    return GEN_OLD;
}

/* Frees whatever `g` holds; each part may be missing (a failed create). */
static void gen_release(Generational *g) {
    if (g->old.start != NULL) gc_region_release(&g->old, &g->memory);
    if (g->young_block != NULL) gc_memory_region_free(&g->memory, g->young_block, g->young_block_bytes);
    gc_compactor_free(&g->compactor);
    gc_objlist_free(&g->remembered);
    gc_memory_release(&g->memory);
    free(g);
}

/* `bytes` of the young block at `start`, as an empty space of arena `arena_id`. */
static GcRegion gen_young_space(uint8_t *start, size_t bytes, uint32_t arena_id) {
    return (GcRegion){
        .start = start, .top = start, .limit = start + bytes, .end = start + bytes, .arena_id = arena_id};
}

static Gc *gen_create(const GcConfig *config) {
    size_t align_mask = ~(size_t)(OBJ_ALIGN - 1);
    size_t young_bytes = config->young_bytes != 0 ? config->young_bytes : config->heap_bytes / 4;
    if (young_bytes > config->heap_bytes / 2) young_bytes = config->heap_bytes / 2;
    size_t nursery_bytes = young_bytes & align_mask;
    size_t survivor_bytes = nursery_bytes / GEN_SURVIVOR_FRACTION & align_mask;
    size_t young_block_bytes = nursery_bytes + 2 * survivor_bytes;
    if (nursery_bytes == 0 || young_block_bytes >= config->heap_bytes) return NULL;
    size_t old_bytes = (config->heap_bytes - young_block_bytes) & align_mask;
    if (old_bytes == 0) return NULL;

    Generational *g = calloc(1, sizeof *g);
    if (g == NULL) return NULL;
    gc_objlist_init(&g->remembered);
    if (!gc_memory_init(&g->memory)) {
        free(g);
        return NULL;
    }
    /* Past the old budget: a reserve for one evacuation, and beyond it
     * room to grow while collection is disabled (region.h). */
    size_t evacuation_reserve = nursery_bytes + survivor_bytes;
    g->young_block = gc_memory_region_alloc(&g->memory, young_block_bytes);
    g->young_block_bytes = young_block_bytes;
    g->gc.young_start = (uintptr_t)g->young_block;
    g->gc.young_bytes = g->young_block != NULL ? young_block_bytes : 0;
    bool ready = g->young_block != NULL &&
                 gc_region_init(&g->old, &g->memory, old_bytes, evacuation_reserve, GEN_OLD) &&
                 gc_compactor_init(&g->compactor, &g->old);
    if (!ready) {
        gen_release(g);
        return NULL;
    }
    g->nursery = gen_young_space(g->young_block, nursery_bytes, GEN_NURSERY);
    for (unsigned i = 0; i < 2; i++)
        g->survivors[i] = gen_young_space(g->young_block + nursery_bytes + i * survivor_bytes, survivor_bytes,
                                          GEN_SURVIVOR_0 + i);
    g->nursery_bytes = nursery_bytes;
    g->survivor_bytes = survivor_bytes;
    g->old_bytes = old_bytes;
    g->tenure_age = config->tenure_age < GEN_AGE_MASK ? config->tenure_age : GEN_AGE_MASK;

    Gc *gc = &g->gc;
    gc_init(gc, &gc_generational_ops, config, 0);
    /* From -Xms up, with room for the first minor collection's promotion. */
    gc_region_set_budget(&g->old, gc_heap_floor(config, old_bytes));
    gen_size_old(g, 0);
    gen_open_nursery(g);
    return gc;
}

/* Frees every space and with them every object.  No events: the heap's end
 * is not a collection (its objects simply cease with the VM). */
static void gen_destroy(Gc *gc) { gen_release((Generational *)gc); }

/* ---- the collector's tables ---------------------------------------------- */

static const GcConstraints gen_constraints = {
    .name = "generational",
    .description = "generational: a copied nursery and survivor spaces, promotion by age, "
                   "a mark-compact old generation",
    .moves_objects = true,
    .barrier = GC_BARRIER_GENERATIONAL,
    .num_arenas = 4,
    .arenas = gen_arenas,
};

const GcOps gc_generational_ops = {
    .constraints = &gen_constraints,
    .create = gen_create,
    .destroy = gen_destroy,
    .alloc_slow = gen_alloc_slow,
    .write_barrier = gen_write_barrier,
    .collect = gen_collect,
    .walk_heap = gen_walk_heap,
    .arena_of = gen_arena_of,
};
