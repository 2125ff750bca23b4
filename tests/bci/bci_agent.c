/*
 * bci_agent.c -- the instrumentation library (vmpi/vmpi_bci.h) on a whole
 * program, through CLASS_LOAD_HOOK as an agent uses it.
 *
 *   -agentpath:libbci_agent.so=identity   parse the image and serialize it
 *       with nothing inserted: it must come back byte for byte.  Writes
 *       "bci: identity: N bytes, unchanged" and leaves the program as it is.
 *   -agentpath:libbci_agent.so=all        insert every kind of call (method
 *       entry, method exit, allocation) to this library's recorders, which
 *       count them; the program runs instrumented.  Writes
 *       "bci: all: E entries, X exits, A allocations" at JVM_SHUT_DOWN.
 *
 * Anything the library refuses ends the run, status 1, with its message.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmpi.h"
#include "vmpi_bci.h"

static VMPI_Interface *vmpi;
static bool insert_calls;
static atomic_ulong entries, exits, allocations;

VMPI_EXPORT void bci_test_entry(VmpiBciEnv *env, int64_t method) {
    (void)env, (void)method;
    entries++;
}

VMPI_EXPORT void bci_test_exit(VmpiBciEnv *env, int64_t method) {
    (void)env, (void)method;
    exits++;
}

/* Every allocating instruction leaves a new object: never null. */
VMPI_EXPORT void bci_test_allocation(VmpiBciEnv *env, VmpiBciRef obj) {
    if (!vmpi_bci_object_id(env, obj)) {
        fprintf(stderr, "bci: an allocation recorder got null\n");
        vmpi->ProfilerExit(1);
    }
    allocations++;
}

static void refuse(const char *what, const char *why) {
    fprintf(stderr, "bci: %s: %s\n", what, why);
    vmpi->ProfilerExit(1);
}

static void hook(VMPI_Event *event) {
    const unsigned char *data = event->u.class_load_hook.class_data;
    size_t len = (size_t)event->u.class_load_hook.class_data_len;
    char err[512];
    VmpiBciProgram *p = vmpi_bci_parse(data, len, err, sizeof err);
    if (!p) return refuse("parse", err);
    Dl_info self;
    if (!dladdr((void *)bci_test_entry, &self)) return refuse("dladdr", "cannot find this library");
    VmpiBciRecorders recorders = {.library = self.dli_fname};
    if (insert_calls) {
        recorders.method_entry = "bci_test_entry";
        recorders.method_exit = "bci_test_exit";
        recorders.allocation = "bci_test_allocation";
    }
    if (!vmpi_bci_instrument(p, &recorders, err, sizeof err)) {
        vmpi_bci_free(p);
        return refuse("instrument", err);
    }
    size_t new_len;
    unsigned char *image = vmpi_bci_serialize(p, event->u.class_load_hook.malloc_f, &new_len);
    vmpi_bci_free(p);
    if (!image) return refuse("serialize", "out of memory");
    if (insert_calls) {
        event->u.class_load_hook.new_class_data = image;
        event->u.class_load_hook.new_class_data_len = (int32_t)new_len;
        return;
    }
    if (new_len != len || memcmp(image, data, len) != 0) return refuse("identity", "the image came back changed");
    fprintf(stderr, "bci: identity: %zu bytes, unchanged\n", len);
}

static void notify_event(VMPI_Event *event) {
    if (event->event_type == VMPI_EVENT_CLASS_LOAD_HOOK) hook(event);
    else if (event->event_type == VMPI_EVENT_JVM_SHUT_DOWN && insert_calls)
        fprintf(stderr, "bci: all: %lu entries, %lu exits, %lu allocations\n", (unsigned long)entries,
                (unsigned long)exits, (unsigned long)allocations);
}

VMPI_EXPORT int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)reserved;
    if (vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1) != VMPI_OK) return VMPI_ERR;
    if (!options || (strcmp(options, "identity") != 0 && strcmp(options, "all") != 0)) {
        fprintf(stderr, "bci: options: identity or all\n");
        return VMPI_ERR;
    }
    insert_calls = strcmp(options, "all") == 0;
    vmpi->NotifyEvent = notify_event;
    vmpi->EnableEvent(VMPI_EVENT_JVM_SHUT_DOWN, NULL);
    return vmpi->EnableEvent(VMPI_EVENT_CLASS_LOAD_HOOK, NULL);
}
