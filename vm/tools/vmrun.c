/*
 * vmrun.c -- runs a gclab program (DESIGN.md, "Command line").
 *
 *   vmrun [options] PROG.bc|SOURCE [args]
 *
 * Order of a run (vmpi/control.h): parse the command line; load the program
 * (a .bc file through the loader, which verifies it, or a source file through
 * the compiler, verified here as well); load the agents in command-line
 * order; create the VM (collector, main thread, classes, interned strings);
 * post JVM_INIT_DONE; run main; leave through vm_exit, which flushes the
 * program's output and shuts the agents down.
 *
 * Exit status: the program's own; 1 for bad input, a runtime error or an
 * agent that fails to load; 2 for a bad command line.  Every failure prints
 * one message on stderr.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vm/bytecode/bytecode.h"
#include "vm/compiler/compiler.h"
#include "vm/interp/options.h"
#include "vm/verify/verify.h"
#include "vm/vm.h"
#include "vmpi/control.h"
#include "vmpi/post.h"

#define BC_MAGIC "GCLB"

static bool ends_with(const char *s, const char *suffix) {
    size_t len = strlen(s), suffix_len = strlen(suffix);
    return len >= suffix_len && strcmp(s + len - suffix_len, suffix) == 0;
}

/* A compiled program is verified like a loaded one: a compiler bug must
 * stop here, not reach the interpreter. */
static bool check_compiled(Program *program, const char *path) {
    const char *why;
    if (!program_layout(program, &why)) {
        fprintf(stderr, "vmrun: internal error: %s: the compiler's output does not lay out: %s\n", path, why);
        return false;
    }
    VerifyError verr;
    if (!verify_program(program, &verr)) {
        char message[512];
        verify_describe(program, &verr, message, sizeof message);
        fprintf(stderr, "vmrun: internal error: %s: the compiler's output fails verification: %s\n", path,
                message);
        return false;
    }
    return true;
}

/* True if the file starts with the .bc magic.  An unreadable file is not
 * one: the compiler or loader then reports it in its own words. */
static bool has_bc_magic(const char *path) {
    FILE *file = fopen(path, "rb");
    if (!file) return false;
    char magic[sizeof BC_MAGIC - 1];
    size_t got = fread(magic, 1, sizeof magic, file);
    fclose(file);
    return got == sizeof magic && memcmp(magic, BC_MAGIC, sizeof magic) == 0;
}

/* Loads a .bc file (by name or by magic) or compiles a source file; on
 * failure prints one message and returns NULL. */
static Program *load_program(const char *path) {
    char err[512];
    Program *program;
    if (ends_with(path, ".bc") || has_bc_magic(path)) {
        program = bc_load_file(path, err, sizeof err);
        if (!program) fprintf(stderr, "%s\n", err);
        return program;
    }
    program = compile_file(path, err, sizeof err);
    if (!program) {
        fprintf(stderr, "%s\n", err);
        return NULL;
    }
    if (!check_compiled(program, path)) {
        program_free(program);
        return NULL;
    }
    return program;
}

int main(int argc, char **argv) {
    /* The program's output is fully buffered (flushed by vm_exit) unless a
     * person is watching it on a terminal. */
    static char stdout_buffer[1 << 16];
    if (!isatty(STDOUT_FILENO)) setvbuf(stdout, stdout_buffer, _IOFBF, sizeof stdout_buffer);

    RunOptions options;
    char err[512];
    if (!vm_parse_command_line(argc, argv, &options, err, sizeof err)) {
        fprintf(stderr, "vmrun: %s\n", err);
        run_options_free(&options);
        return 2;
    }
    if (options.help || options.version) {
        if (options.help) vm_print_usage(stdout);
        else printf("vmrun (gclab) %s\n", GCLAB_VERSION);
        run_options_free(&options);
        return 0;
    }

    Program *program = load_program(options.program_path);
    if (!program) {
        run_options_free(&options);
        return 1;
    }
    for (size_t i = 0; i < options.num_agents; i++) {
        if (!vmpi_load_agent(options.agents[i].spec, options.agents[i].is_path, err, sizeof err)) {
            fprintf(stderr, "vmrun: %s\n", err);
            vmpi_shutdown();
            return 1;
        }
    }
    VM *vm = vm_create(program, options.program_path, &options.vm);
    if (!vm) {
        vmpi_shutdown();
        return 1;
    }
    vmpi_post_jvm_init_done();
    int status = vm_run_main(vm, options.program_argc, options.program_argv);
    vm_exit(vm, status);
}
