/*
 * readfile.h -- reading a whole file into memory, for every part of gclab
 * that takes a file (the .bc loader, the assembler, the compiler, vmrun).
 */
#ifndef GCLAB_READFILE_H
#define GCLAB_READFILE_H

#include <stddef.h>
#include <stdint.h>

/* Returns the file's bytes (malloc'd, with one extra NUL after them so text
 * can be scanned safely) and their count in *len; on failure NULL with
 * err = "PATH: cannot read: reason". */
uint8_t *read_whole_file(const char *path, size_t *len, char *err, size_t errsize);

#endif
