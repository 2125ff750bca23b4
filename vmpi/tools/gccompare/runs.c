/*
 * runs.c -- gccompare's runs of vmrun (compare.h).
 *
 * Every run happens in one scratch directory made by mkdtemp and removed at
 * the end: the agent writes LABEL.json (and LABEL.chrome.json) there, and the
 * run's stdout and stderr go to LABEL.out and LABEL.err, files rather than
 * pipes, so a run that prints much cannot block on a full pipe.  A run is
 *
 *   vmrun --gc=GC [--rc-mode=MODE] --seed=N [--heap=SIZE] [EXTRA] [VM-OPTIONS...]
 *         -agentlib:gcstats=file=LABEL.json[,chrome=LABEL.chrome.json]
 *         PROGRAM [ARGS...]
 *
 * started with posix_spawn, stdin from /dev/null, and waited for.  GC and
 * the --rc-mode come from the collector's name (collector_mode.h:
 * "refcount:immediate" runs --gc=refcount --rc-mode=immediate).
 */
#define _GNU_SOURCE /* asprintf */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compare.h"
#include "vmpi/tools/common/collector_mode.h"

extern char **environ;

char *scratch_create(void) {
    const char *tmp = getenv("TMPDIR");
    char *scratch = NULL;
    if (asprintf(&scratch, "%s/gccompareXXXXXX", tmp && *tmp ? tmp : "/tmp") < 0) {
        compare_error("out of memory");
        return NULL;
    }
    if (!mkdtemp(scratch)) {
        compare_error("cannot make a scratch directory %s: %s", scratch, strerror(errno));
        free(scratch);
        return NULL;
    }
    return scratch;
}

/* The directory holds only the files runs put there, no subdirectories. */
void scratch_remove(char *scratch) {
    DIR *dir = opendir(scratch);
    if (dir) {
        struct dirent *entry;
        while ((entry = readdir(dir))) {
            if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
            char *path = scratch_file(scratch, entry->d_name, "");
            if (path) unlink(path);
            free(path);
        }
        closedir(dir);
    }
    rmdir(scratch);
    free(scratch);
}

char *scratch_file(const char *scratch, const char *label, const char *suffix) {
    char *path = NULL;
    if (asprintf(&path, "%s/%s%s", scratch, label, suffix) < 0) {
        compare_error("out of memory");
        return NULL;
    }
    return path;
}

/* Runs argv with stdout and stderr into the files named; *status is the
 * exit status, or minus the signal that ended it. */
static bool spawn_and_wait(char *const argv[], const char *out_path, const char *err_path, int *status) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    int error = posix_spawn(&pid, argv[0], &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (error) {
        compare_error("cannot run %s: %s", argv[0], strerror(error));
        return false;
    }
    int how;
    while (waitpid(pid, &how, 0) < 0) {
        if (errno != EINTR) {
            compare_error("cannot wait for %s: %s", argv[0], strerror(errno));
            return false;
        }
    }
    *status = WIFEXITED(how) ? WEXITSTATUS(how) : -WTERMSIG(how);
    return true;
}

/* A whole output file, NUL-terminated; a file that cannot be read stops gccompare. */
static char *read_text(const char *path, size_t *len) {
    FILE *file = fopen(path, "rb");
    if (!file) {
        compare_error("%s: cannot read: %s", path, strerror(errno));
        return NULL;
    }
    size_t capacity = 4096, used = 0, got;
    char *text = malloc(capacity);
    while (text && (got = fread(text + used, 1, capacity - used - 1, file)) > 0) {
        used += got;
        if (capacity - used == 1) text = realloc(text, capacity *= 2);
    }
    bool failed = !text || ferror(file);
    fclose(file);
    if (failed) {
        compare_error("%s: cannot read: %s", path, text ? "read error" : "out of memory");
        free(text);
        return NULL;
    }
    text[used] = '\0';
    *len = used;
    return text;
}

/* The collectors vmrun lists when it refuses an empty --gc= name:
 * "vmrun: unknown collector '' (available: marksweep, ...)". */
bool list_collectors(const CompareOptions *options, const char *scratch, char ***names, size_t *count) {
    static const char intro[] = "(available: ";
    *names = NULL;
    *count = 0;
    char *out_path = scratch_file(scratch, "list", ".out"), *err_path = scratch_file(scratch, "list", ".err");
    char *argv[] = {(char *)options->vmrun, "--gc=", NULL}, *err = NULL;
    size_t err_len;
    int status;
    bool ok = out_path && err_path && spawn_and_wait(argv, out_path, err_path, &status) &&
              (err = read_text(err_path, &err_len));
    char *list = ok ? strstr(err, intro) : NULL;
    if (list) {
        list += strlen(intro);
        list[strcspn(list, "\n")] = '\0';
        char *close = strrchr(list, ')');
        *(close ? close : list) = '\0'; /* no ")", no list */
        for (char *name = strtok(list, ", "); ok && name; name = strtok(NULL, ", ")) {
            char **grown = realloc(*names, (*count + 1) * sizeof *grown);
            if (grown) *names = grown;
            ok = grown && (grown[*count] = strdup(name));
            if (ok) ++*count;
            else compare_error("out of memory");
        }
    }
    if (ok && !*count) {
        compare_error("%s did not list its collectors", options->vmrun);
        ok = false;
    }
    free(err);
    free(out_path);
    free(err_path);
    return ok;
}

/* The first line of stderr that vmrun or the VM starts with "error:" or
 * "vmrun:"; failing that (a program that does not compile says
 * "FILE:LINE:COL: ..."), the first line. */
static char *first_error_line(const char *err, size_t len) {
    const char *first = NULL;
    size_t first_len = 0;
    for (const char *line = err; line < err + len;) {
        const char *newline = memchr(line, '\n', (size_t)(err + len - line));
        size_t line_len = newline ? (size_t)(newline - line) : (size_t)(err + len - line);
        bool marked = strncmp(line, "error:", 6) == 0 || strncmp(line, "vmrun:", 6) == 0;
        if (marked || (!first && line_len)) {
            first = line;
            first_len = line_len;
            if (marked) break;
        }
        line += line_len + 1;
    }
    char *line = strndup(first ? first : "", first_len);
    if (!line) compare_error("out of memory");
    return line;
}

/* One run's command line, and the strings made for it. */
typedef struct {
    char **argv;
    char *gc, *seed, *heap, *agent;
} Command;

static void command_free(Command *command) {
    free(command->argv);
    free(command->gc);
    free(command->seed);
    free(command->heap);
    free(command->agent);
}

static bool command_make(Command *command, const CompareOptions *options, const CollectorMode *collector,
                         const char *extra_option, const char *stats_path, const char *chrome_path) {
    *command = (Command){0};
    command->argv = calloc(9 + options->num_vm_options + options->num_args, sizeof *command->argv);
    if (!command->argv || asprintf(&command->gc, "--gc=%s", collector->gc) < 0 ||
        asprintf(&command->seed, "--seed=%s", options->seed) < 0 ||
        (options->heap && asprintf(&command->heap, "--heap=%s", options->heap) < 0) ||
        asprintf(&command->agent, "-agentlib:gcstats=file=%s%s%s", stats_path, chrome_path ? ",chrome=" : "",
                 chrome_path ? chrome_path : "") < 0) {
        compare_error("out of memory");
        return false;
    }
    char **arg = command->argv;
    *arg++ = (char *)options->vmrun;
    *arg++ = command->gc;
    if (collector->mode_option) *arg++ = (char *)collector->mode_option;
    *arg++ = command->seed;
    if (command->heap) *arg++ = command->heap;
    if (extra_option) *arg++ = (char *)extra_option;
    for (size_t i = 0; i < options->num_vm_options; i++) *arg++ = (char *)options->vm_options[i];
    *arg++ = command->agent;
    *arg++ = (char *)options->program;
    for (size_t i = 0; i < options->num_args; i++) *arg++ = options->args[i];
    return true;
}

bool run_collector(const CompareOptions *options, const char *scratch, const char *collector,
                   const char *label, const char *extra_option, CompareRun *run) {
    *run = (CompareRun){.collector = collector};
    CollectorMode mode;
    char why[160];
    if (!collector_mode_parse(collector, &mode, why, sizeof why)) { /* choose_collectors checked it */
        compare_error("%s", why);
        return false;
    }
    char *stats_path = scratch_file(scratch, label, ".json");
    char *chrome_path = options->chrome_path ? scratch_file(scratch, label, ".chrome.json") : NULL;
    char *out_path = scratch_file(scratch, label, ".out"), *err_path = scratch_file(scratch, label, ".err");
    char *err = NULL;
    size_t err_len = 0;
    Command command = {0};
    bool ok = stats_path && out_path && err_path && (chrome_path || !options->chrome_path) &&
              command_make(&command, options, &mode, extra_option, stats_path, chrome_path) &&
              spawn_and_wait(command.argv, out_path, err_path, &run->status) &&
              (run->output = read_text(out_path, &run->output_len)) && (err = read_text(err_path, &err_len)) &&
              (run->first_error = first_error_line(err, err_len));
    if (ok && access(stats_path, F_OK) != 0) {
        compare_error("%s: vmrun wrote no statistics (status %d)%s%s", label, run->status,
                      *run->first_error ? " " : "", run->first_error);
        ok = false;
    }
    if (ok) ok = (run->stats = figures_read(stats_path, label)) != NULL;
    command_free(&command);
    free(err);
    free(stats_path);
    free(chrome_path);
    free(out_path);
    free(err_path);
    return ok;
}

void run_release(CompareRun *run) {
    free(run->output);
    free(run->first_error);
    json_object_put(run->stats);
    *run = (CompareRun){0};
}
