/*
 * dispatch.c -- the table of loaded agents and how an event reaches them:
 * which events are enabled, delivery in load order, requested events, and
 * the agents' lifecycle (attach, register, shut down, unload).
 *
 * Invariant: vmpi_enabled[] always equals what the agents' own enabled sets
 * say; every change to a set goes through vmpi_refresh_enabled.
 *
 * Shutting down may start inside an agent's NotifyEvent: the check agent
 * calls ProfilerExit when it sees a violation, possibly in the middle of a
 * collection, and ProfilerExit ends in vm_exit -> vmpi_shutdown.  So
 * JVM_SHUT_DOWN is offered to each agent at most once, marking the agent
 * before calling it (a nested shutdown continues with the agents after it,
 * never recurses into the same one), the event in flight first reaches the
 * agents that had not had it yet (finish_broadcasts), and libraries are not
 * unloaded while an agent's code is still on this thread's stack (the
 * process is exiting).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmpi/control.h"
#include "dispatch.h"
#include "recorder.h"
#include "strict.h"

uint8_t vmpi_enabled[VMPI_EVENT_CODE_LIMIT];
uint8_t vmpi_agents_enabled[VMPI_EVENT_CODE_LIMIT];

VmpiAgent vmpi_agents[VMPI_MAX_AGENTS];
uint32_t vmpi_num_agents;
const VmpiVmServices *vmpi_vm;
_Thread_local VmpiAgent *vmpi_requester;
_Thread_local const VMPI_Event *vmpi_delivering;

/* How many NotifyEvent calls are running on this thread. */
static _Thread_local int notify_depth;

/* Handlers outside the VM.  Without --seed or --one-at-a-time,
 * a program thread gives the baton away for the handlers of the events
 * JVMPI sends in its multi-threaded modes (vm_services.h,
 * leave_for_handler) and takes it back after them, so that the handlers of
 * different threads run at once, as in a JVM; the VM starts no collection
 * until every such thread is back, which keeps the event's object IDs
 * valid as JVMPI's "GC disabled" would.  outside_depth counts this
 * thread's dispatches that left; borrowing: an entry point holds the baton
 * for its call (guard.c, IN_VM). */
static _Thread_local uint32_t outside_depth;
/* vmpi_threads_overlap: a second program thread lives.  Relaxed: written
 * by the baton holder, read by the thread posting, which holds it too. */
static _Atomic bool others_live;

void vmpi_threads_overlap(bool live) { atomic_store_explicit(&others_live, live, memory_order_relaxed); }
static _Thread_local bool borrowing;

bool vmpi_borrow_baton(void) {
    if (!outside_depth || borrowing) return false;
    vmpi_vm->borrow_baton(vmpi_vm->vm);
    borrowing = true;
    return true;
}

void vmpi_lend_baton_back(void) {
    borrowing = false;
    vmpi_vm->lend_baton_back(vmpi_vm->vm);
}

bool vmpi_lend_vm_while_blocked(void) {
    return notify_depth > 0 && !outside_depth && vmpi_vm && vmpi_vm->lend_while_blocked &&
           vmpi_vm->lend_while_blocked(vmpi_vm->vm);
}

void vmpi_take_vm_back(void) { vmpi_vm->take_back_after_block(vmpi_vm->vm); }

bool vmpi_gc_held_off(void) {
    Gc *gc = vmpi_gc();
    return (gc && gc_is_disabled(gc)) || outside_depth > 0;
}

/* The events whose handlers may run outside the VM: posted where the VM
 * is between operations (an allocation done, a call or return, a class
 * loaded, a thread begun or ended), and every requested answer.  The
 * monitor events too: each is posted while the thread owns the monitor,
 * or (MONITOR_CONTENDED_ENTER) before it queues to enter, which it decides
 * again after the handlers (vm/threads/monitor.c). */
static bool may_leave_for(int32_t event_type) {
    if (event_type & VMPI_REQUESTED_EVENT) return true;
    switch (event_type) {
    case VMPI_EVENT_OBJECT_ALLOC:
    case VMPI_EVENT_METHOD_ENTRY:
    case VMPI_EVENT_METHOD_ENTRY2:
    case VMPI_EVENT_METHOD_EXIT:
    case VMPI_EVENT_CLASS_LOAD:
    case VMPI_EVENT_THREAD_START:
    case VMPI_EVENT_THREAD_END:
    case VMPI_EVENT_MONITOR_CONTENDED_ENTER:
    case VMPI_EVENT_MONITOR_CONTENDED_ENTERED:
    case VMPI_EVENT_MONITOR_CONTENDED_EXIT:
    case VMPI_EVENT_MONITOR_WAIT:
    case VMPI_EVENT_MONITOR_WAITED: return true;
    default: return false;
    }
}

/* The agents that have `event` enabled now, one bit per slot. */
static uint32_t agents_enabled_for(const VMPI_Event *event) {
    uint32_t agents = 0;
    for (uint32_t i = 0; i < vmpi_num_agents; i++)
        if (vmpi_agents[i].enabled[event->event_type & ~VMPI_REQUESTED_EVENT]) agents |= 1u << i;
    return agents;
}

/* Gives the baton away for a dispatch, if the VM lets this thread: not
 * from inside a handler, whose nested events (a RequestEvent's answer, say)
 * come with the baton it borrowed or kept.  Were the baton to go
 * meanwhile, the outer handler, which may hold its agent's lock, would
 * wait for it after, while the thread that took it waits for that lock.
 * *posted_to: the agents to offer the event, as their enabled sets were
 * before other threads ran -- an agent that enables it meanwhile and
 * catches up by a heap dump (a late attach) has learnt this object from
 * the dump. */
static bool leave_vm(const VMPI_Event *event, uint32_t *posted_to) {
    if (!atomic_load_explicit(&others_live, memory_order_relaxed) || !vmpi_vm || !vmpi_vm->leave_for_handler ||
        notify_depth > 0 || !may_leave_for(event->event_type))
        return false;
    uint32_t enabled = agents_enabled_for(event);
    if (!vmpi_vm->leave_for_handler(vmpi_vm->vm)) return false;
    *posted_to = enabled;
    outside_depth++;
    return true;
}

static void return_to_vm(void) {
    vmpi_vm->return_from_handler(vmpi_vm->vm);
    outside_depth--;
}

/* The attached VM's table, copied: the VM's may be a temporary. */
static VmpiVmServices attached_vm;

void vmpi_attach_vm(const VmpiVmServices *services) {
    gc_set_event_listener(&vmpi_gc_listener); /* before the VM makes its collector */
    if (services) attached_vm = *services;
    vmpi_vm = services ? &attached_vm : NULL;
    vmpi_forget_arenas(); /* the arenas were the last VM's */
    vmpi_threads_overlap(false);
    vmpi_forget_threads();
    vmpi_serve_call_sites();
}

bool vmpi_any_agent(void) { return vmpi_num_agents > 0; }

VmpiAgent *vmpi_agent_claim(void) {
    if (vmpi_num_agents == VMPI_MAX_AGENTS) return NULL;
    uint32_t slot = vmpi_num_agents++;
    VmpiAgent *agent = &vmpi_agents[slot];
    memset(agent, 0, sizeof *agent);
    gc_set_event_listener(&vmpi_gc_listener); /* a collector without a VM: unit tests */
    agent->sampling_interval = VMPI_DEFAULT_SAMPLING_INTERVAL;
    vmpi_interface_init(agent, slot);
    return agent;
}

void vmpi_agent_release_last(void) {
    VmpiAgent *agent = &vmpi_agents[--vmpi_num_agents];
    free(agent->options);
    memset(agent, 0, sizeof *agent);
    for (int32_t code = 0; code < VMPI_EVENT_CODE_LIMIT; code++) vmpi_refresh_enabled(code);
}

/* The VMPI code of each event the collectors post through their port
 * (gc/event_port.h), whose wanted flag follows vmpi_enabled[code]. */
static const int32_t code_of_kind[GC_EVENT_KINDS] = {
    [GC_EVENT_OBJECT_FREE] = VMPI_EVENT_OBJECT_FREE,
    [GC_EVENT_OBJECT_MOVE] = VMPI_EVENT_OBJECT_MOVE,
    [GC_EVENT_GC_START] = VMPI_EVENT_GC_START,
    [GC_EVENT_GC_FINISH] = VMPI_EVENT_GC_FINISH,
    [GC_EVENT_PHASE_START] = VMPI_EVENT_GC_PHASE_START,
    [GC_EVENT_PHASE_END] = VMPI_EVENT_GC_PHASE_END,
    [GC_EVENT_OBJECT_GREYED] = VMPI_EVENT_OBJECT_GREYED,
    [GC_EVENT_OBJECT_BLACKENED] = VMPI_EVENT_OBJECT_BLACKENED,
    [GC_EVENT_OBJECT_FORWARDED] = VMPI_EVENT_OBJECT_FORWARDED,
    [GC_EVENT_REMEMBERED_SET_ADD] = VMPI_EVENT_REMEMBERED_SET_ADD,
    [GC_EVENT_REFCOUNT_CHANGE] = VMPI_EVENT_REFCOUNT_CHANGE,
    [GC_EVENT_OBJECT_FREE_CAUSE] = VMPI_EVENT_OBJECT_FREE_CAUSE,
};

static void tell_collector(int32_t code, uint8_t wanted) {
    for (int kind = 0; kind < GC_EVENT_KINDS; kind++)
        if (code_of_kind[kind] == code) gc_event_wanted[kind] = wanted;
}

void vmpi_refresh_enabled(int32_t code) {
    uint8_t any = 0;
    for (uint32_t i = 0; i < vmpi_num_agents; i++)
        if (vmpi_agents[i].enabled[code]) any = 1;
    vmpi_agents_enabled[code] = any;
    any |= vmpi_recorded[code];
    vmpi_enabled[code] = any;
    tell_collector(code, any);
    if (code == VMPI_EVENT_OBJECT_ALLOC || code == VMPI_EVENT_SAMPLED_OBJECT_ALLOC) vmpi_refresh_alloc_bytes_left();
}

/* One NotifyEvent call, with the record `answer` wants back (NULL: none).
 * Inline in both callers, so that a broadcast's delivery, with no answer,
 * tests nothing for one. */
static inline void deliver(VmpiAgent *agent, const VMPI_Event *event, VMPI_Event *answer) {
    if (answer) *answer = *event;
    if (!agent->iface.NotifyEvent) return;
    VmpiAgent *outer_caller = vmpi_caller; /* a handler's call may post events in turn */
    const VMPI_Event *outer_event = vmpi_delivering;
    vmpi_caller = agent;
    vmpi_delivering = event;
    notify_depth++;
    if (vmpi_strict) {
        vmpi_strict_notify(agent, event, answer);
    } else {
        /* A private copy: an agent that scribbles on its record cannot
         * change what the next agent sees. */
        VMPI_Event copy = *event;
        agent->iface.NotifyEvent(&copy);
        if (answer) *answer = copy;
    }
    notify_depth--;
    vmpi_caller = outer_caller;
    vmpi_delivering = outer_event;
}

void vmpi_deliver(VmpiAgent *agent, const VMPI_Event *event) { deliver(agent, event, NULL); }

void vmpi_deliver_answered(VmpiAgent *agent, const VMPI_Event *event, VMPI_Event *answer) {
    deliver(agent, event, answer);
}

/* The broadcasts under way on this thread, innermost first (a handler's
 * call may post events in turn).  A shutdown that starts inside one -- an
 * agent's ProfilerExit from its NotifyEvent -- first offers the event to the
 * agents after the one that exited (finish_broadcasts), so that every
 * agent's stream is whole when its JVM_SHUT_DOWN comes: an agent loaded
 * after the one that exits must not be asked about an object whose
 * OBJECT_ALLOC it never got.  With one agent loaded there is none after it,
 * so vmpi_dispatch records no broadcast. */
typedef struct Broadcast {
    const VMPI_Event *event;
    uint32_t next;              /* the first agent not yet offered it */
    struct Broadcast *outer;
} Broadcast;

static _Thread_local Broadcast *broadcasts;

static void offer(VmpiAgent *agent, const VMPI_Event *event) {
    if (agent->enabled[event->event_type & ~VMPI_REQUESTED_EVENT]) deliver(agent, event, NULL);
}

/* Outside the VM an agent's enabled set may change meanwhile (another
 * thread's handler disables the event, borrowing the VM): there the set as
 * it was when the event was posted (leave_vm's posted_to) decides alone,
 * and the event may reach the agent after its DisableEvent returned
 * (docs/contracts.md, "Handlers that overlap"). */
static void offer_posted(VmpiAgent *agent, const VMPI_Event *event, bool outside) {
    if (outside) deliver(agent, event, NULL);
    else offer(agent, event);
}

/* Offers each broadcast under way to the agents it has not reached yet. */
static void finish_broadcasts(void) {
    for (Broadcast *broadcast = broadcasts; broadcast; broadcast = broadcast->outer)
        while (broadcast->next < vmpi_num_agents) {
            VmpiAgent *agent = &vmpi_agents[broadcast->next++];
            if (!agent->shut_down) offer(agent, broadcast->event);
        }
}

void vmpi_dispatch(const VMPI_Event *event, bool with_gc_disabled) {
    bool requested = (event->event_type & VMPI_REQUESTED_EVENT) && vmpi_requester;
    /* First: a delivery may shut down; and before leaving the VM, which
     * keeps the recording in one thread's order. */
    if (vmpi_recording && !requested) vmpi_record_event(event);
    uint32_t posted_to = ~0u;
    bool outside = leave_vm(event, &posted_to);
    /* Outside, the VM holds collections off until this thread is back. */
    Gc *gc = with_gc_disabled && !outside ? vmpi_gc() : NULL;
    if (gc) gc_disable(gc);
    if (requested) {
        vmpi_deliver(vmpi_requester, event);
    } else if (vmpi_num_agents == 1) {
        /* The usual case: with no agent after this one, a shutdown inside
         * the delivery has no broadcast to finish. */
        if (posted_to & 1u) offer_posted(&vmpi_agents[0], event, outside);
    } else {
        Broadcast broadcast = {.event = event, .next = 0, .outer = broadcasts};
        broadcasts = &broadcast;
        /* vmpi_num_agents is re-read each time: a NotifyEvent may shut down. */
        while (broadcast.next < vmpi_num_agents) {
            uint32_t slot = broadcast.next++;
            if (posted_to & (1u << slot)) offer_posted(&vmpi_agents[slot], event, outside);
        }
        broadcasts = broadcast.outer;
    }
    if (gc) gc_enable(gc);
    if (outside) return_to_vm();
}

struct VMPI_Interface *vmpi_register_listener(void (*notify)(struct VMPI_Event *event)) {
    VmpiAgent *agent = vmpi_agent_claim();
    if (!agent) return NULL;
    snprintf(agent->name, sizeof agent->name, "listener %u", (unsigned)(agent - vmpi_agents));
    agent->iface.NotifyEvent = notify;
    return &agent->iface;
}

/* Offers JVM_SHUT_DOWN to every agent that has not had it yet. */
static void vmpi_post_shutdown(void) {
    finish_broadcasts();
    vmpi_record_shut_down();
    VMPI_Event event = {.event_type = VMPI_EVENT_JVM_SHUT_DOWN,
                        .env_id = vmpi_current_env()};
    for (uint32_t i = 0; i < vmpi_num_agents; i++) {
        VmpiAgent *agent = &vmpi_agents[i];
        if (agent->shut_down) continue;
        agent->shut_down = true; /* before the call: it may exit and shut down again */
        if (agent->enabled[VMPI_EVENT_JVM_SHUT_DOWN]) vmpi_deliver(agent, &event);
    }
}

void vmpi_shutdown(void) {
    vmpi_threads_shut_down(); /* an agent thread waiting in SuspendThread goes on */
    vmpi_post_shutdown();
    /* Nothing more reaches an agent after its JVM_SHUT_DOWN: its files are
     * closed.  The collector may still post while the VM is torn down. */
    for (uint32_t i = 0; i < vmpi_num_agents; i++)
        memset(vmpi_agents[i].enabled, 0, sizeof vmpi_agents[i].enabled);
    memset(vmpi_enabled, 0, sizeof vmpi_enabled);
    memset(vmpi_agents_enabled, 0, sizeof vmpi_agents_enabled);
    vmpi_refresh_alloc_bytes_left();
    /* Strict mode: every DisableGC matched by now (an agent may still
     * re-enable in its JVM_SHUT_DOWN).  The VM has flushed its output and
     * every agent has shut down, so the run ends here with status 1. */
    static bool balance_checked;
    if (vmpi_strict && !balance_checked && !vmpi_breach_reported) {
        balance_checked = true;
        if (vmpi_report_unbalanced_gc()) exit(1);
    }
    if (notify_depth > 0) return; /* an agent's code is on the stack: no dlclose */
    /* Likewise while a system thread may still be in it: a daemon that never
     * returns keeps its library loaded until the process ends. */
    if (!vmpi_system_threads_returned(1000)) return;
    for (uint32_t i = 0; i < vmpi_num_agents; i++) {
        if (vmpi_agents[i].library) dlclose(vmpi_agents[i].library);
        free(vmpi_agents[i].options);
    }
    vmpi_num_agents = 0;
}
