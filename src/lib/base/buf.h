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
char *gp_vstrfmt(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* Append s[0..n) as a quoted JSON string.  0 or -1. */
int gp_buf_jstr(struct gp_buf *b, const char *s, size_t n);

/* JSON escape of s[0..n) (no quotes) into dst; returns the bytes it needs,
 * writing them only when dst is not NULL (measure first, then write). */
size_t gp_json_escape(char *dst, const char *s, size_t n);

#endif
