/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of buf: the JSON escaper against jansson's own json_dumps, byte
 * for byte (every byte 0x01..0xff alone and in a run, UTF-8 text), and the
 * growable buffer across many reallocations.
 */
#include <stdlib.h>

#include <jansson.h>

#include "base/buf.h"
#include "tap.h"

/* What jansson writes for s[0..n): the reference this escaper must equal. */
static char *jansson_dump(const char *s, size_t n)
{
	json_t *j = json_stringn_nocheck(s, n);
	char *o = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);

	json_decref(j);
	return o;
}

static char *ours(const char *s, size_t n)
{
	struct gp_buf b = { 0 };

	if (gp_buf_jstr(&b, s, n))
		return NULL;
	return b.p;
}

static int fmt(struct gp_buf *b, const char *f, ...)
{
	va_list ap;
	int r;

	va_start(ap, f);
	r = gp_buf_vfmt(b, f, ap);
	va_end(ap);
	return r;
}

static void same_as_jansson(const char *s, size_t n, const char *what)
{
	char *want = jansson_dump(s, n), *got = ours(s, n);

	if (!ok(want && got && !strcmp(want, got), "%s: as jansson writes it", what))
		printf("#   got  %s\n#   want %s\n", got ? got : "(null)", want ? want : "(null)");
	free(want);
	free(got);
}

int main(void)
{
	static const char utf8[] = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n\"q\"\\";
	char all[128], one[2], name[64], *got;
	struct gp_buf b = { 0 };
	size_t k;
	int c, grew = 1;

	/* Every ASCII byte alone (jansson checks UTF-8, so bytes >= 0x80 are
	 * tested inside valid sequences below). */
	for (c = 1; c < 128; c++) {
		one[0] = (char)c;
		snprintf(name, sizeof(name), "byte 0x%02x", c);
		same_as_jansson(one, 1, name);
	}
	for (c = 1, k = 0; c < 128; c++)
		all[k++] = (char)c;
	same_as_jansson(all, k, "bytes 0x01..0x7f in one string");
	same_as_jansson(utf8, sizeof(utf8) - 1, "UTF-8 text with escapes");
	got = ours("a\nb", 3);
	is_str(got, "\"a\\nb\"", "a newline is \\n, not \\u000a");
	free(got);
	got = ours("\x0b", 1);
	is_str(got, "\"\\u000B\"", "other controls are \\u00XX in upper case");
	free(got);
	is_int(gp_json_escape(NULL, "\x01\"x", 3), 6 + 2 + 1, "measuring counts every escape");

	/* Invalid UTF-8 (ISO-8859-1, a cut sequence, an overlong, a surrogate,
	 * above U+10FFFF): one U+FFFD per bad byte, in the escaper and in place. */
	got = ours("d\xe9" "faut \xff|\xe2\x82|\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|\xc3\xa9", 26);
	is_str(got, "\"d\xef\xbf\xbd" "faut \xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|"
	       "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|\xc3\xa9\"",
	       "the escaper replaces each byte that starts no UTF-8 sequence by U+FFFD");
	ok(got && gp_utf8_valid(got, strlen(got)), "and what it writes is valid UTF-8");
	free(got);
	ok(!gp_utf8_valid("\xe9", 1) && gp_utf8_valid("\xc3\xa9\xf0\x9f\x98\x80", 6), "gp_utf8_valid");
	{
		char r[16] = "ab\xe9\xe9\xe9xyz";

		is_int(gp_utf8_repair(r, 8), 5, "repair in place, cut to cap - 1 between characters");
		is_str(r, "ab\xef\xbf\xbd", "only whole replacements kept");
		snprintf(r, sizeof(r), "caf\xc3\xa9!");
		is_int(gp_utf8_repair(r, 5), 3, "a valid string cut on a character boundary");
		is_str(r, "caf", "not inside the \xc3\xa9");
	}
	{
		char t[64];

		is_int(gp_term_escape(t, sizeof(t), "a\x1b[2J\r\\\xc2\x9b\xe9\xc3\xa9", 12), 28,
		       "terminal escape: its length");
		is_str(t, "a\\x1b[2J\\x0d\\\\\\xc2\\x9b\\xe9\xc3\xa9",
		       "ESC, CR, a backslash, a C1 control and a bad byte escaped; UTF-8 kept");
		is_int(gp_term_escape(t, 6, "\x01\x02", 2), 4, "an escape is never cut in half");
	}

	/* Growth: 100000 appends keep every byte and the NUL. */
	for (c = 0; c < 100000 && grew; c++)
		grew = !gp_buf_add(&b, "0123456789" + c % 10, 1);
	ok(grew && b.len == 100000 && b.p[b.len] == '\0' && b.cap > b.len, "grows to 100000 bytes");
	for (c = 0; c < 100000 && b.p[c] == "0123456789"[c % 10]; c++)
		;
	is_int(c, 100000, "every appended byte kept in order");
	gp_buf_release(&b);
	ok(!b.p && !b.len && !b.cap, "release empties the buffer");

	/* Formatted appends: after raw text, across a growth, NUL kept. */
	ok(!gp_buf_add(&b, "x=", 2) && !fmt(&b, "%d,%.2f,%s", 42, 0.5, "y"), "vfmt appends");
	is_str(b.p, "x=42,0.50,y", "vfmt text follows what was there");
	for (c = 0; c < 300; c++)
		fmt(&b, "%03d", c);
	is_int(b.len, 11 + 900, "vfmt across growths keeps every byte");
	is_str(b.p + b.len - 3, "299", "the last formatted piece is whole");
	gp_buf_release(&b);
	return done_testing();
}
