/*
 * hprof_call_sites.h -- which TRACE and SITE each call site (vmpi.h,
 * GetCallSite) is: a map from (call site, thread number) to the trace's
 * index in the sites table and the last allocation site (trace and class)
 * seen there, so that an allocation from a site seen before costs one
 * lookup instead of reading, hashing and comparing its frames, then
 * hashing its site (docs/hprof.md, "What it costs").
 *
 * Several sites may be one trace (contexts that differ only deeper than
 * depth=, or lines dropped with lineno=n); a site is always the same trace
 * for the same depth, so the map is emptied when depth= changes.
 */
#ifndef GCLAB_HPROF_CALL_SITES_H
#define GCLAB_HPROF_CALL_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmpi.h"

typedef struct HprofCallSiteEntry {
    VMPI_CallSiteID site;     /* 0: an empty slot */
    uint32_t thread;          /* thread number with thread=y, else 0 */
    uint32_t trace;           /* index into HprofSites.traces */
    /* The allocation site last recorded here: its class and index into
     * HprofSites.sites (UINT32_MAX: none yet). */
    int32_t is_array;
    uint32_t site_number;
    uint64_t class_id;
} HprofCallSiteEntry;

typedef struct HprofCallSites {
    HprofCallSiteEntry *slots; /* open addressing, at most half full */
    size_t capacity, count;
} HprofCallSites;

void hprof_call_sites_free(HprofCallSites *map);
void hprof_call_sites_clear(HprofCallSites *map);

/* The entry of `site` (not 0) for `thread`, NULL if none yet. */
HprofCallSiteEntry *hprof_call_sites_find(const HprofCallSites *map, VMPI_CallSiteID site, uint32_t thread);

/* Remembers that `site` for `thread` is `trace` (no allocation site yet):
 * its entry, valid until the next add; NULL if memory ran out (the site is
 * then looked up by its frames again next time). */
HprofCallSiteEntry *hprof_call_sites_add(HprofCallSites *map, VMPI_CallSiteID site, uint32_t thread,
                                         uint32_t trace);

#endif
