/*
 * trace_agent.c -- the trace agent: every heap, GC, class and thread event
 * (and the data requests, SIGQUIT's and SIGUSR2's) as one line of JSON, in
 * order.  docs/trace-format.md is the format's
 * reference; its table of events and fields is generated from vmpi.h, as
 * this file's writer is.
 *
 *     -agentlib:trace[=file=F][,format=json|binary][,methods=y][,mechanism=y][,events=NAME:NAME...]
 *
 *   file=F     where to write (default trace.jsonl, or trace.bin for
 *              format=binary; "-" is standard output)
 *   format=    json (the default) or binary: the binary recording
 *              (trace_binary.h), the same events in a few bytes each, which
 *              vmpi-trace2json turns into the very JSON lines
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
#include "common/trace_binary.h"
#include "common/trace_json.h"
#include "common/trace_threads.h"
#include "vmpi.h"


static VMPI_Interface *vmpi;
static pthread_mutex_t output_mutex = PTHREAD_MUTEX_INITIALIZER;
static AgentLock lock = {.mutex = &output_mutex};
static bool closed;         /* after JVM_SHUT_DOWN */
static char path[4096];
static TraceOutput out;
static bool binary;           /* format=binary */
static TraceBinary recording; /* its writer's state, when binary */
static uint64_t seq;          /* lines written after the header */
static TraceThreads threads;

/* ---- events -------------------------------------------------------------------------- */

static void report_write_error(int error) {
    /* Possibly still in thread-suspended mode: write(2), not stdio. */
    const char *parts[] = {"trace: cannot write ", path, ": ", strerror(error), "\n"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (write(STDERR_FILENO, parts[i], strlen(parts[i])) < 0) return;
}

static void write_event(const VMPI_Event *event) {
    int32_t code = event->event_type & ~VMPI_REQUESTED_EVENT;
    trace_threads_note(&threads, event);
    uint32_t thread = trace_thread_number(&threads, event->env_id);
    if (binary) {
        if (seq++ == 0) trace_binary_start(&recording, &out, vmpi->version, vmpi->GetCollectorName());
        trace_binary_event(&recording, event, thread);
    } else {
        if (seq == 0) trace_json_header(&out, vmpi->version, vmpi->GetCollectorName());
        trace_json_event(&out, ++seq, event, thread);
    }
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

/* Parses "file=F,format=...,methods=y,mechanism=y,events=..."; on error
 * prints one line and returns false. */
static bool parse_options(char *options, bool *methods, bool *mechanism, char **events) {
    path[0] = '\0';
    *methods = false;
    *mechanism = false;
    *events = NULL;
    char *item, *value;
    while (agent_next_option(&options, &item, &value)) {
        if (strcmp(item, "format") == 0 && value && (strcmp(value, "json") == 0 || strcmp(value, "binary") == 0)) {
            binary = strcmp(value, "binary") == 0;
        } else if (strcmp(item, "events") == 0 && value && *value) {
            *events = value;
        } else if (strcmp(item, "mechanism") == 0 && value && (strcmp(value, "y") == 0 || strcmp(value, "n") == 0)) {
            *mechanism = value[0] == 'y';
        } else if (strcmp(item, "file") == 0 && value && *value) {
            if ((size_t)snprintf(path, sizeof path, "%s", value) >= sizeof path) {
                fprintf(stderr, "trace: file name too long\n");
                return false;
            }
        } else if (!agent_methods_option(item, value, methods)) {
            agent_bad_option("trace", item, value,
                             "file=F, format=json|binary, methods=y|n, mechanism=y|n, events=NAME:NAME...");
            return false;
        }
    }
    if (!path[0]) snprintf(path, sizeof path, binary ? "trace.bin" : "trace.jsonl");
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
    static const int32_t traced[] = {TRACE_DEFAULT_EVENT_CODES};
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
