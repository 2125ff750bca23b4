/* lock_order.c -- a deliberately broken agent: a deadlock between its own
 * lock and the VM, the pattern of heapster's and HeapStats' hangs (an agent
 * thread holds its lock across a call that waits for a safepoint, while a
 * handler waits for the lock).
 *
 * Its OBJECT_ALLOC handler takes the agent's lock (a pthread mutex, which
 * the VM cannot see) for a moment.  Its own thread (CreateSystemThread)
 * takes the lock, waits until a handler waits for it too, and then, still
 * holding it, asks for a heap dump: the VM answers a request from an
 * agent's thread with the program's threads stopped at a safepoint
 * (docs/contracts.md, "Handlers that overlap"), but the thread in the
 * handler never gets there.  Neither goes on.  Strict mode's hang watch
 * must report the handler and the waiting request and end the run.  If no
 * handler comes within 5 s, the agent thread gives up and the run ends
 * normally. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

#include "vmpi.h"

static VMPI_Interface *vmpi;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int handlers_waiting;

static void hold_lock_across_a_heap_dump(void *arg) {
    (void)arg;
    pthread_mutex_lock(&lock);
    for (int waited_ms = 0; waited_ms < 5000 && !atomic_load(&handlers_waiting); waited_ms++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    VMPI_HeapDumpArg level0 = {.heap_dump_level = VMPI_DUMP_LEVEL_0};
    if (atomic_load(&handlers_waiting)) vmpi->RequestEvent(VMPI_EVENT_HEAP_DUMP, &level0);
    pthread_mutex_unlock(&lock);
}

static void notify(VMPI_Event *event) {
    switch (event->event_type) {
    case VMPI_EVENT_JVM_INIT_DONE:
        vmpi->CreateSystemThread("lock_order", 0, hold_lock_across_a_heap_dump);
        break;
    case VMPI_EVENT_OBJECT_ALLOC:
        atomic_fetch_add(&handlers_waiting, 1);
        pthread_mutex_lock(&lock);
        pthread_mutex_unlock(&lock);
        atomic_fetch_sub(&handlers_waiting, 1);
        break;
    default: break;
    }
}

int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)options;
    (void)reserved;
    if (vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1) != VMPI_OK) return VMPI_ERR;
    vmpi->NotifyEvent = notify;
    if (vmpi->EnableEvent(VMPI_EVENT_JVM_INIT_DONE, NULL) != VMPI_OK) return VMPI_ERR;
    return vmpi->EnableEvent(VMPI_EVENT_OBJECT_ALLOC, NULL);
}
