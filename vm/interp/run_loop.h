/*
 * run_loop.h -- the interpreter's dispatch loop, included twice by
 * interp.c: as run_plain, for every collector, and as
 * run_counting_roots, for a collector that counts root references
 * (Gc.counts_roots: refcount's immediate mode).  The includer defines
 * RUN_LOOP (the function's name) and COUNTS_ROOTS (0 or 1); no include
 * guard, and both are undefined at the end.
 *
 * Every change to a reference slot of the stack goes through the macros
 * below: RPUSH, RSET, RMOVE_TOP_TO, RDROP, RDROP_TO.  In run_plain they
 * are the plain stores and pointer moves they always were, so no other
 * collector pays anything for counting.  In run_counting_roots they keep
 * the invariant that every slot of [rstack, rtop), every reference static
 * and every other root is counted in its referent's count: a reference
 * that enters a slot is counted before the one it replaces is uncounted,
 * and a slot is popped (rsp moved below it) before its reference is
 * uncounted, with the state saved, because that may free the object and
 * its cascade at once, posting events (and an agent may look at the
 * stack).  An instruction therefore reads its reference operands in their
 * slots and pops them after it is done with them.
 */
#if COUNTS_ROOTS
#define ROOT_GAINED(obj) gc_root_gained(VM->gc, (obj))
#define ROOT_LOST(obj)                                                                               \
    do {                                                                                             \
        Obj *lost_ = (obj);                                                                          \
        if (lost_ != NULL) {                                                                         \
            SAVE_STATE();                                                                            \
            VM->gc->ops->root_lost(VM->gc, lost_);                                                   \
        }                                                                                            \
    } while (0)
/* Pops n slots, or down to `top` (a return), uncounting each. */
#define RDROP(n)                                                                                     \
    do {                                                                                             \
        for (uint32_t dropped_ = 0; dropped_ < (n); dropped_++) {                                 \
            rsp--;                                                                                   \
            ROOT_LOST(*rsp);                                                                         \
        }                                                                                            \
    } while (0)
#define RDROP_TO(top)                                                                                \
    do {                                                                                             \
        Obj **const top_ = (top);                                                                    \
        while (rsp > top_) {                                                                         \
            rsp--;                                                                                   \
            ROOT_LOST(*rsp);                                                                         \
        }                                                                                            \
    } while (0)
/* Stores `value` into counted `slot` (below rsp). */
#define RSET(slot, value)                                                                            \
    do {                                                                                             \
        Obj **set_slot_ = (slot);                                                                    \
        Obj *set_value_ = (value), *replaced_ = *set_slot_;                                          \
        ROOT_GAINED(set_value_);                                                                     \
        *set_slot_ = set_value_;                                                                     \
        ROOT_LOST(replaced_);                                                                        \
    } while (0)
/* Pops the top into counted `slot` (a local, a static): its count moves
 * with it, and the reference it replaces is uncounted. */
#define RMOVE_TOP_TO(slot)                                                                           \
    do {                                                                                             \
        Obj **to_slot_ = (slot);                                                                     \
        Obj *replaced_ = *to_slot_;                                                                  \
        *to_slot_ = *--rsp;                                                                          \
        ROOT_LOST(replaced_);                                                                        \
    } while (0)
#else
#define ROOT_GAINED(obj) ((void)0)
#define RDROP(n) (rsp -= (n))
#define RDROP_TO(top) (rsp = (top))
#define RSET(slot, value) (*(slot) = (value))
#define RMOVE_TOP_TO(slot) (*(slot) = *--rsp)
#endif
/* Pushes `value`: a new reference in a slot. */
#define RPUSH(value)                                                                                 \
    do {                                                                                             \
        Obj *pushed_ = (value);                                                                      \
        *rsp++ = pushed_;                                                                            \
        ROOT_GAINED(pushed_);                                                                        \
    } while (0)

/* Runs from frame `base` (already entered, its pc at its first instruction)
 * until that frame returns; returns its primitive result (0 for void). */
static uint64_t RUN_LOOP(VMThread *thread, Frame *base) {
    Frame *fp = base;
    const uint8_t *pc = fp->pc;
    uint64_t *pl = fp->plocals;
    Obj **rl = fp->rlocals;
    uint64_t *psp = pl + fp->method->num_prim_locals;
    Obj **rsp = rl + fp->method->num_ref_locals;
    uint64_t result = 0;
    /* What CALL reads that stays the same for the thread's life: kept here
     * rather than re-read through `thread` at every call. */
    const LinkedMethod *const linked_methods = thread->vm->linked_methods;
    const Frame *const last_frame = thread->frames + thread->max_depth - 1;
    const uint64_t *const pstack_end = thread->pstack_end;
    Obj *const *const rstack_end = thread->rstack_end;

/* The registers, written to and read back from the thread (see above). */
#define SAVE_STATE()                                                                                 \
    do {                                                                                             \
        fp->pc = pc;                                                                                 \
        thread->rtop = rsp;                                                                          \
        thread->ptop = psp;                                                                          \
        thread->depth = (uint32_t)(fp - thread->frames) + 1;                                         \
    } while (0)
#define LOAD_STATE()                                                                                 \
    do {                                                                                             \
        fp = thread->frames + thread->depth - 1;                                                     \
        pc = fp->pc;                                                                                 \
        pl = fp->plocals;                                                                            \
        rl = fp->rlocals;                                                                            \
        rsp = thread->rtop;                                                                          \
        psp = thread->ptop;                                                                          \
    } while (0)
#define OUT_OF_LINE(call)                                                                            \
    do {                                                                                             \
        SAVE_STATE();                                                                                \
        call;                                                                                        \
        LOAD_STATE();                                                                                \
    } while (0)
#define FAIL(...)                                                                                    \
    do {                                                                                             \
        SAVE_STATE();                                                                                \
        vm_runtime_errorf(thread, __VA_ARGS__);                                                      \
    } while (0)
#define CHECK_NOT_NULL(obj)                                                                          \
    do {                                                                                             \
        if (UNLIKELY((obj) == NULL)) FAIL("null reference");                                        \
    } while (0)
#define CHECK_INDEX(what, obj, index)                                                                \
    do {                                                                                             \
        CHECK_NOT_NULL(obj);                                                                         \
        if (UNLIKELY((uint64_t)(index) >= (obj)->length))                                            \
            FAIL(what " index %lld out of bounds for length %u", (long long)(index), (obj)->length);  \
    } while (0)
#define DISPATCH() goto *labels[*pc]
#define NEXT(size)                                                                                   \
    do {                                                                                             \
        pc += (size);                                                                                \
        DISPATCH();                                                                                  \
    } while (0)
#define U16 read_u16(pc + 1)
#define VM (thread->vm)
#define POP_INT() ((int64_t)*--psp)
#define POP_DOUBLE() as_double(*--psp)
#define PUSH(bits) (*psp++ = (uint64_t)(bits))
#define PUSH_DOUBLE(d) (*psp++ = double_bits(d))
#define PUSH_BOOL(cond) (*psp++ = (cond) ? 1u : 0u)
/* Binary int operators wrap: computed on uint64_t (signed overflow is UB). */
#define INT_BINARY(op)                                                                               \
    do {                                                                                             \
        uint64_t right = *--psp;                                                                     \
        psp[-1] = psp[-1] op right;                                                                  \
    } while (0)
#define INT_COMPARE(op)                                                                              \
    do {                                                                                             \
        int64_t right = POP_INT();                                                                   \
        psp[-1] = (int64_t)psp[-1] op right;                                                         \
    } while (0)
#define DOUBLE_BINARY(op)                                                                            \
    do {                                                                                             \
        double right = POP_DOUBLE();                                                                 \
        psp[-1] = double_bits(as_double(psp[-1]) op right);                                          \
    } while (0)
#define DOUBLE_COMPARE(op)                                                                           \
    do {                                                                                             \
        double right = POP_DOUBLE();                                                                 \
        psp[-1] = as_double(psp[-1]) op right;                                                       \
    } while (0)
#define ARRAY_ELEM(arr, index, ctype) ((ctype *)obj_body(arr) + (index))
#define ARRAY_GET(ctype, widen)                                                                      \
    do {                                                                                             \
        int64_t index = POP_INT();                                                                   \
        Obj *arr = rsp[-1];                                                                          \
        CHECK_INDEX("array", arr, index);                                                            \
        ctype elem;                                                                                  \
        memcpy(&elem, ARRAY_ELEM(arr, index, ctype), sizeof elem);                                   \
        *psp++ = widen(elem);                                                                        \
        RDROP(1);                                                                                    \
        NEXT(1);                                                                                     \
    } while (0)
#define ARRAY_PUT(ctype, narrow)                                                                     \
    do {                                                                                             \
        uint64_t value = *--psp;                                                                     \
        int64_t index = POP_INT();                                                                   \
        Obj *arr = rsp[-1];                                                                          \
        CHECK_INDEX("array", arr, index);                                                            \
        ctype elem = narrow(value);                                                                  \
        memcpy(ARRAY_ELEM(arr, index, ctype), &elem, sizeof elem);                                   \
        RDROP(1);                                                                                    \
        NEXT(1);                                                                                     \
    } while (0)
#define WIDEN_SIGNED(e) ((uint64_t)(int64_t)(e))
#define WIDEN_UNSIGNED(e) ((uint64_t)(e))
#define WIDEN_FLOAT(e) double_bits((double)(e))
#define NARROW_BOOL(v) ((uint8_t)((v) != 0))
#define NARROW_TO(type) (type)
/* Annex F (IEC 60559, which glibc and gcc follow) defines double -> float
 * for every value: out-of-range values round to +-inf. */
#define NARROW_FLOAT(v) ((float)as_double(v))
#define NARROW_IDENTITY(v) (v)
/* A reference store into a heap object.  The inline test stores most
 * without a call; the registers are saved before the out-of-line barrier
 * when it may post an event or free objects (gc_barrier_calls_out) -- but
 * it never allocates or moves one, and the operands are popped already,
 * so nothing need be loaded back. */
#define STORE_REF(holder, slot, value)                                                               \
    do {                                                                                             \
        if (GC_UNLIKELY(!gc_write_ref_fast(VM->gc, holder, slot, value))) {                          \
            if (gc_barrier_calls_out(VM->gc)) SAVE_STATE();                                          \
            VM->gc->ops->write_barrier(VM->gc, holder, slot, value);                                 \
        }                                                                                            \
    } while (0)
/* METHOD_EXIT_EVENT(), and METHOD_ENTRY_EVENT() for METHOD_ENTRY and
 * METHOD_ENTRY2 (whose receiver is the entered frame's reference local 0,
 * none for a static method): one branch while no agent enabled them, and
 * nothing else kept live for the slow path. */
#define METHOD_EXIT_EVENT()                                                                          \
    do {                                                                                             \
        if (VMPI_IS_ENABLED(METHOD_EXIT))                                                            \
            OUT_OF_LINE(vmpi_send_METHOD_EXIT(thread, fp->method));                                  \
    } while (0)
#define METHOD_ENTRY_EVENT()                                                                         \
    do {                                                                                             \
        if (vmpi_method_entry_enabled())                                                             \
            OUT_OF_LINE(vmpi_send_method_entry(thread, fp->method,                                   \
                                               fp->method->is_static ? NULL : fp->rlocals));         \
    } while (0)

/* The end of every return: back to the caller's frame, past its CALL.
 * Each return has its own copy, and so its own dispatch jump, which the
 * branch predictor learns apart (a leaf's return from a RETP after IADD). */
#define RETURN_TO_CALLER()                                                                           \
    do {                                                                                             \
        fp--;                                                                                        \
        pl = fp->plocals;                                                                            \
        rl = fp->rlocals;                                                                            \
        pc = fp->pc + 3;                                                                             \
        DISPATCH();                                                                                  \
    } while (0)
/* RETP, its value read after METHOD_EXIT (which saves the state). */
#define RETURN_PRIM(read_value)                                                                      \
    do {                                                                                             \
        METHOD_EXIT_EVENT();                                                                         \
        uint64_t value = (read_value);                                                               \
        if (fp == base) {                                                                            \
            result = value;                                                                          \
            goto finished;                                                                           \
        }                                                                                            \
        psp = pl;                                                                                    \
        *psp++ = value;                                                                              \
        RDROP_TO(rl);                                                                                \
        RETURN_TO_CALLER();                                                                          \
    } while (0)

/* A safepoint (safepoint.h), at every taken jump and every call: one load
 * and one branch unless a request is pending. */
#define SAFEPOINT_POLL()                                                                             \
    do {                                                                                             \
        if (UNLIKELY(vm_safepoint_due())) {                                                          \
            bool dispatch_changed;                                                                   \
            OUT_OF_LINE(dispatch_changed = vm_safepoint(thread));                                    \
            if (dispatch_changed) select_dispatch(labels, opcode_labels, &&op_instruction_start);    \
        }                                                                                            \
    } while (0)
/* A taken jump: `pc` moves by `offset` and passes a safepoint. */
#define JUMP_BY(offset)                                                                              \
    do {                                                                                             \
        pc += (offset);                                                                              \
        SAFEPOINT_POLL();                                                                            \
    } while (0)

/* Superinstructions.  IMMEDIATE is the k of a "PUSHI k; op" sequence. */
#define IMMEDIATE ((int64_t)read_i32(pc + 1))
#define INT_BINARY_K(op)                                                                             \
    do {                                                                                             \
        psp[-1] = psp[-1] op (uint64_t)IMMEDIATE;                                                    \
        NEXT(6);                                                                                     \
    } while (0)
#define INT_COMPARE_K(op)                                                                            \
    do {                                                                                             \
        psp[-1] = (int64_t)psp[-1] op IMMEDIATE;                                                     \
        NEXT(6);                                                                                     \
    } while (0)
/* "Ixx; Jx off": the jump's offset is relative to the jump, at pc + 1. */
#define JUMP_IF(op)                                                                                  \
    do {                                                                                             \
        psp -= 2;                                                                                    \
        if ((int64_t)psp[0] op (int64_t)psp[1]) JUMP_BY(1 + (ptrdiff_t)read_i32(pc + 2));            \
        else pc += 6;                                                                                \
        DISPATCH();                                                                                  \
    } while (0)
/* "PUSHI k; Ixx; Jx off": the jump is at pc + 6. */
#define JUMP_IF_K(op)                                                                                \
    do {                                                                                             \
        psp--;                                                                                       \
        if ((int64_t)psp[0] op IMMEDIATE) JUMP_BY(6 + (ptrdiff_t)read_i32(pc + 7));                  \
        else pc += 11;                                                                               \
        DISPATCH();                                                                                  \
    } while (0)
/* "PLOAD a; PUSHI k; Ixx; Jx off": k at pc + 4, the jump at pc + 9. */
#define JUMP_IF_LK(op)                                                                               \
    do {                                                                                             \
        if ((int64_t)pl[U16] op (int64_t)read_i32(pc + 4))                                           \
            JUMP_BY(9 + (ptrdiff_t)read_i32(pc + 10));                                               \
        else pc += 14;                                                                               \
        DISPATCH();                                                                                  \
    } while (0)
/* "PLOAD a; PLOAD b; Ixx; Jx off": b at pc + 4, the jump at pc + 7. */
#define JUMP_IF_LL(op)                                                                               \
    do {                                                                                             \
        if ((int64_t)pl[U16] op (int64_t)pl[read_u16(pc + 4)])                                       \
            JUMP_BY(7 + (ptrdiff_t)read_i32(pc + 8));                                                \
        else pc += 12;                                                                               \
        DISPATCH();                                                                                  \
    } while (0)
/* "PLOAD a; PUSHI k; Ixx": k at pc + 4. */
#define PLOAD_INT_BINARY_K(op)                                                                       \
    do {                                                                                             \
        *psp++ = pl[U16] op (uint64_t)(int64_t)read_i32(pc + 4);                                     \
        NEXT(9);                                                                                     \
    } while (0)

    /* Every byte maps to a label; unassigned codes trap (the verifier never
     * lets one through, but a bad byte must not be undefined behaviour). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
    static const void *const opcode_labels[256] = {
        [0 ... 255] = &&op_trap,
#define GCLAB_OP_LABEL(name, code, opnd, ppop, ppush, rpop, rpush) [code] = &&op_##name,
        GCLAB_OPCODES(GCLAB_OP_LABEL)
#undef GCLAB_OP_LABEL
#define GCLAB_QUICK_LABEL(name, code) [code] = &&qop_##name,
        GCLAB_QUICK_OPCODES(GCLAB_QUICK_LABEL)
#undef GCLAB_QUICK_LABEL
    };
#pragma GCC diagnostic pop
    /* The table DISPATCH reads: opcode_labels, or while INSTRUCTION_START is
     * enabled the instruction hook in every entry (select_dispatch). */
    static const void *labels[256];
    select_dispatch(labels, opcode_labels, &&op_instruction_start);

    DISPATCH();

    /* INSTRUCTION_START (JVMPI 1.4.2), reached through every entry of
     * `labels` while the event is enabled: posts the event for the
     * instruction at pc, then runs it.  It runs the method's original
     * instruction (method->code, at the same offset), never a
     * superinstruction, so every instruction of the method gets its own
     * event, and a conditional branch is a plain JT or JF whose operand is
     * on top of the stack. */
op_instruction_start: {
    uint8_t op = fp->method->code[pc - fp->code];
    if (VMPI_IS_ENABLED(INSTRUCTION_START)) {
        int32_t is_true = (op == OP_JT && psp[-1] != 0) || (op == OP_JF && psp[-1] == 0);
        OUT_OF_LINE(vmpi_send_instruction_start(thread, fp->method, (uint32_t)(pc - fp->code), is_true));
    }
    goto *opcode_labels[op];
}

op_trap:
    FAIL("internal error: invalid opcode 0x%02x", *pc);

op_NOP:
    NEXT(1);

    /* ---- constants ---- */
op_PUSHI:
    PUSH((int64_t)read_i32(pc + 1));
    NEXT(5);
op_LDI:
    PUSH(VM->program->ints[U16]);
    NEXT(3);
op_LDD:
    PUSH_DOUBLE(VM->program->doubles[U16]);
    NEXT(3);
op_LDS:
    RPUSH(VM->string_consts[U16]);
    NEXT(3);
op_PUSHZ:
    PUSH(pc[1] != 0);
    NEXT(2);
op_ANULL:
    *rsp++ = NULL;
    NEXT(1);

    /* ---- locals and stack shuffling ---- */
op_PLOAD:
    *psp++ = pl[U16];
    NEXT(3);
op_PSTORE:
    pl[U16] = *--psp;
    NEXT(3);
op_RLOAD:
    RPUSH(rl[U16]);
    NEXT(3);
op_RSTORE:
    RMOVE_TOP_TO(&rl[U16]);
    NEXT(3);
op_PPOP:
    psp--;
    NEXT(1);
op_RPOP:
    RDROP(1);
    NEXT(1);
op_PDUP:
    psp[0] = psp[-1];
    psp++;
    NEXT(1);
op_RDUP:
    RPUSH(rsp[-1]);
    NEXT(1);
op_IINC:
    pl[U16] += 1;
    NEXT(3);

    /* ---- int arithmetic: 64-bit, wrapping ---- */
op_IADD:
    INT_BINARY(+);
    NEXT(1);
op_ISUB:
    INT_BINARY(-);
    NEXT(1);
op_IMUL:
    INT_BINARY(*);
    NEXT(1);
op_IDIV: {
    int64_t right = POP_INT(), left = (int64_t)psp[-1];
    if (UNLIKELY(right == 0)) FAIL("division by zero");
    /* INT64_MIN / -1 overflows in C; the language wraps it to INT64_MIN. */
    psp[-1] = right == -1 ? 0 - (uint64_t)left : (uint64_t)(left / right);
    NEXT(1);
}
op_IREM: {
    int64_t right = POP_INT(), left = (int64_t)psp[-1];
    if (UNLIKELY(right == 0)) FAIL("division by zero");
    psp[-1] = right == -1 ? 0 : (uint64_t)(left % right);
    NEXT(1);
}
op_INEG:
    psp[-1] = 0 - psp[-1];
    NEXT(1);
op_IAND:
    INT_BINARY(&);
    NEXT(1);
op_IOR:
    INT_BINARY(|);
    NEXT(1);
op_IXOR:
    INT_BINARY(^);
    NEXT(1);
op_ISHL: {
    uint64_t count = *--psp & 63;
    psp[-1] <<= count;
    NEXT(1);
}
op_ISHR: {
    uint64_t count = *--psp & 63;
    /* Arithmetic shift: gcc defines >> of a negative int64 as sign-filling. */
    psp[-1] = (uint64_t)((int64_t)psp[-1] >> count);
    NEXT(1);
}

    /* ---- double arithmetic ---- */
op_DADD:
    DOUBLE_BINARY(+);
    NEXT(1);
op_DSUB:
    DOUBLE_BINARY(-);
    NEXT(1);
op_DMUL:
    DOUBLE_BINARY(*);
    NEXT(1);
op_DDIV:
    DOUBLE_BINARY(/);
    NEXT(1);
op_DNEG:
    psp[-1] = double_bits(-as_double(psp[-1]));
    NEXT(1);
op_I2D:
    psp[-1] = double_bits((double)(int64_t)psp[-1]);
    NEXT(1);
op_D2I:
    psp[-1] = (uint64_t)double_to_int(as_double(psp[-1]));
    NEXT(1);

    /* ---- comparisons ---- */
op_IEQ:
    INT_COMPARE(==);
    NEXT(1);
op_INE:
    INT_COMPARE(!=);
    NEXT(1);
op_ILT:
    INT_COMPARE(<);
    NEXT(1);
op_ILE:
    INT_COMPARE(<=);
    NEXT(1);
op_IGT:
    INT_COMPARE(>);
    NEXT(1);
op_IGE:
    INT_COMPARE(>=);
    NEXT(1);
op_DEQ:
    DOUBLE_COMPARE(==);
    NEXT(1);
op_DNE:
    DOUBLE_COMPARE(!=);
    NEXT(1);
op_DLT:
    DOUBLE_COMPARE(<);
    NEXT(1);
op_DLE:
    DOUBLE_COMPARE(<=);
    NEXT(1);
op_DGT:
    DOUBLE_COMPARE(>);
    NEXT(1);
op_DGE:
    DOUBLE_COMPARE(>=);
    NEXT(1);
op_ZEQ:
    INT_COMPARE(==);
    NEXT(1);
op_ZNE:
    INT_COMPARE(!=);
    NEXT(1);
op_NOT:
    psp[-1] ^= 1;
    NEXT(1);
op_REQ: {
    Obj *right = rsp[-1], *left = rsp[-2];
    RDROP(2);
    PUSH_BOOL(left == right);
    NEXT(1);
}
op_RNE: {
    Obj *right = rsp[-1], *left = rsp[-2];
    RDROP(2);
    PUSH_BOOL(left != right);
    NEXT(1);
}
op_SEQ: {
    Obj *right = rsp[-1], *left = rsp[-2];
    int equal;
    OUT_OF_LINE(equal = vm_string_equals(left, right));
    RDROP(2);
    PUSH_BOOL(equal);
    NEXT(1);
}

    /* ---- control ---- */
op_JMP:
    JUMP_BY(read_i32(pc + 1));
    DISPATCH();
op_JT:
    if (*--psp) JUMP_BY(read_i32(pc + 1));
    else pc += 5;
    DISPATCH();
op_JF:
    if (!*--psp) JUMP_BY(read_i32(pc + 1));
    else pc += 5;
    DISPATCH();

op_CALL: {
    const LinkedMethod *callee = &linked_methods[U16];
    uint64_t *callee_pl = psp - callee->num_prim_args;
    Obj **callee_rl = rsp - callee->num_ref_args;
    fp->pc = pc; /* the return address, and the caller's line in traces */
    if (UNLIKELY(fp == last_frame || stack_short(callee_pl, pstack_end, callee->pstack_need_bytes) ||
                 stack_short(callee_rl, rstack_end, callee->rstack_need_bytes)))
        FAIL("stack overflow");
    if (UNLIKELY(callee->has_entry_work)) {
        if (callee->has_receiver) CHECK_NOT_NULL(*callee_rl);
        if (callee->has_out_of_line_entry) callee->enter_out_of_line(callee, fp, callee_pl, callee_rl);
    }
    fp++;
    fill_frame(fp, callee, callee_pl, callee_rl);
    pl = callee_pl;
    rl = callee_rl;
    psp = pl + callee->num_prim_locals;
    rsp = rl + callee->num_ref_locals;
    pc = callee->code;
    METHOD_ENTRY_EVENT();
    SAFEPOINT_POLL();
    DISPATCH();
}
op_RET:
    METHOD_EXIT_EVENT();
    if (fp == base) goto finished;
    psp = pl;
    RDROP_TO(rl);
    RETURN_TO_CALLER();
op_RETP:
    RETURN_PRIM(psp[-1]);
op_RETR: {
    METHOD_EXIT_EVENT();
    Obj *value = rsp[-1]; /* read after the event, which may have moved it */
    if (fp == base) goto finished;
    psp = pl;
    /* The value takes the first local's slot (a counted slot: the value's
     * own is at or above it), then the rest of the frame is popped. */
    RSET(rl, value);
    RDROP_TO(rl + 1);
    RETURN_TO_CALLER();
}
op_CALLN: /* vm/native/native.c: a C function, run with the state saved */
    OUT_OF_LINE(vm_native_call(thread, U16));
    NEXT(3);

    /* ---- objects ---- */
op_NEW: {
    const RtClass *cls = &VM->classes[U16];
    Obj *obj;
    OUT_OF_LINE(obj = vm_alloc(thread, cls, 0));
    RPUSH(obj);
    NEXT(3);
}
op_GETFP: {
    Obj *obj = rsp[-1];
    CHECK_NOT_NULL(obj);
    *psp++ = *(uint64_t *)((char *)obj + VM->field_offsets[U16]);
    RDROP(1);
    NEXT(3);
}
op_PUTFP: {
    uint64_t value = *--psp;
    Obj *obj = rsp[-1];
    CHECK_NOT_NULL(obj);
    *(uint64_t *)((char *)obj + VM->field_offsets[U16]) = value;
    RDROP(1);
    NEXT(3);
}
op_GETFR: {
    Obj *obj = rsp[-1];
    CHECK_NOT_NULL(obj);
    RSET(rsp - 1, *(Obj **)((char *)obj + VM->field_offsets[U16]));
    NEXT(3);
}
op_PUTFR: {
    Obj *value = rsp[-1];
    Obj *obj = rsp[-2];
    CHECK_NOT_NULL(obj);
    STORE_REF(obj, (Obj **)((char *)obj + VM->field_offsets[U16]), value);
    RDROP(2);
    NEXT(3);
}
    /* Statics are roots, not heap slots: plain stores, no barrier. */
op_GETSP:
    PUSH(VM->prim_statics[VM->program->statics[U16].slot]);
    NEXT(3);
op_PUTSP:
    VM->prim_statics[VM->program->statics[U16].slot] = *--psp;
    NEXT(3);
op_GETSR:
    RPUSH(VM->ref_statics[VM->program->statics[U16].slot]);
    NEXT(3);
op_PUTSR:
    RMOVE_TOP_TO(&VM->ref_statics[VM->program->statics[U16].slot]);
    NEXT(3);

    /* ---- arrays ---- */
op_NEWARR: {
    const RtClass *cls = VM->type_class[U16];
    int64_t length = POP_INT();
    if (UNLIKELY(length < 0)) FAIL("negative array length %lld", (long long)length);
    if (UNLIKELY(length > UINT32_MAX)) FAIL("array length %lld is too large", (long long)length);
    Obj *arr;
    OUT_OF_LINE(arr = vm_alloc(thread, cls, (uint32_t)length));
    RPUSH(arr);
    NEXT(3);
}
op_AGETZ:
    ARRAY_GET(uint8_t, WIDEN_UNSIGNED);
op_AGETB:
    ARRAY_GET(int8_t, WIDEN_SIGNED);
op_AGETC:
    ARRAY_GET(uint16_t, WIDEN_UNSIGNED);
op_AGETS:
    ARRAY_GET(int16_t, WIDEN_SIGNED);
op_AGETI:
    ARRAY_GET(int32_t, WIDEN_SIGNED);
op_AGETJ:
    ARRAY_GET(uint64_t, WIDEN_UNSIGNED);
op_AGETF:
    ARRAY_GET(float, WIDEN_FLOAT);
op_AGETD:
    ARRAY_GET(uint64_t, WIDEN_UNSIGNED);
op_AGETR: {
    int64_t index = POP_INT();
    Obj *arr = rsp[-1];
    CHECK_INDEX("array", arr, index);
    RSET(rsp - 1, *ARRAY_ELEM(arr, index, Obj *));
    NEXT(1);
}
op_APUTZ:
    ARRAY_PUT(uint8_t, NARROW_BOOL);
op_APUTB:
    ARRAY_PUT(uint8_t, NARROW_TO(uint8_t));
op_APUTC:
    ARRAY_PUT(uint16_t, NARROW_TO(uint16_t));
op_APUTS:
    ARRAY_PUT(uint16_t, NARROW_TO(uint16_t));
op_APUTI:
    ARRAY_PUT(uint32_t, NARROW_TO(uint32_t));
op_APUTJ:
    ARRAY_PUT(uint64_t, NARROW_IDENTITY);
op_APUTF:
    ARRAY_PUT(float, NARROW_FLOAT);
op_APUTD:
    ARRAY_PUT(uint64_t, NARROW_IDENTITY);
op_APUTR: {
    int64_t index = POP_INT();
    Obj *value = rsp[-1];
    Obj *arr = rsp[-2];
    CHECK_INDEX("array", arr, index);
    STORE_REF(arr, ARRAY_ELEM(arr, index, Obj *), value);
    RDROP(2);
    NEXT(1);
}

    /* ---- strings: the operands stay on the rstack (roots) while the
     * result is allocated, and are popped after. ---- */
op_SCAT: {
    Obj *joined;
    OUT_OF_LINE(joined = vm_string_concat(thread, rsp - 2));
    RSET(rsp - 2, joined);
    RDROP(1);
    NEXT(1);
}
op_I2S:
op_D2S:
op_Z2S: {
    uint8_t op = *pc;
    uint64_t value = *--psp;
    char text[VM_NUMBER_TEXT_MAX];
    Obj *s;
    OUT_OF_LINE(s = vm_string_from_bytes(thread, text, format_prim(op, value, text)));
    RPUSH(s);
    NEXT(1);
}
op_SLEN: /* and op_ALEN: a string's length and an array's are the header's */
op_ALEN: {
    Obj *obj = rsp[-1];
    CHECK_NOT_NULL(obj);
    uint32_t length = obj->length;
    RDROP(1);
    PUSH(length);
    NEXT(1);
}
op_SCHAR: {
    int64_t index = POP_INT();
    Obj *s = rsp[-1];
    CHECK_INDEX("string", s, index);
    unsigned char c = (unsigned char)str_chars(s)[index];
    RDROP(1);
    PUSH(c);
    NEXT(1);
}
op_SSUB: {
    int64_t to = POP_INT(), from = POP_INT();
    CHECK_NOT_NULL(rsp[-1]);
    Obj *sub;
    OUT_OF_LINE(sub = vm_string_substring(thread, rsp - 1, from, to));
    RSET(rsp - 1, sub);
    NEXT(1);
}
op_CHR: {
    char byte = (char)(unsigned char)(*--psp & 255);
    Obj *s;
    OUT_OF_LINE(s = vm_string_from_bytes(thread, &byte, 1));
    RPUSH(s);
    NEXT(1);
}
op_PARSEI: {
    Obj *s = rsp[-1];
    CHECK_NOT_NULL(s);
    int64_t value;
    OUT_OF_LINE(value = vm_parse_int(thread, s));
    RDROP(1);
    PUSH(value);
    NEXT(1);
}

    /* ---- input/output and process ---- */
op_PRINTI:
op_PRINTD:
op_PRINTZ: {
    uint8_t op = *pc;
    uint64_t value = *--psp;
    OUT_OF_LINE(print_prim(thread, op, value, pc[1]));
    NEXT(2);
}
op_PRINTS: {
    Obj *s = rsp[-1];
    OUT_OF_LINE(print_string(thread, s, pc[1]));
    RDROP(1);
    NEXT(2);
}
op_EXIT: {
    /* The OS keeps the low 8 bits of an exit status. */
    int status = (int)(*--psp & 255);
    SAVE_STATE();
    vm_exit(VM, status);
}

    /* ---- threads and monitors (scheduler.h, monitor.h): each may hand
     * the baton to another thread, so everything is re-read after ---- */
op_START: {
    const LinkedMethod *callee = &VM->linked_methods[U16];
    if (callee->has_receiver) CHECK_NOT_NULL(rsp[-1 - (ptrdiff_t)callee->num_ref_args]);
    VMThread *started;
    OUT_OF_LINE(started = vm_thread_start(thread, callee));
    psp -= callee->num_prim_args;
    RDROP(callee->num_ref_args + 1); /* the arguments and the name */
    RPUSH(started->object);
    NEXT(3);
}
op_JOIN: {
    Obj *target = rsp[-1];
    CHECK_NOT_NULL(target);
    OUT_OF_LINE(vm_thread_join(thread, target));
    RDROP(1);
    NEXT(1);
}
op_SLEEP: {
    int64_t ms = POP_INT();
    OUT_OF_LINE(vm_thread_sleep(thread, ms));
    NEXT(1);
}
    /* The object stays on the stack, a root, while the thread may block. */
op_MONENTER:
    CHECK_NOT_NULL(rsp[-1]);
    OUT_OF_LINE(vm_monitor_enter(thread, rsp - 1));
    RDROP(1);
    NEXT(1);
op_MONEXIT:
    CHECK_NOT_NULL(rsp[-1]);
    OUT_OF_LINE(vm_monitor_exit(thread, rsp - 1));
    RDROP(1);
    NEXT(1);
op_WAIT: {
    int64_t ms = POP_INT();
    CHECK_NOT_NULL(rsp[-1]);
    OUT_OF_LINE(vm_monitor_wait(thread, rsp - 1, ms));
    RDROP(1);
    NEXT(1);
}
op_NOTIFY:
    CHECK_NOT_NULL(rsp[-1]);
    OUT_OF_LINE(vm_monitor_notify(thread, rsp - 1, pc[1] != 0));
    RDROP(1);
    NEXT(2);
op_INTERRUPT: {
    Obj *target = rsp[-1];
    CHECK_NOT_NULL(target);
    OUT_OF_LINE(vm_thread_interrupt(thread, target));
    RDROP(1);
    NEXT(1);
}
op_INTERRUPTED:
    PUSH_BOOL(vm_thread_interrupted(thread));
    NEXT(1);

    /* ---- superinstructions (quicken.h): each does the work of the
     * sequence it replaced, whose bytes follow it unchanged ---- */
qop_PLOAD2:
    psp[0] = pl[read_u16(pc + 1)];
    psp[1] = pl[read_u16(pc + 4)];
    psp += 2;
    NEXT(6);
qop_RLOAD2:
    RPUSH(rl[read_u16(pc + 1)]);
    RPUSH(rl[read_u16(pc + 4)]);
    NEXT(6);
qop_RLOAD_GETFP: {
    Obj *obj = rl[read_u16(pc + 1)];
    if (UNLIKELY(obj == NULL)) {
        pc += 3; /* the GETFP fails */
        FAIL("null reference");
    }
    *psp++ = *(uint64_t *)((char *)obj + VM->field_offsets[read_u16(pc + 4)]);
    NEXT(6);
}
qop_RLOAD_GETFR: {
    Obj *obj = rl[read_u16(pc + 1)];
    if (UNLIKELY(obj == NULL)) {
        pc += 3; /* the GETFR fails */
        FAIL("null reference");
    }
    RPUSH(*(Obj **)((char *)obj + VM->field_offsets[read_u16(pc + 4)]));
    NEXT(6);
}
qop_PLOAD_IADD:
    psp[-1] += pl[read_u16(pc + 1)];
    NEXT(4);
qop_IADD_PSTORE:
    pl[read_u16(pc + 2)] = psp[-2] + psp[-1];
    psp -= 2;
    NEXT(4);
qop_IADD_K:
    INT_BINARY_K(+);
qop_ISUB_K:
    INT_BINARY_K(-);
qop_IMUL_K:
    INT_BINARY_K(*);
qop_IAND_K:
    INT_BINARY_K(&);
qop_IOR_K:
    INT_BINARY_K(|);
qop_IXOR_K:
    INT_BINARY_K(^);
qop_IDIV_K: /* k is neither 0 nor -1 (quicken.c) */
    psp[-1] = (uint64_t)((int64_t)psp[-1] / IMMEDIATE);
    NEXT(6);
qop_IREM_K:
    psp[-1] = (uint64_t)((int64_t)psp[-1] % IMMEDIATE);
    NEXT(6);
qop_ISHL_K:
    psp[-1] <<= (uint64_t)IMMEDIATE & 63;
    NEXT(6);
qop_ISHR_K:
    psp[-1] = (uint64_t)((int64_t)psp[-1] >> ((uint64_t)IMMEDIATE & 63));
    NEXT(6);
qop_IEQ_K:
    INT_COMPARE_K(==);
qop_INE_K:
    INT_COMPARE_K(!=);
qop_ILT_K:
    INT_COMPARE_K(<);
qop_ILE_K:
    INT_COMPARE_K(<=);
qop_IGT_K:
    INT_COMPARE_K(>);
qop_IGE_K:
    INT_COMPARE_K(>=);
qop_JEQ:
    JUMP_IF(==);
qop_JNE:
    JUMP_IF(!=);
qop_JLT:
    JUMP_IF(<);
qop_JLE:
    JUMP_IF(<=);
qop_JGT:
    JUMP_IF(>);
qop_JGE:
    JUMP_IF(>=);
qop_JEQ_K:
    JUMP_IF_K(==);
qop_JNE_K:
    JUMP_IF_K(!=);
qop_JLT_K:
    JUMP_IF_K(<);
qop_JLE_K:
    JUMP_IF_K(<=);
qop_JGT_K:
    JUMP_IF_K(>);
qop_JGE_K:
    JUMP_IF_K(>=);
qop_JEQ_LK:
    JUMP_IF_LK(==);
qop_JNE_LK:
    JUMP_IF_LK(!=);
qop_JLT_LK:
    JUMP_IF_LK(<);
qop_JLE_LK:
    JUMP_IF_LK(<=);
qop_JGT_LK:
    JUMP_IF_LK(>);
qop_JGE_LK:
    JUMP_IF_LK(>=);
qop_JEQ_LL:
    JUMP_IF_LL(==);
qop_JNE_LL:
    JUMP_IF_LL(!=);
qop_JLT_LL:
    JUMP_IF_LL(<);
qop_JLE_LL:
    JUMP_IF_LL(<=);
qop_JGT_LL:
    JUMP_IF_LL(>);
qop_JGE_LL:
    JUMP_IF_LL(>=);
qop_PLOAD_IADD_K:
    PLOAD_INT_BINARY_K(+);
qop_PLOAD_ISUB_K:
    PLOAD_INT_BINARY_K(-);
qop_PLOAD_RETP: { /* the RETP runs at its own pc, for METHOD_EXIT's call trace */
    uint32_t local = U16;
    pc += 3;
    RETURN_PRIM(pl[local]);
}
qop_IADD_RETP:
    pc += 1;
    RETURN_PRIM(psp[-2] + psp[-1]);

finished:
    thread->rtop = rsp;
    thread->ptop = psp;
    thread->depth = (uint32_t)(base - thread->frames);
    return result;

#undef SAVE_STATE
#undef LOAD_STATE
#undef OUT_OF_LINE
#undef FAIL
#undef CHECK_NOT_NULL
#undef CHECK_INDEX
#undef DISPATCH
#undef NEXT
#undef U16
#undef VM
#undef POP_INT
#undef POP_DOUBLE
#undef PUSH
#undef PUSH_DOUBLE
#undef PUSH_BOOL
#undef INT_BINARY
#undef INT_COMPARE
#undef DOUBLE_BINARY
#undef DOUBLE_COMPARE
#undef ARRAY_ELEM
#undef ARRAY_GET
#undef ARRAY_PUT
#undef STORE_REF
#undef METHOD_EXIT_EVENT
#undef METHOD_ENTRY_EVENT
#undef SAFEPOINT_POLL
#undef JUMP_BY
#undef RETURN_TO_CALLER
#undef RETURN_PRIM
#undef IMMEDIATE
#undef INT_BINARY_K
#undef INT_COMPARE_K
#undef JUMP_IF
#undef JUMP_IF_K
#undef JUMP_IF_LK
#undef JUMP_IF_LL
#undef PLOAD_INT_BINARY_K
}

#undef ROOT_GAINED
#undef ROOT_LOST
#undef RPUSH
#undef RDROP
#undef RDROP_TO
#undef RSET
#undef RMOVE_TOP_TO
#undef RUN_LOOP
#undef COUNTS_ROOTS
