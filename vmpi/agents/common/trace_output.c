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

/* What both ways of opening start with: an empty buffer, no error, no
 * leading digits kept. */
static void start_output(TraceOutput *out) {
    out->used = 0;
    out->write_errno = 0;
    memset(out->leading, 0, sizeof out->leading);
    out->leading_next = 0;
}

bool trace_output_open(TraceOutput *out, const char *path) {
    start_output(out);
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
    start_output(out);
    out->fd = fd;
    out->owns_fd = false;
    out->is_socket = true;
    out->partial_path[0] = '\0';
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

/* Out of line, though the writers below call it: it runs once per buffer,
 * and inlined it would make each of them save registers at every call. */
__attribute__((noinline)) void trace_output_flush(TraceOutput *out) {
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

/* Numbers are written eight digits at a time, every digit of the eight in
 * one register: IDs (addresses) have about fifteen digits and every event
 * carries a few, so this is most of what writing a trace costs.
 *
 * eight_digits(v), v < 10^8, holds v's eight decimal digits (leading zeros
 * included) as the bytes 0..9 of a 64-bit word, the most significant digit
 * in the lowest byte -- the order a little-endian store puts them in memory.
 * It splits v into two halves of four digits, each in its own 32-bit lane,
 * then each half into two pairs (16-bit lanes), then each pair into two
 * digits (bytes), dividing every lane at once by multiplying by a reciprocal:
 * x * 10486 >> 20 is x / 100 for every x < 10^4, and x * 103 >> 10 is x / 10
 * for every x < 100, and no lane's product reaches the next lane (Paul
 * Khuong, "How to print integers really fast", 2017).  The unit test
 * (tests/unit/trace_output.c) checks the digits against snprintf. */
static uint64_t eight_digits(uint32_t value) {
    uint64_t halves = value / 10000 | (uint64_t)(value % 10000) << 32;
    uint64_t high_pairs = (halves * 10486 >> 20) & (0x7Full | 0x7Full << 32);
    uint64_t pairs = (halves - 100 * high_pairs) << 16 | high_pairs;
    uint64_t tens = (pairs * 103 >> 10) & 0x000F000F000F000Full;
    return tens | (pairs - 10 * tens) << 8;
}

#define ASCII_ZEROS 0x3030303030303030ull

/* `digits` (eight_digits' order) as the eight bytes of text they are in
 * memory. */
static uint64_t as_text(uint64_t digits) {
    digits += ASCII_ZEROS;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    digits = __builtin_bswap64(digits);
#endif
    return digits;
}

static void store_eight(char *at, uint64_t digits) {
    uint64_t text = as_text(digits);
    memcpy(at, &text, sizeof text);
}

/* `value` (< 10^8) without leading zeros, as text to store (eight bytes,
 * whatever the length) and its length. */
static DigitsText up_to_eight(uint32_t value) {
    uint64_t digits = eight_digits(value);
    /* Leading zeros are the low zero bytes; the last digit always counts. */
    unsigned zeros = (unsigned)__builtin_ctzll(digits | 1ull << 56) / 8;
    return (DigitsText){.value = value, .text = as_text(digits >> 8 * zeros), .length = 8 - zeros};
}

/* Writes `value` (< 10^8) at `at` without leading zeros; returns its length.
 * Stores eight bytes whatever the length: the caller has room for them. */
static unsigned put_up_to_eight(char *at, uint32_t value) {
    DigitsText digits = up_to_eight(value);
    memcpy(at, &digits.text, sizeof digits.text);
    return digits.length;
}

/* The same for the leading digits of a number of 9 to 16 digits: the IDs
 * of one arena, or of the classes, share them, so the last two are kept
 * (out->leading, replaced in turn) and copied when they come again. */
static unsigned put_leading(TraceOutput *out, char *at, uint32_t value) {
    DigitsText *kept = &out->leading[0];
    if (kept->value != value) {
        kept = &out->leading[1];
        if (kept->value != value) {
            kept = &out->leading[out->leading_next];
            out->leading_next ^= 1;
            *kept = up_to_eight(value);
        }
    }
    memcpy(at, &kept->text, sizeof kept->text);
    return kept->length;
}

/* The most bytes trace_output_number stores: UINT64_MAX has 20 digits. */
#define MAX_UINT_BYTES 20

static const uint32_t ten_to_8 = 100000000;

/* Writes `value` >= 10^16 at `at`; returns its length.  Out of line: no ID
 * or count a VM has is this large, and the common path stays a leaf. */
__attribute__((noinline)) static unsigned put_over_sixteen(char *at, uint64_t value) {
    uint64_t high = value / ten_to_8;
    unsigned length = put_up_to_eight(at, (uint32_t)(high / ten_to_8));
    store_eight(at + length, eight_digits((uint32_t)(high % ten_to_8)));
    store_eight(at + length + 8, eight_digits((uint32_t)(value % ten_to_8)));
    return length + 16;
}

void trace_output_number(TraceOutput *out, uint64_t value) {
    if (sizeof out->buffer - out->used < MAX_UINT_BYTES) trace_output_flush(out);
    char *at = out->buffer + out->used;
    if (value < ten_to_8) {
        out->used += put_up_to_eight(at, (uint32_t)value);
    } else if (value < (uint64_t)ten_to_8 * ten_to_8) {
        uint64_t high = value / ten_to_8;
        unsigned length = put_leading(out, at, (uint32_t)high);
        store_eight(at + length, eight_digits((uint32_t)(value - high * ten_to_8)));
        out->used += length + 8;
    } else {
        out->used += put_over_sixteen(at, value);
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
