/* SPDX-License-Identifier: MIT */
/*
 * prom — the Prometheus text exposition format (version 0.0.4): a writer that
 * appends families, samples and histograms into a growable buffer, and a
 * parser that reports every sample as a normalised series string and a value.
 *
 * Writer ownership: struct gp_prom owns its buffer (buf, len; NUL-terminated
 * whenever len > 0); gp_prom_release frees it.  A failed allocation sets err
 * and makes further appends no-ops, so callers check once at the end.
 *
 * Parser: gp_prom_parse calls cb(series, value, arg) for every sample line, in
 * order.  `series` is borrowed, valid only during the callback: the metric
 * name, then its labels in the order written as {k="v",k2="v2"} (label values
 * re-escaped canonically: backslash, double quote and newline as \\ \" \n),
 * no braces when there are no labels.  Values: any float, NaN, +Inf, -Inf.
 * Timestamps are ignored; blank lines, comments, HELP and TYPE are skipped;
 * LF or CRLF line endings; a NUL byte in a label value or a value makes
 * its line malformed (the series string could not carry it).  Returns 0, or
 * the 1-based number of the first malformed line (samples before it have been
 * reported), or -1 when out of memory.
 */
#ifndef GP_PROM_H
#define GP_PROM_H

#include <stddef.h>
#include <stdint.h>

struct gp_prom {
	char *buf;
	size_t len, cap;
	int err;		/* an allocation failed */
};

void gp_prom_init(struct gp_prom *p);
void gp_prom_release(struct gp_prom *p);
/* Forget the contents, keep the allocation. */
void gp_prom_reset(struct gp_prom *p);

/* "# HELP name help" and "# TYPE name type" (help may be NULL: no HELP). */
void gp_prom_family(struct gp_prom *p, const char *name, const char *type,
		    const char *help);
/*
 * One sample line: name + suffix (suffix may be NULL or e.g. "_total"),
 * labels as a NULL-terminated list of key, value pointers (NULL: none; values
 * are escaped), an optional extra label (extra_k NULL: none) written last,
 * and the value (integers without a decimal point; NaN, +Inf, -Inf).
 */
void gp_prom_sample(struct gp_prom *p, const char *name, const char *suffix,
		    const char *const *labels, const char *extra_k,
		    const char *extra_v, double value);

#define GP_PROM_MAX_BUCKETS 40

/* A histogram with fixed upper bounds; counts are per bucket (not cumulative). */
struct gp_prom_hist {
	size_t nb;				/* finite bounds */
	double le[GP_PROM_MAX_BUCKETS];		/* ascending */
	uint64_t n[GP_PROM_MAX_BUCKETS + 1];	/* n[nb] counts > le[nb-1] */
	double sum;
	uint64_t count;
};

/* Bounds le[0..nb) ascending, nb <= GP_PROM_MAX_BUCKETS (more are ignored). */
void gp_prom_hist_init(struct gp_prom_hist *h, const double *le, size_t nb);
void gp_prom_hist_observe(struct gp_prom_hist *h, double v);
/* name_bucket{labels,le="…"} (cumulative, ending with le="+Inf"), name_sum,
 * name_count.  Does not write HELP/TYPE. */
void gp_prom_hist_write(struct gp_prom *p, const char *name,
			const char *const *labels, const struct gp_prom_hist *h);

typedef void gp_prom_sample_fn(const char *series, double value, void *arg);

int gp_prom_parse(const char *text, size_t len,
		  void (*cb)(const char *series, double value, void *arg), void *arg);

#endif
