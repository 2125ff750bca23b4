/*
 * vmdis.c -- the gclab disassembler (docs/man/vmdis.1).
 *
 *   vmdis PROG.bc
 *
 * Loads PROG.bc through the loader (so it is parsed and verified exactly as
 * vmrun would) and prints it as assembly on stdout, in the syntax vmas reads:
 * `vmdis a.bc > a.s && vmas a.s -o b.bc` gives b.bc identical to a.bc.
 * Exit status: 0; 1 for a bad file ("NAME: offset N: reason") or a failed
 * write; 2 for a bad command line.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vm/asm/asm.h"
#include "vm/bytecode/bytecode.h"
#include "vm/tools/usage.h"

static const char usage[] = "usage: vmdis PROG.bc\n";

#define usage_error(...) tool_usage_error("vmdis", usage, __VA_ARGS__)

int main(int argc, char **argv) {
    const char *input = NULL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(usage, stdout);
            fputs("Verifies a gclab .bc file and prints it as assembly (the syntax vmas reads).\n", stdout);
            return 0;
        }
        if (arg[0] == '-' && arg[1] != '\0') return usage_error("unknown option '%s'", arg);
        if (input) return usage_error("more than one input file ('%s')", arg);
        input = arg;
    }
    if (!input) return usage_error("no input file");

    char err[1024];
    Program *program = bc_load_file(input, err, sizeof err);
    if (!program) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    asm_print(program, stdout);
    program_free(program);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "vmdis: cannot write the listing: %s\n", strerror(errno));
        return 1;
    }
    return 0;
}
