/* racy_table.c -- a deliberately broken agent: its OBJECT_ALLOC handler
 * counts allocations per class in a hash table with no lock, as if one
 * handler ran at a time.  Without --seed the handlers of
 * different program threads overlap and write the table at once (the
 * allocation-profiler races of async-profiler's and honest-profiler's bug
 * reports).  A release build may even pass; the ThreadSanitizer build
 * (GCLAB_TSAN, docs/threads.md) reports the race, its stack through this
 * file's count_class and the VM's on_object_alloc, the event that ran it.
 * At JVM_SHUT_DOWN it prints how many allocations it counted. */
#include <stdint.h>
#include <stdio.h>

#include "vmpi.h"

#define TABLE_SLOTS 256

typedef struct ClassCount {
    VMPI_ObjectID class_id;
    long count;
} ClassCount;

static ClassCount table[TABLE_SLOTS];

/* The unlocked read-modify-write: the race. */
static void count_class(VMPI_ObjectID class_id) {
    uintptr_t slot = ((uintptr_t)class_id >> 4) % TABLE_SLOTS;
    while (table[slot].class_id && table[slot].class_id != class_id) slot = (slot + 1) % TABLE_SLOTS;
    table[slot].class_id = class_id;
    table[slot].count++;
}

static void notify(VMPI_Event *event) {
    if (event->event_type == VMPI_EVENT_OBJECT_ALLOC) {
        count_class(event->u.obj_alloc.class_id);
    } else if (event->event_type == VMPI_EVENT_JVM_SHUT_DOWN) {
        long total = 0;
        for (int i = 0; i < TABLE_SLOTS; i++) total += table[i].count;
        fprintf(stderr, "racy_table: counted %ld allocations\n", total);
    }
}

int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)options;
    (void)reserved;
    VMPI_Interface *vmpi;
    if (vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1) != VMPI_OK) return VMPI_ERR;
    vmpi->NotifyEvent = notify;
    if (vmpi->EnableEvent(VMPI_EVENT_JVM_SHUT_DOWN, NULL) != VMPI_OK) return VMPI_ERR;
    return vmpi->EnableEvent(VMPI_EVENT_OBJECT_ALLOC, NULL);
}
