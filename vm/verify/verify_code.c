/*
 * verify_code.c -- the verifier's per-method half: type inference over the
 * code, in the manner of the JVM's inference verifier, simpler because every
 * local has a declared type and so only the operand stacks need inferring.
 *
 * The state at an instruction is the list of types on each operand stack:
 * J, D or Z on the primitive stack; a descriptor or the null type on the
 * reference stack.  Three passes:
 *   1. decode: every opcode is assigned and its operand lies in the code;
 *      this marks the instruction starts;
 *   2. targets: every jump lands on an instruction start inside the method,
 *      every line-table pc is one; jump targets (and pc 0) are join points;
 *   3. flow: from a worklist of join points, run straight-line code,
 *      checking each instruction against the state and computing the state
 *      after it, and merge the state into each successor that is a join.
 * States are stored only at join points.  Merging requires equal depths and
 * equal primitive types; for references, null merged with T gives T and two
 * different non-null types are an error (there is no subtyping), so a stored
 * slot changes at most once (null to T) and the worklist empties after a
 * number of visits linear in the code size times the stack depth.
 *
 * Invariant on success: from the method's start, every path keeps both
 * stacks within max_pstack/max_rstack, never pops an empty stack, gives
 * every instruction operands of the types it needs, and ends in a return or
 * EXIT; so the interpreter never checks a type or a depth.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/opcodes.h"
#include "optypes.h"
#include "verify_internal.h"

/* The most stack slots all join-point states of one method may hold
 * together.  Real methods need a tiny fraction; a hostile file cannot make
 * the verifier allocate more than this. */
#define STATE_SLOT_BUDGET (8u << 20)

enum { IS_START = 1, IS_TARGET = 2 };

typedef struct JoinState {
    uint32_t pc;
    uint32_t pdepth, rdepth;
    uint8_t *ptypes;
    const char **rtypes;
    bool reached, queued;
} JoinState;

typedef struct CodeCheck {
    const Verifier *v;
    const Program *p;
    const ProgMethod *m;
    uint32_t mi;
    uint8_t *flags;          /* per code byte: IS_START, IS_TARGET */
    uint32_t *join_of;       /* per code byte: index into joins, for targets */
    JoinState *joins;
    uint32_t num_joins;
    uint32_t *work;          /* join indexes waiting to be (re)visited */
    uint32_t num_work;
    size_t stored_slots;
    /* The instruction being checked and the state before it. */
    uint32_t pc;
    uint8_t op;
    uint32_t pdepth, rdepth;
    uint8_t *ptypes;         /* max_pstack entries: J, D or Z */
    const char **rtypes;     /* max_rstack entries: a descriptor, or NULL for the null type */
} CodeCheck;

__attribute__((format(printf, 2, 3))) static bool fail(CodeCheck *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    verify_vfail(c->v, VERIFY_IN_CODE, c->mi, c->pc, fmt, ap);
    va_end(ap);
    return false;
}

static const char *op_name(uint8_t op) { return op_info[op].name; }

/* The operand of the instruction being checked. */
static const uint8_t *operand_at(const CodeCheck *c) { return c->m->code + c->pc + 1; }
static uint32_t operand_u8(const CodeCheck *c) { return op_operand_get(operand_at(c), 1); }
static uint32_t operand_u16(const CodeCheck *c) { return op_operand_get(operand_at(c), 2); }

/* The jump target, as a signed offset from the instruction start. */
static int64_t jump_target(const CodeCheck *c) { return (int64_t)c->pc + (int32_t)op_operand_get(operand_at(c), 4); }

/* ---- naming types in messages ------------------------------------------------ */

/* A primitive stack type (J, D or Z; optypes.h's '?' for any). */
static const char *prim_name(uint8_t letter) {
    const PrimType *prim = prim_type_of((char)letter);
    return prim ? prim->name : "any primitive";
}

static const char *ref_name(const char *desc, char *buf, size_t size) { return verify_type_name(desc, buf, size); }

/* Appends `text` to a comma-separated list in buf. */
static void list_add(char *buf, size_t size, const char *text) {
    size_t used = strlen(buf);
    if (used < size) snprintf(buf + used, size - used, "%s%s", used ? ", " : "", text);
}

/* The top n primitive types, bottom first: "int, double". */
static void prims_on_stack(const CodeCheck *c, uint32_t n, char *buf, size_t size) {
    buf[0] = '\0';
    for (uint32_t i = c->pdepth - n; i < c->pdepth; i++) list_add(buf, size, prim_name(c->ptypes[i]));
}

static void refs_on_stack(const CodeCheck *c, uint32_t n, char *buf, size_t size) {
    char name[128];
    buf[0] = '\0';
    for (uint32_t i = c->rdepth - n; i < c->rdepth; i++) list_add(buf, size, ref_name(c->rtypes[i], name, sizeof name));
}

static bool prim_mismatch(CodeCheck *c, const char *needs, uint32_t n) {
    char has[160];
    prims_on_stack(c, n, has, sizeof has);
    return fail(c, "type mismatch: %s needs %s but the stack has %s", op_name(c->op), needs, has);
}

static bool ref_mismatch(CodeCheck *c, const char *needs, uint32_t n) {
    char has[160];
    refs_on_stack(c, n, has, sizeof has);
    return fail(c, "type mismatch: %s needs %s but the reference stack has %s", op_name(c->op), needs, has);
}

/* ---- the stacks ---------------------------------------------------------------- */

static bool push_prim(CodeCheck *c, uint8_t letter) {
    if (c->pdepth >= c->m->max_pstack)
        return fail(c, "primitive stack overflow: %s makes the depth %u, more than the method's maximum %u",
                    op_name(c->op), c->pdepth + 1, c->m->max_pstack);
    c->ptypes[c->pdepth++] = letter;
    return true;
}

static bool push_ref(CodeCheck *c, const char *desc) {
    if (c->rdepth >= c->m->max_rstack)
        return fail(c, "reference stack overflow: %s makes the depth %u, more than the method's maximum %u",
                    op_name(c->op), c->rdepth + 1, c->m->max_rstack);
    c->rtypes[c->rdepth++] = desc;
    return true;
}

static bool need_depths(CodeCheck *c, uint32_t prims, uint32_t refs) {
    if (c->pdepth < prims)
        return fail(c, "primitive stack underflow: %s needs %u value%s but the stack has %u", op_name(c->op), prims,
                    prims == 1 ? "" : "s", c->pdepth);
    if (c->rdepth < refs)
        return fail(c, "reference stack underflow: %s needs %u value%s but the stack has %u", op_name(c->op), refs,
                    refs == 1 ? "" : "s", c->rdepth);
    return true;
}

/* No subtyping: a value fits a slot of type `to` if it is null or has
 * exactly that type. */
/* Any reference goes to Object, the type of a native's parameter only. */
static bool assignable(const char *value, const char *to) {
    return value == NULL || strcmp(value, to) == 0 || type_is_any_ref(to);
}

static uint8_t prim_letter(const Program *p, uint32_t type) { return (uint8_t)p->types[type][0]; }

/* ---- instructions with fixed types (optypes.c) ------------------------------------ */

static bool check_fixed(CodeCheck *c, const OpTypes *t) {
    uint32_t np = (uint32_t)strlen(t->prims_in), nr = (uint32_t)strlen(t->refs_in);
    for (uint32_t i = 0; i < np; i++) {
        uint8_t want = (uint8_t)t->prims_in[i];
        if (want != '?' && c->ptypes[c->pdepth - np + i] != want) {
            char needs[100] = "";
            for (uint32_t k = 0; k < np; k++) list_add(needs, sizeof needs, prim_name((uint8_t)t->prims_in[k]));
            return prim_mismatch(c, needs, np);
        }
    }
    for (uint32_t i = 0; i < nr; i++) {
        const char *have = c->rtypes[c->rdepth - nr + i];
        bool wrong = (t->refs_in[i] == 'S' && !type_is_string(have ? have : "LString;")) ||
                     (t->refs_in[i] == 'T' && !type_is_thread(have ? have : "LThread;"));
        if (wrong) {
            char needs[100] = "";
            for (uint32_t k = 0; k < nr; k++)
                list_add(needs, sizeof needs,
                         t->refs_in[k] == 'S' ? "string" : t->refs_in[k] == 'T' ? "Thread" : "reference");
            return ref_mismatch(c, needs, nr);
        }
    }
    c->pdepth -= np;
    c->rdepth -= nr;
    for (const char *out = t->prims_out; *out; out++)
        if (!push_prim(c, (uint8_t)*out)) return false;
    for (const char *out = t->refs_out; *out; out++)
        if (!push_ref(c, *out == 'S' ? "LString;" : NULL)) return false;
    return true;
}

/* Operands of fixed-type instructions: constant indexes and flags. */
static bool check_plain_operand(CodeCheck *c) {
    const Program *p = c->p;
    uint32_t n;
    switch (c->op) {
    case OP_LDI:
        n = operand_u16(c);
        if (n >= p->num_ints) return fail(c, "LDI %u: int constant %u does not exist (the program has %u)", n, n, p->num_ints);
        return true;
    case OP_LDD:
        n = operand_u16(c);
        if (n >= p->num_doubles)
            return fail(c, "LDD %u: double constant %u does not exist (the program has %u)", n, n, p->num_doubles);
        return true;
    case OP_LDS:
        n = operand_u16(c);
        if (n >= p->num_strings)
            return fail(c, "LDS %u: string constant %u does not exist (the program has %u)", n, n, p->num_strings);
        return true;
    case OP_PUSHZ:
        if (operand_u8(c) > 1) return fail(c, "PUSHZ operand %u is not 0 or 1", operand_u8(c));
        return true;
    case OP_PRINTI: case OP_PRINTD: case OP_PRINTZ: case OP_PRINTS:
        if (operand_u8(c) > 1) return fail(c, "%s operand %u is not 0 or 1 (the newline flag)", op_name(c->op), operand_u8(c));
        return true;
    case OP_NOTIFY:
        if (operand_u8(c) > 1) return fail(c, "NOTIFY operand %u is not 0 or 1 (the notify-all flag)", operand_u8(c));
        return true;
    default:
        return true;
    }
}

/* ---- locals ------------------------------------------------------------------------- */

static bool local_index(CodeCheck *c, bool ref, uint32_t *out) {
    uint32_t n = operand_u16(c), have = ref ? c->m->num_ref_locals : c->m->num_prim_locals;
    if (n >= have)
        return fail(c, "%s %u: %s local %u does not exist (the method has %u)", op_name(c->op), n,
                    ref ? "reference" : "primitive", n, have);
    *out = n;
    return true;
}

static bool check_local(CodeCheck *c) {
    const Program *p = c->p;
    const ProgMethod *m = c->m;
    char a[128], b[128];
    uint32_t n = 0;
    switch (c->op) {
    case OP_PLOAD:
        return local_index(c, false, &n) && push_prim(c, prim_letter(p, m->prim_local_types[n]));
    case OP_PSTORE: {
        if (!local_index(c, false, &n)) return false;
        uint8_t want = prim_letter(p, m->prim_local_types[n]);
        if (c->ptypes[c->pdepth - 1] != want) {
            snprintf(a, sizeof a, "%s (the type of primitive local %u)", prim_name(want), n);
            return prim_mismatch(c, a, 1);
        }
        c->pdepth--;
        return true;
    }
    case OP_IINC:
        if (!local_index(c, false, &n)) return false;
        if (prim_letter(p, m->prim_local_types[n]) != 'J')
            return fail(c, "IINC %u: primitive local %u has type %s, not int", n, n,
                        prim_name(prim_letter(p, m->prim_local_types[n])));
        return true;
    case OP_RLOAD:
        return local_index(c, true, &n) && push_ref(c, p->types[m->ref_local_types[n]]);
    case OP_RSTORE: {
        if (!local_index(c, true, &n)) return false;
        const char *want = p->types[m->ref_local_types[n]];
        if (!assignable(c->rtypes[c->rdepth - 1], want)) {
            snprintf(b, sizeof b, "%s (the type of reference local %u)", ref_name(want, a, sizeof a), n);
            return ref_mismatch(c, b, 1);
        }
        c->rdepth--;
        return true;
    }
    case OP_PDUP:
        return push_prim(c, c->ptypes[c->pdepth - 1]);
    default: /* OP_RDUP */
        return push_ref(c, c->rtypes[c->rdepth - 1]);
    }
}

/* ---- objects: NEW, fields, statics ------------------------------------------------- */

/* "GETFR 3 (Tree.left)": an object instruction and the field it names, for
 * messages (built only when one is needed). */
static const char *field_who(const CodeCheck *c, const ProgField *f, uint32_t n, char *buf, size_t size) {
    snprintf(buf, size, "%s %u (%s.%s)", op_name(c->op), n, c->p->classes[f->owner_class].name, f->name);
    return buf;
}

static bool check_object(CodeCheck *c) {
    const Program *p = c->p;
    char a[160], b[128], who[200];
    uint32_t n = operand_u16(c);
    bool is_static = c->op == OP_GETSP || c->op == OP_PUTSP || c->op == OP_GETSR || c->op == OP_PUTSR;
    bool wants_ref = c->op == OP_GETFR || c->op == OP_PUTFR || c->op == OP_GETSR || c->op == OP_PUTSR;
    bool is_get = c->op == OP_GETFP || c->op == OP_GETFR || c->op == OP_GETSP || c->op == OP_GETSR;

    if (c->op == OP_NEW) {
        if (n >= p->num_classes) return fail(c, "NEW %u: class %u does not exist (the program has %u)", n, n, p->num_classes);
        return push_ref(c, c->v->class_descs[n]);
    }
    uint32_t count = is_static ? p->num_statics : p->num_fields;
    const char *kind = is_static ? "static" : "field";
    if (n >= count) return fail(c, "%s %u: %s %u does not exist (the program has %u)", op_name(c->op), n, kind, n, count);
    const ProgField *f = is_static ? &p->statics[n] : &p->fields[n];
    const char *type = p->types[f->type];
    if (type_is_ref(type) != wants_ref) {
        static const char *const other[] = {[OP_GETFP] = "GETFR", [OP_PUTFP] = "PUTFR", [OP_GETFR] = "GETFP",
                                            [OP_PUTFR] = "PUTFP", [OP_GETSP] = "GETSR", [OP_PUTSP] = "PUTSR",
                                            [OP_GETSR] = "GETSP", [OP_PUTSR] = "PUTSP"};
        return fail(c, "%s: the %s holds a %s (use %s)", field_who(c, f, n, who, sizeof who), kind,
                    wants_ref ? "primitive" : "reference", other[c->op]);
    }
    /* The object is under the value on the reference stack (PUTFR), else on top. */
    if (!is_static) {
        uint32_t below = c->op == OP_PUTFR ? 2 : 1;
        const char *obj = c->rtypes[c->rdepth - below];
        if (!assignable(obj, c->v->class_descs[f->owner_class])) {
            char has[128];
            return fail(c, "type mismatch: %s needs a %s object but the reference stack has %s",
                        field_who(c, f, n, who, sizeof who), p->classes[f->owner_class].name,
                        ref_name(obj, has, sizeof has));
        }
    }
    if (!is_get && !wants_ref && c->ptypes[c->pdepth - 1] != type[0])
        return fail(c, "type mismatch: %s needs %s but the stack has %s", field_who(c, f, n, who, sizeof who),
                    prim_name((uint8_t)type[0]), prim_name(c->ptypes[c->pdepth - 1]));
    if (!is_get && wants_ref && !assignable(c->rtypes[c->rdepth - 1], type))
        return fail(c, "type mismatch: %s needs %s but the reference stack has %s", field_who(c, f, n, who, sizeof who),
                    ref_name(type, a, sizeof a), ref_name(c->rtypes[c->rdepth - 1], b, sizeof b));
    /* Pop what op_info says, then push the field's value for a get. */
    c->pdepth -= (uint32_t)op_info[c->op].ppop;
    c->rdepth -= (uint32_t)op_info[c->op].rpop;
    if (!is_get) return true;
    return wants_ref ? push_ref(c, type) : push_prim(c, (uint8_t)type[0]);
}

/* ---- arrays ------------------------------------------------------------------------ */

/* The element descriptor letter each element instruction works on; R for
 * any reference element. */
static const char elem_letter[256] = {
    [OP_AGETZ] = 'Z', [OP_AGETB] = 'B', [OP_AGETC] = 'C', [OP_AGETS] = 'S', [OP_AGETI] = 'I',
    [OP_AGETJ] = 'J', [OP_AGETF] = 'F', [OP_AGETD] = 'D', [OP_AGETR] = 'R',
    [OP_APUTZ] = 'Z', [OP_APUTB] = 'B', [OP_APUTC] = 'C', [OP_APUTS] = 'S', [OP_APUTI] = 'I',
    [OP_APUTJ] = 'J', [OP_APUTF] = 'F', [OP_APUTD] = 'D', [OP_APUTR] = 'R',
};

/* What an element of that kind is on the primitive stack: narrow ints widen
 * to int, float to double (docs/language.md, "Types"). */
static uint8_t widened(char elem) {
    switch (elem) {
    case 'Z': return 'Z';
    case 'F': case 'D': return 'D';
    default: return 'J';
    }
}

static bool array_fits(const char *array, char elem) {
    if (array == NULL) return true; /* null: fails at run time with a null-reference error */
    if (array[0] != '[') return false;
    if (elem == 'R') return array[1] == 'L' || array[1] == '[';
    return array[1] == elem && array[2] == '\0';
}

static bool check_array(CodeCheck *c) {
    const Program *p = c->p;
    char a[128], b[128];
    if (c->op == OP_NEWARR) {
        uint32_t n = operand_u16(c);
        if (n >= p->num_types) return fail(c, "NEWARR %u: type %u does not exist (the program has %u)", n, n, p->num_types);
        const char *type = p->types[n];
        if (type[0] != '[') return fail(c, "NEWARR %u: type %s is not an array type", n, ref_name(type, a, sizeof a));
        if (c->ptypes[c->pdepth - 1] != 'J') return prim_mismatch(c, "int (the length)", 1);
        c->pdepth--;
        return push_ref(c, type);
    }
    if (c->op == OP_ALEN) {
        const char *array = c->rtypes[c->rdepth - 1];
        if (array && array[0] != '[') return ref_mismatch(c, "an array", 1);
        c->rdepth--;
        return push_prim(c, 'J');
    }
    char elem = elem_letter[c->op];
    bool is_put = op_info[c->op].ppush + op_info[c->op].rpush == 0;
    /* Layout (opcodes.h): AGET [arr] [index]; APUT [arr] [index value];
     * APUTR [arr value] [index]. */
    uint32_t index_at = is_put && elem != 'R' ? c->pdepth - 2 : c->pdepth - 1;
    uint32_t array_at = is_put && elem == 'R' ? c->rdepth - 2 : c->rdepth - 1;
    const char *array = c->rtypes[array_at];
    if (!array_fits(array, elem)) {
        char wanted[64];
        if (elem == 'R') snprintf(wanted, sizeof wanted, "an array of references");
        else snprintf(wanted, sizeof wanted, "%s", verify_type_name((char[]){'[', elem, '\0'}, a, sizeof a));
        return fail(c, "type mismatch: %s needs %s but the reference stack has %s", op_name(c->op), wanted,
                    ref_name(array, b, sizeof b));
    }
    if (c->ptypes[index_at] != 'J')
        return fail(c, "type mismatch: %s needs an int index but the stack has %s", op_name(c->op),
                    prim_name(c->ptypes[index_at]));
    if (is_put && elem != 'R' && c->ptypes[c->pdepth - 1] != widened(elem))
        return fail(c, "type mismatch: %s needs a %s value but the stack has %s", op_name(c->op),
                    prim_name(widened(elem)), prim_name(c->ptypes[c->pdepth - 1]));
    if (is_put && elem == 'R' && array && !assignable(c->rtypes[c->rdepth - 1], array + 1))
        return fail(c, "type mismatch: APUTR stores into %s but the value is %s", ref_name(array, a, sizeof a),
                    ref_name(c->rtypes[c->rdepth - 1], b, sizeof b));
    c->pdepth -= (uint32_t)op_info[c->op].ppop;
    c->rdepth -= (uint32_t)op_info[c->op].rpop;
    if (is_put) return true;
    /* An element of a null array is never read (it faults first), so its
     * type is the null type, which fits anywhere. */
    if (elem == 'R') return push_ref(c, array ? array + 1 : NULL);
    return push_prim(c, widened(elem));
}

/* ---- calls and returns ----------------------------------------------------------------- */

/* "(this Tree, int, Node)" for the callee's parameters, or for what the
 * stacks hold where they would be. */
static void describe_args(const CodeCheck *c, const ProgMethod *callee, bool actual, char *buf, size_t size) {
    const Program *p = c->p;
    char name[128];
    uint32_t prim = c->pdepth - callee->num_prim_args, ref = c->rdepth - callee->num_ref_args;
    char list[400] = "";
    if (!callee->is_static) {
        char receiver[140];
        snprintf(receiver, sizeof receiver, "this %s",
                 actual ? ref_name(c->rtypes[ref++], name, sizeof name) : p->classes[callee->owner_class].name);
        list_add(list, sizeof list, receiver);
    }
    for (uint32_t i = 0; i < callee->num_params; i++) {
        const char *param = p->types[callee->param_types[i]];
        if (!actual) list_add(list, sizeof list, ref_name(param, name, sizeof name));
        else if (type_is_ref(param)) list_add(list, sizeof list, ref_name(c->rtypes[ref++], name, sizeof name));
        else list_add(list, sizeof list, prim_name(c->ptypes[prim++]));
    }
    snprintf(buf, size, "(%s)", list);
}

/* CALL, and START (opcodes.h), which takes the same arguments and, above
 * them, the new thread's name: a string or null. */
static bool check_call(CodeCheck *c) {
    const Program *p = c->p;
    uint32_t n = operand_u16(c);
    if (n >= p->num_methods)
        return fail(c, "%s %u: method %u does not exist (the program has %u)", op_name(c->op), n, n, p->num_methods);
    const ProgMethod *callee = &p->methods[n];
    bool start = c->op == OP_START;
    if (start) {
        if (c->rdepth == 0) return fail(c, "START needs the thread's name (a string or null) on the reference stack");
        const char *name = c->rtypes[c->rdepth - 1];
        if (name && !type_is_string(name)) {
            char a[128];
            return fail(c, "START: the thread's name must be a string, not %s", ref_name(name, a, sizeof a));
        }
        c->rdepth--;
    }
    bool enough = c->pdepth >= callee->num_prim_args && c->rdepth >= callee->num_ref_args;
    bool fits = enough;
    if (enough) {
        uint32_t prim = c->pdepth - callee->num_prim_args, ref = c->rdepth - callee->num_ref_args;
        fits = callee->is_static || assignable(c->rtypes[ref++], c->v->class_descs[callee->owner_class]);
        for (uint32_t i = 0; fits && i < callee->num_params; i++) {
            const char *param = p->types[callee->param_types[i]];
            fits = type_is_ref(param) ? assignable(c->rtypes[ref++], param) : c->ptypes[prim++] == (uint8_t)param[0];
        }
    }
    if (!fits) {
        char who[200], expected[420], actual[420];
        verify_method_name(p, n, who, sizeof who);
        describe_args(c, callee, false, expected, sizeof expected);
        if (!enough)
            return fail(c, "call to %s: expected %s but the stacks hold only %u primitive and %u reference values",
                        who, expected, c->pdepth, c->rdepth);
        describe_args(c, callee, true, actual, sizeof actual);
        return fail(c, "call to %s: expected %s but the stacks have %s", who, expected, actual);
    }
    c->pdepth -= callee->num_prim_args;
    c->rdepth -= callee->num_ref_args;
    if (start) return push_ref(c, "LThread;"); /* the thread discards the result */
    const char *ret = p->types[callee->return_type];
    if (ret[0] == 'V') return true;
    return type_is_ref(ret) ? push_ref(c, ret) : push_prim(c, (uint8_t)ret[0]);
}

/* CALLN #n: the arguments are the native's parameters by their stack kind
 * (program.h, prog_native_value_letter); a string or array parameter takes
 * null too (the native gets NULL). */
static bool check_native_call(CodeCheck *c) {
    const Program *p = c->p;
    uint32_t n = operand_u16(c);
    if (n >= p->num_natives)
        return fail(c, "CALLN %u: native %u does not exist (the program has %u)", n, n, p->num_natives);
    const ProgNative *callee = &p->natives[n];
    if (c->pdepth < callee->num_prim_args || c->rdepth < callee->num_ref_args)
        return fail(c, "call to native %s: it takes %u primitive and %u reference arguments but the stacks hold only %u and %u",
                    callee->name, callee->num_prim_args, callee->num_ref_args, c->pdepth, c->rdepth);
    uint32_t prim = c->pdepth - callee->num_prim_args, ref = c->rdepth - callee->num_ref_args;
    for (uint32_t i = 0; i < callee->num_params; i++) {
        const char *param = p->types[callee->param_types[i]];
        char a[128], b[128];
        if (type_is_ref(param)) {
            const char *arg = c->rtypes[ref++];
            if (!assignable(arg, param))
                return fail(c, "call to native %s: argument %u is %s, not %s", callee->name, i + 1,
                            ref_name(arg, a, sizeof a), ref_name(param, b, sizeof b));
        } else {
            uint8_t want = (uint8_t)prog_native_value_letter(param[0]), arg = c->ptypes[prim++];
            if (arg != want)
                return fail(c, "call to native %s: argument %u is %s, not %s", callee->name, i + 1, prim_name(arg),
                            prim_name(want));
        }
    }
    c->pdepth -= callee->num_prim_args;
    c->rdepth -= callee->num_ref_args;
    const char *ret = p->types[callee->return_type];
    if (ret[0] == 'V') return true;
    return type_is_ref(ret) ? push_ref(c, ret) : push_prim(c, (uint8_t)prog_native_value_letter(ret[0]));
}

static bool check_return(CodeCheck *c) {
    const char *ret = c->p->types[c->m->return_type];
    char a[128], b[160];
    bool ok = c->op == OP_RET ? ret[0] == 'V' : c->op == OP_RETP ? !type_is_ref(ret) && ret[0] != 'V' : type_is_ref(ret);
    if (!ok)
        return fail(c, "%s in a method that returns %s (use %s)", op_name(c->op), ref_name(ret, a, sizeof a),
                    ret[0] == 'V' ? "RET" : type_is_ref(ret) ? "RETR" : "RETP");
    if (c->op == OP_RETP && c->ptypes[c->pdepth - 1] != (uint8_t)ret[0]) {
        snprintf(b, sizeof b, "%s (the return type)", prim_name((uint8_t)ret[0]));
        return prim_mismatch(c, b, 1);
    }
    if (c->op == OP_RETR && !assignable(c->rtypes[c->rdepth - 1], ret)) {
        snprintf(b, sizeof b, "%s (the return type)", ref_name(ret, a, sizeof a));
        return ref_mismatch(c, b, 1);
    }
    return true;
}

/* ---- joins ---------------------------------------------------------------------------- */

static void enqueue(CodeCheck *c, uint32_t join) {
    if (c->joins[join].queued) return;
    c->joins[join].queued = true;
    c->work[c->num_work++] = join;
}

/* Merges the current state into the join point at `target`. */
static bool merge(CodeCheck *c, uint32_t target) {
    JoinState *j = &c->joins[c->join_of[target]];
    char a[128], b[128];
    if (!j->reached) {
        c->stored_slots += (size_t)c->pdepth + c->rdepth;
        if (c->stored_slots > STATE_SLOT_BUDGET)
            return fail(c, "method too complex to verify: its join points hold more than %u stack slots",
                        STATE_SLOT_BUDGET);
        j->ptypes = malloc(c->pdepth ? c->pdepth : 1);
        j->rtypes = malloc((c->rdepth ? c->rdepth : 1) * sizeof *j->rtypes);
        if (!j->ptypes || !j->rtypes) return fail(c, "out of memory");
        memcpy(j->ptypes, c->ptypes, c->pdepth);
        memcpy(j->rtypes, c->rtypes, c->rdepth * sizeof *c->rtypes);
        j->pdepth = c->pdepth;
        j->rdepth = c->rdepth;
        j->reached = true;
        enqueue(c, c->join_of[target]);
        return true;
    }
    if (j->pdepth != c->pdepth)
        return fail(c, "primitive stack depth differs at join (pc %u): %u vs %u", target, c->pdepth, j->pdepth);
    if (j->rdepth != c->rdepth)
        return fail(c, "reference stack depth differs at join (pc %u): %u vs %u", target, c->rdepth, j->rdepth);
    for (uint32_t i = 0; i < c->pdepth; i++)
        if (j->ptypes[i] != c->ptypes[i])
            return fail(c, "primitive stack types differ at join (pc %u): %s vs %s in slot %u", target,
                        prim_name(c->ptypes[i]), prim_name(j->ptypes[i]), i);
    bool changed = false;
    for (uint32_t i = 0; i < c->rdepth; i++) {
        const char *here = c->rtypes[i], *there = j->rtypes[i];
        if (here == NULL || (there != NULL && strcmp(here, there) == 0)) continue;
        if (there != NULL)
            return fail(c, "reference stack types differ at join (pc %u): %s vs %s in slot %u", target,
                        ref_name(here, a, sizeof a), ref_name(there, b, sizeof b), i);
        j->rtypes[i] = here; /* null joined with T is T */
        changed = true;
    }
    if (changed) enqueue(c, c->join_of[target]);
    return true;
}

/* ---- one instruction ----------------------------------------------------------------- */

/* Checks the instruction at c->pc and turns the state into the state after
 * it; merges into its jump target, if any.  *ends is set when execution
 * cannot continue to the next instruction. */
static bool step(CodeCheck *c, bool *ends) {
    const OpInfo *info = &op_info[c->op];
    const OpTypes *types = &verify_op_types[c->op];
    *ends = false;
    if (info->ppop != VAR && !need_depths(c, (uint32_t)info->ppop, (uint32_t)info->rpop)) return false;
    bool ok;
    switch (c->op) {
    case OP_PLOAD: case OP_PSTORE: case OP_IINC: case OP_RLOAD: case OP_RSTORE: case OP_PDUP: case OP_RDUP:
        ok = check_local(c);
        break;
    case OP_NEW: case OP_GETFP: case OP_PUTFP: case OP_GETFR: case OP_PUTFR:
    case OP_GETSP: case OP_PUTSP: case OP_GETSR: case OP_PUTSR:
        ok = check_object(c);
        break;
    case OP_NEWARR: case OP_ALEN:
    case OP_AGETZ: case OP_AGETB: case OP_AGETC: case OP_AGETS: case OP_AGETI: case OP_AGETJ: case OP_AGETF:
    case OP_AGETD: case OP_AGETR:
    case OP_APUTZ: case OP_APUTB: case OP_APUTC: case OP_APUTS: case OP_APUTI: case OP_APUTJ: case OP_APUTF:
    case OP_APUTD: case OP_APUTR:
        ok = check_array(c);
        break;
    case OP_CALL: case OP_START:
        ok = check_call(c);
        break;
    case OP_CALLN:
        ok = check_native_call(c);
        break;
    case OP_RET: case OP_RETP: case OP_RETR:
        ok = check_return(c);
        *ends = true;
        break;
    default:
        ok = check_plain_operand(c) && check_fixed(c, types);
        break;
    }
    if (!ok) return false;
    switch (c->op) {
    case OP_JMP:
        *ends = true;
        return merge(c, (uint32_t)jump_target(c));
    case OP_JT: case OP_JF:
        return merge(c, (uint32_t)jump_target(c));
    case OP_EXIT:
        *ends = true;
        return true;
    default:
        return true;
    }
}

/* ---- passes 1 and 2 ------------------------------------------------------------------- */

static bool decode(CodeCheck *c) {
    const ProgMethod *m = c->m;
    for (c->pc = 0; c->pc < m->code_len; c->pc += op_size(c->op)) {
        c->op = m->code[c->pc];
        if (!op_info[c->op].name) return fail(c, "unknown opcode 0x%02x", c->op);
        if (op_size(c->op) > m->code_len - c->pc)
            return fail(c, "the operand of %s runs past the end of the code", op_name(c->op));
        c->flags[c->pc] = IS_START;
    }
    return true;
}

static bool find_targets(CodeCheck *c) {
    const ProgMethod *m = c->m;
    for (c->pc = 0; c->pc < m->code_len; c->pc += op_size(c->op)) {
        c->op = m->code[c->pc];
        if (op_info[c->op].operand != OPND_JUMP) continue;
        int64_t target = jump_target(c);
        if (target < 0 || target >= (int64_t)m->code_len)
            return fail(c, "jump target %lld is outside the method (code is %u bytes)", (long long)target, m->code_len);
        if (!(c->flags[target] & IS_START))
            return fail(c, "jump target %lld is not an instruction start", (long long)target);
        c->flags[target] |= IS_TARGET;
    }
    for (uint32_t i = 0; i < m->num_lines; i++) {
        c->pc = m->lines[i].pc;
        if (!(c->flags[c->pc] & IS_START))
            return fail(c, "line table entry for line %u is at pc %u, which is not an instruction start", m->lines[i].line,
                        c->pc);
    }
    c->flags[0] |= IS_TARGET; /* the method's entry is a join point too */
    for (uint32_t pc = 0; pc < m->code_len; pc++)
        if (c->flags[pc] & IS_TARGET) c->num_joins++;
    c->joins = calloc(c->num_joins, sizeof *c->joins);
    c->work = malloc(c->num_joins * sizeof *c->work);
    if (!c->joins || !c->work) return fail(c, "out of memory");
    uint32_t j = 0;
    for (uint32_t pc = 0; pc < m->code_len; pc++) {
        if (!(c->flags[pc] & IS_TARGET)) continue;
        c->joins[j].pc = pc;
        c->join_of[pc] = j++;
    }
    return true;
}

/* ---- pass 3 --------------------------------------------------------------------------- */

static bool flow(CodeCheck *c) {
    const ProgMethod *m = c->m;
    c->pc = 0;
    c->pdepth = c->rdepth = 0;
    if (!merge(c, 0)) return false;
    while (c->num_work > 0) {
        JoinState *j = &c->joins[c->work[--c->num_work]];
        j->queued = false;
        c->pdepth = j->pdepth;
        c->rdepth = j->rdepth;
        memcpy(c->ptypes, j->ptypes, j->pdepth);
        memcpy(c->rtypes, j->rtypes, j->rdepth * sizeof *c->rtypes);
        for (c->pc = j->pc;;) {
            c->op = m->code[c->pc];
            bool ends;
            if (!step(c, &ends)) return false;
            if (ends) break;
            uint32_t next = c->pc + op_size(c->op);
            if (next >= m->code_len) return fail(c, "execution falls off the end of the code after %s", op_name(c->op));
            if (c->flags[next] & IS_TARGET) {
                if (!merge(c, next)) return false;
                break;
            }
            c->pc = next;
        }
    }
    return true;
}

bool verify_method_code(const Verifier *v, uint32_t method) {
    const ProgMethod *m = &v->p->methods[method];
    CodeCheck c = {.v = v, .p = v->p, .m = m, .mi = method};
    c.flags = calloc(m->code_len, 1);
    c.join_of = malloc(m->code_len * sizeof *c.join_of);
    c.ptypes = malloc(m->max_pstack + 1);
    c.rtypes = malloc((m->max_rstack + 1) * sizeof *c.rtypes);
    bool ok = c.flags && c.join_of && c.ptypes && c.rtypes ? decode(&c) && find_targets(&c) && flow(&c)
                                                           : fail(&c, "out of memory");
    for (uint32_t j = 0; j < c.num_joins && c.joins; j++) {
        free(c.joins[j].ptypes);
        free(c.joins[j].rtypes);
    }
    free(c.joins);
    free(c.work);
    free(c.flags);
    free(c.join_of);
    free(c.ptypes);
    free(c.rtypes);
    return ok;
}
