/*
 * strict.h -- --vmpi-strict: the agent contract (docs/contracts.md, "The
 * agent contract"; JVMPI 1.2 sections 1.4 and 1.5) checked while agents run.
 *
 * Invariant: with vmpi_strict false nothing here runs, and event delivery
 * pays one test of the flag (dispatch.c, vmpi_deliver).  With it true every
 * breach of a rule below ends the VM through vmpi_exit (status 1), so every
 * agent still gets JVM_SHUT_DOWN, after one line on stderr:
 *
 *     vmpi: contract breach (RULE): agent 'NAME', NotifyEvent(EVENT): CALL: what
 *
 * naming the rule, the agent, the event it was handling (or VMPI_OnLoad, or
 * "outside any event") and the VMPI function it had called, if any.
 *
 * Where each rule is checked: bad arguments, blocking, RunGC,
 * CreateSystemThread, requests in a collection and object IDs in guard.c's
 * entry points; allocation in thread-suspended mode and stale records here,
 * around each NotifyEvent; DisableGC balance at shutdown (gc_control.c,
 * dispatch.c).
 */
#ifndef GCLAB_VMPI_STRICT_H
#define GCLAB_VMPI_STRICT_H

#include <stdbool.h>

#include "dispatch.h"

/* The rules, in the order docs/contracts.md lists them: X(NAME, "how the
 * breach message names it"). */
#define VMPI_STRICT_RULES(X)                                                                 \
    X(BAD_ARGUMENT, "bad argument")                                                          \
    X(SUSPENDED_ALLOCATION, "allocation in thread-suspended mode")                           \
    X(SUSPENDED_BLOCKING, "blocking in thread-suspended mode")                               \
    X(RUN_GC, "RunGC with GC disabled or inside an event")                                   \
    X(SYSTEM_THREAD, "CreateSystemThread before JVM_INIT_DONE or with GC disabled")          \
    X(REQUEST_IN_COLLECTION, "request inside a collection")                                  \
    X(STALE_RECORD, "event record read after NotifyEvent returned")                          \
    X(UNBALANCED_DISABLE_GC, "DisableGC not balanced at shutdown")                           \
    X(OBJECT_ID_GC_ENABLED, "object ID used with GC enabled")                                \
    X(DEADLOCK, "deadlock")

typedef enum VmpiRule {
#define RULE_ENUM(name, text) VMPI_RULE_##name,
    VMPI_STRICT_RULES(RULE_ENUM)
#undef RULE_ENUM
} VmpiRule;

/* --vmpi-strict (vmpi_set_strict). */
extern bool vmpi_strict;

/* Reports a breach of `rule` by `agent` (NULL: vmpi_caller) and leaves
 * through vmpi_exit(1).  `problem` is a printf format. */
_Noreturn void vmpi_breach(VmpiRule rule, const VmpiAgent *agent, const char *problem, ...)
    __attribute__((format(printf, 3, 4)));

/* Whether a breach has been reported in this run. */
extern bool vmpi_breach_reported;

/* Prints the breach line of `rule` without exiting (for a breach found
 * while the VM is already shutting down). */
void vmpi_report_breach(VmpiRule rule, const VmpiAgent *agent, const char *problem, ...)
    __attribute__((format(printf, 3, 4)));

/* Whether this thread is handling an event of thread-suspended mode: inside
 * a collection, and not GC_START or GC_FINISH, which JVMPI 1.2 sends just
 * before the mode begins and after it ends (an agent takes its locks in
 * GC_START). */
bool vmpi_thread_suspended(void);

/* Calls agent's NotifyEvent with a copy of `event`, in strict mode: the
 * copy lives in a page that is made unreadable when NotifyEvent returns,
 * and in thread-suspended mode the bytes the thread allocated from the C
 * heap meanwhile must be none.  If `answer` is not NULL it receives the
 * record as the agent left it (CLASS_LOAD_HOOK's reply), before the page
 * is closed.  Called with vmpi_caller and vmpi_delivering already set. */
void vmpi_strict_notify(VmpiAgent *agent, const VMPI_Event *event, VMPI_Event *answer);

/* hang_watch.c: a strict delivery's slot in the hang watch, from just
 * before NotifyEvent to its return (-1: not watched; pass it to _end
 * anyway).  A slot older than the hang limit ends the run with a report. */
int vmpi_hang_watch_begin(const VmpiAgent *agent, int32_t event_type);
void vmpi_hang_watch_end(int slot);

/* For crash.c's SIGSEGV handler: true if `address` lies in a poisoned
 * event record; the read is then noted, the page made readable again so
 * the faulting instruction can finish, and the breach is reported when the
 * NotifyEvent running returns (or at the next delivery).  Async-signal-safe. */
bool vmpi_strict_stale_read(const void *address);

/* gc_control.c: reports (vmpi_report_breach) each agent whose DisableGC
 * calls outnumber its EnableGC calls; true if there was one. */
bool vmpi_report_unbalanced_gc(void);

#endif
