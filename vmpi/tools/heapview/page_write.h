/*
 * page_write.h -- one self-contained HTML page of one or several runs
 * (docs/heapview.md): the page's style, script and data inline, under a
 * Content-Security-Policy that allows nothing else, so it opens from disk
 * with no network.
 */
#ifndef HEAPVIEW_PAGE_WRITE_H
#define HEAPVIEW_PAGE_WRITE_H

#include <stdbool.h>
#include <stddef.h>

#include "heap_model.h"

/* Writes the page to `path` through a temporary file renamed onto it, so a
 * failure leaves no half-written page; false, with why in err. */
bool page_write(const char *path, const char *title, HeapModel *const *models, size_t num_models, char *err,
                size_t err_size);

#endif
