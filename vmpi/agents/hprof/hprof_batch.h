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
 * A batch is a ring with one writer and one reader at a time, so that
 * appending costs no atomic read-modify-write (an exchange at every
 * allocation was a tenth of the handler's time).  Invariant: only the
 * batch's own thread writes its records and `head`, with no agent lock;
 * only a drain, under the agent lock, reads records and writes `tail`.
 * The records from `tail` to `head` (counted modulo 2^32) are the
 * allocations not yet drained, at most `capacity`; `head` is published
 * (release) after its record is written, `tail` after its records are
 * read.  A drain takes what was published when it began: an append still
 * under way belongs to an OBJECT_ALLOC whose delivery has not finished, and
 * comes with the next drain, before any event that may look at its object
 * (no collection starts while a handler runs: vmpi_dispatch holds them
 * off).  Nothing is appended between GC_START and GC_FINISH (the agent
 * records nothing then, as it must not allocate), so a drain inside a
 * collection finds every batch empty and allocates nothing.  Only
 * hprof_batches_add allocates.
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
    _Atomic uint32_t head;       /* appended so far (the next record is records[head % capacity]) */
    _Atomic uint32_t tail;       /* drained so far */
    uint32_t capacity;           /* a power of two */
    HprofBatchedRecord *records; /* capacity of them */
} HprofBatch;

/* Every thread's batch, for draining them all; under the agent lock. */
typedef struct HprofBatches {
    HprofBatch *first;
} HprofBatches;

/* A new, empty batch for the calling thread, linked into `batches`; call
 * with the agent lock held.  NULL if memory ran out. */
HprofBatch *hprof_batches_add(HprofBatches *batches);

/* Appends `record` to `batch`, from the batch's own thread; sets *full if
 * the batch is full now (drain it: hprof_batches_drain, under the agent
 * lock).  False, appending nothing, if it was full already (its drain is
 * still to come): the caller then records the allocation at once.  Inline:
 * it runs at every allocation. */
static inline bool hprof_batch_append(HprofBatch *batch, const HprofBatchedRecord *record, bool *full) {
    uint32_t head = atomic_load_explicit(&batch->head, memory_order_relaxed); /* its own */
    uint32_t waiting = head - atomic_load_explicit(&batch->tail, memory_order_acquire);
    if (waiting == batch->capacity) {
        *full = true;
        return false;
    }
    batch->records[head & (batch->capacity - 1)] = *record;
    atomic_store_explicit(&batch->head, head + 1, memory_order_release);
    *full = waiting + 1 == batch->capacity;
    return true;
}

/* What a drain does with each allocation, in order. */
typedef void HprofBatchedAlloc(const HprofBatchedRecord *record);

/* Empties every batch into `record`; call with the agent lock held. */
void hprof_batches_drain(HprofBatches *batches, HprofBatchedAlloc *record);

#endif
