/*
 * vmrun.c -- runs a gclab program (docs/man/vmrun.1).
 *
 *   vmrun [options] PROG.bc|SOURCE [args]
 *
 * Order of a run (vmpi/control.h): parse the command line; load the program
 * (read once, then a .bc image through the loader, which verifies it, or
 * source text through the compiler, verified here as well); load the agents
 * in command-line order; offer the program to those that enabled
 * CLASS_LOAD_HOOK, loading and verifying each replacement; create the VM (collector, main thread, classes,
 * interned strings); post JVM_INIT_DONE; run main; leave through vm_exit,
 * which flushes the program's output and shuts the agents down.
 *
 * Exit status: the program's own; 1 for bad input, a runtime error, an
 * agent that fails to load or output that cannot be written; 2 for a bad
 * command line; 141 for output into a closed pipe; 128 + the signal when
 * SIGINT or SIGTERM stops the run.  Every failure prints one message on
 * stderr.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm/bytecode/bytecode.h"
#include "vm/compiler/compiler.h"
#include "options.h"
#include "vm/readfile.h"
#include "vm/verify/verify.h"
#include "vm/vm.h"
#include "vmpi/control.h"
#include "vmpi/post.h"

static bool ends_with(const char *s, const char *suffix) {
    size_t len = strlen(s), suffix_len = strlen(suffix);
    return len >= suffix_len && strcmp(s + len - suffix_len, suffix) == 0;
}

/* A compiled program is verified like a loaded one: a compiler bug must
 * stop here, not reach the interpreter.  A program over a limit (a type
 * nesting 300 arrays deep) is the program's fault, not the compiler's. */
static bool check_compiled(Program *program, const char *path) {
    VerifyError verr;
    if (!verify_program(program, &verr)) {
        char message[512];
        verify_describe(program, &verr, message, sizeof message);
        if (verr.over_limit) fprintf(stderr, "vmrun: %s: %s\n", path, message);
        else fprintf(stderr, "vmrun: internal error: %s: the compiler's output fails verification: %s\n", path,
                     message);
        return false;
    }
    return true;
}

/* Reads the file once, then loads it as a .bc image (by name or by magic)
 * or compiles it as source; on failure prints one message and returns NULL. */
static Program *load_program(const char *path) {
    char err[512];
    size_t len;
    uint8_t *data = read_whole_file(path, &len, err, sizeof err);
    if (!data) {
        fprintf(stderr, "%s\n", err);
        return NULL;
    }
    bool is_bc = ends_with(path, ".bc") || bc_has_magic(data, len);
    Program *program = is_bc ? bc_load_image(data, len, path, err, sizeof err)
                             : compile_source(path, (const char *)data, len, err, sizeof err);
    free(data);
    if (!program) {
        fprintf(stderr, "%s\n", err);
        return NULL;
    }
    if (!is_bc && !check_compiled(program, path)) {
        program_free(program);
        return NULL;
    }
    return program;
}

/* CLASS_LOAD_HOOK (vmpi.h): the program as a .bc image goes to the agents
 * that enabled the hook, and a replacement is loaded like a .bc file. */
typedef struct HookedProgram {
    Program *program;
    const char *path;
} HookedProgram;

static bool load_replacement(const uint8_t *image, size_t len, const char *agent, void *ctx) {
    HookedProgram *hooked = ctx;
    char name[512], err[1024];
    snprintf(name, sizeof name, "%s as replaced by agent '%s'", hooked->path, agent);
    Program *replacement = bc_load_image(image, len, name, err, sizeof err);
    if (!replacement) {
        fprintf(stderr, "vmrun: agent '%s': CLASS_LOAD_HOOK: the replacement program does not load: %s\n", agent, err);
        return false;
    }
    program_free(hooked->program);
    hooked->program = replacement;
    return true;
}

/* The program to run after the hook, or NULL (after one message). */
static Program *offer_program(Program *program, const char *path) {
    size_t len;
    uint8_t *image = bc_serialize(program, &len);
    if (!image) {
        fprintf(stderr, "vmrun: out of memory offering %s to CLASS_LOAD_HOOK\n", path);
        program_free(program);
        return NULL;
    }
    HookedProgram hooked = {program, path};
    bool ok = vmpi_send_class_load_hook(&image, &len, load_replacement, &hooked);
    free(image);
    if (ok) return hooked.program;
    program_free(hooked.program);
    return NULL;
}

int main(int argc, char **argv) {
    /* The program's output is fully buffered (flushed by vm_exit) unless a
     * person is watching it on a terminal. */
    static char stdout_buffer[1 << 16];
    if (!isatty(STDOUT_FILENO)) setvbuf(stdout, stdout_buffer, _IOFBF, sizeof stdout_buffer);
    /* A closed pipe is a write error the VM reports and exits on through
     * vm_exit (vm/interp/errors.c), not a death that skips the agents. */
    signal(SIGPIPE, SIG_IGN);
    if (!vm_install_signal_handlers()) {
        perror("vmrun: cannot install the signal handlers");
        return 1;
    }

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
    vmpi_set_strict(options.vmpi_strict);
    vmpi_set_hang_limit(options.vmpi_hang_limit_s);
    if (options.record_path && !vmpi_start_recording(options.record_path, err, sizeof err)) {
        fprintf(stderr, "vmrun: %s\n", err);
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
    if (vmpi_class_load_hook_enabled() && !(program = offer_program(program, options.program_path))) {
        vmpi_shutdown();
        return 1;
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
