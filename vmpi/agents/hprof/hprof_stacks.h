/*
 * hprof_stacks.h -- hprof's tables as the tools of today see a profile: a
 * list of stacks, each with one value per kind of measure, the form that
 * both the pprof writer (hprof_pprof.h) and the folded-stacks writer
 * (hprof_folded.h) take.
 *
 * A stack is one of hprof's traces (hprof_sites.h) and, for an allocation
 * site, the class it allocated.  A kind of value is named as pprof names it
 * (`inuse_space`, unit `bytes`).  Each table adds its kinds, then one stack
 * per row with its values in its kinds' slots and 0 in the others: the
 * SITES table adds alloc_objects, alloc_space, inuse_objects and
 * inuse_space per site; CPU TIME adds calls and cpu per trace; CPU
 * SAMPLES adds samples and cpu per trace, as Go's CPU profiles have them.
 * Another table plugs in the same way: its kinds, then its rows.
 *
 * The writers name frames through the HprofMethodNamer the agent gives,
 * since the agent is who learns the names (CLASS_LOAD).  hprof_export.h
 * puts what they render into files.
 */
#ifndef GCLAB_HPROF_STACKS_H
#define GCLAB_HPROF_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hprof_cpu_times.h"
#include "hprof_sites.h"
#include "vmpi.h"

#define HPROF_MAX_VALUE_TYPES 8

typedef struct HprofValueType {
    const char *type, *unit;  /* pprof's names: "inuse_space", "bytes" */
} HprofValueType;

/* The kinds each table measures, in the order pprof lists them. */
#define HPROF_HEAP_VALUE_TYPES 4
#define HPROF_HEAP_ALLOC_VALUE_TYPES 2 /* the first two: what was allocated */
extern const HprofValueType hprof_heap_value_types[HPROF_HEAP_VALUE_TYPES];
#define HPROF_CPU_TIMES_VALUE_TYPES 2
extern const HprofValueType hprof_cpu_times_value_types[HPROF_CPU_TIMES_VALUE_TYPES];
#define HPROF_CPU_SAMPLES_VALUE_TYPES 2
extern const HprofValueType hprof_cpu_samples_value_types[HPROF_CPU_SAMPLES_VALUE_TYPES];

/* A method's names, as a frame shows them: "Class.method" in "File". */
typedef struct HprofMethodName {
    const char *class_name, *method_name;
    const char *source;       /* the source file, "" if unknown */
} HprofMethodName;
typedef HprofMethodName HprofMethodNamer(VMPI_MethodID method);

typedef struct HprofStack {
    uint32_t trace;           /* index into HprofSites.traces */
    char *class_name;         /* an allocation site's class ("Tree", "int[]"), else NULL */
    int64_t values[HPROF_MAX_VALUE_TYPES]; /* by HprofStacks.types */
} HprofStack;

typedef struct HprofStacks {
    const HprofSites *sites;  /* the traces and their frames */
    HprofMethodNamer *name_method;
    HprofValueType types[HPROF_MAX_VALUE_TYPES];
    size_t num_types;
    HprofStack *stacks;
    size_t num_stacks, capacity;
} HprofStacks;

void hprof_stacks_init(HprofStacks *s, const HprofSites *sites, HprofMethodNamer *name_method);
void hprof_stacks_free(HprofStacks *s);

/* Adds `n` kinds of value; returns the slot of the first in
 * HprofStack.values. */
size_t hprof_stacks_add_types(HprofStacks *s, const HprofValueType *types, size_t n);

/* A new stack of `trace`, its values 0, with a copy of `class_name` (NULL
 * for none); NULL if memory ran out. */
HprofStack *hprof_stacks_add(HprofStacks *s, uint32_t trace, const char *class_name);

/* The slot of the kind named `type`, or -1. */
ptrdiff_t hprof_stacks_type_index(const HprofStacks *s, const char *type);

/* The SITES table: one stack per site, its class named by `class_name`
 * (which writes into `buffer` and returns it).  False if memory ran out. */
typedef const char *HprofSiteClassNamer(const HprofSite *site, char *buffer, size_t size);
bool hprof_stacks_add_sites(HprofStacks *s, HprofSiteClassNamer *class_name);

/* The CPU TIME table: one stack per trace entered.  False if memory ran
 * out. */
bool hprof_stacks_add_cpu_times(HprofStacks *s, const HprofCpuTimes *cpu_times);

/* The CPU SAMPLES table (whose counts hprof_cpu_times.h keeps): one stack
 * per trace sampled, its samples, and its cpu, the samples times the
 * `interval_nanos` each stands for.  False if memory ran out. */
bool hprof_stacks_add_cpu_samples(HprofStacks *s, const HprofCpuTimes *cpu_samples, int64_t interval_nanos);

#endif
