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
 *
 * Invariant, under disables_lock (an agent's own thread calls these too):
 * agent_disables is the sum of disables_by[], each agent's own
 * unmatched DisableGC calls, so that the out-of-memory message can name the
 * agent holding collection disabled (vmpi_gc_disabled_by) and strict mode
 * can name one that never re-enabled it.  DisableGC takes no "which agent"
 * argument: the agent is the one whose NotifyEvent or VMPI_OnLoad is running
 * on this thread, or the only one loaded; a call from an agent's own thread
 * with several loaded is counted as nobody's (slot VMPI_MAX_AGENTS).
 *
 * RunGC from an agent's system thread (CreateSystemThread; as HPROF's
 * front-end listener calls it for FORCE GC) cannot collect there: the
 * program's thread may be running.  It asks for a collection at
 * the running thread's next safepoint (VM_REQUEST_RUN_GC, served by
 * vmpi_serve_requested_gc, where the thread's state is saved and no event
 * is being delivered) and waits until that safepoint has served it, so
 * the collection is over when RunGC returns.  It gives up when the VM
 * shuts down first.  Invariant, under run_gc_lock: gcs_served counts the
 * safepoints that served a request; a caller waits for it to pass the
 * value it saw when it asked.  A VM that cannot stop its threads (no
 * request_safepoint: a mock) collects on the caller's thread.
 */
#include <pthread.h>
#include <stdio.h>


#include "vmpi/control.h"
#include "strict.h"

/* The DisableGC calls not yet matched by EnableGC. */
static pthread_mutex_t disables_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t agent_disables;
static uint32_t disables_by[VMPI_MAX_AGENTS + 1];

/* The slot of the agent calling DisableGC or EnableGC (see the top). */
static uint32_t calling_slot(void) {
    if (vmpi_caller) return (uint32_t)(vmpi_caller - vmpi_agents);
    return vmpi_num_agents == 1 ? 0 : VMPI_MAX_AGENTS;
}

void vmpi_disable_gc(void) {
    Gc *gc = vmpi_gc();
    if (!gc) return;
    pthread_mutex_lock(&disables_lock);
    gc_disable(gc);
    agent_disables++;
    disables_by[calling_slot()]++;
    pthread_mutex_unlock(&disables_lock);
}

/* The slot whose DisableGC an EnableGC undoes: the caller's own if it has
 * one, else the first that has (an agent may re-enable for another). */
static uint32_t slot_to_enable(void) {
    uint32_t slot = calling_slot();
    for (uint32_t other = 0; disables_by[slot] == 0 && other <= VMPI_MAX_AGENTS; other++) slot = other;
    return slot;
}

void vmpi_enable_gc(void) {
    static bool warned;
    Gc *gc = vmpi_gc();
    if (!gc) return;
    pthread_mutex_lock(&disables_lock);
    bool enabled = agent_disables > 0 && gc_enable(gc);
    if (enabled) {
        agent_disables--;
        disables_by[slot_to_enable()]--;
    }
    pthread_mutex_unlock(&disables_lock);
    if (!enabled && !warned) {
        warned = true;
        fputs("vmpi: EnableGC without a matching DisableGC ignored\n", stderr);
    }
}

static pthread_mutex_t run_gc_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t run_gc_served = PTHREAD_COND_INITIALIZER;
static uint64_t gcs_served;
static bool run_gc_shutting_down;

/* RunGC from a thread the VM does not run: see the top. */
static void run_gc_at_safepoint(void) {
    pthread_mutex_lock(&run_gc_lock);
    uint64_t asked_at = gcs_served;
    vmpi_request_safepoint(VMPI_AT_SAFEPOINT_RUN_GC);
    while (gcs_served == asked_at && !run_gc_shutting_down) pthread_cond_wait(&run_gc_served, &run_gc_lock);
    pthread_mutex_unlock(&run_gc_lock);
}

bool vmpi_run_gc_at_safepoint(void) { return vmpi_on_system_thread && vmpi_vm && vmpi_vm->request_safepoint; }

void vmpi_run_gc(void) {
    static bool warned;
    Gc *gc = vmpi_gc();
    if (!gc) return;
    if (vmpi_run_gc_at_safepoint()) {
        run_gc_at_safepoint();
        return;
    }
    if (vmpi_gc_held_off()) {
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

void vmpi_serve_requested_gc(void) {
    vmpi_run_gc();
    pthread_mutex_lock(&run_gc_lock);
    gcs_served++;
    pthread_cond_broadcast(&run_gc_served);
    pthread_mutex_unlock(&run_gc_lock);
}

void vmpi_run_gc_shutting_down(bool shutting_down) {
    pthread_mutex_lock(&run_gc_lock);
    run_gc_shutting_down = shutting_down;
    pthread_cond_broadcast(&run_gc_served);
    pthread_mutex_unlock(&run_gc_lock);
}

const char *vmpi_gc_disabled_by(void) {
    for (uint32_t slot = 0; slot < vmpi_num_agents; slot++)
        if (disables_by[slot] > 0) return vmpi_agent_name(&vmpi_agents[slot]);
    return disables_by[VMPI_MAX_AGENTS] > 0 ? "?" : NULL;
}

bool vmpi_report_unbalanced_gc(void) {
    bool unbalanced = false;
    for (uint32_t slot = 0; slot <= VMPI_MAX_AGENTS; slot++) {
        if (disables_by[slot] == 0) continue;
        unbalanced = true;
        vmpi_report_breach(VMPI_RULE_UNBALANCED_DISABLE_GC,
                           slot < vmpi_num_agents ? &vmpi_agents[slot] : NULL,
                           "%u DisableGC call%s not matched by EnableGC", disables_by[slot],
                           disables_by[slot] == 1 ? "" : "s");
    }
    return unbalanced;
}
