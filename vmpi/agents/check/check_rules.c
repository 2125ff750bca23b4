/*
 * check_rules.c -- the event-stream contract as a state machine (see
 * check_rules.h).  Each event kind has one function that checks the rules
 * about it, in rule order, and then applies the event to the state.
 *
 * The collector rows (rule 9) are docs/event-mapping.md's table, which is
 * the VMPI patent's mapping (sections MARK-AND-SWEEP GARBAGE COLLECTOR ..
 * REFERENCE-COUNTING GARBAGE COLLECTOR):
 *
 *   marksweep     one arena; frees, never moves, never deletes an arena
 *   markcompact   one arena; frees, and moves only within that arena
 *   semispace     two arenas, made at start-up; allocates in one semispace
 *                 between collections; a collection moves every survivor
 *                 from that semispace to the other, deletes it and creates
 *                 it again with the same ID; never frees single objects
 *   generational  its arenas made at start-up; allocates only in the
 *                 youngest, except for objects pretenured in the old
 *                 generation (too large for the youngest, say), the arena
 *                 whose ARENA_NEW names it "old"; never moves into the youngest
 *                 nor frees objects in it (it is emptied by ARENA_DELETE); a
 *                 deleted arena is created again with the same ID in the
 *                 same collection
 *   refcount      one arena; frees, never moves, never deletes an arena
 *
 * Rule 12 is gclab's mechanism events (docs/mechanism-events.md): phases
 * nest and close inside their collection, per-object events name defined
 * objects, a forwarding address is where the object's move then takes it,
 * a free's cause comes just before it and fits the row, and a reference
 * count changes by one at a time.
 */
#include "check_rules.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/idmap.h"

#define MAX_ARENAS 256
/* Room kept free in the live-object map at GC_START (check_rules.h). */
#define GC_HEADROOM 1024
/* The ARENA_NEW name of generational's old generation (gc/generational). */
#define OLD_GENERATION_NAME "old"
/* Rule 12: how deep phases nest, and the longest phase name kept. */
#define MAX_PHASE_DEPTH 8
#define PHASE_NAME_BYTES 40

/* An arena ID the stream has created.  Arenas are deleted only in
 * collections and (renewing rows) must be created again in the same one, so
 * an arena that is not live at GC_FINISH is one that was never renewed. */
typedef struct Arena {
    int32_t id;
    bool live;               /* between its ARENA_NEW and its ARENA_DELETE */
} Arena;

struct CheckRules {
    CheckRow row;
    IdMap objects;           /* live object IDs: arena and size */
    IdMap classes, methods, threads;
    uint64_t live_bytes;
    Arena arenas[MAX_ARENAS]; /* every arena ID ever created */
    uint32_t num_arenas;
    bool in_gc;
    bool catching_up;        /* between begin_catch_up and end_catch_up */
    uint64_t learned_late;
    /* Objects whose OBJECT_ALLOC may still be on its way on another thread
     * (docs/contracts.md, "Handlers that overlap"): listed by a level-0
     * dump before it came (`in_flight`, not yet live to the stream), or
     * learned by a catch-up that may be followed by it (`learned_unsent`).
     * A collection waits for every thread in a handler, so by the next
     * GC_START (or JVM_SHUT_DOWN) each has come or never will. */
    IdMap in_flight, learned_unsent;
    bool shut_down;          /* JVM_SHUT_DOWN came */
    uint64_t events, collections; /* collections: GC_STARTs so far */
    /* The arena allocations go to: semispace's current semispace (forgotten
     * at each GC_FINISH), generational's youngest (for good). */
    bool have_alloc_arena;
    int32_t alloc_arena;
    /* generational: the old generation, where large objects are pretenured. */
    bool have_old_arena;
    int32_t old_arena;
    /* semispace: the direction of this collection's moves. */
    bool moved;
    int32_t moved_from, moved_to;
    /* Rule 12, gclab's mechanism events.  The open phases, innermost last. */
    char phases[MAX_PHASE_DEPTH][PHASE_NAME_BYTES];
    uint32_t phase_depth;
    /* This collection's OBJECT_FORWARDEDs not yet matched by their move:
     * the new ID's low half in `size`, its high half in `tag`. */
    IdMap forwards;
    uint64_t forwards_to_move;  /* of those, how many give a different ID */
    uint64_t cause_for;         /* the object the last OBJECT_FREE_CAUSE names, until its OBJECT_FREE */
    bool expect_mechanism;      /* the agent enabled them: every free has a cause, every move a forward */
    int violation;
    char message[320];
};

static const char *const row_names[] = {
    [CHECK_ROW_MARKSWEEP] = "marksweep",       [CHECK_ROW_MARKCOMPACT] = "markcompact",
    [CHECK_ROW_SEMISPACE] = "semispace",       [CHECK_ROW_GENERATIONAL] = "generational",
    [CHECK_ROW_REFCOUNT] = "refcount",
};

void check_row_names(char *out, size_t size, const char *separator) {
    size_t len = 0;
    if (size == 0) return;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof row_names / sizeof row_names[0] && len < size; i++) {
        int n = snprintf(out + len, size - len, "%s%s", i ? separator : "", row_names[i]);
        if (n < 0) return;
        len += (size_t)n;
    }
}

bool check_row_by_name(const char *collector, CheckRow *row) {
    for (size_t i = 0; i < sizeof row_names / sizeof row_names[0]; i++) {
        if (collector && strcmp(collector, row_names[i]) == 0) {
            *row = (CheckRow)i;
            return true;
        }
    }
    return false;
}

CheckRules *check_rules_create(CheckRow row) {
    CheckRules *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->row = row;
    if (!idmap_init(&r->objects, 1024) || !idmap_init(&r->classes, 64) ||
        !idmap_init(&r->methods, 256) || !idmap_init(&r->threads, 16) || !idmap_init(&r->forwards, 1024) ||
        !idmap_init(&r->in_flight, 16) || !idmap_init(&r->learned_unsent, 16)) {
        check_rules_destroy(r);
        return NULL;
    }
    return r;
}

void check_rules_destroy(CheckRules *r) {
    if (!r) return;
    idmap_free(&r->objects);
    idmap_free(&r->classes);
    idmap_free(&r->methods);
    idmap_free(&r->threads);
    idmap_free(&r->forwards);
    idmap_free(&r->in_flight);
    idmap_free(&r->learned_unsent);
    free(r);
}

const char *check_rules_message(const CheckRules *r) { return r->message; }
void check_rules_expect_mechanism(CheckRules *r) { r->expect_mechanism = true; }
uint64_t check_rules_events(const CheckRules *r) { return r->events; }
uint64_t check_rules_collections(const CheckRules *r) { return r->collections; }
uint64_t check_rules_live_objects(const CheckRules *r) { return r->objects.count; }
bool check_rules_in_collection(const CheckRules *r) { return r->in_gc; }
uint64_t check_rules_learned_late(const CheckRules *r) { return r->learned_late; }

uint32_t check_rules_arenas(const CheckRules *r) {
    uint32_t live = 0;
    for (uint32_t i = 0; i < r->num_arenas; i++) live += r->arenas[i].live;
    return live;
}

static int forwarding_matches(CheckRules *r, uint64_t obj, uint64_t new_obj);

/* ---- helpers ---------------------------------------------------------------------- */

__attribute__((format(printf, 3, 4))) static int violate(CheckRules *r, int rule, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(r->message, sizeof r->message, format, args);
    va_end(args);
    r->violation = rule;
    return rule;
}

static uint64_t id_of(const void *id) { return (uint64_t)(uintptr_t)id; }

static const char *row_name(const CheckRules *r) { return row_names[r->row]; }

static bool one_arena_row(const CheckRules *r) {
    return r->row == CHECK_ROW_MARKSWEEP || r->row == CHECK_ROW_MARKCOMPACT || r->row == CHECK_ROW_REFCOUNT;
}

static bool renewing_row(const CheckRules *r) {
    return r->row == CHECK_ROW_SEMISPACE || r->row == CHECK_ROW_GENERATIONAL;
}

static Arena *find_arena(CheckRules *r, int32_t id) {
    for (uint32_t i = 0; i < r->num_arenas; i++)
        if (r->arenas[i].id == id) return &r->arenas[i];
    return NULL;
}

static bool arena_exists(CheckRules *r, int32_t id) {
    const Arena *a = find_arena(r, id);
    return a && a->live;
}

/* Adds an ID to a map, growing it only outside collections. */
static bool add_id(CheckRules *r, IdMap *map, uint64_t id, int32_t arena_id, uint32_t size) {
    bool room = r->in_gc ? idmap_has_room(map) : idmap_reserve(map, map->count + 1);
    if (!room) return false;
    idmap_insert(map, id, arena_id, size);
    return true;
}

static int out_of_memory(CheckRules *r) {
    return violate(r, CHECK_INTERNAL_ERROR, "out of memory (or out of reserved room during a collection)");
}

/* ---- arenas ------------------------------------------------------------------------ */

static int arena_new(CheckRules *r, int32_t id, const char *name) {
    Arena *a = find_arena(r, id);
    if (a && a->live)
        return violate(r, 4, "arena %" PRId32 " is created again while it exists (an arena ID is "
                             "reused only after its ARENA_DELETE)", id);
    if (one_arena_row(r) && r->num_arenas >= 1)
        return violate(r, 9, "%s uses one arena, but ARENA_NEW creates another (arena %" PRId32 ")",
                       row_name(r), id);
    if (!a) {
        if (r->row == CHECK_ROW_SEMISPACE && r->num_arenas == 2)
            return violate(r, 9, "semispace has two arenas, one per semispace, but ARENA_NEW "
                                 "creates a third (arena %" PRId32 ")", id);
        if (renewing_row(r) && r->collections > 0)
            return violate(r, 9, "%s creates its arenas at start-up, but arena %" PRId32
                                 " is new after collections began", row_name(r), id);
        if (r->num_arenas == MAX_ARENAS)
            return violate(r, CHECK_INTERNAL_ERROR, "more than %d arena IDs", MAX_ARENAS);
        a = &r->arenas[r->num_arenas++];
        a->id = id;
    }
    a->live = true;
    if (r->row == CHECK_ROW_GENERATIONAL && name && strcmp(name, OLD_GENERATION_NAME) == 0) {
        r->have_old_arena = true;
        r->old_arena = id;
    }
    return 0;
}

/* semispace: the semispace this collection evacuates, if known yet. */
static bool semispace_from(const CheckRules *r, int32_t *from) {
    if (r->moved) *from = r->moved_from;
    else if (r->have_alloc_arena) *from = r->alloc_arena;
    else return false;
    return true;
}

static int arena_delete(CheckRules *r, int32_t id) {
    if (!r->in_gc) return violate(r, 5, "ARENA_DELETE outside a collection (allowed only between GC_START and GC_FINISH)");
    Arena *a = find_arena(r, id);
    if (!a || !a->live) return violate(r, 4, "arena %" PRId32 " is deleted but does not exist", id);
    if (one_arena_row(r)) return violate(r, 9, "%s never deletes its arena", row_name(r));
    int32_t from;
    if (r->row == CHECK_ROW_SEMISPACE && semispace_from(r, &from) && from != id)
        return violate(r, 9, "semispace deletes arena %" PRId32 ", but this collection evacuates arena %" PRId32,
                       id, from);
    uint64_t bytes;
    idmap_remove_arena(&r->objects, id, &bytes, NULL, NULL); /* rule 4: every ID in it is undefined */
    r->live_bytes -= bytes;
    a->live = false;
    return 0;
}

/* A requested ARENA_NEW replays an arena: during a catch-up it teaches
 * one the stream has not shown; otherwise the arena must exist. */
static int arena_replayed(CheckRules *r, int32_t id, const char *name) {
    if (r->catching_up && !arena_exists(r, id)) return arena_new(r, id, name);
    if (!arena_exists(r, id))
        return violate(r, 4, "a requested ARENA_NEW replays arena %" PRId32 ", which does not exist", id);
    return 0;
}

/* ---- objects ------------------------------------------------------------------------- */

/* Rule 8's class check for an OBJECT_ALLOC, sent or requested. */
static int class_known(CheckRules *r, const VMPI_Event *e) {
    uint64_t class_id = id_of(e->u.obj_alloc.class_id);
    if (!class_id || !idmap_find(&r->classes, class_id))
        return violate(r, 8, "OBJECT_ALLOC names class %" PRIu64 " before its CLASS_LOAD", class_id);
    return 0;
}

/* A catch-up's requested OBJECT_ALLOC of an object the stream has not
 * shown: it defines the object where the VM says it is now. */
static int object_learned(CheckRules *r, const VMPI_Event *e) {
    uint64_t obj = id_of(e->u.obj_alloc.obj_id);
    int32_t arena = e->u.obj_alloc.arena_id;
    if (!obj) return violate(r, 1, "a requested OBJECT_ALLOC has a NULL obj_id");
    if (!arena_exists(r, arena))
        return violate(r, 2, "a requested OBJECT_ALLOC puts object %" PRIu64 " in arena %" PRId32
                             ", which the ARENA_NEW replay did not name", obj, arena);
    if (class_known(r, e)) return r->violation;
    uint32_t size = e->u.obj_alloc.size > 0 ? (uint32_t)e->u.obj_alloc.size : 0;
    if (!add_id(r, &r->objects, obj, arena, size) || !add_id(r, &r->learned_unsent, obj, arena, size))
        return out_of_memory(r);
    IdEntry *listed = idmap_find(&r->in_flight, obj);
    if (listed) idmap_remove(&r->in_flight, listed);
    r->live_bytes += size;
    r->learned_late++;
    return 0;
}

static int object_alloc(CheckRules *r, const VMPI_Event *e, bool requested) {
    uint64_t obj = id_of(e->u.obj_alloc.obj_id);
    int32_t arena = e->u.obj_alloc.arena_id;
    IdEntry *known = obj ? idmap_find(&r->objects, obj) : NULL;
    if (requested && !known && r->catching_up) return object_learned(r, e);
    if (requested) { /* a second description of a live object, not a definition */
        if (!known) return violate(r, 1, "a requested OBJECT_ALLOC names object %" PRIu64 ", which is not defined", obj);
        if (known->arena_id != arena)
            return violate(r, 1, "a requested OBJECT_ALLOC puts object %" PRIu64 " in arena %" PRId32
                                 ", but the stream has it in arena %" PRId32, obj, arena, known->arena_id);
        return 0;
    }
    if (!obj) return violate(r, 1, "OBJECT_ALLOC has a NULL obj_id");
    IdEntry *learned = known ? idmap_find(&r->learned_unsent, obj) : NULL;
    if (learned) { /* a catch-up learned it while this was on its way: its one announcement */
        idmap_remove(&r->learned_unsent, learned);
        if (known->arena_id != arena)
            return violate(r, 1, "OBJECT_ALLOC puts object %" PRIu64 " in arena %" PRId32
                                 ", but the catch-up learned it in arena %" PRId32, obj, arena, known->arena_id);
        return 0;
    }
    IdEntry *listed = idmap_find(&r->in_flight, obj);
    if (listed) idmap_remove(&r->in_flight, listed); /* a dump listed it first: defined now */
    if (known)
        return violate(r, 1, "object %" PRIu64 " is allocated while still defined in arena %" PRId32
                             " (no free, move or arena delete undefined it)", obj, known->arena_id);
    if (!arena_exists(r, arena)) return violate(r, 2, "OBJECT_ALLOC names arena %" PRId32 ", which does not exist", arena);
    if (class_known(r, e)) return r->violation;
    /* Pretenured: neither breaks nor teaches which arena is the youngest. */
    bool pretenured = r->row == CHECK_ROW_GENERATIONAL && r->have_old_arena && arena == r->old_arena;
    if (renewing_row(r) && !pretenured && r->have_alloc_arena && arena != r->alloc_arena) {
        if (r->row == CHECK_ROW_SEMISPACE)
            return violate(r, 9, "semispace allocates in one semispace between collections (arena %" PRId32
                                 "), but this allocation is in arena %" PRId32, r->alloc_arena, arena);
        return violate(r, 9, "generational allocates only in its youngest arena (arena %" PRId32
                             ") and pretenures only in its \"" OLD_GENERATION_NAME "\" arena, but this "
                             "allocation is in arena %" PRId32, r->alloc_arena, arena);
    }
    if (!r->have_alloc_arena && !pretenured) {
        r->have_alloc_arena = true;
        r->alloc_arena = arena;
    }
    uint32_t size = e->u.obj_alloc.size > 0 ? (uint32_t)e->u.obj_alloc.size : 0;
    if (!add_id(r, &r->objects, obj, arena, size)) return out_of_memory(r);
    r->live_bytes += size;
    return 0;
}

static int object_free(CheckRules *r, const VMPI_Event *e) {
    uint64_t obj = id_of(e->u.obj_free.obj_id);
    if (!r->in_gc) return violate(r, 5, "OBJECT_FREE outside a collection (allowed only between GC_START and GC_FINISH)");
    IdEntry *known = obj ? idmap_find(&r->objects, obj) : NULL;
    if (!known) return violate(r, 1, "object %" PRIu64 " is freed but not defined", obj);
    if (r->row == CHECK_ROW_SEMISPACE)
        return violate(r, 9, "semispace never frees single objects: garbage goes with its semispace's ARENA_DELETE");
    if (r->row == CHECK_ROW_GENERATIONAL && r->have_alloc_arena && known->arena_id == r->alloc_arena)
        return violate(r, 9, "generational empties its youngest arena (arena %" PRId32 ") with ARENA_DELETE, "
                             "but frees object %" PRIu64 " in it", known->arena_id, obj);
    if (r->cause_for && r->cause_for != obj)
        return violate(r, 12, "object %" PRIu64 " is freed, but the OBJECT_FREE_CAUSE before it named object %" PRIu64,
                       obj, r->cause_for);
    if (r->expect_mechanism && !r->cause_for)
        return violate(r, 12, "object %" PRIu64 " is freed without an OBJECT_FREE_CAUSE before it", obj);
    r->cause_for = 0;
    r->live_bytes -= known->size;
    idmap_remove(&r->objects, known);
    return 0;
}

static int move_pattern(CheckRules *r, int32_t from, int32_t to) {
    switch (r->row) {
    case CHECK_ROW_MARKSWEEP:
    case CHECK_ROW_REFCOUNT:
        return violate(r, 9, "%s never moves objects", row_name(r));
    case CHECK_ROW_MARKCOMPACT:
        if (from != to)
            return violate(r, 9, "markcompact slides objects within its one arena, but this move goes from arena %" PRId32
                                 " to arena %" PRId32, from, to);
        return 0;
    case CHECK_ROW_SEMISPACE: {
        if (from == to)
            return violate(r, 9, "semispace moves objects to the other semispace, but this move stays in arena %" PRId32, from);
        int32_t expected;
        if (semispace_from(r, &expected) && from != expected)
            return violate(r, 9, "semispace evacuates arena %" PRId32 " in this collection, but this move is out of arena %" PRId32,
                           expected, from);
        if (r->moved && to != r->moved_to)
            return violate(r, 9, "semispace moves every survivor to arena %" PRId32 " in one collection, but this move goes to arena %" PRId32,
                           r->moved_to, to);
        r->moved = true;
        r->moved_from = from;
        r->moved_to = to;
        return 0;
    }
    case CHECK_ROW_GENERATIONAL:
        if (r->have_alloc_arena && to == r->alloc_arena)
            return violate(r, 9, "generational never moves objects into its youngest arena (arena %" PRId32 ")", to);
        return 0;
    }
    return 0;
}

static int object_move(CheckRules *r, const VMPI_Event *e) {
    uint64_t obj = id_of(e->u.obj_move.obj_id), new_obj = id_of(e->u.obj_move.new_obj_id);
    int32_t from = e->u.obj_move.arena_id, to = e->u.obj_move.new_arena_id;
    if (!r->in_gc) return violate(r, 5, "OBJECT_MOVE outside a collection (allowed only between GC_START and GC_FINISH)");
    IdEntry *known = obj ? idmap_find(&r->objects, obj) : NULL;
    if (!known) return violate(r, 3, "object %" PRIu64 " is moved but not defined", obj);
    if (known->arena_id != from)
        return violate(r, 3, "object %" PRIu64 " is moved out of arena %" PRId32 ", but it is in arena %" PRId32,
                       obj, from, known->arena_id);
    if (!arena_exists(r, to))
        return violate(r, 3, "object %" PRIu64 " is moved to arena %" PRId32 ", which does not exist", obj, to);
    if (!new_obj) return violate(r, 3, "object %" PRIu64 " is moved to a NULL new_obj_id", obj);
    int broken = move_pattern(r, from, to);
    if (broken) return broken;
    if (forwarding_matches(r, obj, new_obj)) return r->violation;
    uint32_t size = known->size;
    idmap_remove(&r->objects, known); /* first: a move may keep its address */
    IdEntry *clash = idmap_find(&r->objects, new_obj);
    if (clash)
        return violate(r, 3, "object %" PRIu64 " is moved to ID %" PRIu64 ", which is already defined (in arena %" PRId32 ")",
                       obj, new_obj, clash->arena_id);
    idmap_insert(&r->objects, new_obj, to, size); /* room: one was just removed */
    return 0;
}

/* ---- gclab's mechanism events (rule 12) ---------------------------------------------- */

static uint64_t forward_target(const IdEntry *forward) { return (uint64_t)forward->tag << 32 | forward->size; }

/* At OBJECT_MOVE(obj -> new_obj): the move goes where obj's OBJECT_FORWARDED
 * said, and (when the agent enabled them) there was one. */
static int forwarding_matches(CheckRules *r, uint64_t obj, uint64_t new_obj) {
    IdEntry *forward = idmap_find(&r->forwards, obj);
    if (!forward) {
        if (r->expect_mechanism)
            return violate(r, 12, "object %" PRIu64 " is moved without an OBJECT_FORWARDED giving its new address", obj);
        return 0;
    }
    uint64_t target = forward_target(forward);
    if (target != new_obj)
        return violate(r, 12, "object %" PRIu64 " is moved to %" PRIu64 ", but its OBJECT_FORWARDED said %" PRIu64,
                       obj, new_obj, target);
    r->forwards_to_move--; /* target != obj: a move keeps no address */
    idmap_remove(&r->forwards, forward);
    return 0;
}

static bool tracing_row(const CheckRules *r) {
    return r->row == CHECK_ROW_MARKSWEEP || r->row == CHECK_ROW_MARKCOMPACT || r->row == CHECK_ROW_GENERATIONAL;
}

static int only_in_collection(CheckRules *r, int32_t code) {
    if (!r->in_gc)
        return violate(r, 12, "%s outside a collection (allowed only between GC_START and GC_FINISH)",
                       vmpi_event_name(code));
    return 0;
}

/* The defined object a mechanism event names, or NULL (a violation). */
static IdEntry *named_object(CheckRules *r, int32_t code, const void *id) {
    IdEntry *known = id ? idmap_find(&r->objects, id_of(id)) : NULL;
    if (!known) violate(r, 12, "%s names object %" PRIu64 ", which is not defined", vmpi_event_name(code), id_of(id));
    return known;
}

static int only_in_rows(CheckRules *r, int32_t code, bool allowed) {
    if (!allowed) return violate(r, 12, "%s does not post %s (docs/mechanism-events.md)", row_name(r), vmpi_event_name(code));
    return 0;
}

static int phase_start(CheckRules *r, const VMPI_Event *e) {
    const char *name = e->u.gc_phase.phase_name;
    if (only_in_collection(r, VMPI_EVENT_GC_PHASE_START)) return r->violation;
    if (!name || !*name) return violate(r, 12, "GC_PHASE_START has no phase_name");
    if (r->phase_depth == MAX_PHASE_DEPTH) return violate(r, 12, "phases nest deeper than %d", MAX_PHASE_DEPTH);
    snprintf(r->phases[r->phase_depth++], PHASE_NAME_BYTES, "%s", name);
    return 0;
}

static int phase_end(CheckRules *r, const VMPI_Event *e) {
    const char *name = e->u.gc_phase.phase_name;
    if (only_in_collection(r, VMPI_EVENT_GC_PHASE_END)) return r->violation;
    if (!name || !*name) return violate(r, 12, "GC_PHASE_END has no phase_name");
    if (r->phase_depth == 0) return violate(r, 12, "GC_PHASE_END \"%s\" ends no open phase", name);
    const char *open = r->phases[r->phase_depth - 1];
    if (strncmp(open, name, PHASE_NAME_BYTES - 1) != 0)
        return violate(r, 12, "GC_PHASE_END \"%s\" while \"%s\" is the innermost open phase", name, open);
    r->phase_depth--;
    return 0;
}

/* OBJECT_GREYED and OBJECT_BLACKENED: tracing marks, or Cheney's scan. */
static int object_coloured(CheckRules *r, const VMPI_Event *e, int32_t code) {
    bool greys = tracing_row(r), blackens = greys || r->row == CHECK_ROW_SEMISPACE;
    if (only_in_collection(r, code) || only_in_rows(r, code, code == VMPI_EVENT_OBJECT_GREYED ? greys : blackens))
        return r->violation;
    return named_object(r, code, e->u.gc_object.obj_id) ? 0 : r->violation;
}

static int object_forwarded(CheckRules *r, const VMPI_Event *e) {
    const int32_t code = VMPI_EVENT_OBJECT_FORWARDED;
    bool moves = r->row != CHECK_ROW_MARKSWEEP && r->row != CHECK_ROW_REFCOUNT;
    if (only_in_collection(r, code) || only_in_rows(r, code, moves)) return r->violation;
    if (!named_object(r, code, e->u.obj_forward.obj_id)) return r->violation;
    uint64_t obj = id_of(e->u.obj_forward.obj_id), target = id_of(e->u.obj_forward.new_obj_id);
    if (!target) return violate(r, 12, "object %" PRIu64 " is forwarded to a NULL new_obj_id", obj);
    if (idmap_find(&r->forwards, obj))
        return violate(r, 12, "object %" PRIu64 " is forwarded twice before it moved", obj);
    if (target == obj) return 0; /* it stays where it is: no move follows */
    if (!idmap_has_room(&r->forwards)) return out_of_memory(r);
    idmap_insert(&r->forwards, obj, 0, (uint32_t)target)->tag = (uint32_t)(target >> 32);
    r->forwards_to_move++;
    return 0;
}

static bool refcount_cause(const char *cause) {
    return strcmp(cause, "zero-count") == 0 || strcmp(cause, "cascade") == 0 || strcmp(cause, "cycle") == 0;
}

static int free_cause(CheckRules *r, const VMPI_Event *e) {
    const int32_t code = VMPI_EVENT_OBJECT_FREE_CAUSE;
    if (only_in_collection(r, code)) return r->violation;
    IdEntry *known = named_object(r, code, e->u.free_cause.obj_id);
    if (!known) return r->violation;
    uint64_t obj = known->id;
    const char *cause = e->u.free_cause.cause ? e->u.free_cause.cause : "";
    bool fits = r->row == CHECK_ROW_REFCOUNT ? refcount_cause(cause) : strcmp(cause, "unmarked") == 0;
    if (!fits) return violate(r, 12, "%s does not free objects for the cause \"%s\"", row_name(r), cause);
    if (r->cause_for)
        return violate(r, 12, "OBJECT_FREE_CAUSE of object %" PRIu64 " comes before the OBJECT_FREE of object %" PRIu64,
                       obj, r->cause_for);
    if (r->row == CHECK_ROW_REFCOUNT && known->tag != 0)
        return violate(r, 12, "object %" PRIu64 " is freed (%s) with a reference count of %" PRIu32, obj, cause,
                       known->tag);
    r->cause_for = obj;
    return 0;
}

/* REFCOUNT_CHANGE: a count changes by one at a time, from 0 at OBJECT_ALLOC
 * (the object entry's tag holds it). */
static int refcount_change(CheckRules *r, const VMPI_Event *e) {
    const int32_t code = VMPI_EVENT_REFCOUNT_CHANGE;
    if (only_in_rows(r, code, r->row == CHECK_ROW_REFCOUNT)) return r->violation;
    IdEntry *known = named_object(r, code, e->u.refcount_change.obj_id);
    if (!known) return r->violation;
    int64_t count = e->u.refcount_change.count, before = known->tag;
    if (count < 0 || (count != before + 1 && count != before - 1))
        return violate(r, 12, "object %" PRIu64 "'s reference count goes from %" PRId64 " to %" PRId64
                              " (it changes by one at a time)", known->id, before, count);
    known->tag = (uint32_t)count;
    return 0;
}

static int remembered(CheckRules *r, const VMPI_Event *e) {
    const int32_t code = VMPI_EVENT_REMEMBERED_SET_ADD;
    if (only_in_rows(r, code, r->row == CHECK_ROW_GENERATIONAL)) return r->violation;
    return named_object(r, code, e->u.gc_object.obj_id) ? 0 : r->violation;
}

/* At GC_FINISH: every phase ended, every cause had its free, every forward
 * its move. */
static int mechanism_settled(CheckRules *r) {
    if (r->phase_depth)
        return violate(r, 12, "GC_FINISH while phase \"%s\" is open", r->phases[r->phase_depth - 1]);
    if (r->cause_for)
        return violate(r, 12, "the OBJECT_FREE_CAUSE of object %" PRIu64 " had no OBJECT_FREE", r->cause_for);
    if (r->forwards_to_move) {
        for (size_t i = 0; i < r->forwards.capacity; i++) {
            const IdEntry *forward = &r->forwards.slots[i];
            if (forward->id)
                return violate(r, 12, "object %" PRIu64 " was forwarded to %" PRIu64 " but never moved", forward->id,
                               forward_target(forward));
        }
    }
    idmap_clear(&r->forwards);
    return 0;
}

/* ---- collections -------------------------------------------------------------------- */

/* Rule 7's bound: every object a dump listed before its OBJECT_ALLOC has
 * been announced by the next GC_START or JVM_SHUT_DOWN (`when`). */
static int in_flight_announced(CheckRules *r, const char *when) {
    idmap_clear(&r->learned_unsent);
    for (size_t i = 0; i < r->in_flight.capacity; i++)
        if (r->in_flight.slots[i].id)
            return violate(r, 7, "a level-0 heap dump listed object %" PRIu64 ", but no OBJECT_ALLOC announced it by %s",
                           r->in_flight.slots[i].id, when);
    return 0;
}

static int gc_start(CheckRules *r) {
    if (r->in_gc) return violate(r, 5, "GC_START while a collection is running (starts and finishes must alternate)");
    if (in_flight_announced(r, "the next GC_START")) return r->violation;
    if (!idmap_reserve(&r->objects, r->objects.count + GC_HEADROOM) ||
        !idmap_reserve(&r->forwards, r->objects.count + GC_HEADROOM))
        return out_of_memory(r);
    r->in_gc = true;
    r->collections++;
    r->moved = false;
    return 0;
}

static int gc_finish(CheckRules *r, const VMPI_Event *e) {
    if (!r->in_gc) return violate(r, 5, "GC_FINISH without a GC_START (starts and finishes must alternate)");
    if (mechanism_settled(r)) return r->violation;
    for (uint32_t i = 0; i < r->num_arenas; i++)
        if (!r->arenas[i].live)
            return violate(r, 9, "%s deleted arena %" PRId32 " but did not create it again (ARENA_NEW with the same ID) before GC_FINISH",
                           row_name(r), r->arenas[i].id);
    int64_t used = e->u.gc_info.used_objects, space = e->u.gc_info.used_object_space;
    int64_t total = e->u.gc_info.total_object_space;
    if (used < 0 || (uint64_t)used != r->objects.count)
        return violate(r, 6, "GC_FINISH says used_objects %" PRId64 ", but the stream has %zu live objects", used,
                       r->objects.count);
    if (space < 0 || (uint64_t)space != r->live_bytes)
        return violate(r, 6, "GC_FINISH says used_object_space %" PRId64 ", but the live objects take %" PRIu64 " bytes",
                       space, r->live_bytes);
    if (total < space)
        return violate(r, 6, "GC_FINISH says total_object_space %" PRId64 ", less than used_object_space %" PRId64,
                       total, space);
    r->in_gc = false;
    if (r->row == CHECK_ROW_SEMISPACE) r->have_alloc_arena = false; /* the semispaces swap roles */
    return 0;
}

/* ---- classes, methods, threads, dumps -------------------------------------------------- */

static int class_load(CheckRules *r, const VMPI_Event *e) {
    uint64_t class_id = id_of(e->u.class_load.class_id);
    if (!class_id) return violate(r, 8, "CLASS_LOAD has a NULL class_id");
    if (!idmap_find(&r->classes, class_id) && !add_id(r, &r->classes, class_id, 0, 0)) return out_of_memory(r);
    for (int32_t i = 0; i < e->u.class_load.num_methods; i++) {
        uint64_t method = id_of(e->u.class_load.methods[i].method_id);
        if (!method) return violate(r, 8, "CLASS_LOAD of %s has a NULL method_id", e->u.class_load.class_name);
        if (!idmap_find(&r->methods, method) && !add_id(r, &r->methods, method, 0, 0)) return out_of_memory(r);
    }
    return 0;
}

static int class_unload(CheckRules *r, const VMPI_Event *e) {
    IdEntry *known = idmap_find(&r->classes, id_of(e->u.class_unload.class_id));
    if (!known)
        return violate(r, 8, "CLASS_UNLOAD of class %" PRIu64 ", which was never loaded", id_of(e->u.class_unload.class_id));
    idmap_remove(&r->classes, known);
    return 0;
}

static int method_event(CheckRules *r, const VMPI_Event *e, const char *name) {
    uint64_t method = id_of(e->u.method.method_id);
    if (!method || !idmap_find(&r->methods, method))
        return violate(r, 8, "%s names method %" PRIu64 " before the CLASS_LOAD that defines it", name, method);
    return 0;
}

/* Rule 7: a level-0 dump lists exactly the live IDs (JVMPI 1.2 section 4.2:
 * records of a type byte and an ID), and perhaps objects whose OBJECT_ALLOC
 * is still on its way on another thread, which must come by the next
 * GC_START (in_flight). */
static int heap_dump(CheckRules *r, const VMPI_Event *e) {
    if (e->u.heap_dump.dump_level != 0 || r->catching_up) return 0;
    const size_t record = 1 + sizeof(void *);
    const char *p = e->u.heap_dump.begin, *end = e->u.heap_dump.end;
    if ((size_t)(end - p) % record != 0)
        return violate(r, 7, "the level-0 heap dump is %zu bytes, not a whole number of records", (size_t)(end - p));
    IdMap listed;
    if (!idmap_init(&listed, (size_t)(end - p) / record * 2)) return out_of_memory(r);
    int broken = 0;
    size_t listed_live = 0; /* the listed objects the stream has live */
    for (; p < end && !broken; p += record) {
        void *id;
        memcpy(&id, p + 1, sizeof id);
        bool live = idmap_find(&r->objects, id_of(id)) != NULL;
        if (idmap_find(&listed, id_of(id)))
            broken = violate(r, 7, "the level-0 heap dump lists object %" PRIu64 " twice", id_of(id));
        else if (!live && r->shut_down) /* no event can be on its way any more */
            broken = violate(r, 7, "the level-0 heap dump lists object %" PRIu64 ", which the stream says is not live", id_of(id));
        else if (!live && !idmap_find(&r->in_flight, id_of(id)) && !add_id(r, &r->in_flight, id_of(id), 0, 0))
            broken = out_of_memory(r);
        else {
            idmap_insert(&listed, id_of(id), 0, 0);
            listed_live += live;
        }
    }
    if (!broken && listed_live != r->objects.count)
        broken = violate(r, 7, "the level-0 heap dump lists %zu objects, but the stream has %zu live",
                         listed_live, r->objects.count);
    idmap_free(&listed);
    return broken;
}

static int thread_start(CheckRules *r, const VMPI_Event *e) {
    uint64_t thread = id_of(e->u.thread_start.thread_env_id);
    if (!thread) return violate(r, 8, "THREAD_START has a NULL thread_env_id");
    if (!idmap_find(&r->threads, thread) && !add_id(r, &r->threads, thread, 0, 0)) return out_of_memory(r);
    return 0;
}

static int thread_end(CheckRules *r, const VMPI_Event *e) {
    IdEntry *known = idmap_find(&r->threads, id_of(e->env_id));
    if (!known) return violate(r, 8, "THREAD_END names no started thread");
    idmap_remove(&r->threads, known);
    return 0;
}

int check_rules_feed(CheckRules *r, const VMPI_Event *e) {
    if (r->violation) return r->violation;
    r->events++;
    int32_t code = e->event_type & ~VMPI_REQUESTED_EVENT;
    bool requested = (e->event_type & VMPI_REQUESTED_EVENT) != 0;
    /* A thread is defined by its THREAD_START, which may be its own first event. */
    if (code == VMPI_EVENT_THREAD_START && thread_start(r, e)) return r->violation;
    if (e->env_id && !idmap_find(&r->threads, id_of(e->env_id)))
        return violate(r, 8, "thread %" PRIu64 " appears before its THREAD_START", id_of(e->env_id));
    switch (code) {
    case VMPI_EVENT_ARENA_NEW:
        if (requested) return arena_replayed(r, e->u.new_arena.arena_id, e->u.new_arena.arena_name);
        return arena_new(r, e->u.new_arena.arena_id, e->u.new_arena.arena_name);
    case VMPI_EVENT_ARENA_DELETE: return arena_delete(r, e->u.delete_arena.arena_id);
    case VMPI_EVENT_OBJECT_ALLOC: return object_alloc(r, e, requested);
    case VMPI_EVENT_OBJECT_FREE: return object_free(r, e);
    case VMPI_EVENT_OBJECT_MOVE: return object_move(r, e);
    case VMPI_EVENT_GC_START: return gc_start(r);
    case VMPI_EVENT_GC_FINISH: return gc_finish(r, e);
    case VMPI_EVENT_CLASS_LOAD: return class_load(r, e);
    case VMPI_EVENT_CLASS_UNLOAD: return class_unload(r, e);
    case VMPI_EVENT_THREAD_END: return thread_end(r, e);
    case VMPI_EVENT_METHOD_ENTRY:
    case VMPI_EVENT_METHOD_EXIT: return method_event(r, e, vmpi_event_name(code));
    case VMPI_EVENT_HEAP_DUMP: return heap_dump(r, e);
    case VMPI_EVENT_JVM_SHUT_DOWN:
        r->shut_down = true;
        return in_flight_announced(r, "JVM_SHUT_DOWN");
    case VMPI_EVENT_GC_PHASE_START: return phase_start(r, e);
    case VMPI_EVENT_GC_PHASE_END: return phase_end(r, e);
    case VMPI_EVENT_OBJECT_GREYED:
    case VMPI_EVENT_OBJECT_BLACKENED: return object_coloured(r, e, code);
    case VMPI_EVENT_OBJECT_FORWARDED: return object_forwarded(r, e);
    case VMPI_EVENT_OBJECT_FREE_CAUSE: return free_cause(r, e);
    case VMPI_EVENT_REFCOUNT_CHANGE: return refcount_change(r, e);
    case VMPI_EVENT_REMEMBERED_SET_ADD: return remembered(r, e);
    default: return 0;
    }
}

void check_rules_begin_catch_up(CheckRules *r) { r->catching_up = true; }

int check_rules_end_catch_up(CheckRules *r, size_t dump_ids) {
    r->catching_up = false;
    if (r->violation) return r->violation;
    if (r->objects.count != dump_ids)
        return violate(r, 7, "the catch-up learned %zu objects by requested OBJECT_ALLOCs, but its level-0 dump "
                             "listed %zu", r->objects.count, dump_ids);
    return 0;
}
