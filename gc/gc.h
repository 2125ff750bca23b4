/*
 * gc.h -- the one interface between the VM and every collector.
 *
 * The VM never names a collector.  It picks a GcOps by name from the registry
 * (gc_ops_by_name), creates a heap, and from then on only:
 *
 *   allocates        gc_alloc()         inline bump fast path, else ops->alloc_slow
 *   stores refs      gc_write_ref()     into heap objects; inline test, out-of-line barrier
 *   collects         gc_collect()       on request (RunGC, tests)
 *   walks the heap   ops->walk_heap     heap dumps, the verifier, tests
 *   reads statistics gc->stats         counters; gc_used_objects() and kin derive the rest
 *
 * and reads the collector's constant GcConstraints (does it move objects,
 * which barrier it needs, its arenas), never its name.
 *
 * Roots are precise.  The VM hands the collector one callback that visits
 * every reference slot outside the heap -- thread reference stacks, reference
 * statics, interned string constants, native handles -- and a moving
 * collector updates those slots in place.  Between safepoints (allocations)
 * the VM holds no object address anywhere else.
 *
 * Events.  Collectors post the five heap events and GC_START / GC_FINISH
 * through the event port gc/event_port.h, exactly as docs/event-mapping.md gives their row,
 * and bracket every OBJECT_FREE, OBJECT_MOVE and ARENA_DELETE between
 * GC_START and GC_FINISH.
 *
 * Allocation.  One protocol for every collector: the fast path bumps
 * gc->alloc_region->top while the request fits below its limit; otherwise
 * ops->alloc_slow does, in the textbook's words, "if full, collect, then
 * bump" (or take a block of its own, for marksweep and refcount).  The
 * region's top is the only allocation pointer there is.
 *
 * Heap size.  Each collector sizes its heap after every collection from
 * what survived, between -Xms and --heap (-Xmx), by one policy
 * (gc/common/heapsize.h); stats.capacity_bytes is the size right now.
 *
 * Out of memory.  alloc_slow returns NULL when the request cannot be met
 * after a full collection with the heap at its maximum; the VM then reports
 * it (gc_describe_oom) and exits.
 * Collection disabled (VMPI DisableGC) never fails a request on its own:
 * every collector then grows its heap past --heap (region.h, budget.h), and
 * returns NULL only when memory itself is spent.
 */
#ifndef GCLAB_GC_H
#define GCLAB_GC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gc/event_port.h"
#include "gc/object.h"

#define GC_LIKELY(x) __builtin_expect(!!(x), 1)
#define GC_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* For the inline "templates" (trace.h, copy.h): inlined into each caller so
 * that the collector's callbacks fold into direct calls. */
#define GC_ALWAYS_INLINE static inline __attribute__((always_inline))

typedef struct Gc Gc;

typedef enum GcBarrierKind {
    GC_BARRIER_NONE,      /* plain store */
    GC_BARRIER_GENERATIONAL, /* remember old-to-young references */
    GC_BARRIER_REFCOUNT,  /* adjust counts of the old and new referent */
} GcBarrierKind;

typedef struct GcArenaInfo {
    uint32_t arena_id;
    const char *name;     /* "heap", "from-space", "nursery", ... */
} GcArenaInfo;

/* What a collector promises; the VM reads this instead of its name. */
typedef struct GcConstraints {
    const char *name;            /* as given to --gc */
    const char *description;     /* one line for --help */
    bool moves_objects;          /* object IDs change (OBJECT_MOVE) */
    GcBarrierKind barrier;
    uint32_t num_arenas;
    const GcArenaInfo *arenas;   /* the arenas created at start-up */
} GcConstraints;

/* A contiguous block that objects are carved out of by bumping `top`: the
 * heap of a compacting collector, a semispace, a nursery (the layout and its
 * invariants: gc/common/region.h).  Here because gc_alloc bumps it. */
typedef struct GcRegion {
    uint8_t *start;
    uint8_t *top;      /* first free byte */
    uint8_t *limit;    /* end of the budget: start + budget */
    uint8_t *end;      /* end of the block: limit + reserve */
    uint32_t arena_id; /* the VMPI arena its objects are in */
} GcRegion;

typedef void (*GcSlotVisitor)(Obj **slot, void *ctx);
typedef void (*GcObjectVisitor)(Obj *obj, uint32_t arena_id, void *ctx);

/* The VM's precise root set: calls visit(slot, ctx) for every root slot.
 * enumerate_weak (optional) visits the slots that must not keep their
 * objects alive: gc/common/weak.h. */
typedef struct GcRoots {
    void (*enumerate)(void *vm, GcSlotVisitor visit, void *ctx);
    void *vm;
    void (*enumerate_weak)(void *vm, GcSlotVisitor visit, void *ctx);
} GcRoots;

typedef enum GcReason {
    GC_REASON_ALLOC,      /* allocation could not be met */
    GC_REASON_STRESS,     /* --gc-stress */
    GC_REASON_REQUESTED,  /* RunGC, a test, or the program */
    GC_REASON_ZERO_COUNT, /* refcount's immediate mode: a store dropped a last reference */
} GcReason;

/* Where collections run.  A collector hands each collection to
 * gc_run_collection as work(call); the VM's runner runs it on its GC
 * thread, with every program thread stopped, and returns when it is done
 * (vm/interp/gc_thread.c, docs/architecture.md "Threads").  With no runner
 * (unit tests, a mock VM) it runs on the calling thread. */
typedef struct GcCollectionCall {
    Gc *gc;
    GcReason reason;
    size_t request;  /* what the allocation that collects still needs, or 0 */
    int detail;      /* the collector's own, in and out: the kind asked for and
                        run (generational), cycles forced (refcount) */
} GcCollectionCall;
typedef void (*GcCollectionWork)(GcCollectionCall *call);
typedef struct GcCollectionRunner {
    void (*run)(void *vm, GcCollectionWork work, GcCollectionCall *call);
    /* Optional: called where a collection may be about to start, before
     * the collector looks at whether collection is disabled; returns once
     * no other program thread can change that or touch the heap (the VM's
     * threads out in agents' handlers are back: one may call DisableGC). */
    void (*stop)(void *vm);
    void *vm;
} GcCollectionRunner;

typedef struct GcConfig {
    size_t heap_bytes;        /* --heap, -Xmx: the most objects may occupy */
    size_t initial_heap_bytes; /* -Xms: the heap's starting and smallest size;
                                * 0 fixes the heap at heap_bytes (heapsize.h) */
    size_t young_bytes;       /* --young, -Xmn: generational's nursery, its most */
    size_t initial_young_bytes; /* the least the nursery shrinks to (the JVM's
                                 * NewSize; -Xmn sets both); 0 fixes it at
                                 * young_bytes (generational.c) */
    uint32_t tenure_age;      /* --tenure (generational) */
    bool rc_cycles;           /* --rc-cycles (refcount) */
    bool rc_immediate;        /* --rc-mode=immediate (refcount): count root references too,
                               * and free at a zero count */
    bool stress;              /* --gc-stress: collect at every allocation */
    bool verify;              /* --verify-heap: verify before and after each collection */
    FILE *log;                /* --gc-log: one line per collection, or NULL */
    GcCollectionRunner runner; /* where collections run; {0}: on the calling thread */
    GcRoots roots;
    /* Optional: returns true if `cls` is a class the VM created.  The heap
     * verifier uses it to catch headers that are not headers. */
    bool (*is_known_class)(void *vm, const RtClass *cls);
} GcConfig;

typedef struct GcStats {
    uint64_t collections;       /* all kinds */
    uint64_t minor_collections; /* generational nursery collections */
    uint64_t major_collections; /* full-heap collections */
    uint64_t cycle_collections; /* refcount trial deletions */
    uint64_t objects_allocated, bytes_allocated;
    uint64_t objects_freed, bytes_freed;   /* explicit frees and arena deletes */
    uint64_t objects_moved, bytes_moved;
    uint64_t total_pause_ns, max_pause_ns;
    /* What objects may occupy until the next collection (the whole heap, a
     * semispace, ...): set by create, resized after each collection
     * (heapsize.h).  What is in use is derived, never stored:
     * gc_used_objects, gc_used_bytes, gc_total_bytes below. */
    uint64_t capacity_bytes;
} GcStats;

typedef struct GcOps {
    const GcConstraints *constraints;
    Gc *(*create)(const GcConfig *config);
    void (*destroy)(Gc *gc);
    /* Allocate `bytes` (== obj_size_for(cls, length)) zeroed, fill the header,
     * post OBJECT_ALLOC; collect if needed; NULL if the heap is exhausted. */
    Obj *(*alloc_slow)(Gc *gc, const RtClass *cls, uint32_t length, size_t bytes);
    /* Store `value` into `*slot`, a reference slot inside `holder`.  Must not
     * allocate or move objects.  It posts no event and frees nothing unless
     * gc_barrier_calls_out says it may: the barrier's mechanism events
     * (REMEMBERED_SET_ADD, REFCOUNT_CHANGE: docs/mechanism-events.md) and
     * refcount's immediate frees; the interpreter then saves its registers
     * to the thread first (vm/interp/interp.c, STORE_REF). */
    void (*write_barrier)(Gc *gc, Obj *holder, Obj **slot, Obj *value);
    /* Called only through gc_collect, never while collection is disabled. */
    void (*collect)(Gc *gc, GcReason reason);
    /* Visit every object that is allocated and not yet freed, with its arena. */
    void (*walk_heap)(Gc *gc, GcObjectVisitor visit, void *ctx);
    /* The arena live object `obj` is in, outside a collection, in O(1): for
     * a collector of several arenas; NULL for one of a single arena
     * (gc_arena_of). */
    uint32_t (*arena_of)(Gc *gc, const Obj *obj);
    /* Only for a collector that sets Gc.counts_roots (NULL otherwise): a
     * root slot now refers to `obj` (non-null), or no longer does.  Lost
     * may free objects, posting events, like a barrier that frees. */
    void (*root_gained)(Gc *gc, Obj *obj);
    void (*root_lost)(Gc *gc, Obj *obj);
} GcOps;

/* Every collector's state begins with this record. */
struct Gc {
    const GcOps *ops;
    /* The region gc_alloc bumps: the one home of its allocation pointer,
     * alloc_region->top, which the fast path and the collector alike
     * advance.  &gc_closed_region (nothing fits) for collectors without a
     * fast path and under --gc-stress (gc_region_open, region.h). */
    GcRegion *alloc_region;
    GcBarrierKind barrier;
    uint32_t fresh_gc_word;   /* header gc_word of a new object */
    /* GC_BARRIER_GENERATIONAL: objects in [young_start, young_start +
     * young_bytes) are young.  The inline barrier needs the slow path only
     * for a store that makes an old object point at a young one. */
    uintptr_t young_start;
    uintptr_t young_bytes;
    /* VMPI DisableGC nesting: no collection while > 0.  Atomic: an agent's
     * own thread disables and enables while a program thread allocates. */
    _Atomic int disabled_depth;
    /* The out-of-line barrier may free objects (refcount's immediate mode):
     * gc_barrier_calls_out. */
    bool barrier_frees;
    /* The collector counts the references held by root slots (refcount's
     * immediate mode): the VM reports every reference a root slot gains
     * and loses (gc_write_root; vm/interp/interp.c runs its counting
     * loop).  False for every other collector, which sees roots only when
     * it enumerates them. */
    bool counts_roots;
    /* Between GC_START and GC_FINISH (gc_collection_begin .. end): the heap
     * is half processed, so nothing outside the collector may walk it. */
    bool collecting;
    GcConfig config;
    GcStats stats;
};

/* The region of no room: top == limit == NULL. */
extern GcRegion gc_closed_region;

/* ---- statistics ---------------------------------------------------------- */

/* One rule for every collector: an object is in use from its OBJECT_ALLOC
 * (gc_new_object counts it allocated) until its OBJECT_FREE or the
 * ARENA_DELETE that ends it (the collector counts it freed), so the heap
 * right now is the difference -- moves change neither count.  GC_FINISH
 * reports these (JVMPI gc_info). */
static inline uint64_t gc_used_objects(const Gc *gc) {
    return gc->stats.objects_allocated - gc->stats.objects_freed;
}

static inline uint64_t gc_used_bytes(const Gc *gc) {
    return gc->stats.bytes_allocated - gc->stats.bytes_freed;
}

/* The heap's size: its capacity, or what is in use once the heap has grown
 * past that (while collection was disabled), so used <= total always. */
static inline uint64_t gc_total_bytes(const Gc *gc) {
    uint64_t used = gc_used_bytes(gc);
    return used > gc->stats.capacity_bytes ? used : gc->stats.capacity_bytes;
}

/* The arena live object `obj` is in, outside a collection: what its
 * OBJECT_ALLOC said, or the last OBJECT_MOVE (GcOps.arena_of). */
static inline uint32_t gc_arena_of(Gc *gc, const Obj *obj) {
    return gc->ops->arena_of ? gc->ops->arena_of(gc, obj) : gc->ops->constraints->arenas[0].arena_id;
}

/* ---- the fast paths ---------------------------------------------------- */

/* The one way an object comes to be, on every path: zero-filled `block`
 * (`bytes` == obj_size_for(cls, length)) gets its header -- class `cls`,
 * gc->fresh_gc_word, `length` -- is counted in objects_allocated and
 * bytes_allocated, and is announced by OBJECT_ALLOC in arena `arena_id` (and
 * sampled, by heap sampling's count of bytes_allocated: gc/event_port.h). */
static inline Obj *gc_new_object(Gc *gc, void *block, uint32_t arena_id, const RtClass *cls,
                                 uint32_t length, size_t bytes) {
    Obj *obj = block;
    obj->cls = cls;
    obj->gc_word = gc->fresh_gc_word;
    obj->length = length;
    gc->stats.objects_allocated++;
    gc->stats.bytes_allocated += bytes;
    gc_post_object_alloc(&gc->stats.bytes_allocated, arena_id, obj, bytes);
    return obj;
}

static inline Obj *gc_alloc(Gc *gc, const RtClass *cls, uint32_t length) {
    size_t bytes = obj_size_for(cls, length);
    GcRegion *region = gc->alloc_region;
    uint8_t *p = region->top;
    /* Signed: a region whose top is past its limit (the reserve in use) has
     * no room either. */
    if (GC_LIKELY(region->limit - p >= (ptrdiff_t)bytes)) {
        region->top = p + bytes;
        return gc_new_object(gc, p, region->arena_id, cls, length, bytes);
    }
    return gc->ops->alloc_slow(gc, cls, length, bytes);
}

static inline bool gc_is_young(const Gc *gc, const void *p) {
    return (uintptr_t)p - gc->young_start < gc->young_bytes;
}

/* The barrier's inline test (as Lua's luaC_barrier tests before it calls
 * out of line): does the store itself and returns true when the collector
 * need not see it; returns false, storing nothing, when it must go through
 * ops->write_barrier -- every store under reference counting, and under a
 * generational barrier a store that makes an old object point at a young
 * one. */
static inline bool gc_write_ref_fast(const Gc *gc, Obj *holder, Obj **slot, Obj *value) {
    switch (gc->barrier) {
    case GC_BARRIER_NONE:
        break;
    case GC_BARRIER_GENERATIONAL:
        if (!gc_is_young(gc, holder) && gc_is_young(gc, value)) return false;
        break;
    case GC_BARRIER_REFCOUNT:
        return false;
    }
    *slot = value;
    return true;
}

/* Whether ops->write_barrier may, right now, post an event or free objects,
 * so that a caller holding its state in registers must save it to the
 * thread first (vm/interp/interp.c, STORE_REF): the collector's barrier
 * frees, or an agent enabled a barrier's mechanism event. */
static inline bool gc_barrier_calls_out(const Gc *gc) {
    return gc->barrier_frees || gc_barrier_events_wanted();
}

/* Every store of a reference into a heap object goes through here. */
static inline void gc_write_ref(Gc *gc, Obj *holder, Obj **slot, Obj *value) {
    if (GC_UNLIKELY(!gc_write_ref_fast(gc, holder, slot, value))) gc->ops->write_barrier(gc, holder, slot, value);
}

/* ---- counted roots (Gc.counts_roots) ------------------------------------- */

/* A root slot gained (lost) a reference to `obj`, which may be null.
 * Only when gc->counts_roots; losing one may free objects (events), so a
 * caller keeping its state in registers saves it first. */
static inline void gc_root_gained(Gc *gc, Obj *obj) {
    if (obj != NULL) gc->ops->root_gained(gc, obj);
}

static inline void gc_root_lost(Gc *gc, Obj *obj) {
    if (obj != NULL) gc->ops->root_lost(gc, obj);
}

/* Every store into a root slot outside the interpreter's loop (statics
 * set at link time, a thread's object, a monitor's object, natives'
 * global references) goes through here: a plain store unless the
 * collector counts roots.  The new referent is counted before the old is
 * uncounted, so storing what the slot holds frees nothing. */
static inline void gc_write_root(Gc *gc, Obj **slot, Obj *value) {
    if (GC_LIKELY(!gc->counts_roots)) {
        *slot = value;
        return;
    }
    Obj *old = *slot;
    gc_root_gained(gc, value);
    *slot = value;
    gc_root_lost(gc, old);
}

/* ---- disabling collection (VMPI DisableGC / EnableGC) -------------------- */

/* The calls nest, as JVMPI 1.2's DisableGC and EnableGC do: collection is
 * disabled while more gc_disable calls than gc_enable calls have been made.
 * vmpi also disables it around every event it sends with object IDs. */
static inline void gc_disable(Gc *gc) { gc->disabled_depth++; }

/* Undoes one gc_disable.  Returns false, changing nothing, if there was none
 * to undo (an unbalanced EnableGC). */
static inline bool gc_enable(Gc *gc) {
    int depth = atomic_load(&gc->disabled_depth);
    do {
        if (depth <= 0) return false;
    } while (!atomic_compare_exchange_weak(&gc->disabled_depth, &depth, depth - 1));
    return true;
}

static inline bool gc_is_disabled(const Gc *gc) { return gc->disabled_depth > 0; }

/* Where a collection may start: stops the other program threads first
 * (GcCollectionRunner.stop), then says whether collection is disabled. */
static inline bool gc_disabled_once_stopped(Gc *gc) {
    if (gc->config.runner.stop) gc->config.runner.stop(gc->config.runner.vm);
    return gc_is_disabled(gc);
}

static inline bool gc_is_collecting(const Gc *gc) { return gc->collecting; }

/* A collection on request; none at all while the VM has disabled collection
 * (VMPI DisableGC), so ops->collect never has to test for it. */
static inline void gc_collect(Gc *gc, GcReason reason) {
    if (gc_disabled_once_stopped(gc)) return;
    gc->ops->collect(gc, reason);
}

/* Runs one collection, work(call), where the VM runs collections
 * (GcConfig.runner), and returns the call's detail as work left it.
 * Every collection of every collector goes through here. */
static inline int gc_run_collection(Gc *gc, GcCollectionWork work, GcReason reason, size_t request, int detail) {
    GcCollectionCall call = {.gc = gc, .reason = reason, .request = request, .detail = detail};
    if (gc->config.runner.run)
        gc->config.runner.run(gc->config.runner.vm, work, &call);
    else
        work(&call);
    return call.detail;
}

/* Why an allocation's slow path collects: --gc-stress, or the heap is full. */
static inline GcReason gc_alloc_reason(const Gc *gc) {
    return gc->config.stress ? GC_REASON_STRESS : GC_REASON_ALLOC;
}

/* ---- shared machinery (gc/common/) -------------------------------------- */

/* The registry: NULL-terminated list, and lookup by --gc name. */
extern const GcOps *const gc_all_collectors[];
const GcOps *gc_ops_by_name(const char *name);
#define GC_DEFAULT_COLLECTOR "generational"

/* For a collector's create, once its memory is ready: sets gc->ops, the
 * barrier its constraints name, a copy of `config`, the statistics'
 * `capacity_bytes`, a closed fast path, and posts ARENA_NEW
 * for each of the constraints' arenas, in order.  The rest of `gc` is the
 * collector's (and zero, from calloc, until it says otherwise). */
void gc_init(Gc *gc, const GcOps *ops, const GcConfig *config, uint64_t capacity_bytes);

/* The write_barrier of a collector with GC_BARRIER_NONE: gc_write_ref never
 * calls it (the inline test stores), but every GcOps slot is callable. */
void gc_store_without_barrier(Gc *gc, Obj *holder, Obj **slot, Obj *value);

/* How a collector ends the process when it cannot go on: out of C memory
 * in the middle of a collection, or a heap that fails --verify-heap.  It
 * has already said why on stderr; the VM's way out (set once by the VM
 * with gc_set_fatal_exit) still offers JVM_SHUT_DOWN to every agent, so
 * their files are complete.  Plain exit() until one is set (unit tests). */
void gc_set_fatal_exit(void (*fatal_exit)(int status));
_Noreturn void gc_fatal_exit(int status);

/* Writes "out of memory: ..." for a failed request into buf: the maximum
 * heap, and the flag that raises it. */
void gc_describe_oom(const Gc *gc, size_t request, char *buf, size_t bufsize);

/* With --gc-log: one closing line for the whole run (collections by kind,
 * total and longest pause, objects allocated, freed and moved, peak RSS). */
void gc_log_summary(const Gc *gc);

/* ---- what the VM asks of the memory below the collectors -------------------- */

/* Repeatable runs (--seed; gc/common/fixed.h says how).  Reserves the
 * fixed-address range; false with one message in `err` (the address taken,
 * an address-space limit) if it cannot be had.  At most once, before the
 * VM creates its collector. */
bool gc_fixed_reserve(char *err, size_t errsize);

/* A zeroed record of count * size bytes, for the VM's records that carry
 * IDs: from the fixed range once it is reserved, else calloc.  NULL if
 * there is no room. */
void *gc_record_calloc(size_t count, size_t size);

/* Frees a record from gc_record_calloc (a fixed one stays where it is). */
void gc_record_free(void *record);

/* The default maximum heap: a quarter of physical memory, as the JVM's,
 * but no more than every collector can address (16 GiB) or one region may
 * reserve under ulimit -v (gc/common/heapsize.h), and at least
 * `minimum`. */
size_t gc_heap_default_max(size_t minimum);

#endif
