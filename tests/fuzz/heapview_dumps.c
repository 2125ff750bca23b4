/*
 * heapview_dumps.c -- fuzz harness: bytes in as the heapdump agent's file
 * (vmpi/agents/heapdump), read by heapview's dump reader
 * (vmpi/tools/heapview/dump_read.h) as heapview reads it, one collection
 * after another.  Any file must be read to its end or rejected with one
 * message naming the file and line; never a crash, sanitizer report or leak.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "dump_read.h"
#include "finding.h"

static bool count_root(void *context, const char *kind, uint64_t object) {
    (void)kind;
    (void)object;
    ++*(size_t *)context;
    return true;
}

static bool count_reference(void *context, uint64_t from, uint64_t to) {
    (void)from;
    (void)to;
    ++*(size_t *)context;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char path[] = "/tmp/fuzz_heapview_dumps.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) abort();
    if (write(fd, data, size) != (ssize_t)size) abort();
    close(fd);
    char err[512] = "";
    size_t items = 0;
    DumpSink sink = {&items, count_root, count_reference};
    DumpReader reader;
    bool ok = dump_read_open(&reader, path, err, sizeof err);
    /* As heapview asks, collection by collection, but straight to the
     * collection each dump names: a file may name collection 10^13, which
     * a trace reaches only after that many collections.  Each call reads
     * the next dump, so the loop ends with the file. */
    while (ok && reader.next_gc) {
        bool found;
        ok = dump_read_after(&reader, reader.next_gc, &sink, &found, err, sizeof err);
    }
    if (!ok && !err[0]) FINDING("the dump reader rejected the file without a message");
    dump_read_close(&reader);
    unlink(path);
    return 0;
}
