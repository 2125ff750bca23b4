/*
 * deflate.h -- packs the page's bulky data (page_write.c) as a zlib stream
 * (RFC 1950), which the page inflates with the browser's own
 * DecompressionStream("deflate").  Natively zlib compresses it
 * (deflate_zlib.c); the lab page's build (docs/lab.md), which has no zlib,
 * stores it uncompressed in the same format (deflate_stored.c).
 */
#ifndef HEAPVIEW_DEFLATE_H
#define HEAPVIEW_DEFLATE_H

#include <stddef.h>

/* `size` bytes as a zlib stream, its length in *packed_size; NULL if memory ran out. */
unsigned char *deflate_bytes(const void *bytes, size_t size, size_t *packed_size);

#endif
