/* SPDX-License-Identifier: MIT */
/* doc — one document model, rendered as Markdown and as self-contained HTML. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/doc.h"
#include "base/buf.h"
#include "base/vec.h"
#include "base/banned.h"

enum kind { B_HEADING, B_PARA, B_ITEM, B_PRE, B_TABLE, B_FIGURE };

struct block {
	enum kind kind;
	int level;
	char *text;		/* heading, para, item, pre; figure caption */
	char *png, *svg;	/* figure */
	size_t ncols;		/* table */
	char *align;
	char **cells;		/* headers first, then the rows' cells */
	size_t ncells, capcells;
};

struct gp_doc {
	char *title;
	struct block *b;
	size_t n, cap;
	int failed;
};

static char *dupstr(struct gp_doc *d, const char *s)
{
	char *c;

	if (d->failed)
		return NULL;
	c = strdup(s ? s : "");
	if (!c)
		d->failed = 1;
	return c;
}

static char *vfmt(struct gp_doc *d, const char *fmt, va_list ap)
{
	char *s = NULL;

	if (d->failed)
		return NULL;
	if (vasprintf(&s, fmt, ap) < 0) {
		d->failed = 1;
		return NULL;
	}
	return s;
}

static struct block *add(struct gp_doc *d, enum kind k)
{
	if (d->failed)
		return NULL;
	if (d->n == d->cap) {
		struct block *nb = gp_grow(d->b, &d->cap, d->n + 1, sizeof(*nb), 32);

		if (!nb) {
			d->failed = 1;
			return NULL;
		}
		d->b = nb;
	}
	memset(&d->b[d->n], 0, sizeof(d->b[0]));
	d->b[d->n].kind = k;
	return &d->b[d->n++];
}

struct gp_doc *gp_doc_new(const char *title)
{
	struct gp_doc *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->title = dupstr(d, title);
	if (d->failed) {
		free(d);
		return NULL;
	}
	return d;
}

void gp_doc_free(struct gp_doc *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++) {
		struct block *b = &d->b[i];

		free(b->text);
		free(b->png);
		free(b->svg);
		free(b->align);
		for (size_t c = 0; c < b->ncells; c++)
			free(b->cells[c]);
		free(b->cells);
	}
	free(d->b);
	free(d->title);
	free(d);
}

int gp_doc_failed(const struct gp_doc *d)
{
	return d->failed;
}

static void text_block(struct gp_doc *d, enum kind k, int level, char *text)
{
	struct block *b;

	if (!text)
		return;
	b = add(d, k);
	if (!b) {
		free(text);
		return;
	}
	b->level = level;
	b->text = text;
}

void gp_doc_heading(struct gp_doc *d, int level, const char *text)
{
	text_block(d, B_HEADING, level < 2 ? 2 : level > 4 ? 4 : level, dupstr(d, text));
}

void gp_doc_para(struct gp_doc *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	text_block(d, B_PARA, 0, vfmt(d, fmt, ap));
	va_end(ap);
}

void gp_doc_item(struct gp_doc *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	text_block(d, B_ITEM, 0, vfmt(d, fmt, ap));
	va_end(ap);
}

void gp_doc_pre(struct gp_doc *d, const char *text)
{
	text_block(d, B_PRE, 0, dupstr(d, text));
}

static void push_cell(struct gp_doc *d, struct block *b, char *s)
{
	if (!s)
		return;
	if (b->ncells == b->capcells) {
		char **nc = gp_grow(b->cells, &b->capcells, b->ncells + 1, sizeof(*nc), 16);

		if (!nc) {
			free(s);
			d->failed = 1;
			return;
		}
		b->cells = nc;
	}
	b->cells[b->ncells++] = s;
}

void gp_doc_table(struct gp_doc *d, size_t ncols, const char *const *headers, const char *align)
{
	struct block *b = add(d, B_TABLE);

	if (!b)
		return;
	b->ncols = ncols ? ncols : 1;
	b->align = malloc(b->ncols + 1);
	if (!b->align) {
		d->failed = 1;
		return;
	}
	for (size_t i = 0; i < b->ncols; i++)
		b->align[i] = align && strlen(align) > i && align[i] == 'r' ? 'r' : 'l';
	b->align[b->ncols] = 0;
	for (size_t i = 0; i < b->ncols; i++)
		push_cell(d, b, dupstr(d, ncols ? headers[i] : ""));
}

void gp_doc_cell(struct gp_doc *d, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (d->failed || !d->n || d->b[d->n - 1].kind != B_TABLE)
		return;
	va_start(ap, fmt);
	s = vfmt(d, fmt, ap);
	va_end(ap);
	push_cell(d, &d->b[d->n - 1], s);
}

void gp_doc_figure(struct gp_doc *d, const char *png, const char *svg, const char *caption)
{
	struct block *b = add(d, B_FIGURE);

	if (!b)
		return;
	b->png = dupstr(d, png);
	b->svg = svg ? dupstr(d, svg) : NULL;
	b->text = dupstr(d, caption);
}

/* ---- Markdown ---- */

static void md_cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

static void md_table(FILE *f, const struct block *b)
{
	size_t rows = (b->ncells + b->ncols - 1) / b->ncols;

	for (size_t r = 0; r < rows; r++) {
		fputc('|', f);
		for (size_t c = 0; c < b->ncols; c++) {
			size_t i = r * b->ncols + c;

			fputc(' ', f);
			md_cell(f, i < b->ncells ? b->cells[i] : "");
			fputs(" |", f);
		}
		fputc('\n', f);
		if (r == 0) {
			fputc('|', f);
			for (size_t c = 0; c < b->ncols; c++)
				fputs(b->align[c] == 'r' ? "---:|" : "---|", f);
			fputc('\n', f);
		}
	}
}

int gp_doc_write_md(const struct gp_doc *d, FILE *f)
{
	if (d->failed)
		return -1;
	fprintf(f, "# %s\n", d->title);
	for (size_t i = 0; i < d->n; i++) {
		const struct block *b = &d->b[i];
		int in_list = i > 0 && d->b[i - 1].kind == B_ITEM;

		switch (b->kind) {
		case B_HEADING:
			fprintf(f, "\n%.*s %s\n", b->level, "####", b->text);
			break;
		case B_PARA:
			fprintf(f, "\n%s\n", b->text);
			break;
		case B_ITEM:
			fprintf(f, "%s- %s\n", in_list ? "" : "\n", b->text);
			break;
		case B_PRE:
			fprintf(f, "\n```\n%s%s```\n", b->text,
				*b->text && b->text[strlen(b->text) - 1] != '\n' ? "\n" : "");
			break;
		case B_TABLE:
			fputc('\n', f);
			md_table(f, b);
			break;
		case B_FIGURE:
			fprintf(f, "\n![%s](%s)\n", b->text, b->png);
			if (b->svg)
				fprintf(f, "\n*%s* (vector: [%s](%s))\n", b->text, b->svg, b->svg);
			else
				fprintf(f, "\n*%s*\n", b->text);
			break;
		}
	}
	return ferror(f) ? -1 : 0;
}

/* ---- HTML ---- */

static void html_text_char(FILE *f, char c)
{
	switch (c) {
	case '&': fputs("&amp;", f); break;
	case '<': fputs("&lt;", f); break;
	case '>': fputs("&gt;", f); break;
	case '"': fputs("&quot;", f); break;
	default: fputc(c, f);
	}
}

static void html_text(FILE *f, const char *s)
{
	for (; *s; s++)
		html_text_char(f, *s);
}

/*
 * A table cell's text: as html_text, and a space inside [ ] or just before
 * one is a no-break space, so that a figure and its interval "x [lo, hi]"
 * stay on one line when the cell wraps (at its other spaces).
 */
static void html_cell_text(FILE *f, const char *s)
{
	int depth = 0;

	for (; *s; s++) {
		if (*s == '[')
			depth++;
		else if (*s == ']' && depth > 0)
			depth--;
		if (*s == ' ' && (depth > 0 || s[1] == '['))
			fputs("&#160;", f);
		else
			html_text_char(f, *s);
	}
}

int gp_base64_write(FILE *f, const unsigned char *in, size_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		unsigned long v = (unsigned long)in[i] << 16 | (unsigned long)in[i + 1] << 8 | in[i + 2];

		fputc(tab[v >> 18 & 63], f);
		fputc(tab[v >> 12 & 63], f);
		fputc(tab[v >> 6 & 63], f);
		fputc(tab[v & 63], f);
	}
	if (i < n) {
		unsigned long v = (unsigned long)in[i] << 16 | (i + 1 < n ? (unsigned long)in[i + 1] << 8 : 0);

		fputc(tab[v >> 18 & 63], f);
		fputc(tab[v >> 12 & 63], f);
		fputc(i + 1 < n ? tab[v >> 6 & 63] : '=', f);
		fputc('=', f);
	}
	return ferror(f) ? -1 : 0;
}

static int html_figure(FILE *f, const struct block *b, const char *dir)
{
	char *path = NULL;
	struct gp_buf buf = { 0 };
	FILE *in;
	int rc = -1;

	if (asprintf(&path, "%s/%s", dir, b->png) < 0)
		return -1;
	in = fopen(path, "rb");
	free(path);
	if (!in)
		return -1;
	if (gp_buf_read(&buf, in))
		goto out;
	fputs("<figure><img alt=\"", f);
	html_text(f, b->text);
	fputs("\" src=\"data:image/png;base64,", f);
	gp_base64_write(f, (const unsigned char *)buf.p, buf.len);
	fputs("\"><figcaption>", f);
	html_text(f, b->text);
	fputs("</figcaption></figure>\n", f);
	rc = 0;
out:
	fclose(in);
	gp_buf_release(&buf);
	return rc;
}

static void html_table(FILE *f, const struct block *b)
{
	size_t rows = (b->ncells + b->ncols - 1) / b->ncols;

	fputs("<div class=\"t\"><table>\n", f);
	for (size_t r = 0; r < rows; r++) {
		fputs("<tr>", f);
		for (size_t c = 0; c < b->ncols; c++) {
			size_t i = r * b->ncols + c;
			const char *tag = r ? "td" : "th";

			fprintf(f, "<%s%s>", tag, b->align[c] == 'r' ? " class=\"r\"" : "");
			html_cell_text(f, i < b->ncells ? b->cells[i] : "");
			fprintf(f, "</%s>", tag);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table></div>\n", f);
}

static const char css[] =
	"body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;max-width:1100px;"
	"margin:1em auto;padding:0 1em;color:#222;line-height:1.4}"
	"h1{font-size:1.6em;border-bottom:2px solid #444}"
	"h2{font-size:1.3em;border-bottom:1px solid #bbb;margin-top:1.6em}"
	"div.t{overflow-x:auto}table{border-collapse:collapse;margin:.6em 0;font-size:.9em}"
	"th,td{border:1px solid #bbb;padding:.2em .5em;vertical-align:top}"
	"th{background:#eee;text-align:left}td.r,th.r{text-align:right;"
	"font-variant-numeric:tabular-nums}"
	"pre{background:#f5f5f5;padding:.6em;overflow-x:auto;font-size:.85em}"
	"figure{margin:1em 0}img{max-width:100%;border:1px solid #ddd}"
	"figure:first-of-type img{max-height:50vh}"
	"figcaption{font-size:.9em;color:#555}";

int gp_doc_write_html(const struct gp_doc *d, FILE *f, const char *dir, const char **bad)
{
	if (d->failed)
		return -1;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", f);
	html_text(f, d->title);
	fprintf(f, "</title>\n<style>%s</style></head><body>\n<h1>", css);
	html_text(f, d->title);
	fputs("</h1>\n", f);
	for (size_t i = 0; i < d->n; i++) {
		const struct block *b = &d->b[i];
		int first = !(i > 0 && d->b[i - 1].kind == B_ITEM);
		int last = !(i + 1 < d->n && d->b[i + 1].kind == B_ITEM);

		switch (b->kind) {
		case B_HEADING:
			fprintf(f, "<h%d>", b->level);
			html_text(f, b->text);
			fprintf(f, "</h%d>\n", b->level);
			break;
		case B_PARA:
			fputs("<p>", f);
			html_text(f, b->text);
			fputs("</p>\n", f);
			break;
		case B_ITEM:
			fputs(first ? "<ul><li>" : "<li>", f);
			html_text(f, b->text);
			fputs(last ? "</li></ul>\n" : "</li>\n", f);
			break;
		case B_PRE:
			fputs("<pre>", f);
			html_text(f, b->text);
			fputs("</pre>\n", f);
			break;
		case B_TABLE:
			html_table(f, b);
			break;
		case B_FIGURE:
			if (html_figure(f, b, dir)) {
				if (bad)
					*bad = b->png;
				return -1;
			}
			break;
		}
	}
	fputs("</body></html>\n", f);
	return ferror(f) ? -1 : 0;
}
