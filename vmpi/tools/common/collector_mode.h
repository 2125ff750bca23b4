/*
 * collector_mode.h -- a collector as gccompare and heapview name it
 * (docs/gcstats.md, "gccompare"; docs/heapview.md): one of vmrun's
 * collectors, run as `vmrun --gc=NAME`, or refcount in one of its two
 * modes, `refcount:deferred` or `refcount:immediate`, run as
 * `vmrun --gc=refcount --rc-mode=MODE` (docs/collectors/refcount.md).
 * Plain `refcount` is vmrun's default mode, deferred.  Both tools read the
 * names here, so that the two modes can sit side by side as two columns of
 * a table or two runs of a page, each named by its spelling.
 */
#ifndef GCLAB_TOOLS_COLLECTOR_MODE_H
#define GCLAB_TOOLS_COLLECTOR_MODE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char gc[64];             /* vmrun's --gc= value */
    const char *mode_option; /* "--rc-mode=immediate" or "--rc-mode=deferred", or NULL for none */
} CollectorMode;

/* Reads `name` ("semispace", "refcount:immediate", ...) into *mode.  False,
 * with one line saying why in `err`, for a mode that is not refcount's
 * (immediate or deferred), a mode on another collector, or a name too long.
 * Whether vmrun has the collector is vmrun's to say. */
bool collector_mode_parse(const char *name, CollectorMode *mode, char *err, size_t err_size);

#endif
