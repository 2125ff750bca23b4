/*
 * builtin_agents.c -- the agents the lab page's vmrun has linked in
 * (docs/lab.md): a page cannot dlopen, so gcstats, check, trace and
 * heapdump are compiled into the WebAssembly module, each with its
 * VMPI_OnLoad renamed (vm/tools/lab/lab.cmake), and registered under their
 * -agentlib names before vmrun's main runs.
 */
#include <stdint.h>

#include "vmpi/control.h"
#include "vmpi/vmpi.h"

int32_t gclab_gcstats_OnLoad(VMPI_VM *vm, char *options, void *reserved);
int32_t gclab_check_OnLoad(VMPI_VM *vm, char *options, void *reserved);
int32_t gclab_trace_OnLoad(VMPI_VM *vm, char *options, void *reserved);
int32_t gclab_heapdump_OnLoad(VMPI_VM *vm, char *options, void *reserved);

__attribute__((constructor)) static void register_builtin_agents(void) {
    vmpi_add_builtin_agent("gcstats", gclab_gcstats_OnLoad);
    vmpi_add_builtin_agent("check", gclab_check_OnLoad);
    vmpi_add_builtin_agent("trace", gclab_trace_OnLoad);
    vmpi_add_builtin_agent("heapdump", gclab_heapdump_OnLoad);
}
