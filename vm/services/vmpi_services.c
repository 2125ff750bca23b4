/*
 * vmpi_services.c -- the VM's side of vmpi/vm_services.h: what VMPI may ask
 * of a running VM, answered from its threads, linked classes, program and
 * collector.  vm_create attaches it (vm_attach_vmpi) before any event.
 *
 * IDs are the VM's records: a thread's ID is its VMThread, a method's its
 * ProgMethod in program->methods (the pointers handed to post.h), a class's
 * its RtClass (link.c).  VMPI checks a thread ID against thread_at before
 * passing it here; a method ID it passes as the agent gave it, so
 * method_class looks it up in the method table and never follows it.
 *
 * A class index is vm_linked_class's (vm.h): below program->num_classes it
 * is also the program class's index, which holds the source file, methods,
 * statics and fields; String and the array classes have none of those.
 */
#include <stdlib.h>

#include "vm/internal.h"
#include "vm/interp/call_sites.h"
#include "vm/threads/monitor.h"
#include "vm/native/native_env.h"
#include "vm/threads/safepoint.h"
#include "vm/threads/scheduler.h"
#include "vmpi/control.h"
#include "vmpi/vm_services.h"

/* Casts that drop const: IDs are opaque pointers to the VM's records. */
#define THREAD_ID(p) ((VMPI_ThreadID)(uintptr_t)(p))
#define METHOD_ID(p) ((VMPI_MethodID)(uintptr_t)(p))

static const VMThread *thread_of(VMPI_ThreadID thread) { return (const VMThread *)thread; }

/* The program class behind class index `index`, or NULL for one the VM made. */
static const ProgClass *program_class(const VM *vm, uint32_t index) {
    return index < vm->program->num_classes ? &vm->program->classes[index] : NULL;
}

/* ---- threads -------------------------------------------------------------------- */

static VMPI_ThreadID current_thread(void *vm) {
    (void)vm;
    return THREAD_ID(vm_current_thread());
}

/* Called from agents' threads too: the table only grows and an entry is
 * in place before num_threads counts it (vm.h), so reading the count, then
 * the table, then an entry below the count reads a whole one. */
static uint32_t num_threads(void *vm) { return __atomic_load_n(&((const VM *)vm)->num_threads, __ATOMIC_ACQUIRE); }

static VMPI_ThreadID thread_at(void *vm, uint32_t index) {
    VMThread *const *threads = __atomic_load_n(&((const VM *)vm)->threads, __ATOMIC_ACQUIRE);
    return THREAD_ID(threads[index]);
}

static const char *thread_name(void *vm, VMPI_ThreadID thread) {
    (void)vm;
    return thread_of(thread)->name;
}

static const Obj *thread_object(void *vm, VMPI_ThreadID thread) {
    (void)vm;
    return thread_of(thread)->object;
}

static VMPI_ThreadID add_system_thread(void *vm, VMPI_ThreadID creator, const char *name) {
    (void)vm;
    return THREAD_ID(vm_thread_add_system((VMThread *)creator, name));
}

static VMPI_ThreadID thread_parent(void *vm, VMPI_ThreadID thread) {
    (void)vm;
    return THREAD_ID(thread_of(thread)->parent);
}

/* JVMPI 1.2's thread states: waiting to enter a monitor is MONITOR_WAIT;
 * waiting on one, sleeping and joining are CONDVAR_WAIT. */
static int32_t thread_state(const VMThread *t) {
    switch (vm_thread_state(t)) {
    case VM_THREAD_ENTERING: return VMPI_THREAD_MONITOR_WAIT;
    case VM_THREAD_WAITING: case VM_THREAD_SLEEPING: case VM_THREAD_JOINING: return VMPI_THREAD_CONDVAR_WAIT;
    default: return VMPI_THREAD_RUNNABLE;
    }
}

/* The state, with the INTERRUPTED bit while the thread's interrupted flag
 * is set (interrupt() set it, interrupted() has not cleared it). */
static int32_t thread_status(void *vm, VMPI_ThreadID thread) {
    (void)vm;
    const VMThread *t = thread_of(thread);
    return thread_state(t) | (vm_thread_is_interrupted(t) ? VMPI_THREAD_INTERRUPTED : 0);
}

static VmpiStackMark stack_mark(void *vm, VMPI_ThreadID thread) {
    (void)vm;
    const VMThread *t = thread_of(thread);
    return (VmpiStackMark){.depth = t->depth,
                           .top_pc = t->depth ? t->frames[t->depth - 1].pc : NULL,
                           .ref_top = t->rtop};
}

/* frame->pc points into the VM's linked copy of the code (frame->code), not
 * into ProgMethod.code, so the offset comes from vm_frame_offset; the line
 * is one load from the method's line table (vm.h, line_tables): an agent
 * may ask for a trace at every allocation. */
static int32_t frame_line(const VM *vm, const Frame *frame) {
    if (!frame->pc || !frame->code) return 0;
    uint32_t offset = vm_frame_offset(frame);
    if (offset >= frame->method->code_len) return 0;
    return (int32_t)vm->line_tables[frame->method - vm->program->methods][offset];
}

static int32_t call_trace(void *vm, VMPI_ThreadID thread, VMPI_CallFrame *frames, int32_t max_frames) {
    const VMThread *t = thread_of(thread);
    uint32_t n = t->depth < (uint32_t)max_frames ? t->depth : (uint32_t)max_frames;
    for (uint32_t k = 0; k < n; k++) {
        const Frame *frame = &t->frames[t->depth - 1 - k];
        frames[k].method_id = METHOD_ID(frame->method);
        frames[k].lineno = frame_line(vm, frame);
    }
    return (int32_t)n;
}

static bool enable_call_sites(void *vm, uint32_t depth) { return vm_call_sites_enable(vm, depth); }

static VMPI_CallSiteID call_site(void *vm, VMPI_ThreadID thread) {
    (void)vm;
    return vm_call_site_of(thread_of(thread));
}

static int32_t call_site_frames(void *vm, VMPI_CallSiteID site, VMPI_CallFrame *frames, int32_t max_frames) {
    return vm_call_site_frames(vm, site, frames, max_frames);
}

static bool leave_for_handler(void *vm) {
    (void)vm;
    VMThread *thread = vm_current_thread();
    return thread && vm_thread_leave_for_handler(thread);
}

static void return_from_handler(void *vm) {
    (void)vm;
    vm_thread_return_from_handler(vm_current_thread());
}

static void borrow_baton(void *vm) {
    (void)vm;
    vm_thread_borrow_baton(vm_current_thread());
}

static void lend_baton_back(void *vm) {
    (void)vm;
    vm_thread_lend_baton_back(vm_current_thread());
}

static bool lend_while_blocked(void *vm) {
    (void)vm;
    VMThread *thread = vm_current_thread();
    return thread && vm_thread_lend_while_blocked(thread);
}

static void take_back_after_block(void *vm) {
    (void)vm;
    vm_thread_take_back_after_block(vm_current_thread());
}

static void request_safepoint(void *vm, VmpiSafepointWork work) {
    (void)vm;
    static const struct { VmpiSafepointWork work; VmRequest request; } asked[] = {
        {VMPI_AT_SAFEPOINT_SUSPEND, VM_REQUEST_SUSPEND},
        {VMPI_AT_SAFEPOINT_RUN_GC, VM_REQUEST_RUN_GC},
        {VMPI_AT_SAFEPOINT_DATA_DUMP, VM_REQUEST_AGENT_DATA_DUMP},
        {VMPI_AT_SAFEPOINT_REDISPATCH, VM_REQUEST_DISPATCH},
        {VMPI_AT_SAFEPOINT_HOLD, VM_REQUEST_HOLD},
    };
    for (size_t i = 0; i < sizeof asked / sizeof asked[0]; i++)
        if (work & asked[i].work) vm_request(asked[i].request);
}

static void **local_storage(void *vm, VMPI_ThreadID thread) {
    (void)vm;
    return &((VMThread *)thread)->vmpi_local_storage;
}

static VmpiThreadSampler *heap_sampler(void *vm, VMPI_ThreadID thread) {
    (void)vm;
    return &((VMThread *)thread)->heap_sampler;
}

/* ---- classes and methods ---------------------------------------------------------- */

static uint32_t num_classes(void *vm) { return vm_num_linked_classes(vm); }

static const RtClass *class_at(void *vm, uint32_t index) { return vm_linked_class(vm, index); }

static bool class_index(void *vm, const void *class_id, uint32_t *index) {
    return vm_class_index(vm, class_id, index);
}

static void describe_class(void *vm, uint32_t index, VmpiClassOutline *outline) {
    const ProgClass *pc = program_class(vm, index);
    *outline = (VmpiClassOutline){.source_name = pc && pc->source_file ? pc->source_file : ""};
    if (!pc) return;
    outline->num_methods = pc->num_methods;
    outline->num_statics = pc->num_statics;
    outline->num_instance_fields = pc->num_fields;
}

/* A method's first and last source lines from its line table (sorted by pc,
 * so the last line is the largest, not the last entry); 0 when unknown. */
static void method_lines(const ProgMethod *m, int32_t *start, int32_t *end) {
    uint32_t first = 0, last = 0;
    for (uint32_t i = 0; i < m->num_lines; i++) {
        uint32_t line = m->lines[i].line;
        if (first == 0 || line < first) first = line;
        if (line > last) last = line;
    }
    *start = (int32_t)first;
    *end = (int32_t)last;
}

static void fill_field(VMPI_Field *out, const Program *p, const ProgField *f) {
    out->field_name = f->name;
    out->field_signature = p->types[f->type];
}

static void list_class_members(void *vm, uint32_t index, VMPI_Method *methods, VMPI_Field *statics,
                               VMPI_Field *instance_fields) {
    const ProgClass *pc = program_class(vm, index);
    if (!pc) return;
    const Program *p = ((const VM *)vm)->program;
    for (uint32_t i = 0; i < pc->num_methods; i++) {
        const ProgMethod *m = &p->methods[pc->methods[i]];
        methods[i].method_name = m->name;
        methods[i].method_signature = m->signature;
        method_lines(m, &methods[i].start_lineno, &methods[i].end_lineno);
        methods[i].method_id = METHOD_ID(m);
    }
    for (uint32_t i = 0; i < pc->num_statics; i++) fill_field(&statics[i], p, &p->statics[pc->statics[i]]);
    for (uint32_t i = 0; i < pc->num_fields; i++) fill_field(&instance_fields[i], p, &p->fields[pc->fields[i]]);
}

/* Compared as integers, since `method` may be any garbage an agent passes. */
static const RtClass *method_class(void *vm, VMPI_MethodID method) {
    const Program *p = ((const VM *)vm)->program;
    uintptr_t at = (uintptr_t)method, first = (uintptr_t)p->methods;
    uintptr_t size = sizeof *p->methods;
    if (at < first || at - first >= (uintptr_t)p->num_methods * size || (at - first) % size != 0) return NULL;
    return vm_linked_class(vm, p->methods[(at - first) / size].owner_class);
}

/* ---- heap dumps -------------------------------------------------------------------- */

/* A thread's reference stack, frame by frame: frame i owns the slots from
 * its rlocals up to the next frame's (the running frame's up to rtop).
 * Slots below the bottom frame's belong to no frame: the VM's own code
 * holds them for the thread (vm_run_main's argument array, before main's
 * frame exists).  rlocals never decreases from the bottom frame up (vm.h). */
static void enumerate_thread_roots(const VMThread *t, VmpiRootVisitor visit, void *ctx) {
    bool announced = vm_thread_announced(t);
    VmpiRoot root = {.thread = announced ? THREAD_ID(t) : NULL};
    Obj **slot = t->rstack;
    for (uint32_t next = 0; next <= t->depth; next++) {
        Obj **end = next < t->depth && t->frames[next].rlocals < t->rtop ? t->frames[next].rlocals : t->rtop;
        root.kind = !announced ? VMPI_ROOT_UNKNOWN : next == 0 ? VMPI_ROOT_NATIVE : VMPI_ROOT_FRAME;
        root.frame = t->depth - next; /* callee first */
        for (; slot < end; slot++) {
            if (!*slot) continue;
            root.object = *slot;
            visit(&root, ctx);
        }
    }
}

/* A native's global reference as a root: its slot is the reference. */
typedef struct RootVisit {
    VmpiRootVisitor visit;
    void *ctx;
} RootVisit;

static void visit_global_ref(Obj **slot, void *ctx) {
    const RootVisit *v = ctx;
    v->visit(&(VmpiRoot){.kind = VMPI_ROOT_GLOBAL_REF, .object = *slot, .handle = slot}, v->ctx);
}

typedef struct MonitorRoots {
    VmpiRootVisitor visit;
    void *ctx;
} MonitorRoots;

static void monitor_root(const VmMonitorInfo *info, void *ctx) {
    const MonitorRoots *roots = ctx;
    roots->visit(&(VmpiRoot){.kind = VMPI_ROOT_MONITOR, .object = *info->object}, roots->ctx);
}

/* The same slots as vm_enumerate_roots (roots.c), each with what holds it:
 * thread stacks, reference statics, the interned string constants, Thread
 * handles, the objects of monitors in use, natives' global references.  A
 * thread started that has not yet run is unknown to agents
 * (vm_thread_announced): its slots and its handle are roots of unknown
 * kind, with no thread. */
static void enumerate_roots(void *vm_arg, VmpiRootVisitor visit, void *ctx) {
    VM *vm = vm_arg;
    const Program *p = vm->program;
    for (uint32_t i = 0; i < vm->num_threads; i++) enumerate_thread_roots(vm->threads[i], visit, ctx);
    for (uint32_t i = 0; i < p->num_statics; i++) {
        const ProgField *f = &p->statics[i];
        if (!f->is_ref || !vm->ref_statics[f->slot]) continue;
        visit(&(VmpiRoot){.kind = VMPI_ROOT_STATIC, .object = vm->ref_statics[f->slot], .class_index = f->owner_class},
              ctx);
    }
    for (uint32_t i = 0; i < p->num_strings; i++) {
        Obj *const *slot = &vm->string_consts[i];
        if (*slot) visit(&(VmpiRoot){.kind = VMPI_ROOT_INTERNED, .object = *slot, .handle = slot}, ctx);
    }
    for (uint32_t i = 0; i < vm->num_threads; i++) {
        const VMThread *t = vm->threads[i];
        if (!t->object) continue;
        if (vm_thread_announced(t))
            visit(&(VmpiRoot){.kind = VMPI_ROOT_THREAD, .object = t->object, .thread = THREAD_ID(t)}, ctx);
        else
            visit(&(VmpiRoot){.kind = VMPI_ROOT_UNKNOWN, .object = t->object}, ctx);
    }
    MonitorRoots monitors = {visit, ctx};
    vm_monitors_each(vm, monitor_root, &monitors);
    RootVisit global = {visit, ctx};
    vm_visit_global_refs(vm_arg, visit_global_ref, &global);
}

/* Visits table[indexes[0 .. count)], fields or statics, whose values sit
 * in ref_slots[slot] or prim_slots[slot] by their kind. */
static void visit_values(const Program *p, const ProgField *table, const uint32_t *indexes, uint32_t count,
                         Obj *const *ref_slots, const uint64_t *prim_slots, VmpiValueVisitor visit, void *ctx) {
    for (uint32_t i = 0; i < count; i++) {
        const ProgField *f = &table[indexes[i]];
        VmpiValue value = {.signature = p->types[f->type], .is_ref = f->is_ref};
        if (f->is_ref)
            value.ref = ref_slots[f->slot];
        else
            value.prim = prim_slots[f->slot];
        visit(&value, ctx);
    }
}

static void class_static_values(void *vm_arg, uint32_t index, VmpiValueVisitor visit, void *ctx) {
    const VM *vm = vm_arg;
    const ProgClass *pc = program_class(vm, index);
    if (pc)
        visit_values(vm->program, vm->program->statics, pc->statics, pc->num_statics, vm->ref_statics,
                     vm->prim_statics, visit, ctx);
}

static void instance_field_values(void *vm_arg, const Obj *obj, VmpiValueVisitor visit, void *ctx) {
    const VM *vm = vm_arg;
    const ProgClass *pc = obj->cls->kind == CLASS_INSTANCE ? program_class(vm, obj->cls->program_index) : NULL;
    if (pc)
        visit_values(vm->program, vm->program->fields, pc->fields, pc->num_fields, obj_ref_field((Obj *)obj, 0),
                     obj_prim_field((Obj *)obj, 0), visit, ctx);
}

/* ---- monitor dumps ------------------------------------------------------------------ */

typedef struct MonitorDump {
    VM *vm;
    VmpiMonitorVisitor visit;
    void *ctx;
} MonitorDump;

/* The threads in `state` on `monitor`, into `out` (vm->num_threads room). */
static uint32_t held_up(const VM *vm, const VmMonitorInfo *info, VmThreadState state, VMPI_ThreadID *out) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < vm->num_threads; i++)
        if (vm_monitor_holds_up(vm->threads[i], info->monitor, state)) out[n++] = THREAD_ID(vm->threads[i]);
    return n;
}

static void dump_monitor(const VmMonitorInfo *info, void *ctx) {
    const MonitorDump *dump = ctx;
    VMPI_ThreadID *entering = calloc(2 * (size_t)dump->vm->num_threads + 1, sizeof *entering);
    if (!entering) return;
    VMPI_ThreadID *waiting = entering + dump->vm->num_threads;
    VmpiMonitorView view = {.object = *info->object, .owner = THREAD_ID(info->owner), .entries = info->count,
                            .entering = entering, .waiting = waiting};
    view.num_entering = held_up(dump->vm, info, VM_THREAD_ENTERING, entering);
    view.num_waiting = held_up(dump->vm, info, VM_THREAD_WAITING, waiting);
    dump->visit(&view, dump->ctx);
    free(entering);
}

static void each_monitor(void *vm, VmpiMonitorVisitor visit, void *ctx) {
    MonitorDump dump = {vm, visit, ctx};
    vm_monitors_each(vm, dump_monitor, &dump);
}

/* ---- the collector and the way out ------------------------------------------------- */

static Gc *collector(void *vm) { return ((const VM *)vm)->gc; }

static const char *collector_name(void *vm) {
    const GcOps *ops = ((const VM *)vm)->gc_ops;
    return ops ? ops->constraints->name : NULL;
}

static bool reference_object(void *vm, VMPI_JNIRef ref, const Obj **object) {
    const GlobalRef *g = vm_find_global_ref(vm, ref);
    if (g) *object = g->object;
    return g != NULL;
}

static VMPI_JNIRef reference_to(void *vm, const Obj *object) {
    GlobalRef *g = vm_global_ref_to(vm, object);
    return g ? (VMPI_JNIRef)&g->object : NULL; /* the handle the native got (native_env.c) */
}

static void exit_vm(void *vm, int status) { vm_exit(vm, status); }

static void print_stack_trace(void *vm) {
    (void)vm;
    const VMThread *thread = vm_current_thread();
    if (thread) vm_print_stack_trace(thread);
}

void vm_attach_vmpi(VM *vm) {
    VmpiVmServices services = {
        .vm = vm,
        .current_thread = current_thread,
        .num_threads = num_threads,
        .thread_at = thread_at,
        .thread_name = thread_name,
        .thread_object = thread_object,
        .thread_parent = thread_parent,
        .thread_status = thread_status,
        .add_system_thread = add_system_thread,
        .each_monitor = each_monitor,
        .stack_mark = stack_mark,
        .call_trace = call_trace,
        .local_storage = local_storage,
        .heap_sampler = heap_sampler,
        .request_safepoint = request_safepoint,
        /* NULL: handlers never leave, and dispatch.c tests only this. */
        .leave_for_handler = vm->concurrent_handlers ? leave_for_handler : NULL,
        .return_from_handler = return_from_handler,
        .borrow_baton = borrow_baton,
        .lend_baton_back = lend_baton_back,
        .lend_while_blocked = vm->concurrent_handlers ? lend_while_blocked : NULL,
        .take_back_after_block = take_back_after_block,
        .num_classes = num_classes,
        .class_at = class_at,
        .class_index = class_index,
        .describe_class = describe_class,
        .list_class_members = list_class_members,
        .method_class = method_class,
        .enumerate_roots = enumerate_roots,
        .class_static_values = class_static_values,
        .instance_field_values = instance_field_values,
        .reference_object = reference_object,
        .reference_to = reference_to,
        .collector = collector,
        .collector_name = collector_name,
        .exit_vm = exit_vm,
        .print_stack_trace = print_stack_trace,
        .enable_call_sites = enable_call_sites,
        .call_site = call_site,
        .call_site_frames = call_site_frames,
    };
    vmpi_attach_vm(&services);
}
