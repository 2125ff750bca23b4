/*
 * oom.c -- the one message for a heap that cannot meet a request.  The
 * collector returns NULL from alloc_slow; the VM asks for this line, prints
 * it and exits, so every collector runs out of memory in the same words.
 */
#include <inttypes.h>

#include "../gc.h"

void gc_describe_oom(const Gc *gc, size_t request, char *buf, size_t bufsize) {
    snprintf(buf, bufsize,
             "out of memory: heap of %zu bytes exhausted by a request of %zu bytes "
             "(%s, %" PRIu64 " bytes in use by %" PRIu64 " objects)",
             gc->config.heap_bytes, request, gc->ops->constraints->name, gc_used_bytes(gc),
             gc_used_objects(gc));
}
