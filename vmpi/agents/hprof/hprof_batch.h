/*
 * hprof_batch.h -- OBJECT_ALLOCs held back per OS thread, so that recording
 * an allocation costs hprof no lock (docs/hprof.md, "What it costs").
 *
 * The OBJECT_ALLOC handler takes the allocating thread's call site (the
 * event carries it while call sites are on: gclab's extension, vmpi.h
 * EnableCallSites) and appends the allocation, its site and its thread to the calling OS
 * thread's batch.  The sites table (hprof_sites.h) gets the batched
 * allocations when they are drained, in their order, under the agent's
 * lock: when a batch fills up, and before every other event the agent
 * handles, so before any OBJECT_FREE, OBJECT_MOVE, ARENA_DELETE, GC_START,
 * dump or request looks at the table.  A call site names its frames for the
 * VM's whole life, so the drain reads them (once per site, through
 * hprof_call_sites.h) and gets what GetCallTrace gave at the allocation.
 * So whenever anything but an OBJECT_ALLOC reads the table it holds
 * exactly what recording each allocation at once would have given, with
 * the same trace and site numbers (VM threads that share an OS thread
 * share its batch, so their allocations keep their order too).
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
    VMPI_CallSiteID site;       /* 0: no frames (none, or traces turned off) */
} HprofBatchedRecord;

typedef struct HprofBatch {
    struct HprofBatch *next;
    atomic_flag busy;
    uint32_t count, capacity;
    HprofBatchedRecord *records; /* capacity of them */
} HprofBatch;

/* Every thread's batch, for draining them all; under the agent lock. */
typedef struct HprofBatches {
    HprofBatch *first;
} HprofBatches;

/* A new, empty batch for the calling thread, linked into `batches`; call
 * with the agent lock held.  NULL if memory ran out. */
HprofBatch *hprof_batches_add(HprofBatches *batches);

static inline void hprof_batch_hold(HprofBatch *batch) {
    while (atomic_flag_test_and_set_explicit(&batch->busy, memory_order_acquire)) continue;
}

static inline void hprof_batch_release(HprofBatch *batch) {
    atomic_flag_clear_explicit(&batch->busy, memory_order_release);
}

/* Appends `record` to `batch`; sets *full if the batch is full now (drain
 * it: hprof_batches_drain, under the agent lock).  False, appending
 * nothing, if it was full already (its drain is still to come): the caller
 * then records the allocation at once.  Inline: it runs at every
 * allocation. */
static inline bool hprof_batch_append(HprofBatch *batch, const HprofBatchedRecord *record, bool *full) {
    hprof_batch_hold(batch);
    bool appended = batch->count < batch->capacity;
    if (appended) batch->records[batch->count++] = *record;
    *full = batch->count == batch->capacity;
    hprof_batch_release(batch);
    return appended;
}

/* What a drain does with each allocation, in order. */
typedef void HprofBatchedAlloc(const HprofBatchedRecord *record);

/* Empties every batch into `record`; call with the agent lock held. */
void hprof_batches_drain(HprofBatches *batches, HprofBatchedAlloc *record);

#endif
