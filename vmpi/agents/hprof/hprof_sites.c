/*
 * hprof_sites.c -- traces, sites and the live-object map (see
 * hprof_sites.h).
 */
#include "hprof_sites.h"

#include <stdlib.h>

#include "common/grow.h"

/* FNV-1a over the bytes of `n` words. */
static uint64_t hash_words(uint64_t hash, const uint64_t *words, size_t n) {
    for (size_t i = 0; i < n; i++) {
        hash ^= words[i];
        hash *= UINT64_C(0x100000001b3);
    }
    return hash;
}


bool hprof_sites_init(HprofSites *s) {
    *s = (HprofSites){0};
    addrmap_init(&s->objects);
    return true;
}

/* An open-addressing index of `count` entries kept at most half full,
 * rebuilt from scratch when it grows: `hash_of(s, i)` is entry i's hash. */
typedef uint64_t HashOf(const HprofSites *s, size_t i);

static bool index_room(const HprofSites *s, uint32_t **index, size_t *capacity, size_t count, HashOf *hash_of) {
    if ((count + 1) * 2 <= *capacity) return true;
    size_t cap = *capacity ? *capacity * 2 : 1024;
    uint32_t *grown = calloc(cap, sizeof *grown);
    if (!grown) return false;
    for (size_t i = 0; i < count; i++) {
        size_t slot = (size_t)hash_of(s, i) & (cap - 1);
        while (grown[slot]) slot = (slot + 1) & (cap - 1);
        grown[slot] = (uint32_t)i + 1;
    }
    free(*index);
    *index = grown;
    *capacity = cap;
    return true;
}

static uint64_t trace_hash(const HprofSites *s, size_t i) { return s->traces[i].hash; }

static uint64_t site_key_hash(uint32_t trace, int32_t is_array, uint64_t class_id) {
    uint64_t words[] = {trace, (uint64_t)(uint32_t)is_array, class_id};
    return hash_words(UINT64_C(0xcbf29ce484222325), words, 3);
}

static uint64_t site_hash(const HprofSites *s, size_t i) {
    const HprofSite *site = &s->sites[i];
    return site_key_hash(site->trace, site->is_array, site->class_id);
}

/* Member by member: a frame's padding is whatever its writer left. */
static bool same_frames(const VMPI_CallFrame *a, const VMPI_CallFrame *b, int32_t n) {
    for (int32_t i = 0; i < n; i++)
        if (a[i].method_id != b[i].method_id || a[i].lineno != b[i].lineno) return false;
    return true;
}

/* The trace's number, added if new (see hprof_sites.h). */
uint32_t hprof_sites_trace(HprofSites *s, const VMPI_CallTrace *trace, uint32_t thread) {
    uint64_t hash = hash_words(UINT64_C(0xcbf29ce484222325), (const uint64_t[]){thread}, 1);
    for (int32_t i = 0; i < trace->num_frames; i++) {
        uint64_t words[] = {(uint64_t)(uintptr_t)trace->frames[i].method_id,
                            (uint64_t)(uint32_t)trace->frames[i].lineno};
        hash = hash_words(hash, words, 2);
    }
    size_t mask = s->trace_index_capacity - 1;
    for (size_t slot = s->trace_index_capacity ? (size_t)hash & mask : 0;
         s->trace_index_capacity && s->trace_index[slot]; slot = (slot + 1) & mask) {
        const HprofTrace *t = &s->traces[s->trace_index[slot] - 1];
        if (t->hash == hash && t->thread == thread && t->num_frames == trace->num_frames &&
            same_frames(&s->frames[t->first_frame], trace->frames, trace->num_frames))
            return s->trace_index[slot] - 1;
    }
    if (!index_room(s, &s->trace_index, &s->trace_index_capacity, s->num_traces, trace_hash) ||
        !agent_grow((void **)&s->traces, &s->traces_capacity, s->num_traces + 1, sizeof *s->traces, 256) ||
        !agent_grow((void **)&s->frames, &s->frames_capacity, s->num_frames + (size_t)trace->num_frames,
              sizeof *s->frames, 1024))
        return UINT32_MAX;
    for (int32_t i = 0; i < trace->num_frames; i++) s->frames[s->num_frames + (size_t)i] = trace->frames[i];
    s->traces[s->num_traces] = (HprofTrace){.hash = hash, .thread = thread,
                                            .num_frames = trace->num_frames,
                                            .first_frame = s->num_frames};
    s->num_frames += (size_t)trace->num_frames;
    mask = s->trace_index_capacity - 1;
    size_t slot = (size_t)hash & mask;
    while (s->trace_index[slot]) slot = (slot + 1) & mask;
    s->trace_index[slot] = (uint32_t)++s->num_traces;
    return (uint32_t)(s->num_traces - 1);
}

/* The site's number, added if new; UINT32_MAX if memory ran out. */
static uint32_t intern_site(HprofSites *s, uint32_t trace, int32_t is_array, uint64_t class_id) {
    uint64_t hash = site_key_hash(trace, is_array, class_id);
    size_t mask = s->site_index_capacity - 1;
    for (size_t slot = s->site_index_capacity ? (size_t)hash & mask : 0;
         s->site_index_capacity && s->site_index[slot]; slot = (slot + 1) & mask) {
        const HprofSite *site = &s->sites[s->site_index[slot] - 1];
        if (site->trace == trace && site->is_array == is_array && site->class_id == class_id)
            return s->site_index[slot] - 1;
    }
    if (!index_room(s, &s->site_index, &s->site_index_capacity, s->num_sites, site_hash) ||
        !agent_grow((void **)&s->sites, &s->sites_capacity, s->num_sites + 1, sizeof *s->sites, 256))
        return UINT32_MAX;
    s->sites[s->num_sites] = (HprofSite){.trace = trace, .is_array = is_array, .class_id = class_id};
    mask = s->site_index_capacity - 1;
    size_t slot = (size_t)hash & mask;
    while (s->site_index[slot]) slot = (slot + 1) & mask;
    s->site_index[slot] = (uint32_t)++s->num_sites;
    return (uint32_t)(s->num_sites - 1);
}

/* An object leaves its site's live counts (before it leaves the map). */
static void leave_site(const AddrEntry *entry, void *sites) {
    HprofSite *site = &((HprofSites *)sites)->sites[entry->tag];
    site->live_bytes -= entry->size;
    site->live_objects--;
}

uint32_t hprof_sites_site(HprofSites *s, uint32_t trace_number, int32_t is_array, uint64_t class_id) {
    return trace_number == UINT32_MAX ? UINT32_MAX : intern_site(s, trace_number, is_array, class_id);
}

void hprof_sites_alloc(HprofSites *s, const HprofAlloc *alloc, const VMPI_CallTrace *trace,
                       uint32_t thread) {
    uint32_t trace_number = hprof_sites_trace(s, trace, thread);
    hprof_sites_alloc_at(s, alloc, hprof_sites_site(s, trace_number, alloc->is_array, alloc->class_id));
}

void hprof_sites_alloc_at(HprofSites *s, const HprofAlloc *alloc, uint32_t site_number) {
    AddrEntry reused;
    bool was_present;
    AddrEntry *entry = site_number == UINT32_MAX ? NULL
                       : addrmap_put(&s->objects, alloc->obj, alloc->arena, alloc->size, &reused, &was_present);
    if (!entry) {
        hprof_sites_free_object(s, alloc->obj); /* if the ID is reused, its old object is gone */
        s->untracked++;
        return;
    }
    entry->tag = site_number;
    if (was_present) leave_site(&reused, s); /* its free was not reported: the ID is reused */
    HprofSite *site = &s->sites[site_number];
    site->alloc_bytes += alloc->size;
    site->alloc_objects++;
    site->live_bytes += alloc->size;
    site->live_objects++;
}

void hprof_sites_free_object(HprofSites *s, uint64_t obj_id) {
    AddrEntry freed;
    if (addrmap_take(&s->objects, obj_id, &freed)) leave_site(&freed, s);
}

/* OBJECT_MOVE re-keys the object (its arena and ID); an object already at
 * the new ID died unreported and goes; a move to ID 0 takes the object out
 * of sight, which counts as gone, as does one the map finds no memory for. */
void hprof_sites_move(HprofSites *s, uint64_t obj_id, int32_t new_arena, uint64_t new_obj_id) {
    AddrEntry moved, clash;
    bool clashed;
    if (!addrmap_take(&s->objects, obj_id, &moved)) return; /* first: a move may keep its address */
    AddrEntry *entry = new_obj_id ? addrmap_put(&s->objects, new_obj_id, new_arena, moved.size, &clash, &clashed)
                                  : NULL;
    if (!entry) {
        leave_site(&moved, s);
        if (new_obj_id) s->untracked++;
        return;
    }
    entry->tag = moved.tag;
    if (clashed) leave_site(&clash, s);
}

void hprof_sites_delete_arena(HprofSites *s, int32_t arena_id) {
    addrmap_remove_arena(&s->objects, arena_id, leave_site, s);
}
