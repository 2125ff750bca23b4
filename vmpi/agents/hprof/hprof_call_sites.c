/*
 * hprof_call_sites.c -- call site to TRACE (see hprof_call_sites.h).
 */
#include "hprof_call_sites.h"

#include <stdlib.h>
#include <string.h>

static size_t slot_of(VMPI_CallSiteID site, uint32_t thread, size_t capacity) {
    uint64_t h = (site ^ (uint64_t)thread << 48) * UINT64_C(0x9e3779b97f4a7c15);
    return (size_t)(h >> 32) & (capacity - 1);
}

void hprof_call_sites_free(HprofCallSites *map) {
    free(map->slots);
    *map = (HprofCallSites){0};
}

void hprof_call_sites_clear(HprofCallSites *map) {
    if (map->slots) memset(map->slots, 0, map->capacity * sizeof *map->slots);
    map->count = 0;
}

HprofCallSiteEntry *hprof_call_sites_find(const HprofCallSites *map, VMPI_CallSiteID site, uint32_t thread) {
    if (!map->capacity) return NULL;
    for (size_t i = slot_of(site, thread, map->capacity); map->slots[i].site; i = (i + 1) & (map->capacity - 1))
        if (map->slots[i].site == site && map->slots[i].thread == thread) return &map->slots[i];
    return NULL;
}

static HprofCallSiteEntry *put(HprofCallSiteEntry *slots, size_t capacity, const HprofCallSiteEntry *entry) {
    size_t i = slot_of(entry->site, entry->thread, capacity);
    while (slots[i].site) i = (i + 1) & (capacity - 1);
    slots[i] = *entry;
    return &slots[i];
}

HprofCallSiteEntry *hprof_call_sites_add(HprofCallSites *map, VMPI_CallSiteID site, uint32_t thread, uint32_t trace) {
    if ((map->count + 1) * 2 > map->capacity) {
        size_t capacity = map->capacity ? map->capacity * 2 : 256;
        HprofCallSiteEntry *slots = calloc(capacity, sizeof *slots);
        if (!slots) return NULL;
        for (size_t i = 0; i < map->capacity; i++)
            if (map->slots[i].site) put(slots, capacity, &map->slots[i]);
        free(map->slots);
        map->slots = slots;
        map->capacity = capacity;
    }
    map->count++;
    return put(map->slots, map->capacity,
               &(HprofCallSiteEntry){.site = site, .thread = thread, .trace = trace, .site_number = UINT32_MAX});
}
