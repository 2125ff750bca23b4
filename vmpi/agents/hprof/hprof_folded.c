/*
 * hprof_folded.c -- hprof's tables as folded stacks (see hprof_folded.h).
 *
 * Each stack with a value is written, NUL-terminated, into one buffer;
 * the stacks are sorted, and equal neighbours merged as their lines are
 * written.
 */
#include "hprof_folded.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct FoldedStack {
    const char *frames;  /* into the buffer of every stack's frames */
    int64_t value;
} FoldedStack;

static int by_frames(const void *a, const void *b) {
    return strcmp(((const FoldedStack *)a)->frames, ((const FoldedStack *)b)->frames);
}

/* The frames of `stack`, outermost first, NUL-terminated. */
static void write_frames(FILE *text, const HprofStacks *stacks, const HprofStack *stack) {
    const HprofTrace *trace = &stacks->sites->traces[stack->trace];
    if (trace->num_frames == 0) fputs("<empty>", text);
    for (int32_t f = trace->num_frames; f-- > 0;) {
        HprofMethodName names = stacks->name_method(stacks->sites->frames[trace->first_frame + (size_t)f].method_id);
        fprintf(text, "%s.%s%s", names.class_name, names.method_name, f > 0 ? ";" : "");
    }
    if (stack->class_name) fprintf(text, ";%s", stack->class_name);
    fputc('\0', text);
}

/* The lines of `folded` (sorted), equal stacks merged, into *bytes. */
static bool write_lines(FoldedStack *folded, size_t n, char **bytes, size_t *size) {
    FILE *text = open_memstream(bytes, size);
    if (!text) return false;
    for (size_t i = 0; i < n;) {
        int64_t value = 0;
        size_t j = i;
        for (; j < n && strcmp(folded[j].frames, folded[i].frames) == 0; j++) value += folded[j].value;
        fprintf(text, "%s %lld\n", folded[i].frames, (long long)value);
        i = j;
    }
    bool written = !ferror(text);
    if (fclose(text) == 0 && written) return true;
    free(*bytes);
    return false;
}

bool hprof_folded_render(const HprofStacks *stacks, size_t type_index, char **bytes, size_t *size) {
    char *frames = NULL;
    size_t frames_size = 0;
    FoldedStack *folded = malloc((stacks->num_stacks ? stacks->num_stacks : 1) * sizeof *folded);
    FILE *text = folded ? open_memstream(&frames, &frames_size) : NULL;
    if (!text) {
        free(folded);
        return false;
    }
    size_t n = 0;
    for (size_t i = 0; i < stacks->num_stacks; i++) {
        const HprofStack *stack = &stacks->stacks[i];
        if (stack->values[type_index] == 0) continue;
        folded[n++].value = stack->values[type_index];
        write_frames(text, stacks, stack);
    }
    bool done = !ferror(text);
    done = fclose(text) == 0 && done;
    if (done) {
        /* Each stack's frames start after the NUL of the one before. */
        const char *next = frames;
        for (size_t i = 0; i < n; i++) {
            folded[i].frames = next;
            next += strlen(next) + 1;
        }
        qsort(folded, n, sizeof *folded, by_frames);
        done = write_lines(folded, n, bytes, size);
    }
    free(frames);
    free(folded);
    return done;
}
