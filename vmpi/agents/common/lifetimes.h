/*
 * lifetimes.h -- objects' lifetimes per class: the program's own
 * demographics (docs/gcstats.md, "Lifetimes"; docs/heapview.md,
 * "Lifetimes").  The gcstats agent and heapview's model count them from the
 * same events, each with its own object map, and tally them here so that
 * both count alike.
 *
 * An object's age at death is the number of collections it survived: the
 * collections that finished between its allocation and the collection that
 * freed it (by OBJECT_FREE, or with its arena).  Ages depend on the
 * collector: how often it collects.  Its span is the bytes the program
 * allocated from its allocation to that free: a clock that does not depend
 * on the collector, read when the collector found the death.  Under a
 * collector that collects at every allocation (--gc-stress) that is the
 * moment the object became garbage, to the allocation.
 *
 * Classes.  Objects are counted by the class their OBJECT_ALLOC names: the
 * name CLASS_LOAD gave its class_id, with LIFE_ARRAY_SUFFIX for an array
 * of objects (is_array VMPI_CLASS, whose class_id is the element class:
 * "Node[]", as the VM's own CLASS_LOAD names that array class), apart from
 * the class's instances.  An array of numbers names its own class ("int[]").
 * A class_id that is NULL, or that no CLASS_LOAD named, counts under
 * LIFE_NO_CLASS or LIFE_CLASS_NOT_LOADED.
 */
#ifndef GCLAB_AGENT_LIFETIMES_H
#define GCLAB_AGENT_LIFETIMES_H

#include <stdint.h>

/* Classes (above) */
#define LIFE_ARRAY_SUFFIX "[]"
#define LIFE_NO_CLASS "(no class)"
#define LIFE_CLASS_NOT_LOADED "(class not loaded)"

#define LIFE_AGES 8   /* died at its 1st .. 7th collection, or later */
#define LIFE_SPANS 10 /* span under 256 bytes, 1 KiB, 4 KiB, ... 16 MiB, or more */

typedef struct {
    uint64_t allocated_objects, allocated_bytes;
    uint64_t died_at[LIFE_AGES];  /* [k]: died at its (k+1)th collection, having survived k */
    uint64_t span[LIFE_SPANS];    /* deaths by span, each bucket 4 times the one before */
    uint64_t bytes_lived;         /* the spans of all that died, summed (their mean: / deaths) */
} ClassLife;

/* An object of `size` bytes is allocated. */
void life_born(ClassLife *life, uint64_t size);

/* One dies, having survived `survived` collections, after the program
 * allocated `lived` bytes in its life. */
void life_died(ClassLife *life, uint64_t survived, uint64_t lived);

/* How many have died: the objects allocated less those still live. */
uint64_t life_deaths(const ClassLife *life);

#endif
