/*
 * fixed.c -- the fixed-address heap (fixed.h): one reservation, two bump
 * pointers.
 */
#define _GNU_SOURCE /* MAP_FIXED_NOREPLACE */
#include "fixed.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000 /* Linux 4.17; older kernels take it as a hint (checked below) */
#endif

/* Records are aligned for any C object. */
#define RECORD_ALIGN ((size_t)16)

static uint8_t *fixed_base;      /* NULL until reserved */
static uint8_t *next_record;     /* [next_record, regions_start): free record space */
static uint8_t *next_region;     /* [next_region, fixed_end): free region space */

#ifdef GCLAB_WASM

/* WebAssembly's linear memory has no address space apart from memory: the
 * range is what sbrk adds to its top, rounded to a page as regions are.
 * Nothing above the break has been handed out before (emscripten's malloc
 * never gives memory back: MORECORE_CANNOT_TRIM), so it reads as zero; and
 * the browser backs a grown page only once it is touched, so the range
 * costs nothing it does not use (docs/lab.md has the figures). */
static uint8_t *reserve(char *err, size_t errsize) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *got = sbrk((intptr_t)(GC_FIXED_BYTES + page));
    if (got == (void *)-1) {
        snprintf(err, errsize,
                 "--seed needs %zu MiB of the page's memory for the fixed-address heap, and the browser would not grow it",
                 GC_FIXED_BYTES >> 20);
        return NULL;
    }
    return (uint8_t *)(((uintptr_t)got + page - 1) & ~(uintptr_t)(page - 1));
}

#else

static uint8_t *reserve(char *err, size_t errsize) {
    void *want = (void *)GC_FIXED_BASE;
    void *got = mmap(want, GC_FIXED_BYTES, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (got != want) {
        int why = errno;
        if (got != MAP_FAILED) munmap(got, GC_FIXED_BYTES);
        snprintf(err, errsize,
                 "--seed needs %zu GiB of address space at %#zx for the fixed-address heap, and %s",
                 GC_FIXED_BYTES >> 30, (size_t)GC_FIXED_BASE,
                 got != MAP_FAILED ? "the system placed it elsewhere (a kernel before Linux 4.17)"
                 : why == EEXIST   ? "something is already mapped there"
                                   : strerror(why));
        return NULL;
    }
    return got;
}

#endif

bool gc_fixed_reserve(char *err, size_t errsize) {
    fixed_base = reserve(err, errsize);
    if (fixed_base == NULL) return false;
    next_record = fixed_base;
    next_region = fixed_base + GC_FIXED_RECORD_BYTES;
    return true;
}

bool gc_fixed_is_reserved(void) { return fixed_base != NULL; }

bool gc_fixed_contains(const void *p) {
    return fixed_base != NULL && (uintptr_t)p - (uintptr_t)fixed_base < GC_FIXED_BYTES;
}

void *gc_fixed_region(size_t bytes) {
    if (bytes > gc_fixed_region_left()) return NULL;
    void *region = next_region;
    next_region += bytes;
    return region;
}

size_t gc_fixed_region_left(void) { return fixed_base == NULL ? 0 : (size_t)(fixed_base + GC_FIXED_BYTES - next_region); }

void *gc_record_calloc(size_t count, size_t size) {
    if (fixed_base == NULL) return calloc(count, size);
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    size_t bytes = (count * size + RECORD_ALIGN - 1) & ~(RECORD_ALIGN - 1);
    if (bytes == 0) bytes = RECORD_ALIGN; /* a distinct address, as calloc gives */
    if (bytes > (size_t)(fixed_base + GC_FIXED_RECORD_BYTES - next_record)) return NULL;
    void *record = next_record;
    next_record += bytes;
    return record;
}

void gc_record_free(void *record) {
    if (!gc_fixed_contains(record)) free(record);
}
