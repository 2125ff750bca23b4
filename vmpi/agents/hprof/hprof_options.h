/*
 * hprof_options.h -- hprof's options, as the HPROF agent manual gives them
 * (section "Using the HPROF agent": the options table and its notes), with
 * the manual's defaults, parsed strictly.
 *
 * Every option of the manual is recognised.  One this version does not
 * implement yet is refused with a message saying so, never ignored: a
 * profile that silently lacks what was asked for would mislead.
 * docs/hprof.md lists what is implemented.
 */
#ifndef GCLAB_HPROF_OPTIONS_H
#define GCLAB_HPROF_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define HPROF_MAX_DEPTH 1024

typedef struct HprofOptions {
    bool heap_sites, heap_dump;  /* heap=sites|dump|all */
    bool cpu_times;              /* cpu=times */
    bool cpu_samples;            /* cpu=samples */
    bool cpu_old;                /* cpu=old */
    bool monitor;                /* monitor= the monitor sections (default n) */
    bool binary;                 /* format=b (hprof_binary.h), else text */
    char file[4096];             /* file= (default java.hprof.txt, java.hprof with format=b);
                                    with force=n and the file there, NAME.PID.txt instead */
    char net[300];               /* net=host:port, "" for none (then file= is unused) */
    int32_t depth;               /* depth= frames per trace (default 4) */
    int32_t interval;            /* interval= ms between CPU samples (default 10) */
    double cutoff;               /* cutoff= ratio below which sites are not listed */
    bool lineno;                 /* lineno= line numbers in traces (default y) */
    bool thread;                 /* thread= traces per thread (default n) */
    bool verbose;                /* verbose= messages about dumps (default y) */
    bool doe;                    /* doe= dump on exit (default y); else only on request */
    int32_t sample_interval;     /* sample= heap sampling interval in bytes: sampled
                                    sites (hprof_sampled.h); -1 when not given */
    bool sample_live;            /* sample_live= live estimates too, following the
                                    sampled objects through every free and move (default n) */
    char pprof_file[4096];       /* pprof= the tables as a gzipped pprof profile, or "" */
    char folded_file[4096];      /* folded= the tables as folded stacks, or "" */
    char folded_value[32];       /* folded_value= the kind of value folded stacks sum */
} HprofOptions;

typedef enum HprofParse {
    HPROF_PARSE_OK,
    HPROF_PARSE_HELP,  /* "help": the usage was asked for */
    HPROF_PARSE_ERROR, /* a message naming the option was printed */
} HprofParse;

/* Parses the -agentlib:hprof= string (written into, as strtok does). */
HprofParse hprof_parse_options(char *options, HprofOptions *opts);

/* The kind of value pprof shows and folded stacks count unless told:
 * inuse_space with heap=sites|all or sample= with sample_live=y,
 * alloc_space with sample= alone, else cpu (cpu=samples|times). */
const char *hprof_default_value_type(const HprofOptions *opts);

/* The manual's usage text, on `stream`. */
void hprof_print_usage(FILE *stream);

#endif
