/* SPDX-License-Identifier: MIT */
/*
 * csv — the CSV of the public trace files (Azure LLM inference, BurstGPT):
 * a header row whose columns are found by name, then data rows with the
 * header's column count.  RFC 4180 quoting: a field in double quotes may
 * hold commas, and "" inside it is one quote.  Lines come from gp_input
 * (ndjson.h), which already takes CRLF and gzip; a UTF-8 BOM before the
 * header is ignored.
 *
 * Ownership: fields point into the line passed in, which is split in place;
 * they live as long as that line.  Nothing here prints or exits: functions
 * return -1 with the reason in c->err (naming the column where there is one),
 * for the caller to print after its "file:line: ".
 */
#ifndef GP_CSV_H
#define GP_CSV_H

#define GP_CSV_MAX_COLS 32

struct gp_csv {
	int ncols;			/* columns of the header */
	int n;				/* fields of the current row */
	char *f[GP_CSV_MAX_COLS + 1];	/* the current row's fields */
	char err[160];
};

/*
 * Split the header line and find names[0..nnames) in it (case-insensitive,
 * surrounding spaces ignored): col[k] is the index of names[k], or -1.  A name
 * whose bit is set in `required` must be there.  Returns the column count.
 */
int gp_csv_header(struct gp_csv *c, char *line, const char *const *names, int nnames, int *col,
		  unsigned required);
/*
 * Split a data row into c->f[0..c->n): 0, or -1 when a column named in names
 * (at col) is missing, the count differs from the header's, or a quote is
 * not closed.
 */
int gp_csv_row(struct gp_csv *c, char *line, const char *const *names, const int *col, int nnames);
/* Spaces before, white space after and a UTF-8 BOM off s, in place; the
 * start of what is left (within s). */
char *gp_csv_trim(char *s);

#endif
