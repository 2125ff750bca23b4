/*
 * bci.c -- the bytecode instrumentation library for agents
 * (vmpi/vmpi_bci.h, docs/bci.md): a program image in, the same program
 * calling the agent's recorders out.
 *
 * It reads and writes images with the VM's own .bc reader and writer
 * (vm/bytecode), walks code with the opcode table (vm/opcodes.h) and
 * checks its work with the verifier (vm/verify), so the format is written
 * down once, in vm/, and the library cannot disagree with the loader
 * (docs/architecture.md, "The instrumentation library").
 *
 * The recorders become natives of the program (program.h, ProgNative):
 * `native env` functions of the agent's library, the allocation recorder's
 * parameter of type Object, any reference.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/bytecode/bytecode.h"
#include "vm/limits.h"
#include "vm/native/gclab_native.h"
#include "vm/verify/verify.h"
#include "vmpi/vmpi_bci.h"
#include "rewrite.h"

struct VmpiBciProgram {
    Program *program;
    bool instrumented;
};

VmpiBciProgram *vmpi_bci_parse(const unsigned char *image, size_t len, char *err, size_t errsize) {
    VmpiBciProgram *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errsize, "out of memory");
        return NULL;
    }
    p->program = bc_load_image(image, len, "program", err, errsize);
    if (!p->program) {
        free(p);
        return NULL;
    }
    return p;
}

/* The index of type `desc`, added to the table if it is not there;
 * PROG_NONE if the table is full or memory runs out. */
static uint32_t type_index(Program *p, const char *desc) {
    for (uint32_t t = 0; t < p->num_types; t++)
        if (strcmp(p->types[t], desc) == 0) return t;
    if (p->num_types >= PROG_MAX_TABLE_ENTRIES) return PROG_NONE;
    char **types = realloc(p->types, ((size_t)p->num_types + 1) * sizeof *types);
    if (!types) return PROG_NONE;
    p->types = types;
    types[p->num_types] = strdup(desc);
    return types[p->num_types] ? p->num_types++ : PROG_NONE;
}

/* Declares recorder `symbol` of `library` as the program's next native,
 * void (env, param), and sets *index to its number; PROG_NONE for a NULL
 * symbol, which declares nothing. */
static bool declare_recorder(Program *p, const char *library, const char *symbol, const char *param,
                             uint32_t *index, char *err, size_t errsize) {
    *index = PROG_NONE;
    if (!symbol) return true;
    /* CALLN's operand is a u16. */
    if (p->num_natives > UINT16_MAX) {
        snprintf(err, errsize, "the program has %u natives: no room for the recorder %s", p->num_natives, symbol);
        return false;
    }
    uint32_t param_type = type_index(p, param), void_type = type_index(p, "V");
    uint32_t *params = malloc(sizeof *params);
    ProgNative *natives = realloc(p->natives, ((size_t)p->num_natives + 1) * sizeof *natives);
    char *name = strdup(symbol), *lib = strdup(library);
    if (natives) p->natives = natives;
    if (param_type == PROG_NONE || void_type == PROG_NONE || !params || !natives || !name || !lib) {
        free(params);
        free(name);
        free(lib);
        snprintf(err, errsize, "out of memory, or the program's type table is full");
        return false;
    }
    params[0] = param_type;
    *index = p->num_natives;
    p->natives[p->num_natives++] = (ProgNative){
        .name = name, .library = lib, .takes_env = true, .num_params = 1, .param_types = params,
        .return_type = void_type};
    return true;
}

/* The program as it was before a failed instrumentation, from its own
 * image: every change made so far is dropped at once. */
static bool restore(VmpiBciProgram *p, const uint8_t *image, size_t len) {
    char err[256];
    Program *again = bc_parse(image, len, "program", err, sizeof err);
    if (!again) return false;
    program_free(p->program);
    p->program = again;
    return true;
}

static bool rewrite_all(Program *prog, const VmpiBciRecorders *r, char *err, size_t errsize) {
    RewriteCalls calls;
    if (!declare_recorder(prog, r->library, r->method_entry, "J", &calls.entry, err, errsize) ||
        !declare_recorder(prog, r->library, r->method_exit, "J", &calls.exit, err, errsize) ||
        !declare_recorder(prog, r->library, r->allocation, "LObject;", &calls.allocation, err, errsize))
        return false;
    for (uint32_t mi = 0; mi < prog->num_methods; mi++)
        if (!bci_rewrite_method(&prog->methods[mi], mi, &calls, err, errsize)) return false;
    const char *why;
    if (!program_layout(prog, &why)) {
        snprintf(err, errsize, "%s", why);
        return false;
    }
    VerifyError verr;
    if (!verify_program(prog, &verr)) {
        char reason[512];
        verify_describe(prog, &verr, reason, sizeof reason);
        snprintf(err, errsize, "the instrumented program does not verify: %s", reason);
        return false;
    }
    return true;
}

bool vmpi_bci_instrument(VmpiBciProgram *p, const VmpiBciRecorders *recorders, char *err, size_t errsize) {
    if (p->instrumented) {
        snprintf(err, errsize, "the program is instrumented already");
        return false;
    }
    if (!recorders->method_entry && !recorders->method_exit && !recorders->allocation) return true;
    if (!recorders->library || !recorders->library[0]) {
        snprintf(err, errsize, "the recorders need a library");
        return false;
    }
    size_t len;
    uint8_t *before = bc_serialize(p->program, &len);
    if (!before) {
        snprintf(err, errsize, "out of memory");
        return false;
    }
    bool ok = rewrite_all(p->program, recorders, err, errsize);
    if (!ok && !restore(p, before, len)) snprintf(err, errsize, "out of memory");
    free(before);
    p->instrumented = ok;
    return ok;
}

unsigned char *vmpi_bci_serialize(const VmpiBciProgram *p, VMPI_Allocator alloc, size_t *len) {
    size_t size;
    uint8_t *image = bc_serialize(p->program, &size);
    if (!image) return NULL;
    unsigned char *copy = size <= UINT_MAX ? alloc((unsigned int)size) : NULL;
    if (copy) {
        memcpy(copy, image, size);
        *len = size;
    }
    free(image);
    return copy;
}

uint32_t vmpi_bci_method_count(const VmpiBciProgram *p) { return p->program->num_methods; }

const char *vmpi_bci_method_name(const VmpiBciProgram *p, uint32_t method) {
    return method < p->program->num_methods ? p->program->methods[method].name : NULL;
}

const char *vmpi_bci_method_class(const VmpiBciProgram *p, uint32_t method) {
    const Program *prog = p->program;
    return method < prog->num_methods ? prog->classes[prog->methods[method].owner_class].name : NULL;
}

void vmpi_bci_free(VmpiBciProgram *p) {
    if (!p) return;
    program_free(p->program);
    free(p);
}

VMPI_ObjectID vmpi_bci_object_id(VmpiBciEnv *env, VmpiBciRef obj) {
    GclabEnv *gclab = (GclabEnv *)env;
    return (VMPI_ObjectID)gclab->fn->object_id(gclab, (GclabRef)obj);
}
