/*
 * markstack.c -- growing the mark stack (markstack.h).  Push and pop are
 * inline; only the rare doubling lives here.
 */
#include "markstack.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Enough for the grey set of most programs, small enough not to matter. */
#define MARKSTACK_INITIAL_CAPACITY 1024u

void gc_markstack_init(GcMarkStack *stack) {
    stack->items = NULL;
    stack->count = 0;
    stack->capacity = 0;
}

void gc_markstack_free(GcMarkStack *stack) {
    free(stack->items);
    gc_markstack_init(stack);
}

void gc_markstack_grow(GcMarkStack *stack) {
    size_t capacity = stack->capacity ? stack->capacity * 2 : MARKSTACK_INITIAL_CAPACITY;
    Obj **items = NULL;
    if (capacity <= SIZE_MAX / sizeof *items) items = realloc(stack->items, capacity * sizeof *items);
    if (items == NULL) {
        /* Mid-collection there is no way back to the program: half the heap
         * is marked and nothing can be freed safely without finishing. */
        fprintf(stderr, "out of memory: cannot grow the collector's mark stack to %zu entries\n",
                capacity);
        exit(1);
    }
    stack->items = items;
    stack->capacity = capacity;
}
