/*
 * usage.h -- how gclab's command-line tools report a bad command line: one
 * line "TOOL: reason", then the tool's usage text, and exit status 2 (the
 * status every tool uses for bad usage, distinct from 1 for bad input).
 */
#ifndef GCLAB_TOOLS_USAGE_H
#define GCLAB_TOOLS_USAGE_H

#include <stdarg.h>
#include <stdio.h>

__attribute__((format(printf, 3, 4))) static inline int tool_usage_error(const char *tool, const char *usage,
                                                                          const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", tool);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fputs(usage, stderr);
    return 2;
}

#endif
