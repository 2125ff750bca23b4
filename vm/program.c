/* program.c -- deriving layouts from a program's declarations, and freeing it. */
#include "program.h"

#include <stdlib.h>
#include <string.h>

/* Length of the descriptor at d, or 0 if malformed. */
static size_t descriptor_length(const char *d) {
    size_t n = 0;
    while (d[n] == '[') n++;
    switch (d[n]) {
    case 'Z': case 'B': case 'C': case 'S': case 'I': case 'J': case 'F': case 'D':
        return n + 1;
    case 'V':
        return n == 0 ? 1 : 0;
    case 'L': {
        const char *semi = strchr(d + n, ';');
        return semi && semi > d + n + 1 ? (size_t)(semi - d) + 1 : 0;
    }
    default:
        return 0;
    }
}

bool type_descriptor_valid(const char *d) {
    size_t n = descriptor_length(d);
    return n > 0 && d[n] == '\0';
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
    if (p->entry_method >= p->num_methods) {
        *why = "entry method out of range";
        return false;
    }
    return true;
}

uint32_t program_line_of(const ProgMethod *m, uint32_t pc) {
    uint32_t line = 0;
    for (uint32_t i = 0; i < m->num_lines && m->lines[i].pc <= pc; i++) line = m->lines[i].line;
    return line;
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
    free(p->methods);
    free(p);
}
