/* SPDX-License-Identifier: MIT */
/*
 * doc — a small document model written once and rendered twice: as Markdown
 * (GitHub-flavoured tables) and as one self-contained HTML page (inline CSS,
 * figures inlined as base64 PNG data URIs: no external asset, no script).
 *
 * A document is a sequence of blocks: headings, paragraphs, bullet items
 * (consecutive items form one list), preformatted text, tables and figures.
 * Text is plain: Markdown renders it as given, except table cells, where '|'
 * is escaped and line breaks become spaces; HTML escapes & < > " everywhere.
 * An HTML table is as wide as its text and at most the page: its cells wrap at
 * spaces when it would be wider, except inside [ ] and just before one (a
 * figure and its interval "x [lo, hi]" stay on one line); no text is cut.
 * One that still cannot fit (a narrow window) scrolls in its own box: the
 * page never grows wider than the window.  The first figure is shown at most
 * half the window high, so that it shares the first screen with what comes
 * before it (a report's verdict and headline).
 *
 * Ownership: every string passed in is copied; the document owns its blocks
 * until gp_doc_free.  Errors are sticky: an allocation failure marks the
 * document broken, later calls do nothing, and the writers return -1.
 */
#ifndef GP_DOC_H
#define GP_DOC_H

#include <stddef.h>
#include <stdio.h>

struct gp_doc;

/* A new document titled title (the top heading).  NULL when out of memory. */
struct gp_doc *gp_doc_new(const char *title);
void gp_doc_free(struct gp_doc *d);

/* Heading of level 2..4 (the title is level 1). */
void gp_doc_heading(struct gp_doc *d, int level, const char *text);
void gp_doc_para(struct gp_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gp_doc_item(struct gp_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gp_doc_pre(struct gp_doc *d, const char *text);

/*
 * A table of ncols columns with headers[0..ncols); align is a string of
 * ncols letters, 'l' or 'r' (NULL: all left).  Cells are then added in row
 * order with gp_doc_cell; a row is complete after ncols cells.
 */
void gp_doc_table(struct gp_doc *d, size_t ncols, const char *const *headers, const char *align);
void gp_doc_cell(struct gp_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * A figure: png and svg are file names relative to the output directory
 * (svg may be NULL), caption a sentence shown under it.
 */
void gp_doc_figure(struct gp_doc *d, const char *png, const char *svg, const char *caption);

/* 1 when an allocation failed since gp_doc_new. */
int gp_doc_failed(const struct gp_doc *d);

/* Markdown to f.  0, or -1 (write error or broken document). */
int gp_doc_write_md(const struct gp_doc *d, FILE *f);
/*
 * HTML to f; figures are read from dir/<png> and inlined.  0, or -1: a
 * write error, a broken document, or a figure that cannot be read (then
 * *bad names it, borrowed from the document).
 */
int gp_doc_write_html(const struct gp_doc *d, FILE *f, const char *dir, const char **bad);

/* Base64 (RFC 4648, padded) of in[0..n) to f.  0 or -1. */
int gp_base64_write(FILE *f, const unsigned char *in, size_t n);

#endif
