/*
 * ast.h -- the syntax tree of a gclab source file, and what the checker
 * attaches to it.
 *
 * The parser (parser.c) builds the tree from tokens; the checker (check.c)
 * then resolves every name and types every expression, writing its results
 * into the fields marked "checker" and rewriting name, member and call nodes
 * into their resolved kinds (EX_LOCAL, EX_FIELD, EX_STATIC, a resolved
 * EX_CALL, EX_BUILTIN) and wrapping operands that need a conversion in
 * EX_CONVERT nodes.  The code generator (codegen.c) only ever sees a checked
 * tree, so it never looks anything up and never reports a language error.
 *
 * Lists (classes, members, parameters, statements, arguments) are linked
 * through `next`, in source order.  Everything lives in the session arena.
 */
#ifndef GCLAB_COMPILER_AST_H
#define GCLAB_COMPILER_AST_H

#include <stdbool.h>
#include <stdint.h>

#include "lexer.h"
#include "types.h"

/* A type as written: `int`, `Tree[]`, `byte[]`, `var` (locals only), `void`
 * (results only). */
typedef struct TypeRef {
    SrcPos pos;
    TokenKind base;          /* TOK_INT ... TOK_FLOAT, TOK_VOID, TOK_VAR, or TOK_IDENT for a class */
    const char *class_name;  /* TOK_IDENT */
    uint32_t dims;           /* number of [] pairs */
} TypeRef;

/* A local variable or parameter.  Slots count separately for primitives and
 * references (program.h "Locals"). */
typedef struct LocalDecl {
    const char *name;
    SrcPos pos;
    Type *type;                     /* checker */
    uint32_t slot;                  /* checker: index among the prim or ref locals */
    struct LocalDecl *shadowed;     /* checker: the next older visible local */
} LocalDecl;

typedef enum Builtin {
    BI_PRINT, BI_PRINTLN, BI_LEN, BI_CHARAT, BI_SUBSTR, BI_CHR, BI_PARSEINT,
    BI_STR, BI_TOINT, BI_TODOUBLE, BI_EXIT,
    /* threads and monitors (docs/language.md "Threads", "Monitors") */
    BI_START, BI_JOIN, BI_SLEEP, BI_WAIT, BI_NOTIFY, BI_NOTIFYALL,
    BI_INTERRUPT, BI_INTERRUPTED,
} Builtin;

typedef enum ExprKind {
    /* As parsed. */
    EX_INT, EX_DOUBLE, EX_BOOL, EX_STRING, EX_NULL, EX_THIS,
    EX_NAME,         /* a bare identifier */
    EX_MEMBER,       /* object.name (object may name a class) */
    EX_INDEX,        /* array[index] */
    EX_CALL,         /* name(args) or object.name(args) */
    EX_NEW_OBJECT,   /* new Name() */
    EX_NEW_ARRAY,    /* new T[length] */
    EX_UNARY,        /* -x, !b */
    EX_BINARY,
    /* Produced by the checker. */
    EX_LOCAL,        /* from EX_NAME */
    EX_FIELD,        /* instance field: from EX_NAME (object = `this`) or EX_MEMBER */
    EX_STATIC,       /* static field or global: from EX_NAME or EX_MEMBER */
    EX_BUILTIN,      /* from EX_CALL */
    EX_CONVERT,      /* wraps an operand: I2D, I2S, D2S or Z2S */
} ExprKind;

struct MethodDecl;
struct FieldDecl;
struct ClassDecl;

typedef struct Expr Expr;
struct Expr {
    ExprKind kind;
    SrcPos pos;             /* where messages about this expression point */
    uint32_t height;        /* 1 + the height of the tallest operand */
    Type *type;             /* checker: the value's type (void for a void call) */
    Expr *next;             /* next argument in a call */
    union {
        int64_t int_value;
        double double_value;
        bool bool_value;
        struct { const char *chars; uint32_t len; } string;
        const char *name;                                   /* EX_NAME */
        struct { Expr *object; const char *name; SrcPos name_pos; } member;
        struct { Expr *array, *index; } index;
        struct {
            Expr *object;                 /* NULL for name(args); checker: the receiver, NULL if static */
            const char *name;
            SrcPos name_pos;
            Expr *args;
            uint32_t num_args;
            struct MethodDecl *method;    /* checker */
        } call;
        struct { Builtin which; const char *name; Expr *args; } builtin;
        struct { TypeRef class_ref; struct ClassDecl *cls; } new_object;
        struct { TypeRef elem_ref; Expr *length; } new_array;
        struct { TokenKind op; Expr *operand; } unary;
        struct {
            TokenKind op;
            SrcPos op_pos;
            Expr *left, *right;
            Type *operand;        /* checker: both operands' type after conversion */
        } binary;
        LocalDecl *local;                                   /* EX_LOCAL */
        struct { Expr *object; struct FieldDecl *field; } field;   /* EX_FIELD */
        struct FieldDecl *static_field;                     /* EX_STATIC */
        struct { uint8_t opcode; Expr *operand; } convert;  /* EX_CONVERT */
    } u;
};

typedef enum StmtKind {
    ST_BLOCK, ST_VAR, ST_ASSIGN, ST_IF, ST_WHILE, ST_FOR,
    ST_BREAK, ST_CONTINUE, ST_RETURN, ST_EXPR,
    ST_SYNCHRONIZED,
} StmtKind;

typedef struct Stmt Stmt;
struct Stmt {
    StmtKind kind;
    SrcPos pos;
    Stmt *next;
    union {
        struct { Stmt *first; } block;
        struct { TypeRef type_ref; LocalDecl *local; Expr *init; } var;
        struct {
            TokenKind op;         /* '=', a compound '+=' ... '%=', or '++' / '--' */
            SrcPos op_pos;
            Expr *target;
            Expr *value;          /* for ++ and -- the parser supplies the literal 1 */
            TokenKind arith;      /* checker, compound only: the operator applied ('+' for '+=' and '++') */
            Type *operand;        /* checker, compound only: the type the operator works on */
        } assign;
        struct { Expr *cond; Stmt *then_branch, *else_branch; } if_;
        struct { Expr *cond; Stmt *body; } while_;
        struct { Stmt *init; Expr *cond; Stmt *update; Stmt *body; } for_;  /* each part may be NULL */
        struct { Expr *value; } ret;
        struct {
            Expr *lock;
            Stmt *body;
            uint32_t slot;        /* checker: the hidden reference local holding the lock */
        } sync;
        struct { Expr *expr; } expr;
    } u;
};

typedef struct Param {
    TypeRef type_ref;
    LocalDecl *local;
    Type *c_type;             /* checker, natives only: the C type as declared (int32); local->type is its value (int) */
    struct Param *next;
} Param;

/* The locals of one method by kind, parameters first (program.h). */
typedef struct LocalTypes {
    Type **types;
    uint32_t count, capacity;
} LocalTypes;

typedef struct FieldDecl {
    SrcPos pos;
    const char *name;
    TypeRef type_ref;
    bool is_static;
    struct ClassDecl *owner;
    Type *type;               /* checker */
    uint32_t index;           /* checker: in Program.fields or Program.statics */
    struct FieldDecl *next;
} FieldDecl;

typedef struct MethodDecl {
    SrcPos pos;               /* the name */
    const char *name;
    bool is_static;
    TypeRef result_ref;
    Param *params;
    uint32_t num_params;
    Stmt *body;               /* an ST_BLOCK; NULL for a native */
    const char *native_library; /* a native (Module.natives): the library named in its declaration */
    bool native_takes_env;    /* declared `native env`: gets the VM's callback API */
    Type *c_result;           /* checker, natives only: the C result type as declared */
    SrcPos end_pos;           /* the closing brace */
    struct ClassDecl *owner;
    Type *result;             /* checker */
    uint32_t index;           /* checker: in Program.methods, or in Program.natives for a native */
    LocalTypes prim_locals;   /* checker */
    LocalTypes ref_locals;    /* checker: the receiver is ref local 0 of an instance method */
    struct MethodDecl *next;
} MethodDecl;

typedef struct ClassDecl {
    SrcPos pos;
    const char *name;
    bool is_module;           /* the implicit class of top-level functions and globals */
    FieldDecl *fields;        /* instance and static, in source order */
    MethodDecl *methods;
    Type type;                /* checker: the type `Name` */
    uint32_t index;           /* in Program.classes */
    struct ClassDecl *next;
} ClassDecl;

typedef struct Module {
    const char *source_file;  /* base name of the path: "trees.gcl" */
    ClassDecl *classes;       /* the module class first, then declared classes in order */
    uint32_t num_classes;
    MethodDecl *natives;      /* native declarations, in order; index is their place here */
    uint32_t num_natives;
    /* checker: */
    uint32_t num_fields, num_statics, num_methods;
    MethodDecl *main;
    Types types;
} Module;

/* `true` as written: the condition of an endless `while (true)` loop. */
static inline bool expr_is_true_literal(const Expr *e) { return e && e->kind == EX_BOOL && e->u.bool_value; }

/* The deepest a statement or expression may nest; deeper input is an error
 * rather than a stack overflow in the recursive passes. */
#define AST_MAX_NESTING 1000

/* Instructions name classes, methods, fields, locals, constants and types by
 * u16 operands (opcodes.h), so a program holds at most this many of each. */
#define MAX_U16_INDEXES 65536u

#endif
