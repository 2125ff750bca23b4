/*
 * objlist.c -- growing an object list (objlist.h).  Push and pop are
 * inline; only the rare doubling lives here.
 */
#include "objlist.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gc/gc.h"

/* Enough for the grey set of most programs, small enough not to matter. */
#define OBJLIST_INITIAL_CAPACITY 1024u

void gc_objlist_init(GcObjectList *list) {
    list->items = NULL;
    list->count = 0;
    list->capacity = 0;
}

void gc_objlist_free(GcObjectList *list) {
    free(list->items);
    gc_objlist_init(list);
}

bool gc_objlist_make_room(GcObjectList *list) {
    if (list->count < list->capacity) return true;
    size_t capacity = list->capacity ? list->capacity * 2 : OBJLIST_INITIAL_CAPACITY;
    Obj **items = NULL;
    if (capacity <= SIZE_MAX / sizeof *items) items = realloc(list->items, capacity * sizeof *items);
    if (items == NULL) return false;
    list->items = items;
    list->capacity = capacity;
    return true;
}

void gc_objlist_grow(GcObjectList *list) {
    if (gc_objlist_make_room(list)) return;
    /* Mid-collection there is no way back to the program: half the heap is
     * marked and nothing can be freed safely without finishing. */
    fprintf(stderr, "out of memory: cannot grow a collector's object list past %zu entries\n", list->capacity);
    gc_fatal_exit(1);
}
