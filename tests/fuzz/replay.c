/*
 * replay.c -- a main for a fuzz harness built without libFuzzer: runs
 * LLVMFuzzerTestOneInput once on each file named on the command line, and
 * on every file in each directory named (sorted by name, so runs repeat).
 * A harness signals a finding by aborting, so reaching the end is a pass.
 *
 *   fuzz_NAME FILE|DIR...
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vm/readfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t replayed;

static void replay_file(const char *path) {
    char err[512];
    size_t len;
    uint8_t *data = read_whole_file(path, &len, err, sizeof err);
    if (!data) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    fprintf(stderr, "replay: %s\n", path);
    LLVMFuzzerTestOneInput(data, len);
    free(data);
    replayed++;
}

static int by_name(const struct dirent **a, const struct dirent **b) {
    return strcmp((*a)->d_name, (*b)->d_name);
}

static void replay_dir(const char *dir) {
    struct dirent **entries;
    int count = scandir(dir, &entries, NULL, by_name);
    if (count < 0) {
        perror(dir);
        exit(1);
    }
    for (int i = 0; i < count; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, entries[i]->d_name);
        struct stat st;
        if (entries[i]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) replay_file(path);
        free(entries[i]);
    }
    free(entries);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) replay_dir(argv[i]);
        else replay_file(argv[i]);
    }
    fprintf(stderr, "replay: %zu inputs, no finding\n", replayed);
    return 0;
}
