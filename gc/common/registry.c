/*
 * registry.c -- every collector the VM can run, by its --gc name.
 *
 * Each collector directory (gc/NAME/) defines one `const GcOps gc_NAME_ops`
 * and is listed once in GC_COLLECTORS below; nothing else anywhere names a
 * collector.  Invariant: gc_all_collectors lists each collector exactly
 * once, in GC_COLLECTORS order, and ends with NULL.
 */
#include <string.h>

#include "gc/gc.h"

#define GC_COLLECTORS(X) \
    X(marksweep) \
    X(markcompact) \
    X(semispace) \
    X(generational) \
    X(refcount)

#define GC_DECLARE_OPS(name) extern const GcOps gc_##name##_ops;
GC_COLLECTORS(GC_DECLARE_OPS)
#undef GC_DECLARE_OPS

const GcOps *const gc_all_collectors[] = {
#define GC_LIST_OPS(name) &gc_##name##_ops,
    GC_COLLECTORS(GC_LIST_OPS)
#undef GC_LIST_OPS
    NULL,
};

const GcOps *gc_ops_by_name(const char *name) {
    for (const GcOps *const *ops = gc_all_collectors; *ops != NULL; ops++)
        if (strcmp((*ops)->constraints->name, name) == 0) return *ops;
    return NULL;
}
