/* heap_corrupter.c -- an agent that breaks the heap on purpose: on the
 * 100th OBJECT_ALLOC it overwrites the new object's class pointer (its
 * object ID is its address) with garbage.  Run with --verify-heap, the next
 * collection finds it; the VM must still leave through its one way out, so
 * every other agent gets JVM_SHUT_DOWN and its files are complete. */
#include <stddef.h>
#include <stdint.h>

#include "vmpi.h"

static uint32_t allocations;

static void notify(VMPI_Event *event) {
    if (event->event_type != VMPI_EVENT_OBJECT_ALLOC || ++allocations != 100) return;
    *(uintptr_t *)(void *)event->u.obj_alloc.obj_id = (uintptr_t)0x10;
}

int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)options;
    (void)reserved;
    VMPI_Interface *vmpi;
    if (vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1) != VMPI_OK) return VMPI_ERR;
    vmpi->NotifyEvent = notify;
    return vmpi->EnableEvent(VMPI_EVENT_OBJECT_ALLOC, NULL);
}
