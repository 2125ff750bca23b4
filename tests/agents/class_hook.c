/*
 * class_hook.c -- a test agent for CLASS_LOAD_HOOK (JVMPI 1.2): it answers
 * the hook as its option says.
 *
 *   keep       leaves new_class_data as it came: the program is unchanged
 *   replace    a copy (from malloc_f) with every "Hello" in the image made
 *              "Howdy": a string constant changed, so the output differs
 *   garbage    64 bytes of garbage from malloc_f: not a .bc image
 *   truncate   the image it was given, cut to half its length
 *   foreign    a buffer of its own, not from malloc_f
 *   late       enables the hook only at JVM_INIT_DONE, when it can no longer
 *              come, and writes what EnableEvent returned on stderr
 *
 * Every answer writes "class_hook: LEN bytes" on stderr.
 */
#include <stdio.h>
#include <string.h>

#include "vmpi.h"

static VMPI_Interface *vmpi;
static const char *mode;

static void notify_event(VMPI_Event *event) {
    if (event->event_type == VMPI_EVENT_JVM_INIT_DONE) {
        fprintf(stderr, "class_hook: late EnableEvent returned %d\n",
                vmpi->EnableEvent(VMPI_EVENT_CLASS_LOAD_HOOK, NULL));
        return;
    }
    if (event->event_type != VMPI_EVENT_CLASS_LOAD_HOOK) return;
    unsigned char *data = event->u.class_load_hook.class_data;
    int32_t len = event->u.class_load_hook.class_data_len;
    fprintf(stderr, "class_hook: %d bytes\n", len);
    if (strcmp(mode, "replace") == 0) {
        unsigned char *copy = event->u.class_load_hook.malloc_f((unsigned int)len);
        memcpy(copy, data, (size_t)len);
        for (int32_t i = 0; i + 5 <= len; i++)
            if (memcmp(copy + i, "Hello", 5) == 0) memcpy(copy + i, "Howdy", 5);
        event->u.class_load_hook.new_class_data = copy;
    } else if (strcmp(mode, "garbage") == 0) {
        unsigned char *garbage = event->u.class_load_hook.malloc_f(64);
        for (int i = 0; i < 64; i++) garbage[i] = (unsigned char)(i * 37 + 11);
        event->u.class_load_hook.new_class_data = garbage;
        event->u.class_load_hook.new_class_data_len = 64;
    } else if (strcmp(mode, "truncate") == 0) {
        event->u.class_load_hook.new_class_data_len = len / 2;
    } else if (strcmp(mode, "foreign") == 0) {
        static unsigned char own[1 << 16];
        memcpy(own, data, (size_t)len < sizeof own ? (size_t)len : sizeof own);
        event->u.class_load_hook.new_class_data = own;
    }
}

int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)reserved;
    if (vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1) != VMPI_OK) return VMPI_ERR;
    mode = options;
    vmpi->NotifyEvent = notify_event;
    if (strcmp(mode, "late") == 0) return vmpi->EnableEvent(VMPI_EVENT_JVM_INIT_DONE, NULL);
    return vmpi->EnableEvent(VMPI_EVENT_CLASS_LOAD_HOOK, NULL);
}
