/*
 * trace_binary.c -- fuzz harness for the binary event recording's reader
 * (vmpi/tools/trace_binary/): a recording is untrusted input, read by
 * heapview and vmpi-trace2json.  Any bytes are read to the end or refused
 * with a message naming the byte; every event read is written as a JSON
 * line (vmpi-trace2json's path) to /dev/null.  Never a crash, sanitizer
 * report or leak.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_json.h"
#include "vmpi/tools/trace_binary/trace_binary_read.h"

static TraceOutput out;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[1200] = "";
    TraceBinaryReader *reader = trace_binary_open_memory(data, size, "input", err, sizeof err);
    if (!reader) {
        if (strncmp(err, "input: byte ", 12) != 0) abort(); /* a refusal names where */
        return 0;
    }
    if (!trace_output_open(&out, "/dev/null")) abort();
    trace_json_header(&out, trace_binary_vmpi_version(reader), trace_binary_collector(reader));
    TraceBinaryRecord record;
    int got;
    uint64_t events = 0;
    while ((got = trace_binary_next(reader, &record, err, sizeof err)) > 0) {
        if (record.seq != ++events) abort();
        trace_json_event(&out, record.seq, &record.event, record.thread);
    }
    if (got < 0 && strncmp(err, "input: byte ", 12) != 0) abort();
    if (trace_binary_offset(reader) > trace_binary_size(reader)) abort();
    trace_binary_close(reader);
    trace_output_close(&out);
    return 0;
}
