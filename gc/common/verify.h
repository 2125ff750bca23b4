/*
 * verify.h -- the heap verifier behind --verify-heap, the same for every
 * collector.  It trusts nothing the collector keeps except what the collector
 * interface promises: ops->walk_heap lists every live object with its arena,
 * obj_ref_slots says where references are, GcConfig.roots lists the roots,
 * and gc->stats counts the live objects.  It checks that
 *
 *   - every object lies in one of the collector's arenas (GcConstraints),
 *     is OBJ_ALIGN-aligned, has a class the VM knows (GcConfig.is_known_class,
 *     if given) and a sane size; strings end in NUL;
 *   - no object is listed twice and no two objects overlap;
 *   - every reference slot of every object, and every root slot, is NULL or
 *     points at the start of a listed object;
 *   - the objects' count and byte sum equal gc_used_objects and
 *     gc_used_bytes (gc.h).
 *
 * A failure is a VM bug, not a user error, so gc_verify_heap stops the
 * process with exit status 3.  gc_check_heap is the checker itself, for
 * tests that corrupt a heap on purpose.
 */
#ifndef GCLAB_GC_VERIFY_H
#define GCLAB_GC_VERIFY_H

#include <stddef.h>

#include "gc/gc.h"

/* Exit status of a heap verification failure. */
#define GC_VERIFY_EXIT_STATUS 3

/* Returns NULL if the heap passes every check; otherwise writes the first
 * problem found into buf, as "<what> (object 0x..., class X, slot N)", and
 * returns buf. */
const char *gc_check_heap(Gc *gc, char *buf, size_t bufsize);

/* Runs gc_check_heap; on a problem prints "verify-heap: <problem>" to
 * stderr and exits with GC_VERIFY_EXIT_STATUS. */
void gc_verify_heap(Gc *gc);

#endif
