/*
 * trace_read.c -- one trace file (trace_read.h): a binary recording through
 * its reader (vmpi/tools/trace_binary/), or JSON lines (trace_read_json.c).
 * A file that takes more than a second says how far it is on standard
 * error, every five seconds.
 */
#include "trace_read.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"
#include "trace_read_json.h"
#include "vmpi/tools/trace_binary/trace_binary_read.h"

/* ---- a binary recording ------------------------------------------------------------- */

/* The HeapEvent of one recorded event; false if the picture does not use it. */
static bool heap_event_of(const VMPI_Event *event, HeapEvent *heap) {
    memset(heap, 0, sizeof *heap);
    switch (event->event_type) { /* a requested event has another type */
    case VMPI_EVENT_ARENA_NEW:
        heap->kind = HEAP_ARENA_NEW;
        heap->arena_id = (uint32_t)event->u.new_arena.arena_id;
        heap->name = event->u.new_arena.arena_name;
        return true;
    case VMPI_EVENT_ARENA_DELETE:
        heap->kind = HEAP_ARENA_DELETE;
        heap->arena_id = (uint32_t)event->u.delete_arena.arena_id;
        return true;
    case VMPI_EVENT_OBJECT_ALLOC:
        heap->kind = HEAP_OBJECT_ALLOC;
        heap->arena_id = (uint32_t)event->u.obj_alloc.arena_id;
        heap->class_id = (uint64_t)(uintptr_t)event->u.obj_alloc.class_id;
        heap->is_array = (uint32_t)event->u.obj_alloc.is_array;
        heap->size = (uint32_t)event->u.obj_alloc.size;
        heap->obj_id = (uint64_t)(uintptr_t)event->u.obj_alloc.obj_id;
        return true;
    case VMPI_EVENT_OBJECT_FREE:
        heap->kind = HEAP_OBJECT_FREE;
        heap->obj_id = (uint64_t)(uintptr_t)event->u.obj_free.obj_id;
        return true;
    case VMPI_EVENT_OBJECT_MOVE:
        heap->kind = HEAP_OBJECT_MOVE;
        heap->arena_id = (uint32_t)event->u.obj_move.arena_id;
        heap->obj_id = (uint64_t)(uintptr_t)event->u.obj_move.obj_id;
        heap->new_arena_id = (uint32_t)event->u.obj_move.new_arena_id;
        heap->new_obj_id = (uint64_t)(uintptr_t)event->u.obj_move.new_obj_id;
        return true;
    case VMPI_EVENT_GC_START:
        heap->kind = HEAP_GC_START;
        return true;
    case VMPI_EVENT_GC_FINISH:
        heap->kind = HEAP_GC_FINISH;
        heap->used_objects = event->u.gc_info.used_objects;
        heap->used_object_space = event->u.gc_info.used_object_space;
        heap->total_object_space = event->u.gc_info.total_object_space;
        return true;
    case VMPI_EVENT_CLASS_LOAD:
        heap->kind = HEAP_CLASS_LOAD;
        heap->name = event->u.class_load.class_name;
        heap->class_id = (uint64_t)(uintptr_t)event->u.class_load.class_id;
        return true;
    case VMPI_EVENT_JVM_SHUT_DOWN:
        heap->kind = HEAP_SHUT_DOWN;
        return true;
    case VMPI_EVENT_GC_PHASE_START:
    case VMPI_EVENT_GC_PHASE_END:
        heap->kind = event->event_type == VMPI_EVENT_GC_PHASE_START ? HEAP_GC_PHASE_START : HEAP_GC_PHASE_END;
        heap->name = event->u.gc_phase.phase_name;
        return true;
    case VMPI_EVENT_OBJECT_GREYED:
    case VMPI_EVENT_OBJECT_BLACKENED:
    case VMPI_EVENT_REMEMBERED_SET_ADD:
        heap->kind = event->event_type == VMPI_EVENT_OBJECT_GREYED      ? HEAP_OBJECT_GREYED
                     : event->event_type == VMPI_EVENT_OBJECT_BLACKENED ? HEAP_OBJECT_BLACKENED
                                                                        : HEAP_REMEMBERED_SET_ADD;
        heap->obj_id = (uint64_t)(uintptr_t)event->u.gc_object.obj_id;
        return true;
    case VMPI_EVENT_OBJECT_FORWARDED:
        heap->kind = HEAP_OBJECT_FORWARDED;
        heap->obj_id = (uint64_t)(uintptr_t)event->u.obj_forward.obj_id;
        heap->new_obj_id = (uint64_t)(uintptr_t)event->u.obj_forward.new_obj_id;
        return true;
    case VMPI_EVENT_REFCOUNT_CHANGE:
        heap->kind = HEAP_REFCOUNT_CHANGE;
        heap->obj_id = (uint64_t)(uintptr_t)event->u.refcount_change.obj_id;
        heap->count = event->u.refcount_change.count;
        return true;
    case VMPI_EVENT_OBJECT_FREE_CAUSE:
        heap->kind = HEAP_OBJECT_FREE_CAUSE;
        heap->obj_id = (uint64_t)(uintptr_t)event->u.free_cause.obj_id;
        heap->name = event->u.free_cause.cause;
        return true;
    }
    return false;
}

/* Arena IDs and sizes are numbers JSON's reader refuses when negative. */
static const char *out_of_range(const VMPI_Event *event) {
    switch (event->event_type) {
    case VMPI_EVENT_ARENA_NEW: return event->u.new_arena.arena_id < 0 ? "arena_id" : NULL;
    case VMPI_EVENT_ARENA_DELETE: return event->u.delete_arena.arena_id < 0 ? "arena_id" : NULL;
    case VMPI_EVENT_OBJECT_ALLOC:
        return event->u.obj_alloc.arena_id < 0 ? "arena_id" : event->u.obj_alloc.size < 0 ? "size" : NULL;
    case VMPI_EVENT_OBJECT_MOVE:
        return event->u.obj_move.arena_id < 0 || event->u.obj_move.new_arena_id < 0 ? "arena_id" : NULL;
    }
    return NULL;
}

static bool read_recording(const char *path, char *collector, size_t collector_size, HeapEventSink sink,
                           void *context, char *err, size_t err_size) {
    TraceBinaryReader *reader = trace_binary_open(path, err, err_size);
    if (!reader) return false;
    const char *name = trace_binary_collector(reader);
    if (!name || !*name) {
        snprintf(err, err_size, "%s: the header names no collector", path);
        trace_binary_close(reader);
        return false;
    }
    snprintf(collector, collector_size, "%s", name);
    Progress progress;
    progress_start(&progress, path);
    TraceBinaryRecord record;
    int got;
    bool ok = true;
    while (ok && (got = trace_binary_next(reader, &record, err, err_size)) > 0) {
        if (progress_due(&progress))
            progress_report(&progress, trace_binary_offset(reader), trace_binary_size(reader));
        HeapEvent event;
        const char *bad = out_of_range(&record.event);
        if (bad) {
            snprintf(err, err_size, "%s: event %" PRIu64 ": out of range: %s", path, record.seq, bad);
            ok = false;
        } else if (heap_event_of(&record.event, &event)) {
            char why[256] = "";
            ok = sink(context, &event, why, sizeof why);
            if (!ok) snprintf(err, err_size, "%s: event %" PRIu64 ": %s", path, record.seq, why);
        }
    }
    if (ok && got == 0) progress_done(&progress, trace_binary_size(reader));
    trace_binary_close(reader);
    return ok && got == 0;
}

bool trace_read(const char *path, char *collector, size_t collector_size, HeapEventSink sink,
                void *context, char *err, size_t err_size) {
    FILE *file = fopen(path, "r");
    if (!file) {
        snprintf(err, err_size, "%s: %s", path, strerror(errno));
        return false;
    }
    unsigned char start[16]; /* more than the magic bytes */
    size_t n = fread(start, 1, sizeof start, file);
    bool ok;
    if (trace_binary_is_recording(start, n)) {
        fclose(file);
        return read_recording(path, collector, collector_size, sink, context, err, err_size);
    }
    ok = trace_read_json(path, file, collector, collector_size, sink, context, err, err_size);
    fclose(file);
    return ok;
}
