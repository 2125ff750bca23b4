/*
 * region.c -- getting and giving back a bump-allocation region (region.h).
 * Allocating and cutting are inline there.
 */
#include "region.h"

#include <unistd.h>

static size_t page_bytes(void) { return (size_t)sysconf(_SC_PAGESIZE); }

static size_t round_to_page(size_t bytes) {
    size_t page = page_bytes();
    return bytes > SIZE_MAX - (page - 1) ? 0 : (bytes + page - 1) / page * page;
}

bool gc_region_init(GcRegion *region, GcMemory *memory, size_t budget, size_t reserve, uint32_t arena_id) {
    if (budget == 0 || reserve > SIZE_MAX - budget) return false;
    size_t needed = round_to_page(budget + reserve);
    if (needed == 0) return false;
    size_t wanted = gc_memory_region_room();
    if (wanted > GC_REGION_MAX_BYTES) wanted = GC_REGION_MAX_BYTES;
    wanted = wanted > needed ? round_to_page(wanted) : needed;
    /* Less room to grow each time the system refuses, down to none. */
    size_t page = page_bytes();
    for (size_t bytes = wanted;; bytes = needed + (bytes - needed) / page / 2 * page) {
        uint8_t *block = gc_memory_region_alloc(memory, bytes);
        if (block != NULL) {
            region->start = region->top = block;
            region->limit = block + budget;
            region->end = block + bytes;
            region->arena_id = arena_id;
            return true;
        }
        if (bytes == needed) return false;
    }
}

void gc_region_release(GcRegion *region, GcMemory *memory) {
    gc_memory_region_free(memory, region->start, (size_t)(region->end - region->start));
    region->start = region->top = region->limit = region->end = NULL;
}

void gc_region_shrink(GcRegion *region, GcMemory *memory, size_t bytes) {
    uint8_t *new_end = region->start + bytes;
    if (new_end < region->end) gc_memory_region_free(memory, new_end, (size_t)(region->end - new_end));
    region->end = new_end;
}

void gc_region_set_budget(GcRegion *region, size_t budget) {
    uint8_t *new_limit = region->start + budget;
    /* [top, end) is zero: pages there need no clearing, only handing back. */
    if (new_limit < region->limit && region->top < region->limit)
        gc_memory_region_zero(new_limit > region->top ? new_limit : region->top, region->limit);
    region->limit = new_limit;
}

void gc_region_cut_growth(GcRegion *region, uint8_t *new_top) {
    uint8_t *keep = new_top > region->limit ? new_top : region->limit;
    gc_memory_region_zero(keep, region->top);
    region->top = keep;
}
