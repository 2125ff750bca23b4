/*
 * bci.c -- fuzz harness: bytes in -> the instrumentation library
 * (vmpi/vmpi_bci.h), as an agent uses it on the image CLASS_LOAD_HOOK
 * hands it.  Any bytes must give either a program or one error message:
 * never a crash, a sanitizer report or a leak.  A program it accepts
 * serializes back to the same bytes with nothing inserted, and, with
 * calls inserted at every method entry, exit and allocation, to an image
 * the VM's loader accepts and verifies (or one message saying which limit
 * the program would outgrow, and the program as it was).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "finding.h"
#include "vm/bytecode/bytecode.h"
#include "vmpi/vmpi_bci.h"

static void *allocate(unsigned int size) { return malloc(size); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[512];
    err[0] = '\0';
    VmpiBciProgram *p = vmpi_bci_parse(data, size, err, sizeof err);
    if (!p) {
        if (err[0] == '\0') {
            FINDING("the library rejected the image without a message");
        }
        return 0;
    }
    size_t len;
    unsigned char *same = vmpi_bci_serialize(p, allocate, &len);
    if (!same || len != size || memcmp(same, data, size) != 0) {
        FINDING("an image the library accepted serializes to different bytes");
    }
    free(same);
    VmpiBciRecorders recorders = {
        .library = "librecorders.so", .method_entry = "entry", .method_exit = "exit", .allocation = "alloc"};
    err[0] = '\0';
    if (vmpi_bci_instrument(p, &recorders, err, sizeof err)) {
        unsigned char *image = vmpi_bci_serialize(p, allocate, &len);
        Program *loaded = image ? bc_load_image(image, len, "instrumented.bc", err, sizeof err) : NULL;
        if (!loaded) {
            FINDING("the instrumented program does not load");
        }
        program_free(loaded);
        free(image);
    } else {
        if (err[0] == '\0') {
            FINDING("the library refused to instrument without a message");
        }
        unsigned char *after = vmpi_bci_serialize(p, allocate, &len);
        if (!after || len != size || memcmp(after, data, size) != 0) {
            FINDING("a refused instrumentation changed the program");
        }
        free(after);
    }
    vmpi_bci_free(p);
    return 0;
}
