/*
 * hprof_folded.h -- hprof's tables as folded stacks, the input of Brendan
 * Gregg's flamegraph.pl, speedscope and the other flame graph tools: one
 * line per stack, its frames from the outermost in, separated by ';', then
 * a space and its value:
 *
 *     BinaryTrees.main;Tree.make;Tree.make;Tree 2048
 *
 * A frame is "Class.method", without its line, so that a method is one
 * box however many lines it calls or allocates from; an allocation site's
 * class is the last frame ("Tree", "int[]"), as allocation flame graphs
 * show it; a trace without frames is "<empty>", as its TRACE says.  Stacks
 * that are the same once lines are left out are one line with the sum of
 * their values; stacks whose value is 0 are left out.  Lines are sorted, so
 * the file is the same from run to run.
 */
#ifndef GCLAB_HPROF_FOLDED_H
#define GCLAB_HPROF_FOLDED_H

#include <stdbool.h>
#include <stddef.h>

#include "hprof_stacks.h"

/* The stacks' values of kind `type_index` (an HprofStacks.types slot) as
 * folded stacks in *bytes (malloc'd) and *size; false if memory ran out. */
bool hprof_folded_render(const HprofStacks *stacks, size_t type_index, char **bytes, size_t *size);

#endif
