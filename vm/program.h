/*
 * program.h -- a program in memory: what vmc produces, what the .bc loader
 * produces, and what the verifier, the interpreter, the .bc writer and vmdis
 * read.  Nothing here is collector-specific or changes while a program runs,
 * except the runtime fields a VM fills in when it links the program (marked
 * "runtime").
 *
 * Types are descriptor strings in one table, `types`, and everything that
 * names a type holds an index into it.  Descriptors follow the JVM's letters
 * so heap dumps and HPROF signatures can use them unchanged:
 *
 *   V void      Z bool    B byte   C char   S short   I int32
 *   J int (the language's 64-bit int)       F float   D double
 *   LName;  an instance of class Name   LString; a string
 *   [X      an array of X
 *
 * Only J, D and Z may be the type of a local, parameter, field or result;
 * B C S I F are array element types only.
 *
 * Locals: a method has num_prim_locals primitive slots and num_ref_locals
 * reference slots.  Parameters come first in each: the receiver (instance
 * methods) is reference local 0, then each parameter takes the next free slot
 * of its kind, in declaration order.  The remaining locals start as 0 / null.
 */
#ifndef GCLAB_PROGRAM_H
#define GCLAB_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "object.h"

#define PROG_NONE UINT32_MAX

typedef struct LineEntry {
    uint32_t pc;    /* first instruction of the line */
    uint32_t line;  /* 1-based source line */
} LineEntry;

typedef struct ProgField {
    char *name;
    uint32_t type;         /* index into Program.types */
    uint32_t owner_class;  /* index into Program.classes */
    /* Derived by program_layout(): the slot among the owner's reference or
     * primitive fields (instances) or in the VM's reference or primitive
     * statics (static fields). */
    bool is_ref;
    uint32_t slot;
} ProgField;

typedef struct ProgMethod {
    char *name;
    uint32_t owner_class;
    bool is_static;
    uint32_t num_params;     /* excluding the receiver */
    uint32_t *param_types;   /* num_params type indexes */
    uint32_t return_type;    /* type index (may be "V") */
    uint32_t num_prim_locals;
    uint32_t *prim_local_types; /* each J, D or Z */
    uint32_t num_ref_locals;
    uint32_t *ref_local_types;  /* each an L or [ descriptor */
    uint32_t max_pstack;     /* operand stack depths, checked by the verifier */
    uint32_t max_rstack;
    uint8_t *code;
    uint32_t code_len;
    LineEntry *lines;        /* sorted by pc */
    uint32_t num_lines;
    uint32_t code_offset;    /* file offset of code[0] in its .bc, 0 if compiled in memory */
    /* Derived by program_layout(). */
    uint32_t num_prim_args;  /* primitive parameters */
    uint32_t num_ref_args;   /* reference parameters, receiver included */
    char *signature;         /* "(JLNode;)V", receiver not included */
} ProgMethod;

typedef struct ProgClass {
    char *name;
    char *source_file;       /* "trees.gcl" */
    uint32_t num_fields;     /* instance fields */
    uint32_t *fields;        /* indexes into Program.fields */
    uint32_t num_statics;
    uint32_t *statics;       /* indexes into Program.statics */
    uint32_t num_methods;
    uint32_t *methods;       /* indexes into Program.methods */
    /* Derived by program_layout(). */
    uint32_t num_ref_fields, num_prim_fields;
} ProgClass;

typedef struct ProgString {
    char *chars;  /* NUL-terminated; may contain no NUL itself */
    uint32_t len;
} ProgString;

typedef struct Program {
    char **types;          uint32_t num_types;
    int64_t *ints;         uint32_t num_ints;
    double *doubles;       uint32_t num_doubles;
    ProgString *strings;   uint32_t num_strings;
    ProgClass *classes;    uint32_t num_classes;
    ProgField *fields;     uint32_t num_fields;   /* instance fields */
    ProgField *statics;    uint32_t num_statics;  /* static fields */
    ProgMethod *methods;   uint32_t num_methods;
    uint32_t entry_method; /* `main`: static, () or (string[]), returns V or J */
    /* Derived by program_layout(). */
    uint32_t num_ref_statics, num_prim_statics;
} Program;

/* Fills every "derived" field above from the declared ones.  Call once after
 * building or loading a program, before verifying it.  Returns false (and
 * sets *why) if a type index is out of range or a descriptor is malformed. */
bool program_layout(Program *p, const char **why);

/* Frees a program and everything it owns. NULL is allowed. */
void program_free(Program *p);

/* True if desc is exactly one well-formed descriptor (V only unbracketed,
 * "LName;" with a non-empty name), with nothing after it. */
bool type_descriptor_valid(const char *desc);

/* Type helpers on descriptors. */
static inline bool type_is_ref(const char *desc) { return desc[0] == 'L' || desc[0] == '['; }
static inline bool type_is_string(const char *desc) {
    return strcmp(desc, "LString;") == 0;
}

/* The source line of instruction `pc` in `m`, or 0 if unknown. */
uint32_t program_line_of(const ProgMethod *m, uint32_t pc);

#endif
