/*
 * vmpi-trace2json -- a binary event recording (the trace agent's
 * format=binary) as the trace format's JSON lines: the very bytes the trace
 * agent writes for the same run (docs/trace-format.md, "The binary
 * recording"), since the lines are written by the same code (trace_json.c).
 *
 *   vmpi-trace2json [-o FILE.jsonl] RECORDING
 *
 * Without -o the JSON goes to standard output.  A file given with -o is
 * complete or absent, like the agent's: a recording that turns out bad
 * midway leaves nothing behind.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "trace_json.h"
#include "vmpi/tools/trace_binary/trace_binary_read.h"

static const char usage[] =
    "usage: vmpi-trace2json [-o FILE.jsonl] RECORDING\n"
    "  -o FILE     write the JSON lines to FILE (default: standard output)\n"
    "  --help      print this and exit\n";

static TraceOutput out; /* large: not on the stack */

static int convert(const char *recording, const char *output) {
    char err[1200];
    TraceBinaryReader *reader = trace_binary_open(recording, err, sizeof err);
    if (!reader) {
        fprintf(stderr, "vmpi-trace2json: %s\n", err);
        return 1;
    }
    if (!trace_output_open(&out, output)) {
        fprintf(stderr, "vmpi-trace2json: %s: %s\n", output, strerror(errno));
        trace_binary_close(reader);
        return 1;
    }
    trace_json_header(&out, trace_binary_vmpi_version(reader), trace_binary_collector(reader));
    TraceBinaryRecord record;
    int got;
    while ((got = trace_binary_next(reader, &record, err, sizeof err)) > 0)
        trace_json_event(&out, record.seq, &record.event, record.thread);
    trace_binary_close(reader);
    if (got < 0) {
        fprintf(stderr, "vmpi-trace2json: %s\n", err);
        trace_output_abandon(&out);
        return 1;
    }
    int error = trace_output_close(&out);
    if (error) {
        fprintf(stderr, "vmpi-trace2json: %s: %s\n", output, strerror(error));
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    const char *output = "-", *recording = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            output = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "vmpi-trace2json: unknown option %s\n%s", argv[i], usage);
            return 2;
        } else if (recording) {
            fprintf(stderr, "vmpi-trace2json: one recording at a time\n%s", usage);
            return 2;
        } else {
            recording = argv[i];
        }
    }
    if (!recording) {
        fprintf(stderr, "vmpi-trace2json: no recording given\n%s", usage);
        return 2;
    }
    return convert(recording, output);
}
