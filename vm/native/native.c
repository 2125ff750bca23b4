/*
 * native.c -- calling C functions in shared libraries through libffi.
 *
 * Binding happens once, when the VM is created (vm_create): each native's
 * library is opened with dlopen, its symbol found with dlsym and its C
 * signature (program.h, ProgNative) turned into an ffi_cif.  Anything that
 * fails there is an error naming the native, before the program starts, so
 * CALLN never meets a missing function.
 *
 * The rule for strings and arrays: copy in, copy out.  Any allocation may
 * move every object (object.h), and a native runs for as long as it likes,
 * so a native is never given an address inside the heap.  A string argument
 * is copied, with its NUL, into a C buffer; an array's elements are copied
 * into a C buffer of the same element type; null gives NULL.  After the
 * call each array buffer is copied back into the array, re-read from its
 * stack slot (the arguments stay on the reference stack, and so stay roots,
 * until the call has returned), so the native's writes show; then the
 * buffers are freed.  The pointers are therefore valid only during the
 * call, and a native must not keep them.  A string result is copied into a
 * new string (NULL gives null) and the C memory is left to its owner.  The
 * copies cost time in proportion to the data, never correctness.
 *
 * A `native env` function (vm/native/gclab_native.h) gets the env as its
 * first C argument, and objects as references: an object argument is the
 * address of its slot on the reference stack (a local reference), and an
 * object result is a reference the VM reads back and checks against the
 * declared class before the native's local references are popped.
 */
#include "native.h"

#include <dlfcn.h>
#include <ffi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/limits.h"
#include "vm/internal.h"
#include "native_env.h"

_Static_assert(sizeof(bool) == 1, "a C bool travels as one byte, as bool array elements are stored");

/* One bound native. */
typedef struct NativeBinding {
    const ProgNative *decl;
    const char **param_descs;   /* decl->num_params descriptors (C types) */
    const char *result_desc;
    void *library;              /* dlopen's handle */
    void (*function)(void);
    ffi_type **arg_types;       /* the env's first, if it takes the env */
    ffi_cif cif;
} NativeBinding;

/* The libffi type of a C type spelled as a descriptor. */
static ffi_type *ffi_type_of(const char *desc) {
    switch (desc[0]) {
    case 'V': return &ffi_type_void;
    case 'Z': return &ffi_type_uint8;
    case 'B': return &ffi_type_sint8;
    case 'C': return &ffi_type_uint16;
    case 'S': return &ffi_type_sint16;
    case 'I': return &ffi_type_sint32;
    case 'J': return &ffi_type_sint64;
    case 'F': return &ffi_type_float;
    case 'D': return &ffi_type_double;
    default: return &ffi_type_pointer; /* a string or an array (the verifier allows no other) */
    }
}

static bool bind_fail(char *why, size_t why_size, const ProgNative *n, const char *what, const char *detail) {
    snprintf(why, why_size, "native '%s' (%s): %s%s%s", n->name, n->library, what, detail ? ": " : "",
             detail ? detail : "");
    return false;
}

static bool bind_one(const Program *p, NativeBinding *b, char *why, size_t why_size) {
    const ProgNative *n = b->decl;
    dlerror();
    b->library = dlopen(n->library, RTLD_NOW | RTLD_LOCAL);
    if (!b->library) return bind_fail(why, why_size, n, "cannot open the library", dlerror());
    dlerror();
    void *symbol = dlsym(b->library, n->name);
    const char *failed = dlerror();
    if (failed || !symbol) return bind_fail(why, why_size, n, "no such symbol in the library", failed);
    /* dlsym gives an object pointer; POSIX guarantees it converts. */
    memcpy(&b->function, &symbol, sizeof symbol);
    uint32_t env_args = n->takes_env ? 1 : 0;
    b->param_descs = calloc(n->num_params ? n->num_params : 1, sizeof *b->param_descs);
    b->arg_types = calloc(n->num_params + env_args, sizeof *b->arg_types);
    if (!b->param_descs || !b->arg_types) return bind_fail(why, why_size, n, "out of memory", NULL);
    if (n->takes_env) b->arg_types[0] = &ffi_type_pointer;
    for (uint32_t i = 0; i < n->num_params; i++) {
        b->param_descs[i] = p->types[n->param_types[i]];
        b->arg_types[env_args + i] = ffi_type_of(b->param_descs[i]);
    }
    b->result_desc = p->types[n->return_type];
    if (ffi_prep_cif(&b->cif, FFI_DEFAULT_ABI, n->num_params + env_args, ffi_type_of(b->result_desc), b->arg_types) !=
        FFI_OK)
        return bind_fail(why, why_size, n, "libffi cannot describe its signature", NULL);
    return true;
}

bool vm_natives_bind(VM *vm, bool refuse, char *why, size_t why_size) {
    const Program *p = vm->program;
    if (p->num_natives == 0) return true;
    if (refuse) {
        snprintf(why, why_size, "--no-native refuses a program that declares native functions (the first: '%s' from %s)",
                 p->natives[0].name, p->natives[0].library);
        return false;
    }
    vm->natives = calloc(p->num_natives, sizeof *vm->natives);
    if (!vm->natives) return bind_fail(why, why_size, &p->natives[0], "out of memory", NULL);
    for (uint32_t i = 0; i < p->num_natives; i++) {
        vm->natives[i].decl = &p->natives[i];
        if (!bind_one(p, &vm->natives[i], why, why_size)) return false;
    }
    return true;
}

void vm_natives_free(VM *vm) {
    if (!vm->natives) return;
    for (uint32_t i = 0; i < vm->program->num_natives; i++) {
        NativeBinding *b = &vm->natives[i];
        if (b->library) dlclose(b->library);
        free(b->param_descs);
        free(b->arg_types);
    }
    free(vm->natives);
    vm->natives = NULL;
}

/* ---- calls ------------------------------------------------------------------ */

/* One argument or result in its C type.  A result of an integer type
 * narrower than a register comes back widened to ffi_arg (libffi's rule). */
typedef union NativeValue {
    bool z;
    int8_t b;
    uint16_t c;
    int16_t s;
    int32_t i;
    int64_t j;
    float f;
    double d;
    void *pointer;
    ffi_arg widened;
    ffi_sarg signed_widened;
} NativeValue;

/* A primitive argument: the stack's 8-byte slot in the parameter's C type. */
static NativeValue prim_argument(char letter, uint64_t slot) {
    NativeValue v;
    double d;
    memcpy(&d, &slot, sizeof d);
    switch (letter) {
    case 'Z': v.z = slot != 0; break;
    case 'B': v.b = (int8_t)slot; break;
    case 'C': v.c = (uint16_t)slot; break;
    case 'S': v.s = (int16_t)slot; break;
    case 'I': v.i = (int32_t)slot; break;
    case 'F': v.f = (float)d; break;
    case 'D': v.d = d; break;
    default: v.j = (int64_t)slot; break;
    }
    return v;
}

/* A primitive result as the stack's 8-byte slot: integers sign- or
 * zero-extended to int, float widened to double, bool 0 or 1. */
static uint64_t prim_result(char letter, const NativeValue *v) {
    double d;
    switch (letter) {
    case 'Z': return (uint8_t)v->widened != 0;
    case 'B': return (uint64_t)(int64_t)(int8_t)v->signed_widened;
    case 'C': return (uint16_t)v->widened;
    case 'S': return (uint64_t)(int64_t)(int16_t)v->signed_widened;
    case 'I': return (uint64_t)(int64_t)(int32_t)v->signed_widened;
    case 'F': d = v->f; break;
    case 'D': d = v->d; break;
    default: return (uint64_t)v->j;
    }
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return bits;
}

/* The bytes a string or array argument `o` is copied in from (and an
 * array's copied back to). */
static size_t payload_bytes(const Obj *o) {
    return o->cls->kind == CLASS_STRING ? (size_t)o->length + 1 : (size_t)o->cls->elem_size * o->length;
}

/* After the call: the native's writes into an array's copy go back into
 * the array, bools as 0 or 1 (what AGETZ and the comparisons expect). */
static void copy_back(Obj *array, const uint8_t *copy) {
    size_t bytes = payload_bytes(array);
    uint8_t *elems = obj_body(array);
    if (array->cls->elem_kind == ELEM_BOOL)
        for (size_t k = 0; k < bytes; k++) elems[k] = copy[k] != 0;
    else
        memcpy(elems, copy, bytes);
}

/* An object a `native env` function returned: what its reference names,
 * which must be null or of the declared class. */
static Obj *object_result(VMThread *thread, const NativeBinding *b, GclabRef ref) {
    Obj *obj = ref ? *(Obj **)ref : NULL;
    const RtClass *declared = thread->vm->type_class[b->decl->return_type];
    if (obj && obj->cls != declared)
        vm_runtime_errorf(thread, "native %s returned a %s where it is declared to return %s", b->decl->name,
                          obj->cls->name, declared->name);
    return obj;
}

void vm_native_call(VMThread *thread, uint32_t index) {
    NativeBinding *b = &thread->vm->natives[index];
    const ProgNative *n = b->decl;
    uint64_t *prims = thread->ptop - n->num_prim_args;
    Obj **refs = thread->rtop - n->num_ref_args;
    NativeEnv env;
    GclabEnv *env_arg = &env.env;
    NativeValue values[PROG_MAX_PARAMS];
    void *args[PROG_MAX_PARAMS + 1];
    void *copies[PROG_MAX_PARAMS]; /* one per reference argument, NULL for none */
    uint32_t prim = 0, ref = 0, arg = 0;
    if (n->takes_env) {
        vm_native_env_init(&env, thread, n);
        args[arg++] = &env_arg;
    }
    for (uint32_t i = 0; i < n->num_params; i++) {
        const char *desc = b->param_descs[i];
        if (desc[0] == 'L' && !type_is_string(desc)) {
            /* An object, as a local reference: its argument slot. */
            copies[ref] = NULL;
            values[i].pointer = refs[ref] ? (void *)&refs[ref] : NULL;
            ref++;
        } else if (type_is_ref(desc)) {
            const Obj *o = refs[ref];
            void *copy = NULL;
            if (o) {
                size_t bytes = payload_bytes(o);
                copy = malloc(bytes ? bytes : 1);
                if (!copy) {
                    for (uint32_t k = 0; k < ref; k++) free(copies[k]);
                    vm_runtime_errorf(thread, "out of memory copying argument %u of native %s", i + 1, n->name);
                }
                memcpy(copy, obj_body(o), bytes);
            }
            copies[ref++] = copy;
            values[i].pointer = copy;
        } else {
            values[i] = prim_argument(desc[0], prims[prim++]);
        }
        args[arg++] = &values[i];
    }
    NativeValue result = {0};
    ffi_call(&b->cif, b->function, &result, args);
    const char *ret = b->result_desc;
    bool returns_object = ret[0] == 'L' && !type_is_string(ret);
    Obj *result_object = returns_object ? object_result(thread, b, result.pointer) : NULL;
    ref = 0;
    for (uint32_t i = 0; i < n->num_params; i++) {
        if (!type_is_ref(b->param_descs[i])) continue;
        if (b->param_descs[i][0] == '[' && refs[ref]) copy_back(refs[ref], copies[ref]);
        free(copies[ref++]);
    }
    /* Pops the arguments and the native's local references.  When roots
     * are counted, the result's count is taken first: it moves from a
     * local reference to the pushed result, and must not reach zero
     * between the two. */
    Gc *gc = thread->vm->gc;
    if (gc->counts_roots) gc_root_gained(gc, result_object);
    thread->ptop = prims;
    vm_pop_roots_to(thread, refs);
    if (ret[0] == 'V') return;
    if (!type_is_ref(ret)) {
        *thread->ptop++ = prim_result(ret[0], &result);
        return;
    }
    if (returns_object) {
        *thread->rtop++ = result_object; /* counted above */
        return;
    }
    const char *text = result.pointer;
    vm_push_root(thread, text ? vm_string_from_bytes(thread, text, strlen(text)) : NULL);
}
