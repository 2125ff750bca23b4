/*
 * hprof_objects.c -- live objects kept as the object events say (see
 * hprof_objects.h).
 */
#include "hprof_objects.h"

/* Takes an object out of the map, and out of its owner's counts first. */
static void forget(IdMap *map, IdEntry *entry, HprofObjectLeaving *leave, void *context) {
    leave(entry, context);
    idmap_remove(map, entry);
}

void hprof_objects_free(IdMap *map, uint64_t obj_id, HprofObjectLeaving *leave, void *context) {
    IdEntry *entry = idmap_find(map, obj_id);
    if (entry) forget(map, entry, leave, context);
}

void hprof_objects_move(IdMap *map, uint64_t obj_id, int32_t new_arena, uint64_t new_obj_id,
                        HprofObjectLeaving *leave, void *context) {
    IdEntry *entry = idmap_find(map, obj_id);
    if (!entry) return;
    IdEntry moved = *entry;
    idmap_remove(map, entry); /* first: a move may keep its address */
    IdEntry *clash = idmap_find(map, new_obj_id);
    if (clash) forget(map, clash, leave, context); /* the old holder of the address died unreported */
    if (!new_obj_id) { /* moved out of sight: count it gone */
        leave(&moved, context);
        return;
    }
    idmap_insert(map, new_obj_id, new_arena, moved.size)->tag = moved.tag; /* room: one was removed */
}
