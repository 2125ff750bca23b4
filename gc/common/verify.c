/*
 * verify.c -- the heap verifier (verify.h).
 *
 * Three passes over a snapshot of the heap:
 *
 *   1. walk_heap into an array of (object, arena); check each object alone
 *      (arena, alignment, class, size);
 *   2. sort the array by address: a duplicate or an overlap shows up as two
 *      neighbours that collide;
 *   3. put every address in an open-addressing hash set, then check every
 *      reference slot and every root slot against it, and the totals
 *      against gc->stats.
 *
 * Only the first problem is reported: after one, later ones are usually
 * its consequences.
 */
#include "verify.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "trace.h"

typedef struct HeapEntry {
    const Obj *obj;
    uint32_t arena_id;
} HeapEntry;

typedef struct HeapCheck {
    Gc *gc;
    char *buf;
    size_t bufsize;
    bool failed;
    HeapEntry *entries;   /* every object walk_heap listed */
    size_t count, capacity;
    bool out_of_memory;   /* entries could not grow during the walk */
    const Obj **set;      /* hash set of entries' addresses; NULL = empty */
    size_t set_mask;      /* set capacity - 1 (a power of two) */
    uint64_t root_index;  /* roots checked so far */
} HeapCheck;

/* Records the first problem; later ones are ignored. */
__attribute__((format(printf, 2, 3)))
static void fail(HeapCheck *check, const char *fmt, ...) {
    if (check->failed) return;
    check->failed = true;
    va_list args;
    va_start(args, fmt);
    vsnprintf(check->buf, check->bufsize, fmt, args);
    va_end(args);
}

/* ---- pass 1: the walk and each object alone ---------------------------- */

static void record_object(Obj *obj, uint32_t arena_id, void *ctx) {
    HeapCheck *check = ctx;
    if (check->count == check->capacity) {
        size_t capacity = check->capacity ? check->capacity * 2 : 1024;
        HeapEntry *entries = realloc(check->entries, capacity * sizeof *entries);
        if (entries == NULL) {
            check->out_of_memory = true;
            return;
        }
        check->entries = entries;
        check->capacity = capacity;
    }
    check->entries[check->count++] = (HeapEntry){obj, arena_id};
}

static bool arena_is_known(const GcConstraints *constraints, uint32_t arena_id) {
    for (uint32_t i = 0; i < constraints->num_arenas; i++)
        if (constraints->arenas[i].arena_id == arena_id) return true;
    return false;
}

/* Is the class record one the VM made, and internally consistent?  Checked
 * before anything reads the object through it. */
static bool class_is_sane(const Gc *gc, const RtClass *cls) {
    if (cls == NULL) return false;
    if (gc->config.is_known_class != NULL && !gc->config.is_known_class(gc->config.roots.vm, cls))
        return false;
    switch (cls->kind) {
    case CLASS_INSTANCE:
    case CLASS_STRING:
        return true;
    case CLASS_ARRAY:
        if (cls->elem_kind == ELEM_REF) return cls->elem_size == OBJ_REF_BYTES;
        return cls->elem_size == 1 || cls->elem_size == 2 || cls->elem_size == 4 || cls->elem_size == 8;
    }
    return false;
}

static void check_object_alone(HeapCheck *check, const HeapEntry *entry) {
    const Obj *obj = entry->obj;
    const Gc *gc = check->gc;
    if (!arena_is_known(gc->ops->constraints, entry->arena_id)) {
        fail(check, "object in arena %" PRIu32 ", which the collector does not have (object %p)",
             entry->arena_id, (const void *)obj);
        return;
    }
    if ((uintptr_t)obj % OBJ_ALIGN != 0) {
        fail(check, "object address not %u-byte aligned (object %p)", OBJ_ALIGN, (const void *)obj);
        return;
    }
    if (!class_is_sane(gc, obj->cls)) {
        fail(check, "header names no known class (object %p, class pointer %p)", (const void *)obj,
             (const void *)obj->cls);
        return;
    }
    size_t size = obj_size(obj);
    if (size % OBJ_ALIGN != 0 || size > gc_total_bytes(gc)) {
        fail(check, "size %zu is not sane for a heap of %" PRIu64 " bytes (object %p, class %s)",
             size, gc_total_bytes(gc), (const void *)obj, obj->cls->name);
        return;
    }
    if (obj->cls->kind == CLASS_STRING && str_chars(obj)[obj->length] != '\0')
        fail(check, "string not NUL-terminated (object %p, class %s)", (const void *)obj,
             obj->cls->name);
}

/* ---- pass 2: duplicates and overlaps ----------------------------------- */

static int compare_addresses(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)((const HeapEntry *)a)->obj;
    uintptr_t y = (uintptr_t)((const HeapEntry *)b)->obj;
    return (x > y) - (x < y);
}

static void check_overlaps(HeapCheck *check) {
    if (check->count < 2) return; /* and qsort must not see a NULL array */
    qsort(check->entries, check->count, sizeof *check->entries, compare_addresses);
    for (size_t i = 1; i < check->count && !check->failed; i++) {
        const Obj *prev = check->entries[i - 1].obj;
        const Obj *obj = check->entries[i].obj;
        if (prev == obj)
            fail(check, "object listed twice by walk_heap (object %p, class %s)", (const void *)obj,
                 obj->cls->name);
        else if ((uintptr_t)prev + obj_size(prev) > (uintptr_t)obj)
            fail(check, "objects overlap (object %p, class %s, %zu bytes, and object %p, class %s)",
                 (const void *)prev, prev->cls->name, obj_size(prev), (const void *)obj,
                 obj->cls->name);
    }
}

/* ---- pass 3: references ------------------------------------------------- */

static size_t hash_address(const void *p, size_t mask) {
    uint64_t h = (uint64_t)(uintptr_t)p >> 3;
    h *= UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 32) & mask;
}

/* Fills the set; false if there is no memory for it. */
static bool build_set(HeapCheck *check) {
    size_t capacity = 16;
    while (capacity < check->count * 2) capacity *= 2;
    check->set = calloc(capacity, sizeof *check->set);
    if (check->set == NULL) return false;
    check->set_mask = capacity - 1;
    for (size_t i = 0; i < check->count; i++) {
        const Obj *obj = check->entries[i].obj;
        size_t at = hash_address(obj, check->set_mask);
        while (check->set[at] != NULL) at = (at + 1) & check->set_mask;
        check->set[at] = obj;
    }
    return true;
}

static bool set_contains(const HeapCheck *check, const void *p) {
    size_t at = hash_address(p, check->set_mask);
    while (check->set[at] != NULL) {
        if (check->set[at] == p) return true;
        at = (at + 1) & check->set_mask;
    }
    return false;
}

/* The object whose bytes contain `p`, or NULL: a better diagnosis than
 * "outside the heap" when a reference points into an object's middle. */
static const Obj *object_containing(const HeapCheck *check, const void *p) {
    size_t lo = 0, hi = check->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((uintptr_t)check->entries[mid].obj <= (uintptr_t)p) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return NULL;
    const Obj *obj = check->entries[lo - 1].obj;
    return (uintptr_t)p < (uintptr_t)obj + obj_size(obj) ? obj : NULL;
}

static const char *describe_target(const HeapCheck *check, const void *target, char *buf, size_t n) {
    const Obj *inside = object_containing(check, target);
    if (inside == NULL) return "points outside the heap";
    snprintf(buf, n, "points into the middle of object %p, class %s", (const void *)inside,
             inside->cls->name);
    return buf;
}

static void check_slots(HeapCheck *check) {
    for (size_t i = 0; i < check->count && !check->failed; i++) {
        const Obj *obj = check->entries[i].obj;
        size_t count;
        Obj **slots = obj_ref_slots(obj, &count);
        for (size_t s = 0; s < count; s++) {
            Obj *target = slots[s];
            if (target == NULL || set_contains(check, target)) continue;
            char why[128];
            fail(check, "reference %s (object %p, class %s, slot %zu -> %p)",
                 describe_target(check, target, why, sizeof why), (const void *)obj,
                 obj->cls->name, s, (void *)target);
            return;
        }
    }
}

static void check_root_slot(Obj **slot, void *ctx) {
    HeapCheck *check = ctx;
    uint64_t index = check->root_index++;
    Obj *target = *slot;
    if (check->failed || target == NULL || set_contains(check, target)) return;
    char why[128];
    fail(check, "root %s (root %" PRIu64 " at %p -> %p)",
         describe_target(check, target, why, sizeof why), index, (void *)slot, (void *)target);
}

static void check_totals(HeapCheck *check) {
    const Gc *gc = check->gc;
    uint64_t bytes = 0;
    for (size_t i = 0; i < check->count; i++) bytes += obj_size(check->entries[i].obj);
    if (check->count != gc_used_objects(gc) || bytes != gc_used_bytes(gc))
        fail(check,
             "heap holds %zu objects of %" PRIu64 " bytes but the statistics say %" PRIu64
             " objects of %" PRIu64 " bytes",
             check->count, bytes, gc_used_objects(gc), gc_used_bytes(gc));
}

const char *gc_check_heap(Gc *gc, char *buf, size_t bufsize) {
    HeapCheck check = {.gc = gc, .buf = buf, .bufsize = bufsize};
    gc->ops->walk_heap(gc, record_object, &check);
    if (check.out_of_memory) fail(&check, "out of memory while verifying the heap");
    for (size_t i = 0; i < check.count && !check.failed; i++) check_object_alone(&check, &check.entries[i]);
    if (!check.failed) check_overlaps(&check);
    if (!check.failed && !build_set(&check)) fail(&check, "out of memory while verifying the heap");
    if (!check.failed) check_slots(&check);
    if (!check.failed) gc_visit_roots(gc, check_root_slot, &check);
    if (!check.failed) check_totals(&check);
    free(check.set);
    free(check.entries);
    return check.failed ? buf : NULL;
}

void gc_verify_heap(Gc *gc) {
    char problem[512];
    if (gc_check_heap(gc, problem, sizeof problem) == NULL) return;
    fprintf(stderr, "verify-heap: %s\n", problem);
    gc_fatal_exit(GC_VERIFY_EXIT_STATUS);
}
