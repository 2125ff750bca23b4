/*
 * grow.h -- the agents' growing arrays: one way to make room, so that every
 * table (sites, traces, stacks, pairs of methods, monitors) doubles alike
 * and handles running out of memory alike.
 */
#ifndef GCLAB_AGENT_GROW_H
#define GCLAB_AGENT_GROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

/* Doubles *capacity (from `initial`) until `needed` items of `item_size`
 * bytes fit in *items; false, leaving both as they were, if memory is out. */
static inline bool agent_grow(void **items, size_t *capacity, size_t needed, size_t item_size, size_t initial) {
    if (needed <= *capacity) return true;
    size_t cap = *capacity ? *capacity : initial;
    while (cap < needed) cap *= 2;
    void *grown = realloc(*items, cap * item_size);
    if (!grown) return false;
    *items = grown;
    *capacity = cap;
    return true;
}

#endif
