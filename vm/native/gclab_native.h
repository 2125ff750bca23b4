/*
 * gclab_native.h -- the C API a native function calls back into the VM
 * through: a small JNI.  Include it in a library whose functions a gclab
 * program declares with `native env` (docs/language.md "Native functions");
 * the VM then passes a GclabEnv * as the function's first argument, before
 * the declared ones, so nothing needs to be linked against vmrun.
 *
 *     // native env "libpoints.so" Point make_point(int x, int y);
 *     GclabRef make_point(GclabEnv *env, int64_t x, int64_t y) {
 *         GclabClass point = env->fn->find_class(env, "Point");
 *         GclabRef p = env->fn->new_object(env, point);
 *         env->fn->set_int(env, p, env->fn->field(env, point, "x"), x);
 *         env->fn->set_int(env, p, env->fn->field(env, point, "y"), y);
 *         return p;
 *     }
 *
 * References.  A native never holds an object's address, because any
 * allocation may move every object; it holds references (GclabRef), which
 * the VM keeps up to date, and NULL stands for null:
 *   - local references: the object arguments, and what new_object, get_ref
 *     and new_local_ref return.  They are good until the native returns.
 *   - global references (new_global_ref): roots, good until
 *     delete_global_ref, across calls.
 *   - weak global references (new_weak_global_ref): do not keep their
 *     object alive; once it dies the collector clears them (every
 *     collector), so is_same_object(env, weak, NULL) becomes true.  Read
 *     one through new_local_ref, which gives NULL once it is cleared.
 * Each global and weak global reference is reported to profilers
 * (JVMPI's JNI_GLOBALREF_ALLOC/FREE and JNI_WEAK_GLOBALREF_ALLOC/FREE).
 *
 * Misuse -- a NULL where an object is needed, a class or field that does
 * not fit, a value of the wrong class for a field -- ends the program with
 * a runtime error naming the native, as the interpreter's own errors do.
 * A handle that is not a live reference is undefined behaviour, as in JNI.
 */
#ifndef GCLAB_NATIVE_H
#define GCLAB_NATIVE_H

#include <stdbool.h>
#include <stdint.h>

#define GCLAB_NATIVE_VERSION 2

typedef struct GclabObject_ *GclabRef;        /* a reference to an object (see above) */
typedef const struct GclabClass_ *GclabClass; /* a class of the program */
typedef int32_t GclabField;                   /* a field of a class, from field() */

typedef struct GclabEnv GclabEnv;

typedef struct GclabFunctions {
    int32_t version; /* GCLAB_NATIVE_VERSION */
    /* The program's class `name`, or NULL if it has none. */
    GclabClass (*find_class)(GclabEnv *env, const char *name);
    /* A new object of `cls`, every field at its default (may collect). */
    GclabRef (*new_object)(GclabEnv *env, GclabClass cls);
    /* Instance field `name` of `cls`, or -1 if it has none. */
    GclabField (*field)(GclabEnv *env, GclabClass cls, const char *name);
    /* int and bool fields (a bool reads 0 or 1; any value but 0 stores true). */
    int64_t (*get_int)(GclabEnv *env, GclabRef obj, GclabField field);
    void (*set_int)(GclabEnv *env, GclabRef obj, GclabField field, int64_t value);
    double (*get_double)(GclabEnv *env, GclabRef obj, GclabField field);
    void (*set_double)(GclabEnv *env, GclabRef obj, GclabField field, double value);
    /* Object fields: a local reference, or NULL for null. */
    GclabRef (*get_ref)(GclabEnv *env, GclabRef obj, GclabField field);
    void (*set_ref)(GclabEnv *env, GclabRef obj, GclabField field, GclabRef value);
    GclabRef (*new_global_ref)(GclabEnv *env, GclabRef ref);
    void (*delete_global_ref)(GclabEnv *env, GclabRef global);
    GclabRef (*new_weak_global_ref)(GclabEnv *env, GclabRef ref);
    void (*delete_weak_global_ref)(GclabEnv *env, GclabRef weak);
    /* A local reference to what `ref` names; NULL for a cleared weak one. */
    GclabRef (*new_local_ref)(GclabEnv *env, GclabRef ref);
    /* Do a and b name the same object (NULL and cleared references name null)? */
    bool (*is_same_object)(GclabEnv *env, GclabRef a, GclabRef b);
    /* Version 2.  The VMPI object ID (vmpi/vmpi.h, VMPI_ObjectID) the
     * object `ref` names has now -- the ID OBJECT_ALLOC gave it, or the
     * last OBJECT_MOVE -- or NULL for null.  For a profiler's recorder:
     * the ID is good until the next collection may move the object, so
     * use it before allocating. */
    const void *(*object_id)(GclabEnv *env, GclabRef ref);
} GclabFunctions;

struct GclabEnv {
    const GclabFunctions *fn;
};

#endif
