/*
 * check_agent.c -- the check agent: verifies the live event stream against
 * the event-stream contract (docs/contracts.md) and stops the VM at the
 * first breach.
 *
 *     -agentlib:check[=gc=NAME][,methods=y]
 *
 *   gc=NAME    check against NAME's row of the mapping table instead of the
 *              running collector's (GetCollectorName)
 *   methods=y  also enable METHOD_ENTRY/EXIT, to check their method IDs
 *
 * The rules live in check_rules.c; this file feeds them and reports.  At the
 * first violation it prints
 *
 *     check: event #SEQ EVENTNAME: rule N: what is wrong
 *
 * and calls ProfilerExit(1), so the VM exits non-zero (other agents still get
 * JVM_SHUT_DOWN).  It also checks rule 7 once, at JVM_SHUT_DOWN, with a
 * requested level-0 heap dump, and rule 10: an event it never enabled must
 * not arrive unless it requested it.  On success JVM_SHUT_DOWN prints
 *
 *     check: ok: N events, M collections, K live objects
 *
 * Locking follows JVMPI 1.2 section 1.5 as the trace agent does
 * (agent_common.h): a raw monitor taken at GC_START and given back at
 * GC_FINISH; in between the rules do not allocate (check_rules.h) and
 * output uses write(2).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../agent_common.h"
#include "check_rules.h"
#include "vmpi.h"

static VMPI_Interface *vmpi;
static AgentLock lock;
static CheckRules *rules;
static uint8_t enabled[VMPI_EVENT_CODE_LIMIT];
static char collector_override[64];
static uint64_t seq;
static bool finished;       /* a violation was reported, or the run ended */
static bool passed;         /* the run ended and kept the contract */

/* One line to stderr without stdio: this may run in thread-suspended mode. */
__attribute__((format(printf, 1, 2))) static void say(const char *format, ...) {
    char line[512];
    va_list args;
    va_start(args, format);
    int n = vsnprintf(line, sizeof line, format, args);
    va_end(args);
    if (n < 0) return;
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    if (write(STDERR_FILENO, line, len) < 0) return;
}

static const char *event_name(const VMPI_Event *event) {
    const char *name = vmpi_event_name(event->event_type);
    return name ? name : "UNKNOWN";
}

static void fail(const VMPI_Event *event, int rule, const char *what) {
    finished = true;
    if (rule == CHECK_INTERNAL_ERROR)
        say("check: event #%" PRIu64 " %s: %s\n", seq, event_name(event), what);
    else
        say("check: event #%" PRIu64 " %s: rule %d: %s\n", seq, event_name(event), rule, what);
    vmpi->ProfilerExit(1);
}

/* The rules are made at the first event, when the VM is attached and
 * GetCollectorName can answer (VMPI_OnLoad runs before the VM exists). */
static bool start_rules(const VMPI_Event *event) {
    const char *collector = collector_override[0] ? collector_override : vmpi->GetCollectorName();
    CheckRow row;
    if (!check_row_by_name(collector, &row)) {
        finished = true;
        char rows[128];
        check_row_names(rows, sizeof rows, ", ");
        say("check: no contract row for collector '%s' (rows: %s)\n", collector ? collector : "(none)", rows);
        vmpi->ProfilerExit(1);
        return false;
    }
    rules = check_rules_create(row);
    if (!rules) fail(event, CHECK_INTERNAL_ERROR, "out of memory");
    return rules != NULL;
}

static void check_event(const VMPI_Event *event) {
    int32_t code = event->event_type & ~VMPI_REQUESTED_EVENT;
    seq++;
    if (!rules && !start_rules(event)) return;
    if (!(event->event_type & VMPI_REQUESTED_EVENT) && !enabled[code]) {
        fail(event, 10, "an event the agent never enabled arrived");
        return;
    }
    int rule = check_rules_feed(rules, event);
    if (rule) {
        fail(event, rule, check_rules_message(rules));
        return;
    }
    if (code != VMPI_EVENT_JVM_SHUT_DOWN) return;
    if (!check_rules_in_collection(rules)) {
        VMPI_HeapDumpArg level0 = {.heap_dump_level = VMPI_DUMP_LEVEL_0};
        vmpi->DisableGC(); /* RequestEvent with object IDs: JVMPI 1.2 section 1.4 */
        vmpi->RequestEvent(VMPI_EVENT_HEAP_DUMP, &level0); /* comes back through check_event: rule 7 */
        vmpi->EnableGC();
        if (finished) return;
    }
    finished = passed = true;
    say("check: ok: %" PRIu64 " events, %" PRIu64 " collections, %" PRIu64 " live objects\n",
        check_rules_events(rules), check_rules_collections(rules), check_rules_live_objects(rules));
}

static void notify_event(VMPI_Event *event) {
    int32_t code = event->event_type & ~VMPI_REQUESTED_EVENT;
    bool entered = agent_lock_before(vmpi, &lock, code);
    if (!finished) check_event(event);
    agent_lock_after(vmpi, &lock, code, entered);
    /* The last event: give back the memory -- unless a violation is exiting
     * from inside our own handler, which still holds the lock, or from
     * inside a collection, where free is not allowed. */
    if (code == VMPI_EVENT_JVM_SHUT_DOWN && passed && entered) {
        check_rules_destroy(rules);
        rules = NULL;
        vmpi->RawMonitorDestroy(lock.monitor);
        lock.monitor = NULL;
    }
}

static bool parse_options(char *options, bool *methods) {
    *methods = false;
    char *item, *value;
    while (agent_next_option(&options, &item, &value)) {
        CheckRow row;
        if (strcmp(item, "gc") == 0 && value && check_row_by_name(value, &row)) {
            snprintf(collector_override, sizeof collector_override, "%s", value);
        } else if (!agent_methods_option(item, value, methods)) {
            char rows[128], usage[160];
            check_row_names(rows, sizeof rows, "|");
            snprintf(usage, sizeof usage, "gc=%s, methods=y|n", rows);
            agent_bad_option("check", item, value, usage);
            return false;
        }
    }
    return true;
}

VMPI_EXPORT int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)reserved;
    if (!agent_get_env(vm, "check", &vmpi)) return VMPI_ERR;
    bool methods;
    if (!parse_options(options, &methods)) return VMPI_ERR;
    if (!agent_lock_create(vmpi, "check", &lock)) return VMPI_ERR;
    vmpi->NotifyEvent = notify_event;
    static const int32_t checked[] = {
        VMPI_EVENT_ARENA_NEW,    VMPI_EVENT_ARENA_DELETE,   VMPI_EVENT_OBJECT_ALLOC,
        VMPI_EVENT_OBJECT_FREE,  VMPI_EVENT_OBJECT_MOVE,    VMPI_EVENT_GC_START,
        VMPI_EVENT_GC_FINISH,    VMPI_EVENT_CLASS_LOAD,     VMPI_EVENT_CLASS_UNLOAD,
        VMPI_EVENT_THREAD_START, VMPI_EVENT_THREAD_END,     VMPI_EVENT_JVM_INIT_DONE,
        VMPI_EVENT_JVM_SHUT_DOWN, VMPI_EVENT_METHOD_ENTRY,  VMPI_EVENT_METHOD_EXIT,
    };
    for (size_t i = 0; i < sizeof checked / sizeof checked[0]; i++) {
        int32_t code = checked[i];
        bool is_method = code == VMPI_EVENT_METHOD_ENTRY || code == VMPI_EVENT_METHOD_EXIT;
        if (is_method && !methods) continue;
        if (vmpi->EnableEvent(code, NULL) != VMPI_OK) {
            fprintf(stderr, "check: the VM cannot send %s\n", vmpi_event_name(code));
            return VMPI_ERR;
        }
        enabled[code] = 1;
    }
    return VMPI_OK;
}
