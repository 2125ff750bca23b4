/*
 * check.h -- names, types and the rules of docs/language.md, checked over a parsed
 * module.  After check_module() returns, every expression has a type, every
 * name is resolved, every local has a slot, and every class, field and method
 * has its index in the Program that codegen will build (ast.h).  The first
 * violation is reported through session_error().
 */
#ifndef GCLAB_COMPILER_CHECK_H
#define GCLAB_COMPILER_CHECK_H

#include "ast.h"

void check_module(Session *s, Module *m);

#endif
