/*
 * control.h -- how vmrun and the VM drive VMPI: loading agents, telling VMPI
 * which VM it serves, and the start-up and shut-down events.  Internal.
 *
 * Order of a run (JVMPI 1.2 section 1.1):
 *   vmpi_load_agent() for each -agentlib / -agentpath, in command-line order
 *   vmpi_send_class_load_hook() with the program's .bc image, if enabled
 *   vm_create()  -> vmpi_attach_vm(services); collector posts ARENA_NEW;
 *                   THREAD_START for main; CLASS_LOAD for every class
 *   vmpi_post_jvm_init_done()
 *   ... the program runs ...
 *   vmpi_shutdown()  -> JVM_SHUT_DOWN, once, then agents are unloaded
 */
#ifndef GCLAB_VMPI_CONTROL_H
#define GCLAB_VMPI_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct VmpiVmServices;
struct VMPI_Event;
struct VMPI_Interface;
struct VMPI_VM;

/* Loads one agent.  `spec` is what followed "-agentlib:" or "-agentpath:":
 * "NAME[=OPTIONS]" or "PATH[=OPTIONS]".  A NAME is looked up as libNAME.so in
 * the agent directory beside vmrun (../lib/gclab relative to the executable),
 * then through the dynamic loader's search path.  Calls VMPI_OnLoad.  On
 * failure writes one message into err ("agent 'x': ...") and returns false. */
bool vmpi_load_agent(const char *spec, bool is_path, char *err, size_t errsize);

/* JVMPI 1.2, CLASS_LOAD_HOOK, with the whole program's .bc image (vmpi.h
 * says why): offered to each agent that enabled the event, in load order,
 * each getting the image the one before it left.  *image is malloc'd and
 * *len its length; when an agent replaces it, `accept` is called with the
 * replacement and the agent's name, to load and verify it.  If `accept`
 * refuses (having printed why) or the agent's answer is unusable (a
 * message naming the agent says how), the hook stops and returns false.
 * Otherwise *image and *len become the last image accepted. */
typedef bool (*VmpiImageCheck)(const uint8_t *image, size_t len, const char *agent, void *ctx);
bool vmpi_send_class_load_hook(uint8_t **image, size_t *len, VmpiImageCheck accept, void *ctx);

/* Whether some agent enabled CLASS_LOAD_HOOK. */
bool vmpi_class_load_hook_enabled(void);

/* Gives VMPI the services of the VM whose threads, classes and collector
 * its interface functions act on (vm_services.h; the table is copied).
 * Called by vm_create before any event is posted; NULL detaches. */
void vmpi_attach_vm(const struct VmpiVmServices *services);

/* Seeds heap sampling's random gaps (heap_sampling.h) with --seed's N, so
 * that a run repeats its samples; NULL (no --seed) seeds them from the
 * system's entropy, so that they vary.  vm_create calls it. */
void vmpi_seed_heap_sampling(const uint64_t *seed);

/* Posts JVM_SHUT_DOWN (once; later calls do nothing) and unloads agents.
 * vm_exit calls this, so every way out of the VM runs it. */
void vmpi_shutdown(void);

/* Links an agent into the program: -agentlib:NAME then runs `on_load` as
 * a library's VMPI_OnLoad, without looking for a library (agent_load.c).
 * For a build with no dlopen (the browser's, docs/lab.md); false if the
 * table of them is full. */
bool vmpi_add_builtin_agent(const char *name, int32_t (*on_load)(struct VMPI_VM *vm, char *options, void *reserved));

/* Registers an in-process agent (tests, built-in tools): as if a library's
 * VMPI_OnLoad had set NotifyEvent = notify.  Returns its interface, through
 * which it enables events, or NULL. */
struct VMPI_Interface *vmpi_register_listener(void (*notify)(struct VMPI_Event *event));

/* --vmpi-strict: every breach of the agent contract (a bad argument, a
 * call in the wrong mode, allocating or blocking in thread-suspended mode,
 * reading a record after NotifyEvent returned, DisableGC unbalanced at
 * shutdown) ends the VM with status 1, through its normal exit, instead of
 * a warning or nothing (strict.h, docs/contracts.md). */
void vmpi_set_strict(bool on);

/* --vmpi-hang-limit: in strict mode, a NotifyEvent that has not returned
 * after this many seconds ends the run with a report of every thread in a
 * handler (status 1); 0 never does. */
#define VMPI_DEFAULT_HANG_LIMIT_S 10u
void vmpi_set_hang_limit(unsigned seconds);

/* --record=FILE: VMPI itself writes the binary recording of the events
 * -agentlib:trace=format=binary writes, to FILE, byte for byte the same
 * (vmpi/runtime/recorder.h).  Call before the VM is created.  On failure
 * writes one message into err and returns false. */
bool vmpi_start_recording(const char *file, char *err, size_t errsize);

/* The name of an agent whose DisableGC is not yet matched by EnableGC
 * ("?" if the call came from an agent's own thread with several loaded),
 * or NULL: for the VM's out-of-memory message. */
const char *vmpi_gc_disabled_by(void);

/* True if any agent is loaded. */
bool vmpi_any_agent(void);

#endif
