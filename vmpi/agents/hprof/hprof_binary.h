/*
 * hprof_binary.h -- hprof's format=b: the HPROF binary format, "JAVA
 * PROFILE 1.0.2" (the HPROF agent manual, "Binary Dump Format
 * (format=b)"), written to any stdio stream: the agent's file (through
 * hprof_binary_stream) or whatever stream it is handed.
 *
 * The stream starts with the header -- the format name and a NUL, u4
 * identifier size (8), u8 milliseconds since the epoch -- and goes on with
 * records, u1 tag, u4 microseconds since the header's time, u4 length,
 * body, every number big-endian:
 *
 *   CONTROL SETTINGS (0x0E)  first: whether allocation traces (heap=) and
 *                          CPU sampling (cpu=samples) are on, the depth
 *   STRING IN UTF8 (0x01)  a name, by string ID, before the records that
 *                          name it
 *   LOAD CLASS (0x02)      at CLASS_LOAD, one per class, array classes
 *                          included, named as Java names them (below)
 *   START/END THREAD (0x0A/0x0B)  at THREAD_START and THREAD_END
 *   STACK FRAME, STACK TRACE (0x04/0x05)  at each dump, the traces that are
 *                          new since the last one, numbered as the text's
 *   HEAP DUMP SEGMENT (0x1C) ... HEAP DUMP END (0x2C)  heap=dump|all: a
 *                          level-2 HEAP_DUMP, in segments closed at the
 *                          first record past HPROF_BINARY_SEGMENT_BYTES
 *   ALLOC SITES (0x06), HEAP SUMMARY (0x07)  heap=sites|all
 *   CPU SAMPLES (0x0D)     cpu=samples: u4 total, u4 traces, then u4
 *                          samples and u4 trace serial per trace
 *
 * How gclab's types map to Java's, so that a Java heap reader (VisualVM,
 * jhat, MAT) reads them as it reads a JVM's:
 *
 *   - gclab's `int` is 64 bits: a Java long.  Field and array types follow
 *     the VM's descriptors (J long, D double, Z boolean, I int, ...), so an
 *     `int[]` is written as the class "long[]", an `int32[]` as "int[]", a
 *     `bool[]` as "boolean[]"; an array of class C is "C[]".
 *   - gclab has no superclasses: every class and array class has the
 *     superclass java.lang.Object, a class of no fields that hprof adds
 *     (its ID, 1, is odd, so no object of the VM's, all 8-byte aligned,
 *     has it).
 *   - a String keeps its name, "String", and has java.lang.String's shape
 *     (as JDK 8 has it): one field, `value`, a char[] of the string's UTF-16
 *     code units, decoded from the UTF-8 bytes the VM's dump gives
 *     (vmpi/runtime/heap_dump.c; a byte that starts no valid sequence becomes the
 *     character of the same value).  The char[] has the string's ID with
 *     its low bit set (an odd ID, so no object of the VM's) and its
 *     allocation trace; when the program has no char[] class, hprof adds
 *     one (ID 3), since a reader finds a primitive array's class by name.
 *   - a thread's object is its `Thread` handle (THREAD_START's thread_id;
 *     0 for main while the program starts no thread), and the VM's
 *     THREAD_BLOCK root for a handle (docs/event-mapping.md, "Heap dumps")
 *     is written as the ROOT THREAD OBJECT (0x08) a JVM writes for its
 *     java.lang.Thread objects: the object, the thread's serial number,
 *     and stack trace serial 0 (none: the dump does not trace threads);
 *     a JAVA FRAME root's frame number is its frame's index in the
 *     thread's stack, callee first.
 *   - UNLOAD CLASS (0x03) is never written: the VM never unloads a class
 *     (every linked class is a sticky root), so CLASS_UNLOAD is never
 *     posted.
 *
 * A heap dump arrives in the VM's buffer, which lives only until
 * NotifyEvent returns; it is converted then, into memory, and written at
 * the next dump, after the traces its objects name (as the text's HEAP
 * DUMP is).  Memory is allocated only at class loads, thread starts and
 * dumps, never between GC_START and GC_FINISH.
 */
#ifndef GCLAB_HPROF_BINARY_H
#define GCLAB_HPROF_BINARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/idmap.h"
#include "common/trace_output.h"
#include "hprof_cpu_times.h"
#include "hprof_sites.h"
#include "vmpi.h"

#define HPROF_BINARY_SEGMENT_BYTES (64 * 1024)

typedef struct HprofBinaryField {
    uint64_t name;     /* string ID */
    uint8_t type;      /* HPROF basic type: 2 object, 4 boolean, ... 11 long */
} HprofBinaryField;

typedef struct HprofBinaryClass {
    uint64_t id;       /* the VM's class ID */
    char *name;        /* gclab's name ("Node", "int[]"), to find array classes */
    uint64_t source;   /* string ID of the source file's name */
    HprofBinaryField *statics, *fields;
    int32_t num_statics, num_fields;
    bool is_string;    /* gclab's String: its values are its bytes */
} HprofBinaryClass;

typedef struct HprofBinaryMethod {
    uint64_t name, signature; /* string IDs */
    uint32_t class_index;
} HprofBinaryMethod;

typedef struct HprofBinary {
    FILE *out;
    int64_t start_us;              /* the header's time, microseconds since the epoch */
    uint64_t next_string_id, next_frame_id;
    HprofBinaryClass *classes;     /* index + 1 is the class serial number */
    size_t num_classes, classes_capacity;
    IdMap class_ids;               /* class ID -> tag = index in classes */
    HprofBinaryMethod *methods;
    size_t num_methods, methods_capacity;
    IdMap method_ids;              /* method ID -> tag = index in methods */
    IdMap array_classes;           /* element class ID -> tag = index of its array class */
    uint32_t primitive_arrays[16]; /* VMPI element kind -> index + 1 of its array class */
    size_t traces_written;         /* STACK TRACEs already in the stream */
    char *heap_dump;               /* the last level-2 dump, converted: segments and END */
    size_t heap_dump_len;
    bool failed;                   /* out of memory, or a malformed dump */
} HprofBinary;

/* A stream that writes into `out` (trace_output.h), so that the binary
 * profile is complete or absent like the text one.  NULL if out of memory. */
FILE *hprof_binary_stream(TraceOutput *out);

/* Starts the profile on `out`: the header, and the LOAD CLASS of
 * java.lang.Object.  False if memory ran out. */
bool hprof_binary_open(HprofBinary *b, FILE *out);
/* CONTROL SETTINGS (0x0E), after the header, as JDK hprof writes it: u4
 * flags (0x1 allocation traces on, 0x2 CPU sampling on), u2 trace depth. */
void hprof_binary_control_settings(HprofBinary *b, bool alloc_traces, bool cpu_sampling, int32_t depth);

/* CLASS_LOAD: UTF8 strings for its names and a LOAD CLASS record. */
void hprof_binary_class_load(HprofBinary *b, const VMPI_Event *class_load);

/* THREAD_START (with the thread's number) and THREAD_END. */
void hprof_binary_thread_start(HprofBinary *b, uint32_t number, const VMPI_Event *thread_start);
void hprof_binary_thread_end(HprofBinary *b, uint32_t number);

/* A level-2 HEAP_DUMP, converted to HEAP DUMP SEGMENTs; objects name their
 * allocation trace from `sites`, roots their thread by `thread_number`. */
void hprof_binary_read_heap_dump(HprofBinary *b, const VMPI_Event *heap_dump, const HprofSites *sites,
                                 uint32_t (*thread_number)(VMPI_ThreadID));

/* One dump: the traces new since the last, then the heap dump last read
 * (if `heap_dump`), then with `sites_order` (not NULL: heap=sites) ALLOC
 * SITES, the sites in that order down to `cutoff`, and HEAP SUMMARY; then
 * the stream is flushed. */
void hprof_binary_write_dump(HprofBinary *b, const HprofSites *sites, bool heap_dump,
                             const uint32_t *sites_order, double cutoff);

/* cpu=samples, after a dump: CPU SAMPLES, the `num_rows` traces in
 * `rows` (hprof_cpu_times.h; counts are samples), of `total` samples;
 * then the stream is flushed. */
void hprof_binary_write_cpu_samples(HprofBinary *b, const HprofCpuRow *rows, size_t num_rows, uint64_t total);

/* Flushes what the stream holds and frees what `b` holds (not the stream). */
void hprof_binary_close(HprofBinary *b);

#endif
