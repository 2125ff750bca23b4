/*
 * hprof_control.c -- the front end's switches (see hprof_control.h).
 */
#include "hprof_control.h"

#include "common/grow.h"

void hprof_cpu_switches_init(HprofCpuSwitches *s) { *s = (HprofCpuSwitches){.all_on = true}; }

bool hprof_cpu_switches_set(HprofCpuSwitches *s, uint64_t thread_object, bool on) {
    if (thread_object == 0) {
        s->all_on = on;
        s->num_threads = 0;
        return true;
    }
    for (size_t i = 0; i < s->num_threads; i++)
        if (s->threads[i].thread_object == thread_object) {
            s->threads[i].on = on;
            return true;
        }
    if (!agent_grow((void **)&s->threads, &s->threads_capacity, s->num_threads + 1, sizeof *s->threads, 8))
        return false;
    s->threads[s->num_threads++] = (HprofThreadSwitch){thread_object, on};
    return true;
}

bool hprof_cpu_switches_on(const HprofCpuSwitches *s, uint64_t thread_object) {
    if (thread_object)
        for (size_t i = 0; i < s->num_threads; i++)
            if (s->threads[i].thread_object == thread_object) return s->threads[i].on;
    return s->all_on;
}

static HprofSiteCounts counts_of(const HprofSite *site) {
    return (HprofSiteCounts){site->live_bytes, site->live_objects, site->alloc_bytes, site->alloc_objects};
}

bool hprof_sites_sent_changed(const HprofSitesSent *sent, size_t index, const HprofSite *site) {
    if (index >= sent->num_sites) return true;
    HprofSiteCounts now = counts_of(site), then = sent->sites[index];
    return now.live_bytes != then.live_bytes || now.live_objects != then.live_objects ||
           now.alloc_bytes != then.alloc_bytes || now.alloc_objects != then.alloc_objects;
}

bool hprof_sites_sent_mark(HprofSitesSent *sent, const HprofSites *sites) {
    if (!agent_grow((void **)&sent->sites, &sent->sites_capacity, sites->num_sites, sizeof *sent->sites, 64))
        return false;
    for (size_t i = 0; i < sites->num_sites; i++) sent->sites[i] = counts_of(&sites->sites[i]);
    sent->num_sites = sites->num_sites;
    return true;
}
