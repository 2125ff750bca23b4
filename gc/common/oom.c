/*
 * oom.c -- the one message for a heap that cannot meet a request.  The
 * collector returns NULL from alloc_slow; the VM asks for this line, prints
 * it and exits, so every collector runs out of memory in the same words:
 * the maximum heap, and the flag that raises it.
 */
#include <inttypes.h>

#include "gc/gc.h"

void gc_describe_oom(const Gc *gc, size_t request, char *buf, size_t bufsize) {
    size_t max = gc->config.heap_bytes;
    bool whole_mib = max % ((size_t)1 << 20) == 0;
    snprintf(buf, bufsize,
             "out of memory: maximum heap %zu %s reached by a request of %zu bytes "
             "(%s, %" PRIu64 " bytes in use by %" PRIu64 " objects); raise it with --heap=SIZE (or -Xmx)",
             whole_mib ? max >> 20 : max, whole_mib ? "MiB" : "bytes", request, gc->ops->constraints->name,
             gc_used_bytes(gc), gc_used_objects(gc));
}
