/*
 * hprof_sampled.c -- sampled allocation sites (see hprof_sampled.h).
 */
#include "hprof_sampled.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/grow.h"
#include "hprof_objects.h"

bool hprof_sampled_init(HprofSampled *s, int32_t interval, bool live) {
    *s = (HprofSampled){.interval = interval, .live = live};
    return !live || idmap_init(&s->objects, 1024);
}

/* The site of (trace, class), added if new; NULL if memory ran out.  A
 * linear search: samples are rare (one per `interval` bytes) and so are
 * the sites they reach. */
static HprofSampledSite *site_of(HprofSampled *s, uint32_t trace, int32_t is_array, uint64_t class_id) {
    for (size_t i = 0; i < s->num_sites; i++) {
        const HprofSite *site = &s->sites[i].site;
        if (site->trace == trace && site->is_array == is_array && site->class_id == class_id) return &s->sites[i];
    }
    if (!agent_grow((void **)&s->sites, &s->sites_capacity, s->num_sites + 1, sizeof *s->sites, 64)) return NULL;
    HprofSampledSite *added = &s->sites[s->num_sites++];
    *added = (HprofSampledSite){.site = {.trace = trace, .is_array = is_array, .class_id = class_id}};
    return added;
}

/* The probability the VM sampled an object of `size` bytes: 1 at interval 0. */
static double probability(const HprofSampled *s, double size) {
    return s->interval > 0 ? -expm1(-size / s->interval) : 1;
}

/* A sampled object leaves its site's live estimates (before it leaves the map). */
static void leave_site(const IdEntry *entry, void *sampled) {
    HprofSampled *s = sampled;
    HprofSampledSite *site = &s->sites[entry->tag];
    double p = probability(s, entry->size);
    site->live_samples--;
    /* The last one out leaves exact zeros, not the sums' rounding. */
    site->live_bytes = site->live_samples ? site->live_bytes - entry->size / p : 0;
    site->live_objects = site->live_samples ? site->live_objects - 1 / p : 0;
}

void hprof_sampled_add(HprofSampled *s, const VMPI_Event *sample, uint32_t trace) {
    uint64_t obj = (uint64_t)(uintptr_t)sample->u.sampled_alloc.obj_id;
    HprofSampledSite *site =
        trace == UINT32_MAX ? NULL
                            : site_of(s, trace, sample->u.sampled_alloc.is_array,
                                      (uint64_t)(uintptr_t)sample->u.sampled_alloc.class_id);
    if (!site || (s->live && (!obj || !idmap_reserve(&s->objects, s->objects.count + 1)))) {
        if (s->live) hprof_sampled_free_object(s, obj); /* if the ID is reused, its old object is gone */
        s->out_of_memory = true;
        return;
    }
    uint32_t size = (uint32_t)sample->u.sampled_alloc.size;
    double p = probability(s, size);
    site->samples++;
    site->bytes += size / p;
    site->objects += 1 / p;
    s->samples++;
    if (!s->live) return;
    IdEntry reused;
    bool was_present;
    IdEntry *entry = idmap_put(&s->objects, obj, (int32_t)(intptr_t)sample->u.sampled_alloc.arena_id, size,
                               &reused, &was_present);
    entry->tag = (uint32_t)(site - s->sites);
    if (was_present) leave_site(&reused, s); /* its free was not reported: the ID is reused */
    site->live_samples++;
    site->live_bytes += size / p;
    site->live_objects += 1 / p;
}

void hprof_sampled_free_object(HprofSampled *s, uint64_t obj_id) {
    hprof_objects_free(&s->objects, obj_id, leave_site, s);
}

void hprof_sampled_move(HprofSampled *s, uint64_t obj_id, int32_t new_arena, uint64_t new_obj_id) {
    hprof_objects_move(&s->objects, obj_id, new_arena, new_obj_id, leave_site, s);
}

void hprof_sampled_delete_arena(HprofSampled *s, int32_t arena_id) {
    uint64_t bytes;
    idmap_remove_arena(&s->objects, arena_id, &bytes, leave_site, s);
}

bool hprof_sampled_reserve(HprofSampled *s) { return idmap_reserve(&s->objects, s->objects.count + 1); }

/* The SITES table's order (hprof_agent.c): live bytes, then allocated
 * bytes, descending (without live estimates, every live count is 0); then
 * trace and class, so that the table does not depend on qsort. */
static int by_estimated_live_bytes(const void *a, const void *b) {
    const HprofSampledSite *x = *(const HprofSampledSite *const *)a, *y = *(const HprofSampledSite *const *)b;
    if (x->live_bytes != y->live_bytes) return x->live_bytes > y->live_bytes ? -1 : 1;
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    if (x->site.trace != y->site.trace) return x->site.trace < y->site.trace ? -1 : 1;
    if (x->site.is_array != y->site.is_array) return x->site.is_array < y->site.is_array ? -1 : 1;
    return x->site.class_id < y->site.class_id ? -1 : x->site.class_id > y->site.class_id;
}

void hprof_sampled_write(const HprofSampled *s, TraceOutput *out, double cutoff, const char *date,
                         const char *(*class_name)(const HprofSite *site, char *buffer, size_t size)) {
    const HprofSampledSite **order = malloc((s->num_sites ? s->num_sites : 1) * sizeof *order);
    if (!order) return;
    double total = 0; /* live bytes, or allocated without live estimates: the percents' base */
    uint64_t live_samples = 0;
    for (size_t i = 0; i < s->num_sites; i++) {
        order[i] = &s->sites[i];
        total += s->live ? s->sites[i].live_bytes : s->sites[i].bytes;
        live_samples += s->sites[i].live_samples;
    }
    qsort(order, s->num_sites, sizeof *order, by_estimated_live_bytes);
    char line[512], weight[80] = "every allocation is sampled: the counts are exact";
    if (s->interval > 0) snprintf(weight, sizeof weight, "a sample of s bytes stands for s / (1 - exp(-s / %d)) bytes",
                                  s->interval);
    if (s->live) {
        snprintf(line, sizeof line,
                 "SITES BEGIN (sampled: estimated live and allocated bytes and objects, ordered by estimated live "
                 "bytes) %s\n"
                 "sampling interval %d bytes, %llu samples, %llu of them live; %s\n",
                 date, s->interval, (unsigned long long)s->samples, (unsigned long long)live_samples, weight);
        trace_output_text(out, line);
        trace_output_text(out, "          percent   estimated live  estimated alloc'ed          stack class\n"
                               " rank   self  accum     bytes    objs      bytes      objs samples trace name\n");
    } else {
        snprintf(line, sizeof line,
                 "SITES BEGIN (sampled: estimated allocated bytes and objects, ordered by estimated allocated "
                 "bytes; sample_live=y adds live ones) %s\n"
                 "sampling interval %d bytes, %llu samples; %s\n",
                 date, s->interval, (unsigned long long)s->samples, weight);
        trace_output_text(out, line);
        trace_output_text(out, "          percent  estimated alloc'ed          stack class\n"
                               " rank   self  accum      bytes      objs samples trace name\n");
    }
    double accum = 0;
    for (size_t i = 0; i < s->num_sites; i++) {
        const HprofSampledSite *site = order[i];
        double self = total > 0 ? (s->live ? site->live_bytes : site->bytes) / total : 0;
        if (self < cutoff) break;
        accum += self;
        int at = snprintf(line, sizeof line, "%5zu %5.2f%% %5.2f%% ", i + 1, self * 100, accum * 100);
        if (s->live)
            at += snprintf(line + at, sizeof line - (size_t)at, "%9.0f %7.0f ", site->live_bytes, site->live_objects);
        snprintf(line + at, sizeof line - (size_t)at, "%10.0f %9.0f %7llu %5zu ", site->bytes, site->objects,
                 (unsigned long long)site->samples, HPROF_FIRST_TRACE + (size_t)site->site.trace);
        trace_output_text(out, line);
        trace_output_text(out, class_name(&site->site, line, sizeof line));
        trace_output_text(out, "\n");
    }
    trace_output_text(out, "SITES END\n");
    free(order);
}

bool hprof_sampled_add_stacks(const HprofSampled *s, HprofStacks *stacks,
                              const char *(*class_name)(const HprofSite *site, char *buffer, size_t size)) {
    size_t first = hprof_stacks_add_types(stacks, hprof_heap_value_types,
                                          s->live ? HPROF_HEAP_VALUE_TYPES : HPROF_HEAP_ALLOC_VALUE_TYPES);
    for (size_t i = 0; i < s->num_sites; i++) {
        const HprofSampledSite *site = &s->sites[i];
        char name[256];
        HprofStack *stack = hprof_stacks_add(stacks, site->site.trace, class_name(&site->site, name, sizeof name));
        if (!stack) return false;
        int64_t *values = &stack->values[first];
        values[0] = llround(site->objects);
        values[1] = llround(site->bytes);
        if (!s->live) continue;
        values[2] = llround(site->live_objects);
        values[3] = llround(site->live_bytes);
    }
    return true;
}
