/*
 * memory.c -- set-up and tear-down of a collector heap's memory, trimming
 * its free pool, regions and statistics (see memory.h; the per-object calls
 * are inline there).
 *
 * jemalloc build: gc_memory_init creates a fresh arena ("arenas.create") and
 * an explicit thread cache ("tcache.create") that is only ever used with
 * that arena, so every cached block belongs to it.  gc_memory_release
 * destroys the cache first (which flushes its blocks back to the arena) and
 * then the arena, as "arena.<i>.destroy" requires; jemalloc may then recycle
 * the arena index for the next heap.
 */
#include "memory.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if GCLAB_PLAIN_MALLOC

bool gc_memory_init(GcMemory *memory) {
    memset(memory, 0, sizeof *memory);
    return true;
}

void gc_memory_release(GcMemory *memory) { (void)memory; }

void gc_memory_trim(GcMemory *memory, size_t keep_bytes) {
    (void)memory;
    (void)keep_bytes;
}

void *gc_memory_region_alloc(GcMemory *memory, size_t bytes) {
    (void)memory;
    return calloc(1, bytes);
}

void gc_memory_region_free(GcMemory *memory, void *region, size_t bytes) {
    (void)memory;
    (void)bytes;
    free(region);
}

#else

static void destroy_arena(unsigned arena) {
    char name[64];
    snprintf(name, sizeof name, "arena.%u.destroy", arena);
    mallctl(name, NULL, NULL, NULL, 0);
}

bool gc_memory_init(GcMemory *memory) {
    unsigned arena, tcache;
    size_t len = sizeof arena;
    if (mallctl("arenas.create", &arena, &len, NULL, 0) != 0) return false;
    len = sizeof tcache;
    if (mallctl("tcache.create", &tcache, &len, NULL, 0) != 0) {
        destroy_arena(arena);
        return false;
    }
    memset(memory, 0, sizeof *memory);
    memory->arena = arena;
    memory->tcache = tcache;
    memory->object_flags = MALLOCX_ARENA(arena) | MALLOCX_TCACHE(tcache);
    memory->region_flags = MALLOCX_ARENA(arena) | MALLOCX_TCACHE_NONE;
    return true;
}

/* Pooled blocks need no freeing one by one: destroying the arena discards
 * every block still allocated from it. */
void gc_memory_release(GcMemory *memory) {
    mallctl("tcache.destroy", NULL, NULL, &memory->tcache, sizeof memory->tcache);
    destroy_arena(memory->arena);
}

void gc_memory_trim(GcMemory *memory, size_t keep_bytes) {
    for (size_t n = GC_MEMORY_POOL_MAX_BYTES / GC_MEMORY_GRAIN; n > 0 && memory->pooled_bytes > keep_bytes; n--) {
        size_t bytes = n * GC_MEMORY_GRAIN;
        void *block = memory->free_pool[n];
        while (block != NULL && memory->pooled_bytes > keep_bytes) {
            void *next = *(void **)block;
            sdallocx(block, bytes, memory->object_flags);
            memory->pooled_bytes -= bytes;
            block = next;
        }
        memory->free_pool[n] = block;
    }
}

void *gc_memory_region_alloc(GcMemory *memory, size_t bytes) {
    return mallocx(bytes, memory->region_flags | MALLOCX_ZERO);
}

void gc_memory_region_free(GcMemory *memory, void *region, size_t bytes) {
    sdallocx(region, bytes, memory->region_flags);
}

#endif
