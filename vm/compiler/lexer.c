/*
 * lexer.c -- source bytes to tokens (lexer.h).
 *
 * The lexer walks the bytes once, keeping the current line and the start of
 * that line so every token knows its 1-based line and byte column.  It stops
 * at the first malformed token with a message pointing at it.  The input is
 * a byte buffer with a length, not a C string: a NUL byte in the source is
 * just an unexpected character.
 */
#include "lexer.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct Lexer {
    Session *s;
    const char *p, *end;
    const char *line_start;
    uint32_t line;
    Token *tokens;
    uint32_t count, capacity;
} Lexer;

static const char *const token_spellings[] = {
#define GCLAB_TOKEN_SPELLING(name, spelling) spelling,
    GCLAB_TOKENS(GCLAB_TOKEN_SPELLING)
#undef GCLAB_TOKEN_SPELLING
};

const char *token_spelling(TokenKind kind) { return token_spellings[kind]; }

static const struct { const char *word; TokenKind kind; } keywords[] = {
    {"class", TOK_CLASS}, {"static", TOK_STATIC}, {"var", TOK_VAR}, {"if", TOK_IF},
    {"else", TOK_ELSE}, {"while", TOK_WHILE}, {"for", TOK_FOR}, {"break", TOK_BREAK},
    {"continue", TOK_CONTINUE}, {"return", TOK_RETURN}, {"new", TOK_NEW}, {"this", TOK_THIS},
    {"true", TOK_TRUE}, {"false", TOK_FALSE}, {"null", TOK_NULL}, {"void", TOK_VOID},
    {"int", TOK_INT}, {"double", TOK_DOUBLE}, {"bool", TOK_BOOL}, {"string", TOK_STRING},
    {"byte", TOK_BYTE}, {"char", TOK_CHAR}, {"short", TOK_SHORT}, {"int32", TOK_INT32},
    {"float", TOK_FLOAT}, {"synchronized", TOK_SYNCHRONIZED},
};

static SrcPos pos_at(const Lexer *lx, const char *at) {
    SrcPos pos = {lx->line, (uint32_t)(at - lx->line_start) + 1};
    return pos;
}

static bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }
static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static Token *push_token(Lexer *lx, TokenKind kind, const char *start) {
    if (lx->count == lx->capacity) {
        /* Arena memory: grow by copying; the old array is simply abandoned. */
        uint32_t cap = lx->capacity ? lx->capacity * 2 : 256;
        Token *bigger = session_alloc(lx->s, (size_t)cap * sizeof *bigger);
        if (lx->count) memcpy(bigger, lx->tokens, (size_t)lx->count * sizeof *bigger);
        lx->tokens = bigger;
        lx->capacity = cap;
    }
    Token *t = &lx->tokens[lx->count++];
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->pos = pos_at(lx, start);
    return t;
}

static _Noreturn void lex_error_bad_char(Lexer *lx, const char *at) {
    unsigned char c = (unsigned char)*at;
    if (c >= 0x21 && c < 0x7f)
        session_error(lx->s, pos_at(lx, at), "unexpected character '%c'", c);
    session_error(lx->s, pos_at(lx, at), "unexpected byte 0x%02x", c);
}

/* One escape sequence after a backslash at `at`; docs/language.md lists exactly
 * \n \t \r \" \\ \0. */
static char lex_escape(Lexer *lx, const char *at) {
    if (at + 1 >= lx->end) session_error(lx->s, pos_at(lx, at), "bad escape at end of file");
    switch (at[1]) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    case '"': return '"';
    case '\\': return '\\';
    case '0': return '\0';
    default: {
        unsigned char c = (unsigned char)at[1];
        if (c >= 0x21 && c < 0x7f) session_error(lx->s, pos_at(lx, at), "bad escape '\\%c'", c);
        session_error(lx->s, pos_at(lx, at), "bad escape");
    }
    }
}

static void lex_string(Lexer *lx) {
    const char *start = lx->p;
    /* The decoded bytes are never longer than the literal. */
    const char *q = start + 1;
    while (q < lx->end && *q != '"' && *q != '\n') q += (*q == '\\' && q + 1 < lx->end && q[1] != '\n') ? 2 : 1;
    if (q >= lx->end || *q != '"') session_error(lx->s, pos_at(lx, start), "unterminated string");
    char *chars = session_alloc(lx->s, (size_t)(q - start));
    uint32_t n = 0;
    for (const char *c = start + 1; c < q; c++) {
        char byte = *c;
        if (byte == '\\') {
            byte = lex_escape(lx, c);
            if (byte == '\0')
                session_error(lx->s, pos_at(lx, c), "'\\0' cannot appear in a string (strings hold no NUL byte)");
            c++;
        } else if (byte == '\0') {
            session_error(lx->s, pos_at(lx, c), "a string cannot hold a NUL byte");
        }
        chars[n++] = byte;
    }
    chars[n] = '\0';
    lx->p = q + 1;
    Token *t = push_token(lx, TOK_STRING_LIT, start);
    t->u.string.chars = chars;
    t->u.string.len = n;
}

/* 'c' is the int value of one byte, or of one escape. */
static void lex_char(Lexer *lx) {
    const char *start = lx->p;
    const char *q = start + 1;
    if (q >= lx->end || *q == '\n') session_error(lx->s, pos_at(lx, start), "unterminated character literal");
    if (*q == '\'') session_error(lx->s, pos_at(lx, start), "empty character literal");
    unsigned char value;
    if (*q == '\\') {
        value = (unsigned char)lex_escape(lx, q);
        q += 2;
    } else {
        value = (unsigned char)*q;
        q += 1;
    }
    if (q >= lx->end || *q != '\'') {
        while (q < lx->end && *q != '\'' && *q != '\n') q++;
        if (q < lx->end && *q == '\'')
            session_error(lx->s, pos_at(lx, start), "character literal holds more than one byte");
        session_error(lx->s, pos_at(lx, start), "unterminated character literal");
    }
    lx->p = q + 1;
    Token *t = push_token(lx, TOK_INT_LIT, start);
    t->u.int_value = value;
}

/* 42, 0x2a, 1.5, 2e9, 1.5e-3.  A hex literal is a 64-bit pattern (0xffffffffffffffff
 * is -1); a decimal integer must fit in int64. */
static void lex_number(Lexer *lx) {
    const char *start = lx->p, *q = start;
    if (q[0] == '0' && q + 1 < lx->end && (q[1] == 'x' || q[1] == 'X')) {
        q += 2;
        uint64_t value = 0;
        int digits = 0;
        while (q < lx->end && hex_value(*q) >= 0) {
            if (value >> 60) session_error(lx->s, pos_at(lx, start), "integer literal too large");
            value = value << 4 | (uint64_t)hex_value(*q);
            digits++;
            q++;
        }
        if (digits == 0 || (q < lx->end && is_ident_char(*q)))
            session_error(lx->s, pos_at(lx, start), "bad hex literal");
        lx->p = q;
        Token *t = push_token(lx, TOK_INT_LIT, start);
        int64_t as_signed;
        memcpy(&as_signed, &value, sizeof value);
        t->u.int_value = as_signed;
        return;
    }
    bool is_double = false;
    while (q < lx->end && is_digit(*q)) q++;
    if (q + 1 < lx->end && q[0] == '.' && is_digit(q[1])) {
        is_double = true;
        q++;
        while (q < lx->end && is_digit(*q)) q++;
    }
    if (q < lx->end && (*q == 'e' || *q == 'E')) {
        const char *e = q + 1;
        if (e < lx->end && (*e == '+' || *e == '-')) e++;
        if (e < lx->end && is_digit(*e)) {
            is_double = true;
            q = e;
            while (q < lx->end && is_digit(*q)) q++;
        }
    }
    if (q < lx->end && is_ident_char(*q)) session_error(lx->s, pos_at(lx, start), "bad number literal");
    lx->p = q;
    Token *t = push_token(lx, is_double ? TOK_DOUBLE_LIT : TOK_INT_LIT, start);
    if (is_double) {
        char *copy = session_strndup(lx->s, start, (size_t)(q - start));
        double value = strtod(copy, NULL);
        if (isinf(value)) session_error(lx->s, t->pos, "number literal too large");
        t->u.double_value = value;
    } else {
        uint64_t value = 0;
        for (const char *d = start; d < q; d++) {
            uint64_t digit = (uint64_t)(*d - '0');
            if (value > ((uint64_t)INT64_MAX - digit) / 10)
                session_error(lx->s, t->pos, "integer literal too large");
            value = value * 10 + digit;
        }
        t->u.int_value = (int64_t)value;
    }
}

static void lex_word(Lexer *lx) {
    const char *start = lx->p, *q = start;
    while (q < lx->end && is_ident_char(*q)) q++;
    lx->p = q;
    size_t len = (size_t)(q - start);
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++) {
        if (strlen(keywords[i].word) == len && memcmp(keywords[i].word, start, len) == 0) {
            push_token(lx, keywords[i].kind, start);
            return;
        }
    }
    Token *t = push_token(lx, TOK_IDENT, start);
    t->u.name = session_strndup(lx->s, start, len);
}

/* Operators: the longest spelling that matches wins. */
static const struct { const char *text; TokenKind kind; } operators[] = {
    {"&&", TOK_ANDAND}, {"||", TOK_OROR}, {"<<", TOK_SHL}, {">>", TOK_SHR},
    {"<=", TOK_LE}, {">=", TOK_GE}, {"==", TOK_EQ}, {"!=", TOK_NE},
    {"+=", TOK_PLUS_ASSIGN}, {"-=", TOK_MINUS_ASSIGN}, {"*=", TOK_STAR_ASSIGN},
    {"/=", TOK_SLASH_ASSIGN}, {"%=", TOK_PERCENT_ASSIGN}, {"++", TOK_PLUSPLUS}, {"--", TOK_MINUSMINUS},
    {"(", TOK_LPAREN}, {")", TOK_RPAREN}, {"{", TOK_LBRACE}, {"}", TOK_RBRACE},
    {"[", TOK_LBRACKET}, {"]", TOK_RBRACKET}, {";", TOK_SEMI}, {",", TOK_COMMA}, {".", TOK_DOT},
    {"+", TOK_PLUS}, {"-", TOK_MINUS}, {"*", TOK_STAR}, {"/", TOK_SLASH}, {"%", TOK_PERCENT},
    {"!", TOK_BANG}, {"<", TOK_LT}, {">", TOK_GT}, {"&", TOK_AMP}, {"^", TOK_CARET},
    {"|", TOK_PIPE}, {"=", TOK_ASSIGN},
};

static void lex_operator(Lexer *lx) {
    size_t left = (size_t)(lx->end - lx->p);
    for (size_t i = 0; i < sizeof operators / sizeof operators[0]; i++) {
        size_t n = strlen(operators[i].text);
        if (n <= left && memcmp(operators[i].text, lx->p, n) == 0) {
            push_token(lx, operators[i].kind, lx->p);
            lx->p += n;
            return;
        }
    }
    lex_error_bad_char(lx, lx->p);
}

Token *lex_source(Session *s, const char *text, size_t len, uint32_t *num_tokens) {
    Lexer lx = {.s = s, .p = text, .end = text + len, .line_start = text, .line = 1};
    while (lx.p < lx.end) {
        char c = *lx.p;
        if (c == '\n') {
            lx.p++;
            lx.line++;
            lx.line_start = lx.p;
        } else if (c == ' ' || c == '\t' || c == '\r') {
            lx.p++;
        } else if (c == '/' && lx.p + 1 < lx.end && lx.p[1] == '/') {
            while (lx.p < lx.end && *lx.p != '\n') lx.p++;
        } else if (is_ident_start(c)) {
            lex_word(&lx);
        } else if (is_digit(c)) {
            lex_number(&lx);
        } else if (c == '"') {
            lex_string(&lx);
        } else if (c == '\'') {
            lex_char(&lx);
        } else {
            lex_operator(&lx);
        }
    }
    push_token(&lx, TOK_EOF, lx.p);
    *num_tokens = lx.count;
    return lx.tokens;
}
