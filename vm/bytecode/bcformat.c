/*
 * bcformat.c -- the .bc file format, written down once.  bcwrite.c writes
 * exactly this, bcread.c reads exactly this, and a reader in another language
 * can be written from this comment alone.
 *
 * A .bc file holds one whole Program (vm/program.h): its pools, classes,
 * fields, statics, methods, natives and entry point.  Invariant: a file is
 * the concatenation below with no padding, no optional part but the natives
 * list (there exactly when the minor version is 1, and never empty) and
 * nothing after the entry method, so every image bc_parse accepts
 * serializes back to the same bytes.
 *
 * Encoding of the items
 *
 *   u8 u16 u32   unsigned integers, little-endian
 *   i64          two's complement, little-endian
 *   f64          an IEEE 754 binary64 bit pattern, little-endian (the exact
 *                bits, NaN payloads included)
 *   str          u32 length N, then N bytes.  No terminator, and no NUL byte
 *                among the N bytes.
 *   list<X>      u32 count N, then N items X
 *   type         u32 index into the types section
 *
 * The file, in order
 *
 *   offset 0  magic      4 bytes "GCLB"
 *   offset 4  major      u16 = 1   a reader rejects any other major version
 *   offset 6  minor      u16 = 0 or 1   a reader rejects a minor above its
 *                                  own; 1 exactly when natives follow
 *   offset 8  types      list<str>      type descriptors (program.h): one of
 *                                        Z B C S I J F D V, "LName;" or "[X"
 *             ints       list<i64>      the int constants, LDI #n
 *             doubles    list<f64>      the double constants, LDD #n
 *             strings    list<str>      the string constants, LDS #n (may be
 *                                        empty; any bytes but NUL)
 *             classes    list<class>
 *             fields     list<field>    instance fields: GETFP/PUTFP/GETFR/PUTFR #n
 *             statics    list<field>    static fields: GETSP/PUTSP/GETSR/PUTSR #n
 *             methods    list<method>   CALL #n
 *             natives    list<native>   CALLN #n; only in a 1.1 file, and
 *                                        then not empty
 *             entry      u32            index of the entry method (main)
 *
 *   class     str   name
 *             str   source file name ("trees.gcl")
 *             list<u32>  its instance fields, indexes into fields
 *             list<u32>  its static fields, indexes into statics
 *             list<u32>  its methods, indexes into methods
 *   field     str   name
 *             type  its type
 *             u32   owner class, index into classes
 *   method    str   name
 *             u32   owner class, index into classes
 *             u8    flags: bit 0 set for a static method; other bits are 0
 *             list<type>  parameter types, not counting the receiver
 *             type  return type (may be V)
 *             list<type>  primitive local types, parameters first (program.h)
 *             list<type>  reference local types, receiver and parameters first
 *             u32   maximum primitive operand stack depth
 *             u32   maximum reference operand stack depth
 *             u32   code length N, then N bytes of code (vm/opcodes.h)
 *             list<line>  line table, sorted by pc (ties allowed)
 *   line      u32   pc, the offset of an instruction in the code, below N
 *             u32   1-based source line
 *   native    str   name: the C symbol, and the name calls use
 *             str   library, as given to dlopen ("libm.so.6")
 *             u8    flags: bit 0 set if it takes the env (its first C
 *                   argument, vm/native/gclab_native.h); other bits are 0
 *             list<type>  parameter types, C types as descriptors (program.h,
 *                   ProgNative)
 *             type  return type (may be V)
 *
 * What the reader checks (bcread.c); everything else is the verifier's
 *
 *   The magic and version; that every count, length and item fits in the
 *   bytes left (a count is compared with the least size its items can have,
 *   the minimum sizes below, before anything is allocated); no NUL in a str;
 *   every type is a well-formed descriptor; every index that names a type,
 *   class, field, static or method is in range; method flags; the line
 *   table's order and range; that a method has at least as many locals of
 *   each kind as it has parameters of that kind (the receiver counts as a
 *   reference parameter); and that the file ends right after the entry.
 *   An error names the byte offset of the item that is wrong: the length
 *   field of a string that runs past the end, the count of a list too long
 *   for the file, the index that is out of range.
 *
 * Minimum encoded sizes, in bytes, used for those count checks:
 *   str 4, i64 and f64 8, u32 and type 4, line 8,
 *   class 20 (two empty strs, three empty lists),
 *   field 12 (empty str, type, owner),
 *   method 41 (empty name 4, owner 4, flags 1, then eight u32: parameter
 *   count, return type, the two local counts, the two depths, code length,
 *   line count),
 *   native 17 (two empty strs, flags, parameter count, return type).
 */
#include "bcformat.h"

#include <string.h>

#include "bytecode.h"

const uint8_t bc_magic[4] = {'G', 'C', 'L', 'B'};

bool bc_has_magic(const uint8_t *data, size_t len) {
    return len >= sizeof bc_magic && memcmp(data, bc_magic, sizeof bc_magic) == 0;
}
