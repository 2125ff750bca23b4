/*
 * jni.h -- the part of JNI a JVMPI agent uses, for agents written for the
 * JVMPI of JDK 1.2 to 1.4.2 (docs/jvmpi.md).  Installed beside vmpi.h and
 * jvmpi.h; written for gclab from the JNI and JVMPI specifications, not
 * taken from a JDK.
 *
 * What is here: JNI's primitive types (jint, jlong, ...), the reference
 * types a JVMPI record names (jobject, jmethodID), JNIEXPORT and JNICALL,
 * JNI's result codes and versions, and JavaVM with its invocation table,
 * of which gclab fills GetEnv alone:
 *
 *     (*jvm)->GetEnv(jvm, (void **)&jvmpi, JVMPI_VERSION_1)   the JVMPI table
 *     (*jvm)->GetEnv(jvm, (void **)&env, JNI_VERSION_1_2)     this thread's JNIEnv *
 *
 * A JNIEnv * names a thread, as JVMPI uses it (its thread ID, JVMPI 1.2
 * section 1.4); gclab has no Java classes, so it offers no JNI function
 * table through it: JNIEnv is an opaque struct here, and an agent that
 * calls JNI functions ((*env)->FindClass ...) does not compile.
 */
#ifndef GCLAB_JNI_H
#define GCLAB_JNI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An agent's entry point stays exported when it is compiled with
 * -fvisibility=hidden; JNICALL is the platform's C calling convention. */
#if defined(__GNUC__) || defined(__clang__)
#define JNIEXPORT __attribute__((visibility("default")))
#else
#define JNIEXPORT
#endif
#define JNIIMPORT
#define JNICALL

/* JNI's primitive types, by their sizes in the JNI specification. */
typedef uint8_t jboolean;
typedef int8_t jbyte;
typedef uint16_t jchar;
typedef int16_t jshort;
typedef int32_t jint;
typedef int64_t jlong;
typedef float jfloat;
typedef double jdouble;
typedef jint jsize;

/* A reference a native holds (gclab: a global or weak global reference of
 * vm/native/gclab_native.h), and a method.  The struct tags are the ones
 * vmpi.h's VMPI_JNIRef and VMPI_MethodID point to. */
struct _jobject;
typedef struct _jobject *jobject;
typedef jobject jclass;
struct _jmethodID;
typedef struct _jmethodID *jmethodID;

/* A thread's identity (vmpi.h's VMPI_ThreadID is a JNIEnv *). */
struct JNIEnv_;
typedef struct JNIEnv_ JNIEnv;

#define JNI_FALSE 0
#define JNI_TRUE 1

#define JNI_OK 0
#define JNI_ERR (-1)
#define JNI_EDETACHED (-2) /* GetEnv: the calling thread is none of the VM's */
#define JNI_EVERSION (-3)  /* GetEnv: the version is not supported */

#define JNI_VERSION_1_1 0x00010001
#define JNI_VERSION_1_2 0x00010002
#define JNI_VERSION_1_4 0x00010004

/* The invocation interface, in the JNI specification's order.  gclab
 * fills GetEnv; the other slots are reserved (NULL): gclab's agents are
 * loaded by vmrun, never create, attach to or destroy a VM. */
struct JNIInvokeInterface_;
typedef const struct JNIInvokeInterface_ *JavaVM;
struct JNIInvokeInterface_ {
    void *reserved0;
    void *reserved1;
    void *reserved2;
    void *reserved_DestroyJavaVM;
    void *reserved_AttachCurrentThread;
    void *reserved_DetachCurrentThread;
    jint(JNICALL *GetEnv)(JavaVM *vm, void **penv, jint version);
};

#ifdef __cplusplus
}
#endif

#endif
