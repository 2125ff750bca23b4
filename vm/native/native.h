/*
 * native.h -- native functions (docs/language.md "Native functions"):
 * binding a program's natives when it loads, and CALLN.
 */
#ifndef GCLAB_INTERP_NATIVE_H
#define GCLAB_INTERP_NATIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vm/vm.h"

/* Binds every native of vm->program: dlopen its library, dlsym its symbol,
 * describe its signature to libffi.  With `refuse` (--no-native) a program
 * that declares any native is refused.  False, with a message naming the
 * native and what failed in `why`, if any cannot be bound: the program
 * then never starts, so no call can fail for want of its function. */
bool vm_natives_bind(VM *vm, bool refuse, char *why, size_t why_size);

/* Closes what vm_natives_bind opened (any part of it). */
void vm_natives_free(VM *vm);

/* CALLN #index.  The arguments are the top slots of the thread's stacks
 * (its saved ptop and rtop); pops them and pushes the result, if any. */
void vm_native_call(VMThread *thread, uint32_t index);

#endif
