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

void trace_output_bytes(TraceOutput *out, const char *bytes, size_t n) {
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

void trace_output_text(TraceOutput *out, const char *text) { trace_output_bytes(out, text, strlen(text)); }

void trace_output_uint(TraceOutput *out, uint64_t value) {
    char digits[20];
    size_t n = 0;
    do {
        digits[sizeof digits - 1 - n++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    trace_output_bytes(out, digits + sizeof digits - n, n);
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
