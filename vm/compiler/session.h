/*
 * session.h -- one compilation: its memory and its first error.
 *
 * Every pass of the compiler (lexer, parser, checker, code generator) works
 * inside a Session.  Two things make the passes simple:
 *
 *   - Memory.  Tokens, the syntax tree, symbols and types come from the
 *     session's arena and are freed together when the compilation ends, so
 *     no pass frees anything.  The Program being built is the one exception:
 *     it is malloc'd (it outlives the session) and the session remembers it
 *     so that a failed compilation can free it.
 *
 *   - Errors.  The language reports only the first error, so a pass that
 *     finds one calls session_error(), which formats "path:line:col: message"
 *     and longjmps back to compile_source() (compile.c).  No pass needs to
 *     propagate failure, and an allocation never returns NULL.
 *
 * Invariant: everything a pass allocates is owned by the arena or reachable
 * from `program`, so bailing out at any point leaks nothing.
 */
#ifndef GCLAB_COMPILER_SESSION_H
#define GCLAB_COMPILER_SESSION_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include "vm/program.h"

/* A place in the source: 1-based line and byte column. */
typedef struct SrcPos {
    uint32_t line, col;
} SrcPos;

typedef struct ArenaChunk ArenaChunk;

typedef struct Session {
    const char *path;        /* the source path, as messages name it */
    char *err;               /* where the first error goes */
    size_t errsize;
    jmp_buf bail;            /* set by compile_source(); session_error() jumps here */
    ArenaChunk *chunks;      /* the arena: newest chunk first */
    Program *program;        /* the program under construction, freed on error */
} Session;

void session_init(Session *s, const char *path, char *err, size_t errsize);

/* Frees the arena (not the program). */
void session_release(Session *s);

/* Reports the first error at pos and abandons the compilation. */
_Noreturn void session_error(Session *s, SrcPos pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Zeroed arena memory; never returns NULL (bails with "out of memory"). */
void *session_alloc(Session *s, size_t size);

/* A NUL-terminated arena copy of len bytes. */
char *session_strndup(Session *s, const char *chars, size_t len);

/* malloc/realloc for memory the Program will own; never returns NULL. */
void *session_realloc(Session *s, void *ptr, size_t size);
char *session_strdup_heap(Session *s, const char *chars);

/* Grows a malloc'd array so that it holds at least `need` elements of `elem`
 * bytes, doubling its capacity; for arrays the Program owns. */
void *session_grow(Session *s, void *array, uint32_t *capacity, uint32_t need, size_t elem);

#endif
