/*
 * gclabtest.c -- the C library the native-call tests call
 * (the programs in tests/native): one function per C type and direction, so that each
 * conversion of vm/native/native.c is checked by a value it could get wrong
 * (a truncation, a sign, a rounding, a write that must come back).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

int64_t gt_add64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
int32_t gt_add32(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
int8_t gt_neg8(int8_t a) { return (int8_t)-a; }
uint16_t gt_next_char(uint16_t c) { return (uint16_t)(c + 1); }
int16_t gt_twice16(int16_t a) { return (int16_t)(a * 2); }
float gt_third(float x) { return x / 3.0f; }
bool gt_not(bool b) { return !b; }
double gt_mix(int8_t b, double d, int32_t i, float f, bool z) { return b + d + i + f + (z ? 1000 : 0); }

/* Strings: in, NULL in, out, NULL out. */
int64_t gt_count_byte(const char *s, int32_t byte) {
    int64_t n = 0;
    for (; *s; s++) n += (unsigned char)*s == byte;
    return n;
}
bool gt_is_null(const char *s) { return s == NULL; }
const char *gt_word(int32_t which) {
    static const char *const words[] = {"zero", "one", "two"};
    return which >= 0 && which < 3 ? words[which] : NULL;
}

/* Arrays: read, written back, every element kind. */
double gt_sum_doubles(const double *a, int32_t n) {
    double sum = 0;
    for (int32_t i = 0; i < n; i++) sum += a[i];
    return sum;
}
int64_t gt_sum_ints(const int64_t *a, int32_t n) {
    int64_t sum = 0;
    for (int32_t i = 0; i < n; i++) sum += a[i];
    return sum;
}
void gt_fill_int32(int32_t *a, int32_t n, int32_t start) {
    for (int32_t i = 0; i < n; i++) a[i] = (int32_t)((uint32_t)start + (uint32_t)i); /* wraps past INT32_MAX */
}
void gt_upcase(int8_t *a, int32_t n) {
    for (int32_t i = 0; i < n; i++)
        if (a[i] >= 'a' && a[i] <= 'z') a[i] = (int8_t)(a[i] - 'a' + 'A');
}
void gt_shorts_and_chars(int16_t *s, uint16_t *c, int32_t n) {
    for (int32_t i = 0; i < n; i++) {
        s[i] = (int16_t)-s[i];
        c[i] = (uint16_t)(c[i] + 0x8000u);
    }
}
void gt_halve_floats(float *a, int32_t n) {
    for (int32_t i = 0; i < n; i++) a[i] /= 2;
}
/* Writes a byte of 2 for true: the VM must store it back as true (1). */
void gt_flip_bools(bool *a, int32_t n) {
    unsigned char *bytes = (unsigned char *)a;
    for (int32_t i = 0; i < n; i++) bytes[i] = bytes[i] ? 0 : 2;
}
bool gt_is_null_array(const double *a) { return a == NULL; }
