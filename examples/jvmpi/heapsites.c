/*
 * heapsites.c -- a JVMPI agent, written to the JVMPI 1.2 specification
 * alone (jvmpi.h; no gclab names): the allocation sites of a program's
 * heap, as hprof's heap=sites reports them.  A site is the class allocated
 * and the method and line that allocated it.
 *
 *     cc -shared -fPIC -fvisibility=hidden $(pkg-config --cflags vmpi) \
 *        -o libheapsites.so heapsites.c
 *     vmrun -Xrunheapsites:top=5 program.gcl        (libheapsites.so on LD_LIBRARY_PATH)
 *     vmrun -agentpath:./libheapsites.so=top=5 program.gcl
 *
 * At JVM_SHUT_DOWN it prints, on standard error, the `top` sites (default
 * 10) by live bytes, then one line saying whether its view of the live heap
 * agreed with every GC_FINISH.
 *
 * It follows each object by its ID (JVMPI 1.2 section 1.4): OBJECT_ALLOC
 * defines it (GetCallTrace, depth 1, names its site), OBJECT_MOVE re-keys
 * it, OBJECT_FREE and ARENA_DELETE undefine it.  Locking follows section
 * 1.5: one raw monitor, entered at GC_START and left at GC_FINISH, so that
 * the events in between (thread-suspended mode) never block; tables grow
 * only outside collections, and a collection needs no room (a move removes
 * one entry before it adds one).
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jvmpi.h>

typedef struct {
    jobjectID class_id; /* the class, the element class of an object array, NULL otherwise */
    jint is_array;      /* JVMPI_NORMAL_OBJECT, JVMPI_CLASS, JVMPI_INT, ... */
    jmethodID method;   /* the allocating method, NULL if none was running */
    jint line;
    jlong allocated, allocated_bytes, live, live_bytes;
} Site;

typedef struct {
    jobjectID id; /* NULL: a free slot */
    jint arena;
    jint size;
    int site; /* index into sites */
} Object;

static JVMPI_Interface *jvmpi;
static JVMPI_RawMonitor lock;
static int top = 10;

static Site *sites;
static int num_sites, sites_capacity;

/* Names, from CLASS_LOAD: classes by ID, methods by ID ("Class.method"). */
static struct { void *id; char *name; } *names;
static int num_names, names_capacity;

/* Live objects: open addressing, linear probing, at most half full;
 * removal shifts the cluster back, so there are no tombstones. */
static Object *objects;
static size_t objects_capacity, num_objects;

static long collections, disagreements;

static size_t slot_of(jobjectID id) {
    return (size_t)(((unsigned long long)(size_t)id * 0x9E3779B97F4A7C15ull) >> 20) & (objects_capacity - 1);
}

static size_t find_slot(jobjectID id) {
    size_t i = slot_of(id);
    while (objects[i].id && objects[i].id != id) i = (i + 1) & (objects_capacity - 1);
    return i;
}

static void put(Object object) { objects[find_slot(object.id)] = object, num_objects++; }

/* Removes the object in slot i; the cluster after it moves back. */
static void remove_slot(size_t i) {
    objects[i].id = NULL;
    num_objects--;
    for (size_t j = (i + 1) & (objects_capacity - 1); objects[j].id; j = (j + 1) & (objects_capacity - 1)) {
        Object moving = objects[j];
        objects[j].id = NULL;
        objects[find_slot(moving.id)] = moving;
    }
}

/* Room for `more` objects; false if memory ran out.  Outside collections only. */
static int reserve(size_t more) {
    if (2 * (num_objects + more) <= objects_capacity) return 1;
    size_t old_capacity = objects_capacity, capacity = old_capacity ? old_capacity : 1024;
    while (2 * (num_objects + more) > capacity) capacity *= 2;
    Object *old = objects;
    objects = calloc(capacity, sizeof *objects);
    if (!objects) {
        objects = old;
        return 0;
    }
    objects_capacity = capacity;
    num_objects = 0;
    for (size_t i = 0; i < old_capacity; i++)
        if (old[i].id) put(old[i]);
    free(old);
    return 1;
}

static void name(void *id, const char *text) {
    if (num_names == names_capacity) {
        names_capacity = names_capacity ? 2 * names_capacity : 64;
        names = realloc(names, names_capacity * sizeof *names);
        if (!names) abort();
    }
    names[num_names].id = id;
    names[num_names++].name = strdup(text);
}

static const char *name_of(void *id) {
    for (int i = 0; i < num_names; i++)
        if (names[i].id == id) return names[i].name;
    return "?";
}

static void class_loaded(const JVMPI_Event *event) {
    name(event->u.class_load.class_id, event->u.class_load.class_name);
    for (int i = 0; i < event->u.class_load.num_methods; i++) {
        const JVMPI_Method *m = &event->u.class_load.methods[i];
        char full[512];
        snprintf(full, sizeof full, "%s.%s", event->u.class_load.class_name, m->method_name);
        name(m->method_id, full);
    }
}

static int site_of(jobjectID class_id, jint is_array, JNIEnv *env) {
    JVMPI_CallFrame frame;
    JVMPI_CallTrace trace = {env, 0, &frame};
    jvmpi->GetCallTrace(&trace, 1);
    jmethodID method = trace.num_frames ? frame.method_id : NULL;
    jint line = trace.num_frames ? frame.lineno : 0;
    for (int i = 0; i < num_sites; i++)
        if (sites[i].class_id == class_id && sites[i].is_array == is_array && sites[i].method == method &&
            sites[i].line == line)
            return i;
    if (num_sites == sites_capacity) {
        sites_capacity = sites_capacity ? 2 * sites_capacity : 64;
        sites = realloc(sites, sites_capacity * sizeof *sites);
        if (!sites) abort();
    }
    sites[num_sites] = (Site){class_id, is_array, method, line, 0, 0, 0, 0};
    return num_sites++;
}

static void allocated(const JVMPI_Event *event) {
    if (!reserve(1)) return;
    jobjectID class_id = event->u.obj_alloc.class_id;
    jint is_array = event->u.obj_alloc.is_array;
    if (class_id && !strcmp(name_of(class_id), "?")) /* its CLASS_LOAD was missed: ask (GC is disabled here) */
        jvmpi->RequestEvent(JVMPI_EVENT_CLASS_LOAD, class_id);
    int site = site_of(class_id, is_array, event->env_id);
    sites[site].allocated++, sites[site].live++;
    sites[site].allocated_bytes += event->u.obj_alloc.size, sites[site].live_bytes += event->u.obj_alloc.size;
    put((Object){event->u.obj_alloc.obj_id, event->u.obj_alloc.arena_id, event->u.obj_alloc.size, site});
}

static void died(size_t slot) {
    Site *site = &sites[objects[slot].site];
    site->live--, site->live_bytes -= objects[slot].size;
    remove_slot(slot);
}

static void freed(jobjectID id) {
    size_t slot = find_slot(id);
    if (objects[slot].id) died(slot);
}

static void moved(const JVMPI_Event *event) {
    size_t slot = find_slot(event->u.obj_move.obj_id);
    if (!objects[slot].id) return;
    Object object = objects[slot];
    remove_slot(slot);
    object.id = event->u.obj_move.new_obj_id;
    object.arena = event->u.obj_move.new_arena_id;
    put(object);
}

static void arena_deleted(jint arena) {
    for (size_t i = 0; i < objects_capacity; i++)
        while (objects[i].id && objects[i].arena == arena) died(i); /* the cluster moves back into i */
}

static void gc_finished(const JVMPI_Event *event) {
    jlong bytes = 0;
    for (int i = 0; i < num_sites; i++) bytes += sites[i].live_bytes;
    collections++;
    if ((jlong)num_objects != event->u.gc_info.used_objects || bytes != event->u.gc_info.used_object_space)
        disagreements++;
}

static const char *type_name(const Site *site) {
    static const char *const primitive[] = {[JVMPI_BOOLEAN] = "bool[]", [JVMPI_CHAR] = "char[]",
                                            [JVMPI_FLOAT] = "float[]",  [JVMPI_DOUBLE] = "double[]",
                                            [JVMPI_BYTE] = "byte[]",    [JVMPI_SHORT] = "short[]",
                                            [JVMPI_INT] = "int32[]",    [JVMPI_LONG] = "int[]"};
    static char array_name[300];
    if (site->is_array == JVMPI_NORMAL_OBJECT) return name_of(site->class_id);
    if (site->is_array == JVMPI_CLASS) {
        snprintf(array_name, sizeof array_name, "%s[]", site->class_id ? name_of(site->class_id) : "Object");
        return array_name;
    }
    return site->is_array >= 0 && site->is_array <= JVMPI_LONG && primitive[site->is_array] ? primitive[site->is_array]
                                                                                           : "?[]";
}

static int by_live_bytes(const void *a, const void *b) {
    const Site *x = a, *y = b;
    if (x->live_bytes != y->live_bytes) return x->live_bytes < y->live_bytes ? 1 : -1;
    return x->allocated_bytes < y->allocated_bytes ? 1 : x->allocated_bytes > y->allocated_bytes ? -1 : 0;
}

static void report(void) {
    qsort(sites, num_sites, sizeof *sites, by_live_bytes);
    fprintf(stderr, "heapsites: rank   live bytes  objs   alloc bytes    objs  class at method:line\n");
    for (int i = 0; i < num_sites && i < top; i++) {
        const Site *s = &sites[i];
        fprintf(stderr, "heapsites: %4d %12lld %5lld %13lld %7lld  %s at %s:%d\n", i + 1, (long long)s->live_bytes,
                (long long)s->live, (long long)s->allocated_bytes, (long long)s->allocated, type_name(s),
                s->method ? name_of(s->method) : "(no method)", (int)s->line);
    }
    if (disagreements)
        fprintf(stderr, "heapsites: the live heap disagreed with GC_FINISH at %ld of %ld collections\n", disagreements,
                collections);
    else
        fprintf(stderr, "heapsites: GC_FINISH agreed at every collection (%ld), %d sites\n", collections, num_sites);
}

static void notify_event(JVMPI_Event *event) {
    jint type = event->event_type & ~JVMPI_REQUESTED_EVENT;
    if (type == JVMPI_EVENT_GC_START) { /* held until GC_FINISH */
        jvmpi->RawMonitorEnter(lock);
        return;
    }
    jvmpi->RawMonitorEnter(lock);
    switch (type) {
    case JVMPI_EVENT_CLASS_LOAD: class_loaded(event); break;
    case JVMPI_EVENT_OBJECT_ALLOC: allocated(event); break;
    case JVMPI_EVENT_OBJECT_FREE: freed(event->u.obj_free.obj_id); break;
    case JVMPI_EVENT_OBJECT_MOVE: moved(event); break;
    case JVMPI_EVENT_ARENA_DELETE: arena_deleted(event->u.delete_arena.arena_id); break;
    case JVMPI_EVENT_GC_FINISH:
        gc_finished(event);
        jvmpi->RawMonitorExit(lock); /* GC_START's */
        break;
    case JVMPI_EVENT_JVM_SHUT_DOWN: report(); break;
    }
    jvmpi->RawMonitorExit(lock);
}

JNIEXPORT jint JNICALL JVM_OnLoad(JavaVM *jvm, char *options, void *reserved) {
    (void)reserved;
    if ((*jvm)->GetEnv(jvm, (void **)&jvmpi, JVMPI_VERSION_1) < 0) return JNI_ERR;
    if (options && *options) {
        char *end;
        if (strncmp(options, "top=", 4) != 0 || (top = (int)strtol(options + 4, &end, 10)) <= 0 || *end) {
            fprintf(stderr, "heapsites: the only option is top=N (N > 0), not '%s'\n", options);
            return JNI_ERR;
        }
    }
    lock = jvmpi->RawMonitorCreate("_heapsites"); /* '_': no contention events about it */
    jvmpi->NotifyEvent = notify_event;
    static const jint events[] = {JVMPI_EVENT_CLASS_LOAD,   JVMPI_EVENT_OBJECT_ALLOC, JVMPI_EVENT_OBJECT_FREE,
                                  JVMPI_EVENT_OBJECT_MOVE,  JVMPI_EVENT_ARENA_DELETE, JVMPI_EVENT_GC_START,
                                  JVMPI_EVENT_GC_FINISH,    JVMPI_EVENT_JVM_SHUT_DOWN};
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        if (jvmpi->EnableEvent(events[i], NULL) != JVMPI_SUCCESS) return JNI_ERR;
    return JNI_OK;
}
