/*
 * dump_read.c -- the heapdump agent's text, line by line (dump_read.h).
 */
#include "dump_read.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static bool fail(DumpReader *reader, const char *why, char *err, size_t err_size) {
    snprintf(err, err_size, "%s:%" PRIu64 ": %s", reader->path, reader->line, why);
    return false;
}

static bool next_line(DumpReader *reader) {
    if (getline(&reader->text, &reader->text_size, reader->file) < 0) return false;
    reader->line++;
    return true;
}

/* Reads up to the next "dump" line (or the end) into next_gc. */
static bool read_header(DumpReader *reader, char *err, size_t err_size) {
    reader->next_gc = 0;
    if (!next_line(reader)) return true;
    unsigned long long new_id;
    long gc;
    if (sscanf(reader->text, "dump %ld %llu", &gc, &new_id) != 2 || gc < 1)
        return fail(reader, "not a \"dump GC NEW_ID\" line", err, err_size);
    reader->next_gc = gc;
    reader->next_new_id = new_id;
    return true;
}

bool dump_read_open(DumpReader *reader, const char *path, char *err, size_t err_size) {
    memset(reader, 0, sizeof *reader);
    reader->path = path;
    reader->file = fopen(path, "r");
    if (!reader->file) {
        snprintf(err, err_size, "%s: %s", path, strerror(errno));
        return false;
    }
    if (!next_line(reader) || strcmp(reader->text, "gclab-heapdump 1\n") != 0)
        return fail(reader, "not a heapdump file of version 1", err, err_size);
    return read_header(reader, err, err_size);
}

void dump_read_close(DumpReader *reader) {
    if (reader->file) fclose(reader->file);
    free(reader->text);
    memset(reader, 0, sizeof *reader);
}

/* One object's line: "object ID REF...". */
static bool read_object(DumpReader *reader, const DumpSink *sink, bool wanted, char *err, size_t err_size) {
    char *at = reader->text + strlen("object"), *end;
    errno = 0;
    uint64_t from = strtoull(at, &end, 10);
    if (end == at || errno) return fail(reader, "an object line with no ID", err, err_size);
    for (at = end; *at && *at != '\n'; at = end) {
        uint64_t to = strtoull(at, &end, 10);
        if (end == at || errno) return fail(reader, "a reference that is not an ID", err, err_size);
        bool kept = !wanted || to == reader->next_new_id || from == reader->next_new_id ||
                    sink->reference(sink->context, from, to);
        if (!kept) return fail(reader, "out of memory", err, err_size);
    }
    return true;
}

bool dump_read_after(DumpReader *reader, long gc, const DumpSink *sink, bool *found, char *err, size_t err_size) {
    *found = false;
    while (reader->next_gc && reader->next_gc <= gc) {
        bool wanted = reader->next_gc == gc;
        for (;;) {
            if (!next_line(reader)) return fail(reader, "a dump with no \"end\"", err, err_size);
            if (strcmp(reader->text, "end\n") == 0) break;
            if (strncmp(reader->text, "object ", 7) == 0) {
                if (!read_object(reader, sink, wanted, err, err_size)) return false;
                continue;
            }
            char kind[16];
            unsigned long long object;
            if (sscanf(reader->text, "root %15s %llu", kind, &object) != 2)
                return fail(reader, "neither a root, an object nor \"end\"", err, err_size);
            if (wanted && object != reader->next_new_id && !sink->root(sink->context, kind, object))
                return fail(reader, "out of memory", err, err_size);
        }
        *found = *found || wanted;
        if (!read_header(reader, err, err_size)) return false;
    }
    return true;
}
