/*
 * native_env.c -- the callback API a `native env` function calls
 * (vm/native/gclab_native.h): objects, fields, and global and weak global
 * references, with their VMPI events.
 *
 * Invariant: a native holds no object address, only references, so every
 * function here may allocate (and so collect and move objects) except where
 * it says otherwise.  Local references are slots pushed on the calling
 * thread's reference stack above the native's arguments: below rtop, so
 * roots, updated by a moving collector like any operand, and popped with
 * the arguments when the native returns (vm/native/native.c).  Global
 * references are slots in records outside the heap, two lists of them:
 * the strong ones are roots (vm_enumerate_roots; heap dumps report them as
 * JNI_GLOBAL), the weak ones are listed to the collector apart
 * (GcRoots.enumerate_weak), which clears each whose object dies
 * (gc/common/weak.h).  A reference's records come from gc_record_calloc,
 * so under --seed their addresses, the events' ref_id, repeat.
 *
 * Every misuse the VM can see -- null where an object is needed, a class
 * or field that is not one, a field of the wrong kind or of another class,
 * a value of the wrong class -- is a runtime error naming the native.
 */
#include "native_env.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "vmpi/post.h"
#include "vm/internal.h"

static NativeEnv *env_of(GclabEnv *env) { return (NativeEnv *)env; }

__attribute__((format(printf, 2, 3))) static _Noreturn void misuse(GclabEnv *env, const char *fmt, ...) {
    NativeEnv *e = env_of(env);
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    vm_runtime_errorf(e->thread, "native %s: %s", e->native->name, why);
}

static Obj *deref(GclabRef ref) { return ref ? *(Obj **)ref : NULL; }

/* `ref`'s object, which must not be null. */
static Obj *object_of(GclabEnv *env, GclabRef ref, const char *function) {
    Obj *obj = deref(ref);
    if (!obj) misuse(env, "%s: the object is null", function);
    return obj;
}

/* A new local reference to `obj` (NULL for null): a slot above rtop. */
static GclabRef local_ref(GclabEnv *env, Obj *obj) {
    if (!obj) return NULL;
    VMThread *t = env_of(env)->thread;
    if (t->rtop == t->rstack_end) misuse(env, "too many local references (the reference stack is full)");
    vm_push_root(t, obj);
    return (GclabRef)(t->rtop - 1);
}

/* `cls` must be one of the program's classes. */
static const RtClass *class_of(GclabEnv *env, GclabClass cls, const char *function) {
    const VM *vm = env_of(env)->thread->vm;
    const RtClass *rt = (const RtClass *)cls;
    if (rt < vm->classes || rt >= vm->classes + vm->program->num_classes)
        misuse(env, "%s: not a class of the program", function);
    return rt;
}

static GclabClass find_class(GclabEnv *env, const char *name) {
    const VM *vm = env_of(env)->thread->vm;
    if (!name) misuse(env, "find_class: the name is NULL");
    for (uint32_t i = 0; i < vm->program->num_classes; i++)
        if (strcmp(vm->classes[i].name, name) == 0) return (GclabClass)&vm->classes[i];
    return NULL;
}

static GclabRef new_object(GclabEnv *env, GclabClass cls) {
    const RtClass *rt = class_of(env, cls, "new_object");
    VMThread *t = env_of(env)->thread;
    return local_ref(env, vm_alloc(t, rt, 0));
}

static GclabField field(GclabEnv *env, GclabClass cls, const char *name) {
    const RtClass *rt = class_of(env, cls, "field");
    const Program *p = env_of(env)->thread->vm->program;
    if (!name) misuse(env, "field: the name is NULL");
    for (uint32_t f = 0; f < p->num_fields; f++)
        if (p->fields[f].owner_class == rt->program_index && strcmp(p->fields[f].name, name) == 0) return (GclabField)f;
    return -1;
}

/* The slot of field `f` of `obj`, which must be a field of obj's class of
 * a kind `kinds` lists (J, D, Z, or L for any reference). */
static void *field_slot(GclabEnv *env, Obj *obj, GclabField f, const char *kinds, const char *function,
                        const ProgField **out) {
    const VM *vm = env_of(env)->thread->vm;
    const Program *p = vm->program;
    if (f < 0 || (uint32_t)f >= p->num_fields || obj->cls->kind != CLASS_INSTANCE ||
        p->fields[f].owner_class != obj->cls->program_index)
        misuse(env, "%s: field %d is not a field of a %s", function, (int)f, obj->cls->name);
    const ProgField *pf = &p->fields[f];
    char kind = pf->is_ref ? 'L' : p->types[pf->type][0];
    if (!strchr(kinds, kind)) misuse(env, "%s: field %s.%s has type %s", function, obj->cls->name, pf->name, p->types[pf->type]);
    *out = pf;
    return (char *)obj + vm->field_offsets[f];
}

static int64_t get_int(GclabEnv *env, GclabRef ref, GclabField f) {
    const ProgField *pf;
    uint64_t *slot = field_slot(env, object_of(env, ref, "get_int"), f, "JZ", "get_int", &pf);
    return (int64_t)*slot;
}

static void set_int(GclabEnv *env, GclabRef ref, GclabField f, int64_t value) {
    const ProgField *pf;
    const Program *p = env_of(env)->thread->vm->program;
    uint64_t *slot = field_slot(env, object_of(env, ref, "set_int"), f, "JZ", "set_int", &pf);
    *slot = p->types[pf->type][0] == 'Z' ? value != 0 : (uint64_t)value;
}

static double get_double(GclabEnv *env, GclabRef ref, GclabField f) {
    const ProgField *pf;
    double value;
    memcpy(&value, field_slot(env, object_of(env, ref, "get_double"), f, "D", "get_double", &pf), sizeof value);
    return value;
}

static void set_double(GclabEnv *env, GclabRef ref, GclabField f, double value) {
    const ProgField *pf;
    memcpy(field_slot(env, object_of(env, ref, "set_double"), f, "D", "set_double", &pf), &value, sizeof value);
}

static GclabRef get_ref(GclabEnv *env, GclabRef ref, GclabField f) {
    const ProgField *pf;
    Obj **slot = field_slot(env, object_of(env, ref, "get_ref"), f, "L", "get_ref", &pf);
    return local_ref(env, *slot);
}

/* The store keeps the verifier's promise: a field holds only objects of
 * its type. */
static void set_ref(GclabEnv *env, GclabRef ref, GclabField f, GclabRef value_ref) {
    const VM *vm = env_of(env)->thread->vm;
    const ProgField *pf;
    Obj *obj = object_of(env, ref, "set_ref");
    Obj **slot = field_slot(env, obj, f, "L", "set_ref", &pf);
    Obj *value = deref(value_ref);
    if (value && value->cls != vm->type_class[pf->type])
        misuse(env, "set_ref: a %s cannot go in %s.%s", value->cls->name, obj->cls->name, pf->name);
    gc_write_ref(vm->gc, obj, slot, value);
}

/* ---- global and weak global references ------------------------------------ */

static GclabRef add_global(GclabEnv *env, GclabRef ref, GlobalRef **list, int32_t event) {
    Obj *obj = deref(ref);
    if (!obj) return NULL;
    GlobalRef *g = gc_record_calloc(1, sizeof *g);
    if (!g) misuse(env, "out of memory for a global reference");
    /* A global reference is a root (counted, when roots are); a weak one is not. */
    if (event == VMPI_EVENT_JNI_GLOBALREF_ALLOC) gc_write_root(env_of(env)->thread->vm->gc, &g->object, obj);
    else g->object = obj;
    g->next = *list;
    if (*list) (*list)->prev = g;
    *list = g;
    if (event == VMPI_EVENT_JNI_GLOBALREF_ALLOC) vmpi_post_JNI_GLOBALREF_ALLOC(NULL, obj, g);
    else vmpi_post_JNI_WEAK_GLOBALREF_ALLOC(NULL, obj, g);
    return (GclabRef)&g->object;
}

static void delete_global(GclabEnv *env, GclabRef ref, GlobalRef **list, int32_t event, const char *function) {
    if (!ref) return;
    GlobalRef *g = *list;
    while (g && (GclabRef)&g->object != ref) g = g->next;
    if (!g) misuse(env, "%s: not a live reference of that kind", function);
    if (g->prev) g->prev->next = g->next;
    else *list = g->next;
    if (g->next) g->next->prev = g->prev;
    if (event == VMPI_EVENT_JNI_GLOBALREF_FREE) {
        vmpi_post_JNI_GLOBALREF_FREE(NULL, g);
        gc_write_root(env_of(env)->thread->vm->gc, &g->object, NULL);
    } else {
        vmpi_post_JNI_WEAK_GLOBALREF_FREE(NULL, g);
    }
    gc_record_free(g);
}

static GclabRef new_global_ref(GclabEnv *env, GclabRef ref) {
    return add_global(env, ref, &env_of(env)->thread->vm->global_refs, VMPI_EVENT_JNI_GLOBALREF_ALLOC);
}

static void delete_global_ref(GclabEnv *env, GclabRef ref) {
    delete_global(env, ref, &env_of(env)->thread->vm->global_refs, VMPI_EVENT_JNI_GLOBALREF_FREE,
                  "delete_global_ref");
}

static GclabRef new_weak_global_ref(GclabEnv *env, GclabRef ref) {
    return add_global(env, ref, &env_of(env)->thread->vm->weak_global_refs, VMPI_EVENT_JNI_WEAK_GLOBALREF_ALLOC);
}

static void delete_weak_global_ref(GclabEnv *env, GclabRef ref) {
    delete_global(env, ref, &env_of(env)->thread->vm->weak_global_refs, VMPI_EVENT_JNI_WEAK_GLOBALREF_FREE,
                  "delete_weak_global_ref");
}

static GclabRef new_local_ref(GclabEnv *env, GclabRef ref) { return local_ref(env, deref(ref)); }

static bool is_same_object(GclabEnv *env, GclabRef a, GclabRef b) { return deref(a) == deref(b); }

/* An object's VMPI ID is its address (docs/architecture.md, "Object,
 * class and arena IDs"). */
static const void *object_id(GclabEnv *env, GclabRef ref) {
    (void)env;
    Obj *obj = deref(ref);
    vmpi_note_live_object(obj);
    return obj;
}

static const GclabFunctions functions = {
    GCLAB_NATIVE_VERSION, find_class, new_object, field, get_int, set_int, get_double, set_double, get_ref, set_ref,
    new_global_ref, delete_global_ref, new_weak_global_ref, delete_weak_global_ref, new_local_ref, is_same_object,
    object_id,
};

void vm_native_env_init(NativeEnv *e, VMThread *thread, const ProgNative *native) {
    e->env.fn = &functions;
    e->thread = thread;
    e->native = native;
}

static void visit_list(GlobalRef *g, GcSlotVisitor visit, void *ctx) {
    for (; g; g = g->next)
        if (g->object) visit(&g->object, ctx);
}

void vm_visit_global_refs(VM *vm, GcSlotVisitor visit, void *ctx) { visit_list(vm->global_refs, visit, ctx); }

void vm_enumerate_weak_refs(void *vm_arg, GcSlotVisitor visit, void *ctx) {
    VM *vm = vm_arg;
    visit_list(vm->weak_global_refs, visit, ctx);
}

GlobalRef *vm_find_global_ref(VM *vm, const void *ref) {
    GlobalRef *lists[] = {vm->global_refs, vm->weak_global_refs};
    for (size_t i = 0; i < 2; i++)
        for (GlobalRef *g = lists[i]; g; g = g->next)
            if ((const void *)&g->object == ref) return g;
    return NULL;
}

GlobalRef *vm_global_ref_to(VM *vm, const Obj *obj) {
    GlobalRef *lists[] = {vm->global_refs, vm->weak_global_refs};
    for (size_t i = 0; i < 2; i++)
        for (GlobalRef *g = lists[i]; g; g = g->next)
            if (obj && g->object == obj) return g;
    return NULL;
}

void vm_free_global_refs(VM *vm) {
    GlobalRef *lists[] = {vm->global_refs, vm->weak_global_refs};
    for (size_t i = 0; i < 2; i++) {
        for (GlobalRef *g = lists[i], *next; g; g = next) {
            next = g->next;
            gc_record_free(g);
        }
    }
    vm->global_refs = vm->weak_global_refs = NULL;
}
