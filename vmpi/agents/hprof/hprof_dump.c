/*
 * hprof_dump.c -- heap=dump's text section (see hprof_dump.h).
 */
#include "hprof_dump.h"

#include "common/heap_dump_records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool hprof_dump_init(HprofDump *d) {
    *d = (HprofDump){0};
    return idmap_init(&d->class_ids, 64);
}

static HprofDumpField *copy_fields(HprofDump *d, const VMPI_Field *fields, int32_t n) {
    HprofDumpField *copy = calloc((size_t)n + 1, sizeof *copy);
    if (!copy) {
        d->failed = true;
        return NULL;
    }
    for (int32_t i = 0; i < n; i++) {
        const char *signature = fields[i].field_signature ? fields[i].field_signature : "";
        copy[i] = (HprofDumpField){strdup(fields[i].field_name ? fields[i].field_name : ""),
                                   signature[0] == 'L' || signature[0] == '[', signature[0] == 'Z'};
        if (!copy[i].name) d->failed = true;
    }
    return copy;
}

void hprof_dump_learn_class(HprofDump *d, const VMPI_Event *class_load) {
    uint64_t id = (uint64_t)(uintptr_t)class_load->u.class_load.class_id;
    if (!id || idmap_find(&d->class_ids, id)) return;
    HprofDumpClass *grown = realloc(d->classes, (d->num_classes + 1) * sizeof *grown);
    if (!grown || !idmap_reserve(&d->class_ids, d->class_ids.count + 1)) {
        if (grown) d->classes = grown;
        d->failed = true;
        return;
    }
    d->classes = grown;
    const char *name = class_load->u.class_load.class_name;
    d->classes[d->num_classes] = (HprofDumpClass){
        .name = strdup(name ? name : ""),
        .statics = copy_fields(d, class_load->u.class_load.statics, class_load->u.class_load.num_static_fields),
        .fields = copy_fields(d, class_load->u.class_load.instances, class_load->u.class_load.num_instance_fields),
        .num_statics = class_load->u.class_load.num_static_fields,
        .num_fields = class_load->u.class_load.num_instance_fields,
    };
    if (!d->classes[d->num_classes].name) d->failed = true;
    idmap_insert(&d->class_ids, id, 0, 0)->tag = (uint32_t)d->num_classes++;
}

/* ---- reading the buffer ------------------------------------------------------------------ */

static const HprofDumpClass *class_of(const HprofDump *d, unsigned long long class_id) {
    const IdEntry *e = idmap_find(&d->class_ids, class_id);
    return e ? &d->classes[e->tag] : NULL;
}

static const char *class_name(const HprofDump *d, unsigned long long class_id) {
    const HprofDumpClass *c = class_of(d, class_id);
    return c ? c->name : "<unknown class>";
}

/* The bytes a level-2 dump gives a value of `field`: an ID for a
 * reference, one byte for a boolean, 8 for any other primitive. */
static size_t value_bytes(const HprofDumpField *field) {
    return field->is_ref ? sizeof(void *) : field->is_boolean ? 1 : 8;
}

/* HeapDumpStaticsBytes over an HprofDump. */
static size_t statics_bytes(const void *dump, uint64_t class_id) {
    const HprofDumpClass *c = class_of(dump, class_id);
    if (!c) return SIZE_MAX;
    size_t bytes = 0;
    for (int32_t i = 0; i < c->num_statics; i++) bytes += value_bytes(&c->statics[i]);
    return bytes;
}

/* Reference values are printed, "\tNAME\tID", unless null; others skipped. */
static void write_values(DumpReader *values, FILE *text, const HprofDumpField *fields, int32_t n, const char *prefix) {
    for (int32_t i = 0; i < n && !values->overrun; i++) {
        if (!fields[i].is_ref) {
            dump_skip(values, value_bytes(&fields[i]));
            continue;
        }
        unsigned long long ref = dump_take_id(values);
        if (ref) fprintf(text, "\t%s%s\t%llx\n", prefix, fields[i].name, ref);
    }
}

const char *hprof_primitive_name(int32_t kind) {
    switch (kind) {
    case VMPI_BOOLEAN: return "boolean";
    case VMPI_CHAR: return "char";
    case VMPI_FLOAT: return "float";
    case VMPI_DOUBLE: return "double";
    case VMPI_BYTE: return "byte";
    case VMPI_SHORT: return "short";
    case VMPI_INT: return "int";
    case VMPI_LONG: return "long";
    default: return "<unknown type>";
    }
}

/* An object's size and trace, from the site the sites bookkeeping holds it under. */
static void write_size_and_trace(HprofDump *d, FILE *text, const HprofSites *sites, unsigned long long id) {
    const AddrEntry *e = addrmap_find(&sites->objects, id);
    uint32_t size = e ? e->size : 0;
    size_t trace = e ? HPROF_FIRST_TRACE + (size_t)sites->sites[e->tag].trace : 0;
    fprintf(text, "sz=%u, trace=%zu", size, trace);
    d->objects++;
    d->bytes += size;
}

static void write_record(HprofDump *d, HeapDumpRecord *record, FILE *text, const HprofSites *sites,
                         uint32_t (*thread_number)(VMPI_ThreadID)) {
    unsigned long long id = record->id;
    switch (record->type) {
    case VMPI_GC_ROOT_UNKNOWN: fprintf(text, "ROOT %llx (kind=<unknown>)\n", id); return;
    case VMPI_GC_ROOT_JNI_GLOBAL:
        fprintf(text, "ROOT %llx (kind=<JNI global ref>, id=%llx, trace=0)\n", id,
                (unsigned long long)record->global_ref);
        return;
    case VMPI_GC_ROOT_JNI_LOCAL:
    case VMPI_GC_ROOT_JAVA_FRAME:
        fprintf(text, "ROOT %llx (kind=<%s>, thread=%u, frame=%u)\n", id,
                record->type == VMPI_GC_ROOT_JAVA_FRAME ? "Java stack" : "JNI local ref",
                thread_number(record->thread), record->frame);
        return;
    case VMPI_GC_ROOT_NATIVE_STACK:
    case VMPI_GC_ROOT_THREAD_BLOCK:
        fprintf(text, "ROOT %llx (kind=<%s>, thread=%u)\n", id,
                record->type == VMPI_GC_ROOT_NATIVE_STACK ? "native stack" : "thread block",
                thread_number(record->thread));
        return;
    case VMPI_GC_ROOT_STICKY_CLASS:
        fprintf(text, "ROOT %llx (kind=<system class>, name=%s)\n", id, class_name(d, id));
        return;
    case VMPI_GC_ROOT_MONITOR_USED: fprintf(text, "ROOT %llx (kind=<busy monitor>)\n", id); return;
    case VMPI_GC_CLASS_DUMP: {
        const HprofDumpClass *c = class_of(d, id); /* known: its statics were found */
        fprintf(text, "CLS %llx (name=%s, trace=0)\n", id, c->name);
        if (record->super_id) fprintf(text, "\tsuper\t%llx\n", (unsigned long long)record->super_id);
        write_values(&record->values, text, c->statics, c->num_statics, "static ");
        return;
    }
    case VMPI_GC_INSTANCE_DUMP: {
        const HprofDumpClass *c = class_of(d, record->class_id);
        fprintf(text, "OBJ %llx (", id);
        write_size_and_trace(d, text, sites, id);
        fprintf(text, ", class=%s@%llx)\n", c ? c->name : "<unknown class>", (unsigned long long)record->class_id);
        if (c) write_values(&record->values, text, c->fields, c->num_fields, "");
        return;
    }
    case VMPI_GC_OBJ_ARRAY_DUMP: {
        unsigned long long elem_class = record->class_id;
        fprintf(text, "ARR %llx (", id);
        write_size_and_trace(d, text, sites, id);
        fprintf(text, ", nelems=%u, elem type=%s@%llx)\n", record->length, class_name(d, elem_class), elem_class);
        for (uint32_t i = 0; i < record->length; i++) {
            unsigned long long element = dump_take_id(&record->values);
            if (element) fprintf(text, "\t[%u]\t%llx\n", i, element);
        }
        return;
    }
    case VMPI_GC_PRIM_ARRAY_DUMP:
        fprintf(text, "ARR %llx (", id);
        write_size_and_trace(d, text, sites, id);
        fprintf(text, ", nelems=%u, elem type=%s)\n", record->length, hprof_primitive_name(record->element_kind));
        return;
    }
}

void hprof_dump_read(HprofDump *d, const VMPI_Event *heap_dump, const HprofSites *sites,
                     uint32_t (*thread_number)(VMPI_ThreadID)) {
    free(d->text);
    d->text = NULL;
    d->text_len = 0;
    d->objects = d->bytes = 0;
    FILE *text = open_memstream(&d->text, &d->text_len);
    if (!text) {
        d->failed = true;
        return;
    }
    HeapDumpRecords records;
    heap_dump_open(&records, heap_dump, statics_bytes, d);
    HeapDumpRecord record;
    while (heap_dump_next(&records, &record)) write_record(d, &record, text, sites, thread_number);
    if (fclose(text) != 0 || records.malformed) d->failed = true;
}

void hprof_dump_write(const HprofDump *d, TraceOutput *out, const char *date) {
    char line[128];
    snprintf(line, sizeof line, "HEAP DUMP BEGIN (%llu objects, %llu bytes) %s\n", (unsigned long long)d->objects,
             (unsigned long long)d->bytes, date);
    trace_output_text(out, line);
    if (d->text) trace_output_bytes(out, d->text, d->text_len);
    trace_output_text(out, "HEAP DUMP END\n");
}
