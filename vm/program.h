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

#include "gc/object.h"

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

/* A native function (docs/language.md "Native functions"): a C function
 * in a shared library, called by CALLN #n.  Its types are C types spelled
 * as descriptors: Z B C S I J F D are bool and the 8-, 16- (unsigned C),
 * 16-, 32- and 64-bit integers, float and double; LString; is a const
 * char * to a NUL-terminated copy; [X with a primitive X is a pointer to
 * the array's elements; the result may also be V, and not an array.  On
 * the stacks B C S I J are ints, F D doubles, Z a bool
 * (prog_native_value_letter); a string or array takes a reference slot.
 * A native that takes the env (vm/native/gclab_native.h) gets it as its
 * first C argument, before its declared parameters, and may also take and
 * return objects ("LName;" of a class) as the API's handles. */
typedef struct ProgNative {
    char *name;            /* the symbol, and the name the program calls */
    char *library;         /* as given to dlopen: "libm.so.6" */
    bool takes_env;        /* its first C argument is a GclabEnv * */
    uint32_t num_params;
    uint32_t *param_types; /* type indexes */
    uint32_t return_type;  /* type index (may be "V") */
    /* Derived by program_layout(). */
    uint32_t num_prim_args, num_ref_args;
} ProgNative;

/* The stack letter (J, D or Z) of a primitive C type letter of a native's
 * signature: an int for every integer width, a double for float. */
static inline char prog_native_value_letter(char c_letter) {
    return c_letter == 'Z' ? 'Z' : c_letter == 'F' || c_letter == 'D' ? 'D' : 'J';
}

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
    ProgNative *natives;   uint32_t num_natives;  /* CALLN #n */
    /* Derived by program_layout(). */
    uint32_t num_ref_statics, num_prim_statics;
    /* How program_free frees `methods`: free, unless program_move_methods
     * moved them. */
    void (*free_methods)(void *methods);
} Program;

/* Fills every "derived" field above from the declared ones.  Call once after
 * building or loading a program, before verifying it.  Returns false (and
 * sets *why) if a type index is out of range or a descriptor is malformed. */
bool program_layout(Program *p, const char **why);

/* Frees a program and everything it owns. NULL is allowed. */
void program_free(Program *p);

/* Moves the method table into memory from `alloc` (calloc's signature),
 * which `release` will free: how the VM puts the ProgMethod records, whose
 * addresses are VMPI method IDs, where they repeat from run to run
 * (--seed).  Before anything holds a pointer into the table; false, with
 * the program unchanged, if `alloc` fails. */
bool program_move_methods(Program *p, void *(*alloc)(size_t count, size_t size), void (*release)(void *));

/* True if desc is exactly one well-formed descriptor (V only unbracketed,
 * "LName;" with a non-empty name), with nothing after it. */
bool type_descriptor_valid(const char *desc);
/* What is wrong with desc, or NULL if it is well formed. */
const char *type_descriptor_problem(const char *desc);

/* What linking will make of a program's array types, summed type by type
 * (vm/limits.h): the array levels, and the descriptor bytes at each level. */
typedef struct ArrayLevels {
    uint64_t levels, bytes;
} ArrayLevels;

/* Adds the array levels of desc to *sum.  False, with a message naming the
 * limit in `why`, if desc nests too deep or the sums go over their limits. */
bool array_levels_add(ArrayLevels *sum, const char *desc, char *why, size_t why_size);

/* Type helpers on descriptors. */
static inline bool type_is_ref(const char *desc) { return desc[0] == 'L' || desc[0] == '['; }
static inline bool type_is_string(const char *desc) {
    return strcmp(desc, "LString;") == 0;
}
/* "LThread;" is the type of thread handles (docs/language.md "Threads"):
 * like String, a class the VM makes, never one a program declares. */
static inline bool type_is_thread(const char *desc) {
    return strcmp(desc, "LThread;") == 0;
}

/* "LObject;" is "any reference" (docs/language.md "Native functions"): the
 * type of a `native env` function's parameter that takes an object of any
 * class, a string, an array or a thread, as the recorders an agent's
 * bytecode instrumentation calls do (vmpi/vmpi_bci.h).  Object, like String
 * and Thread, is a name no program may give a class, and no value, field,
 * local or array element has the type. */
static inline bool type_is_any_ref(const char *desc) {
    return strcmp(desc, "LObject;") == 0;
}

/* One primitive descriptor letter (Z B C S I J F D): its array element kind
 * and size, and the language's name for it (docs/language.md "Types"). */
typedef struct PrimType {
    char letter;
    ElemKind elem_kind;
    uint32_t elem_size;     /* bytes per array element */
    const char *name;       /* "int" for J, "int32" for I, ... */
} PrimType;

/* The PrimType of `letter`, or NULL if it is not one of Z B C S I J F D. */
const PrimType *prim_type_of(char letter);

/* A descriptor as a programmer writes the type: the innermost element's
 * name, then "[]" per dimension ("[[J" -> "int[][]", "[LTree;" -> "Tree[]",
 * "V" -> "void").  "LString;" is named `string_word` (the verifier says
 * "string", as the language does; runtime class names say "String").
 * Writes at most `size` bytes to buf, truncating, and returns buf. */
const char *type_language_name(const char *desc, const char *string_word, char *buf, size_t size);

/* ---- finding things by name ---------------------------------------------------
 * A table of names sorted once, then searched in O(log n): start-up must not
 * be quadratic in the number of classes. */

/* A name and the index of what it names (a class, a member, a type). */
typedef struct ProgNamed {
    const char *name;
    uint32_t index;
} ProgNamed;

/* Sorts entries by name (strcmp order), equal names by index. */
void program_sort_names(ProgNamed *entries, uint32_t count);

/* In entries sorted by program_sort_names: the lowest index among those
 * named exactly name[0 .. len) (name need not be NUL-terminated), or
 * PROG_NONE. */
uint32_t program_find_name(const ProgNamed *entries, uint32_t count, const char *name, size_t len);

/* The program's classes sorted by name (a class without a name counts as
 * ""), built once for all the lookups of a pass. */
typedef struct ProgClassIndex {
    ProgNamed *by_name;     /* num_classes entries */
    uint32_t count;
} ProgClassIndex;

/* Builds the index of p's classes; false if out of memory. */
bool program_class_index_init(ProgClassIndex *index, const Program *p);
void program_class_index_free(ProgClassIndex *index);

/* The lowest-numbered class named name[0 .. len), or PROG_NONE. */
static inline uint32_t program_find_class(const ProgClassIndex *index, const char *name, size_t len) {
    return program_find_name(index->by_name, index->count, name, len);
}

/* In `lines` (count entries sorted by pc): the last entry at or before
 * `pc` -- the line that instruction belongs to -- or NULL if there is none. */
const LineEntry *program_line_entry(const LineEntry *lines, uint32_t count, uint32_t pc);

/* The source line of instruction `pc` in `m`, or 0 if unknown. */
uint32_t program_line_of(const ProgMethod *m, uint32_t pc);

/* program_line_of for every offset of `m`'s code, as one malloc'd array of
 * code_len entries (at least one), for callers that ask for lines at every
 * allocation (call traces): a load instead of a binary search.  NULL if out
 * of memory. */
uint32_t *program_line_table(const ProgMethod *m);

#endif
