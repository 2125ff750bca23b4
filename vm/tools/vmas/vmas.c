/*
 * vmas.c -- the gclab assembler (docs/man/vmas.1).
 *
 *   vmas [--no-verify] PROG.s -o PROG.bc
 *
 * Assembles PROG.s (syntax: vm/asm/asm.c), lays the program out, verifies it
 * and writes PROG.bc atomically: on any error nothing is written.
 * --no-verify skips the verifier, so tests can produce .bc files the
 * loader must reject.  Exit status: 0; 1 for bad input or a failed write
 * (one message on stderr, "NAME:LINE: reason"); 2 for a bad command line.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/asm/asm.h"
#include "vm/bytecode/bytecode.h"
#include "vm/readfile.h"
#include "vm/tools/usage.h"

static const char usage[] = "usage: vmas [--no-verify] PROG.s -o PROG.bc\n";

#define usage_error(...) tool_usage_error("vmas", usage, __VA_ARGS__)

int main(int argc, char **argv) {
    const char *input = NULL, *output = NULL;
    bool verify = true;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(usage, stdout);
            fputs("Assembles gclab assembly (the syntax vmdis prints) into a verified .bc file.\n"
                  "  -o PROG.bc     the output file (required)\n"
                  "  --no-verify    write the program even if the verifier would reject it\n",
                  stdout);
            return 0;
        }
        if (strcmp(arg, "--no-verify") == 0) {
            verify = false;
        } else if (strcmp(arg, "-o") == 0) {
            if (++i == argc) return usage_error("-o needs a file name");
            if (output) return usage_error("more than one output file ('%s')", argv[i]);
            output = argv[i];
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return usage_error("unknown option '%s'", arg);
        } else {
            if (input) return usage_error("more than one input file ('%s')", arg);
            input = arg;
        }
    }
    if (!input) return usage_error("no input file");
    if (!output) return usage_error("no output file (use -o PROG.bc)");

    char err[1024];
    size_t len;
    uint8_t *text = read_whole_file(input, &len, err, sizeof err);
    if (!text) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    Program *program = verify ? asm_parse_verified(input, (const char *)text, len, err, sizeof err)
                              : asm_parse(input, (const char *)text, len, err, sizeof err);
    free(text);
    if (!program) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    bool written = bc_write_file(program, output, err, sizeof err);
    program_free(program);
    if (!written) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    return 0;
}
