/*
 * tptp_objects.h -- what the tptp agent knows of classes and objects: each
 * class's trace number and whether its objects are selected, and every
 * tracked object's trace number under the VM ID it has now.
 *
 * Trace numbers.  TPTP's trace names an object by one ID for its whole
 * life (Martini tags it through JVMTI); a VMPI object ID changes when the
 * collector moves the object.  So the agent numbers objects 1, 2, ... in
 * allocation order and follows OBJECT_MOVE to keep the number under the
 * new ID; classes are numbered in CLASS_LOAD order.
 *
 * Selectivity (the design's "by package/class", decided at allocation time
 * for both Object Alloc and Object Free): an object is tracked -- its
 * objAlloc written and its free reported -- when its class is selected.
 * gclab's classes have no packages; a pattern is a class name, or a prefix
 * ending in '*' ("Tree*" selects Tree, TreeNode and Tree[]).  An object
 * array is selected by its own name, the element class's name with "[]".
 * `include` patterns select (none: every class), `exclude` patterns then
 * deselect.  Objects not tracked have no trace number: no event names them.
 *
 * Only tptp_objects_init, tptp_class_define and tptp_objects_reserve
 * allocate; the agent reserves room outside collections (idmap.h).
 */
#ifndef GCLAB_TPTP_OBJECTS_H
#define GCLAB_TPTP_OBJECTS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/idmap.h"
#include "vmpi.h"

typedef struct TptpClass {
    uint32_t number;         /* 1, 2, ... in CLASS_LOAD order */
    uint32_t ref_statics;    /* reference statics: a level-1 CLASS_DUMP's values */
    bool selected;
    bool array_selected;     /* arrays of it (NAME[]) */
} TptpClass;

typedef struct TptpObjects {
    char **include, **exclude;  /* patterns, NULL-terminated */
    IdMap class_ids;            /* VM class ID -> tag: index into classes */
    TptpClass *classes;
    uint32_t num_classes, class_capacity;
    IdMap objects;              /* tracked objects: VM ID -> tag: trace number */
    uint32_t next_number;       /* the last object number given */
} TptpObjects;

/* `include` and `exclude`: ':'-separated patterns, or NULL.  False if out
 * of memory. */
bool tptp_objects_init(TptpObjects *o, const char *include, const char *exclude);

/* Learns the class of a CLASS_LOAD; returns it, and sets *is_new unless it
 * was known.  NULL if out of memory. */
const TptpClass *tptp_class_define(TptpObjects *o, const VMPI_Event *class_load, bool *is_new);

/* The class with VM class ID `class_id`, or NULL. */
const TptpClass *tptp_class_find(const TptpObjects *o, const void *class_id);

/* Whether an allocation of (class_id, is_array) is tracked. */
bool tptp_selected(const TptpObjects *o, const void *class_id, int32_t is_array);

/* Room for `more` objects beyond those tracked.  False if out of memory. */
bool tptp_objects_reserve(TptpObjects *o, size_t more);

/* Tracks an object now allocated at `id` in `arena_id`; returns its trace
 * number.  The caller reserved room. */
uint32_t tptp_object_track(TptpObjects *o, const void *id, int32_t arena_id, uint32_t size);

/* The trace number of the object at `id`, or 0 if it is not tracked. */
uint32_t tptp_object_number(const TptpObjects *o, const void *id);

/* OBJECT_FREE: forgets the object; returns its number, 0 if not tracked. */
uint32_t tptp_object_free(TptpObjects *o, const void *id);

/* OBJECT_MOVE: the object's number goes with it (no room needed: one entry
 * leaves before one comes). */
void tptp_object_move(TptpObjects *o, const void *id, const void *new_id, int32_t new_arena_id);

/* ARENA_DELETE: forgets every object in the arena, calling `freed` with
 * each one's number. */
void tptp_arena_delete(TptpObjects *o, int32_t arena_id, void (*freed)(uint32_t number, void *ctx), void *ctx);

void tptp_objects_free(TptpObjects *o);

#endif
