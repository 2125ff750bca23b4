/*
 * copy.c -- the out-of-line parts of copying (copy.h): registering regions,
 * forwarding the roots, walking a region, and stopping on a collector bug.
 * The VM's root enumerator takes a plain slot visitor, so the copier and
 * its policy travel to it in a small context record (as in trace.c).
 */
#include "copy.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "trace.h"
#include "verify.h"
#include "weak.h"

/* A policy that breaks its contract is a collector bug, like a heap that
 * fails verification: same message style, same exit status. */
__attribute__((noreturn, format(printf, 1, 2)))
static void copy_bug(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    fputs("copying collector bug: ", stderr);
    vfprintf(stderr, fmt, args);
    fputc('\n', stderr);
    va_end(args);
    gc_fatal_exit(GC_VERIFY_EXIT_STATUS);
}

void gc_copier_add_region(GcCopier *copier, GcCopyRegion *region) {
    if (copier->num_regions == GC_COPY_MAX_REGIONS)
        copy_bug("more than %u destination regions", GC_COPY_MAX_REGIONS);
    copier->regions[copier->num_regions++] = region;
}

void gc_copy_region_full(const GcCopyRegion *region, size_t bytes) {
    copy_bug("no room for a %zu-byte copy in arena %u (%zu bytes free)", bytes,
             (unsigned)region->arena_id, (size_t)(region->limit - region->top));
}

typedef struct RootForwarding {
    GcCopier *copier;
    const GcCopyPolicy *policy;
} RootForwarding;

static void forward_root_slot(Obj **slot, void *ctx) {
    RootForwarding *forwarding = ctx;
    gc_copy_forward_slot(forwarding->copier, forwarding->policy, slot);
}

void gc_copy_forward_roots(const Gc *gc, GcCopier *copier, const GcCopyPolicy *policy) {
    RootForwarding forwarding = {copier, policy};
    gc_visit_roots(gc, forward_root_slot, &forwarding);
}

/* After the scan a condemned object a weak slot names was either copied
 * (reachable) or is dead (weak.h). */
static void settle_weak_slot(Obj **slot, void *ctx) {
    RootForwarding *forwarding = ctx;
    Obj *obj = *slot;
    if (forwarding->policy->condemned_arena(obj, forwarding->copier->ctx) == GC_COPY_NOT_CONDEMNED) return;
    *slot = gc_is_forwarded(obj) ? gc_forwarding_address(obj) : NULL;
}

void gc_copy_settle_weak_roots(const Gc *gc, GcCopier *copier, const GcCopyPolicy *policy) {
    RootForwarding forwarding = {copier, policy};
    gc_visit_weak_roots(gc, settle_weak_slot, &forwarding);
}

void gc_copy_walk_region(const uint8_t *start, const uint8_t *top, uint32_t arena_id,
                         GcObjectVisitor visit, void *ctx) {
    const uint8_t *at = start;
    while (at < top) {
        Obj *obj = (Obj *)(uintptr_t)at;
        at += gc_copy_any_size(obj);
        if (!gc_is_forwarded(obj)) visit(obj, arena_id, ctx);
    }
}
