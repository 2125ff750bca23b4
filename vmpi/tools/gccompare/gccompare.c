/*
 * gccompare.c -- one program under every collector, side by side
 * (docs/gcstats.md, "gccompare").
 *
 *   gccompare [options] PROGRAM.gcl [ARGS...]
 *
 * Runs PROGRAM under each collector vmrun has (runs.c), with the same --heap
 * and --seed, each run with the gcstats agent, and prints a table with a row
 * per metric and a column per collector (report.c).  Under refcount it also
 * runs the program with --rc-cycles=off: the objects that run leaves live at
 * exit beyond those of the run with cycle collection are the garbage cycles
 * left unreclaimed when cycle collection is off (figures.c).  Every
 * collector must print the same output and end with the same status, and
 * every run gccompare reports on, the cycles-off one too, must succeed
 * (status 0): the figures of a run that ran out of memory or stopped with an
 * error describe a run cut short.  The first run that disagrees or fails
 * fails the command, named, as does a run that wrote no statistics.  The
 * collectors --gc= names are checked against vmrun's list before any run;
 * refcount:immediate and refcount:deferred name refcount's two modes
 * (collector_mode.h), each a column of its own.
 *
 * Exit status: 0 when every collector agreed; 1 when one did not, a run
 * failed or a file could not be written; 2 for a bad command line (an
 * unknown collector in --gc= too), a missing vmrun or a missing program.
 */
#define _GNU_SOURCE /* asprintf */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare.h"
#include "vmpi/tools/common/collector_mode.h"

static const char usage_text[] =
    "usage: gccompare [--heap=SIZE] [--seed=N] [--gc=A,B] [--vm-option=OPT] "
    "[--csv=F] [--json=F] [--chrome=F] [--vmrun=PATH] PROGRAM.gcl [ARGS...]";

static const char help_text[] =
    "gccompare -- one program under every collector, side by side.\n"
    "\n"
    "    gccompare [options] PROGRAM.gcl [ARGS...]\n"
    "\n"
    "Runs PROGRAM under each collector vmrun has, with the same --heap and\n"
    "--seed, each run with the gcstats agent (-agentlib:gcstats, docs/gcstats.md),\n"
    "and prints a table with a row per metric and a column per collector.  Under\n"
    "refcount it also runs the program with --rc-cycles=off: the objects it\n"
    "leaves live at exit beyond those of the run with cycle collection are the\n"
    "garbage cycles left unreclaimed when cycle collection is off.  Every collector\n"
    "must print the same output and end with the same status, and every run\n"
    "must succeed: a disagreement, a failed run (the cycles-off one too) or a run\n"
    "whose statistics are missing fails the command (status 1).\n"
    "\n"
    "Options:\n"
    "  --heap=SIZE      vmrun's --heap for every run (default: vmrun's own)\n"
    "  --seed=N         vmrun's --seed for every run (default 1)\n"
    "  --gc=A,B,...     these collectors only (default: all that vmrun lists);\n"
    "                   refcount:immediate and refcount:deferred name refcount's\n"
    "                   two modes (--rc-mode), so both can be columns\n"
    "  --vm-option=OPT  one more vmrun option for every run (repeatable)\n"
    "  --csv=FILE       also write the table as CSV (raw numbers, one row a metric)\n"
    "  --json=FILE      also write every run's statistics as JSON\n"
    "  --chrome=FILE    also write all the runs as one Chrome trace JSON file,\n"
    "                   one process per collector (Perfetto, chrome://tracing)\n"
    "  --vmrun=PATH     the vmrun to use (default: $VMRUN, or the one beside\n"
    "                   gccompare)\n"
    "\n"
    "Exit status: 0 when every collector agreed, 1 when they did not or a run\n"
    "failed, 2 for a bad command line.\n";

void compare_error(const char *format, ...) {
    va_list args;
    va_start(args, format);
    fputs("gccompare: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
}

static _Noreturn void usage_error(const char *format, ...) __attribute__((format(printf, 1, 2)));
static _Noreturn void usage_error(const char *format, ...) {
    va_list args;
    va_start(args, format);
    fputs("gccompare: ", stderr);
    vfprintf(stderr, format, args);
    fprintf(stderr, "\n%s\n", usage_text);
    va_end(args);
    exit(2);
}

/* vmrun beside this executable, in the build tree's bin/ as when installed;
 * NULL when that cannot be told. */
static char *vmrun_beside_me(void) {
    char *me = realpath("/proc/self/exe", NULL);
    char *slash = me ? strrchr(me, '/') : NULL;
    char *path = NULL;
    if (slash) {
        *slash = '\0';
        if (asprintf(&path, "%s/vmrun", me) < 0) path = NULL;
    }
    free(me);
    return path;
}

/* Fills `options` from argv; exits 2 with a message for a bad command line,
 * 0 after printing the help.  Options come first, each --NAME=VALUE. */
static void parse_command_line(int argc, char **argv, CompareOptions *options, char **default_vmrun) {
    *options = (CompareOptions){.seed = "1"};
    options->vm_options = calloc((size_t)argc, sizeof *options->vm_options);
    if (!options->vm_options) usage_error("out of memory");
    const char *const names[] = {"--heap", "--seed", "--gc", "--csv", "--json", "--chrome", "--vmrun", "--vm-option"};
    const char **values[] = {&options->heap,      &options->seed,        &options->only, &options->csv_path,
                             &options->json_path, &options->chrome_path, &options->vmrun};
    enum { NUM_NAMES = sizeof names / sizeof names[0] }; /* the last, --vm-option, is kept each time */
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        const char *equals = strchr(argv[i], '=');
        int name_len = equals ? (int)(equals - argv[i]) : (int)strlen(argv[i]);
        const char *value = equals ? equals + 1 : "";
        if (name_len == 6 && strncmp(argv[i], "--help", 6) == 0) {
            fputs(help_text, stdout);
            exit(0);
        }
        size_t which = 0;
        while (which < NUM_NAMES && !(strncmp(argv[i], names[which], (size_t)name_len) == 0 &&
                                      names[which][name_len] == '\0'))
            which++;
        if (which == NUM_NAMES) usage_error("unknown option '%.*s'", name_len, argv[i]);
        if (!*value) usage_error("%s needs a value (%s=...)", names[which], names[which]);
        if (which < NUM_NAMES - 1) *values[which] = value;
        else options->vm_options[options->num_vm_options++] = value;
    }
    const char *seed = options->seed;
    if (seed[strspn(seed, "0123456789")] != '\0' || strlen(seed) > 19)
        usage_error("--seed=%s is not a number (at most 19 digits)", seed);
    if (options->only && !options->only[strspn(options->only, ",")])
        usage_error("--gc=%s names no collector", options->only);
    if (i == argc) usage_error("no program given");
    options->program = argv[i];
    options->args = argv + i + 1;
    options->num_args = (size_t)(argc - i - 1);
    const char *from_environment = getenv("VMRUN");
    if (!options->vmrun && from_environment && *from_environment) options->vmrun = from_environment;
    if (!options->vmrun && !(options->vmrun = *default_vmrun = vmrun_beside_me()))
        usage_error("cannot tell where gccompare is, to find vmrun beside it: give --vmrun");
}

static void free_names(char **names, size_t count) {
    for (size_t i = 0; i < count; i++) free(names[i]);
    free(names);
}

/* Is `name` one of the `count` names? */
static bool known(char *const *names, size_t count, const char *name) {
    for (size_t i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0) return true;
    return false;
}

/* The collectors to run: --gc='s, each one vmrun lists (checked before any
 * runs, so that a typo costs no run), or all that vmrun lists.  *bad_name
 * is set when --gc= names one vmrun does not have. */
static bool choose_collectors(const CompareOptions *options, const char *scratch, char ***names, size_t *count,
                              bool *bad_name) {
    char **available;
    size_t num_available;
    if (!list_collectors(options, scratch, &available, &num_available)) return false;
    if (!options->only) {
        *names = available;
        *count = num_available;
        return true;
    }
    *count = 0;
    *names = calloc(strlen(options->only) + 1, sizeof **names);
    char *list = *names ? strdup(options->only) : NULL;
    bool ok = list != NULL;
    if (!ok) compare_error("out of memory");
    for (char *name = ok ? strtok(list, ",") : NULL; ok && name; name = strtok(NULL, ",")) {
        CollectorMode mode;
        char why[160];
        if (!collector_mode_parse(name, &mode, why, sizeof why)) {
            compare_error("--gc=%s: %s", options->only, why);
            *bad_name = true;
            ok = false;
        } else if (known(*names, *count, name)) {
            compare_error("--gc=%s: '%s' is named twice", options->only, name);
            *bad_name = true;
            ok = false;
        } else if (!known(available, num_available, mode.gc)) {
            char listed[1024] = "";
            for (size_t i = 0; i < num_available; i++)
                snprintf(listed + strlen(listed), sizeof listed - strlen(listed), "%s%s", i ? ", " : "",
                         available[i]);
            compare_error("--gc=%s: vmrun has no collector '%s' (it has %s)", options->only, mode.gc, listed);
            *bad_name = true;
            ok = false;
        } else if (!((*names)[(*count)++] = strdup(name))) {
            compare_error("out of memory");
            ok = false;
        }
    }
    free(list);
    free_names(available, num_available);
    return ok;
}

/* Has runs[last] printed what runs[0] did and ended the same way?  If not,
 * says which differs. */
static bool agrees(const CompareRun *runs, size_t last) {
    const CompareRun *reference = &runs[0], *run = &runs[last];
    bool same_output =
        run->output_len == reference->output_len && memcmp(run->output, reference->output, run->output_len) == 0;
    if (same_output && run->status == reference->status) return true;
    compare_error("%s: %s differs from %s's (status %d, %s's %d)%s%s", run->collector,
                  same_output ? "status" : "output", reference->collector, run->status, reference->collector,
                  reference->status, *run->first_error ? " " : "", run->first_error);
    return false;
}

/* Did `run` (called `label`) succeed?  If not, says so. */
static bool succeeded(const CompareRun *run, const char *label) {
    if (run->status == 0) return true;
    compare_error("%s: the run failed (status %d)%s%s: its figures would describe a run cut short", label,
                  run->status, *run->first_error ? " " : "", run->first_error);
    return false;
}

static size_t count_lines(const char *text, size_t len) {
    size_t lines = 0;
    for (const char *at = text; (at = memchr(at, '\n', (size_t)(text + len - at))); at++) lines++;
    return lines;
}

/* Is the collector named `name` refcount, in either mode? */
static bool is_refcount(const char *name) {
    CollectorMode mode;
    char why[160];
    return collector_mode_parse(name, &mode, why, sizeof why) && strcmp(mode.gc, "refcount") == 0;
}

/* Runs each refcount column again with --rc-cycles=off and adds what that
 * run left live at exit to the column's figures; *first is the first such
 * run's statistics, for the JSON's "refcount_cycles_off". */
static bool run_cycles_off(const CompareOptions *options, const char *scratch, char **collectors, size_t count,
                           CompareRun *runs, CompareRun *cycles_off, json_object **first) {
    *first = NULL;
    for (size_t i = 0; i < count; i++) {
        if (!is_refcount(collectors[i])) continue;
        char *label = NULL, *name = NULL;
        bool ok = asprintf(&label, "%s-cycles-off", collectors[i]) >= 0 &&
                  asprintf(&name, "%s --rc-cycles=off", collectors[i]) >= 0;
        if (!ok) compare_error("out of memory");
        ok = ok && run_collector(options, scratch, collectors[i], label, "--rc-cycles=off", &cycles_off[i]) &&
             succeeded(&cycles_off[i], name);
        free(label);
        free(name);
        if (!ok) return false;
        figures_add_cycles_off(runs[i].stats, cycles_off[i].stats);
        if (!*first) *first = cycles_off[i].stats;
    }
    return true;
}

/* Runs every collector and reports; false (said why) on a disagreement or a
 * failure. */
static bool compare(const CompareOptions *options, const char *scratch, char **collectors, size_t count) {
    CompareRun *runs = calloc(count, sizeof *runs), *cycles_off = calloc(count, sizeof *cycles_off);
    if (!runs || !cycles_off) {
        compare_error("out of memory");
        free(runs);
        free(cycles_off);
        return false;
    }
    bool ok = true;
    size_t ran = 0;
    for (; ok && ran < count; ran++)
        ok = run_collector(options, scratch, collectors[ran], collectors[ran], NULL, &runs[ran]) &&
             agrees(runs, ran) && succeeded(&runs[ran], collectors[ran]);
    json_object *first_cycles_off = NULL;
    if (ok) ok = run_cycles_off(options, scratch, collectors, count, runs, cycles_off, &first_cycles_off);
    if (ok && options->chrome_path) ok = report_chrome(options->chrome_path, scratch, runs, count);
    if (ok) {
        const char *slash = strrchr(options->program, '/');
        printf("%s: %zu collectors, same output (%zu lines, status %d), heap %s, seed %s\n",
               slash ? slash + 1 : options->program, count, count_lines(runs[0].output, runs[0].output_len),
               runs[0].status, options->heap ? options->heap : "default", options->seed);
        report_table(stdout, runs, count);
        ok = report_lifetimes(stdout, runs, count);
        fflush(stdout);
    }
    if (ok && options->csv_path) ok = report_csv(options->csv_path, runs, count);
    if (ok && options->json_path) ok = report_json(options->json_path, options, runs, count, first_cycles_off);
    for (size_t i = 0; i < ran; i++) run_release(&runs[i]);
    for (size_t i = 0; i < count; i++) run_release(&cycles_off[i]);
    free(runs);
    free(cycles_off);
    return ok;
}

int main(int argc, char **argv) {
    CompareOptions options;
    char *default_vmrun = NULL;
    parse_command_line(argc, argv, &options, &default_vmrun);
    int status = 2;
    struct stat program;
    if (access(options.vmrun, X_OK) != 0)
        compare_error("no vmrun at %s (build first, or give --vmrun)", options.vmrun);
    else if (stat(options.program, &program) != 0 || !S_ISREG(program.st_mode))
        compare_error("no program %s", options.program);
    else {
        status = 1;
        char *scratch = scratch_create();
        char **collectors = NULL;
        size_t count = 0;
        bool bad_name = false;
        if (scratch && choose_collectors(&options, scratch, &collectors, &count, &bad_name) &&
            compare(&options, scratch, collectors, count))
            status = 0;
        if (bad_name) status = 2;
        free_names(collectors, count);
        if (scratch) scratch_remove(scratch);
    }
    free(options.vm_options);
    free(default_vmrun);
    return status;
}
