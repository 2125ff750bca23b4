/*
 * agent_load.c -- finding, loading and starting an agent library
 * (-agentlib:NAME[=OPTIONS], -agentpath:PATH[=OPTIONS]).
 *
 * As JVMPI 1.2 section 1.1 does for -Xrun, a NAME is looked for first in the
 * VM's own library directory -- for gclab <dir of vmrun>/../lib/gclab, in the
 * build tree and when installed -- and then through the platform's normal
 * search (dlopen's, i.e. LD_LIBRARY_PATH and the system directories).  The
 * library must export VMPI_OnLoad (given the agent's VMPI_VM) or, an agent
 * written for JVMPI (jvmpi.h), JVM_OnLoad (given its JavaVM), which must
 * return VMPI_OK (JNI_OK); VMPI_OnLoad is used when a library has both.
 * -Xrun<name>[:options], JVMPI's own option, is -agentlib:<name>=<options>
 * (vmrun's option parser makes it so).
 *
 * A program may link agents in instead (vmpi_add_builtin_agent); a NAME is
 * looked for among those first.  The browser build (docs/lab.md) has no
 * dlopen and loads only those.
 *
 * Invariant: on every failure the agent's slot is given back and its library
 * closed, and `err` holds exactly one line naming the agent.
 */
#define _GNU_SOURCE /* dlinfo, RTLD_DI_LINKMAP */
#ifndef GCLAB_WASM
#include <dlfcn.h>
#include <link.h>
#endif
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmpi/control.h"
#include "dispatch.h"

/* JVMPI 1.2 section 1.1's entry point (jvmpi.h declares it for agents). */
typedef jint(JNICALL *JVM_OnLoad_t)(JavaVM *jvm, char *options, void *reserved);

/* Agents linked into the program itself (vmpi_add_builtin_agent): the
 * browser build's, which has no dlopen. */
static struct {
    const char *name;
    VMPI_OnLoad_t on_load;
} builtin_agents[8];
static size_t num_builtin_agents;

bool vmpi_add_builtin_agent(const char *name, VMPI_OnLoad_t on_load) {
    if (num_builtin_agents == sizeof builtin_agents / sizeof builtin_agents[0]) return false;
    builtin_agents[num_builtin_agents].name = name;
    builtin_agents[num_builtin_agents].on_load = on_load;
    num_builtin_agents++;
    return true;
}

static VMPI_OnLoad_t builtin_agent(const char *name) {
    for (size_t i = 0; i < num_builtin_agents; i++)
        if (strcmp(builtin_agents[i].name, name) == 0) return builtin_agents[i].on_load;
    return NULL;
}

#ifdef GCLAB_WASM
/* WebAssembly in a page loads no libraries: only the built-in agents run. */
static void *open_library(const char *name, bool is_path, VMPI_OnLoad_t *on_load, JVM_OnLoad_t *jvm_on_load,
                          char *err, size_t errsize) {
    int used = snprintf(err, errsize, "agent '%s': this build (WebAssembly) loads no agent libraries; built in:", name);
    for (size_t i = 0; i < num_builtin_agents && used > 0 && (size_t)used < errsize; i++)
        used += snprintf(err + used, errsize - (size_t)used, " %s", builtin_agents[i].name);
    return NULL;
}
#define close_library(library) ((void)(library))
#else
/* "<dir of /proc/self/exe>/../lib/gclab", with the "bin/.." folded away;
 * false if the executable's path cannot be read. */
static bool bundled_agent_dir(char *dir, size_t size) {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return false;
    exe[n] = '\0';
    for (int up = 0; up < 2; up++) { /* drop "/vmrun", then "/bin" */
        char *slash = strrchr(exe, '/');
        if (!slash) return false;
        *slash = '\0';
    }
    return (size_t)snprintf(dir, size, "%s/lib/gclab", exe) < size;
}

/* True if dlerror()'s message says the file was not there at all, as
 * opposed to a library that exists but cannot be loaded. */
static bool is_missing_file(const char *why) {
    return why && strstr(why, "No such file or directory") != NULL;
}

/* Opens the library for -agentlib:NAME; NULL with `err` set on failure.
 * As in the JVM, a NAME is a name, never a path: "../../x" would otherwise
 * become "lib../../x.so", opened relative to the working directory. */
static void *open_named(const char *name, char *err, size_t errsize) {
    if (strchr(name, '/')) {
        snprintf(err, errsize, "agent '%s': -agentlib takes a library name, not a path; use -agentpath:%s", name,
                 name);
        return NULL;
    }
    char dir[PATH_MAX], plain[PATH_MAX + 8], bundled[sizeof dir + sizeof plain];
    snprintf(plain, sizeof plain, "lib%s.so", name);
    bool have_dir = bundled_agent_dir(dir, sizeof dir);
    if (have_dir) {
        snprintf(bundled, sizeof bundled, "%s/%s", dir, plain);
        if (access(bundled, F_OK) == 0) {
            void *library = dlopen(bundled, RTLD_NOW | RTLD_LOCAL);
            if (!library) snprintf(err, errsize, "agent '%s': dlopen: %s", name, dlerror());
            return library;
        }
    } else {
        snprintf(bundled, sizeof bundled, "<vmrun's dir>/../lib/gclab/%s", plain);
    }
    void *library = dlopen(plain, RTLD_NOW | RTLD_LOCAL);
    if (library) return library;
    const char *why = dlerror();
    if (is_missing_file(why))
        snprintf(err, errsize, "agent '%s': not found (looked for %s and %s on the library path)", name,
                 bundled, plain);
    else
        snprintf(err, errsize, "agent '%s': dlopen: %s", name, why ? why : "unknown error");
    return NULL;
}

/* Opens the library for -agentpath:PATH.  A path without a slash means a
 * file in the current directory, not a search of the library path. */
static void *open_path(const char *path, char *err, size_t errsize) {
    char local[PATH_MAX + 2];
    const char *target = path;
    if (!strchr(path, '/')) {
        snprintf(local, sizeof local, "./%s", path);
        target = local;
    }
    void *library = dlopen(target, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *why = dlerror();
        snprintf(err, errsize, "agent '%s': dlopen: %s", path, why ? why : "unknown error");
    }
    return library;
}

/* The file a handle was loaded from, for messages. */
static const char *library_file(void *library, const char *fallback) {
    struct link_map *map = NULL;
    if (dlinfo(library, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && map->l_name[0])
        return map->l_name;
    return fallback;
}

/* Opens the agent's library and finds its entry point; NULL with `err` set
 * on failure. */
static void *open_library(const char *name, bool is_path, VMPI_OnLoad_t *on_load, JVM_OnLoad_t *jvm_on_load,
                          char *err, size_t errsize) {
    void *library = is_path ? open_path(name, err, errsize) : open_named(name, err, errsize);
    if (!library) return NULL;
    *(void **)on_load = dlsym(library, "VMPI_OnLoad"); /* POSIX's way to get a function */
    if (!*on_load) *(void **)jvm_on_load = dlsym(library, "JVM_OnLoad");
    if (!*on_load && !*jvm_on_load) {
        snprintf(err, errsize, "agent '%s': no VMPI_OnLoad or JVM_OnLoad in %s", name, library_file(library, name));
        dlclose(library);
        return NULL;
    }
    return library;
}
#define close_library(library) dlclose(library)
#endif

bool vmpi_load_agent(const char *spec, bool is_path, char *err, size_t errsize) {
    const char *equals = strchr(spec, '=');
    size_t name_len = equals ? (size_t)(equals - spec) : strlen(spec);
    char name[PATH_MAX];
    if (name_len == 0 || name_len >= sizeof name) {
        snprintf(err, errsize, "agent '%.*s': %s", (int)(name_len < 64 ? name_len : 64), spec,
                 name_len ? "name too long" : "no agent name given");
        return false;
    }
    memcpy(name, spec, name_len);
    name[name_len] = '\0';
    /* VMPI_OnLoad takes a char * (JVMPI's signature); give it its own copy. */
    char *options = strdup(equals ? equals + 1 : "");
    if (!options) {
        snprintf(err, errsize, "agent '%s': out of memory", name);
        return false;
    }

    /* A built-in agent needs no library (and a path never names one). */
    VMPI_OnLoad_t on_load = is_path ? NULL : builtin_agent(name);
    JVM_OnLoad_t jvm_on_load = NULL;
    void *library = NULL;
    if (!on_load && !(library = open_library(name, is_path, &on_load, &jvm_on_load, err, errsize))) {
        free(options);
        return false;
    }
    VmpiAgent *agent = vmpi_agent_claim();
    if (!agent) {
        snprintf(err, errsize, "agent '%s': too many agents (at most %d)", name, VMPI_MAX_AGENTS);
        if (library) close_library(library);
        free(options);
        return false;
    }
    agent->library = library;
    agent->options = options; /* lives as long as the agent: it may keep pointers into it */
    const char *slash = strrchr(name, '/');
    const char *file = slash ? slash + 1 : name;
    size_t file_len = strnlen(file, sizeof agent->name - 1); /* a longer name is cut, for messages only */
    memcpy(agent->name, file, file_len);
    agent->name[file_len] = '\0';
    vmpi_install_crash_report();
    vmpi_caller = agent; /* whom guard.c names for a bad argument in VMPI_OnLoad */
    int32_t rc = on_load ? on_load(&agent->vm, options, NULL) : jvm_on_load(&agent->java_vm, options, NULL);
    vmpi_caller = NULL;
    if (rc != VMPI_OK) {
        snprintf(err, errsize, "agent '%s': %s failed (returned %d)", name, on_load ? "VMPI_OnLoad" : "JVM_OnLoad",
                 (int)rc);
        vmpi_agent_release_last();
        if (library) close_library(library);
        return false;
    }
    return true;
}
