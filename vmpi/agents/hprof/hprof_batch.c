/*
 * hprof_batch.c -- OBJECT_ALLOCs held back per OS thread (see
 * hprof_batch.h).
 */
#include "hprof_batch.h"

#include <stdlib.h>

/* About this many frames per batch: 64 KiB at 16 bytes a frame, so that a
 * deep depth= keeps a batch small, and a shallow one batches many. */
#define BATCH_FRAMES 4096
#define MIN_BATCH 16
#define MAX_BATCH 1024

HprofBatch *hprof_batches_add(HprofBatches *batches, int32_t depth) {
    uint32_t capacity = depth > 0 ? (uint32_t)(BATCH_FRAMES / depth) : MAX_BATCH;
    if (capacity < MIN_BATCH) capacity = MIN_BATCH;
    if (capacity > MAX_BATCH) capacity = MAX_BATCH;
    HprofBatch *batch = calloc(1, sizeof *batch);
    HprofBatchedRecord *records = calloc(capacity, sizeof *records);
    VMPI_CallFrame *frames = calloc((size_t)capacity * (size_t)(depth > 0 ? depth : 1), sizeof *frames);
    if (!batch || !records || !frames) {
        free(batch);
        free(records);
        free(frames);
        return NULL;
    }
    *batch = (HprofBatch){.next = batches->first, .busy = ATOMIC_FLAG_INIT, .capacity = capacity,
                          .depth = depth, .records = records, .frames = frames};
    batches->first = batch;
    return batch;
}

void hprof_batches_drain(HprofBatches *batches, HprofBatchedAlloc *record) {
    for (HprofBatch *batch = batches->first; batch; batch = batch->next) {
        hprof_batch_hold(batch);
        for (uint32_t i = 0; i < batch->count; i++) {
            const HprofBatchedRecord *r = &batch->records[i];
            VMPI_CallTrace trace = {.env_id = r->env, .num_frames = r->num_frames,
                                    .frames = &batch->frames[(size_t)i * (size_t)batch->depth]};
            record(&r->alloc, &trace);
        }
        batch->count = 0;
        hprof_batch_release(batch);
    }
}
