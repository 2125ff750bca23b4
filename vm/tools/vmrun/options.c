/*
 * options.c -- parsing vmrun's command line (options.h; the options are
 * documented in docs/man/vmrun.1).
 *
 * Options come first and stop at the first argument that is not an option
 * (the program file) or at "--"; everything after the program file belongs
 * to the program.  Each option is checked completely here, with one message
 * naming the option and the bad value, so vmrun never starts a VM with a
 * half-valid configuration.
 */
#include "options.h"

#include "heap_options.h"
#include "vmpi/control.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static bool fail(char *err, size_t errsize, const char *format, ...) __attribute__((format(printf, 3, 4)));

static bool fail(char *err, size_t errsize, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(err, errsize, format, args);
    va_end(args);
    return false;
}

/* Decimal digits only, no sign, no spaces, no overflow. */
static bool parse_u64(const char *text, uint64_t *value) {
    if (text[0] < '0' || text[0] > '9') return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno == ERANGE || *end != '\0') return false;
    *value = v;
    return true;
}

bool vm_parse_size(const char *text, const char *option, size_t *bytes, char *err, size_t errsize) {
    size_t digits = strspn(text, "0123456789");
    uint64_t multiplier = 1;
    const char *suffix = text + digits;
    if (suffix[0] != '\0' && suffix[1] == '\0') {
        switch (suffix[0]) {
        case 'k': case 'K': multiplier = (uint64_t)1 << 10; break;
        case 'm': case 'M': multiplier = (uint64_t)1 << 20; break;
        case 'g': case 'G': multiplier = (uint64_t)1 << 30; break;
        default: multiplier = 0; break;
        }
    } else if (suffix[0] != '\0') {
        multiplier = 0;
    }
    if (digits == 0 || multiplier == 0)
        return fail(err, errsize, "invalid size '%s' for %s (use bytes or a k, m or g suffix: 64m, 512k, 1g)",
                    text, option);
    char number[32];
    uint64_t value;
    if (digits >= sizeof number) return fail(err, errsize, "size '%s' for %s is too large", text, option);
    memcpy(number, text, digits);
    number[digits] = '\0';
    if (!parse_u64(number, &value) || value > SIZE_MAX / multiplier)
        return fail(err, errsize, "size '%s' for %s is too large", text, option);
    *bytes = (size_t)(value * multiplier);
    return true;
}

/* "--name=value": the value if `arg` is option `name` with one, else NULL.
 * `*matched` says whether arg named the option at all (with or without a
 * value), so "--heap" alone can be reported as missing its value. */
static const char *option_value(const char *arg, const char *name, bool *matched) {
    size_t len = strlen(name);
    if (strncmp(arg, name, len) != 0 || (arg[len] != '=' && arg[len] != '\0')) return NULL;
    *matched = true;
    return arg[len] == '=' ? arg + len + 1 : NULL;
}

static bool describe_collectors(char *buf, size_t size) {
    size_t used = 0;
    buf[0] = '\0';
    for (const GcOps *const *ops = gc_all_collectors; *ops; ops++) {
        int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", (*ops)->constraints->name);
        if (n < 0 || (size_t)n >= size - used) return false;
        used += (size_t)n;
    }
    return true;
}

static bool add_agent(RunOptions *o, const char *spec, bool is_path, const char *option, char *err,
                      size_t errsize) {
    if (spec[0] == '\0' || spec[0] == '=')
        return fail(err, errsize, "%s needs an agent %s", option, is_path ? "path" : "name");
    AgentSpec *grown = realloc(o->agents, (o->num_agents + 1) * sizeof *grown);
    if (!grown) return fail(err, errsize, "out of memory");
    o->agents = grown;
    char *copy = strdup(spec);
    if (!copy) return fail(err, errsize, "out of memory");
    o->agents[o->num_agents++] = (AgentSpec){.spec = copy, .is_path = is_path};
    return true;
}

/* JVMPI 1.2 section 1.1: -Xrun<name>[:options] loads lib<name>.so as
 * -agentlib:<name>=<options> does. */
static bool add_xrun_agent(RunOptions *o, const char *spec, char *err, size_t errsize) {
    size_t name_len = strcspn(spec, ":");
    if (name_len == 0) return fail(err, errsize, "-Xrun needs an agent name: -Xrun<name>[:options]");
    if (memchr(spec, '=', name_len))
        return fail(err, errsize, "-Xrun takes <name>[:options], not '%.*s'", (int)name_len, spec);
    if (!add_agent(o, spec, false, "-Xrun", err, errsize)) return false;
    char *copy = o->agents[o->num_agents - 1].spec;
    if (copy[name_len] == ':') copy[name_len] = '=';
    return true;
}

/* The options of one collector that were given (beside HeapOptionsGiven's
 * --young), so that giving one to another collector can be warned about. */
typedef struct CollectorOptionsGiven {
    bool tenure, rc_cycles;
} CollectorOptionsGiven;

/* One option; false with a message if it is bad or unknown. */
static bool parse_option(const char *arg, RunOptions *o, HeapOptionsGiven *heap_given,
                         CollectorOptionsGiven *collector_given, char *err, size_t errsize) {
    GcConfig *gc = &o->vm.gc;
    bool matched = false;
    const char *value;

    /* --heap, --young, --gc-log and their JVM spellings: heap_options.c. */
    switch (vm_parse_heap_option(arg, gc, heap_given, err, errsize)) {
    case HEAP_OPTION_TAKEN: return true;
    case HEAP_OPTION_BAD: return false;
    case HEAP_OPTION_NOT_MINE: break;
    }

    if (strncmp(arg, "-agentlib:", 10) == 0) return add_agent(o, arg + 10, false, "-agentlib:", err, errsize);
    if (strncmp(arg, "-agentpath:", 11) == 0) return add_agent(o, arg + 11, true, "-agentpath:", err, errsize);
    if (strncmp(arg, "-Xrun", 5) == 0) return add_xrun_agent(o, arg + 5, err, errsize);

    /* Flags without a value. */
    const struct {
        const char *name;
        bool *target;
    } flags[] = {
        {"--gc-stress", &gc->stress}, {"--verify-heap", &gc->verify},
        {"--help", &o->help},         {"-h", &o->help},
        {"--version", &o->version},   {"--vmpi-strict", &o->vmpi_strict},
        {"--no-native", &o->vm.no_native}, {"--one-at-a-time", &o->vm.one_at_a_time},
    };
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        if (strcmp(arg, flags[i].name) == 0) {
            *flags[i].target = true;
            return true;
        }
    }

    if ((value = option_value(arg, "--gc", &matched))) {
        if (!gc_ops_by_name(value)) {
            char names[256];
            describe_collectors(names, sizeof names);
            return fail(err, errsize, "unknown collector '%s' (available: %s)", value, names);
        }
        o->vm.gc_name = value;
        return true;
    }
    if ((value = option_value(arg, "--tenure", &matched))) {
        uint64_t age;
        if (!parse_u64(value, &age) || age > VM_MAX_TENURE_AGE)
            return fail(err, errsize, "invalid --tenure=%s (a number of collections, 0 to %u)", value,
                        VM_MAX_TENURE_AGE);
        gc->tenure_age = (uint32_t)age;
        collector_given->tenure = true;
        return true;
    }
    if ((value = option_value(arg, "--rc-cycles", &matched))) {
        if (strcmp(value, "on") == 0) gc->rc_cycles = true;
        else if (strcmp(value, "off") == 0) gc->rc_cycles = false;
        else return fail(err, errsize, "invalid --rc-cycles=%s (on or off)", value);
        collector_given->rc_cycles = true;
        return true;
    }
    if ((value = option_value(arg, "--rc-mode", &matched))) {
        if (strcmp(value, "immediate") == 0) gc->rc_immediate = true;
        else if (strcmp(value, "deferred") == 0) gc->rc_immediate = false;
        else return fail(err, errsize, "invalid --rc-mode=%s (immediate or deferred)", value);
        return true;
    }
    if ((value = option_value(arg, "--vmpi-hang-limit", &matched))) {
        uint64_t seconds;
        if (!parse_u64(value, &seconds) || seconds > 86400)
            return fail(err, errsize, "invalid --vmpi-hang-limit=%s (seconds, 0 to 86400; 0: none)", value);
        o->vmpi_hang_limit_s = (unsigned)seconds;
        return true;
    }
    if ((value = option_value(arg, "--record", &matched))) {
        if (!*value) return fail(err, errsize, "--record needs a file name (--record=FILE)");
        o->record_path = value;
        return true;
    }
    if ((value = option_value(arg, "--seed", &matched))) {
        if (!parse_u64(value, &o->vm.seed))
            return fail(err, errsize, "invalid --seed=%s (a non-negative integer)", value);
        o->vm.seeded = true;
        return true;
    }
    if (matched) return fail(err, errsize, "option '%s' needs a value (%s=...)", arg, arg);
    return fail(err, errsize, "unknown option '%s' (try --help)", arg);
}

/* An option that only `collector` reads, given with another: it would be
 * ignored without a word, so say so (the run goes on). */
static void warn_if_ignored(const char *option, bool given, const char *collector, const char *gc_name) {
    if (given && strcmp(gc_name, collector) != 0)
        fprintf(stderr, "vmrun: warning: %s applies to --gc=%s only, not --gc=%s: ignored\n", option, collector,
                gc_name);
}

bool vm_parse_command_line(int argc, char **argv, RunOptions *o, char *err, size_t errsize) {
    *o = (RunOptions){0};
    o->vm.gc_name = GC_DEFAULT_COLLECTOR;
    vm_default_heap_options(&o->vm.gc);
    o->vm.gc.tenure_age = VM_DEFAULT_TENURE_AGE;
    o->vm.gc.rc_cycles = true;
    o->vmpi_hang_limit_s = VMPI_DEFAULT_HANG_LIMIT_S;
    HeapOptionsGiven heap_given = {0};
    CollectorOptionsGiven collector_given = {0};

    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if (!parse_option(argv[i], o, &heap_given, &collector_given, err, errsize)) return false;
    }
    if (o->help || o->version) return true;
#ifdef GCLAB_WASM
    /* WebAssembly has no page protection to poison event records with. */
    if (o->vmpi_strict)
        return fail(err, errsize, "--vmpi-strict: this build (WebAssembly, in a browser) cannot guard event records");
#endif
    warn_if_ignored("--young (-Xmn)", heap_given.young, "generational", o->vm.gc_name);
    warn_if_ignored("--tenure", collector_given.tenure, "generational", o->vm.gc_name);
    warn_if_ignored("--rc-cycles", collector_given.rc_cycles, "refcount", o->vm.gc_name);
    if (i >= argc) return fail(err, errsize, "no program given (usage: vmrun [options] PROG.bc|SOURCE [args]; try --help)");
    o->program_path = argv[i];
    o->program_argc = argc - i - 1;
    o->program_argv = argv + i + 1;

    return vm_settle_heap_options(&o->vm.gc, &heap_given, err, errsize);
}

void run_options_free(RunOptions *o) {
    for (size_t i = 0; i < o->num_agents; i++) free(o->agents[i].spec);
    free(o->agents);
    o->agents = NULL;
    o->num_agents = 0;
}

void vm_print_usage(FILE *out) {
    fprintf(out,
            "usage: vmrun [options] PROG.bc|SOURCE [args]\n"
            "\n"
            "Runs a gclab program: a .bc file (vmc, vmas) or a .gcl source file,\n"
            "compiled in memory.  Arguments after the program are passed to main.\n"
            "\n"
            "Collector:\n"
            "  --gc=NAME            the collector (default %s):\n",
            GC_DEFAULT_COLLECTOR);
    for (const GcOps *const *ops = gc_all_collectors; *ops; ops++)
        fprintf(out, "                         %-13s %s\n", (*ops)->constraints->name,
                (*ops)->constraints->description);
    fprintf(out,
            "  --heap=SIZE, -XmxSIZE  the maximum heap (default a quarter of physical\n"
            "                       memory, at least 64k); SIZE is bytes or a k, m or\n"
            "                       g suffix: 512k, 64m, 1g.  The heap grows and shrinks\n"
            "                       with the live data, between -Xms and this\n"
            "  -XmsSIZE             the initial and smallest heap (default 1m, or the\n"
            "                       maximum if smaller; equal to it: a fixed heap)\n"
            "  --young=SIZE, -XmnSIZE  the nursery, generational, fixed (default: 4 times\n"
            "                       the old generation's live data, 512k to 4m or a\n"
            "                       quarter of a smaller heap; at most half the heap)\n"
            "  --tenure=N           collections a young object survives before it is\n"
            "                       promoted, generational (0 to %u, default %u)\n"
            "  --rc-cycles=on|off   collect garbage cycles, refcount (default on)\n"
            "  --rc-mode=deferred|immediate\n"
            "                       refcount: count heap references and free in\n"
            "                       batches at reconciliations (deferred, the default),\n"
            "                       or count root references too and free the moment\n"
            "                       an object's last reference goes (immediate)\n"
            "  --gc-log, -verbose:gc, -Xlog:gc\n"
            "                       one line per collection on stderr, with the\n"
            "                       heap's capacity\n"
            "  --gc-stress          collect at every allocation\n"
            "  --verify-heap        verify the heap before and after every collection\n"
            "\n"
            "Profiling (VMPI):\n"
            "  -agentlib:NAME[=OPTS]   load a bundled or installed agent (hprof, trace,\n"
            "                       check, gcstats)\n"
            "  -agentpath:PATH[=OPTS]  load an agent from a path\n"
            "  -XrunNAME[:OPTS]     JVMPI's spelling of -agentlib:NAME=OPTS; an agent\n"
            "                       written for JVMPI exports JVM_OnLoad (jvmpi.h)\n"
            "  --vmpi-strict        an agent that breaks the agent contract (a bad\n"
            "                       argument, a call in the wrong mode, malloc in a\n"
            "                       collection, ...) ends the VM (status 1)\n"
            "  --one-at-a-time      agents' handlers of different threads never\n"
            "                       run at once (as under --seed; by default they\n"
            "                       overlap, as in a JVM)\n"
            "  --vmpi-hang-limit=S  with --vmpi-strict, a handler that has not returned\n"
            "                       after S seconds (10; 0: never) ends the run with a\n"
            "                       report of every thread in a handler (status 1)\n"
            "  --record=FILE        the VM records the events -agentlib:trace=format=binary\n"
            "                       does, in the same binary format, at a fraction\n"
            "                       of the agent's cost (vmpi-trace2json reads it)\n"
            "\n"
            "Native functions:\n"
            "  --no-native          refuse a program that declares native functions\n"
            "                       (for untrusted bytecode: natives run any C code)\n"
            "\n"
            "Other:\n"
            "  --seed=N             repeatable runs: IDs (addresses) from a heap at a\n"
            "                       fixed address, so two runs with the same flags\n"
            "                       give identical event streams; N seeds the random\n"
            "                       gaps of heap sampling and the threads' time\n"
            "                       slices, and sleeps run on a logical clock\n"
            "  --help, --version\n"
            "\n"
            "Exit status: the program's own; 1 for a runtime error, bad input, an\n"
            "agent that fails to load or output that cannot be written; 2 for a bad\n"
            "command line; 141 when standard output is a closed pipe; 130 and 143\n"
            "when SIGINT or SIGTERM stops the program (a second one exits at once).\n",
            VM_MAX_TENURE_AGE, VM_DEFAULT_TENURE_AGE);
}
