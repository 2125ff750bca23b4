/*
 * hprof_control.h -- the state the front end's commands switch (net=,
 * hprof_net.h): which threads cpu=samples samples (CONTROL 3 and 4), and
 * what the last ALLOC SITES sent, for an incremental one (flag 0x1).
 *
 * CPU sampling switches (the HPROF agent manual, "Socket Connection and
 * Communication", CONTROL 0x3 and 0x4, as JDK hprof's cpu_sample_on and
 * cpu_sample_off do them): a thread is named by its thread object ID, the
 * `obj=` of its THREAD START, and 0 names every thread.  Switching every
 * thread forgets the switches of single threads.  A thread without a
 * thread object (main: obj=0) can only be switched with every thread.
 * Invariant: a thread is sampled iff it has a switch of its own that is
 * on, or has none and `all_on` holds.
 *
 * Incremental sites: a site has changed when its four counts differ from
 * those the last ALLOC SITES answer found (a site new since then has
 * changed), as JDK hprof's site `changed` flag, set by an allocation or a
 * free there and cleared by every SITES it writes.
 *
 * Both are touched under the agent's lock, outside collections; only the
 * setters allocate (false: out of memory, the state is as it was).
 */
#ifndef GCLAB_HPROF_CONTROL_H
#define GCLAB_HPROF_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hprof_sites.h"

typedef struct HprofThreadSwitch {
    uint64_t thread_object;
    bool on;
} HprofThreadSwitch;

typedef struct HprofCpuSwitches {
    bool all_on;
    HprofThreadSwitch *threads;
    size_t num_threads, threads_capacity;
} HprofCpuSwitches;

void hprof_cpu_switches_init(HprofCpuSwitches *s);
/* CONTROL 3 (on) and 4 (off) for `thread_object`, 0 for every thread. */
bool hprof_cpu_switches_set(HprofCpuSwitches *s, uint64_t thread_object, bool on);
/* Whether the thread with this thread object (0 if it has none) is sampled. */
bool hprof_cpu_switches_on(const HprofCpuSwitches *s, uint64_t thread_object);

typedef struct HprofSiteCounts {
    uint64_t live_bytes, live_objects, alloc_bytes, alloc_objects;
} HprofSiteCounts;

typedef struct HprofSitesSent {
    HprofSiteCounts *sites;      /* by site number, as last sent */
    size_t num_sites, sites_capacity;
} HprofSitesSent;

/* Whether site number `index` has changed since the last hprof_sites_sent_mark. */
bool hprof_sites_sent_changed(const HprofSitesSent *sent, size_t index, const HprofSite *site);
/* Every site's counts, as an ALLOC SITES answer has just found them. */
bool hprof_sites_sent_mark(HprofSitesSent *sent, const HprofSites *sites);

#endif
