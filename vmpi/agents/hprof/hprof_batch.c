/*
 * hprof_batch.c -- OBJECT_ALLOCs held back per OS thread (see
 * hprof_batch.h).
 */
#include "hprof_batch.h"

#include <stdlib.h>

/* Allocations per batch (a power of two): 48 KiB of records. */
#define BATCH_RECORDS 1024

HprofBatch *hprof_batches_add(HprofBatches *batches) {
    HprofBatch *batch = calloc(1, sizeof *batch);
    HprofBatchedRecord *records = calloc(BATCH_RECORDS, sizeof *records);
    if (!batch || !records) {
        free(batch);
        free(records);
        return NULL;
    }
    *batch = (HprofBatch){.next = batches->first, .capacity = BATCH_RECORDS, .records = records};
    batches->first = batch;
    return batch;
}

void hprof_batches_drain(HprofBatches *batches, HprofBatchedAlloc *record) {
    for (HprofBatch *batch = batches->first; batch; batch = batch->next) {
        uint32_t tail = atomic_load_explicit(&batch->tail, memory_order_relaxed); /* the drains' own */
        uint32_t head = atomic_load_explicit(&batch->head, memory_order_acquire);
        for (uint32_t i = tail; i != head; i++) record(&batch->records[i & (batch->capacity - 1)]);
        atomic_store_explicit(&batch->tail, head, memory_order_release);
    }
}
