/*
 * check_rules.h -- the event-stream contract (docs/contracts.md, rules 1-9
 * and 12,
 * and the collector rows of docs/event-mapping.md), as a pure state
 * machine: feed it events, one at a time, and it says which rule the stream
 * first breaks.  No I/O: the check agent (check_agent.c) prints and exits,
 * tests feed synthetic streams.
 *
 * The state is what the stream says is true: the live object IDs with their
 * arenas and sizes, the arenas, classes, methods and threads that are
 * defined, and whether a collection is running.
 *
 * Memory: check_rules_feed allocates only outside collections (CLASS_LOAD,
 * OBJECT_ALLOC at a map's growth point, and GC_START, which is the last
 * event before thread-suspended mode).  At GC_START the live-object map is
 * grown to hold twice the live count plus headroom: during a collection
 * OBJECT_MOVE removes an ID before adding one and OBJECT_FREE and
 * ARENA_DELETE only remove, so the count never rises and no insert during
 * the collection needs memory (JVMPI 1.2 section 1.5 forbids malloc there).
 */
#ifndef GCLAB_CHECK_RULES_H
#define GCLAB_CHECK_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmpi.h"

/* The rows of docs/event-mapping.md's table (rule 9). */
typedef enum CheckRow {
    CHECK_ROW_MARKSWEEP,
    CHECK_ROW_MARKCOMPACT,
    CHECK_ROW_SEMISPACE,
    CHECK_ROW_GENERATIONAL,
    CHECK_ROW_REFCOUNT,
} CheckRow;

/* feed's answer when the checker itself failed (out of memory, a limit). */
#define CHECK_INTERNAL_ERROR (-1)

typedef struct CheckRules CheckRules;

/* The row for a --gc name; false if there is none. */
bool check_row_by_name(const char *collector, CheckRow *row);

/* Every row's name, in the table's order, joined by `separator`, into `out`
 * (cut short if it has fewer than `size` bytes): for messages that list
 * the rows.  Does not allocate. */
void check_row_names(char *out, size_t size, const char *separator);

/* A checker for a stream from the collector of `row`; NULL if out of memory. */
CheckRules *check_rules_create(CheckRow row);
void check_rules_destroy(CheckRules *rules);

/* Takes the next event.  Returns 0 while the stream keeps the contract, else
 * the number of the first rule it breaks (or CHECK_INTERNAL_ERROR), and
 * keeps returning it: after a violation the state is no longer meaningful. */
int check_rules_feed(CheckRules *rules, const VMPI_Event *event);

/* The agent enabled gclab's mechanism events (rule 12) from the start: from
 * now on every OBJECT_FREE must follow its OBJECT_FREE_CAUSE and every
 * OBJECT_MOVE its OBJECT_FORWARDED.  Without this call the mechanism events
 * that do arrive are checked, but none is required. */
void check_rules_expect_mechanism(CheckRules *rules);

/* What is wrong, once feed has returned non-zero: "object 4096 is freed but
 * not defined". */
const char *check_rules_message(const CheckRules *rules);

/* Late attach (docs/contracts.md, "Requested events and late attach"): an
 * agent that enables the heap events late learns the heap by requests.
 * Between begin and end, a requested ARENA_NEW of an arena the stream does
 * not have defines it, a requested OBJECT_ALLOC of an ID it does not have
 * defines the object (in an arena that exists, of a loaded class; no
 * collector row applies: the object may have been moved or promoted
 * before), and a level-0 dump is not compared with the live set (it is the
 * list being learned).  end says whether the catch-up learned exactly the
 * `dump_ids` objects the dump listed (rule 7), and from then on every rule
 * holds as for a stream followed from the start.  Call both outside a
 * collection, before the first heap event. */
void check_rules_begin_catch_up(CheckRules *rules);
int check_rules_end_catch_up(CheckRules *rules, size_t dump_ids);
uint64_t check_rules_learned_late(const CheckRules *rules); /* objects defined by a catch-up */
uint32_t check_rules_arenas(const CheckRules *rules);       /* arenas that exist now */

uint64_t check_rules_events(const CheckRules *rules);      /* events fed */
uint64_t check_rules_collections(const CheckRules *rules); /* GC_STARTs */
uint64_t check_rules_live_objects(const CheckRules *rules);
bool check_rules_in_collection(const CheckRules *rules);

#endif
