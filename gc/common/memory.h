/*
 * memory.h -- where collectors get the memory their objects live in.
 *
 * This is the only place that allocates heap memory for collectors.  Each
 * collector heap owns one GcMemory and asks it for
 *
 *   single objects   gc_memory_alloc_zeroed / gc_memory_free
 *                    for collectors that allocate and free objects one by
 *                    one (marksweep, refcount);
 *   regions          gc_memory_region_alloc / gc_memory_region_free
 *                    large zero-filled contiguous blocks that a bump-pointer
 *                    collector carves objects out of (semispaces, nursery,
 *                    compacting heap).  In both builds a region is a range
 *                    of address space of its own (mmap, MAP_NORESERVE):
 *                    its pages are zero and cost memory only once touched,
 *                    so a region can reserve far more than its budget --
 *                    room to grow while collection is disabled (region.h)
 *                    -- and a normal run's resident set is what it uses.
 *                    gc_memory_region_zero gives touched pages back.
 *
 * Two builds, one interface:
 *
 *   jemalloc (default)      every GcMemory is its own jemalloc arena with its
 *                           own explicit thread cache, so one heap's objects
 *                           never share pages with another heap or with the
 *                           VM's own malloc use.  In front of it sits a free
 *                           pool: one list of freed blocks per small size
 *                           (the patent's "free-pool"), so that freeing and
 *                           reusing an object costs a push and a pop, not a
 *                           trip through jemalloc.  gc_memory_trim gives
 *                           pooled blocks back to jemalloc.
 *   GCLAB_PLAIN_MALLOC=1    (the sanitizer build) plain malloc/calloc/free and
 *                           no pool, so ASan and Valgrind see every object as
 *                           its own block, catch an access one byte past it
 *                           and every use after free.
 *
 * With --seed, in both builds, the fixed-address heap (fixed.h): a GcMemory
 * made once it is reserved (`fixed`) carves its regions from it, and its
 * single objects from a block area of its own there -- the last freed
 * block of the same size from free_pool (sizes above GC_MEMORY_POOL_MAX_BYTES
 * rounded up to a power of two, on large_pool), else a bump of the area --
 * so every address depends only on the order of the requests, never on
 * jemalloc, malloc or ASLR.  A block is zeroed as it is freed, so a pooled
 * one is zero but for its link; nothing is trimmed.
 *
 * Invariants: every block is returned through the GcMemory it came from,
 * with the size it was requested with, before gc_memory_release.  A pooled
 * block is on exactly one list, free_pool[bytes / GC_MEMORY_GRAIN] (or, in
 * a fixed GcMemory, large_pool[log2 of its rounded size]), and
 * pooled_bytes is the sum of the sizes on free_pool.  A GcMemory is used by one thread
 * at a time (the caller serializes calls into its Gc), which is what
 * jemalloc requires of an explicit tcache and what the pool assumes.
 *
 * Collectors' own bookkeeping (mark stacks, object tables, remembered sets)
 * is not heap memory; it comes from plain malloc/realloc.
 */
#ifndef GCLAB_GC_MEMORY_H
#define GCLAB_GC_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if !GCLAB_PLAIN_MALLOC
#include <jemalloc/jemalloc.h>
#endif

/* Object blocks are multiples of this many bytes (OBJ_ALIGN), and at least
 * one pointer big, so a freed block can hold the pool's link. */
#define GC_MEMORY_GRAIN 8u
/* Blocks up to this size are pooled; larger ones go straight back. */
#define GC_MEMORY_POOL_MAX_BYTES 256u
/* Size classes of a fixed GcMemory's large blocks: 2^9 .. 2^63 bytes. */
#define GC_MEMORY_LARGE_CLASSES 64u

typedef struct GcMemory {
    bool fixed;         /* from the fixed-address heap (--seed): the fields at the end */
    /* jemalloc build only (unused under GCLAB_PLAIN_MALLOC): */
    unsigned arena;     /* index from "arenas.create" */
    unsigned tcache;    /* index from "tcache.create" */
    int object_flags;   /* MALLOCX_ARENA(arena) | MALLOCX_TCACHE(tcache) */
    /* free_pool[n]: freed blocks of n * GC_MEMORY_GRAIN bytes, linked through
     * their first word. */
    void *free_pool[GC_MEMORY_POOL_MAX_BYTES / GC_MEMORY_GRAIN + 1];
    size_t pooled_bytes;
    /* A fixed GcMemory (fixed.h, --seed) only: */
    void *large_pool[GC_MEMORY_LARGE_CLASSES]; /* freed blocks of 2^i bytes */
    uint8_t *area, *area_top, *area_end;       /* the block area, carved lazily */
} GcMemory;

/* Sets up `memory`; false if the allocator refuses a new arena. */
bool gc_memory_init(GcMemory *memory);

/* Gives the arena back.  Every block must already have been freed. */
void gc_memory_release(GcMemory *memory);

/* A fixed GcMemory's gc_memory_alloc_zeroed and gc_memory_free, out of line. */
void *gc_memory_fixed_alloc(GcMemory *memory, size_t bytes);
void gc_memory_fixed_free(GcMemory *memory, void *block, size_t bytes);

/* A zero-filled block of `bytes` (a non-zero multiple of GC_MEMORY_GRAIN),
 * aligned for any object, or NULL. */
static inline void *gc_memory_alloc_zeroed(GcMemory *memory, size_t bytes) {
    if (__builtin_expect(memory->fixed, 0)) return gc_memory_fixed_alloc(memory, bytes);
#if GCLAB_PLAIN_MALLOC
    (void)memory;
    return calloc(1, bytes);
#else
    void *block;
    void **pool = bytes <= GC_MEMORY_POOL_MAX_BYTES ? &memory->free_pool[bytes / GC_MEMORY_GRAIN] : NULL;
    if (pool != NULL && *pool != NULL) {
        block = *pool;
        *pool = *(void **)block;
        memory->pooled_bytes -= bytes;
    } else {
        /* Not MALLOCX_ZERO: it takes jemalloc's slower general path, and an
         * inline memset of a small block is cheaper. */
        block = mallocx(bytes, memory->object_flags);
        if (block == NULL) return NULL;
    }
    memset(block, 0, bytes);
    return block;
#endif
}

/* Frees a block from gc_memory_alloc_zeroed; `bytes` is what was asked for. */
static inline void gc_memory_free(GcMemory *memory, void *block, size_t bytes) {
    if (__builtin_expect(memory->fixed, 0)) {
        gc_memory_fixed_free(memory, block, bytes);
        return;
    }
#if GCLAB_PLAIN_MALLOC
    (void)memory;
    (void)bytes;
    free(block);
#else
    if (bytes <= GC_MEMORY_POOL_MAX_BYTES) {
        void **pool = &memory->free_pool[bytes / GC_MEMORY_GRAIN];
        *(void **)block = *pool;
        *pool = block;
        memory->pooled_bytes += bytes;
        return;
    }
    sdallocx(block, bytes, memory->object_flags);
#endif
}

/* Returns pooled blocks to jemalloc until at most `keep_bytes` stay pooled
 * (largest sizes first).  A collector calls it after freeing a batch, with
 * what it expects to allocate before it frees again, so the pool does not
 * hold blocks of sizes the program no longer uses.  No-op without a pool. */
void gc_memory_trim(GcMemory *memory, size_t keep_bytes);

/* Hands the pages of freed blocks back to the system (jemalloc:
 * "arena.<i>.purge", after gc_memory_trim has returned the pooled ones),
 * for a heap whose capacity has just fallen (heapsize.h).  No-op under
 * plain malloc and for a fixed GcMemory. */
void gc_memory_purge(GcMemory *memory);

/* A zero-filled region of `bytes` (> 0) of address space, page-aligned, or
 * NULL if the system refuses the range (an address-space limit, or strict
 * overcommit accounting).  Its pages become memory only once touched. */
void *gc_memory_region_alloc(GcMemory *memory, size_t bytes);
void gc_memory_region_free(GcMemory *memory, void *region, size_t bytes);

/* Zero-fills [start, end) inside a region, handing its whole pages back to
 * the system (they read as zero again and are no longer resident). */
void gc_memory_region_zero(void *start, void *end);

/* How much address space one region may reserve: the machine's physical
 * memory (growing further would only page), but no more than a quarter of
 * what the process may map (RLIMIT_AS, RLIMIT_DATA: ulimit -v), so that a
 * heap's regions leave the VM room for everything else. */
size_t gc_memory_region_room(void);

#endif
