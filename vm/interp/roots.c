/*
 * roots.c -- the VM's precise root set, handed to the collector.
 *
 * Invariant: outside the collected heap, object addresses live only in
 *   - each thread's reference stack below rtop (locals and operands),
 *   - the reference statics,
 *   - the interned string constants,
 *   - each thread's Thread handle (scheduler.h) and the object of each
 *     monitor in use (monitor.h),
 *   - natives' global references (native_env.h; the weak ones are not
 *     roots: the collector gets them through GcRoots.enumerate_weak).
 * The interpreter keeps nothing else across a safepoint, so visiting these
 * slots (and letting a moving collector rewrite them) is the whole story.
 *
 * Heap dumps list the same slots, each with what holds it -- a frame, the
 * VM's own code below every frame, a class's static, the table of interned
 * strings -- through vmpi_services.c's enumerate_roots: a slot added here
 * must be classified there too (docs/event-mapping.md, "Heap dumps").
 */
#include "vm/internal.h"
#include "vm/threads/monitor.h"

typedef struct MonitorRoots {
    GcSlotVisitor visit;
    void *ctx;
} MonitorRoots;

static void visit_monitor(const VmMonitorInfo *info, void *ctx) {
    const MonitorRoots *roots = ctx;
    roots->visit(info->object, roots->ctx);
}
#include "vm/native/native_env.h"

static void visit_range(Obj **from, Obj **to, GcSlotVisitor visit, void *ctx) {
    for (Obj **slot = from; slot < to; slot++)
        if (*slot) visit(slot, ctx);
}

void vm_enumerate_roots(void *vm_arg, GcSlotVisitor visit, void *ctx) {
    VM *vm = vm_arg;
    for (uint32_t i = 0; i < vm->num_threads; i++)
        visit_range(vm->threads[i]->rstack, vm->threads[i]->rtop, visit, ctx);
    visit_range(vm->ref_statics, vm->ref_statics + vm->program->num_ref_statics, visit, ctx);
    visit_range(vm->string_consts, vm->string_consts + vm->program->num_strings, visit, ctx);
    for (uint32_t i = 0; i < vm->num_threads; i++)
        if (vm->threads[i]->object) visit(&vm->threads[i]->object, ctx);
    MonitorRoots monitors = {visit, ctx};
    vm_monitors_each(vm, visit_monitor, &monitors);
    vm_visit_global_refs(vm, visit, ctx);
}
