/*
 * hprof_batch.c -- OBJECT_ALLOCs held back per OS thread (see
 * hprof_batch.h).
 */
#include "hprof_batch.h"

#include <stdlib.h>

/* Allocations per batch: 40 KiB of records. */
#define BATCH_RECORDS 1024

HprofBatch *hprof_batches_add(HprofBatches *batches) {
    HprofBatch *batch = calloc(1, sizeof *batch);
    HprofBatchedRecord *records = calloc(BATCH_RECORDS, sizeof *records);
    if (!batch || !records) {
        free(batch);
        free(records);
        return NULL;
    }
    *batch = (HprofBatch){.next = batches->first, .busy = ATOMIC_FLAG_INIT, .capacity = BATCH_RECORDS,
                          .records = records};
    batches->first = batch;
    return batch;
}

void hprof_batches_drain(HprofBatches *batches, HprofBatchedAlloc *record) {
    for (HprofBatch *batch = batches->first; batch; batch = batch->next) {
        hprof_batch_hold(batch);
        for (uint32_t i = 0; i < batch->count; i++) record(&batch->records[i]);
        batch->count = 0;
        hprof_batch_release(batch);
    }
}
