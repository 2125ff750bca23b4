/*
 * compiler.c -- fuzz harness: source text in -> the compiler
 * (compile_source).  Any text must give either a program or one error
 * message, never a crash, a sanitizer report or a leak; and a program the
 * compiler produces must pass the verifier, since the compiler rejecting its
 * own output is a compiler bug (vmrun reports it as an internal error).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "finding.h"
#include "vm/compiler/compiler.h"
#include "vm/verify/verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[512];
    err[0] = '\0';
    Program *program = compile_source("fuzz.gcl", (const char *)data, size, err, sizeof err);
    if (!program) {
        if (err[0] == '\0') {
            FINDING("the compiler rejected the source without a message");
        }
        return 0;
    }
    VerifyError verr;
    if (!verify_program(program, &verr)) {
        char message[512];
        verify_describe(program, &verr, message, sizeof message);
        FINDING("the compiler's output fails verification: %s", message);
    }
    program_free(program);
    return 0;
}
