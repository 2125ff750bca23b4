/*
 * init.c -- what every collector's create does the same way once its
 * memory is ready (gc_init, gc.h), and the one way a collector gives up
 * (gc_fatal_exit): the Gc record learns its operations,
 * its barrier and its configuration, and the collector's arenas are
 * announced.
 *
 * Invariant: the barrier the inline gc_write_ref tests is always the one
 * the collector's constraints promise, and the ARENA_NEW events at start-up
 * are exactly constraints->arenas, in that order (docs/event-mapping.md).
 */
#include "gc/gc.h"

#include <stdlib.h>

GcRegion gc_closed_region;

static void (*vm_fatal_exit)(int status);

void gc_set_fatal_exit(void (*fatal_exit)(int status)) { vm_fatal_exit = fatal_exit; }

_Noreturn void gc_fatal_exit(int status) {
    if (vm_fatal_exit != NULL) vm_fatal_exit(status);
    exit(status);
}

void gc_init(Gc *gc, const GcOps *ops, const GcConfig *config, uint64_t capacity_bytes) {
    const GcConstraints *constraints = ops->constraints;
    gc->ops = ops;
    gc->alloc_region = &gc_closed_region;
    gc->barrier = constraints->barrier;
    gc->config = *config;
    gc->stats.capacity_bytes = capacity_bytes;
    for (uint32_t i = 0; i < constraints->num_arenas; i++)
        gc_post_arena_new(constraints->arenas[i].arena_id, constraints->arenas[i].name);
}

/* Objects never move and nothing is remembered: a store is just a store. */
void gc_store_without_barrier(Gc *gc, Obj *holder, Obj **slot, Obj *value) {
    (void)gc;
    (void)holder;
    *slot = value;
}
