/*
 * trace_binary_read.h -- reads a binary event recording (the trace agent's
 * format=binary; docs/trace-format.md, "The binary recording") back into
 * VMPI events, one at a time, for tools: vmpi-trace2json, heapview.
 *
 * A recording is untrusted input: every length, count, string entry and
 * value is checked against what the format allows and what is left of the
 * input, and a bad one is an error naming its byte offset, never a crash
 * (tests/fuzz/trace_binary.c).
 */
#ifndef GCLAB_TRACE_BINARY_READ_H
#define GCLAB_TRACE_BINARY_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmpi/vmpi.h"

typedef struct TraceBinaryReader TraceBinaryReader;

/* One event as the agent was given it: env_id is NULL, `thread` says which
 * VM thread (numbered as the JSON's "thread"), seq counts from 1.  Strings
 * and arrays belong to the reader, valid until the next call. */
typedef struct TraceBinaryRecord {
    uint64_t seq;
    uint32_t thread;
    VMPI_Event event;
} TraceBinaryRecord;

/* True if `bytes` (n of a file's first bytes) begin a binary recording. */
bool trace_binary_is_recording(const void *bytes, size_t n);

/* Opens `path` and reads its header; NULL with a message in err on failure. */
TraceBinaryReader *trace_binary_open(const char *path, char *err, size_t err_size);

/* The same for `size` bytes at `data` (kept, not copied); `name` is what
 * messages call it. */
TraceBinaryReader *trace_binary_open_memory(const void *data, size_t size, const char *name, char *err,
                                            size_t err_size);

/* The header's figures; the collector may be NULL or "" (CLASS_LOAD_HOOK
 * comes before there is one), as in the JSON. */
int32_t trace_binary_vmpi_version(const TraceBinaryReader *reader);
const char *trace_binary_collector(const TraceBinaryReader *reader);

/* How far the reader is, in bytes, and how many the recording has. */
size_t trace_binary_offset(const TraceBinaryReader *reader);
size_t trace_binary_size(const TraceBinaryReader *reader);

/* The next event into *record: 1, or 0 after the last (JVM_SHUT_DOWN, at the
 * end of the input), or -1 with a message in err ("NAME: byte N: why"). */
int trace_binary_next(TraceBinaryReader *reader, TraceBinaryRecord *record, char *err, size_t err_size);

void trace_binary_close(TraceBinaryReader *reader);

#endif
