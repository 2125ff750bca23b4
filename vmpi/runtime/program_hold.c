/*
 * program_hold.c -- a request from an agent's own thread that needs the
 * heap to hold still: the program's threads stop at a safepoint first, as
 * for a collection, and go on once the request is answered.
 *
 * RequestEvent from a system thread (CreateSystemThread) answers on that
 * thread (request.c), and a heap dump, an object's OBJECT_ALLOC or
 * OBJECT_DUMP, the arena replay or a class's or thread's defining event
 * reads what the program's threads change.  So the system thread asks the
 * running thread to hold at its next safepoint (VMPI_AT_SAFEPOINT_HOLD);
 * there the VM first waits, as before a collection, until no thread is out
 * in an agent's handler (their events' objects are then announced), and
 * then calls vmpi_serve_hold, which parks the thread until the request is
 * answered.  Every other program thread waits for the baton meanwhile.
 * It gives up when the VM shuts down first (the request is then refused).
 *
 * Invariant, under hold_lock: `holding_wanted` says a system thread's
 * request is being served or waited for (one at a time: a second waits its
 * turn), and `held` whether a program thread is parked for it.  A VM that cannot
 * stop its threads (no request_safepoint: a mock) answers at once.
 */
#include <pthread.h>

#include "dispatch.h"

static pthread_mutex_t hold_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_changed = PTHREAD_COND_INITIALIZER;
static bool holding_wanted; /* a system thread waits for the hold, or holds */
static bool held;           /* a program thread is parked at a safepoint */
static bool hold_shutting_down;

bool vmpi_hold_program(void) {
    if (!vmpi_vm || !vmpi_vm->request_safepoint) return true;
    pthread_mutex_lock(&hold_lock);
    while (holding_wanted && !hold_shutting_down) pthread_cond_wait(&hold_changed, &hold_lock);
    bool ok = !hold_shutting_down;
    if (ok) {
        holding_wanted = true;
        vmpi_request_safepoint(VMPI_AT_SAFEPOINT_HOLD);
        while (!held && !hold_shutting_down) pthread_cond_wait(&hold_changed, &hold_lock);
        ok = held;
        if (!ok) holding_wanted = false;
    }
    pthread_mutex_unlock(&hold_lock);
    return ok;
}

void vmpi_release_program(void) {
    if (!vmpi_vm || !vmpi_vm->request_safepoint) return;
    pthread_mutex_lock(&hold_lock);
    holding_wanted = false;
    pthread_cond_broadcast(&hold_changed);
    pthread_mutex_unlock(&hold_lock);
}

bool vmpi_hold_wanted(void) {
    pthread_mutex_lock(&hold_lock);
    bool wanted = holding_wanted;
    pthread_mutex_unlock(&hold_lock);
    return wanted;
}

void vmpi_serve_hold(void) {
    pthread_mutex_lock(&hold_lock);
    if (holding_wanted) {
        held = true;
        pthread_cond_broadcast(&hold_changed);
        while (holding_wanted) pthread_cond_wait(&hold_changed, &hold_lock);
        held = false;
        pthread_cond_broadcast(&hold_changed); /* the next system thread's turn */
    }
    pthread_mutex_unlock(&hold_lock);
}

void vmpi_hold_shutting_down(bool shutting_down) {
    pthread_mutex_lock(&hold_lock);
    hold_shutting_down = shutting_down;
    pthread_cond_broadcast(&hold_changed);
    pthread_mutex_unlock(&hold_lock);
}
