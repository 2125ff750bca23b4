/*
 * dump_reader.h -- the bytes of a HEAP_DUMP or MONITOR_DUMP buffer (JVMPI
 * 1.2, section 4, as vmpi/runtime/heap_dump.c writes it): IDs of
 * sizeof(void *) bytes and values in the VM's native byte order.
 * heap_dump_records.h decodes a heap dump's records with it, and the
 * writers read a record's values with it; hprof_monitor.c reads the
 * MONITOR_DUMP buffer, which has the same encoding.
 *
 * A read past the end sets `overrun`, yields zeros, and every later read
 * yields zeros too, so a caller checks once, after the record.
 */
#ifndef GCLAB_DUMP_READER_H
#define GCLAB_DUMP_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "vmpi.h"

typedef struct DumpReader {
    const char *at, *end;
    bool overrun;
} DumpReader;

static inline bool dump_take(DumpReader *r, void *out, size_t n) {
    if (r->overrun || (size_t)(r->end - r->at) < n) {
        r->overrun = true;
        memset(out, 0, n);
        return false;
    }
    memcpy(out, r->at, n);
    r->at += n;
    return true;
}
static inline uint8_t dump_take_u1(DumpReader *r) { uint8_t v; dump_take(r, &v, 1); return v; }
static inline uint16_t dump_take_u2(DumpReader *r) { uint16_t v; dump_take(r, &v, 2); return v; }
static inline uint32_t dump_take_u4(DumpReader *r) { uint32_t v; dump_take(r, &v, 4); return v; }
static inline uint64_t dump_take_u8(DumpReader *r) { uint64_t v; dump_take(r, &v, 8); return v; }
static inline uint64_t dump_take_id(DumpReader *r) {
    void *v;
    dump_take(r, &v, sizeof v);
    return (uint64_t)(uintptr_t)v;
}
static inline void dump_skip(DumpReader *r, size_t n) {
    if (r->overrun || (size_t)(r->end - r->at) < n) r->overrun = true;
    else r->at += n;
}

/* The bytes of one element of a primitive array of kind `ty` (VMPI_BOOLEAN
 * ... VMPI_LONG), as JVMPI sizes them. */
static inline size_t dump_primitive_size(uint8_t ty) {
    switch (ty) {
    case VMPI_BOOLEAN: case VMPI_BYTE: return 1;
    case VMPI_CHAR: case VMPI_SHORT: return 2;
    case VMPI_FLOAT: case VMPI_INT: return 4;
    default: return 8;
    }
}

#endif
