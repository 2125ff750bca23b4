/*
 * compiler.h -- the gclab language compiler (docs/language.md).
 */
#ifndef GCLAB_COMPILER_H
#define GCLAB_COMPILER_H

#include <stddef.h>

#include "vm/program.h"

/* Compiles source text; `path` names it in messages and its base name (without
 * extension) names the implicit top-level class.  Returns a laid-out program,
 * or NULL with err = "path:line:col: message" for the first error. */
Program *compile_source(const char *path, const char *text, size_t len, char *err, size_t errsize);

/* Reads and compiles a file; if it cannot be read, err = "path: cannot read:
 * reason". */
Program *compile_file(const char *path, char *err, size_t errsize);

#endif
