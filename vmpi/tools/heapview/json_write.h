/*
 * json_write.h -- a small JSON writer for heapview's page (page_write.c):
 * values go straight to a FILE as they are given, commas and all.  No json-c,
 * so the lab page's build (docs/lab.md), which has none, writes the same page.
 *
 * Strings are escaped as JSON requires, and "/" as "\/" too, so no
 * "</script>" in a name can end the page's data block early.
 */
#ifndef HEAPVIEW_JSON_WRITE_H
#define HEAPVIEW_JSON_WRITE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_WRITE_DEPTH 16

typedef struct {
    FILE *file;
    int depth;                             /* open objects and arrays */
    bool has_items[JSON_WRITE_DEPTH + 1];  /* per level: a value written, so the next needs a comma */
    bool after_key;                        /* a key written: its value follows with no comma */
} JsonWriter;

void jw_start(JsonWriter *writer, FILE *file);
void jw_open_object(JsonWriter *writer);
void jw_close_object(JsonWriter *writer);
void jw_open_array(JsonWriter *writer);
void jw_close_array(JsonWriter *writer);
/* Inside an object: the key the next value belongs to. */
void jw_key(JsonWriter *writer, const char *key);
void jw_int(JsonWriter *writer, int64_t value);
void jw_double(JsonWriter *writer, double value);
void jw_string(JsonWriter *writer, const char *text);
/* jw_key, then the value. */
void jw_member_int(JsonWriter *writer, const char *key, int64_t value);
void jw_member_string(JsonWriter *writer, const char *key, const char *text);

#endif
