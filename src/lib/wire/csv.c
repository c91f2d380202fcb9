/* SPDX-License-Identifier: MIT */
/* csv — header-by-name CSV rows with RFC 4180 quoting (see csv.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "wire/csv.h"
#include "base/banned.h"

/* The quoted field at p (p[0] == '"') unquoted in place; the byte after it. */
static char *unquote(char *p)
{
	char *w = p, *q = p + 1;

	for (;;) {
		if (!*q)
			return NULL;
		if (*q == '"') {
			if (q[1] != '"')
				break;
			q++;
		}
		*w++ = *q++;
	}
	*w = '\0';
	return q + 1;
}

/* Fields of line into c->f: the count (GP_CSV_MAX_COLS + 1 when over), or -1. */
static int split(struct gp_csv *c, char *line)
{
	int n = 0;

	for (;;) {
		char *end;

		if (n == GP_CSV_MAX_COLS)
			return GP_CSV_MAX_COLS + 1;
		c->f[n++] = line;
		if (*line == '"') {
			end = unquote(line);
			if (!end || (*end && *end != ',')) {
				snprintf(c->err, sizeof(c->err), "column %d: %s", n,
					 end ? "text after the closing quote" : "quote not closed");
				return -1;
			}
			if (!*end)
				return n;
			line = end + 1;
			continue;
		}
		end = strchr(line, ',');
		if (!end)
			return n;
		*end = '\0';
		line = end + 1;
	}
}

char *gp_csv_trim(char *s)
{
	size_t n;

	while (*s == ' ')
		s++;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	if (*s == '\xef' && s[1] == '\xbb' && s[2] == '\xbf')
		s += 3;
	return s;
}

int gp_csv_header(struct gp_csv *c, char *line, const char *const *names, int nnames, int *col,
		  unsigned required)
{
	int n = split(c, line);

	if (n < 0)
		return -1;
	if (n > GP_CSV_MAX_COLS) {
		snprintf(c->err, sizeof(c->err), "header has more than %d columns", GP_CSV_MAX_COLS);
		return -1;
	}
	for (int i = 0; i < n; i++)
		c->f[i] = gp_csv_trim(c->f[i]);
	for (int k = 0; k < nnames; k++) {
		col[k] = -1;
		for (int i = 0; i < n; i++)
			if (!strcasecmp(c->f[i], names[k]))
				col[k] = i;
		if (col[k] < 0 && (required >> k & 1)) {
			snprintf(c->err, sizeof(c->err), "field '%s' is missing from the header", names[k]);
			return -1;
		}
	}
	c->ncols = c->n = n;
	return n;
}

int gp_csv_row(struct gp_csv *c, char *line, const char *const *names, const int *col, int nnames)
{
	int n = split(c, line);

	if (n < 0)
		return -1;
	c->n = n;
	for (int k = 0; k < nnames && n < c->ncols; k++)
		if (col[k] >= n) {
			snprintf(c->err, sizeof(c->err), "field '%s' is missing (%d of %d columns)",
				 names[k], n, c->ncols);
			return -1;
		}
	if (n != c->ncols) {
		snprintf(c->err, sizeof(c->err), "row has %s%d columns, the header has %d",
			 n > GP_CSV_MAX_COLS ? "over " : "", n > GP_CSV_MAX_COLS ? GP_CSV_MAX_COLS : n,
			 c->ncols);
		return -1;
	}
	return 0;
}
