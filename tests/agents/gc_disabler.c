/* gc_disabler.c -- an agent that holds collection disabled (VMPI DisableGC)
 * from JVM_INIT_DONE on, and enables it again after `enable_after` object
 * allocations (0, the default: never).  It checks, and says on stderr at
 * JVM_SHUT_DOWN, what the VM promises (docs/contracts.md, GC disabled):
 *
 *   - no collection starts while it holds collection disabled;
 *   - the heap grew: more than `heap` bytes were allocated while it held
 *     collection disabled (the test's program must allocate that much, or
 *     the run proves nothing);
 *   - with enable_after, some collection after EnableGC reported the
 *     objects in use back within `heap` bytes.
 *
 * "gc_disabler: ok: ..." when all hold, "gc_disabler: FAIL: ..." otherwise.
 * Options: "heap=BYTES" (--heap, required), "enable_after=N". */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmpi.h"

static VMPI_Interface *vmpi;
static int64_t heap_bytes;
static uint64_t enable_after;
static bool holding;                 /* between our DisableGC and EnableGC */
static uint64_t allocations, bytes_while_disabled;
static uint64_t collections_while_disabled;
static uint64_t collections_after_enable;
static bool back_within_budget;
static int64_t last_used = -1;

static void shut_down(void) {
    const char *fail = NULL;
    if (collections_while_disabled > 0) fail = "a collection started while GC was disabled";
    else if (bytes_while_disabled <= (uint64_t)heap_bytes) fail = "the program never allocated past the heap";
    else if (enable_after > 0 && collections_after_enable == 0) fail = "no collection after EnableGC";
    else if (enable_after > 0 && !back_within_budget) fail = "no collection after EnableGC came back within the heap";
    fprintf(stderr,
            "gc_disabler: %s%s: %" PRIu64 " bytes allocated with GC disabled (heap %" PRId64
            "), %" PRIu64 " collections after EnableGC, last used %" PRId64 " bytes\n",
            fail ? "FAIL: " : "ok", fail ? fail : "", bytes_while_disabled, heap_bytes, collections_after_enable,
            last_used);
}

static void notify(VMPI_Event *event) {
    switch (event->event_type) {
    case VMPI_EVENT_JVM_INIT_DONE:
        vmpi->DisableGC();
        holding = true;
        break;
    case VMPI_EVENT_OBJECT_ALLOC:
        if (!holding) break;
        bytes_while_disabled += (uint64_t)event->u.obj_alloc.size;
        if (enable_after > 0 && ++allocations == enable_after) {
            holding = false;
            vmpi->EnableGC();
        }
        break;
    case VMPI_EVENT_GC_START:
        if (holding) collections_while_disabled++;
        break;
    case VMPI_EVENT_GC_FINISH:
        last_used = event->u.gc_info.used_object_space;
        if (!holding) {
            collections_after_enable++;
            if (last_used <= heap_bytes) back_within_budget = true;
        }
        break;
    case VMPI_EVENT_JVM_SHUT_DOWN:
        shut_down();
        break;
    default:
        break;
    }
}

/* "heap=N,enable_after=M" in any order. */
static bool parse_options(const char *options) {
    for (const char *p = options; p != NULL && *p != '\0';) {
        char *end;
        if (strncmp(p, "heap=", 5) == 0) heap_bytes = strtoll(p + 5, &end, 10);
        else if (strncmp(p, "enable_after=", 13) == 0) enable_after = strtoull(p + 13, &end, 10);
        else return false;
        if (*end != ',' && *end != '\0') return false;
        p = *end == ',' ? end + 1 : end;
    }
    return heap_bytes > 0;
}

int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)reserved;
    if (!parse_options(options)) {
        fputs("gc_disabler: options are heap=BYTES[,enable_after=N]\n", stderr);
        return VMPI_ERR;
    }
    if (vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1) != VMPI_OK) return VMPI_ERR;
    vmpi->NotifyEvent = notify;
    static const int32_t events[] = {VMPI_EVENT_JVM_INIT_DONE, VMPI_EVENT_OBJECT_ALLOC, VMPI_EVENT_GC_START,
                                     VMPI_EVENT_GC_FINISH, VMPI_EVENT_JVM_SHUT_DOWN};
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        if (vmpi->EnableEvent(events[i], NULL) != VMPI_OK) return VMPI_ERR;
    return VMPI_OK;
}
