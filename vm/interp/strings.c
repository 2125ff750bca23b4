/*
 * strings.c -- the string operations that need more than a line in the
 * interpreter, and the one text format of numbers (docs/language.md, "Built-in
 * functions" and "String concatenation").
 *
 * Strings are immutable heap objects: `length` bytes followed by a NUL
 * (object.h).  Invariant: a function here that allocates takes its string
 * operands as root slots, never as addresses, and reads them again after the
 * allocation, because the collector may have moved them (internal.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "vm/internal.h"

size_t vm_format_int(int64_t value, char *buf) {
    char digits[VM_NUMBER_TEXT_MAX];
    size_t n = 0;
    /* Work on the magnitude as unsigned: -INT64_MIN does not fit an int64. */
    uint64_t magnitude = value < 0 ? 0 - (uint64_t)value : (uint64_t)value;
    do {
        digits[n++] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude);
    size_t len = 0;
    if (value < 0) buf[len++] = '-';
    while (n) buf[len++] = digits[--n];
    buf[len] = '\0';
    return len;
}

size_t vm_format_double(double value, char *buf) {
    /* glibc would print "-nan" for a NaN with the sign bit set. */
    if (isnan(value)) return (size_t)snprintf(buf, VM_NUMBER_TEXT_MAX, "nan");
    if (isinf(value)) return (size_t)snprintf(buf, VM_NUMBER_TEXT_MAX, value > 0 ? "inf" : "-inf");
    size_t len = (size_t)snprintf(buf, VM_NUMBER_TEXT_MAX, "%.14g", value);
    if (strspn(buf, "-0123456789") == len) {
        memcpy(buf + len, ".0", 3);
        len += 2;
    }
    return len;
}

static Obj *alloc_string(VMThread *thread, size_t len) {
    /* obj_size_for adds the NUL: the length must leave room for it. */
    if (len >= UINT32_MAX) vm_runtime_errorf(thread, "string too long (%zu bytes)", len);
    return vm_alloc(thread, &thread->vm->string_class, (uint32_t)len);
}

Obj *vm_string_from_bytes(VMThread *thread, const char *bytes, size_t len) {
    Obj *s = alloc_string(thread, len);
    memcpy(obj_body(s), bytes, len);
    return s;
}

/* SCAT shows a null operand as "null" (docs/language.md). */
static const char *text_of(const Obj *s, size_t *len) {
    if (!s) {
        *len = 4;
        return "null";
    }
    *len = s->length;
    return str_chars(s);
}

Obj *vm_string_concat(VMThread *thread, Obj **operands) {
    size_t left_len, right_len;
    text_of(operands[0], &left_len);
    text_of(operands[1], &right_len);
    Obj *result = alloc_string(thread, left_len + right_len);
    /* Re-read both operands: the allocation may have moved them. */
    const char *left = text_of(operands[0], &left_len);
    const char *right = text_of(operands[1], &right_len);
    memcpy(obj_body(result), left, left_len);
    memcpy((char *)obj_body(result) + left_len, right, right_len);
    return result;
}

Obj *vm_string_substring(VMThread *thread, Obj **operand, int64_t from, int64_t to) {
    int64_t len = (*operand)->length;
    if (from < 0 || from > to || to > len)
        vm_runtime_errorf(thread, "substring [%lld, %lld) out of bounds for length %lld", (long long)from,
                          (long long)to, (long long)len);
    Obj *result = alloc_string(thread, (size_t)(to - from));
    memcpy(obj_body(result), str_chars(*operand) + from, (size_t)(to - from));
    return result;
}

int vm_string_equals(const Obj *a, const Obj *b) {
    if (a == b) return 1;
    if (!a || !b || a->length != b->length) return 0;
    return memcmp(str_chars(a), str_chars(b), a->length) == 0;
}

/* Writes s in double quotes into buf for an error message: at most about
 * 60 bytes of it, with quotes, backslashes and unprintable bytes escaped. */
static void quote_for_message(const Obj *s, char *buf, size_t size) {
    size_t out = 0;
    buf[out++] = '"';
    for (uint32_t i = 0; i < s->length; i++) {
        unsigned char c = (unsigned char)str_chars(s)[i];
        if (out + 8 >= size) {
            memcpy(buf + out, "...", 3);
            out += 3;
            break;
        }
        if (c == '"' || c == '\\') {
            buf[out++] = '\\';
            buf[out++] = (char)c;
        } else if (c < 0x20 || c >= 0x7f) {
            out += (size_t)snprintf(buf + out, size - out, "\\x%02x", c);
        } else {
            buf[out++] = (char)c;
        }
    }
    buf[out++] = '"';
    buf[out] = '\0';
}

int64_t vm_parse_int(VMThread *thread, const Obj *s) {
    const char *p = str_chars(s), *end = p + s->length;
    bool negative = p < end && *p == '-';
    if (negative) p++;
    /* Accumulate the magnitude as unsigned; INT64_MIN's magnitude is one
     * more than INT64_MAX's. */
    uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t magnitude = 0;
    bool ok = p < end;
    for (; ok && p < end; p++) {
        unsigned digit = (unsigned)(unsigned char)*p - '0';
        if (digit > 9 || magnitude > (limit - digit) / 10) ok = false;
        else magnitude = magnitude * 10 + digit;
    }
    if (!ok) {
        char quoted[80];
        quote_for_message(s, quoted, sizeof quoted);
        vm_runtime_errorf(thread, "parseInt: not an integer: %s", quoted);
    }
    return negative ? (int64_t)(0 - magnitude) : (int64_t)magnitude;
}
