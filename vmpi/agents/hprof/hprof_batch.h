/*
 * hprof_batch.h -- OBJECT_ALLOCs held back per OS thread, so that recording
 * an allocation costs hprof no lock (docs/hprof.md, "What it costs").
 *
 * The OBJECT_ALLOC handler takes the call trace (GetCallTrace needs no agent
 * lock) and appends the allocation, its trace and its thread to the calling
 * OS thread's batch.  The sites table (hprof_sites.h) gets the batched
 * allocations when they are drained, in their order, under the agent's
 * lock: when a batch fills up, and before every other event the agent
 * handles, so before any OBJECT_FREE, OBJECT_MOVE, ARENA_DELETE, GC_START,
 * dump or request looks at the table.  So whenever anything but an
 * OBJECT_ALLOC reads the table it holds exactly what recording each
 * allocation at once would have given, with the same trace and site
 * numbers (VM threads that share an OS thread share its batch, so their
 * allocations keep their order too).
 *
 * Invariant: a batch is touched only with its `busy` flag held: by its own
 * thread appending, with no agent lock, or by a thread draining it, with
 * the agent lock held (lock order: the agent lock, then `busy`; the owner
 * never waits for the agent lock while it holds `busy`).  Nothing is
 * appended between GC_START and GC_FINISH (the agent records nothing then,
 * as it must not allocate), so a drain inside a collection finds every
 * batch empty and allocates nothing.  Only hprof_batches_add allocates.
 */
#ifndef GCLAB_HPROF_BATCH_H
#define GCLAB_HPROF_BATCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "hprof_sites.h"
#include "vmpi.h"

typedef struct HprofBatchedRecord {
    HprofAlloc alloc;
    VMPI_ThreadID env;
    int32_t num_frames;
} HprofBatchedRecord;

typedef struct HprofBatch {
    struct HprofBatch *next;
    atomic_flag busy;
    uint32_t count, capacity;
    int32_t depth;              /* frames per slot */
    HprofBatchedRecord *records; /* capacity of them */
    VMPI_CallFrame *frames;     /* capacity * depth */
} HprofBatch;

/* Every thread's batch, for draining them all; under the agent lock. */
typedef struct HprofBatches {
    HprofBatch *first;
} HprofBatches;

/* A new, empty batch for the calling thread, with room for traces `depth`
 * frames deep, linked into `batches`; call with the agent lock held.  NULL
 * if memory ran out. */
HprofBatch *hprof_batches_add(HprofBatches *batches, int32_t depth);

static inline void hprof_batch_hold(HprofBatch *batch) {
    while (atomic_flag_test_and_set_explicit(&batch->busy, memory_order_acquire)) continue;
}

static inline void hprof_batch_release(HprofBatch *batch) {
    atomic_flag_clear_explicit(&batch->busy, memory_order_release);
}

/* Starts appending to `batch`: a trace for `env` whose frames, at most
 * `depth`, are the batch's next slot.  False, holding nothing, if the
 * batch is full or was made for shallower traces (the front end deepened
 * them since): the caller then records the allocation at once, after a
 * drain.  Inline, as this and hprof_batch_end run at every allocation. */
static inline bool hprof_batch_begin(HprofBatch *batch, VMPI_ThreadID env, int32_t depth, VMPI_CallTrace *trace) {
    hprof_batch_hold(batch);
    if (depth > batch->depth || batch->count == batch->capacity) { /* full: its drain is still to come */
        hprof_batch_release(batch);
        return false;
    }
    *trace = (VMPI_CallTrace){.env_id = env, .frames = &batch->frames[(size_t)batch->count * (size_t)batch->depth]};
    return true;
}

/* Ends the append hprof_batch_begin started, with the allocation and the
 * trace as the caller filled it.  True if the batch is now full: drain it
 * (hprof_batches_drain, under the agent lock). */
static inline bool hprof_batch_end(HprofBatch *batch, const HprofAlloc *alloc, const VMPI_CallTrace *trace) {
    batch->records[batch->count++] = (HprofBatchedRecord){.alloc = *alloc, .env = trace->env_id,
                                                          .num_frames = trace->num_frames};
    bool full = batch->count == batch->capacity;
    hprof_batch_release(batch);
    return full;
}

/* What a drain does with each allocation, in order. */
typedef void HprofBatchedAlloc(const HprofAlloc *alloc, const VMPI_CallTrace *trace);

/* Empties every batch into `record`; call with the agent lock held. */
void hprof_batches_drain(HprofBatches *batches, HprofBatchedAlloc *record);

#endif
