/* lock_order.c -- a deliberately broken agent: a deadlock between its own
 * lock and the VM, the pattern of heapster's and HeapStats' hangs (an agent
 * holds its lock across a call that waits for the VM, while the VM waits
 * for the lock).
 *
 * The first OBJECT_ALLOC handler on a thread other than main takes the
 * agent's lock (a pthread mutex, which the VM cannot see), waits until a
 * MONITOR_CONTENDED_ENTER handler wants the lock too, and then, still
 * holding it, asks GetThreadStatus about main.  With --concurrent-handlers
 * that handler runs outside the VM, so the call waits until the thread
 * running bytecode reaches a safepoint; but that thread is in its
 * MONITOR_CONTENDED_ENTER handler (posted without letting go of the VM),
 * waiting for the lock.  Neither goes on.  Strict mode's hang watch must
 * report both handlers and end the run.  If no contended monitor comes
 * within 5 s, the handler gives up and the run ends normally. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

#include "vmpi.h"

static VMPI_Interface *vmpi;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static VMPI_ThreadID _Atomic main_thread;
static atomic_bool armed = true;
static atomic_bool monitor_handler_waits;

static void take_lock_and_ask_the_vm(void) {
    pthread_mutex_lock(&lock);
    for (int waited_ms = 0; waited_ms < 5000 && !atomic_load(&monitor_handler_waits); waited_ms++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    vmpi->GetThreadStatus(atomic_load(&main_thread));
    pthread_mutex_unlock(&lock);
}

static void notify(VMPI_Event *event) {
    switch (event->event_type) {
    case VMPI_EVENT_THREAD_START: {
        VMPI_ThreadID none = NULL; /* the first THREAD_START is main's */
        atomic_compare_exchange_strong(&main_thread, &none, event->u.thread_start.thread_env_id);
        break;
    }
    case VMPI_EVENT_OBJECT_ALLOC:
        if (event->env_id != atomic_load(&main_thread) && atomic_exchange(&armed, false)) take_lock_and_ask_the_vm();
        break;
    case VMPI_EVENT_MONITOR_CONTENDED_ENTER:
        atomic_store(&monitor_handler_waits, true);
        pthread_mutex_lock(&lock);
        pthread_mutex_unlock(&lock);
        break;
    default: break;
    }
}

int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)options;
    (void)reserved;
    if (vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1) != VMPI_OK) return VMPI_ERR;
    vmpi->NotifyEvent = notify;
    if (vmpi->EnableEvent(VMPI_EVENT_THREAD_START, NULL) != VMPI_OK) return VMPI_ERR;
    if (vmpi->EnableEvent(VMPI_EVENT_MONITOR_CONTENDED_ENTER, NULL) != VMPI_OK) return VMPI_ERR;
    return vmpi->EnableEvent(VMPI_EVENT_OBJECT_ALLOC, NULL);
}
