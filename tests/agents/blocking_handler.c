/* blocking_handler.c -- a deliberately broken agent: its 2000th
 * OBJECT_ALLOC handler on a thread other than the first (main) blocks
 * forever (it waits for a condition nobody signals), as a handler that
 * waits for a reply that never comes would.  With handlers overlapping the
 * other threads run on until a collection must wait for that handler to
 * return; without, the whole VM stops at once.  Either way strict mode's
 * hang watch must report the stuck handler and end the run instead of
 * hanging (docs/contracts.md, "Deadlocks are named, not hung"). */
#include <pthread.h>
#include <stdatomic.h>

#include "vmpi.h"

static atomic_long allocations;
static VMPI_ThreadID _Atomic first_thread;
static pthread_mutex_t never_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never_signalled = PTHREAD_COND_INITIALIZER;

static void notify(VMPI_Event *event) {
    if (event->event_type != VMPI_EVENT_OBJECT_ALLOC) return;
    VMPI_ThreadID none = NULL;
    atomic_compare_exchange_strong(&first_thread, &none, event->env_id);
    if (event->env_id == atomic_load(&first_thread) || atomic_fetch_add(&allocations, 1) != 2000) return;
    pthread_mutex_lock(&never_lock);
    for (;;) pthread_cond_wait(&never_signalled, &never_lock);
}

int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)options;
    (void)reserved;
    VMPI_Interface *vmpi;
    if (vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1) != VMPI_OK) return VMPI_ERR;
    vmpi->NotifyEvent = notify;
    return vmpi->EnableEvent(VMPI_EVENT_OBJECT_ALLOC, NULL);
}
