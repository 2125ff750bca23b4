/*
 * vm.h -- one running program: its linked classes, statics, threads and
 * collector.
 *
 * All interpreter state is per thread (VMThread), never global: a program
 * may start threads, which the scheduler runs one at a time
 * (vm/threads/scheduler.c).  A thread owns two stacks:
 *
 *   pstack  8-byte primitives: every frame's primitive locals and operands
 *   rstack  object references: every frame's reference locals and operands
 *
 * Every slot of rstack below rtop is a root, and nothing else in a thread is
 * (see opcodes.h).  The interpreter keeps its stack tops in machine registers
 * and writes rtop back before every safepoint (an instruction that may
 * allocate), so a collector that runs there sees exactly the live slots.
 */
#ifndef GCLAB_VM_H
#define GCLAB_VM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gc/gc.h"
#include "gc/object.h"
#include "program.h"
#include "vmpi/vm_services.h"

typedef struct Frame {
    const ProgMethod *method;
    /* The code the frame runs: the VM's copy of method->code, rewritten with
     * superinstructions (vm/link/quicken.h) but with the same offsets. */
    const uint8_t *code;
    /* Current instruction in `code` (saved at calls and safepoints); its
     * offset in the method is vm_frame_offset(frame). */
    const uint8_t *pc;
    uint64_t *plocals;      /* first primitive local */
    Obj **rlocals;          /* first reference local */
    /* Its calling context while an agent asks for call sites
     * (vm/interp/call_sites.h); unset otherwise. */
    const struct CallSiteNode *site_node;
} Frame;

/* The offset in frame->method->code of the frame's current instruction
 * (for line numbers: program_line_of). */
static inline uint32_t vm_frame_offset(const Frame *frame) { return (uint32_t)(frame->pc - frame->code); }

typedef struct VM VM;

typedef struct VMThread {
    VM *vm;
    uint32_t id;            /* 1 for main */
    const char *name;
    uint64_t *pstack, *pstack_end;
    Obj **rstack, **rstack_end;
    Obj **rtop;             /* roots are [rstack, rtop) */
    uint64_t *ptop;         /* primitive stack top, saved with rtop (not a root) */
    Frame *frames;          /* frames[0 .. depth) ; frames[depth-1] is running */
    uint32_t depth, max_depth;
    void *vmpi_local_storage; /* VMPI Set/GetThreadLocalStorage */
    VmpiThreadSampler heap_sampler; /* VMPI heap sampling's gaps (vmpi/vm_services.h) */
    /* Threads in the language (vm/threads/scheduler.h) */
    Obj *object;            /* the Thread handle, or NULL (main, before a thread starts); a root */
    struct VMThread *parent;/* the thread that started it; NULL for main */
    struct VmThreadSched *sched; /* the scheduler's record, NULL while the VM has one thread
                                    and for an agent's system thread, which it never runs */
    char *system_name;      /* an agent's system thread's name (`name`), owned by the record */
} VMThread;

/* What a call needs to know about its callee, gathered when the program is
 * linked so that CALL reads one small record instead of a ProgMethod. */
typedef struct LinkedMethod {
    const ProgMethod *method;
    const uint8_t *code;    /* the VM's copy of method->code, with superinstructions */
    uint32_t num_prim_args, num_ref_args;
    uint32_t num_prim_locals, num_ref_locals;
    /* Bytes of stack a frame needs (locals + max operand depth), so that
     * CALL compares them with the room left without scaling. */
    uint32_t pstack_need_bytes, rstack_need_bytes;
    bool has_receiver;                   /* an instance method: ref arg 0 must not be null */
    bool has_more_locals;                /* locals beyond the arguments, which a call clears */
    /* What CALL runs out of line when has_out_of_line_entry: clear the
     * locals beyond the arguments (vm_enter_clearing_locals) and, while an
     * agent asks for call sites, give the callee's frame its node too
     * (vm_enter_with_call_site, set in every method at once: call_sites.h). */
    void (*enter_out_of_line)(const struct LinkedMethod *callee, Frame *caller, uint64_t *pl, Obj **rl);
    bool has_out_of_line_entry;
    bool has_entry_work;                 /* a receiver or out-of-line entry: CALL's one test when none */
} LinkedMethod;

typedef struct VMOptions {
    const char *gc_name;
    GcConfig gc;            /* heap sizes, stress, verify, log; roots filled by vm_create */
    /* --seed: repeatable runs (vm_create reserves the fixed-address heap,
     * gc/common/fixed.h); `seed` seeds the VM's random choices: heap
     * sampling's gaps (vmpi/runtime/heap_sampling.h). */
    bool seeded;
    uint64_t seed;
    bool plain_code;        /* run the code as loaded, without superinstructions (tests) */
    bool no_native;         /* --no-native: refuse a program that declares natives */
    bool one_at_a_time;     /* --one-at-a-time: agents' handlers of different threads
                               never run at once, as under --seed (scheduler.h) */
} VMOptions;

struct VM {
    Program *program;
    const char *program_path;   /* for messages */
    Gc *gc;
    const GcOps *gc_ops;
    /* Linked classes: one RtClass per program class, String, and every array
     * type the program names; type_class[t] for each L or [ type index. */
    RtClass *classes;           /* program->num_classes */
    RtClass string_class;
    RtClass thread_class;       /* Thread handles (scheduler.h), linked if uses_threads */
    bool uses_threads;          /* the program names Thread or starts a thread */
    RtClass *array_classes;     /* one per array type in program->types */
    uint32_t num_array_classes;
    const RtClass **type_class; /* program->num_types; NULL for primitive types */
    /* Linked code: linked_methods[i] for program->methods[i]; field_offsets[f]
     * is the byte offset of instance field f from the start of its object. */
    LinkedMethod *linked_methods;
    uint32_t *field_offsets;
    /* line_tables[i][offset]: the source line of each instruction of
     * program->methods[i] (program_line_table), for call traces.  Apart
     * from linked_methods so that CALL's records stay small. */
    uint32_t **line_tables;
    /* Roots outside threads. */
    Obj **string_consts;        /* program->num_strings interned literals */
    Obj **ref_statics;          /* program->num_ref_statics */
    uint64_t *prim_statics;     /* program->num_prim_statics */
    /* Every thread, in start order.  Read by agents' threads too (VMPI's
     * thread calls), so the table only grows: a full one is copied into
     * one twice its size and kept, not freed, until the VM ends
     * (retired_threads), and num_threads is stored after the new entry,
     * with release order (vm_thread_new). */
    VMThread **threads;
    uint32_t num_threads;
    uint32_t threads_capacity;
    VMThread **retired_threads[32];
    uint32_t num_retired_threads;
    struct VmScheduler *scheduler; /* scheduler.c: made when a second thread starts */
    struct VmGcThread *gc_thread;  /* vm/threads/gc_thread.c: where collections run, from the first */
    bool seeded;                   /* --seed, and its value: the scheduler's slices and clock */
    bool concurrent_handlers;      /* neither --seed nor --one-at-a-time: handlers overlap */
    uint64_t seed;
    struct VmMonitors *monitors;   /* monitor.c: the monitors in use, made at the first MONENTER */
    /* program->num_natives bound natives (vm/native/native.h), for CALLN. */
    struct NativeBinding *natives;
    /* Natives' global references, roots, and weak global references
     * (vm/native/native_env.h). */
    struct GlobalRef *global_refs, *weak_global_refs;
};

/* Every linked class has an index, used by CLASS_LOAD
 * (vmpi_send_class_load's class_index) and heap walkers:
 *   0 .. program->num_classes-1   the program's classes (vm->classes)
 *   program->num_classes          String (vm->string_class)
 *   after that                    vm->array_classes, in order
 * A class ID is the address of its RtClass: RtClasses live outside the
 * collected heap for the VM's whole life, so class IDs never change
 * (docs/architecture.md, "Object, class and arena IDs"). */
uint32_t vm_num_linked_classes(const VM *vm);
/* Links the Thread class, posting its CLASS_LOAD, if the program did not
 * (an agent's system thread needs a Thread handle; link.c). */
void vm_link_thread_class(VM *vm);
const RtClass *vm_linked_class(const VM *vm, uint32_t index);

/* The inverse of vm_linked_class: if `class_id` is the address of one of this
 * VM's RtClasses, sets *index to its index and returns true; otherwise
 * (any other pointer, even a garbage one) returns false. */
bool vm_class_index(const VM *vm, const void *class_id, uint32_t *index);

/* Links `program` (already verified), creates the collector named in opts,
 * posts start-up events, allocates interned strings.  On failure prints one
 * message to stderr and returns NULL. */
VM *vm_create(Program *program, const char *program_path, const VMOptions *opts);
void vm_destroy(VM *vm);

/* Runs main in the main thread and returns the program's exit status. */
int vm_run_main(VM *vm, int argc, char **argv);

/* The thread running now (one per OS thread), or NULL on a thread the VM
 * does not run: an agent's system thread, or after main has returned (its
 * THREAD_END has been posted). */
VMThread *vm_current_thread(void);

/* The root enumerator handed to the collector: every slot in every thread's
 * rstack below rtop, reference statics and interned strings.  Slots holding
 * null are skipped, so the visitor only ever sees slots holding objects. */
void vm_enumerate_roots(void *vm, GcSlotVisitor visit, void *ctx);

/* Hands VMPI this VM's services (vmpi/vm_services.h, answered by
 * vm/services/vmpi_services.c): what its interface functions may read of the
 * VM's threads, classes and collector.  vm_create calls it before any event
 * is posted; vmpi_attach_vm(NULL) (vmpi/control.h) detaches. */
void vm_attach_vmpi(VM *vm);

/* Makes SIGINT and SIGTERM stop the VM at its next safepoint (posting
 * JVM_SHUT_DOWN, exit status 128 + the signal), and a second one exit at
 * once; SIGQUIT print the stack trace and post DATA_DUMP_REQUEST, and
 * SIGUSR2 post DATA_RESET_REQUEST, at the next safepoint, the program going
 * on (vm/threads/safepoint.c).  False if a handler cannot be installed. */
bool vm_install_signal_handlers(void);

/* Shuts down agents and exits with `status`: the one way out of the VM, so
 * that no agent output is lost or half-written. */
_Noreturn void vm_exit(VM *vm, int status);

#endif
