/*
 * heapview -- one self-contained HTML page of the heap of one or several
 * runs, side by side (docs/heapview.md).
 *
 *   heapview [options] -o PAGE.html TRACE.jsonl...
 *   heapview [options] -o PAGE.html --run[=GC,GC...] -- [vmrun options] PROGRAM [ARGS]
 *
 * The first form reads traces the trace agent wrote (docs/trace-format.md:
 * JSON lines or binary recordings),
 * each with the heapdump agent's dumps if a file TRACE.dumps is beside
 * TRACE.jsonl; the second runs vmrun (the one beside heapview, or
 * --vmrun=PATH) with the trace and heapdump agents once per collector (all
 * five unless named; refcount:immediate and refcount:deferred name refcount's
 * two modes, collector_mode.h), with the same options, and draws those runs.  The
 * program's standard output is dropped.
 *
 *   --tiles=N     tiles per arena strip (default 128)
 *   --objects=N   object detail kept per run, in objects (default 200000)
 *   --title=TEXT  the page's title
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "heap_model.h"
#include "page_write.h"
#include "vmpi/tools/common/collector_mode.h"

#define MAX_RUNS 16
#define RECORDING_SUFFIX ".bin" /* of the recordings --run makes */

static const char usage[] =
    "usage: heapview [options] -o PAGE.html TRACE.jsonl...\n"
    "       heapview [options] -o PAGE.html --run[=GC,GC...] -- [vmrun options] PROGRAM [ARGS]\n"
    "  --tiles=N      tiles per arena strip (default 128, 8 to 4096)\n"
    "  --objects=N    objects kept in detail per run (default 200000)\n"
    "  --title=TEXT   the page's title\n"
    "  --run=GC,...   the collectors to run (default all five); refcount:immediate\n"
    "                 and refcount:deferred name refcount's two modes (--rc-mode)\n"
    "  --vmrun=PATH   the vmrun --run uses (default: the one beside heapview)\n";

static int refuse(const char *why, const char *what) {
    fprintf(stderr, "heapview: %s%s\n%s", why, what ? what : "", usage);
    return 2;
}

static bool parse_size(const char *text, size_t low, size_t high, size_t *value) {
    char *end;
    errno = 0;
    unsigned long long parsed = strtoull(text, &end, 10);
    if (errno || end == text || *end || *text == '-' || parsed < low || parsed > high) return false;
    *value = (size_t)parsed;
    return true;
}

/* The vmrun beside this program. */
static bool sibling_vmrun(char *path, size_t size) {
    char self[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length < 0) return false;
    self[length] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash) return false;
    *slash = '\0';
    return snprintf(path, size, "%s/vmrun", self) < (int)size;
}

/* Waits for vmrun (run under `gc`) to end; one that takes longer than a
 * second is said to be running on standard error, every five seconds. */
static bool wait_saying_so(pid_t child, const char *gc, int *status) {
    const struct timespec tick = {0, 100 * 1000 * 1000};
    for (unsigned ticks = 1;; ticks++) {
        pid_t ended = waitpid(child, status, WNOHANG);
        if (ended == child) return true;
        if (ended < 0 && errno != EINTR) return false;
        nanosleep(&tick, NULL);
        if (ticks % 50 == 10) fprintf(stderr, "heapview: vmrun --gc=%s running, %u s\n", gc, ticks / 10);
    }
}

/* Runs vmrun once with the trace agent writing `trace`; false if it left no
 * trace.  A program that ends with an error still leaves a complete trace
 * (docs/trace-format.md), which is drawn. */
static bool run_traced(const char *vmrun, const char *gc, const char *trace, const char *dumps, char **vm_args,
                       int num_vm_args) {
    char gc_option[320], agent_option[PATH_MAX + 64], dump_option[PATH_MAX + 64], why[160];
    CollectorMode mode;
    if (!collector_mode_parse(gc, &mode, why, sizeof why)) { /* main checked it */
        fprintf(stderr, "heapview: --run: %s\n", why);
        return false;
    }
    snprintf(gc_option, sizeof gc_option, "--gc=%s", mode.gc);
    /* A binary recording: a few bytes an event, read many times faster than JSON. */
    snprintf(agent_option, sizeof agent_option, "-agentlib:trace=file=%s,format=binary", trace);
    snprintf(dump_option, sizeof dump_option, "-agentlib:heapdump=file=%s,max=%d", dumps, SCENE_MAX_OBJECTS);
    char **argv = calloc((size_t)num_vm_args + 6, sizeof *argv);
    if (!argv) return false;
    int argc = 0;
    argv[argc++] = (char *)vmrun;
    argv[argc++] = gc_option;
    if (mode.mode_option) argv[argc++] = (char *)mode.mode_option;
    argv[argc++] = agent_option;
    argv[argc++] = dump_option;
    memcpy(argv + argc, vm_args, (size_t)num_vm_args * sizeof *argv);
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        FILE *quiet = freopen("/dev/null", "w", stdout);
        (void)quiet;
        execv(vmrun, argv);
        fprintf(stderr, "heapview: cannot run %s: %s\n", vmrun, strerror(errno));
        _exit(127);
    }
    free(argv);
    int status;
    if (child < 0 || !wait_saying_so(child, gc, &status)) {
        fprintf(stderr, "heapview: cannot run %s: %s\n", vmrun, strerror(errno));
        return false;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "heapview: note: vmrun --gc=%s ended with status %d\n", gc,
                WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    if (access(trace, R_OK) != 0) {
        fprintf(stderr, "heapview: vmrun --gc=%s left no trace\n", gc);
        return false;
    }
    return true;
}

int main(int argc, char **argv) {
    ModelOptions options = {.tiles = 128, .object_budget = 200000, .tile_moves = 256};
    const char *output = NULL, *title = NULL, *run_gcs = NULL;
    char vmrun[PATH_MAX] = "";
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--") == 0) {
            i++;
            break;
        } else if (strcmp(arg, "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(arg, "-o") == 0 && i + 1 < argc) {
            output = argv[++i];
        } else if (strncmp(arg, "--tiles=", 8) == 0) {
            if (!parse_size(arg + 8, 8, 4096, &options.tiles)) return refuse("--tiles takes 8 to 4096: ", arg);
        } else if (strncmp(arg, "--objects=", 10) == 0) {
            if (!parse_size(arg + 10, 0, 100000000, &options.object_budget))
                return refuse("--objects takes 0 to 100000000: ", arg);
        } else if (strncmp(arg, "--title=", 8) == 0) {
            title = arg + 8;
        } else if (strncmp(arg, "--vmrun=", 8) == 0) {
            snprintf(vmrun, sizeof vmrun, "%s", arg + 8);
        } else if (strcmp(arg, "--run") == 0) {
            run_gcs = "marksweep,markcompact,semispace,generational,refcount";
        } else if (strncmp(arg, "--run=", 6) == 0) {
            run_gcs = arg + 6;
        } else {
            return refuse("unknown option ", arg);
        }
    }
    if (!output) return refuse("no output page: give -o PAGE.html", NULL);
    if (i >= argc) return refuse(run_gcs ? "no program to run" : "no trace to draw", NULL);

    /* The traces to read: the ones given, or those of the runs made here. */
    const char *traces[MAX_RUNS], *dumps[MAX_RUNS] = {0};
    char run_traces[MAX_RUNS][PATH_MAX], run_dumps[MAX_RUNS][PATH_MAX], given_dumps[MAX_RUNS][PATH_MAX];
    char scratch[PATH_MAX] = "";
    int num_traces = 0;
    if (run_gcs) {
        if (!*vmrun && !sibling_vmrun(vmrun, sizeof vmrun)) return refuse("cannot find vmrun: give --vmrun=PATH", NULL);
        const char *tmpdir = getenv("TMPDIR");
        snprintf(scratch, sizeof scratch, "%s/heapview.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
        if (!mkdtemp(scratch)) {
            fprintf(stderr, "heapview: %s: %s\n", scratch, strerror(errno));
            return 1;
        }
        char gcs[256];
        snprintf(gcs, sizeof gcs, "%s", run_gcs);
        for (char *gc = strtok(gcs, ","); gc; gc = strtok(NULL, ",")) {
            if (num_traces == MAX_RUNS) return refuse("too many collectors in --run", NULL);
            CollectorMode mode;
            char why[160];
            if (!collector_mode_parse(gc, &mode, why, sizeof why)) {
                rmdir(scratch);
                return refuse("--run: ", why);
            }
            snprintf(run_traces[num_traces], PATH_MAX, "%s/%s" RECORDING_SUFFIX, scratch, gc);
            snprintf(run_dumps[num_traces], PATH_MAX, "%s/%s.dumps", scratch, gc);
            traces[num_traces] = run_traces[num_traces];
            dumps[num_traces] = run_dumps[num_traces];
            num_traces++;
        }
        if (!num_traces) return refuse("--run= names no collector", NULL);
    } else {
        if (argc - i > MAX_RUNS) return refuse("too many traces (at most 16)", NULL);
        /* TRACE.jsonl's dumps, if the heapdump agent wrote them beside it as TRACE.dumps */
        for (; i < argc; i++, num_traces++) {
            traces[num_traces] = argv[i];
            const char *dot = strrchr(argv[i], '.');
            int stem = dot && !strchr(dot, '/') ? (int)(dot - argv[i]) : (int)strlen(argv[i]);
            snprintf(given_dumps[num_traces], PATH_MAX, "%.*s.dumps", stem, argv[i]);
            if (access(given_dumps[num_traces], R_OK) == 0) dumps[num_traces] = given_dumps[num_traces];
        }
    }

    HeapModel *models[MAX_RUNS] = {0};
    char err[1024] = "";
    bool ok = true;
    for (int r = 0; ok && r < num_traces; r++) {
        char name[64] = ""; /* the collector as --run names it */
        if (run_gcs) {
            const char *gc = strrchr(traces[r], '/') + 1;
            snprintf(name, sizeof name, "%.*s", (int)(strlen(gc) - strlen(RECORDING_SUFFIX)), gc);
            ok = run_traced(vmrun, name, traces[r], dumps[r], argv + i, argc - i);
            if (!ok) snprintf(err, sizeof err, "no trace of the run under %s", name);
        }
        if (ok) {
            models[r] = heap_model_build(traces[r], dumps[r], &options, err, sizeof err);
            ok = models[r] != NULL;
        }
        /* The trace names the collector ("refcount"); the page, its mode too. */
        if (ok && run_gcs) snprintf(models[r]->collector, sizeof models[r]->collector, "%s", name);
        if (run_gcs) {
            unlink(traces[r]);
            unlink(dumps[r]);
        }
    }
    if (run_gcs) rmdir(scratch);
    if (!title) { /* the program run, or the first trace */
        title = traces[0];
        for (int a = i; run_gcs && a < argc; a++)
            if (argv[a][0] != '-') {
                title = argv[a];
                break;
            }
    }
    if (ok) ok = page_write(output, title, models, (size_t)num_traces, err, sizeof err);
    for (int r = 0; r < num_traces; r++) heap_model_free(models[r]);
    if (!ok) {
        fprintf(stderr, "heapview: %s\n", err);
        return 1;
    }
    return 0;
}
