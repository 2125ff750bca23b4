/*
 * finding.h -- how a fuzz harness reports what it found: one line naming the
 * broken invariant, then abort(), which libFuzzer (and the replay driver's
 * ctest run) counts as a crash and keeps the input for.
 */
#ifndef GCLAB_FUZZ_FINDING_H
#define GCLAB_FUZZ_FINDING_H

#include <stdio.h>
#include <stdlib.h>

#define FINDING(...)                           \
    do {                                       \
        fprintf(stderr, "fuzz: " __VA_ARGS__); \
        fputc('\n', stderr);                   \
        abort();                               \
    } while (0)

#endif
