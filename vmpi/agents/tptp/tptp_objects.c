/*
 * tptp_objects.c -- classes, selection and tracked objects (tptp_objects.h).
 */
#include "tptp_objects.h"

#include <stdlib.h>
#include <string.h>

/* "A:B:C" as a NULL-terminated array of copies; NULL stays NULL.  The
 * array and its strings are one allocation. */
static char **split_patterns(const char *list, bool *failed) {
    if (!list) return NULL;
    size_t count = 1, length = strlen(list);
    for (const char *c = list; *c; c++) count += *c == ':';
    char **patterns = malloc((count + 1) * sizeof *patterns + length + 1);
    if (!patterns) {
        *failed = true;
        return NULL;
    }
    char *text = (char *)(patterns + count + 1);
    memcpy(text, list, length + 1);
    size_t n = 0;
    for (char *rest = text, *item; (item = strsep(&rest, ":")) != NULL;)
        if (*item) patterns[n++] = item;
    patterns[n] = NULL;
    return patterns;
}

bool tptp_objects_init(TptpObjects *o, const char *include, const char *exclude) {
    *o = (TptpObjects){0};
    bool failed = false;
    o->include = split_patterns(include, &failed);
    o->exclude = split_patterns(exclude, &failed);
    return !failed && idmap_init(&o->class_ids, 64) && idmap_init(&o->objects, 1024);
}

void tptp_objects_free(TptpObjects *o) {
    free(o->include);
    free(o->exclude);
    free(o->classes);
    idmap_free(&o->class_ids);
    idmap_free(&o->objects);
    *o = (TptpObjects){0};
}

static bool pattern_matches(const char *pattern, const char *name) {
    size_t n = strlen(pattern);
    if (n && pattern[n - 1] == '*') return strncmp(pattern, name, n - 1) == 0;
    return strcmp(pattern, name) == 0;
}

static bool any_matches(char *const *patterns, const char *name) {
    for (; patterns && *patterns; patterns++)
        if (pattern_matches(*patterns, name)) return true;
    return false;
}

static bool name_selected(const TptpObjects *o, const char *name) {
    return (!o->include || any_matches(o->include, name)) && !any_matches(o->exclude, name);
}

static uint32_t reference_statics(const VMPI_Event *class_load) {
    uint32_t n = 0;
    for (int32_t i = 0; i < class_load->u.class_load.num_static_fields; i++) {
        const char *signature = class_load->u.class_load.statics[i].field_signature;
        n += signature && (signature[0] == 'L' || signature[0] == '[');
    }
    return n;
}

const TptpClass *tptp_class_define(TptpObjects *o, const VMPI_Event *class_load, bool *is_new) {
    const void *id = class_load->u.class_load.class_id;
    *is_new = false;
    const TptpClass *known = tptp_class_find(o, id);
    if (known) return known;
    if (o->num_classes == o->class_capacity) {
        uint32_t capacity = o->class_capacity ? 2 * o->class_capacity : 64;
        TptpClass *grown = realloc(o->classes, capacity * sizeof *grown);
        if (!grown) return NULL;
        o->classes = grown;
        o->class_capacity = capacity;
    }
    if (!idmap_reserve(&o->class_ids, o->class_ids.count + 1)) return NULL;
    const char *name = class_load->u.class_load.class_name ? class_load->u.class_load.class_name : "";
    size_t length = strlen(name);
    char array_name[length + 3];
    memcpy(array_name, name, length);
    memcpy(array_name + length, "[]", 3);
    TptpClass *c = &o->classes[o->num_classes];
    *c = (TptpClass){.number = o->num_classes + 1, .ref_statics = reference_statics(class_load),
                     .selected = name_selected(o, name), .array_selected = name_selected(o, array_name)};
    idmap_insert(&o->class_ids, (uint64_t)(uintptr_t)id, 0, 0)->tag = o->num_classes++;
    *is_new = true;
    return c;
}

const TptpClass *tptp_class_find(const TptpObjects *o, const void *class_id) {
    const IdEntry *e = idmap_find(&o->class_ids, (uint64_t)(uintptr_t)class_id);
    return e ? &o->classes[e->tag] : NULL;
}

bool tptp_selected(const TptpObjects *o, const void *class_id, int32_t is_array) {
    if (!o->include && !o->exclude) return true;
    const TptpClass *c = tptp_class_find(o, class_id);
    return c && (is_array == VMPI_CLASS ? c->array_selected : c->selected);
}

bool tptp_objects_reserve(TptpObjects *o, size_t more) { return idmap_reserve(&o->objects, o->objects.count + more); }

uint32_t tptp_object_track(TptpObjects *o, const void *id, int32_t arena_id, uint32_t size) {
    IdEntry *e = idmap_insert(&o->objects, (uint64_t)(uintptr_t)id, arena_id, size);
    e->tag = ++o->next_number;
    return e->tag;
}

uint32_t tptp_object_number(const TptpObjects *o, const void *id) {
    const IdEntry *e = idmap_find(&o->objects, (uint64_t)(uintptr_t)id);
    return e ? e->tag : 0;
}

uint32_t tptp_object_free(TptpObjects *o, const void *id) {
    IdEntry *e = idmap_find(&o->objects, (uint64_t)(uintptr_t)id);
    if (!e) return 0;
    uint32_t number = e->tag;
    idmap_remove(&o->objects, e);
    return number;
}

void tptp_object_move(TptpObjects *o, const void *id, const void *new_id, int32_t new_arena_id) {
    IdEntry *e = idmap_find(&o->objects, (uint64_t)(uintptr_t)id);
    if (!e) return;
    IdEntry moved = *e;
    idmap_remove(&o->objects, e);
    idmap_insert(&o->objects, (uint64_t)(uintptr_t)new_id, new_arena_id, moved.size)->tag = moved.tag;
}

typedef struct ArenaFrees {
    void (*freed)(uint32_t number, void *ctx);
    void *ctx;
} ArenaFrees;

static void report_removed(const IdEntry *entry, void *context) {
    const ArenaFrees *frees = context;
    frees->freed(entry->tag, frees->ctx);
}

void tptp_arena_delete(TptpObjects *o, int32_t arena_id, void (*freed)(uint32_t number, void *ctx), void *ctx) {
    ArenaFrees frees = {freed, ctx};
    uint64_t bytes;
    idmap_remove_arena(&o->objects, arena_id, &bytes, report_removed, &frees);
}
