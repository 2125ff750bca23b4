/* exit_midstream.c -- an agent that ends the run from inside an event:
 * ProfilerExit(3) in its Nth OBJECT_ALLOC (option n=N, default 100).  The
 * agents loaded after it must still see a whole stream: the allocation in
 * flight, then JVM_SHUT_DOWN (vmpi/runtime/dispatch.c, vmpi_post_shutdown); the
 * suite runs check after it. */
#include <stdlib.h>
#include <string.h>

#include "vmpi.h"

static VMPI_Interface *vmpi;
static long exit_at = 100;
static long allocations;

static void notify(VMPI_Event *event) {
    if (event->event_type == VMPI_EVENT_OBJECT_ALLOC && ++allocations == exit_at) vmpi->ProfilerExit(3);
}

VMPI_EXPORT int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)reserved;
    if (strncmp(options, "n=", 2) == 0) exit_at = strtol(options + 2, NULL, 10);
    if (exit_at <= 0 || vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1) != VMPI_OK) return VMPI_ERR;
    vmpi->NotifyEvent = notify;
    return vmpi->EnableEvent(VMPI_EVENT_OBJECT_ALLOC, NULL);
}
