/*
 * agent_random.h -- seeded random points, for agents that act at random
 * points of a run (check's dumps, toggles and late attach; the conformance
 * runner's driver agent, vmpi/tools/conform/driver.c), and for VMPI's own heap
 * sampling (vmpi/runtime/heap_sampling.c): the same seed and the same run give the
 * same points.  Header-only, as agent_common.h.
 */
#ifndef GCLAB_AGENT_RANDOM_H
#define GCLAB_AGENT_RANDOM_H

#include <stdint.h>

/* splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", 2014): one 64-bit word of state, any seed is good. */
static inline uint64_t agent_random_next(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* A gap of 1 to 2N-1 points: N on average.  0 (never) when N is 0. */
static inline uint64_t agent_random_gap(uint64_t *state, uint64_t mean) {
    return mean ? 1 + agent_random_next(state) % (2 * mean - 1) : 0;
}

#endif
