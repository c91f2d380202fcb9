/* SPDX-License-Identifier: MIT */
/* fuzz-csv — libFuzzer harness: the CSV reader of the trace converters. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/csv.h"

/*
 * Input layout: byte 0's low bits say which of the names are required; the
 * rest is a header line and data rows, '\n' apart (gp_input has taken the
 * line endings off before the reader sees a line).  Checked: a refusal
 * always has a reason; a header's columns and the names' indexes are in
 * range and every required name is found; a row that parses has the
 * header's column count and fields inside its own line; and a row of plain
 * fields (no quote, no comma) written back with commas reads the same.
 */
static const char *const names[] = { "TIMESTAMP", "ContextTokens", "Session ID", "Model" };
#define NNAMES 4

static void reason(const struct gp_csv *c)
{
	if (!memchr(c->err, '\0', sizeof(c->err)) || !c->err[0])
		abort();
}

static int inside(const char *p, const char *buf, size_t len)
{
	return p >= buf && p <= buf + len;
}

static void row(struct gp_csv *c, const int *col, const char *d, size_t n)
{
	char *line = malloc(n + 1), *again, *joined;
	char *keep[GP_CSV_MAX_COLS + 1];
	size_t len = 0;
	int plain = 1, k;

	if (!line)
		abort();
	memcpy(line, d, n);
	line[n] = '\0';
	if (gp_csv_row(c, line, names, col, NNAMES)) {
		reason(c);
		free(line);
		return;
	}
	if (c->n != c->ncols)
		abort();
	for (k = 0; k < c->n; k++) {
		if (!inside(c->f[k], line, n))
			abort();
		if (strpbrk(c->f[k], ",\""))
			plain = 0;
		len += strlen(c->f[k]) + 1;
		keep[k] = c->f[k];
	}
	if (plain && c->n > 0) {
		joined = malloc(len + 1);
		if (!joined)
			abort();
		again = joined;
		for (k = 0; k < c->n; k++) {
			size_t m = strlen(keep[k]);

			memcpy(again, keep[k], m);
			again += m;
			*again++ = k + 1 < c->n ? ',' : '\0';
		}
		again = strdup(joined);
		if (!again || gp_csv_row(c, again, names, col, NNAMES) || c->n != k)
			abort();
		for (k = 0; k < c->n; k++)
			if (strcmp(c->f[k], keep[k]))
				abort();
		free(again);
		free(joined);
	}
	free(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct gp_csv c;
	int col[NNAMES], rc, k;
	unsigned required;
	const char *p, *end, *nl;
	char *head;

	if (n < 1)
		return 0;
	required = d[0] & 15;
	p = (const char *)d + 1;
	end = (const char *)d + n;
	if (memchr(p, '\0', (size_t)(end - p)))
		return 0;	/* lines are C strings: gp_input stops at a NUL */
	nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl)
		nl = end;
	head = malloc((size_t)(nl - p) + 1);
	if (!head)
		abort();
	memcpy(head, p, (size_t)(nl - p));
	head[nl - p] = '\0';
	memset(&c, 0, sizeof(c));
	rc = gp_csv_header(&c, head, names, NNAMES, col, required);
	if (rc < 0) {
		reason(&c);
		free(head);
		return 0;
	}
	if (rc < 1 || rc > GP_CSV_MAX_COLS || rc != c.ncols)
		abort();
	for (k = 0; k < NNAMES; k++)
		if (col[k] < -1 || col[k] >= rc || ((required >> k & 1) && col[k] < 0))
			abort();
	for (p = nl < end ? nl + 1 : end; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		row(&c, col, p, (size_t)(nl - p));
		if (nl == end)
			break;
	}
	free(head);
	return 0;
}
