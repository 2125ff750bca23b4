/*
 * tptp_dump.h -- a level-1 HEAP_DUMP (JVMPI 1.2 section 4.2) as TPTP's heap
 * dump elements:
 *
 *     <heapDumpDef heapDumpId="N" name="dump N" reason="..." time="..."/>
 *     <gcRoot heapDumpIdRef="N" objIdRef="O" type="JAVA_FRAME" threadIdRef="T"/>
 *     <gcRoot heapDumpIdRef="N" objIdRef="O" type="STATIC" classIdRef="C"/>
 *     <dumpObject heapDumpIdRef="N" objIdRef="O"/>
 *     <objectReference heapDumpIdRef="N" ownerObjIdRef="O" targetObjIdRef="P"/>
 *
 * one gcRoot per root record (and per reference static, which VMPI keeps in
 * its class's CLASS_DUMP), one dumpObject per live object, one
 * objectReference per non-null reference field, static or array element.
 * Objects the agent does not track (not selected) have no trace number:
 * roots and references that touch them are left out.  docs/tptp.md has the
 * element reference.
 */
#ifndef GCLAB_TPTP_DUMP_H
#define GCLAB_TPTP_DUMP_H

#include <stdbool.h>
#include <stdint.h>

#include "common/trace_output.h"
#include "tptp_objects.h"
#include "vmpi.h"

/* Writes `heap_dump` (a level-1 dump) as heap dump number `dump_id`;
 * `thread_number` gives a thread's trace number.  False if the buffer is
 * malformed (what was written stays: the elements up to the bad record). */
bool tptp_dump_write(TraceOutput *out, const TptpObjects *objects, const VMPI_Event *heap_dump, uint32_t dump_id,
                     uint32_t (*thread_number)(VMPI_ThreadID));

#endif
