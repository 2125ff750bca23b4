/*
 * event_table_doc.c -- writes the generated part of docs/trace-format.md:
 * the trace format's version and the table of events and their fields, both
 * from the headers (vmpi.h's VMPI_EVENTS and VMPI_FIELDS_*, the trace
 * agent's TRACE_FORMAT_VERSION and TRACE_BINARY_VERSION), so the
 * documentation cannot drift from them.
 *
 *     event_table_doc FILE           rewrite the generated part of FILE
 *     event_table_doc --check FILE   exit 1 if FILE's generated part is stale
 *
 * The generated part is everything between the BEGIN_MARK and END_MARK
 * lines; the prose around it is left alone.  The build runs the first form
 * as `cmake --build build --target trace_format_doc`, and ctest the second.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/trace_binary.h"
#include "common/trace_output.h"
#include "vmpi.h"

#define BEGIN_MARK "<!-- BEGIN GENERATED: cmake --build build --target trace_format_doc -->\n"
#define END_MARK "<!-- END GENERATED -->\n"

/* Appends to a growing string; exits on out of memory (a build tool). */
typedef struct Text {
    char *bytes;
    size_t len, cap;
} Text;

static void append(Text *t, const char *s) {
    size_t n = strlen(s);
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->bytes = realloc(t->bytes, t->cap);
        if (!t->bytes) {
            fputs("event_table_doc: out of memory\n", stderr);
            exit(2);
        }
    }
    memcpy(t->bytes + t->len, s, n + 1);
    t->len += n;
}

static void generate(Text *t) {
    char line[256];
    snprintf(line, sizeof line, "Format `%s`, version %d; binary recording `%s`, version %d.\n\n",
             TRACE_FORMAT_NAME, TRACE_FORMAT_VERSION, TRACE_BINARY_NAME, TRACE_BINARY_VERSION);
    append(t, line);
    append(t, "| Code | Event | Fields, in order (kind) |\n|---:|---|---|\n");
#define FIELD_TEXT(member, kind, name) append(t, first ? "" : ", "), append(t, "`" #name "` (" #kind ")"), first = false;
#define EVENT_ROW(name, code, member)                                      \
    {                                                                      \
        bool first = true;                                                 \
        snprintf(line, sizeof line, "| %d | `%s` | ", code, #name);       \
        append(t, line);                                                   \
        VMPI_FIELDS_##member(FIELD_TEXT)                                   \
        append(t, first ? "none |\n" : " |\n");                          \
    }
    VMPI_EVENTS(EVENT_ROW)
#undef EVENT_ROW
#undef FIELD_TEXT
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    Text t = {0};
    char chunk[4096];
    size_t n;
    append(&t, "");
    while ((n = fread(chunk, 1, sizeof chunk - 1, f)) > 0) {
        chunk[n] = '\0';
        append(&t, chunk);
    }
    fclose(f);
    return t.bytes;
}

int main(int argc, char **argv) {
    bool check = argc == 3 && strcmp(argv[1], "--check") == 0;
    if (argc != 2 && !check) {
        fputs("usage: event_table_doc [--check] docs/trace-format.md\n", stderr);
        return 2;
    }
    const char *path = argv[argc - 1];
    char *old = read_file(path);
    if (!old) {
        perror(path);
        return 2;
    }
    char *begin = strstr(old, BEGIN_MARK);
    char *end = begin ? strstr(begin, END_MARK) : NULL;
    if (!end) {
        fprintf(stderr, "%s: no generated part (the lines %.*s and %.*s)\n", path,
                (int)strlen(BEGIN_MARK) - 1, BEGIN_MARK, (int)strlen(END_MARK) - 1, END_MARK);
        return 2;
    }
    Text updated = {0};
    append(&updated, "");
    begin += strlen(BEGIN_MARK);
    char saved = *begin;
    *begin = '\0';
    append(&updated, old);
    *begin = saved;
    generate(&updated);
    append(&updated, end);
    bool same = strcmp(updated.bytes, old) == 0;
    if (check) {
        if (!same)
            fprintf(stderr, "%s: the event table is stale: regenerate it with "
                            "`cmake --build build --target trace_format_doc`\n", path);
        return same ? 0 : 1;
    }
    if (same) return 0;
    /* Written whole or not at all: a temporary file renamed over the old. */
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f || fwrite(updated.bytes, 1, updated.len, f) != updated.len || fclose(f) != 0 ||
        rename(tmp, path) != 0) {
        perror(tmp);
        remove(tmp);
        return 2;
    }
    return 0;
}
