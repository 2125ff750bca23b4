/*
 * hprof_batch.c -- OBJECT_ALLOCs held back per OS thread (see
 * hprof_batch.h).
 */
#include "hprof_batch.h"

#include <stdatomic.h>
#include <stdlib.h>

/* About this many frames per batch: 64 KiB at 16 bytes a frame, so that a
 * deep depth= keeps a batch small, and a shallow one batches many. */
#define BATCH_FRAMES 4096
#define MIN_BATCH 16
#define MAX_BATCH 1024

typedef struct Pending {
    HprofAlloc alloc;
    VMPI_ThreadID env;
    int32_t num_frames;
} Pending;

struct HprofBatch {
    HprofBatch *next;
    atomic_flag busy;
    uint32_t count, capacity;
    int32_t depth;              /* frames per slot */
    Pending *pending;           /* capacity of them */
    VMPI_CallFrame *frames;     /* capacity * depth */
};

static void hold(HprofBatch *batch) {
    while (atomic_flag_test_and_set_explicit(&batch->busy, memory_order_acquire)) continue;
}

static void release(HprofBatch *batch) { atomic_flag_clear_explicit(&batch->busy, memory_order_release); }

HprofBatch *hprof_batches_add(HprofBatches *batches, int32_t depth) {
    uint32_t capacity = depth > 0 ? (uint32_t)(BATCH_FRAMES / depth) : MAX_BATCH;
    if (capacity < MIN_BATCH) capacity = MIN_BATCH;
    if (capacity > MAX_BATCH) capacity = MAX_BATCH;
    HprofBatch *batch = calloc(1, sizeof *batch);
    Pending *pending = calloc(capacity, sizeof *pending);
    VMPI_CallFrame *frames = calloc((size_t)capacity * (size_t)(depth > 0 ? depth : 1), sizeof *frames);
    if (!batch || !pending || !frames) {
        free(batch);
        free(pending);
        free(frames);
        return NULL;
    }
    *batch = (HprofBatch){.next = batches->first, .busy = ATOMIC_FLAG_INIT, .capacity = capacity,
                          .depth = depth, .pending = pending, .frames = frames};
    batches->first = batch;
    return batch;
}

bool hprof_batch_begin(HprofBatch *batch, VMPI_ThreadID env, int32_t depth, VMPI_CallTrace *trace) {
    hold(batch);
    if (depth > batch->depth || batch->count == batch->capacity) { /* full: its drain is still to come */
        release(batch);
        return false;
    }
    *trace = (VMPI_CallTrace){.env_id = env, .frames = &batch->frames[(size_t)batch->count * (size_t)batch->depth]};
    return true;
}

bool hprof_batch_end(HprofBatch *batch, const HprofAlloc *alloc, const VMPI_CallTrace *trace) {
    batch->pending[batch->count++] = (Pending){.alloc = *alloc, .env = trace->env_id, .num_frames = trace->num_frames};
    bool full = batch->count == batch->capacity;
    release(batch);
    return full;
}

void hprof_batches_drain(HprofBatches *batches, HprofBatchedAlloc *record) {
    for (HprofBatch *batch = batches->first; batch; batch = batch->next) {
        hold(batch);
        for (uint32_t i = 0; i < batch->count; i++) {
            const Pending *p = &batch->pending[i];
            VMPI_CallTrace trace = {.env_id = p->env, .num_frames = p->num_frames,
                                    .frames = &batch->frames[(size_t)i * (size_t)batch->depth]};
            record(&p->alloc, &trace);
        }
        batch->count = 0;
        release(batch);
    }
}
