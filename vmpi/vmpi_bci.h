/*
 * vmpi_bci.h -- bytecode instrumentation for agents: rewrite the program
 * CLASS_LOAD_HOOK hands over so that it calls the agent's recorders at
 * every method entry, every method exit and after every allocating
 * instruction, as TPTP's Martini does with its BCI engine.  The library is
 * libvmpi_bci.so, installed in lib/ (docs/bci.md):
 *
 *   cc -shared -fPIC $(pkg-config --cflags vmpi) -o libmine.so mine.c \
 *      -L$(pkg-config --variable=libdir vmpi) -lvmpi_bci
 *
 * In CLASS_LOAD_HOOK, with the event's image:
 *
 *   VmpiBciProgram *p = vmpi_bci_parse(data, len, err, sizeof err);
 *   VmpiBciRecorders r = {.library = my_path, .allocation = "my_alloc"};
 *   if (p && vmpi_bci_instrument(p, &r, err, sizeof err))
 *       new_data = vmpi_bci_serialize(p, malloc_f, &new_len);
 *   vmpi_bci_free(p);
 *
 * A recorder is a function the agent exports (VMPI_EXPORT): the rewritten
 * program declares it as a `native env` function of `library`
 * (docs/language.md "Native functions"), so the VM binds it when the
 * program loads and calls it on the program's thread:
 *
 *   void my_entry(VmpiBciEnv *env, int64_t method);   method entry
 *   void my_exit(VmpiBciEnv *env, int64_t method);    before each return
 *   void my_alloc(VmpiBciEnv *env, VmpiBciRef obj);   after each allocation
 *
 * `method` is the method's index in the program (vmpi_bci_method_name
 * names it).  `obj` is the new object, of any class, array, string or
 * thread; vmpi_bci_object_id gives its VMPI object ID, the ID its
 * OBJECT_ALLOC carried unless a collection has moved it since.
 *
 * What counts as an allocating instruction: NEW, NEWARR, START (the new
 * thread's object) and the string instructions that always make a new
 * string (SCAT, I2S, D2S, Z2S, SSUB, CHR).  Not seen: what the VM
 * allocates outside the program's instructions (the interned string
 * constants and main's thread before JVM_INIT_DONE, main's argument
 * array and its strings) and what natives make.
 */
#ifndef VMPI_BCI_H
#define VMPI_BCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmpi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's functions are VMPI_EXPORT: the only symbols it exports. */

/* A parsed, verified program, ready to be rewritten. */
typedef struct VmpiBciProgram VmpiBciProgram;

/* What a recorder is given: the VM's native env and an object reference
 * (vm/native/gclab_native.h's GclabEnv and GclabRef), good until the
 * recorder returns. */
typedef struct VmpiBciEnv VmpiBciEnv;
typedef struct VmpiBciObject_ *VmpiBciRef;

/* The recorders to call; a NULL symbol inserts nothing of that kind. */
typedef struct VmpiBciRecorders {
    const char *library;      /* as dlopen takes it: the agent's own path */
    const char *method_entry; /* void (VmpiBciEnv *, int64_t method) */
    const char *method_exit;  /* void (VmpiBciEnv *, int64_t method) */
    const char *allocation;   /* void (VmpiBciEnv *, VmpiBciRef object) */
} VmpiBciRecorders;

/* Parses and verifies a .bc image (CLASS_LOAD_HOOK's class_data).  NULL,
 * with "offset N: reason" in err, if it is not a program the VM would
 * load. */
VMPI_EXPORT VmpiBciProgram *vmpi_bci_parse(const unsigned char *image, size_t len, char *err, size_t errsize);

/* Inserts the calls: at each method's entry, before each return, after
 * each allocating instruction; moves jump offsets and the line table with
 * the code, raises the stack depths the calls need, declares the
 * recorders as natives, and verifies the result.  Once per program.  False,
 * with a message in err, if the program would grow past the format's
 * limits; the program is then unchanged. */
VMPI_EXPORT bool vmpi_bci_instrument(VmpiBciProgram *p, const VmpiBciRecorders *recorders, char *err, size_t errsize);

/* The program as a .bc image in memory from `alloc` (CLASS_LOAD_HOOK's
 * malloc_f), its length in *len; NULL if out of memory.  A
 * program not instrumented gives back the image it was parsed from, byte
 * for byte. */
VMPI_EXPORT unsigned char *vmpi_bci_serialize(const VmpiBciProgram *p, VMPI_Allocator alloc, size_t *len);

/* The program's methods, by the index the entry and exit recorders get:
 * how many, and each one's name and its class's name. */
VMPI_EXPORT uint32_t vmpi_bci_method_count(const VmpiBciProgram *p);
VMPI_EXPORT const char *vmpi_bci_method_name(const VmpiBciProgram *p, uint32_t method);
VMPI_EXPORT const char *vmpi_bci_method_class(const VmpiBciProgram *p, uint32_t method);

VMPI_EXPORT void vmpi_bci_free(VmpiBciProgram *p);

/* In a recorder: the VMPI object ID the object `obj` names now, NULL for
 * null. */
VMPI_EXPORT VMPI_ObjectID vmpi_bci_object_id(VmpiBciEnv *env, VmpiBciRef obj);

#ifdef __cplusplus
}
#endif

#endif
