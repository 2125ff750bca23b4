/*
 * trace_output.c -- buffered write(2) output and JSON formatting for the
 * trace agent, with no malloc and no stdio (see trace_output.h).
 */
#include "trace_output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

bool trace_output_open(TraceOutput *out, const char *path) {
    out->used = 0;
    out->write_errno = 0;
    out->partial_path[0] = '\0';
    out->is_socket = false;
    if (strcmp(path, "-") == 0) {
        out->fd = STDOUT_FILENO;
        out->owns_fd = false;
        return true;
    }
    out->owns_fd = true;
    if ((size_t)snprintf(out->final_path, sizeof out->final_path, "%s", path) >= sizeof out->final_path) {
        errno = ENAMETOOLONG;
        return false;
    }
    struct stat st;
    bool regular = stat(path, &st) != 0 || S_ISREG(st.st_mode);
    if (!regular) { /* a device or a FIFO: renaming over it would replace it */
        out->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        return out->fd >= 0;
    }
    if ((size_t)snprintf(out->partial_path, sizeof out->partial_path, "%s.%ld.partial", path,
                         (long)getpid()) >= sizeof out->partial_path) {
        errno = ENAMETOOLONG;
        return false;
    }
    out->fd = open(out->partial_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    return out->fd >= 0;
}

void trace_output_open_socket(TraceOutput *out, int fd) {
    out->fd = fd;
    out->owns_fd = false;
    out->is_socket = true;
    out->partial_path[0] = '\0';
    out->write_errno = 0;
    out->used = 0;
}

static void write_all(TraceOutput *out, const char *bytes, size_t n) {
    while (n > 0 && out->write_errno == 0) {
        ssize_t written = out->is_socket ? send(out->fd, bytes, n, MSG_NOSIGNAL) : write(out->fd, bytes, n);
        if (written < 0) {
            if (errno != EINTR) out->write_errno = errno;
            continue;
        }
        bytes += written;
        n -= (size_t)written;
    }
}

void trace_output_flush(TraceOutput *out) {
    write_all(out, out->buffer, out->used);
    out->used = 0;
}

void trace_output_flush_if_fuller(TraceOutput *out, size_t room) {
    if (sizeof out->buffer - out->used < room) trace_output_flush(out);
}

void trace_output_bytes_slow(TraceOutput *out, const char *bytes, size_t n) {
    while (n > 0) {
        if (out->used == sizeof out->buffer) trace_output_flush(out);
        size_t chunk = sizeof out->buffer - out->used;
        if (chunk > n) chunk = n;
        memcpy(out->buffer + out->used, bytes, chunk);
        out->used += chunk;
        bytes += chunk;
        n -= chunk;
    }
}

/* "00" .. "99": numbers are written two digits per division, since IDs
 * (addresses) have fifteen digits and every event carries a few. */
static const char two_digits[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                    "8081828384858687888990919293949596979899";

/* How many decimal digits `value` has: bits * 1233 / 4096 (1233/4096 is
 * just above log10(2)) is the digit count of the largest number of that
 * bit length, one too many when `value` is below that power of ten. */
static unsigned decimal_length(uint64_t value) {
    static const uint64_t powers_of_ten[20] = {
        1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
        1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
        100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
        1000000000000000000ull, 10000000000000000000ull};
    value |= 1; /* 0 has one digit, as 1 has */
    unsigned bits = 64 - (unsigned)__builtin_clzll(value);
    unsigned digits = bits * 1233 >> 12;
    return digits + 1 - (value < powers_of_ten[digits]);
}

/* Writes the `length` digits of `value` ending just before `end`. */
static void put_digits(char *end, uint64_t value) {
    while (value >= 100) {
        unsigned pair = (unsigned)(value % 100) * 2;
        value /= 100;
        *--end = two_digits[pair + 1];
        *--end = two_digits[pair];
    }
    if (value >= 10) {
        *--end = two_digits[value * 2 + 1];
        *--end = two_digits[value * 2];
    } else {
        *--end = (char)('0' + value);
    }
}

void trace_output_uint(TraceOutput *out, uint64_t value) {
    unsigned length = decimal_length(value);
    if (sizeof out->buffer - out->used < length) trace_output_flush(out);
    put_digits(out->buffer + out->used + length, value);
    out->used += length;
}

void trace_output_int(TraceOutput *out, int64_t value) {
    if (value < 0) {
        trace_output_bytes(out, "-", 1);
        trace_output_uint(out, 0 - (uint64_t)value); /* also right for INT64_MIN */
    } else {
        trace_output_uint(out, (uint64_t)value);
    }
}

/* RFC 8259 escaping: quote, backslash and control characters; other bytes
 * (UTF-8, JVMPI's string encoding) pass through. */
void trace_output_string(TraceOutput *out, const char *text) {
    if (!text) {
        trace_output_text(out, "null");
        return;
    }
    static const char hex[] = "0123456789abcdef";
    trace_output_bytes(out, "\"", 1);
    const char *run = text; /* start of bytes that need no escape */
    for (const char *p = text; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        trace_output_bytes(out, run, (size_t)(p - run));
        run = p + 1;
        switch (c) {
        case '"': trace_output_text(out, "\\\""); break;
        case '\\': trace_output_text(out, "\\\\"); break;
        case '\n': trace_output_text(out, "\\n"); break;
        case '\r': trace_output_text(out, "\\r"); break;
        case '\t': trace_output_text(out, "\\t"); break;
        default: {
            char escape[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            trace_output_bytes(out, escape, sizeof escape);
        }
        }
    }
    trace_output_text(out, run);
    trace_output_bytes(out, "\"", 1);
}

int trace_output_close(TraceOutput *out) {
    trace_output_flush(out);
    if (out->owns_fd && close(out->fd) != 0 && out->write_errno == 0) out->write_errno = errno;
    out->fd = -1;
    if (out->partial_path[0]) {
        if (out->write_errno == 0 && rename(out->partial_path, out->final_path) != 0) out->write_errno = errno;
        if (out->write_errno != 0) unlink(out->partial_path);
        out->partial_path[0] = '\0';
    }
    return out->write_errno;
}

void trace_output_abandon(TraceOutput *out) {
    if (out->owns_fd) close(out->fd);
    out->fd = -1;
    if (out->partial_path[0]) unlink(out->partial_path);
    out->partial_path[0] = '\0';
}
