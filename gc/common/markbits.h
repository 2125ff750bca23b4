/*
 * markbits.h -- a mark bitmap: a side table with one bit per OBJ_ALIGN-byte
 * granule of a region, set for the first granule of each marked object.
 *
 * Marking into a side table instead of the header has two uses.  Finding
 * the next marked object is a scan of 64-bit words (one word covers 512
 * bytes of heap), so a collector can step from survivor to survivor without
 * parsing the dead objects between them -- the compactor's passes cost the
 * survivors plus the heap size / 512.  And already-marked objects are
 * recognised without touching their headers.
 *
 * Objects are at least two granules long, so no two objects share a bit.
 *
 * Invariant: bit i is set exactly when the object starting at
 * base + i * OBJ_ALIGN has been marked since the last gc_markbits_clear;
 * every object covered lies in [base, base + bytes).  The table is the
 * collector's bookkeeping, so it comes from plain calloc, not the heap
 * (memory.h).
 */
#ifndef GCLAB_GC_MARKBITS_H
#define GCLAB_GC_MARKBITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gc/object.h"

typedef struct GcMarkBits {
    uint64_t *words;
    const uint8_t *base;  /* the granule of bit 0 */
} GcMarkBits;

/* A table for the region [base, base + bytes), all clear; false if there is
 * no memory for it. */
bool gc_markbits_init(GcMarkBits *bits, const void *base, size_t bytes);
void gc_markbits_free(GcMarkBits *bits);

static inline size_t gc_markbits_index(const GcMarkBits *bits, const void *p) {
    return (size_t)((const uint8_t *)p - bits->base) / OBJ_ALIGN;
}

static inline bool gc_markbits_is_marked(const GcMarkBits *bits, const void *p) {
    size_t i = gc_markbits_index(bits, p);
    return (bits->words[i / 64] >> (i % 64)) & 1u;
}

/* Marks the object at `p`.  True if it was not marked before. */
static inline bool gc_markbits_try_mark(GcMarkBits *bits, const void *p) {
    size_t i = gc_markbits_index(bits, p);
    uint64_t *word = &bits->words[i / 64];
    uint64_t mask = UINT64_C(1) << (i % 64);
    if (*word & mask) return false;
    *word |= mask;
    return true;
}

/* The first marked object at or after `from` and before `limit` (both
 * granule-aligned, in the region), or `limit` if there is none. */
static inline uint8_t *gc_markbits_next(const GcMarkBits *bits, const uint8_t *from,
                                        const uint8_t *limit) {
    size_t i = gc_markbits_index(bits, from), end = gc_markbits_index(bits, limit);
    if (i >= end) return (uint8_t *)(uintptr_t)limit;
    size_t w = i / 64, last = (end - 1) / 64;
    uint64_t word = bits->words[w] & (~UINT64_C(0) << (i % 64));
    while (word == 0) {
        if (w == last) return (uint8_t *)(uintptr_t)limit;
        word = bits->words[++w];
    }
    size_t found = w * 64 + (size_t)__builtin_ctzll(word);
    return found < end ? (uint8_t *)(uintptr_t)(bits->base + found * OBJ_ALIGN)
                       : (uint8_t *)(uintptr_t)limit;
}

/* Clears every bit of the objects in [base, limit). */
static inline void gc_markbits_clear(GcMarkBits *bits, const uint8_t *limit) {
    size_t end = gc_markbits_index(bits, limit);
    memset(bits->words, 0, (end + 63) / 64 * sizeof *bits->words);
}

#endif
