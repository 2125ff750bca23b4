/*
 * compile.c -- the compiler driver (compiler.h): source text through the
 * lexer, parser, checker and code generator to a laid-out Program.
 *
 * compile_source() is the one place a compilation can fail to: every pass
 * reports an error by longjmp-ing here (session.h), where the half-built
 * program and the arena are freed.
 */
#include "compiler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/readfile.h"
#include "check.h"
#include "codegen.h"
#include "lexer.h"
#include "parser.h"
#include "session.h"

/* "dir/trees.gcl" -> "trees.gcl" */
static const char *base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The module class is named after the file: "dir/trees.gcl" -> "trees". */
static char *module_name(Session *s, const char *path) {
    const char *base = base_name(path);
    const char *dot = strrchr(base, '.');
    size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    return session_strndup(s, base, len);
}

Program *compile_source(const char *path, const char *text, size_t len, char *err, size_t errsize) {
    /* On the heap, so that nothing setjmp's caller frame holds changes
     * between setjmp and longjmp. */
    Session *s = malloc(sizeof *s);
    if (!s) {
        snprintf(err, errsize, "%s: out of memory", path);
        return NULL;
    }
    session_init(s, path, err, errsize);
    if (setjmp(s->bail)) {
        program_free(s->program);
        session_release(s);
        free(s);
        return NULL;
    }
    uint32_t num_tokens;
    Token *tokens = lex_source(s, text, len, &num_tokens);
    Module *m = parse_module(s, tokens, num_tokens, module_name(s, path), base_name(path));
    check_module(s, m);
    Program *p = codegen_module(s, m);
    const char *why;
    if (!program_layout(p, &why)) {
        SrcPos none = {0, 0};
        session_error(s, none, "internal error: %s", why);
    }
    session_release(s);
    free(s);
    return p;
}

Program *compile_file(const char *path, char *err, size_t errsize) {
    size_t len;
    uint8_t *text = read_whole_file(path, &len, err, errsize);
    if (!text) return NULL;
    Program *p = compile_source(path, (const char *)text, len, err, errsize);
    free(text);
    return p;
}
