/*
 * refcount.c -- the reference-counting collector (--gc=refcount), deferred,
 * with cycle collection.
 *
 * Invariant, between collections (reconciliations):
 *   - objects.items[0 .. objects.count) are exactly the allocated objects,
 *     each knowing its index (RcLinks); candidates likewise, or
 *     RC_NOT_BUFFERED; every purple object is a candidate;
 *   - an object's count is the heap slots referring to it plus its entries
 *     in counted_roots (or it is sticky); no object is ROOTED, gray or white;
 *   - every object with a count of zero is in the ZCT, once, with IN_ZCT;
 *   - gc_used_bytes <= the capacity (budget.h), except while the VM has
 *     disabled collection.
 * Events: the VMPI patent's REFERENCE-COUNTING GARBAGE COLLECTOR, in the order
 * docs/event-mapping.md gives (its refcount section), the one place it is
 * written; tests/unit/gc_refcount.c checks this file posts it.
 * Mechanism events (docs/mechanism-events.md): phase "reconcile" (with
 * "count-roots" in deferred mode, "free-zero-counts", "trial-deletion"),
 * immediate mode's "release"; REFCOUNT_CHANGE at every change of a count;
 * each OBJECT_FREE after its OBJECT_FREE_CAUSE (zero-count, cascade, cycle).
 *
 * Two modes (--rc-mode).  Deferred (the default; Deutsch-Bobrow): the
 * barrier counts heap references only, a zero count goes into the
 * zero-count table (ZCT), and a reconciliation (1) counts the roots, (2)
 * uncounts the previous reconciliation's roots, (3) frees the ZCT entries
 * still at zero, with their cascades, (4) when due runs Bacon-Rajan trial
 * deletion over the candidate buffer, (5) clears ROOTED.  Immediate
 * (Gc.counts_roots): the VM reports every root slot's references too
 * (gc_root_gained, gc_root_lost), so a count is every reference there is,
 * and the store, pop or return that takes it to zero frees the object and
 * its cascade at once, in a collection of its own; a reconciliation then
 * only frees new objects that were never stored and collects cycles.  The
 * reasoning, the candidate rule and storage: docs/collectors/refcount.md;
 * the header word: refcount.h.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gc/common/budget.h"
#include "gc/common/collect.h"
#include "gc/common/memory.h"
#include "gc/common/objlist.h"
#include "gc/common/trace.h"
#include "gc/common/verify.h"
#include "gc/common/weak.h"
#include "gc/gc.h"
#include "refcount.h"

#define RC_ARENA_ID 1u
/* New objects and objects whose count dropped to zero since the last
 * reconciliation: this many make the next allocation reconcile. */
#define RC_ZCT_LIMIT 4096u
/* The fewest candidates that make a reconciliation collect cycles. */
#define RC_MIN_CANDIDATES 4096u
/* RcLinks.candidate_index of an object that is not a candidate. */
#define RC_NOT_BUFFERED UINT32_MAX
/* Table positions are 32 bits, and one value means "not buffered". */
#define RC_MAX_OBJECTS ((size_t)UINT32_MAX)

/* What precedes every object in its block: where it is listed. */
typedef struct RcLinks {
    uint32_t table_index;     /* in RefCount.objects */
    uint32_t candidate_index; /* in RefCount.candidates, or RC_NOT_BUFFERED */
} RcLinks;

typedef struct RefCount {
    Gc gc;                     /* first, so a Gc * is a RefCount * */
    GcMemory memory;
    GcObjectList objects;      /* every allocated object, in no particular order */
    GcObjectList zct;          /* the zero-count table */
    GcObjectList candidates;   /* possible roots of garbage cycles (purple) */
    GcObjectList counted_roots; /* one entry per root slot counted at the last reconciliation */
    GcObjectList roots_now;    /* the same, being counted by this reconciliation */
    GcObjectList worklist;     /* objects still to visit: frees, trial deletion */
    GcObjectList doomed;       /* members of garbage cycles, found and not yet freed */
} RefCount;

/* RefCount's lists, for making and freeing them all alike. */
#define RC_LISTS(rc)                                                                                  \
    {&(rc)->objects, &(rc)->zct, &(rc)->candidates, &(rc)->counted_roots, &(rc)->roots_now,           \
     &(rc)->worklist, &(rc)->doomed}

extern const GcOps gc_refcount_ops;

static inline RcLinks *rc_links(const Obj *obj) { return (RcLinks *)(uintptr_t)obj - 1; }

static inline bool rc_is_buffered(const Obj *obj) {
    return rc_links(obj)->candidate_index != RC_NOT_BUFFERED;
}

/* Objects without reference slots can be on no cycle. */
static inline bool rc_has_ref_slots(const Obj *obj) {
    size_t count;
    obj_ref_slots(obj, &count);
    return count > 0;
}

/* ---- counting ------------------------------------------------------------ */

/* Whether an agent wants REFCOUNT_CHANGE.  The counting functions take
 * the answer as `post`, so that a loop (or the barrier) reads it once. */
static inline bool rc_changes_wanted(void) { return GC_EVENT_WANTED(GC_EVENT_REFCOUNT_CHANGE); }

/* Adds one to the count, unless it is sticky. */
static inline void rc_count_up(Obj *obj, bool post) {
    if ((obj->gc_word & RC_COUNT_MASK) == RC_COUNT_STICKY) return;
    obj->gc_word++;
    if (post) gc_post_refcount_change(obj, rc_count(obj));
}

/* Takes one from the count, unless it is sticky; returns the new count. */
static inline uint32_t rc_count_down(Obj *obj, bool post) {
    if ((obj->gc_word & RC_COUNT_MASK) != RC_COUNT_STICKY) {
        obj->gc_word--;
        if (post) gc_post_refcount_change(obj, rc_count(obj));
    }
    return rc_count(obj);
}

/* A new reference (Bacon-Rajan's Increment): the object is in use, so it
 * is no longer a possible cycle root (black; a candidate entry for it is
 * dropped at the next cycle collection). */
static inline void rc_increment(Obj *obj, bool post) {
    rc_count_up(obj, post);
    rc_set_colour(obj, RC_BLACK);
}

/* Puts `obj` into the candidate buffer. */
static void rc_buffer(RefCount *rc, Obj *obj) {
    rc_links(obj)->candidate_index = (uint32_t)rc->candidates.count;
    gc_objlist_push(&rc->candidates, obj);
}

/* Takes buffered `obj` out of the candidate buffer: the last entry moves
 * into its place. */
static void rc_unbuffer(RefCount *rc, Obj *obj) {
    RcLinks *links = rc_links(obj);
    Obj *last = rc->candidates.items[--rc->candidates.count];
    rc->candidates.items[links->candidate_index] = last;
    rc_links(last)->candidate_index = links->candidate_index;
    links->candidate_index = RC_NOT_BUFFERED;
}

/* `obj` is alive but may have become the way into a garbage cycle
 * (Bacon-Rajan's PossibleRoot): it turns purple and is buffered, unless
 * cycles are not collected, it can be on none, or a root refers to it now
 * (docs/collectors/refcount.md). */
static void rc_possible_root(RefCount *rc, Obj *obj) {
    if (!rc->gc.config.rc_cycles || (obj->gc_word & RC_ROOTED) || rc_colour(obj) == RC_PURPLE) return;
    if (!rc_has_ref_slots(obj)) return;
    rc_set_colour(obj, RC_PURPLE);
    if (!rc_is_buffered(obj)) rc_buffer(rc, obj);
}

/* A counted reference to `obj` is gone: a count of zero puts it into the
 * ZCT (a root may still hold it), any other makes it a possible root. */
static void rc_list_in_zct(RefCount *rc, Obj *obj) {
    if (obj->gc_word & RC_IN_ZCT) return;
    obj->gc_word |= RC_IN_ZCT;
    gc_objlist_push(&rc->zct, obj);
}

static void rc_decrement(RefCount *rc, Obj *obj, bool post) {
    if (rc_count_down(obj, post) > 0) rc_possible_root(rc, obj);
    else rc_list_in_zct(rc, obj);
}

/* Takes `obj` out of the ZCT (immediate mode frees it before its entry is
 * reached): the last entry moves into its place.  Searched from the end,
 * where the objects made since the last reconciliation are. */
static void rc_zct_forget(RefCount *rc, Obj *obj) {
    Obj **entries = rc->zct.items;
    size_t i = rc->zct.count;
    while (entries[--i] != obj) {}
    entries[i] = entries[--rc->zct.count];
    obj->gc_word &= ~RC_IN_ZCT;
}

/* Out of line, so that the barrier's usual path saves no registers. */
__attribute__((noinline)) static void rc_drop_now(RefCount *rc, Obj *obj);

/* The barrier counts the new referent before it uncounts the old one, so
 * storing the value a slot already holds never takes its count through
 * zero (into the ZCT for nothing).  In deferred mode it frees nothing -- a
 * zero count only lists the object in the ZCT; in immediate mode
 * (barrier_frees) it may free the old referent (rc_drop_now), which is why
 * the interpreter saves its state first (gc_barrier_calls_out). */
static void rc_write_barrier(Gc *gc, Obj *holder, Obj **slot, Obj *value) {
    (void)holder;
    RefCount *rc = (RefCount *)gc;
    Obj *old = *slot;
    if (value != NULL) rc_increment(value, rc_changes_wanted());
    *slot = value;
    if (old == NULL) return;
    if (gc->barrier_frees) rc_drop_now(rc, old);
    else rc_decrement(rc, old, rc_changes_wanted());
}

/* ---- freeing ------------------------------------------------------------- */

/* weak.h's liveness test while `dying` is freed: every other object lives. */
static bool rc_is_not(const Obj *obj, void *dying) { return obj != dying; }

/* Frees `obj` now, for `cause` (OBJECT_FREE_CAUSE): out of the candidate buffer, the table and the
 * statistics (so that an agent walking the heap from its OBJECT_FREE
 * handler finds it gone), OBJECT_FREE, back to the memory layer.  Its
 * references must already be accounted for (released, or subtracted by
 * trial deletion). */
static void rc_free(RefCount *rc, Obj *obj, const char *cause) {
    RcLinks *links = rc_links(obj);
    if (links->candidate_index != RC_NOT_BUFFERED) rc_unbuffer(rc, obj);
    Obj *last = rc->objects.items[--rc->objects.count];
    rc->objects.items[links->table_index] = last;
    rc_links(last)->table_index = links->table_index;

    gc_clear_dead_weak_roots(&rc->gc, rc_is_not, obj);
    size_t bytes = obj_size(obj);
    GcStats *stats = &rc->gc.stats;
    stats->objects_freed++;
    stats->bytes_freed += bytes;
    gc_post_object_free_because(obj, cause);
    gc_memory_free(&rc->memory, links, sizeof *links + bytes);
}

/* Dead `dead` gives up its references (its slots are cleared, so it
 * refers to nothing freed while it waits): a referent whose count reaches
 * zero is dead too and goes on the work list, and one whose count does not
 * may head a garbage cycle now.  Then `dead` is freed, for
 * `cause` -- unless it is still listed in the ZCT: in deferred mode its
 * entry frees it (rc_settle_zct), which must not be left pointing at freed
 * memory; in immediate mode, between reconciliations, the entry is taken
 * out and it is freed now. */
GC_ALWAYS_INLINE void rc_release_one(RefCount *rc, Obj *dead, const char *cause, bool post, bool immediate) {
    size_t count;
    Obj **slots = obj_ref_slots(dead, &count);
    for (size_t i = 0; i < count; i++) {
        Obj *child = slots[i];
        if (child == NULL) continue;
        slots[i] = NULL;
        if (rc_count_down(child, post) > 0) rc_possible_root(rc, child);
        else gc_objlist_push(&rc->worklist, child);
    }
    if (immediate && (dead->gc_word & RC_IN_ZCT)) rc_zct_forget(rc, dead);
    if (!(dead->gc_word & RC_IN_ZCT)) rc_free(rc, dead, cause);
}

/* Frees dead `obj` (count zero, not IN_ZCT) and, through the work list,
 * everything only it kept alive (rc_release_one).  A root holds no object
 * with a count of zero: a reconciliation counts the roots, and immediate
 * mode counts them all the time. */
GC_ALWAYS_INLINE void rc_release(RefCount *rc, Obj *obj, bool immediate) {
    const bool post = rc_changes_wanted();
    rc_release_one(rc, obj, GC_FREE_ZERO_COUNT, post, immediate);
    Obj *dead;
    while ((dead = gc_objlist_pop(&rc->worklist)) != NULL)
        rc_release_one(rc, dead, GC_FREE_CASCADE, post, immediate);
}

/* ---- immediate mode ------------------------------------------------------ */

/* Immediate mode: a heap or root slot dropped a reference to `obj`.  If
 * that was its last reference -- every reference is counted, roots too --
 * it is freed at once with everything only it kept alive (the VMPI
 * patent's "delete_object event when the reference count of an object
 * drops to zero"), in a collection of its own, since OBJECT_FREE is posted
 * only inside one.  While the VM has disabled collection, it waits in the
 * ZCT for the next reconciliation instead.  The release runs where the
 * count fell, on the program thread, as a reference-counted runtime frees
 * on the thread that dropped the last reference: handing each free to the
 * GC thread (gc_run_collection, as reconciliations are) would cost more
 * than the free itself. */
static void rc_drop_now(RefCount *rc, Obj *obj) {
    if (rc_count_down(obj, rc_changes_wanted()) > 0) {
        rc_possible_root(rc, obj);
        return;
    }
    Gc *gc = &rc->gc;
    if (gc_is_disabled(gc)) {
        rc_list_in_zct(rc, obj);
        return;
    }
    GcCollection collection = gc_collection_begin(gc, GC_COLLECTION_MAJOR, GC_REASON_ZERO_COUNT);
    gc_post_phase_start("release");
    rc_release(rc, obj, true);
    gc_post_phase_end("release");
    gc_collection_end(gc, &collection);
}

/* ops->root_gained and root_lost: a root slot's reference, counted like a
 * heap slot's. */
static void rc_root_gained(Gc *gc, Obj *obj) {
    (void)gc;
    rc_increment(obj, rc_changes_wanted());
}

static void rc_root_lost(Gc *gc, Obj *obj) { rc_drop_now((RefCount *)gc, obj); }

/* ---- reconciling --------------------------------------------------------- */

/* Step 1: counts one root slot. */
static void rc_count_root(Obj **slot, void *ctx) {
    RefCount *rc = ctx;
    Obj *obj = *slot;
    if (obj == NULL) return;
    rc_increment(obj, rc_changes_wanted());
    obj->gc_word |= RC_ROOTED;
    gc_objlist_push(&rc->roots_now, obj);
}

/* Step 2: takes back the previous reconciliation's root counts. */
static void rc_uncount_old_roots(RefCount *rc) {
    GcObjectList *old = &rc->counted_roots;
    const bool post = rc_changes_wanted();
    for (size_t i = 0; i < old->count; i++) rc_decrement(rc, old->items[i], post);
    old->count = 0;
}

/* Step 3: frees every ZCT entry whose count is zero, and what they alone
 * kept alive.  First the dead entries are moved to the front [0, dead)
 * and leave the table (IN_ZCT cleared); the others keep IN_ZCT while the
 * dead are released, so a cascade that reaches one of them leaves it to
 * its entry (rc_release).  Then each remaining entry is either dead now
 * (released by a cascade: freed) or alive (a possible root). */
static void rc_settle_zct(RefCount *rc) {
    Obj **entries = rc->zct.items;
    size_t count = rc->zct.count, dead = 0;
    for (size_t i = 0; i < count; i++) {
        Obj *obj = entries[i];
        if (rc_count(obj) != 0) continue;
        obj->gc_word &= ~RC_IN_ZCT;
        entries[i] = entries[dead];
        entries[dead++] = obj;
    }
    for (size_t i = 0; i < dead; i++) rc_release(rc, entries[i], false);
    for (size_t i = dead; i < count; i++) {
        Obj *obj = entries[i];
        obj->gc_word &= ~RC_IN_ZCT;
        if (rc_count(obj) == 0) rc_free(rc, obj, GC_FREE_CASCADE);
        else rc_possible_root(rc, obj);
    }
    rc->zct.count = 0;
}

/* ---- cycle collection (Bacon-Rajan trial deletion) ----------------------- */

/* MarkGray and ScanBlack are one traversal in two directions.  From
 * `root`, it paints `colour` on everything reachable that does not have it
 * yet, and for each reference it follows it either takes the reference off
 * its referent's count (gray: MarkGray, so what is left of a gray count is
 * the references from outside, other objects and roots) or gives it back
 * (black: ScanBlack, for what turned out to be referenced from outside).
 * It drains the work list only down to where it found it, because rc_scan
 * calls it with items of its own on the list. */
static void rc_paint(RefCount *rc, Obj *root, RcColour colour) {
    const bool post = rc_changes_wanted();
    GcObjectList *worklist = &rc->worklist;
    size_t base = worklist->count;
    rc_set_colour(root, colour);
    gc_objlist_push(worklist, root);
    while (worklist->count > base) {
        Obj *obj = gc_objlist_pop(worklist);
        size_t count;
        Obj **slots = obj_ref_slots(obj, &count);
        for (size_t i = 0; i < count; i++) {
            Obj *child = slots[i];
            if (child == NULL) continue;
            if (colour == RC_GRAY) rc_count_down(child, post);
            else rc_count_up(child, post);
            if (rc_colour(child) != colour) {
                rc_set_colour(child, colour);
                gc_objlist_push(worklist, child);
            }
        }
    }
}

/* Scan: a gray object with a count left is referenced from outside
 * (so ScanBlack); one with none is, for now, garbage (white), and so are its
 * gray referents unless something from outside reaches them later. */
static void rc_scan(RefCount *rc, Obj *root) {
    GcObjectList *worklist = &rc->worklist;
    gc_objlist_push(worklist, root);
    Obj *obj;
    while ((obj = gc_objlist_pop(worklist)) != NULL) {
        if (rc_colour(obj) != RC_GRAY) continue;
        if (rc_count(obj) > 0) {
            rc_paint(rc, obj, RC_BLACK); /* ScanBlack */
            continue;
        }
        rc_set_colour(obj, RC_WHITE);
        size_t count;
        Obj **slots = obj_ref_slots(obj, &count);
        for (size_t i = 0; i < count; i++)
            if (slots[i] != NULL) gc_objlist_push(worklist, slots[i]);
    }
}

/* CollectWhite: moves the white objects reachable from `root` through
 * white objects to `doomed`, blackened so that none is listed twice.  They
 * are freed only when every candidate has been through here: the paper
 * frees each at once and lets a later CollectWhite read the colour of a
 * freed object, which real freeing does not allow. */
static void rc_collect_white(RefCount *rc, Obj *root) {
    if (rc_colour(root) != RC_WHITE) return;
    GcObjectList *worklist = &rc->worklist;
    rc_set_colour(root, RC_BLACK);
    gc_objlist_push(worklist, root);
    Obj *obj;
    while ((obj = gc_objlist_pop(worklist)) != NULL) {
        gc_objlist_push(&rc->doomed, obj);
        size_t count;
        Obj **slots = obj_ref_slots(obj, &count);
        for (size_t i = 0; i < count; i++) {
            Obj *child = slots[i];
            if (child == NULL || rc_colour(child) != RC_WHITE) continue;
            rc_set_colour(child, RC_BLACK);
            gc_objlist_push(worklist, child);
        }
    }
}

/* Step 4: CollectCycles.  MarkRoots empties the buffer, keeping aside the
 * candidates that are still purple (one incremented since is black and in
 * use; one grayed from another candidate is part of that one's trial) and
 * graying from each; then each kept candidate is scanned, and the white
 * objects reachable from them are found and freed.  Their references to
 * each other die with them, and MarkGray has already taken their
 * references to black objects off those objects' counts. */
static void rc_collect_cycles(RefCount *rc) {
    GcObjectList *candidates = &rc->candidates;
    Obj **entries = candidates->items;
    size_t kept = 0;
    gc_post_phase_start("mark-gray");
    for (size_t i = 0; i < candidates->count; i++) {
        Obj *obj = entries[i];
        rc_links(obj)->candidate_index = RC_NOT_BUFFERED;
        if (rc_colour(obj) != RC_PURPLE) continue;
        entries[kept++] = obj;
        rc_paint(rc, obj, RC_GRAY); /* MarkGray */
    }
    gc_post_phase_end("mark-gray");
    gc_post_phase_start("scan");
    for (size_t i = 0; i < kept; i++) rc_scan(rc, entries[i]);
    gc_post_phase_end("scan");
    gc_post_phase_start("collect-white");
    for (size_t i = 0; i < kept; i++) rc_collect_white(rc, entries[i]);
    candidates->count = 0;
    GcObjectList *doomed = &rc->doomed;
    for (size_t i = 0; i < doomed->count; i++) rc_free(rc, doomed->items[i], GC_FREE_CYCLE);
    doomed->count = 0;
    gc_post_phase_end("collect-white");
}

/* ---- verifying the counts (--verify-heap) -------------------------------- */

/* References to each object, by its table_index, as the heap and roots
 * hold them now. */
typedef struct RcTally {
    uint32_t *references;
} RcTally;

static void rc_tally_reference(Obj **slot, void *ctx) {
    RcTally *tally = ctx;
    if (*slot != NULL) tally->references[rc_links(*slot)->table_index]++;
}

/* --verify-heap, at each end of a reconciliation: every count that is not
 * sticky equals the references counted -- heap slots, plus the root
 * slots (immediate mode) or the last reconciliation's root entries
 * (deferred).  gc_verify_heap checks the rest of the heap. */
static void rc_verify_counts(RefCount *rc) {
    size_t objects = rc->objects.count;
    RcTally tally = {calloc(objects ? objects : 1, sizeof *tally.references)};
    if (tally.references == NULL) {
        fprintf(stderr, "verify-heap: out of memory while verifying the counts\n");
        gc_fatal_exit(GC_VERIFY_EXIT_STATUS);
    }
    for (size_t i = 0; i < objects; i++) {
        size_t count;
        Obj **slots = obj_ref_slots(rc->objects.items[i], &count);
        for (size_t k = 0; k < count; k++) rc_tally_reference(&slots[k], &tally);
    }
    if (rc->gc.counts_roots) {
        gc_visit_roots(&rc->gc, rc_tally_reference, &tally);
    } else {
        for (size_t i = 0; i < rc->counted_roots.count; i++) rc_tally_reference(&rc->counted_roots.items[i], &tally);
    }
    for (size_t i = 0; i < objects; i++) {
        Obj *obj = rc->objects.items[i];
        if (rc_count(obj) == RC_COUNT_STICKY || rc_count(obj) == tally.references[i]) continue;
        fprintf(stderr, "verify-heap: refcount: %s object %p has count %u but %u counted references\n",
                obj->cls->name, (void *)obj, (unsigned)rc_count(obj), (unsigned)tally.references[i]);
        gc_fatal_exit(GC_VERIFY_EXIT_STATUS);
    }
    free(tally.references);
}

/* ---- collecting ---------------------------------------------------------- */

static bool rc_cycles_due(const RefCount *rc) {
    uint64_t half_heap = gc_used_objects(&rc->gc) / 2;
    uint64_t due = half_heap > RC_MIN_CANDIDATES ? half_heap : RC_MIN_CANDIDATES;
    return rc->candidates.count >= due;
}

/* One reconciliation, steps 1 to 5 (see the top), in one bracket; trial
 * deletion too if call->detail (cycles forced) or the buffer is full enough.  Then the
 * heap is sized for what is left and `request` (gc/common/heapsize.h). */
static void rc_reconcile_call(GcCollectionCall *call) {
    RefCount *rc = (RefCount *)call->gc;
    Gc *gc = call->gc;
    bool cycles = gc->config.rc_cycles && (call->detail || rc_cycles_due(rc));
    GcCollection collection =
        gc_collection_begin(gc, cycles ? GC_COLLECTION_CYCLE : GC_COLLECTION_MAJOR, call->reason);
    if (gc->config.verify) rc_verify_counts(rc);
    gc_post_phase_start("reconcile");
    if (!gc->counts_roots) {
        gc_post_phase_start("count-roots");
        gc_visit_roots(gc, rc_count_root, rc);
        rc_uncount_old_roots(rc);
        gc_post_phase_end("count-roots");
    }
    gc_post_phase_start("free-zero-counts");
    rc_settle_zct(rc);
    gc_post_phase_end("free-zero-counts");
    if (cycles) {
        gc_post_phase_start("trial-deletion");
        rc_collect_cycles(rc);
        gc_post_phase_end("trial-deletion");
    }

    GcObjectList *roots = &rc->roots_now;
    for (size_t i = 0; i < roots->count; i++) roots->items[i]->gc_word &= ~RC_ROOTED;
    GcObjectList counted = rc->counted_roots; /* empty: step 2 used it up */
    rc->counted_roots = *roots;
    *roots = counted;

    gc_post_phase_end("reconcile");
    if (gc->config.verify) rc_verify_counts(rc);
    gc_budget_settle(gc, &rc->memory, call->request);
    gc_collection_end(gc, &collection);
}

static void rc_reconcile(RefCount *rc, GcReason reason, bool force_cycles, size_t request) {
    gc_run_collection(&rc->gc, rc_reconcile_call, reason, request, force_cycles);
}

/* A collection on request reconciles and collects cycles. */
static void rc_collect(Gc *gc, GcReason reason) {
    rc_reconcile((RefCount *)gc, reason, true, 0);
}

/* ---- allocating ---------------------------------------------------------- */

/* Makes room for `bytes` more: reconciles when the ZCT is full, and with
 * cycle collection when the budget would be exceeded (or always, under
 * --gc-stress).  False if the request cannot be met. */
static bool rc_make_room(RefCount *rc, size_t bytes) {
    Gc *gc = &rc->gc;
    bool fits = gc_budget_fits(gc, bytes);
    if (GC_LIKELY(fits && rc->zct.count < RC_ZCT_LIMIT && !gc->config.stress)) return true;
    /* A request larger than the maximum heap can never be met. */
    if (bytes > gc->config.heap_bytes) return false;
    /* Collection is disabled (VMPI DisableGC): nothing may be freed, so the
     * heap grows past its budget for now, and the ZCT with it; the first
     * reconciliation after EnableGC settles both. */
    if (gc_disabled_once_stopped(gc)) return true;
    bool short_of_space = !fits || gc->config.stress;
    rc_reconcile(rc, gc_alloc_reason(gc), short_of_space, bytes);
    return gc_budget_fits(gc, bytes);
}

static Obj *rc_alloc_slow(Gc *gc, const RtClass *cls, uint32_t length, size_t bytes) {
    RefCount *rc = (RefCount *)gc;
    if (!rc_make_room(rc, bytes)) return NULL;
    if (GC_UNLIKELY(rc->objects.count >= RC_MAX_OBJECTS)) return NULL;
    /* The object's two entries, or the request fails here, where the VM can
     * still report the program's out of memory. */
    if (!gc_objlist_make_room(&rc->objects) || !gc_objlist_make_room(&rc->zct)) return NULL;
    RcLinks *links = gc_memory_alloc_zeroed(&rc->memory, sizeof *links + bytes);
    if (GC_UNLIKELY(links == NULL)) return NULL;
    Obj *obj = (Obj *)(links + 1);
    links->table_index = (uint32_t)rc->objects.count;
    links->candidate_index = RC_NOT_BUFFERED;
    gc_objlist_push(&rc->objects, obj);
    gc_objlist_push(&rc->zct, obj); /* its count is zero */
    return gc_new_object(gc, obj, RC_ARENA_ID, cls, length, bytes);
}

/* ---- the heap as a whole ------------------------------------------------- */

static void rc_walk_heap(Gc *gc, GcObjectVisitor visit, void *ctx) {
    RefCount *rc = (RefCount *)gc;
    for (size_t i = 0; i < rc->objects.count; i++) visit(rc->objects.items[i], RC_ARENA_ID, ctx);
}

static Gc *rc_create(const GcConfig *config) {
    RefCount *rc = calloc(1, sizeof *rc);
    if (rc == NULL) return NULL;
    if (!gc_memory_init(&rc->memory)) {
        free(rc);
        return NULL;
    }
    Gc *gc = &rc->gc;
    gc->fresh_gc_word = RC_IN_ZCT; /* count zero, black, in the ZCT */
    gc->barrier_frees = config->rc_immediate;
    gc->counts_roots = config->rc_immediate;
    GcObjectList *lists[] = RC_LISTS(rc);
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++) gc_objlist_init(lists[i]);
    gc_init(gc, &gc_refcount_ops, config, gc_heap_floor(config, config->heap_bytes));
    return gc;
}

/* Frees every object and the heap itself.  No events: the heap's end is
 * not a collection (its objects simply cease with the VM). */
static void rc_destroy(Gc *gc) {
    RefCount *rc = (RefCount *)gc;
    for (size_t i = 0; i < rc->objects.count; i++) {
        Obj *obj = rc->objects.items[i];
        gc_memory_free(&rc->memory, rc_links(obj), sizeof(RcLinks) + obj_size(obj));
    }
    GcObjectList *lists[] = RC_LISTS(rc);
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++) gc_objlist_free(lists[i]);
    gc_memory_release(&rc->memory);
    free(rc);
}

/* ---- the collector's tables ---------------------------------------------- */

static const GcArenaInfo rc_arenas[] = {{RC_ARENA_ID, "heap"}};

static const GcConstraints rc_constraints = {
    .name = "refcount",
    .description = "reference counting: deferred (zero-count table) or immediate (--rc-mode), "
                   "trial deletion of garbage cycles; objects never move",
    .moves_objects = false,
    .barrier = GC_BARRIER_REFCOUNT,
    .num_arenas = 1,
    .arenas = rc_arenas,
};

const GcOps gc_refcount_ops = {
    .constraints = &rc_constraints,
    .create = rc_create,
    .destroy = rc_destroy,
    .alloc_slow = rc_alloc_slow,
    .write_barrier = rc_write_barrier,
    .collect = rc_collect,
    .walk_heap = rc_walk_heap,
    .root_gained = rc_root_gained,
    .root_lost = rc_root_lost,
};
