/*
 * session.c -- the compiler's arena and its first-error escape (session.h).
 *
 * The arena is a list of chunks; an allocation takes the next aligned bytes
 * of the newest chunk, or starts a new chunk big enough for it.
 */
#include "session.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK_SIZE (64u * 1024u)
#define ARENA_ALIGN 16u

struct ArenaChunk {
    ArenaChunk *next;
    size_t used, size;
    _Alignas(ARENA_ALIGN) unsigned char bytes[];
};

static const SrcPos no_pos = {0, 0};

void session_init(Session *s, const char *path, char *err, size_t errsize) {
    memset(s, 0, sizeof *s);
    s->path = path;
    s->err = err;
    s->errsize = errsize;
}

void session_release(Session *s) {
    ArenaChunk *c = s->chunks;
    while (c) {
        ArenaChunk *next = c->next;
        free(c);
        c = next;
    }
    s->chunks = NULL;
}

void session_error(Session *s, SrcPos pos, const char *fmt, ...) {
    if (s->err && s->errsize > 0) {
        int n;
        if (pos.line > 0)
            n = snprintf(s->err, s->errsize, "%s:%u:%u: ", s->path, pos.line, pos.col);
        else
            n = snprintf(s->err, s->errsize, "%s: ", s->path);
        if (n >= 0 && (size_t)n < s->errsize) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(s->err + n, s->errsize - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    longjmp(s->bail, 1);
}

void *session_alloc(Session *s, size_t size) {
    size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    ArenaChunk *c = s->chunks;
    if (!c || c->size - c->used < size) {
        size_t chunk_size = size > ARENA_CHUNK_SIZE ? size : ARENA_CHUNK_SIZE;
        c = malloc(sizeof *c + chunk_size);
        if (!c) session_error(s, no_pos, "out of memory");
        c->used = 0;
        c->size = chunk_size;
        c->next = s->chunks;
        s->chunks = c;
    }
    void *p = c->bytes + c->used;
    c->used += size;
    memset(p, 0, size);
    return p;
}

char *session_strndup(Session *s, const char *chars, size_t len) {
    char *copy = session_alloc(s, len + 1);
    memcpy(copy, chars, len);
    copy[len] = '\0';
    return copy;
}

void *session_realloc(Session *s, void *ptr, size_t size) {
    void *p = realloc(ptr, size ? size : 1);
    if (!p) session_error(s, no_pos, "out of memory");
    return p;
}

char *session_strdup_heap(Session *s, const char *chars) {
    size_t len = strlen(chars);
    char *copy = session_realloc(s, NULL, len + 1);
    memcpy(copy, chars, len + 1);
    return copy;
}

void *session_grow(Session *s, void *array, uint32_t *capacity, uint32_t need, size_t elem) {
    if (need <= *capacity) return array;
    uint32_t cap = *capacity ? *capacity : 8;
    while (cap < need) cap = cap > UINT32_MAX / 2 ? UINT32_MAX : cap * 2;
    array = session_realloc(s, array, (size_t)cap * elem);
    *capacity = cap;
    return array;
}
