/*
 * hprof_net.h -- hprof's net=host:port: the profile goes to a front end
 * over TCP, and the front end's commands come back on the same socket (the
 * HPROF agent manual, "Socket Connection and Communication").
 *
 * A command is u1 tag, u4 serial number, u4 length, then `length` bytes:
 *
 *   0x01 FORCE GC      (none; the manual marks it not implemented in
 *                      its HPROF; here it collects)
 *   0x02 DUMP HEAP     (none)
 *   0x03 ALLOC SITES   u2 flags (0x1 incremental: the sites changed since
 *                      the last ALLOC SITES, 0x2 by allocation, 0x4 force
 *                      GC first), u4 cutoff ratio (an IEEE float)
 *   0x04 HEAP SUMMARY  (none)
 *   0x05 EXIT THE VM   (none)
 *   0x06 DUMP TRACES   (none)
 *   0x07 CPU SAMPLES   u2 (unused), u4 cutoff ratio (float)
 *   0x08 CONTROL       u2 sub-command: 1 alloc traces on, 2 off, 3 CPU
 *                      sampling on and 4 off (then an ID: a thread object,
 *                      0 for all; 4 or 8 bytes), 5 clear CPU sampling,
 *                      6 set max stack depth (then u2 depth)
 *   0xFF EOF           the tag alone: the front end sends no more
 *
 * Big-endian, as the binary format.  A command that is short of its fields
 * or unknown is reported on stderr and skipped (its length frames it).
 *
 * Threads.  A reader on an agent system thread (CreateSystemThread) reads
 * the commands into a queue and asks the VM, with
 * RequestEvent(DATA_DUMP_REQUEST), for a DATA_DUMP_REQUEST at the program
 * thread's next safepoint; the agent serves the queue there
 * (hprof_net_next_command), under its lock, where it may ask for a heap dump
 * and no collection is under way.  The reader writes nothing and touches no
 * profile data, so nothing it does can race with the events.  Commands that
 * arrive in one read (a front end's one write) are queued before the
 * request, so they are served at one safepoint and describe one moment.
 *
 * FORCE GC (and ALLOC SITES with flag 0x4) is the reader's own: it asks
 * for the safepoint that serves the commands before it, then calls RunGC,
 * which from a system thread collects at the program thread's next
 * safepoint after that one and returns when it is done (vmpi/runtime/gc_control.c);
 * only then are the commands after it queued.  So a FORCE GC between two
 * ALLOC SITES falls between their tables, as the front end wrote them.
 * (RunGC cannot be called from the agent's DATA_DUMP_REQUEST handler: no
 * collection may start inside an event.)
 *
 * The connection is lost when the front end closes it without EOF, or a
 * write to it fails: one message on stderr, and hprof_net_lost() is true
 * from then on (the agent stops profiling; the program goes on).
 */
#ifndef GCLAB_HPROF_NET_H
#define GCLAB_HPROF_NET_H

#include <stdbool.h>
#include <stdint.h>

#include "common/trace_output.h"
#include "vmpi.h"

typedef enum HprofCommandTag {
    HPROF_CMD_FORCE_GC = 0x01,
    HPROF_CMD_DUMP_HEAP = 0x02,
    HPROF_CMD_ALLOC_SITES = 0x03,
    HPROF_CMD_HEAP_SUMMARY = 0x04,
    HPROF_CMD_EXIT = 0x05,
    HPROF_CMD_DUMP_TRACES = 0x06,
    HPROF_CMD_CPU_SAMPLES = 0x07,
    HPROF_CMD_CONTROL = 0x08,
    HPROF_CMD_EOF = 0xFF,
} HprofCommandTag;

/* CONTROL's sub-commands. */
typedef enum HprofControl {
    HPROF_CONTROL_ALLOC_TRACES_ON = 1,
    HPROF_CONTROL_ALLOC_TRACES_OFF = 2,
    HPROF_CONTROL_CPU_SAMPLING_ON = 3,
    HPROF_CONTROL_CPU_SAMPLING_OFF = 4,
    HPROF_CONTROL_CLEAR_CPU = 5,
    HPROF_CONTROL_SET_DEPTH = 6,
} HprofControl;

/* ALLOC SITES flags. */
#define HPROF_SITES_INCREMENTAL 0x1
#define HPROF_SITES_BY_ALLOCATION 0x2
#define HPROF_SITES_FORCE_GC 0x4

typedef struct HprofCommand {
    uint8_t tag;          /* HprofCommandTag */
    uint32_t serial;
    uint16_t flags;       /* ALLOC SITES: its flags; CONTROL: the sub-command */
    double cutoff;        /* ALLOC SITES, CPU SAMPLES: a ratio from 0 to 1 */
    uint64_t thread;      /* CONTROL 3 and 4: a thread object ID, 0 for all */
    uint16_t depth;       /* CONTROL 6 */
} HprofCommand;

/* At load: connects to `host_port` ("host:port", checked by the option
 * parser) and points `out` at the socket.  False, with one message naming
 * host:port and why, if it cannot. */
bool hprof_net_connect(const char *host_port, TraceOutput *out);

/* At JVM_INIT_DONE: starts the reader on a system thread.  False, with a
 * message, if the VM would not start one. */
bool hprof_net_start_reader(VMPI_Interface *vmpi);

/* On the program's thread: the oldest command not served yet, removed from
 * the queue; false if none. */
bool hprof_net_next_command(HprofCommand *command);

/* Whether the connection is lost.  A non-zero `write_errno` says a write
 * to it failed so: it is lost from now on (the first loss is reported). */
bool hprof_net_lost(int write_errno);

/* At JVM_SHUT_DOWN, after the last write: the reader stops quietly and the
 * front end sees the end of the stream (the socket is shut down for
 * writing; the process's exit closes it). */
void hprof_net_finish(void);

#endif
