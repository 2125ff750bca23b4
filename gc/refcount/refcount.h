/*
 * refcount.h -- what the reference-counting collector (refcount.c) keeps in
 * each object's header word, gc_word: for refcount.c, and for its tests,
 * which read counts and colours to check the algorithm step by step.
 *
 *     bit  31      30       29       28 27     26 ..................... 0
 *        unused  ROOTED   IN_ZCT    colour     reference count (27 bits)
 *
 *   count    the references to the object from heap slots, plus, in
 *            deferred mode, the root slots that referred to it at the last
 *            reconciliation (root references are counted only then, and
 *            stay counted until the next one), or in immediate mode the
 *            root slots that refer to it now (refcount.c).  27 bits hold 134,217,727.  A
 *            count that reaches RC_COUNT_STICKY stays there for good: it is
 *            neither incremented nor decremented again, so it can never
 *            wrap round to a small number and free a live object.  The
 *            price is that such an object is never freed -- it leaks, with
 *            whatever it references -- which takes 134 million references
 *            to one object.  Trial deletion treats it as live (its count is
 *            never zero), so it is also never part of a collected cycle.
 *   colour   for trial deletion (Bacon and Rajan, "Concurrent Cycle
 *            Collection in Reference Counted Systems", ECOOP 2001), whose
 *            names these are:
 *              black   in use, or not under trial (every object between
 *                      cycle collections, except the purple ones);
 *              gray    under trial: a possible member of a garbage cycle,
 *                      with the references from other gray objects
 *                      subtracted from its count;
 *              white   found to be a member of a garbage cycle;
 *              purple  a possible root of a garbage cycle: a candidate,
 *                      listed in the candidate buffer.
 *   IN_ZCT   listed in the zero-count table, so it is never listed twice.
 *            Set when the count has been zero since the last
 *            reconciliation; cleared by the next one.
 *   ROOTED   referred to from a root slot.  Valid only inside a deferred
 *            reconciliation, which sets it while it counts the roots and
 *            clears it before it ends.
 *
 * Whether an object is in the candidate buffer is not in gc_word but beside
 * the object (RcLinks in refcount.c), with its position there.
 */
#ifndef GCLAB_GC_REFCOUNT_H
#define GCLAB_GC_REFCOUNT_H

#include <stdint.h>

#include "gc/object.h"

#define RC_COUNT_BITS 27u
#define RC_COUNT_MASK ((UINT32_C(1) << RC_COUNT_BITS) - 1u)
#define RC_COUNT_STICKY RC_COUNT_MASK

#define RC_COLOUR_SHIFT RC_COUNT_BITS
#define RC_COLOUR_MASK (UINT32_C(3) << RC_COLOUR_SHIFT)

typedef enum RcColour {
    RC_BLACK = 0,
    RC_GRAY = 1,
    RC_WHITE = 2,
    RC_PURPLE = 3,
} RcColour;

#define RC_IN_ZCT (UINT32_C(1) << 29)
#define RC_ROOTED (UINT32_C(1) << 30)

static inline uint32_t rc_count(const Obj *obj) { return obj->gc_word & RC_COUNT_MASK; }

static inline RcColour rc_colour(const Obj *obj) {
    return (RcColour)((obj->gc_word & RC_COLOUR_MASK) >> RC_COLOUR_SHIFT);
}

static inline void rc_set_colour(Obj *obj, RcColour colour) {
    obj->gc_word = (obj->gc_word & ~RC_COLOUR_MASK) | ((uint32_t)colour << RC_COLOUR_SHIFT);
}

#endif
