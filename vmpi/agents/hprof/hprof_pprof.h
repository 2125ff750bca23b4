/*
 * hprof_pprof.h -- hprof's tables as a pprof profile: pprof's
 * profile.proto message (pprof, proto/profile.proto; the part hprof
 * writes is vmpi/agents/hprof/profile.proto), packed by libprotobuf-c and
 * gzipped by zlib, as `go tool pprof` and the other pprof readers take it.
 *
 * One sample per stack (hprof_stacks.h), its values the stack's, its
 * locations the trace's frames innermost first; a site's class is the
 * string label `class`, and with thread=y the trace's thread the number
 * label `thread`.  A location is a (method, line) of the traces, with one
 * line naming its function; a function is a method, "Class.method" with
 * its source file.  The header's period says how many of the period
 * type's units a sample stands for: 1 for exact tables, the interval in
 * nanoseconds for cpu=samples alone, as Go's CPU profiles have it, the
 * sampling interval in bytes for sample= (its values are estimates, and
 * the profile's comment says so).
 */
#ifndef GCLAB_HPROF_PPROF_H
#define GCLAB_HPROF_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hprof_stacks.h"

typedef struct HprofPprofHeader {
    int64_t time_nanos;         /* when the profile was taken (since the epoch) */
    int64_t duration_nanos;     /* how long it covers */
    HprofValueType period_type; /* Go's: space/bytes for the heap, cpu/nanoseconds for CPU */
    int64_t period;             /* of period_type's unit: 1, or cpu=samples' interval (ns) */
    const char *default_type;   /* the kind pprof shows unless told: one of the stacks' */
    const char *comment;        /* the profile's comment (pprof -comments), or NULL */
} HprofPprofHeader;

/* The gzipped profile in *bytes (malloc'd) and *size; false if memory ran
 * out. */
bool hprof_pprof_render(const HprofStacks *stacks, const HprofPprofHeader *header, char **bytes, size_t *size);

#endif
