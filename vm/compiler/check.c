/*
 * check.c -- resolving names and checking types (check.h).
 *
 * Two passes over the module:
 *
 *   1. Declarations.  Every class, field and method is entered and given its
 *      index in the Program (classes: the module class first, then declared
 *      classes in order; fields, statics and methods in source order, class
 *      by class), and every declared type is resolved.  Because this pass
 *      finishes before any body is checked, every name is visible everywhere
 *      in the file (docs/language.md "Declarations").
 *
 *   2. Bodies.  Each method body is checked statement by statement.  Locals
 *      are kept as a chain of LocalDecls, innermost first; a block remembers
 *      where the chain stood when it began and cuts it back when it ends.
 *      Expressions are typed bottom-up, name nodes are rewritten into what
 *      they resolved to, and operands that need a conversion are wrapped in
 *      EX_CONVERT nodes, so the code generator does no analysis of its own.
 *
 * A bare name resolves (docs/language.md "Declarations"): a local, then a
 * field or method of the current class (instance members only inside
 * instance methods), then a static member of the current class, then a
 * global or function of the module, then a class name (only as the left of
 * `C.f` or `C.f(...)`).  Built-in functions come last of all, so a function
 * declared in the file may reuse a built-in's name.
 */
#include "check.h"

#include <string.h>

#include "vm/opcodes.h"

typedef struct Checker {
    Session *s;
    Module *m;
    Types *types;
    ClassDecl *module;       /* the implicit class of top-level declarations */
    ClassDecl *cls;          /* the class whose method is being checked */
    MethodDecl *method;      /* the method being checked */
    LocalDecl *visible;      /* innermost visible local; older ones via ->shadowed */
    LocalDecl *scope_start;  /* `visible` when the current block began */
    uint32_t loop_depth;
} Checker;

/* ---- lookups ---------------------------------------------------------------- */

static ClassDecl *find_class(const Checker *c, const char *name) {
    for (ClassDecl *cls = c->m->classes; cls; cls = cls->next)
        if (strcmp(cls->name, name) == 0) return cls;
    return NULL;
}

static FieldDecl *find_field(const ClassDecl *cls, const char *name) {
    for (FieldDecl *f = cls->fields; f; f = f->next)
        if (strcmp(f->name, name) == 0) return f;
    return NULL;
}

static MethodDecl *find_method(const ClassDecl *cls, const char *name) {
    for (MethodDecl *md = cls->methods; md; md = md->next)
        if (strcmp(md->name, name) == 0) return md;
    return NULL;
}

static MethodDecl *find_native(const Module *m, const char *name) {
    for (MethodDecl *md = m->natives; md; md = md->next)
        if (strcmp(md->name, name) == 0) return md;
    return NULL;
}

static LocalDecl *find_local(const Checker *c, const char *name) {
    for (LocalDecl *l = c->visible; l; l = l->shadowed)
        if (strcmp(l->name, name) == 0) return l;
    return NULL;
}

/* ---- declarations ------------------------------------------------------------ */

typedef enum TypeUse { USE_VARIABLE, USE_RESULT, USE_ELEMENT } TypeUse;

/* The type `ref` names.  Variables (fields, parameters, locals) may not be
 * void or narrow; results may be void; `new T[n]` may name a narrow T. */
static Type *resolve_type(Checker *c, const TypeRef *ref, TypeUse use) {
    Types *ty = c->types;
    Type *t;
    switch (ref->base) {
    case TOK_INT: t = ty->int_; break;
    case TOK_DOUBLE: t = ty->double_; break;
    case TOK_BOOL: t = ty->bool_; break;
    case TOK_STRING: t = ty->string; break;
    case TOK_VOID: t = ty->void_; break;
    case TOK_BYTE: t = ty->byte; break;
    case TOK_CHAR: t = ty->char_; break;
    case TOK_SHORT: t = ty->short_; break;
    case TOK_INT32: t = ty->int32; break;
    case TOK_FLOAT: t = ty->float_; break;
    default: {
        if (strcmp(ref->class_name, "Thread") == 0) {
            t = ty->thread;
            break;
        }
        ClassDecl *cls = find_class(c, ref->class_name);
        if (!cls) session_error(c->s, ref->pos, "unknown class '%s'", ref->class_name);
        t = &cls->type;
        break;
    }
    }
    if (t->kind == TY_VOID && (ref->dims > 0 || use != USE_RESULT))
        session_error(c->s, ref->pos, "'void' is only for function results");
    if (type_is_narrow(t) && ref->dims == 0 && use != USE_ELEMENT)
        session_error(c->s, ref->pos, "'%s' is only for array elements (%s[])", t->name, t->name);
    for (uint32_t i = 0; i < ref->dims; i++) t = type_array_of(c->s, t);
    return t;
}

static void declare_classes(Checker *c) {
    ClassDecl *module = c->module;
    const char *name = module->name;
    /* The module's name comes from the path, not from the source: it must
     * still make a well-formed descriptor "LName;" (program.h). */
    SrcPos none = {0, 0};
    if (name[0] == '\0' || strpbrk(name, ";[") || strcmp(name, "String") == 0 || strcmp(name, "Thread") == 0)
        session_error(c->s, none, "the file name cannot name a class ('%s')", name);
    uint32_t index = 0;
    for (ClassDecl *cls = c->m->classes; cls; cls = cls->next) {
        if (index == MAX_U16_INDEXES) session_error(c->s, cls->pos, "too many classes");
        if (!cls->is_module) {
            if (strcmp(cls->name, module->name) == 0)
                session_error(c->s, cls->pos, "class '%s' has the same name as the file's own class", cls->name);
            /* "LString;" is the descriptor of the string type (program.h). */
            if (strcmp(cls->name, "String") == 0)
                session_error(c->s, cls->pos, "the class name 'String' is reserved for strings");
            if (strcmp(cls->name, "Thread") == 0)
                session_error(c->s, cls->pos, "the class name 'Thread' is reserved for threads");
            for (ClassDecl *earlier = c->m->classes; earlier != cls; earlier = earlier->next)
                if (strcmp(earlier->name, cls->name) == 0)
                    session_error(c->s, cls->pos, "duplicate class '%s'", cls->name);
        }
        cls->index = index++;
        type_init_class(c->s, &cls->type, cls, cls->name);
    }
}

static bool pos_before(SrcPos a, SrcPos b) { return a.line < b.line || (a.line == b.line && a.col < b.col); }

/* Fields and methods share one namespace per class (no overloading); the
 * later of two declarations is the error. */
static void check_member_name(Checker *c, ClassDecl *cls, const char *name, SrcPos pos) {
    FieldDecl *f = find_field(cls, name);
    MethodDecl *md = find_method(cls, name);
    if ((f && pos_before(f->pos, pos)) || (md && pos_before(md->pos, pos))) {
        if (cls->is_module) session_error(c->s, pos, "'%s' is already declared", name);
        session_error(c->s, pos, "'%s' is already declared in class %s", name, cls->name);
    }
}

static uint32_t next_index(Checker *c, uint32_t *counter, SrcPos pos, const char *what) {
    if (*counter == MAX_U16_INDEXES) session_error(c->s, pos, "too many %s", what);
    return (*counter)++;
}

static void declare_members(Checker *c) {
    Module *m = c->m;
    for (ClassDecl *cls = m->classes; cls; cls = cls->next) {
        for (FieldDecl *f = cls->fields; f; f = f->next) {
            check_member_name(c, cls, f->name, f->pos);
            f->type = resolve_type(c, &f->type_ref, USE_VARIABLE);
            f->index = f->is_static ? next_index(c, &m->num_statics, f->pos, "static fields and globals")
                                    : next_index(c, &m->num_fields, f->pos, "fields");
        }
        for (MethodDecl *md = cls->methods; md; md = md->next) {
            check_member_name(c, cls, md->name, md->pos);
            md->result = resolve_type(c, &md->result_ref, USE_RESULT);
            for (Param *p = md->params; p; p = p->next) p->local->type = resolve_type(c, &p->type_ref, USE_VARIABLE);
            md->index = next_index(c, &m->num_methods, md->pos, "methods");
        }
    }
}

/* ---- natives (docs/language.md "Native functions") ------------------------------------ */

/* The C type a native's parameter or result is declared with: a number,
 * bool, string or (parameters only) a one-level array of numbers or bools;
 * the narrow kinds (int32, float, ...) name C's widths.  A native that
 * takes the env may also take and return objects, as handles. */
static Type *resolve_native_type(Checker *c, const TypeRef *ref, bool result, bool takes_env) {
    Type *t = resolve_type(c, ref, result && ref->base == TOK_VOID ? USE_RESULT : USE_ELEMENT);
    if (t->kind == TY_CLASS && !takes_env)
        session_error(c->s, ref->pos, "only a 'native env' function can be given or return objects (%s)", t->name);
    bool scalar = t->kind != TY_ARRAY;
    bool array = t->kind == TY_ARRAY && t->elem->kind != TY_CLASS && t->elem->kind != TY_ARRAY &&
                 t->elem->kind != TY_STRING;
    if (result && t->kind == TY_ARRAY)
        session_error(c->s, ref->pos, "a native function cannot return an array (C gives no length)");
    if (!scalar && !array)
        session_error(c->s, ref->pos, "C can be passed only numbers, bools, strings and arrays of numbers or bools, not %s",
                      t->name);
    return t;
}

/* Natives are top-level functions of the module, numbered in Program.natives. */
static void declare_natives(Checker *c) {
    Module *m = c->m;
    uint32_t index = 0;
    for (MethodDecl *md = m->natives; md; md = md->next) {
        if (find_field(c->module, md->name) || find_method(c->module, md->name) || find_native(m, md->name) != md)
            session_error(c->s, md->pos, "'%s' is already declared", md->name);
        md->c_result = resolve_native_type(c, &md->result_ref, true, md->native_takes_env);
        md->result = type_element_value(c->types, md->c_result);
        for (Param *p = md->params; p; p = p->next) {
            p->c_type = resolve_native_type(c, &p->type_ref, false, md->native_takes_env);
            p->local->type = type_element_value(c->types, p->c_type);
        }
        md->index = next_index(c, &index, md->pos, "native functions");
    }
}

/* docs/language.md: void main(), int main(), void main(string[] args), int main(string[] args). */
static void find_main(Checker *c) {
    MethodDecl *main_fn = find_method(c->module, "main");
    if (!main_fn) {
        SrcPos start = {1, 1};
        session_error(c->s, start, "no function 'main'");
    }
    Types *ty = c->types;
    bool result_ok = main_fn->result == ty->void_ || main_fn->result == ty->int_;
    bool params_ok = main_fn->num_params == 0 ||
                     (main_fn->num_params == 1 && main_fn->params->local->type == type_array_of(c->s, ty->string));
    if (!result_ok || !params_ok)
        session_error(c->s, main_fn->pos,
                      "main must be declared as void main(), int main(), void main(string[] args) or int main(string[] args)");
    c->m->main = main_fn;
}

/* ---- locals and scopes --------------------------------------------------------- */

static void add_local_type(Checker *c, LocalTypes *locals, Type *t, SrcPos pos) {
    if (locals->count == MAX_U16_INDEXES) session_error(c->s, pos, "too many local variables in '%s'", c->method->name);
    if (locals->count == locals->capacity) {
        uint32_t cap = locals->capacity ? locals->capacity * 2 : 8;
        Type **bigger = session_alloc(c->s, (size_t)cap * sizeof *bigger);
        if (locals->count) memcpy(bigger, locals->types, (size_t)locals->count * sizeof *bigger);
        locals->types = bigger;
        locals->capacity = cap;
    }
    locals->types[locals->count++] = t;
}

/* Gives l the next slot of its kind and makes it visible. */
static void declare_local(Checker *c, LocalDecl *l, Type *t) {
    for (LocalDecl *v = c->visible; v != c->scope_start; v = v->shadowed)
        if (strcmp(v->name, l->name) == 0)
            session_error(c->s, l->pos, "'%s' is already declared in this scope", l->name);
    LocalTypes *locals = type_is_reference(t) ? &c->method->ref_locals : &c->method->prim_locals;
    l->type = t;
    l->slot = locals->count;
    add_local_type(c, locals, t, l->pos);
    l->shadowed = c->visible;
    c->visible = l;
}

typedef struct Scope {
    LocalDecl *visible, *scope_start;
} Scope;

static Scope open_scope(Checker *c) {
    Scope saved = {c->visible, c->scope_start};
    c->scope_start = c->visible;
    return saved;
}

static void close_scope(Checker *c, Scope saved) {
    c->visible = saved.visible;
    c->scope_start = saved.scope_start;
}

/* ---- expressions ------------------------------------------------------------- */

static Type *check_expr(Checker *c, Expr *e);

/* Wraps *slot in a conversion node: I2D, I2S, D2S or Z2S. */
static void wrap_convert(Checker *c, Expr **slot, Opcode opcode, Type *to) {
    Expr *operand = *slot;
    Expr *conv = session_alloc(c->s, sizeof *conv);
    conv->kind = EX_CONVERT;
    conv->pos = operand->pos;
    conv->height = operand->height + 1;
    conv->type = to;
    conv->u.convert.opcode = (uint8_t)opcode;
    conv->u.convert.operand = operand;
    /* The conversion takes the operand's place in an argument list. */
    conv->next = operand->next;
    operand->next = NULL;
    *slot = conv;
}

/* Makes *slot's value fit `to` where docs/language.md allows it: the same type,
 * an int where a double is expected, null where a reference is expected. */
static bool coerce(Checker *c, Expr **slot, Type *to) {
    Type *from = (*slot)->type;
    if (from == to) return true;
    if (to->kind == TY_DOUBLE && from->kind == TY_INT) {
        wrap_convert(c, slot, OP_I2D, c->types->double_);
        return true;
    }
    return from->kind == TY_NULL && type_is_reference(to);
}

/* A name for an expression that is a call, for "returns no value". */
static const char *call_name(const Expr *e) {
    if (e->kind == EX_CALL) return e->u.call.name;
    if (e->kind == EX_BUILTIN) return e->u.builtin.name;
    return NULL;
}

/* Checks e where a value is needed (not a void call). */
static Type *check_value(Checker *c, Expr *e) {
    Type *t = check_expr(c, e);
    if (t->kind == TY_VOID) session_error(c->s, e->pos, "'%s' returns no value", call_name(e));
    return t;
}

static Expr *make_this(Checker *c, SrcPos pos) {
    Expr *e = session_alloc(c->s, sizeof *e);
    e->kind = EX_THIS;
    e->pos = pos;
    e->height = 1;
    e->type = &c->cls->type;
    return e;
}

/* What a bare name means as a variable. */
typedef struct VarLookup {
    LocalDecl *local;
    FieldDecl *field;           /* an instance field of this class, or a static/global */
    bool skipped_instance;      /* an instance field was hidden by a static context */
} VarLookup;

static bool lookup_variable(const Checker *c, const char *name, VarLookup *out) {
    memset(out, 0, sizeof *out);
    if ((out->local = find_local(c, name))) return true;
    FieldDecl *f = find_field(c->cls, name);
    if (f && !f->is_static && c->method->is_static) {
        out->skipped_instance = true;
        f = NULL;
    }
    if (!f && !c->cls->is_module) f = find_field(c->module, name);
    out->field = f;
    return f != NULL;
}

static void check_name(Checker *c, Expr *e) {
    const char *name = e->u.name;
    VarLookup v;
    if (lookup_variable(c, name, &v)) {
        if (v.local) {
            e->kind = EX_LOCAL;
            e->u.local = v.local;
        } else if (v.field->is_static) {
            e->kind = EX_STATIC;
            e->u.static_field = v.field;
        } else {
            e->kind = EX_FIELD;
            e->u.field.object = make_this(c, e->pos);
            e->u.field.field = v.field;
        }
        e->type = v.local ? v.local->type : v.field->type;
        return;
    }
    if (v.skipped_instance)
        session_error(c->s, e->pos, "cannot use instance field '%s' in a static function", name);
    if (find_class(c, name)) session_error(c->s, e->pos, "'%s' is a class, not a value", name);
    if (find_method(c->cls, name) || find_method(c->module, name))
        session_error(c->s, e->pos, "'%s' is a function: call it as %s(...)", name, name);
    session_error(c->s, e->pos, "undefined variable '%s'", name);
}

/* The class `C` when `object` in `C.f` or `C.f(...)` names a class rather
 * than a variable (variables win: they come first in the resolution order). */
static ClassDecl *qualifier_class(const Checker *c, const Expr *object) {
    if (object->kind != EX_NAME) return NULL;
    VarLookup v;
    if (lookup_variable(c, object->u.name, &v)) return NULL;
    return find_class(c, object->u.name);
}

static void check_member(Checker *c, Expr *e) {
    Expr *object = e->u.member.object;
    const char *name = e->u.member.name;
    SrcPos at = e->u.member.name_pos;
    ClassDecl *qc = qualifier_class(c, object);
    if (qc) {
        FieldDecl *f = find_field(qc, name);
        if (!f) session_error(c->s, at, "class %s has no field '%s'", qc->name, name);
        if (!f->is_static)
            session_error(c->s, at, "'%s' is an instance field of %s: it needs an object, not the class", name, qc->name);
        e->kind = EX_STATIC;
        e->u.static_field = f;
        e->type = f->type;
        return;
    }
    Type *t = check_value(c, object);
    if (t->kind != TY_CLASS) session_error(c->s, at, "cannot access field '%s' of type %s", name, t->name);
    FieldDecl *f = find_field(t->cls, name);
    if (!f) session_error(c->s, at, "class %s has no field '%s'", t->name, name);
    if (f->is_static) session_error(c->s, at, "'%s' is a static field: use %s.%s", name, t->name, name);
    e->kind = EX_FIELD;
    e->u.field.object = object;
    e->u.field.field = f;
    e->type = f->type;
}

static void check_arg_count(Checker *c, SrcPos at, const char *name, uint32_t expected, uint32_t got) {
    if (expected != got)
        session_error(c->s, at, "wrong argument count for '%s': expected %u, got %u", name, expected, got);
}

/* Checks each argument against a parameter type. */
static void check_arg(Checker *c, Expr **slot, uint32_t position, const char *callee, Type *param) {
    Type *t = check_value(c, *slot);
    if (!coerce(c, slot, param))
        session_error(c->s, (*slot)->pos, "type mismatch: argument %u of '%s' must be %s, not %s",
                      position, callee, param->name, t->name);
}

/* ---- built-in functions (docs/language.md "Built-in functions") ---- */

static const struct {
    const char *name;
    Builtin which;
} builtin_names[] = {
    {"print", BI_PRINT}, {"println", BI_PRINTLN}, {"len", BI_LEN}, {"charAt", BI_CHARAT},
    {"substr", BI_SUBSTR}, {"chr", BI_CHR}, {"parseInt", BI_PARSEINT}, {"str", BI_STR},
    {"toInt", BI_TOINT}, {"toDouble", BI_TODOUBLE}, {"exit", BI_EXIT},
    {"start", BI_START}, {"join", BI_JOIN}, {"sleep", BI_SLEEP}, {"wait", BI_WAIT}, {"notify", BI_NOTIFY},
    {"notifyAll", BI_NOTIFYALL},
    {"interrupt", BI_INTERRUPT}, {"interrupted", BI_INTERRUPTED},
};

static bool find_builtin(const char *name, Builtin *which) {
    for (size_t i = 0; i < sizeof builtin_names / sizeof builtin_names[0]; i++) {
        if (strcmp(builtin_names[i].name, name) == 0) {
            *which = builtin_names[i].which;
            return true;
        }
    }
    return false;
}

/* Checks the one argument of print, println, len or str against the kinds
 * it accepts. */
static void check_open_arg(Checker *c, Expr *arg, const char *callee, bool (*accepts)(const Type *),
                           const char *wanted) {
    Type *t = check_value(c, arg);
    if (!accepts(t))
        session_error(c->s, arg->pos, "type mismatch: %s takes %s, not %s", callee, wanted, t->name);
}

static bool printable(const Type *t) {
    return t->kind == TY_INT || t->kind == TY_DOUBLE || t->kind == TY_BOOL || t->kind == TY_STRING ||
           t->kind == TY_NULL;
}
static bool has_length(const Type *t) { return t->kind == TY_STRING || t->kind == TY_ARRAY; }
static bool stringable(const Type *t) { return t->kind == TY_INT || t->kind == TY_DOUBLE || t->kind == TY_BOOL; }

/* Converts an operand of string concatenation, or the argument of str(), to
 * a string. */
static bool stringify(Checker *c, Expr **slot, const Type *t) {
    static const Opcode to_string[] = {[TY_INT] = OP_I2S, [TY_DOUBLE] = OP_D2S, [TY_BOOL] = OP_Z2S};
    if (t->kind == TY_STRING || t->kind == TY_NULL) return true;
    if (!stringable(t)) return false;
    if (slot) wrap_convert(c, slot, to_string[t->kind], c->types->string);
    return true;
}

static void check_call(Checker *c, Expr *e);

/* What a monitor can be: a value that is an object (not null itself). */
static bool type_is_reference_value(const Type *t) { return type_is_reference(t) && t->kind != TY_NULL; }

/* start(call) or start(call, name): the call runs in a new thread.  It must
 * name a function or method of the program, not a built-in; its result,
 * if any, is dropped.  The name is a string. */
static void check_start(Checker *c, Expr *e, SrcPos at, uint32_t n) {
    Expr *call = e->u.builtin.args;
    if (n != 1 && n != 2) session_error(c->s, at, "wrong argument count for 'start': expected 1 or 2, got %u", n);
    if (call->kind != EX_CALL) session_error(c->s, call->pos, "start takes a call of a function or method");
    Expr *name = call->next;
    call->next = NULL; /* the call's own checking may replace the node's list links */
    check_call(c, call);
    if (call->kind != EX_CALL)
        session_error(c->s, call->pos, "start cannot run built-in function '%s'", call->u.builtin.name);
    if (call->u.call.method->native_library)
        session_error(c->s, call->pos, "start cannot run native function '%s'", call->u.call.method->name);
    call->next = name;
    if (name) check_arg(c, &call->next, 2, "start", c->types->string);
    e->type = c->types->thread;
}

static void check_builtin(Checker *c, Expr *e, Builtin which) {
    const char *name = e->u.call.name;
    SrcPos at = e->u.call.name_pos;
    Expr *args = e->u.call.args;
    uint32_t n = e->u.call.num_args;
    e->kind = EX_BUILTIN;
    e->u.builtin.which = which;
    e->u.builtin.name = name;
    e->u.builtin.args = args;
    Types *ty = c->types;
    /* Fixed signatures: parameter types, then the result. */
    Type *params[3] = {NULL, NULL, NULL};
    uint32_t num_params = 0;
    switch (which) {
    case BI_PRINT:
    case BI_PRINTLN:
        if (which == BI_PRINTLN && n == 0) {
            e->type = ty->void_;
            return;
        }
        if (n != 1) {
            if (which == BI_PRINTLN)
                session_error(c->s, at, "wrong argument count for 'println': expected 0 or 1, got %u", n);
            check_arg_count(c, at, name, 1, n);
        }
        check_open_arg(c, args, name, printable, "an int, double, bool or string");
        e->type = ty->void_;
        return;
    case BI_LEN:
        check_arg_count(c, at, name, 1, n);
        check_open_arg(c, args, name, has_length, "a string or an array");
        e->type = ty->int_;
        return;
    case BI_START:
        check_start(c, e, at, n);
        return;
    case BI_WAIT:
        /* wait(o) waits with no timeout: codegen passes 0 milliseconds. */
        if (n != 1 && n != 2) session_error(c->s, at, "wrong argument count for 'wait': expected 1 or 2, got %u", n);
        check_open_arg(c, args, name, type_is_reference_value, "an object, array, string or thread");
        if (n == 2) check_arg(c, &args->next, 2, name, ty->int_);
        e->type = ty->void_;
        return;
    case BI_NOTIFY:
    case BI_NOTIFYALL:
        check_arg_count(c, at, name, 1, n);
        check_open_arg(c, args, name, type_is_reference_value, "an object, array, string or thread");
        e->type = ty->void_;
        return;
    case BI_STR:
        check_arg_count(c, at, name, 1, n);
        check_open_arg(c, args, name, stringable, "an int, double or bool");
        stringify(c, &e->u.builtin.args, args->type);   /* the conversion is all str() does */
        e->type = ty->string;
        return;
    case BI_CHARAT: params[0] = ty->string; params[1] = ty->int_; num_params = 2; e->type = ty->int_; break;
    case BI_SUBSTR:
        params[0] = ty->string; params[1] = ty->int_; params[2] = ty->int_; num_params = 3;
        e->type = ty->string;
        break;
    case BI_CHR: params[0] = ty->int_; num_params = 1; e->type = ty->string; break;
    case BI_PARSEINT: params[0] = ty->string; num_params = 1; e->type = ty->int_; break;
    case BI_TOINT: params[0] = ty->double_; num_params = 1; e->type = ty->int_; break;
    case BI_TODOUBLE: params[0] = ty->int_; num_params = 1; e->type = ty->double_; break;
    case BI_EXIT: params[0] = ty->int_; num_params = 1; e->type = ty->void_; break;
    case BI_JOIN: params[0] = ty->thread; num_params = 1; e->type = ty->void_; break;
    case BI_SLEEP: params[0] = ty->int_; num_params = 1; e->type = ty->void_; break;
    case BI_INTERRUPT: params[0] = ty->thread; num_params = 1; e->type = ty->void_; break;
    case BI_INTERRUPTED: e->type = ty->bool_; break;
    default: break; /* handled above */
    }
    check_arg_count(c, at, name, num_params, n);
    Expr **slot = &e->u.builtin.args;
    for (uint32_t i = 0; i < n; i++, slot = &(*slot)->next) check_arg(c, slot, i + 1, name, params[i]);
}

/* name(args), object.name(args) or Class.name(args). */
static void check_call(Checker *c, Expr *e) {
    const char *name = e->u.call.name;
    SrcPos at = e->u.call.name_pos;
    Expr *object = e->u.call.object;
    MethodDecl *md;
    Expr *receiver = NULL;
    if (!object) {
        /* The same order as for variables: an instance method is skipped
         * inside a static function. */
        md = find_method(c->cls, name);
        bool skipped_instance = md && !md->is_static && c->method->is_static;
        if (skipped_instance) md = NULL;
        if (md && !md->is_static) receiver = make_this(c, e->pos);
        if (!md && !c->cls->is_module) md = find_method(c->module, name);
        if (!md) md = find_native(c->m, name);
        if (!md) {
            Builtin which;
            if (skipped_instance)
                session_error(c->s, at, "cannot call instance method '%s' from a static function", name);
            if (find_builtin(name, &which)) {
                check_builtin(c, e, which);
                return;
            }
            session_error(c->s, at, "undefined function '%s'", name);
        }
    } else {
        ClassDecl *qc = qualifier_class(c, object);
        if (qc) {
            md = find_method(qc, name);
            if (!md) session_error(c->s, at, "class %s has no method '%s'", qc->name, name);
            if (!md->is_static)
                session_error(c->s, at, "cannot call instance method '%s' without an object", name);
        } else {
            Type *t = check_value(c, object);
            if (t->kind != TY_CLASS) session_error(c->s, at, "cannot call method '%s' on type %s", name, t->name);
            md = find_method(t->cls, name);
            if (!md) session_error(c->s, at, "class %s has no method '%s'", t->name, name);
            if (md->is_static)
                session_error(c->s, at, "'%s' is static: call it as %s.%s(...)", name, t->name, name);
            receiver = object;
        }
    }
    check_arg_count(c, at, name, md->num_params, e->u.call.num_args);
    Expr **slot = &e->u.call.args;
    uint32_t position = 1;
    for (Param *p = md->params; p; p = p->next, slot = &(*slot)->next)
        check_arg(c, slot, position++, name, p->local->type);
    e->u.call.object = receiver;
    e->u.call.method = md;
    e->type = md->result;
}

static _Noreturn void operator_error(Checker *c, SrcPos at, TokenKind op, const Type *l, const Type *r) {
    session_error(c->s, at, "operator %s cannot be applied to %s and %s", token_spelling(op), l->name, r->name);
}

/* Types `left op right` (docs/language.md "Expressions") and inserts the
 * operands' conversions; returns the result type and sets *operand to the
 * type the operator works on.  left_slot is NULL for a compound assignment,
 * whose left operand (the target's old value) is never converted: if it
 * would need to be, the result cannot be stored back anyway.  `spelled` is
 * the operator as written (`+=` for a compound `+`). */
static Type *check_operator(Checker *c, TokenKind op, TokenKind spelled, SrcPos at, Expr **left_slot, Type *lt,
                            Expr **right_slot, Type *rt, Type **operand) {
    Types *ty = c->types;
    bool numeric = type_is_numeric(lt) && type_is_numeric(rt);
    bool both_int = lt->kind == TY_INT && rt->kind == TY_INT;
    switch (op) {
    case TOK_PLUS:
        if (lt->kind == TY_STRING || rt->kind == TY_STRING) {
            if (!stringify(c, left_slot, lt) || !stringify(c, right_slot, rt)) operator_error(c, at, spelled, lt, rt);
            *operand = ty->string;
            return ty->string;
        }
        /* fall through */
    case TOK_MINUS: case TOK_STAR: case TOK_SLASH:
    case TOK_LT: case TOK_LE: case TOK_GT: case TOK_GE:
        if (!numeric) operator_error(c, at, spelled, lt, rt);
        break;
    case TOK_PERCENT: case TOK_SHL: case TOK_SHR: case TOK_AMP: case TOK_CARET: case TOK_PIPE:
        if (!both_int) operator_error(c, at, spelled, lt, rt);
        break;
    case TOK_ANDAND: case TOK_OROR:
        if (lt->kind != TY_BOOL || rt->kind != TY_BOOL) operator_error(c, at, spelled, lt, rt);
        *operand = ty->bool_;
        return ty->bool_;
    case TOK_EQ: case TOK_NE:
        if (numeric) break;
        if (lt == rt && lt->kind != TY_VOID) {
            *operand = lt;   /* bool, string, a class or an array type, or null */
            return ty->bool_;
        }
        if ((lt->kind == TY_NULL && type_is_reference(rt)) || (rt->kind == TY_NULL && type_is_reference(lt))) {
            *operand = ty->null;   /* identity with null */
            return ty->bool_;
        }
        operator_error(c, at, spelled, lt, rt);
    default:
        operator_error(c, at, spelled, lt, rt);
    }
    /* Numeric: an int operand meets a double one by promotion. */
    if (both_int) {
        *operand = ty->int_;
    } else {
        if (lt->kind == TY_INT && left_slot) wrap_convert(c, left_slot, OP_I2D, ty->double_);
        if (rt->kind == TY_INT) wrap_convert(c, right_slot, OP_I2D, ty->double_);
        *operand = ty->double_;
    }
    bool comparison = op == TOK_LT || op == TOK_LE || op == TOK_GT || op == TOK_GE || op == TOK_EQ || op == TOK_NE;
    return comparison ? ty->bool_ : *operand;
}

static void check_binary(Checker *c, Expr *e) {
    Type *lt = check_value(c, e->u.binary.left);
    Type *rt = check_value(c, e->u.binary.right);
    e->type = check_operator(c, e->u.binary.op, e->u.binary.op, e->u.binary.op_pos, &e->u.binary.left, lt,
                             &e->u.binary.right, rt, &e->u.binary.operand);
}

static void check_unary(Checker *c, Expr *e) {
    Type *t = check_value(c, e->u.unary.operand);
    bool ok = e->u.unary.op == TOK_MINUS ? type_is_numeric(t) : t->kind == TY_BOOL;
    if (!ok) session_error(c->s, e->pos, "operator %s cannot be applied to %s", token_spelling(e->u.unary.op), t->name);
    e->type = t;
}

static void check_index(Checker *c, Expr *e) {
    Type *at = check_value(c, e->u.index.array);
    if (at->kind != TY_ARRAY) session_error(c->s, e->pos, "cannot index a value of type %s", at->name);
    Type *it = check_value(c, e->u.index.index);
    if (it->kind != TY_INT) session_error(c->s, e->u.index.index->pos, "array index must be int, not %s", it->name);
    e->type = type_element_value(c->types, at->elem);
}

static Type *check_expr(Checker *c, Expr *e) {
    Types *ty = c->types;
    switch (e->kind) {
    case EX_INT: e->type = ty->int_; break;
    case EX_DOUBLE: e->type = ty->double_; break;
    case EX_BOOL: e->type = ty->bool_; break;
    case EX_STRING: e->type = ty->string; break;
    case EX_NULL: e->type = ty->null; break;
    case EX_THIS:
        if (c->method->is_static) session_error(c->s, e->pos, "cannot use 'this' in a static function");
        e->type = &c->cls->type;
        break;
    case EX_NAME: check_name(c, e); break;
    case EX_MEMBER: check_member(c, e); break;
    case EX_CALL: check_call(c, e); break;
    case EX_INDEX: check_index(c, e); break;
    case EX_NEW_OBJECT: {
        const TypeRef *ref = &e->u.new_object.class_ref;
        ClassDecl *cls = find_class(c, ref->class_name);
        if (!cls) session_error(c->s, ref->pos, "unknown class '%s'", ref->class_name);
        e->u.new_object.cls = cls;
        e->type = &cls->type;
        break;
    }
    case EX_NEW_ARRAY: {
        Type *elem = resolve_type(c, &e->u.new_array.elem_ref, USE_ELEMENT);
        Type *lt = check_value(c, e->u.new_array.length);
        if (lt->kind != TY_INT)
            session_error(c->s, e->u.new_array.length->pos, "array length must be int, not %s", lt->name);
        e->type = type_array_of(c->s, elem);
        break;
    }
    case EX_UNARY: check_unary(c, e); break;
    case EX_BINARY: check_binary(c, e); break;
    case EX_LOCAL: case EX_FIELD: case EX_STATIC: case EX_BUILTIN: case EX_CONVERT:
        break;   /* produced by this pass, never checked twice */
    }
    return e->type;
}

/* ---- statements ------------------------------------------------------------- */

static void check_stmt(Checker *c, Stmt *s);

static void check_condition(Checker *c, Expr *cond) {
    Type *t = check_value(c, cond);
    if (t->kind != TY_BOOL) session_error(c->s, cond->pos, "condition must be bool, not %s", t->name);
}

/* A branch or loop body is a scope of its own even when it is not a block. */
static void check_nested(Checker *c, Stmt *s) {
    Scope saved = open_scope(c);
    check_stmt(c, s);
    close_scope(c, saved);
}

static void check_loop_body(Checker *c, Stmt *body) {
    c->loop_depth++;
    check_nested(c, body);
    c->loop_depth--;
}

static void check_var(Checker *c, Stmt *s) {
    LocalDecl *l = s->u.var.local;
    Type *t;
    if (s->u.var.type_ref.base == TOK_VAR) {
        t = check_value(c, s->u.var.init);
        if (t->kind == TY_NULL)
            session_error(c->s, s->u.var.init->pos, "cannot infer the type of '%s' from null", l->name);
    } else {
        t = resolve_type(c, &s->u.var.type_ref, USE_VARIABLE);
        if (s->u.var.init) {
            Type *it = check_value(c, s->u.var.init);
            if (!coerce(c, &s->u.var.init, t))
                session_error(c->s, s->u.var.init->pos, "type mismatch: cannot assign %s to %s", it->name, t->name);
        }
    }
    /* Declared after its initializer, so `int x = x;` does not see itself. */
    declare_local(c, l, t);
}

static TokenKind arithmetic_of(TokenKind assign_op) {
    switch (assign_op) {
    case TOK_PLUS_ASSIGN: case TOK_PLUSPLUS: return TOK_PLUS;
    case TOK_MINUS_ASSIGN: case TOK_MINUSMINUS: return TOK_MINUS;
    case TOK_STAR_ASSIGN: return TOK_STAR;
    case TOK_SLASH_ASSIGN: return TOK_SLASH;
    case TOK_PERCENT_ASSIGN: return TOK_PERCENT;
    default: return assign_op;
    }
}

static void check_assign(Checker *c, Stmt *s) {
    Expr *target = s->u.assign.target;
    TokenKind op = s->u.assign.op;
    if (target->kind != EX_NAME && target->kind != EX_MEMBER && target->kind != EX_INDEX)
        session_error(c->s, target->pos, "cannot assign to this expression");
    Type *tt = check_value(c, target);
    Type *vt = check_value(c, s->u.assign.value);
    if (op == TOK_ASSIGN) {
        if (!coerce(c, &s->u.assign.value, tt))
            session_error(c->s, s->u.assign.value->pos, "type mismatch: cannot assign %s to %s", vt->name, tt->name);
        return;
    }
    /* docs/language.md: ++ and -- work on ints only. */
    if ((op == TOK_PLUSPLUS || op == TOK_MINUSMINUS) && tt->kind != TY_INT)
        session_error(c->s, s->u.assign.op_pos, "operator %s cannot be applied to %s", token_spelling(op), tt->name);
    s->u.assign.arith = arithmetic_of(op);
    Type *result = check_operator(c, s->u.assign.arith, op, s->u.assign.op_pos, NULL, tt, &s->u.assign.value, vt,
                                  &s->u.assign.operand);
    if (result != tt)
        session_error(c->s, s->u.assign.value->pos, "type mismatch: cannot assign %s to %s", result->name, tt->name);
}

static void check_return(Checker *c, Stmt *s) {
    MethodDecl *md = c->method;
    Expr *value = s->u.ret.value;
    if (!value) {
        if (md->result->kind != TY_VOID)
            session_error(c->s, s->pos, "missing return value: function '%s' returns %s", md->name, md->result->name);
        return;
    }
    if (md->result->kind == TY_VOID)
        session_error(c->s, value->pos, "cannot return a value from void function '%s'", md->name);
    Type *t = check_value(c, value);
    if (!coerce(c, &s->u.ret.value, md->result))
        session_error(c->s, value->pos, "type mismatch: function '%s' returns %s, not %s", md->name,
                      md->result->name, t->name);
}

static void check_block(Checker *c, Stmt *block) {
    Scope saved = open_scope(c);
    for (Stmt *s = block->u.block.first; s; s = s->next) check_stmt(c, s);
    close_scope(c, saved);
}

static void check_stmt(Checker *c, Stmt *s) {
    switch (s->kind) {
    case ST_BLOCK: check_block(c, s); break;
    case ST_VAR: check_var(c, s); break;
    case ST_ASSIGN: check_assign(c, s); break;
    case ST_IF:
        check_condition(c, s->u.if_.cond);
        check_nested(c, s->u.if_.then_branch);
        if (s->u.if_.else_branch) check_nested(c, s->u.if_.else_branch);
        break;
    case ST_WHILE:
        check_condition(c, s->u.while_.cond);
        check_loop_body(c, s->u.while_.body);
        break;
    case ST_FOR: {
        Scope saved = open_scope(c);
        if (s->u.for_.init) check_stmt(c, s->u.for_.init);
        if (s->u.for_.cond) check_condition(c, s->u.for_.cond);
        if (s->u.for_.update) check_stmt(c, s->u.for_.update);
        check_loop_body(c, s->u.for_.body);
        close_scope(c, saved);
        break;
    }
    case ST_BREAK:
        if (c->loop_depth == 0) session_error(c->s, s->pos, "break outside loop");
        break;
    case ST_CONTINUE:
        if (c->loop_depth == 0) session_error(c->s, s->pos, "continue outside loop");
        break;
    case ST_RETURN: check_return(c, s); break;
    case ST_EXPR: check_expr(c, s->u.expr.expr); break;
    case ST_SYNCHRONIZED: {
        Type *t = check_value(c, s->u.sync.lock);
        if (!type_is_reference(t) || t->kind == TY_NULL)
            session_error(c->s, s->u.sync.lock->pos, "synchronized needs an object, array, string or thread, not %s",
                          t->name);
        s->u.sync.slot = c->method->ref_locals.count;
        add_local_type(c, &c->method->ref_locals, t, s->pos);
        check_nested(c, s->u.sync.body);
        break;
    }
    }
}

/* ---- "must return on every path" (docs/language.md "Statements") -------------------- */

/* Whether s contains a `break` that leaves the loop s belongs to (breaks
 * inside a nested loop leave that loop instead). */
static bool breaks_out(const Stmt *s) {
    switch (s->kind) {
    case ST_BREAK: return true;
    case ST_BLOCK:
        for (const Stmt *t = s->u.block.first; t; t = t->next)
            if (breaks_out(t)) return true;
        return false;
    case ST_IF:
        return breaks_out(s->u.if_.then_branch) || (s->u.if_.else_branch && breaks_out(s->u.if_.else_branch));
    case ST_SYNCHRONIZED:
        return breaks_out(s->u.sync.body);
    default:
        return false;
    }
}

/* A block returns if some statement in it does; an if/else if both branches
 * do; `while (true)` (or `for` with no condition or `true`) if it has no
 * break of its own. */
static bool definitely_returns(const Stmt *s) {
    switch (s->kind) {
    case ST_RETURN: return true;
    case ST_BLOCK:
        for (const Stmt *t = s->u.block.first; t; t = t->next)
            if (definitely_returns(t)) return true;
        return false;
    case ST_IF:
        return s->u.if_.else_branch && definitely_returns(s->u.if_.then_branch) &&
               definitely_returns(s->u.if_.else_branch);
    case ST_WHILE:
        return expr_is_true_literal(s->u.while_.cond) && !breaks_out(s->u.while_.body);
    case ST_FOR:
        return (!s->u.for_.cond || expr_is_true_literal(s->u.for_.cond)) && !breaks_out(s->u.for_.body);
    case ST_SYNCHRONIZED:
        return definitely_returns(s->u.sync.body);
    default:
        return false;
    }
}

/* ---- methods and the module ----------------------------------------------------- */

static void check_method(Checker *c, ClassDecl *cls, MethodDecl *md) {
    c->cls = cls;
    c->method = md;
    c->visible = c->scope_start = NULL;
    c->loop_depth = 0;
    if (!md->is_static) add_local_type(c, &md->ref_locals, &cls->type, md->pos);
    for (Param *p = md->params; p; p = p->next) declare_local(c, p->local, p->local->type);
    /* The parameters and the body's outermost locals share one scope. */
    for (Stmt *s = md->body->u.block.first; s; s = s->next) check_stmt(c, s);
    if (md->result->kind != TY_VOID && !definitely_returns(md->body))
        session_error(c->s, md->end_pos, "missing return in function '%s'", md->name);
}

void check_module(Session *s, Module *m) {
    Checker c = {.s = s, .m = m, .types = &m->types, .module = m->classes};
    types_init(s, &m->types);
    declare_classes(&c);
    declare_members(&c);
    declare_natives(&c);
    find_main(&c);
    for (ClassDecl *cls = m->classes; cls; cls = cls->next)
        for (MethodDecl *md = cls->methods; md; md = md->next) check_method(&c, cls, md);
}
