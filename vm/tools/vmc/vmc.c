/*
 * vmc.c -- the gclab compiler's command line:
 *
 *   vmc SOURCE [-o PROG.bc]
 *
 * Compiles SOURCE (docs/language.md) and writes the bytecode atomically, so a
 * failed compilation never leaves an output file.  Without -o the output is
 * SOURCE with its extension replaced by .bc.  Exit status: 0 on success, 1
 * for a compile or write error (one message on stderr), 2 for bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/bytecode/bytecode.h"
#include "vm/compiler/compiler.h"
#include "vm/program.h"
#include "vm/tools/usage.h"

static const char usage[] =
    "usage: vmc SOURCE [-o PROG.bc]\n"
    "Compiles a gclab source file to bytecode.\n"
    "  -o PROG.bc   output file (default: SOURCE with the extension .bc)\n"
    "  --help       show this help\n"
    "  --version    show the version\n";

#define usage_error(...) tool_usage_error("vmc", usage, __VA_ARGS__)

/* "dir/prog.gcl" -> "dir/prog.bc"; a name without extension gets ".bc" added. */
static char *default_output(const char *source) {
    const char *base = strrchr(source, '/');
    base = base ? base + 1 : source;
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot != base ? (size_t)(dot - source) : strlen(source);
    char *out = malloc(stem + 4);
    if (!out) return NULL;
    memcpy(out, source, stem);
    strcpy(out + stem, ".bc");
    return out;
}

int main(int argc, char **argv) {
    const char *source = NULL, *output = NULL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(arg, "--version") == 0) {
            printf("vmc (gclab) %s\n", GCLAB_VERSION);
            return 0;
        } else if (strcmp(arg, "-o") == 0) {
            if (i + 1 >= argc) return usage_error("%s needs a file name", arg);
            if (output) return usage_error("%s given twice", arg);
            output = argv[++i];
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return usage_error("unknown option '%s'", arg);
        } else {
            if (source) return usage_error("more than one source file ('%s')", arg);
            source = arg;
        }
    }
    if (!source) return usage_error("%s", "no source file");

    char *default_path = NULL;
    if (!output) {
        default_path = default_output(source);
        if (!default_path) {
            fprintf(stderr, "vmc: out of memory\n");
            return 1;
        }
        output = default_path;
    }
    if (strcmp(output, source) == 0) {
        free(default_path);
        return usage_error("the output would overwrite the source '%s'", source);
    }

    char err[1024];
    Program *p = compile_file(source, err, sizeof err);
    if (!p) {
        fprintf(stderr, "%s\n", err);
        free(default_path);
        return 1;
    }
    int status = 0;
    if (!bc_write_file(p, output, err, sizeof err)) {
        fprintf(stderr, "vmc: %s\n", err);
        status = 1;
    }
    program_free(p);
    free(default_path);
    return status;
}
