/*
 * verify.c -- the verifier's entry point and its program-level half: the
 * declarations every instruction check relies on.
 *
 * Invariant on success: every class name is unique, non-empty, free of ';'
 * and not "String" or "Thread"; every L descriptor names a declared class,
 * String or Thread;
 * every class lists exactly the fields, statics and methods whose owner it
 * is, each once; fields, statics, locals and parameters are J, D, Z or
 * references (B C S I F are array elements only, V a result only), each
 * method's locals begin with its receiver and parameters in order and its
 * depths and local counts fit 16-bit operands; the entry method is static,
 * takes () or (string[]) and returns void or int.  Then verify_code.c checks
 * every method's code against these declarations.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/limits.h"
#include "verify_internal.h"

bool verify_vfail(const Verifier *v, VerifyPlace place, uint32_t method, uint32_t pc_or_index, const char *fmt,
                  va_list ap) {
    VerifyError *e = v->err;
    bool in_method = place == VERIFY_IN_CODE || place == VERIFY_IN_METHOD;
    e->place = place;
    e->method = in_method ? method : PROG_NONE;
    e->pc = place == VERIFY_IN_CODE ? pc_or_index : 0;
    e->index = in_method ? PROG_NONE : pc_or_index;
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    return false;
}

bool verify_fail(const Verifier *v, VerifyPlace place, uint32_t method, uint32_t pc_or_index, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    verify_vfail(v, place, method, pc_or_index, fmt, ap);
    va_end(ap);
    return false;
}

const char *verify_type_name(const char *desc, char *buf, size_t size) {
    return desc ? type_language_name(desc, "string", buf, size) : "null";
}

static const char *class_name(const Program *p, uint32_t c) {
    return c < p->num_classes ? p->classes[c].name : "?";
}

const char *verify_method_name(const Program *p, uint32_t method, char *buf, size_t size) {
    if (method >= p->num_methods) return "?";
    const ProgMethod *m = &p->methods[method];
    snprintf(buf, size, "%s.%s", class_name(p, m->owner_class), m->name);
    return buf;
}

void verify_describe(const Program *p, const VerifyError *err, char *buf, size_t size) {
    if (err->method != PROG_NONE) {
        char name[200];
        snprintf(buf, size, "in %s: %s", verify_method_name(p, err->method, name, sizeof name), err->message);
    } else {
        snprintf(buf, size, "%s", err->message);
    }
}

/* ---- type kinds ---------------------------------------------------------- */

/* NULL if a field, local or parameter may have type desc, else why not. */
static const char *value_type_problem(const char *desc) {
    if (type_is_any_ref(desc)) return "Object (any reference) is only the type of a native's parameter";
    switch (desc[0]) {
    case 'J': case 'D': case 'Z': case 'L': case '[': return NULL;
    case 'V': return "void is only a return type";
    default: return "byte, char, short, int32 and float are only array element types";
    }
}

static bool is_prim(const char *desc) { return desc[0] == 'J' || desc[0] == 'D' || desc[0] == 'Z'; }

/* ---- classes by name ------------------------------------------------------- */

static bool check_class_names(const Verifier *v, const ProgClassIndex *classes) {
    const Program *p = v->p;
    for (uint32_t c = 0; c < p->num_classes; c++) {
        const char *name = p->classes[c].name;
        if (!name || !name[0]) return verify_fail(v, VERIFY_IN_CLASS, PROG_NONE, c, "class %u has an empty name", c);
        if (strchr(name, ';'))
            return verify_fail(v, VERIFY_IN_CLASS, PROG_NONE, c, "class name \"%s\" contains ';'", name);
        if (strcmp(name, "String") == 0)
            return verify_fail(v, VERIFY_IN_CLASS, PROG_NONE, c, "class String: the name String is reserved for strings");
        if (strcmp(name, "Thread") == 0)
            return verify_fail(v, VERIFY_IN_CLASS, PROG_NONE, c, "class Thread: the name Thread is reserved for threads");
        if (strcmp(name, "Object") == 0)
            return verify_fail(v, VERIFY_IN_CLASS, PROG_NONE, c,
                               "class Object: the name Object is reserved for any reference");
    }
    const ProgNamed *sorted = classes->by_name;
    for (uint32_t i = 1; i < classes->count; i++) {
        if (strcmp(sorted[i - 1].name, sorted[i].name) == 0)
            return verify_fail(v, VERIFY_IN_CLASS, PROG_NONE, sorted[i].index, "class %s is declared twice (classes %u and %u)",
                               sorted[i].name, sorted[i - 1].index, sorted[i].index);
    }
    return true;
}

/* Every L descriptor, at any array depth, names a class that exists. */
/* A program over a limit (limits.h): the loader has checked these for a
 * file, but a program compiled in memory meets them here. */
static bool fail_over_limit(const Verifier *v, VerifyPlace place, uint32_t method, uint32_t index, const char *why) {
    verify_fail(v, place, method, index, "%s", why);
    v->err->over_limit = true;
    return false;
}

static bool check_types(const Verifier *v, const ProgClassIndex *classes) {
    const Program *p = v->p;
    ArrayLevels array_levels = {0};
    for (uint32_t t = 0; t < p->num_types; t++) {
        char why[160];
        if (!array_levels_add(&array_levels, p->types[t], why, sizeof why))
            return fail_over_limit(v, VERIFY_IN_TYPE, PROG_NONE, t, why);
        const char *base = p->types[t];
        while (*base == '[') base++;
        if (type_is_any_ref(base) && base != p->types[t])
            return verify_fail(v, VERIFY_IN_TYPE, PROG_NONE, t, "type %s: Object (any reference) has no arrays",
                               p->types[t]);
        if (*base != 'L' || type_is_string(base) || type_is_thread(base) || type_is_any_ref(base)) continue;
        const char *name = base + 1;
        size_t len = (size_t)(strchr(name, ';') - name);
        if (program_find_class(classes, name, len) == PROG_NONE)
            return verify_fail(v, VERIFY_IN_TYPE, PROG_NONE, t, "type %s names class %.*s, which is not declared",
                               p->types[t], (int)len, name);
    }
    return true;
}

/* ---- class members ----------------------------------------------------------- */

/* One kind of class member (instance fields, statics or methods), seen the
 * same way: each class lists members it owns, and each member is listed
 * exactly once. */
typedef struct MemberKind {
    const char *what;        /* "field" */
    uint32_t count;
    VerifyPlace place;
} MemberKind;

static uint32_t member_owner(const Program *p, VerifyPlace place, uint32_t i) {
    switch (place) {
    case VERIFY_IN_FIELD: return p->fields[i].owner_class;
    case VERIFY_IN_STATIC: return p->statics[i].owner_class;
    default: return p->methods[i].owner_class;
    }
}

static const char *member_name(const Program *p, VerifyPlace place, uint32_t i) {
    switch (place) {
    case VERIFY_IN_FIELD: return p->fields[i].name;
    case VERIFY_IN_STATIC: return p->statics[i].name;
    default: return p->methods[i].name;
    }
}

static bool check_members(const Verifier *v, const MemberKind *kind, uint32_t (*list_len)(const ProgClass *),
                          const uint32_t *(*list)(const ProgClass *)) {
    const Program *p = v->p;
    bool ok = true;
    uint8_t *listed = calloc(kind->count ? kind->count : 1, 1);
    if (!listed) return verify_fail(v, VERIFY_IN_CLASS, PROG_NONE, 0, "out of memory");
    for (uint32_t c = 0; ok && c < p->num_classes; c++) {
        const ProgClass *cls = &p->classes[c];
        const uint32_t *items = list(cls);
        for (uint32_t i = 0; ok && i < list_len(cls); i++) {
            uint32_t m = items[i];
            if (m >= kind->count)
                ok = verify_fail(v, VERIFY_IN_CLASS, PROG_NONE, c, "class %s lists %s %u, but there are only %u",
                                 cls->name, kind->what, m, kind->count);
            else if (member_owner(p, kind->place, m) != c)
                ok = verify_fail(v, VERIFY_IN_CLASS, PROG_NONE, c, "class %s lists %s %s.%s, which belongs to another class",
                                 cls->name, kind->what, class_name(p, member_owner(p, kind->place, m)),
                                 member_name(p, kind->place, m));
            else if (listed[m]++)
                ok = verify_fail(v, VERIFY_IN_CLASS, PROG_NONE, c, "class %s lists %s %s twice", cls->name, kind->what,
                                 member_name(p, kind->place, m));
        }
    }
    for (uint32_t m = 0; ok && m < kind->count; m++) {
        if (!listed[m])
            ok = verify_fail(v, kind->place, m, m, "%s %s.%s is not listed by its class", kind->what,
                             class_name(p, member_owner(p, kind->place, m)), member_name(p, kind->place, m));
    }
    free(listed);
    return ok;
}

static uint32_t fields_len(const ProgClass *c) { return c->num_fields; }
static const uint32_t *fields_of(const ProgClass *c) { return c->fields; }
static uint32_t statics_len(const ProgClass *c) { return c->num_statics; }
static const uint32_t *statics_of(const ProgClass *c) { return c->statics; }
static uint32_t methods_len(const ProgClass *c) { return c->num_methods; }
static const uint32_t *methods_of(const ProgClass *c) { return c->methods; }

static bool check_field_decls(const Verifier *v, const ProgField *fields, uint32_t n, VerifyPlace place,
                              const char *what) {
    const Program *p = v->p;
    char tname[128];
    for (uint32_t f = 0; f < n; f++) {
        const ProgField *field = &fields[f];
        if (field->owner_class >= p->num_classes || field->type >= p->num_types)
            return verify_fail(v, place, PROG_NONE, f, "%s %u: owner or type out of range", what, f);
        if (!field->name || !field->name[0])
            return verify_fail(v, place, PROG_NONE, f, "%s %u of class %s has an empty name", what, f,
                               class_name(p, field->owner_class));
        const char *desc = p->types[field->type];
        const char *why = value_type_problem(desc);
        if (why)
            return verify_fail(v, place, PROG_NONE, f, "%s %s.%s has type %s: %s", what,
                               class_name(p, field->owner_class), field->name,
                               verify_type_name(desc, tname, sizeof tname), why);
    }
    return true;
}

/* ---- method declarations ------------------------------------------------------- */

static bool check_type_index(const Verifier *v, uint32_t mi, uint32_t t, const char *what) {
    if (t >= v->p->num_types)
        return verify_fail(v, VERIFY_IN_METHOD, mi, 0, "%s: type %u out of range", what, t);
    return true;
}

/* The locals begin with the receiver and then each parameter in the next
 * slot of its kind (program.h), with the parameter's own type. */
static bool check_params_arrive(const Verifier *v, uint32_t mi) {
    const Program *p = v->p;
    const ProgMethod *m = &p->methods[mi];
    char a[128], b[128];
    uint32_t next_prim = 0, next_ref = 0;
    if (!m->is_static) {
        if (m->num_ref_locals == 0)
            return verify_fail(v, VERIFY_IN_METHOD, mi, 0, "an instance method needs reference local 0 for its receiver");
        const char *receiver = p->types[m->ref_local_types[0]];
        if (strcmp(receiver, v->class_descs[m->owner_class]) != 0)
            return verify_fail(v, VERIFY_IN_METHOD, mi, 0,
                               "reference local 0 (the receiver) has type %s but the method belongs to class %s",
                               verify_type_name(receiver, a, sizeof a), class_name(p, m->owner_class));
        next_ref = 1;
    }
    for (uint32_t i = 0; i < m->num_params; i++) {
        const char *param = p->types[m->param_types[i]];
        bool ref = type_is_ref(param);
        uint32_t slot = ref ? next_ref++ : next_prim++;
        if (slot >= (ref ? m->num_ref_locals : m->num_prim_locals))
            return verify_fail(v, VERIFY_IN_METHOD, mi, 0, "parameter %u has no %s local to arrive in", i + 1,
                               ref ? "reference" : "primitive");
        const char *local = p->types[ref ? m->ref_local_types[slot] : m->prim_local_types[slot]];
        if (strcmp(param, local) != 0)
            return verify_fail(v, VERIFY_IN_METHOD, mi, 0, "parameter %u has type %s but %s local %u, where it arrives, has type %s",
                               i + 1, verify_type_name(param, a, sizeof a), ref ? "reference" : "primitive", slot,
                               verify_type_name(local, b, sizeof b));
    }
    return true;
}

static bool check_line_table(const Verifier *v, uint32_t mi) {
    const ProgMethod *m = &v->p->methods[mi];
    for (uint32_t i = 0; i < m->num_lines; i++) {
        if (m->lines[i].pc >= m->code_len)
            return verify_fail(v, VERIFY_IN_METHOD, mi, 0, "line table entry for line %u is at pc %u, past the end of the code",
                               m->lines[i].line, m->lines[i].pc);
        if (i > 0 && m->lines[i].pc < m->lines[i - 1].pc)
            return verify_fail(v, VERIFY_IN_METHOD, mi, 0, "line table is not sorted by pc (%u after %u)", m->lines[i].pc,
                               m->lines[i - 1].pc);
    }
    return true;
}

static bool check_method_decl(const Verifier *v, uint32_t mi) {
    const Program *p = v->p;
    const ProgMethod *m = &p->methods[mi];
    char tname[128];
    if (m->owner_class >= p->num_classes)
        return verify_fail(v, VERIFY_IN_METHOD, mi, 0, "owner class %u out of range", m->owner_class);
    if (!m->name || !m->name[0]) return verify_fail(v, VERIFY_IN_METHOD, mi, 0, "the method has an empty name");
    for (uint32_t i = 0; i < m->num_params; i++) {
        if (!check_type_index(v, mi, m->param_types[i], "parameter")) return false;
        const char *desc = p->types[m->param_types[i]];
        const char *why = value_type_problem(desc);
        if (why)
            return verify_fail(v, VERIFY_IN_METHOD, mi, 0, "parameter %u has type %s: %s", i + 1,
                               verify_type_name(desc, tname, sizeof tname), why);
    }
    if (!check_type_index(v, mi, m->return_type, "return type")) return false;
    const char *ret = p->types[m->return_type];
    if (ret[0] != 'V' && value_type_problem(ret))
        return verify_fail(v, VERIFY_IN_METHOD, mi, 0, "return type %s: %s", verify_type_name(ret, tname, sizeof tname),
                           value_type_problem(ret));
    /* So an interpreter frame stays small whatever a program claims. */
    char why[160];
    if (m->num_prim_locals > PROG_MAX_LOCALS || m->num_ref_locals > PROG_MAX_LOCALS) {
        snprintf(why, sizeof why, "%u %s locals; the limit is %u",
                 m->num_prim_locals > PROG_MAX_LOCALS ? m->num_prim_locals : m->num_ref_locals,
                 m->num_prim_locals > PROG_MAX_LOCALS ? "primitive" : "reference", PROG_MAX_LOCALS);
        return fail_over_limit(v, VERIFY_IN_METHOD, mi, 0, why);
    }
    for (uint32_t l = 0; l < m->num_prim_locals; l++) {
        if (!check_type_index(v, mi, m->prim_local_types[l], "primitive local")) return false;
        const char *desc = p->types[m->prim_local_types[l]];
        if (!is_prim(desc))
            return verify_fail(v, VERIFY_IN_METHOD, mi, 0, "primitive local %u has type %s, not int, double or bool", l,
                               verify_type_name(desc, tname, sizeof tname));
    }
    for (uint32_t l = 0; l < m->num_ref_locals; l++) {
        if (!check_type_index(v, mi, m->ref_local_types[l], "reference local")) return false;
        const char *desc = p->types[m->ref_local_types[l]];
        if (!type_is_ref(desc))
            return verify_fail(v, VERIFY_IN_METHOD, mi, 0, "reference local %u has type %s, not a reference type", l,
                               verify_type_name(desc, tname, sizeof tname));
        if (type_is_any_ref(desc))
            return verify_fail(v, VERIFY_IN_METHOD, mi, 0, "reference local %u has type Object: %s", l,
                               value_type_problem(desc));
    }
    if (!check_params_arrive(v, mi)) return false;
    if (m->max_pstack > PROG_MAX_STACK_DEPTH || m->max_rstack > PROG_MAX_STACK_DEPTH) {
        snprintf(why, sizeof why, "%s stack depth %u; the limit is %u",
                 m->max_pstack > PROG_MAX_STACK_DEPTH ? "primitive" : "reference",
                 m->max_pstack > PROG_MAX_STACK_DEPTH ? m->max_pstack : m->max_rstack, PROG_MAX_STACK_DEPTH);
        return fail_over_limit(v, VERIFY_IN_METHOD, mi, 0, why);
    }
    if (m->code_len == 0) return verify_fail(v, VERIFY_IN_METHOD, mi, 0, "the method has no code");
    return check_line_table(v, mi);
}

/* The entry method: static, () or (string[]), returning void or an int exit
 * status (docs/language.md, "Declarations"). */
static bool check_entry(const Verifier *v) {
    const Program *p = v->p;
    char name[200];
    if (p->entry_method >= p->num_methods)
        return verify_fail(v, VERIFY_IN_ENTRY, PROG_NONE, p->entry_method, "entry method %u out of range", p->entry_method);
    const ProgMethod *m = &p->methods[p->entry_method];
    verify_method_name(p, p->entry_method, name, sizeof name);
    if (!m->is_static)
        return verify_fail(v, VERIFY_IN_ENTRY, PROG_NONE, p->entry_method, "the entry method %s must be static", name);
    if (m->num_params > 1 || (m->num_params == 1 && strcmp(p->types[m->param_types[0]], "[LString;") != 0))
        return verify_fail(v, VERIFY_IN_ENTRY, PROG_NONE, p->entry_method,
                           "the entry method %s must take no parameters or one string[]", name);
    const char *ret = p->types[m->return_type];
    if (strcmp(ret, "V") != 0 && strcmp(ret, "J") != 0)
        return verify_fail(v, VERIFY_IN_ENTRY, PROG_NONE, p->entry_method,
                           "the entry method %s must return void or int", name);
    return true;
}

/* ---- natives ------------------------------------------------------------------------ */

/* NULL if a native may take (or, for a result, return) C type `desc`
 * (program.h, ProgNative), else why not.  Objects go only to and from a
 * native that takes the env, as its handles. */
static const char *native_type_problem(const char *desc, bool result, bool takes_env) {
    if (desc[0] == 'V') return result ? NULL : "void is only a result";
    if (prim_type_of(desc[0]) || type_is_string(desc)) return NULL;
    if (type_is_any_ref(desc) && result) return "Object (any reference) is only a parameter type";
    if (desc[0] == 'L') return takes_env ? NULL : "only a native that takes the env can be given or return objects";
    if (desc[0] == '[' && prim_type_of(desc[1]))
        return result ? "C cannot return an array (it has no length)" : NULL;
    return "C can be passed only numbers, bools, strings and arrays of those";
}

static bool check_native_decl(const Verifier *v, uint32_t ni) {
    const Program *p = v->p;
    const ProgNative *n = &p->natives[ni];
    char tname[128];
    if (!n->name || !n->name[0]) return verify_fail(v, VERIFY_IN_NATIVE, PROG_NONE, ni, "native %u has an empty name", ni);
    if (!n->library || !n->library[0])
        return verify_fail(v, VERIFY_IN_NATIVE, PROG_NONE, ni, "native %s names no library", n->name);
    for (uint32_t i = 0; i < n->num_params; i++) {
        const char *desc = p->types[n->param_types[i]];
        const char *problem = native_type_problem(desc, false, n->takes_env);
        if (problem)
            return verify_fail(v, VERIFY_IN_NATIVE, PROG_NONE, ni, "native %s: parameter %u has type %s: %s", n->name,
                               i + 1, verify_type_name(desc, tname, sizeof tname), problem);
    }
    const char *ret = p->types[n->return_type];
    const char *problem = native_type_problem(ret, true, n->takes_env);
    if (problem)
        return verify_fail(v, VERIFY_IN_NATIVE, PROG_NONE, ni, "native %s: result type %s: %s", n->name,
                           verify_type_name(ret, tname, sizeof tname), problem);
    return true;
}

/* ---- the whole program ------------------------------------------------------------ */

static bool check_declarations(const Verifier *v) {
    const Program *p = v->p;
    ProgClassIndex classes;
    if (!program_class_index_init(&classes, p)) return verify_fail(v, VERIFY_IN_CLASS, PROG_NONE, 0, "out of memory");
    bool ok = check_class_names(v, &classes) && check_types(v, &classes);
    program_class_index_free(&classes);
    if (!ok) return false;

    MemberKind fields = {"field", p->num_fields, VERIFY_IN_FIELD};
    MemberKind statics = {"static", p->num_statics, VERIFY_IN_STATIC};
    MemberKind methods = {"method", p->num_methods, VERIFY_IN_METHOD};
    if (!check_field_decls(v, p->fields, p->num_fields, VERIFY_IN_FIELD, "field") ||
        !check_field_decls(v, p->statics, p->num_statics, VERIFY_IN_STATIC, "static"))
        return false;
    for (uint32_t mi = 0; mi < p->num_methods; mi++)
        if (!check_method_decl(v, mi)) return false;
    for (uint32_t ni = 0; ni < p->num_natives; ni++)
        if (!check_native_decl(v, ni)) return false;
    return check_members(v, &fields, fields_len, fields_of) && check_members(v, &statics, statics_len, statics_of) &&
           check_members(v, &methods, methods_len, methods_of) && check_entry(v);
}

bool verify_program(const Program *p, VerifyError *err) {
    memset(err, 0, sizeof *err);
    Verifier v = {.p = p, .err = err};
    v.class_descs = calloc(p->num_classes ? p->num_classes : 1, sizeof *v.class_descs);
    bool ok = v.class_descs != NULL;
    for (uint32_t c = 0; ok && c < p->num_classes; c++) {
        const char *name = p->classes[c].name ? p->classes[c].name : "";
        size_t len = strlen(name);
        v.class_descs[c] = malloc(len + 3);
        ok = v.class_descs[c] != NULL;
        if (ok) snprintf(v.class_descs[c], len + 3, "L%s;", name);
    }
    if (!ok) {
        verify_fail(&v, VERIFY_IN_CLASS, PROG_NONE, 0, "out of memory");
    } else {
        ok = check_declarations(&v);
        for (uint32_t mi = 0; ok && mi < p->num_methods; mi++) ok = verify_method_code(&v, mi);
    }
    if (v.class_descs)
        for (uint32_t c = 0; c < p->num_classes; c++) free(v.class_descs[c]);
    free(v.class_descs);
    return ok;
}
