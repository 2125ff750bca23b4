/*
 * gc_control.c -- DisableGC, EnableGC and RunGC (JVMPI 1.2 section 2).
 *
 * Invariant: the collector's disable count (gc.h, gc_disable) counts the
 * DisableGC calls not yet matched by EnableGC, plus one for each event being
 * delivered with GC disabled (dispatch.c); no collection starts while it is
 * above zero.  The calls
 * nest, as JVMPI says, and RunGC is refused while GC is disabled ("This
 * function must not be called when GC is disabled"): refusing is what keeps
 * a collection from starting inside an event handler or inside another
 * collection.
 */
#include <stdio.h>

#include "dispatch.h"

void vmpi_disable_gc(void) {
    Gc *gc = vmpi_gc();
    if (gc) gc_disable(gc);
}

void vmpi_enable_gc(void) {
    static bool warned;
    Gc *gc = vmpi_gc();
    if (!gc) return;
    if (!gc_enable(gc) && !warned) {
        warned = true;
        fputs("vmpi: EnableGC without a matching DisableGC ignored\n", stderr);
    }
}

void vmpi_run_gc(void) {
    static bool warned;
    Gc *gc = vmpi_gc();
    if (!gc) return;
    if (gc_is_disabled(gc)) {
        if (!warned) {
            warned = true;
            fputs("vmpi: RunGC refused: GC is disabled (by DisableGC, or inside an event sent "
                  "with GC disabled)\n",
                  stderr);
        }
        return;
    }
    gc_collect(gc, GC_REASON_REQUESTED);
}
