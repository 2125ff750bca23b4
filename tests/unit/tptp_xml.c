/*
 * tptp_xml.c -- the tptp agent's XML pieces (vmpi/agents/tptp/tptp_xml.h),
 * read back from the output's buffer before anything is flushed: markup
 * characters and whitespace as references, well-formed UTF-8 kept, and
 * every byte that would make the document ill-formed (other control
 * characters, stray continuation bytes, overlong forms, surrogates,
 * U+FFFE, code points past U+10FFFF, a sequence cut by the end) as U+FFFD;
 * numbers, times and whole elements.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "vmpi/agents/tptp/tptp_xml.h"

static TraceOutput out;

static void reset(void) {
    memset(&out, 0, sizeof out);
    out.fd = -1;
}

static void expect_written(const char *expected) {
    cr_assert_eq(out.used, strlen(expected), "wrote %zu bytes '%.*s', expected '%s'", out.used, (int)out.used,
                 out.buffer, expected);
    cr_assert(memcmp(out.buffer, expected, out.used) == 0, "wrote '%.*s', expected '%s'", (int)out.used,
              out.buffer, expected);
}

static void expect_escaped(const char *text, const char *expected) {
    reset();
    xml_escaped(&out, text);
    expect_written(expected);
}

#define FFFD "\xef\xbf\xbd"

Test(tptp_xml, markup_and_whitespace_become_references) {
    expect_escaped("<a href=\"x\">&'</a>", "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
    expect_escaped("a\tb\nc\rd", "a&#9;b&#10;c&#13;d");
    expect_escaped("plain text 123", "plain text 123");
    expect_escaped("", "");
}

Test(tptp_xml, well_formed_utf8_is_kept) {
    expect_escaped("\xc3\xa9", "\xc3\xa9");                 /* U+00E9 */
    expect_escaped("\xe2\x82\xac", "\xe2\x82\xac");         /* U+20AC */
    expect_escaped("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"); /* U+1F600 */
    expect_escaped("\xef\xbf\xbd", "\xef\xbf\xbd");         /* U+FFFD itself */
}

Test(tptp_xml, bad_bytes_become_replacement_characters) {
    expect_escaped("\x01x\x1f", FFFD "x" FFFD);              /* controls XML 1.0 forbids */
    expect_escaped("\x80", FFFD);                            /* a stray continuation byte */
    expect_escaped("\xff", FFFD);
    expect_escaped("\xc0\xaf", FFFD FFFD);                   /* overlong '/' */
    expect_escaped("\xed\xa0\x80", FFFD FFFD FFFD);          /* a surrogate, U+D800 */
    expect_escaped("\xef\xbf\xbe", FFFD FFFD FFFD);          /* U+FFFE */
    expect_escaped("\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD); /* past U+10FFFF */
    expect_escaped("ab\xe2\x82", "ab" FFFD FFFD);            /* cut short by the end */
}

Test(tptp_xml, elements_and_attributes) {
    reset();
    xml_begin(&out, "monWait");
    xml_seconds(&out, "time", 3000000042ull);
    xml_uint(&out, "threadIdRef", 2);
    xml_int(&out, "timeout", -1);
    xml_text(&out, "name", "a<b");
    xml_text(&out, "absent", NULL);
    xml_end(&out);
    expect_written("<monWait time=\"3.000000042\" threadIdRef=\"2\" timeout=\"-1\" name=\"a&lt;b\"/>\n");
}
