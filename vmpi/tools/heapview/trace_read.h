/*
 * trace_read.h -- reads a trace file (docs/trace-format.md), JSON lines or a
 * binary recording, and hands each heap, collection and class event to a
 * sink, in order.
 *
 * Only the events the picture needs become HeapEvents; the rest (threads,
 * methods, data requests) are read and skipped.  Events an agent asked for
 * (`"requested":true`, a late attach's replayed ARENA_NEWs) are skipped too:
 * the trace agent, loaded at start, never asks for them.
 */
#ifndef HEAPVIEW_TRACE_READ_H
#define HEAPVIEW_TRACE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    HEAP_ARENA_NEW,
    HEAP_ARENA_DELETE,
    HEAP_OBJECT_ALLOC,
    HEAP_OBJECT_FREE,
    HEAP_OBJECT_MOVE,
    HEAP_GC_START,
    HEAP_GC_FINISH,
    HEAP_CLASS_LOAD,
    HEAP_SHUT_DOWN,
    /* gclab's mechanism events (docs/heapview.md, "The step-through view"),
     * when the trace has them */
    HEAP_GC_PHASE_START,
    HEAP_OBJECT_GREYED,
    HEAP_OBJECT_BLACKENED,
    HEAP_OBJECT_FREE_CAUSE,
} HeapEventKind;

typedef struct {
    HeapEventKind kind;
    uint32_t arena_id, new_arena_id;
    uint32_t size;
    uint64_t obj_id, new_obj_id;
    uint64_t class_id;
    uint32_t is_array; /* OBJECT_ALLOC's: VMPI_CLASS for an array of objects, whose class_id is the element's */
    int64_t used_objects, used_object_space, total_object_space; /* GC_FINISH */
    const char *name; /* ARENA_NEW's arena_name, CLASS_LOAD's class_name, the phase_name, the cause;
                       * valid during the call */
} HeapEvent;

/* Returns false to stop reading, having written why into err. */
typedef bool (*HeapEventSink)(void *context, const HeapEvent *event, char *err, size_t err_size);

/* Reads `path` from its header to its last line, passing each heap event to
 * `sink`; the collector's name goes into collector.  False, with a message
 * naming the file and line, on unreadable, malformed or unknown input. */
bool trace_read(const char *path, char *collector, size_t collector_size, HeapEventSink sink,
                void *context, char *err, size_t err_size);

#endif
