/*
 * globalref_events.c -- a test agent that checks the fields of
 * JNI_GLOBALREF_ALLOC/FREE and JNI_WEAK_GLOBALREF_ALLOC/FREE (JVMPI 1.2),
 * which natives' global references send (vm/native/gclab_native.h).
 *
 *     -agentlib:globalref_events
 *
 * For each ALLOC: env_id names a thread, ref_id is not null and not a
 * reference already live, and obj_id is a live object -- RequestEvent
 * (OBJECT_ALLOC, obj_id) answers for it, and its class is one CLASS_LOAD
 * named, and jobject2jobjectID(ref_id) is obj_id and jobjectID2jobject(obj_id)
 * a reference to it (JVMPI 1.4.2).  For each FREE: ref_id is a live reference of the same kind (a
 * weak one freed as weak), which is then no longer live.  At JVM_SHUT_DOWN
 * it prints one line on stderr:
 *
 *     globalref_events: ok: G global (F freed), W weak (V freed), objects: NAME...
 *
 * with the class of each ALLOC's object in order, or a FAIL line per
 * problem.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "vmpi.h"

#define MAX_REFS 4096
#define MAX_CLASSES 1024

static VMPI_Interface *vmpi;
static struct {
    VMPI_JNIRef ref;
    bool weak, live;
} refs[MAX_REFS];
static int num_refs, failures;
static int allocs[2], frees[2];
static struct {
    VMPI_ObjectID id;
    char name[64];
} classes[MAX_CLASSES];
static int num_classes;
static VMPI_ObjectID answered_class; /* from the requested OBJECT_ALLOC */
static bool answered;
static char objects[4096];

static void fail(const char *what, const VMPI_Event *event) {
    fprintf(stderr, "globalref_events: FAIL: %s (event %d)\n", what, (int)event->event_type);
    failures++;
}

static const char *class_name(VMPI_ObjectID id) {
    for (int i = 0; i < num_classes; i++)
        if (classes[i].id == id) return classes[i].name;
    return NULL;
}

static int find_live(VMPI_JNIRef ref) {
    for (int i = 0; i < num_refs; i++)
        if (refs[i].live && refs[i].ref == ref) return i;
    return -1;
}

static void allocated(const VMPI_Event *event, bool weak) {
    allocs[weak]++;
    VMPI_ObjectID obj = event->u.jni_globalref_alloc.obj_id;
    VMPI_JNIRef ref = event->u.jni_globalref_alloc.ref_id;
    if (!event->env_id) fail("ALLOC without a thread", event);
    if (!ref) fail("ALLOC with a null ref_id", event);
    if (!obj) fail("ALLOC with a null obj_id", event);
    if (find_live(ref) >= 0) fail("ALLOC of a ref_id already live", event);
    /* JVMPI 1.4.2's conversions, both ways, and a handle that is no
     * reference (the record's own address) refused. */
    if (vmpi->jobject2jobjectID(ref) != obj) fail("jobject2jobjectID(ref_id) is not obj_id", event);
    VMPI_JNIRef some_ref = vmpi->jobjectID2jobject(obj);
    if (!some_ref || vmpi->jobject2jobjectID(some_ref) != obj) fail("jobjectID2jobject(obj_id) names no reference to it", event);
    if (vmpi->jobject2jobjectID((VMPI_JNIRef)(uintptr_t)event) != NULL) fail("jobject2jobjectID took a handle that is no reference", event);
    answered = false;
    if (vmpi->RequestEvent(VMPI_EVENT_OBJECT_ALLOC, obj) != VMPI_OK || !answered) {
        fail("obj_id is not a live object", event);
    } else {
        const char *name = class_name(answered_class);
        if (!name) fail("obj_id's class was never loaded", event);
        else if (strlen(objects) + strlen(name) + 2 < sizeof objects) {
            strcat(objects, " ");
            strcat(objects, name);
        }
    }
    if (num_refs < MAX_REFS) refs[num_refs++] = (typeof(refs[0])){ref, weak, true};
}

static void freed(const VMPI_Event *event, bool weak) {
    frees[weak]++;
    int i = find_live(event->u.jni_globalref_free.ref_id);
    if (!event->env_id) fail("FREE without a thread", event);
    if (i < 0) fail("FREE of a ref_id that is not live", event);
    else if (refs[i].weak != weak) fail("FREE of the other kind of reference", event);
    else refs[i].live = false;
}

static void notify(VMPI_Event *event) {
    int32_t code = event->event_type & ~VMPI_REQUESTED_EVENT;
    switch (code) {
    case VMPI_EVENT_CLASS_LOAD:
        if (num_classes < MAX_CLASSES) {
            classes[num_classes].id = event->u.class_load.class_id;
            snprintf(classes[num_classes].name, sizeof classes[num_classes].name, "%s", event->u.class_load.class_name);
            num_classes++;
        }
        break;
    case VMPI_EVENT_OBJECT_ALLOC:
        if (event->event_type & VMPI_REQUESTED_EVENT) {
            answered_class = event->u.obj_alloc.class_id;
            answered = true;
        }
        break;
    case VMPI_EVENT_JNI_GLOBALREF_ALLOC: allocated(event, false); break;
    case VMPI_EVENT_JNI_WEAK_GLOBALREF_ALLOC: allocated(event, true); break;
    case VMPI_EVENT_JNI_GLOBALREF_FREE: freed(event, false); break;
    case VMPI_EVENT_JNI_WEAK_GLOBALREF_FREE: freed(event, true); break;
    case VMPI_EVENT_JVM_SHUT_DOWN:
        if (failures == 0)
            fprintf(stderr, "globalref_events: ok: %d global (%d freed), %d weak (%d freed), objects:%s\n", allocs[0],
                    frees[0], allocs[1], frees[1], objects);
        break;
    }
}

VMPI_EXPORT int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)options;
    (void)reserved;
    if (vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1) != VMPI_OK) return VMPI_ERR;
    vmpi->NotifyEvent = notify;
    static const int32_t events[] = {VMPI_EVENT_CLASS_LOAD,          VMPI_EVENT_JNI_GLOBALREF_ALLOC,
                                     VMPI_EVENT_JNI_GLOBALREF_FREE,  VMPI_EVENT_JNI_WEAK_GLOBALREF_ALLOC,
                                     VMPI_EVENT_JNI_WEAK_GLOBALREF_FREE, VMPI_EVENT_JVM_SHUT_DOWN};
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        if (vmpi->EnableEvent(events[i], NULL) != VMPI_OK) {
            fprintf(stderr, "globalref_events: EnableEvent(%d) refused\n", (int)events[i]);
            return VMPI_ERR;
        }
    return VMPI_OK;
}
