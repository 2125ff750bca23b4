/*
 * recorder.h -- the VM's own binary recording (vmrun --record=FILE): the
 * events `-agentlib:trace=format=binary` writes, in the same format, byte
 * for byte, written by VMPI itself (docs/trace-format.md, "The recording
 * in the VM").
 *
 * Why in the VM: an agent's event costs the VM a whole VMPI_Event built,
 * zeroed, copied and delivered with GC disabled around the call, and the
 * agent its lock and its dispatch on the code, several times what writing
 * the few bytes of a heap event costs.  The recorder writes OBJECT_ALLOC,
 * OBJECT_MOVE and OBJECT_FREE where the collector posts them, from their
 * fields alone, and the rarer events from the record vmpi_dispatch has.
 *
 * Invariant: vmpi_recording is true from vmpi_start_recording until
 * JVM_SHUT_DOWN is written; vmpi_recorded[code] says which events it
 * records, and vmpi_enabled[code] includes them (vmpi_refresh_enabled).
 */
#ifndef GCLAB_VMPI_RECORDER_H
#define GCLAB_VMPI_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gc/object.h"
#include "vmpi/vmpi.h"

extern bool vmpi_recording;
extern uint8_t vmpi_recorded[VMPI_EVENT_CODE_LIMIT];

/* Any event vmpi_dispatch broadcasts: written if it is one the recorder
 * records and not one of the three it writes where they are posted. */
void vmpi_record_event(const VMPI_Event *event);

/* The heap events, where the collector posts them (events.c).  The
 * allocation's takes the port's parameters, bytes_allocated unused, so
 * that events.c reaches it with a jump and moves no argument. */
void vmpi_record_object_alloc(const uint64_t *bytes_allocated, uint32_t arena_id, const Obj *obj, size_t size);
void vmpi_record_object_move(uint32_t arena_id, const Obj *obj, uint32_t new_arena_id, const Obj *new_obj);
void vmpi_record_object_free(const Obj *obj);

/* JVM_SHUT_DOWN, the last event: writes it and publishes the file. */
void vmpi_record_shut_down(void);

#endif
