/*
 * heap_monitor.c -- a test agent for heap sampling (JVMTI 11,
 * SetHeapSamplingInterval), in the manner of OpenJDK's HeapMonitor tests:
 * it counts the SAMPLED_OBJECT_ALLOC events it gets and, on request, the
 * allocations themselves, and writes what it saw at JVM_SHUT_DOWN for
 * tests/cli/heap_monitor.sh to judge.
 *
 *     -agentpath:libheap_monitor.so=file=F[,interval=BYTES][,count=y][,list=y]
 *                                   [,off_after=N,on_after=M]
 *
 *   interval=BYTES  SetHeapSamplingInterval(BYTES); without it, the default
 *   count=y         also enables OBJECT_ALLOC, to count every allocation
 *                   and its bytes (and to tell whether the first one was
 *                   sampled)
 *   list=y          one line per sample: size, class, the frames of its
 *                   call trace as Class.method:line (at most 4) and, with
 *                   count=y, "#N": it was the N-th allocation
 *   off_after=N     disables SAMPLED_OBJECT_ALLOC after the N-th sample,
 *   on_after=M      and enables it again M allocations later (needs count=y)
 *
 * F gets "NAME VALUE" lines: interval, samples, and with count=y
 * allocations, allocated_bytes, first_allocation_sampled (yes or no),
 * samples_sampling_off (samples that arrived while the event was disabled:
 * 0 is right) and samples_after_on; then the sample lines of list=y.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmpi.h"

static VMPI_Interface *vmpi;
static char path[4096];
static long long interval = -1; /* -1: the VM's default */
static bool count_allocations, list_samples;
static long long off_after, on_after;

static long long samples, allocations, allocated_bytes;
static long long samples_sampling_off, samples_after_on, allocations_while_off;
static bool sampling_off, turned_back_on;
static bool first_allocation_sampled;

/* Method and class names from CLASS_LOAD, for list=y. */
typedef struct Method {
    VMPI_MethodID id;
    char name[128];
} Method;
static Method *methods;
static size_t num_methods, cap_methods;
typedef struct Class {
    VMPI_ObjectID id;
    char name[96];
} Class;
static Class *classes;
static size_t num_classes, cap_classes;

static char *sample_lines;
static size_t sample_lines_len, sample_lines_cap;

static void *grow(void *array, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return array;
    size_t new_cap = *cap ? *cap * 2 : 64;
    while (new_cap < need) new_cap *= 2;
    void *grown = realloc(array, new_cap * size);
    if (!grown) {
        fputs("heap_monitor: out of memory\n", stderr);
        vmpi->ProfilerExit(1);
    }
    *cap = new_cap;
    return grown;
}

static void append(const char *text) {
    size_t n = strlen(text);
    sample_lines = grow(sample_lines, &sample_lines_cap, sample_lines_len + n + 1, 1);
    memcpy(sample_lines + sample_lines_len, text, n + 1);
    sample_lines_len += n;
}

static const char *method_name(VMPI_MethodID id) {
    for (size_t i = 0; i < num_methods; i++)
        if (methods[i].id == id) return methods[i].name;
    return "?";
}

static const char *class_name(VMPI_ObjectID id) {
    for (size_t i = 0; i < num_classes; i++)
        if (classes[i].id == id) return classes[i].name;
    return "?";
}

static void class_load(const VMPI_Event *event) {
    classes = grow(classes, &cap_classes, num_classes + 1, sizeof *classes);
    Class *c = &classes[num_classes++];
    c->id = event->u.class_load.class_id;
    snprintf(c->name, sizeof c->name, "%s", event->u.class_load.class_name);
    for (int32_t i = 0; i < event->u.class_load.num_methods; i++) {
        methods = grow(methods, &cap_methods, num_methods + 1, sizeof *methods);
        Method *m = &methods[num_methods++];
        m->id = event->u.class_load.methods[i].method_id;
        snprintf(m->name, sizeof m->name, "%s.%s", event->u.class_load.class_name,
                 event->u.class_load.methods[i].method_name);
    }
}

static void list_sample(const VMPI_Event *event) {
    char line[256];
    const char *cls = event->u.sampled_alloc.is_array == 0 || event->u.sampled_alloc.is_array == 2
                          ? class_name(event->u.sampled_alloc.class_id)
                          : "primitive[]";
    snprintf(line, sizeof line, "sample %d %s", event->u.sampled_alloc.size, cls);
    append(line);
    for (int32_t i = 0; i < event->u.sampled_alloc.num_frames && i < 4; i++) {
        const VMPI_CallFrame *frame = &event->u.sampled_alloc.frames[i];
        snprintf(line, sizeof line, " %s:%d", method_name(frame->method_id), frame->lineno);
        append(line);
    }
    if (count_allocations) {
        snprintf(line, sizeof line, " #%lld", allocations);
        append(line);
    }
    append("\n");
}

static void sampled(const VMPI_Event *event) {
    samples++;
    if (sampling_off) samples_sampling_off++;
    if (turned_back_on) samples_after_on++;
    /* A sample follows its allocation's OBJECT_ALLOC at once. */
    if (count_allocations && allocations == 1) first_allocation_sampled = true;
    if (list_samples) list_sample(event);
    if (off_after && samples == off_after) {
        vmpi->DisableEvent(VMPI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
        sampling_off = true;
    }
}

static void allocated(const VMPI_Event *event) {
    allocations++;
    allocated_bytes += event->u.obj_alloc.size;
    if (sampling_off && ++allocations_while_off == on_after) {
        sampling_off = false;
        turned_back_on = true;
        vmpi->EnableEvent(VMPI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    }
}

static void shut_down(void) {
    FILE *out = fopen(path, "w");
    if (!out) {
        perror(path);
        return;
    }
    fprintf(out, "interval %lld\nsamples %lld\n", interval, samples);
    if (count_allocations)
        fprintf(out,
                "allocations %lld\nallocated_bytes %lld\nfirst_allocation_sampled %s\n"
                "samples_sampling_off %lld\nsamples_after_on %lld\n",
                allocations, allocated_bytes, first_allocation_sampled ? "yes" : "no", samples_sampling_off,
                samples_after_on);
    if (sample_lines) fputs(sample_lines, out);
    fclose(out);
}

static void notify(VMPI_Event *event) {
    switch (event->event_type) {
    case VMPI_EVENT_SAMPLED_OBJECT_ALLOC: sampled(event); break;
    case VMPI_EVENT_OBJECT_ALLOC: allocated(event); break;
    case VMPI_EVENT_CLASS_LOAD: class_load(event); break;
    case VMPI_EVENT_JVM_SHUT_DOWN: shut_down(); break;
    }
}

/* Reads "NAME=VALUE" at *item into *value if NAME matches. */
static bool number_option(const char *item, const char *name, long long *value) {
    size_t n = strlen(name);
    if (strncmp(item, name, n) != 0 || item[n] != '=') return false;
    char *end;
    *value = strtoll(item + n + 1, &end, 10);
    return *end == '\0' && *value >= 0;
}

VMPI_EXPORT int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)reserved;
    if (vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1) != VMPI_OK) return VMPI_ERR;
    for (char *item = strtok(options, ","); item; item = strtok(NULL, ",")) {
        if (strncmp(item, "file=", 5) == 0) snprintf(path, sizeof path, "%s", item + 5);
        else if (strcmp(item, "count=y") == 0) count_allocations = true;
        else if (strcmp(item, "list=y") == 0) list_samples = true;
        else if (!number_option(item, "interval", &interval) && !number_option(item, "off_after", &off_after) &&
                 !number_option(item, "on_after", &on_after)) {
            fprintf(stderr, "heap_monitor: bad option '%s'\n", item);
            return VMPI_ERR;
        }
    }
    if (!*path || (off_after && !count_allocations)) {
        fputs("heap_monitor: options are file=F[,interval=B][,count=y][,list=y][,off_after=N,on_after=M]"
              " (off_after needs count=y)\n", stderr);
        return VMPI_ERR;
    }
    vmpi->NotifyEvent = notify;
    if (interval >= 0 && vmpi->SetHeapSamplingInterval((int32_t)interval) != VMPI_OK) return VMPI_ERR;
    vmpi->EnableEvent(VMPI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    vmpi->EnableEvent(VMPI_EVENT_JVM_SHUT_DOWN, NULL);
    if (count_allocations) vmpi->EnableEvent(VMPI_EVENT_OBJECT_ALLOC, NULL);
    if (list_samples) vmpi->EnableEvent(VMPI_EVENT_CLASS_LOAD, NULL);
    return VMPI_OK;
}
