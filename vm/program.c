/*
 * program.c -- deriving layouts from a program's declarations, freeing it,
 * and the lookups every reader of a program shares: a type's name in the
 * language, a class by name, the source line of an instruction.
 *
 * Invariant: lookups by name and by pc are binary searches over tables
 * sorted once, so no pass over a program is quadratic in its size.
 */
#include "program.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"

const char *type_descriptor_problem(const char *d) {
    size_t n = strspn(d, "[");
    switch (d[n]) {
    case 'Z': case 'B': case 'C': case 'S': case 'I': case 'J': case 'F': case 'D':
        n++;
        break;
    case 'V':
        if (n > 0) return "an array of void";
        n++;
        break;
    case 'L': {
        const char *semi = strchr(d + n, ';');
        if (!semi) return "the class name has no ';' after it";
        if (semi == d + n + 1) return "the class name is empty";
        n = (size_t)(semi - d) + 1;
        break;
    }
    case '\0':
        return n > 0 ? "the array has no element type" : "the descriptor is empty";
    default:
        return "it starts with none of Z B C S I J F D V L [";
    }
    return d[n] == '\0' ? NULL : "characters follow the type";
}

bool type_descriptor_valid(const char *d) { return type_descriptor_problem(d) == NULL; }

bool array_levels_add(ArrayLevels *sum, const char *desc, char *why, size_t why_size) {
    uint64_t dimensions = strspn(desc, "[");
    if (dimensions > PROG_MAX_ARRAY_DIMENSIONS) {
        snprintf(why, why_size, "array type nests %" PRIu64 " deep; the limit is %u", dimensions,
                 PROG_MAX_ARRAY_DIMENSIONS);
        return false;
    }
    /* Level k (from 0) is the descriptor without its first k '['s. */
    sum->levels += dimensions;
    sum->bytes += dimensions * strlen(desc) - dimensions * (dimensions - 1) / 2;
    if (sum->levels > PROG_MAX_ARRAY_LEVELS) {
        snprintf(why, why_size, "%" PRIu64 " array levels in all types; the limit is %u", sum->levels,
                 PROG_MAX_ARRAY_LEVELS);
        return false;
    }
    if (sum->bytes > PROG_MAX_ARRAY_LEVEL_BYTES) {
        snprintf(why, why_size, "%" PRIu64 " bytes of array descriptors at all levels; the limit is %u", sum->bytes,
                 PROG_MAX_ARRAY_LEVEL_BYTES);
        return false;
    }
    return true;
}

/* The signature "(params)ret" of m, built from its type indexes. */
static char *method_signature(const Program *p, const ProgMethod *m) {
    size_t len = 3 + strlen(p->types[m->return_type]);
    for (uint32_t i = 0; i < m->num_params; i++) len += strlen(p->types[m->param_types[i]]);
    char *sig = malloc(len);
    if (!sig) return NULL;
    char *out = sig;
    *out++ = '(';
    for (uint32_t i = 0; i < m->num_params; i++) out = stpcpy(out, p->types[m->param_types[i]]);
    *out++ = ')';
    strcpy(out, p->types[m->return_type]);
    return sig;
}

static bool type_index_ok(const Program *p, uint32_t t) { return t < p->num_types; }

bool program_layout(Program *p, const char **why) {
    for (uint32_t t = 0; t < p->num_types; t++) {
        if (!type_descriptor_valid(p->types[t])) {
            *why = "malformed type descriptor";
            return false;
        }
    }
    for (uint32_t c = 0; c < p->num_classes; c++) {
        ProgClass *cls = &p->classes[c];
        cls->num_ref_fields = cls->num_prim_fields = 0;
        for (uint32_t i = 0; i < cls->num_fields; i++) {
            if (cls->fields[i] >= p->num_fields) { *why = "field index out of range"; return false; }
        }
        for (uint32_t i = 0; i < cls->num_statics; i++) {
            if (cls->statics[i] >= p->num_statics) { *why = "static index out of range"; return false; }
        }
        for (uint32_t i = 0; i < cls->num_methods; i++) {
            if (cls->methods[i] >= p->num_methods) { *why = "method index out of range"; return false; }
        }
    }
    /* Instance fields: references first, then primitives, per class. */
    for (uint32_t f = 0; f < p->num_fields; f++) {
        ProgField *field = &p->fields[f];
        if (!type_index_ok(p, field->type) || field->owner_class >= p->num_classes) {
            *why = "field type or owner out of range";
            return false;
        }
        field->is_ref = type_is_ref(p->types[field->type]);
    }
    for (uint32_t f = 0; f < p->num_fields; f++) {
        ProgField *field = &p->fields[f];
        ProgClass *owner = &p->classes[field->owner_class];
        field->slot = field->is_ref ? owner->num_ref_fields++ : owner->num_prim_fields++;
    }
    p->num_ref_statics = p->num_prim_statics = 0;
    for (uint32_t s = 0; s < p->num_statics; s++) {
        ProgField *st = &p->statics[s];
        if (!type_index_ok(p, st->type) || st->owner_class >= p->num_classes) {
            *why = "static type or owner out of range";
            return false;
        }
        st->is_ref = type_is_ref(p->types[st->type]);
        st->slot = st->is_ref ? p->num_ref_statics++ : p->num_prim_statics++;
    }
    for (uint32_t i = 0; i < p->num_methods; i++) {
        ProgMethod *m = &p->methods[i];
        if (m->owner_class >= p->num_classes || !type_index_ok(p, m->return_type)) {
            *why = "method owner or return type out of range";
            return false;
        }
        m->num_prim_args = 0;
        m->num_ref_args = m->is_static ? 0 : 1;
        for (uint32_t a = 0; a < m->num_params; a++) {
            if (!type_index_ok(p, m->param_types[a])) { *why = "parameter type out of range"; return false; }
            if (type_is_ref(p->types[m->param_types[a]])) m->num_ref_args++;
            else m->num_prim_args++;
        }
        for (uint32_t l = 0; l < m->num_prim_locals; l++) {
            if (!type_index_ok(p, m->prim_local_types[l])) { *why = "local type out of range"; return false; }
        }
        for (uint32_t l = 0; l < m->num_ref_locals; l++) {
            if (!type_index_ok(p, m->ref_local_types[l])) { *why = "local type out of range"; return false; }
        }
        if (m->num_prim_args > m->num_prim_locals || m->num_ref_args > m->num_ref_locals) {
            *why = "fewer locals than parameters";
            return false;
        }
        free(m->signature);
        m->signature = method_signature(p, m);
        if (!m->signature) { *why = "out of memory"; return false; }
    }
    for (uint32_t i = 0; i < p->num_natives; i++) {
        ProgNative *n = &p->natives[i];
        if (!type_index_ok(p, n->return_type)) { *why = "native return type out of range"; return false; }
        n->num_prim_args = n->num_ref_args = 0;
        for (uint32_t a = 0; a < n->num_params; a++) {
            if (!type_index_ok(p, n->param_types[a])) { *why = "native parameter type out of range"; return false; }
            if (type_is_ref(p->types[n->param_types[a]])) n->num_ref_args++;
            else n->num_prim_args++;
        }
    }
    if (p->entry_method >= p->num_methods) {
        *why = "entry method out of range";
        return false;
    }
    return true;
}

static const PrimType prim_types[] = {
    {'Z', ELEM_BOOL, 1, "bool"},   {'B', ELEM_BYTE, 1, "byte"},
    {'C', ELEM_CHAR, 2, "char"},   {'S', ELEM_SHORT, 2, "short"},
    {'I', ELEM_INT, 4, "int32"},   {'J', ELEM_LONG, 8, "int"},
    {'F', ELEM_FLOAT, 4, "float"}, {'D', ELEM_DOUBLE, 8, "double"},
};

const PrimType *prim_type_of(char letter) {
    for (size_t i = 0; i < sizeof prim_types / sizeof prim_types[0]; i++)
        if (prim_types[i].letter == letter) return &prim_types[i];
    return NULL;
}

const char *type_language_name(const char *desc, const char *string_word, char *buf, size_t size) {
    size_t dims = 0;
    while (desc[dims] == '[') dims++;
    const char *base = desc + dims;
    const PrimType *prim = prim_type_of(*base);
    const char *word = desc; /* a malformed descriptor names itself */
    if (prim) word = prim->name;
    else if (*base == 'V') word = "void";
    else if (type_is_string(base)) word = string_word;
    else if (*base == 'L') word = base + 1;
    size_t word_len = strlen(word);
    if (word == base + 1) {
        const char *semi = strchr(word, ';');
        if (semi) word_len = (size_t)(semi - word);
    }
    int used = snprintf(buf, size, "%.*s", (int)word_len, word);
    for (size_t i = 0; i < dims && used >= 0 && (size_t)used < size; i++)
        used += snprintf(buf + used, size - (size_t)used, "[]");
    return buf;
}

static int compare_named(const void *a, const void *b) {
    const ProgNamed *x = a, *y = b;
    int by_name = strcmp(x->name, y->name);
    return by_name ? by_name : (x->index > y->index) - (x->index < y->index);
}

void program_sort_names(ProgNamed *entries, uint32_t count) {
    if (count > 1) qsort(entries, count, sizeof *entries, compare_named);
}

/* strcmp order between name[0 .. len) and the NUL-terminated candidate. */
static int compare_name(const char *name, size_t len, const char *candidate) {
    int order = strncmp(name, candidate, len);
    if (order == 0 && candidate[len] != '\0') order = -1; /* name is a proper prefix */
    return order;
}

uint32_t program_find_name(const ProgNamed *entries, uint32_t count, const char *name, size_t len) {
    /* The first entry not below the name: equal names sort by index. */
    uint32_t lo = 0, hi = count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (compare_name(name, len, entries[mid].name) > 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < count && compare_name(name, len, entries[lo].name) == 0 ? entries[lo].index : PROG_NONE;
}

bool program_class_index_init(ProgClassIndex *index, const Program *p) {
    index->count = 0;
    index->by_name = malloc((p->num_classes ? p->num_classes : 1) * sizeof *index->by_name);
    if (!index->by_name) return false;
    for (uint32_t c = 0; c < p->num_classes; c++)
        index->by_name[c] = (ProgNamed){p->classes[c].name ? p->classes[c].name : "", c};
    index->count = p->num_classes;
    program_sort_names(index->by_name, index->count);
    return true;
}

void program_class_index_free(ProgClassIndex *index) {
    free(index->by_name);
    index->by_name = NULL;
    index->count = 0;
}

const LineEntry *program_line_entry(const LineEntry *lines, uint32_t count, uint32_t pc) {
    /* Binary search for the first entry past pc; the one before it is the answer. */
    uint32_t lo = 0, hi = count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (lines[mid].pc <= pc) lo = mid + 1;
        else hi = mid;
    }
    return lo > 0 ? &lines[lo - 1] : NULL;
}

uint32_t program_line_of(const ProgMethod *m, uint32_t pc) {
    const LineEntry *entry = program_line_entry(m->lines, m->num_lines, pc);
    return entry ? entry->line : 0;
}

uint32_t *program_line_table(const ProgMethod *m) {
    uint32_t *line_at = malloc((m->code_len ? m->code_len : 1) * sizeof *line_at);
    if (!line_at) return NULL;
    /* One walk in step with the (pc-sorted) line entries. */
    uint32_t next = 0, line = 0;
    for (uint32_t pc = 0; pc < m->code_len; pc++) {
        while (next < m->num_lines && m->lines[next].pc <= pc) line = m->lines[next++].line;
        line_at[pc] = line;
    }
    return line_at;
}

void program_free(Program *p) {
    if (!p) return;
    for (uint32_t i = 0; i < p->num_types; i++) free(p->types[i]);
    free(p->types);
    free(p->ints);
    free(p->doubles);
    for (uint32_t i = 0; i < p->num_strings; i++) free(p->strings[i].chars);
    free(p->strings);
    for (uint32_t i = 0; i < p->num_classes; i++) {
        ProgClass *c = &p->classes[i];
        free(c->name);
        free(c->source_file);
        free(c->fields);
        free(c->statics);
        free(c->methods);
    }
    free(p->classes);
    for (uint32_t i = 0; i < p->num_fields; i++) free(p->fields[i].name);
    free(p->fields);
    for (uint32_t i = 0; i < p->num_statics; i++) free(p->statics[i].name);
    free(p->statics);
    for (uint32_t i = 0; i < p->num_methods; i++) {
        ProgMethod *m = &p->methods[i];
        free(m->name);
        free(m->param_types);
        free(m->prim_local_types);
        free(m->ref_local_types);
        free(m->code);
        free(m->lines);
        free(m->signature);
    }
    if (p->free_methods) p->free_methods(p->methods);
    else free(p->methods);
    for (uint32_t i = 0; i < p->num_natives; i++) {
        free(p->natives[i].name);
        free(p->natives[i].library);
        free(p->natives[i].param_types);
    }
    free(p->natives);
    free(p);
}

bool program_move_methods(Program *p, void *(*alloc)(size_t count, size_t size), void (*release)(void *)) {
    ProgMethod *moved = alloc(p->num_methods ? p->num_methods : 1, sizeof *moved);
    if (!moved) return false;
    if (p->num_methods) memcpy(moved, p->methods, p->num_methods * sizeof *moved);
    if (p->free_methods) p->free_methods(p->methods);
    else free(p->methods);
    p->methods = moved;
    p->free_methods = release;
    return true;
}
