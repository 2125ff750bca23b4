/*
 * fixed.h -- the fixed-address heap: with --seed, everything the VM hands
 * out an ID for lives at addresses that repeat from run to run, so two runs
 * of the same program with the same flags give byte-identical event streams
 * (object, class, thread and method IDs are addresses; vmpi/vm_services.h).
 *
 * gc_fixed_reserve maps one range of address space, GC_FIXED_BYTES at
 * GC_FIXED_BASE (mmap MAP_FIXED_NOREPLACE | MAP_NORESERVE: nothing is
 * committed until touched), before the VM creates its collector.  (In the
 * page's build, WebAssembly, it takes the range from the top of the
 * module's memory instead, by sbrk: see fixed.c.)  From then on it is
 * carved, in the order of the requests and never by chance:
 *
 *   [base, base + GC_FIXED_RECORD_BYTES)   VM records that carry IDs --
 *        the VM itself (its String class), its class tables, its threads,
 *        the program's method table -- by gc_record_calloc, a bump pointer;
 *        a record is never reused (gc_record_free of one is a no-op);
 *   [base + GC_FIXED_RECORD_BYTES, end)    collector regions and the block
 *        area that marksweep and refcount objects come from
 *        (gc_fixed_region; memory.h says how a GcMemory uses them).
 *
 * Without --seed nothing is reserved: gc_record_calloc is calloc and
 * gc_record_free is free, and the memory layer is as it always was.
 *
 * Invariant: the carving order depends only on the program, its input and
 * the flags (the VM is deterministic and runs one thread at a time), so
 * every address carved repeats in the next run; nothing in the range is
 * ever unmapped before exit (a region given back is only emptied: madvise;
 * in the page's build not even that, as no page can go back).
 */
#ifndef GCLAB_GC_FIXED_H
#define GCLAB_GC_FIXED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gc/gc.h" /* gc_fixed_reserve, gc_record_calloc: what the VM asks of it */

#ifdef GCLAB_WASM
/* The page's build (docs/lab.md): the range is the next 1 GiB of the
 * module's linear memory, which has no fixed place to ask for and at most
 * 2 GiB (vm/tools/lab/lab.cmake).  The rest is left for the VM's own
 * allocations; 64 MiB of records is far more than a program's classes,
 * methods and its one thread take. */
#define GC_FIXED_BYTES ((size_t)1 << 30)
#define GC_FIXED_RECORD_BYTES ((size_t)64 << 20)
#else
/* 48 TiB: above where Linux puts a program, its brk heap and its shared
 * libraries on x86-64 and AArch64 with 48-bit addresses, and outside ASan's
 * shadow memory and its allocator. */
#define GC_FIXED_BASE ((uintptr_t)0x300000000000u)
/* 1 TiB of address space, 1 GiB of it for records. */
#define GC_FIXED_BYTES ((size_t)1 << 40)
#define GC_FIXED_RECORD_BYTES ((size_t)1 << 30)
#endif

/* Has gc_fixed_reserve succeeded? */
bool gc_fixed_is_reserved(void);

/* Is `p` inside the reserved range? */
bool gc_fixed_contains(const void *p);

/* `bytes` (a multiple of the page size) of zeroed address space carved off
 * the region part, or NULL when it is spent. */
void *gc_fixed_region(size_t bytes);

/* How much of the region part is still to be carved. */
size_t gc_fixed_region_left(void);

#endif
