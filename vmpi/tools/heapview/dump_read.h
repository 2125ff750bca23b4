/*
 * dump_read.h -- reads the heapdump agent's file (vmpi/agents/heapdump):
 * the roots and references of the heap each small collection left.
 */
#ifndef HEAPVIEW_DUMP_READ_H
#define HEAPVIEW_DUMP_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    FILE *file;
    const char *path;
    uint64_t line;
    long next_gc;          /* the collection the next dump follows, 0 if none is left */
    uint64_t next_new_id;  /* the allocation it was taken at: not part of that heap */
    char *text;
    size_t text_size;
} DumpReader;

/* What a dump holds, item by item; `kind` a root's kind as the agent names it. */
typedef struct {
    void *context;
    bool (*root)(void *context, const char *kind, uint64_t object);
    bool (*reference)(void *context, uint64_t from, uint64_t to);
} DumpSink;

/* Opens `path`; false, with why in err. */
bool dump_read_open(DumpReader *reader, const char *path, char *err, size_t err_size);
void dump_read_close(DumpReader *reader);

/* If the next dump is the one taken after collection `gc` (from 1), hands its
 * items to `sink`, leaving out the allocation it was taken at, and returns
 * true in *found.  Dumps of earlier collections are skipped.  False, with
 * why in err, on a malformed file or when the sink fails. */
bool dump_read_after(DumpReader *reader, long gc, const DumpSink *sink, bool *found, char *err, size_t err_size);

#endif
