/*
 * check_answers.c -- rule 11: the VM's answers to GetThreadInfo and
 * GetObjectMonitorUsage against its events (check_answers.h).
 */
#include "check_answers.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

const int32_t check_answers_monitor_events[4] = {
    VMPI_EVENT_MONITOR_CONTENDED_ENTER, VMPI_EVENT_MONITOR_CONTENDED_ENTERED,
    VMPI_EVENT_MONITOR_WAIT, VMPI_EVENT_MONITOR_WAITED,
};

static bool same_text(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

static const char *or_null(const char *text) { return text ? text : "(null)"; }

static int check_thread_start(VMPI_Interface *vmpi, const VMPI_Event *event, char *message, size_t size) {
    VMPI_ThreadInfo info;
    if (vmpi->GetThreadInfo(event->u.thread_start.thread_env_id, &info) != VMPI_OK) {
        snprintf(message, size, "GetThreadInfo refused the thread THREAD_START names");
        return 11;
    }
    const char *what = !same_text(info.thread_name, event->u.thread_start.thread_name) ? "thread name"
                       : !same_text(info.group_name, event->u.thread_start.group_name) ? "group name"
                       : !same_text(info.parent_name, event->u.thread_start.parent_name) ? "parent name"
                                                                                           : NULL;
    if (!what) return 0;
    snprintf(message, size, "GetThreadInfo gives %s '%s'/'%s'/'%s', THREAD_START '%s'/'%s'/'%s'", what,
             or_null(info.thread_name), or_null(info.group_name), or_null(info.parent_name),
             or_null(event->u.thread_start.thread_name), or_null(event->u.thread_start.group_name),
             or_null(event->u.thread_start.parent_name));
    return 11;
}

/* Room for every thread a test program runs; a count beyond it is still
 * reported right, only the list is cut. */
#define MAX_LISTED 64

static bool listed(VMPI_ThreadID thread, const VMPI_ThreadID *threads, int32_t count) {
    for (int32_t i = 0; i < count && i < MAX_LISTED; i++)
        if (threads[i] == thread) return true;
    return false;
}

static int check_monitor(VMPI_Interface *vmpi, const VMPI_Event *event, int32_t code, char *message, size_t size) {
    VMPI_ThreadID entering[MAX_LISTED], waiting[MAX_LISTED];
    VMPI_MonitorUsage usage = {.capacity = MAX_LISTED, .entering = entering, .waiting = waiting};
    VMPI_ObjectID object = code == VMPI_EVENT_MONITOR_WAIT || code == VMPI_EVENT_MONITOR_WAITED
                               ? event->u.monitor_wait.object
                               : event->u.monitor.object;
    if (!object) return 0; /* a sleep (JVMPI 1.2, MONITOR_WAIT): no monitor to ask about */
    const char *problem = NULL;
    if (vmpi->GetObjectMonitorUsage(object, &usage) != VMPI_OK)
        problem = "GetObjectMonitorUsage refused the event's object";
    else if (usage.entry_count < 0 || usage.num_entering < 0 || usage.num_waiting < 0)
        problem = "GetObjectMonitorUsage gives a negative count";
    /* The owner may have left while the handler ran beside the other
     * threads (docs/contracts.md, "Handlers that overlap"): a monitor a
     * thread waits to enter has another owner, or none any more. */
    else if (code == VMPI_EVENT_MONITOR_CONTENDED_ENTER && usage.owner == event->env_id)
        problem = "the entering thread already owns the monitor it waits for";
    else if (code == VMPI_EVENT_MONITOR_CONTENDED_ENTER && (usage.owner ? usage.entry_count < 1 : usage.entry_count != 0))
        problem = usage.owner ? "the monitor a thread waits to enter is owned with an entry count below 1"
                              : "the monitor a thread waits to enter has no owner but an entry count";
    else if (code != VMPI_EVENT_MONITOR_CONTENDED_ENTER && (usage.owner != event->env_id || usage.entry_count < 1))
        problem = "the event's thread does not own the monitor it entered or waits on";
    else if (code == VMPI_EVENT_MONITOR_WAIT && (listed(event->env_id, entering, usage.num_entering) ||
                                                 listed(event->env_id, waiting, usage.num_waiting)))
        problem = "the owner that is about to wait is listed as waiting already";
    if (!problem) return 0;
    snprintf(message, size, "%s", problem);
    return 11;
}

int check_answers(VMPI_Interface *vmpi, const VMPI_Event *event, char *message, size_t size) {
    int32_t code = event->event_type & ~VMPI_REQUESTED_EVENT;
    if (code == VMPI_EVENT_THREAD_START) return check_thread_start(vmpi, event, message, size);
    for (size_t i = 0; i < sizeof check_answers_monitor_events / sizeof check_answers_monitor_events[0]; i++)
        if (code == check_answers_monitor_events[i]) return check_monitor(vmpi, event, code, message, size);
    return 0;
}
