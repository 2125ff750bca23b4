/*
 * trace_output.h -- the trace agent's output: a fixed buffer in front of a
 * file descriptor, and the JSON pieces a trace line is made of.
 *
 * Invariant: nothing here but trace_output_open calls malloc or stdio's
 * formatting, so every other function may run
 * in thread-suspended mode (JVMPI 1.2 section 1.5: between GC_START and
 * GC_FINISH an agent must not call malloc or fprintf).  Text is copied into
 * the buffer and written with write(2) when the buffer fills; the first
 * write error is remembered and reported at close.
 *
 * A trace is complete or absent (docs/trace-format.md): a regular file is
 * written under a temporary name in the same directory ("PATH.PID.partial")
 * and renamed onto PATH only by trace_output_close, after the last line and
 * only if every write succeeded.  A run that dies first leaves at most the
 * .partial file, never a PATH that looks whole.  Standard output ("-") and
 * paths that are not regular files (/dev/null, a FIFO) are written in place.
 */
#ifndef GCLAB_TRACE_OUTPUT_H
#define GCLAB_TRACE_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define TRACE_BUFFER_BYTES (64 * 1024)

/* The trace's first line names the format and its version
 * (docs/trace-format.md).  Any change to what a line holds -- an event's
 * fields, their names or encoding -- bumps the version and is listed there. */
#define TRACE_FORMAT_NAME "gclab-vmpi-trace"
#define TRACE_FORMAT_VERSION 1

/* A number below 10^8 as trace_output_number stores its text: eight bytes
 * of which the first `length` count. */
typedef struct DigitsText {
    uint32_t value;
    uint32_t length;
    uint64_t text;
} DigitsText;

typedef struct TraceOutput {
    int fd;
    bool owns_fd;        /* false for standard output ("-") and sockets */
    bool is_socket;      /* written with send(MSG_NOSIGNAL): a closed peer is
                            an EPIPE error, not a SIGPIPE that kills the VM */
    char final_path[4096];   /* where the trace goes when complete */
    char partial_path[4096]; /* what fd writes to, or "" if it writes final_path */
    int write_errno;     /* first failure of write(2), 0 if none */
    /* The leading digits (value / 10^8) of the last two numbers of 9 to 16
     * digits written, and which to replace next; value 0 (never leading
     * digits) marks an entry unused. */
    DigitsText leading[2];
    unsigned leading_next;
    size_t used;
    char buffer[TRACE_BUFFER_BYTES];
} TraceOutput;

/* Opens `path` for writing ("-" is standard output), through a temporary
 * name if it is or will be a regular file.  On failure returns false with
 * errno set. */
bool trace_output_open(TraceOutput *out, const char *path);

/* Writes to the connected socket `fd` (hprof's net=), which stays open
 * after trace_output_close: its owner shuts it down. */
void trace_output_open_socket(TraceOutput *out, int fd);

/* Copies what does not fit in the buffer's free room, flushing on the way. */
void trace_output_bytes_slow(TraceOutput *out, const char *bytes, size_t n);

/* Every event writes a few dozen short pieces, so the common case -- the
 * piece fits -- is one compare and one memcpy, inline. */
static inline void trace_output_bytes(TraceOutput *out, const char *bytes, size_t n) {
    if (n <= sizeof out->buffer - out->used) {
        memcpy(out->buffer + out->used, bytes, n);
        out->used += n;
    } else {
        trace_output_bytes_slow(out, bytes, n);
    }
}

static inline void trace_output_text(TraceOutput *out, const char *text) {
    trace_output_bytes(out, text, strlen(text));
}

/* A string literal, whose length the compiler knows. */
#define trace_output_literal(out, literal) trace_output_bytes((out), "" literal, sizeof(literal) - 1)

/* A number in decimal.  Most have one or two digits (thread numbers, arena
 * IDs, flags, object sizes): those are written inline, the tens digit as
 * value * 103 >> 10 (value / 10 for every value below 100). */
void trace_output_number(TraceOutput *out, uint64_t value);

static inline void trace_output_uint(TraceOutput *out, uint64_t value) {
    if (value < 100 && sizeof out->buffer - out->used >= 2) {
        char *at = out->buffer + out->used;
        unsigned tens = (unsigned)value * 103 >> 10;
        at[0] = (char)('0' + tens);
        at[value >= 10] = (char)('0' + value - 10 * tens);
        out->used += 1 + (value >= 10);
    } else {
        trace_output_number(out, value);
    }
}

static inline void trace_output_int(TraceOutput *out, int64_t value) {
    if (value < 0) {
        trace_output_bytes(out, "-", 1);
        trace_output_number(out, 0 - (uint64_t)value); /* also right for INT64_MIN */
    } else {
        trace_output_uint(out, (uint64_t)value);
    }
}
/* A JSON string with its quotes, or null for NULL. */
void trace_output_string(TraceOutput *out, const char *text);

/* Writes what is buffered if less than `room` bytes are free. */
void trace_output_flush_if_fuller(TraceOutput *out, size_t room);
void trace_output_flush(TraceOutput *out);

/* Flushes, closes and renames the temporary file onto the final path.
 * Returns 0, or the errno of the first failure, in which case the temporary
 * file is removed and the final path is left as it was. */
int trace_output_close(TraceOutput *out);

/* Closes without publishing: the temporary file is removed. */
void trace_output_abandon(TraceOutput *out);

#endif
