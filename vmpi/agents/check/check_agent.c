/*
 * check_agent.c -- the check agent: verifies the live event stream against
 * the event-stream contract (docs/contracts.md) and stops the VM at the
 * first breach.
 *
 *     -agentlib:check[=gc=NAME][,methods=y][,mechanism=n][,seed=S][,dump_every=N][,toggle_every=N][,late=N]
 *
 *   gc=NAME         check against NAME's row of the mapping table instead of
 *                   the running collector's (GetCollectorName)
 *   methods=y       also enable METHOD_ENTRY/EXIT, to check their method IDs
 *   mechanism=n     do not enable gclab's mechanism events (rule 12; on by
 *                   default, off with late=N)
 *   seed=S          seeds the random points below (default 0): the same
 *                   seed and the same run give the same points
 *   dump_every=N    at random points, on average every N of them, request a
 *                   level-0 heap dump (rule 7) and, at an OBJECT_ALLOC, the
 *                   object's OBJECT_ALLOC again (rule 1); 0 (default): never
 *   toggle_every=N  at random points, on average every N of them, disable
 *                   METHOD_ENTRY/EXIT, or enable them again (rule 10: none
 *                   arrives while they are off); implies methods=y
 *   sites=N         rule 13: enable call sites N frames deep (gclab's
 *                   EnableCallSites; with late=N, at the catch-up, while
 *                   the program runs) and, at every OBJECT_ALLOC and
 *                   METHOD_ENTRY the VM sends from then on, check that the
 *                   frames of GetCallSite's ID are GetCallTrace's, N deep,
 *                   and that OBJECT_ALLOC carries that ID.
 *                   0 (default): off
 *   late=N          attach late: enable the heap events only at the Nth
 *                   METHOD_ENTRY the VM sends (or at JVM_SHUT_DOWN, if the
 *                   run ends first) and catch up as docs/contracts.md
 *                   ("Requested events and late attach") tells an agent
 *                   to: with GC disabled, RequestEvent(ARENA_NEW, NULL),
 *                   a level-0 HEAP_DUMP and RequestEvent(OBJECT_ALLOC, id)
 *                   per ID of the dump.  The answers define the heap
 *                   (check_rules_begin_catch_up), must be exactly the
 *                   dump's objects, and every rule holds from then on;
 *                   it prints "check: late: ..." with what it learned.
 *                   Implies methods=y.  0 (default): from the start
 *
 * A point is an OBJECT_ALLOC or METHOD_ENTRY the VM sent (not requested),
 * after a late attach: never inside a collection, where RequestEvent is
 * refused.  Each request
 * is made with GC disabled (DisableGC, nested inside the event's own), as
 * JVMPI 1.2 section 1.4 asks of any call that takes object IDs.
 *
 * The rules live in check_rules.c (1-9, 12), check_asked.c (10) and
 * check_answers.c (11: GetThreadInfo and GetObjectMonitorUsage agree with
 * THREAD_START and the monitor events, which it enables); this file
 * feeds them and reports.  At the first violation it prints
 *
 *     check: event #SEQ EVENTNAME: rule N: what is wrong
 *
 * and calls ProfilerExit(1), so the VM exits non-zero (other agents still get
 * JVM_SHUT_DOWN).  It also requests a level-0 heap dump at JVM_SHUT_DOWN.
 * On success JVM_SHUT_DOWN prints
 *
 *     check: ok: N events, M collections, K live objects, D dumps
 *
 * Locking follows JVMPI 1.2 section 1.5 as the trace agent does
 * (agent_common.h): a raw monitor taken at GC_START and given back at
 * GC_FINISH; in between the rules do not allocate (check_rules.h) and
 * output uses write(2).  The monitor is reentrant, so a requested event
 * that comes back while a handler holds it is handled at once.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/agent_common.h"
#include "vmpi_random.h"
#include "check_answers.h"
#include "check_asked.h"
#include "check_rules.h"
#include "vmpi.h"

static VMPI_Interface *vmpi;
static AgentLock lock;
static CheckRules *rules;
static CheckAsked asked;
static char collector_override[64];
static uint64_t seq;
static bool finished;       /* a violation was reported, or the run ended */
static bool passed;         /* the run ended and kept the contract */

/* The random points (see the top): a countdown of points to the next dump
 * and to the next toggle, each drawn from the seeded generator. */
static uint64_t random_state;
static uint64_t dump_every, toggle_every;
static uint64_t points_to_dump, points_to_toggle;
static bool methods_on;
static uint64_t dumps;

/* late=N: METHOD_ENTRYs still to come before the catch-up; the IDs of the
 * catch-up's level-0 dump, while it runs. */
static uint64_t entries_to_attach;
static bool attached = true;
/* mechanism=y (the default): gclab's mechanism events too (rule 12). */
static bool mechanism = true;
static bool catching_up;
static void **dump_ids;
static size_t num_dump_ids;

/* sites=N: the depth, and room for both traces of rule 13; whether call
 * sites are on (from JVM_OnLoad, or the catch-up of a late attach). */
static uint64_t site_depth;
static bool sites_on;
static VMPI_CallFrame *site_frames, *trace_frames;

static const char *code_name(int32_t code) {
    const char *name = vmpi_event_name(code);
    return name ? name : "UNKNOWN";
}

static const char *event_name(const VMPI_Event *event) { return code_name(event->event_type); }

static void fail(const VMPI_Event *event, int rule, const char *what) {
    finished = true;
    if (rule == CHECK_INTERNAL_ERROR)
        agent_say("check: event #%" PRIu64 " %s: %s\n", seq, event_name(event), what);
    else
        agent_say("check: event #%" PRIu64 " %s: rule %d: %s\n", seq, event_name(event), rule, what);
    vmpi->ProfilerExit(1);
}

/* The rules are made at the first event, when the VM is attached and
 * GetCollectorName can answer (VMPI_OnLoad runs before the VM exists). */
static bool start_rules(const VMPI_Event *event) {
    const char *collector = collector_override[0] ? collector_override : vmpi->GetCollectorName();
    if (!collector && (event->event_type & ~VMPI_REQUESTED_EVENT) == VMPI_EVENT_JVM_SHUT_DOWN) {
        finished = true; /* the VM stopped before it started (another agent failed to load): no stream */
        return false;
    }
    CheckRow row;
    if (!check_row_by_name(collector, &row)) {
        finished = true;
        char rows[128];
        check_row_names(rows, sizeof rows, ", ");
        agent_say("check: no contract row for collector '%s' (rows: %s)\n", collector ? collector : "(none)", rows);
        vmpi->ProfilerExit(1);
        return false;
    }
    rules = check_rules_create(row);
    if (!rules) fail(event, CHECK_INTERNAL_ERROR, "out of memory");
    else if (mechanism) check_rules_expect_mechanism(rules);
    return rules != NULL;
}

/* RequestEvent(code, arg) with GC disabled, from inside the handler of
 * `event`; the answer comes back through check_event.  False once the run
 * is over (a violation, or a refusal: outside a collection the VM must
 * answer). */
static bool request(const VMPI_Event *event, int32_t code, void *arg) {
    vmpi->DisableGC();
    check_asked_request_begin(&asked, code);
    int32_t result = vmpi->RequestEvent(code, arg);
    int broken = check_asked_request_end(&asked, result);
    vmpi->EnableGC();
    if (finished) return false;
    if (broken) {
        fail(event, broken, asked.message);
        return false;
    }
    if (result != VMPI_OK) {
        char what[128];
        snprintf(what, sizeof what, "RequestEvent(%s) refused outside a collection (result %" PRId32 ")",
                 code_name(code), result);
        fail(event, code == VMPI_EVENT_HEAP_DUMP ? 7 : 1, what);
        return false;
    }
    return true;
}

static bool request_level0_dump(const VMPI_Event *event) {
    VMPI_HeapDumpArg level0 = {.heap_dump_level = VMPI_DUMP_LEVEL_0};
    dumps++;
    return request(event, VMPI_EVENT_HEAP_DUMP, &level0); /* rule 7, in check_rules */
}

/* METHOD_ENTRY/EXIT off, or on again.  The enabled set says "off" only once
 * DisableEvent has returned, and "on" before EnableEvent is called, so that
 * it is never narrower than what the VM may send. */
static void toggle_methods(const VMPI_Event *event) {
    static const int32_t method_events[] = {VMPI_EVENT_METHOD_ENTRY, VMPI_EVENT_METHOD_EXIT};
    methods_on = !methods_on;
    for (size_t i = 0; i < 2; i++) {
        int32_t code = method_events[i];
        int32_t result;
        if (methods_on) {
            check_asked_enable(&asked, code, true);
            result = vmpi->EnableEvent(code, NULL);
        } else {
            result = vmpi->DisableEvent(code, NULL);
            check_asked_enable(&asked, code, false);
        }
        if (result != VMPI_OK) {
            char what[128];
            snprintf(what, sizeof what, "%s(%s) refused mid-run (result %" PRId32 ")",
                     methods_on ? "EnableEvent" : "DisableEvent", code_name(code), result);
            fail(event, 10, what);
            return;
        }
    }
}

/* An OBJECT_ALLOC or METHOD_ENTRY the VM sent, outside a collection: count
 * it down to the next dump and the next toggle. */
static void random_point(const VMPI_Event *event, int32_t code) {
    if (points_to_dump && --points_to_dump == 0) {
        points_to_dump = agent_random_gap(&random_state, dump_every);
        if (!request_level0_dump(event)) return;
        if (code == VMPI_EVENT_OBJECT_ALLOC && !request(event, code, event->u.obj_alloc.obj_id)) return;
    }
    if (points_to_toggle && --points_to_toggle == 0) {
        points_to_toggle = agent_random_gap(&random_state, toggle_every);
        toggle_methods(event);
    }
}

static bool enable_call_sites(void) {
    sites_on = vmpi->EnableCallSites((int32_t)site_depth) == VMPI_OK;
    return sites_on;
}

/* Rule 13: where the event's thread is, by its call site, is where its
 * call trace says it is. */
static void check_call_site(const VMPI_Event *event) {
    int32_t depth = (int32_t)site_depth;
    VMPI_CallSiteID site = vmpi->GetCallSite(event->env_id);
    int32_t code = event->event_type & ~VMPI_REQUESTED_EVENT;
    if (code == VMPI_EVENT_OBJECT_ALLOC && event->u.obj_alloc.site != site) {
        char what[96];
        snprintf(what, sizeof what, "OBJECT_ALLOC's call site %#" PRIx64 " is not GetCallSite's %#" PRIx64,
                 event->u.obj_alloc.site, site);
        fail(event, 13, what);
        return;
    }
    int32_t n = vmpi->GetCallSiteFrames(site, site_frames, depth);
    VMPI_CallTrace trace = {.env_id = event->env_id, .frames = trace_frames};
    vmpi->GetCallTrace(&trace, depth);
    int32_t differs = n == trace.num_frames ? -1 : 0;
    for (int32_t i = 0; differs < 0 && i < n; i++)
        if (site_frames[i].method_id != trace_frames[i].method_id || site_frames[i].lineno != trace_frames[i].lineno)
            differs = i;
    if (differs < 0) return;
    char what[160];
    snprintf(what, sizeof what, "call site %#" PRIx64 " has %" PRId32 " frames, the call trace %" PRId32
             "; they differ at frame %" PRId32, site, n, trace.num_frames, differs);
    fail(event, 13, what);
}

static const int32_t heap_events[] = {
    VMPI_EVENT_ARENA_NEW,   VMPI_EVENT_ARENA_DELETE, VMPI_EVENT_OBJECT_ALLOC, VMPI_EVENT_OBJECT_FREE,
    VMPI_EVENT_OBJECT_MOVE, VMPI_EVENT_GC_START,     VMPI_EVENT_GC_FINISH,
};

static bool is_heap_event(int32_t code) {
    for (size_t i = 0; i < sizeof heap_events / sizeof heap_events[0]; i++)
        if (heap_events[i] == code) return true;
    return false;
}

/* The catch-up's level-0 dump: the IDs to request.  Outside a collection
 * (requests are refused inside one), so malloc is allowed. */
static void keep_dump_ids(const VMPI_Event *event) {
    const size_t record = 1 + sizeof(void *);
    size_t count = (size_t)(event->u.heap_dump.end - event->u.heap_dump.begin) / record;
    free(dump_ids);
    dump_ids = malloc((count ? count : 1) * sizeof *dump_ids);
    if (!dump_ids) {
        fail(event, CHECK_INTERNAL_ERROR, "out of memory");
        return;
    }
    for (size_t i = 0; i < count; i++) memcpy(&dump_ids[i], event->u.heap_dump.begin + i * record + 1, sizeof(void *));
    num_dump_ids = count;
}

/* late=N: enable the heap events and learn the heap as it stands, with GC
 * disabled so that nothing moves or dies meanwhile.  The events are
 * enabled first, as a real agent would, so nothing after the catch-up is
 * missed. */
static void catch_up(const VMPI_Event *event) {
    attached = true;
    if (site_depth && !enable_call_sites()) fail(event, 13, "EnableCallSites refused while the program runs");
    vmpi->DisableGC();
    for (size_t i = 0; i < sizeof heap_events / sizeof heap_events[0] && !finished; i++) {
        check_asked_enable(&asked, heap_events[i], true);
        if (vmpi->EnableEvent(heap_events[i], NULL) != VMPI_OK)
            fail(event, 10, "EnableEvent refused a heap event for a late attach");
    }
    check_rules_begin_catch_up(rules);
    catching_up = true;
    VMPI_HeapDumpArg level0 = {.heap_dump_level = VMPI_DUMP_LEVEL_0};
    bool answered = !finished && request(event, VMPI_EVENT_ARENA_NEW, NULL) &&
                    request(event, VMPI_EVENT_HEAP_DUMP, &level0);
    for (size_t i = 0; answered && i < num_dump_ids; i++) answered = request(event, VMPI_EVENT_OBJECT_ALLOC, dump_ids[i]);
    catching_up = false;
    int rule = check_rules_end_catch_up(rules, num_dump_ids);
    if (answered && rule) fail(event, rule, check_rules_message(rules));
    vmpi->EnableGC();
    if (!finished)
        agent_say("check: late: attached at event #%" PRIu64 " %s: learned %" PRIu64 " objects in %" PRIu32 " arenas\n",
            seq, event_name(event), check_rules_learned_late(rules), check_rules_arenas(rules));
    free(dump_ids);
    dump_ids = NULL;
    num_dump_ids = 0;
}

static void check_event(const VMPI_Event *event) {
    int32_t code = event->event_type & ~VMPI_REQUESTED_EVENT;
    bool requested = (event->event_type & VMPI_REQUESTED_EVENT) != 0;
    seq++;
    if (!rules && !start_rules(event)) return;
    int rule = check_asked_event(&asked, event->event_type);
    if (rule) {
        fail(event, rule, asked.message);
        return;
    }
    rule = check_rules_feed(rules, event);
    if (rule) {
        fail(event, rule, check_rules_message(rules));
        return;
    }
    char answer_problem[256];
    rule = check_answers(vmpi, event, answer_problem, sizeof answer_problem);
    if (rule) {
        fail(event, rule, answer_problem);
        return;
    }
    bool sent_point = !requested && (code == VMPI_EVENT_OBJECT_ALLOC || code == VMPI_EVENT_METHOD_ENTRY);
    if (sites_on && sent_point) check_call_site(event);
    if (finished) return;
    if (attached && sent_point && !check_rules_in_collection(rules)) random_point(event, code);
    if (catching_up && code == VMPI_EVENT_HEAP_DUMP) keep_dump_ids(event);
    if (finished) return;
    if (!attached && ((code == VMPI_EVENT_METHOD_ENTRY && !requested && --entries_to_attach == 0) ||
                      code == VMPI_EVENT_JVM_SHUT_DOWN))
        catch_up(event);
    if (code != VMPI_EVENT_JVM_SHUT_DOWN || finished) return;
    if (!check_rules_in_collection(rules) && !request_level0_dump(event)) return;
    finished = passed = true;
    agent_say("check: ok: %" PRIu64 " events, %" PRIu64 " collections, %" PRIu64 " live objects, %" PRIu64 " dumps\n",
        check_rules_events(rules), check_rules_collections(rules), check_rules_live_objects(rules), dumps);
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

/* NAME=COUNT, a whole decimal number: true (setting *count) if `item` and
 * `value` are that option. */
static bool count_option(const char *item, const char *value, const char *name, uint64_t *count) {
    if (strcmp(item, name) != 0 || !value || !*value || value[0] == '-') return false;
    char *end;
    unsigned long long n = strtoull(value, &end, 10);
    if (*end) return false;
    *count = n;
    return true;
}

/* mechanism=y|n: true (setting `mechanism`) if `item` and `value` are it. */
static bool mechanism_option(const char *item, const char *value) {
    if (strcmp(item, "mechanism") != 0 || !value || (strcmp(value, "y") != 0 && strcmp(value, "n") != 0)) return false;
    mechanism = value[0] == 'y';
    return true;
}

static bool collector_option(const char *item, const char *value) {
    CheckRow row;
    if (strcmp(item, "gc") != 0 || !value || !check_row_by_name(value, &row)) return false;
    snprintf(collector_override, sizeof collector_override, "%s", value);
    return true;
}

static bool parse_options(char *options, bool *methods) {
    *methods = false;
    mechanism = true;
    uint64_t seed = 0;
    char *item, *value;
    while (agent_next_option(&options, &item, &value)) {
        if (!collector_option(item, value) && !agent_methods_option(item, value, methods) &&
            !count_option(item, value, "seed", &seed) && !count_option(item, value, "dump_every", &dump_every) &&
            !count_option(item, value, "toggle_every", &toggle_every) &&
            !count_option(item, value, "late", &entries_to_attach) && !mechanism_option(item, value) &&
            !count_option(item, value, "sites", &site_depth)) {
            char rows[128], usage[256];
            check_row_names(rows, sizeof rows, "|");
            snprintf(usage, sizeof usage,
                     "gc=%s, methods=y|n, mechanism=y|n, seed=S, dump_every=N, toggle_every=N, late=N, sites=N", rows);
            agent_bad_option("check", item, value, usage);
            return false;
        }
    }
    if (toggle_every || entries_to_attach) *methods = true;
    attached = entries_to_attach == 0;
    /* A late attach cannot learn the counts and forwards made before it. */
    if (!attached) mechanism = false;
    random_state = seed;
    points_to_dump = agent_random_gap(&random_state, dump_every);
    points_to_toggle = agent_random_gap(&random_state, toggle_every);
    return true;
}

VMPI_EXPORT int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)reserved;
    if (!agent_get_env(vm, "check", &vmpi)) return VMPI_ERR;
    bool methods;
    if (!parse_options(options, &methods)) return VMPI_ERR;
    if (!agent_lock_create(vmpi, "check", &lock)) return VMPI_ERR;
    if (site_depth) {
        site_frames = calloc(site_depth, sizeof *site_frames);
        trace_frames = calloc(site_depth, sizeof *trace_frames);
        if (site_depth > VMPI_MAX_CALL_SITE_DEPTH || !site_frames || !trace_frames ||
            (attached && !enable_call_sites())) {
            fprintf(stderr, "check: the VM keeps no call sites %" PRIu64 " frames deep\n", site_depth);
            return VMPI_ERR;
        }
    }
    check_asked_init(&asked);
    vmpi->NotifyEvent = notify_event;
    static const int32_t checked[] = {
        VMPI_EVENT_ARENA_NEW,    VMPI_EVENT_ARENA_DELETE,   VMPI_EVENT_OBJECT_ALLOC,
        VMPI_EVENT_OBJECT_FREE,  VMPI_EVENT_OBJECT_MOVE,    VMPI_EVENT_GC_START,
        VMPI_EVENT_GC_FINISH,    VMPI_EVENT_CLASS_LOAD,
        VMPI_EVENT_THREAD_START, VMPI_EVENT_THREAD_END,     VMPI_EVENT_JVM_INIT_DONE,
        VMPI_EVENT_JVM_SHUT_DOWN, VMPI_EVENT_METHOD_ENTRY,  VMPI_EVENT_METHOD_EXIT,
    };
    for (size_t i = 0; i < sizeof checked / sizeof checked[0]; i++) {
        int32_t code = checked[i];
        bool is_method = code == VMPI_EVENT_METHOD_ENTRY || code == VMPI_EVENT_METHOD_EXIT;
        if ((is_method && !methods) || (!attached && is_heap_event(code))) continue;
        check_asked_enable(&asked, code, true);
        if (vmpi->EnableEvent(code, NULL) != VMPI_OK) {
            fprintf(stderr, "check: the VM cannot send %s\n", vmpi_event_name(code));
            return VMPI_ERR;
        }
    }
    for (size_t i = 0; i < sizeof check_answers_monitor_events / sizeof check_answers_monitor_events[0]; i++) {
        check_asked_enable(&asked, check_answers_monitor_events[i], true);
        vmpi->EnableEvent(check_answers_monitor_events[i], NULL);
    }
    methods_on = methods;
    for (int32_t code = VMPI_FIRST_GCLAB_EVENT; mechanism && code < VMPI_EVENT_CODE_LIMIT; code++) {
        if (!vmpi_event_name(code)) continue;
        check_asked_enable(&asked, code, true);
        if (vmpi->EnableEvent(code, NULL) != VMPI_OK) {
            fprintf(stderr, "check: the VM cannot send %s\n", vmpi_event_name(code));
            return VMPI_ERR;
        }
    }
    return VMPI_OK;
}
