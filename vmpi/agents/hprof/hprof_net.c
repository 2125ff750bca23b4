/*
 * hprof_net.c -- the connection to a front end and the command reader (see
 * hprof_net.h).
 */
#include "hprof_net.h"

#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define QUEUE_LENGTH 64
#define MAX_BODY 64      /* no command has more than 2 + 8 bytes */
#define HEADER_BYTES 9   /* tag, serial, length */

static int fd = -1;
static char where[300];             /* "host:port", for messages */
static VMPI_Interface *vmpi;
static atomic_bool lost, finishing;

/* The commands read and not yet served: a ring, guarded by queue_lock;
 * the reader waits on queue_room while it is full. */
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_room = PTHREAD_COND_INITIALIZER;
static HprofCommand queue[QUEUE_LENGTH];
static size_t queue_first, queue_count;

bool hprof_net_connect(const char *host_port, TraceOutput *out) {
    snprintf(where, sizeof where, "%s", host_port);
    char host[256];
    const char *colon = strrchr(host_port, ':');
    size_t host_len = (size_t)(colon - host_port);
    if (host_len >= sizeof host) {
        fprintf(stderr, "hprof: cannot connect to %s: host name too long\n", where);
        return false;
    }
    memcpy(host, host_port, host_len);
    host[host_len] = '\0';
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *addresses;
    int error = getaddrinfo(host, colon + 1, &hints, &addresses);
    if (error) {
        fprintf(stderr, "hprof: cannot connect to %s: %s\n", where, gai_strerror(error));
        return false;
    }
    int connect_errno = 0;
    for (struct addrinfo *a = addresses; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
            connect_errno = errno;
            close(fd);
            fd = -1;
        } else if (fd < 0) {
            connect_errno = errno;
        }
    }
    freeaddrinfo(addresses);
    if (fd < 0) {
        fprintf(stderr, "hprof: cannot connect to %s: %s\n", where, strerror(connect_errno));
        return false;
    }
    /* Answers are flushed whole: send them at once. */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){1}, sizeof(int));
    trace_output_open_socket(out, fd);
    return true;
}

/* The first loss of the connection is reported, once. */
static void report_lost(const char *why) {
    if (!atomic_exchange(&lost, true))
        fprintf(stderr, "hprof: lost the connection to %s: %s; the program goes on without the profiler\n",
                where, why);
}

bool hprof_net_lost(int write_errno) {
    if (write_errno) report_lost(strerror(write_errno));
    return atomic_load(&lost);
}

/* ---- reading -------------------------------------------------------------------------- */

static uint32_t get_u4(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint16_t get_u2(const unsigned char *p) { return (uint16_t)(p[0] << 8 | p[1]); }

/* A float cutoff ratio from its bits; false unless it is from 0 to 1. */
static bool get_cutoff(const unsigned char *p, double *cutoff) {
    uint32_t bits = get_u4(p);
    float ratio;
    memcpy(&ratio, &bits, sizeof ratio);
    *cutoff = ratio;
    return isfinite(ratio) && ratio >= 0 && ratio <= 1;
}

/* Fills `command`'s fields from its body; the problem, or NULL. */
static const char *decode(HprofCommand *command, const unsigned char *body, uint32_t length) {
    switch (command->tag) {
    case HPROF_CMD_FORCE_GC:
    case HPROF_CMD_DUMP_HEAP:
    case HPROF_CMD_HEAP_SUMMARY:
    case HPROF_CMD_EXIT:
    case HPROF_CMD_DUMP_TRACES: return NULL;
    case HPROF_CMD_ALLOC_SITES:
    case HPROF_CMD_CPU_SAMPLES:
        if (length < 6) return "shorter than its u2 and u4 cutoff";
        command->flags = get_u2(body);
        return get_cutoff(body + 2, &command->cutoff) ? NULL : "the cutoff is not a ratio from 0 to 1";
    case HPROF_CMD_CONTROL:
        if (length < 2) return "shorter than its u2 sub-command";
        command->flags = get_u2(body);
        switch (command->flags) {
        case HPROF_CONTROL_ALLOC_TRACES_ON:
        case HPROF_CONTROL_ALLOC_TRACES_OFF:
        case HPROF_CONTROL_CLEAR_CPU: return NULL;
        case HPROF_CONTROL_CPU_SAMPLING_ON:
        case HPROF_CONTROL_CPU_SAMPLING_OFF:
            if (length == 2 + 4) command->thread = get_u4(body + 2);
            else if (length == 2 + 8) command->thread = (uint64_t)get_u4(body + 2) << 32 | get_u4(body + 6);
            else return "the thread ID is not 4 or 8 bytes";
            return NULL;
        case HPROF_CONTROL_SET_DEPTH:
            if (length < 4) return "shorter than its u2 depth";
            command->depth = get_u2(body + 2);
            return NULL;
        default: return "unknown CONTROL sub-command";
        }
    default: return "unknown command";
    }
}

/* Queues `command`, waiting while the queue is full (after asking for the
 * safepoint that empties it). */
static void enqueue(const HprofCommand *command) {
    pthread_mutex_lock(&queue_lock);
    while (queue_count == QUEUE_LENGTH) {
        vmpi->RequestEvent(VMPI_EVENT_DATA_DUMP_REQUEST, NULL);
        pthread_cond_wait(&queue_room, &queue_lock);
    }
    queue[(queue_first + queue_count++) % QUEUE_LENGTH] = *command;
    pthread_mutex_unlock(&queue_lock);
}

bool hprof_net_next_command(HprofCommand *command) {
    pthread_mutex_lock(&queue_lock);
    bool any = queue_count > 0;
    if (any) {
        *command = queue[queue_first];
        queue_first = (queue_first + 1) % QUEUE_LENGTH;
        queue_count--;
        pthread_cond_signal(&queue_room);
    }
    pthread_mutex_unlock(&queue_lock);
    return any;
}

/* The bytes read and not yet parsed. */
static unsigned char input[4096];
static size_t input_used;

/* Reads what the socket has into `input`: false at the end of the stream
 * or on an error (reported as a lost connection unless finishing). */
static bool read_more(void) {
    for (;;) {
        ssize_t n = recv(fd, input + input_used, sizeof input - input_used, 0);
        if (n > 0) {
            input_used += (size_t)n;
            return true;
        }
        if (n < 0 && errno == EINTR) continue;
        if (!atomic_load(&finishing)) report_lost(n == 0 ? "the front end closed it" : strerror(errno));
        return false;
    }
}

/* Takes the commands complete in `input` off it: queued, or reported and
 * skipped; FORCE GC, and ALLOC SITES' force GC flag, collect here (RunGC,
 * hprof_net.h).  Returns how many were queued since the last request for a
 * safepoint; *end is set at EOF. */
static int parse_commands(bool *end) {
    size_t at = 0;
    int queued = 0;
    while (at < input_used && !*end) {
        const unsigned char *p = input + at;
        if (p[0] == HPROF_CMD_EOF) {
            *end = true;
            break;
        }
        if (input_used - at < HEADER_BYTES) break;
        HprofCommand command = {.tag = p[0], .serial = get_u4(p + 1)};
        uint32_t length = get_u4(p + 5);
        if (length > MAX_BODY) { /* a stream we cannot follow: stop reading it */
            fprintf(stderr, "hprof: front end %s: command 0x%02x (serial %u) says %u bytes follow; "
                            "commands are no longer read\n", where, command.tag, command.serial, length);
            *end = true;
            break;
        }
        if (input_used - at < HEADER_BYTES + length) break;
        const char *problem = decode(&command, p + HEADER_BYTES, length);
        if (problem) {
            fprintf(stderr, "hprof: front end %s: command 0x%02x (serial %u): %s; ignored\n", where,
                    command.tag, command.serial, problem);
            at += HEADER_BYTES + length;
            continue;
        }
        if (command.tag == HPROF_CMD_FORCE_GC ||
            (command.tag == HPROF_CMD_ALLOC_SITES && (command.flags & HPROF_SITES_FORCE_GC))) {
            /* The commands before it are served first, then the collection
             * runs, before the ones after it are queued. */
            if (queued > 0) vmpi->RequestEvent(VMPI_EVENT_DATA_DUMP_REQUEST, NULL);
            queued = 0;
            vmpi->RunGC();
        }
        if (command.tag != HPROF_CMD_FORCE_GC) {
            enqueue(&command);
            queued++;
        }
        at += HEADER_BYTES + length;
    }
    memmove(input, input + at, input_used - at);
    input_used -= at;
    return queued;
}

static void read_commands(void *unused) {
    (void)unused;
    bool end = false;
    while (!end && read_more())
        if (parse_commands(&end) > 0) vmpi->RequestEvent(VMPI_EVENT_DATA_DUMP_REQUEST, NULL);
    /* At EOF the output goes on; on a lost connection the agent stops. */
}

bool hprof_net_start_reader(VMPI_Interface *interface) {
    vmpi = interface;
    if (vmpi->CreateSystemThread("hprof front end", 0, read_commands) == VMPI_OK) return true;
    fprintf(stderr, "hprof: cannot start the thread that reads %s's commands\n", where);
    return false;
}

void hprof_net_finish(void) {
    atomic_store(&finishing, true);
    shutdown(fd, SHUT_WR);
}
