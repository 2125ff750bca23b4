/*
 * call_sites.h -- allocation sites the VM already knows: a calling-context
 * tree the interpreter keeps while an agent asks for it (VMPI's
 * EnableCallSites, docs/contracts.md "Call sites").
 *
 * A node is a calling context cut to the `depth` innermost frames: the
 * method of the innermost frame, and the node of its caller's context (cut
 * to depth - 1 frames) with the offset of the CALL the caller is at.  Each
 * frame holds its node (Frame.site_node), so the thread's current context
 * is its top frame's node, and a site -- where an allocation happens -- is
 * that node and the top frame's bytecode offset, packed in one 64-bit ID
 * (node ID << 32 | offset).  A site's frames, callee first, are the same as
 * GetCallTrace's at that moment, to `depth` frames.
 *
 * A CALL moves to the callee's node through the caller's node: its first
 * CALL_SITE_NEAR call sites (by bytecode offset) sit in the node itself,
 * compared inline; more are on an overflow list.  (A cache per call site
 * was tried first: a recursive method's call sites alternate between
 * contexts, so it missed at almost every call of binary_trees.)  Only a new
 * context takes the tree's lock: nodes and edges are never freed, and never
 * changed once published, so readers take none.  Cutting contexts to
 * `depth` frames keeps recursion from growing the tree without bound:
 * fib's contexts are its last `depth` call sites, not every path.
 *
 * While no agent asks, `vm_call_site_tree` is NULL and a call costs
 * nothing more: the step is behind the callee's has_entry_work and
 * has_out_of_line_entry tests, which CALL makes anyway (vm.h,
 * LinkedMethod; measured in docs/hprof.md, "What it costs").  Enabling
 * sets both, and enter_out_of_line, in every linked method, at a
 * point where no thread is in the middle of a CALL (today: the VM runs one
 * thread at a time, and agents enable from JVM_OnLoad or a handler).
 *
 * Threads: each thread's frames hold its own nodes; the tree is shared,
 * with a lock on insertion, so it is safe with threads that run at once.
 */
#ifndef GCLAB_INTERP_CALL_SITES_H
#define GCLAB_INTERP_CALL_SITES_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "vm/vm.h"
#include "vmpi/vmpi.h"

#define CALL_SITE_NEAR 4

/* A call made from a context at `offset`, leading to context `to`. */
typedef struct CallSiteEdge {
    const struct CallSiteNode *to;
    uint32_t offset;
    struct CallSiteEdge *next;       /* the next overflow edge */
} CallSiteEdge;

typedef struct CallSiteNode {
    const ProgMethod *method;        /* the innermost frame's method */
    const struct CallSiteNode *caller; /* the caller's context, one frame shorter; NULL if none */
    uint32_t call_offset;            /* the CALL the caller is at (0 without a caller) */
    uint32_t id;                     /* from 1: 0 is "no site" */
    uint32_t depth;                  /* frames in this context */
    /* The calls made from this context: near[0 .. num_near), then the
     * overflow list. */
    _Atomic uint32_t num_near;
    CallSiteEdge near[CALL_SITE_NEAR];
    _Atomic(CallSiteEdge *) overflow;
} CallSiteNode;

/* Nodes live in chunks of CALL_SITE_CHUNK, found by ID without a lock. */
#define CALL_SITE_CHUNK 4096u
#define CALL_SITE_MAX_CHUNKS 65536u

typedef struct CallSiteTree {
    const ProgMethod *methods;       /* program->methods, for a method's index */
    uint32_t depth;                  /* frames a context keeps */
    pthread_mutex_t lock;            /* held to add a node or an edge */
    CallSiteNode *_Atomic *chunks;   /* CALL_SITE_MAX_CHUNKS of them */
    _Atomic uint32_t num_nodes;      /* IDs 1 .. num_nodes are published */
    uint32_t *index;                 /* open addressing: node ID, 0 empty (contexts by content) */
    uint32_t index_capacity;
    struct CallSiteEdgeBlock *edge_blocks; /* where overflow edges live */
} CallSiteTree;

/* The tree while an agent asks for call sites, else NULL. */
extern CallSiteTree *_Atomic vm_call_site_tree;

/* Starts keeping call sites (if not yet) for traces of up to `depth`
 * frames, and gives every existing frame of every thread its node.  The
 * depth may grow only while the tree has no node yet; false if `depth` is
 * more than that, or memory ran out. */
bool vm_call_sites_enable(VM *vm, uint32_t depth);
/* Frees the tree (vm_destroy). */
void vm_call_sites_free(void);

/* LinkedMethod.enter_out_of_line while call sites are kept: the callee's
 * locals cleared if it has more, and its frame's node. */
void vm_enter_with_call_site(const LinkedMethod *callee, Frame *caller, uint64_t *pl, Obj **rl);

/* The context of the frame entered at the bottom of a thread, running
 * `method`; NULL if memory ran out. */
const CallSiteNode *vm_call_site_root(CallSiteTree *tree, const ProgMethod *method);

/* The context `caller` calls `callee` into, from the CALL at caller->pc,
 * when it is not among the caller node's near edges; NULL if memory ran
 * out. */
const CallSiteNode *vm_call_site_callee_slow(CallSiteTree *tree, const Frame *caller, const ProgMethod *callee);

/* CALL's step: the callee's context, through the caller's node. */
static inline const CallSiteNode *vm_call_site_callee(CallSiteTree *tree, const Frame *caller,
                                                      const ProgMethod *callee) {
    const CallSiteNode *from = caller->site_node;
    if (from) {
        uint32_t offset = vm_frame_offset(caller);
        uint32_t n = atomic_load_explicit(&from->num_near, memory_order_acquire);
        for (uint32_t i = 0; i < n; i++)
            if (from->near[i].offset == offset) return from->near[i].to;
    }
    return vm_call_site_callee_slow(tree, caller, callee);
}

/* The site `thread` is at: its top frame's node and offset; 0 with no
 * frame or no tree. */
uint64_t vm_call_site_of(const VMThread *thread);

/* A site's frames, callee first, at most `max_frames`, as GetCallTrace
 * gives them; -1 if `site` names no site. */
int32_t vm_call_site_frames(const VM *vm, uint64_t site, VMPI_CallFrame *frames, int32_t max_frames);

#endif
