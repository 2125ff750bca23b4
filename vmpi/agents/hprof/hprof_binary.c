/*
 * hprof_binary.c -- format=b, the HPROF binary format (see hprof_binary.h).
 */
#define _GNU_SOURCE /* fopencookie */
#include "hprof_binary.h"

#include <errno.h>
#include <iconv.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "common/heap_dump_records.h"
#include "common/grow.h"

/* Record tags and heap dump sub-record tags (the HPROF agent manual,
 * "Binary Dump Format (format=b)"). */
enum {
    TAG_UTF8 = 0x01, TAG_LOAD_CLASS = 0x02, TAG_STACK_FRAME = 0x04, TAG_STACK_TRACE = 0x05,
    TAG_ALLOC_SITES = 0x06, TAG_HEAP_SUMMARY = 0x07, TAG_START_THREAD = 0x0A, TAG_END_THREAD = 0x0B,
    TAG_CPU_SAMPLES = 0x0D, TAG_CONTROL_SETTINGS = 0x0E,
    TAG_HEAP_DUMP_SEGMENT = 0x1C, TAG_HEAP_DUMP_END = 0x2C,
    SUB_ROOT_UNKNOWN = 0xFF, SUB_ROOT_JNI_GLOBAL = 0x01, SUB_ROOT_JNI_LOCAL = 0x02, SUB_ROOT_JAVA_FRAME = 0x03,
    SUB_ROOT_NATIVE_STACK = 0x04, SUB_ROOT_STICKY_CLASS = 0x05,
    SUB_ROOT_MONITOR_USED = 0x07, SUB_ROOT_THREAD_OBJECT = 0x08, SUB_CLASS_DUMP = 0x20, SUB_INSTANCE_DUMP = 0x21,
    SUB_OBJECT_ARRAY_DUMP = 0x22, SUB_PRIMITIVE_ARRAY_DUMP = 0x23,
};

/* Basic types (the manual's "Basic Type" table); the primitive ones equal
 * VMPI's is_array codes. */
enum { TYPE_OBJECT = 2, TYPE_BOOLEAN = 4 };

#define ID_SIZE 8
#define RECORD_HEADER_BYTES 9   /* u1 tag, u4 time, u4 length */
#define HEADER_BYTES 16         /* a gclab object's header (gc/object.h: ObjHeader) */
#define SLOT_BYTES 8            /* each instance field's slot */

/* The classes and objects hprof adds have odd IDs below 4096: the VM's IDs
 * are 8-byte-aligned heap addresses, and a String's char[] has its
 * String's address plus one, never in the first page (hprof_binary.h). */
enum {
    OBJECT_CLASS_ID = 1,     /* java.lang.Object, every class's superclass */
    CHARS_CLASS_ID = 3,      /* char[], if the VM has none */
    SYSTEM_CLASS_ID = 5,     /* java.lang.System, whose props are the properties */
    PROPERTIES_CLASS_ID = 7, /* java.util.Properties */
    ENTRY_CLASS_ID = 9,      /* java.util.Hashtable$Entry */
    ENTRIES_CLASS_ID = 11,   /* java.util.Hashtable$Entry[] */
    JAVA_STRING_CLASS_ID = 13, /* java.lang.String, for the properties' text */
    CLASS_CLASS_ID = 15,     /* java.lang.Class, the class of a class as an object (a GC root's) */
    REFERENCE_CLASS_ID = 17, /* java.lang.ref.Reference and the 4 kinds of reference VisualVM */
    FIRST_REFERENCE_KIND_ID = 19, /* looks for: no instances (gclab has none) */
    PROPERTIES_ID = 27,      /* the objects: the Properties, */
    TABLE_ID = 29,           /* its table, */
    FIRST_ENTRY_ID = 31,     /* then per entry 5 objects: the entry, key, key's chars, value, value's chars */
};
#define PROPERTIES 7         /* java.lang.System's props: java.vm.name ... os.arch */
#define OBJECT_CLASS_INDEX 0

/* ---- big-endian output ----------------------------------------------------------------- */

static void put_u1(FILE *f, uint8_t v) { putc(v, f); }
static void put_u2(FILE *f, uint16_t v) {
    putc(v >> 8, f);
    putc(v & 0xff, f);
}
static void put_u4(FILE *f, uint32_t v) {
    put_u2(f, (uint16_t)(v >> 16));
    put_u2(f, (uint16_t)v);
}
static void put_u8(FILE *f, uint64_t v) {
    put_u4(f, (uint32_t)(v >> 32));
    put_u4(f, (uint32_t)v);
}
static void put_id(FILE *f, uint64_t id) { put_u8(f, id); }
static uint32_t clamp_u4(uint64_t v) { return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; }

static int64_t now_us(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000;
}

static void put_record_header(FILE *f, uint8_t tag, uint32_t time_us, uint32_t length) {
    put_u1(f, tag);
    put_u4(f, time_us);
    put_u4(f, length);
}

static void put_record(HprofBinary *b, uint8_t tag, uint32_t length) {
    put_record_header(b->out, tag, (uint32_t)(now_us() - b->start_us), length);
}

/* A STRING IN UTF8 record; returns its ID. */
static uint64_t put_string(HprofBinary *b, const char *text) {
    if (!text) text = "";
    size_t n = strlen(text);
    uint64_t id = b->next_string_id++;
    put_record(b, TAG_UTF8, (uint32_t)(ID_SIZE + n));
    put_id(b->out, id);
    fwrite(text, 1, n, b->out);
    return id;
}

/* ---- Java's names and types ------------------------------------------------------------ */

/* gclab's primitive type names, Java's, and the VMPI element kind. */
static const struct {
    const char *gclab, *java;
    uint8_t kind;
} primitives[] = {
    {"bool", "boolean", VMPI_BOOLEAN}, {"byte", "byte", VMPI_BYTE},    {"char", "char", VMPI_CHAR},
    {"short", "short", VMPI_SHORT},    {"int32", "int", VMPI_INT},     {"int", "long", VMPI_LONG},
    {"float", "float", VMPI_FLOAT},    {"double", "double", VMPI_DOUBLE},
};

/* A class name as Java writes it ("int[][]" -> "long[][]"); returns the
 * element kind of a one-dimensional primitive array, else 0. */
static uint8_t java_name(const char *name, char *java, size_t size) {
    size_t len = strlen(name), dims = 0;
    while (len >= 2 && name[len - 2] == '[' && name[len - 1] == ']') {
        len -= 2;
        dims++;
    }
    const char *base = NULL;
    uint8_t kind = 0;
    for (size_t i = 0; dims && i < sizeof primitives / sizeof primitives[0]; i++)
        if (strlen(primitives[i].gclab) == len && strncmp(name, primitives[i].gclab, len) == 0) {
            base = primitives[i].java;
            kind = dims == 1 ? primitives[i].kind : 0;
        }
    if (base)
        snprintf(java, size, "%s%s", base, name + len);
    else
        snprintf(java, size, "%s", name);
    return kind;
}

/* A field's basic type from its descriptor (program.h: JVM letters). */
static uint8_t basic_type(const char *signature) {
    switch (signature ? signature[0] : 'L') {
    case 'Z': return VMPI_BOOLEAN;
    case 'B': return VMPI_BYTE;
    case 'C': return VMPI_CHAR;
    case 'S': return VMPI_SHORT;
    case 'I': return VMPI_INT;
    case 'J': return VMPI_LONG;
    case 'F': return VMPI_FLOAT;
    case 'D': return VMPI_DOUBLE;
    default: return TYPE_OBJECT;
    }
}

static size_t type_size(uint8_t type) { return type == TYPE_OBJECT ? ID_SIZE : dump_primitive_size(type); }

/* ---- start, classes, threads ----------------------------------------------------------- */

static ssize_t write_to_trace_output(void *cookie, const char *bytes, size_t n) {
    trace_output_bytes(cookie, bytes, n);
    return (ssize_t)n;
}

FILE *hprof_binary_stream(TraceOutput *out) {
    return fopencookie(out, "w", (cookie_io_functions_t){.write = write_to_trace_output});
}

/* Room for one more class; marks the profile failed if memory is out. */
static bool room_for_class(HprofBinary *b) {
    if (agent_grow((void **)&b->classes, &b->classes_capacity, b->num_classes + 1, sizeof *b->classes, 64))
        return true;
    b->failed = true;
    return false;
}

/* LOAD CLASS for class `index`, named `java`. */
static void put_load_class(HprofBinary *b, size_t index, const char *java) {
    uint64_t name = put_string(b, java);
    put_record(b, TAG_LOAD_CLASS, 4 + ID_SIZE + 4 + ID_SIZE);
    put_u4(b->out, (uint32_t)index + 1);
    put_id(b->out, b->classes[index].id);
    put_u4(b->out, 0); /* stack trace serial: classes are not allocated */
    put_id(b->out, name);
}

static HprofBinaryField *learn_fields(HprofBinary *b, const VMPI_Field *fields, int32_t n) {
    if (n == 0) return NULL;
    HprofBinaryField *learned = calloc((size_t)n + 1, sizeof *learned);
    if (!learned) {
        b->failed = true;
        return NULL;
    }
    for (int32_t i = 0; i < n; i++)
        learned[i] = (HprofBinaryField){put_string(b, fields[i].field_name), basic_type(fields[i].field_signature)};
    return learned;
}

/* A class hprof adds: no gclab name; its reference fields and statics
 * (JVM descriptors) and LOAD CLASS.  Returns its index, or SIZE_MAX. */
static size_t add_class(HprofBinary *b, uint64_t id, uint64_t super_id, const char *java, const VMPI_Field *fields,
                        int32_t num_fields, const VMPI_Field *statics, int32_t num_statics) {
    if (!room_for_class(b)) return SIZE_MAX;
    size_t index = b->num_classes++;
    HprofBinaryClass *c = &b->classes[index];
    *c = (HprofBinaryClass){.id = id, .super_id = super_id};
    c->fields = learn_fields(b, fields, num_fields);
    c->statics = learn_fields(b, statics, num_statics);
    if (c->fields) c->num_fields = num_fields;
    if (c->statics) c->num_statics = num_statics;
    put_load_class(b, index, java);
    return index;
}

bool hprof_binary_open(HprofBinary *b, FILE *out, const char *(*collector_name)(void)) {
    *b = (HprofBinary){.out = out, .start_us = now_us(), .next_string_id = 1, .next_frame_id = 1,
                       .collector_name = collector_name};
    if (!idmap_init(&b->class_ids, 64) || !idmap_init(&b->method_ids, 256) || !idmap_init(&b->array_classes, 16))
        return false;
    fputs("JAVA PROFILE 1.0.2", out);
    put_u1(out, 0);
    put_u4(out, ID_SIZE);
    put_u8(out, (uint64_t)(b->start_us / 1000));
    const VMPI_Field props = {"props", "Ljava/util/Properties;"}, table = {"table", "[Ljava/util/Hashtable$Entry;"};
    const VMPI_Field entry[] = {{"key", "Ljava/lang/Object;"}, {"value", "Ljava/lang/Object;"},
                                {"next", "Ljava/util/Hashtable$Entry;"}};
    const VMPI_Field chars = {"value", "[C"}, referent = {"referent", "Ljava/lang/Object;"};
    static const char *const reference_kinds[] = {"java.lang.ref.WeakReference", "java.lang.ref.SoftReference",
                                                  "java.lang.ref.FinalReference", "java.lang.ref.PhantomReference"};
    bool added = add_class(b, OBJECT_CLASS_ID, 0, "java.lang.Object", NULL, 0, NULL, 0) == OBJECT_CLASS_INDEX &&
                 add_class(b, SYSTEM_CLASS_ID, OBJECT_CLASS_ID, "java.lang.System", NULL, 0, &props, 1) != SIZE_MAX &&
                 add_class(b, PROPERTIES_CLASS_ID, OBJECT_CLASS_ID, "java.util.Properties", &table, 1, NULL, 0) != SIZE_MAX &&
                 add_class(b, ENTRY_CLASS_ID, OBJECT_CLASS_ID, "java.util.Hashtable$Entry", entry, 3, NULL, 0) != SIZE_MAX &&
                 add_class(b, ENTRIES_CLASS_ID, OBJECT_CLASS_ID, "java.util.Hashtable$Entry[]", NULL, 0, NULL, 0) != SIZE_MAX &&
                 add_class(b, JAVA_STRING_CLASS_ID, OBJECT_CLASS_ID, "java.lang.String", &chars, 1, NULL, 0) != SIZE_MAX &&
                 add_class(b, CLASS_CLASS_ID, OBJECT_CLASS_ID, "java.lang.Class", NULL, 0, NULL, 0) != SIZE_MAX &&
                 add_class(b, REFERENCE_CLASS_ID, OBJECT_CLASS_ID, "java.lang.ref.Reference", &referent, 1, NULL, 0) != SIZE_MAX;
    for (uint64_t i = 0; added && i < 4; i++)
        added = add_class(b, FIRST_REFERENCE_KIND_ID + 2 * i, REFERENCE_CLASS_ID, reference_kinds[i], NULL, 0, NULL, 0) != SIZE_MAX;
    return added && !b->failed;
}

void hprof_binary_control_settings(HprofBinary *b, bool alloc_traces, bool cpu_sampling, int32_t depth) {
    put_record(b, TAG_CONTROL_SETTINGS, 4 + 2);
    put_u4(b->out, (alloc_traces ? 0x1u : 0) | (cpu_sampling ? 0x2u : 0));
    put_u2(b->out, (uint16_t)depth);
}

void hprof_binary_class_load(HprofBinary *b, const VMPI_Event *class_load) {
    uint64_t id = (uint64_t)(uintptr_t)class_load->u.class_load.class_id;
    if (!id || idmap_find(&b->class_ids, id)) return;
    if (!room_for_class(b) || !idmap_reserve(&b->class_ids, b->class_ids.count + 1)) {
        b->failed = true;
        return;
    }
    const char *name = class_load->u.class_load.class_name ? class_load->u.class_load.class_name : "";
    size_t index = b->num_classes;
    HprofBinaryClass *c = &b->classes[index];
    *c = (HprofBinaryClass){.id = id, .name = strdup(name),
                            .source = put_string(b, class_load->u.class_load.source_name)};
    if (!c->name) b->failed = true;
    c->statics = learn_fields(b, class_load->u.class_load.statics, class_load->u.class_load.num_static_fields);
    if (c->statics) c->num_statics = class_load->u.class_load.num_static_fields;
    c->is_string = strcmp(name, "String") == 0; /* the language reserves the name */
    VMPI_Field value = {"value", "[C"};
    c->fields = c->is_string ? learn_fields(b, &value, 1)
                             : learn_fields(b, class_load->u.class_load.instances,
                                            class_load->u.class_load.num_instance_fields);
    if (c->fields) c->num_fields = c->is_string ? 1 : class_load->u.class_load.num_instance_fields;
    idmap_insert(&b->class_ids, id, 0, 0)->tag = (uint32_t)index;
    b->num_classes++;
    char java[1024];
    uint8_t kind = java_name(name, java, sizeof java);
    if (kind) b->primitive_arrays[kind] = (uint32_t)index + 1;
    put_load_class(b, index, java);
    for (int32_t i = 0; i < class_load->u.class_load.num_methods; i++) {
        const VMPI_Method *m = &class_load->u.class_load.methods[i];
        uint64_t method_id = (uint64_t)(uintptr_t)m->method_id;
        if (!method_id || idmap_find(&b->method_ids, method_id)) continue;
        if (!agent_grow((void **)&b->methods, &b->methods_capacity, b->num_methods + 1, sizeof *b->methods, 256) ||
            !idmap_reserve(&b->method_ids, b->method_ids.count + 1)) {
            b->failed = true;
            return;
        }
        b->methods[b->num_methods] = (HprofBinaryMethod){put_string(b, m->method_name),
                                                         put_string(b, m->method_signature), (uint32_t)index};
        idmap_insert(&b->method_ids, method_id, 0, 0)->tag = (uint32_t)b->num_methods++;
    }
}

void hprof_binary_thread_start(HprofBinary *b, uint32_t number, const VMPI_Event *thread_start) {
    uint64_t name = put_string(b, thread_start->u.thread_start.thread_name);
    uint64_t group = put_string(b, thread_start->u.thread_start.group_name);
    uint64_t parent = put_string(b, thread_start->u.thread_start.parent_name);
    put_record(b, TAG_START_THREAD, 4 + ID_SIZE + 4 + 3 * ID_SIZE);
    put_u4(b->out, number);
    put_id(b->out, (uint64_t)(uintptr_t)thread_start->u.thread_start.thread_id);
    put_u4(b->out, 0); /* stack trace serial */
    put_id(b->out, name);
    put_id(b->out, group);
    put_id(b->out, parent);
}

void hprof_binary_thread_end(HprofBinary *b, uint32_t number) {
    put_record(b, TAG_END_THREAD, 4);
    put_u4(b->out, number);
}

/* ---- the heap dump ----------------------------------------------------------------------- */

/* A level-2 dump being converted: its stream of segments, where the open
 * segment's header is, and what names objects' traces and roots' threads. */
typedef struct Conversion {
    HprofBinary *b;
    FILE *dump;
    long segment_at;
    const HprofSites *sites;
    uint32_t (*thread_number)(VMPI_ThreadID);
    iconv_t utf8_to_utf16;   /* strings' bytes to their characters */
    char *chars;             /* a string's characters, UTF-16BE */
    size_t chars_capacity;
} Conversion;

static const HprofBinaryClass *class_of(const HprofBinary *b, uint64_t class_id) {
    const IdEntry *e = idmap_find(&b->class_ids, class_id);
    return e ? &b->classes[e->tag] : NULL;
}

/* The array class whose elements are of class `element_id` ("Node" ->
 * "Node[]"), found by name once and remembered; NULL if the VM loaded none. */
static const HprofBinaryClass *array_class_of(HprofBinary *b, uint64_t element_id) {
    const IdEntry *known = idmap_find(&b->array_classes, element_id);
    if (known) return &b->classes[known->tag];
    const HprofBinaryClass *element = class_of(b, element_id);
    if (!element || !element->name) return NULL;
    size_t len = strlen(element->name);
    for (size_t i = 0; i < b->num_classes; i++) {
        const char *name = b->classes[i].name;
        if (name && strncmp(name, element->name, len) == 0 && strcmp(name + len, "[]") == 0) {
            if (!idmap_reserve(&b->array_classes, b->array_classes.count + 1)) {
                b->failed = true;
                return NULL;
            }
            idmap_insert(&b->array_classes, element_id, 0, 0)->tag = (uint32_t)i;
            return &b->classes[i];
        }
    }
    return NULL;
}

static void open_segment(Conversion *c) {
    c->segment_at = ftell(c->dump);
    put_record_header(c->dump, TAG_HEAP_DUMP_SEGMENT, (uint32_t)(now_us() - c->b->start_us), 0);
}

/* Fills in the open segment's length, now that its sub-records are written. */
static void close_segment(Conversion *c) {
    long end = ftell(c->dump);
    if (fflush(c->dump) != 0 || end < c->segment_at + RECORD_HEADER_BYTES) {
        c->b->failed = true;
        return;
    }
    uint32_t length = (uint32_t)(end - c->segment_at - RECORD_HEADER_BYTES);
    unsigned char *at = (unsigned char *)c->b->heap_dump + c->segment_at + 5;
    for (int i = 0; i < 4; i++) at[i] = (unsigned char)(length >> (24 - 8 * i));
}

/* Values as the VM wrote them (native order; a reference in an ID's bytes,
 * a boolean in one byte, any other primitive in an 8-byte slot), written
 * big-endian in their basic type's size. */
static void convert_values(DumpReader *r, FILE *out, const HprofBinaryField *fields, int32_t n) {
    for (int32_t i = 0; i < n; i++) {
        uint8_t type = fields[i].type;
        uint64_t value = type == TYPE_OBJECT    ? dump_take_id(r)
                         : type == TYPE_BOOLEAN ? dump_take_u1(r)
                                                : dump_take_u8(r);
        size_t size = type_size(type);
        for (size_t byte = size; byte-- > 0;) put_u1(out, (uint8_t)(value >> (8 * byte)));
    }
}

static size_t values_size(const HprofBinaryField *fields, int32_t n) {
    size_t size = 0;
    for (int32_t i = 0; i < n; i++) size += type_size(fields[i].type);
    return size;
}

/* HeapDumpStaticsBytes over an HprofBinary: as convert_values reads them. */
static size_t statics_bytes(const void *binary, uint64_t class_id) {
    const HprofBinaryClass *cls = class_of(binary, class_id);
    if (!cls) return SIZE_MAX;
    size_t bytes = 0;
    for (int32_t i = 0; i < cls->num_statics; i++) {
        uint8_t type = cls->statics[i].type;
        bytes += type == TYPE_OBJECT ? sizeof(void *) : type == TYPE_BOOLEAN ? 1 : 8;
    }
    return bytes;
}

/* The serial number of the trace that allocated `id`; 0 if unknown. */
static uint32_t trace_serial(const Conversion *c, uint64_t id) {
    const AddrEntry *e = addrmap_find(&c->sites->objects, id);
    return e ? HPROF_FIRST_TRACE + c->sites->sites[e->tag].trace : 0;
}

/* The start of an instance or array dump: its tag, ID and allocation trace. */
static void put_object_header(Conversion *c, uint8_t tag, uint64_t id, uint32_t trace) {
    put_u1(c->dump, tag);
    put_id(c->dump, id);
    put_u4(c->dump, trace);
}

static void put_class_dump(FILE *out, const HprofBinaryClass *cls, uint64_t super, uint32_t instance_size) {
    put_u1(out, SUB_CLASS_DUMP);
    put_id(out, cls->id);
    put_u4(out, 0);           /* stack trace serial */
    put_id(out, super);
    for (int i = 0; i < 5; i++) put_id(out, 0); /* loader, signers, domain, 2 reserved */
    put_u4(out, instance_size);
    put_u2(out, 0);           /* constant pool */
}

static void put_field_names(FILE *out, const HprofBinaryClass *cls) {
    put_u2(out, (uint16_t)cls->num_fields);
    for (int32_t i = 0; i < cls->num_fields; i++) {
        put_id(out, cls->fields[i].name);
        put_u1(out, cls->fields[i].type);
    }
}

static void convert_class(Conversion *c, HeapDumpRecord *record) {
    const HprofBinaryClass *cls = class_of(c->b, record->id); /* known: its statics were found */
    put_class_dump(c->dump, cls, OBJECT_CLASS_ID, record->instance_size); /* gclab's classes have no super */
    put_u2(c->dump, (uint16_t)cls->num_statics);
    for (int32_t i = 0; i < cls->num_statics; i++) {
        put_id(c->dump, cls->statics[i].name);
        put_u1(c->dump, cls->statics[i].type);
        convert_values(&record->values, c->dump, &cls->statics[i], 1);
    }
    put_field_names(c->dump, cls);
}

/* The UTF-16BE characters of a string's UTF-8 `bytes` in c->chars; returns
 * their bytes, or SIZE_MAX if out of memory.  A byte that starts no valid
 * sequence becomes the character of its value, as Latin-1 reads it. */
static size_t string_chars(Conversion *c, const char *bytes, size_t n) {
    size_t need = 2 * n; /* UTF-16 never takes more units than UTF-8 takes bytes */
    if (need > c->chars_capacity) {
        char *grown = realloc(c->chars, need);
        if (!grown) return SIZE_MAX;
        c->chars = grown;
        c->chars_capacity = need;
    }
    char *in = (char *)bytes, *out = c->chars;
    size_t in_left = n, out_left = need;
    iconv(c->utf8_to_utf16, NULL, NULL, NULL, NULL);
    while (in_left > 0 && iconv(c->utf8_to_utf16, &in, &in_left, &out, &out_left) == (size_t)-1) {
        if (errno != EILSEQ && errno != EINVAL) return SIZE_MAX;
        *out++ = 0; /* not UTF-8: the byte as Latin-1 */
        *out++ = *in++;
        in_left--;
        out_left -= 2;
    }
    return need - out_left;
}

/* A String: an instance whose one field, value, names the char[] that
 * follows it, of the string's characters (hprof_binary.h). */
static void convert_string(Conversion *c, uint64_t id, uint64_t class_id, const char *bytes, uint32_t n) {
    size_t chars = string_chars(c, bytes, n);
    if (chars == SIZE_MAX) {
        c->b->failed = true;
        return;
    }
    uint32_t trace = trace_serial(c, id);
    put_object_header(c, SUB_INSTANCE_DUMP, id, trace);
    put_id(c->dump, class_id);
    put_u4(c->dump, ID_SIZE);
    put_id(c->dump, id | 1);
    put_object_header(c, SUB_PRIMITIVE_ARRAY_DUMP, id | 1, trace);
    put_u4(c->dump, (uint32_t)(chars / 2));
    put_u1(c->dump, VMPI_CHAR);
    fwrite(c->chars, 1, chars, c->dump);
}

static void convert_instance(Conversion *c, HeapDumpRecord *record) {
    const HprofBinaryClass *cls = class_of(c->b, record->class_id);
    DumpReader *values = &record->values;
    if (!cls) {
        c->b->failed = true;
        return;
    }
    if (cls->is_string) {
        convert_string(c, record->id, record->class_id, values->at, (uint32_t)(values->end - values->at));
        return;
    }
    put_object_header(c, SUB_INSTANCE_DUMP, record->id, trace_serial(c, record->id));
    put_id(c->dump, record->class_id);
    put_u4(c->dump, (uint32_t)values_size(cls->fields, cls->num_fields));
    convert_values(values, c->dump, cls->fields, cls->num_fields);
    if (values->overrun || values->at != values->end) c->b->failed = true; /* not the class's layout */
}

static void convert_object_array(Conversion *c, HeapDumpRecord *record) {
    const HprofBinaryClass *array_class = array_class_of(c->b, record->class_id);
    if (!array_class) {
        c->b->failed = true;
        return;
    }
    put_object_header(c, SUB_OBJECT_ARRAY_DUMP, record->id, trace_serial(c, record->id));
    put_u4(c->dump, record->length);
    put_id(c->dump, array_class->id);
    for (uint32_t i = 0; i < record->length; i++) put_id(c->dump, dump_take_id(&record->values));
}

static void convert_primitive_array(Conversion *c, HeapDumpRecord *record) {
    size_t size = dump_primitive_size(record->element_kind);
    put_object_header(c, SUB_PRIMITIVE_ARRAY_DUMP, record->id, trace_serial(c, record->id));
    put_u4(c->dump, record->length);
    put_u1(c->dump, record->element_kind);
    for (uint32_t i = 0; i < record->length; i++) {
        unsigned char element[8];
        dump_take(&record->values, element, size);
        uint64_t value = 0;
        switch (size) { /* native order to a number */
        case 1: value = element[0]; break;
        case 2: { uint16_t v; memcpy(&v, element, 2); value = v; break; }
        case 4: { uint32_t v; memcpy(&v, element, 4); value = v; break; }
        default: memcpy(&value, element, 8);
        }
        for (size_t byte = size; byte-- > 0;) put_u1(c->dump, (uint8_t)(value >> (8 * byte)));
    }
}

/* A root with a thread: the object, then the thread's serial number. */
static void put_thread_root(Conversion *c, uint8_t tag, const HeapDumpRecord *record) {
    put_u1(c->dump, tag);
    put_id(c->dump, record->id);
    put_u4(c->dump, c->thread_number(record->thread));
}

static void convert_record(Conversion *c, HeapDumpRecord *record) {
    switch (record->type) {
    case VMPI_GC_ROOT_UNKNOWN:
    case VMPI_GC_ROOT_STICKY_CLASS:
    case VMPI_GC_ROOT_MONITOR_USED: /* the same codes and the object alone */
        put_u1(c->dump, record->type);
        put_id(c->dump, record->id);
        return;
    case VMPI_GC_ROOT_JNI_GLOBAL:
        put_u1(c->dump, SUB_ROOT_JNI_GLOBAL);
        put_id(c->dump, record->id);
        put_id(c->dump, record->global_ref);
        return;
    case VMPI_GC_ROOT_JNI_LOCAL:
    case VMPI_GC_ROOT_JAVA_FRAME:
        put_thread_root(c, record->type == VMPI_GC_ROOT_JNI_LOCAL ? SUB_ROOT_JNI_LOCAL : SUB_ROOT_JAVA_FRAME, record);
        put_u4(c->dump, record->frame);
        return;
    case VMPI_GC_ROOT_NATIVE_STACK: put_thread_root(c, SUB_ROOT_NATIVE_STACK, record); return;
    case VMPI_GC_ROOT_THREAD_BLOCK: /* a Thread handle: the thread's object (hprof_binary.h) */
        put_thread_root(c, SUB_ROOT_THREAD_OBJECT, record);
        put_u4(c->dump, 0); /* no stack trace */
        return;
    case VMPI_GC_CLASS_DUMP: convert_class(c, record); return;
    case VMPI_GC_INSTANCE_DUMP: convert_instance(c, record); return;
    case VMPI_GC_OBJ_ARRAY_DUMP: convert_object_array(c, record); return;
    case VMPI_GC_PRIM_ARRAY_DUMP: convert_primitive_array(c, record); return;
    }
}

/* The classes hprof adds, each a sticky root as the VM's classes are; an
 * instance takes a gclab object's header and a slot per field, as the VM's
 * CLASS_DUMPs say (an array class, none). */
static void put_own_classes(Conversion *c) {
    for (size_t i = 0; i < c->b->num_classes; i++) {
        const HprofBinaryClass *cls = &c->b->classes[i];
        if (cls->name) continue;
        put_u1(c->dump, SUB_ROOT_STICKY_CLASS);
        put_id(c->dump, cls->id);
        put_class_dump(c->dump, cls, cls->super_id, HEADER_BYTES + SLOT_BYTES * (uint32_t)cls->num_fields);
        put_u2(c->dump, (uint16_t)cls->num_statics);
        for (int32_t s = 0; s < cls->num_statics; s++) { /* java.lang.System's props */
            put_id(c->dump, cls->statics[s].name);
            put_u1(c->dump, TYPE_OBJECT);
            put_id(c->dump, PROPERTIES_ID);
        }
        put_field_names(c->dump, cls);
    }
}

/* An instance of one of hprof's classes whose fields are all references. */
static void put_own_instance(Conversion *c, uint64_t id, uint64_t class_id, const uint64_t *values, uint32_t n) {
    put_object_header(c, SUB_INSTANCE_DUMP, id, 0);
    put_id(c->dump, class_id);
    put_u4(c->dump, n * ID_SIZE);
    for (uint32_t i = 0; i < n; i++) put_id(c->dump, values[i]);
}

/* A java.lang.String of `text` (ID `id`) and its char[] (ID `id` + 2). */
static void put_own_string(Conversion *c, uint64_t id, const char *text) {
    size_t chars = string_chars(c, text, strlen(text));
    if (chars == SIZE_MAX) {
        c->b->failed = true;
        return;
    }
    uint64_t value = id + 2;
    put_own_instance(c, id, JAVA_STRING_CLASS_ID, &value, 1);
    put_object_header(c, SUB_PRIMITIVE_ARRAY_DUMP, value, 0);
    put_u4(c->dump, (uint32_t)(chars / 2));
    put_u1(c->dump, VMPI_CHAR);
    fwrite(c->chars, 1, chars, c->dump);
}

/* java.lang.System's props: a Properties whose table holds an entry per
 * property, each in its own bucket, the entries VisualVM reads for its
 * summary (hprof_binary.h). */
static void put_system_properties(Conversion *c) {
    struct utsname host;
    bool known_host = uname(&host) == 0;
    const char *collector = c->b->collector_name ? c->b->collector_name() : NULL;
    const struct { const char *key, *value; } properties[PROPERTIES] = {
        {"java.vm.name", "gclab"},
        {"java.vm.version", GCLAB_VERSION},
        {"java.vm.info", collector ? collector : "unknown"},
        {"sun.arch.data.model", "64"}, /* IDs, references, are 8 bytes */
        {"os.name", known_host ? host.sysname : "unknown"},
        {"os.version", known_host ? host.release : "unknown"},
        {"os.arch", known_host ? host.machine : "unknown"},
    };
    uint64_t table = TABLE_ID;
    put_own_instance(c, PROPERTIES_ID, PROPERTIES_CLASS_ID, &table, 1);
    put_object_header(c, SUB_OBJECT_ARRAY_DUMP, TABLE_ID, 0);
    put_u4(c->dump, PROPERTIES);
    put_id(c->dump, ENTRIES_CLASS_ID);
    for (uint64_t i = 0; i < PROPERTIES; i++) put_id(c->dump, FIRST_ENTRY_ID + 10 * i);
    for (uint64_t i = 0; i < PROPERTIES; i++) {
        uint64_t entry = FIRST_ENTRY_ID + 10 * i, key = entry + 2, value = entry + 6;
        put_own_instance(c, entry, ENTRY_CLASS_ID, (uint64_t[]){key, value, 0}, 3);
        put_own_string(c, key, properties[i].key);
        put_own_string(c, value, properties[i].value);
    }
}

void hprof_binary_read_heap_dump(HprofBinary *b, const VMPI_Event *heap_dump, const HprofSites *sites,
                                 uint32_t (*thread_number)(VMPI_ThreadID)) {
    free(b->heap_dump);
    b->heap_dump = NULL;
    b->heap_dump_len = 0;
    Conversion c = {.b = b, .sites = sites, .thread_number = thread_number,
                    .dump = open_memstream(&b->heap_dump, &b->heap_dump_len)};
    if (!c.dump) {
        b->failed = true;
        return;
    }
    if (!b->primitive_arrays[VMPI_CHAR]) { /* strings' characters need a char[] class */
        size_t chars = add_class(b, CHARS_CLASS_ID, OBJECT_CLASS_ID, "char[]", NULL, 0, NULL, 0);
        if (chars != SIZE_MAX) b->primitive_arrays[VMPI_CHAR] = (uint32_t)chars + 1;
    }
    c.utf8_to_utf16 = iconv_open("UTF-16BE", "UTF-8");
    if (c.utf8_to_utf16 == (iconv_t)-1) b->failed = true;
    open_segment(&c);
    put_own_classes(&c);
    put_system_properties(&c);
    HeapDumpRecords records;
    heap_dump_open(&records, heap_dump, statics_bytes, b);
    HeapDumpRecord record;
    while (!b->failed && heap_dump_next(&records, &record)) {
        convert_record(&c, &record);
        if (ftell(c.dump) - c.segment_at >= HPROF_BINARY_SEGMENT_BYTES && heap_dump_more(&records)) {
            close_segment(&c);
            open_segment(&c);
        }
    }
    close_segment(&c);
    put_record_header(c.dump, TAG_HEAP_DUMP_END, (uint32_t)(now_us() - b->start_us), 0);
    if (fclose(c.dump) != 0 || records.malformed) b->failed = true;
    if (c.utf8_to_utf16 != (iconv_t)-1) iconv_close(c.utf8_to_utf16);
    free(c.chars);
}

/* ---- traces and sites -------------------------------------------------------------------- */

/* STACK FRAMEs, then the STACK TRACE, of every trace new since the last dump. */
static void put_new_traces(HprofBinary *b, const HprofSites *sites) {
    uint64_t unknown = 0; /* the string "<unknown>", made when first needed */
    for (size_t i = b->traces_written; i < sites->num_traces; i++) {
        const HprofTrace *t = &sites->traces[i];
        uint64_t first_frame_id = b->next_frame_id;
        for (int32_t f = 0; f < t->num_frames; f++) {
            const VMPI_CallFrame *frame = &sites->frames[t->first_frame + (size_t)f];
            const IdEntry *e = idmap_find(&b->method_ids, (uint64_t)(uintptr_t)frame->method_id);
            const HprofBinaryMethod *m = e ? &b->methods[e->tag] : NULL;
            if (!m && !unknown) unknown = put_string(b, "<unknown>");
            put_record(b, TAG_STACK_FRAME, 4 * ID_SIZE + 8);
            put_id(b->out, b->next_frame_id++);
            put_id(b->out, m ? m->name : unknown);
            put_id(b->out, m ? m->signature : unknown);
            put_id(b->out, m ? b->classes[m->class_index].source : unknown);
            put_u4(b->out, m ? m->class_index + 1 : 0);
            put_u4(b->out, frame->lineno > 0 ? (uint32_t)frame->lineno : 0); /* 0: no line information */
        }
        put_record(b, TAG_STACK_TRACE, 12 + (uint32_t)t->num_frames * ID_SIZE);
        put_u4(b->out, HPROF_FIRST_TRACE + (uint32_t)i);
        put_u4(b->out, t->thread);
        put_u4(b->out, (uint32_t)t->num_frames);
        for (int32_t f = 0; f < t->num_frames; f++) put_id(b->out, first_frame_id + (uint64_t)f);
    }
    b->traces_written = sites->num_traces;
}

/* The serial number of the class a site counts: its class, the array class
 * of its element class (an object array), or its primitive array class. */
static uint32_t site_class_serial(HprofBinary *b, const HprofSite *site) {
    const HprofBinaryClass *cls = site->is_array == VMPI_CLASS ? array_class_of(b, site->class_id)
                                                               : class_of(b, site->class_id);
    return cls ? (uint32_t)(cls - b->classes) + 1 : 0;
}

static void put_sites(HprofBinary *b, const HprofSites *sites, const uint32_t *order, double cutoff) {
    uint64_t live_bytes = 0, live_objects = 0, alloc_bytes = 0, alloc_objects = 0;
    for (size_t i = 0; i < sites->num_sites; i++) {
        live_bytes += sites->sites[i].live_bytes;
        live_objects += sites->sites[i].live_objects;
        alloc_bytes += sites->sites[i].alloc_bytes;
        alloc_objects += sites->sites[i].alloc_objects;
    }
    size_t listed = 0; /* as the text's table: down to the cutoff */
    for (; listed < sites->num_sites; listed++) {
        double self = live_bytes ? (double)sites->sites[order[listed]].live_bytes / (double)live_bytes : 0;
        if (self < cutoff) break;
    }
    float ratio = (float)cutoff;
    uint32_t ratio_bits;
    memcpy(&ratio_bits, &ratio, 4);
    put_record(b, TAG_ALLOC_SITES, 2 + 4 * 4 + 2 * 8 + (uint32_t)listed * 25);
    put_u2(b->out, 0); /* complete, sorted by live bytes */
    put_u4(b->out, ratio_bits);
    put_u4(b->out, clamp_u4(live_bytes));
    put_u4(b->out, clamp_u4(live_objects));
    put_u8(b->out, alloc_bytes);
    put_u8(b->out, alloc_objects);
    put_u4(b->out, (uint32_t)listed);
    for (size_t i = 0; i < listed; i++) {
        const HprofSite *site = &sites->sites[order[i]];
        put_u1(b->out, (uint8_t)site->is_array);
        put_u4(b->out, site_class_serial(b, site));
        put_u4(b->out, HPROF_FIRST_TRACE + site->trace);
        put_u4(b->out, clamp_u4(site->live_bytes));
        put_u4(b->out, clamp_u4(site->live_objects));
        put_u4(b->out, clamp_u4(site->alloc_bytes));
        put_u4(b->out, clamp_u4(site->alloc_objects));
    }
    put_record(b, TAG_HEAP_SUMMARY, 4 + 4 + 8 + 8);
    put_u4(b->out, clamp_u4(live_bytes));
    put_u4(b->out, clamp_u4(live_objects));
    put_u8(b->out, alloc_bytes);
    put_u8(b->out, alloc_objects);
}

void hprof_binary_write_dump(HprofBinary *b, const HprofSites *sites, bool heap_dump,
                             const uint32_t *sites_order, double cutoff) {
    put_new_traces(b, sites);
    if (heap_dump && b->heap_dump) fwrite(b->heap_dump, 1, b->heap_dump_len, b->out);
    if (sites_order) put_sites(b, sites, sites_order, cutoff);
    fflush(b->out);
}

void hprof_binary_write_cpu_samples(HprofBinary *b, const HprofCpuRow *rows, size_t num_rows, uint64_t total) {
    put_record(b, TAG_CPU_SAMPLES, 8 + 8 * (uint32_t)num_rows);
    put_u4(b->out, clamp_u4(total));
    put_u4(b->out, (uint32_t)num_rows);
    for (size_t i = 0; i < num_rows; i++) {
        put_u4(b->out, clamp_u4(rows[i].count));
        put_u4(b->out, HPROF_FIRST_TRACE + rows[i].trace);
    }
    fflush(b->out);
}

void hprof_binary_close(HprofBinary *b) {
    if (b->out) fflush(b->out);
    for (size_t i = 0; i < b->num_classes; i++) {
        free(b->classes[i].name);
        free(b->classes[i].statics);
        free(b->classes[i].fields);
    }
    free(b->classes);
    free(b->methods);
    free(b->heap_dump);
    idmap_free(&b->class_ids);
    idmap_free(&b->method_ids);
    idmap_free(&b->array_classes);
    *b = (HprofBinary){0};
}
