/*
 * arenas.c -- the table of live arenas, so that an agent that enables the
 * heap events late can still learn them: RequestEvent(ARENA_NEW, NULL)
 * replays one ARENA_NEW per live arena (request.c), as phoneME CDC's JVMPI
 * replays arena creation.  Without it an empty arena, and every arena's
 * name, stays unknown to such an agent.
 *
 * Invariant: the table holds exactly the arenas whose ARENA_NEW a collector
 * has posted and whose ARENA_DELETE it has not, in the order they were
 * created (a renewed arena -- deleted and made anew with the same ID -- moves
 * to the end), whether or not any agent enabled those events: post.h
 * records every arena event here before it tests whether to send it.
 *
 * Arena events are rare (a handful at start-up, two per renewed arena per
 * collection), so recording them out of line costs nothing that matters.
 * They are posted in thread-suspended mode (JVMPI 1.2 section 1.5) where
 * nothing may call malloc, so the table is fixed: VMPI_MAX_ARENAS arenas
 * with names of up to VMPI_MAX_ARENA_NAME - 1 bytes, far more than any
 * collector has (generational's four are the most).
 *
 * Every arena event also advances vmpi_arena_generation, which the object
 * index (object_index.c) takes as part of its heap epoch.
 */
#include <string.h>

#include "dispatch.h"

#define VMPI_MAX_ARENAS 64
#define VMPI_MAX_ARENA_NAME 64

typedef struct LiveArena {
    VMPI_ArenaID arena_id;
    char name[VMPI_MAX_ARENA_NAME];
} LiveArena;

static LiveArena live_arenas[VMPI_MAX_ARENAS]; /* [0 .. num_live_arenas), oldest first */
static uint32_t num_live_arenas;
uint64_t vmpi_arena_generation;

/* Removes `arena_id` from the table, if it is there, keeping the order. */
static void forget_arena(VMPI_ArenaID arena_id) {
    for (uint32_t i = 0; i < num_live_arenas; i++) {
        if (live_arenas[i].arena_id != arena_id) continue;
        memmove(&live_arenas[i], &live_arenas[i + 1], (num_live_arenas - i - 1) * sizeof *live_arenas);
        num_live_arenas--;
        return;
    }
}

void vmpi_record_arena_new(VMPI_ArenaID arena_id, const char *arena_name) {
    vmpi_arena_generation++;
    forget_arena(arena_id); /* a collector made afresh without deleting it (a second VM) */
    if (num_live_arenas == VMPI_MAX_ARENAS) return;
    LiveArena *arena = &live_arenas[num_live_arenas++];
    arena->arena_id = arena_id;
    /* By hand, not snprintf: no stdio in thread-suspended mode. */
    size_t len = arena_name ? strnlen(arena_name, VMPI_MAX_ARENA_NAME - 1) : 0;
    memcpy(arena->name, arena_name ? arena_name : "", len);
    arena->name[len] = '\0';
}

void vmpi_record_arena_delete(VMPI_ArenaID arena_id) {
    vmpi_arena_generation++;
    forget_arena(arena_id);
}

void vmpi_forget_arenas(void) {
    vmpi_arena_generation++;
    num_live_arenas = 0;
}

void vmpi_replay_arenas(void) {
    /* With GC disabled, so that no collection renews an arena mid-replay. */
    Gc *gc = vmpi_gc();
    if (gc) gc_disable(gc);
    for (uint32_t i = 0; i < num_live_arenas; i++) {
        VMPI_Event event = {.event_type = VMPI_EVENT_ARENA_NEW | VMPI_REQUESTED_EVENT,
                            .env_id = vmpi_current_env()};
        event.u.new_arena.arena_id = live_arenas[i].arena_id;
        event.u.new_arena.arena_name = live_arenas[i].name;
        vmpi_dispatch(&event, false);
    }
    if (gc) gc_enable(gc);
}
