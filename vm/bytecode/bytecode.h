/*
 * bytecode.h -- reading and writing .bc files.  The format is documented at
 * the top of bcformat.c.
 */
#ifndef GCLAB_BYTECODE_H
#define GCLAB_BYTECODE_H

#include <stddef.h>
#include <stdint.h>

#include "vm/program.h"

/* Serializes p (already laid out) into a new malloc'd buffer. */
uint8_t *bc_serialize(const Program *p, size_t *len);

/* Writes p to path atomically (temporary file, then rename), so a failure
 * never leaves a half-written file.  On failure fills err and returns false. */
bool bc_write_file(const Program *p, const char *path, char *err, size_t errsize);

/* Parses a .bc image.  Every count, index and length is checked against the
 * image; on failure returns NULL with err = "NAME: offset N: reason". */
Program *bc_parse(const uint8_t *data, size_t len, const char *name, char *err, size_t errsize);

/* True if data starts with the .bc magic, i.e. is meant to be a .bc image
 * (so vmrun can tell one from source text without trusting the name). */
bool bc_has_magic(const uint8_t *data, size_t len);

/* Parses, lays out and verifies a .bc image already in memory, named `name`
 * in messages.  Errors, including the verifier's, are "NAME: offset N:
 * reason". */
Program *bc_load_image(const uint8_t *data, size_t len, const char *name, char *err, size_t errsize);

/* Reads a .bc file and loads it as bc_load_image does: the loader vmdis
 * uses.  A file that cannot be read gives "PATH: cannot read: reason". */
Program *bc_load_file(const char *path, char *err, size_t errsize);

#endif
