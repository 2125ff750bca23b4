/*
 * bcwrite.c -- writing a Program as a .bc image (format: bcformat.c).
 *
 * The writer trusts nothing and checks nothing: it writes each declared field
 * exactly as it holds, indexes included, so that even a program that would
 * fail verification (vmas --no-verify) can be written for a test to load.
 * Invariant of bc_write_file: the named file either keeps its old contents or
 * holds the whole new image; a half-written image only ever exists under a
 * temporary name, which is removed on every failure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bcformat.h"
#include "bytecode.h"

/* A growing output buffer; after a failed allocation it stays failed and
 * ignores further writes, so callers check once at the end. */
typedef struct ByteBuf {
    uint8_t *data;
    size_t len, cap;
    bool failed;
} ByteBuf;

static void put_bytes(ByteBuf *b, const void *src, size_t n) {
    if (b->failed || n == 0) return;
    if (n > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 256;
        while (n > cap - b->len) {
            if (cap > SIZE_MAX / 2) { b->failed = true; return; }
            cap *= 2;
        }
        uint8_t *grown = realloc(b->data, cap);
        if (!grown) { b->failed = true; return; }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, src, n);
    b->len += n;
}

/* Little-endian: the low byte first, whatever the host's byte order. */
static void put_uint(ByteBuf *b, uint64_t value, int size) {
    uint8_t bytes[8];
    for (int i = 0; i < size; i++) bytes[i] = (uint8_t)(value >> (8 * i));
    put_bytes(b, bytes, (size_t)size);
}

static void put_u8(ByteBuf *b, uint8_t v) { put_uint(b, v, 1); }
static void put_u16(ByteBuf *b, uint16_t v) { put_uint(b, v, 2); }
static void put_u32(ByteBuf *b, uint32_t v) { put_uint(b, v, 4); }

static void put_str_len(ByteBuf *b, const char *s, size_t len) {
    put_u32(b, (uint32_t)len);
    put_bytes(b, s, len);
}

/* A missing name (NULL) is written as the empty string. */
static void put_str(ByteBuf *b, const char *s) { put_str_len(b, s ? s : "", s ? strlen(s) : 0); }

static void put_u32_list(ByteBuf *b, uint32_t count, const uint32_t *items) {
    put_u32(b, count);
    for (uint32_t i = 0; i < count; i++) put_u32(b, items[i]);
}

static void put_fields(ByteBuf *b, uint32_t count, const ProgField *fields) {
    put_u32(b, count);
    for (uint32_t i = 0; i < count; i++) {
        put_str(b, fields[i].name);
        put_u32(b, fields[i].type);
        put_u32(b, fields[i].owner_class);
    }
}

static void put_method(ByteBuf *b, const ProgMethod *m) {
    put_str(b, m->name);
    put_u32(b, m->owner_class);
    put_u8(b, m->is_static ? BC_METHOD_STATIC : 0);
    put_u32_list(b, m->num_params, m->param_types);
    put_u32(b, m->return_type);
    put_u32_list(b, m->num_prim_locals, m->prim_local_types);
    put_u32_list(b, m->num_ref_locals, m->ref_local_types);
    put_u32(b, m->max_pstack);
    put_u32(b, m->max_rstack);
    put_u32(b, m->code_len);
    put_bytes(b, m->code, m->code_len);
    put_u32(b, m->num_lines);
    for (uint32_t i = 0; i < m->num_lines; i++) {
        put_u32(b, m->lines[i].pc);
        put_u32(b, m->lines[i].line);
    }
}

uint8_t *bc_serialize(const Program *p, size_t *len) {
    ByteBuf b = {0};
    put_bytes(&b, bc_magic, sizeof bc_magic);
    put_u16(&b, BC_VERSION_MAJOR);
    /* A program without natives is a 1.0 file, readable by older loaders. */
    put_u16(&b, p->num_natives > 0 ? BC_MINOR_NATIVES : 0);

    put_u32(&b, p->num_types);
    for (uint32_t i = 0; i < p->num_types; i++) put_str(&b, p->types[i]);
    put_u32(&b, p->num_ints);
    for (uint32_t i = 0; i < p->num_ints; i++) put_uint(&b, (uint64_t)p->ints[i], 8);
    put_u32(&b, p->num_doubles);
    for (uint32_t i = 0; i < p->num_doubles; i++) {
        uint64_t bits;
        memcpy(&bits, &p->doubles[i], sizeof bits);
        put_uint(&b, bits, 8);
    }
    put_u32(&b, p->num_strings);
    for (uint32_t i = 0; i < p->num_strings; i++) put_str_len(&b, p->strings[i].chars, p->strings[i].len);

    put_u32(&b, p->num_classes);
    for (uint32_t i = 0; i < p->num_classes; i++) {
        const ProgClass *c = &p->classes[i];
        put_str(&b, c->name);
        put_str(&b, c->source_file);
        put_u32_list(&b, c->num_fields, c->fields);
        put_u32_list(&b, c->num_statics, c->statics);
        put_u32_list(&b, c->num_methods, c->methods);
    }
    put_fields(&b, p->num_fields, p->fields);
    put_fields(&b, p->num_statics, p->statics);
    put_u32(&b, p->num_methods);
    for (uint32_t i = 0; i < p->num_methods; i++) put_method(&b, &p->methods[i]);
    if (p->num_natives > 0) {
        put_u32(&b, p->num_natives);
        for (uint32_t i = 0; i < p->num_natives; i++) {
            const ProgNative *n = &p->natives[i];
            put_str(&b, n->name);
            put_str(&b, n->library);
            put_u8(&b, n->takes_env ? BC_NATIVE_TAKES_ENV : 0);
            put_u32_list(&b, n->num_params, n->param_types);
            put_u32(&b, n->return_type);
        }
    }
    put_u32(&b, p->entry_method);

    if (b.failed) {
        free(b.data);
        return NULL;
    }
    *len = b.len;
    return b.data;
}

/* Writes all of data to fd, retrying short writes. */
static bool write_all(int fd, const uint8_t *data, size_t len) {
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        data += n;
        len -= (size_t)n;
    }
    return true;
}

bool bc_write_file(const Program *p, const char *path, char *err, size_t errsize) {
    size_t len;
    uint8_t *image = bc_serialize(p, &len);
    if (!image) {
        snprintf(err, errsize, "%s: cannot write: out of memory", path);
        return false;
    }
    /* The temporary file sits in the same directory as path, so rename()
     * replaces path in one step and never crosses a file system. */
    static const char suffix[] = ".tmp-XXXXXX";
    size_t path_len = strlen(path);
    char *tmp = malloc(path_len + sizeof suffix);
    if (!tmp) {
        free(image);
        snprintf(err, errsize, "%s: cannot write: out of memory", path);
        return false;
    }
    memcpy(tmp, path, path_len);
    memcpy(tmp + path_len, suffix, sizeof suffix);

    bool ok = false;
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errsize, "%s: cannot write: %s", path, strerror(errno));
        goto done;
    }
    /* mkstemp creates the file 0600; give it the mode a plain create would
     * (0666 less the umask).  umask() can only be read by setting it, so put
     * it straight back. */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0 || !write_all(fd, image, len)) {
        snprintf(err, errsize, "%s: cannot write: %s", path, strerror(errno));
        close(fd);
        unlink(tmp);
        goto done;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        snprintf(err, errsize, "%s: cannot write: %s", path, strerror(errno));
        unlink(tmp);
        goto done;
    }
    ok = true;
done:
    free(tmp);
    free(image);
    return ok;
}
