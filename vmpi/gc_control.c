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
 * collection.  EnableGC only undoes agents' own DisableGC calls
 * (agent_disables counts them): an unmatched EnableGC inside such an event
 * must not re-enable GC under the VM's feet.
 */
#include <stdio.h>

#include "dispatch.h"

/* The DisableGC calls not yet matched by EnableGC. */
static uint32_t agent_disables;

void vmpi_disable_gc(void) {
    Gc *gc = vmpi_gc();
    if (!gc) return;
    gc_disable(gc);
    agent_disables++;
}

void vmpi_enable_gc(void) {
    static bool warned;
    Gc *gc = vmpi_gc();
    if (!gc) return;
    if (agent_disables > 0 && gc_enable(gc)) {
        agent_disables--;
    } else if (!warned) {
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
