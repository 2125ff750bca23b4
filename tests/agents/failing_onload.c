/* failing_onload.c -- an agent whose VMPI_OnLoad fails, as an agent does when
 * its options are wrong.  vmrun must stop with one message naming the agent. */
#include "vmpi.h"

int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)vm;
    (void)options;
    (void)reserved;
    return VMPI_ERR;
}
