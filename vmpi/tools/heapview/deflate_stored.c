/*
 * deflate_stored.c -- deflate_bytes (deflate.h) without zlib: a zlib stream
 * whose deflate blocks are stored, not compressed (RFC 1951, section 3.2.4),
 * for the lab page's build (docs/lab.md).  The page's data then travels
 * unpacked from the worker to the page, never over a network.
 */
#include "deflate.h"

#include <stdint.h>
#include <stdlib.h>

#define STORED_BLOCK_MAX 65535

/* RFC 1950's checksum of the uncompressed bytes. */
static uint32_t adler32(const unsigned char *bytes, size_t size) {
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < size; i++) {
        a = (a + bytes[i]) % 65521;
        b = (b + a) % 65521;
    }
    return b << 16 | a;
}

unsigned char *deflate_bytes(const void *bytes, size_t size, size_t *packed_size) {
    size_t blocks = size / STORED_BLOCK_MAX + 1; /* an empty input still needs its one last block */
    unsigned char *packed = malloc(2 + blocks * 5 + size + 4), *out = packed;
    if (!packed) return NULL;
    const unsigned char *in = bytes;
    *out++ = 0x78; /* deflate, 32 KiB window */
    *out++ = 0x01; /* no dictionary; 0x7801 is a multiple of 31 */
    size_t left = size;
    do {
        size_t length = left < STORED_BLOCK_MAX ? left : STORED_BLOCK_MAX;
        left -= length;
        *out++ = left == 0; /* BFINAL on the last, BTYPE 00: stored */
        *out++ = (unsigned char)length;
        *out++ = (unsigned char)(length >> 8);
        *out++ = (unsigned char)~length;
        *out++ = (unsigned char)(~length >> 8);
        for (size_t i = 0; i < length; i++) *out++ = *in++;
    } while (left);
    uint32_t check = adler32(bytes, size);
    for (int shift = 24; shift >= 0; shift -= 8) *out++ = (unsigned char)(check >> shift);
    *packed_size = (size_t)(out - packed);
    return packed;
}
