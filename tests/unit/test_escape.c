// SPDX-License-Identifier: MIT
/*
 * Bytes a traced program chose (its comm, a kernel's symbol name, a string
 * argument) on their way out: JSON keeps valid UTF-8 and escapes the rest;
 * text, csv and html never let a control byte through raw (issue 13).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "sinks/sink.h"
#include "sinks/sinkio.h"
#include "util/strbuf.h"

static const char *json(const char *in)
{
	static char out[256];

	*ct_w_json_str(out, in) = 0;
	return out;
}

static const char *text(const char *in)
{
	static char out[256];

	*ct_w_text_str(out, in) = 0;
	return out;
}

static const char *csv(const char *in)
{
	static char out[256];

	*ct_w_csv_field(out, in) = 0;
	return out;
}

static const char *html(const char *in)
{
	static char out[512];
	FILE *f = fmemopen(out, sizeof(out), "w");

	ct_html_str(f, in);
	fclose(f);
	return out;
}

static void test_utf8_sequences(void **state)
{
	static const struct {
		const char *s;
		int n;
	} cases[] = {
		{ "\xc3\xa9", 2 },          /* é */
		{ "\xe2\x82\xac", 3 },      /* € */
		{ "\xf0\x9f\x98\x80", 4 },  /* 😀 */
		{ "\xf4\x8f\xbf\xbf", 4 },  /* U+10FFFF, the last */
		{ "\xc2\x9b", 2 },          /* C1 CSI: valid UTF-8 */
		{ "\x80", 0 },              /* a stray continuation byte */
		{ "\xc3", 0 },              /* cut short by the NUL */
		{ "\xc3(", 0 },
		{ "\xc0\xaf", 0 },          /* overlong '/' */
		{ "\xc1\xbf", 0 },
		{ "\xe0\x80\xaf", 0 },      /* overlong, 3 bytes */
		{ "\xed\xa0\x80", 0 },      /* a surrogate, U+D800 */
		{ "\xf0\x80\x80\xaf", 0 },  /* overlong, 4 bytes */
		{ "\xf4\x90\x80\x80", 0 },  /* past U+10FFFF */
		{ "\xf5\x80\x80\x80", 0 },
		{ "\xe2\x82", 0 },
		{ "\xff", 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(ct_utf8_seq((const unsigned char *)cases[i].s), cases[i].n);
}

/* Each string as JSON (valid UTF-8 kept; C0, DEL and C1 escaped; a byte
 * that is not UTF-8 as \u00XX of it) and as text (\xHH of each byte
 * neither printable ASCII nor valid UTF-8 other than C1). */
static const struct {
	const char *in, *json, *text;
} shown[] = {
	{ "plain name", "\"plain name\"", "plain name" },
	{ "caf\xc3\xa9", "\"caf\xc3\xa9\"", "caf\xc3\xa9" },
	{ "\xe2\x82\xac \xf0\x9f\x98\x80", "\"\xe2\x82\xac \xf0\x9f\x98\x80\"", "\xe2\x82\xac \xf0\x9f\x98\x80" },
	{ "\xc2\xa0nbsp", "\"\xc2\xa0nbsp\"", "\xc2\xa0nbsp" },
	{ "a\x1b[2Jb\x7f", "\"a\\u001b[2Jb\\u007f\"", "a\\x1b[2Jb\\x7f" },
	{ "q\"b\\\n", "\"q\\\"b\\\\\\n\"", "q\"b\\\\x0a" },
	{ "t\tr\r", "\"t\\tr\\r\"", "t\\x09r\\x0d" },
	{ "x\xc2\x9b" "1m", "\"x\\u009b1m\"", "x\\xc2\\x9b1m" },
	{ "\xc3(", "\"\\u00c3(\"", "\\xc3(" },
	{ "\xc0\xaf", "\"\\u00c0\\u00af\"", "\\xc0\\xaf" },
	{ "\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\"", "\\xed\\xa0\\x80" },
	{ "\xe9t\xe9", "\"\\u00e9t\\u00e9\"", "\\xe9t\\xe9" },
	{ "end\xf0\x9f\x98", "\"end\\u00f0\\u009f\\u0098\"", "end\\xf0\\x9f\\x98" },
};

static void test_json_and_text(void **state)
{
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		assert_string_equal(json(shown[i].in), shown[i].json);
		assert_string_equal(text(shown[i].in), shown[i].text);
		/* within the room callers reserve */
		assert_true(strlen(shown[i].json) <= 6 * strlen(shown[i].in) + 2);
		assert_true(strlen(shown[i].text) <= 4 * strlen(shown[i].in));
	}
}

static void test_text_esc_bounded(void **state)
{
	char buf[8];

	/* snprintf's contract; an escape or a character is never cut */
	assert_int_equal(ct_text_esc(buf, sizeof(buf), "ab\x1b" "cd"), 8);
	assert_string_equal(buf, "ab\\x1bc");
	assert_int_equal(ct_text_esc(buf, 5, "ab\x1b"), 6);
	assert_string_equal(buf, "ab");
	assert_int_equal(ct_text_esc(buf, 3, "a\xc3\xa9"), 3);
	assert_string_equal(buf, "a");
	assert_int_equal(ct_text_esc(buf, 4, "a\xc3\xa9"), 3);
	assert_string_equal(buf, "a\xc3\xa9");
	assert_int_equal(ct_text_esc(NULL, 0, "\x1b\x1b"), 8);
}

static void test_format_field_escapes_strings(void **state)
{
	static const struct ct_arg sarg = { .name = "label", .kind = CT_ARG_STRING };
	static const struct ct_arg parg = { .name = "func", .kind = CT_ARG_PTR };
	struct ct_field f = { .arg = &sarg, .str = "a\x1b]0;pwned\x07", .valid = true };
	struct ct_sb b = { 0 };
	char small[4] = "xxx";

	assert_true(ct_format_field_sb(&b, &f));
	assert_int_equal(b.len, strlen("\"a\\x1b]0;pwned\\x07\""));
	assert_memory_equal(b.p, "\"a\\x1b]0;pwned\\x07\"", b.len);
	assert_int_equal(ct_format_field(small, sizeof(small), &f), (int)b.len);
	assert_non_null(memchr(small, 0, sizeof(small))); /* cut, and still a C string */
	f.arg = &parg;
	f.str = "kern\xe9l\x1b";
	b.len = 0;
	assert_true(ct_format_field_sb(&b, &f));
	assert_int_equal(b.len, strlen("kern\\xe9l\\x1b"));
	assert_memory_equal(b.p, "kern\\xe9l\\x1b", b.len);
	ct_sb_free(&b);
}

static void test_csv_field(void **state)
{
	assert_string_equal(csv("plain"), "plain");
	assert_string_equal(csv("a,b"), "\"a,b\"");
	assert_string_equal(csv("say \"hi\""), "\"say \"\"hi\"\"\"");
	assert_string_equal(csv("two\r\nlines"), "two\\x0d\\x0alines");
	assert_string_equal(csv("esc\x1b,\x7f\xc3\xa9"), "\"esc\\x1b,\\x7f\xc3\xa9\"");
	assert_string_equal(csv("\xff"), "\\xff");
	assert_true(strlen(csv("\x01\x01,\"")) <= ct_csv_field_max("\x01\x01,\""));
}

static void test_html_entities(void **state)
{
	assert_string_equal(html("<b>&'\""), "&lt;b&gt;&amp;&#39;&quot;");
	assert_string_equal(html("caf\xc3\xa9"), "caf\xc3\xa9");
	/* C0 and DEL: their control pictures (ESC shown as U+241B) */
	assert_string_equal(html("a\x1b[1m\x7f\x01"), "a&#x241b;[1m&#x2421;&#x2401;");
	/* C1 and bytes that are not UTF-8: U+FFFD, one for each */
	assert_string_equal(html("\xc2\x9bx\xe9"), "&#xfffd;x&#xfffd;");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_sequences),
		cmocka_unit_test(test_json_and_text),
		cmocka_unit_test(test_text_esc_bounded),
		cmocka_unit_test(test_format_field_escapes_strings),
		cmocka_unit_test(test_csv_field),
		cmocka_unit_test(test_html_entities),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
