/*
 * collector_mode.c -- the collector names gccompare and heapview take
 * (collector_mode.h).
 */
#include <stdio.h>
#include <string.h>

#include "collector_mode.h"

/* The collector that has modes, and its modes, as vmrun's --rc-mode takes them. */
static const char moded_collector[] = "refcount";
static const char *const modes[] = {"deferred", "immediate"};
static const char *const mode_options[] = {"--rc-mode=deferred", "--rc-mode=immediate"};

bool collector_mode_parse(const char *name, CollectorMode *mode, char *err, size_t err_size) {
    const char *colon = strchr(name, ':');
    size_t gc_len = colon ? (size_t)(colon - name) : strlen(name);
    *mode = (CollectorMode){0};
    if (gc_len == 0 || gc_len >= sizeof mode->gc) {
        snprintf(err, err_size, "'%s' is not a collector's name", name);
        return false;
    }
    memcpy(mode->gc, name, gc_len);
    if (!colon) return true;
    if (strcmp(mode->gc, moded_collector) != 0) {
        snprintf(err, err_size, "'%s': only %s has modes (%s:%s, %s:%s)", name, moded_collector, moded_collector,
                 modes[0], moded_collector, modes[1]);
        return false;
    }
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (strcmp(colon + 1, modes[i]) == 0) {
            mode->mode_option = mode_options[i];
            return true;
        }
    snprintf(err, err_size, "'%s': %s has no mode '%s' (%s or %s)", name, moded_collector, colon + 1, modes[0],
             modes[1]);
    return false;
}
