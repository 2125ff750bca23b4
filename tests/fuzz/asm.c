/*
 * asm.c -- fuzz harness: text in -> the assembler, then the round trip vmas
 * and vmdis promise (vm/asm/asm.h): a program that assembles and verifies
 * serializes to bytes the loader accepts, prints as assembly, and that
 * assembly assembles back to the same bytes.  Text the assembler or the
 * verifier rejects must give one message, never a crash or a leak.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "finding.h"
#include "vm/asm/asm.h"
#include "vm/bytecode/bytecode.h"
#include "vm/verify/verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[512];
    err[0] = '\0';
    Program *program = asm_parse_verified("fuzz.s", (const char *)data, size, err, sizeof err);
    if (!program) {
        if (err[0] == '\0') FINDING("the assembler rejected the text without a message");
        return 0;
    }
    size_t bytes_len;
    uint8_t *bytes = bc_serialize(program, &bytes_len);

    /* What vmdis prints: the image as the loader reads it. */
    Program *loaded = bc_load_image(bytes, bytes_len, "fuzz.bc", err, sizeof err);
    if (!loaded) FINDING("the loader rejects what the assembler wrote: %s", err);
    char *listing;
    size_t listing_len;
    FILE *out = open_memstream(&listing, &listing_len);
    if (!out) abort();
    asm_print(loaded, out);
    fclose(out);

    Program *again = asm_parse_verified("listing.s", listing, listing_len, err, sizeof err);
    if (!again) FINDING("the disassembly does not assemble: %s\n----\n%s", err, listing);
    size_t again_len;
    uint8_t *again_bytes = bc_serialize(again, &again_len);
    if (again_len != bytes_len || memcmp(again_bytes, bytes, bytes_len) != 0)
        FINDING("the disassembly assembles to different bytes\n----\n%s", listing);

    free(again_bytes);
    program_free(again);
    free(listing);
    program_free(loaded);
    free(bytes);
    program_free(program);
    return 0;
}
