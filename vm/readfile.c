/*
 * readfile.c -- reading a whole file into memory.  Works for files whose size
 * stat cannot tell (pipes, /proc): it reads until end of file, growing the
 * buffer, and the result is always followed by one NUL byte that is not
 * counted in the length.
 */
#include "readfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint8_t *read_whole_file(const char *path, size_t *len, char *err, size_t errsize) {
    FILE *file = fopen(path, "rb");
    if (!file) {
        snprintf(err, errsize, "%s: cannot read: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, used = 0;
    uint8_t *data = malloc(cap);
    while (data) {
        used += fread(data + used, 1, cap - used - 1, file);
        if (used < cap - 1) break;  /* end of file or an error: fread filled less than asked */
        uint8_t *grown = cap <= SIZE_MAX / 2 ? realloc(data, cap * 2) : NULL;
        if (!grown) {
            free(data);
            data = NULL;
            break;
        }
        data = grown;
        cap *= 2;
    }
    if (!data) {
        snprintf(err, errsize, "%s: cannot read: out of memory", path);
        fclose(file);
        return NULL;
    }
    if (ferror(file)) {
        snprintf(err, errsize, "%s: cannot read: %s", path, strerror(errno));
        free(data);
        fclose(file);
        return NULL;
    }
    fclose(file);
    data[used] = 0;
    *len = used;
    return data;
}
