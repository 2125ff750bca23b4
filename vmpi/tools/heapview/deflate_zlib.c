/*
 * deflate_zlib.c -- deflate_bytes (deflate.h) with zlib's compress2.
 */
#include "deflate.h"

#include <stdlib.h>
#include <zlib.h>

unsigned char *deflate_bytes(const void *bytes, size_t size, size_t *packed_size) {
    uLongf deflated_size = compressBound((uLong)size);
    unsigned char *deflated = malloc(deflated_size ? deflated_size : 1);
    if (!deflated || compress2(deflated, &deflated_size, bytes, (uLong)size, 6) != Z_OK) {
        free(deflated);
        return NULL;
    }
    *packed_size = deflated_size;
    return deflated;
}
