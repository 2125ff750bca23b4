/*
 * hprof_objects.h -- a map of live objects (vmpi/agents/common/idmap.h)
 * kept as the object events say, for the sampled ones (sample=,
 * hprof_sampled.h), which are few and far apart.  (heap=sites keeps every
 * object in a map laid out by address, by the same rules: hprof_sites.c.)
 * `leave` sees an object's entry just before the entry goes, so that the
 * owner can take the object out of its counts.
 *
 * OBJECT_FREE takes an object out.  OBJECT_MOVE re-keys it (its arena and
 * ID); an object already at the new ID died unreported and goes; a move to
 * ID 0 takes the object out of sight, which counts as gone.  A move never
 * grows the map (one entry goes before one comes), so it may come between
 * GC_START and GC_FINISH.
 */
#ifndef GCLAB_HPROF_OBJECTS_H
#define GCLAB_HPROF_OBJECTS_H

#include <stdint.h>

#include "common/idmap.h"

typedef void HprofObjectLeaving(const IdEntry *entry, void *context);

void hprof_objects_free(IdMap *map, uint64_t obj_id, HprofObjectLeaving *leave, void *context);
void hprof_objects_move(IdMap *map, uint64_t obj_id, int32_t new_arena, uint64_t new_obj_id,
                        HprofObjectLeaving *leave, void *context);

#endif
