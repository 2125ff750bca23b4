/*
 * verified_run.c -- fuzz harness: "verified means safe".  Bytes in -> the
 * loader and verifier; a program they accept is run by vmrun under every
 * collector with --gc-stress --verify-heap and the smallest heap, each run in
 * a child process with a time limit, and with --no-native: a fuzzed native
 * declaration could call any function of any library.  A run may end in any exit status (the
 * program's own, or 1 for a runtime error or out of memory) or be stopped by
 * the time limit; it must never die by any other signal, trip a sanitizer
 * (the children abort on a report), fail --verify-heap or reach the
 * interpreter's internal-error trap.
 *
 * Inputs the verifier rejects cost no child, so the fuzzer spends its time on
 * the verifier's frontier.  The children are separate processes: their
 * coverage does not guide the fuzzer, only the loader's and verifier's do.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gc/gc.h"
#include "finding.h"
#include "vm/bytecode/bytecode.h"

/* Seconds of wall time each run may take; a run stopped here is not a
 * finding (the program may loop forever). */
#define RUN_SECONDS 1

#define MAX_STDERR 65536

/* What the child wrote to stderr is read only at its start: its first line
 * is the VM's own (a runtime error, a failed heap verification), while later
 * lines quote the program (file names in a stack trace), which the fuzzer
 * can make say anything.  A sanitizer report aborts the child, so it shows
 * as a signal. */

/* Runs vmrun on `path` under collector `gc` in a child, its stderr (up to
 * MAX_STDERR bytes) into `errors`; returns the wait status. */
static int run_child(const char *path, const char *gc, char *errors) {
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) abort();
    char gc_option[64];
    snprintf(gc_option, sizeof gc_option, "--gc=%s", gc);
    pid_t pid = fork();
    if (pid < 0) abort();
    if (pid == 0) {
        dup2(pipe_fds[1], STDERR_FILENO);
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        if (!freopen("/dev/null", "r", stdin) || !freopen("/dev/null", "w", stdout)) _exit(127);
        /* A sanitized vmrun aborts on its first report; leaks are not
         * checked (the VM exits with its heap still reachable). */
        setenv("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=1", 1);
        setenv("UBSAN_OPTIONS", "halt_on_error=1:abort_on_error=1:print_stacktrace=1", 1);
        alarm(RUN_SECONDS); /* survives exec: the default action ends the child */
        execl(GCLAB_VMRUN, "vmrun", gc_option, "--gc-stress", "--verify-heap", "--heap=64k", "--no-native", path,
              (char *)NULL);
        _exit(127);
    }
    close(pipe_fds[1]);
    size_t used = 0;
    char chunk[4096];
    ssize_t got;
    /* libFuzzer's own SIGALRM (its -timeout) interrupts the read: only
     * end of file ends it, or the child would die of SIGPIPE. */
    while ((got = read(pipe_fds[0], chunk, sizeof chunk)) != 0) {
        if (got < 0) {
            if (errno == EINTR) continue;
            abort();
        }
        size_t keep = (size_t)got < MAX_STDERR - 1 - used ? (size_t)got : MAX_STDERR - 1 - used;
        memcpy(errors + used, chunk, keep);
        used += keep;
    }
    errors[used] = '\0';
    close(pipe_fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) abort();
    return status;
}

static bool starts_with(const char *text, const char *prefix) {
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[512];
    Program *program = bc_load_image(data, size, "fuzz.bc", err, sizeof err);
    if (!program) return 0;
    program_free(program);

    char path[] = "/tmp/gclab-fuzz-XXXXXX.bc";
    int fd = mkstemps(path, 3);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size || close(fd) != 0) abort();
    static char errors[MAX_STDERR];
    for (const GcOps *const *ops = gc_all_collectors; *ops; ops++) {
        int status = run_child(path, (*ops)->constraints->name, errors);
        const char *why = NULL;
        if (WIFSIGNALED(status) && WTERMSIG(status) != SIGALRM) why = strsignal(WTERMSIG(status));
        else if (WIFEXITED(status) && WEXITSTATUS(status) == 127) why = "vmrun could not be started";
        else if (starts_with(errors, "error: internal error:")) why = "internal error";
        else if (starts_with(errors, "verify-heap:")) why = "heap verification failed";
        if (why) {
            unlink(path);
            FINDING("vmrun --gc=%s --gc-stress --verify-heap --heap=64k --no-native: %s\n----\n%s", (*ops)->constraints->name, why, errors);
        }
    }
    unlink(path);
    return 0;
}
