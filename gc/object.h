/*
 * object.h -- the shape of every heap object, shared by the VM and all
 * collectors.
 *
 * Every object starts with an ObjHeader. What follows depends on the kind of
 * its class:
 *
 *   instance  num_ref_fields reference slots, then num_prim_fields 8-byte
 *             primitive slots (int64, double or bool).  References first,
 *             so a collector scans one contiguous range.
 *   array     `length` elements of elem_size bytes each; for reference
 *             arrays every element is a reference slot.
 *   string    `length` bytes of UTF-8 followed by a NUL.  Immutable.
 *
 * An object's address is its VMPI object ID (docs/architecture.md, "Object,
 * class and arena IDs"), so nothing here may store an address the VM relies
 * on across an allocation: any allocation may move every object (semispace,
 * compaction).
 *
 * Sizes are rounded to OBJ_ALIGN so that bump allocators stay aligned.
 */
#ifndef GCLAB_OBJECT_H
#define GCLAB_OBJECT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define OBJ_ALIGN 8u

/* Bytes an object gives each reference slot, and its class pointer: 8 on
 * every target.  A 32-bit build (the browser's WebAssembly, docs/lab.md)
 * keeps its 4-byte pointers at the front of that room, so every object is
 * exactly as big as in a 64-bit build: the same sizes, the same heap
 * occupancy, the same collections. */
#define OBJ_REF_BYTES 8u

/* Element kinds. The numeric values are JVMPI's is_array codes
 * (JVMPI 1.2, JVMPI_EVENT_OBJECT_ALLOC), so OBJECT_ALLOC can pass them on
 * unchanged. */
typedef enum ElemKind {
    ELEM_NONE = 0,    /* JVMPI_NORMAL_OBJECT: not an array            */
    ELEM_REF = 2,     /* JVMPI_CLASS: array of references             */
    ELEM_BOOL = 4,    /* JVMPI_BOOLEAN                                 */
    ELEM_CHAR = 5,    /* JVMPI_CHAR   (16-bit unsigned)                */
    ELEM_FLOAT = 6,   /* JVMPI_FLOAT                                   */
    ELEM_DOUBLE = 7,  /* JVMPI_DOUBLE                                  */
    ELEM_BYTE = 8,    /* JVMPI_BYTE                                    */
    ELEM_SHORT = 9,   /* JVMPI_SHORT                                   */
    ELEM_INT = 10,    /* JVMPI_INT    (32-bit)                         */
    ELEM_LONG = 11,   /* JVMPI_LONG   (64-bit: the language's `int`)   */
} ElemKind;

typedef enum ClassKind {
    CLASS_INSTANCE,
    CLASS_ARRAY,
    CLASS_STRING,
} ClassKind;

/* The VM's runtime record of a class.  It lives outside the collected heap
 * and never moves; `class_id` is the VMPI class ID reported in CLASS_LOAD
 * and OBJECT_ALLOC (the address of an immortal class object). */
typedef struct RtClass {
    const char *name;          /* "Node", "int[]", "Node[]", "String" */
    ClassKind kind;
    ElemKind elem_kind;        /* arrays only; ELEM_NONE otherwise */
    uint32_t elem_size;        /* arrays only: bytes per element */
    uint32_t num_ref_fields;   /* instances only */
    uint32_t num_prim_fields;  /* instances only */
    const struct RtClass *elem_class; /* ELEM_REF arrays: element class, else NULL */
    uint64_t class_id;         /* VMPI class ID */
    uint32_t program_index;    /* index in Program.classes, or UINT32_MAX for arrays/String */
} RtClass;

/* The collector-private word holds whatever one collector needs in every
 * object: a mark bit, an age, a reference count, a "forwarded" flag.  Its
 * meaning belongs to the collector in use; the VM never reads it. */
typedef struct ObjHeader {
    union {
        const RtClass *cls;  /* during a copying collection: forwarding address */
        uint64_t cls_room;   /* OBJ_REF_BYTES, whatever a pointer's size */
    };
    uint32_t gc_word;
    uint32_t length;     /* array element count or string byte length */
} ObjHeader;

typedef ObjHeader Obj;

static inline size_t obj_align(size_t n) { return (n + OBJ_ALIGN - 1) & ~(size_t)(OBJ_ALIGN - 1); }

static inline void *obj_body(const Obj *o) { return (void *)(o + 1); }

/* Bytes an object of class `cls` with `length` elements occupies. */
static inline size_t obj_size_for(const RtClass *cls, uint32_t length) {
    switch (cls->kind) {
    case CLASS_INSTANCE:
        return sizeof(Obj) + OBJ_REF_BYTES * cls->num_ref_fields + 8u * (size_t)cls->num_prim_fields;
    case CLASS_ARRAY:
        return obj_align(sizeof(Obj) + (size_t)cls->elem_size * length);
    case CLASS_STRING:
        return obj_align(sizeof(Obj) + (size_t)length + 1);
    }
    return sizeof(Obj);
}

static inline size_t obj_size(const Obj *o) { return obj_size_for(o->cls, o->length); }

/* The reference slots of an object: `*count` slots starting at the return
 * value.  This is the one place that knows where references live, so every
 * tracer (mark, copy, compact, refcount, verifier, heap dump) uses it. */
static inline Obj **obj_ref_slots(const Obj *o, size_t *count) {
    const RtClass *c = o->cls;
    if (c->kind == CLASS_INSTANCE)
        *count = c->num_ref_fields;
    else if (c->kind == CLASS_ARRAY && c->elem_kind == ELEM_REF)
        *count = o->length;
    else
        *count = 0;
    return (Obj **)obj_body(o);
}

/* Instance field access: reference field i, primitive field i. */
static inline Obj **obj_ref_field(Obj *o, uint32_t i) { return (Obj **)obj_body(o) + i; }
static inline uint64_t *obj_prim_field(Obj *o, uint32_t i) {
    return (uint64_t *)((char *)obj_body(o) + OBJ_REF_BYTES * o->cls->num_ref_fields) + i;
}

static inline const char *str_chars(const Obj *s) { return (const char *)obj_body(s); }

#endif
