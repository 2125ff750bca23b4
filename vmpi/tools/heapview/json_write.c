/*
 * json_write.c -- the page's JSON, written as it goes (json_write.h).
 */
#include "json_write.h"

#include <inttypes.h>
#include <stdlib.h>

/* Before a value: the comma that separates it from the one before. */
static void separate(JsonWriter *writer) {
    if (writer->after_key) {
        writer->after_key = false;
        return;
    }
    if (writer->has_items[writer->depth]) fputc(',', writer->file);
    writer->has_items[writer->depth] = true;
}

static void open_nested(JsonWriter *writer, char bracket) {
    separate(writer);
    fputc(bracket, writer->file);
    if (writer->depth < JSON_WRITE_DEPTH) writer->depth++; /* deeper than heapview's data never goes */
    writer->has_items[writer->depth] = false;
}

static void close_nested(JsonWriter *writer, char bracket) {
    fputc(bracket, writer->file);
    if (writer->depth > 0) writer->depth--;
}

void jw_start(JsonWriter *writer, FILE *file) {
    *writer = (JsonWriter){.file = file};
}

void jw_open_object(JsonWriter *writer) { open_nested(writer, '{'); }
void jw_close_object(JsonWriter *writer) { close_nested(writer, '}'); }
void jw_open_array(JsonWriter *writer) { open_nested(writer, '['); }
void jw_close_array(JsonWriter *writer) { close_nested(writer, ']'); }

static void quoted(FILE *file, const char *text) {
    fputc('"', file);
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\' || *c == '/')
            fprintf(file, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(file, "\\u%04x", *c);
        else
            fputc(*c, file);
    }
    fputc('"', file);
}

void jw_key(JsonWriter *writer, const char *key) {
    separate(writer);
    quoted(writer->file, key);
    fputc(':', writer->file);
    writer->after_key = true;
}

void jw_int(JsonWriter *writer, int64_t value) {
    separate(writer);
    fprintf(writer->file, "%" PRId64, value);
}

/* The shortest text that reads back as the same double; JSON has no NaN or infinity. */
void jw_double(JsonWriter *writer, double value) {
    separate(writer);
    if (value != value || value - value != 0) value = 0;
    char text[32];
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, value);
        if (strtod(text, NULL) == value) break;
    }
    fputs(text, writer->file);
}

void jw_string(JsonWriter *writer, const char *text) {
    separate(writer);
    quoted(writer->file, text);
}

void jw_member_int(JsonWriter *writer, const char *key, int64_t value) {
    jw_key(writer, key);
    jw_int(writer, value);
}

void jw_member_string(JsonWriter *writer, const char *key, const char *text) {
    jw_key(writer, key);
    jw_string(writer, text);
}
