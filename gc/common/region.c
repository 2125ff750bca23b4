/*
 * region.c -- getting and giving back a bump-allocation region (region.h).
 * Allocating and cutting are inline there.
 */
#include "region.h"

bool gc_region_init(GcRegion *region, GcMemory *memory, size_t budget, size_t reserve, uint32_t arena_id) {
    if (budget == 0 || reserve > SIZE_MAX - budget) return false;
    uint8_t *block = gc_memory_region_alloc(memory, budget + reserve);
    if (block == NULL) return false;
    region->start = region->top = block;
    region->limit = block + budget;
    region->end = region->limit + reserve;
    region->arena_id = arena_id;
    return true;
}

void gc_region_release(GcRegion *region, GcMemory *memory) {
    gc_memory_region_free(memory, region->start, (size_t)(region->end - region->start));
    region->start = region->top = region->limit = region->end = NULL;
}
