/*
 * heapsize.c -- the heap sizing policy (heapsize.h).
 */
#include "heapsize.h"

#include <stdint.h>
#include <unistd.h>

#include "region.h"

static size_t align_down(size_t bytes) { return bytes & ~(size_t)(OBJ_ALIGN - 1); }

/* `needed` with `free_percent` of the result left free, saturating. */
static size_t with_free(size_t needed, unsigned free_percent) {
    unsigned used_percent = 100u - free_percent;
    if (needed > SIZE_MAX / 100u) return SIZE_MAX;
    return (needed * 100u + used_percent - 1) / used_percent;
}

size_t gc_heap_size_for(size_t capacity, size_t live, size_t request, size_t floor, size_t ceiling) {
    size_t needed = live > SIZE_MAX - request ? SIZE_MAX : live + request;
    size_t grow_to = with_free(needed, GC_HEAP_MIN_FREE_PERCENT);
    size_t shrink_to = with_free(needed, GC_HEAP_MAX_FREE_PERCENT);
    if (capacity < grow_to) capacity = grow_to;
    else if (capacity > shrink_to) capacity = shrink_to;
    if (capacity < floor) capacity = floor;
    capacity = capacity > SIZE_MAX - (OBJ_ALIGN - 1) ? SIZE_MAX : align_down(capacity + OBJ_ALIGN - 1);
    return capacity < ceiling ? capacity : align_down(ceiling);
}

size_t gc_heap_floor(const GcConfig *config, size_t ceiling) {
    size_t initial = config->initial_heap_bytes;
    if (initial == 0 || initial >= config->heap_bytes) return ceiling;
    size_t floor = align_down((size_t)((unsigned __int128)ceiling * initial / config->heap_bytes));
    return floor >= OBJ_ALIGN ? floor : OBJ_ALIGN;
}

size_t gc_heap_default_max(size_t minimum) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    size_t quarter = pages > 0 && page > 0 ? (size_t)pages / 4 * (size_t)page : minimum;
    /* markcompact's limit: its region, room to grow included, within
     * what a compaction can address (region.h). */
    if (quarter > GC_REGION_MAX_BYTES / 2) quarter = GC_REGION_MAX_BYTES / 2;
    /* What one region may reserve under ulimit -v (memory.h), so that a
     * limited process still gets a heap it can map. */
    size_t room = gc_memory_region_room();
    if (room != 0 && quarter > room) quarter = room;
    return quarter > minimum ? quarter : minimum;
}
