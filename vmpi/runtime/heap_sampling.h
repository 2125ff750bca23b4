/*
 * heap_sampling.h -- heap sampling as JVMTI 11 defines it
 * (SetHeapSamplingInterval, SampledObjectAlloc): each thread allocating
 * sends a SAMPLED_OBJECT_ALLOC, with the thread's call trace, once per
 * `interval` bytes on average, to each agent that enabled the event.
 *
 * The gaps.  Between two samples of one agent on one thread lie a number of
 * bytes drawn from the exponential distribution whose mean is the agent's
 * interval (as HotSpot's ThreadHeapSampler draws them): the sample points
 * form a Poisson process over the bytes a thread allocates, so an
 * allocation pattern with a fixed period cannot line up with them, and each
 * sample stands for `interval` bytes on average.  An allocation is sampled
 * when it reaches a sample point; the points it spans beyond the first are
 * dropped (one sample per allocation at most, as JVMTI says), and the next
 * point is drawn from the end of the allocation -- the same process with
 * those points removed, as the distribution has no memory.  So an object
 * of s bytes is sampled with probability 1 - exp(-s / interval),
 * independently of every other: about s / interval for objects much
 * smaller than the interval, which is what makes "one sample stands for
 * `interval` bytes" right, and s / (1 - exp(-s / interval)) the exact
 * weight of a sample of any size (docs/hprof.md).  An interval of 0
 * samples every allocation.  The generator of each thread is seeded from
 * --seed when the VM was given one (the same seed and the same program
 * give the same samples), from the system's entropy otherwise
 * (vmpi_seed_heap_sampling, control.h).
 *
 * Where a sample point lies.  Points are counts of the heap's
 * bytes_allocated (gc.h: bumped by every allocation, this one included):
 * agent i's next sample on a thread is due at sampler->sample_at[i].  gclab
 * runs one VM thread, so the heap's count is that thread's; a VM that
 * switches threads must rebase the running thread's points (sample_at -
 * bytes_allocated is the thread's remaining gap) when it switches.
 *
 * The fast path (invariant).  The collectors' gc_post_object_alloc
 * (gc/event_port.h) counts each allocation's size off
 * gc_alloc_event_countdown and goes out of line only when it falls below
 * 0.  It is
 *   GC_ALLOC_EVENT_ALWAYS  while some agent has OBJECT_ALLOC enabled, and
 *                          after any change to an agent's sampling (the
 *                          next allocation then draws the new gaps),
 *   next - bytes_allocated - 1, where next is the running thread's nearest
 *                          sample point, while agents only sample,
 *   GC_ALLOC_EVENT_NEVER   while nobody wants either;
 * so sampling alone costs what the fast path always does (one subtraction
 * and one branch), and nothing more between samples.  It never lets an
 * allocation that reaches a sample point of the running thread pass.
 *
 * Allocations made while a SAMPLED_OBJECT_ALLOC is being delivered on the
 * thread (the agent's callback, and whatever it calls) are never sampled,
 * and their bytes do not count toward the thread's gaps.
 */
#ifndef GCLAB_VMPI_HEAP_SAMPLING_H
#define GCLAB_VMPI_HEAP_SAMPLING_H

#include <stdbool.h>
#include <stdint.h>

#include "vmpi/vm_services.h"
#include "vmpi/vmpi.h"

/* JVMTI 11, SampledObjectAlloc: "By default, the sampling interval is set
 * to 512KB" -- an agent that enables SAMPLED_OBJECT_ALLOC without calling
 * SetHeapSamplingInterval samples at this interval. */
#define VMPI_DEFAULT_SAMPLING_INTERVAL (512 * 1024)

/* How deep a SAMPLED_OBJECT_ALLOC's call trace goes (the innermost
 * frames). */
#define VMPI_SAMPLED_MAX_FRAMES 64

struct VmpiAgent;

/* An agent's sampling changed (SAMPLED_OBJECT_ALLOC enabled or disabled, a
 * new interval): every thread draws its gap again at its next allocation. */
void vmpi_heap_sampling_changed(struct VmpiAgent *agent);

/* Re-establishes gc_alloc_event_countdown's invariant after a change to who
 * wants OBJECT_ALLOC or samples (dispatch.c's vmpi_refresh_enabled). */
void vmpi_refresh_alloc_bytes_left(void);

/* Whether some agent wants SAMPLED_OBJECT_ALLOC. */
extern bool vmpi_heap_sampling_on;

/* The sampling half of an allocation event: `alloc` is the OBJECT_ALLOC
 * record of an allocation after which the heap's count is
 * `bytes_allocated`.  Sends SAMPLED_OBJECT_ALLOC to each agent whose sample
 * point this allocation reached, and sets gc_alloc_event_countdown to count
 * down to the next. */
void vmpi_sample_allocation(const VMPI_Event *alloc, uint64_t bytes_allocated);

#endif
