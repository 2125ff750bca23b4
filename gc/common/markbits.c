/*
 * markbits.c -- getting and freeing a mark bitmap (markbits.h); marking and
 * searching are inline there.
 */
#include "markbits.h"

#include <stdlib.h>

bool gc_markbits_init(GcMarkBits *bits, const void *base, size_t bytes) {
    size_t granules = (bytes + OBJ_ALIGN - 1) / OBJ_ALIGN;
    size_t num_words = (granules + 63) / 64;
    bits->base = base;
    /* calloc: a large table is fresh zero pages, resident only once used. */
    bits->words = calloc(num_words ? num_words : 1, sizeof *bits->words);
    return bits->words != NULL;
}

void gc_markbits_free(GcMarkBits *bits) {
    free(bits->words);
    bits->words = NULL;
}
