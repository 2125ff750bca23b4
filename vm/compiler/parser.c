/*
 * parser.c -- the grammar of docs/language.md, by recursive descent (parser.h).
 *
 *   file      := (class | member | native)*
 *   native    := 'native' 'env'? STRING type NAME '(' params ')' ';'
 *   class     := 'class' NAME '{' ('static'? member)* '}'
 *   member    := type NAME ';'  |  type NAME '(' params ')' block
 *   type      := ('int'|'double'|'bool'|'string'|'void'|'byte'|'char'
 *                 |'short'|'int32'|'float'|NAME) ('[' ']')*
 *   statement := block | if | while | for | break ';' | continue ';'
 *              | 'return' expr? ';' | simple ';'
 *   simple    := (type | 'var') NAME ('=' expr)?        a declaration
 *              | expr (('=' | '+=' | ... | '%=') expr | '++' | '--')?
 *   expr      := binary operators by precedence (binary_precedence), over
 *   unary     := ('-' | '!') unary | postfix
 *   postfix   := primary ('.' NAME ('(' args ')')? | '[' expr ']')*
 *   primary   := literal | NAME ('(' args ')')? | 'this' | '(' expr ')'
 *              | 'new' NAME '(' ')' | 'new' type '[' expr ']'
 *
 * A statement that starts with `NAME NAME` or `NAME [ ]` is a declaration;
 * that is the only place the parser looks more than one token ahead.
 * Errors point at the token where something else was expected.
 */
#include "parser.h"

#include <string.h>

#include "vm/limits.h"

typedef struct Parser {
    Session *s;
    const Token *tokens;
    uint32_t num_tokens;
    uint32_t next;          /* index of the current token */
    uint32_t depth;         /* statement and unary nesting, against AST_MAX_NESTING */
} Parser;

static const Token *peek_at(const Parser *p, uint32_t ahead) {
    uint32_t i = p->next + ahead;
    return &p->tokens[i < p->num_tokens ? i : p->num_tokens - 1];
}
static const Token *cur(const Parser *p) { return peek_at(p, 0); }
static bool at(const Parser *p, TokenKind k) { return cur(p)->kind == k; }

static const Token *advance(Parser *p) {
    const Token *t = cur(p);
    if (t->kind != TOK_EOF) p->next++;
    return t;
}

static bool accept(Parser *p, TokenKind k) {
    if (!at(p, k)) return false;
    advance(p);
    return true;
}

/* "expected ';' after expression", pointing at the token found instead. */
static const Token *expect(Parser *p, TokenKind k, const char *context) {
    if (!at(p, k)) session_error(p->s, cur(p)->pos, "expected %s %s", token_spelling(k), context);
    return advance(p);
}

static void enter(Parser *p) {
    if (++p->depth > AST_MAX_NESTING) session_error(p->s, cur(p)->pos, "nesting too deep");
}
static void leave(Parser *p) { p->depth--; }

static bool is_type_keyword(TokenKind k) {
    switch (k) {
    case TOK_INT: case TOK_DOUBLE: case TOK_BOOL: case TOK_STRING: case TOK_VOID:
    case TOK_BYTE: case TOK_CHAR: case TOK_SHORT: case TOK_INT32: case TOK_FLOAT:
        return true;
    default:
        return false;
    }
}

/* ---- expressions ------------------------------------------------------------ */

static Expr *new_expr(Parser *p, ExprKind kind, SrcPos pos) {
    Expr *e = session_alloc(p->s, sizeof *e);
    e->kind = kind;
    e->pos = pos;
    e->height = 1;
    return e;
}

/* Keeps e->height above each operand's, so the recursive passes never go
 * deeper than AST_MAX_NESTING even for a long left-leaning chain `1+1+...`. */
static void add_operand(Parser *p, Expr *e, const Expr *operand) {
    if (operand->height >= e->height) e->height = operand->height + 1;
    if (e->height > AST_MAX_NESTING) session_error(p->s, e->pos, "expression nested too deeply");
}

static Expr *parse_expr(Parser *p);

static TypeRef parse_type(Parser *p, const char *what) {
    TypeRef t = {.pos = cur(p)->pos, .base = cur(p)->kind};
    if (at(p, TOK_IDENT)) t.class_name = cur(p)->u.name;
    else if (!is_type_keyword(t.base)) session_error(p->s, t.pos, "expected %s", what);
    advance(p);
    while (at(p, TOK_LBRACKET) && peek_at(p, 1)->kind == TOK_RBRACKET) {
        p->next += 2;
        t.dims++;
    }
    /* Refused here, before the checker makes a type per level. */
    if (t.dims > PROG_MAX_ARRAY_DIMENSIONS)
        session_error(p->s, t.pos, "array type nests %u deep; the limit is %u", t.dims, PROG_MAX_ARRAY_DIMENSIONS);
    return t;
}

/* '(' already consumed; arguments up to and including ')'. */
static Expr *parse_args(Parser *p, Expr *call, uint32_t *num_args) {
    Expr *first = NULL, **tail = &first;
    *num_args = 0;
    if (!accept(p, TOK_RPAREN)) {
        do {
            Expr *arg = parse_expr(p);
            add_operand(p, call, arg);
            *tail = arg;
            tail = &arg->next;
            (*num_args)++;
        } while (accept(p, TOK_COMMA));
        expect(p, TOK_RPAREN, "after arguments");
    }
    return first;
}

static Expr *parse_new(Parser *p) {
    SrcPos pos = advance(p)->pos;
    if (at(p, TOK_IDENT) && peek_at(p, 1)->kind == TOK_LPAREN) {
        Expr *e = new_expr(p, EX_NEW_OBJECT, pos);
        e->u.new_object.class_ref = parse_type(p, "class name after 'new'");
        advance(p);
        expect(p, TOK_RPAREN, "after 'new Name(': classes take no constructor arguments");
        return e;
    }
    Expr *e = new_expr(p, EX_NEW_ARRAY, pos);
    e->u.new_array.elem_ref = parse_type(p, "type after 'new'");
    expect(p, TOK_LBRACKET, "and an array length after 'new T'");
    e->u.new_array.length = parse_expr(p);
    add_operand(p, e, e->u.new_array.length);
    expect(p, TOK_RBRACKET, "after array length");
    return e;
}

static Expr *parse_primary(Parser *p) {
    const Token *t = cur(p);
    Expr *e;
    switch (t->kind) {
    case TOK_INT_LIT:
        e = new_expr(p, EX_INT, t->pos);
        e->u.int_value = t->u.int_value;
        break;
    case TOK_DOUBLE_LIT:
        e = new_expr(p, EX_DOUBLE, t->pos);
        e->u.double_value = t->u.double_value;
        break;
    case TOK_STRING_LIT:
        e = new_expr(p, EX_STRING, t->pos);
        e->u.string.chars = t->u.string.chars;
        e->u.string.len = t->u.string.len;
        break;
    case TOK_TRUE:
    case TOK_FALSE:
        e = new_expr(p, EX_BOOL, t->pos);
        e->u.bool_value = t->kind == TOK_TRUE;
        break;
    case TOK_NULL:
        e = new_expr(p, EX_NULL, t->pos);
        break;
    case TOK_THIS:
        e = new_expr(p, EX_THIS, t->pos);
        break;
    case TOK_IDENT:
        if (peek_at(p, 1)->kind == TOK_LPAREN) {
            e = new_expr(p, EX_CALL, t->pos);
            e->u.call.name = t->u.name;
            e->u.call.name_pos = t->pos;
            p->next += 2;
            e->u.call.args = parse_args(p, e, &e->u.call.num_args);
            return e;
        }
        e = new_expr(p, EX_NAME, t->pos);
        e->u.name = t->u.name;
        break;
    case TOK_LPAREN:
        advance(p);
        e = parse_expr(p);
        expect(p, TOK_RPAREN, "after expression");
        return e;
    case TOK_NEW:
        return parse_new(p);
    default:
        session_error(p->s, t->pos, "expected expression");
    }
    advance(p);
    return e;
}

static Expr *parse_postfix(Parser *p) {
    Expr *e = parse_primary(p);
    for (;;) {
        if (accept(p, TOK_DOT)) {
            const Token *name = expect(p, TOK_IDENT, "after '.'");
            Expr *m;
            if (accept(p, TOK_LPAREN)) {
                m = new_expr(p, EX_CALL, e->pos);
                m->u.call.object = e;
                m->u.call.name = name->u.name;
                m->u.call.name_pos = name->pos;
                add_operand(p, m, e);
                m->u.call.args = parse_args(p, m, &m->u.call.num_args);
            } else {
                m = new_expr(p, EX_MEMBER, e->pos);
                m->u.member.object = e;
                m->u.member.name = name->u.name;
                m->u.member.name_pos = name->pos;
                add_operand(p, m, e);
            }
            e = m;
        } else if (accept(p, TOK_LBRACKET)) {
            Expr *ix = new_expr(p, EX_INDEX, e->pos);
            ix->u.index.array = e;
            ix->u.index.index = parse_expr(p);
            add_operand(p, ix, e);
            add_operand(p, ix, ix->u.index.index);
            expect(p, TOK_RBRACKET, "after index");
            e = ix;
        } else {
            return e;
        }
    }
}

static Expr *parse_unary(Parser *p) {
    enter(p);
    Expr *e;
    if (at(p, TOK_MINUS) || at(p, TOK_BANG)) {
        const Token *op = advance(p);
        e = new_expr(p, EX_UNARY, op->pos);
        e->u.unary.op = op->kind;
        e->u.unary.operand = parse_unary(p);
        add_operand(p, e, e->u.unary.operand);
    } else {
        e = parse_postfix(p);
    }
    leave(p);
    return e;
}

/* docs/language.md "Expressions": higher binds tighter; 0 is not a binary operator. */
static int binary_precedence(TokenKind k) {
    switch (k) {
    case TOK_STAR: case TOK_SLASH: case TOK_PERCENT: return 10;
    case TOK_PLUS: case TOK_MINUS: return 9;
    case TOK_SHL: case TOK_SHR: return 8;
    case TOK_LT: case TOK_LE: case TOK_GT: case TOK_GE: return 7;
    case TOK_EQ: case TOK_NE: return 6;
    case TOK_AMP: return 5;
    case TOK_CARET: return 4;
    case TOK_PIPE: return 3;
    case TOK_ANDAND: return 2;
    case TOK_OROR: return 1;
    default: return 0;
    }
}

/* Precedence climbing: every operator is left-associative. */
static Expr *parse_binary(Parser *p, int min_precedence) {
    Expr *left = parse_unary(p);
    for (;;) {
        int precedence = binary_precedence(cur(p)->kind);
        if (precedence == 0 || precedence < min_precedence) return left;
        const Token *op = advance(p);
        Expr *right = parse_binary(p, precedence + 1);
        Expr *e = new_expr(p, EX_BINARY, left->pos);
        e->u.binary.op = op->kind;
        e->u.binary.op_pos = op->pos;
        e->u.binary.left = left;
        e->u.binary.right = right;
        add_operand(p, e, left);
        add_operand(p, e, right);
        left = e;
    }
}

static Expr *parse_expr(Parser *p) { return parse_binary(p, 1); }

/* ---- statements ------------------------------------------------------------- */

static Stmt *new_stmt(Parser *p, StmtKind kind, SrcPos pos) {
    Stmt *s = session_alloc(p->s, sizeof *s);
    s->kind = kind;
    s->pos = pos;
    return s;
}

static LocalDecl *new_local(Parser *p, const Token *name) {
    LocalDecl *l = session_alloc(p->s, sizeof *l);
    l->name = name->u.name;
    l->pos = name->pos;
    return l;
}

/* `Tree t`, `Tree[] ts`, `int x`, `var x` start a declaration; `a[i] = x` does not. */
static bool at_declaration(const Parser *p) {
    TokenKind k = cur(p)->kind;
    if (k == TOK_VAR || is_type_keyword(k)) return true;
    if (k != TOK_IDENT) return false;
    TokenKind k1 = peek_at(p, 1)->kind;
    return k1 == TOK_IDENT || (k1 == TOK_LBRACKET && peek_at(p, 2)->kind == TOK_RBRACKET);
}

static Stmt *parse_declaration(Parser *p) {
    Stmt *s = new_stmt(p, ST_VAR, cur(p)->pos);
    if (at(p, TOK_VAR)) {
        s->u.var.type_ref.pos = advance(p)->pos;
        s->u.var.type_ref.base = TOK_VAR;
    } else {
        s->u.var.type_ref = parse_type(p, "type");
    }
    const Token *name = expect(p, TOK_IDENT, "(a variable name) after the type");
    s->u.var.local = new_local(p, name);
    if (accept(p, TOK_ASSIGN)) s->u.var.init = parse_expr(p);
    else if (s->u.var.type_ref.base == TOK_VAR)
        session_error(p->s, cur(p)->pos, "expected '=': a 'var' declaration needs an initial value");
    return s;
}

static bool is_assign_op(TokenKind k) {
    return k == TOK_ASSIGN || k == TOK_PLUS_ASSIGN || k == TOK_MINUS_ASSIGN || k == TOK_STAR_ASSIGN ||
           k == TOK_SLASH_ASSIGN || k == TOK_PERCENT_ASSIGN;
}

/* A declaration, assignment, ++/-- or call, without its ';' (for's clauses
 * have none).  *what names it for the "expected ';' after ..." message. */
static Stmt *parse_simple(Parser *p, const char **what) {
    if (at_declaration(p)) {
        *what = "variable declaration";
        return parse_declaration(p);
    }
    Expr *e = parse_expr(p);
    TokenKind k = cur(p)->kind;
    if (is_assign_op(k) || k == TOK_PLUSPLUS || k == TOK_MINUSMINUS) {
        const Token *op = advance(p);
        Stmt *s = new_stmt(p, ST_ASSIGN, e->pos);
        s->u.assign.op = op->kind;
        s->u.assign.op_pos = op->pos;
        s->u.assign.target = e;
        if (is_assign_op(k)) {
            s->u.assign.value = parse_expr(p);
            *what = "assignment";
        } else {
            Expr *one = new_expr(p, EX_INT, op->pos);
            one->u.int_value = 1;
            s->u.assign.value = one;
            *what = k == TOK_PLUSPLUS ? "'++'" : "'--'";
        }
        return s;
    }
    Stmt *s = new_stmt(p, ST_EXPR, e->pos);
    s->u.expr.expr = e;
    *what = "expression";
    return s;
}

/* A call or `new` may stand alone as a statement; `x + 1;` may not. */
static void require_statement_expr(Parser *p, const Stmt *s) {
    if (s->kind != ST_EXPR) return;
    ExprKind k = s->u.expr.expr->kind;
    if (k != EX_CALL && k != EX_NEW_OBJECT && k != EX_NEW_ARRAY)
        session_error(p->s, s->pos, "not a statement");
}

static Stmt *parse_statement(Parser *p);

static Stmt *parse_block(Parser *p) {
    Stmt *block = new_stmt(p, ST_BLOCK, cur(p)->pos);
    expect(p, TOK_LBRACE, "to start a block");
    Stmt **tail = &block->u.block.first;
    while (!at(p, TOK_RBRACE)) {
        if (at(p, TOK_EOF)) session_error(p->s, cur(p)->pos, "expected '}' before end of file");
        *tail = parse_statement(p);
        tail = &(*tail)->next;
    }
    advance(p);
    return block;
}

static Expr *parse_condition(Parser *p, const char *keyword) {
    if (!at(p, TOK_LPAREN)) session_error(p->s, cur(p)->pos, "expected '(' after '%s'", keyword);
    advance(p);
    Expr *cond = parse_expr(p);
    expect(p, TOK_RPAREN, "after condition");
    return cond;
}

static Stmt *parse_for(Parser *p) {
    Stmt *s = new_stmt(p, ST_FOR, advance(p)->pos);
    expect(p, TOK_LPAREN, "after 'for'");
    const char *what;
    if (!at(p, TOK_SEMI)) {
        s->u.for_.init = parse_simple(p, &what);
        require_statement_expr(p, s->u.for_.init);
    }
    expect(p, TOK_SEMI, "after the loop's initializer");
    if (!at(p, TOK_SEMI)) s->u.for_.cond = parse_expr(p);
    expect(p, TOK_SEMI, "after the loop's condition");
    if (!at(p, TOK_RPAREN)) {
        if (at_declaration(p)) session_error(p->s, cur(p)->pos, "expected an assignment or call, not a declaration");
        s->u.for_.update = parse_simple(p, &what);
        require_statement_expr(p, s->u.for_.update);
    }
    expect(p, TOK_RPAREN, "after the loop's update");
    s->u.for_.body = parse_statement(p);
    return s;
}

static Stmt *parse_statement(Parser *p) {
    enter(p);
    const Token *t = cur(p);
    Stmt *s;
    switch (t->kind) {
    case TOK_LBRACE:
        s = parse_block(p);
        break;
    case TOK_IF:
        advance(p);
        s = new_stmt(p, ST_IF, t->pos);
        s->u.if_.cond = parse_condition(p, "if");
        s->u.if_.then_branch = parse_statement(p);
        if (accept(p, TOK_ELSE)) s->u.if_.else_branch = parse_statement(p);
        break;
    case TOK_WHILE:
        advance(p);
        s = new_stmt(p, ST_WHILE, t->pos);
        s->u.while_.cond = parse_condition(p, "while");
        s->u.while_.body = parse_statement(p);
        break;
    case TOK_FOR:
        s = parse_for(p);
        break;
    case TOK_BREAK:
    case TOK_CONTINUE:
        advance(p);
        s = new_stmt(p, t->kind == TOK_BREAK ? ST_BREAK : ST_CONTINUE, t->pos);
        expect(p, TOK_SEMI, t->kind == TOK_BREAK ? "after 'break'" : "after 'continue'");
        break;
    case TOK_SYNCHRONIZED:
        advance(p);
        s = new_stmt(p, ST_SYNCHRONIZED, t->pos);
        expect(p, TOK_LPAREN, "after 'synchronized'");
        s->u.sync.lock = parse_expr(p);
        expect(p, TOK_RPAREN, "after the synchronized object");
        s->u.sync.body = parse_statement(p);
        break;
    case TOK_RETURN:
        advance(p);
        s = new_stmt(p, ST_RETURN, t->pos);
        if (!at(p, TOK_SEMI)) s->u.ret.value = parse_expr(p);
        expect(p, TOK_SEMI, s->u.ret.value ? "after return value" : "after 'return'");
        break;
    default: {
        const char *what;
        s = parse_simple(p, &what);
        char context[64];
        strcpy(context, "after ");
        strcat(context, what);
        expect(p, TOK_SEMI, context);
        require_statement_expr(p, s);
        break;
    }
    }
    leave(p);
    return s;
}

/* ---- declarations ----------------------------------------------------------- */

static void parse_params(Parser *p, MethodDecl *m) {
    Param **tail = &m->params;
    if (accept(p, TOK_RPAREN)) return;
    do {
        Param *param = session_alloc(p->s, sizeof *param);
        param->type_ref = parse_type(p, "parameter type");
        param->local = new_local(p, expect(p, TOK_IDENT, "(a parameter name) after the type"));
        *tail = param;
        tail = &param->next;
        m->num_params++;
    } while (accept(p, TOK_COMMA));
    expect(p, TOK_RPAREN, "after parameters");
}

/* A field, global, method or function after its optional 'static'. */
static void parse_member(Parser *p, ClassDecl *cls, bool is_static, FieldDecl ***field_tail,
                         MethodDecl ***method_tail) {
    TypeRef type = parse_type(p, cls->is_module ? "class, function or variable declaration"
                                                : "field or method declaration");
    const Token *name = expect(p, TOK_IDENT, "(a name) after the type");
    if (accept(p, TOK_LPAREN)) {
        MethodDecl *m = session_alloc(p->s, sizeof *m);
        m->pos = name->pos;
        m->name = name->u.name;
        m->is_static = is_static || cls->is_module;
        m->result_ref = type;
        m->owner = cls;
        parse_params(p, m);
        if (!at(p, TOK_LBRACE)) session_error(p->s, cur(p)->pos, "expected '{' to start the body of '%s'", m->name);
        m->body = parse_block(p);
        m->end_pos = p->tokens[p->next - 1].pos;
        **method_tail = m;
        *method_tail = &m->next;
        return;
    }
    FieldDecl *f = session_alloc(p->s, sizeof *f);
    f->pos = name->pos;
    f->name = name->u.name;
    f->is_static = is_static || cls->is_module;
    f->type_ref = type;
    f->owner = cls;
    if (at(p, TOK_ASSIGN))
        session_error(p->s, cur(p)->pos, "%s take no initializer: assign them in code",
                      cls->is_module ? "globals" : "fields");
    expect(p, TOK_SEMI, cls->is_module ? "after global variable" : "after field");
    **field_tail = f;
    *field_tail = &f->next;
}

/* A native declaration (docs/language.md "Native functions"): a top-level
 * function of the module without a body. */
static MethodDecl *parse_native(Parser *p, ClassDecl *module) {
    advance(p);
    bool takes_env = at(p, TOK_IDENT) && strcmp(cur(p)->u.name, "env") == 0;
    if (takes_env) advance(p);
    const Token *library = expect(p, TOK_STRING_LIT, "(the library's name) after 'native'");
    if (library->u.string.len == 0) session_error(p->s, library->pos, "the library's name is empty");
    TypeRef result = parse_type(p, "the native function's result type");
    const Token *name = expect(p, TOK_IDENT, "(a name) after the type");
    MethodDecl *m = session_alloc(p->s, sizeof *m);
    m->pos = name->pos;
    m->name = name->u.name;
    m->is_static = true;
    m->result_ref = result;
    m->owner = module;
    m->native_library = library->u.string.chars;
    m->native_takes_env = takes_env;
    expect(p, TOK_LPAREN, "after the native function's name");
    parse_params(p, m);
    expect(p, TOK_SEMI, "after a native declaration (it has no body)");
    return m;
}

static ClassDecl *new_class(Parser *p, const char *name, SrcPos pos) {
    ClassDecl *c = session_alloc(p->s, sizeof *c);
    c->name = name;
    c->pos = pos;
    return c;
}

static ClassDecl *parse_class(Parser *p) {
    advance(p);
    const Token *name = expect(p, TOK_IDENT, "(a class name) after 'class'");
    ClassDecl *c = new_class(p, name->u.name, name->pos);
    expect(p, TOK_LBRACE, "after the class name");
    FieldDecl **field_tail = &c->fields;
    MethodDecl **method_tail = &c->methods;
    while (!accept(p, TOK_RBRACE)) {
        if (at(p, TOK_EOF)) session_error(p->s, cur(p)->pos, "expected '}' before end of file");
        bool is_static = accept(p, TOK_STATIC);
        parse_member(p, c, is_static, &field_tail, &method_tail);
    }
    return c;
}

Module *parse_module(Session *s, const Token *tokens, uint32_t num_tokens,
                     const char *module_name, const char *source_file) {
    Parser p = {.s = s, .tokens = tokens, .num_tokens = num_tokens};
    Module *m = session_alloc(s, sizeof *m);
    m->source_file = source_file;
    SrcPos start = {1, 1};
    ClassDecl *module = new_class(&p, module_name, start);
    module->is_module = true;
    m->classes = module;
    m->num_classes = 1;
    ClassDecl **class_tail = &module->next;
    FieldDecl **field_tail = &module->fields;
    MethodDecl **method_tail = &module->methods;
    MethodDecl **native_tail = &m->natives;
    while (!at(&p, TOK_EOF)) {
        if (at(&p, TOK_NATIVE)) {
            *native_tail = parse_native(&p, module);
            native_tail = &(*native_tail)->next;
            m->num_natives++;
        } else if (at(&p, TOK_CLASS)) {
            *class_tail = parse_class(&p);
            class_tail = &(*class_tail)->next;
            m->num_classes++;
        } else if (at(&p, TOK_STATIC)) {
            session_error(s, cur(&p)->pos, "'static' is only for class members: top-level functions and globals are static already");
        } else {
            parse_member(&p, module, true, &field_tail, &method_tail);
        }
    }
    return m;
}
