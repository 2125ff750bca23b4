/*
 * call_sites.c -- the calling-context tree (see call_sites.h).
 *
 * Publication: a node or edge is filled in completely, under the lock,
 * before a release store makes it reachable (an edge list's head, a call
 * site's cache, num_nodes for lookup by ID); readers load those with
 * acquire and never see a half-made record.
 */
#include "vm/interp/call_sites.h"
#include "vm/internal.h"

#include <stdlib.h>

CallSiteTree *_Atomic vm_call_site_tree;

#define EDGES_PER_BLOCK 1024u

typedef struct CallSiteEdgeBlock {
    struct CallSiteEdgeBlock *next;
    uint32_t used;
    CallSiteEdge edges[EDGES_PER_BLOCK];
} CallSiteEdgeBlock;

static const CallSiteNode *node_by_id(const CallSiteTree *tree, uint32_t id) {
    if (id == 0 || id > atomic_load_explicit(&tree->num_nodes, memory_order_acquire)) return NULL;
    uint32_t i = id - 1;
    return &atomic_load_explicit(&tree->chunks[i / CALL_SITE_CHUNK], memory_order_relaxed)[i % CALL_SITE_CHUNK];
}

static uint64_t context_hash(const ProgMethod *method, uint32_t call_offset, const CallSiteNode *caller) {
    uint64_t h = (uint64_t)(uintptr_t)method * UINT64_C(0x9e3779b97f4a7c15);
    h ^= ((uint64_t)call_offset << 32 | (caller ? caller->id : 0)) * UINT64_C(0xff51afd7ed558ccd);
    return h ^ (h >> 29);
}

/* Re-files every node in an index twice as large; with the lock held. */
static bool grow_index(CallSiteTree *tree) {
    uint32_t capacity = tree->index_capacity ? tree->index_capacity * 2 : 1024;
    uint32_t *index = calloc(capacity, sizeof *index);
    if (!index) return false;
    uint32_t n = atomic_load_explicit(&tree->num_nodes, memory_order_relaxed);
    for (uint32_t id = 1; id <= n; id++) {
        const CallSiteNode *node = node_by_id(tree, id);
        uint32_t slot = (uint32_t)context_hash(node->method, node->call_offset, node->caller) & (capacity - 1);
        while (index[slot]) slot = (slot + 1) & (capacity - 1);
        index[slot] = id;
    }
    free(tree->index);
    tree->index = index;
    tree->index_capacity = capacity;
    return true;
}

/* The node of a context, added if new; with the lock held.  NULL if memory
 * ran out or the tree is full. */
static const CallSiteNode *intern(CallSiteTree *tree, const ProgMethod *method, uint32_t call_offset,
                                  const CallSiteNode *caller) {
    if (!caller) call_offset = 0;
    uint64_t hash = context_hash(method, call_offset, caller);
    uint32_t slot = tree->index_capacity ? (uint32_t)hash & (tree->index_capacity - 1) : 0;
    for (; tree->index_capacity && tree->index[slot]; slot = (slot + 1) & (tree->index_capacity - 1)) {
        const CallSiteNode *node = node_by_id(tree, tree->index[slot]);
        if (node->method == method && node->call_offset == call_offset && node->caller == caller) return node;
    }
    uint32_t n = atomic_load_explicit(&tree->num_nodes, memory_order_relaxed);
    if (n == CALL_SITE_CHUNK * CALL_SITE_MAX_CHUNKS) return NULL;
    if ((n + 1) * 2 > tree->index_capacity) {
        if (!grow_index(tree)) return NULL;
        slot = (uint32_t)hash & (tree->index_capacity - 1);
        while (tree->index[slot]) slot = (slot + 1) & (tree->index_capacity - 1);
    }
    CallSiteNode *chunk = atomic_load_explicit(&tree->chunks[n / CALL_SITE_CHUNK], memory_order_relaxed);
    if (!chunk) {
        chunk = malloc(CALL_SITE_CHUNK * sizeof *chunk);
        if (!chunk) return NULL;
        atomic_store_explicit(&tree->chunks[n / CALL_SITE_CHUNK], chunk, memory_order_relaxed);
    }
    CallSiteNode *node = &chunk[n % CALL_SITE_CHUNK];
    *node = (CallSiteNode){.method = method, .caller = caller, .call_offset = call_offset, .id = n + 1,
                           .depth = caller ? caller->depth + 1 : 1};
    tree->index[slot] = n + 1;
    atomic_store_explicit(&tree->num_nodes, n + 1, memory_order_release);
    return node;
}

/* `node`'s context cut to its `depth` innermost frames; with the lock held. */
static const CallSiteNode *cut(CallSiteTree *tree, const CallSiteNode *node, uint32_t depth) {
    if (!node || node->depth <= depth) return node;
    if (depth == 0) return NULL;
    const CallSiteNode *caller = cut(tree, node->caller, depth - 1);
    return caller || depth == 1 ? intern(tree, node->method, node->call_offset, caller) : NULL;
}

/* The edge from `from` at `offset`, near or overflow; NULL if none yet. */
static const CallSiteEdge *find_edge(const CallSiteNode *from, uint32_t offset) {
    uint32_t n = atomic_load_explicit(&from->num_near, memory_order_acquire);
    for (uint32_t i = 0; i < n; i++)
        if (from->near[i].offset == offset) return &from->near[i];
    for (const CallSiteEdge *e = atomic_load_explicit(&((CallSiteNode *)from)->overflow, memory_order_acquire); e;
         e = e->next)
        if (e->offset == offset) return e;
    return NULL;
}

/* A new edge from `from` at `offset` to the callee's context; with the
 * lock held.  NULL if memory ran out. */
static const CallSiteEdge *add_edge(CallSiteTree *tree, const CallSiteNode *from, uint32_t offset,
                                    const ProgMethod *callee) {
    const CallSiteNode *caller = cut(tree, from, tree->depth - 1);
    const CallSiteNode *to = caller || tree->depth == 1 ? intern(tree, callee, offset, caller) : NULL;
    if (!to) return NULL;
    CallSiteNode *owner = (CallSiteNode *)from; /* only its edges change */
    uint32_t n = atomic_load_explicit(&owner->num_near, memory_order_relaxed);
    if (n < CALL_SITE_NEAR) {
        owner->near[n] = (CallSiteEdge){.to = to, .offset = offset};
        atomic_store_explicit(&owner->num_near, n + 1, memory_order_release);
        return &owner->near[n];
    }
    if (!tree->edge_blocks || tree->edge_blocks->used == EDGES_PER_BLOCK) {
        CallSiteEdgeBlock *block = malloc(sizeof *block);
        if (!block) return NULL;
        block->next = tree->edge_blocks;
        block->used = 0;
        tree->edge_blocks = block;
    }
    CallSiteEdge *edge = &tree->edge_blocks->edges[tree->edge_blocks->used++];
    *edge = (CallSiteEdge){.to = to, .offset = offset,
                           .next = atomic_load_explicit(&owner->overflow, memory_order_relaxed)};
    atomic_store_explicit(&owner->overflow, edge, memory_order_release);
    return edge;
}

const CallSiteNode *vm_call_site_callee_slow(CallSiteTree *tree, const Frame *caller, const ProgMethod *callee) {
    if (!caller->site_node) return NULL; /* memory ran out above: no site below either */
    uint32_t offset = vm_frame_offset(caller);
    const CallSiteEdge *edge = find_edge(caller->site_node, offset);
    if (!edge) {
        pthread_mutex_lock(&tree->lock);
        edge = find_edge(caller->site_node, offset);
        if (!edge) edge = add_edge(tree, caller->site_node, offset, callee);
        pthread_mutex_unlock(&tree->lock);
    }
    return edge ? edge->to : NULL;
}

const CallSiteNode *vm_call_site_root(CallSiteTree *tree, const ProgMethod *method) {
    pthread_mutex_lock(&tree->lock);
    const CallSiteNode *node = intern(tree, method, 0, NULL);
    pthread_mutex_unlock(&tree->lock);
    return node;
}

static CallSiteTree *new_tree(const VM *vm, uint32_t depth) {
    CallSiteTree *tree = calloc(1, sizeof *tree);
    CallSiteNode *_Atomic *chunks = calloc(CALL_SITE_MAX_CHUNKS, sizeof *chunks);
    if (!tree || !chunks) {
        free(tree);
        free(chunks);
        return NULL;
    }
    tree->methods = vm->program->methods;
    tree->depth = depth;
    tree->chunks = chunks;
    pthread_mutex_init(&tree->lock, NULL);
    return tree;
}

/* Gives every frame of `thread` its node, bottom up, as its calls would
 * have. */
static void enter_frames(CallSiteTree *tree, VMThread *thread) {
    for (uint32_t i = 0; i < thread->depth; i++) {
        Frame *frame = &thread->frames[i];
        frame->site_node = i == 0 ? vm_call_site_root(tree, frame->method)
                                  : vm_call_site_callee(tree, frame - 1, frame->method);
    }
}

void vm_enter_with_call_site(const LinkedMethod *callee, Frame *caller, uint64_t *pl, Obj **rl) {
    if (callee->has_more_locals) vm_enter_clearing_locals(callee, caller, pl, rl);
    caller[1].site_node = vm_call_site_callee(vm_call_site_tree, caller, callee->method);
}

bool vm_call_sites_enable(VM *vm, uint32_t depth) {
    CallSiteTree *tree = atomic_load(&vm_call_site_tree);
    if (tree) {
        if (depth <= tree->depth) return true;
        if (atomic_load(&tree->num_nodes) != 0) return false;
        tree->depth = depth;
        return true;
    }
    tree = new_tree(vm, depth);
    if (!tree) return false;
    for (uint32_t t = 0; t < vm->num_threads; t++) enter_frames(tree, vm->threads[t]);
    atomic_store(&vm_call_site_tree, tree);
    /* CALL's step, behind the test it makes anyway (vm.h, LinkedMethod):
     * so while no agent asks, call sites cost a call nothing. */
    for (uint32_t m = 0; m < vm->program->num_methods; m++) {
        LinkedMethod *lm = &vm->linked_methods[m];
        lm->enter_out_of_line = vm_enter_with_call_site;
        lm->has_out_of_line_entry = lm->has_entry_work = true;
    }
    return true;
}

void vm_call_sites_free(void) {
    CallSiteTree *tree = atomic_exchange(&vm_call_site_tree, NULL);
    if (!tree) return;
    for (uint32_t c = 0; c < CALL_SITE_MAX_CHUNKS && tree->chunks[c]; c++) free(tree->chunks[c]);
    free(tree->chunks);
    free(tree->index);
    while (tree->edge_blocks) {
        CallSiteEdgeBlock *next = tree->edge_blocks->next;
        free(tree->edge_blocks);
        tree->edge_blocks = next;
    }
    pthread_mutex_destroy(&tree->lock);
    free(tree);
}

uint64_t vm_call_site_of(const VMThread *thread) {
    if (!atomic_load_explicit(&vm_call_site_tree, memory_order_relaxed) || thread->depth == 0) return 0;
    const Frame *top = &thread->frames[thread->depth - 1];
    return top->site_node ? (uint64_t)top->site_node->id << 32 | vm_frame_offset(top) : 0;
}

int32_t vm_call_site_frames(const VM *vm, uint64_t site, VMPI_CallFrame *frames, int32_t max_frames) {
    const CallSiteTree *tree = atomic_load_explicit(&vm_call_site_tree, memory_order_relaxed);
    if (site == 0) return 0;
    const CallSiteNode *node = tree ? node_by_id(tree, (uint32_t)(site >> 32)) : NULL;
    uint32_t offset = (uint32_t)site;
    if (!node || offset >= node->method->code_len) return -1;
    int32_t n = 0;
    for (; node && n < max_frames; node = node->caller, n++) {
        uint32_t m = (uint32_t)(node->method - tree->methods);
        frames[n] = (VMPI_CallFrame){.method_id = (VMPI_MethodID)(uintptr_t)node->method,
                                     .lineno = (int32_t)vm->line_tables[m][offset]};
        offset = node->call_offset;
    }
    return n;
}
