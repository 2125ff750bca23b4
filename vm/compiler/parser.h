/*
 * parser.h -- tokens to syntax tree (ast.h), by recursive descent.
 */
#ifndef GCLAB_COMPILER_PARSER_H
#define GCLAB_COMPILER_PARSER_H

#include "ast.h"

/* Parses a whole file.  Top-level functions and globals go into the module
 * class, named module_name; source_file is recorded for the line tables. */
Module *parse_module(Session *s, const Token *tokens, uint32_t num_tokens,
                     const char *module_name, const char *source_file);

#endif
