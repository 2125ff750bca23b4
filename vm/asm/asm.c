/*
 * asm.c -- the gclab assembler: assembly text to a Program.
 *
 * The syntax, line by line.  A ';' at the start of a word begins a comment
 * that runs to the end of the line (inside a word it is part of it, as in
 * the descriptor LTree;).  A WORD is a run of non-blank bytes, or a quoted
 * string "..." with the escapes \n \t \r \" \\ \xHH (never NUL).  A NUMBER
 * is decimal or 0x-hexadecimal, with an optional sign.  A TYPE is a type
 * index, or a descriptor (J, [LTree;): the first type with that descriptor,
 * appended to the types if there is none yet.
 *
 *   .type N DESC            the pools, each numbered in order from 0:
 *   .int N NUMBER           N must be the next index of its pool
 *   .double N VALUE         VALUE: decimal, inf, -inf, or bits=16 hex digits
 *   .string N "TEXT"
 *   .class NAME [SOURCE]    a class; the .field, .static and .method lines
 *                           that follow belong to it, and its member lists
 *                           are in the order of those lines
 *   .field N NAME TYPE      instance field N (numbered 0.. without gaps, in
 *   .static N NAME TYPE     any order); static field N
 *   .method N NAME static|instance
 *                           method N, then its header and code:
 *     .params TYPE...       parameter types, not counting the receiver
 *     .returns TYPE         required
 *     .plocals TYPE...      every primitive local, parameters first
 *     .rlocals TYPE...      every reference local, receiver and parameters first
 *     .stack P R            maximum primitive and reference stack depths; required
 *     LABEL:                a label (letters, digits, _; not starting with a digit)
 *     [PC:] OPCODE [OPERAND]  an instruction; "PC:" (a number) asserts its offset
 *     .line N               the next instruction starts source line N
 *     .bytes NUMBER...      raw code bytes, for tests of malformed code
 *   .entry METHOD           the entry method: an index or Owner.name
 *   .native N NAME "LIBRARY" [env] RESULT PARAM...
 *                           native N (numbered in order from 0, like the
 *                           pools): C symbol NAME in LIBRARY, whether it
 *                           takes the env, its result and parameter types
 *                           (program.h, ProgNative)
 *
 * Opcodes are the lower-case names of opcodes.h.  Operands: jumps take a
 * LABEL or a signed byte offset from the instruction (+7, -12); call takes
 * a method, new a class, get/putf* a field, get/puts* a static (an index, or
 * Owner.name, Name for a class); newarr a TYPE; calln a native's index;
 * everything else a NUMBER.
 * The header directives come before the method's first instruction; any
 * directive other than .line and .bytes ends the method.
 *
 * What the assembler checks is what a .bc file must satisfy to be read at
 * all (bcformat.c): declarations complete and numbered without gaps, type
 * indexes declared, locals enough for the parameters, labels and names
 * resolved, operands that fit their encoding.  It does not check what the
 * code does (operand indexes, types, stack depths, jump targets given as
 * offsets): that is the verifier's job, which asm_parse_verified runs and
 * asm_parse does not, so tests can assemble programs the verifier rejects.
 *
 * Invariant: a method's code is emitted in order, so "the current pc" is its
 * length so far; forward references (labels, and names of methods, classes,
 * fields and statics) get a zero placeholder and a fix-up record, patched
 * when the method ends (labels) or when the whole text is read (names).
 */
#include "asm.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vm/limits.h"
#include "vm/opcodes.h"
#include "vm/verify/verify.h"

typedef struct Token {
    char *text;   /* NUL-terminated; quoted strings are decoded */
    size_t len;
    bool quoted;
} Token;

typedef struct Label {
    char *name;
    uint32_t pc, line;
} Label;

/* A jump operand waiting for its label: the operand is at code[at], the
 * instruction at code[pc]. */
typedef struct LabelUse {
    char *name;
    uint32_t pc, at, line;
} LabelUse;

/* A u16 operand (or the entry directive) naming a method, class, field or
 * static, resolved once every declaration has been read. */
typedef struct NameUse {
    char *name;
    int opcode;       /* which kind of name: CALL, NEW, a field or static op; -1 for .entry */
    uint32_t method;  /* where the operand is: methods[method].code[at] */
    uint32_t at, line;
} NameUse;

/* Where a field or static was declared. */
typedef struct MemberSource {
    bool defined;
    uint32_t line;
} MemberSource;

typedef struct MethodSource {
    bool defined;
    uint32_t line;    /* of its .method directive */
    LineEntry *pcs;   /* where each instruction came from, in pc order, for verifier errors */
    uint32_t num_pcs, cap_pcs;
} MethodSource;

typedef struct Asm {
    const char *name;
    char *err;
    size_t errsize;
    uint32_t line;         /* current line, 1-based */
    uint32_t total_lines;
    Program *p;
    /* Capacities of the growing arrays in p. */
    uint32_t cap_types, cap_ints, cap_doubles, cap_strings, cap_classes, cap_fields, cap_statics, cap_methods;
    /* Where each declaration is, in arrays parallel to p's, with their own
     * capacities. */
    uint32_t *type_lines, *class_lines;
    MemberSource *field_sources, *static_sources;
    MethodSource *method_sources;
    uint32_t cap_type_lines, cap_class_lines, cap_field_sources, cap_static_sources, cap_method_sources;
    uint32_t entry_line;
    uint32_t *native_lines;   /* where each native was declared */
    uint32_t cap_natives, cap_native_lines;
    uint32_t current_class;   /* PROG_NONE before the first .class */
    /* The method being assembled (PROG_NONE if none). */
    uint32_t current_method;
    bool has_params, has_returns, has_plocals, has_rlocals, has_stack, in_code;
    uint8_t *code;
    uint32_t code_len, code_cap;
    LineEntry *lines;
    uint32_t num_lines, cap_lines, last_line_directive;
    Label *labels;
    uint32_t num_labels, cap_labels;
    LabelUse *label_uses;
    uint32_t num_label_uses, cap_label_uses;
    NameUse *name_uses;
    uint32_t num_name_uses, cap_name_uses;
    /* The current line's tokens. */
    Token *tokens;
    uint32_t num_tokens, cap_tokens;
    char *scratch;
    size_t cap_scratch;
} Asm;

__attribute__((format(printf, 3, 4))) static bool error_at(Asm *a, uint32_t line, const char *fmt, ...) {
    int used = snprintf(a->err, a->errsize, "%s:%u: ", a->name, line);
    if (used >= 0 && (size_t)used < a->errsize) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(a->err + used, a->errsize - (size_t)used, fmt, ap);
        va_end(ap);
    }
    return false;
}

#define error(a, ...) error_at((a), (a)->line, __VA_ARGS__)

/* `items` (an array of `size`-byte items with capacity *cap) grown to hold
 * at least `need` items, the new ones zeroed; NULL when out of memory, with
 * `items` still valid. */
static void *grown(Asm *a, void *items, uint32_t *cap, uint32_t need, size_t size) {
    if (need <= *cap) return items;
    uint32_t new_cap = *cap ? *cap : 8;
    while (new_cap < need) new_cap = new_cap > UINT32_MAX / 2 ? need : new_cap * 2;
    char *bigger = realloc(items, (size_t)new_cap * size);
    if (!bigger) {
        error(a, "out of memory");
        return NULL;
    }
    memset(bigger + (size_t)*cap * size, 0, (size_t)(new_cap - *cap) * size);
    *cap = new_cap;
    return bigger;
}

/* Grows `array` in place (see grown); false when out of memory.  A GNU
 * statement expression, so that the array keeps its old value on failure
 * and the program being built can still be freed. */
#define grow(a, array, cap, need)                                                    \
    ({                                                                               \
        void *bigger_ = grown((a), (array), &(cap), (need), sizeof *(array));         \
        if (bigger_) (array) = bigger_;                                              \
        bigger_ != NULL;                                                             \
    })

/* Appends to a class's member list, which has no capacity field: it is
 * reallocated when its count reaches a power of two. */
static bool append_member(Asm *a, uint32_t **list, uint32_t *count, uint32_t item) {
    uint32_t n = *count;
    if (n == 0 || (n & (n - 1)) == 0) {
        uint32_t *bigger = realloc(*list, (size_t)(n ? 2 * n : 1) * sizeof **list);
        if (!bigger) return error(a, "out of memory");
        *list = bigger;
    }
    (*list)[(*count)++] = item;
    return true;
}

static char *copy_string(Asm *a, const char *s) {
    char *copy = strdup(s);
    if (!copy) error(a, "out of memory");
    return copy;
}

/* ---- tokens -------------------------------------------------------------------- */

static int hex_digit(int ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

static bool is_blank(int ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f'; }

/* Decodes a quoted string starting at line[*i] (the opening quote) into *out. */
static bool read_quoted(Asm *a, const char *line, size_t len, size_t *i, char **out) {
    char *o = *out;
    for ((*i)++;; (*i)++) {
        if (*i >= len) return error(a, "unterminated string");
        char ch = line[*i];
        if (ch == '"') break;
        if (ch == '\\') {
            if (++*i >= len) return error(a, "unterminated string");
            switch (line[*i]) {
            case 'n': ch = '\n'; break;
            case 't': ch = '\t'; break;
            case 'r': ch = '\r'; break;
            case '"': ch = '"'; break;
            case '\\': ch = '\\'; break;
            case 'x': {
                int hi = *i + 1 < len ? hex_digit((unsigned char)line[*i + 1]) : -1;
                int lo = *i + 2 < len ? hex_digit((unsigned char)line[*i + 2]) : -1;
                if (hi < 0 || lo < 0) return error(a, "\\x needs two hexadecimal digits");
                ch = (char)(hi * 16 + lo);
                *i += 2;
                break;
            }
            default: return error(a, "unknown escape \\%c", line[*i]);
            }
            if (ch == '\0') return error(a, "a string cannot contain a NUL byte");
        }
        *o++ = ch;
    }
    (*i)++;
    if (*i < len && !is_blank(line[*i])) return error(a, "expected a blank after the closing quote");
    *out = o;
    return true;
}

static bool tokenize(Asm *a, const char *line, size_t len) {
    a->num_tokens = 0;
    if (memchr(line, '\0', len)) return error(a, "NUL byte in the source");
    /* Each token's text, NUL-terminated, fits in 2 * len + 1 bytes. */
    if (2 * len + 1 > a->cap_scratch) {
        char *bigger = realloc(a->scratch, 2 * len + 1);
        if (!bigger) return error(a, "out of memory");
        a->scratch = bigger;
        a->cap_scratch = 2 * len + 1;
    }
    char *out = a->scratch;
    for (size_t i = 0; i < len;) {
        if (is_blank(line[i])) {
            i++;
            continue;
        }
        if (line[i] == ';') break;
        if (!grow(a, a->tokens, a->cap_tokens, a->num_tokens + 1)) return false;
        Token *t = &a->tokens[a->num_tokens++];
        t->text = out;
        t->quoted = line[i] == '"';
        if (t->quoted) {
            if (!read_quoted(a, line, len, &i, &out)) return false;
        } else {
            while (i < len && !is_blank(line[i])) *out++ = line[i++];
        }
        t->len = (size_t)(out - t->text);
        *out++ = '\0';
    }
    return true;
}

/* ---- numbers ------------------------------------------------------------------- */

/* A decimal or 0x-hex integer with an optional sign, in int64 range. */
static bool parse_int(const Token *t, int64_t *out) {
    if (t->quoted) return false;
    const char *s = t->text;
    bool negative = *s == '-';
    if (*s == '-' || *s == '+') s++;
    unsigned base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (!*s) return false;
    uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, v = 0;
    for (; *s; s++) {
        int d = hex_digit((unsigned char)*s);
        if (d < 0 || (unsigned)d >= base) return false;
        if (v > (limit - (unsigned)d) / base) return false;
        v = v * base + (unsigned)d;
    }
    *out = negative ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

static bool number_in(Asm *a, const Token *t, int64_t lo, int64_t hi, const char *what, int64_t *out) {
    if (!parse_int(t, out) || *out < lo || *out > hi)
        return error(a, "%s must be a number from %lld to %lld, not '%s'", what, (long long)lo, (long long)hi, t->text);
    return true;
}

static bool u32_operand(Asm *a, const Token *t, const char *what, uint32_t *out) {
    int64_t v;
    if (!number_in(a, t, 0, UINT32_MAX, what, &v)) return false;
    *out = (uint32_t)v;
    return true;
}

/* A double: decimal, inf, -inf, or its exact bits as bits=HHHHHHHHHHHHHHHH. */
static bool parse_double(Asm *a, const Token *t, double *out) {
    if (!t->quoted && strncmp(t->text, "bits=", 5) == 0 && t->len == 5 + 16) {
        uint64_t bits = 0;
        for (size_t i = 5; i < t->len; i++) {
            int d = hex_digit((unsigned char)t->text[i]);
            if (d < 0) return error(a, "bad double bits '%s'", t->text);
            bits = bits << 4 | (uint64_t)d;
        }
        memcpy(out, &bits, sizeof *out);
        return true;
    }
    char *end;
    *out = strtod(t->text, &end);
    if (t->quoted || t->len == 0 || *end != '\0') return error(a, "bad double '%s'", t->text);
    return true;
}

/* ---- declarations ------------------------------------------------------------------ */

static bool need_args(Asm *a, uint32_t min, uint32_t max, const char *usage) {
    uint32_t n = a->num_tokens - 1;
    if (n < min || n > max) return error(a, "usage: %s", usage);
    return true;
}

/* A pool entry's index must be the pool's next one. */
static bool next_index(Asm *a, const Token *t, uint32_t expected) {
    int64_t v;
    if (!parse_int(t, &v) || v != expected)
        return error(a, "expected index %u here ('%s'): pools are numbered in order from 0", expected, t->text);
    return true;
}

static bool append_type(Asm *a, const char *desc, uint32_t *out) {
    Program *p = a->p;
    if (!type_descriptor_valid(desc)) return error(a, "malformed type descriptor \"%s\"", desc);
    if (!grow(a, p->types, a->cap_types, p->num_types + 1) ||
        !grow(a, a->type_lines, a->cap_type_lines, p->num_types + 1))
        return false;
    char *copy = copy_string(a, desc);
    if (!copy) return false;
    a->type_lines[p->num_types] = a->line;
    p->types[p->num_types] = copy;
    *out = p->num_types++;
    return true;
}

/* A TYPE operand: an index of a type declared so far, or a descriptor. */
static bool type_operand(Asm *a, const Token *t, uint32_t *out) {
    Program *p = a->p;
    int64_t v;
    if (parse_int(t, &v)) {
        if (v < 0 || v >= p->num_types)
            return error(a, "type %s is not declared (declare it with .type first, or write its descriptor)", t->text);
        *out = (uint32_t)v;
        return true;
    }
    for (uint32_t i = 0; i < p->num_types; i++) {
        if (strcmp(p->types[i], t->text) == 0) {
            *out = i;
            return true;
        }
    }
    return append_type(a, t->text, out);
}

static bool type_list(Asm *a, uint32_t **out, uint32_t *count) {
    uint32_t n = a->num_tokens - 1;
    if (n == 0) return true;
    uint32_t *types = calloc(n, sizeof *types);
    if (!types) return error(a, "out of memory");
    *out = types;  /* owned by the method from now on, even if a type is bad */
    *count = n;
    for (uint32_t i = 0; i < n; i++)
        if (!type_operand(a, &a->tokens[i + 1], &types[i])) return false;
    return true;
}

static bool directive_type(Asm *a) {
    uint32_t index = 0;
    return need_args(a, 2, 2, ".type N DESCRIPTOR") && next_index(a, &a->tokens[1], a->p->num_types) &&
           append_type(a, a->tokens[2].text, &index);
}

static bool directive_int(Asm *a) {
    Program *p = a->p;
    int64_t v;
    if (!need_args(a, 2, 2, ".int N NUMBER") || !next_index(a, &a->tokens[1], p->num_ints)) return false;
    if (!parse_int(&a->tokens[2], &v)) return error(a, "bad int '%s'", a->tokens[2].text);
    if (!grow(a, p->ints, a->cap_ints, p->num_ints + 1)) return false;
    p->ints[p->num_ints++] = v;
    return true;
}

static bool directive_double(Asm *a) {
    Program *p = a->p;
    double v;
    if (!need_args(a, 2, 2, ".double N VALUE") || !next_index(a, &a->tokens[1], p->num_doubles) ||
        !parse_double(a, &a->tokens[2], &v))
        return false;
    if (!grow(a, p->doubles, a->cap_doubles, p->num_doubles + 1)) return false;
    p->doubles[p->num_doubles++] = v;
    return true;
}

static bool directive_string(Asm *a) {
    Program *p = a->p;
    if (!need_args(a, 2, 2, ".string N \"TEXT\"") || !next_index(a, &a->tokens[1], p->num_strings)) return false;
    if (!a->tokens[2].quoted) return error(a, "the text of a .string must be quoted");
    if (!grow(a, p->strings, a->cap_strings, p->num_strings + 1)) return false;
    char *chars = malloc(a->tokens[2].len + 1);
    if (!chars) return error(a, "out of memory");
    memcpy(chars, a->tokens[2].text, a->tokens[2].len + 1);
    p->strings[p->num_strings++] = (ProgString){chars, (uint32_t)a->tokens[2].len};
    return true;
}

static bool directive_class(Asm *a) {
    Program *p = a->p;
    if (!need_args(a, 1, 2, ".class NAME [SOURCE]")) return false;
    if (!grow(a, p->classes, a->cap_classes, p->num_classes + 1) ||
        !grow(a, a->class_lines, a->cap_class_lines, p->num_classes + 1))
        return false;
    ProgClass *c = &p->classes[p->num_classes++];
    c->name = copy_string(a, a->tokens[1].text);
    c->source_file = copy_string(a, a->num_tokens > 2 ? a->tokens[2].text : "");
    if (!c->name || !c->source_file) return false;
    a->class_lines[p->num_classes - 1] = a->line;
    a->current_class = p->num_classes - 1;
    return true;
}

/* The index N of a .field, .static or .method: any order, each once.  A
 * program can only number as many members as it has lines. */
static bool member_index(Asm *a, const char *what, uint32_t *out) {
    int64_t v;
    if (a->current_class == PROG_NONE) return error(a, "a .%s must follow a .class", what);
    if (!parse_int(&a->tokens[1], &v) || v < 0 || v >= a->total_lines)
        return error(a, "bad %s index '%s'", what, a->tokens[1].text);
    *out = (uint32_t)v;
    return true;
}

static bool directive_field(Asm *a, bool is_static) {
    Program *p = a->p;
    const char *what = is_static ? "static" : "field";
    uint32_t index = 0, type = 0;
    if (!need_args(a, 3, 3, is_static ? ".static N NAME TYPE" : ".field N NAME TYPE") ||
        !member_index(a, what, &index) || !type_operand(a, &a->tokens[3], &type))
        return false;
    bool grew = is_static ? grow(a, p->statics, a->cap_statics, index + 1) &&
                                grow(a, a->static_sources, a->cap_static_sources, index + 1)
                          : grow(a, p->fields, a->cap_fields, index + 1) &&
                                grow(a, a->field_sources, a->cap_field_sources, index + 1);
    if (!grew) return false;
    ProgField *f = is_static ? &p->statics[index] : &p->fields[index];
    MemberSource *src = is_static ? &a->static_sources[index] : &a->field_sources[index];
    uint32_t *count = is_static ? &p->num_statics : &p->num_fields;
    if (src->defined) return error(a, "%s %u is declared twice (first at line %u)", what, index, src->line);
    if (index >= *count) *count = index + 1;
    *src = (MemberSource){true, a->line};
    f->name = copy_string(a, a->tokens[2].text);
    f->type = type;
    f->owner_class = a->current_class;
    ProgClass *c = &p->classes[a->current_class];
    if (!f->name) return false;
    return is_static ? append_member(a, &c->statics, &c->num_statics, index)
                     : append_member(a, &c->fields, &c->num_fields, index);
}

static bool directive_method(Asm *a) {
    Program *p = a->p;
    uint32_t index = 0;
    if (!need_args(a, 3, 3, ".method N NAME static|instance") || !member_index(a, "method", &index)) return false;
    const char *kind = a->tokens[3].text;
    if (a->tokens[3].quoted || (strcmp(kind, "static") != 0 && strcmp(kind, "instance") != 0))
        return error(a, "expected static or instance, not '%s'", kind);
    if (!grow(a, p->methods, a->cap_methods, index + 1) ||
        !grow(a, a->method_sources, a->cap_method_sources, index + 1))
        return false;
    MethodSource *src = &a->method_sources[index];
    if (src->defined) return error(a, "method %u is declared twice (first at line %u)", index, src->line);
    src->defined = true;
    src->line = a->line;
    if (index >= p->num_methods) p->num_methods = index + 1;
    ProgMethod *m = &p->methods[index];
    m->name = copy_string(a, a->tokens[2].text);
    m->owner_class = a->current_class;
    m->is_static = kind[0] == 's';
    ProgClass *c = &p->classes[a->current_class];
    if (!m->name || !append_member(a, &c->methods, &c->num_methods, index)) return false;
    a->current_method = index;
    a->has_params = a->has_returns = a->has_plocals = a->has_rlocals = a->has_stack = a->in_code = false;
    a->code_len = a->num_lines = a->num_labels = a->num_label_uses = 0;
    return true;
}

/* .native N NAME "LIBRARY" [env] RESULT PARAM... */
static bool directive_native(Asm *a) {
    Program *p = a->p;
    if (!need_args(a, 4, 5 + PROG_MAX_PARAMS, ".native N NAME \"LIBRARY\" [env] RESULT PARAM...") ||
        !next_index(a, &a->tokens[1], p->num_natives))
        return false;
    if (!grow(a, p->natives, a->cap_natives, p->num_natives + 1) ||
        !grow(a, a->native_lines, a->cap_native_lines, p->num_natives + 1))
        return false;
    a->native_lines[p->num_natives] = a->line;
    ProgNative *n = &p->natives[p->num_natives++];
    n->name = copy_string(a, a->tokens[2].text);
    n->library = copy_string(a, a->tokens[3].text);
    uint32_t result = 4;
    n->takes_env = !a->tokens[4].quoted && strcmp(a->tokens[4].text, "env") == 0;
    if (n->takes_env) result++;
    if (result >= a->num_tokens) return error(a, "usage: .native N NAME \"LIBRARY\" [env] RESULT PARAM...");
    if (!n->name || !n->library || !type_operand(a, &a->tokens[result], &n->return_type)) return false;
    uint32_t count = a->num_tokens - result - 1;
    if (count > PROG_MAX_PARAMS) return error(a, "a native takes at most %u parameters", PROG_MAX_PARAMS);
    if (count == 0) return true;
    n->param_types = calloc(count, sizeof *n->param_types);
    if (!n->param_types) return error(a, "out of memory");
    n->num_params = count;
    for (uint32_t i = 0; i < count; i++)
        if (!type_operand(a, &a->tokens[result + 1 + i], &n->param_types[i])) return false;
    return true;
}

static bool directive_entry(Asm *a) {
    if (!need_args(a, 1, 1, ".entry METHOD")) return false;
    if (a->entry_line) return error(a, ".entry given twice (first at line %u)", a->entry_line);
    a->entry_line = a->line;
    int64_t v;
    if (parse_int(&a->tokens[1], &v)) {
        if (v < 0 || v > UINT32_MAX) return error(a, "bad method index '%s'", a->tokens[1].text);
        a->p->entry_method = (uint32_t)v;
        return true;
    }
    if (!grow(a, a->name_uses, a->cap_name_uses, a->num_name_uses + 1)) return false;
    NameUse *use = &a->name_uses[a->num_name_uses++];
    *use = (NameUse){copy_string(a, a->tokens[1].text), -1, PROG_NONE, 0, a->line};
    return use->name != NULL;
}

/* ---- method headers ------------------------------------------------------------------ */

static bool header_directive(Asm *a, const char *name, bool *seen) {
    if (a->current_method == PROG_NONE) return error(a, "%s outside a method", name);
    if (a->in_code) return error(a, "%s must come before the method's code", name);
    if (*seen) return error(a, "%s given twice", name);
    *seen = true;
    return true;
}

static bool method_header(Asm *a, const char *d) {
    ProgMethod *m = &a->p->methods[a->current_method];
    if (strcmp(d, ".params") == 0)
        return header_directive(a, d, &a->has_params) && type_list(a, &m->param_types, &m->num_params);
    if (strcmp(d, ".plocals") == 0)
        return header_directive(a, d, &a->has_plocals) && type_list(a, &m->prim_local_types, &m->num_prim_locals);
    if (strcmp(d, ".rlocals") == 0)
        return header_directive(a, d, &a->has_rlocals) && type_list(a, &m->ref_local_types, &m->num_ref_locals);
    if (strcmp(d, ".returns") == 0)
        return header_directive(a, d, &a->has_returns) && need_args(a, 1, 1, ".returns TYPE") &&
               type_operand(a, &a->tokens[1], &m->return_type);
    /* .stack */
    return header_directive(a, d, &a->has_stack) && need_args(a, 2, 2, ".stack PRIMITIVE REFERENCE") &&
           u32_operand(a, &a->tokens[1], "a stack depth", &m->max_pstack) &&
           u32_operand(a, &a->tokens[2], "a stack depth", &m->max_rstack);
}

/* ---- code ---------------------------------------------------------------------------- */

static bool emit(Asm *a, const uint8_t *bytes, uint32_t n) {
    if (n > UINT32_MAX - a->code_len) return error(a, "method too long");
    if (!grow(a, a->code, a->code_cap, a->code_len + n)) return false;
    memcpy(a->code + a->code_len, bytes, n);
    a->code_len += n;
    return true;
}

static bool emit_uint(Asm *a, uint32_t v, int size) {
    uint8_t bytes[4];
    op_operand_put(bytes, v, size);
    return emit(a, bytes, (uint32_t)size);
}

/* Starts an instruction (or raw bytes) at the current pc: it is code now,
 * and the verifier's errors at this pc belong to this line. */
static bool start_code(Asm *a) {
    if (a->current_method == PROG_NONE) return error(a, "code outside a method (add a .method)");
    MethodSource *src = &a->method_sources[a->current_method];
    if (!grow(a, src->pcs, src->cap_pcs, src->num_pcs + 1)) return false;
    src->pcs[src->num_pcs++] = (LineEntry){a->code_len, a->line};
    a->in_code = true;
    return true;
}

static bool directive_line(Asm *a) {
    uint32_t line;
    if (a->current_method == PROG_NONE) return error(a, ".line outside a method");
    if (!need_args(a, 1, 1, ".line N") || !u32_operand(a, &a->tokens[1], "a line number", &line)) return false;
    if (!grow(a, a->lines, a->cap_lines, a->num_lines + 1)) return false;
    a->lines[a->num_lines++] = (LineEntry){a->code_len, line};
    a->last_line_directive = a->line;
    return true;
}

static bool directive_bytes(Asm *a) {
    if (a->num_tokens < 2) return error(a, "usage: .bytes NUMBER...");
    if (!start_code(a)) return false;
    for (uint32_t i = 1; i < a->num_tokens; i++) {
        int64_t v;
        if (!number_in(a, &a->tokens[i], 0, 255, "a byte", &v) || !emit_uint(a, (uint32_t)v, 1)) return false;
    }
    return true;
}

static bool is_label_name(const char *s, size_t len) {
    if (len == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
    for (size_t i = 1; i < len; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) return false;
    return true;
}

/* "NAME:" defines a label; "N:" asserts the pc. */
static bool label_or_pc(Asm *a, Token *t) {
    if (a->current_method == PROG_NONE) return error(a, "label outside a method");
    t->text[--t->len] = '\0';
    int64_t pc;
    if (parse_int(t, &pc)) {
        if (pc != a->code_len) return error(a, "this instruction is at pc %u, not %s", a->code_len, t->text);
        return true;
    }
    if (!is_label_name(t->text, t->len)) return error(a, "bad label name '%s'", t->text);
    if (!grow(a, a->labels, a->cap_labels, a->num_labels + 1)) return false;
    Label *l = &a->labels[a->num_labels++];
    *l = (Label){copy_string(a, t->text), a->code_len, a->line};
    return l->name != NULL;
}

/* The opcode spelled `word`, or -1. */
static int find_opcode(const char *word, bool *wrong_case) {
    *wrong_case = false;
    for (int code = 0; code < 256; code++) {
        const char *name = op_info[code].name;
        if (!name || strlen(name) != strlen(word)) continue;
        bool exact = true, folded = true;
        for (size_t i = 0; name[i]; i++) {
            exact &= word[i] == tolower((unsigned char)name[i]);
            folded &= tolower((unsigned char)word[i]) == tolower((unsigned char)name[i]);
        }
        if (exact) return code;
        if (folded) *wrong_case = true;
    }
    return -1;
}

static bool takes_name(int op) {
    switch (op) {
    case OP_CALL: case OP_START: case OP_NEW:
    case OP_GETFP: case OP_PUTFP: case OP_GETFR: case OP_PUTFR:
    case OP_GETSP: case OP_PUTSP: case OP_GETSR: case OP_PUTSR:
        return true;
    default:
        return false;
    }
}

static bool name_operand(Asm *a, int op, const Token *t) {
    if (!grow(a, a->name_uses, a->cap_name_uses, a->num_name_uses + 1)) return false;
    NameUse *use = &a->name_uses[a->num_name_uses++];
    *use = (NameUse){copy_string(a, t->text), op, a->current_method, a->code_len, a->line};
    return use->name != NULL && emit_uint(a, 0, 2);
}

static bool jump_operand(Asm *a, uint32_t pc, const Token *t) {
    int64_t offset;
    if (!t->quoted && (t->text[0] == '+' || t->text[0] == '-'))
        return number_in(a, t, INT32_MIN, INT32_MAX, "a jump offset", &offset) && emit_uint(a, (uint32_t)offset, 4);
    if (!is_label_name(t->text, t->len)) return error(a, "a jump needs a label or a signed offset, not '%s'", t->text);
    if (!grow(a, a->label_uses, a->cap_label_uses, a->num_label_uses + 1)) return false;
    LabelUse *use = &a->label_uses[a->num_label_uses++];
    *use = (LabelUse){copy_string(a, t->text), pc, a->code_len, a->line};
    return use->name != NULL && emit_uint(a, 0, 4);
}

static bool instruction(Asm *a, const Token *tokens, uint32_t n) {
    bool wrong_case = false;
    int op = tokens[0].quoted ? -1 : find_opcode(tokens[0].text, &wrong_case);
    if (op < 0 && wrong_case) return error(a, "opcodes are written in lower case: '%s'", tokens[0].text);
    if (op < 0) return error(a, "unknown instruction '%s'", tokens[0].text);
    const char *name = tokens[0].text;
    int kind = op_info[op].operand;
    if (kind == OPND_NONE && n != 1) return error(a, "%s takes no operand", name);
    if (kind != OPND_NONE && n != 2) return error(a, "%s takes one operand", name);
    uint32_t pc = a->code_len;
    if (!start_code(a) || !emit_uint(a, (uint32_t)op, 1)) return false;
    const Token *t = &tokens[1];
    int64_t v;
    uint32_t type;
    switch (kind) {
    case OPND_NONE:
        return true;
    case OPND_U8:
        return number_in(a, t, 0, 255, "the operand", &v) && emit_uint(a, (uint32_t)v, 1);
    case OPND_I32:
        return number_in(a, t, INT32_MIN, INT32_MAX, "the operand", &v) && emit_uint(a, (uint32_t)v, 4);
    case OPND_JUMP:
        return jump_operand(a, pc, t);
    default: /* OPND_U16 */
        if (parse_int(t, &v)) {
            if (v < 0 || v > 65535) return error(a, "the operand must be a number from 0 to 65535, not '%s'", t->text);
            return emit_uint(a, (uint32_t)v, 2);
        }
        if (op == OP_NEWARR) {
            if (!type_operand(a, t, &type)) return false;
            if (type > 65535) return error(a, "type %u is past 65535, too far for an operand", type);
            return emit_uint(a, type, 2);
        }
        if (takes_name(op)) return name_operand(a, op, t);
        return error(a, "the operand must be a number from 0 to 65535, not '%s'", t->text);
    }
}

static bool code_line(Asm *a) {
    Token *first = &a->tokens[0];
    uint32_t skip = 0;
    if (!first->quoted && first->len > 1 && first->text[first->len - 1] == ':') {
        if (!label_or_pc(a, first)) return false;
        skip = 1;
    }
    if (skip == a->num_tokens) return true;
    return instruction(a, a->tokens + skip, a->num_tokens - skip);
}

/* ---- ending a method, and the whole text ------------------------------------------------ */

static int compare_labels(const void *x, const void *y) {
    const Label *a = x, *b = y;
    int by_name = strcmp(a->name, b->name);
    return by_name ? by_name : (a->line > b->line) - (a->line < b->line);
}

/* The first of the n sorted labels named `name`, or NULL. */
static const Label *find_label(const Label *sorted, uint32_t n, const char *name) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (strcmp(sorted[mid].name, name) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && strcmp(sorted[lo].name, name) == 0 ? &sorted[lo] : NULL;
}

/* Patches every jump to a label with its offset.  Sorting the labels keeps
 * this O(n log n) for methods with many labels. */
static bool resolve_labels(Asm *a) {
    if (a->num_labels > 1) qsort(a->labels, a->num_labels, sizeof *a->labels, compare_labels);
    for (uint32_t i = 1; i < a->num_labels; i++)
        if (strcmp(a->labels[i - 1].name, a->labels[i].name) == 0)
            return error_at(a, a->labels[i].line, "label %s defined twice (first at line %u)", a->labels[i].name,
                            a->labels[i - 1].line);
    for (uint32_t i = 0; i < a->num_label_uses; i++) {
        const LabelUse *use = &a->label_uses[i];
        const Label *target = find_label(a->labels, a->num_labels, use->name);
        if (!target) return error_at(a, use->line, "undefined label %s", use->name);
        uint32_t offset = target->pc - use->pc; /* wraps to the two's complement of a backward jump */
        op_operand_put(a->code + use->at, offset, 4);
    }
    return true;
}

static bool finish_method(Asm *a) {
    if (a->current_method == PROG_NONE) return true;
    Program *p = a->p;
    uint32_t mi = a->current_method;
    ProgMethod *m = &p->methods[mi];
    uint32_t decl = a->method_sources[mi].line;
    a->current_method = PROG_NONE;
    if (!resolve_labels(a)) return false;
    for (uint32_t i = 0; i < a->num_labels; i++) free(a->labels[i].name);
    for (uint32_t i = 0; i < a->num_label_uses; i++) free(a->label_uses[i].name);
    a->num_labels = a->num_label_uses = 0;
    if (!a->has_returns) return error_at(a, decl, "method %s has no .returns", m->name);
    if (!a->has_stack) return error_at(a, decl, "method %s has no .stack", m->name);
    if (a->num_lines > 0 && a->lines[a->num_lines - 1].pc >= a->code_len)
        return error_at(a, a->last_line_directive, ".line must come before an instruction");
    uint32_t prims = 0, refs = m->is_static ? 0 : 1;
    for (uint32_t i = 0; i < m->num_params; i++) {
        if (type_is_ref(p->types[m->param_types[i]])) refs++;
        else prims++;
    }
    if (m->num_prim_locals < prims || m->num_ref_locals < refs)
        return error_at(a, decl, "method %s has %u primitive and %u reference locals but needs %u and %u for its %s",
                        m->name, m->num_prim_locals, m->num_ref_locals, prims, refs,
                        m->is_static ? "parameters" : "receiver and parameters");
    /* Hand the buffers to the method. */
    m->code = a->code;
    m->code_len = a->code_len;
    m->lines = a->lines;
    m->num_lines = a->num_lines;
    a->code = NULL;
    a->lines = NULL;
    a->code_len = a->code_cap = a->num_lines = a->cap_lines = 0;
    return true;
}

/* The members of one kind, named "Owner.member" (the table owns the
 * names), sorted by name for the lookups. */
typedef struct MemberTable {
    ProgNamed *entries;
    uint32_t count;
} MemberTable;

static bool add_member(Asm *a, MemberTable *t, const char *owner, const char *member, uint32_t index) {
    size_t len = strlen(owner) + strlen(member) + 2;
    char *name = malloc(len);
    if (!name) return error(a, "out of memory");
    snprintf(name, len, "%s.%s", owner, member);
    t->entries[t->count++] = (ProgNamed){name, index};
    return true;
}

/* kind: OP_GETFP (fields), OP_GETSP (statics) or OP_CALL (methods). */
static bool build_table(Asm *a, MemberTable *t, int kind) {
    const Program *p = a->p;
    uint32_t n = kind == OP_GETFP ? p->num_fields : kind == OP_GETSP ? p->num_statics : p->num_methods;
    t->entries = calloc(n ? n : 1, sizeof *t->entries);
    t->count = 0;
    if (!t->entries) return error(a, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        bool ok;
        if (kind == OP_GETFP) ok = add_member(a, t, p->classes[p->fields[i].owner_class].name, p->fields[i].name, i);
        else if (kind == OP_GETSP) ok = add_member(a, t, p->classes[p->statics[i].owner_class].name, p->statics[i].name, i);
        else ok = add_member(a, t, p->classes[p->methods[i].owner_class].name, p->methods[i].name, i);
        if (!ok) return false;
    }
    program_sort_names(t->entries, t->count);
    return true;
}

static void free_table(MemberTable *t) {
    for (uint32_t i = 0; i < t->count; i++) free((char *)t->entries[i].name);
    free(t->entries);
}

/* Which table a name use looks in: NEW a class, field and static
 * instructions their kind, CALL and .entry a method. */
static int name_kind(int opcode) {
    switch (opcode) {
    case OP_NEW: return OP_NEW;
    case OP_GETFP: case OP_PUTFP: case OP_GETFR: case OP_PUTFR: return OP_GETFP;
    case OP_GETSP: case OP_PUTSP: case OP_GETSR: case OP_PUTSR: return OP_GETSP;
    default: return OP_CALL;
    }
}

static const char *kind_word(int kind) {
    return kind == OP_NEW ? "class" : kind == OP_GETFP ? "field" : kind == OP_GETSP ? "static" : "method";
}

static bool resolve_names(Asm *a) {
    if (a->num_name_uses == 0) return true;
    ProgClassIndex classes = {0};
    MemberTable fields = {0}, statics = {0}, methods = {0};
    bool ok = program_class_index_init(&classes, a->p) || error(a, "out of memory");
    ok = ok && build_table(a, &fields, OP_GETFP) && build_table(a, &statics, OP_GETSP) &&
         build_table(a, &methods, OP_CALL);
    for (uint32_t i = 0; ok && i < a->num_name_uses; i++) {
        const NameUse *use = &a->name_uses[i];
        int kind = name_kind(use->opcode);
        size_t len = strlen(use->name);
        const MemberTable *t = kind == OP_GETFP ? &fields : kind == OP_GETSP ? &statics : &methods;
        uint32_t index = kind == OP_NEW ? program_find_class(&classes, use->name, len)
                                        : program_find_name(t->entries, t->count, use->name, len);
        if (index == PROG_NONE) {
            ok = error_at(a, use->line, "no %s named %s", kind_word(kind), use->name);
        } else if (use->opcode < 0) {
            a->p->entry_method = index;
        } else if (index > 65535) {
            ok = error_at(a, use->line, "%s is index %u, past 65535, too far for an operand", use->name, index);
        } else {
            op_operand_put(a->p->methods[use->method].code + use->at, index, 2);
        }
    }
    program_class_index_free(&classes);
    free_table(&fields);
    free_table(&statics);
    free_table(&methods);
    return ok;
}

/* Fields, statics and methods are numbered from 0 without gaps. */
static bool check_complete(Asm *a) {
    const Program *p = a->p;
    const char *missing = NULL;
    uint32_t index = 0;
    for (uint32_t i = 0; i < p->num_fields && !missing; i++)
        if (!a->field_sources[i].defined) missing = "field", index = i;
    for (uint32_t i = 0; i < p->num_statics && !missing; i++)
        if (!a->static_sources[i].defined) missing = "static", index = i;
    for (uint32_t i = 0; i < p->num_methods && !missing; i++)
        if (!a->method_sources[i].defined) missing = "method", index = i;
    if (missing)
        return error_at(a, a->total_lines, "%s %u is not declared (%ss are numbered from 0 without gaps)", missing,
                        index, missing);
    return true;
}

static bool process_line(Asm *a) {
    if (a->num_tokens == 0) return true;
    const Token *first = &a->tokens[0];
    if (first->quoted || first->text[0] != '.') {
        return code_line(a);
    }
    const char *d = first->text;
    if (strcmp(d, ".line") == 0) return directive_line(a);
    if (strcmp(d, ".bytes") == 0) return directive_bytes(a);
    if (strcmp(d, ".params") == 0 || strcmp(d, ".returns") == 0 || strcmp(d, ".plocals") == 0 ||
        strcmp(d, ".rlocals") == 0 || strcmp(d, ".stack") == 0)
        return a->current_method == PROG_NONE ? error(a, "%s outside a method", d) : method_header(a, d);
    /* Every other directive ends the current method. */
    if (!finish_method(a)) return false;
    if (strcmp(d, ".type") == 0) return directive_type(a);
    if (strcmp(d, ".int") == 0) return directive_int(a);
    if (strcmp(d, ".double") == 0) return directive_double(a);
    if (strcmp(d, ".string") == 0) return directive_string(a);
    if (strcmp(d, ".class") == 0) return directive_class(a);
    if (strcmp(d, ".field") == 0) return directive_field(a, false);
    if (strcmp(d, ".static") == 0) return directive_field(a, true);
    if (strcmp(d, ".method") == 0) return directive_method(a);
    if (strcmp(d, ".entry") == 0) return directive_entry(a);
    if (strcmp(d, ".native") == 0) return directive_native(a);
    return error(a, "unknown directive %s", d);
}

static bool assemble_text(Asm *a, const char *text, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\n') a->total_lines++;
    a->total_lines++;
    for (size_t pos = 0; pos <= len;) {
        const char *eol = memchr(text + pos, '\n', len - pos);
        size_t line_len = eol ? (size_t)(eol - (text + pos)) : len - pos;
        a->line++;
        if (!tokenize(a, text + pos, line_len) || !process_line(a)) return false;
        pos += line_len + 1;
    }
    a->line = a->total_lines;
    if (!finish_method(a)) return false;
    if (!a->entry_line) return error(a, "no .entry directive");
    Program *p = a->p;
    if (!check_complete(a) || !resolve_names(a)) return false;
    if (p->entry_method >= p->num_methods)
        return error_at(a, a->entry_line, "entry method %u is not declared", p->entry_method);
    const char *why;
    if (!program_layout(p, &why)) return error(a, "%s", why);
    return true;
}

/* The line a verifier error is about. */
static uint32_t error_line(const Asm *a, const VerifyError *e) {
    switch (e->place) {
    case VERIFY_IN_CODE: {
        const MethodSource *src = &a->method_sources[e->method];
        const LineEntry *entry = program_line_entry(src->pcs, src->num_pcs, e->pc);
        return entry ? entry->line : src->line;
    }
    case VERIFY_IN_METHOD: return a->method_sources[e->method].line;
    case VERIFY_IN_TYPE: return a->type_lines[e->index];
    case VERIFY_IN_CLASS: return e->index < a->p->num_classes ? a->class_lines[e->index] : a->total_lines;
    case VERIFY_IN_FIELD: return a->field_sources[e->index].line;
    case VERIFY_IN_STATIC: return a->static_sources[e->index].line;
    case VERIFY_IN_ENTRY: return a->entry_line;
    case VERIFY_IN_NATIVE: return e->index < a->p->num_natives ? a->native_lines[e->index] : a->total_lines;
    }
    return a->total_lines;
}

static void asm_free(Asm *a) {
    for (uint32_t i = 0; i < a->num_labels; i++) free(a->labels[i].name);
    for (uint32_t i = 0; i < a->num_label_uses; i++) free(a->label_uses[i].name);
    for (uint32_t i = 0; i < a->num_name_uses; i++) free(a->name_uses[i].name);
    for (uint32_t i = 0; i < a->cap_method_sources; i++) free(a->method_sources[i].pcs);
    free(a->labels);
    free(a->label_uses);
    free(a->name_uses);
    free(a->method_sources);
    free(a->field_sources);
    free(a->static_sources);
    free(a->type_lines);
    free(a->class_lines);
    free(a->native_lines);
    free(a->code);
    free(a->lines);
    free(a->tokens);
    free(a->scratch);
}

static Program *assemble(const char *name, const char *text, size_t len, bool verify, char *err, size_t errsize) {
    Asm a = {.name = name, .err = err, .errsize = errsize, .current_class = PROG_NONE, .current_method = PROG_NONE};
    a.p = calloc(1, sizeof *a.p);
    bool ok = a.p ? assemble_text(&a, text, len) : error(&a, "out of memory");
    if (ok && verify) {
        VerifyError verr;
        if (!verify_program(a.p, &verr)) {
            char reason[512];
            verify_describe(a.p, &verr, reason, sizeof reason);
            ok = error_at(&a, error_line(&a, &verr), "%s", reason);
        }
    }
    asm_free(&a);
    if (!ok) {
        program_free(a.p);
        return NULL;
    }
    return a.p;
}

Program *asm_parse(const char *name, const char *text, size_t len, char *err, size_t errsize) {
    return assemble(name, text, len, false, err, errsize);
}

Program *asm_parse_verified(const char *name, const char *text, size_t len, char *err, size_t errsize) {
    return assemble(name, text, len, true, err, errsize);
}
