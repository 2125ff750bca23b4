/*
 * disasm.c -- printing a Program as gclab assembly (syntax: asm.c).
 *
 * Invariant: for every program that verifies, asm_parse of the output gives a
 * program that serializes to the same bytes.  So the printer states every
 * pool entry, every index (types, fields, methods) as a number, every double
 * exactly, and every member in its class's list order; names and descriptors
 * are printed bare when the assembler would read them back unchanged and
 * quoted otherwise.  Everything after a ';' is a comment for people: the
 * descriptor behind a type index, the value behind a constant, the name
 * behind a method or field index.  A program that does not verify is printed
 * as faithfully as its bytes allow (out-of-range indexes get "?" comments,
 * undecodable code a .bytes line).
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vm/opcodes.h"
#include "asm.h"

/* Column at which comments start. */
#define COMMENT_COLUMN 40

/* Prints s quoted and escaped; returns the number of bytes printed. */
static int print_quoted(FILE *out, const char *s, size_t len) {
    int used = 2;
    fputc('"', out);
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        switch (ch) {
        case '\n': used += fprintf(out, "\\n"); break;
        case '\t': used += fprintf(out, "\\t"); break;
        case '\r': used += fprintf(out, "\\r"); break;
        case '"': used += fprintf(out, "\\\""); break;
        case '\\': used += fprintf(out, "\\\\"); break;
        default:
            /* Bytes of 0x80 and up pass through, so UTF-8 text stays readable. */
            if (ch < 0x20 || ch == 0x7f) {
                used += fprintf(out, "\\x%02x", ch);
            } else {
                fputc(ch, out);
                used++;
            }
        }
    }
    fputc('"', out);
    return used;
}

/* A word the assembler reads back unchanged when unquoted: printable ASCII
 * without blanks, quotes or backslashes, not starting a comment. */
static bool is_bare(const char *s) {
    if (!s[0] || s[0] == ';') return false;
    for (const char *c = s; *c; c++)
        if (*c <= ' ' || *c > '~' || *c == '"' || *c == '\\') return false;
    return true;
}

/* Returns the number of bytes printed. */
static int print_word(FILE *out, const char *s) {
    if (!s) s = "";
    if (!is_bare(s)) return print_quoted(out, s, strlen(s));
    fputs(s, out);
    return (int)strlen(s);
}

/* The shortest decimal that reads back as exactly the same bits; NaNs (whose
 * payload decimal cannot carry) as their bits. */
static void print_double(FILE *out, double d) {
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    if (isnan(d)) {
        fprintf(out, "bits=%016" PRIx64, bits);
        return;
    }
    if (isinf(d)) {
        fputs(d < 0 ? "-inf" : "inf", out);
        return;
    }
    char text[40];
    for (int precision = 1; precision <= 17; precision++) {
        snprintf(text, sizeof text, "%.*g", precision, d);
        double back = strtod(text, NULL);
        uint64_t back_bits;
        memcpy(&back_bits, &back, sizeof back_bits);
        if (back_bits == bits) break;
    }
    fputs(text, out);
}

/* Pads from column `used` to the comment column and starts a comment. */
static void comment(FILE *out, int used) {
    fprintf(out, "%*s; ", used < COMMENT_COLUMN ? COMMENT_COLUMN - used : 1, "");
}

static const char *desc_of(const Program *p, uint32_t type) { return type < p->num_types ? p->types[type] : "?"; }

static const char *class_name(const Program *p, uint32_t c) { return c < p->num_classes ? p->classes[c].name : "?"; }

/* ".params 0 1   ; J LTree;" */
static void print_type_list(FILE *out, const Program *p, const char *directive, uint32_t n, const uint32_t *types) {
    int used = fprintf(out, "    %s", directive);
    for (uint32_t i = 0; i < n; i++) used += fprintf(out, " %u", types[i]);
    if (n > 0) {
        comment(out, used);
        for (uint32_t i = 0; i < n; i++) fprintf(out, "%s%s", i ? " " : "", desc_of(p, types[i]));
    }
    fputc('\n', out);
}

static void print_member_comment(FILE *out, const Program *p, const ProgField *fields, uint32_t count, uint32_t n) {
    if (n < count)
        fprintf(out, "%s.%s %s", class_name(p, fields[n].owner_class), fields[n].name, desc_of(p, fields[n].type));
    else
        fputs("?", out);
}

/* The comment that names what an instruction's operand stands for. */
static void print_operand_comment(FILE *out, const Program *p, const ProgMethod *m, uint8_t op, uint32_t n) {
    switch (op) {
    case OP_LDI:
        if (n < p->num_ints) fprintf(out, "%" PRId64, p->ints[n]);
        else fputs("?", out);
        break;
    case OP_LDD:
        if (n < p->num_doubles) print_double(out, p->doubles[n]);
        else fputs("?", out);
        break;
    case OP_LDS:
        if (n < p->num_strings) print_quoted(out, p->strings[n].chars, p->strings[n].len < 40 ? p->strings[n].len : 40);
        else fputs("?", out);
        break;
    case OP_PLOAD: case OP_PSTORE: case OP_IINC:
        fputs(n < m->num_prim_locals ? desc_of(p, m->prim_local_types[n]) : "?", out);
        break;
    case OP_RLOAD: case OP_RSTORE:
        fputs(n < m->num_ref_locals ? desc_of(p, m->ref_local_types[n]) : "?", out);
        break;
    case OP_CALL: case OP_START:
        if (n < p->num_methods)
            fprintf(out, "%s.%s%s", class_name(p, p->methods[n].owner_class), p->methods[n].name,
                    p->methods[n].signature ? p->methods[n].signature : "");
        else
            fputs("?", out);
        break;
    case OP_CALLN:
        if (n < p->num_natives) fputs(p->natives[n].name, out);
        else fputs("?", out);
        break;
    case OP_NEW:
        fputs(class_name(p, n), out);
        break;
    case OP_GETFP: case OP_PUTFP: case OP_GETFR: case OP_PUTFR:
        print_member_comment(out, p, p->fields, p->num_fields, n);
        break;
    case OP_GETSP: case OP_PUTSP: case OP_GETSR: case OP_PUTSR:
        print_member_comment(out, p, p->statics, p->num_statics, n);
        break;
    case OP_NEWARR:
        fputs(desc_of(p, n), out);
        break;
    default:
        break;
    }
}

static bool has_comment(uint8_t op) {
    switch (op) {
    case OP_LDI: case OP_LDD: case OP_LDS: case OP_PLOAD: case OP_PSTORE: case OP_IINC: case OP_RLOAD:
    case OP_RSTORE: case OP_CALL: case OP_START: case OP_NEW: case OP_GETFP: case OP_PUTFP: case OP_GETFR:
    case OP_PUTFR: case OP_GETSP: case OP_PUTSP: case OP_GETSR: case OP_PUTSR: case OP_NEWARR: case OP_CALLN:
        return true;
    default:
        return false;
    }
}

/* Marks instruction starts (1) and the jump targets among them (2), so the
 * printer can label exactly the targets. */
static uint8_t *find_targets(const ProgMethod *m) {
    uint8_t *marks = calloc(m->code_len ? m->code_len : 1, 1);
    if (!marks) return NULL;
    for (uint32_t pc = 0; pc < m->code_len; pc += op_size(m->code[pc])) {
        uint8_t op = m->code[pc];
        if (!op_info[op].name || op_size(op) > m->code_len - pc) break;
        marks[pc] |= 1;
    }
    for (uint32_t pc = 0; pc < m->code_len; pc++) {
        if (!(marks[pc] & 1) || op_info[m->code[pc]].operand != OPND_JUMP) continue;
        int64_t target = (int64_t)pc + (int32_t)op_operand_get(m->code + pc + 1, 4);
        if (target >= 0 && target < m->code_len && (marks[target] & 1)) marks[target] |= 2;
    }
    return marks;
}

static void print_code(FILE *out, const Program *p, const ProgMethod *m) {
    uint8_t *marks = find_targets(m);
    uint32_t line = 0;
    uint32_t pc = 0;
    while (pc < m->code_len) {
        if (marks && (marks[pc] & 2)) fprintf(out, "L%u:\n", pc);
        for (; line < m->num_lines && m->lines[line].pc <= pc; line++) fprintf(out, "    .line %u\n", m->lines[line].line);
        uint8_t op = m->code[pc];
        if (!marks || !(marks[pc] & 1)) {
            /* Undecodable from here on: show the bytes as they are. */
            fputs("    .bytes", out);
            for (; pc < m->code_len; pc++) fprintf(out, " %u", m->code[pc]);
            fputc('\n', out);
            break;
        }
        int used = fprintf(out, "    %u: ", pc);
        for (const char *c = op_info[op].name; *c; c++, used++) fputc(tolower((unsigned char)*c), out);
        const uint8_t *at = m->code + pc + 1;
        uint32_t n = 0;
        switch (op_info[op].operand) {
        case OPND_U8: n = at[0]; used += fprintf(out, " %u", n); break;
        case OPND_U16: n = op_operand_get(at, 2); used += fprintf(out, " %u", n); break;
        case OPND_I32: used += fprintf(out, " %" PRId32, (int32_t)op_operand_get(at, 4)); break;
        case OPND_JUMP: {
            int32_t offset = (int32_t)op_operand_get(at, 4);
            int64_t target = (int64_t)pc + offset;
            if (target >= 0 && target < m->code_len && (marks[target] & 2)) used += fprintf(out, " L%" PRId64, target);
            else used += fprintf(out, " %+" PRId32, offset);
            break;
        }
        default: break;
        }
        if (has_comment(op)) {
            comment(out, used);
            print_operand_comment(out, p, m, op, n);
        }
        fputc('\n', out);
        pc += op_size(op);
    }
    for (; line < m->num_lines; line++) fprintf(out, "    .line %u\n", m->lines[line].line);
    free(marks);
}

static void print_method(FILE *out, const Program *p, uint32_t index) {
    const ProgMethod *m = &p->methods[index];
    fprintf(out, ".method %u ", index);
    print_word(out, m->name);
    fprintf(out, " %s\n", m->is_static ? "static" : "instance");
    print_type_list(out, p, ".params", m->num_params, m->param_types);
    int used = fprintf(out, "    .returns %u", m->return_type);
    comment(out, used);
    fprintf(out, "%s\n", desc_of(p, m->return_type));
    print_type_list(out, p, ".plocals", m->num_prim_locals, m->prim_local_types);
    print_type_list(out, p, ".rlocals", m->num_ref_locals, m->ref_local_types);
    fprintf(out, "    .stack %u %u\n", m->max_pstack, m->max_rstack);
    print_code(out, p, m);
}

static void print_field(FILE *out, const Program *p, const char *directive, const ProgField *fields, uint32_t count,
                        uint32_t index) {
    if (index >= count) return;
    const ProgField *f = &fields[index];
    int used = fprintf(out, "%s %u ", directive, index);
    used += print_word(out, f->name);
    used += fprintf(out, " %u", f->type);
    comment(out, used);
    fprintf(out, "%s\n", desc_of(p, f->type));
}

void asm_print(const Program *p, FILE *out) {
    fputs("; gclab assembly (vmas reads this back byte for byte)\n", out);
    for (uint32_t i = 0; i < p->num_types; i++) {
        fprintf(out, ".type %u ", i);
        print_word(out, p->types[i]);
        fputc('\n', out);
    }
    for (uint32_t i = 0; i < p->num_ints; i++) fprintf(out, ".int %u %" PRId64 "\n", i, p->ints[i]);
    for (uint32_t i = 0; i < p->num_doubles; i++) {
        fprintf(out, ".double %u ", i);
        print_double(out, p->doubles[i]);
        fputc('\n', out);
    }
    for (uint32_t i = 0; i < p->num_strings; i++) {
        fprintf(out, ".string %u ", i);
        print_quoted(out, p->strings[i].chars, p->strings[i].len);
        fputc('\n', out);
    }
    for (uint32_t c = 0; c < p->num_classes; c++) {
        const ProgClass *cls = &p->classes[c];
        int used = fprintf(out, "\n.class ") - 1;
        used += print_word(out, cls->name);
        used += fprintf(out, " ");
        used += print_word(out, cls->source_file);
        comment(out, used);
        fprintf(out, "class %u\n", c);
        for (uint32_t i = 0; i < cls->num_fields; i++) print_field(out, p, ".field", p->fields, p->num_fields, cls->fields[i]);
        for (uint32_t i = 0; i < cls->num_statics; i++)
            print_field(out, p, ".static", p->statics, p->num_statics, cls->statics[i]);
        for (uint32_t i = 0; i < cls->num_methods; i++)
            if (cls->methods[i] < p->num_methods) print_method(out, p, cls->methods[i]);
    }
    if (p->num_natives > 0) fputc('\n', out);
    for (uint32_t i = 0; i < p->num_natives; i++) {
        const ProgNative *n = &p->natives[i];
        int used = fprintf(out, ".native %u ", i);
        used += print_word(out, n->name);
        used += fputc(' ', out) != EOF;
        used += print_quoted(out, n->library, strlen(n->library));
        if (n->takes_env) used += fprintf(out, " env");
        used += fprintf(out, " %u", n->return_type);
        for (uint32_t a = 0; a < n->num_params; a++) used += fprintf(out, " %u", n->param_types[a]);
        comment(out, used);
        fprintf(out, "%s", desc_of(p, n->return_type));
        for (uint32_t a = 0; a < n->num_params; a++) fprintf(out, " %s", desc_of(p, n->param_types[a]));
        fputc('\n', out);
    }
    fputc('\n', out);
    int used = fprintf(out, ".entry %u", p->entry_method);
    comment(out, used);
    if (p->entry_method < p->num_methods)
        fprintf(out, "%s.%s\n", class_name(p, p->methods[p->entry_method].owner_class), p->methods[p->entry_method].name);
    else
        fputs("?\n", out);
}
