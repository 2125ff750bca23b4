/*
 * hprof_pprof.c -- hprof's tables as a gzipped pprof profile (see
 * hprof_pprof.h).
 *
 * The message is built in arrays sized for the worst case (every frame of
 * every stack a new function and location), packed, then gzipped.  The
 * string table is not deduplicated but for functions and locations, which
 * are one per method and per (method, line): pprof's format asks for
 * indices into it, not for unique entries, and gzip takes the repeats.
 */
#include "hprof_pprof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/idmap.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

/* Everything the message points to, allocated together and freed
 * together. */
typedef struct Builder {
    const HprofStacks *stacks;
    char **strings;              /* the string table, each one malloc'd */
    size_t num_strings;
    int64_t class_key, thread_key; /* the labels' keys in it */
    ValueType types[HPROF_MAX_VALUE_TYPES], *type_pointers[HPROF_MAX_VALUE_TYPES];
    ValueType period_type;
    int64_t comment;             /* the header's comment in the string table */
    Mapping mapping, *mapping_pointer;
    Sample *samples, **sample_pointers;
    uint64_t *location_ids;      /* every sample's, one after the other */
    int64_t *values;             /* num_types per sample */
    Label *labels, **label_pointers; /* at most two per sample */
    IdMap function_of;           /* method ID -> tag = index in functions */
    Function *functions, **function_pointers;
    size_t num_functions;
    IdMap location_of;           /* location_key -> tag = index in locations */
    Location *locations, **location_pointers;
    Line *lines, **line_pointers; /* one per location */
    size_t num_locations;
} Builder;

static void builder_free(Builder *b) {
    for (size_t i = 0; i < b->num_strings; i++) free(b->strings[i]);
    free(b->strings);
    free(b->samples);
    free(b->sample_pointers);
    free(b->location_ids);
    free(b->values);
    free(b->labels);
    free(b->label_pointers);
    idmap_free(&b->function_of);
    free(b->functions);
    free(b->function_pointers);
    idmap_free(&b->location_of);
    free(b->locations);
    free(b->location_pointers);
    free(b->lines);
    free(b->line_pointers);
}

/* Room for the worst case: every frame a new function and location with
 * two strings ("Class.method", its file), a string per stack (its class),
 * and the fixed ones: "", the labels' keys, the mapping's file, the
 * kinds and the period's, the comment.
 * False if memory ran out. */
static bool builder_alloc(Builder *b, size_t num_frames) {
    size_t num_stacks = b->stacks->num_stacks;
    size_t stacks = num_stacks ? num_stacks : 1, frames = num_frames ? num_frames : 1;
    b->strings = calloc(2 * frames + stacks + 2 * HPROF_MAX_VALUE_TYPES + 7, sizeof *b->strings);
    b->samples = calloc(stacks, sizeof *b->samples);
    b->sample_pointers = calloc(stacks, sizeof *b->sample_pointers);
    b->location_ids = calloc(frames, sizeof *b->location_ids);
    b->values = calloc(stacks * HPROF_MAX_VALUE_TYPES, sizeof *b->values);
    b->labels = calloc(2 * stacks, sizeof *b->labels);
    b->label_pointers = calloc(2 * stacks, sizeof *b->label_pointers);
    b->functions = calloc(frames, sizeof *b->functions);
    b->function_pointers = calloc(frames, sizeof *b->function_pointers);
    b->locations = calloc(frames, sizeof *b->locations);
    b->location_pointers = calloc(frames, sizeof *b->location_pointers);
    b->lines = calloc(frames, sizeof *b->lines);
    b->line_pointers = calloc(frames, sizeof *b->line_pointers);
    bool maps = idmap_init(&b->function_of, 2 * frames + 2);
    maps = idmap_init(&b->location_of, 2 * frames + 2) && maps;
    return maps && b->strings && b->samples && b->sample_pointers && b->location_ids && b->values &&
           b->labels && b->label_pointers && b->functions && b->function_pointers && b->locations &&
           b->location_pointers && b->lines && b->line_pointers;
}

/* A copy of `text` added to the string table; its index, or -1 if memory
 * ran out. */
static int64_t add_string(Builder *b, const char *text) {
    char *copy = strdup(text);
    if (!copy) return -1;
    b->strings[b->num_strings] = copy;
    return (int64_t)b->num_strings++;
}

static bool value_type(Builder *b, ValueType *type, const HprofValueType *names) {
    *type = (ValueType)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
    type->type = add_string(b, names->type);
    type->unit = add_string(b, names->unit);
    return type->type >= 0 && type->unit >= 0;
}

/* The function of a method, added if new: its ID, or 0 if memory ran out. */
static uint64_t function_id(Builder *b, VMPI_MethodID method) {
    uint64_t key = (uint64_t)(uintptr_t)method;
    const IdEntry *known = idmap_find(&b->function_of, key);
    if (known) return known->tag + 1;
    HprofMethodName names = b->stacks->name_method(method);
    size_t length = strlen(names.class_name) + strlen(names.method_name) + 2;
    char *name = malloc(length);
    if (!name) return 0;
    snprintf(name, length, "%s.%s", names.class_name, names.method_name);
    int64_t name_index = add_string(b, name);
    free(name);
    int64_t file_index = add_string(b, names.source);
    if (name_index < 0 || file_index < 0) return 0;
    Function *f = &b->functions[b->num_functions];
    *f = (Function)PERFTOOLS__PROFILES__FUNCTION__INIT;
    f->id = b->num_functions + 1;
    f->name = f->system_name = name_index;
    f->filename = file_index;
    b->function_pointers[b->num_functions] = f;
    idmap_insert(&b->function_of, key, 0, 0)->tag = (uint32_t)b->num_functions++;
    return f->id;
}

/* The location of a frame, added if new: its ID, or 0 if memory ran out.
 * A frame is a (method, line); the method's function ID (from 1, at most
 * one per frame) and the line make one nonzero key. */
static uint64_t location_id(Builder *b, const VMPI_CallFrame *frame) {
    uint64_t function = function_id(b, frame->method_id);
    if (!function) return 0;
    uint64_t key = function << 32 | (uint32_t)frame->lineno;
    const IdEntry *known = idmap_find(&b->location_of, key);
    if (known) return known->tag + 1;
    size_t i = b->num_locations;
    b->lines[i] = (Line)PERFTOOLS__PROFILES__LINE__INIT;
    b->lines[i].function_id = function;
    b->lines[i].line = frame->lineno;
    b->line_pointers[i] = &b->lines[i];
    Location *l = &b->locations[i];
    *l = (Location)PERFTOOLS__PROFILES__LOCATION__INIT;
    l->id = i + 1;
    l->mapping_id = b->mapping.id;
    l->n_line = 1;
    l->line = &b->line_pointers[i];
    b->location_pointers[i] = l;
    idmap_insert(&b->location_of, key, 0, 0)->tag = (uint32_t)b->num_locations++;
    return l->id;
}

static Label *add_label(Sample *sample, Label *label, int64_t key) {
    *label = (Label)PERFTOOLS__PROFILES__LABEL__INIT;
    label->key = key;
    sample->label[sample->n_label++] = label;
    return label;
}

/* The sample of stack i: its trace's locations, its values, its labels. */
static bool add_sample(Builder *b, size_t i, uint64_t *location_ids) {
    const HprofStack *stack = &b->stacks->stacks[i];
    const HprofTrace *trace = &b->stacks->sites->traces[stack->trace];
    Sample *sample = &b->samples[i];
    *sample = (Sample)PERFTOOLS__PROFILES__SAMPLE__INIT;
    sample->n_location_id = (size_t)trace->num_frames;
    sample->location_id = location_ids;
    for (int32_t f = 0; f < trace->num_frames; f++) {
        location_ids[f] = location_id(b, &b->stacks->sites->frames[trace->first_frame + (size_t)f]);
        if (!location_ids[f]) return false;
    }
    sample->n_value = b->stacks->num_types;
    sample->value = &b->values[i * HPROF_MAX_VALUE_TYPES];
    memcpy(sample->value, stack->values, sample->n_value * sizeof *sample->value);
    sample->label = &b->label_pointers[2 * i];
    if (stack->class_name) {
        if ((add_label(sample, &b->labels[2 * i], b->class_key)->str = add_string(b, stack->class_name)) < 0)
            return false;
    }
    if (trace->thread) add_label(sample, &b->labels[2 * i + 1], b->thread_key)->num = trace->thread;
    b->sample_pointers[i] = sample;
    return true;
}

/* The message, filled in from the stacks; false if memory ran out. */
static bool build(Builder *b, const HprofPprofHeader *header, Profile *profile) {
    const HprofStacks *stacks = b->stacks;
    size_t num_frames = 0;
    for (size_t i = 0; i < stacks->num_stacks; i++)
        num_frames += (size_t)stacks->sites->traces[stacks->stacks[i].trace].num_frames;
    if (!builder_alloc(b, num_frames) || add_string(b, "") != 0 || (b->class_key = add_string(b, "class")) < 0 ||
        (b->thread_key = add_string(b, "thread")) < 0)
        return false;
    *profile = (Profile)PERFTOOLS__PROFILES__PROFILE__INIT;
    /* One mapping for all the code, already symbolized: pprof then looks
     * for no binary to read symbols from. */
    b->mapping = (Mapping)PERFTOOLS__PROFILES__MAPPING__INIT;
    b->mapping.id = 1;
    b->mapping.has_functions = b->mapping.has_filenames = b->mapping.has_line_numbers = true;
    if ((b->mapping.filename = add_string(b, "vmrun")) < 0) return false;
    b->mapping_pointer = &b->mapping;
    profile->n_mapping = 1;
    profile->mapping = &b->mapping_pointer;
    for (size_t i = 0; i < stacks->num_types; i++) {
        if (!value_type(b, &b->types[i], &stacks->types[i])) return false;
        b->type_pointers[i] = &b->types[i];
        if (strcmp(stacks->types[i].type, header->default_type) == 0)
            profile->default_sample_type = b->types[i].type;
    }
    profile->n_sample_type = stacks->num_types;
    profile->sample_type = b->type_pointers;
    uint64_t *location_ids = b->location_ids;
    for (size_t i = 0; i < stacks->num_stacks; i++) {
        if (!add_sample(b, i, location_ids)) return false;
        location_ids += b->samples[i].n_location_id;
    }
    profile->n_sample = stacks->num_stacks;
    profile->sample = b->sample_pointers;
    profile->n_location = b->num_locations;
    profile->location = b->location_pointers;
    profile->n_function = b->num_functions;
    profile->function = b->function_pointers;
    if (!value_type(b, &b->period_type, &header->period_type)) return false;
    profile->period_type = &b->period_type;
    profile->period = header->period;
    if (header->comment) {
        if ((b->comment = add_string(b, header->comment)) < 0) return false;
        profile->n_comment = 1;
        profile->comment = &b->comment;
    }
    profile->time_nanos = header->time_nanos;
    profile->duration_nanos = header->duration_nanos;
    profile->n_string_table = b->num_strings;
    profile->string_table = b->strings;
    return true;
}

/* `packed` gzipped into *bytes (malloc'd); false if memory ran out. */
static bool gzip(const uint8_t *packed, size_t size, char **bytes, size_t *gz_size) {
    z_stream z = {0};
    /* 15 + 16: the largest window, with a gzip header and trailer. */
    if (size > UINT32_MAX || deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return false;
    uLong bound = deflateBound(&z, (uLong)size);
    *bytes = malloc(bound);
    bool done = false;
    if (*bytes) {
        z.next_in = (Bytef *)packed;
        z.avail_in = (uInt)size;
        z.next_out = (Bytef *)*bytes;
        z.avail_out = (uInt)bound;
        done = deflate(&z, Z_FINISH) == Z_STREAM_END;
        *gz_size = z.total_out;
    }
    deflateEnd(&z);
    if (!done) {
        free(*bytes);
        *bytes = NULL;
    }
    return done;
}

bool hprof_pprof_render(const HprofStacks *stacks, const HprofPprofHeader *header, char **bytes, size_t *size) {
    Builder b = {.stacks = stacks};
    Profile profile;
    bool done = false;
    if (build(&b, header, &profile)) {
        size_t packed_size = perftools__profiles__profile__get_packed_size(&profile);
        uint8_t *packed = malloc(packed_size ? packed_size : 1);
        if (packed) {
            perftools__profiles__profile__pack(&profile, packed);
            done = gzip(packed, packed_size, bytes, size);
            free(packed);
        }
    }
    builder_free(&b);
    return done;
}
