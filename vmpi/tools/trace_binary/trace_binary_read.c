/*
 * trace_binary_read.c -- the binary recording's reader (trace_binary_read.h):
 * one reader per field kind, called in the order vmpi.h's event table lists
 * an event's fields, the inverse of the agent's writers (trace_binary.c).
 */
#include "trace_binary_read.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmpi/agents/common/trace_binary.h"

/* What one field of one event keeps between events: its last ID, and the
 * array an array field's elements are read into. */
typedef struct FieldState {
    uint64_t last_id;
    void *array;
    size_t capacity; /* bytes */
} FieldState;

struct TraceBinaryReader {
    char name[1024];
    const unsigned char *data;
    size_t size, at;
    void *mapped;  /* what munmap takes, or NULL */
    void *owned;   /* what free takes, or NULL */
    int32_t vmpi_version;
    char *collector;
    uint64_t seq;
    uint32_t thread;
    bool shut_down; /* JVM_SHUT_DOWN read */
    char **strings;
    size_t num_strings, strings_capacity;
    FieldState fields[VMPI_EVENT_CODE_LIMIT][TRACE_BINARY_MAX_FIELDS];
    char *err;      /* where the current call's message goes */
    size_t err_size;
};

static bool fail(TraceBinaryReader *reader, const char *why, ...) {
    int n = snprintf(reader->err, reader->err_size, "%s: byte %zu: ", reader->name, reader->at);
    if (n >= 0 && (size_t)n < reader->err_size) {
        va_list args;
        va_start(args, why);
        vsnprintf(reader->err + n, reader->err_size - (size_t)n, why, args);
        va_end(args);
    }
    return false;
}

static inline bool get_varint(TraceBinaryReader *reader, uint64_t *value) {
    if (reader->at < reader->size && reader->data[reader->at] < 0x80) { /* most numbers: one byte */
        *value = reader->data[reader->at++];
        return true;
    }
    uint64_t result = 0;
    *value = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (reader->at == reader->size) return fail(reader, "cut short inside a number");
        unsigned char byte = reader->data[reader->at++];
        if (shift == 63 && byte > 1) return fail(reader, "a number beyond 64 bits");
        result |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *value = result;
            return true;
        }
    }
    return fail(reader, "a number beyond 64 bits");
}

static inline bool get_signed(TraceBinaryReader *reader, int64_t *value) {
    uint64_t raw;
    if (!get_varint(reader, &raw)) return false;
    *value = trace_binary_unzigzag(raw);
    return true;
}

static bool get_int32(TraceBinaryReader *reader, int32_t *value) {
    int64_t wide;
    if (!get_signed(reader, &wide)) return false;
    if (wide < INT32_MIN || wide > INT32_MAX) return fail(reader, "%" PRId64 " is out of a 32-bit field's range", wide);
    *value = (int32_t)wide;
    return true;
}

static bool get_id_value(TraceBinaryReader *reader, FieldState *field, uint64_t *value) {
    int64_t difference;
    if (!get_signed(reader, &difference)) return false;
    field->last_id += (uint64_t)difference;
    *value = field->last_id;
    return true;
}

/* A new string, which becomes the table's next entry. */
static bool new_string(TraceBinaryReader *reader, char **text) {
    uint64_t length;
    if (!get_varint(reader, &length)) return false;
    if (length > reader->size - reader->at) return fail(reader, "a string of %" PRIu64 " bytes runs past the end", length);
    const unsigned char *bytes = reader->data + reader->at;
    if (memchr(bytes, '\0', length)) return fail(reader, "a string holds a NUL byte");
    if (reader->num_strings == reader->strings_capacity) {
        size_t capacity = reader->strings_capacity ? 2 * reader->strings_capacity : 64;
        char **grown = realloc(reader->strings, capacity * sizeof *grown);
        if (!grown) return fail(reader, "out of memory");
        reader->strings = grown;
        reader->strings_capacity = capacity;
    }
    char *copy = malloc(length + 1);
    if (!copy) return fail(reader, "out of memory");
    memcpy(copy, bytes, length);
    copy[length] = '\0';
    reader->at += length;
    reader->strings[reader->num_strings++] = copy;
    *text = copy;
    return true;
}

static bool get_string(TraceBinaryReader *reader, char **text) {
    uint64_t tag;
    if (!get_varint(reader, &tag)) return false;
    if (tag == TRACE_BINARY_NULL_STRING) {
        *text = NULL;
        return true;
    }
    if (tag == TRACE_BINARY_NEW_STRING) return new_string(reader, text);
    if (tag - TRACE_BINARY_KNOWN_STRING >= reader->num_strings)
        return fail(reader, "string entry %" PRIu64 " of %zu", tag - TRACE_BINARY_KNOWN_STRING, reader->num_strings);
    *text = reader->strings[tag - TRACE_BINARY_KNOWN_STRING];
    return true;
}

/* Room for `count` elements of `size` bytes, each at least `min_bytes` of
 * input: a count the rest of the input cannot hold is refused before
 * anything is allocated for it. */
static bool array_room(TraceBinaryReader *reader, FieldState *field, int32_t count, size_t size, size_t min_bytes,
                       void **array) {
    *array = NULL;
    if (count <= 0) return true;
    if ((size_t)count > (reader->size - reader->at) / min_bytes)
        return fail(reader, "%" PRId32 " elements run past the end", count);
    if ((size_t)count * size > field->capacity) {
        void *grown = realloc(field->array, (size_t)count * size);
        if (!grown) return fail(reader, "out of memory");
        field->array = grown;
        field->capacity = (size_t)count * size;
    }
    *array = field->array;
    return true;
}

/* ---- one reader per field kind (vmpi.h, VMPI_FIELDS_*) ------------------------------ */

static bool get_INT32(TraceBinaryReader *reader, FieldState *field, int32_t *value, int32_t *count) {
    (void)field;
    if (!get_int32(reader, value)) return false;
    *count = *value;
    return true;
}

static bool get_INT64(TraceBinaryReader *reader, FieldState *field, int64_t *value, int32_t *count) {
    (void)field;
    (void)count;
    return get_signed(reader, value);
}

static bool get_ARENA_ID(TraceBinaryReader *reader, FieldState *field, VMPI_ArenaID *value, int32_t *count) {
    (void)field;
    (void)count;
    int64_t wide;
    if (!get_signed(reader, &wide)) return false;
    if (wide < INT32_MIN || wide > INT32_MAX) return fail(reader, "arena ID %" PRId64 " is out of range", wide);
    *value = (VMPI_ArenaID)wide;
    return true;
}

/* Every ID kind: an opaque pointer. */
#define ID_READER(KIND)                                                                                   \
    static bool get_##KIND(TraceBinaryReader *reader, FieldState *field, VMPI_KIND_TYPE_##KIND *value, \
                           int32_t *count) {                                                            \
        (void)count;                                                                                     \
        uint64_t id;                                                                                     \
        if (!get_id_value(reader, field, &id)) return false;                                            \
        *value = (VMPI_KIND_TYPE_##KIND)(uintptr_t)id;                                                   \
        return true;                                                                                     \
    }
ID_READER(OBJECT_ID)
ID_READER(METHOD_ID)
ID_READER(THREAD_ID)
ID_READER(RAW_MONITOR)
ID_READER(JNI_REF)

static bool get_STRING(TraceBinaryReader *reader, FieldState *field, char **value, int32_t *count) {
    (void)field;
    (void)count;
    return get_string(reader, value);
}

static bool get_METHODS(TraceBinaryReader *reader, FieldState *field, VMPI_Method **value, int32_t *count) {
    VMPI_Method *methods;
    if (!array_room(reader, field, *count, sizeof *methods, 5, (void **)&methods)) return false;
    for (int32_t i = 0; i < *count; i++) {
        uint64_t id;
        if (!get_string(reader, &methods[i].method_name) || !get_string(reader, &methods[i].method_signature) ||
            !get_int32(reader, &methods[i].start_lineno) || !get_int32(reader, &methods[i].end_lineno) ||
            !get_id_value(reader, field, &id))
            return false;
        methods[i].method_id = (VMPI_MethodID)(uintptr_t)id;
    }
    *value = methods;
    return true;
}

static bool get_FIELDS(TraceBinaryReader *reader, FieldState *field, VMPI_Field **value, int32_t *count) {
    VMPI_Field *fields;
    if (!array_room(reader, field, *count, sizeof *fields, 2, (void **)&fields)) return false;
    for (int32_t i = 0; i < *count; i++)
        if (!get_string(reader, &fields[i].field_name) || !get_string(reader, &fields[i].field_signature))
            return false;
    *value = fields;
    return true;
}

static bool get_CALL_FRAMES(TraceBinaryReader *reader, FieldState *field, VMPI_CallFrame **value, int32_t *count) {
    VMPI_CallFrame *frames;
    if (!array_room(reader, field, *count, sizeof *frames, 2, (void **)&frames)) return false;
    for (int32_t i = 0; i < *count; i++) {
        uint64_t id;
        if (!get_id_value(reader, field, &id) || !get_int32(reader, &frames[i].lineno)) return false;
        frames[i].method_id = (VMPI_MethodID)(uintptr_t)id;
    }
    *value = frames;
    return true;
}

/* What the recording leaves out reads as NULL (the event was zeroed). */
#define get_CALL_TRACES get_omitted
#define get_INT32_ARRAY get_omitted
#define get_BUFFER get_omitted
#define get_BYTES get_omitted
#define get_ALLOCATOR get_omitted
static bool get_omitted(TraceBinaryReader *reader, FieldState *field, const void *value, int32_t *count) {
    (void)reader;
    (void)field;
    (void)value;
    (void)count;
    return true;
}

/* The event's own fields: generated from vmpi.h's event table. */
static bool event_fields(TraceBinaryReader *reader, int32_t code, VMPI_Event *event) {
    int32_t count = 0;
    FieldState *field = reader->fields[code];
    switch (code) {
#define GET_FIELD(member, kind, name) \
    if (!get_##kind(reader, field++, &event->u.member.name, &count)) return false;
#define EVENT_CASE(name, code, member) \
    case code:                         \
        VMPI_FIELDS_##member(GET_FIELD) break;
        VMPI_EVENTS(EVENT_CASE)
#undef EVENT_CASE
#undef GET_FIELD
    }
    return true;
}

/* ---- the fixed records (trace_binary.h) ------------------------------------------------ */

/* The `bytes` - 1 bytes after a fixed record's first byte, or NULL if the
 * input ends first. */
static const unsigned char *fixed_body(TraceBinaryReader *reader, size_t bytes) {
    if (reader->size - reader->at < bytes - 1) {
        fail(reader, "cut short inside a fixed record");
        return NULL;
    }
    const unsigned char *body = reader->data + reader->at;
    reader->at += bytes - 1;
    return body;
}

/* An ID stored as its 32-bit difference from the field's last value. */
static uint64_t fixed_id(FieldState *field, const unsigned char *at) {
    field->last_id += (uint64_t)(int64_t)(int32_t)trace_binary_load32(at);
    return field->last_id;
}

#define FIXED_FIRST(code) ((code) << TRACE_BINARY_CODE_SHIFT | TRACE_BINARY_FIXED)

/* A fixed record, `first` its first byte, read at `start`, into `event`. */
static bool fixed_record(TraceBinaryReader *reader, uint64_t first, size_t start, VMPI_Event *event) {
    const unsigned char *body;
    FieldState *field;
    switch (first) {
    case FIXED_FIRST(VMPI_EVENT_OBJECT_ALLOC):
        if (!(body = fixed_body(reader, TRACE_BINARY_FIXED_ALLOC_BYTES))) return false;
        field = reader->fields[VMPI_EVENT_OBJECT_ALLOC];
        event->event_type = VMPI_EVENT_OBJECT_ALLOC;
        event->u.obj_alloc.arena_id = body[0];
        event->u.obj_alloc.is_array = body[1];
        event->u.obj_alloc.size = (int32_t)trace_binary_load32(body + 2);
        event->u.obj_alloc.class_id =
            (VMPI_ObjectID)(uintptr_t)fixed_id(&field[TRACE_BINARY_FIELD_obj_alloc_class_id], body + 6);
        event->u.obj_alloc.obj_id =
            (VMPI_ObjectID)(uintptr_t)fixed_id(&field[TRACE_BINARY_FIELD_obj_alloc_obj_id], body + 10);
        return true;
    case FIXED_FIRST(VMPI_EVENT_OBJECT_FREE):
        if (!(body = fixed_body(reader, TRACE_BINARY_FIXED_FREE_BYTES))) return false;
        field = reader->fields[VMPI_EVENT_OBJECT_FREE];
        event->event_type = VMPI_EVENT_OBJECT_FREE;
        event->u.obj_free.obj_id = (VMPI_ObjectID)(uintptr_t)fixed_id(&field[TRACE_BINARY_FIELD_obj_free_obj_id], body);
        return true;
    case FIXED_FIRST(VMPI_EVENT_OBJECT_MOVE):
        if (!(body = fixed_body(reader, TRACE_BINARY_FIXED_MOVE_BYTES))) return false;
        field = reader->fields[VMPI_EVENT_OBJECT_MOVE];
        event->event_type = VMPI_EVENT_OBJECT_MOVE;
        event->u.obj_move.arena_id = body[0];
        event->u.obj_move.new_arena_id = body[1];
        event->u.obj_move.obj_id =
            (VMPI_ObjectID)(uintptr_t)fixed_id(&field[TRACE_BINARY_FIELD_obj_move_obj_id], body + 2);
        event->u.obj_move.new_obj_id =
            (VMPI_ObjectID)(uintptr_t)fixed_id(&field[TRACE_BINARY_FIELD_obj_move_new_obj_id], body + 6);
        return true;
    default:
        reader->at = start;
        return fail(reader, "no fixed record starts with %" PRIu64, first);
    }
}

/* ---- the recording ----------------------------------------------------------------------- */

bool trace_binary_is_recording(const void *bytes, size_t n) {
    return n >= TRACE_BINARY_MAGIC_BYTES && memcmp(bytes, TRACE_BINARY_MAGIC, TRACE_BINARY_MAGIC_BYTES) == 0;
}

static bool read_header(TraceBinaryReader *reader) {
    if (!trace_binary_is_recording(reader->data, reader->size))
        return fail(reader, "not a gclab binary recording (no magic bytes)");
    reader->at = TRACE_BINARY_MAGIC_BYTES;
    uint64_t version, json_version;
    if (!get_varint(reader, &version)) return false;
    if (version != TRACE_BINARY_VERSION)
        return fail(reader, "binary recording version %" PRIu64 " (this reader reads %d: record it again)",
                    version, TRACE_BINARY_VERSION);
    if (!get_varint(reader, &json_version)) return false;
    if (json_version != TRACE_FORMAT_VERSION)
        return fail(reader, "converts to trace format version %" PRIu64 " (this reader writes %d)", json_version,
                    TRACE_FORMAT_VERSION);
    return get_int32(reader, &reader->vmpi_version) && get_string(reader, &reader->collector);
}

static TraceBinaryReader *new_reader(const char *name) {
    TraceBinaryReader *reader = calloc(1, sizeof *reader);
    if (reader) snprintf(reader->name, sizeof reader->name, "%s", name);
    return reader;
}

static TraceBinaryReader *start(TraceBinaryReader *reader, char *err, size_t err_size) {
    reader->err = err;
    reader->err_size = err_size;
    if (read_header(reader)) return reader;
    trace_binary_close(reader);
    return NULL;
}

TraceBinaryReader *trace_binary_open_memory(const void *data, size_t size, const char *name, char *err,
                                            size_t err_size) {
    TraceBinaryReader *reader = new_reader(name);
    if (!reader) {
        snprintf(err, err_size, "%s: out of memory", name);
        return NULL;
    }
    reader->data = data;
    reader->size = size;
    return start(reader, err, err_size);
}

/* A file that is not a regular one (a pipe) is read into memory. */
static bool read_stream(TraceBinaryReader *reader, int fd) {
    size_t capacity = 1 << 16;
    unsigned char *bytes = malloc(capacity);
    for (;;) {
        if (!bytes) return false;
        reader->owned = bytes;
        if (reader->size == capacity) {
            capacity *= 2;
            bytes = realloc(bytes, capacity);
            continue;
        }
        ssize_t n = read(fd, bytes + reader->size, capacity - reader->size);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return false;
        if (n == 0) break;
        reader->size += (size_t)n;
    }
    reader->data = bytes;
    return true;
}

TraceBinaryReader *trace_binary_open(const char *path, char *err, size_t err_size) {
    TraceBinaryReader *reader = new_reader(path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (!reader || fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, err_size, "%s: %s", path, reader ? strerror(errno) : "out of memory");
        if (fd >= 0) close(fd);
        trace_binary_close(reader);
        return NULL;
    }
    bool ok;
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
        reader->size = (size_t)st.st_size;
        void *mapped = mmap(NULL, reader->size, PROT_READ, MAP_PRIVATE, fd, 0);
        ok = mapped != MAP_FAILED;
        if (ok) {
            reader->mapped = mapped;
            reader->data = mapped;
            madvise(mapped, reader->size, MADV_SEQUENTIAL);
        }
    } else {
        ok = read_stream(reader, fd);
    }
    if (!ok) snprintf(err, err_size, "%s: %s", path, strerror(errno));
    close(fd);
    if (!ok) {
        trace_binary_close(reader);
        return NULL;
    }
    return start(reader, err, err_size);
}

int32_t trace_binary_vmpi_version(const TraceBinaryReader *reader) { return reader->vmpi_version; }
const char *trace_binary_collector(const TraceBinaryReader *reader) { return reader->collector; }
size_t trace_binary_offset(const TraceBinaryReader *reader) { return reader->at; }
size_t trace_binary_size(const TraceBinaryReader *reader) { return reader->size; }

int trace_binary_next(TraceBinaryReader *reader, TraceBinaryRecord *record, char *err, size_t err_size) {
    reader->err = err;
    reader->err_size = err_size;
    if (reader->at == reader->size) {
        if (reader->shut_down) return 0;
        fail(reader, "no JVM_SHUT_DOWN: the recording is cut short (a .partial file of a run that died?)");
        return -1;
    }
    if (reader->shut_down) {
        fail(reader, "an event after JVM_SHUT_DOWN");
        return -1;
    }
    size_t start = reader->at;
    uint64_t first;
    if (!get_varint(reader, &first)) return -1;
    memset(record, 0, sizeof *record);
    if (first & TRACE_BINARY_FIXED) {
        if (!fixed_record(reader, first, start, &record->event)) return -1;
        record->seq = ++reader->seq;
        record->thread = reader->thread; /* the previous event's */
        return 1;
    }
    uint64_t wide_code = first >> TRACE_BINARY_CODE_SHIFT;
    int32_t code = wide_code < VMPI_EVENT_CODE_LIMIT ? (int32_t)wide_code : -1;
    if (code < 0 || (code && !vmpi_event_name(code))) {
        reader->at = start;
        fail(reader, "unknown event code %" PRIu64, wide_code);
        return -1;
    }
    if (!(first & TRACE_BINARY_SAME_THREAD)) {
        uint64_t thread;
        if (!get_varint(reader, &thread)) return -1;
        if (thread > UINT32_MAX) {
            fail(reader, "thread number %" PRIu64 " is out of range", thread);
            return -1;
        }
        reader->thread = (uint32_t)thread;
    }
    record->event.event_type = code | (first & TRACE_BINARY_REQUESTED ? VMPI_REQUESTED_EVENT : 0);
    if (!event_fields(reader, code, &record->event)) return -1;
    record->seq = ++reader->seq;
    record->thread = reader->thread;
    reader->shut_down = code == VMPI_EVENT_JVM_SHUT_DOWN;
    return 1;
}

void trace_binary_close(TraceBinaryReader *reader) {
    if (!reader) return;
    if (reader->mapped) munmap(reader->mapped, reader->size);
    free(reader->owned);
    for (size_t i = 0; i < reader->num_strings; i++) free(reader->strings[i]);
    free(reader->strings);
    for (size_t code = 0; code < VMPI_EVENT_CODE_LIMIT; code++)
        for (size_t f = 0; f < TRACE_BINARY_MAX_FIELDS; f++) free(reader->fields[code][f].array);
    free(reader);
}
