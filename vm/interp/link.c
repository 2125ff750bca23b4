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
 * event contract in DESIGN.md: defining events first):
 *   vmpi_attach_vm, then the collector (it posts ARENA_NEW), then the main
 *   thread (THREAD_START), then CLASS_LOAD for every linked class, then the
 *   interned strings (their OBJECT_ALLOCs name the String class).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "quicken.h"
#include "../../vmpi/control.h"
#include "../../vmpi/post.h"

uint32_t vm_num_linked_classes(const VM *vm) {
    return vm->program->num_classes + 1 + vm->num_array_classes;
}

const RtClass *vm_linked_class(const VM *vm, uint32_t index) {
    uint32_t num_classes = vm->program->num_classes;
    if (index < num_classes) return &vm->classes[index];
    if (index == num_classes) return &vm->string_class;
    index -= num_classes + 1;
    return index < vm->num_array_classes ? &vm->array_classes[index] : NULL;
}

/* calloc that never returns NULL for an empty table, so that `table + 0`
 * is always a valid pointer. */
static void *alloc_table(size_t count, size_t size) { return calloc(count ? count : 1, size); }

static void set_class_id(RtClass *cls) { cls->class_id = (uint64_t)(uintptr_t)cls; }

/* ---- array classes -------------------------------------------------------- */

/* One array class per distinct array descriptor: every "[..." in the type
 * table, plus the element types of those (a "[[J" needs a "[J" class as its
 * element class even if the program never names "[J" itself). */
typedef struct ArrayDescs {
    const char **descs;
    uint32_t count, capacity;
} ArrayDescs;

static int find_desc(const ArrayDescs *set, const char *desc) {
    for (uint32_t i = 0; i < set->count; i++)
        if (strcmp(set->descs[i], desc) == 0) return (int)i;
    return -1;
}

static bool add_array_desc(ArrayDescs *set, const char *desc) {
    for (; desc[0] == '['; desc++) {
        if (find_desc(set, desc) >= 0) continue;
        if (set->count == set->capacity) {
            uint32_t capacity = set->capacity ? 2 * set->capacity : 16;
            const char **grown = realloc(set->descs, capacity * sizeof *grown);
            if (!grown) return false;
            set->descs = grown;
            set->capacity = capacity;
        }
        set->descs[set->count++] = desc;
    }
    return true;
}

typedef struct PrimElem {
    char letter;
    ElemKind kind;
    uint32_t size;
    const char *name;     /* the language's name of the element type */
} PrimElem;

static const PrimElem prim_elems[] = {
    {'Z', ELEM_BOOL, 1, "bool"},   {'B', ELEM_BYTE, 1, "byte"},
    {'C', ELEM_CHAR, 2, "char"},   {'S', ELEM_SHORT, 2, "short"},
    {'I', ELEM_INT, 4, "int32"},   {'J', ELEM_LONG, 8, "int"},
    {'F', ELEM_FLOAT, 4, "float"}, {'D', ELEM_DOUBLE, 8, "double"},
};

static const PrimElem *prim_elem(char letter) {
    for (size_t i = 0; i < sizeof prim_elems / sizeof prim_elems[0]; i++)
        if (prim_elems[i].letter == letter) return &prim_elems[i];
    return NULL;
}

/* The class named by an "LName;" descriptor, or NULL. */
static const RtClass *instance_class_of(const VM *vm, const char *desc) {
    if (type_is_string(desc)) return &vm->string_class;
    size_t len = strlen(desc);
    if (len < 3 || desc[0] != 'L' || desc[len - 1] != ';') return NULL;
    for (uint32_t i = 0; i < vm->program->num_classes; i++) {
        const char *name = vm->classes[i].name;
        if (strlen(name) == len - 2 && memcmp(name, desc + 1, len - 2) == 0) return &vm->classes[i];
    }
    return NULL;
}

/* The runtime class of a reference descriptor, or NULL. */
static const RtClass *ref_class_of(const VM *vm, const ArrayDescs *set, const char *desc) {
    if (desc[0] == '[') {
        int i = find_desc(set, desc);
        return i >= 0 ? &vm->array_classes[i] : NULL;
    }
    return instance_class_of(vm, desc);
}

/* The language's name of an array descriptor: the innermost element's name,
 * then "[]" per dimension ("[[J" -> "int[][]", "[LTree;" -> "Tree[]").
 * NULL if malformed or out of memory. */
static char *array_class_name(const char *desc) {
    size_t dims = 0;
    while (desc[dims] == '[') dims++;
    const char *elem = desc + dims;
    const char *base;
    size_t base_len;
    if (elem[0] == 'L') {
        base = elem + 1;
        base_len = strlen(base) - 1; /* drop the ';' */
    } else {
        const PrimElem *pe = prim_elem(elem[0]);
        if (!pe) return NULL;
        base = pe->name;
        base_len = strlen(base);
    }
    char *name = malloc(base_len + 2 * dims + 1);
    if (!name) return NULL;
    memcpy(name, base, base_len);
    for (size_t d = 0; d < dims; d++) memcpy(name + base_len + 2 * d, "[]", 2);
    name[base_len + 2 * dims] = '\0';
    return name;
}

/* Fills array class i from its descriptor.  The classes of all descriptors
 * in `set` already have their addresses, so an element class may be one
 * that is filled later. */
static bool link_array_class(VM *vm, const ArrayDescs *set, uint32_t i, const char **why) {
    RtClass *cls = &vm->array_classes[i];
    const char *elem = set->descs[i] + 1;
    cls->kind = CLASS_ARRAY;
    cls->program_index = UINT32_MAX;
    if (type_is_ref(elem)) {
        cls->elem_kind = ELEM_REF;
        cls->elem_size = sizeof(Obj *);
        cls->elem_class = ref_class_of(vm, set, elem);
        if (!cls->elem_class) {
            *why = "array of an unknown class";
            return false;
        }
    } else {
        const PrimElem *pe = prim_elem(elem[0]);
        if (!pe) {
            *why = "malformed array type";
            return false;
        }
        cls->elem_kind = pe->kind;
        cls->elem_size = pe->size;
    }
    cls->name = array_class_name(set->descs[i]);
    if (!cls->name) {
        *why = "malformed array type";
        return false;
    }
    set_class_id(cls);
    return true;
}

/* ---- linking ------------------------------------------------------------ */

static bool link_classes(VM *vm, const char **why) {
    const Program *p = vm->program;
    vm->classes = alloc_table(p->num_classes, sizeof *vm->classes);
    vm->type_class = alloc_table(p->num_types, sizeof *vm->type_class);
    if (!vm->classes || !vm->type_class) {
        *why = "out of memory";
        return false;
    }
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

    ArrayDescs set = {0};
    for (uint32_t t = 0; t < p->num_types; t++) {
        if (!add_array_desc(&set, p->types[t])) {
            free(set.descs);
            *why = "out of memory";
            return false;
        }
    }
    bool ok = true;
    vm->array_classes = alloc_table(set.count, sizeof *vm->array_classes);
    if (!vm->array_classes) {
        *why = "out of memory";
        ok = false;
    }
    for (uint32_t i = 0; ok && i < set.count; i++) {
        ok = link_array_class(vm, &set, i, why);
        if (ok) vm->num_array_classes = i + 1;
    }
    for (uint32_t t = 0; ok && t < p->num_types; t++) {
        if (!type_is_ref(p->types[t])) continue;
        vm->type_class[t] = ref_class_of(vm, &set, p->types[t]);
        if (!vm->type_class[t]) {
            *why = "reference to an unknown class";
            ok = false;
        }
    }
    free(set.descs);
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

static bool link_code(VM *vm, bool plain_code, const char **why) {
    const Program *p = vm->program;
    vm->linked_methods = alloc_table(p->num_methods, sizeof *vm->linked_methods);
    vm->field_offsets = alloc_table(p->num_fields, sizeof *vm->field_offsets);
    if (!vm->linked_methods || !vm->field_offsets) {
        *why = "out of memory";
        return false;
    }
    for (uint32_t i = 0; i < p->num_methods; i++) {
        const ProgMethod *m = &p->methods[i];
        uint8_t *code = link_method_code(m, plain_code);
        if (!code) {
            *why = "out of memory";
            return false;
        }
        vm->linked_methods[i] = (LinkedMethod){
            .method = m,
            .code = code,
            .num_prim_args = m->num_prim_args,
            .num_ref_args = m->num_ref_args,
            .num_prim_locals = m->num_prim_locals,
            .num_ref_locals = m->num_ref_locals,
            .pstack_need = m->num_prim_locals + m->max_pstack,
            .rstack_need = m->num_ref_locals + m->max_rstack,
            .has_receiver = !m->is_static,
        };
    }
    /* Instance layout (object.h): reference fields, then primitive fields. */
    for (uint32_t f = 0; f < p->num_fields; f++) {
        const ProgField *field = &p->fields[f];
        uint32_t index = field->is_ref ? field->slot
                                       : p->classes[field->owner_class].num_ref_fields + field->slot;
        vm->field_offsets[f] = (uint32_t)(sizeof(Obj) + 8u * index);
    }
    vm->ref_statics = alloc_table(p->num_ref_statics, sizeof *vm->ref_statics);
    vm->prim_statics = alloc_table(p->num_prim_statics, sizeof *vm->prim_statics);
    vm->string_consts = alloc_table(p->num_strings, sizeof *vm->string_consts);
    if (!vm->ref_statics || !vm->prim_statics || !vm->string_consts) {
        *why = "out of memory";
        return false;
    }
    return true;
}

/* GcConfig.is_known_class: is `cls` one of this VM's RtClasses?  Compared
 * as integers, since `cls` may be any garbage the heap verifier found. */
static bool vm_is_known_class(void *vm_arg, const RtClass *cls) {
    const VM *vm = vm_arg;
    uintptr_t c = (uintptr_t)cls;
    if (c == (uintptr_t)&vm->string_class) return true;
    const struct {
        const RtClass *table;
        uint32_t count;
    } tables[] = {{vm->classes, vm->program->num_classes}, {vm->array_classes, vm->num_array_classes}};
    for (size_t t = 0; t < 2; t++) {
        uintptr_t first = (uintptr_t)tables[t].table;
        uintptr_t end = first + (uintptr_t)tables[t].count * sizeof(RtClass);
        if (c >= first && c < end && (c - first) % sizeof(RtClass) == 0) return true;
    }
    return false;
}

/* Interned string constants go in the heap like any string; string_consts
 * is a root, so each one survives the collections later ones may cause. */
static void intern_strings(VM *vm, VMThread *thread) {
    const Program *p = vm->program;
    for (uint32_t i = 0; i < p->num_strings; i++)
        vm->string_consts[i] = vm_string_from_bytes(thread, p->strings[i].chars, p->strings[i].len);
}

VM *vm_create(Program *program, const char *program_path, const VMOptions *opts) {
    VM *vm = calloc(1, sizeof *vm);
    if (!vm) {
        fprintf(stderr, "vmrun: out of memory\n");
        return NULL;
    }
    vm->program = program;
    vm->program_path = program_path;
    const char *why = NULL;
    if (!link_classes(vm, &why) || !link_code(vm, opts->plain_code, &why)) {
        fprintf(stderr, "vmrun: %s: cannot link: %s\n", program_path, why);
        vm_destroy(vm);
        return NULL;
    }
    vm->gc_ops = gc_ops_by_name(opts->gc_name);
    if (!vm->gc_ops) {
        fprintf(stderr, "vmrun: unknown collector '%s'\n", opts->gc_name);
        vm_destroy(vm);
        return NULL;
    }

    vmpi_attach_vm(vm);
    GcConfig config = opts->gc;
    config.roots = (GcRoots){.enumerate = vm_enumerate_roots, .vm = vm};
    config.is_known_class = vm_is_known_class;
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
    for (uint32_t i = 0; i < vm_num_linked_classes(vm); i++) vmpi_post_class_load(vm, i);
    intern_strings(vm, main_thread);
    return vm;
}

void vm_destroy(VM *vm) {
    if (!vm) return;
    if (vm->gc) vm->gc_ops->destroy(vm->gc);
    /* After the collector (whose teardown may still post events) and
     * before anything VMPI could reach is freed. */
    vmpi_attach_vm(NULL);
    for (uint32_t i = 0; i < vm->num_threads; i++) vm_thread_free(vm->threads[i]);
    free(vm->threads);
    for (uint32_t i = 0; i < vm->num_array_classes; i++) free((char *)vm->array_classes[i].name);
    free(vm->array_classes);
    free(vm->classes);
    free(vm->type_class);
    for (uint32_t i = 0; vm->linked_methods && i < vm->program->num_methods; i++)
        free((uint8_t *)vm->linked_methods[i].code);
    free(vm->linked_methods);
    free(vm->field_offsets);
    free(vm->ref_statics);
    free(vm->prim_statics);
    free(vm->string_consts);
    free(vm);
}
