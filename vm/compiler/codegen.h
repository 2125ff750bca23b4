/*
 * codegen.h -- a checked module (check.h) to a Program (program.h).
 */
#ifndef GCLAB_COMPILER_CODEGEN_H
#define GCLAB_COMPILER_CODEGEN_H

#include "ast.h"

/* Builds the program, not yet laid out.  The session owns it until the
 * compilation succeeds (session.h). */
Program *codegen_module(Session *s, Module *m);

#endif
