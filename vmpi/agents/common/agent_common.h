/*
 * agent_common.h -- the scaffolding the bundled agents (check, trace)
 * share: getting the interface and the output monitor in VMPI_OnLoad,
 * reading their options, and the lock discipline of JVMPI 1.2 section 1.5.
 *
 * Header-only (static inline): each agent is one shared library of its own,
 * and the build makes an agent of every subdirectory of vmpi/agents, never
 * of a file here.  Messages start with the agent's name ("check: ...").
 *
 * The lock discipline.  One raw monitor guards an agent's state.  GC_START
 * takes it and GC_FINISH gives it back, so that the events between them --
 * sent in thread-suspended mode, where an agent must neither block nor
 * allocate -- run with it held; every other event takes it for its own
 * handling only.  Invariant: `in_gc` is true exactly while GC_START's entry
 * is held.
 *
 * The lock is the agent's raw monitor, or a pthread mutex the agent names
 * beforehand (AgentLock.mutex) when it takes the lock at every event and
 * needs nothing of a raw monitor but mutual exclusion: the trace agent,
 * whose line costs less than a raw monitor's checked entry and exit.  The
 * discipline is the same; the mutex is not recursive, so such an agent
 * must not take the lock again inside its own handling.
 */
#ifndef GCLAB_AGENT_COMMON_H
#define GCLAB_AGENT_COMMON_H

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "trace_output.h"
#include "vmpi.h"

typedef struct AgentLock {
    VMPI_RawMonitor monitor;
    pthread_mutex_t *mutex; /* if not NULL, the lock instead of `monitor` */
    atomic_bool in_gc; /* between GC_START and GC_FINISH: the lock is held */
} AgentLock;

/* The start of VMPI_OnLoad: the agent's interface.  False, with a message,
 * if the VM does not offer VMPI version 1. */
static inline bool agent_get_env(VMPI_VM *vm, const char *agent, VMPI_Interface **vmpi) {
    if (vm->GetEnv(vm, (void **)vmpi, VMPI_VERSION_1) == VMPI_OK) return true;
    fprintf(stderr, "%s: this VM does not offer VMPI version 1\n", agent);
    return false;
}

/* Creates the agent's monitor, named "_" and the agent's name: a leading '_'
 * means no contention events for it (JVMPI 1.2, RawMonitorCreate), unless
 * the lock is a mutex.  False, with a message, if out of memory. */
static inline bool agent_lock_create(VMPI_Interface *vmpi, const char *agent, AgentLock *lock) {
    atomic_init(&lock->in_gc, false);
    if (lock->mutex) return true; /* named beforehand: no monitor */
    char name[64];
    snprintf(name, sizeof name, "_%s", agent);
    lock->monitor = vmpi->RawMonitorCreate(name);
    if (lock->monitor) return true;
    fprintf(stderr, "%s: out of memory\n", agent);
    return false;
}

/* The rest of a writing agent's start (trace, hprof): its output file
 * opened (trace_output.h) and its lock created.  False, with a message and
 * no file left behind, if either fails. */
static inline bool agent_open_output(VMPI_Interface *vmpi, const char *agent, const char *path,
                                     TraceOutput *out, AgentLock *lock) {
    if (!trace_output_open(out, path)) {
        fprintf(stderr, "%s: cannot open %s: %s\n", agent, path, strerror(errno));
        return false;
    }
    if (agent_lock_create(vmpi, agent, lock)) return true;
    trace_output_abandon(out);
    return false;
}

static inline void agent_lock_enter(VMPI_Interface *vmpi, AgentLock *lock) {
    if (lock->mutex) pthread_mutex_lock(lock->mutex);
    else vmpi->RawMonitorEnter(lock->monitor);
}

static inline void agent_lock_exit(VMPI_Interface *vmpi, AgentLock *lock) {
    if (lock->mutex) pthread_mutex_unlock(lock->mutex);
    else vmpi->RawMonitorExit(lock->monitor);
}

/* Call before handling the event `code`.  Returns whether this call entered
 * the lock for this event alone; hand that to agent_lock_after. */
static inline bool agent_lock_before(VMPI_Interface *vmpi, AgentLock *lock, int32_t code) {
    if (code == VMPI_EVENT_GC_START) {
        agent_lock_enter(vmpi, lock); /* held until GC_FINISH */
        atomic_store(&lock->in_gc, true);
    }
    bool entered = !atomic_load(&lock->in_gc);
    if (entered) agent_lock_enter(vmpi, lock);
    return entered;
}

/* Call after handling the event `code`, with agent_lock_before's answer. */
static inline void agent_lock_after(VMPI_Interface *vmpi, AgentLock *lock, int32_t code, bool entered) {
    if (entered) agent_lock_exit(vmpi, lock);
    if (code == VMPI_EVENT_GC_FINISH) {
        atomic_store(&lock->in_gc, false);
        agent_lock_exit(vmpi, lock);
    }
}

/* ---- options: "name=value,name=value,..." ------------------------------------------ */

/* The next item of the option string at *rest, split at its first '='
 * (*value NULL if it has none); false when none is left.  Writes into the
 * string, as strtok does. */
static inline bool agent_next_option(char **rest, char **item, char **value) {
    *item = strtok_r(*rest, ",", rest);
    if (!*item) return false;
    *value = strchr(*item, '=');
    if (*value) *(*value)++ = '\0';
    return true;
}

/* methods=y|n, which both agents take: true (setting *methods) if `item`
 * and `value` are that option. */
static inline bool agent_methods_option(const char *item, const char *value, bool *methods) {
    if (strcmp(item, "methods") != 0 || !value || (strcmp(value, "y") != 0 && strcmp(value, "n") != 0))
        return false;
    *methods = value[0] == 'y';
    return true;
}

/* The message for an option the agent does not take; `usage` lists those
 * it does. */
static inline void agent_bad_option(const char *agent, const char *item, const char *value,
                                    const char *usage) {
    fprintf(stderr, "%s: bad option '%s%s%s' (options: %s)\n", agent, item, value ? "=" : "",
            value ? value : "", usage);
}

/* One line to stderr without stdio, which thread-suspended mode forbids;
 * cut at 511 bytes. */
__attribute__((format(printf, 1, 2))) static inline void agent_say(const char *format, ...) {
    char line[512];
    va_list args;
    va_start(args, format);
    int n = vsnprintf(line, sizeof line, format, args);
    va_end(args);
    if (n < 0) return;
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    if (write(STDERR_FILENO, line, len) < 0) return;
}

#endif
