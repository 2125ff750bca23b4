/*
 * native_env.h -- the callback API's VM side (vm/native/gclab_native.h):
 * the env a `native env` function is given, and the VM's global and weak
 * global references.
 */
#ifndef GCLAB_INTERP_NATIVE_ENV_H
#define GCLAB_INTERP_NATIVE_ENV_H

#include "gclab_native.h"
#include "vm/vm.h"

/* The env of one native call: a GclabEnv * the native gets is one of these. */
typedef struct NativeEnv {
    GclabEnv env;              /* first */
    VMThread *thread;
    const ProgNative *native;  /* named in misuse errors */
} NativeEnv;

void vm_native_env_init(NativeEnv *e, VMThread *thread, const ProgNative *native);

/* A global reference's slot.  A GclabRef to a global or weak global
 * reference is the address of its `object`. */
typedef struct GlobalRef {
    Obj *object;               /* NULL once a weak one is cleared */
    struct GlobalRef *prev, *next;
} GlobalRef;

/* Visits each global reference's slot holding an object: roots
 * (vm_enumerate_roots, and heap dumps as JNI_GLOBAL). */
void vm_visit_global_refs(VM *vm, GcSlotVisitor visit, void *ctx);

/* GcRoots.enumerate_weak: each weak global reference's slot holding an
 * object (gc/common/weak.h). */
void vm_enumerate_weak_refs(void *vm, GcSlotVisitor visit, void *ctx);

/* The global or weak global reference whose handle is `ref`, or NULL if
 * `ref` is none (looked up, never followed); and one that refers to `obj`,
 * or NULL.  For JVMPI's jobject2jobjectID and jobjectID2jobject. */
GlobalRef *vm_find_global_ref(VM *vm, const void *ref);
GlobalRef *vm_global_ref_to(VM *vm, const Obj *obj);

/* Frees the references natives never deleted (vm_destroy). */
void vm_free_global_refs(VM *vm);

#endif
