/*
 * trace_agent.c -- the trace agent: every heap, GC, class and thread event
 * (and the data requests, SIGQUIT's and SIGUSR2's) as one line of JSON, in
 * order.  docs/trace-format.md is the format's
 * reference; its table of events and fields is generated from vmpi.h, as
 * this file's writer is.
 *
 *     -agentlib:trace[=file=F][,methods=y][,mechanism=y][,events=NAME:NAME...]
 *
 *   file=F     where to write (default trace.jsonl; "-" is standard output)
 *   methods=y  also METHOD_ENTRY and METHOD_EXIT (off by default: costly)
 *   mechanism=y  also gclab's mechanism events: each collection's phases
 *              and per-object steps (docs/mechanism-events.md)
 *   events=..  also these events, by name without the prefix, ':' between
 *              (e.g. events=METHOD_ENTRY2:INSTRUCTION_START); one the VM
 *              cannot send is an error
 *
 * The first line names the format and its version:
 * {"format":"gclab-vmpi-trace","version":1,"vmpi_version":V,"collector":C}.
 * Every other line is {"seq":N,"event":NAME,"thread":T, ...fields}: seq
 * counts from 1, NAME is the JVMPI event name without its prefix, T is the
 * VM thread's number (1 for main, in THREAD_START order; 0 for an event with
 * no thread), "requested":true marks a RequestEvent answer, and the fields
 * are the JVMPI struct's, by the struct's names, IDs as JSON integers (null
 * for a NULL ID).  This format is a public surface: any change to it bumps
 * TRACE_FORMAT_VERSION (trace_output.h) and is listed in the docs.
 *
 * Locking follows JVMPI 1.2 section 1.5 (agent_common.h): one lock guards
 * the output; GC_START takes it and GC_FINISH gives it back, so the events
 * between them (thread-suspended mode) neither block nor allocate --
 * formatting goes into a fixed buffer written with write(2) (trace_output.h).
 * The lock is a pthread mutex, not a raw monitor: every event takes it, and
 * nothing here waits on it or enters it twice.  Events come from every VM
 * thread, each an OS thread of its own, so it is still needed.
 * A file is complete or absent: it is written under a temporary name and
 * renamed onto F at JVM_SHUT_DOWN, which the VM sends on every orderly way
 * out; a run that dies first leaves only the temporary "F.PID.partial".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/agent_common.h"
#include "vmpi.h"

#define MAX_THREADS 1024

static VMPI_Interface *vmpi;
static pthread_mutex_t output_mutex = PTHREAD_MUTEX_INITIALIZER;
static AgentLock lock = {.mutex = &output_mutex};
static bool closed;         /* after JVM_SHUT_DOWN */
static char path[4096];
static TraceOutput out;
static uint64_t seq;          /* lines written after the header */
static VMPI_ThreadID thread_envs[MAX_THREADS]; /* thread number i + 1 */
static uint32_t num_threads;

static uint32_t thread_number(VMPI_ThreadID env) {
    if (!env) return 0;
    for (uint32_t i = 0; i < num_threads; i++)
        if (thread_envs[i] == env) return i + 1;
    return 0;
}

/* The thread of the last event: runs of events come from one thread. */
static VMPI_ThreadID last_env;
static uint32_t last_number;

static uint32_t event_thread_number(VMPI_ThreadID env) {
    if (env != last_env || !last_number) {
        last_env = env;
        last_number = thread_number(env);
    }
    return last_number;
}

/* ---- the pieces of a line -------------------------------------------------------- */

/* `,"NAME":`, what comes before a field's value, with its length: NAME is a
 * string literal, so each key is one copy of a known length. */
typedef struct Key {
    const char *text;
    size_t length;
} Key;
#define KEY(name) ((Key){",\"" name "\":", sizeof(",\"" name "\":") - 1})

static void key(Key name) { trace_output_bytes(&out, name.text, name.length); }

static void int_field(Key name, int64_t value) {
    key(name);
    trace_output_int(&out, value);
}

static void id_value(const void *id) {
    if (id)
        trace_output_uint(&out, (uint64_t)(uintptr_t)id);
    else
        trace_output_literal(&out, "null");
}

static void id_field(Key name, const void *id) {
    key(name);
    id_value(id);
}

static void string_field(Key name, const char *text) {
    key(name);
    trace_output_string(&out, text);
}

/* The first line: which format this is, and what wrote it. */
static void header_line(void) {
    trace_output_literal(&out, "{\"format\":");
    trace_output_string(&out, TRACE_FORMAT_NAME);
    trace_output_literal(&out, ",\"version\":");
    trace_output_uint(&out, TRACE_FORMAT_VERSION);
    int_field(KEY("vmpi_version"), vmpi->version);
    string_field(KEY("collector"), vmpi->GetCollectorName());
    trace_output_literal(&out, "}\n");
}

/* What comes between a line's seq and its thread number, for each event:
 * `,"event":"NAME","thread":`, one copy.  Event names are identifiers:
 * nothing in them needs escaping. */
#define EVENT_KEYS(name) ",\"event\":\"" name "\"" ",\"thread\":"
static const Key event_keys[VMPI_EVENT_CODE_LIMIT] = {
#define EVENT_KEYS_ENTRY(name, code, member) [code] = {EVENT_KEYS(#name), sizeof(EVENT_KEYS(#name)) - 1},
    VMPI_EVENTS(EVENT_KEYS_ENTRY)
#undef EVENT_KEYS_ENTRY
};
static const Key unknown_event_keys = {EVENT_KEYS("UNKNOWN"), sizeof(EVENT_KEYS("UNKNOWN")) - 1};

static void begin_line(const VMPI_Event *event) {
    int32_t code = event->event_type & ~VMPI_REQUESTED_EVENT;
    Key keys = code > 0 && code < VMPI_EVENT_CODE_LIMIT && event_keys[code].text ? event_keys[code] : unknown_event_keys;
    trace_output_literal(&out, "{\"seq\":");
    trace_output_uint(&out, ++seq);
    trace_output_bytes(&out, keys.text, keys.length);
    trace_output_uint(&out, event_thread_number(event->env_id));
    if (event->event_type & VMPI_REQUESTED_EVENT) trace_output_literal(&out, ",\"requested\":true");
}

static void end_line(void) {
    trace_output_literal(&out, "}\n");
    trace_output_flush_if_fuller(&out, TRACE_BUFFER_BYTES / 4);
}

/* ---- one writer per field kind (vmpi.h, VMPI_FIELDS_*) ------------------------------ */

/* Each takes the field's JVMPI name, its value and `count`: the last INT32
 * field written, which is the length of an array field that follows. */

/* Opens element `index` of an array of objects, up to its first value. */
static void begin_element(int32_t index, Key first_key) {
    if (index) trace_output_literal(&out, ",");
    trace_output_literal(&out, "{");
    trace_output_bytes(&out, first_key.text + 1, first_key.length - 1); /* without its comma */
}

static void put_INT32(Key name, int32_t value, int32_t *count) {
    int_field(name, value);
    *count = value;
}

/* A number that is no array's length. */
#define put_INT64 put_number
#define put_ARENA_ID put_number
static void put_number(Key name, int64_t value, int32_t *count) {
    (void)count;
    int_field(name, value);
}

/* Every ID kind: an opaque pointer, written as an integer or null. */
#define put_OBJECT_ID put_id
#define put_METHOD_ID put_id
#define put_THREAD_ID put_id
#define put_RAW_MONITOR put_id
#define put_JNI_REF put_id
static void put_id(Key name, const void *value, int32_t *count) {
    (void)count;
    id_field(name, value);
}

static void put_STRING(Key name, const char *value, int32_t *count) {
    (void)count;
    string_field(name, value);
}

static void put_METHODS(Key name, const VMPI_Method *methods, int32_t *count) {
    key(name);
    trace_output_literal(&out, "[");
    for (int32_t i = 0; i < *count; i++) {
        begin_element(i, KEY("method_name"));
        trace_output_string(&out, methods[i].method_name);
        string_field(KEY("method_signature"), methods[i].method_signature);
        int_field(KEY("start_lineno"), methods[i].start_lineno);
        int_field(KEY("end_lineno"), methods[i].end_lineno);
        id_field(KEY("method_id"), methods[i].method_id);
        trace_output_literal(&out, "}");
    }
    trace_output_literal(&out, "]");
}

static void put_FIELDS(Key name, const VMPI_Field *fields, int32_t *count) {
    key(name);
    trace_output_literal(&out, "[");
    for (int32_t i = 0; i < *count; i++) {
        begin_element(i, KEY("field_name"));
        trace_output_string(&out, fields[i].field_name);
        string_field(KEY("field_signature"), fields[i].field_signature);
        trace_output_literal(&out, "}");
    }
    trace_output_literal(&out, "]");
}

static void put_CALL_FRAMES(Key name, const VMPI_CallFrame *frames, int32_t *count) {
    key(name);
    trace_output_literal(&out, "[");
    for (int32_t i = 0; i < *count; i++) {
        begin_element(i, KEY("method_id"));
        trace_output_uint(&out, (uint64_t)(uintptr_t)frames[i].method_id);
        int_field(KEY("lineno"), frames[i].lineno);
        trace_output_literal(&out, "}");
    }
    trace_output_literal(&out, "]");
}

/* Left out of the trace: the kinds only the dump events have (HEAP_DUMP,
 * OBJECT_DUMP, MONITOR_DUMP), whose bytes are in the VM's native byte order,
 * meant for the process that asked (vmpi.h), and CLASS_LOAD_HOOK's program
 * images and allocator (their lengths are written). */
#define put_CALL_TRACES put_omitted
#define put_INT32_ARRAY put_omitted
#define put_BUFFER put_omitted
#define put_BYTES put_omitted
#define put_ALLOCATOR put_omitted
static void put_omitted(Key name, const void *value, int32_t *count) {
    (void)name;
    (void)value;
    (void)count;
}

/* The event's own fields, by their JVMPI names, in the struct's order:
 * generated from vmpi.h's event table. */
static void event_fields(const VMPI_Event *event) {
    int32_t count = 0;
    switch (event->event_type & ~VMPI_REQUESTED_EVENT) {
#define PUT_FIELD(member, kind, name) put_##kind(KEY(#name), event->u.member.name, &count);
#define EVENT_CASE(name, code, member) \
    case code:                         \
        VMPI_FIELDS_##member(PUT_FIELD) break;
        VMPI_EVENTS(EVENT_CASE)
#undef EVENT_CASE
#undef PUT_FIELD
    }
}

/* ---- events -------------------------------------------------------------------------- */

static void report_write_error(int error) {
    /* Possibly still in thread-suspended mode: write(2), not stdio. */
    const char *parts[] = {"trace: cannot write ", path, ": ", strerror(error), "\n"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (write(STDERR_FILENO, parts[i], strlen(parts[i])) < 0) return;
}

static void write_event(const VMPI_Event *event) {
    int32_t code = event->event_type & ~VMPI_REQUESTED_EVENT;
    if (code == VMPI_EVENT_THREAD_START && num_threads < MAX_THREADS &&
        !thread_number(event->u.thread_start.thread_env_id))
        thread_envs[num_threads++] = event->u.thread_start.thread_env_id;
    if (seq == 0) header_line();
    begin_line(event);
    event_fields(event);
    end_line();
    if (code == VMPI_EVENT_JVM_SHUT_DOWN) {
        closed = true;
        int error = trace_output_close(&out);
        if (error) report_write_error(error);
    }
}

static void notify_event(VMPI_Event *event) {
    int32_t code = event->event_type & ~VMPI_REQUESTED_EVENT;
    bool entered = agent_lock_before(vmpi, &lock, code);
    if (!closed) write_event(event);
    agent_lock_after(vmpi, &lock, code, entered);
}

/* ---- start-up -------------------------------------------------------------------------- */

/* The code of the event named `name` ("OBJECT_ALLOC"), or 0 if none is. */
static int32_t event_code(const char *name) {
    for (int32_t code = 1; code < VMPI_EVENT_CODE_LIMIT; code++) {
        const char *known = vmpi_event_name(code);
        if (known && strcmp(known, name) == 0) return code;
    }
    return 0;
}

/* Enables the events of events=NAME:NAME...; on error prints one line and
 * returns false. */
static bool enable_named_events(char *names) {
    char *rest = names, *name;
    while ((name = strtok_r(rest, ":", &rest)) != NULL) {
        int32_t code = event_code(name);
        if (!code) {
            fprintf(stderr, "trace: events=: no event is named '%s'\n", name);
            return false;
        }
        if (vmpi->EnableEvent(code, NULL) != VMPI_OK) {
            fprintf(stderr, "trace: events=: the VM cannot send %s\n", name);
            return false;
        }
    }
    return true;
}

/* Parses "file=F,methods=y,mechanism=y,events=..."; on error prints one
 * line and returns false. */
static bool parse_options(char *options, bool *methods, bool *mechanism, char **events) {
    snprintf(path, sizeof path, "trace.jsonl");
    *methods = false;
    *mechanism = false;
    *events = NULL;
    char *item, *value;
    while (agent_next_option(&options, &item, &value)) {
        if (strcmp(item, "events") == 0 && value && *value) {
            *events = value;
        } else if (strcmp(item, "mechanism") == 0 && value && (strcmp(value, "y") == 0 || strcmp(value, "n") == 0)) {
            *mechanism = value[0] == 'y';
        } else if (strcmp(item, "file") == 0 && value && *value) {
            if ((size_t)snprintf(path, sizeof path, "%s", value) >= sizeof path) {
                fprintf(stderr, "trace: file name too long\n");
                return false;
            }
        } else if (!agent_methods_option(item, value, methods)) {
            agent_bad_option("trace", item, value, "file=F, methods=y|n, mechanism=y|n, events=NAME:NAME...");
            return false;
        }
    }
    return true;
}

VMPI_EXPORT int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)reserved;
    if (!agent_get_env(vm, "trace", &vmpi)) return VMPI_ERR;
    bool methods, mechanism;
    char *events;
    if (!parse_options(options, &methods, &mechanism, &events)) return VMPI_ERR;
    if (!agent_open_output(vmpi, "trace", path, &out, &lock)) return VMPI_ERR;
    vmpi->NotifyEvent = notify_event;
    static const int32_t traced[] = {
        VMPI_EVENT_ARENA_NEW,   VMPI_EVENT_ARENA_DELETE, VMPI_EVENT_OBJECT_ALLOC,
        VMPI_EVENT_OBJECT_FREE, VMPI_EVENT_OBJECT_MOVE,  VMPI_EVENT_GC_START,
        VMPI_EVENT_GC_FINISH,   VMPI_EVENT_CLASS_LOAD,   VMPI_EVENT_THREAD_START,
        VMPI_EVENT_THREAD_END,  VMPI_EVENT_JVM_INIT_DONE, VMPI_EVENT_JVM_SHUT_DOWN,
        VMPI_EVENT_DATA_DUMP_REQUEST, VMPI_EVENT_DATA_RESET_REQUEST,
    };
    for (size_t i = 0; i < sizeof traced / sizeof traced[0]; i++) vmpi->EnableEvent(traced[i], NULL);
    if (methods) {
        vmpi->EnableEvent(VMPI_EVENT_METHOD_ENTRY, NULL);
        vmpi->EnableEvent(VMPI_EVENT_METHOD_EXIT, NULL);
    }
    if (mechanism) /* gclab's own events, those the VM has (docs/mechanism-events.md) */
        for (int32_t code = VMPI_FIRST_GCLAB_EVENT; code < VMPI_EVENT_CODE_LIMIT; code++)
            if (vmpi_event_name(code)) vmpi->EnableEvent(code, NULL);
    if (events && !enable_named_events(events)) {
        trace_output_abandon(&out);
        return VMPI_ERR;
    }
    return VMPI_OK;
}
