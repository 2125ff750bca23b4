/*
 * codegen.c -- emitting bytecode for a checked module (codegen.h).
 *
 * The tree is already resolved and typed (check.c), so each node maps
 * directly onto instructions of the dual-stack machine (opcodes.h): a value
 * of type int, double or bool goes to the primitive stack, anything else to
 * the reference stack.
 *
 * While emitting, the generator keeps three facts about the point it has
 * reached, which is what makes the output verifiable (verify.h):
 *
 *   - the primitive and reference stack depths, updated from each
 *     instruction's effect, whose maximum becomes max_pstack / max_rstack;
 *   - whether that point is reachable.  After a jump or a return it is not,
 *     and statements there are not emitted at all, so no instruction is ever
 *     dead.  A label becomes reachable when bound if any jump targets it;
 *   - the stack depths every jump to a label carries, so binding a label
 *     after an unconditional jump restores them.
 *
 * Statements start and end with both stacks empty.  Loops test their
 * condition at the bottom (one branch per iteration):
 *
 *       JMP test          (not for `while (true)` / `for (;;)`)
 *   top:  body
 *   continue: update
 *   test: condition, JT top
 *   exit:
 */
#include "codegen.h"

#include <stdlib.h>
#include <string.h>

#include "vm/opcodes.h"

#define MAX_CODE_BYTES (1u << 30)

typedef struct Patch {
    uint32_t insn;           /* start of the jump instruction */
    struct Patch *next;
} Patch;

typedef struct Label {
    bool bound, used;
    uint32_t pc;             /* once bound */
    uint32_t pdepth, rdepth; /* stack depths at the jumps to it */
    Patch *patches;          /* forward jumps waiting for pc */
} Label;

/* A synchronized block being emitted: its lock's hidden local. */
typedef struct Sync {
    uint32_t slot;
    struct Sync *outer;
} Sync;

typedef struct Loop {
    Label *continue_to, *break_to;
    struct Loop *outer;
    Sync *sync;              /* the synchronized blocks around the loop */
} Loop;

typedef struct Gen {
    Session *s;
    Module *m;
    Program *p;
    uint32_t types_cap, ints_cap, doubles_cap, strings_cap;
    /* The method being emitted. */
    ProgMethod *pm;
    uint32_t code_cap, lines_cap;
    uint32_t pdepth, rdepth;
    bool reachable;
    Loop *loop;
    Sync *sync;              /* innermost synchronized block, NULL outside any */
} Gen;

static const SrcPos no_pos = {0, 0};

/* ---- constant and type tables ------------------------------------------------ */

static uint32_t check_table_size(Gen *g, uint32_t count, const char *what) {
    if (count == MAX_U16_INDEXES) session_error(g->s, no_pos, "too many %s (at most %u)", what, MAX_U16_INDEXES);
    return count;
}

static uint32_t type_index(Gen *g, Type *t) {
    if (t->prog_index == PROG_NONE) {
        Program *p = g->p;
        uint32_t n = check_table_size(g, p->num_types, "types");
        p->types = session_grow(g->s, p->types, &g->types_cap, n + 1, sizeof *p->types);
        p->types[n] = session_strdup_heap(g->s, t->descriptor);
        p->num_types = n + 1;
        t->prog_index = n;
    }
    return t->prog_index;
}

static uint32_t int_constant(Gen *g, int64_t value) {
    Program *p = g->p;
    for (uint32_t i = 0; i < p->num_ints; i++)
        if (p->ints[i] == value) return i;
    uint32_t n = check_table_size(g, p->num_ints, "integer constants");
    p->ints = session_grow(g->s, p->ints, &g->ints_cap, n + 1, sizeof *p->ints);
    p->ints[n] = value;
    p->num_ints = n + 1;
    return n;
}

/* Doubles are compared bit for bit, so 0.0 and -0.0 stay distinct. */
static uint32_t double_constant(Gen *g, double value) {
    Program *p = g->p;
    for (uint32_t i = 0; i < p->num_doubles; i++)
        if (memcmp(&p->doubles[i], &value, sizeof value) == 0) return i;
    uint32_t n = check_table_size(g, p->num_doubles, "double constants");
    p->doubles = session_grow(g->s, p->doubles, &g->doubles_cap, n + 1, sizeof *p->doubles);
    p->doubles[n] = value;
    p->num_doubles = n + 1;
    return n;
}

static uint32_t string_constant(Gen *g, const char *chars, uint32_t len) {
    Program *p = g->p;
    for (uint32_t i = 0; i < p->num_strings; i++)
        if (p->strings[i].len == len && memcmp(p->strings[i].chars, chars, len) == 0) return i;
    uint32_t n = check_table_size(g, p->num_strings, "string constants");
    p->strings = session_grow(g->s, p->strings, &g->strings_cap, n + 1, sizeof *p->strings);
    char *copy = session_realloc(g->s, NULL, (size_t)len + 1);
    memcpy(copy, chars, len);
    copy[len] = '\0';
    p->strings[n].chars = copy;
    p->strings[n].len = len;
    p->num_strings = n + 1;
    return n;
}

/* ---- emitting instructions ----------------------------------------------------- */

static void emit_bytes(Gen *g, const void *bytes, uint32_t n) {
    ProgMethod *pm = g->pm;
    if (pm->code_len + n > MAX_CODE_BYTES) session_error(g->s, no_pos, "function '%s' is too large", pm->name);
    pm->code = session_grow(g->s, pm->code, &g->code_cap, pm->code_len + n, 1);
    memcpy(pm->code + pm->code_len, bytes, n);
    pm->code_len += n;
}

/* The stack effect of one instruction; the depths never go negative
 * because the checker typed every operand. */
static void adjust(Gen *g, uint32_t ppop, uint32_t ppush, uint32_t rpop, uint32_t rpush) {
    g->pdepth = g->pdepth - ppop + ppush;
    g->rdepth = g->rdepth - rpop + rpush;
    if (g->pdepth > g->pm->max_pstack) g->pm->max_pstack = g->pdepth;
    if (g->rdepth > g->pm->max_rstack) g->pm->max_rstack = g->rdepth;
}

/* Opcode plus operand (of the width opcodes.h gives it), with its stack
 * effect.  Not for CALL, whose effect depends on the callee. */
static void emit(Gen *g, Opcode op, int64_t operand) {
    const OpInfo *info = &op_info[op];
    uint8_t buf[5] = {(uint8_t)op};
    op_operand_put(buf + 1, (uint32_t)operand, op_operand_size(info->operand));
    emit_bytes(g, buf, op_size((uint8_t)op));
    adjust(g, (uint32_t)info->ppop, (uint32_t)info->ppush, (uint32_t)info->rpop, (uint32_t)info->rpush);
    if (op == OP_RET || op == OP_RETP || op == OP_RETR) g->reachable = false;
}

/* CALL of `md`, or START (opcodes.h), which also pops the thread's name
 * and pushes the Thread instead of the result. */
static void emit_call(Gen *g, const MethodDecl *md, Opcode op) {
    uint32_t prim_args = 0, ref_args = md->is_static ? 0 : 1;
    for (const Param *p = md->params; p; p = p->next) {
        if (type_is_reference(p->local->type)) ref_args++;
        else prim_args++;
    }
    if (op == OP_CALL && md->native_library) op = OP_CALLN;
    uint8_t buf[3] = {(uint8_t)op};
    op_operand_put(buf + 1, md->index, op_operand_size(op_info[op].operand));
    emit_bytes(g, buf, op_size((uint8_t)op));
    if (op == OP_START) {
        adjust(g, prim_args, 0, ref_args + 1, 1);
        return;
    }
    bool void_result = md->result->kind == TY_VOID, ref_result = type_is_reference(md->result);
    adjust(g, prim_args, !void_result && !ref_result, ref_args, ref_result);
}

static void write_jump_offset(Gen *g, uint32_t insn, uint32_t target) {
    uint32_t offset = target - insn;   /* relative to the instruction start; wraps for backward jumps */
    op_operand_put(g->pm->code + insn + 1, offset, op_operand_size(OPND_JUMP));
}

/* JMP, JT or JF to a label, bound or not. */
static void emit_jump(Gen *g, Opcode op, Label *l) {
    uint32_t insn = g->pm->code_len;
    emit(g, op, 0);
    if (!l->used) {
        l->used = true;
        l->pdepth = g->pdepth;
        l->rdepth = g->rdepth;
    }
    if (l->bound) {
        write_jump_offset(g, insn, l->pc);
    } else {
        Patch *patch = session_alloc(g->s, sizeof *patch);
        patch->insn = insn;
        patch->next = l->patches;
        l->patches = patch;
    }
    if (op == OP_JMP) g->reachable = false;
}

static void bind(Gen *g, Label *l) {
    l->bound = true;
    l->pc = g->pm->code_len;
    for (Patch *patch = l->patches; patch; patch = patch->next) write_jump_offset(g, patch->insn, l->pc);
    if (l->used && !g->reachable) {
        g->reachable = true;
        g->pdepth = l->pdepth;
        g->rdepth = l->rdepth;
    }
}

/* A line-table entry at the current pc (program.h LineEntry); one entry per
 * change of line. */
static void mark_line(Gen *g, uint32_t line) {
    ProgMethod *pm = g->pm;
    uint32_t n = pm->num_lines;
    if (n > 0 && pm->lines[n - 1].line == line) return;
    if (n > 0 && pm->lines[n - 1].pc == pm->code_len) {
        /* The previous statement emitted nothing: this line replaces it. */
        if (n > 1 && pm->lines[n - 2].line == line) pm->num_lines--;
        else pm->lines[n - 1].line = line;
        return;
    }
    pm->lines = session_grow(g->s, pm->lines, &g->lines_cap, n + 1, sizeof *pm->lines);
    pm->lines[n].pc = pm->code_len;
    pm->lines[n].line = line;
    pm->num_lines = n + 1;
}

/* ---- expressions ------------------------------------------------------------- */

static void gen_expr(Gen *g, Expr *e);

static void push_int(Gen *g, int64_t value) {
    if (value >= INT32_MIN && value <= INT32_MAX) emit(g, OP_PUSHI, value);
    else emit(g, OP_LDI, int_constant(g, value));
}

/* Element access by element kind (opcodes.h "arrays"). */
static Opcode element_get(const Type *elem) {
    switch (elem->kind) {
    case TY_BOOL: return OP_AGETZ;
    case TY_BYTE: return OP_AGETB;
    case TY_CHAR: return OP_AGETC;
    case TY_SHORT: return OP_AGETS;
    case TY_INT32: return OP_AGETI;
    case TY_INT: return OP_AGETJ;
    case TY_FLOAT: return OP_AGETF;
    case TY_DOUBLE: return OP_AGETD;
    default: return OP_AGETR;
    }
}

static Opcode element_put(const Type *elem) {
    switch (elem->kind) {
    case TY_BOOL: return OP_APUTZ;
    case TY_BYTE: return OP_APUTB;
    case TY_CHAR: return OP_APUTC;
    case TY_SHORT: return OP_APUTS;
    case TY_INT32: return OP_APUTI;
    case TY_INT: return OP_APUTJ;
    case TY_FLOAT: return OP_APUTF;
    case TY_DOUBLE: return OP_APUTD;
    default: return OP_APUTR;
    }
}

/* The instruction(s) for `op` on two operands of type `operand` (check.c
 * chose it and converted both operands to it). */
static void emit_operator(Gen *g, TokenKind op, const Type *operand) {
    static const Opcode int_ops[] = {
        [TOK_PLUS] = OP_IADD, [TOK_MINUS] = OP_ISUB, [TOK_STAR] = OP_IMUL, [TOK_SLASH] = OP_IDIV,
        [TOK_PERCENT] = OP_IREM, [TOK_SHL] = OP_ISHL, [TOK_SHR] = OP_ISHR, [TOK_AMP] = OP_IAND,
        [TOK_PIPE] = OP_IOR, [TOK_CARET] = OP_IXOR, [TOK_EQ] = OP_IEQ, [TOK_NE] = OP_INE,
        [TOK_LT] = OP_ILT, [TOK_LE] = OP_ILE, [TOK_GT] = OP_IGT, [TOK_GE] = OP_IGE,
    };
    static const Opcode double_ops[] = {
        [TOK_PLUS] = OP_DADD, [TOK_MINUS] = OP_DSUB, [TOK_STAR] = OP_DMUL, [TOK_SLASH] = OP_DDIV,
        [TOK_EQ] = OP_DEQ, [TOK_NE] = OP_DNE, [TOK_LT] = OP_DLT, [TOK_LE] = OP_DLE,
        [TOK_GT] = OP_DGT, [TOK_GE] = OP_DGE,
    };
    switch (operand->kind) {
    case TY_INT: emit(g, int_ops[op], 0); break;
    case TY_DOUBLE: emit(g, double_ops[op], 0); break;
    case TY_BOOL: emit(g, op == TOK_EQ ? OP_ZEQ : OP_ZNE, 0); break;
    case TY_STRING:
        if (op == TOK_PLUS) {
            emit(g, OP_SCAT, 0);
        } else {
            emit(g, OP_SEQ, 0);
            if (op == TOK_NE) emit(g, OP_NOT, 0);
        }
        break;
    default:   /* classes, arrays, null: identity */
        emit(g, op == TOK_EQ ? OP_REQ : OP_RNE, 0);
        break;
    }
}

/* Jumps to `target` when the bool `e` equals jump_if, falling through
 * otherwise; && || and ! become jumps rather than values. */
static void gen_cond(Gen *g, Expr *e, bool jump_if, Label *target) {
    if (e->kind == EX_UNARY && e->u.unary.op == TOK_BANG) {
        gen_cond(g, e->u.unary.operand, !jump_if, target);
        return;
    }
    if (e->kind == EX_BINARY && (e->u.binary.op == TOK_ANDAND || e->u.binary.op == TOK_OROR)) {
        /* a && b jumps on false as soon as a is false; a || b on true as soon as a is true. */
        bool short_circuit_on = e->u.binary.op == TOK_OROR;
        if (jump_if == short_circuit_on) {
            gen_cond(g, e->u.binary.left, jump_if, target);
            gen_cond(g, e->u.binary.right, jump_if, target);
        } else {
            Label skip = {0};
            gen_cond(g, e->u.binary.left, short_circuit_on, &skip);
            gen_cond(g, e->u.binary.right, jump_if, target);
            bind(g, &skip);
        }
        return;
    }
    gen_expr(g, e);
    emit_jump(g, jump_if ? OP_JT : OP_JF, target);
}

/* start(call, name): the call's receiver and arguments as for CALL, then
 * the name (null for the default), then START. */
static void gen_start(Gen *g, const Expr *call) {
    if (call->u.call.object) gen_expr(g, call->u.call.object);
    for (Expr *a = call->u.call.args; a; a = a->next) gen_expr(g, a);
    if (call->next) gen_expr(g, call->next);
    else emit(g, OP_ANULL, 0);
    emit_call(g, call->u.call.method, OP_START);
}

static void gen_builtin(Gen *g, Expr *e) {
    Expr *arg = e->u.builtin.args;
    if (e->u.builtin.which == BI_START) {
        gen_start(g, arg);
        return;
    }
    for (Expr *a = arg; a; a = a->next) gen_expr(g, a);
    switch (e->u.builtin.which) {
    case BI_PRINT:
    case BI_PRINTLN: {
        uint8_t newline = e->u.builtin.which == BI_PRINTLN;
        if (!arg) {
            /* println(): an empty string and its newline. */
            emit(g, OP_LDS, string_constant(g, "", 0));
            emit(g, OP_PRINTS, 1);
            break;
        }
        switch (arg->type->kind) {
        case TY_INT: emit(g, OP_PRINTI, newline); break;
        case TY_DOUBLE: emit(g, OP_PRINTD, newline); break;
        case TY_BOOL: emit(g, OP_PRINTZ, newline); break;
        default: emit(g, OP_PRINTS, newline); break;
        }
        break;
    }
    case BI_LEN: emit(g, arg->type->kind == TY_ARRAY ? OP_ALEN : OP_SLEN, 0); break;
    case BI_CHARAT: emit(g, OP_SCHAR, 0); break;
    case BI_SUBSTR: emit(g, OP_SSUB, 0); break;
    case BI_CHR: emit(g, OP_CHR, 0); break;
    case BI_PARSEINT: emit(g, OP_PARSEI, 0); break;
    case BI_STR: break;   /* the checker wrapped the argument in its I2S, D2S or Z2S */
    case BI_TOINT: emit(g, OP_D2I, 0); break;
    case BI_TODOUBLE: emit(g, OP_I2D, 0); break;
    case BI_EXIT: emit(g, OP_EXIT, 0); break;
    case BI_START: break; /* gen_start */
    case BI_JOIN: emit(g, OP_JOIN, 0); break;
    case BI_SLEEP: emit(g, OP_SLEEP, 0); break;
    case BI_WAIT:
        if (!arg->next) push_int(g, 0); /* no timeout */
        emit(g, OP_WAIT, 0);
        break;
    case BI_NOTIFY: emit(g, OP_NOTIFY, 0); break;
    case BI_NOTIFYALL: emit(g, OP_NOTIFY, 1); break;
    case BI_INTERRUPT: emit(g, OP_INTERRUPT, 0); break;
    case BI_INTERRUPTED: emit(g, OP_INTERRUPTED, 0); break;
    }
}

static void gen_expr(Gen *g, Expr *e) {
    switch (e->kind) {
    case EX_INT: push_int(g, e->u.int_value); break;
    case EX_DOUBLE: emit(g, OP_LDD, double_constant(g, e->u.double_value)); break;
    case EX_BOOL: emit(g, OP_PUSHZ, e->u.bool_value); break;
    case EX_STRING: emit(g, OP_LDS, string_constant(g, e->u.string.chars, e->u.string.len)); break;
    case EX_NULL: emit(g, OP_ANULL, 0); break;
    case EX_THIS: emit(g, OP_RLOAD, 0); break;
    case EX_LOCAL:
        emit(g, type_is_reference(e->type) ? OP_RLOAD : OP_PLOAD, e->u.local->slot);
        break;
    case EX_FIELD:
        gen_expr(g, e->u.field.object);
        emit(g, type_is_reference(e->type) ? OP_GETFR : OP_GETFP, e->u.field.field->index);
        break;
    case EX_STATIC:
        emit(g, type_is_reference(e->type) ? OP_GETSR : OP_GETSP, e->u.static_field->index);
        break;
    case EX_INDEX:
        gen_expr(g, e->u.index.array);
        gen_expr(g, e->u.index.index);
        emit(g, element_get(e->u.index.array->type->elem), 0);
        break;
    case EX_CALL:
        if (e->u.call.object) gen_expr(g, e->u.call.object);
        for (Expr *a = e->u.call.args; a; a = a->next) gen_expr(g, a);
        emit_call(g, e->u.call.method, OP_CALL);
        break;
    case EX_BUILTIN: gen_builtin(g, e); break;
    case EX_NEW_OBJECT: emit(g, OP_NEW, e->u.new_object.cls->index); break;
    case EX_NEW_ARRAY:
        gen_expr(g, e->u.new_array.length);
        emit(g, OP_NEWARR, type_index(g, e->type));
        break;
    case EX_UNARY:
        gen_expr(g, e->u.unary.operand);
        if (e->u.unary.op == TOK_BANG) emit(g, OP_NOT, 0);
        else emit(g, e->type->kind == TY_INT ? OP_INEG : OP_DNEG, 0);
        break;
    case EX_BINARY:
        if (e->u.binary.op == TOK_ANDAND || e->u.binary.op == TOK_OROR) {
            Label is_false = {0}, done = {0};
            gen_cond(g, e, false, &is_false);
            emit(g, OP_PUSHZ, 1);
            emit_jump(g, OP_JMP, &done);
            bind(g, &is_false);
            emit(g, OP_PUSHZ, 0);
            bind(g, &done);
            break;
        }
        gen_expr(g, e->u.binary.left);
        gen_expr(g, e->u.binary.right);
        emit_operator(g, e->u.binary.op, e->u.binary.operand);
        break;
    case EX_CONVERT:
        if (e->u.convert.opcode == OP_I2D && e->u.convert.operand->kind == EX_INT) {
            /* A promoted int literal is loaded as the double it becomes. */
            emit(g, OP_LDD, double_constant(g, (double)e->u.convert.operand->u.int_value));
            break;
        }
        gen_expr(g, e->u.convert.operand);
        emit(g, (Opcode)e->u.convert.opcode, 0);
        break;
    case EX_NAME: case EX_MEMBER:
        break;   /* rewritten by the checker */
    }
}

/* ---- assignment ---------------------------------------------------------------- */

/* Pushes what a store into `target` needs beneath the new value: the object
 * of a field, the array and index of an element.  With load_old it then
 * also pushes the target's current value, evaluating the object or the
 * array and index only once (RDUP / PDUP). */
static void gen_place(Gen *g, Expr *target, bool load_old) {
    switch (target->kind) {
    case EX_LOCAL:
    case EX_STATIC:
        if (load_old) gen_expr(g, target);
        break;
    case EX_FIELD:
        gen_expr(g, target->u.field.object);
        if (load_old) {
            emit(g, OP_RDUP, 0);
            emit(g, type_is_reference(target->type) ? OP_GETFR : OP_GETFP, target->u.field.field->index);
        }
        break;
    default:   /* EX_INDEX */
        gen_expr(g, target->u.index.array);
        gen_expr(g, target->u.index.index);
        if (load_old) {
            emit(g, OP_RDUP, 0);
            emit(g, OP_PDUP, 0);
            emit(g, element_get(target->u.index.array->type->elem), 0);
        }
        break;
    }
}

/* Stores the value on top into the place gen_place prepared. */
static void gen_store(Gen *g, Expr *target) {
    bool ref = type_is_reference(target->type);
    switch (target->kind) {
    case EX_LOCAL: emit(g, ref ? OP_RSTORE : OP_PSTORE, target->u.local->slot); break;
    case EX_STATIC: emit(g, ref ? OP_PUTSR : OP_PUTSP, target->u.static_field->index); break;
    case EX_FIELD: emit(g, ref ? OP_PUTFR : OP_PUTFP, target->u.field.field->index); break;
    default: emit(g, element_put(target->u.index.array->type->elem), 0); break;
    }
}

static void gen_assign(Gen *g, Stmt *s) {
    Expr *target = s->u.assign.target, *value = s->u.assign.value;
    if (s->u.assign.op == TOK_ASSIGN) {
        gen_place(g, target, false);
        gen_expr(g, value);
        gen_store(g, target);
        return;
    }
    TokenKind arith = s->u.assign.arith;
    /* `i++` and `i += 1` on an int local: one instruction. */
    if (target->kind == EX_LOCAL && target->type->kind == TY_INT && arith == TOK_PLUS && value->kind == EX_INT &&
        value->u.int_value == 1) {
        emit(g, OP_IINC, target->u.local->slot);
        return;
    }
    gen_place(g, target, true);
    gen_expr(g, value);
    emit_operator(g, arith, s->u.assign.operand);
    gen_store(g, target);
}

/* ---- statements ------------------------------------------------------------- */

static void gen_stmt(Gen *g, Stmt *s);

static void push_default(Gen *g, const Type *t) {
    switch (t->kind) {
    case TY_INT: emit(g, OP_PUSHI, 0); break;
    case TY_DOUBLE: emit(g, OP_LDD, double_constant(g, 0.0)); break;
    case TY_BOOL: emit(g, OP_PUSHZ, 0); break;
    default: emit(g, OP_ANULL, 0); break;
    }
}

/* while and for: see the loop shape at the top of this file. */
static void gen_loop(Gen *g, Expr *cond, Stmt *update, Stmt *body, uint32_t test_line) {
    Label top = {0}, next = {0}, test = {0}, exit = {0};
    Loop loop = {.continue_to = &next, .break_to = &exit, .outer = g->loop, .sync = g->sync};
    bool endless = !cond || expr_is_true_literal(cond);
    if (!endless) emit_jump(g, OP_JMP, &test);
    bind(g, &top);
    /* Reached by falling in (endless) or by the test's JT, emitted below
     * whenever the test is. */
    g->reachable = true;
    g->loop = &loop;
    gen_stmt(g, body);
    g->loop = loop.outer;
    bind(g, &next);
    if (update) gen_stmt(g, update);
    bind(g, &test);
    if (g->reachable) {
        mark_line(g, test_line);
        if (endless) emit_jump(g, OP_JMP, &top);
        else gen_cond(g, cond, true, &top);
    }
    bind(g, &exit);
}

/* Exits the monitors of the synchronized blocks inside `outermost`, innermost first. */
static void exit_monitors(Gen *g, const Sync *outermost) {
    for (const Sync *sync = g->sync; sync != outermost; sync = sync->outer) {
        emit(g, OP_RLOAD, sync->slot);
        emit(g, OP_MONEXIT, 0);
    }
}

static void gen_stmt(Gen *g, Stmt *s) {
    /* Code after a return, break or continue is never emitted. */
    if (!g->reachable) return;
    if (s->kind != ST_BLOCK) mark_line(g, s->pos.line);
    switch (s->kind) {
    case ST_BLOCK:
        for (Stmt *t = s->u.block.first; t; t = t->next) gen_stmt(g, t);
        break;
    case ST_VAR: {
        LocalDecl *l = s->u.var.local;
        /* A declaration without a value resets the variable to its default
         * (docs/language.md "Types"), also on a loop's second iteration. */
        if (s->u.var.init) gen_expr(g, s->u.var.init);
        else push_default(g, l->type);
        emit(g, type_is_reference(l->type) ? OP_RSTORE : OP_PSTORE, l->slot);
        break;
    }
    case ST_ASSIGN: gen_assign(g, s); break;
    case ST_IF: {
        Label otherwise = {0}, done = {0};
        Stmt *else_branch = s->u.if_.else_branch;
        gen_cond(g, s->u.if_.cond, false, else_branch ? &otherwise : &done);
        gen_stmt(g, s->u.if_.then_branch);
        if (else_branch) {
            if (g->reachable) emit_jump(g, OP_JMP, &done);
            bind(g, &otherwise);
            gen_stmt(g, else_branch);
        }
        bind(g, &done);
        break;
    }
    case ST_WHILE:
        gen_loop(g, s->u.while_.cond, NULL, s->u.while_.body, s->pos.line);
        break;
    case ST_FOR:
        if (s->u.for_.init) gen_stmt(g, s->u.for_.init);
        gen_loop(g, s->u.for_.cond, s->u.for_.update, s->u.for_.body,
                 s->u.for_.cond ? s->u.for_.cond->pos.line : s->pos.line);
        break;
    case ST_BREAK:
        exit_monitors(g, g->loop->sync);
        emit_jump(g, OP_JMP, g->loop->break_to);
        break;
    case ST_CONTINUE:
        exit_monitors(g, g->loop->sync);
        emit_jump(g, OP_JMP, g->loop->continue_to);
        break;
    case ST_RETURN: {
        Expr *value = s->u.ret.value;
        if (!value) {
            exit_monitors(g, NULL);
            emit(g, OP_RET, 0);
        } else {
            gen_expr(g, value);
            exit_monitors(g, NULL);
            emit(g, type_is_reference(value->type) ? OP_RETR : OP_RETP, 0);
        }
        break;
    }
    case ST_SYNCHRONIZED: {
        /* The lock is kept in a hidden local, so that every way out --
         * the end, break, continue, return -- exits the monitor it entered
         * (the language has no exceptions: a runtime error ends the program). */
        Sync sync = {.slot = s->u.sync.slot, .outer = g->sync};
        gen_expr(g, s->u.sync.lock);
        emit(g, OP_RDUP, 0);
        emit(g, OP_RSTORE, sync.slot);
        emit(g, OP_MONENTER, 0);
        g->sync = &sync;
        gen_stmt(g, s->u.sync.body);
        g->sync = sync.outer;
        if (g->reachable) {
            emit(g, OP_RLOAD, sync.slot);
            emit(g, OP_MONEXIT, 0);
        }
        break;
    }
    case ST_EXPR: {
        Expr *e = s->u.expr.expr;
        gen_expr(g, e);
        /* A call's unused result is dropped. */
        if (e->type->kind != TY_VOID) emit(g, type_is_reference(e->type) ? OP_RPOP : OP_PPOP, 0);
        break;
    }
    }
}

/* ---- methods, classes and the program ------------------------------------------ */

static uint32_t *local_type_indexes(Gen *g, const LocalTypes *locals) {
    uint32_t *indexes = session_realloc(g->s, NULL, (size_t)locals->count * sizeof *indexes);
    for (uint32_t i = 0; i < locals->count; i++) indexes[i] = type_index(g, locals->types[i]);
    return indexes;
}

static void gen_method(Gen *g, MethodDecl *md) {
    ProgMethod *pm = &g->p->methods[md->index];
    pm->name = session_strdup_heap(g->s, md->name);
    pm->owner_class = md->owner->index;
    pm->is_static = md->is_static;
    pm->param_types = session_realloc(g->s, NULL, (size_t)md->num_params * sizeof *pm->param_types);
    uint32_t i = 0;
    for (Param *p = md->params; p; p = p->next) pm->param_types[i++] = type_index(g, p->local->type);
    pm->num_params = md->num_params;
    pm->return_type = type_index(g, md->result);
    pm->prim_local_types = local_type_indexes(g, &md->prim_locals);
    pm->num_prim_locals = md->prim_locals.count;
    pm->ref_local_types = local_type_indexes(g, &md->ref_locals);
    pm->num_ref_locals = md->ref_locals.count;

    g->pm = pm;
    g->code_cap = g->lines_cap = 0;
    g->pdepth = g->rdepth = 0;
    g->reachable = true;
    g->loop = NULL;
    g->sync = NULL;
    for (Stmt *s = md->body->u.block.first; s; s = s->next) gen_stmt(g, s);
    if (g->reachable) {
        /* check.c proved that only a void function can get here. */
        if (md->result->kind != TY_VOID)
            session_error(g->s, md->end_pos, "internal error: control reaches the end of '%s'", md->name);
        mark_line(g, md->end_pos.line);
        emit(g, OP_RET, 0);
    }
}

/* The indexes of a class's members of one kind, in declaration order. */
static uint32_t *field_indexes(Gen *g, const ClassDecl *cls, bool statics, uint32_t *count) {
    uint32_t n = 0;
    for (const FieldDecl *f = cls->fields; f; f = f->next) n += f->is_static == statics;
    uint32_t *indexes = session_realloc(g->s, NULL, (size_t)n * sizeof *indexes);
    n = 0;
    for (const FieldDecl *f = cls->fields; f; f = f->next)
        if (f->is_static == statics) indexes[n++] = f->index;
    *count = n;
    return indexes;
}

static void gen_class(Gen *g, ClassDecl *cls) {
    Program *p = g->p;
    ProgClass *pc = &p->classes[cls->index];
    pc->name = session_strdup_heap(g->s, cls->name);
    pc->source_file = session_strdup_heap(g->s, g->m->source_file);
    pc->fields = field_indexes(g, cls, false, &pc->num_fields);
    pc->statics = field_indexes(g, cls, true, &pc->num_statics);
    for (FieldDecl *f = cls->fields; f; f = f->next) {
        ProgField *pf = f->is_static ? &p->statics[f->index] : &p->fields[f->index];
        pf->name = session_strdup_heap(g->s, f->name);
        pf->type = type_index(g, f->type);
        pf->owner_class = cls->index;
    }
    uint32_t n = 0;
    for (MethodDecl *md = cls->methods; md; md = md->next) n++;
    pc->methods = session_realloc(g->s, NULL, (size_t)n * sizeof *pc->methods);
    pc->num_methods = 0;
    for (MethodDecl *md = cls->methods; md; md = md->next) {
        pc->methods[pc->num_methods++] = md->index;
        gen_method(g, md);
    }
}

/* A native's record: its C types, as declared (program.h, ProgNative). */
static void gen_native(Gen *g, const MethodDecl *md) {
    ProgNative *pn = &g->p->natives[md->index];
    pn->name = session_strdup_heap(g->s, md->name);
    pn->library = session_strdup_heap(g->s, md->native_library);
    pn->takes_env = md->native_takes_env;
    pn->param_types = session_realloc(g->s, NULL, (size_t)md->num_params * sizeof *pn->param_types);
    uint32_t i = 0;
    for (const Param *p = md->params; p; p = p->next) pn->param_types[i++] = type_index(g, p->c_type);
    pn->num_params = md->num_params;
    pn->return_type = type_index(g, md->c_result);
}

/* Zeroed, so program_free() can free a half-built program at any point. */
static void *zeroed_array(Gen *g, uint32_t count, size_t elem) {
    void *array = calloc(count ? count : 1, elem);
    if (!array) session_error(g->s, no_pos, "out of memory");
    return array;
}

Program *codegen_module(Session *s, Module *m) {
    Gen g = {.s = s, .m = m};
    Program *p = calloc(1, sizeof *p);
    if (!p) session_error(s, no_pos, "out of memory");
    s->program = p;
    g.p = p;
    p->classes = zeroed_array(&g, m->num_classes, sizeof *p->classes);
    p->num_classes = m->num_classes;
    p->fields = zeroed_array(&g, m->num_fields, sizeof *p->fields);
    p->num_fields = m->num_fields;
    p->statics = zeroed_array(&g, m->num_statics, sizeof *p->statics);
    p->num_statics = m->num_statics;
    p->methods = zeroed_array(&g, m->num_methods, sizeof *p->methods);
    p->num_methods = m->num_methods;
    for (ClassDecl *cls = m->classes; cls; cls = cls->next) gen_class(&g, cls);
    if (m->num_natives > 0) {
        p->natives = zeroed_array(&g, m->num_natives, sizeof *p->natives);
        p->num_natives = m->num_natives;
        for (const MethodDecl *md = m->natives; md; md = md->next) gen_native(&g, md);
    }
    p->entry_method = m->main->index;
    return p;
}
