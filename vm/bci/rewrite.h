/*
 * rewrite.h -- inserting recorder calls into one method's code (rewrite.c),
 * for the instrumentation library (vmpi/vmpi_bci.h).
 */
#ifndef GCLAB_BCI_REWRITE_H
#define GCLAB_BCI_REWRITE_H

#include <stddef.h>
#include <stdint.h>

#include "vm/program.h"

/* The natives to call, by index, or PROG_NONE for none of that kind. */
typedef struct RewriteCalls {
    uint32_t entry, exit, allocation;
} RewriteCalls;

/* Rewrites verified method `m` (number `method` of its program) in place:
 * CALLN calls.entry with the method's number before its first
 * instruction, CALLN calls.exit with it before every return, and RDUP,
 * CALLN calls.allocation after every allocating instruction; jump offsets
 * and the line table follow the code, and each stack depth grows by the
 * one slot a call needs.  False, with `m` unchanged and the reason in
 * why, if the code would outgrow the format (vm/limits.h) or memory runs
 * out. */
bool bci_rewrite_method(ProgMethod *m, uint32_t method, const RewriteCalls *calls, char *why, size_t why_size);

#endif
