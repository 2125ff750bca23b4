/*
 * check_answers.h -- rule 11 of the event-stream contract (docs/contracts.md):
 * what the VM answers to GetThreadInfo and GetObjectMonitorUsage agrees with
 * the events it sends.
 *
 *   - At THREAD_START, GetThreadInfo(thread_env_id) gives the event's
 *     thread name, group name and parent name.
 *   - At MONITOR_CONTENDED_ENTER, GetObjectMonitorUsage(object) names an
 *     owner other than the entering thread, with an entry count of at
 *     least 1 (the thread waits because someone owns the monitor), or none
 *     and a count of 0 (the owner left while the handler ran beside the
 *     other threads: docs/contracts.md, "Handlers that overlap").
 *   - At MONITOR_CONTENDED_ENTERED, MONITOR_WAIT and MONITOR_WAITED, the
 *     event's thread owns the monitor, at least once; at MONITOR_WAIT it is
 *     not among the threads waiting to enter or to be notified.
 *
 * Each function asks the VM (the event is being handled, so GC is disabled
 * and its object ID is stable), and returns 0, or 11 with `message` set.
 */
#ifndef GCLAB_CHECK_ANSWERS_H
#define GCLAB_CHECK_ANSWERS_H

#include <stddef.h>
#include <stdint.h>

#include "vmpi.h"

/* The monitor events rule 11 is checked at, which the check agent enables. */
extern const int32_t check_answers_monitor_events[4];

/* Checks the answers for `event`; events other than THREAD_START and the
 * four monitor events pass. */
int check_answers(VMPI_Interface *vmpi, const VMPI_Event *event, char *message, size_t size);

#endif
