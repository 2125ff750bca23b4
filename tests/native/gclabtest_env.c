/*
 * gclabtest_env.c -- the `native env` functions of the test library: they
 * call back into the VM (vm/native/gclab_native.h) to build and read
 * objects and to hold global and weak global references, so that the
 * programs in tests/native can check all of it under every collector.
 */
#include <stddef.h>
#include <stdint.h>

#include "vm/native/gclab_native.h"

/* A Node class: int value; Node next; double weight; bool flag. */
typedef struct NodeFields {
    GclabClass cls;
    GclabField value, next, weight, flag;
} NodeFields;

static NodeFields node_fields(GclabEnv *env) {
    NodeFields f;
    f.cls = env->fn->find_class(env, "Node");
    f.value = env->fn->field(env, f.cls, "value");
    f.next = env->fn->field(env, f.cls, "next");
    f.weight = env->fn->field(env, f.cls, "weight");
    f.flag = env->fn->field(env, f.cls, "flag");
    return f;
}

/* A list of n Nodes, values 1 .. n from the head, weights value / 2, every
 * third flagged; between nodes it makes `garbage` objects that die at once,
 * so a collection may run (and move the list) while the list is half built. */
GclabRef gt_make_list(GclabEnv *env, int64_t n, int64_t garbage) {
    NodeFields f = node_fields(env);
    GclabRef head = NULL;
    for (int64_t i = n; i > 0; i--) {
        for (int64_t g = 0; g < garbage; g++) env->fn->new_object(env, f.cls);
        GclabRef node = env->fn->new_object(env, f.cls);
        env->fn->set_int(env, node, f.value, i);
        env->fn->set_double(env, node, f.weight, (double)i / 2);
        env->fn->set_int(env, node, f.flag, i % 3 == 0 ? 7 : 0); /* any non-zero is true */
        env->fn->set_ref(env, node, f.next, head);
        head = node;
    }
    return head;
}

/* The sum of the values, of the weights (times 2) and of the flags of the
 * list at `head`, read through the API: must equal what the program reads. */
int64_t gt_sum_list(GclabEnv *env, GclabRef head) {
    NodeFields f = node_fields(env);
    int64_t sum = 0;
    for (GclabRef node = head; node != NULL; node = env->fn->get_ref(env, node, f.next))
        sum += env->fn->get_int(env, node, f.value) + (int64_t)(2 * env->fn->get_double(env, node, f.weight)) +
               env->fn->get_int(env, node, f.flag);
    return sum;
}

/* ---- a global reference, kept across calls ---------------------------------- */

static GclabRef kept;

void gt_keep(GclabEnv *env, GclabRef node) {
    if (kept) env->fn->delete_global_ref(env, kept);
    kept = env->fn->new_global_ref(env, node);
}

GclabRef gt_kept(GclabEnv *env) { return env->fn->new_local_ref(env, kept); }

void gt_drop(GclabEnv *env) {
    env->fn->delete_global_ref(env, kept);
    kept = NULL;
}

/* ---- a weak global reference ----------------------------------------------- */

static GclabRef watched;

void gt_watch(GclabEnv *env, GclabRef node) {
    if (watched) env->fn->delete_weak_global_ref(env, watched);
    watched = env->fn->new_weak_global_ref(env, node);
}

/* The watched node's value, or -1 once the collector has cleared the
 * reference (its node died). */
int64_t gt_watched(GclabEnv *env) {
    if (env->fn->is_same_object(env, watched, NULL)) return -1;
    GclabRef node = env->fn->new_local_ref(env, watched);
    return env->fn->get_int(env, node, node_fields(env).value);
}

void gt_unwatch(GclabEnv *env) {
    env->fn->delete_weak_global_ref(env, watched);
    watched = NULL;
}

/* ---- misuse: each is a runtime error naming the native -------------------- */

void gt_misuse(GclabEnv *env, int64_t how) {
    NodeFields f = node_fields(env);
    GclabRef node = env->fn->new_object(env, f.cls);
    switch (how) {
    case 0: env->fn->get_int(env, NULL, f.value); break;             /* null object */
    case 1: env->fn->get_double(env, node, f.value); break;          /* int field read as double */
    case 2: env->fn->set_ref(env, node, f.next, node); env->fn->get_int(env, node, 99); break; /* no field 99 */
    default: env->fn->delete_global_ref(env, node); break;           /* a local is no global */
    }
}
