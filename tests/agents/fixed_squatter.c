/* fixed_squatter.c -- an agent that maps a page at the fixed-address heap's
 * address (gc/common/fixed.h, GC_FIXED_BASE) as it loads, before the VM
 * reserves it, so that --seed cannot have it: the VM must say so in one
 * clear message and exit 1, not crash or quietly run unrepeatable. */
#include <stdint.h>
#include <sys/mman.h>

#include "vmpi.h"

#define FIXED_BASE ((uintptr_t)0x300000000000u) /* GC_FIXED_BASE */

int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)vm;
    (void)options;
    (void)reserved;
    void *want = (void *)FIXED_BASE;
    void *got = mmap(want, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    return got == want ? VMPI_OK : VMPI_ERR;
}
