/*
 * hprof_options.c -- parsing hprof's options (see hprof_options.h).
 */
#include "hprof_options.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/agent_common.h"
#include "hprof_stacks.h"

void hprof_print_usage(FILE *stream) {
    fputs("     HPROF: Heap and CPU Profiling Agent (gclab VMPI)\n"
          "hprof usage: vmrun -agentlib:hprof=[help]|[<option>=<value>, ...]\n"
          "\n"
          "Option Name and Value  Description                    Default\n"
          "---------------------  -----------                    -------\n"
          "heap=dump|sites|all    heap profiling                 all\n"
          "cpu=samples|times|old  CPU usage                      off\n"
          "monitor=y|n            monitor contention             n\n"
          "format=a|b             text(txt) or binary output     a\n"
          "file=<file>            write data to file             java.hprof[.txt]\n"
          "net=<host>:<port>      send data over a socket        off\n"
          "depth=<size>           stack trace depth              4\n"
          "interval=<ms>          sample interval in ms          10\n"
          "cutoff=<value>         output cutoff point            0.0001\n"
          "lineno=y|n             line number in traces?         y\n"
          "thread=y|n             thread in traces?              n\n"
          "doe=y|n                dump on exit?                  y\n"
          "msa=y|n                Solaris micro state accounting n\n"
          "force=y|n              force output to <file>         y\n"
          "verbose=y|n            print messages about dumps     y\n"
          "sample=<bytes>         sampled allocation sites       off\n"
          "sample_live=y|n        sampled sites' live estimates  n\n"
          "pprof=<file>           also as a gzipped pprof profile off\n"
          "folded=<file>          also as folded stacks          off\n"
          "folded_value=<kind>    what folded stacks count       inuse_space|alloc_space|cpu\n"
          "\n"
          "msa has no effect (Solaris only).  heap=all is the default only when\n"
          "neither heap= nor cpu= is given.\n"
          "\n"
          "Example:\n"
          "  - Get heap usage information based on the allocation sites:\n"
          "      vmrun -agentlib:hprof=heap=sites PROG.bc\n"
          "  - Get allocation sites estimated from heap sampling every 512 KiB on\n"
          "    average (instead of heap=; cheap, no live counts):\n"
          "      vmrun -agentlib:hprof=sample=524288 PROG.bc\n"
          "  - The same with live estimates (costlier: follows every free and move):\n"
          "      vmrun -agentlib:hprof=sample=524288,sample_live=y PROG.bc\n"
          "  - Get sample cpu information every 20 millisec, with a stack depth of 3:\n"
          "      vmrun -agentlib:hprof=cpu=samples,interval=20,depth=3 PROG.bc\n"
          "  - Get method call counts and times by call trace:\n"
          "      vmrun -agentlib:hprof=cpu=times PROG.bc\n"
          "  - The allocation sites for go tool pprof, and allocated bytes for a flame graph:\n"
          "      vmrun -agentlib:hprof=heap=sites,pprof=heap.pb.gz,folded=heap.folded,folded_value=alloc_space PROG.bc\n",
          stream);
}

/* One line naming what is wrong with `name`, then where the options are
 * listed (the usage is 45 lines: printed here it would bury the error). */
static HprofParse refuse(const char *name, const char *value, const char *why) {
    fprintf(stderr, "hprof: option '%s%s%s': %s\n", name, value ? "=" : "", value ? value : "", why);
    fprintf(stderr, "hprof: -agentlib:hprof=help lists every option\n");
    return HPROF_PARSE_ERROR;
}

static bool is_yes_no(const char *value) {
    return value && (strcmp(value, "y") == 0 || strcmp(value, "n") == 0);
}

static bool parse_int(const char *value, int32_t min, int32_t max, int32_t *out) {
    if (!value || !*value) return false;
    char *end;
    errno = 0;
    long n = strtol(value, &end, 10);
    if (*end || errno || n < min || n > max) return false;
    *out = (int32_t)n;
    return true;
}

static bool parse_ratio(const char *value, double *out) {
    if (!value || !*value) return false;
    char *end;
    errno = 0;
    double x = strtod(value, &end);
    if (*end || errno || !isfinite(x) || x < 0 || x > 1) return false;
    *out = x;
    return true;
}

/* force=n, as HPROF does it: if the file exists, the profile goes to
 * NAME.PID instead (a ".txt" at the end of NAME moves after the PID:
 * java.hprof.txt gives java.hprof.1234.txt, java.hprof java.hprof.1234),
 * and the file is left alone. */
static bool unique_file_name(HprofOptions *opts) {
    if (strcmp(opts->file, "-") == 0 || access(opts->file, F_OK) != 0) return true;
    char prefix[sizeof opts->file];
    snprintf(prefix, sizeof prefix, "%s", opts->file);
    const char *suffix = "";
    char *dot = strrchr(prefix, '.');
    if (dot && strcasecmp(dot, ".txt") == 0) {
        *dot = '\0';
        suffix = ".txt";
    }
    char unique[sizeof opts->file];
    if ((size_t)snprintf(unique, sizeof unique, "%s.%ld%s", prefix, (long)getpid(), suffix) >= sizeof unique)
        return false;
    if (opts->verbose) fprintf(stderr, "hprof: %s exists (force=n): writing %s\n", opts->file, unique);
    memcpy(opts->file, unique, sizeof unique);
    return true;
}

/* Options that take y|n, and where each goes. */
typedef struct YesNoOption {
    const char *name;
    bool *value;
} YesNoOption;

/* Where an option that names a file puts it (each buffer the size of
 * opts->file): file=, pprof= or folded=; NULL for another option. */
static char *file_option(HprofOptions *opts, const char *name) {
    if (strcmp(name, "file") == 0) return opts->file;
    if (strcmp(name, "pprof") == 0) return opts->pprof_file;
    if (strcmp(name, "folded") == 0) return opts->folded_file;
    return NULL;
}

static bool names_value_type(const char *name, const HprofValueType *types, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, types[i].type) == 0) return true;
    return false;
}

/* pprof=, folded= and folded_value= (hprof_export.h): a table to write, and
 * a kind of value it has, inuse_space or cpu unless told. */
static HprofParse check_export_options(HprofOptions *opts) {
    const char *option = opts->pprof_file[0] ? "pprof" : "folded";
    const char *file = opts->pprof_file[0] ? opts->pprof_file : opts->folded_file;
    if (file[0] && !opts->heap_sites && !opts->cpu_times && !opts->cpu_samples && opts->sample_interval < 0)
        return refuse(option, file,
                      "has no table to write: give heap=sites, heap=all, sample=, cpu=samples or cpu=times");
    if (opts->pprof_file[0] && strcmp(opts->pprof_file, opts->file) == 0)
        return refuse("pprof", opts->pprof_file, "names the file of file=");
    if (opts->folded_file[0] &&
        (strcmp(opts->folded_file, opts->file) == 0 || strcmp(opts->folded_file, opts->pprof_file) == 0))
        return refuse("folded", opts->folded_file, "names the file of file= or pprof=");
    if (!opts->folded_value[0]) {
        snprintf(opts->folded_value, sizeof opts->folded_value, "%s", hprof_default_value_type(opts));
        return HPROF_PARSE_OK;
    }
    if (!opts->folded_file[0]) return refuse("folded_value", opts->folded_value, "is for folded=<file>, not given");
    if ((opts->heap_sites &&
         names_value_type(opts->folded_value, hprof_heap_value_types, HPROF_HEAP_VALUE_TYPES)) ||
        (opts->sample_interval >= 0 &&
         names_value_type(opts->folded_value, hprof_heap_value_types,
                          opts->sample_live ? HPROF_HEAP_VALUE_TYPES : HPROF_HEAP_ALLOC_VALUE_TYPES)) ||
        (opts->cpu_times &&
         names_value_type(opts->folded_value, hprof_cpu_times_value_types, HPROF_CPU_TIMES_VALUE_TYPES)) ||
        (opts->cpu_samples &&
         names_value_type(opts->folded_value, hprof_cpu_samples_value_types, HPROF_CPU_SAMPLES_VALUE_TYPES)))
        return HPROF_PARSE_OK;
    return refuse("folded_value", opts->folded_value,
                  "takes alloc_objects, alloc_space, inuse_objects or inuse_space (with heap=sites|all, or "
                  "sample= and sample_live=y), alloc_objects or alloc_space (with sample= alone), "
                  "calls or cpu (with cpu=times), samples or cpu (with cpu=samples)");
}

const char *hprof_default_value_type(const HprofOptions *opts) {
    if (opts->sample_interval >= 0 && !opts->sample_live) return "alloc_space";
    return opts->heap_sites || opts->sample_interval >= 0 ? "inuse_space" : "cpu";
}

HprofParse hprof_parse_options(char *options, HprofOptions *opts) {
    *opts = (HprofOptions){.heap_sites = true, .heap_dump = true, .depth = 4, .interval = 10,
                           .cutoff = 0.0001, .lineno = true, .verbose = true, .doe = true,
                           .sample_interval = -1};
    snprintf(opts->file, sizeof opts->file, "java.hprof.txt");
    bool force = true, msa = false;
    bool heap_given = false; /* heap=all is the default only when no profile is asked for */
    bool file_given = false; /* else the manual's default name for the format */
    const char *format = "a", *cpu = NULL;
    const YesNoOption yes_no[] = {
        {"lineno", &opts->lineno}, {"thread", &opts->thread}, {"verbose", &opts->verbose},
        {"doe", &opts->doe},       {"force", &force},         {"msa", &msa},
        {"monitor", &opts->monitor}, {"sample_live", &opts->sample_live},
    };
    char *name, *value, *path;
    while (options && agent_next_option(&options, &name, &value)) {
        if (strcmp(name, "help") == 0 && !value) return HPROF_PARSE_HELP;
        const YesNoOption *yn = NULL;
        for (size_t i = 0; i < sizeof yes_no / sizeof yes_no[0]; i++)
            if (strcmp(name, yes_no[i].name) == 0) yn = &yes_no[i];
        if (yn) {
            if (!is_yes_no(value)) return refuse(name, value, "takes y or n");
            *yn->value = value[0] == 'y';
        } else if (strcmp(name, "heap") == 0) {
            bool sites = value && strcmp(value, "sites") == 0, dump = value && strcmp(value, "dump") == 0;
            bool all = value && strcmp(value, "all") == 0;
            if (!sites && !dump && !all) return refuse(name, value, "takes dump, sites or all");
            opts->heap_sites = sites || all;
            opts->heap_dump = dump || all;
            heap_given = true;
        } else if (strcmp(name, "cpu") == 0) {
            if (!value || (strcmp(value, "samples") != 0 && strcmp(value, "times") != 0 &&
                           strcmp(value, "old") != 0))
                return refuse(name, value, "takes samples, times or old");
            cpu = value;
            opts->cpu_times = strcmp(value, "times") == 0;
            opts->cpu_samples = strcmp(value, "samples") == 0;
            opts->cpu_old = strcmp(value, "old") == 0;
        } else if (strcmp(name, "format") == 0) {
            if (!value || (strcmp(value, "a") != 0 && strcmp(value, "b") != 0))
                return refuse(name, value, "takes a or b");
            format = value;
        } else if ((path = file_option(opts, name))) {
            if (!value || !*value) return refuse(name, value, "takes a file name");
            if ((size_t)snprintf(path, sizeof opts->file, "%s", value) >= sizeof opts->file)
                return refuse(name, NULL, "file name too long");
            file_given |= path == opts->file;
        } else if (strcmp(name, "folded_value") == 0) {
            if (!value || (size_t)snprintf(opts->folded_value, sizeof opts->folded_value, "%s", value) >=
                              sizeof opts->folded_value)
                return refuse(name, value, "takes a kind of value the profile has");
        } else if (strcmp(name, "net") == 0) {
            const char *colon = value ? strrchr(value, ':') : NULL;
            int32_t port;
            if (!colon || colon == value || !parse_int(colon + 1, 1, 65535, &port))
                return refuse(name, value, "takes <host>:<port>");
            if ((size_t)snprintf(opts->net, sizeof opts->net, "%s", value) >= sizeof opts->net)
                return refuse(name, NULL, "host name too long");
        } else if (strcmp(name, "depth") == 0) {
            if (!parse_int(value, 0, HPROF_MAX_DEPTH, &opts->depth))
                return refuse(name, value, "takes a number of frames from 0 to 1024");
        } else if (strcmp(name, "interval") == 0) {
            if (!parse_int(value, 1, INT32_MAX, &opts->interval))
                return refuse(name, value, "takes a positive number of milliseconds");
        } else if (strcmp(name, "sample") == 0) {
            if (!parse_int(value, 0, INT32_MAX, &opts->sample_interval))
                return refuse(name, value, "takes a sampling interval in bytes, from 0");
        } else if (strcmp(name, "cutoff") == 0) {
            if (!parse_ratio(value, &opts->cutoff)) return refuse(name, value, "takes a ratio from 0 to 1");
        } else {
            return refuse(name, value, "unknown option");
        }
    }
    /* The manual's notes: pairs that cannot go together. */
    if (format[0] == 'b' && opts->monitor) return refuse("format", format, "cannot be used with monitor=y");
    if (format[0] == 'b' && cpu && strcmp(cpu, "samples") != 0)
        return refuse("format", format, "cannot be used with cpu=old or cpu=times");
    /* What this version does not do yet (docs/hprof.md). */
    /* sample= is a heap profile of its own, estimated from samples. */
    if (opts->sample_interval >= 0 && heap_given)
        return refuse("sample", NULL, "cannot be used with heap=: it replaces heap=sites with estimates");
    if (opts->sample_interval >= 0 && format[0] == 'b')
        return refuse("sample", NULL, "cannot be used with format=b: its estimates have no binary record");
    if (opts->sample_live && opts->sample_interval < 0)
        return refuse("sample_live", NULL, "is for sample=<bytes>, not given");
    if ((cpu || opts->sample_interval >= 0) && !heap_given) opts->heap_sites = opts->heap_dump = false;
    opts->binary = format[0] == 'b';
    if (opts->binary && !file_given) snprintf(opts->file, sizeof opts->file, "java.hprof");
    if (check_export_options(opts) != HPROF_PARSE_OK) return HPROF_PARSE_ERROR;
    if (msa) fprintf(stderr, "hprof: msa=y has no effect (Solaris micro state accounting)\n");
    if (!force && !opts->net[0] && !unique_file_name(opts)) return refuse("file", NULL, "file name too long");
    return HPROF_PARSE_OK;
}
