/*
 * link.c -- turning a verified Program into a running VM: runtime classes,
 * statics, linked methods and field offsets, the collector, the main thread,
 * the start-up events and the interned strings.
 *
 * Invariant: everything vm_create builds outside the heap (RtClasses, the
 * linked tables, the statics and string-constant arrays) stays at one
 * address until vm_destroy.  That is what lets a class ID be the address of
 * its RtClass, and lets roots.c hand out slots of those arrays.
 *
 * Each method runs from the VM's own copy of its code, rewritten with
 * superinstructions (quicken.h); offsets in the copy are those of the
 * method's code.
 *
 * Start-up order (vmpi/control.h, JVMPI 1.2 section 1.1, and rule 8 of the
 * event contract in docs/contracts.md: defining events first):
 *   vm_attach_vmpi, then the collector (it posts ARENA_NEW), then the main
 *   thread (THREAD_START), then CLASS_LOAD for every linked class, then the
 *   interned strings (their OBJECT_ALLOCs name the String class).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/opcodes.h"
#include "vm/internal.h"
#include "vm/interp/call_sites.h"
#include "vm/threads/monitor.h"
#include "vm/native/native.h"
#include "vm/native/native_env.h"
#include "quicken.h"
#include "vm/threads/scheduler.h"
#include "vmpi/control.h"
#include "vmpi/post.h"
#include "vm/threads/gc_thread.h"

uint32_t vm_num_linked_classes(const VM *vm) {
    return vm->program->num_classes + 1 + vm->num_array_classes + (vm->uses_threads ? 1 : 0);
}

const RtClass *vm_linked_class(const VM *vm, uint32_t index) {
    uint32_t num_classes = vm->program->num_classes;
    if (index < num_classes) return &vm->classes[index];
    if (index == num_classes) return &vm->string_class;
    index -= num_classes + 1;
    if (index < vm->num_array_classes) return &vm->array_classes[index];
    return index == vm->num_array_classes && vm->uses_threads ? &vm->thread_class : NULL;
}

void vm_link_thread_class(VM *vm) {
    if (vm->uses_threads) return;
    vm->uses_threads = true; /* the class comes last: no other index moves */
    vmpi_post_class_load(vm_num_linked_classes(vm) - 1);
}

/* calloc that never returns NULL for an empty table, so that `table + 0`
 * is always a valid pointer. */
static void *alloc_table(size_t count, size_t size) { return calloc(count ? count : 1, size); }

/* The same for a table of records whose addresses are VMPI IDs (the class
 * tables): under --seed they go in the fixed-address heap, so the IDs
 * repeat from run to run (gc/common/fixed.h).  Freed by gc_record_free. */
static void *alloc_id_table(size_t count, size_t size) { return gc_record_calloc(count ? count : 1, size); }

static void set_class_id(RtClass *cls) { cls->class_id = (uint64_t)(uintptr_t)cls; }

/* ---- array classes -------------------------------------------------------- */

/* The names link_classes looks up: one array class per distinct array
 * descriptor, numbered in first-seen order -- every "[..." in the type
 * table, plus the element types of those (a "[[J" needs a "[J" class as its
 * element class even if the program never names "[J" itself) -- and the
 * program's classes by name.  Both are sorted once, so that linking is not
 * quadratic in the number of classes. */
typedef struct LinkNames {
    const char **array_descs;   /* array class i is array_descs[i] */
    uint32_t num_array_descs;
    ProgNamed *arrays_by_desc;  /* the same, sorted, each with its array class index */
    ProgClassIndex classes;
} LinkNames;

static void free_link_names(LinkNames *names) {
    free(names->array_descs);
    free(names->arrays_by_desc);
    program_class_index_free(&names->classes);
}

/* Collects the distinct array descriptors of p's types; false if out of memory. */
static bool collect_array_descs(const Program *p, LinkNames *names) {
    uint32_t n = 0;
    for (uint32_t t = 0; t < p->num_types; t++)
        for (const char *d = p->types[t]; *d == '['; d++) n++;
    const char **descs = alloc_table(n, sizeof *descs);
    ProgNamed *sorted = alloc_table(n, sizeof *sorted);
    uint32_t *class_of = alloc_table(n, sizeof *class_of); /* per occurrence */
    names->array_descs = descs;
    names->arrays_by_desc = sorted;
    if (!descs || !sorted || !class_of) {
        free(class_of);
        return false;
    }
    /* Every occurrence, in order... */
    n = 0;
    for (uint32_t t = 0; t < p->num_types; t++) {
        for (const char *d = p->types[t]; *d == '['; d++) {
            descs[n] = d;
            sorted[n] = (ProgNamed){d, n};
            n++;
        }
    }
    /* ...the first occurrence of each descriptor, found by sorting (equal
     * descriptors sort by occurrence)... */
    program_sort_names(sorted, n);
    uint32_t distinct = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i > 0 && strcmp(sorted[i - 1].name, sorted[i].name) == 0) continue;
        class_of[sorted[i].index] = 1;
        sorted[distinct++] = sorted[i];
    }
    /* ...and those numbered in order. */
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!class_of[i]) continue;
        class_of[i] = count;
        descs[count++] = descs[i];
    }
    for (uint32_t i = 0; i < distinct; i++) sorted[i].index = class_of[sorted[i].index];
    names->num_array_descs = count;
    free(class_of);
    return true;
}

/* The class named by an "LName;" descriptor, or NULL. */
static const RtClass *instance_class_of(const VM *vm, const LinkNames *names, const char *desc) {
    if (type_is_string(desc)) return &vm->string_class;
    if (type_is_thread(desc)) return &vm->thread_class;
    size_t len = strlen(desc);
    if (len < 3 || desc[0] != 'L' || desc[len - 1] != ';') return NULL;
    uint32_t c = program_find_class(&names->classes, desc + 1, len - 2);
    return c == PROG_NONE ? NULL : &vm->classes[c];
}

/* The runtime class of a reference descriptor, or NULL. */
static const RtClass *ref_class_of(const VM *vm, const LinkNames *names, const char *desc) {
    if (desc[0] == '[') {
        uint32_t i = program_find_name(names->arrays_by_desc, names->num_array_descs, desc, strlen(desc));
        return i == PROG_NONE ? NULL : &vm->array_classes[i];
    }
    return instance_class_of(vm, names, desc);
}

/* The runtime name of a well-formed array descriptor ("[[J" -> "int[][]",
 * "[LString;" -> "String[]"), or NULL if out of memory. */
static char *array_class_name(const char *desc) {
    /* Each '[' becomes "[]", an element letter at most "double", and
     * "LString;" "String": never more than twice the descriptor. */
    size_t size = 2 * strlen(desc) + sizeof "double";
    char *name = malloc(size);
    return name ? (char *)type_language_name(desc, "String", name, size) : NULL;
}

/* Why linking failed: a message naming what is wrong ("out of memory", or
 * the descriptor and its problem). */
typedef struct LinkError {
    char text[160];
} LinkError;

static bool link_fail(LinkError *why, const char *reason, const char *desc) {
    if (desc) snprintf(why->text, sizeof why->text, "type \"%.60s\": %s", desc, reason);
    else snprintf(why->text, sizeof why->text, "%s", reason);
    return false;
}

/* Fills array class i from its descriptor.  The classes of all descriptors
 * in `names` already have their addresses, so an element class may be one
 * that is filled later. */
static bool link_array_class(VM *vm, const LinkNames *names, uint32_t i, LinkError *why) {
    RtClass *cls = &vm->array_classes[i];
    const char *elem = names->array_descs[i] + 1;
    cls->kind = CLASS_ARRAY;
    cls->program_index = UINT32_MAX;
    if (type_is_ref(elem)) {
        cls->elem_kind = ELEM_REF;
        cls->elem_size = OBJ_REF_BYTES; /* room for each; the slots are Obj *s (object.h) */
        cls->elem_class = ref_class_of(vm, names, elem);
        if (!cls->elem_class) return link_fail(why, "an array of a class the program does not define", names->array_descs[i]);
    } else {
        const PrimType *prim = prim_type_of(elem[0]);
        if (!prim) return link_fail(why, "an array of a type that is not a value type", names->array_descs[i]);
        cls->elem_kind = prim->elem_kind;
        cls->elem_size = prim->elem_size;
    }
    cls->name = array_class_name(names->array_descs[i]);
    if (!cls->name) return link_fail(why, "out of memory", NULL);
    set_class_id(cls);
    return true;
}

/* ---- linking ------------------------------------------------------------ */

/* A program that names the Thread type or starts a thread. */
static bool program_uses_threads(const Program *p) {
    for (uint32_t t = 0; t < p->num_types; t++)
        if (strstr(p->types[t], "LThread;")) return true;
    for (uint32_t i = 0; i < p->num_methods; i++) {
        const ProgMethod *m = &p->methods[i];
        for (uint32_t pc = 0; pc < m->code_len; pc += op_size(m->code[pc]))
            if (m->code[pc] == OP_START) return true;
    }
    return false;
}

static bool link_classes(VM *vm, LinkError *why) {
    const Program *p = vm->program;
    vm->classes = alloc_id_table(p->num_classes, sizeof *vm->classes);
    vm->type_class = alloc_table(p->num_types, sizeof *vm->type_class);
    if (!vm->classes || !vm->type_class) return link_fail(why, "out of memory", NULL);
    for (uint32_t i = 0; i < p->num_classes; i++) {
        RtClass *cls = &vm->classes[i];
        cls->name = p->classes[i].name;
        cls->kind = CLASS_INSTANCE;
        cls->elem_kind = ELEM_NONE;
        cls->num_ref_fields = p->classes[i].num_ref_fields;
        cls->num_prim_fields = p->classes[i].num_prim_fields;
        cls->program_index = i;
        set_class_id(cls);
    }
    vm->string_class = (RtClass){.name = "String", .kind = CLASS_STRING, .program_index = UINT32_MAX};
    set_class_id(&vm->string_class);
    /* Thread handles (scheduler.h): one hidden primitive field, the thread's
     * index in vm->threads.  Linked, and so loaded, only by a program that
     * starts threads, so other programs' event streams do not change, or
     * once an agent makes a system thread (vm_link_thread_class). */
    vm->thread_class = (RtClass){.name = "Thread", .kind = CLASS_INSTANCE, .num_prim_fields = 1,
                                 .program_index = UINT32_MAX};
    set_class_id(&vm->thread_class);
    vm->uses_threads = program_uses_threads(p);

    LinkNames names = {0};
    bool ok = collect_array_descs(p, &names) && program_class_index_init(&names.classes, p);
    if (ok) vm->array_classes = alloc_id_table(names.num_array_descs, sizeof *vm->array_classes);
    if (!ok || !vm->array_classes) ok = link_fail(why, "out of memory", NULL);
    for (uint32_t i = 0; ok && i < names.num_array_descs; i++) {
        ok = link_array_class(vm, &names, i, why);
        if (ok) vm->num_array_classes = i + 1;
    }
    for (uint32_t t = 0; ok && t < p->num_types; t++) {
        /* Object (any reference, a native's parameter) has no class of its own. */
        if (!type_is_ref(p->types[t]) || type_is_any_ref(p->types[t])) continue;
        vm->type_class[t] = ref_class_of(vm, &names, p->types[t]);
        if (!vm->type_class[t]) ok = link_fail(why, "names a class the program does not define", p->types[t]);
    }
    free_link_names(&names);
    return ok;
}

/* The VM's copy of a method's code, quickened unless `plain`. */
static uint8_t *link_method_code(const ProgMethod *m, bool plain) {
    uint8_t *code = malloc(m->code_len ? m->code_len : 1);
    if (!code) return NULL;
    memcpy(code, m->code, m->code_len);
    if (!plain) vm_quicken(code, m->code_len);
    return code;
}

static bool link_code(VM *vm, bool plain_code, LinkError *why) {
    const Program *p = vm->program;
    vm->linked_methods = alloc_table(p->num_methods, sizeof *vm->linked_methods);
    vm->field_offsets = alloc_table(p->num_fields, sizeof *vm->field_offsets);
    vm->line_tables = alloc_table(p->num_methods, sizeof *vm->line_tables);
    if (!vm->linked_methods || !vm->field_offsets || !vm->line_tables)
        return link_fail(why, "out of memory", NULL);
    for (uint32_t i = 0; i < p->num_methods; i++) {
        const ProgMethod *m = &p->methods[i];
        uint8_t *code = link_method_code(m, plain_code);
        vm->line_tables[i] = program_line_table(m);
        if (!code || !vm->line_tables[i]) {
            free(code);
            return link_fail(why, "out of memory", NULL);
        }
        vm->linked_methods[i] = (LinkedMethod){
            .method = m,
            .code = code,
            .num_prim_args = m->num_prim_args,
            .num_ref_args = m->num_ref_args,
            .num_prim_locals = m->num_prim_locals,
            .num_ref_locals = m->num_ref_locals,
            .pstack_need_bytes = (m->num_prim_locals + m->max_pstack) * (uint32_t)sizeof(uint64_t),
            .rstack_need_bytes = (m->num_ref_locals + m->max_rstack) * (uint32_t)sizeof(Obj *),
            .has_receiver = !m->is_static,
            .has_more_locals = m->num_prim_locals > m->num_prim_args || m->num_ref_locals > m->num_ref_args,
        };
        LinkedMethod *lm = &vm->linked_methods[i];
        lm->has_out_of_line_entry = lm->has_more_locals;
        lm->enter_out_of_line = vm_enter_clearing_locals;
        lm->has_entry_work = lm->has_receiver || lm->has_out_of_line_entry;
    }
    /* Instance layout (object.h): reference fields, then primitive fields. */
    for (uint32_t f = 0; f < p->num_fields; f++) {
        const ProgField *field = &p->fields[f];
        uint32_t ref_room = OBJ_REF_BYTES * p->classes[field->owner_class].num_ref_fields;
        vm->field_offsets[f] = (uint32_t)(field->is_ref ? sizeof(Obj) + sizeof(Obj *) * field->slot
                                                        : sizeof(Obj) + ref_room + 8u * field->slot);
    }
    vm->ref_statics = alloc_table(p->num_ref_statics, sizeof *vm->ref_statics);
    vm->prim_statics = alloc_table(p->num_prim_statics, sizeof *vm->prim_statics);
    vm->string_consts = alloc_table(p->num_strings, sizeof *vm->string_consts);
    if (!vm->ref_statics || !vm->prim_statics || !vm->string_consts) return link_fail(why, "out of memory", NULL);
    return true;
}

bool vm_class_index(const VM *vm, const void *class_id, uint32_t *index) {
    /* Compared as integers, since `class_id` may be any garbage (a heap
     * verifier's find, an agent's argument). */
    uintptr_t c = (uintptr_t)class_id;
    uint32_t num_classes = vm->program->num_classes;
    if (c == (uintptr_t)&vm->string_class) {
        *index = num_classes;
        return true;
    }
    if (vm->uses_threads && c == (uintptr_t)&vm->thread_class) {
        *index = num_classes + 1 + vm->num_array_classes;
        return true;
    }
    const struct {
        const RtClass *table;
        uint32_t count, first_index;
    } tables[] = {{vm->classes, num_classes, 0},
                  {vm->array_classes, vm->num_array_classes, num_classes + 1}};
    for (size_t t = 0; t < 2; t++) {
        uintptr_t first = (uintptr_t)tables[t].table;
        uintptr_t end = first + (uintptr_t)tables[t].count * sizeof(RtClass);
        if (c >= first && c < end && (c - first) % sizeof(RtClass) == 0) {
            *index = tables[t].first_index + (uint32_t)((c - first) / sizeof(RtClass));
            return true;
        }
    }
    return false;
}

/* gc_set_fatal_exit's hook: a collector that cannot go on leaves through
 * vm_exit like every other way out, so agents still get JVM_SHUT_DOWN. */
static void vm_exit_for_collector(int status) {
    VMThread *thread = vm_current_thread();
    VM *vm = thread ? thread->vm : vm_gc_thread_vm();
    if (vm != NULL) vm_exit(vm, status);
}

/* GcConfig.is_known_class: is `cls` one of this VM's RtClasses? */
static bool vm_is_known_class(void *vm_arg, const RtClass *cls) {
    uint32_t index;
    return vm_class_index(vm_arg, cls, &index);
}

/* Interned string constants go in the heap like any string; string_consts
 * is a root, so each one survives the collections later ones may cause. */
static void intern_strings(VM *vm, VMThread *thread) {
    const Program *p = vm->program;
    for (uint32_t i = 0; i < p->num_strings; i++)
        gc_write_root(vm->gc, &vm->string_consts[i], vm_string_from_bytes(thread, p->strings[i].chars, p->strings[i].len));
}

VM *vm_create(Program *program, const char *program_path, const VMOptions *opts) {
    /* --seed: every record with an ID from here on -- the VM (its String
     * class), the class and method tables, the threads, the heap -- lies at
     * an address that repeats from run to run (gc/common/fixed.h). */
    if (opts->seeded) {
        char err[256];
        if (!gc_fixed_reserve(err, sizeof err)) {
            fprintf(stderr, "vmrun: %s\n", err);
            return NULL;
        }
        if (!program_move_methods(program, gc_record_calloc, gc_record_free)) {
            fprintf(stderr, "vmrun: out of memory\n");
            return NULL;
        }
    }
    VM *vm = gc_record_calloc(1, sizeof *vm);
    if (!vm) {
        fprintf(stderr, "vmrun: out of memory\n");
        return NULL;
    }
    vm->program = program;
    vm->program_path = program_path;
    LinkError why;
    if (!link_classes(vm, &why) || !link_code(vm, opts->plain_code, &why)) {
        fprintf(stderr, "vmrun: %s: cannot link: %s\n", program_path, why.text);
        vm_destroy(vm);
        return NULL;
    }
    char native_why[512];
    if (!vm_natives_bind(vm, opts->no_native, native_why, sizeof native_why)) {
        fprintf(stderr, "vmrun: %s: %s\n", program_path, native_why);
        vm_destroy(vm);
        return NULL;
    }
    vm->gc_ops = gc_ops_by_name(opts->gc_name);
    if (!vm->gc_ops) {
        fprintf(stderr, "vmrun: unknown collector '%s'\n", opts->gc_name);
        vm_destroy(vm);
        return NULL;
    }

    vm->seeded = opts->seeded;
    vm->concurrent_handlers = !opts->one_at_a_time && !opts->seeded; /* before vm_attach_vmpi, which reads it */
    vm_attach_vmpi(vm);
    vmpi_seed_heap_sampling(opts->seeded ? &opts->seed : NULL);
    vm->seed = opts->seed;
    GcConfig config = opts->gc;
    config.roots = (GcRoots){.enumerate = vm_enumerate_roots, .vm = vm, .enumerate_weak = vm_enumerate_weak_refs};
    config.is_known_class = vm_is_known_class;
    config.runner = (GcCollectionRunner){.run = vm_gc_thread_run, .stop = vm_gc_thread_stop_mutators, .vm = vm};
    gc_set_fatal_exit(vm_exit_for_collector);
    vm->gc = vm->gc_ops->create(&config);
    if (!vm->gc) {
        fprintf(stderr, "vmrun: cannot create the %s collector with a %zu-byte heap\n", opts->gc_name,
                config.heap_bytes);
        vm_destroy(vm);
        return NULL;
    }
    VMThread *main_thread = vm_thread_create(vm, "main");
    if (!main_thread) {
        fprintf(stderr, "vmrun: out of memory creating the main thread\n");
        vm_destroy(vm);
        return NULL;
    }
    for (uint32_t i = 0; i < vm_num_linked_classes(vm); i++) vmpi_post_class_load(i);
    intern_strings(vm, main_thread);
    return vm;
}

void vm_destroy(VM *vm) {
    if (!vm) return;
    vm_scheduler_free(vm);
    vm_monitors_free(vm);
    if (vm->gc) vm->gc_ops->destroy(vm->gc);
    vm_gc_thread_stop(vm);
    /* After the collector (whose teardown may still post events) and
     * before anything VMPI could reach is freed. */
    vmpi_attach_vm(NULL);
    vm_call_sites_free();
    for (uint32_t i = 0; i < vm->num_threads; i++) vm_thread_free(vm->threads[i]);
    free(vm->threads);
    for (uint32_t i = 0; i < vm->num_retired_threads; i++) free(vm->retired_threads[i]);
    for (uint32_t i = 0; i < vm->num_array_classes; i++) free((char *)vm->array_classes[i].name);
    gc_record_free(vm->array_classes);
    gc_record_free(vm->classes);
    free(vm->type_class);
    for (uint32_t i = 0; vm->linked_methods && i < vm->program->num_methods; i++)
        free((uint8_t *)vm->linked_methods[i].code);
    free(vm->linked_methods);
    for (uint32_t i = 0; vm->line_tables && i < vm->program->num_methods; i++) free(vm->line_tables[i]);
    free(vm->line_tables);
    free(vm->field_offsets);
    free(vm->ref_statics);
    free(vm->prim_statics);
    free(vm->string_consts);
    vm_natives_free(vm);
    vm_free_global_refs(vm);
    gc_record_free(vm);
}
