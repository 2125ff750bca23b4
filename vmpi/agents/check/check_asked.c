/*
 * check_asked.c -- rule 10: only what the agent asked for arrives (see
 * check_asked.h).
 */
#include "check_asked.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void check_asked_init(CheckAsked *asked) { memset(asked, 0, sizeof *asked); }

static bool known_code(int32_t code) { return code > 0 && code < VMPI_EVENT_CODE_LIMIT; }

static const char *name_of(int32_t code) {
    const char *name = known_code(code) ? vmpi_event_name(code) : NULL;
    return name ? name : "an unknown event";
}

__attribute__((format(printf, 2, 3))) static int violate(CheckAsked *asked, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(asked->message, sizeof asked->message, format, args);
    va_end(args);
    return 10;
}

void check_asked_enable(CheckAsked *asked, int32_t event, bool enabled) {
    if (!known_code(event)) return;
    asked->enabled[event] = enabled;
    if (!enabled) asked->may_still_arrive[event] = true;
}

void check_asked_request_begin(CheckAsked *asked, int32_t event) {
    asked->requesting = event;
    asked->answers = 0;
}

int check_asked_request_end(CheckAsked *asked, int32_t result) {
    int32_t event = asked->requesting;
    uint32_t answers = asked->answers;
    asked->requesting = 0;
    if (result != VMPI_OK) return 0;
    if (answers == 0)
        return violate(asked, "RequestEvent(%s) returned VMPI_OK but sent no requested %s", name_of(event),
                       name_of(event));
    if (answers > 1 && event != VMPI_EVENT_ARENA_NEW) /* ARENA_NEW replays every live arena */
        return violate(asked, "RequestEvent(%s) sent %u requested events, not one", name_of(event), answers);
    return 0;
}

int check_asked_event(CheckAsked *asked, int32_t event_type) {
    int32_t code = event_type & ~VMPI_REQUESTED_EVENT;
    if (event_type & VMPI_REQUESTED_EVENT) {
        if (!asked->requesting)
            return violate(asked, "a requested %s arrived, but no RequestEvent of the agent's is running",
                           name_of(code));
        if (code != asked->requesting)
            return violate(asked, "RequestEvent(%s) is running, but a requested %s arrived", name_of(asked->requesting),
                           name_of(code));
        asked->answers++;
        return 0;
    }
    if (asked->requesting)
        return violate(asked, "RequestEvent(%s) is running, but %s arrived without the VMPI_REQUESTED_EVENT bit",
                       name_of(asked->requesting), name_of(code));
    if (code == VMPI_EVENT_GC_START) memset(asked->may_still_arrive, 0, sizeof asked->may_still_arrive);
    if (!known_code(code) || !(asked->enabled[code] || asked->may_still_arrive[code]))
        return violate(asked, "%s arrived, but the agent has it disabled", name_of(code));
    return 0;
}
