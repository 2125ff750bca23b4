/*
 * heap_options.c -- the heap-size and collection-log options
 * (heap_options.h).  Each value is checked completely here, with one
 * message naming the option as it was spelt.
 */
#include "heap_options.h"

#include <stdio.h>
#include <string.h>

#include "options.h"

void vm_default_heap_options(GcConfig *gc) {
    gc->heap_bytes = gc_heap_default_max(VM_MIN_HEAP_BYTES);
}

/* One size option: `option` as the user spelt it ("--heap", "-Xmx"), `min`
 * its least value. */
static HeapOptionResult take_size(const char *value, const char *option, size_t min, size_t *target,
                                  bool *given, char *err, size_t errsize) {
    if (value[0] == '\0') {
        snprintf(err, errsize, "%s needs a size (%s%s64m; a number of bytes, or k, m or g)", option, option,
                 option[1] == '-' ? "=" : "");
        return HEAP_OPTION_BAD;
    }
    size_t bytes;
    if (!vm_parse_size(value, option, &bytes, err, errsize)) return HEAP_OPTION_BAD;
    if (bytes < min) {
        snprintf(err, errsize, "%s%s%s is too small (at least %zuk)", option, option[1] == '-' ? "=" : "", value,
                 min >> 10);
        return HEAP_OPTION_BAD;
    }
    *target = bytes;
    *given = true;
    return HEAP_OPTION_TAKEN;
}

HeapOptionResult vm_parse_heap_option(const char *arg, GcConfig *gc, HeapOptionsGiven *given, char *err,
                                      size_t errsize) {
    static const char *const log_aliases[] = {"--gc-log", "-verbose:gc", "-Xlog:gc"};
    for (size_t i = 0; i < sizeof log_aliases / sizeof *log_aliases; i++) {
        if (strcmp(arg, log_aliases[i]) == 0) {
            gc->log = stderr;
            return HEAP_OPTION_TAKEN;
        }
    }
    /* gclab's spelling "--heap=64m", the JVM's "-Xmx64m". */
    const struct {
        const char *option;
        size_t min;
        size_t *target;
        bool *given;
    } sizes[] = {
        {"--heap", VM_MIN_HEAP_BYTES, &gc->heap_bytes, &given->max},
        {"-Xmx", VM_MIN_HEAP_BYTES, &gc->heap_bytes, &given->max},
        {"-Xms", VM_MIN_HEAP_BYTES, &gc->initial_heap_bytes, &given->initial},
        {"--young", VM_MIN_YOUNG_BYTES, &gc->young_bytes, &given->young},
        {"-Xmn", VM_MIN_YOUNG_BYTES, &gc->young_bytes, &given->young},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        const char *option = sizes[i].option;
        size_t len = strlen(option);
        if (strncmp(arg, option, len) != 0) continue;
        const char *value = arg + len;
        if (option[1] == '-') {
            if (value[0] == '\0') {
                snprintf(err, errsize, "option '%s' needs a value (%s=...)", option, option);
                return HEAP_OPTION_BAD;
            }
            if (value[0] != '=') continue; /* another option that starts alike */
            value++;
        }
        return take_size(value, option, sizes[i].min, sizes[i].target, sizes[i].given, err, errsize);
    }
    return HEAP_OPTION_NOT_MINE;
}

bool vm_settle_heap_options(GcConfig *gc, const HeapOptionsGiven *given, char *err, size_t errsize) {
    if (!given->initial) {
        gc->initial_heap_bytes =
            gc->heap_bytes < VM_DEFAULT_INITIAL_HEAP_BYTES ? gc->heap_bytes : VM_DEFAULT_INITIAL_HEAP_BYTES;
    } else if (gc->initial_heap_bytes > gc->heap_bytes) {
        snprintf(err, errsize, "-Xms (%zu bytes) must be at most the maximum heap, --heap or -Xmx (%zu bytes)",
                 gc->initial_heap_bytes, gc->heap_bytes);
        return false;
    }
    if (!given->young) {
        gc->young_bytes = gc->heap_bytes / 4 < VM_DEFAULT_YOUNG_BYTES ? gc->heap_bytes / 4 : VM_DEFAULT_YOUNG_BYTES;
        /* A heap of fixed size (-Xms = -Xmx) keeps a nursery of fixed size. */
        bool heap_fixed = gc->initial_heap_bytes == gc->heap_bytes;
        gc->initial_young_bytes = heap_fixed || gc->young_bytes < VM_DEFAULT_INITIAL_YOUNG_BYTES
                                      ? gc->young_bytes
                                      : VM_DEFAULT_INITIAL_YOUNG_BYTES;
        return true;
    }
    gc->initial_young_bytes = gc->young_bytes;
    if (gc->young_bytes > gc->heap_bytes / 2) {
        snprintf(err, errsize, "--young or -Xmn (%zu bytes) must be at most half of the maximum heap, --heap "
                 "or -Xmx (%zu bytes)", gc->young_bytes, gc->heap_bytes);
        return false;
    }
    return true;
}
