/*
 * strict.c -- the breach report of --vmpi-strict and the checks made around
 * each NotifyEvent: allocation in thread-suspended mode and event records
 * read after NotifyEvent returned (see strict.h for all the rules).
 *
 * Poisoned records.  In strict mode an agent's private copy of an event
 * lives in one of POISON_SLOTS pages mapped once.  A slot is taken for one
 * NotifyEvent (nested deliveries take others), and when NotifyEvent returns
 * its page is closed, so a later read of the record faults; crash.c's
 * SIGSEGV handler asks vmpi_strict_stale_read, which notes the read and opens
 * the page again so the agent's instruction completes, and the breach is
 * reported from ordinary code when the NotifyEvent running returns.  A page
 * is closed with a protection key where the CPU has them (pkeys(7): a
 * register write, so strict delivery costs about what normal delivery
 * does), else with mprotect (two system calls per delivery, many times
 * slower).  Slots are reused in turn, so a record kept across more than
 * POISON_SLOTS deliveries is read as some later event, not caught; with
 * keys, neither is a record whose slot shares the key of the record being
 * handled (a slot in MAX_POISON_KEYS).  Invariant: a slot's page is open to
 * a thread exactly while that thread's delivery holds it (`busy`), or after
 * a stale read reopened it until the slot is reused.
 *
 * Allocation.  The C heap's count of bytes this thread allocated is read
 * before and after each NotifyEvent of thread-suspended mode: jemalloc keeps
 * one per thread (mallctl "thread.allocatedp"); under ASan a malloc hook
 * counts them; with glibc's malloc alone only the bytes in use are known
 * (mallinfo2), so a block freed before NotifyEvent returns goes unseen there.
 */
#define _GNU_SOURCE /* pkey_alloc, pkey_set, pkey_mprotect */
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "strict.h"

#if !defined(GCLAB_PLAIN_MALLOC)
#include <jemalloc/jemalloc.h>
#endif

bool vmpi_strict;

void vmpi_set_strict(bool on) { vmpi_strict = on; }

/* ---- the breach report ------------------------------------------------------------ */

static const char *const rule_names[] = {
#define RULE_NAME(name, text) text,
    VMPI_STRICT_RULES(RULE_NAME)
#undef RULE_NAME
};

bool vmpi_breach_reported;

static void vreport(VmpiRule rule, const VmpiAgent *agent, const char *problem, va_list args) {
    vmpi_breach_reported = true;
    if (!agent) agent = vmpi_calling_agent();
    char where[96];
    if (vmpi_delivering) {
        const char *event = vmpi_event_name(vmpi_delivering->event_type & ~VMPI_REQUESTED_EVENT);
        snprintf(where, sizeof where, "NotifyEvent(%s)", event ? event : "?");
    } else if (vmpi_on_system_thread) {
        snprintf(where, sizeof where, "its system thread");
    } else {
        snprintf(where, sizeof where, "%s", vmpi_caller ? "VMPI_OnLoad" : "outside any event");
    }
    fprintf(stderr, "vmpi: contract breach (%s): agent '%s', %s: ", rule_names[rule],
            vmpi_agent_name(agent), where);
    if (vmpi_calling) fprintf(stderr, "%s: ", vmpi_calling);
    vfprintf(stderr, problem, args);
    fputc('\n', stderr);
}

void vmpi_report_breach(VmpiRule rule, const VmpiAgent *agent, const char *problem, ...) {
    va_list args;
    va_start(args, problem);
    vreport(rule, agent, problem, args);
    va_end(args);
}

_Noreturn void vmpi_breach(VmpiRule rule, const VmpiAgent *agent, const char *problem, ...) {
    va_list args;
    va_start(args, problem);
    vreport(rule, agent, problem, args);
    va_end(args);
    vmpi_exit(1);
}

bool vmpi_thread_suspended(void) {
    Gc *gc = vmpi_gc();
    if (!gc || !gc_is_collecting(gc) || !vmpi_delivering) return false;
    int32_t code = vmpi_delivering->event_type & ~VMPI_REQUESTED_EVENT;
    return code != VMPI_EVENT_GC_START && code != VMPI_EVENT_GC_FINISH;
}

/* ---- bytes allocated by this thread ------------------------------------------------ */

#if defined(__SANITIZE_ADDRESS__)
/* The sanitizer runtime's hook API (compiler-rt's allocator_interface.h,
 * which GCC does not install). */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));

static _Thread_local uint64_t hooked_bytes;
static void count_malloc(const volatile void *block, size_t size) {
    (void)block;
    hooked_bytes += size;
}
static void ignore_free(const volatile void *block) { (void)block; }
static void install_hooks(void) { __sanitizer_install_malloc_and_free_hooks(count_malloc, ignore_free); }

static uint64_t thread_allocated_bytes(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install_hooks);
    return hooked_bytes;
}
#elif defined(GCLAB_WASM) /* emscripten's malloc.h has mallinfo only (and one thread) */
static uint64_t thread_allocated_bytes(void) { return (uint64_t)mallinfo().uordblks; }
#elif defined(GCLAB_PLAIN_MALLOC)
static uint64_t thread_allocated_bytes(void) { return mallinfo2().uordblks; }
#else
static uint64_t thread_allocated_bytes(void) {
    static _Thread_local uint64_t *allocated;
    if (!allocated) {
        size_t size = sizeof allocated;
        if (mallctl("thread.allocatedp", &allocated, &size, NULL, 0) != 0) return 0;
    }
    return *allocated;
}
#endif

/* ---- poisoned records --------------------------------------------------------------- */

#ifdef GCLAB_WASM
/* The browser build has neither protection keys nor page protection, and
 * refuses --vmpi-strict (vm/tools/vmrun/options.c); every key call fails. */
#define PKEY_DISABLE_ACCESS 1
static int pkey_alloc(unsigned flags, unsigned rights) { return -1; }
static int pkey_free(int key) { return -1; }
static int pkey_set(int key, unsigned rights) { return -1; }
static int pkey_mprotect(void *address, size_t len, int prot, int key) { return -1; }
#endif

#define POISON_SLOTS 32
#define MAX_POISON_KEYS 8

static unsigned char *poison_pages; /* POISON_SLOTS pages, or NULL */
static size_t page_size;
static atomic_bool slot_busy[POISON_SLOTS];
static int32_t slot_event[POISON_SLOTS]; /* the event type whose record the slot holds */
static atomic_uint next_slot;

/* Protection keys, when the CPU and kernel have them: slot s's page carries
 * key poison_keys[s % num_poison_keys], and a thread opens and closes a key
 * with pkey_set, a user-mode register write, instead of two mprotect calls
 * per delivery.  keys_open: the key indexes this thread has open (one slot
 * each, so closing one never closes an outer record).  A page a stale read
 * faulted on is given key 0, always open, until its slot is reused
 * (slot_rekey). */
static int poison_keys[MAX_POISON_KEYS];
static unsigned num_poison_keys; /* 0: mprotect */
static _Thread_local unsigned keys_open;
static volatile sig_atomic_t slot_rekey[POISON_SLOTS];

/* The stale read noted by the signal handler, reported by ordinary code. */
static volatile sig_atomic_t stale_read_pending;
static const VmpiAgent *volatile stale_reader;
static volatile int32_t stale_record_event;

static void *slot_page(unsigned slot) { return poison_pages + slot * page_size; }
static unsigned slot_key_index(unsigned slot) { return slot % num_poison_keys; }

/* Gives every page its key; leaves num_poison_keys 0 if keys are missing. */
static void assign_poison_keys(void) {
    unsigned keys = 0;
    while (keys < MAX_POISON_KEYS) {
        int key = pkey_alloc(0, PKEY_DISABLE_ACCESS);
        if (key < 0) break;
        poison_keys[keys++] = key;
    }
    num_poison_keys = keys;
    bool assigned = keys >= 2; /* one key would close the record of the event being handled */
    for (unsigned slot = 0; assigned && slot < POISON_SLOTS; slot++)
        assigned = pkey_mprotect(slot_page(slot), page_size, PROT_READ | PROT_WRITE,
                                 poison_keys[slot_key_index(slot)]) == 0;
    if (assigned) return;
    for (unsigned i = 0; i < keys; i++) pkey_free(poison_keys[i]);
    num_poison_keys = 0;
    mprotect(poison_pages, POISON_SLOTS * page_size, PROT_NONE);
}

static void map_poison_pages(void) {
    page_size = (size_t)sysconf(_SC_PAGESIZE);
    void *pages = mmap(NULL, POISON_SLOTS * page_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    poison_pages = pages == MAP_FAILED ? NULL : pages;
    if (poison_pages) assign_poison_keys();
}

/* Makes `slot`, just claimed, readable and writable by this thread. */
static bool open_slot(unsigned slot) {
    if (!num_poison_keys) return mprotect(slot_page(slot), page_size, PROT_READ | PROT_WRITE) == 0;
    unsigned index = slot_key_index(slot);
    if (slot_rekey[slot]) {
        if (pkey_mprotect(slot_page(slot), page_size, PROT_READ | PROT_WRITE, poison_keys[index]) != 0)
            return false;
        slot_rekey[slot] = 0;
    }
    keys_open |= 1u << index;
    return pkey_set(poison_keys[index], 0) == 0;
}

/* A free slot, readable and writable, or -1 (all busy, or no pages). */
static int take_slot(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, map_poison_pages);
    if (!poison_pages) return -1;
    for (unsigned tries = 0; tries < POISON_SLOTS; tries++) {
        unsigned slot = atomic_fetch_add(&next_slot, 1) % POISON_SLOTS;
        if (num_poison_keys && (keys_open & (1u << slot_key_index(slot)))) continue;
        if (atomic_exchange(&slot_busy[slot], true)) continue;
        if (open_slot(slot)) return (int)slot;
        atomic_store(&slot_busy[slot], false);
        return -1;
    }
    return -1;
}

static void poison_slot(int slot) {
    if (num_poison_keys) {
        unsigned index = slot_key_index((unsigned)slot);
        keys_open &= ~(1u << index);
        pkey_set(poison_keys[index], PKEY_DISABLE_ACCESS);
    } else {
        mprotect(slot_page((unsigned)slot), page_size, PROT_NONE);
    }
    atomic_store(&slot_busy[slot], false);
}

bool vmpi_strict_stale_read(const void *address) {
    const unsigned char *byte = address;
    if (!poison_pages || byte < poison_pages || byte >= poison_pages + POISON_SLOTS * page_size)
        return false;
    unsigned slot = (unsigned)((size_t)(byte - poison_pages) / page_size);
    if (!stale_read_pending) {
        stale_reader = vmpi_caller;
        stale_record_event = slot_event[slot];
        stale_read_pending = 1;
    }
    if (!num_poison_keys) return mprotect(slot_page(slot), page_size, PROT_READ | PROT_WRITE) == 0;
    slot_rekey[slot] = 1; /* key 0: open to every thread, whatever its key register holds */
    return pkey_mprotect(slot_page(slot), page_size, PROT_READ | PROT_WRITE, 0) == 0;
}

static void report_stale_read(void) {
    stale_read_pending = 0; /* reported once: JVM_SHUT_DOWN is still delivered */
    const char *record = vmpi_event_name(stale_record_event & ~VMPI_REQUESTED_EVENT);
    vmpi_breach(VMPI_RULE_STALE_RECORD, stale_reader, "read the record of an earlier %s",
                record ? record : "event");
}

/* ---- one strict delivery ------------------------------------------------------------- */

_Static_assert(sizeof(VMPI_Event) <= 4096, "an event record fits in one page");

void vmpi_strict_notify(VmpiAgent *agent, const VMPI_Event *event, VMPI_Event *answer) {
    bool suspended = vmpi_thread_suspended();
    uint64_t allocated_before = suspended ? thread_allocated_bytes() : 0;
    VMPI_Event on_stack;
    int slot = take_slot();
    VMPI_Event *copy = slot >= 0 ? slot_page((unsigned)slot) : &on_stack;
    *copy = *event;
    if (slot >= 0) slot_event[slot] = event->event_type;
    int watch = vmpi_hang_watch_begin(agent, event->event_type);
    agent->iface.NotifyEvent(copy);
    vmpi_hang_watch_end(watch);
    if (answer) *answer = *copy; /* before the poison: CLASS_LOAD_HOOK's reply */
    if (slot >= 0) poison_slot(slot);
    if (stale_read_pending) report_stale_read();
    if (suspended) {
        uint64_t allocated_after = thread_allocated_bytes();
        if (allocated_after > allocated_before)
            vmpi_breach(VMPI_RULE_SUSPENDED_ALLOCATION, agent, "%" PRIu64 " bytes allocated from the C heap",
                        allocated_after - allocated_before);
    }
}
