/*
 * lexer.h -- the tokens of the gclab language (docs/language.md) and the lexer
 * that turns source bytes into them.
 *
 * The whole file is tokenized up front into one array ending in TOK_EOF, so
 * the parser can look ahead as far as it likes (it needs three tokens to tell
 * `Tree[] t` from `a[i] = x`).  Literal values are decoded here: an integer or
 * character literal carries its int64 value, a double literal its double, a
 * string literal its bytes with escapes resolved.
 */
#ifndef GCLAB_COMPILER_LEXER_H
#define GCLAB_COMPILER_LEXER_H

#include <stddef.h>
#include <stdint.h>

#include "session.h"

/* Token kinds and how messages spell them. */
#define GCLAB_TOKENS(X) \
    X(EOF, "end of file") X(IDENT, "identifier") \
    X(INT_LIT, "integer") X(DOUBLE_LIT, "number") X(STRING_LIT, "string") \
    X(LPAREN, "'('") X(RPAREN, "')'") X(LBRACE, "'{'") X(RBRACE, "'}'") \
    X(LBRACKET, "'['") X(RBRACKET, "']'") X(SEMI, "';'") X(COMMA, "','") X(DOT, "'.'") \
    X(PLUS, "'+'") X(MINUS, "'-'") X(STAR, "'*'") X(SLASH, "'/'") X(PERCENT, "'%'") \
    X(BANG, "'!'") X(LT, "'<'") X(LE, "'<='") X(GT, "'>'") X(GE, "'>='") \
    X(EQ, "'=='") X(NE, "'!='") X(AMP, "'&'") X(CARET, "'^'") X(PIPE, "'|'") \
    X(ANDAND, "'&&'") X(OROR, "'||'") X(SHL, "'<<'") X(SHR, "'>>'") \
    X(ASSIGN, "'='") X(PLUS_ASSIGN, "'+='") X(MINUS_ASSIGN, "'-='") \
    X(STAR_ASSIGN, "'*='") X(SLASH_ASSIGN, "'/='") X(PERCENT_ASSIGN, "'%='") \
    X(PLUSPLUS, "'++'") X(MINUSMINUS, "'--'") \
    X(CLASS, "'class'") X(STATIC, "'static'") X(VAR, "'var'") X(IF, "'if'") \
    X(ELSE, "'else'") X(WHILE, "'while'") X(FOR, "'for'") X(BREAK, "'break'") \
    X(CONTINUE, "'continue'") X(RETURN, "'return'") X(SYNCHRONIZED, "'synchronized'") X(NEW, "'new'") X(THIS, "'this'") \
    X(TRUE, "'true'") X(FALSE, "'false'") X(NULL, "'null'") \
    X(VOID, "'void'") X(INT, "'int'") X(DOUBLE, "'double'") X(BOOL, "'bool'") \
    X(STRING, "'string'") X(BYTE, "'byte'") X(CHAR, "'char'") X(SHORT, "'short'") \
    X(INT32, "'int32'") X(FLOAT, "'float'")

typedef enum TokenKind {
#define GCLAB_TOKEN_ENUM(name, spelling) TOK_##name,
    GCLAB_TOKENS(GCLAB_TOKEN_ENUM)
#undef GCLAB_TOKEN_ENUM
} TokenKind;

typedef struct Token {
    TokenKind kind;
    SrcPos pos;
    union {
        int64_t int_value;       /* TOK_INT_LIT, including 'c' character literals */
        double double_value;     /* TOK_DOUBLE_LIT */
        struct {
            const char *chars;   /* TOK_STRING_LIT: decoded bytes, NUL-terminated */
            uint32_t len;
        } string;
        const char *name;        /* TOK_IDENT: NUL-terminated copy */
    } u;
} Token;

/* Tokenizes text[0..len); the result ends with a TOK_EOF token. */
Token *lex_source(Session *s, const char *text, size_t len, uint32_t *num_tokens);

/* "';'", "identifier", ... for messages. */
const char *token_spelling(TokenKind kind);

#endif
