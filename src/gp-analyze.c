/* SPDX-License-Identifier: MIT */
/*
 * gp-analyze — Phase 4: goodput@SLO per (arm, rate, rep), the arms' latency
 * quantiles with BCa and cluster intervals over requests, and on per-rep
 * quantities (the rep is the unit) t and Welch intervals with a binomial
 * variance floor (tost.h): the noise floor, WIN/LOSS/EQUIVALENT/INCONCLUSIVE/
 * INSUFFICIENT_REPS against the floor arm, Welch TOST parity, the knee of the
 * rate ladder with its goodput and crossing intervals, and the arms' knees
 * compared.  Request records in, analysis records out (doc/records.md).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/boot.h"
#include "cli/cli.h"
#include "wire/fleet.h"
#include "method/baseline.h"
#include "method/good.h"
#include "method/turns.h"
#include "base/hash.h"
#include "io/flat.h"
#include "io/json.h"
#include "method/knee.h"
#include "base/log.h"
#include "base/map.h"
#include "io/ndjson.h"
#include "base/rng.h"
#include "base/sig.h"
#include "method/statcheck.h"
#include "method/verdict.h"
#include "stats/stats.h"
#include "stats/power.h"
#include "stats/tost.h"
#include "method/design.h"
#include "base/buf.h"
#include "base/vec.h"
#include "base/banned.h"

static const char usage[] =
	"Usage: gp-analyze (--ttft-slo-ms X --tpot-slo-ms Y | --slo-baseline FILE --slo-multiple K)\n"
	"                  [--slo-stat p50|p90|p99|mean] [--single-token ttft|miss]\n"
	"                  [--floor ARM] [--equiv ARM --delta D] [--compare ARM:VS ...]\n"
	"                  [--alpha A] [--target 0.9]\n"
	"                  [--accelerators N | --fleet FILE] [--min-reps 5] [--resamples N]\n"
	"                  [--level 0.95] [--seed S] [--slo-margin M] [--pass] [--no-validity]\n"
	"                  [-o FILE] [-z] [FILE...]\n"
	"       gp-analyze --self-check\n"
	"\n"
	"Reads request, run_end and validity records (files or stdin, gzip transparent)\n"
	"and writes analysis records: slo, goodfrac, arm_summary, noise_floor, power, compare,\n"
	"knee, knee_compare.  good = TTFT <= TTFT_SLO and TPOT <= TPOT_SLO over every attempted request.\n"
	"\n"
	"  --ttft-slo-ms X, --tpot-slo-ms Y  fixed SLO\n"
	"  --slo-baseline FILE        derive the SLO from an unloaded baseline run\n"
	"  --slo-multiple K           SLO = K x the baseline statistic\n"
	"  --slo-stat STAT            p50 (default), p90, p99 or mean of the baseline\n"
	"  --single-token ttft|miss   judge single-token requests on TTFT (default) or miss\n"
	"  --slo-margin M             idle_baseline records in the input: a member whose idle\n"
	"                             statistic x (1 + M) exceeds the SLO (default 0.10) makes\n"
	"                             the knee advice say the SLO is infeasible for it\n"
	"  --floor ARM                the baseline floor arm: noise floor, WIN/LOSS vs it\n"
	"  --equiv ARM --delta D      TOST parity of every other arm vs ARM within +-D\n"
	"  --compare ARM:VS           also ARM vs VS at every rate: verdict and TOST at\n"
	"                             --delta (repeatable; needs --delta)\n"
	"  --alpha A                  TOST level (0.05: a 90% interval)\n"
	"  --target T                 good-fraction target of the knee (0.9)\n"
	"  --accelerators N           accelerators behind the fleet (no default: per-\n"
	"                             accelerator figures are null without it or --fleet)\n"
	"  --fleet FILE               ... or the sum of backends[].accelerators\n"
	"  --min-reps N               reps each arm needs for WIN/LOSS/EQUIVALENT (5)\n"
	"  --resamples N              bootstrap resamples per interval (10000)\n"
	"  --level L                  confidence level (0.95)\n"
	"  --seed S                   bootstrap seed (recorded in the slo record)\n"
	"  --pass                     copy the input records to stdout ahead of the analysis\n"
	"  --no-validity              accept input that has not passed gp-verify validity\n"
	"  -o, --output FILE          write to FILE (.gz: compressed); -z, --gzip\n"
	"  --self-check               check the statistics against known vectors (TAP)\n"
	"  -h, --help, --version\n";

#define DEFAULT_SEED 20240611ULL

struct opts {
	double ttft_slo, tpot_slo;
	const char *baseline;
	double multiple;
	const char *slo_stat;
	enum gp_single_policy single;
	const char *floor, *equiv;
	char **pairs;			/* --compare: arm, vs, arm, vs, ... (2 npairs) */
	size_t npairs, pairs_cap;
	double delta, alpha, target, level;
	double accelerators;
	const char *fleet;
	long resamples, min_reps;
	uint64_t seed;
	int pass, no_validity, gzip;
	const char *output;
};

/* idle_baseline records of the input, the SLO and its statistic, and
 * --slo-margin: the knee advice's feasibility (knee_edge). */
static json_t *idle_recs;
static struct gp_slo idle_slo;
static const char *idle_stat = "p50";
static double idle_margin = GP_DESIGN_SLO_MARGIN;

/* printf into a gp_buf (memory runs out: the text is cut). */
static void buf_printf(struct gp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_printf(struct gp_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gp_buf_vfmt(b, fmt, ap);
	va_end(ap);
}

/* ---- growable arrays ---- */

struct dbuf {
	double *v;
	size_t n, cap;
};

static void dpush(struct dbuf *b, double v)
{
	GP_XGROW(b->v, b->n, b->cap, 256);
	b->v[b->n++] = v;
}

/* ---- input state ---- */

struct group {
	char *arm;
	double rate;
	long long rep;
	uint64_t hash;
	struct gp_tally t;
	struct dbuf ttft, tpot;		/* paired requests */
	double tmin, tmax;		/* span of t_sent_s */
	long nt;
	double duration_s;		/* from run_end, NaN when none */
	const char *duration_from;
	double good_rps;		/* good_fraction × achieved_rps: over the send window */
	double good_rps_drain;		/* good / duration_s: the drain tail included */
	double achieved_rps;		/* run_end achieved_rps (summed over shards), or the span */
	const char *achieved_from, *good_rps_from;
	long n_achieved;
	long run;			/* index in ri of the run that owns this rep, -1 */
	struct gp_turns *turns;		/* its session turns (turns.h), NULL when none */
};

struct runend {
	char *run, *arm, *shard;
	double rate;
	long long rep;
	int keyed;			/* arm, rate_rps and rep present */
	long attempted;
	double duration_s, achieved_rps;
	char *file;
	unsigned long line;
};

struct runid {
	char *id;
	long requests;
	long group;
	const char *file;		/* where it was first seen (a request) */
	unsigned long line;
};

struct key {
	char *arm;
	double rate;
	long long rep;
};

struct state {
	struct group *g;
	size_t ng, capg;
	size_t *slot;			/* open addressing over g, SIZE_MAX = empty */
	size_t nslot;
	struct runend *re;
	size_t nre, capre;
	struct runid *ri;
	size_t nri, capri;
	json_t *runmap;			/* run id → index in ri */
	struct key *disc;
	size_t ndisc, capdisc;
	struct gp_map *discset;		/* the discarded (arm, rate, rep), built by discarded() */
	int saw_validity;
	long requests;
};

/*
 * FNV-1a 64 from a basis one digit short of FNV's (1469598103934665603, not
 * 14695981039346656037): kept as it was, because the bootstrap streams are
 * seeded through it and seeded intervals must stay reproducible.
 */
static uint64_t fnv1a(const char *s)
{
	return gp_fnv1a64(1469598103934665603ULL, s, strlen(s));
}

static uint64_t dbits(double d)
{
	uint64_t u;

	if (d == 0)
		d = 0;	/* -0.0 and 0.0 key alike */
	memcpy(&u, &d, sizeof(u));
	return u;
}

static uint64_t key_hash(const char *arm, double rate, long long rep)
{
	return gp_mix64(fnv1a(arm) ^ gp_mix64(dbits(rate) + GP_GOLDEN64) ^
		     gp_mix64((uint64_t)rep * 0x2545f4914f6cdd1dULL + 1));
}

static void rehash(struct state *s)
{
	size_t n = s->nslot ? 2 * s->nslot : 64;

	free(s->slot);
	s->slot = gp_xrealloc(NULL, n * sizeof(*s->slot));
	for (size_t i = 0; i < n; i++)
		s->slot[i] = SIZE_MAX;
	s->nslot = n;
	for (size_t i = 0; i < s->ng; i++) {
		size_t j = s->g[i].hash & (n - 1);

		while (s->slot[j] != SIZE_MAX)
			j = (j + 1) & (n - 1);
		s->slot[j] = i;
	}
}

static struct group *group_get(struct state *s, const char *arm, double rate, long long rep)
{
	static size_t last = SIZE_MAX;
	uint64_t h;
	size_t j;

	if (last < s->ng) {
		struct group *g = &s->g[last];

		if (g->rate == rate && g->rep == rep && !strcmp(g->arm, arm))
			return g;
	}
	h = key_hash(arm, rate, rep);
	if (2 * (s->ng + 1) > s->nslot)
		rehash(s);
	for (j = h & (s->nslot - 1); s->slot[j] != SIZE_MAX; j = (j + 1) & (s->nslot - 1)) {
		struct group *g = &s->g[s->slot[j]];

		if (g->hash == h && g->rate == rate && g->rep == rep && !strcmp(g->arm, arm)) {
			last = s->slot[j];
			return g;
		}
	}
	GP_XGROW(s->g, s->ng, s->capg, 64);
	struct group *g = &s->g[s->ng];
	memset(g, 0, sizeof(*g));
	g->arm = gp_xstrdup(arm);
	g->rate = rate;
	g->rep = rep;
	g->hash = h;
	g->duration_s = NAN;
	g->good_rps = g->good_rps_drain = g->achieved_rps = NAN;
	g->run = -1;
	gp_tally_init(&g->t);
	s->slot[j] = s->ng;
	last = s->ng;
	return &s->g[s->ng++];
}

static struct group *group_find(struct state *s, const char *arm, double rate, long long rep)
{
	uint64_t h = key_hash(arm, rate, rep);

	if (!s->nslot)
		return NULL;
	for (size_t j = h & (s->nslot - 1); s->slot[j] != SIZE_MAX; j = (j + 1) & (s->nslot - 1)) {
		struct group *g = &s->g[s->slot[j]];

		if (g->hash == h && g->rate == rate && g->rep == rep && !strcmp(g->arm, arm))
			return g;
	}
	return NULL;
}

static size_t runid_get(struct state *s, const char *id)
{
	static size_t last = SIZE_MAX;
	json_t *v;

	if (last < s->nri && !strcmp(s->ri[last].id, id))
		return last;
	v = json_object_get(s->runmap, id);
	if (v)
		return last = (size_t)json_integer_value(v);
	GP_XGROW(s->ri, s->nri, s->capri, 32);
	s->ri[s->nri] = (struct runid){gp_xstrdup(id), 0, -1, NULL, 0};
	json_object_set_new(s->runmap, id, json_integer((json_int_t)s->nri));
	return last = s->nri++;
}

/* ---- reading records ---- */

/* An optional number: NaN when absent or null; exit 65 when another type. */
static double opt_num(const json_t *o, const char *k, const char *file, unsigned long line)
{
	double v;

	return gp_may_num(o, k, file, line, &v) ? v : NAN;
}

static double need_latency(const json_t *o, const char *k, const char *file, unsigned long line)
{
	double v = gp_need_num(o, k, file, line);

	if (v < 0)
		gp_die_at(GP_EXIT_DATAERR, file, line, "field '%s' is negative", k);
	return v;
}

/* The fields of a request record that the analysis uses. */
struct reqf {
	const char *arm, *run;	/* run may be NULL */
	enum gp_outcome oc;
	double rate, ttft, tpot, ts;	/* NaN when absent */
	long long rep;
	const char *session;	/* NULL outside a session */
	long turn;		/* >= 1 with a session */
};

/* A session's request into its rep's by-turn breakdown (turns.h). */
static void add_turn(struct group *g, const struct gp_slo *slo, const struct reqf *r)
{
	if (!g->turns) {
		g->turns = gp_xmalloc(sizeof(*g->turns));
		gp_turns_init(g->turns);
	}
	if (gp_turns_add(g->turns, slo, r->session, r->turn, r->oc, r->ttft, r->tpot))
		gp_die_nomem();
}

static void add_request(struct state *s, const struct gp_slo *slo, const struct reqf *r,
			const char *file, unsigned long line)
{
	struct group *g = group_get(s, r->arm, r->rate, r->rep);

	gp_tally_add(&g->t, slo, r->oc, r->ttft, r->tpot);
	if (r->session)
		add_turn(g, slo, r);
	if (r->oc == GP_OUTCOME_OK) {
		dpush(&g->ttft, r->ttft);
		dpush(&g->tpot, r->tpot);
	}
	if (!isnan(r->ts)) {
		if (!g->nt || r->ts < g->tmin)
			g->tmin = r->ts;
		if (!g->nt || r->ts > g->tmax)
			g->tmax = r->ts;
		g->nt++;
	}
	if (r->run) {
		size_t i = runid_get(s, r->run);

		s->ri[i].requests++;
		if (s->ri[i].group < 0) {
			s->ri[i].group = g - s->g;
			s->ri[i].file = file;
			s->ri[i].line = line;
		} else if (s->ri[i].group != g - s->g) {
			gp_die_at(GP_EXIT_DATAERR, file, line, "run '%s' has requests of two reps "
				  "(arm '%s', rate %g rps, rep %lld and another): a run is one rep",
				  r->run, g->arm, g->rate, g->rep);
		}
		if (g->run < 0)
			g->run = (long)i;
		else if (g->run != (long)i)
			gp_die_at(GP_EXIT_DATAERR, file, line, "runs '%s' and '%s' both claim arm '%s', "
				  "rate %g rps, rep %lld (first seen at %s:%lu): a rep is one run; give "
				  "each run its own --rep", s->ri[g->run].id, r->run, g->arm, g->rate,
				  g->rep, s->ri[g->run].file, s->ri[g->run].line);
	}
	s->requests++;
}

/* A request's session and turn: both, or neither (null counts as absent). */
static void read_turn(const json_t *o, struct reqf *r, const char *file, unsigned long line)
{
	long long t = 0;
	int e = gp_json_str(o, "session", &r->session), et = gp_json_int(o, "turn", &t);

	if (e == GP_JSON_TYPE)
		gp_die_at(GP_EXIT_DATAERR, file, line, "field 'session' is not a string");
	if (e)
		r->session = NULL;
	if (et == GP_JSON_TYPE)
		gp_die_at(GP_EXIT_DATAERR, file, line, "field 'turn' is not an integer");
	if (r->session && (et || t < 1 || t > 0x7fffffffLL))
		gp_die_at(GP_EXIT_DATAERR, file, line, "field 'turn' must be an integer >= 1 with 'session'");
	r->turn = r->session ? (long)t : 0;
}

/*
 * A request record through jansson, with the checks that name file:line and
 * the field: the reference path (and the one that words every error).
 */
static void read_request(struct state *s, const struct gp_slo *slo, const json_t *o,
			 const char *file, unsigned long line)
{
	struct reqf r = {.ttft = NAN, .tpot = NAN};
	const char *outs;

	r.arm = gp_need_str(o, "arm", file, line);
	r.rate = gp_need_num(o, "rate_rps", file, line);
	r.rep = gp_need_int(o, "rep", file, line);
	outs = gp_need_str(o, "outcome", file, line);
	if (gp_outcome_parse(outs, &r.oc))
		gp_die_at(GP_EXIT_DATAERR, file, line,
			  "field 'outcome' is '%s', not ok, single_token or failed", outs);
	if (r.rate < 0)
		gp_die_at(GP_EXIT_DATAERR, file, line, "field 'rate_rps' is negative");
	switch (r.oc) {
	case GP_OUTCOME_OK:
		r.ttft = need_latency(o, "ttft_ms", file, line);
		r.tpot = need_latency(o, "tpot_ms", file, line);
		break;
	case GP_OUTCOME_SINGLE_TOKEN:
		r.ttft = need_latency(o, "ttft_ms", file, line);
		break;
	case GP_OUTCOME_FAILED:
		r.ttft = opt_num(o, "ttft_ms", file, line);
		break;
	}
	r.ts = opt_num(o, "t_sent_s", file, line);
	if (gp_json_str(o, "run", &r.run))
		r.run = NULL;
	read_turn(o, &r, file, line);
	add_request(s, slo, &r, file, line);
}

/*
 * The fast path: most of a campaign's bytes are flat request records, and
 * building a jansson tree for each costs most of the run.  fast_request()
 * reads one line with io/flat (which gives up on anything jansson might read
 * otherwise) and returns 1 when it is a request record that passes every
 * check of read_request(), and 0 otherwise — another record type, a missing
 * or mistyped field, anything unusual — and then the caller takes the
 * jansson path, which accepts the record or words the error.  So both paths
 * accept exactly the same records with the same values.  On success the
 * strings are NUL-terminated in place (the line is consumed).
 */
enum { F_TYPE, F_ARM, F_RATE, F_REP, F_OUTCOME, F_TTFT, F_TPOT, F_TS, F_RUN, F_SESSION, F_TURN, F_N };
static const char *const fname[F_N] = {
	"type", "arm", "rate_rps", "rep", "outcome", "ttft_ms", "tpot_ms", "t_sent_s", "run",
	"session", "turn",
};
static const size_t flen[F_N] = { 4, 3, 8, 3, 7, 7, 7, 8, 3, 7, 4 };

/* The fast path's read_turn: 0 with r->session, r->turn set; 1 for the
 * jansson path (anything but a string session with a turn in range, or
 * neither). */
static int fast_turn(struct gp_flat_val *f, struct reqf *r)
{
	enum gp_flat_kind ks = f[F_SESSION].kind, kt = f[F_TURN].kind;
	long long turn;

	r->session = NULL;
	r->turn = 0;
	if ((ks != GP_FLAT_ABSENT && ks != GP_FLAT_STRING && ks != GP_FLAT_NULL) ||
	    (kt != GP_FLAT_ABSENT && kt != GP_FLAT_INT && kt != GP_FLAT_NULL) ||
	    (ks == GP_FLAT_STRING && (kt != GP_FLAT_INT || f[F_TURN].n > 10 || f[F_TURN].p[0] == '-')))
		return 1;
	if (ks != GP_FLAT_STRING)
		return 0;
	if (gp_flat_int(&f[F_TURN], &turn) || turn < 1 || turn > 0x7fffffffLL)
		return 1;
	r->turn = (long)turn;
	r->session = gp_flat_cstr(&f[F_SESSION]);
	return 0;
}

static int fast_request(char *line, size_t len, struct reqf *r)
{
	struct gp_flat_val f[F_N];

	if (gp_flat_scan(line, len, fname, flen, F_N, f))
		return 0;
	/* The checks of read_request(); any doubt goes to the jansson path. */
	if (!gp_flat_is(&f[F_TYPE], "request") || f[F_ARM].kind != GP_FLAT_STRING ||
	    f[F_OUTCOME].kind != GP_FLAT_STRING)
		return 0;
	if (f[F_RATE].kind != GP_FLAT_INT && f[F_RATE].kind != GP_FLAT_REAL)
		return 0;
	if (f[F_REP].kind != GP_FLAT_INT || f[F_REP].n > 15)
		return 0;
	if (gp_flat_is(&f[F_OUTCOME], "ok"))
		r->oc = GP_OUTCOME_OK;
	else if (gp_flat_is(&f[F_OUTCOME], "single_token"))
		r->oc = GP_OUTCOME_SINGLE_TOKEN;
	else if (gp_flat_is(&f[F_OUTCOME], "failed"))
		r->oc = GP_OUTCOME_FAILED;
	else
		return 0;
	if (gp_flat_num(&f[F_RATE], &r->rate) || r->rate < 0 || gp_flat_num(&f[F_TTFT], &r->ttft) ||
	    gp_flat_num(&f[F_TS], &r->ts))
		return 0;
	r->tpot = NAN;
	if (r->oc == GP_OUTCOME_OK && (gp_flat_num(&f[F_TPOT], &r->tpot) || isnan(r->tpot) ||
				       r->tpot < 0))
		return 0;
	if (r->oc != GP_OUTCOME_FAILED && (isnan(r->ttft) || r->ttft < 0))
		return 0;
	if (f[F_RUN].kind != GP_FLAT_ABSENT && f[F_RUN].kind != GP_FLAT_STRING)
		return 0;
	if (fast_turn(f, r))
		return 0;
	if (gp_flat_int(&f[F_REP], &r->rep))
		return 0;
	r->arm = gp_flat_cstr(&f[F_ARM]);
	r->run = gp_flat_cstr(&f[F_RUN]);
	return 1;
}

static void read_run_end(struct state *s, const json_t *o, const char *file, unsigned long line)
{
	struct runend r = {0};
	const char *str = NULL;
	long long att;
	double d;

	if (!gp_may_int(o, "attempted", file, line, &att))
		return;	/* nothing to cross-check */
	if (att < 0)
		gp_die_at(GP_EXIT_DATAERR, file, line, "field 'attempted' is negative");
	r.attempted = (long)att;
	if (gp_json_str(o, "run", &str) == 0)
		r.run = gp_xstrdup(str);
	if (gp_json_str(o, "arm", &str) == 0 && gp_json_num(o, "rate_rps", &r.rate) == 0 &&
	    gp_json_int(o, "rep", &r.rep) == 0) {
		r.arm = gp_xstrdup(str);
		r.keyed = 1;
	}
	d = opt_num(o, "duration_s", file, line);
	r.duration_s = d > 0 ? d : NAN;
	d = opt_num(o, "achieved_rps", file, line);
	r.achieved_rps = d > 0 ? d : NAN;
	if (gp_json_str(o, "shard", &str) == 0)
		r.shard = gp_xstrdup(str);
	r.file = gp_xstrdup(file);
	r.line = line;
	GP_XGROW(s->re, s->nre, s->capre, 32);
	s->re[s->nre++] = r;
}

static void read_discard(struct state *s, const json_t *o)
{
	const char *arm;
	double rate;
	long long rep;

	if (gp_json_str(o, "arm", &arm) || gp_json_num(o, "rate_rps", &rate) ||
	    gp_json_int(o, "rep", &rep))
		return;
	GP_XGROW(s->disc, s->ndisc, s->capdisc, 16);
	s->disc[s->ndisc++] = (struct key){gp_xstrdup(arm), rate, rep};
}

/* (arm, rate, rep) as one map key: the rate's exact bits (-0 as 0), the rep,
 * the arm last, so no two keys collide.  Freed by the caller. */
static char *key_str(const char *arm, double rate, long long rep)
{
	return gp_xasprintf("%a %lld %s", rate == 0 ? 0.0 : rate, rep, arm);
}

/* Was (arm, rate, rep) discarded?  A set built from the discard records at
 * the first call (after reading): a scan of them per run_end was quadratic. */
static int discarded(struct state *s, const char *arm, double rate, long long rep)
{
	char *k;
	int has;

	if (!s->discset) {
		s->discset = gp_map_new();
		for (size_t i = 0; i < s->ndisc; i++) {
			k = key_str(s->disc[i].arm, s->disc[i].rate, s->disc[i].rep);
			gp_map_add(s->discset, k);
			free(k);
		}
	}
	k = key_str(arm, rate, rep);
	has = gp_map_has(s->discset, k);
	free(k);
	return has;
}

/* The URL of a run header (distinct values kept, for the baseline's provenance). */
static json_t *a_urls;

static void note_url(const json_t *o)
{
	const char *url;
	size_t i;
	json_t *v;

	if (gp_json_str(o, "url", &url))
		return;
	if (!a_urls)
		a_urls = json_array();
	json_array_foreach(a_urls, i, v)
		if (!strcmp(json_string_value(v), url))
			return;
	json_array_append_new(a_urls, json_string(url));
}

static void read_input(struct state *s, const struct gp_slo *slo, char **paths, int n,
		       struct gp_spool *spool)
{
	struct gp_input in;
	char *line;
	size_t len;
	/* GP_ANALYZE_SLOW=1 turns the fast path off (the tests compare both). */
	const char *slow = getenv("GP_ANALYZE_SLOW");
	int e, fast = !(slow && *slow && strcmp(slow, "0"));

	gp_input_init(&in, paths, n);
	while ((e = gp_input_next(&in, &line, &len)) == GP_NDJSON_LINE) {
		const char *file = gp_input_name(&in), *type;
		unsigned long ln = gp_input_line(&in);
		struct reqf r;
		json_t *o;

		gp_stop_point(NULL);
		if (spool && gp_spool_put(spool, line, len))
			gp_die(GP_EXIT_SOFTWARE, "cannot spool the pass-through: %s", strerror(errno));
		if (fast && fast_request(line, len, &r)) {
			add_request(s, slo, &r, file, ln);
			continue;
		}
		o = gp_input_need_object(&in, line, len);
		type = gp_json_type(o);
		if (!type)
			gp_die_at(GP_EXIT_DATAERR, file, ln, "field 'type' is missing");
		if (!strcmp(type, "request"))
			read_request(s, slo, o, file, ln);
		else if (!strcmp(type, "run_end"))
			read_run_end(s, o, file, ln);
		else if (!strcmp(type, "discard"))
			read_discard(s, o);
		else if (!strcmp(type, "validity"))
			s->saw_validity = 1;
		else if (!strcmp(type, "run"))
			note_url(o);
		else if (!strcmp(type, "idle_baseline"))
			json_array_append(idle_recs, o);
		json_decref(o);
	}
	if (e < 0)
		gp_input_failed(&in, e);
	gp_input_release(&in);
}

/* Two run_ends of one run and shard: the first pair in file order dies, as a
 * scan of every earlier run_end per run_end found it, through a map of
 * (run, shard) to the first run_end (that scan was quadratic in runs). */
static void check_duplicate_trailers(const struct state *s)
{
	struct gp_map *seen = gp_map_new();

	for (size_t i = 0; i < s->nre; i++) {
		const struct runend *x, *y = &s->re[i];
		char *k;
		size_t j, n = gp_map_count(seen);

		if (!y->run)
			continue;
		k = gp_xasprintf("%s%c%s%s", y->run, 0, y->shard ? "1" : "0", y->shard ? y->shard : "");
		j = gp_map_addn(seen, k, strlen(y->run) + 2 + (y->shard ? strlen(y->shard) : 0));
		free(k);
		if (j == n) {
			gp_map_set_u64(seen, j, i);
			continue;
		}
		x = &s->re[gp_map_u64(seen, j)];
		{
			gp_die_at(GP_EXIT_DATAERR, y->file, y->line, "run '%s'%s%s: a second run_end "
				  "(the first at %s:%lu): the run's records were duplicated (the same "
				  "file fed twice?)", y->run, y->shard ? " shard " : "",
				  y->shard ? y->shard : "", x->file, x->line);
		}
	}
	gp_map_free(seen);
}

static void die_count(const struct runend *r, long have, long want)
{
	gp_die_at(GP_EXIT_DATAERR, r->file, r->line, "run '%s'%s%s%s: %ld request records but "
		  "run_end says attempted %ld: request records were %s", r->run ? r->run : "?",
		  r->keyed ? " (arm '" : "", r->keyed ? r->arm : "", r->keyed ? "')" : "", have, want,
		  have > want ? "duplicated" : "lost");
}

/*
 * Cross-check the run_ends' attempted counts against the request records of
 * their run (by run id, the shards' counts summed; or by (arm, rate, rep)
 * when the requests carry no run id), and take the run's duration and
 * achieved rate.  Runs that gp-verify discarded (a discard record names them)
 * are exempt: their records were dropped on purpose.
 */
static void check_runs(struct state *s)
{
	/* The attempted counts summed once per run id (want_run) and per
	 * (arm, rate, rep) of the run_ends whose run no request carries (bykey):
	 * each run_end summing every run_end was quadratic in runs. */
	long *want_run = gp_xcalloc(s->nri + 1, sizeof(*want_run));
	struct gp_map *bykey = gp_map_new();

	check_duplicate_trailers(s);
	for (size_t k = 0; k < s->nre; k++) {
		json_t *v = s->re[k].run ? json_object_get(s->runmap, s->re[k].run) : NULL;

		if (v) {
			want_run[json_integer_value(v)] += s->re[k].attempted;
		} else if (s->re[k].keyed) {
			char *key = key_str(s->re[k].arm, s->re[k].rate, s->re[k].rep);
			size_t j = gp_map_add(bykey, key);

			gp_map_set_u64(bykey, j, gp_map_u64(bykey, j) + (uint64_t)s->re[k].attempted);
			free(key);
		}
	}
	for (size_t i = 0; i < s->nre; i++) {
		struct runend *r = &s->re[i];
		struct group *g = NULL;
		long have = -1, want = 0;
		json_t *v = r->run ? json_object_get(s->runmap, r->run) : NULL;

		if (r->keyed && discarded(s, r->arm, r->rate, r->rep))
			continue;
		if (v) {
			struct runid *ri = &s->ri[json_integer_value(v)];

			have = ri->requests;
			g = &s->g[ri->group];
			want = want_run[json_integer_value(v)];
		} else if (r->keyed) {
			char *key = key_str(r->arm, r->rate, r->rep);

			/* No requests carry this run id: match by (arm, rate, rep), summing
			 * the attempted counts of every such run_end (shards). */
			g = group_find(s, r->arm, r->rate, r->rep);
			have = g ? g->t.attempted : 0;
			want = (long)gp_map_u64(bykey, gp_map_find(bykey, key));
			free(key);
		} else {
			have = 0;
			want = r->attempted;
		}
		if (have != want)
			die_count(r, have, want);
		if (!g)
			continue;
		if (!isnan(r->duration_s) && (isnan(g->duration_s) || r->duration_s > g->duration_s)) {
			g->duration_s = r->duration_s;
			g->duration_from = "run_end";
		}
		if (!isnan(r->achieved_rps)) {
			g->achieved_rps = g->n_achieved ? g->achieved_rps + r->achieved_rps : r->achieved_rps;
			g->n_achieved++;
			g->achieved_from = "run_end";
		}
	}
	free(want_run);
	gp_map_free(bykey);
}

/* ---- the SLO ---- */

static void die_nomem(int r)
{
	if (r)
		gp_die_nomem();
}

struct slo_info {
	struct gp_slo slo;
	const char *origin;
	long baseline_requests;
	/* provenance of a baseline SLO (method/baseline.h holds the rule) */
	struct gp_baseline b;
	char *url;
	json_t *ok;		/* [[ttft_ms, tpot_ms], …] of its ok requests, for --pass */
};

/* One baseline record: its arm, rate, url and validity, and its ok latencies. */
static void baseline_record(struct slo_info *si, const json_t *o, const char *file,
			    unsigned long ln)
{
	const char *type = gp_json_type(o), *arm, *url;

	if (type && !strcmp(type, "validity")) {
		si->b.validity = 1;
	} else if (type && !strcmp(type, "run") && gp_json_str(o, "url", &url) == 0 && !si->url) {
		si->url = gp_xstrdup(url);
	} else if (type && !strcmp(type, "request")) {
		const char *outs = gp_need_str(o, "outcome", file, ln);
		double rate = gp_need_num(o, "rate_rps", file, ln);
		int r;

		arm = gp_need_str(o, "arm", file, ln);
		r = gp_baseline_request(&si->b, arm, rate);
		if (r == GP_BASELINE_TWO_ARMS)
			gp_die_at(GP_EXIT_DATAERR, file, ln, "the baseline has requests of arms '%s' "
				  "and '%s': a baseline is one arm, unloaded", si->b.arm, arm);
		die_nomem(r);
		if (!strcmp(outs, "ok")) {
			double a = need_latency(o, "ttft_ms", file, ln), b = need_latency(o, "tpot_ms", file, ln);

			die_nomem(gp_baseline_ok(&si->b, a, b));
			json_array_append_new(si->ok, json_pack("[f,f]", a, b));
		}
	}
}

/*
 * The SLO from an unloaded baseline (method §9.1): it must have passed the
 * validity filter (unless --no-validity), and come from one arm; its rate and
 * URL are recorded so that the slo record can say whether it was a low rate on
 * the same path as the arms.
 */
static void baseline_slo(const struct opts *op, struct slo_info *si)
{
	struct gp_input in;
	char *paths[1] = {(char *)op->baseline};
	enum gp_slo_stat st = GP_SLO_P50;
	json_t *o;
	int e;

	si->ok = json_array();
	gp_baseline_init(&si->b);
	gp_input_init(&in, paths, 1);
	while ((e = gp_input_next_json(&in, &o)) == GP_NDJSON_LINE) {
		gp_stop_point(NULL);
		baseline_record(si, o, gp_input_name(&in), gp_input_line(&in));
		json_decref(o);
	}
	if (e < 0)
		gp_input_failed(&in, e);
	gp_input_release(&in);
	(void)gp_slo_stat_parse(op->slo_stat, &st);	/* checked by the option */
	e = gp_baseline_slo(&si->b, st, op->multiple, !op->no_validity, &si->slo);
	if (e == GP_BASELINE_UNVERIFIED)
		gp_die_at(GP_EXIT_DATAERR, op->baseline, 0, "the baseline has not passed the validity "
			  "filter (no 'validity' record): pipe it through 'gp-verify validity' first, or "
			  "pass --no-validity");
	if (e == GP_BASELINE_EMPTY)
		gp_die_at(GP_EXIT_DATAERR, op->baseline, 0,
			  "no ok request records to derive the SLO from");
	si->origin = "baseline";
	si->baseline_requests = (long)si->b.n;
}

/*
 * With --pass, the baseline's ok latencies, copied as they were read, so that
 * the integrity check can re-derive the SLO (share/awk/slo.awk).
 */
static void emit_baseline(struct gp_out *out, const struct slo_info *si)
{
	size_t i;
	json_t *v;

	json_array_foreach(si->ok, i, v) {
		json_t *o = json_pack("{s:s, s:s, s:O, s:O}", "type", "baseline_request", "arm", si->b.arm,
				      "ttft_ms", json_array_get(v, 0), "tpot_ms", json_array_get(v, 1));

		gp_stop_point(out);
		if (gp_out_json(out, o))
			gp_output_failed(out);
		json_decref(o);
	}
}

/* ---- analysis ---- */

struct cell {			/* one (arm, rate): its reps are g[g0 .. g0 + n) */
	const char *arm;
	double rate;
	size_t g0, n;
	double *gf;		/* per-rep good fractions */
	double *grps;		/* per-rep good_rps (send window; NaN when unknown) */
	double *ach;		/* per-rep achieved_rps */
	double mean, sd, cv, goodput_rps, goodput_drain, achieved;
	double floor_var;	/* binomial floor of a rep's good-fraction variance */
};

struct an {
	const struct opts *op;
	struct state *s;
	struct cell *c;
	size_t nc, capc;
	struct gp_out out;
	json_t *table;		/* rows for the stderr summary */
	const struct cell **knee;	/* per arm, in order: its knee cell or NULL */
	size_t nknee, capknee;
};

static int group_cmp(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	int c = strcmp(x->arm, y->arm);

	if (c)
		return c;
	if (x->rate != y->rate)
		return x->rate < y->rate ? -1 : 1;
	return (x->rep > y->rep) - (x->rep < y->rep);
}

/* A reproducible stream per statistic: seed, what, arm, rate, other arm. */
static void stream(struct gp_rng *r, const struct opts *op, const char *what, const char *arm,
		   double rate, const char *vs)
{
	uint64_t h = gp_mix64(op->seed ^ 0x6770616e616c797aULL);

	h = gp_mix64(h ^ fnv1a(what));
	h = gp_mix64(h ^ fnv1a(arm));
	h = gp_mix64(h ^ dbits(rate));
	h = gp_mix64(h ^ fnv1a(vs ? vs : ""));
	gp_rng_seed(r, h);
}

/* Every derived record goes out here: the first SIGINT/SIGTERM stops the
 * analysis at this record boundary (cli.h), output closed, exit 128+N. */
static void emit(struct an *a, json_t *rec)
{
	gp_stop_point(&a->out);
	if (gp_out_json(&a->out, rec))
		gp_output_failed(&a->out);
	json_decref(rec);
}

static json_t *jnum_or_null(double v)
{
	return gp_json_real(v);
}

/* An integer when v is whole (a count of accelerators), else a real. */
static json_t *jcount(double v)
{
	return v == floor(v) && fabs(v) < 9e15 ? json_integer((json_int_t)v) : gp_json_real(v);
}

static json_t *ci_json(const struct gp_ci *c, const char *method)
{
	json_t *o = json_object();

	json_object_set_new(o, "est", jnum_or_null(c->est));
	json_object_set_new(o, "lo", jnum_or_null(c->lo));
	json_object_set_new(o, "hi", jnum_or_null(c->hi));
	json_object_set_new(o, "level", json_real(c->level));
	json_object_set_new(o, "method", json_string(method));
	if (strcmp(method, "bca") && strcmp(method, "percentile"))
		json_object_set_new(o, "interval", json_string(c->bca ? "bca" : "percentile"));
	json_object_set_new(o, "degenerate", json_boolean(c->degenerate));
	json_object_set_new(o, "resamples", json_integer(c->resamples));
	return o;
}

/* The arms' lowest rung (the URLs are in a_urls), for the baseline's provenance. */
static double a_min_rate = INFINITY;

static json_t *slo_record(const struct opts *op, const struct slo_info *si, double accel)
{
	json_t *o = json_object();
	int base = !strcmp(si->origin, "baseline");

	idle_slo = si->slo;
	idle_stat = base ? op->slo_stat : "p50";
	json_object_set_new(o, "type", json_string("slo"));
	gp_json_set_real(o, "ttft_ms", si->slo.ttft_ms);
	gp_json_set_real(o, "tpot_ms", si->slo.tpot_ms);
	json_object_set_new(o, "origin", json_string(si->origin));
	json_object_set_new(o, "baseline_stat", base ? json_string(op->slo_stat) : json_null());
	json_object_set_new(o, "multiple", base ? json_real(op->multiple) : json_null());
	json_object_set_new(o, "baseline_requests",
			    base ? json_integer(si->baseline_requests) : json_null());
	json_object_set_new(o, "baseline_file", base ? json_string(op->baseline) : json_null());
	if (base) {
		int low = si->b.rate <= a_min_rate, same = si->url && a_urls &&
			  json_array_size(a_urls) == 1 &&
			  !strcmp(json_string_value(json_array_get(a_urls, 0)), si->url);

		json_object_set_new(o, "baseline_arm", json_string(si->b.arm));
		gp_json_set_real(o, "baseline_rate_rps", si->b.rate);
		json_object_set_new(o, "baseline_url", si->url ? json_string(si->url) : json_null());
		json_object_set_new(o, "baseline_validity", json_boolean(si->b.validity));
		json_object_set_new(o, "baseline_low_rate", json_boolean(low));
		json_object_set_new(o, "baseline_same_url", !si->url || !a_urls || !json_array_size(a_urls) ?
				    json_null() : json_boolean(same));
	}
	json_object_set_new(o, "single_token",
			    json_string(si->slo.single == GP_SINGLE_MISS ? "miss" : "ttft"));
	json_object_set_new(o, "seed", json_integer((json_int_t)op->seed));
	json_object_set_new(o, "resamples", json_integer(op->resamples));
	json_object_set_new(o, "level", json_real(op->level));
	json_object_set_new(o, "target", json_real(op->target));
	json_object_set_new(o, "min_reps", json_integer(op->min_reps));
	json_object_set_new(o, "accelerators", isnan(accel) ? json_null() : jcount(accel));
	json_object_set_new(o, "accelerators_from", json_string(op->fleet ? "fleet" :
			    !isnan(op->accelerators) ? "option" : "none"));
	return o;
}

/* The send-window and drain figures of every rep, then its goodfrac record. */
static void do_goodfrac(struct an *a)
{
	struct state *s = a->s;

	for (size_t i = 0; i < s->ng; i++) {
		struct group *g = &s->g[i];
		json_t *o = json_object();
		double dur = g->duration_s, gf = gp_tally_fraction(&g->t);

		if (isnan(dur) && g->nt >= 2 && g->tmax > g->tmin) {
			dur = g->tmax - g->tmin;
			g->duration_from = "t_sent_span";
		}
		if (!g->n_achieved && g->nt >= 2 && g->tmax > g->tmin) {
			g->achieved_rps = (double)(g->nt - 1) / (g->tmax - g->tmin);
			g->achieved_from = "t_sent_span";
		}
		g->duration_s = dur;
		g->good_rps_drain = dur > 0 ? (double)g->t.good / dur : NAN;
		/* The headline is over the send window; without one (no t_sent_s, no
		 * achieved_rps) the drain-inclusive figure stands in, and says so. */
		g->good_rps = !isnan(g->achieved_rps) ? gf * g->achieved_rps : g->good_rps_drain;
		g->good_rps_from = !isnan(g->achieved_rps) ? "send_window" :
				   !isnan(g->good_rps_drain) ? "duration" : NULL;
		json_object_set_new(o, "type", json_string("goodfrac"));
		json_object_set_new(o, "arm", json_string(g->arm));
		gp_json_set_real(o, "rate_rps", g->rate);
		json_object_set_new(o, "rep", json_integer(g->rep));
		json_object_set_new(o, "run", g->run >= 0 ? json_string(s->ri[g->run].id) : json_null());
		json_object_set_new(o, "attempted", json_integer(g->t.attempted));
		json_object_set_new(o, "good", json_integer(g->t.good));
		json_object_set_new(o, "paired", json_integer(g->t.paired));
		json_object_set_new(o, "single_token", json_integer(g->t.single_token));
		json_object_set_new(o, "failed", json_integer(g->t.failed));
		gp_json_set_real(o, "good_fraction", gf);
		json_object_set_new(o, "good_single_token", json_integer(g->t.good_single));
		gp_json_set_real(o, "achieved_rps", g->achieved_rps);
		json_object_set_new(o, "achieved_from",
				    g->achieved_from ? json_string(g->achieved_from) : json_null());
		gp_json_set_real(o, "rate_deviation", g->rate > 0 ? g->achieved_rps / g->rate - 1 : NAN);
		gp_json_set_real(o, "good_rps", g->good_rps);
		json_object_set_new(o, "good_rps_from",
				    g->good_rps_from ? json_string(g->good_rps_from) : json_null());
		gp_json_set_real(o, "good_rps_drain", g->good_rps_drain);
		gp_json_set_real(o, "duration_s", dur);
		json_object_set_new(o, "duration_from",
				    g->duration_from ? json_string(g->duration_from) : json_null());
		emit(a, o);
	}
}

/* Mean of x[0..n), NaN unless every value is a number. */
static double mean_all(const double *x, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (isnan(x[k]))
			return NAN;
	return gp_mean(x, n);
}

static void build_cells(struct an *a)
{
	struct state *s = a->s;

	for (size_t i = 0; i < s->ng;) {
		size_t j = i;
		struct cell *c;
		long good = 0, att = 0;

		while (j < s->ng && s->g[j].rate == s->g[i].rate && !strcmp(s->g[j].arm, s->g[i].arm))
			j++;
		GP_XGROW(a->c, a->nc, a->capc, 16);
		c = &a->c[a->nc++];
		c->arm = s->g[i].arm;
		c->rate = s->g[i].rate;
		c->g0 = i;
		c->n = j - i;
		c->gf = gp_xrealloc(NULL, c->n * sizeof(*c->gf));
		c->grps = gp_xrealloc(NULL, c->n * sizeof(*c->grps));
		c->ach = gp_xrealloc(NULL, c->n * sizeof(*c->ach));
		double *drain = gp_xrealloc(NULL, c->n * sizeof(*drain));
		for (size_t k = 0; k < c->n; k++) {
			const struct group *g = &s->g[i + k];

			c->gf[k] = gp_tally_fraction(&g->t);
			c->grps[k] = g->good_rps;
			c->ach[k] = g->achieved_rps;
			drain[k] = g->good_rps_drain;
			good += g->t.good;
			att += g->t.attempted;
		}
		c->mean = gp_mean(c->gf, c->n);
		c->sd = gp_sd(c->gf, c->n);
		c->cv = gp_cv(c->gf, c->n);
		c->floor_var = gp_binom_floor_var(good, att, c->n);
		c->goodput_rps = mean_all(c->grps, c->n);
		c->goodput_drain = mean_all(drain, c->n);
		c->achieved = mean_all(c->ach, c->n);
		free(drain);
		i = j;
	}
}

/*
 * One `turns` record per (arm, rate) whose requests carry sessions: the
 * reps pooled (counts summed, TTFT quantiles over every rep's samples,
 * each rep's sessions its own).
 */
static void do_turns(struct an *a)
{
	for (size_t i = 0; i < a->nc; i++) {
		const struct cell *c = &a->c[i];
		struct gp_turns all;
		json_t *o, *by;
		long ns, ng;
		int any = 0;

		gp_turns_init(&all);
		for (size_t k = 0; k < c->n; k++)
			if (a->s->g[c->g0 + k].turns) {
				if (gp_turns_merge(&all, a->s->g[c->g0 + k].turns))
					gp_die_nomem();
				any = 1;
			}
		if (!any) {
			gp_turns_release(&all);
			continue;
		}
		o = json_object();
		by = json_array();
		json_object_set_new(o, "type", json_string("turns"));
		json_object_set_new(o, "arm", json_string(c->arm));
		gp_json_set_real(o, "rate_rps", c->rate);
		json_object_set_new(o, "reps", json_integer((json_int_t)c->n));
		for (int b = 0; b < GP_TURNS_NB; b++) {
			json_t *t = json_object();

			json_object_set_new(t, "turn", json_string(gp_turns_name(b)));
			json_object_set_new(t, "attempted", json_integer(all.t[b].attempted));
			json_object_set_new(t, "good", json_integer(all.t[b].good));
			json_object_set_new(t, "failed", json_integer(all.t[b].failed));
			gp_json_set_real(t, "good_fraction", gp_tally_fraction(&all.t[b]));
			gp_json_set_real(t, "ttft_p50_ms", gp_turns_ttft(&all, b, 0.5));
			gp_json_set_real(t, "ttft_p90_ms", gp_turns_ttft(&all, b, 0.9));
			json_array_append_new(by, t);
		}
		json_object_set_new(o, "by_turn", by);
		gp_turns_sessions(&all, &ns, &ng);
		json_object_set_new(o, "sessions", json_integer(ns));
		json_object_set_new(o, "sessions_good", json_integer(ng));
		gp_json_set_real(o, "session_good_fraction", ns ? (double)ng / (double)ns : NAN);
		emit(a, o);
		gp_turns_release(&all);
	}
}

/* A per-rep interval (tost.h) as a CI object. */
static json_t *tint_json(const struct gp_tint *t, const char *method)
{
	json_t *o = json_object();

	gp_json_set_real(o, "est", t->est);
	gp_json_set_real(o, "lo", t->lo);
	gp_json_set_real(o, "hi", t->hi);
	json_object_set_new(o, "level", json_real(t->level));
	json_object_set_new(o, "method", json_string(method));
	gp_json_set_real(o, "df", t->df);
	json_object_set_new(o, "floored", json_boolean(t->floored));
	json_object_set_new(o, "degenerate", json_boolean(t->degenerate));
	return o;
}

static const double qp[3] = {0.5, 0.9, 0.99};
static const char *const qname[3] = {"p50", "p90", "p99"};

/*
 * Quantile CIs, each flagged `sparse` when the sample is too small for the
 * BCa interval of that quantile to keep its coverage: fewer than 5/(1 − p)
 * values (p99 under 500, p90 under 50, p50 under 10).  Measured by
 * bench/bench-coverage.sh on lognormal latencies: the 95 % BCa interval of
 * p99 covers 60 % at n = 100, 85 % at 200, 94.5 % at 500 and above.
 */
static json_t *quantile_obj(const struct gp_ci *ci, const char *method, size_t n)
{
	json_t *o = json_object();

	for (int k = 0; k < 3; k++) {
		json_t *q = ci_json(&ci[k], method);
		double need = ceil(5 / (1 - qp[k]) - 1e-9);

		json_object_set_new(q, "n", json_integer((json_int_t)n));
		json_object_set_new(q, "sparse", json_boolean((double)n < need));
		json_object_set_new(o, qname[k], q);
	}
	return o;
}

static void latency(struct an *a, const struct cell *c, json_t *o, int which)
{
	const char *name = which ? "tpot_ms" : "ttft_ms";
	char cname[32];
	struct state *s = a->s;
	size_t total = 0, k = 0;
	const double **reps = gp_xrealloc(NULL, c->n * sizeof(*reps));
	size_t *n = gp_xrealloc(NULL, c->n * sizeof(*n));
	struct gp_ci ci[3];
	struct gp_rng rng;
	double *pool;

	for (size_t r = 0; r < c->n; r++) {
		struct dbuf *b = which ? &s->g[c->g0 + r].tpot : &s->g[c->g0 + r].ttft;

		gp_sort_doubles(b->v, b->n);
		reps[r] = b->v;
		n[r] = b->n;
		total += b->n;
	}
	pool = gp_xrealloc(NULL, total * sizeof(*pool));
	for (size_t r = 0; r < c->n; r++) {
		if (n[r])
			memcpy(pool + k, reps[r], n[r] * sizeof(*pool));
		k += n[r];
	}
	gp_sort_doubles(pool, total);
	stream(&rng, a->op, name, c->arm, c->rate, NULL);
	die_nomem(gp_boot_quantiles(pool, total, qp, 3, a->op->resamples, a->op->level, &rng, ci));
	json_object_set_new(o, name, quantile_obj(ci, "bca", total));
	snprintf(cname, sizeof(cname), "%s_cluster", name);
	stream(&rng, a->op, cname, c->arm, c->rate, NULL);
	die_nomem(gp_boot_cluster_quantiles(reps, n, c->n, qp, 3, a->op->resamples, a->op->level,
					    &rng, ci));
	json_object_set_new(o, cname, quantile_obj(ci, "cluster", total));
	free(pool);
	free(reps);
	free(n);
}

static void do_summaries(struct an *a)
{
	struct state *s = a->s;

	for (size_t i = 0; i < a->nc; i++) {
		struct cell *c = &a->c[i];
		json_t *o = json_object();
		struct gp_tally tot;
		struct gp_ci ci;
		struct gp_tint ti;
		struct gp_rng rng;

		gp_tally_init(&tot);
		for (size_t r = 0; r < c->n; r++) {
			const struct gp_tally *t = &s->g[c->g0 + r].t;

			tot.attempted += t->attempted;
			tot.good += t->good;
			tot.paired += t->paired;
			tot.single_token += t->single_token;
			tot.failed += t->failed;
		}
		json_object_set_new(o, "type", json_string("arm_summary"));
		json_object_set_new(o, "arm", json_string(c->arm));
		gp_json_set_real(o, "rate_rps", c->rate);
		json_object_set_new(o, "reps", json_integer((json_int_t)c->n));
		gp_json_set_real(o, "mean_good_fraction", c->mean);
		gp_json_set_real(o, "sd_good_fraction", c->sd);
		gp_json_set_real(o, "cv", c->cv);
		latency(a, c, o, 0);
		latency(a, c, o, 1);
		gp_t_interval(c->gf, c->n, c->floor_var, a->op->level, &ti);
		json_object_set_new(o, "good_fraction_ci", tint_json(&ti, "t"));
		stream(&rng, a->op, "good_fraction_pooled", c->arm, c->rate, NULL);
		die_nomem(gp_boot_proportion(tot.good, tot.attempted, a->op->resamples, a->op->level,
					     &rng, &ci));
		json_object_set_new(o, "good_fraction_pooled", ci_json(&ci, "bca"));
		gp_json_set_real(o, "achieved_rps", c->achieved);
		gp_json_set_real(o, "goodput_rps", c->goodput_rps);
		gp_json_set_real(o, "goodput_rps_drain", c->goodput_drain);
		json_object_set_new(o, "attempted", json_integer(tot.attempted));
		json_object_set_new(o, "good", json_integer(tot.good));
		json_object_set_new(o, "paired", json_integer(tot.paired));
		json_object_set_new(o, "single_token", json_integer(tot.single_token));
		json_object_set_new(o, "failed", json_integer(tot.failed));
		if (a->table)
			json_array_append(a->table, o);
		emit(a, o);
	}
}

static const struct cell *cell_of(const struct an *a, const char *arm, double rate)
{
	for (size_t i = 0; i < a->nc; i++)
		if (a->c[i].rate == rate && !strcmp(a->c[i].arm, arm))
			return &a->c[i];
	return NULL;
}

static int arm_present(const struct an *a, const char *arm)
{
	for (size_t i = 0; i < a->nc; i++)
		if (!strcmp(a->c[i].arm, arm))
			return 1;
	return 0;
}

/* The noise floor of a cell: its t-interval over reps; half-width NaN under 3 reps. */
static double noise_half_width(const struct an *a, const struct cell *c, struct gp_tint *ti)
{
	gp_t_interval(c->gf, c->n, c->floor_var, a->op->level, ti);
	return gp_verdict_noise_half_width(ti->half_width, c->n);
}

static void do_floor(struct an *a)
{
	for (size_t i = 0; i < a->nc; i++) {
		const struct cell *c = &a->c[i];
		struct gp_tint ti;
		double hw;
		json_t *o;
		char why[128];

		if (strcmp(c->arm, a->op->floor))
			continue;
		hw = noise_half_width(a, c, &ti);
		o = json_object();
		json_object_set_new(o, "type", json_string("noise_floor"));
		json_object_set_new(o, "arm", json_string(c->arm));
		gp_json_set_real(o, "rate_rps", c->rate);
		json_object_set_new(o, "reps", json_integer((json_int_t)c->n));
		gp_json_set_real(o, "mean", c->mean);
		gp_json_set_real(o, "half_width", hw);
		gp_json_set_real(o, "lo", isnan(hw) ? NAN : ti.lo);
		gp_json_set_real(o, "hi", isnan(hw) ? NAN : ti.hi);
		json_object_set_new(o, "level", json_real(a->op->level));
		json_object_set_new(o, "method", json_string("t"));
		gp_json_set_real(o, "df", ti.df);
		json_object_set_new(o, "floored", json_boolean(ti.floored));
		json_object_set_new(o, "degenerate", json_boolean(ti.degenerate));
		json_object_set_new(o, "resolvable", json_boolean(!isnan(hw)));
		json_object_set_new(o, "reason", isnan(hw) ?
				    json_string(gp_verdict_noise_reason(c->n, why, sizeof(why))) : json_null());
		emit(a, o);
	}
}

enum { POWER_REP_CAP = 1000 };

/*
 * What each rung of the floor arm can resolve (power.h): the noise floor's
 * half-width — the smallest difference in good fraction the rung's reps and
 * requests resolve — against --delta, and what would resolve delta: the reps
 * at this run length, or the requests per rep (and the run length at the
 * rung's achieved rate) at these reps, the between-rep variance beyond the
 * binomial one held as it is.
 */
static void do_power(struct an *a)
{
	const struct opts *op = a->op;

	for (size_t i = 0; i < a->nc; i++) {
		const struct cell *c = &a->c[i];
		long good = 0, att = 0;
		double v, nbar, p, tau2, hw, req;
		size_t reps;
		json_t *o;

		if (strcmp(c->arm, op->floor))
			continue;
		for (size_t r = 0; r < c->n; r++) {
			good += a->s->g[c->g0 + r].t.good;
			att += a->s->g[c->g0 + r].t.attempted;
		}
		nbar = c->n ? (double)att / (double)c->n : NAN;
		p = att > 0 ? ((double)good + 0.5) / ((double)att + 1) : NAN;
		v = c->n >= 2 ? fmax(c->sd * c->sd, c->floor_var) : NAN;
		tau2 = c->n >= 2 ? fmax(0, c->sd * c->sd - p * (1 - p) / nbar) : NAN;
		hw = c->n >= GP_VERDICT_FLOOR_MIN_REPS ? gp_power_half_width(v, c->n, op->level) : NAN;
		o = json_object();
		json_object_set_new(o, "type", json_string("power"));
		json_object_set_new(o, "arm", json_string(c->arm));
		gp_json_set_real(o, "rate_rps", c->rate);
		json_object_set_new(o, "reps", json_integer((json_int_t)c->n));
		gp_json_set_real(o, "requests_per_rep", nbar);
		gp_json_set_real(o, "mean", c->mean);
		gp_json_set_real(o, "between_rep_var", tau2);
		gp_json_set_real(o, "half_width", hw);
		json_object_set_new(o, "level", json_real(op->level));
		gp_json_set_real(o, "delta", op->delta);
		json_object_set_new(o, "resolvable", isnan(hw) || isnan(op->delta) ? json_null() :
				    json_boolean(op->delta >= hw));
		reps = isnan(op->delta) ? 0 : gp_power_reps(v, op->delta, op->level, POWER_REP_CAP);
		reps = reps && (long)reps < op->min_reps ? (size_t)op->min_reps : reps;
		json_object_set_new(o, "reps_for_delta", reps ? json_integer((json_int_t)reps) : json_null());
		req = isnan(op->delta) || c->n < GP_VERDICT_FLOOR_MIN_REPS ? 0 :
		      gp_power_requests(p, tau2, c->n, op->delta, op->level);
		json_object_set_new(o, "requests_for_delta", req > 0 ? jcount(req) : json_null());
		gp_json_set_real(o, "duration_s_for_delta", req > 0 && c->achieved > 0 ?
				 req / c->achieved : NAN);
		json_object_set_new(o, "method", json_string("t"));
		emit(a, o);
	}
}

static json_t *tost_null(const struct an *a, const char *why)
{
	json_t *t = json_object();
	static const char *const none[] = {"lo90", "hi90", "p_lower", "p_upper", "p", "df",
					   "noise_half_width"};

	json_object_set_new(t, "delta", json_real(a->op->delta));
	json_object_set_new(t, "alpha", json_real(a->op->alpha));
	json_object_set_new(t, "level", json_real(1 - 2 * a->op->alpha));
	for (size_t k = 0; k < sizeof(none) / sizeof(none[0]); k++)
		json_object_set_new(t, none[k], json_null());
	json_object_set_new(t, "equivalent", json_false());
	json_object_set_new(t, "resolvable", json_null());
	json_object_set_new(t, "degenerate", json_false());
	json_object_set_new(t, "method", json_string("welch_tost"));
	json_object_set_new(t, "reason", json_string(why));
	return t;
}

/*
 * Welch TOST with the binomial floors.  Equivalence is claimed only when the
 * (1 − 2α) CI lies inside ±δ, both arms have min_reps reps, and δ is at least
 * the noise floor's half-width (of the --floor arm at the rate, else of the
 * comparator): a margin below it is one the run cannot resolve.
 */
static json_t *tost_json(const struct an *a, const struct cell *x, const struct cell *y,
			 int *equivalent)
{
	const struct cell *nf = a->op->floor ? cell_of(a, a->op->floor, x->rate) : NULL;
	struct gp_tost t;
	struct gp_tint ti;
	json_t *o;
	double hw;
	int r = gp_tost_welch_floor(x->gf, x->n, x->floor_var, y->gf, y->n, y->floor_var,
				    a->op->delta, a->op->alpha, &t);
	const char *why;
	int res;

	*equivalent = 0;
	if (r)
		return tost_null(a, "TOST needs at least 2 reps in each arm");
	hw = noise_half_width(a, nf ? nf : y, &ti);
	o = json_object();
	json_object_set_new(o, "delta", json_real(a->op->delta));
	json_object_set_new(o, "alpha", json_real(a->op->alpha));
	json_object_set_new(o, "level", json_real(1 - 2 * a->op->alpha));
	gp_json_set_real(o, "lo90", t.lo);
	gp_json_set_real(o, "hi90", t.hi);
	gp_json_set_real(o, "p_lower", t.p_lower);
	gp_json_set_real(o, "p_upper", t.p_upper);
	gp_json_set_real(o, "p", t.p);
	gp_json_set_real(o, "df", t.df);
	gp_json_set_real(o, "noise_half_width", hw);
	res = gp_verdict_resolvable(hw, a->op->delta);
	json_object_set_new(o, "resolvable", res < 0 ? json_null() : json_boolean(res));
	why = gp_verdict_tost_distrust(x->n, y->n, a->op->min_reps, hw, a->op->delta);
	*equivalent = t.equivalent && !why;
	json_object_set_new(o, "equivalent", json_boolean(*equivalent));
	json_object_set_new(o, "tost_passed", json_boolean(t.equivalent));
	json_object_set_new(o, "degenerate", json_boolean(t.degenerate));
	json_object_set_new(o, "method", json_string("welch_tost"));
	json_object_set_new(o, "reason", why ? json_string(why) : json_null());
	return o;
}

static void compare_one(struct an *a, const struct cell *x, const char *vs, int with_tost)
{
	const struct cell *y = cell_of(a, vs, x->rate);
	json_t *o = json_object(), *tj = NULL;
	const char *verdict = "INCONCLUSIVE", *reason = NULL;
	struct gp_tint ti;
	int eq = 0;
	char why[96];

	json_object_set_new(o, "type", json_string("compare"));
	json_object_set_new(o, "arm", json_string(x->arm));
	json_object_set_new(o, "vs", json_string(vs));
	gp_json_set_real(o, "rate_rps", x->rate);
	json_object_set_new(o, "level", json_real(a->op->level));
	json_object_set_new(o, "method", json_string("welch"));
	if (!y) {
		static const char *const none[] = {"diff", "lo", "hi", "df"};

		for (size_t k = 0; k < sizeof(none) / sizeof(none[0]); k++)
			json_object_set_new(o, none[k], json_null());
		json_object_set_new(o, "verdict", json_string(verdict));
		json_object_set_new(o, "reason", json_string("the comparator arm has no runs at this rate"));
		if (with_tost)
			json_object_set_new(o, "tost", tost_null(a, "no comparator runs at this rate"));
		emit(a, o);
		return;
	}
	if (gp_welch_interval(x->gf, x->n, x->floor_var, y->gf, y->n, y->floor_var, a->op->level,
			      &ti))
		reason = "an interval needs at least 2 reps in each arm";
	if (with_tost)
		tj = tost_json(a, x, y, &eq);
	verdict = gp_verdict_name(gp_verdict_of(x->n, y->n, a->op->min_reps, !reason, ti.lo, ti.hi,
						eq, &reason, why, sizeof(why)));
	gp_json_set_real(o, "diff", ti.est);
	gp_json_set_real(o, "lo", ti.lo);
	gp_json_set_real(o, "hi", ti.hi);
	gp_json_set_real(o, "df", ti.df);
	json_object_set_new(o, "verdict", json_string(verdict));
	json_object_set_new(o, "reps", json_integer((json_int_t)x->n));
	json_object_set_new(o, "reps_vs", json_integer((json_int_t)y->n));
	json_object_set_new(o, "min_reps", json_integer(a->op->min_reps));
	gp_json_set_real(o, "mean_good_fraction", x->mean);
	gp_json_set_real(o, "mean_good_fraction_vs", y->mean);
	json_object_set_new(o, "floored", json_boolean(ti.floored));
	json_object_set_new(o, "degenerate", json_boolean(ti.degenerate));
	json_object_set_new(o, "reason", reason ? json_string(reason) : json_null());
	if (tj)
		json_object_set_new(o, "tost", tj);
	if (a->table)
		json_array_append(a->table, o);
	emit(a, o);
}

/* Whether --compare asked for arm against vs. */
static int pair_asked(const struct opts *op, const char *arm, const char *vs)
{
	for (size_t k = 0; k < op->npairs; k++)
		if (!strcmp(op->pairs[2 * k], arm) && !strcmp(op->pairs[2 * k + 1], vs))
			return 1;
	return 0;
}

/*
 * Per cell: against the floor, against the equivalence arm, then each
 * --compare pair of this arm in the order given.  A pair whose comparator is
 * the floor or the equivalence arm is that record (with the TOST), not a
 * second one.
 */
static void do_compare(struct an *a)
{
	const struct opts *op = a->op;

	for (size_t i = 0; i < a->nc; i++) {
		const struct cell *c = &a->c[i];

		if (op->floor && strcmp(c->arm, op->floor))
			compare_one(a, c, op->floor, (op->equiv && !strcmp(op->equiv, op->floor)) ||
				    pair_asked(op, c->arm, op->floor));
		if (op->equiv && strcmp(c->arm, op->equiv) &&
		    !(op->floor && !strcmp(op->equiv, op->floor)))
			compare_one(a, c, op->equiv, 1);
		for (size_t k = 0; k < op->npairs; k++) {
			const char *vs = op->pairs[2 * k + 1];

			if (strcmp(op->pairs[2 * k], c->arm) || (op->floor && !strcmp(vs, op->floor)) ||
			    (op->equiv && !strcmp(vs, op->equiv)))
				continue;
			compare_one(a, c, vs, 1);
		}
	}
}

/* Where the knee sits on the ladder, and what to do about an edge.  No rung
 * clearing the target with a member that cannot meet the SLO unloaded (its
 * idle_baseline, design.h's rule) is not a ladder to extend. */
static void knee_edge(json_t *o, const struct gp_knee *k)
{
	const char *edge = gp_knee_edge_name(k->edge), *advice = gp_knee_advice(k);
	enum gp_knee_edge e = k->edge;
	struct gp_buf b = { 0 };
	size_t i;
	json_t *r;

	json_object_set_new(o, "edge", edge ? json_string(edge) : json_null());
	json_array_foreach(e == GP_KNEE_BELOW ? idle_recs : NULL, i, r) {
		const char *name = NULL;
		char why[400];

		if (gp_design_idle_feasible(r, idle_stat, idle_slo.ttft_ms, idle_slo.tpot_ms, idle_margin,
					    why, sizeof(why)) || !why[0])
			continue;
		if (gp_json_str(r, "backend", &name) || !name)
			gp_json_str(r, "endpoint", &name);
		buf_printf(&b, "%sSLO infeasible for member %s at idle (%s)", b.len ? "; " : "",
			      name ? name : "?", why);
	}
	if (b.len) {
		buf_printf(&b, ": no rate reaches the target and extending the ladder cannot help");
		json_object_set_new(o, "advice", json_string(b.p));
	} else {
		json_object_set_new(o, "advice", advice ? json_string(advice) : json_null());
	}
	gp_buf_release(&b);
}

/* The binomial floor carried to goodput = good_fraction × achieved_rps. */
static double goodput_floor(const struct cell *c)
{
	double f = c->floor_var * c->achieved * c->achieved;

	return isnan(f) ? 0 : f;
}

/* Why the per-accelerator figures of a knee are null (accelerators unknown), else null. */
static json_t *accel_reason(double accel)
{
	return isnan(accel) ?
	       json_string("per-accelerator figures need --accelerators N or --fleet FILE") :
	       json_null();
}

/* The goodput interval at a knee cell, per accelerator when accel is known. */
static void knee_goodput(const struct an *a, const struct cell *c, double accel, json_t *o,
			 struct gp_tint *ti)
{
	json_t *ci;

	gp_t_interval(c->grps, c->n, goodput_floor(c), a->op->level, ti);
	gp_json_set_real(o, "goodput_rps", c->goodput_rps);
	gp_json_set_real(o, "goodput_rps_drain", c->goodput_drain);
	json_object_set_new(o, "goodput_ci", tint_json(ti, "t"));
	json_object_set_new(o, "accelerators", isnan(accel) ? json_null() : jcount(accel));
	gp_json_set_real(o, "goodput_rps_per_accel", c->goodput_rps / accel);
	ci = isnan(accel) ? json_null() : tint_json(ti, "t");	/* null without accelerators */
	if (!isnan(accel)) {
		gp_json_set_real(ci, "est", ti->est / accel);
		gp_json_set_real(ci, "lo", ti->lo / accel);
		gp_json_set_real(ci, "hi", ti->hi / accel);
	}
	json_object_set_new(o, "goodput_per_accel_ci", ci);
	json_object_set_new(o, "accelerators_reason", accel_reason(accel));
}

static void knee_crossing(const struct an *a, const struct cell *c, const struct cell *d,
			  json_t *o)
{
	struct gp_tint ti;

	if (!d) {
		json_object_set_new(o, "crossing_rate_rps", json_null());
		json_object_set_new(o, "crossing_ci", json_null());
		json_object_set_new(o, "crossing_method",
				    json_string("none: every rung above the knee clears the target"));
		return;
	}
	/* Linear interpolation of the good-fraction curve between the last rung
	 * at/above the target and the next (below it), with a delta-method CI. */
	gp_crossing_interval(c->rate, c->gf, c->n, c->floor_var, d->rate, d->gf, d->n,
			     d->floor_var, a->op->target, a->op->level, &ti);
	gp_json_set_real(o, "crossing_rate_rps", ti.est);
	json_object_set_new(o, "crossing_ci", tint_json(&ti, "delta_t"));
	json_object_set_new(o, "crossing_method", json_string("linear_interpolation"));
}

/* The curve of cells c[0 .. n): rate, achieved rate, mean good fraction. */
static json_t *knee_curve(const struct cell *c, size_t n)
{
	json_t *curve = json_array();

	for (size_t r = 0; r < n; r++) {
		json_t *pt = json_object();

		gp_json_set_real(pt, "rate_rps", c[r].rate);
		gp_json_set_real(pt, "achieved_rps", c[r].achieved);
		gp_json_set_real(pt, "mean_good_fraction", c[r].mean);
		json_array_append_new(curve, pt);
	}
	return curve;
}

/* The knee record's figures when no rung clears the target. */
static void knee_none(json_t *o, double accel)
{
	static const char *const none[] = {
		"rate_rps", "achieved_rps", "good_fraction", "goodput_rps",
		"goodput_rps_drain", "goodput_ci", "goodput_rps_per_accel",
		"goodput_per_accel_ci", "crossing_rate_rps", "crossing_ci", "reps",
	};

	for (size_t q = 0; q < sizeof(none) / sizeof(none[0]); q++)
		json_object_set_new(o, none[q], json_null());
	json_object_set_new(o, "accelerators", isnan(accel) ? json_null() : jcount(accel));
	json_object_set_new(o, "accelerators_reason", accel_reason(accel));
	json_object_set_new(o, "crossing_method", json_string("none: no rung clears the target"));
}

/*
 * Bracketed or a bound: the knee is a point only with a clearing rung below a
 * failing one (edge null or "first").  A knee on the top rung (edge "last",
 * or a one-rung ladder that clears) is a lower bound: the knee is at or above
 * rate_rps, and so is its goodput.  No clearing rung (edge "below", or a
 * one-rung ladder that fails) is an upper bound: the knee is below the
 * lowest rung, bound_rate_rps.
 */
static void knee_bound(json_t *o, const struct gp_knee *k, const struct cell *c, size_t n)
{
	const char *bound = NULL;

	if (k->rung == GP_KNEE_NONE)
		bound = "upper";
	else if (k->next == GP_KNEE_NONE)
		bound = "lower";
	json_object_set_new(o, "bracketed", json_boolean(!bound));
	json_object_set_new(o, "bound", bound ? json_string(bound) : json_null());
	gp_json_set_real(o, "bound_rate_rps", !bound ? NAN : k->rung == GP_KNEE_NONE ? c[0].rate :
			 c[k->rung].rate);
	(void)n;
}

/* One arm's knee record over its cells c[0 .. n); the knee cell or NULL. */
static const struct cell *knee_one(struct an *a, const struct cell *c, size_t n, double accel)
{
	json_t *o = json_object();
	double *mean = gp_xrealloc(NULL, n * sizeof(*mean));
	const struct cell *kc = NULL;
	struct gp_knee k;

	for (size_t r = 0; r < n; r++)
		mean[r] = c[r].mean;
	gp_knee_pick(mean, n, a->op->target, &k);
	free(mean);
	json_object_set_new(o, "type", json_string("knee"));
	json_object_set_new(o, "arm", json_string(c[0].arm));
	json_object_set_new(o, "target", json_real(a->op->target));
	json_object_set_new(o, "method", json_string("highest_rung"));
	if (k.rung != GP_KNEE_NONE) {
		struct gp_tint ti;

		kc = &c[k.rung];
		gp_json_set_real(o, "rate_rps", kc->rate);
		gp_json_set_real(o, "achieved_rps", kc->achieved);
		gp_json_set_real(o, "good_fraction", kc->mean);
		knee_goodput(a, kc, accel, o, &ti);
		knee_crossing(a, kc, k.next != GP_KNEE_NONE ? &c[k.next] : NULL, o);
		json_object_set_new(o, "reps", json_integer((json_int_t)kc->n));
	} else {
		knee_none(o, accel);
	}
	knee_edge(o, &k);
	knee_bound(o, &k, c, n);
	json_object_set_new(o, "rungs", json_integer((json_int_t)n));
	json_object_set_new(o, "monotone", json_boolean(k.monotone));
	json_object_set_new(o, "curve", knee_curve(c, n));
	if (a->table)
		json_array_append(a->table, o);
	emit(a, o);
	return kc;
}

static void do_knee(struct an *a, double accel)
{
	for (size_t i = 0; i < a->nc;) {
		size_t j = i;

		while (j < a->nc && !strcmp(a->c[j].arm, a->c[i].arm))
			j++;
		GP_XGROW(a->knee, a->nknee, a->capknee, 8);
		a->knee[a->nknee++] = knee_one(a, &a->c[i], j - i, accel);
		i = j;
	}
}

/* 1 when c is the highest rung of its arm (nothing above it was run). */
static int top_rung(const struct an *a, const struct cell *c)
{
	for (size_t i = 0; i < a->nc; i++)
		if (a->c[i].rate > c->rate && !strcmp(a->c[i].arm, c->arm))
			return 0;
	return 1;
}

/*
 * The headline's figures of a knee_compare: the goodput of each knee (per
 * accelerator when known) with its t-interval, the ratio arm/floor with
 * Fieller's interval (gp_ratio_interval; the accelerators cancel), and what
 * a knee that is a bound does to them.  A knee on the top rung is a lower
 * bound on the knee and its goodput: over a floor knee that is a point the
 * ratio and the difference are lower bounds ("lower"), and only a WIN
 * stands; an arm's point over a floor's lower bound gives upper bounds
 * ("upper"), and only a LOSS stands; two lower bounds say nothing
 * ("indeterminate").  The verdict is made INCONCLUSIVE where a bound leaves
 * it unsupported, with the reason.
 */
static void knee_ratio(const struct an *a, const struct cell *x, const struct cell *f, double accel,
		       json_t *o, const char **verdict, const char **reason)
{
	static char why[200];
	struct gp_tint tx, tf, tr;
	double scale = isnan(accel) ? 1 : accel;
	int bx = top_rung(a, x), bf = top_rung(a, f), ok;
	const char *bound = bx && bf ? "indeterminate" : bx ? "lower" : bf ? "upper" : NULL;
	json_t *ci;

	gp_t_interval(x->grps, x->n, goodput_floor(x), a->op->level, &tx);
	gp_t_interval(f->grps, f->n, goodput_floor(f), a->op->level, &tf);
	gp_json_set_real(o, "goodput", tx.est / scale);
	gp_json_set_real(o, "goodput_lo", tx.lo / scale);
	gp_json_set_real(o, "goodput_hi", tx.hi / scale);
	gp_json_set_real(o, "goodput_vs", tf.est / scale);
	gp_json_set_real(o, "goodput_vs_lo", tf.lo / scale);
	gp_json_set_real(o, "goodput_vs_hi", tf.hi / scale);
	ok = !gp_ratio_interval(x->grps, x->n, goodput_floor(x), f->grps, f->n, goodput_floor(f),
				a->op->level, &tr);
	gp_json_set_real(o, "ratio", tr.est);
	ci = tint_json(&tr, "fieller");
	if (!ok) {
		json_object_set_new(ci, "lo", json_null());
		json_object_set_new(ci, "hi", json_null());
	}
	json_object_set_new(o, "ratio_ci", ci);
	json_object_set_new(o, "ratio_reason", ok ? json_null() : json_string(
		x->n < 2 || f->n < 2 ? "a ratio interval needs at least 2 reps with a goodput in each arm" :
		"the floor's goodput is not resolved from zero: Fieller's interval is unbounded"));
	json_object_set_new(o, "bound", bound ? json_string(bound) : json_null());
	if (!bound || (!strcmp(bound, "lower") && !strcmp(*verdict, "WIN")) ||
	    (!strcmp(bound, "upper") && !strcmp(*verdict, "LOSS")) ||
	    !strcmp(*verdict, "INSUFFICIENT_REPS"))
		return;
	if (strcmp(*verdict, "INCONCLUSIVE") || !*reason) {
		snprintf(why, sizeof(why), "%s: %s", bx && bf ? "both knees are on their top rung (lower "
			 "bounds)" : bx ? "the arm's knee is on its top rung (a lower bound)" :
			 "the floor's knee is on its top rung (a lower bound)",
			 bx && bf ? "their ratio is unknown" : "the interval bounds the difference "
			 "from one side only");
		*reason = why;
	}
	*verdict = "INCONCLUSIVE";
}

/* knee_ratio's fields when the floor arm has no knee. */
static void knee_ratio_none(json_t *o)
{
	static const char *const none[] = {
		"goodput", "goodput_lo", "goodput_hi", "goodput_vs", "goodput_vs_lo", "goodput_vs_hi",
		"ratio", "ratio_ci", "bound",
	};

	for (size_t q = 0; q < sizeof(none) / sizeof(none[0]); q++)
		json_object_set_new(o, none[q], json_null());
	json_object_set_new(o, "ratio_reason", json_string("the floor arm has no knee"));
}

/*
 * The two arms' knees compared: every arm with a knee against the --floor
 * arm's knee, Welch's interval of the difference of per-rep goodput at each
 * one's knee rung (per accelerator when known), with the compare verdicts.
 */
static void do_knee_compare(struct an *a, double accel)
{
	const struct cell *f = NULL;

	for (size_t i = 0; i < a->nknee; i++)
		if (a->knee[i] && !strcmp(a->knee[i]->arm, a->op->floor))
			f = a->knee[i];
	for (size_t i = 0; i < a->nknee; i++) {
		const struct cell *x = a->knee[i];
		struct gp_tint ti;
		const char *verdict = "INCONCLUSIVE", *reason = NULL;
		double scale = isnan(accel) ? 1 : accel;
		json_t *o;
		char why[96];

		if (!x || !strcmp(x->arm, a->op->floor))
			continue;
		o = json_object();
		json_object_set_new(o, "type", json_string("knee_compare"));
		json_object_set_new(o, "arm", json_string(x->arm));
		json_object_set_new(o, "vs", json_string(a->op->floor));
		gp_json_set_real(o, "rate_rps", x->rate);
		gp_json_set_real(o, "rate_rps_vs", f ? f->rate : NAN);
		json_object_set_new(o, "per_accel", json_boolean(!isnan(accel)));
		if (!f) {
			reason = "the floor arm has no knee (no rung clears the target)";
			ti = (struct gp_tint){.est = NAN, .lo = NAN, .hi = NAN, .df = NAN,
					      .level = a->op->level};
		} else if (gp_welch_interval(x->grps, x->n, goodput_floor(x), f->grps, f->n,
					     goodput_floor(f), a->op->level, &ti)) {
			reason = "an interval needs at least 2 reps with a goodput in each arm";
			verdict = gp_verdict_name(gp_verdict_of(x->n, f->n, a->op->min_reps, 0, NAN, NAN,
								0, NULL, why, sizeof(why)));
		} else {
			verdict = gp_verdict_name(gp_verdict_of(x->n, f->n, a->op->min_reps, 1, ti.lo, ti.hi,
								0, &reason, why, sizeof(why)));
		}
		gp_json_set_real(o, "diff_goodput", ti.est / scale);
		gp_json_set_real(o, "lo", ti.lo / scale);
		gp_json_set_real(o, "hi", ti.hi / scale);
		gp_json_set_real(o, "df", ti.df);
		json_object_set_new(o, "level", json_real(a->op->level));
		json_object_set_new(o, "method", json_string("welch"));
		if (f)
			knee_ratio(a, x, f, accel, o, &verdict, &reason);
		else
			knee_ratio_none(o);
		json_object_set_new(o, "verdict", json_string(verdict));
		json_object_set_new(o, "reason", reason ? json_string(reason) : json_null());
		emit(a, o);
	}
}

/* ---- the stderr summary (terminal only) ---- */

/* A number with `prec` decimals (prec < 0: %g, prec >= 100: signed), or "-". */
static const char *fmtd(char *buf, size_t n, int prec, json_t *v)
{
	if (!v || json_is_null(v))
		snprintf(buf, n, "-");
	else if (prec < 0)
		snprintf(buf, n, "%g", json_number_value(v));
	else if (prec >= 100)
		snprintf(buf, n, "%+.*f", prec - 100, json_number_value(v));
	else
		snprintf(buf, n, "%.*f", prec, json_number_value(v));
	return buf;
}

static void print_table(json_t *rows)
{
	size_t i;
	json_t *r;
	char b[6][32];

	fprintf(stderr, "%-16s %9s %4s %8s %7s %9s %9s %9s\n", "arm", "rate_rps", "reps", "good",
		"cv", "ttft_p50", "ttft_p99", "good_rps");
	json_array_foreach(rows, i, r) {
		const char *type = gp_json_type(r);

		if (strcmp(type, "arm_summary"))
			continue;
		json_t *tt = json_object_get(r, "ttft_ms");
		fprintf(stderr, "%-16s %9s %4lld %8s %7s %9s %9s %9s\n",
			json_string_value(json_object_get(r, "arm")),
			fmtd(b[0], 32, -1, json_object_get(r, "rate_rps")),
			(long long)json_integer_value(json_object_get(r, "reps")),
			fmtd(b[1], 32, 4, json_object_get(r, "mean_good_fraction")),
			fmtd(b[2], 32, 3, json_object_get(r, "cv")),
			fmtd(b[3], 32, 1, json_object_get(json_object_get(tt, "p50"), "est")),
			fmtd(b[4], 32, 1, json_object_get(json_object_get(tt, "p99"), "est")),
			fmtd(b[5], 32, 3, json_object_get(r, "goodput_rps")));
	}
	json_array_foreach(rows, i, r) {
		if (strcmp(gp_json_type(r), "compare"))
			continue;
		json_t *t = json_object_get(r, "tost");
		fprintf(stderr, "compare %s vs %s at %s rps: diff %s [%s, %s]: %s%s\n",
			json_string_value(json_object_get(r, "arm")),
			json_string_value(json_object_get(r, "vs")),
			fmtd(b[0], 32, -1, json_object_get(r, "rate_rps")),
			fmtd(b[1], 32, 104, json_object_get(r, "diff")),
			fmtd(b[2], 32, 104, json_object_get(r, "lo")),
			fmtd(b[3], 32, 104, json_object_get(r, "hi")),
			json_string_value(json_object_get(r, "verdict")),
			t ? (json_is_true(json_object_get(t, "equivalent")) ? "; TOST: equivalent" :
			     "; TOST: not equivalent") : "");
	}
	json_array_foreach(rows, i, r) {
		if (strcmp(gp_json_type(r), "knee"))
			continue;
		fprintf(stderr, "knee %s: rate %s rps, good fraction %s, goodput %s rps, crossing %s rps\n",
			json_string_value(json_object_get(r, "arm")),
			fmtd(b[0], 32, -1, json_object_get(r, "rate_rps")),
			fmtd(b[1], 32, 4, json_object_get(r, "good_fraction")),
			fmtd(b[2], 32, 3, json_object_get(r, "goodput_rps")),
			fmtd(b[3], 32, 3, json_object_get(r, "crossing_rate_rps")));
	}
}

/* ---- self-check ---- */

static int self_check(void)
{
	struct gp_tap tap = { 0 };
	int failed = gp_statcheck_run(gp_tap, &tap);

	gp_tap_plan(&tap);
	if (failed < 0)
		gp_die_nomem();
	gp_stdout_close();
	return failed ? GP_EXIT_NEGATIVE : GP_EXIT_OK;
}

/* ---- main ---- */

static double fleet_accelerators(const char *path)
{
	struct gp_fleet f;
	char err[512];
	double sum = 0;

	gp_fleet_init(&f);
	if (gp_fleet_load(&f, path, err, sizeof(err)))
		gp_die_at(GP_EXIT_DATAERR, path, 0, "%s", err);
	for (size_t i = 0; i < f.n_backends; i++)
		sum += (double)f.backends[i].accelerators;
	gp_fleet_release(&f);
	if (!(sum > 0))
		gp_die_at(GP_EXIT_DATAERR, path, 0, "the backends have no accelerators");
	return sum;
}

/* --compare ARM:VS: two distinct, non-empty arm names (split at the first ':'). */
static void add_pair(struct opts *op, char *arg)
{
	char *colon = strchr(arg, ':');

	if (!colon)
		gp_usage_error("--compare: '%s' is not ARM:VS", arg);
	*colon = '\0';
	if (!*arg || !colon[1] || !strcmp(arg, colon + 1))
		gp_usage_error("--compare: '%s:%s' is not ARM:VS with two different arms", arg, colon + 1);
	GP_XGROW(op->pairs, 2 * op->npairs + 1, op->pairs_cap, 8);
	op->pairs[2 * op->npairs] = arg;
	op->pairs[2 * op->npairs + 1] = colon + 1;
	op->npairs++;
}

enum {
	O_TTFT = 256, O_TPOT, O_BASE, O_MULT, O_STAT, O_SINGLE, O_FLOOR, O_EQUIV, O_DELTA,
	O_ALPHA, O_TARGET, O_ACCEL, O_FLEET, O_RES, O_LEVEL, O_SEED, O_PASS, O_NOVAL, O_SELF,
	O_VERSION, O_MINREPS, O_MARGIN, O_COMPARE,
};

static const struct option longopts[] = {
	{"ttft-slo-ms", required_argument, NULL, O_TTFT},
	{"tpot-slo-ms", required_argument, NULL, O_TPOT},
	{"slo-baseline", required_argument, NULL, O_BASE},
	{"slo-multiple", required_argument, NULL, O_MULT},
	{"slo-margin", required_argument, NULL, O_MARGIN},
	{"slo-stat", required_argument, NULL, O_STAT},
	{"single-token", required_argument, NULL, O_SINGLE},
	{"floor", required_argument, NULL, O_FLOOR},
	{"equiv", required_argument, NULL, O_EQUIV},
	{"compare", required_argument, NULL, O_COMPARE},
	{"delta", required_argument, NULL, O_DELTA},
	{"alpha", required_argument, NULL, O_ALPHA},
	{"target", required_argument, NULL, O_TARGET},
	{"accelerators", required_argument, NULL, O_ACCEL},
	{"fleet", required_argument, NULL, O_FLEET},
	{"resamples", required_argument, NULL, O_RES},
	{"min-reps", required_argument, NULL, O_MINREPS},
	{"level", required_argument, NULL, O_LEVEL},
	{"seed", required_argument, NULL, O_SEED},
	{"pass", no_argument, NULL, O_PASS},
	{"no-validity", no_argument, NULL, O_NOVAL},
	{"self-check", no_argument, NULL, O_SELF},
	{"output", required_argument, NULL, 'o'},
	{"gzip", no_argument, NULL, 'z'},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, O_VERSION},
	{NULL, 0, NULL, 0},
};

/* The command line into op; 1 when --self-check was asked for. */
static int parse_opts(int argc, char **argv, struct opts *op)
{
	int c, selfcheck = 0;

	while ((c = gp_getopt(argc, argv, "o:zh", longopts)) != -1) {
		switch (c) {
		case O_TTFT: op->ttft_slo = gp_opt_double("--ttft-slo-ms", optarg, 0, 1e12); break;
		case O_TPOT: op->tpot_slo = gp_opt_double("--tpot-slo-ms", optarg, 0, 1e12); break;
		case O_BASE: op->baseline = optarg; break;
		case O_MULT: op->multiple = gp_opt_double("--slo-multiple", optarg, 1e-9, 1e9); break;
		case O_MARGIN: idle_margin = gp_opt_double("--slo-margin", optarg, 0, 100); break;
		case O_STAT:
			if (gp_slo_stat_parse(optarg, &(enum gp_slo_stat){GP_SLO_P50}))
				gp_usage_error("--slo-stat: '%s' is not p50, p90, p99 or mean", optarg);
			op->slo_stat = optarg;
			break;
		case O_SINGLE:
			if (!strcmp(optarg, "ttft"))
				op->single = GP_SINGLE_TTFT;
			else if (!strcmp(optarg, "miss"))
				op->single = GP_SINGLE_MISS;
			else
				gp_usage_error("--single-token: '%s' is not ttft or miss", optarg);
			break;
		case O_FLOOR: op->floor = optarg; break;
		case O_EQUIV: op->equiv = optarg; break;
		case O_COMPARE: add_pair(op, optarg); break;
		case O_DELTA: op->delta = gp_opt_double("--delta", optarg, 1e-12, 1); break;
		case O_ALPHA: op->alpha = gp_opt_double("--alpha", optarg, 1e-6, 0.49); break;
		case O_TARGET: op->target = gp_opt_double("--target", optarg, 0, 1); break;
		case O_ACCEL: op->accelerators = gp_opt_double("--accelerators", optarg, 1e-9, 1e9); break;
		case O_FLEET: op->fleet = optarg; break;
		case O_MINREPS: op->min_reps = gp_opt_long("--min-reps", optarg, 2, 1000000); break;
		case O_RES: op->resamples = gp_opt_long("--resamples", optarg, 100, 100000000L); break;
		case O_LEVEL: op->level = gp_opt_double("--level", optarg, 0.5, 0.9999); break;
		case O_SEED: op->seed = gp_opt_u64("--seed", optarg); break;
		case O_PASS: op->pass = 1; break;
		case O_NOVAL: op->no_validity = 1; break;
		case O_SELF: selfcheck = 1; break;
		case 'o': op->output = optarg; break;
		case 'z': op->gzip = 1; break;
		case 'h': gp_print_help(usage);
		case O_VERSION: gp_print_version();
		default: gp_usage_error("unknown option");
		}
	}
	return selfcheck;
}

/* The options judged together; the accelerators behind the fleet, or NaN. */
static double check_opts(const struct opts *op)
{
	if (op->baseline) {
		if (!isnan(op->ttft_slo) || !isnan(op->tpot_slo))
			gp_usage_error("--slo-baseline and a fixed --ttft-slo-ms/--tpot-slo-ms exclude "
				       "each other");
		if (isnan(op->multiple))
			gp_usage_error("--slo-baseline needs --slo-multiple K");
	} else {
		if (isnan(op->ttft_slo) || isnan(op->tpot_slo))
			gp_usage_error("the SLO is needed: --ttft-slo-ms X --tpot-slo-ms Y, or "
				       "--slo-baseline FILE --slo-multiple K");
		if (!isnan(op->multiple))
			gp_usage_error("--slo-multiple needs --slo-baseline FILE");
	}
	if (op->equiv && isnan(op->delta))
		gp_usage_error("--equiv needs --delta D (the equivalence margin)");
	if (op->npairs && isnan(op->delta))
		gp_usage_error("--compare needs --delta D (the equivalence margin of its TOST)");
	if (!op->equiv && !op->npairs && !isnan(op->delta))
		gp_usage_error("--delta needs --equiv ARM or --compare ARM:VS");
	if (op->fleet && !isnan(op->accelerators))
		gp_usage_error("--accelerators and --fleet exclude each other");
	/* No silent default: without either, per-accelerator figures are null. */
	return !isnan(op->accelerators) ? op->accelerators :
	       op->fleet ? fleet_accelerators(op->fleet) : NAN;
}

/* Read: the SLO, then the request records of the inputs, grouped and sorted.
 * With --pass the input lines are kept in a spool, returned (else NULL). */
static struct gp_spool *read_runs(const struct opts *op, struct slo_info *si, struct state *s,
				   char **paths, int npaths)
{
	static struct gp_spool pass;
	struct gp_spool *spool = NULL;

	si->slo.single = op->single;
	if (op->baseline) {
		baseline_slo(op, si);
	} else {
		si->slo.ttft_ms = op->ttft_slo;
		si->slo.tpot_ms = op->tpot_slo;
	}
	s->runmap = json_object();
	if (op->pass && gp_spool_open(spool = &pass))
		gp_die(GP_EXIT_SOFTWARE, "cannot create the pass-through spool: %s", strerror(errno));
	read_input(s, &si->slo, paths, npaths, spool);
	if (!s->saw_validity && !op->no_validity)
		gp_die(GP_EXIT_DATAERR, "no 'validity' record in the input: the validity filter has "
		       "not run.  Pipe the records through 'gp-verify validity' first, or pass "
		       "--no-validity to analyse unfiltered runs");
	if (s->ng == 0)
		gp_die(GP_EXIT_DATAERR, "no request records in the input");
	check_runs(s);
	qsort(s->g, s->ng, sizeof(*s->g), group_cmp);	/* the hash slots are stale now */
	return spool;
}

/* The spooled input lines out first, as they came (--pass). */
static void emit_spool(struct gp_out *out, struct gp_spool *spool)
{
	char *line;
	size_t len;

	if (gp_spool_rewind(spool))
		gp_die(GP_EXIT_SOFTWARE, "cannot spool the pass-through: %s", strerror(errno));
	while (gp_spool_next(spool, &line, &len) == GP_NDJSON_LINE) {
		gp_stop_point(out);
		if (gp_out_line(out, line, len))
			gp_output_failed(out);
	}
	gp_spool_close(spool);
}

/* Decide and emit: the SLO, good fractions, summaries, verdicts, knees. */
static void analyse(struct an *a, const struct slo_info *si, double accel)
{
	const struct opts *op = a->op;

	for (size_t i = 0; i < a->s->ng; i++)
		if (a->s->g[i].rate < a_min_rate)
			a_min_rate = a->s->g[i].rate;
	if (isatty(STDERR_FILENO))
		a->table = json_array();
	emit(a, slo_record(op, si, accel));
	do_goodfrac(a);
	build_cells(a);
	if (op->floor && !arm_present(a, op->floor))
		gp_die(GP_EXIT_DATAERR, "--floor %s: no request records of that arm", op->floor);
	if (op->equiv && !arm_present(a, op->equiv))
		gp_die(GP_EXIT_DATAERR, "--equiv %s: no request records of that arm", op->equiv);
	for (size_t k = 0; k < 2 * op->npairs; k++)
		if (!arm_present(a, op->pairs[k]))
			gp_die(GP_EXIT_DATAERR, "--compare %s:%s: no request records of arm '%s'",
			       op->pairs[k & ~(size_t)1], op->pairs[k | 1], op->pairs[k]);
	do_summaries(a);
	do_turns(a);
	if (op->floor)
		do_floor(a);
	if (op->floor)
		do_power(a);
	do_compare(a);
	do_knee(a, accel);
	if (op->floor)
		do_knee_compare(a, accel);
}

int main(int argc, char **argv)
{
	struct opts op = {
		.ttft_slo = NAN, .tpot_slo = NAN, .multiple = NAN, .slo_stat = "p50",
		.single = GP_SINGLE_TTFT, .delta = NAN, .alpha = 0.05, .target = 0.9,
		.level = 0.95, .accelerators = NAN, .resamples = 10000, .seed = DEFAULT_SEED,
		.min_reps = 5,
	};
	struct slo_info si = {.origin = "fixed"};
	struct state s = {0};
	struct an a = {.op = &op, .s = &s};
	struct gp_spool *spool;
	double accel;

	gp_log_init(argv[0]);
	idle_recs = json_array();
	gp_sig_install();
	if (parse_opts(argc, argv, &op))
		return self_check();
	accel = check_opts(&op);
	spool = read_runs(&op, &si, &s, argv + optind, argc - optind);
	gp_output_open(&a.out, op.output, op.gzip);
	if (spool)
		emit_spool(&a.out, spool);
	if (op.pass && op.baseline)
		emit_baseline(&a.out, &si);
	analyse(&a, &si, accel);
	gp_output_close(&a.out);
	if (a.table) {
		fprintf(stderr, "SLO: TTFT <= %g ms and TPOT <= %g ms (%s)\n", si.slo.ttft_ms,
			si.slo.tpot_ms, si.origin);
		print_table(a.table);
		json_decref(a.table);
	}
	/* Exit frees the rest: exit(), not return, so that main's state is still
	 * live (reachable, not lost) when a leak checker looks. */
	exit(GP_EXIT_OK);
}
