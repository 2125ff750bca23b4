/*
 * jvmpi.c -- what makes an agent written for JVMPI (jvmpi.h, jni.h) run on
 * VMPI unchanged: the JavaVM that JVM_OnLoad gets, and the proof that
 * jvmpi.h's JVMPI_Interface and JVMPI_Event are VMPI's, member for member.
 *
 * JVMPI's agent reaches GetEnv through two indirections,
 * (*jvm)->GetEnv(jvm, ...), where VMPI's has one, vm->GetEnv(vm, ...): each
 * agent's record holds a JavaVM (a pointer to the invocation table below)
 * beside its VMPI_VM, and GetEnv finds the agent from either (guard.c).
 * Everything else is shared: GetEnv hands a JVMPI agent its VMPI_Interface,
 * and NotifyEvent gets the VMPI_Event the VM posts, read through JVMPI's
 * names.  The assertions below keep that true: every member at the same
 * offset and of the same size, the tables the same size.  What differs is
 * only a return type where JVMPI has a narrower one (ThreadHasRun's
 * jboolean, SuspendThreadList's void), read by the caller from the same
 * register, and INSTRUCTION_START's switch infos (docs/jvmpi.md).
 */
#include <stddef.h>

#include "vmpi/runtime/dispatch.h"
#include "vmpi/jvmpi.h"

const struct JNIInvokeInterface_ vmpi_java_vm_table = {.GetEnv = vmpi_guarded_java_vm_get_env};

#define SAME_MEMBER(jvmpi_type, vmpi_type, member)                                               \
    _Static_assert(offsetof(jvmpi_type, member) == offsetof(vmpi_type, member) &&                \
                       sizeof(((jvmpi_type *)0)->member) == sizeof(((vmpi_type *)0)->member),    \
                   #member " is where VMPI has it")
#define SAME_IN_TABLE(member) SAME_MEMBER(JVMPI_Interface, VMPI_Interface, member);
#define SAME_IN_EVENT(member) SAME_MEMBER(JVMPI_Event, VMPI_Event, member);

_Static_assert(sizeof(JVMPI_Interface) <= sizeof(VMPI_Interface), "JVMPI's table is a prefix of VMPI's");
SAME_IN_TABLE(version)
SAME_IN_TABLE(NotifyEvent)
SAME_IN_TABLE(EnableEvent)
SAME_IN_TABLE(DisableEvent)
SAME_IN_TABLE(RequestEvent)
SAME_IN_TABLE(GetCallTrace)
SAME_IN_TABLE(ProfilerExit)
SAME_IN_TABLE(RawMonitorCreate)
SAME_IN_TABLE(RawMonitorEnter)
SAME_IN_TABLE(RawMonitorExit)
SAME_IN_TABLE(RawMonitorWait)
SAME_IN_TABLE(RawMonitorNotifyAll)
SAME_IN_TABLE(RawMonitorDestroy)
SAME_IN_TABLE(GetCurrentThreadCpuTime)
SAME_IN_TABLE(SuspendThread)
SAME_IN_TABLE(ResumeThread)
SAME_IN_TABLE(GetThreadStatus)
SAME_IN_TABLE(ThreadHasRun)
SAME_IN_TABLE(CreateSystemThread)
SAME_IN_TABLE(SetThreadLocalStorage)
SAME_IN_TABLE(GetThreadLocalStorage)
SAME_IN_TABLE(DisableGC)
SAME_IN_TABLE(EnableGC)
SAME_IN_TABLE(RunGC)
SAME_IN_TABLE(GetThreadObject)
SAME_IN_TABLE(GetMethodClass)
SAME_IN_TABLE(jobjectID2jobject)
SAME_IN_TABLE(jobject2jobjectID)
SAME_IN_TABLE(SuspendThreadList)
SAME_IN_TABLE(ResumeThreadList)

_Static_assert(sizeof(JVMPI_Event) <= sizeof(VMPI_Event), "a JVMPI agent reads no further than VMPI's record");
SAME_IN_EVENT(event_type)
SAME_IN_EVENT(env_id)
SAME_IN_EVENT(u.method.method_id)
SAME_IN_EVENT(u.method_entry2.method_id)
SAME_IN_EVENT(u.method_entry2.obj_id)
SAME_IN_EVENT(u.instruction.method_id)
SAME_IN_EVENT(u.instruction.offset)
/* if_info.is_true is the first byte of VMPI's int32 is_true (0 or 1). */
_Static_assert(offsetof(JVMPI_Event, u.instruction.u.if_info.is_true) == offsetof(VMPI_Event, u.instruction.is_true),
               "is_true is where VMPI has it");
SAME_IN_EVENT(u.obj_alloc.arena_id)
SAME_IN_EVENT(u.obj_alloc.class_id)
SAME_IN_EVENT(u.obj_alloc.is_array)
SAME_IN_EVENT(u.obj_alloc.size)
SAME_IN_EVENT(u.obj_alloc.obj_id)
SAME_IN_EVENT(u.obj_free.obj_id)
SAME_IN_EVENT(u.obj_move.arena_id)
SAME_IN_EVENT(u.obj_move.obj_id)
SAME_IN_EVENT(u.obj_move.new_arena_id)
SAME_IN_EVENT(u.obj_move.new_obj_id)
SAME_IN_EVENT(u.new_arena.arena_id)
SAME_IN_EVENT(u.new_arena.arena_name)
SAME_IN_EVENT(u.delete_arena.arena_id)
SAME_IN_EVENT(u.thread_start.thread_name)
SAME_IN_EVENT(u.thread_start.group_name)
SAME_IN_EVENT(u.thread_start.parent_name)
SAME_IN_EVENT(u.thread_start.thread_id)
SAME_IN_EVENT(u.thread_start.thread_env_id)
SAME_IN_EVENT(u.class_load.class_name)
SAME_IN_EVENT(u.class_load.source_name)
SAME_IN_EVENT(u.class_load.num_interfaces)
SAME_IN_EVENT(u.class_load.num_methods)
SAME_IN_EVENT(u.class_load.methods)
SAME_IN_EVENT(u.class_load.num_static_fields)
SAME_IN_EVENT(u.class_load.statics)
SAME_IN_EVENT(u.class_load.num_instance_fields)
SAME_IN_EVENT(u.class_load.instances)
SAME_IN_EVENT(u.class_load.class_id)
SAME_IN_EVENT(u.class_load_hook.class_data)
SAME_IN_EVENT(u.class_load_hook.class_data_len)
SAME_IN_EVENT(u.class_load_hook.new_class_data)
SAME_IN_EVENT(u.class_load_hook.new_class_data_len)
SAME_IN_EVENT(u.class_load_hook.malloc_f)
SAME_IN_EVENT(u.class_unload.class_id)
SAME_IN_EVENT(u.jni_globalref_alloc.obj_id)
SAME_IN_EVENT(u.jni_globalref_alloc.ref_id)
SAME_IN_EVENT(u.jni_globalref_free.ref_id)
SAME_IN_EVENT(u.heap_dump.dump_level)
SAME_IN_EVENT(u.heap_dump.begin)
SAME_IN_EVENT(u.heap_dump.end)
SAME_IN_EVENT(u.heap_dump.num_traces)
SAME_IN_EVENT(u.heap_dump.traces)
SAME_IN_EVENT(u.object_dump.data_len)
SAME_IN_EVENT(u.object_dump.data)
SAME_IN_EVENT(u.monitor.object)
SAME_IN_EVENT(u.monitor_wait.object)
SAME_IN_EVENT(u.monitor_wait.timeout)
SAME_IN_EVENT(u.monitor_dump.begin)
SAME_IN_EVENT(u.monitor_dump.end)
SAME_IN_EVENT(u.monitor_dump.num_traces)
SAME_IN_EVENT(u.monitor_dump.traces)
SAME_IN_EVENT(u.monitor_dump.threads_status)
SAME_IN_EVENT(u.raw_monitor.name)
SAME_IN_EVENT(u.raw_monitor.id)
SAME_IN_EVENT(u.gc_info.used_objects)
SAME_IN_EVENT(u.gc_info.used_object_space)
SAME_IN_EVENT(u.gc_info.total_object_space)
