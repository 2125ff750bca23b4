/* dump_levels.c -- a test agent that checks heap dumps of levels 0, 1 and 2
 * against the known heap of tests/heap/known_heap.gcl (see its top
 * comment): when probe() is entered it requests the three dumps (with GC
 * disabled, so the IDs agree across them), reads every record, and checks
 *
 *   - level 0 lists `objects` IDs (the option), each once;
 *   - levels 1 and 2 list the same objects, one record each, and one
 *     STICKY_CLASS root and one CLASS_DUMP per class its CLASS_LOADs named;
 *   - the roots have the right kinds: one JNI_GLOBAL per interned string
 *     (`strings`, the option), each a String; the Node holding 7 in
 *     probe's frame (0) and in main's (1); the int[] in main's frame; no
 *     UNKNOWN root; every frame number inside its thread's trace;
 *   - the statics: Holder.chain is the Node holding 1, Holder.label is an
 *     interned string, and Holder.count = 3 at level 2 only;
 *   - primitive values at level 2 only: the Nodes' values sum to 13 and the
 *     int[]'s elements to 100.
 *
 * It prints "dump_levels: ok: ..." on stderr, or "dump_levels: FAIL: why"
 * and ends the run with ProfilerExit(1).  Usage:
 *   -agentpath:libdump_levels.so=objects=7,strings=2
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "vmpi.h"

static VMPI_Interface *vmpi;
static long expected_objects, expected_strings;

/* ---- what CLASS_LOAD said -------------------------------------------------------------------- */

#define MAX_CLASSES 32
#define MAX_STATICS 8

typedef struct KnownClass {
    void *class_id;
    char name[32];
    int32_t num_statics;
    char static_kinds[MAX_STATICS]; /* each static's signature's first character */
} KnownClass;

static KnownClass classes[MAX_CLASSES];
static int num_classes;
static VMPI_MethodID probe_method;

static const KnownClass *class_named(const char *name) {
    for (int i = 0; i < num_classes; i++)
        if (strcmp(classes[i].name, name) == 0) return &classes[i];
    return NULL;
}

static const KnownClass *class_with_id(const void *class_id) {
    for (int i = 0; i < num_classes; i++)
        if (classes[i].class_id == class_id) return &classes[i];
    return NULL;
}

static void fail(const char *why, long level) {
    fprintf(stderr, "dump_levels: FAIL: level %ld: %s\n", level, why);
    vmpi->ProfilerExit(1);
}

static void learn_class(const VMPI_Event *e) {
    if (num_classes == MAX_CLASSES || e->u.class_load.num_static_fields > MAX_STATICS) {
        fail("the known program has more classes or statics than this agent holds", -1);
        return;
    }
    KnownClass *c = &classes[num_classes++];
    c->class_id = e->u.class_load.class_id;
    snprintf(c->name, sizeof c->name, "%s", e->u.class_load.class_name);
    c->num_statics = e->u.class_load.num_static_fields;
    for (int32_t i = 0; i < c->num_statics; i++) c->static_kinds[i] = e->u.class_load.statics[i].field_signature[0];
    for (int32_t i = 0; i < e->u.class_load.num_methods; i++)
        if (strcmp(e->u.class_load.methods[i].method_name, "probe") == 0)
            probe_method = e->u.class_load.methods[i].method_id;
}

/* ---- one dump, read ---------------------------------------------------------------------------- */

#define MAX_OBJECTS 64
#define MAX_ROOTS 64

typedef struct Root {
    uint8_t type;
    void *object;
    uint32_t frame; /* JAVA_FRAME */
} Root;

typedef struct ObjectRecord {
    void *id;
    uint8_t type;          /* INSTANCE / OBJ_ARRAY / PRIM_ARRAY _DUMP, or ty at level 0 */
    void *class_id;        /* INSTANCE_DUMP */
    uint32_t data_bytes;   /* INSTANCE_DUMP: bytes of field values */
    int64_t first_value;   /* INSTANCE_DUMP of a Node at level 2: its value field */
    int64_t element_sum;   /* PRIM_ARRAY_DUMP of longs at level 2 */
} ObjectRecord;

typedef struct Dump {
    int32_t num_traces;
    int32_t trace_depth;   /* of the one thread */
    Root roots[MAX_ROOTS];
    int num_roots;
    ObjectRecord objects[MAX_OBJECTS];
    int num_objects;
    int num_class_dumps;
    void *holder_statics[MAX_STATICS];    /* Holder's reference statics, in order */
    int num_holder_refs;
    int64_t holder_count;                 /* Holder.count, -1 if not in the dump */
} Dump;

static Dump dumps[3];

typedef struct Reader {
    const char *at, *end;
    bool overrun;
} Reader;

static void take(Reader *r, void *out, size_t n) {
    if (r->overrun || (size_t)(r->end - r->at) < n) {
        r->overrun = true;
        memset(out, 0, n);
        return;
    }
    memcpy(out, r->at, n);
    r->at += n;
}
static uint8_t take_u1(Reader *r) { uint8_t v; take(r, &v, 1); return v; }
static uint16_t take_u2(Reader *r) { uint16_t v; take(r, &v, 2); return v; }
static uint32_t take_u4(Reader *r) { uint32_t v; take(r, &v, 4); return v; }
static int64_t take_u8(Reader *r) { int64_t v; take(r, &v, 8); return v; }
static void *take_id(Reader *r) { void *v; take(r, &v, sizeof v); return v; }
static void skip(Reader *r, size_t n) {
    if (r->overrun || (size_t)(r->end - r->at) < n) r->overrun = true;
    else r->at += n;
}

static void add_root(Dump *d, uint8_t type, void *object, uint32_t frame) {
    if (d->num_roots < MAX_ROOTS) d->roots[d->num_roots++] = (Root){type, object, frame};
}

static ObjectRecord *add_object(Dump *d, void *id, uint8_t type) {
    if (d->num_objects == MAX_OBJECTS) return NULL;
    ObjectRecord *o = &d->objects[d->num_objects++];
    *o = (ObjectRecord){.id = id, .type = type};
    return o;
}

static size_t prim_size(uint8_t ty) {
    switch (ty) {
    case VMPI_BOOLEAN: case VMPI_BYTE: return 1;
    case VMPI_CHAR: case VMPI_SHORT: return 2;
    case VMPI_FLOAT: case VMPI_INT: return 4;
    default: return 8;
    }
}

static void read_class_dump(Reader *r, Dump *d, int32_t level) {
    const KnownClass *c = class_with_id(take_id(r));
    for (int i = 0; i < 6; i++) take_id(r); /* super, loader, signers, domain, reserved */
    take_u4(r);                             /* instance size */
    uint16_t constants = take_u2(r);
    if (constants != 0 || !c) {
        r->overrun = true; /* no constant pools in gclab; an unknown class is as bad */
        return;
    }
    d->num_class_dumps++;
    bool holder = strcmp(c->name, "Holder") == 0;
    if (holder) d->holder_count = -1;
    for (int32_t i = 0; i < c->num_statics; i++) {
        char kind = c->static_kinds[i];
        if (kind == 'L' || kind == '[') {
            void *ref = take_id(r);
            if (holder) d->holder_statics[d->num_holder_refs++] = ref;
        } else if (level == VMPI_DUMP_LEVEL_2) {
            int64_t value = kind == 'Z' ? take_u1(r) : take_u8(r);
            if (holder) d->holder_count = value;
        }
    }
}

static void read_records(Reader *r, Dump *d, int32_t level) {
    while (r->at < r->end && !r->overrun) {
        uint8_t type = take_u1(r);
        void *object = take_id(r);
        switch (type) {
        case VMPI_GC_ROOT_UNKNOWN:
        case VMPI_GC_ROOT_STICKY_CLASS:
        case VMPI_GC_ROOT_MONITOR_USED:
            add_root(d, type, object, 0);
            break;
        case VMPI_GC_ROOT_JNI_GLOBAL:
        case VMPI_GC_ROOT_NATIVE_STACK:
        case VMPI_GC_ROOT_THREAD_BLOCK:
            take_id(r); /* handle or thread */
            add_root(d, type, object, 0);
            break;
        case VMPI_GC_ROOT_JNI_LOCAL:
        case VMPI_GC_ROOT_JAVA_FRAME:
            take_id(r); /* thread */
            add_root(d, type, object, take_u4(r));
            break;
        case VMPI_GC_CLASS_DUMP:
            r->at -= sizeof object; /* the class ID is read with the record */
            read_class_dump(r, d, level);
            break;
        case VMPI_GC_INSTANCE_DUMP: {
            ObjectRecord *o = add_object(d, object, type);
            void *class_id = take_id(r);
            uint32_t bytes = take_u4(r);
            const char *data = r->at;
            skip(r, bytes);
            if (!o) break;
            o->class_id = class_id;
            o->data_bytes = bytes;
            if (level == VMPI_DUMP_LEVEL_2 && bytes >= 8 && !r->overrun) memcpy(&o->first_value, data, 8);
            break;
        }
        case VMPI_GC_OBJ_ARRAY_DUMP: {
            add_object(d, object, type);
            uint32_t length = take_u4(r);
            take_id(r); /* element class */
            skip(r, (size_t)length * sizeof(void *));
            break;
        }
        case VMPI_GC_PRIM_ARRAY_DUMP: {
            ObjectRecord *o = add_object(d, object, type);
            uint32_t length = take_u4(r);
            uint8_t ty = take_u1(r);
            if (level != VMPI_DUMP_LEVEL_2) break;
            for (uint32_t i = 0; i < length && !r->overrun; i++) {
                if (ty == VMPI_LONG && o) o->element_sum += take_u8(r);
                else skip(r, prim_size(ty));
            }
            break;
        }
        default:
            r->overrun = true; /* not a record type of JVMPI 1.2 section 4.2 */
        }
    }
}

static void read_level0(Reader *r, Dump *d) {
    while (r->at < r->end && !r->overrun) {
        uint8_t ty = take_u1(r);
        if (!add_object(d, take_id(r), ty)) r->overrun = true;
    }
}

static void notify_dump(const VMPI_Event *e) {
    int32_t level = e->u.heap_dump.dump_level;
    if (level < 0 || level > 2) {
        fail("no such level", level);
        return;
    }
    Dump *d = &dumps[level];
    memset(d, 0, sizeof *d);
    d->num_traces = e->u.heap_dump.num_traces;
    if (d->num_traces == 1) d->trace_depth = e->u.heap_dump.traces[0].num_frames;
    Reader r = {.at = e->u.heap_dump.begin, .end = e->u.heap_dump.end};
    if (level == VMPI_DUMP_LEVEL_0) read_level0(&r, d);
    else read_records(&r, d, level);
    if (r.overrun) fail("the dump is malformed or larger than the known heap", level);
}

/* ---- the checks ---------------------------------------------------------------------------------- */

static const ObjectRecord *object_in(const Dump *d, const void *id) {
    for (int i = 0; i < d->num_objects; i++)
        if (d->objects[i].id == id) return &d->objects[i];
    return NULL;
}

static int roots_of_type(const Dump *d, uint8_t type) {
    int n = 0;
    for (int i = 0; i < d->num_roots; i++) n += d->roots[i].type == type;
    return n;
}

static bool rooted_in_frame(const Dump *d, const void *object, uint32_t frame) {
    for (int i = 0; i < d->num_roots; i++)
        if (d->roots[i].type == VMPI_GC_ROOT_JAVA_FRAME && d->roots[i].object == object && d->roots[i].frame == frame)
            return true;
    return false;
}

/* The Node whose value is `value`, found in the level-2 dump. */
static const void *node_holding(int64_t value) {
    const KnownClass *node = class_named("Node");
    const Dump *d = &dumps[VMPI_DUMP_LEVEL_2];
    for (int i = 0; i < d->num_objects; i++)
        if (node && d->objects[i].class_id == node->class_id && d->objects[i].first_value == value)
            return d->objects[i].id;
    return NULL;
}

static const void *the_int_array(void) {
    const Dump *d = &dumps[VMPI_DUMP_LEVEL_2];
    for (int i = 0; i < d->num_objects; i++)
        if (d->objects[i].type == VMPI_GC_PRIM_ARRAY_DUMP) return d->objects[i].id;
    return NULL;
}

#define CHECK(cond, why, level) \
    do {                        \
        if (!(cond)) {          \
            fail(why, level);   \
            return;             \
        }                       \
    } while (0)

static void check_level0(void) {
    const Dump *d0 = &dumps[0];
    CHECK(d0->num_objects == expected_objects, "not the known number of objects", 0);
    for (int i = 0; i < d0->num_objects; i++)
        for (int j = i + 1; j < d0->num_objects; j++)
            CHECK(d0->objects[i].id != d0->objects[j].id, "an object listed twice", 0);
}

static void check_records(long level) {
    const Dump *d = &dumps[level], *d0 = &dumps[0];
    bool with_primitives = level == VMPI_DUMP_LEVEL_2;
    CHECK(d->num_objects == d0->num_objects, "not one record per object of the level-0 dump", level);
    for (int i = 0; i < d0->num_objects; i++)
        CHECK(object_in(d, d0->objects[i].id), "an object of the level-0 dump has no record", level);
    CHECK(d->num_class_dumps == num_classes, "not one CLASS_DUMP per class", level);
    CHECK(roots_of_type(d, VMPI_GC_ROOT_STICKY_CLASS) == num_classes, "not one STICKY_CLASS root per class", level);
    CHECK(roots_of_type(d, VMPI_GC_ROOT_UNKNOWN) == 0, "a root of unknown kind", level);
    CHECK(roots_of_type(d, VMPI_GC_ROOT_JNI_GLOBAL) == expected_strings, "not one JNI_GLOBAL per interned string",
          level);
    const KnownClass *string = class_named("String");
    for (int i = 0; i < d->num_roots; i++) {
        const Root *root = &d->roots[i];
        if (root->type == VMPI_GC_ROOT_JNI_GLOBAL) {
            const ObjectRecord *o = object_in(d, root->object);
            CHECK(o && string && o->class_id == string->class_id, "a JNI_GLOBAL root is not a String", level);
        }
        if (root->type == VMPI_GC_ROOT_JAVA_FRAME)
            CHECK(root->frame < (uint32_t)d->trace_depth, "a frame number outside its thread's trace", level);
    }
    CHECK(d->num_traces == 1, "not one trace (one thread)", level);

    const void *seven = node_holding(7), *one = node_holding(1), *numbers = the_int_array();
    CHECK(seven && rooted_in_frame(d, seven, 0), "Node 7 is not a JAVA_FRAME root of probe's frame (0)", level);
    CHECK(rooted_in_frame(d, seven, 1), "Node 7 is not a JAVA_FRAME root of main's frame (1)", level);
    CHECK(numbers && rooted_in_frame(d, numbers, 1), "the int[] is not a JAVA_FRAME root of main's frame", level);

    CHECK(d->num_holder_refs == 2, "Holder's CLASS_DUMP lacks its two reference statics", level);
    CHECK(one && d->holder_statics[0] == one, "Holder.chain is not the Node holding 1", level);
    bool label_interned = false;
    for (int i = 0; i < d->num_roots; i++)
        label_interned |= d->roots[i].type == VMPI_GC_ROOT_JNI_GLOBAL && d->roots[i].object == d->holder_statics[1];
    CHECK(label_interned, "Holder.label is not an interned string", level);
    CHECK(d->holder_count == (with_primitives ? 3 : -1),
          with_primitives ? "Holder.count is not 3" : "a primitive static at level 1", level);

    const KnownClass *node = class_named("Node");
    int64_t node_sum = 0, element_sum = 0;
    for (int i = 0; i < d->num_objects; i++) {
        const ObjectRecord *o = &d->objects[i];
        if (node && o->class_id == node->class_id) {
            CHECK(o->data_bytes == (with_primitives ? 8 : 0) + sizeof(void *),
                  "a Node's fields are not next, with value at level 2 only", level);
            node_sum += o->first_value;
        }
        element_sum += o->element_sum;
    }
    CHECK(node_sum == (with_primitives ? 13 : 0), "the Nodes' values do not sum to 13", level);
    CHECK(element_sum == (with_primitives ? 100 : 0), "the int[]'s elements do not sum to 100", level);
}

static void dump_and_check(void) {
    vmpi->DisableGC(); /* the same IDs in all three dumps */
    for (int32_t level = VMPI_DUMP_LEVEL_0; level <= VMPI_DUMP_LEVEL_2; level++) {
        VMPI_HeapDumpArg arg = {.heap_dump_level = level};
        if (vmpi->RequestEvent(VMPI_EVENT_HEAP_DUMP, &arg) != VMPI_OK) fail("RequestEvent failed", level);
    }
    vmpi->EnableGC();
    check_level0();
    check_records(VMPI_DUMP_LEVEL_2); /* first: it finds the Nodes by value for level 1 */
    check_records(VMPI_DUMP_LEVEL_1);
    const Dump *d = &dumps[VMPI_DUMP_LEVEL_2];
    fprintf(stderr,
            "dump_levels: ok: %d objects at levels 0, 1 and 2; roots: %d JAVA_FRAME, %d JNI_GLOBAL, "
            "%d STICKY_CLASS, %d NATIVE_STACK, %d UNKNOWN\n",
            dumps[0].num_objects, roots_of_type(d, VMPI_GC_ROOT_JAVA_FRAME),
            roots_of_type(d, VMPI_GC_ROOT_JNI_GLOBAL), roots_of_type(d, VMPI_GC_ROOT_STICKY_CLASS),
            roots_of_type(d, VMPI_GC_ROOT_NATIVE_STACK), roots_of_type(d, VMPI_GC_ROOT_UNKNOWN));
}

static void notify(VMPI_Event *e) {
    switch (e->event_type & ~VMPI_REQUESTED_EVENT) {
    case VMPI_EVENT_CLASS_LOAD:
        learn_class(e);
        break;
    case VMPI_EVENT_METHOD_ENTRY:
        if (probe_method && e->u.method.method_id == probe_method) dump_and_check();
        break;
    case VMPI_EVENT_HEAP_DUMP:
        notify_dump(e);
        break;
    default:
        break;
    }
}

int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)reserved;
    if (sscanf(options, "objects=%ld,strings=%ld", &expected_objects, &expected_strings) != 2) {
        fprintf(stderr, "dump_levels: options must be objects=N,strings=N\n");
        return VMPI_ERR;
    }
    if (vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1) != VMPI_OK) return VMPI_ERR;
    vmpi->NotifyEvent = notify;
    if (vmpi->EnableEvent(VMPI_EVENT_CLASS_LOAD, NULL) != VMPI_OK) return VMPI_ERR;
    return vmpi->EnableEvent(VMPI_EVENT_METHOD_ENTRY, NULL);
}
