/*
 * types.c -- building and interning types (types.h).
 */
#include "types.h"

#include <stdio.h>
#include <string.h>

static Type *new_type(Session *s, TypeKind kind, const char *name, const char *descriptor) {
    Type *t = session_alloc(s, sizeof *t);
    t->kind = kind;
    t->name = name;
    t->descriptor = descriptor;
    t->prog_index = PROG_NONE;
    return t;
}

void types_init(Session *s, Types *types) {
    types->void_ = new_type(s, TY_VOID, "void", "V");
    types->int_ = new_type(s, TY_INT, "int", "J");
    types->double_ = new_type(s, TY_DOUBLE, "double", "D");
    types->bool_ = new_type(s, TY_BOOL, "bool", "Z");
    types->string = new_type(s, TY_STRING, "string", "LString;");
    /* null is never stored in a typed slot, so its descriptor is never used. */
    types->null = new_type(s, TY_NULL, "null", "LString;");
    types->byte = new_type(s, TY_BYTE, "byte", "B");
    types->char_ = new_type(s, TY_CHAR, "char", "C");
    types->short_ = new_type(s, TY_SHORT, "short", "S");
    types->int32 = new_type(s, TY_INT32, "int32", "I");
    types->float_ = new_type(s, TY_FLOAT, "float", "F");
    types->thread = new_type(s, TY_THREAD, "Thread", "LThread;");
}

void type_init_class(Session *s, Type *t, struct ClassDecl *cls, const char *name) {
    memset(t, 0, sizeof *t);
    t->kind = TY_CLASS;
    t->name = name;
    size_t len = strlen(name);
    char *descriptor = session_alloc(s, len + 3);
    snprintf(descriptor, len + 3, "L%s;", name);
    t->descriptor = descriptor;
    t->cls = cls;
    t->prog_index = PROG_NONE;
}

Type *type_array_of(Session *s, Type *elem) {
    if (!elem->array_of) {
        size_t name_len = strlen(elem->name) + 3, desc_len = strlen(elem->descriptor) + 2;
        char *name = session_alloc(s, name_len), *descriptor = session_alloc(s, desc_len);
        snprintf(name, name_len, "%s[]", elem->name);
        snprintf(descriptor, desc_len, "[%s", elem->descriptor);
        Type *t = new_type(s, TY_ARRAY, name, descriptor);
        t->elem = elem;
        elem->array_of = t;
    }
    return elem->array_of;
}

bool type_is_reference(const Type *t) {
    return t->kind == TY_STRING || t->kind == TY_NULL || t->kind == TY_CLASS || t->kind == TY_ARRAY ||
           t->kind == TY_THREAD;
}

bool type_is_numeric(const Type *t) { return t->kind == TY_INT || t->kind == TY_DOUBLE; }

bool type_is_narrow(const Type *t) { return t->kind >= TY_BYTE; }

Type *type_element_value(const Types *types, Type *elem) {
    switch (elem->kind) {
    case TY_BYTE: case TY_CHAR: case TY_SHORT: case TY_INT32: return types->int_;
    case TY_FLOAT: return types->double_;
    default: return elem;
    }
}
