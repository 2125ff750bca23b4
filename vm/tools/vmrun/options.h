/*
 * options.h -- vmrun's command line (docs/man/vmrun.1), parsed into
 * one record so that vmrun.c only acts on it and the unit tests can check
 * every rule of the parser without starting a process.
 *
 * Invariant: a record that vm_parse_command_line accepted is complete and
 * consistent (a registered collector, sizes in range, young below heap),
 * so nothing after parsing needs to check an option again.
 */
#ifndef GCLAB_INTERP_OPTIONS_H
#define GCLAB_INTERP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "vm/vm.h"

/* Defaults, also printed by --help. */
#define VM_DEFAULT_YOUNG_BYTES ((size_t)4 << 20) /* or a quarter of a smaller heap */
#define VM_DEFAULT_TENURE_AGE 2u
#define VM_MIN_HEAP_BYTES ((size_t)64 << 10)
#define VM_MIN_YOUNG_BYTES ((size_t)16 << 10)
#define VM_MAX_TENURE_AGE 15u

typedef struct AgentSpec {
    char *spec;         /* malloc'd: what followed -agentlib: or -agentpath:,
                           or -Xrun's NAME[:OPTIONS] as NAME[=OPTIONS] */
    bool is_path;       /* -agentpath */
} AgentSpec;

typedef struct RunOptions {
    VMOptions vm;
    AgentSpec *agents;      /* in command-line order */
    size_t num_agents;
    const char *program_path;
    int program_argc;       /* the program's own arguments */
    char **program_argv;
    bool help, version;     /* --help / --version: print and exit 0 */
    bool vmpi_strict;       /* --vmpi-strict: a breach of the agent contract ends the VM */
    unsigned vmpi_hang_limit_s; /* --vmpi-hang-limit: a handler this long ends a strict run */
    const char *record_path; /* --record: the VM's binary recording goes there (NULL: none) */
} RunOptions;

/* Parses argv[1 ..].  On success returns true; on a usage error returns
 * false with one message (without the "vmrun: " prefix) in err.  Free the
 * record with run_options_free either way. */
bool vm_parse_command_line(int argc, char **argv, RunOptions *options, char *err, size_t errsize);

void run_options_free(RunOptions *options);

/* Parses a size: decimal digits with an optional k, m or g suffix (powers of
 * 1024, either case).  `option` names the option in err. */
bool vm_parse_size(const char *text, const char *option, size_t *bytes, char *err, size_t errsize);

void vm_print_usage(FILE *out);

#endif
