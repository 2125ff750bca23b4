/*
 * tptp_xml.h -- the tptp agent's XML: one empty element per event, written
 * into the fixed buffer of trace_output.h, so that it may run in
 * thread-suspended mode (no malloc, no stdio; JVMPI 1.2 section 1.5).
 *
 *     xml_begin(out, "objAlloc");         <objAlloc
 *     xml_uint(out, "objId", 7);           objId="7"
 *     xml_text(out, "name", "a<b");        name="a&lt;b"
 *     xml_end(out);                       />
 *
 * Attribute text is escaped by hand: the five markup characters become
 * references, tab, newline and carriage return become character references
 * (kept through attribute-value normalisation), and every byte sequence
 * that is not well-formed UTF-8 or not an XML 1.0 character (the other
 * control characters, surrogates, U+FFFE, U+FFFF) becomes U+FFFD, so the
 * document is well-formed whatever a program names its threads.
 */
#ifndef GCLAB_TPTP_XML_H
#define GCLAB_TPTP_XML_H

#include <stdint.h>

#include "common/trace_output.h"

/* "<NAME", after a newline-less start: the caller ends each element. */
void xml_begin(TraceOutput *out, const char *element);
/* ` NAME="VALUE"` */
void xml_uint(TraceOutput *out, const char *name, uint64_t value);
void xml_int(TraceOutput *out, const char *name, int64_t value);
/* Nothing if `text` is NULL: a missing attribute, not an empty one. */
void xml_text(TraceOutput *out, const char *name, const char *text);
/* Seconds, with nine decimals, from nanoseconds. */
void xml_seconds(TraceOutput *out, const char *name, uint64_t ns);
/* "/>" and a newline. */
void xml_end(TraceOutput *out);

/* `text` escaped as xml_text writes it, without quotes (exposed for the
 * unit test). */
void xml_escaped(TraceOutput *out, const char *text);

#endif
