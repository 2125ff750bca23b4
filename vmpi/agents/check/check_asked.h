/*
 * check_asked.h -- rule 10 of the event-stream contract (docs/contracts.md):
 * only what the agent asked for arrives.  A pure state machine beside
 * check_rules.h (which holds rules 1-9, the VM's story of the heap): this
 * one holds the agent's side of the conversation -- the events it has
 * enabled, and the RequestEvent it is running, if any.
 *
 *   - An event without VMPI_REQUESTED_EVENT arrives only while the agent
 *     has it enabled (or, posted before, in flight on another thread after
 *     DisableEvent, until the next GC_START), and never while the agent's
 *     own RequestEvent runs
 *     (the answer to a request is sent in the requesting thread, before
 *     RequestEvent returns, and carries the bit).
 *   - An event with VMPI_REQUESTED_EVENT arrives only while the agent's
 *     RequestEvent runs, and is of the type it asked for.
 *   - A RequestEvent that answers VMPI_OK sent its answer: exactly one event,
 *     or for ARENA_NEW (a replay of every live arena) at least one.
 *
 * The agent calls check_asked_enable as it enables and disables events
 * (before EnableEvent, after DisableEvent returns), and brackets each
 * RequestEvent with check_asked_request_begin/_end.  No allocation, no I/O.
 */
#ifndef GCLAB_CHECK_ASKED_H
#define GCLAB_CHECK_ASKED_H

#include <stdbool.h>
#include <stdint.h>

#include "vmpi.h"

typedef struct CheckAsked {
    bool enabled[VMPI_EVENT_CODE_LIMIT];
    /* Disabled since the last GC_START: one posted on another thread before
     * DisableEvent returned may still arrive (docs/contracts.md, "Handlers
     * that overlap"); a collection waits for every handler, so after the
     * next GC_START none can. */
    bool may_still_arrive[VMPI_EVENT_CODE_LIMIT];
    int32_t requesting;  /* the event of the running RequestEvent; 0: none runs */
    uint32_t answers;    /* requested events that arrived during it */
    char message[200];   /* what is wrong, once a call returned 10 */
} CheckAsked;

/* Nothing enabled, no request running. */
void check_asked_init(CheckAsked *asked);

void check_asked_enable(CheckAsked *asked, int32_t event, bool enabled);

/* The agent is about to call RequestEvent(event).  Requests do not nest. */
void check_asked_request_begin(CheckAsked *asked, int32_t event);

/* RequestEvent returned `result`.  10 if it answered VMPI_OK without
 * sending what was asked for, else 0. */
int check_asked_request_end(CheckAsked *asked, int32_t result);

/* An event arrived, `event_type` with its VMPI_REQUESTED_EVENT bit.  10 if
 * the agent did not ask for it, else 0. */
int check_asked_event(CheckAsked *asked, int32_t event_type);

#endif
