/*
 * heap_sampling.c -- SAMPLED_OBJECT_ALLOC: the per-thread gaps, drawn from
 * an exponential distribution, and the countdown that keeps the allocation
 * fast path at one subtraction and one branch (heap_sampling.h says how and
 * why).
 */
#include <math.h>
#include <time.h>
#include <unistd.h>

#include "vmpi/vmpi_random.h"
#include "vmpi/control.h"
#include "dispatch.h"

bool vmpi_heap_sampling_on;

/* The last sampling generation handed out: each change to an agent's
 * sampling takes a new one, never reused, so a thread's gap drawn before it
 * is told apart even in a slot another agent held. */
static uint64_t last_generation;

/* --seed, if the VM was given one. */
static bool seeded;
static uint64_t seed;
/* How many threads have seeded their generator: the k-th mixes k into the
 * seed, so threads draw different gaps. */
static uint64_t threads_seeded;

/* Allocations on no VM thread (before the main thread exists, or with no VM
 * attached) share this state. */
static VmpiThreadSampler no_thread_sampler;

/* Set while a SAMPLED_OBJECT_ALLOC is being delivered on this thread. */
static _Thread_local bool delivering_sample;

void vmpi_seed_heap_sampling(const uint64_t *vm_seed) {
    seeded = vm_seed != NULL;
    seed = vm_seed ? *vm_seed : 0;
    threads_seeded = 0;
    no_thread_sampler = (VmpiThreadSampler){0};
}

static VmpiThreadSampler *thread_sampler(VMPI_ThreadID thread) {
    VmpiThreadSampler *sampler = thread && vmpi_vm && vmpi_vm->heap_sampler
                                     ? vmpi_vm->heap_sampler(vmpi_vm->vm, thread)
                                     : &no_thread_sampler;
    if (!sampler->seeded) {
        uint64_t start = seed + ++threads_seeded * 0x9e3779b97f4a7c15u;
        if (!seeded && getentropy(&start, sizeof start) != 0)
            start ^= (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)sampler;
        sampler->random_state = start;
        sampler->seeded = true;
    }
    return sampler;
}

/* A gap in bytes, exponentially distributed with mean `interval`; 0 for
 * an interval of 0 (every allocation reaches the point). */
static uint64_t draw_gap(VmpiThreadSampler *sampler, int32_t interval) {
    if (interval == 0) return 0;
    /* u uniform in (0, 1], from the generator's top 53 bits. */
    double u = (double)((agent_random_next(&sampler->random_state) >> 11) + 1) * 0x1p-53;
    return (uint64_t)(-log(u) * interval) + 1;
}

void vmpi_refresh_alloc_bytes_left(void) {
    vmpi_heap_sampling_on = false;
    for (uint32_t i = 0; i < vmpi_num_agents; i++)
        if (vmpi_wants_samples(&vmpi_agents[i])) vmpi_heap_sampling_on = true;
    /* While agents sample, the next allocation goes out of line to draw the
     * gaps and count down to the nearest point. */
    gc_alloc_event_countdown = vmpi_enabled[VMPI_EVENT_OBJECT_ALLOC] || vmpi_heap_sampling_on ? GC_ALLOC_EVENT_ALWAYS
                                                                                          : GC_ALLOC_EVENT_NEVER;
}

void vmpi_heap_sampling_changed(VmpiAgent *agent) {
    agent->sampling_generation = ++last_generation;
    vmpi_refresh_alloc_bytes_left();
}

/* Sends `alloc` to `agent` as SAMPLED_OBJECT_ALLOC with the allocating
 * thread's call trace.  Returns how many bytes were allocated meanwhile
 * (by the agent's callback), which the gaps must not count. */
static uint64_t send_sample(VmpiAgent *agent, const VMPI_Event *alloc, uint64_t bytes_allocated) {
    VMPI_CallFrame frames[VMPI_SAMPLED_MAX_FRAMES];
    VMPI_Event sampled = *alloc;
    sampled.event_type = VMPI_EVENT_SAMPLED_OBJECT_ALLOC;
    sampled.u.sampled_alloc.num_frames =
        alloc->env_id && vmpi_vm ? vmpi_vm->call_trace(vmpi_vm->vm, alloc->env_id, frames, VMPI_SAMPLED_MAX_FRAMES)
                                 : 0;
    sampled.u.sampled_alloc.frames = sampled.u.sampled_alloc.num_frames ? frames : NULL;
    /* With collection disabled, as every event carrying an object ID
     * (vmpi_dispatch). */
    Gc *gc = vmpi_gc();
    if (gc) gc_disable(gc);
    delivering_sample = true;
    vmpi_deliver(agent, &sampled);
    delivering_sample = false;
    if (!gc) return 0;
    gc_enable(gc);
    return gc->stats.bytes_allocated > bytes_allocated ? gc->stats.bytes_allocated - bytes_allocated : 0;
}

void vmpi_sample_allocation(const VMPI_Event *alloc, uint64_t bytes_allocated) {
    if (delivering_sample) return;
    VmpiThreadSampler *sampler = thread_sampler(alloc->env_id);
    uint64_t before = bytes_allocated - (uint64_t)alloc->u.obj_alloc.size;
    uint64_t generation = last_generation;
    /* vmpi_num_agents is re-read each time: a NotifyEvent may shut down. */
    for (uint32_t i = 0; i < vmpi_num_agents; i++) {
        VmpiAgent *agent = &vmpi_agents[i];
        if (!vmpi_wants_samples(agent)) continue;
        if (sampler->drawn_in[i] != agent->sampling_generation) {
            sampler->drawn_in[i] = agent->sampling_generation;
            sampler->sample_at[i] = before + draw_gap(sampler, agent->sampling_interval);
        }
        if (bytes_allocated < sampler->sample_at[i]) continue;
        uint64_t unsampled = send_sample(agent, alloc, bytes_allocated);
        bytes_allocated += unsampled;
        for (uint32_t j = 0; j < VMPI_MAX_AGENTS; j++) sampler->sample_at[j] += unsampled;
        sampler->sample_at[i] = bytes_allocated + draw_gap(sampler, agent->sampling_interval);
    }
    uint64_t next = UINT64_MAX;
    for (uint32_t i = 0; i < vmpi_num_agents; i++)
        if (vmpi_wants_samples(&vmpi_agents[i]) && sampler->sample_at[i] < next) next = sampler->sample_at[i];
    /* A callback that changed some agent's sampling leaves gaps to draw
     * at the next allocation.  Otherwise the next allocation that reaches
     * `next` (bytes_allocated >= next) takes the count below 0. */
    if (vmpi_enabled[VMPI_EVENT_OBJECT_ALLOC] || last_generation != generation)
        gc_alloc_event_countdown = GC_ALLOC_EVENT_ALWAYS;
    else if (next - bytes_allocated > (uint64_t)GC_ALLOC_EVENT_NEVER)
        gc_alloc_event_countdown = GC_ALLOC_EVENT_NEVER;
    else
        gc_alloc_event_countdown = (int64_t)(next - bytes_allocated) - 1;
}
