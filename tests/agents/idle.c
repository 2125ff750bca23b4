/* idle.c -- an agent that loads, takes its interface and enables nothing.
 * What it costs is what merely having an agent costs: the suite checks that
 * it changes no program's output (with and without --vmpi-strict), and
 * examples/bench/vmpi_overhead.sh times it. */
#include "vmpi.h"

int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)options;
    (void)reserved;
    VMPI_Interface *vmpi;
    return vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1);
}
