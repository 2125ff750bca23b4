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
 *
 * Regions, in both builds, are anonymous private mappings reserved with
 * MAP_NORESERVE: the kernel neither counts nor commits a page before it is
 * touched, so a region's reserve past its budget is address space only.
 * (ASan sees them as the address space they are, as it never saw the
 * jemalloc arena they once came from.)
 *
 * A fixed GcMemory (--seed, fixed.h) uses neither allocator: gc_memory_init
 * sees the fixed-address heap reserved and sets `fixed`, and the public
 * functions below take that path before the build's own.
 */
#include "memory.h"

#include "fixed.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

void *gc_memory_region_alloc(GcMemory *memory, size_t bytes) {
    if (memory->fixed) return gc_fixed_region(bytes);
    void *region = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return region == MAP_FAILED ? NULL : region;
}

void gc_memory_region_free(GcMemory *memory, void *region, size_t bytes) {
    if (!memory->fixed) munmap(region, bytes);
#ifndef GCLAB_WASM
    /* A fixed region stays reserved (fixed.h): it is only emptied, which
     * hands its pages back.  A page's memory cannot go back, and nothing
     * carves the region again, so the page's build leaves it as it is. */
    else gc_memory_region_zero(region, (uint8_t *)region + bytes);
#endif
}

static size_t page_bytes(void) {
    static size_t page;
    if (page == 0) page = (size_t)sysconf(_SC_PAGESIZE);
    return page;
}

void gc_memory_region_zero(void *start, void *end) {
#ifdef GCLAB_WASM
    /* emscripten's madvise does nothing, and says it succeeded. */
    memset(start, 0, (size_t)((uint8_t *)end - (uint8_t *)start));
    return;
#endif
    uintptr_t from = (uintptr_t)start, to = (uintptr_t)end, page = page_bytes();
    uintptr_t first_page = (from + page - 1) & ~(page - 1), last_page = to & ~(page - 1);
    /* MADV_DONTNEED on a private anonymous mapping: the pages read as zero
     * again.  If it fails (it should not), memset does the same job. */
    if (first_page < last_page &&
        madvise((void *)first_page, last_page - first_page, MADV_DONTNEED) == 0) {
        memset(start, 0, first_page - from);
        memset((void *)last_page, 0, to - last_page);
    } else {
        memset(start, 0, to - from);
    }
}

/* Lowers *room to a quarter of resource limit `resource`, if it has one. */
static void within_quarter_of_limit(size_t *room, int resource) {
    struct rlimit limit;
    if (getrlimit(resource, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur / 4 < *room)
        *room = (size_t)(limit.rlim_cur / 4);
}

size_t gc_memory_region_room(void) {
#ifdef GCLAB_WASM
    /* A page's mmap hands out real, zeroed memory, not address space: a
     * region takes only what its heap needs (docs/lab.md). */
    return 0;
#endif
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return 0;
    size_t room = (size_t)pages > SIZE_MAX / (size_t)page ? SIZE_MAX : (size_t)pages * (size_t)page;
    within_quarter_of_limit(&room, RLIMIT_AS);
    within_quarter_of_limit(&room, RLIMIT_DATA);
    return room;
}

/* ---- a fixed GcMemory's blocks ---------------------------------------------- */

/* The pool a block of `bytes` goes on, and the size it really takes. */
static void **fixed_pool(GcMemory *memory, size_t bytes, size_t *block_bytes) {
    if (bytes <= GC_MEMORY_POOL_MAX_BYTES) {
        *block_bytes = bytes;
        return &memory->free_pool[bytes / GC_MEMORY_GRAIN];
    }
    unsigned size_class = 0;
    while (size_class < GC_MEMORY_LARGE_CLASSES && ((size_t)1 << size_class) < bytes) size_class++;
    if (size_class == GC_MEMORY_LARGE_CLASSES) return NULL;
    *block_bytes = (size_t)1 << size_class;
    return &memory->large_pool[size_class];
}

/* Carves the block area: as much as a region may reserve, or less if the
 * fixed-address heap has less left.  Where a region may reserve nothing
 * beyond its need (the page's build), the area is all that is left: only
 * one collector's heap carves one, and its pages are memory once touched. */
static bool fixed_area(GcMemory *memory) {
    size_t page = page_bytes(), room = gc_memory_region_room();
    if (room == 0) room = gc_fixed_region_left();
    for (size_t bytes = room / page * page; bytes >= page; bytes = bytes / page / 2 * page) {
        memory->area = gc_fixed_region(bytes);
        if (memory->area != NULL) {
            memory->area_top = memory->area;
            memory->area_end = memory->area + bytes;
            return true;
        }
    }
    return false;
}

void *gc_memory_fixed_alloc(GcMemory *memory, size_t bytes) {
    size_t block_bytes;
    void **pool = fixed_pool(memory, bytes, &block_bytes);
    if (pool == NULL) return NULL;
    void *block = *pool;
    if (block != NULL) {
        *pool = *(void **)block;
        memset(block, 0, sizeof(void *)); /* the rest was zeroed when it was freed */
        return block;
    }
    if (memory->area == NULL && !fixed_area(memory)) return NULL;
    if (block_bytes > (size_t)(memory->area_end - memory->area_top)) return NULL;
    block = memory->area_top;
    memory->area_top += block_bytes;
    return block; /* fresh pages: zero */
}

void gc_memory_fixed_free(GcMemory *memory, void *block, size_t bytes) {
    size_t block_bytes;
    void **pool = fixed_pool(memory, bytes, &block_bytes);
    memset(block, 0, bytes);
    *(void **)block = *pool;
    *pool = block;
}

/* ---- the build's allocator ------------------------------------------------------ */

#if GCLAB_PLAIN_MALLOC

static bool allocator_init(GcMemory *memory) {
    (void)memory;
    return true;
}

static void allocator_release(GcMemory *memory) { (void)memory; }

static void allocator_trim(GcMemory *memory, size_t keep_bytes) {
    (void)memory;
    (void)keep_bytes;
}

static void allocator_purge(GcMemory *memory) { (void)memory; }

#else

static void destroy_arena(unsigned arena) {
    char name[64];
    snprintf(name, sizeof name, "arena.%u.destroy", arena);
    mallctl(name, NULL, NULL, NULL, 0);
}

static bool allocator_init(GcMemory *memory) {
    unsigned arena, tcache;
    size_t len = sizeof arena;
    if (mallctl("arenas.create", &arena, &len, NULL, 0) != 0) return false;
    len = sizeof tcache;
    if (mallctl("tcache.create", &tcache, &len, NULL, 0) != 0) {
        destroy_arena(arena);
        return false;
    }
    memory->arena = arena;
    memory->tcache = tcache;
    memory->object_flags = MALLOCX_ARENA(arena) | MALLOCX_TCACHE(tcache);
    return true;
}

/* Pooled blocks need no freeing one by one: destroying the arena discards
 * every block still allocated from it. */
static void allocator_release(GcMemory *memory) {
    mallctl("tcache.destroy", NULL, NULL, &memory->tcache, sizeof memory->tcache);
    destroy_arena(memory->arena);
}

static void allocator_trim(GcMemory *memory, size_t keep_bytes) {
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

static void allocator_purge(GcMemory *memory) {
    char name[64];
    snprintf(name, sizeof name, "arena.%u.purge", memory->arena);
    mallctl(name, NULL, NULL, NULL, 0);
}

#endif

/* ---- either way ----------------------------------------------------------------- */

bool gc_memory_init(GcMemory *memory) {
    memset(memory, 0, sizeof *memory);
    memory->fixed = gc_fixed_is_reserved();
    return memory->fixed || allocator_init(memory);
}

void gc_memory_release(GcMemory *memory) {
    if (!memory->fixed) allocator_release(memory);
    else if (memory->area != NULL) gc_memory_region_free(memory, memory->area, (size_t)(memory->area_end - memory->area));
}

void gc_memory_trim(GcMemory *memory, size_t keep_bytes) {
    if (!memory->fixed) allocator_trim(memory, keep_bytes);
}

void gc_memory_purge(GcMemory *memory) {
    if (!memory->fixed) allocator_purge(memory);
}
