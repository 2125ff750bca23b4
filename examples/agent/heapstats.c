/*
 * heapstats.c -- an example VMPI agent: how many objects of each class a
 * program allocates, and how many of them are still live at the end.
 *
 *     cc -shared -fPIC -fvisibility=hidden $(pkg-config --cflags vmpi) \
 *        -o libheapstats.so heapstats.c
 *     vmrun -agentpath:./libheapstats.so program.gcl
 *
 * It follows the live heap through the heap events every collector sends
 * (docs/event-mapping.md): OBJECT_ALLOC adds an object, OBJECT_FREE removes
 * it, OBJECT_MOVE gives it a new ID and perhaps a new arena, and ARENA_DELETE
 * removes every object still in the arena.  At each GC_FINISH it checks its
 * count against the VM's; at JVM_SHUT_DOWN it prints a table on stderr.
 *
 * The agent contract (docs/contracts.md; JVMPI 1.2, section 1.5): the events
 * from GC_START to GC_FINISH arrive in thread-suspended mode, where an agent
 * must neither allocate nor block.  So one raw monitor guards the agent's
 * state, entered at GC_START and left at GC_FINISH; the tables grow only on
 * OBJECT_ALLOC and CLASS_LOAD, outside collections; within a collection the
 * object table only shrinks or re-keys; nothing is printed until the end.
 * Invariant: each row's live counts are the sum over the objects in the
 * table that belong to it.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vmpi.h>

typedef struct Row { /* one class, or one primitive array kind */
    VMPI_ObjectID class_id; /* the (element) class; NULL for a primitive array */
    int32_t is_array;       /* VMPI_NORMAL_OBJECT, VMPI_CLASS or VMPI_INT, ... */
    uint64_t allocated, allocated_bytes, live, live_bytes;
} Row;

typedef struct Live { /* one live object */
    VMPI_ObjectID id;     /* NULL: an empty slot */
    VMPI_ArenaID arena;
    uint32_t row;         /* index into rows */
    uint32_t size;
} Live;

static VMPI_Interface *vmpi;
static VMPI_RawMonitor lock;
static atomic_bool in_gc; /* between GC_START and GC_FINISH: `lock` is held */
static bool finished;     /* the table has been printed */

static struct { VMPI_ObjectID id; char *name; } *classes; /* from CLASS_LOAD */
static size_t num_classes;
static Row *rows;
static size_t num_rows;
static uint64_t untracked; /* allocations not followed, for want of memory */

/* Live objects: open addressing with linear probing, at most half full.
 * Removal shifts the rest of the cluster back, so it needs no tombstones
 * and a collection's frees and moves never need a bigger table. */
static Live *table;
static size_t capacity; /* a power of two */
static size_t num_live; /* objects in the table */
static unsigned hash_bits;

static uint64_t collections, disagreements;
static struct { uint64_t collection; int64_t vm_objects, vm_bytes, objects, bytes; } first_disagreement;

static size_t home(VMPI_ObjectID id) {
    return (size_t)(((uint64_t)(uintptr_t)id * 0x9E3779B97F4A7C15u) >> (64 - hash_bits));
}

static Live *find(VMPI_ObjectID id) {
    for (size_t i = home(id);; i = (i + 1) & (capacity - 1)) {
        if (table[i].id == id) return &table[i];
        if (!table[i].id) return NULL;
    }
}

static void insert(Live object) {
    size_t i = home(object.id);
    while (table[i].id) i = (i + 1) & (capacity - 1);
    table[i] = object;
    num_live++;
}

static void unlink_slot(Live *gone) {
    size_t mask = capacity - 1, hole = (size_t)(gone - table);
    for (size_t i = (hole + 1) & mask; table[i].id; i = (i + 1) & mask) {
        /* An object may fill the hole unless its home lies after the hole. */
        if (((i - home(table[i].id)) & mask) >= ((i - hole) & mask)) {
            table[hole] = table[i];
            hole = i;
        }
    }
    table[hole].id = NULL;
    num_live--;
}

/* The object is dead: out of its row's live counts and out of the table. */
static void forget(Live *object) {
    rows[object->row].live--;
    rows[object->row].live_bytes -= object->size;
    unlink_slot(object);
}

/* Room for one more object; the table grows only outside a collection. */
static bool make_room(size_t count_after, bool collecting) {
    if (count_after * 2 <= capacity) return true;
    if (collecting) return count_after < capacity;
    Live *old = table;
    size_t old_capacity = capacity;
    Live *grown = calloc(capacity * 2, sizeof *grown);
    if (!grown) return false;
    table = grown;
    capacity *= 2;
    hash_bits++;
    num_live = 0;
    for (size_t i = 0; i < old_capacity; i++)
        if (old[i].id) insert(old[i]);
    free(old);
    return true;
}

/* The row of (class, array kind), created on first use; NULL if none fits.
 * A linear search: a program has few classes. */
static Row *row_for(VMPI_ObjectID class_id, int32_t is_array, bool collecting) {
    for (size_t i = 0; i < num_rows; i++)
        if (rows[i].class_id == class_id && rows[i].is_array == is_array) return &rows[i];
    Row *grown = collecting ? NULL : realloc(rows, (num_rows + 1) * sizeof *rows);
    if (!grown) return NULL;
    rows = grown;
    rows[num_rows] = (Row){.class_id = class_id, .is_array = is_array};
    return &rows[num_rows++];
}

static void object_alloc(const VMPI_Event *event, bool collecting) {
    Row *row = row_for(event->u.obj_alloc.class_id, event->u.obj_alloc.is_array, collecting);
    if (!row || !make_room(num_live + 1, collecting)) {
        untracked++;
        return;
    }
    uint32_t size = (uint32_t)event->u.obj_alloc.size;
    row->allocated++;
    row->allocated_bytes += size;
    row->live++;
    row->live_bytes += size;
    insert((Live){event->u.obj_alloc.obj_id, event->u.obj_alloc.arena_id, (uint32_t)(row - rows), size});
}

static void object_move(const VMPI_Event *event) {
    Live *object = find(event->u.obj_move.obj_id);
    if (!object) return; /* an allocation that was not followed */
    Live moved = *object;
    unlink_slot(object);
    moved.id = event->u.obj_move.new_obj_id;
    moved.arena = event->u.obj_move.new_arena_id;
    insert(moved);
}

static void arena_delete(VMPI_ArenaID arena) {
    for (size_t i = 0; i < capacity;) {
        if (table[i].id && table[i].arena == arena)
            forget(&table[i]); /* slot i now holds what followed: look again */
        else
            i++;
    }
}

/* GC_FINISH's used_objects and used_object_space are the live heap as the
 * events tell it: this agent's count must agree (docs/contracts.md, rule 6). */
static void gc_finish(const VMPI_Event *event) {
    collections++;
    int64_t objects = 0, bytes = 0;
    for (size_t i = 0; i < num_rows; i++) {
        objects += (int64_t)rows[i].live;
        bytes += (int64_t)rows[i].live_bytes;
    }
    if (untracked || (objects == event->u.gc_info.used_objects && bytes == event->u.gc_info.used_object_space))
        return;
    if (disagreements++ == 0) {
        first_disagreement.collection = collections;
        first_disagreement.vm_objects = event->u.gc_info.used_objects;
        first_disagreement.vm_bytes = event->u.gc_info.used_object_space;
        first_disagreement.objects = objects;
        first_disagreement.bytes = bytes;
    }
}

static void class_load(const VMPI_Event *event) {
    void *grown = realloc(classes, (num_classes + 1) * sizeof *classes);
    char *name = strdup(event->u.class_load.class_name ? event->u.class_load.class_name : "?");
    if (grown) classes = grown;
    if (!grown || !name) {
        free(name);
        return;
    }
    classes[num_classes].id = event->u.class_load.class_id;
    classes[num_classes++].name = name;
}

static void row_name(const Row *row, char *name, size_t size) {
    static const char *const primitive[] = {
        [VMPI_BOOLEAN] = "boolean", [VMPI_CHAR] = "char", [VMPI_FLOAT] = "float", [VMPI_DOUBLE] = "double",
        [VMPI_BYTE] = "byte",       [VMPI_SHORT] = "short", [VMPI_INT] = "int",   [VMPI_LONG] = "long",
    };
    const char *base = "?";
    if (row->is_array > VMPI_CLASS && row->is_array <= VMPI_LONG) base = primitive[row->is_array];
    for (size_t i = 0; i < num_classes; i++)
        if (row->class_id && classes[i].id == row->class_id) base = classes[i].name;
    snprintf(name, size, "%s%s", base, row->is_array == VMPI_NORMAL_OBJECT ? "" : "[]");
}

static int by_bytes(const void *a, const void *b) {
    const Row *x = a, *y = b;
    return (x->allocated_bytes < y->allocated_bytes) - (x->allocated_bytes > y->allocated_bytes);
}

static void print_table(void) {
    qsort(rows, num_rows, sizeof *rows, by_bytes); /* the table is not used again */
    Row total = {0};
    fprintf(stderr, "heapstats: %10s %12s %10s %12s  %s\n", "allocated", "bytes", "live", "live bytes", "class");
    for (size_t i = 0; i < num_rows; i++) {
        char name[256];
        row_name(&rows[i], name, sizeof name);
        fprintf(stderr, "heapstats: %10llu %12llu %10llu %12llu  %s\n", (unsigned long long)rows[i].allocated,
                (unsigned long long)rows[i].allocated_bytes, (unsigned long long)rows[i].live,
                (unsigned long long)rows[i].live_bytes, name);
        total.allocated += rows[i].allocated, total.allocated_bytes += rows[i].allocated_bytes;
        total.live += rows[i].live, total.live_bytes += rows[i].live_bytes;
    }
    fprintf(stderr, "heapstats: %10llu %12llu %10llu %12llu  (total)\n", (unsigned long long)total.allocated,
            (unsigned long long)total.allocated_bytes, (unsigned long long)total.live,
            (unsigned long long)total.live_bytes);
    if (untracked)
        fprintf(stderr, "heapstats: %llu allocations not followed (out of memory)\n", (unsigned long long)untracked);
    else if (disagreements)
        fprintf(stderr,
                "heapstats: %llu of %llu collections disagreed; first, collection %llu: the VM had %lld objects "
                "(%lld bytes) live, this agent %lld (%lld)\n",
                (unsigned long long)disagreements, (unsigned long long)collections,
                (unsigned long long)first_disagreement.collection, (long long)first_disagreement.vm_objects,
                (long long)first_disagreement.vm_bytes, (long long)first_disagreement.objects,
                (long long)first_disagreement.bytes);
    else
        fprintf(stderr, "heapstats: %s, GC_FINISH agreed at every collection (%llu)\n", vmpi->GetCollectorName(),
                (unsigned long long)collections);
}

static void handle_event(int32_t code, const VMPI_Event *event, bool collecting) {
    switch (code) {
    case VMPI_EVENT_OBJECT_ALLOC: object_alloc(event, collecting); break;
    case VMPI_EVENT_OBJECT_FREE: {
        Live *object = find(event->u.obj_free.obj_id);
        if (object) forget(object);
        break;
    }
    case VMPI_EVENT_OBJECT_MOVE: object_move(event); break;
    case VMPI_EVENT_ARENA_DELETE: arena_delete(event->u.delete_arena.arena_id); break;
    case VMPI_EVENT_GC_FINISH: gc_finish(event); break;
    case VMPI_EVENT_CLASS_LOAD: class_load(event); break;
    case VMPI_EVENT_JVM_SHUT_DOWN:
        if (!collecting) print_table(); /* mid-collection the counts are half updated */
        finished = true;
        break;
    }
}

static void notify_event(VMPI_Event *event) {
    int32_t code = event->event_type & ~VMPI_REQUESTED_EVENT;
    bool collecting = atomic_load(&in_gc);
    if (code == VMPI_EVENT_GC_START) { /* held until GC_FINISH, so nothing in between blocks */
        vmpi->RawMonitorEnter(lock);
        atomic_store(&in_gc, true);
        return;
    }
    if (!collecting) vmpi->RawMonitorEnter(lock);
    if (!finished) handle_event(code, event, collecting);
    if (code == VMPI_EVENT_GC_FINISH) atomic_store(&in_gc, false);
    if (!collecting || code == VMPI_EVENT_GC_FINISH) vmpi->RawMonitorExit(lock);
}

VMPI_EXPORT int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)reserved;
    if (options[0]) {
        fprintf(stderr, "heapstats: takes no options (got '%s')\n", options);
        return VMPI_ERR;
    }
    if (vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1) != VMPI_OK) {
        fprintf(stderr, "heapstats: this VM does not offer VMPI version 1\n");
        return VMPI_ERR;
    }
    capacity = 1024, hash_bits = 10;
    table = calloc(capacity, sizeof *table);
    lock = vmpi->RawMonitorCreate("_heapstats"); /* '_': no contention events for it */
    if (!table || !lock) {
        fprintf(stderr, "heapstats: out of memory\n");
        return VMPI_ERR;
    }
    vmpi->NotifyEvent = notify_event;
    static const int32_t wanted[] = {
        VMPI_EVENT_OBJECT_ALLOC, VMPI_EVENT_OBJECT_FREE, VMPI_EVENT_OBJECT_MOVE, VMPI_EVENT_ARENA_DELETE,
        VMPI_EVENT_GC_START,     VMPI_EVENT_GC_FINISH,   VMPI_EVENT_CLASS_LOAD,  VMPI_EVENT_JVM_SHUT_DOWN,
    };
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
        if (vmpi->EnableEvent(wanted[i], NULL) != VMPI_OK) {
            fprintf(stderr, "heapstats: cannot enable %s\n", vmpi_event_name(wanted[i]));
            return VMPI_ERR;
        }
    return VMPI_OK;
}
