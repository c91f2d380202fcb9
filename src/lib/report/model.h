/* SPDX-License-Identifier: MIT */
/*
 * model — the campaign's records as gp-report holds them, and the questions
 * its sections and plots ask of them.
 *
 * Every record is kept whole with its file:line, except four types: request
 * records are reduced to (arm, rate, TTFT, TPOT) (a campaign has millions);
 * metrics, trace and truth records are dropped (no section reads them).  A
 * run record is kept and its (run, arm, rate) also noted, so that a run_end
 * that does not name its arm or rate is tied to its run.
 *
 * Ownership: gp_records_add takes the record (json_decref when it is not
 * kept); the model owns what it keeps until gp_records_release.  Strings and
 * objects the queries return are borrowed from the model.  Errors: the adds
 * return -1 with errno ENOMEM and leave the model as it was.
 */
#ifndef GP_REPORT_MODEL_H
#define GP_REPORT_MODEL_H

#include <stddef.h>
#include <jansson.h>

struct gp_rec {
	json_t *o;
	const char *type;	/* borrowed from o */
	char *file;
	unsigned long line;
};

struct gp_req {
	size_t arm;		/* index into arms */
	double rate, ttft, tpot;	/* NaN: null */
};

struct gp_runinfo {
	char *run, *arm;
	double rate;
};

struct gp_records {
	struct gp_rec *r;
	size_t nr, capr;
	struct gp_req *q;
	size_t nq, capq;
	char **arms;		/* arms seen in request records */
	size_t narms, caparms;
	struct gp_runinfo *ri;
	size_t nri, capri;
	long requests;
	const char **pal;	/* every arm named, sorted: one colour each */
	size_t npal;
	/* gp_records_index_achieved: what gp_records_achieved reads, sorted by
	 * (arm, rate, file order), so that a rung's records are found by binary
	 * search (a scan of every record per rung was quadratic in rungs) */
	struct gp_rix *ach_sum, *ach_end;
	size_t nsum, nend;
	int indexed;
};

struct gp_rix {
	const char *arm;	/* borrowed from the records */
	double rate, v;
	size_t idx;		/* file order */
};

/* Once every record is in: index the records gp_records_achieved reads.
 * 0, or -1 when out of memory (gp_records_achieved then scans). */
int gp_records_index_achieved(struct gp_records *m);
/* Record o of the given type, read at file:line, into m.  0 or -1. */
int gp_records_add(struct gp_records *m, json_t *o, const char *type, const char *file,
		   unsigned long line);
/* Once every record is in: the sorted arms of the palette.  0 or -1. */
int gp_records_palette(struct gp_records *m);
void gp_records_release(struct gp_records *m);

/* The next record of type after index *i (start with *i = 0); NULL at the end. */
const json_t *gp_records_next(const struct gp_records *m, const char *type, size_t *i);
size_t gp_records_count(const struct gp_records *m, const char *type);
const json_t *gp_records_last(const struct gp_records *m, const char *type);
/* The good-fraction target: the last knee record's, else the slo record's;
 * NaN when neither says. */
double gp_records_target(const struct gp_records *m);

/* The arm's place in the palette (0 for an arm it does not hold). */
size_t gp_records_slot(const struct gp_records *m, const char *arm);

/*
 * The achieved rate of (arm, rate): the arm_summary's achieved_rps where the
 * analysis carries it, else the mean achieved_rps of the run_end records;
 * NaN when neither.
 */
double gp_records_achieved(const struct gp_records *m, const char *arm, double rate);

/* A calibration record's endpoint; "name (endpoint)" when the record names
 * the backend (from a ring of 8 buffers). */
const char *gp_endpoint_of(const json_t *o);
const char *gp_endpoint_label(const json_t *o);

/* Equal strings, or both NULL. */
int gp_same_str(const char *a, const char *b);
/* Two rates the same rung: equal within 1e-9 relative. */
int gp_same_rate(double a, double b);

/*
 * Numbers as the report prints them, "n/a" for NaN, from a ring of 32
 * buffers (so several fit one printf; not thread-safe): F3 "%.3f"; G4 four
 * significant digits but 20000, not 2e+04; F1 "%.1f"; PCT "42% ".
 */
enum gp_numfmt { GP_F3, GP_G4, GP_F1, GP_PCT };
const char *gp_rfmt(enum gp_numfmt k, double v);
static inline const char *gp_f3(double v) { return gp_rfmt(GP_F3, v); }
static inline const char *gp_g4(double v) { return gp_rfmt(GP_G4, v); }
static inline const char *gp_ms(double v) { return gp_rfmt(GP_F1, v); }

#endif
