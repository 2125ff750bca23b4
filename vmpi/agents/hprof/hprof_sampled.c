/*
 * hprof_sampled.c -- sampled allocation sites (see hprof_sampled.h).
 */
#include "hprof_sampled.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common/grow.h"

void hprof_sampled_init(HprofSampled *s, int32_t interval) { *s = (HprofSampled){.interval = interval}; }

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

void hprof_sampled_add(HprofSampled *s, const VMPI_Event *sample, uint32_t trace) {
    HprofSampledSite *site =
        trace == UINT32_MAX ? NULL
                            : site_of(s, trace, sample->u.sampled_alloc.is_array,
                                      (uint64_t)(uintptr_t)sample->u.sampled_alloc.class_id);
    if (!site) {
        s->out_of_memory = true;
        return;
    }
    double size = sample->u.sampled_alloc.size;
    /* The probability the VM sampled an object of this size: 1 at interval 0. */
    double p = s->interval > 0 ? -expm1(-size / s->interval) : 1;
    site->samples++;
    site->bytes += size / p;
    site->objects += 1 / p;
    s->samples++;
}

static int by_estimated_bytes(const void *a, const void *b) {
    const HprofSampledSite *x = *(const HprofSampledSite *const *)a, *y = *(const HprofSampledSite *const *)b;
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    if (x->site.trace != y->site.trace) return x->site.trace < y->site.trace ? -1 : 1;
    if (x->site.is_array != y->site.is_array) return x->site.is_array < y->site.is_array ? -1 : 1;
    return x->site.class_id < y->site.class_id ? -1 : x->site.class_id > y->site.class_id;
}

void hprof_sampled_write(const HprofSampled *s, TraceOutput *out, double cutoff, const char *date,
                         const char *(*class_name)(const HprofSite *site, char *buffer, size_t size)) {
    const HprofSampledSite **order = malloc((s->num_sites ? s->num_sites : 1) * sizeof *order);
    if (!order) return;
    double total = 0;
    for (size_t i = 0; i < s->num_sites; i++) {
        order[i] = &s->sites[i];
        total += s->sites[i].bytes;
    }
    qsort(order, s->num_sites, sizeof *order, by_estimated_bytes);
    char line[512];
    snprintf(line, sizeof line,
             "SITES BEGIN (sampled: estimated allocated bytes and objects, ordered by estimated bytes) %s\n"
             "sampling interval %d bytes, %llu samples; a sample of s bytes stands for s / (1 - exp(-s / %d)) "
             "bytes; no live counts\n",
             date, s->interval, (unsigned long long)s->samples, s->interval);
    trace_output_text(out, line);
    trace_output_text(out, "          percent     estimated alloc'ed          stack class\n"
                           " rank   self  accum        bytes      objs samples trace name\n");
    double accum = 0;
    for (size_t i = 0; i < s->num_sites; i++) {
        const HprofSampledSite *site = order[i];
        double self = total > 0 ? site->bytes / total : 0;
        if (self < cutoff) break;
        accum += self;
        snprintf(line, sizeof line, "%5zu %5.2f%% %5.2f%% %12.0f %9.0f %7llu %5zu ", i + 1, self * 100, accum * 100,
                 site->bytes, site->objects, (unsigned long long)site->samples,
                 HPROF_FIRST_TRACE + (size_t)site->site.trace);
        trace_output_text(out, line);
        trace_output_text(out, class_name(&site->site, line, sizeof line));
        trace_output_text(out, "\n");
    }
    trace_output_text(out, "SITES END\n");
    free(order);
}
