/*
 * rewrite.c -- inserting recorder calls into one method's code.
 *
 * Each original instruction becomes a block: the exit call before it if it
 * is a return, the instruction, the allocation call after it if it
 * allocates.  The entry call goes before the first block.  `block[pc]`
 * is where the block of the instruction at old pc starts in the new code,
 * so a jump to an instruction still runs the exit call in front of a
 * return, never reruns the entry call (a loop back to pc 0 lands after
 * it), and never reruns an allocation's call (the call belongs to the
 * block of the instruction that allocated).
 *
 * The sequences keep the stacks balanced: PUSHI n; CALLN #e pushes one
 * int and pops it, RDUP; CALLN #a pushes one reference and pops it.  So
 * every instruction sees the stack depths it saw before, plus at most one
 * slot during a call, and the method's maxima grow by one.  The input is
 * verified, so instructions are whole and jumps land on them.
 */
#include "rewrite.h"

#include <stdio.h>
#include <stdlib.h>

#include "vm/limits.h"
#include "vm/opcodes.h"

enum {
    METHOD_CALL_SIZE = 5 + 3,  /* PUSHI i32, CALLN u16 */
    ALLOC_CALL_SIZE = 1 + 3,   /* RDUP, CALLN u16 */
};

static bool is_return(uint8_t op) { return op == OP_RET || op == OP_RETP || op == OP_RETR; }

/* The instructions that leave a new object on top of the reference stack
 * (vmpi/vmpi_bci.h lists them). */
static bool allocates(uint8_t op) {
    switch (op) {
    case OP_NEW: case OP_NEWARR: case OP_START:
    case OP_SCAT: case OP_I2S: case OP_D2S: case OP_Z2S: case OP_SSUB: case OP_CHR:
        return true;
    default:
        return false;
    }
}

static uint32_t before_size(uint8_t op, const RewriteCalls *calls) {
    return calls->exit != PROG_NONE && is_return(op) ? METHOD_CALL_SIZE : 0;
}

static uint32_t after_size(uint8_t op, const RewriteCalls *calls) {
    return calls->allocation != PROG_NONE && allocates(op) ? ALLOC_CALL_SIZE : 0;
}

static uint8_t *put_op(uint8_t *at, uint8_t op, uint32_t operand) {
    *at = op;
    int size = op_operand_size(op_info[op].operand);
    op_operand_put(at + 1, operand, size);
    return at + 1 + size;
}

static uint8_t *put_method_call(uint8_t *at, uint32_t native, uint32_t method) {
    return put_op(put_op(at, OP_PUSHI, method), OP_CALLN, native);
}

bool bci_rewrite_method(ProgMethod *m, uint32_t method, const RewriteCalls *calls, char *why, size_t why_size) {
    uint32_t *block = malloc(((size_t)m->code_len + 1) * sizeof *block);
    if (!block) {
        snprintf(why, why_size, "out of memory");
        return false;
    }
    uint64_t size = calls->entry != PROG_NONE ? METHOD_CALL_SIZE : 0;
    for (uint32_t pc = 0; pc < m->code_len; pc += op_size(m->code[pc])) {
        uint8_t op = m->code[pc];
        block[pc] = (uint32_t)size;
        size += before_size(op, calls) + op_size(op) + after_size(op, calls);
        if (size > PROG_MAX_CODE_BYTES) {
            free(block);
            snprintf(why, why_size, "method %s: the instrumented code is over %u bytes, the limit", m->name,
                     PROG_MAX_CODE_BYTES);
            return false;
        }
    }
    if (m->max_pstack + 1 > PROG_MAX_STACK_DEPTH || m->max_rstack + 1 > PROG_MAX_STACK_DEPTH) {
        free(block);
        snprintf(why, why_size, "method %s: the calls need a stack deeper than %u, the limit", m->name,
                 PROG_MAX_STACK_DEPTH);
        return false;
    }
    uint8_t *code = malloc(size ? size : 1);
    if (!code) {
        free(block);
        snprintf(why, why_size, "out of memory");
        return false;
    }
    uint8_t *at = code;
    if (calls->entry != PROG_NONE) at = put_method_call(at, calls->entry, method);
    for (uint32_t pc = 0; pc < m->code_len; pc += op_size(m->code[pc])) {
        uint8_t op = m->code[pc];
        if (before_size(op, calls)) at = put_method_call(at, calls->exit, method);
        int operand_size = op_operand_size(op_info[op].operand);
        uint32_t operand = op_operand_get(m->code + pc + 1, operand_size);
        if (op_info[op].operand == OPND_JUMP) {
            uint32_t target = pc + operand; /* wraps as the i32 offset it is */
            operand = block[target] - (uint32_t)(at - code);
        }
        at = put_op(at, op, operand);
        if (after_size(op, calls)) at = put_op(put_op(at, OP_RDUP, 0), OP_CALLN, calls->allocation);
    }
    /* The first line keeps pc 0, so the entry call belongs to it. */
    for (uint32_t i = 0; i < m->num_lines; i++)
        if (m->lines[i].pc != 0) m->lines[i].pc = block[m->lines[i].pc];
    free(block);
    free(m->code);
    m->code = code;
    m->code_len = (uint32_t)size;
    if (calls->entry != PROG_NONE || calls->exit != PROG_NONE) m->max_pstack++;
    if (calls->allocation != PROG_NONE) m->max_rstack++;
    return true;
}
