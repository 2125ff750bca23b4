/*
 * bytecode.c -- fuzz harness: bytes in -> the .bc loader and verifier
 * (bc_load_image: parse, lay out, verify).  Any bytes must give either a
 * program or one error message: never a crash, a sanitizer report or a
 * leak.  A program it accepts serializes back to the same bytes (the
 * invariant at the top of vm/bytecode/bcformat.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "finding.h"
#include "vm/bytecode/bytecode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[512];
    err[0] = '\0';
    Program *program = bc_load_image(data, size, "fuzz.bc", err, sizeof err);
    if (!program) {
        if (err[0] == '\0') {
            FINDING("the loader rejected the image without a message");
        }
        return 0;
    }
    size_t written_len;
    uint8_t *written = bc_serialize(program, &written_len);
    if (written_len != size || memcmp(written, data, size) != 0) {
        FINDING("an image the loader accepted serializes to different bytes");
    }
    free(written);
    program_free(program);
    return 0;
}
