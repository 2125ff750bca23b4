/*
 * hprof_dump.h -- hprof's heap=dump: a level-2 HEAP_DUMP (JVMPI 1.2,
 * section 4.2, as vmpi/runtime/heap_dump.c writes it) turned into the text section
 * HPROF writes for heap=dump, `HEAP DUMP BEGIN (N objects, M bytes) DATE`
 * ... `HEAP DUMP END`, in the layout of the JDK's HPROF (the HPROF agent
 * manual, "Heap Dump (heap=dump)"):
 *
 *   ROOT id (kind=<Java stack>, thread=T, frame=F)    and the other root kinds
 *   CLS id (name=C, trace=0)       then "\tstatic NAME\tid" per non-null
 *                                  reference static
 *   OBJ id (sz=S, trace=T, class=C@id)   then "\tFIELD\tid" per non-null
 *                                  reference field
 *   ARR id (sz=S, trace=T, nelems=N, elem type=C@id)  then "\t[i]\tid" per
 *                                  non-null element; a primitive array
 *                                  names its type, "elem type=int"
 *
 * IDs are hex.  An object's size and trace come from the sites bookkeeping
 * (hprof_sites.h), which holds every live object with its allocation site;
 * an object it does not hold gets trace 0.  Only references are printed, as
 * HPROF's text does; primitive values are in the binary format only.
 *
 * The text is built into memory while the dump is delivered (its buffer is
 * the VM's and lives only until NotifyEvent returns) and written later,
 * after the TRACEs it names.
 */
#ifndef GCLAB_HPROF_DUMP_H
#define GCLAB_HPROF_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/idmap.h"
#include "common/trace_output.h"
#include "hprof_sites.h"
#include "vmpi.h"

typedef struct HprofDumpField {
    char *name;
    bool is_ref;       /* signature L... or [...: an ID, else a value */
    bool is_boolean;   /* Z: one byte; other values take 8 */
} HprofDumpField;

typedef struct HprofDumpClass {
    char *name;
    HprofDumpField *statics, *fields;
    int32_t num_statics, num_fields;
} HprofDumpClass;

typedef struct HprofDump {
    IdMap class_ids;          /* class ID -> tag = index in classes */
    HprofDumpClass *classes;
    size_t num_classes;
    char *text;               /* the records of the last dump, or NULL */
    size_t text_len;
    uint64_t objects, bytes;  /* its OBJ and ARR records, and their bytes */
    bool failed;              /* out of memory, or a malformed buffer */
} HprofDump;

bool hprof_dump_init(HprofDump *d);

/* A primitive array's element kind (VMPI_BOOLEAN ... VMPI_LONG) as Java
 * names it: "int". */
const char *hprof_primitive_name(int32_t kind);

/* CLASS_LOAD: the class's name and the layout of its statics and fields. */
void hprof_dump_learn_class(HprofDump *d, const VMPI_Event *class_load);

/* A level-2 HEAP_DUMP, read into text; `thread_number` names a thread as
 * the THREAD records do. */
void hprof_dump_read(HprofDump *d, const VMPI_Event *heap_dump, const HprofSites *sites,
                     uint32_t (*thread_number)(VMPI_ThreadID));

/* The section, from the last dump read. */
void hprof_dump_write(const HprofDump *d, TraceOutput *out, const char *date);

#endif
