/*
 * lifetimes.c -- objects' lifetimes per class (lifetimes.h).
 */
#include "lifetimes.h"

void life_born(ClassLife *life, uint64_t size) {
    life->allocated_objects++;
    life->allocated_bytes += size;
}

void life_died(ClassLife *life, uint64_t survived, uint64_t lived) {
    life->died_at[survived < LIFE_AGES ? survived : LIFE_AGES - 1]++;
    unsigned span = 0;
    for (uint64_t limit = 256; span < LIFE_SPANS - 1 && lived >= limit; limit *= 4) span++;
    life->span[span]++;
    life->bytes_lived += lived;
}

uint64_t life_deaths(const ClassLife *life) {
    uint64_t deaths = 0;
    for (unsigned k = 0; k < LIFE_AGES; k++) deaths += life->died_at[k];
    return deaths;
}
