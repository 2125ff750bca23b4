/*
 * heap_options.h -- vmrun's heap-size and collection-log options, gclab's
 * own spelling and the JVM's (docs/man/vmrun.1):
 *
 *   --heap=SIZE, -XmxSIZE    the maximum heap (default: a quarter of
 *                            physical memory, as the JVM's)
 *   -XmsSIZE                 the initial heap, and the least it shrinks to
 *                            (default VM_DEFAULT_INITIAL_HEAP_BYTES, or the
 *                            maximum if that is smaller); -Xms equal to the
 *                            maximum fixes the heap's size
 *   --young=SIZE, -XmnSIZE   the nursery, generational (fixed; by default
 *                            it follows the old generation's live data
 *                            between VM_DEFAULT_INITIAL_YOUNG_BYTES and
 *                            VM_DEFAULT_YOUNG_BYTES)
 *   --gc-log, -verbose:gc, -Xlog:gc    one line per collection on stderr
 *
 * The sizing policy itself is the collectors' (gc/common/heapsize.h).
 *
 * Invariant, once vm_settle_heap_options accepted a record:
 * VM_MIN_HEAP_BYTES <= initial <= maximum, and young <= maximum / 2.
 */
#ifndef GCLAB_INTERP_HEAP_OPTIONS_H
#define GCLAB_INTERP_HEAP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "gc/gc.h"

#define VM_DEFAULT_INITIAL_HEAP_BYTES ((size_t)1 << 20)
/* The nursery's least size when -Xmn is not given: it follows the old
 * generation's live data from there up to the default -Xmn
 * (docs/heap-sizing.md). */
#define VM_DEFAULT_INITIAL_YOUNG_BYTES ((size_t)512 << 10)

/* Which of the sizes the command line gave. */
typedef struct HeapOptionsGiven {
    bool max, initial, young;
} HeapOptionsGiven;

typedef enum HeapOptionResult {
    HEAP_OPTION_NOT_MINE, /* not one of the options above */
    HEAP_OPTION_TAKEN,    /* parsed into the record */
    HEAP_OPTION_BAD,      /* one of them, with a bad value: err says why */
} HeapOptionResult;

/* The defaults, before any option: maximum a quarter of physical memory. */
void vm_default_heap_options(GcConfig *gc);

HeapOptionResult vm_parse_heap_option(const char *arg, GcConfig *gc, HeapOptionsGiven *given, char *err,
                                      size_t errsize);

/* After the last option: fills in the defaults that depend on the maximum
 * and checks the sizes against each other; false with a message if they
 * disagree. */
bool vm_settle_heap_options(GcConfig *gc, const HeapOptionsGiven *given, char *err, size_t errsize);

#endif
