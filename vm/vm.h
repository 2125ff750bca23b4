/*
 * vm.h -- one running program: its linked classes, statics, threads and
 * collector.
 *
 * All interpreter state is per thread (VMThread), never global, so that a
 * second thread needs no rewrite.  A thread owns two stacks:
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

#include "../gc/gc.h"
#include "object.h"
#include "program.h"

typedef struct Frame {
    const ProgMethod *method;
    const uint8_t *pc;      /* current instruction (saved at calls and safepoints) */
    uint64_t *plocals;      /* first primitive local */
    Obj **rlocals;          /* first reference local */
} Frame;

typedef struct VM VM;

typedef struct VMThread {
    VM *vm;
    uint32_t id;            /* 1 for main */
    const char *name;
    uint64_t *pstack, *pstack_end;
    Obj **rstack, **rstack_end;
    Obj **rtop;             /* roots are [rstack, rtop) */
    Frame *frames;          /* frames[0 .. depth) ; frames[depth-1] is running */
    uint32_t depth, max_depth;
    void *vmpi_local_storage; /* VMPI Set/GetThreadLocalStorage */
} VMThread;

typedef struct VMOptions {
    const char *gc_name;
    GcConfig gc;            /* heap sizes, stress, verify, log; roots filled by vm_create */
    uint64_t seed;
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
    RtClass *array_classes;     /* one per array type in program->types */
    uint32_t num_array_classes;
    const RtClass **type_class; /* program->num_types; NULL for primitive types */
    /* Roots outside threads. */
    Obj **string_consts;        /* program->num_strings interned literals */
    Obj **ref_statics;          /* program->num_ref_statics */
    uint64_t *prim_statics;     /* program->num_prim_statics */
    VMThread **threads;
    uint32_t num_threads;
    /* The program's command line: main(string[] args). */
    int argc;
    char **argv;
    int exit_status;
};

/* Links `program` (already verified), creates the collector named in opts,
 * posts start-up events, allocates interned strings.  On failure prints one
 * message to stderr and returns NULL. */
VM *vm_create(Program *program, const char *program_path, const VMOptions *opts);
void vm_destroy(VM *vm);

/* Runs main in the main thread and returns the program's exit status. */
int vm_run_main(VM *vm, int argc, char **argv);

/* The thread running now (one per OS thread). */
VMThread *vm_current_thread(void);

/* The root enumerator handed to the collector: every slot in every thread's
 * rstack below rtop, reference statics and interned strings. */
void vm_enumerate_roots(void *vm, GcSlotVisitor visit, void *ctx);

/* Prints `message` and the current thread's stack trace to stderr, flushes
 * and shuts down agents (JVM_SHUT_DOWN), and exits with status 1. */
_Noreturn void vm_runtime_error(VMThread *thread, const char *message);

/* Shuts down agents and exits with `status`: the one way out of the VM, so
 * that no agent output is lost or half-written. */
_Noreturn void vm_exit(VM *vm, int status);

#endif
