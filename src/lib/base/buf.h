/* SPDX-License-Identifier: MIT */
/*
 * buf — the one growable byte buffer and the one JSON-string escaper.
 *
 * Ownership: a struct gp_buf ({0} is empty) owns p, grown with realloc;
 * gp_buf_release frees it.  p is NUL-terminated once len > 0.  Nothing here
 * prints or exits: functions return 0, or -1 when memory ran out (the buffer
 * is then unchanged).
 *
 * The escaper writes what jansson's json_dumps writes (jansson 2.14 dump.c,
 * checked byte for byte in tests/unit/t-buf.c): '"' and '\\' backslashed,
 * the short escapes \b \f \n \r \t, every other byte below 0x20 as \u00XX
 * with upper-case hex, and everything else (DEL, UTF-8) as it is.  So a
 * record written by hand and one written through jansson read the same.
 *
 * UTF-8: every string from outside (a server's body, header or message, a
 * model id) is made valid UTF-8 before it reaches a record, by one rule
 * applied here: a byte that does not start a well-formed UTF-8 sequence (RFC
 * 3629: no overlong form, no surrogate, nothing above U+10FFFF, not cut
 * short) is replaced by U+FFFD, one U+FFFD per such byte.  The escaper
 * applies it too, so no record written through it is invalid UTF-8 (jansson
 * refuses such input, so for valid text the two still write the same).
 * gp_term_escape is the terminal's rule: control characters (C0, DEL, C1)
 * and bytes that are not UTF-8 written as \xNN, so no server text moves a
 * cursor or sends an escape sequence.
 */
#ifndef GP_BUF_H
#define GP_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

struct gp_buf {
	char *p;
	size_t len, cap;
};

void gp_buf_release(struct gp_buf *b);
/* Room for n more bytes plus the NUL.  0 or -1. */
int gp_buf_reserve(struct gp_buf *b, size_t n);
/* Append s[0..n) (raw).  0 or -1. */
int gp_buf_add(struct gp_buf *b, const char *s, size_t n);
/* Append the rest of f, to its end.  0, or -1: a read error (ferror(f) is
 * set, errno says why) or out of memory (errno ENOMEM); what was read stays. */
int gp_buf_read(struct gp_buf *b, FILE *f);
/* Append printf-formatted text.  0 or -1 (also for an encoding error). */
int gp_buf_vfmt(struct gp_buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* A printf-formatted string in its own allocation (the caller frees), or
 * NULL when memory ran out: the library's asprintf (tools: gp_xasprintf). */
char *gp_strfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The library's error message: format into err[0..errlen) (nothing when err
 * is NULL or errlen 0) and return -1, for `return gp_errf(err, errlen, …);`. */
int gp_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
char *gp_vstrfmt(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* Append s[0..n) as a quoted JSON string.  0 or -1. */
int gp_buf_jstr(struct gp_buf *b, const char *s, size_t n);

/* JSON escape of s[0..n) (no quotes) into dst; returns the bytes it needs,
 * writing them only when dst is not NULL (measure first, then write). */
size_t gp_json_escape(char *dst, const char *s, size_t n);

/* The length (1..4) of the well-formed UTF-8 sequence at s[0..n), or 0 when
 * s[0] does not start one (n > 0). */
size_t gp_utf8_seq(const char *s, size_t n);
/* The same, with the sequence's code point in *cp. */
size_t gp_utf8_decode(const char *s, size_t n, unsigned *cp);
/* 1 when s[0..n) is all valid UTF-8. */
int gp_utf8_valid(const char *s, size_t n);
/*
 * Make the NUL-terminated s, in a buffer of cap bytes (cap > 0), valid UTF-8
 * in place by the rule above, cut to at most cap − 1 bytes on a character
 * boundary.  (Should memory run out, a bad byte becomes '?' instead.)
 * Returns the new length.
 */
size_t gp_utf8_repair(char *s, size_t cap);
/*
 * s[0..n) for a terminal, into out (at most cap − 1 bytes, cut between
 * characters, NUL-terminated, cap > 0): C0 controls, DEL, C1 controls
 * (U+0080..U+009F) and bytes that are not UTF-8 as \xNN (each byte), a
 * backslash as \\, the rest as it is.  Returns the length written.
 */
size_t gp_term_escape(char *out, size_t cap, const char *s, size_t n);

#endif
