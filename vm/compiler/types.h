/*
 * types.h -- the types of the gclab language, as the checker and the code
 * generator see them.
 *
 * Types are interned: there is exactly one Type for `int`, one for each
 * class, and one for each array type (a type caches the array type built
 * from it), so two types are equal exactly when their pointers are.  All of
 * them live in the session arena.
 *
 * Only int, double and bool live on the primitive stack; string, classes,
 * arrays and the type of the `null` literal live on the reference stack.
 * The narrow kinds byte, char, short, int32 and float exist only as array
 * elements: reading such an element gives an int (double for float).
 */
#ifndef GCLAB_COMPILER_TYPES_H
#define GCLAB_COMPILER_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "session.h"

typedef enum TypeKind {
    TY_VOID, TY_INT, TY_DOUBLE, TY_BOOL, TY_STRING,
    TY_NULL,                 /* the type of the literal `null` only */
    TY_CLASS, TY_ARRAY,
    TY_THREAD,               /* Thread: a handle on a thread (docs/language.md "Threads") */
    TY_BYTE, TY_CHAR, TY_SHORT, TY_INT32, TY_FLOAT,   /* array elements only */
} TypeKind;

struct ClassDecl;

typedef struct Type {
    TypeKind kind;
    const char *name;            /* as messages spell it: "int", "Tree", "byte[]" */
    const char *descriptor;      /* as program.h spells it: "J", "LTree;", "[B" */
    struct ClassDecl *cls;       /* TY_CLASS */
    struct Type *elem;           /* TY_ARRAY */
    struct Type *array_of;       /* the interned type "this[]", once built */
    uint32_t prog_index;         /* index in Program.types, PROG_NONE until codegen interns it */
} Type;

/* The built-in types of one compilation. */
typedef struct Types {
    Type *void_, *int_, *double_, *bool_, *string, *null,
         *byte, *char_, *short_, *int32, *float_, *thread;
} Types;

void types_init(Session *s, Types *types);

/* The type of a class, stored in the class itself. */
void type_init_class(Session *s, Type *t, struct ClassDecl *cls, const char *name);

/* The interned array type elem[]. */
Type *type_array_of(Session *s, Type *elem);

/* Lives on the reference stack (string, class, array, null). */
bool type_is_reference(const Type *t);
/* int or double. */
bool type_is_numeric(const Type *t);
/* byte, char, short, int32, float: legal only as an array element. */
bool type_is_narrow(const Type *t);
/* What reading an element of this element type gives: int for the narrow
 * integer kinds, double for float, the type itself otherwise. */
Type *type_element_value(const Types *types, Type *elem);

#endif
