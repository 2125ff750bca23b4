/* conform_breaker.c -- an agent that breaks under one collector only, for
 * the conformance runner's tests (tests/conform): the runner must mark
 * exactly that column of its matrix as failing, with the right message.
 *
 *     -agentpath:libconform_breaker.so=gc=NAME,how=HOW
 *
 * Under collector NAME (every collector if gc= is not given), at the 100th
 * OBJECT_ALLOC it
 *   how=bad_id  asks for the OBJECT_ALLOC of an ID that names no object,
 *               as an agent that kept an ID past its OBJECT_FREE does:
 *               refused, and fatal under --vmpi-strict
 *   how=crash   writes just past NULL (not to NULL itself, which UBSan
 *               would report instead of the crash)
 *   how=hang    never returns
 *   how=noise   writes control characters, bytes that are not UTF-8 and
 *               XML markup to stderr, and ends the run with status 3
 * Under the other collectors it only counts allocations. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "vmpi.h"

static VMPI_Interface *vmpi;
static char only_gc[32];
static char how[16] = "bad_id";
static uint32_t allocations;

static void misbehave(void) {
    if (strcmp(how, "crash") == 0) {
        volatile int *volatile nowhere = (volatile int *)(uintptr_t)8;
        *nowhere = 1;
    } else if (strcmp(how, "hang") == 0) {
        for (volatile int forever = 1; forever;) {
        }
    } else if (strcmp(how, "noise") == 0) {
        static const char noise[] = "noise: \x01\x1b[31m \xff\xfe ]]> <b>&amp; \"'\n";
        if (write(STDERR_FILENO, noise, sizeof noise - 1) < 0) return;
        vmpi->ProfilerExit(3);
    } else {
        vmpi->RequestEvent(VMPI_EVENT_OBJECT_ALLOC, (void *)(uintptr_t)16);
    }
}

static void notify(VMPI_Event *event) {
    if (event->event_type != VMPI_EVENT_OBJECT_ALLOC || ++allocations != 100) return;
    if (!only_gc[0] || strcmp(only_gc, vmpi->GetCollectorName()) == 0) misbehave();
}

/* Copies the value of NAME= in `options` into `out`, if it is there. */
static void option(const char *options, const char *name, char *out, size_t size) {
    size_t len = strlen(name);
    for (const char *p = options; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
        if (strncmp(p, name, len) != 0 || p[len] != '=') continue;
        size_t n = strcspn(p + len + 1, ",");
        if (n >= size) n = size - 1;
        memcpy(out, p + len + 1, n);
        out[n] = '\0';
    }
}

int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)reserved;
    if (vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1) != VMPI_OK) return VMPI_ERR;
    option(options, "gc", only_gc, sizeof only_gc);
    option(options, "how", how, sizeof how);
    vmpi->NotifyEvent = notify;
    return vmpi->EnableEvent(VMPI_EVENT_OBJECT_ALLOC, NULL);
}
