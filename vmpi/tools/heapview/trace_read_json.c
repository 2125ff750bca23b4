/*
 * trace_read_json.c -- a trace in JSON lines (trace_read_json.h), line by
 * line through json-c's tokener.  The header is checked first: its format
 * and version must be the ones docs/trace-format.md describes.
 */
#include "trace_read_json.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"

#define TRACE_FORMAT_NAME "gclab-vmpi-trace"
#define TRACE_FORMAT_VERSION 1

typedef struct {
    const char *path;
    uint64_t line;
    char *err;
    size_t err_size;
} Where;

static bool fail(const Where *where, const char *why, const char *name) {
    snprintf(where->err, where->err_size, "%s:%" PRIu64 ": %s%s%s", where->path, where->line, why,
             name ? " " : "", name ? name : "");
    return false;
}

/* The integer field `name` into *field, NULL for a null ID. */
static bool integer_field(const Where *where, json_object *line, const char *name, json_object **field) {
    if (!json_object_object_get_ex(line, name, field)) return fail(where, "missing field", name);
    if (*field && !json_object_is_type(*field, json_type_int)) return fail(where, "not an integer:", name);
    return true;
}

/* A null ID reads as 0. */
static bool get_int(const Where *where, json_object *line, const char *name, int64_t *value) {
    json_object *field;
    if (!integer_field(where, line, name, &field)) return false;
    errno = 0;
    *value = field ? json_object_get_int64(field) : 0;
    return !errno || fail(where, "integer out of range:", name);
}

/* IDs are addresses: the full unsigned 64-bit range. */
static bool get_id(const Where *where, json_object *line, const char *name, uint64_t *value) {
    json_object *field;
    if (!integer_field(where, line, name, &field)) return false;
    *value = field ? json_object_get_uint64(field) : 0;
    return true;
}

static bool get_u32(const Where *where, json_object *line, const char *name, uint32_t *value) {
    int64_t wide;
    if (!get_int(where, line, name, &wide)) return false;
    if (wide < 0 || wide > UINT32_MAX) return fail(where, "out of range:", name);
    *value = (uint32_t)wide;
    return true;
}

static const char *get_string(json_object *line, const char *name) {
    json_object *field;
    if (!json_object_object_get_ex(line, name, &field) || !json_object_is_type(field, json_type_string))
        return NULL;
    return json_object_get_string(field);
}

static bool read_header(const Where *where, json_object *line, char *collector, size_t collector_size) {
    const char *format = get_string(line, "format");
    if (!format || strcmp(format, TRACE_FORMAT_NAME) != 0)
        return fail(where, "not a gclab trace: the header's format is not", "\"" TRACE_FORMAT_NAME "\"");
    int64_t version;
    if (!get_int(where, line, "version", &version)) return false;
    if (version != TRACE_FORMAT_VERSION) {
        snprintf(where->err, where->err_size, "%s:1: trace format version %" PRId64 " (heapview reads %d)",
                 where->path, version, TRACE_FORMAT_VERSION);
        return false;
    }
    const char *name = get_string(line, "collector");
    if (!name || !*name) return fail(where, "the header names no collector", NULL);
    snprintf(collector, collector_size, "%s", name);
    return true;
}

static const struct {
    const char *name;
    HeapEventKind kind;
} kinds[] = {
    {"ARENA_NEW", HEAP_ARENA_NEW},       {"ARENA_DELETE", HEAP_ARENA_DELETE},
    {"OBJECT_ALLOC", HEAP_OBJECT_ALLOC}, {"OBJECT_FREE", HEAP_OBJECT_FREE},
    {"OBJECT_MOVE", HEAP_OBJECT_MOVE},   {"GC_START", HEAP_GC_START},
    {"GC_FINISH", HEAP_GC_FINISH},       {"CLASS_LOAD", HEAP_CLASS_LOAD},
    {"JVM_SHUT_DOWN", HEAP_SHUT_DOWN},   {"GC_PHASE_START", HEAP_GC_PHASE_START},
    {"GC_PHASE_END", HEAP_GC_PHASE_END}, {"OBJECT_GREYED", HEAP_OBJECT_GREYED},
    {"OBJECT_BLACKENED", HEAP_OBJECT_BLACKENED}, {"OBJECT_FORWARDED", HEAP_OBJECT_FORWARDED},
    {"REMEMBERED_SET_ADD", HEAP_REMEMBERED_SET_ADD}, {"REFCOUNT_CHANGE", HEAP_REFCOUNT_CHANGE},
    {"OBJECT_FREE_CAUSE", HEAP_OBJECT_FREE_CAUSE},
};

/* Fills *event from one event line; false on a malformed line.  *wanted is
 * false for an event the picture does not use. */
static bool read_event(const Where *where, json_object *line, HeapEvent *event, bool *wanted) {
    const char *name = get_string(line, "event");
    if (!name) return fail(where, "no \"event\" name", NULL);
    json_object *requested;
    *wanted = false;
    if (json_object_object_get_ex(line, "requested", &requested) && json_object_get_boolean(requested))
        return true;
    size_t k = 0;
    while (k < sizeof kinds / sizeof kinds[0] && strcmp(kinds[k].name, name) != 0) k++;
    if (k == sizeof kinds / sizeof kinds[0]) return true;
    *wanted = true;
    memset(event, 0, sizeof *event);
    event->kind = kinds[k].kind;
    switch (event->kind) {
    case HEAP_ARENA_NEW:
        event->name = get_string(line, "arena_name");
        return get_u32(where, line, "arena_id", &event->arena_id);
    case HEAP_ARENA_DELETE:
        return get_u32(where, line, "arena_id", &event->arena_id);
    case HEAP_OBJECT_ALLOC:
        return get_u32(where, line, "arena_id", &event->arena_id) &&
               get_id(where, line, "class_id", &event->class_id) &&
               get_u32(where, line, "is_array", &event->is_array) &&
               get_u32(where, line, "size", &event->size) && get_id(where, line, "obj_id", &event->obj_id);
    case HEAP_OBJECT_FREE:
        return get_id(where, line, "obj_id", &event->obj_id);
    case HEAP_OBJECT_MOVE:
        return get_u32(where, line, "arena_id", &event->arena_id) &&
               get_id(where, line, "obj_id", &event->obj_id) &&
               get_u32(where, line, "new_arena_id", &event->new_arena_id) &&
               get_id(where, line, "new_obj_id", &event->new_obj_id);
    case HEAP_GC_FINISH:
        return get_int(where, line, "used_objects", &event->used_objects) &&
               get_int(where, line, "used_object_space", &event->used_object_space) &&
               get_int(where, line, "total_object_space", &event->total_object_space);
    case HEAP_CLASS_LOAD:
        event->name = get_string(line, "class_name");
        return get_id(where, line, "class_id", &event->class_id);
    case HEAP_GC_PHASE_START:
    case HEAP_GC_PHASE_END:
        event->name = get_string(line, "phase_name");
        return event->name || fail(where, "missing field", "phase_name");
    case HEAP_OBJECT_FREE_CAUSE:
        event->name = get_string(line, "cause");
        if (!event->name) return fail(where, "missing field", "cause");
        return get_id(where, line, "obj_id", &event->obj_id);
    case HEAP_OBJECT_GREYED:
    case HEAP_OBJECT_BLACKENED:
    case HEAP_REMEMBERED_SET_ADD:
        return get_id(where, line, "obj_id", &event->obj_id);
    case HEAP_OBJECT_FORWARDED:
        return get_id(where, line, "obj_id", &event->obj_id) && get_id(where, line, "new_obj_id", &event->new_obj_id);
    case HEAP_REFCOUNT_CHANGE: {
        int64_t count;
        if (!get_id(where, line, "obj_id", &event->obj_id) || !get_int(where, line, "count", &count)) return false;
        if (count < INT32_MIN || count > INT32_MAX) return fail(where, "out of range:", "count");
        event->count = (int32_t)count;
        return true;
    }
    case HEAP_GC_START:
    case HEAP_SHUT_DOWN:
        return true;
    }
    return true;
}


bool trace_read_json(const char *path, FILE *file, char *collector, size_t collector_size, HeapEventSink sink,
                      void *context, char *err, size_t err_size) {
    Where where = {path, 0, err, err_size};
    Progress progress;
    progress_start(&progress, path);
    size_t total = 0;
    if (fseek(file, 0, SEEK_END) == 0) total = (size_t)ftell(file);
    rewind(file);
    json_tokener *tokener = json_tokener_new();
    char *text = NULL;
    size_t text_size = 0;
    ssize_t length;
    bool ok = tokener != NULL, ended = false;
    if (!tokener) snprintf(err, err_size, "%s: out of memory", path);
    while (ok && (length = getline(&text, &text_size, file)) >= 0) {
        where.line++;
        if (ended) {
            ok = fail(&where, "a line after JVM_SHUT_DOWN", NULL);
            break;
        }
        json_tokener_reset(tokener);
        json_object *line = json_tokener_parse_ex(tokener, text, (int)length);
        if (!line || !json_object_is_type(line, json_type_object)) {
            json_object_put(line);
            ok = fail(&where, "not a JSON object", NULL);
            break;
        }
        if (where.line == 1) {
            ok = read_header(&where, line, collector, collector_size);
        } else {
            HeapEvent event;
            bool wanted;
            ok = read_event(&where, line, &event, &wanted);
            if (progress_due(&progress)) progress_report(&progress, (size_t)ftell(file), total);
            if (ok && wanted) {
                char why[256] = "";
                ok = sink(context, &event, why, sizeof why);
                if (!ok) fail(&where, why, NULL);
                ended = event.kind == HEAP_SHUT_DOWN;
            }
        }
        json_object_put(line);
    }
    if (ok && ferror(file)) ok = (snprintf(err, err_size, "%s: %s", path, strerror(errno)), false);
    if (ok && where.line == 0) ok = (snprintf(err, err_size, "%s: empty: not a trace", path), false);
    if (ok && !ended)
        ok = fail(&where, "no JVM_SHUT_DOWN: the trace is cut short (a .partial file of a run that died?)", NULL);
    free(text);
    if (tokener) json_tokener_free(tokener);
    if (ok) progress_done(&progress, total);
    return ok;
}

