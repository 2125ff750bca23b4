/*
 * native_refused.c -- native functions in the browser build (docs/lab.md):
 * a page has no libffi and no libraries to dlopen, so a program that
 * declares a native is refused before it starts, with one message, as
 * --no-native refuses it in a native build (native.c).
 */
#include "vm/native/native.h"

#include <stdio.h>
#include <stdlib.h>

#include "vm/internal.h"

bool vm_natives_bind(VM *vm, bool refuse, char *why, size_t why_size) {
    const Program *p = vm->program;
    if (p->num_natives == 0) return true;
    snprintf(why, why_size,
             "this build (WebAssembly, in a browser) has no native functions; the program declares '%s' from %s",
             p->natives[0].name, p->natives[0].library);
    return false;
}

void vm_natives_free(VM *vm) {}

/* Unreachable: a program with natives never starts (vm_natives_bind). */
void vm_native_call(VMThread *thread, uint32_t index) { abort(); }
