/*
 * tptp_xml.c -- the pieces of the tptp agent's XML elements (tptp_xml.h).
 */
#include "tptp_xml.h"

#include <stdbool.h>
#include <stddef.h>

void xml_begin(TraceOutput *out, const char *element) {
    trace_output_literal(out, "<");
    trace_output_text(out, element);
}

static void attribute_name(TraceOutput *out, const char *name) {
    trace_output_literal(out, " ");
    trace_output_text(out, name);
    trace_output_literal(out, "=\"");
}

void xml_uint(TraceOutput *out, const char *name, uint64_t value) {
    attribute_name(out, name);
    trace_output_uint(out, value);
    trace_output_literal(out, "\"");
}

void xml_int(TraceOutput *out, const char *name, int64_t value) {
    attribute_name(out, name);
    trace_output_int(out, value);
    trace_output_literal(out, "\"");
}

void xml_seconds(TraceOutput *out, const char *name, uint64_t ns) {
    attribute_name(out, name);
    trace_output_uint(out, ns / 1000000000u);
    char fraction[10] = ".";
    uint64_t rest = ns % 1000000000u;
    for (int i = 9; i >= 1; i--, rest /= 10) fraction[i] = (char)('0' + rest % 10);
    trace_output_bytes(out, fraction, sizeof fraction);
    trace_output_literal(out, "\"");
}

void xml_end(TraceOutput *out) { trace_output_literal(out, "/>\n"); }

/* The length of the well-formed UTF-8 sequence of an XML character at `s`,
 * or 0 if there is none there. */
static size_t xml_char_length(const unsigned char *s) {
    uint32_t c;
    size_t n;
    if (s[0] < 0x80) return 1; /* the caller handled the control characters */
    if ((s[0] & 0xe0) == 0xc0) c = s[0] & 0x1fu, n = 2;
    else if ((s[0] & 0xf0) == 0xe0) c = s[0] & 0x0fu, n = 3;
    else if ((s[0] & 0xf8) == 0xf0) c = s[0] & 0x07u, n = 4;
    else return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0; /* also stops at the NUL */
        c = c << 6 | (s[i] & 0x3fu);
    }
    static const uint32_t shortest[5] = {0, 0, 0x80, 0x800, 0x10000};
    bool character = c >= shortest[n] && c <= 0x10ffff && (c < 0xd800 || c > 0xdfff) && c != 0xfffe && c != 0xffff;
    return character ? n : 0;
}

void xml_escaped(TraceOutput *out, const char *text) {
    const unsigned char *s = (const unsigned char *)text;
    while (*s) {
        switch (*s) {
        case '<': trace_output_literal(out, "&lt;"); s++; continue;
        case '>': trace_output_literal(out, "&gt;"); s++; continue;
        case '&': trace_output_literal(out, "&amp;"); s++; continue;
        case '"': trace_output_literal(out, "&quot;"); s++; continue;
        case '\'': trace_output_literal(out, "&apos;"); s++; continue;
        case '\t': trace_output_literal(out, "&#9;"); s++; continue;
        case '\n': trace_output_literal(out, "&#10;"); s++; continue;
        case '\r': trace_output_literal(out, "&#13;"); s++; continue;
        default: break;
        }
        size_t n = *s < 0x20 ? 0 : xml_char_length(s);
        if (n) {
            trace_output_bytes(out, (const char *)s, n);
            s += n;
        } else {
            trace_output_literal(out, "\xef\xbf\xbd"); /* U+FFFD for the one bad byte */
            s++;
        }
    }
}

void xml_text(TraceOutput *out, const char *name, const char *text) {
    if (!text) return;
    attribute_name(out, name);
    xml_escaped(out, text);
    trace_output_literal(out, "\"");
}
