/*
 * trace_output.c -- the agents' buffered JSON output
 * (vmpi/agents/common/trace_output.h) through a pipe: numbers of every
 * length, including each power of ten and its neighbours, every value
 * below 10^4 and random digits of every length, against snprintf; strings
 * with every kind of escape; and pieces that straddle the buffer's end, so
 * the inline fast path and the slow path both run.
 */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmpi/agents/common/trace_output.h"

static TraceOutput out;
static int read_end;
static char expected[4 * TRACE_BUFFER_BYTES];
static size_t expected_length;

/* The output writes into a pipe, opened by name: a path that is no regular
 * file is written in place (trace_output_open). */
static void open_pipe(void) {
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    /* Room for everything a test writes, so no write blocks. */
    cr_assert_geq(fcntl(fds[1], F_SETPIPE_SZ, 1 << 20), (int)sizeof expected);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fds[1]);
    cr_assert(trace_output_open(&out, path));
    close(fds[1]);
    read_end = fds[0];
    expected_length = 0;
}

static void expect(const char *text) {
    size_t n = strlen(text);
    cr_assert_leq(expected_length + n, sizeof expected);
    memcpy(expected + expected_length, text, n);
    expected_length += n;
}

/* Flushes and checks that the pipe holds exactly what was expected. */
static void assert_written(void) {
    cr_assert_eq(trace_output_close(&out), 0);
    static char got[sizeof expected + 1];
    size_t total = 0;
    ssize_t n;
    while ((n = read(read_end, got + total, sizeof got - total)) > 0) total += (size_t)n;
    close(read_end);
    cr_assert_eq(total, expected_length, "wrote %zu bytes, expected %zu", total, expected_length);
    cr_assert(memcmp(got, expected, total) == 0);
}

static void put_uint(uint64_t value) {
    char text[32];
    snprintf(text, sizeof text, "%" PRIu64 ",", value);
    trace_output_uint(&out, value);
    trace_output_literal(&out, ",");
    expect(text);
}

Test(trace_output, unsigned_numbers_of_every_length) {
    open_pipe();
    put_uint(0);
    put_uint(UINT64_MAX);
    uint64_t power = 1;
    for (int digits = 1; digits <= 20; digits++) {
        put_uint(power - 1);
        put_uint(power);
        put_uint(power + 1);
        if (digits < 20) power *= 10;
    }
    for (uint64_t v = 1; v < UINT64_MAX / 7; v = v * 7 + 3) put_uint(v);
    assert_written();
}

/* Numbers are written eight digits at a time: every value below 10^4 (each
 * pair of digits in every position of a group), and values of every length
 * whose digits are drawn at random (a fixed xorshift), so every group of
 * eight sees digits of every kind. */
Test(trace_output, unsigned_numbers_digit_by_digit) {
    open_pipe();
    for (uint64_t v = 0; v < 10000; v++) put_uint(v);
    uint64_t state = 0x9E3779B97F4A7C15ull;
    for (int digits = 1; digits <= 20; digits++)
        for (int i = 0; i < 200; i++) {
            uint64_t value = 0;
            for (int d = 0; d < digits; d++) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                value = value * 10 + state % 10;
            }
            put_uint(value); /* 20 digits may wrap: still a number to write */
        }
    assert_written();
}

/* The leading digits of numbers of 9 to 16 digits are kept for the next
 * ones (two of them, replaced in turn): runs that share them, that
 * alternate between two, and that cycle through three, so that every way a
 * kept one is found, missed and replaced comes out right. */
Test(trace_output, numbers_sharing_their_leading_digits) {
    open_pipe();
    const uint64_t leading[] = {52776558, 1, 99999999, 52776559};
    const uint64_t ten_to_8 = 100000000;
    for (int pattern = 1; pattern <= 4; pattern++)
        for (uint64_t i = 0; i < 60; i++) {
            uint64_t low = i * 1234567 % ten_to_8;
            put_uint(leading[i % (uint64_t)pattern] * ten_to_8 + low);
            put_uint(low); /* a shorter number between them */
        }
    assert_written();
}

Test(trace_output, signed_numbers) {
    open_pipe();
    const int64_t values[] = {0, -1, 1, -9, -10, INT64_MAX, INT64_MIN, -1234567890123LL};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        char text[32];
        snprintf(text, sizeof text, "%" PRId64 ";", values[i]);
        trace_output_int(&out, values[i]);
        trace_output_literal(&out, ";");
        expect(text);
    }
    assert_written();
}

Test(trace_output, strings_are_escaped) {
    open_pipe();
    trace_output_string(&out, "plain");
    trace_output_string(&out, "q\"b\\n\nr\rt\t\x01\x1f\xc3\xa9");
    trace_output_string(&out, NULL);
    expect("\"plain\"\"q\\\"b\\\\n\\nr\\rt\\t\\u0001\\u001f\xc3\xa9\"null");
    assert_written();
}

/* Pieces of many lengths, so that some end exactly at the buffer's end and
 * some cross it: the bytes come out whole and in order. */
Test(trace_output, pieces_across_the_buffer_end) {
    open_pipe();
    static char piece[3000];
    for (size_t i = 0; i < sizeof piece; i++) piece[i] = (char)('a' + i % 26);
    size_t written = 0;
    for (size_t length = 1; written + length < 2 * TRACE_BUFFER_BYTES + 5000; length = length * 3 % 2999 + 1) {
        trace_output_bytes(&out, piece, length);
        char saved = piece[length];
        piece[length] = '\0';
        expect(piece);
        piece[length] = saved;
        written += length;
        trace_output_uint(&out, written);
        char number[24];
        snprintf(number, sizeof number, "%zu", written);
        expect(number);
    }
    assert_written();
}
