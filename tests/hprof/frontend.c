/*
 * frontend.c -- a loopback front end for hprof's net=host:port (docs/hprof.md,
 * "Over a socket"): it listens on 127.0.0.1 at a port the kernel picks,
 * starts the VM with -agentlib:hprof=net=127.0.0.1:PORT, sends every
 * command of the HPROF agent manual ("Socket Connection and
 * Communication") and checks what comes back.
 *
 *   frontend VMRUN GC PROGRAM THREADS_PROGRAM
 *       (tests/hprof/frontend_target.gcl, tests/hprof/frontend_threads.gcl)
 *
 * Five sessions, each under --vmpi-strict with --gc=GC:
 *
 *   commands  heap=all,cpu=times: every command and CONTROL sub-command.
 *             Commands sent in one write are served at one safepoint, so
 *             the answers of one batch describe one moment and must agree:
 *             the SITES table's sums and the HEAP DUMP's header equal the
 *             HEAP SUMMARY, the Node site holds the program's 1000 Nodes.
 *             Effects that need new allocations (alloc traces off and on,
 *             a new depth, SIGUSR2's reset) are awaited by asking again.
 *             FORCE GC, or ALLOC SITES' flag 0x4, between two tables
 *             leaves live only the Tick the program keeps and those
 *             allocated between; an incremental ALLOC SITES (0x1) lists
 *             nothing right after a table, then only the Tick site.
 *             150 commands in one write, more than hprof queues, are all
 *             answered.
 *             EXIT THE VM stops a program that never ends, with status 0,
 *             after the exit dump.
 *   sampling  cpu=samples of two threads (THREADS_PROGRAM): CONTROL 4 with
 *             the worker's thread object freezes its samples while main's
 *             grow, CONTROL 3 resumes them; with 0, every thread's.
 *   eof       heap=sites: CPU SAMPLES (empty without cpu=samples), then
 *             EOF; the output goes on: SIGTERM brings the exit dump.
 *   lost      the front end closes the socket: one message, and the
 *             program goes on until SIGTERM stops it (status 143).
 *   refused   nothing listens: status 1 and a message naming host:port.
 *
 * It prints what it does on standard output; each failed check is a line
 * on standard error and the exit status is 1.  Waits are bounded (60 s);
 * no check depends on timing.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WAIT_MS 60000
#define NODES 1000

static const char *vmrun, *gc, *program, *threads_program;
static char dir[] = "/tmp/hprof_frontend.XXXXXX";
static int failures;

static void fail(const char *format, ...) {
    va_list args;
    va_start(args, format);
    fprintf(stderr, "frontend (%s): ", gc);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    failures++;
}

static void sleep_ms(long ms) { nanosleep(&(struct timespec){ms / 1000, ms % 1000 * 1000000}, NULL); }

/* ---- the VM -------------------------------------------------------------------------- */

typedef struct Vm {
    pid_t pid;
    char out[256], err[256]; /* its standard output and error, files in `dir` */
} Vm;

static void start_vm(Vm *vm, const char *session, const char *options, const char *prog) {
    snprintf(vm->out, sizeof vm->out, "%s/%s.out", dir, session);
    snprintf(vm->err, sizeof vm->err, "%s/%s.err", dir, session);
    char agent[512];
    snprintf(agent, sizeof agent, "-agentlib:hprof=%s", options);
    char gc_flag[64];
    snprintf(gc_flag, sizeof gc_flag, "--gc=%s", gc);
    fflush(stdout);
    vm->pid = fork();
    if (vm->pid == 0) {
        int out = open(vm->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = open(vm->err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(97);
        execl(vmrun, vmrun, gc_flag, "--vmpi-strict", agent, prog, (char *)NULL);
        _exit(98);
    }
}

/* The VM's exit status as a shell gives it (128 + signal); -1 if it has not
 * ended within the wait. */
static int wait_vm(Vm *vm) {
    for (int waited = 0; waited < WAIT_MS; waited += 10) {
        int status;
        pid_t done = waitpid(vm->pid, &status, WNOHANG);
        if (done == vm->pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        sleep_ms(10);
    }
    kill(vm->pid, SIGKILL);
    waitpid(vm->pid, NULL, 0);
    return -1;
}

static bool still_running(Vm *vm) { return waitpid(vm->pid, NULL, WNOHANG) == 0; }

/* The whole of a small file, NUL-terminated (to free); "" if unreadable. */
static char *slurp(const char *path) {
    FILE *f = fopen(path, "r");
    char *text = NULL;
    size_t len = 0;
    if (f) {
        FILE *mem = open_memstream(&text, &len);
        int c;
        while ((c = getc(f)) != EOF) putc(c, mem);
        fclose(mem);
        fclose(f);
    }
    return text ? text : strdup("");
}

static bool file_has(const char *path, const char *text) {
    char *all = slurp(path);
    bool has = strstr(all, text) != NULL;
    free(all);
    return has;
}

static bool wait_for_file_text(const char *path, const char *text) {
    for (int waited = 0; waited < WAIT_MS; waited += 20) {
        if (file_has(path, text)) return true;
        sleep_ms(20);
    }
    return false;
}

/* ---- the socket ------------------------------------------------------------------------ */

static int listen_loopback(int *port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof address;
    if (fd < 0 || bind(fd, (struct sockaddr *)&address, sizeof address) != 0 || listen(fd, 1) != 0 ||
        getsockname(fd, (struct sockaddr *)&address, &len) != 0) {
        perror("frontend: cannot listen on 127.0.0.1");
        exit(2);
    }
    *port = ntohs(address.sin_port);
    return fd;
}

static int accept_vm(int listener) {
    struct pollfd p = {.fd = listener, .events = POLLIN};
    if (poll(&p, 1, WAIT_MS) != 1) return -1;
    return accept4(listener, NULL, NULL, SOCK_CLOEXEC);
}

/* Everything the VM sent in this session, and how much of it the checks
 * have taken; the last answer handed out (a copy, valid until the next). */
static char *received, *answer;
static size_t received_len, received_cap, taken;

static void new_session(void) {
    received_len = taken = 0;
    if (received) received[0] = '\0';
}

static const char *hand_out(size_t end) {
    free(answer);
    answer = strndup(received + taken, end - taken);
    taken = end;
    return answer;
}

/* Reads more from `fd`; false at the end of the stream or after the wait. */
static bool receive(int fd) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, WAIT_MS) != 1) return false;
    if (received_cap - received_len < 65536 + 1) {
        received_cap = received_cap * 2 + 65536 + 1;
        received = realloc(received, received_cap);
        if (!received) abort();
    }
    ssize_t n = recv(fd, received + received_len, received_cap - received_len - 1, 0);
    if (n <= 0) return false;
    received_len += (size_t)n;
    received[received_len] = '\0';
    return true;
}

/* The text from what was taken up to the end of the first line after it
 * that starts with `marker`, which is then taken; NULL if none comes. */
static const char *answer_until(int fd, const char *marker) {
    for (;;) {
        for (const char *line = received ? received + taken : NULL; line && *line;) {
            const char *end = strchr(line, '\n');
            if (!end) break;
            if (strncmp(line, marker, strlen(marker)) == 0) return hand_out((size_t)(end + 1 - received));
            line = end + 1;
        }
        if (!receive(fd)) return NULL;
    }
}

/* Everything until the VM closes the stream. */
static const char *answer_until_eof(int fd) {
    while (receive(fd)) {}
    return received ? hand_out(received_len) : "";
}

/* One command: u1 tag, u4 serial, u4 length, body (big-endian). */
typedef struct Batch {
    unsigned char bytes[2048];
    size_t len;
} Batch;

static uint32_t next_serial = 1;

static void put(Batch *b, uint64_t value, int size) {
    for (int i = size - 1; i >= 0; i--) b->bytes[b->len++] = (unsigned char)(value >> (8 * i));
}

static void command(Batch *b, int tag, const unsigned char *body, uint32_t len) {
    put(b, (uint64_t)tag, 1);
    put(b, next_serial++, 4);
    put(b, len, 4);
    if (len) memcpy(b->bytes + b->len, body, len);
    b->len += len;
}

static void simple(Batch *b, int tag) { command(b, tag, NULL, 0); }

/* ALLOC SITES or CPU SAMPLES: u2 flags, u4 cutoff (float bits). */
static void with_cutoff(Batch *b, int tag, uint16_t flags, float cutoff) {
    Batch body = {0};
    uint32_t bits;
    memcpy(&bits, &cutoff, sizeof bits);
    put(&body, flags, 2);
    put(&body, bits, 4);
    command(b, tag, body.bytes, (uint32_t)body.len);
}

/* CONTROL: u2 sub-command, then `extra_size` bytes of `extra`. */
static void control(Batch *b, uint16_t sub, uint64_t extra, int extra_size) {
    Batch body = {0};
    put(&body, sub, 2);
    if (extra_size) put(&body, extra, extra_size);
    command(b, 0x08, body.bytes, (uint32_t)body.len);
}

static void send_batch(int fd, const Batch *b) {
    if (send(fd, b->bytes, b->len, MSG_NOSIGNAL) != (ssize_t)b->len) fail("cannot send to the VM: %s", strerror(errno));
}

/* ---- reading the answers ---------------------------------------------------------------- */

typedef struct Summary {
    unsigned long long live_bytes, live_objects, alloc_bytes, alloc_objects;
} Summary;

static bool parse_summary(const char *text, Summary *s) {
    const char *line = strstr(text, "HEAP SUMMARY (");
    return line && sscanf(line, "HEAP SUMMARY (live bytes = %llu, live objects = %llu, allocated bytes = %llu, "
                                "allocated objects = %llu)",
                          &s->live_bytes, &s->live_objects, &s->alloc_bytes, &s->alloc_objects) == 4;
}

typedef struct Site {
    unsigned long long live_bytes, live_objects, alloc_bytes, alloc_objects;
    unsigned trace;
    char class_name[64];
} Site;

#define MAX_SITES 256

/* The rows of the last SITES table in `text`; their number, -1 if none. */
static int parse_sites(const char *text, Site *sites, bool *by_alloc) {
    const char *begin = NULL;
    for (const char *p = strstr(text, "SITES BEGIN"); p; p = strstr(p + 1, "SITES BEGIN")) begin = p;
    if (!begin) return -1;
    *by_alloc = strncmp(begin, "SITES BEGIN (ordered by allocated bytes)", 40) == 0;
    int n = 0;
    for (const char *line = strchr(begin, '\n'); line && n < MAX_SITES; line = strchr(line + 1, '\n')) {
        Site *s = &sites[n];
        int rank;
        double self, accum;
        if (sscanf(line + 1, "%d %lf%% %lf%% %llu %llu %llu %llu %u %63s", &rank, &self, &accum, &s->live_bytes,
                   &s->live_objects, &s->alloc_bytes, &s->alloc_objects, &s->trace, s->class_name) == 9)
            n++;
        else if (strncmp(line + 1, "SITES END", 9) == 0)
            break;
    }
    return n;
}

/* The frames of TRACE `trace` as received so far: their number, the
 * innermost in `first` (""), -1 if it was never sent; *times is how many
 * times it was sent. */
static int trace_frames(unsigned trace, char *first, size_t first_size, int *times) {
    char header[32];
    snprintf(header, sizeof header, "\nTRACE %u:", trace);
    int frames = -1;
    *times = 0;
    first[0] = '\0';
    for (const char *p = received ? strstr(received, header) : NULL; p; p = strstr(p + 1, header)) {
        ++*times;
        frames = 0;
        for (const char *line = strchr(p + 1, '\n'); line && line[1] == '\t'; line = strchr(line + 1, '\n')) {
            if (strncmp(line + 2, "<empty>", 7) == 0) break;
            if (frames++ == 0) {
                size_t len = strcspn(line + 2, "\n");
                snprintf(first, first_size, "%.*s", (int)len, line + 2);
            }
        }
    }
    return frames;
}

/* The site of `class_name` whose trace has `frames` frames (any if -1) and
 * whose innermost frame contains `method` (NULL: any); NULL if none. */
static const Site *find_site(const Site *sites, int n, const char *class_name, int frames, const char *method) {
    for (int i = 0; i < n; i++) {
        char first[256];
        int times;
        int got = trace_frames(sites[i].trace, first, sizeof first, &times);
        if (strcmp(sites[i].class_name, class_name) == 0 && (frames < 0 || got == frames) &&
            (!method || strstr(first, method)))
            return &sites[i];
    }
    return NULL;
}

/* Asks for the sites (by live bytes, cutoff 0) until `done` holds of them;
 * false if the wait runs out. */
static bool sites_until(int fd, bool (*done)(const Site *, int, void *), void *arg) {
    for (int waited = 0; waited < WAIT_MS; waited += 20) {
        Batch b = {0};
        with_cutoff(&b, 0x03, 0, 0.0f);
        send_batch(fd, &b);
        const char *text = answer_until(fd, "SITES END");
        if (!text) return false;
        Site sites[MAX_SITES];
        bool by_alloc;
        int n = parse_sites(text, sites, &by_alloc);
        if (n >= 0 && done(sites, n, arg)) return true;
        sleep_ms(20);
    }
    return false;
}

static bool tick_untraced(const Site *s, int n, void *arg) {
    (void)arg;
    const Site *t = find_site(s, n, "Tick", 0, NULL);
    return t && t->alloc_objects > 0;
}

static bool tick_traced_grew(const Site *s, int n, void *arg) {
    const Site *t = find_site(s, n, "Tick", 2, ".tick(");
    return t && t->alloc_objects > *(unsigned long long *)arg;
}

static bool tick_one_frame(const Site *s, int n, void *arg) {
    (void)arg;
    const Site *t = find_site(s, n, "Tick", 1, ".tick(");
    return t && t->alloc_objects > 0;
}

/* Every Tick site's live and allocated objects, summed. */
static void tick_totals(const Site *s, int n, unsigned long long *live, unsigned long long *alloc) {
    *live = *alloc = 0;
    for (int i = 0; i < n; i++)
        if (strcmp(s[i].class_name, "Tick") == 0) {
            *live += s[i].live_objects;
            *alloc += s[i].alloc_objects;
        }
}

/* Garbage to collect: Ticks the program dropped and no collection freed yet. */
static bool dead_ticks(const Site *s, int n, void *arg) {
    (void)arg;
    unsigned long long live, alloc;
    tick_totals(s, n, &live, &alloc);
    return live >= 3;
}

static bool nodes_reset(const Site *s, int n, void *arg) {
    (void)arg;
    const Site *node = find_site(s, n, "Node", -1, ".node(");
    return node && node->alloc_objects == 0 && node->live_objects == NODES;
}

/* ---- the sessions ------------------------------------------------------------------------ */

static void show_stderr(const Vm *vm) {
    char *err = slurp(vm->err);
    if (*err) fprintf(stderr, "--- the VM's standard error:\n%s---\n", err);
    free(err);
}

/* Batch 1: one moment seen four ways. */
static void check_one_moment(int fd) {
    Batch b = {0};
    simple(&b, 0x06);                 /* DUMP TRACES */
    simple(&b, 0x04);                 /* HEAP SUMMARY */
    with_cutoff(&b, 0x03, 0, 0.0f);   /* ALLOC SITES, by live bytes, every site */
    simple(&b, 0x02);                 /* DUMP HEAP */
    simple(&b, 0x04);                 /* HEAP SUMMARY */
    send_batch(fd, &b);
    const char *traces_and_summary = answer_until(fd, "HEAP SUMMARY");
    Summary first, second;
    if (!traces_and_summary || !parse_summary(traces_and_summary, &first)) {
        fail("no HEAP SUMMARY after DUMP TRACES");
        return;
    }
    if (!strstr(traces_and_summary, "\nTRACE 3")) fail("DUMP TRACES sent no TRACE");
    const char *sites_text = answer_until(fd, "SITES END");
    Site sites[MAX_SITES];
    bool by_alloc;
    int n = sites_text ? parse_sites(sites_text, sites, &by_alloc) : -1;
    if (n <= 0) {
        fail("ALLOC SITES: no SITES table");
        return;
    }
    Summary sum = {0};
    for (int i = 0; i < n; i++) {
        sum.live_bytes += sites[i].live_bytes;
        sum.live_objects += sites[i].live_objects;
        sum.alloc_bytes += sites[i].alloc_bytes;
        sum.alloc_objects += sites[i].alloc_objects;
        char first_frame[256];
        int times;
        if (trace_frames(sites[i].trace, first_frame, sizeof first_frame, &times) < 0)
            fail("site %d names TRACE %u, which was never sent", i + 1, sites[i].trace);
        else if (times != 1)
            fail("TRACE %u was sent %d times", sites[i].trace, times);
    }
    if (memcmp(&sum, &first, sizeof sum) != 0)
        fail("the SITES table sums to %llu/%llu live, %llu/%llu allocated; HEAP SUMMARY says %llu/%llu, %llu/%llu",
             sum.live_bytes, sum.live_objects, sum.alloc_bytes, sum.alloc_objects, first.live_bytes,
             first.live_objects, first.alloc_bytes, first.alloc_objects);
    const Site *node = find_site(sites, n, "Node", -1, ".node(");
    if (!node || node->live_objects != NODES || node->alloc_objects != NODES)
        fail("no Node site from node() with %d live and allocated objects", NODES);
    const char *dump = answer_until(fd, "HEAP DUMP END");
    unsigned long long dump_objects = 0, dump_bytes = 0;
    const char *header = dump ? strstr(dump, "HEAP DUMP BEGIN (") : NULL;
    if (!header || sscanf(header, "HEAP DUMP BEGIN (%llu objects, %llu bytes)", &dump_objects, &dump_bytes) != 2) {
        fail("DUMP HEAP: no HEAP DUMP section");
    } else {
        int nodes = 0;
        for (const char *p = strstr(header, "class=Node@"); p; p = strstr(p + 1, "class=Node@")) nodes++;
        if (dump_objects != first.live_objects || dump_bytes != first.live_bytes || nodes != NODES)
            fail("the HEAP DUMP holds %llu objects, %llu bytes, %d Nodes; HEAP SUMMARY says %llu, %llu, %d",
                 dump_objects, dump_bytes, nodes, first.live_objects, first.live_bytes, NODES);
    }
    const char *last = answer_until(fd, "HEAP SUMMARY");
    if (!last || !parse_summary(last, &second) || memcmp(&first, &second, sizeof first) != 0)
        fail("the second HEAP SUMMARY of the batch differs from the first");
    printf("frontend: one moment: %llu live objects (%llu bytes), %d sites, the Node site %d/%d, the heap dump agrees\n",
           first.live_objects, first.live_bytes, n, NODES, NODES);
}

static void check_sites_by_allocation(int fd) {
    Batch b = {0};
    with_cutoff(&b, 0x03, 0x2, 0.0f); /* ALLOC SITES, by allocated bytes */
    send_batch(fd, &b);
    const char *text = answer_until(fd, "SITES END");
    Site sites[MAX_SITES];
    bool by_alloc = false;
    int n = text ? parse_sites(text, sites, &by_alloc) : -1;
    if (n <= 0 || !by_alloc) {
        fail("ALLOC SITES flag 0x2: no table ordered by allocated bytes");
        return;
    }
    for (int i = 1; i < n; i++)
        if (sites[i].alloc_bytes > sites[i - 1].alloc_bytes) fail("ALLOC SITES flag 0x2: row %d out of order", i + 1);
    printf("frontend: ALLOC SITES ordered by allocated bytes: %d rows in order\n", n);
}

/* ALLOC SITES, then `gc` (FORCE GC, or ALLOC SITES with flag 0x4 whose
 * table is the second), then ALLOC SITES, in one write, once dropped Ticks
 * are waiting to be collected: the program keeps one Tick, so after the
 * collection at most it and the Ticks allocated since the first table
 * live. */
static void check_force_gc(int fd, const char *how, bool by_flag) {
    if (!sites_until(fd, dead_ticks, NULL)) {
        fail("%s: no dropped Ticks to collect", how);
        return;
    }
    Batch b = {0};
    with_cutoff(&b, 0x03, 0, 0.0f);
    if (by_flag) {
        with_cutoff(&b, 0x03, 0x4, 0.0f);
    } else {
        simple(&b, 0x01);
        with_cutoff(&b, 0x03, 0, 0.0f);
    }
    send_batch(fd, &b);
    unsigned long long live[2] = {0}, alloc[2] = {0};
    for (int t = 0; t < 2; t++) {
        const char *text = answer_until(fd, "SITES END");
        Site sites[MAX_SITES];
        bool by_alloc;
        int n = text ? parse_sites(text, sites, &by_alloc) : -1;
        if (n < 0) {
            fail("%s: no SITES table %d", how, t + 1);
            return;
        }
        tick_totals(sites, n, &live[t], &alloc[t]);
    }
    unsigned long long allocated_between = alloc[1] - alloc[0];
    if (live[0] < 3 || live[1] > 1 + allocated_between)
        fail("%s: %llu live Ticks before, %llu after, %llu allocated between: nothing was collected", how, live[0],
             live[1], allocated_between);
    printf("frontend: %s: live Ticks %llu before, %llu after (%llu allocated between)\n", how, live[0], live[1],
           allocated_between);
}

/* The sites whose counts changed since the last ALLOC SITES, flag 0x1:
 * none right after one (one write, one safepoint), then only Tick sites,
 * never the Node site (its 1000 Nodes neither die nor grow). */
static void check_incremental(int fd) {
    Batch b = {0};
    with_cutoff(&b, 0x03, 0, 0.0f);
    with_cutoff(&b, 0x03, 0x1, 0.0f);
    send_batch(fd, &b);
    Site sites[MAX_SITES];
    bool by_alloc;
    const char *full = answer_until(fd, "SITES END");
    int n_full = full ? parse_sites(full, sites, &by_alloc) : -1;
    const char *same = answer_until(fd, "SITES END");
    int n_same = same ? parse_sites(same, sites, &by_alloc) : -1;
    if (n_full <= 0 || !same || !strstr(same, "SITES BEGIN (ordered by live bytes, incremental)") || n_same != 0) {
        fail("ALLOC SITES flag 0x1 right after a full table: %d rows, not an empty incremental table", n_same);
        return;
    }
    int n = 0;
    for (int waited = 0; n == 0 && waited < WAIT_MS; waited += 20) {
        sleep_ms(20);
        Batch again = {0};
        with_cutoff(&again, 0x03, 0x1, 0.0f);
        send_batch(fd, &again);
        const char *text = answer_until(fd, "SITES END");
        n = text ? parse_sites(text, sites, &by_alloc) : -1;
        if (n < 0) break;
    }
    bool only_ticks = n > 0;
    for (int i = 0; i < n; i++) only_ticks &= strcmp(sites[i].class_name, "Tick") == 0;
    if (!only_ticks) fail("ALLOC SITES flag 0x1: %d rows, not only the Tick sites that changed", n);
    printf("frontend: incremental ALLOC SITES: 0 rows at once, then %d of %d (the Tick site%s)\n", n, n_full,
           n == 1 ? "" : "s");
}

/* The count of the row of method `method` (suffix) in the `title` table
 * ("CPU TIME (ms)", "CPU SAMPLES"), 0 if none. */
static unsigned long long cpu_count(const char *text, const char *title, const char *method) {
    char header[64];
    snprintf(header, sizeof header, "%s BEGIN", title);
    const char *begin = strstr(text, header);
    for (const char *line = begin ? strchr(begin, '\n') : NULL; line; line = strchr(line + 1, '\n')) {
        int rank;
        double self, accum;
        unsigned long long count;
        unsigned trace;
        char name[128];
        if (sscanf(line + 1, "%d %lf%% %lf%% %llu %u %127s", &rank, &self, &accum, &count, &trace, name) == 6) {
            size_t len = strlen(name), suffix = strlen(method);
            if (len >= suffix && strcmp(name + len - suffix, method) == 0) return count;
        }
    }
    return 0;
}

static void check_cpu(int fd) {
    Batch b = {0};
    with_cutoff(&b, 0x07, 0, 0.0f); /* CPU SAMPLES: cpu=times answers with its table */
    send_batch(fd, &b);
    const char *before = answer_until(fd, "CPU TIME (ms) END");
    unsigned long long nodes = before ? cpu_count(before, "CPU TIME (ms)", ".node") : 0;
    if (nodes != NODES) fail("CPU SAMPLES: node() counted %llu times, expected %d", nodes, NODES);
    Batch clear = {0};
    control(&clear, 5, 0, 0);          /* clear CPU sampling */
    with_cutoff(&clear, 0x07, 0, 0.0f);
    send_batch(fd, &clear);
    const char *after = answer_until(fd, "CPU TIME (ms) END");
    if (!after || cpu_count(after, "CPU TIME (ms)", ".node") != 0) fail("CONTROL 5 (clear CPU): node() is still counted");
    printf("frontend: CPU SAMPLES: node() entered %llu times; after CONTROL 5, not at all\n", nodes);
}

static void check_controls(int fd, Vm *vm) {
    Batch off = {0};
    control(&off, 2, 0, 0); /* alloc traces off */
    send_batch(fd, &off);
    if (!sites_until(fd, tick_untraced, NULL)) fail("CONTROL 2 (alloc traces off): no Tick without a trace");
    Site sites[MAX_SITES];
    bool by_alloc;
    int n = parse_sites(received, sites, &by_alloc);
    const Site *traced = find_site(sites, n, "Tick", 2, ".tick(");
    unsigned long long before = traced ? traced->alloc_objects : 0;
    Batch on = {0};
    control(&on, 1, 0, 0); /* alloc traces on */
    send_batch(fd, &on);
    if (!sites_until(fd, tick_traced_grew, &before)) fail("CONTROL 1 (alloc traces on): tick()'s site does not grow");
    Batch depth = {0};
    control(&depth, 6, 1, 2); /* max stack depth 1 */
    send_batch(fd, &depth);
    if (!sites_until(fd, tick_one_frame, NULL)) fail("CONTROL 6 (depth 1): no Tick under a one-frame trace");
    /* No effect without cpu=samples (session_sampling has it), but
     * accepted: with an 8-byte and a 4-byte thread ID; then an unknown
     * command, reported and skipped.  The summary after them comes. */
    Batch rest = {0};
    control(&rest, 4, 0, 8);
    control(&rest, 3, 0, 4);
    simple(&rest, 0x42);
    simple(&rest, 0x04);
    send_batch(fd, &rest);
    if (!answer_until(fd, "HEAP SUMMARY")) fail("no answer after CONTROL 4, 3 and an unknown command");
    if (!wait_for_file_text(vm->err, "command 0x42 (serial ")) fail("the unknown command 0x42 was not reported");
    if (file_has(vm->err, "CONTROL sub-command")) fail("a CONTROL sub-command was refused");
    printf("frontend: CONTROL 2, 1, 6 take effect; 4 and 3 are accepted without cpu=samples; 0x42 is reported and skipped\n");
}

/* More commands in one write than hprof queues (64): the reader waits
 * for room, and every one is answered. */
static void check_many(int fd) {
    enum { MANY = 150 };
    Batch b = {0};
    for (int i = 0; i < MANY; i++) simple(&b, 0x04);
    send_batch(fd, &b);
    int answered = 0;
    while (answered < MANY && answer_until(fd, "HEAP SUMMARY")) answered++;
    if (answered != MANY) fail("%d HEAP SUMMARY commands in one write: %d answered", MANY, answered);
    printf("frontend: %d commands in one write: %d answers\n", MANY, answered);
}

static void check_reset(int fd, Vm *vm) {
    kill(vm->pid, SIGUSR2); /* DATA_RESET_REQUEST at the next safepoint */
    if (!sites_until(fd, nodes_reset, NULL))
        fail("after SIGUSR2 the Node site does not read 0 allocated and %d live", NODES);
    else
        printf("frontend: SIGUSR2: the Node site reads 0 allocated, %d live\n", NODES);
}

/* A session's start: a listener, the VM started with net= to it and
 * `options`, its connection once the program is ready (-1, reported, if
 * it does not come). */
typedef struct Session {
    Vm vm;
    int listener, port, fd;
} Session;

static bool start_session(Session *s, const char *name, const char *options, const char *prog) {
    new_session();
    s->listener = listen_loopback(&s->port);
    char all[256];
    snprintf(all, sizeof all, "net=127.0.0.1:%d,%s", s->port, options);
    start_vm(&s->vm, name, all, prog);
    s->fd = accept_vm(s->listener);
    if (s->fd >= 0 && wait_for_file_text(s->vm.out, "ready\n")) return true;
    fail("%s: the VM did not connect and start", name);
    return false;
}

static void end_session(Session *s) {
    if (failures) show_stderr(&s->vm);
    if (s->fd >= 0) close(s->fd);
    close(s->listener);
}

static void session_commands(void) {
    Session s;
    if (start_session(&s, "commands", "cpu=times,heap=all", program)) {
        check_one_moment(s.fd);
        check_sites_by_allocation(s.fd);
        check_force_gc(s.fd, "FORCE GC", false);
        check_force_gc(s.fd, "ALLOC SITES flag 0x4 (force GC)", true);
        check_incremental(s.fd);
        check_cpu(s.fd);
        check_controls(s.fd, &s.vm);
        check_many(s.fd);
        check_reset(s.fd, &s.vm);
        Batch b = {0};
        simple(&b, 0x05); /* EXIT THE VM */
        send_batch(s.fd, &b);
        const char *rest = answer_until_eof(s.fd);
        if (!strstr(rest, "SITES END") || !strstr(rest, "CPU TIME (ms) END"))
            fail("EXIT: the exit dump did not come");
    }
    int status = wait_vm(&s.vm);
    if (status != 0) fail("EXIT: the VM's status is %d, expected 0", status);
    if (!file_has(s.vm.err, "the VM's heap agrees")) fail("the sites at exit do not agree with the VM's heap");
    if (file_has(s.vm.err, "lost the connection")) fail("the connection was reported lost");
    printf("frontend: EXIT THE VM: the exit dump, then status %d\n", status);
    end_session(&s);
}

/* ---- CPU sampling switched per thread (tests/hprof/frontend_threads.gcl) ---- */

typedef struct Samples {
    unsigned long long total, work, lead; /* all, the worker's work(), main's lead() */
} Samples;

/* The CPU SAMPLES table now; false if none came. */
static bool cpu_samples(int fd, Samples *samples) {
    Batch b = {0};
    with_cutoff(&b, 0x07, 0, 0.0f);
    send_batch(fd, &b);
    const char *text = answer_until(fd, "CPU SAMPLES END");
    const char *begin = text ? strstr(text, "CPU SAMPLES BEGIN (total = ") : NULL;
    if (!begin || sscanf(begin, "CPU SAMPLES BEGIN (total = %llu)", &samples->total) != 1) return false;
    samples->work = cpu_count(begin, "CPU SAMPLES", ".work");
    samples->lead = cpu_count(begin, "CPU SAMPLES", ".lead");
    return true;
}

/* Asks for CPU SAMPLES until `done` holds of them (then in *now); every
 * answer must keep `frozen` (NULL: none) as it was: false, with a failure,
 * if one does not, or the wait runs out. */
static bool samples_until(int fd, bool (*done)(const Samples *now, const Samples *from), const Samples *from,
                          unsigned long long (*frozen)(const Samples *), Samples *now, const char *what) {
    for (int waited = 0; waited < WAIT_MS; waited += 20) {
        if (!cpu_samples(fd, now)) break;
        if (frozen && frozen(now) != frozen(from)) {
            fail("%s: %llu samples became %llu", what, frozen(from), frozen(now));
            return false;
        }
        if (done(now, from)) return true;
        sleep_ms(20);
    }
    fail("%s: the samples expected did not come", what);
    return false;
}

static bool both_sampled(const Samples *now, const Samples *from) {
    (void)from;
    return now->work > 0 && now->lead > 0;
}
static bool lead_grew(const Samples *now, const Samples *from) { return now->lead >= from->lead + 5; }
static bool work_grew(const Samples *now, const Samples *from) { return now->work > from->work; }
static bool total_grew(const Samples *now, const Samples *from) { return now->total > from->total; }
static unsigned long long work_samples(const Samples *s) { return s->work; }

/* The worker's thread object, from its THREAD START; 0 if none came.
 * The thread starts when it first runs, which may be after "ready": DUMP
 * TRACES is asked for until its THREAD START has come (each answer sends
 * only the THREAD records not sent before, so all received is searched). */
static unsigned long long worker_object(int fd) {
    for (int waited = 0; waited < WAIT_MS; waited += 20) {
        Batch b = {0};
        simple(&b, 0x06); /* DUMP TRACES: the THREAD records */
        simple(&b, 0x04);
        send_batch(fd, &b);
        if (!answer_until(fd, "HEAP SUMMARY")) return 0;
        for (const char *p = strstr(received, "THREAD START (obj="); p; p = strstr(p + 1, "THREAD START (obj=")) {
            unsigned long long obj;
            char name[32];
            unsigned id;
            if (sscanf(p, "THREAD START (obj=%llx, id = %u, name=\"%31[^\"]", &obj, &id, name) == 3 &&
                strcmp(name, "worker") == 0)
                return obj;
        }
        sleep_ms(20);
    }
    return 0;
}

/* cpu=samples: CONTROL 4 with the worker's thread object stops its
 * samples while main's go on, CONTROL 3 with it starts them again; with 0,
 * every thread's (main has no thread object). */
static void check_sampling_switches(int fd) {
    unsigned long long worker = worker_object(fd);
    if (!worker) {
        fail("sampling: no THREAD START for the worker");
        return;
    }
    Samples start, off, on, all_off, all_on;
    if (!samples_until(fd, both_sampled, &(Samples){0}, NULL, &start, "sampling: both threads sampled")) return;
    Batch b = {0};
    control(&b, 4, worker, 8);
    send_batch(fd, &b);
    if (!cpu_samples(fd, &off)) {
        fail("sampling: no CPU SAMPLES after CONTROL 4");
        return;
    }
    Samples later;
    if (!samples_until(fd, lead_grew, &off, work_samples, &later, "CONTROL 4 (the worker off)")) return;
    printf("frontend: CONTROL 4 (worker): work() stays at %llu samples while lead() goes from %llu to %llu\n",
           off.work, off.lead, later.lead);
    b = (Batch){0};
    control(&b, 3, worker, 8);
    send_batch(fd, &b);
    if (!samples_until(fd, work_grew, &later, NULL, &on, "CONTROL 3 (the worker on)")) return;
    printf("frontend: CONTROL 3 (worker): work() sampled again, %llu samples\n", on.work);
    b = (Batch){0};
    control(&b, 4, 0, 4);
    send_batch(fd, &b);
    if (!cpu_samples(fd, &all_off)) {
        fail("sampling: no CPU SAMPLES after CONTROL 4 (all)");
        return;
    }
    sleep_ms(200); /* time for samples that must not come */
    if (!cpu_samples(fd, &later)) {
        fail("sampling: no CPU SAMPLES");
        return;
    }
    if (later.total != all_off.total)
        fail("CONTROL 4 (all threads): %llu samples became %llu", all_off.total, later.total);
    b = (Batch){0};
    control(&b, 3, 0, 4);
    send_batch(fd, &b);
    if (!samples_until(fd, total_grew, &later, NULL, &all_on, "CONTROL 3 (all threads)")) return;
    printf("frontend: CONTROL 4 (0): %llu samples stay; CONTROL 3 (0): %llu\n", all_off.total, all_on.total);
}

static void session_sampling(void) {
    Session s;
    if (start_session(&s, "sampling", "cpu=samples,interval=1", threads_program)) {
        check_sampling_switches(s.fd);
        Batch b = {0};
        simple(&b, 0x05); /* EXIT THE VM */
        send_batch(s.fd, &b);
        answer_until_eof(s.fd);
    }
    int status = wait_vm(&s.vm);
    if (status != 0) fail("sampling: the VM's status is %d, expected 0", status);
    end_session(&s);
}

static void session_eof(void) {
    Session s;
    if (start_session(&s, "eof", "heap=sites", program)) {
        Batch b = {0};
        with_cutoff(&b, 0x07, 0, 0.0f);
        b.bytes[b.len++] = 0xFF; /* EOF: no more commands */
        send_batch(s.fd, &b);
        const char *samples = answer_until(s.fd, "CPU SAMPLES END");
        const char *begin = samples ? strstr(samples, "CPU SAMPLES BEGIN (total = 0) ") : NULL;
        const char *next = begin ? strchr(begin, '\n') : NULL;
        if (!next || strncmp(next + 1, "CPU SAMPLES END", 15) != 0)
            fail("CPU SAMPLES without cpu=samples: not an empty section");
        kill(s.vm.pid, SIGTERM);
        const char *rest = answer_until_eof(s.fd);
        if (!strstr(rest, "SITES END")) fail("after EOF and SIGTERM: no exit dump");
    }
    int status = wait_vm(&s.vm);
    if (status != 143) fail("eof: the VM's status is %d, expected 143 (SIGTERM)", status);
    if (file_has(s.vm.err, "lost the connection")) fail("EOF was taken for a lost connection");
    printf("frontend: CPU SAMPLES without cpu=samples: an empty section; EOF, then SIGTERM: the exit dump, status %d\n",
           status);
    end_session(&s);
}

static void session_lost(void) {
    Session s;
    if (start_session(&s, "lost", "heap=sites", program)) {
        char message[128];
        snprintf(message, sizeof message, "hprof: lost the connection to 127.0.0.1:%d: ", s.port);
        close(s.fd);
        s.fd = -1;
        if (!wait_for_file_text(s.vm.err, message)) fail("lost: no message after the front end closed the socket");
        if (!still_running(&s.vm)) fail("lost: the program did not go on");
        kill(s.vm.pid, SIGTERM);
    }
    int status = wait_vm(&s.vm);
    if (status != 143) fail("lost: the VM's status is %d, expected 143 (SIGTERM)", status);
    printf("frontend: the socket closed mid-run: one message, the program went on until SIGTERM (status %d)\n",
           status);
    end_session(&s);
}

static void session_refused(void) {
    int port, listener = listen_loopback(&port);
    close(listener); /* nothing listens there now */
    char options[128], message[128];
    snprintf(options, sizeof options, "net=127.0.0.1:%d", port);
    snprintf(message, sizeof message, "hprof: cannot connect to 127.0.0.1:%d: Connection refused", port);
    Vm vm;
    start_vm(&vm, "refused", options, program);
    int status = wait_vm(&vm);
    if (status != 1) fail("refused: the VM's status is %d, expected 1", status);
    if (!file_has(vm.err, message)) fail("refused: no message naming 127.0.0.1:%d", port);
    if (file_has(vm.out, "ready")) fail("refused: the program ran");
    printf("frontend: nothing listening: \"%s\", status %d\n", message, status);
    if (failures) show_stderr(&vm);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: frontend VMRUN GC PROGRAM THREADS_PROGRAM\n");
        return 2;
    }
    vmrun = argv[1];
    gc = argv[2];
    program = argv[3];
    threads_program = argv[4];
    if (!mkdtemp(dir)) {
        perror("frontend: mkdtemp");
        return 2;
    }
    session_commands();
    session_sampling();
    session_eof();
    session_lost();
    session_refused();
    const char *names[] = {"commands", "sampling", "eof", "lost", "refused"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[300];
        snprintf(path, sizeof path, "%s/%s.out", dir, names[i]);
        unlink(path);
        snprintf(path, sizeof path, "%s/%s.err", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
    free(received);
    free(answer);
    return failures ? 1 : 0;
}
