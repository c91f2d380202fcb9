/* SPDX-License-Identifier: MIT */
/*
 * gp-verify — Phase 5 of the method: the validity filter that runs before any
 * statistic (`validity`), and the publish gates (`publish`): stability,
 * the independent integrity re-derivation (jq + POSIX awk, share/awk/, no code
 * shared with gp-analyze) and the dual proof of routing decision vs delivery.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "io/child.h"
#include "cli/cli.h"
#include "wire/fleet.h"
#include "wire/receipt.h"
#include "method/binding.h"
#include "method/design.h"
#include "method/gate.h"
#include "io/flat.h"
#include "io/json.h"
#include "io/flatten.h"
#include "base/log.h"
#include "base/map.h"
#include "io/ndjson.h"
#include "method/pace.h"
#include "method/proof.h"
#include "base/rfc3339.h"
#include "wire/scrape.h"
#include "base/sig.h"
#include "method/statcheck.h"
#include "stats/stats.h"
#include "method/validity.h"
#include "base/vec.h"
#include "base/buf.h"
#include "base/banned.h"

#ifndef GP_SHAREDIR
#define GP_SHAREDIR "/usr/local/share/gp"
#endif

static const char usage[] =
	"Usage: gp-verify validity [--strict] [--window-s W] [-o FILE] [FILE...]\n"
	"       gp-verify publish [--min-reps N] [--max-cv X] [--rep-cap N] [--fleet FILE]\n"
	"                         [--deadline-s S] [--min-tpot-ms X] [--miss-ratio X]\n"
	"                         [--delivery-min-share X]\n"
	"                         [--min-floor-reps N] [--awk PATH] [--jq PATH] [--awk-dir DIR]\n"
	"                         [--allow-missing health,probe,dual_proof] [--strict]\n"
	"                         [--floor ARM] [--waive GATE,...] [--slo-margin M]\n"
	"                         [--pass] [-q] [-o FILE] [FILE...]\n"
	"       gp-verify --self-check\n"
	"\n"
	"validity  read request/run/run_end/health/metrics records, discard whole runs\n"
	"          by rule (each with a discard record and its reasons), pass the rest\n"
	"          through, and end with one validity record.  Exit 0 when at least\n"
	"          one run survived, 1 when none did.\n"
	"publish   read the filtered records and gp-analyze's analysis; emit stability,\n"
	"          integrity, dual_proof records and a final verdict.  Exit 0 only when\n"
	"          publishable.\n"
	"\n"
	"  --allow-missing LIST  publish without that evidence (health, probe,\n"
	"                      dual_proof); the verdict's reasons say so\n"
	"  --window-s W        validity: the evidence window around each run (default 60)\n"
	"  --strict            a rule or check that could not be checked counts against\n"
	"  --floor ARM         the floor arm of the design gates (default: gp-analyze's)\n"
	"  --waive LIST        publish although these design gates failed (floor,\n"
	"                      same_trace, topology, calibration, baseline_vip,\n"
	"                      slo_feasible); the verdict's waived list says so\n"
	"  --slo-margin M      slo_feasible: a member's idle statistic x (1 + M) must be\n"
	"                      within the SLO (default 0.10)\n"
	"  --min-reps N        repetition floor (default 5)\n"
	"  --max-cv X          CV bound on the per-rep good fraction (default 0.10)\n"
	"  --rep-cap N         repetition cap: CV still over at N reps → footnote (default none)\n"
	"  --fleet FILE        the fleet file: enables the dual proof\n"
	"  --deadline-s S      request deadline when the run header has none (unit check)\n"
	"  --min-tpot-ms X     median TPOT below X ms means a unit error (default 0.05)\n"
	"  --miss-ratio X      miss counter delta / requests at or above X = fallback (0.9)\n"
	"  --delivery-min-share X  share of a disaggregated arm's completed requests whose\n"
	"                      receipt names a prefill and another decode member (1)\n"
	"  --min-floor-reps N  noise-floor reps needed to resolve a difference (default 3)\n"
	"  --awk PATH          awk for the integrity checks (default awk; mawk or gawk)\n"
	"  --jq PATH           jq for flattening records (default jq)\n"
	"  --awk-dir DIR       where the integrity scripts are (default: see gp-verify(1))\n"
	"  --pass              copy the input records to stdout ahead of the verification\n"
	"  -q, --quiet         no verdict table on stderr\n"
	"  -o, --output FILE   write records to FILE (.gz: compressed)\n"
	"  --self-check        test the gates' and statistics' code on known cases (TAP)\n"
	"  -h, --help          this text;  --version  the version\n";

/* ---------------------------------------------------------------- helpers */

/* The key of a run: (arm, rate_rps, rep), exact in the rate. */
static char *run_key(const char *arm, double rate, long long rep)
{
	return gp_xasprintf("%s\x1f%.17g\x1f%lld", arm, rate, rep);
}

/* Record field readers that die with exit 65 naming file:line:field. */
struct at {
	const char *file;
	unsigned long line;
};

/* Optional fields at w (cli.h's gp_may_*): 1 present, 0 absent or null. */
static int opt_num(const json_t *o, const char *key, const struct at *w, double *out)
{
	return gp_may_num(o, key, w->file, w->line, out);
}

static int opt_int(const json_t *o, const char *key, const struct at *w, long long *out)
{
	return gp_may_int(o, key, w->file, w->line, out);
}

static const char *opt_str(const json_t *o, const char *key, const struct at *w)
{
	const char *s = NULL;

	gp_may_str(o, key, w->file, w->line, &s);
	return s;
}

static int need_bool(const json_t *o, const char *key, const struct at *w)
{
	int b = 0, e = gp_json_bool(o, key, &b);

	if (e == GP_JSON_MISSING)
		gp_die_at(GP_EXIT_DATAERR, w->file, w->line, "field '%s' is missing", key);
	if (e)
		gp_die_at(GP_EXIT_DATAERR, w->file, w->line, "field '%s' is not a boolean", key);
	return b;
}

static int64_t need_time(const json_t *o, const char *key, const struct at *w)
{
	const char *s = gp_need_str(o, key, w->file, w->line);
	int64_t ns;

	if (gp_rfc3339_parse(s, &ns))
		gp_die_at(GP_EXIT_DATAERR, w->file, w->line,
			  "field '%s' is not an RFC 3339 time", key);
	return ns;
}

/* The (arm, rate_rps, rep) of a run-keyed record. */
static char *need_key(const json_t *o, const struct at *w, const char **arm, double *rate,
		      long long *rep)
{
	*arm = gp_need_str(o, "arm", w->file, w->line);
	*rate = gp_need_num(o, "rate_rps", w->file, w->line);
	*rep = gp_need_int(o, "rep", w->file, w->line);
	if (*rate < 0)
		gp_die_at(GP_EXIT_DATAERR, w->file, w->line, "field 'rate_rps' is negative");
	return run_key(*arm, *rate, *rep);
}

/* Exit at once (temporary files removed) when a signal asked us to stop. */
static void check_stop(void)
{
	int sig = gp_sig_stop();

	if (sig)
		gp_die(128 + sig, "interrupted");
}

/* Read every record of the files (stdin when none): fn(ctx, record, its raw
 * line, where it is); the record is released after the call.  fast, when not
 * NULL, sees each raw line first and returns 1 when it took the record
 * itself (io/flat's fast path), 0 to have it parsed and given to fn. */
static void read_records(char **files, int n_files,
			 int (*fast)(void *, char *, size_t, const struct at *),
			 void (*fn)(void *, json_t *, const char *, size_t, const struct at *),
			 void *ctx)
{
	struct gp_input in;
	char *ln;
	size_t len;
	json_t *o;
	int e;

	gp_input_init(&in, files, n_files);
	for (;;) {
		struct at w;

		check_stop();
		if ((e = gp_input_next(&in, &ln, &len)) == GP_NDJSON_EOF)
			break;
		if (e < 0)
			gp_input_failed(&in, e);
		w = (struct at){ gp_input_name(&in), gp_input_line(&in) };
		if (fast && fast(ctx, ln, len, &w))
			continue;
		o = gp_input_need_object(&in, ln, len);
		if (!gp_json_type(o))
			gp_die_at(GP_EXIT_DATAERR, w.file, w.line, "field 'type' is missing");
		fn(ctx, o, ln, len, &w);
		json_decref(o);
	}
	gp_input_release(&in);
}

static FILE *spool_open(void)
{
	struct gp_spool s;

	if (gp_spool_open(&s))
		gp_die(GP_EXIT_SOFTWARE, "cannot create a spool file: %s", strerror(errno));
	return s.f;	/* ndjson.h's spool file, read back here with getline */
}

static void out_record(struct gp_out *o, json_t *rec)
{
	if (gp_out_json(o, rec))
		gp_output_failed(o);
	json_decref(rec);
}

static int out_finish(struct gp_out *o)
{
	gp_output_close(o);
	return 0;
}

static json_t *jstr_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static char *dup_or_null(const char *s)
{
	return s ? gp_xstrdup(s) : NULL;
}

/* ------------------------------------------------------------- validity */

/* A run (its key is at the same index in validity.keys) and the evidence
 * the rules judge (validity.h). */
struct vrun {
	char *arm, *run_id, *url, *other_id;	/* ev borrows url and other_id */
	long long rep;
	struct gp_run_evidence ev;
	struct gp_run_verdict vd;
	struct gp_run_digest dig;	/* its run_end records (binding.h) */
};

struct pending {			/* a run_end keyed by run alone */
	json_t *o;
	char *id, *file;
	unsigned long line;
};

struct validity {
	struct pending *pending;
	size_t n_pending, cap_pending;
	struct vrun *runs;
	size_t n_runs, cap_runs;
	struct gp_map *keys;	/* run keys; a run's index is its key's */
	struct gp_map *ids;	/* run id → run index */
	struct gp_map *idtab;	/* the run ids of records tied by id alone */
	struct gp_health_check *h;	/* target and at_text owned here */
	size_t n_h, cap_h;
	struct gp_health_round *rounds;
	size_t n_rounds;
	struct gp_probe_ev *probes;	/* strings owned here */
	size_t n_probes, cap_probes;
	struct gp_gateway_ev *gw;	/* strings owned here */
	size_t n_gw, cap_gw;
	double window_s;	/* --window-s */
	size_t kept, dropped;
	int strict;
	FILE *spool;		/* the records, each with its tie */
	/* validity_fast()'s last run: its key (rate by its bits, as run_key
	 * prints -0 apart from 0) and index; last_idx -1 before the first */
	char *last_arm;
	double last_rate;
	long long last_rep;
	long last_idx;
};

static struct vrun *vrun_get(struct validity *v, const char *key, const char *arm, double rate,
			     long long rep, long *idx)
{
	size_t i = gp_map_add(v->keys, key);

	if (i == v->n_runs) {		/* a new key: the next run */
		GP_XGROW0(v->runs, v->n_runs, v->cap_runs, 16);
		v->n_runs++;
		v->runs[i].arm = gp_xstrdup(arm);
		v->runs[i].ev.rate = rate;
		v->runs[i].rep = rep;
	}
	*idx = (long)i;
	return &v->runs[i];
}

static void vrun_note_id(struct validity *v, struct vrun *r, long idx, const char *id)
{
	if (!id)
		return;
	if (!r->run_id)
		r->run_id = gp_xstrdup(id);
	else if (strcmp(r->run_id, id) && !r->other_id)
		r->ev.other_id = r->other_id = gp_xstrdup(id);	/* the mixed_runs rule */
	if (!gp_map_has(v->ids, id))
		gp_map_put_u64(v->ids, id, (uint64_t)idx);
}

/* The index of the run whose id is id, or -1. */
static long run_of_id(const struct validity *v, const char *id)
{
	uint64_t i;

	return gp_map_get_u64(v->ids, id, &i) ? (long)i : -1;
}

static void add_health(struct validity *v, const json_t *o, const struct at *w, int summary)
{
	struct gp_health_check *h;

	/* The contract does not require a time on health records; one without
	 * `at` cannot be placed in a run's window and leaves the rules unchecked. */
	if (!json_object_get(o, "at") || json_is_null(json_object_get(o, "at")))
		return;
	GP_XGROW0(v->h, v->n_h, v->cap_h, 16);
	h = &v->h[v->n_h];
	h->order = v->n_h;
	h->at = need_time(o, "at", w);
	h->at_text = gp_xstrdup(gp_need_str(o, "at", w->file, w->line));
	h->for_run = dup_or_null(opt_str(o, "for_run", w));
	if (summary) {
		double t_s;

		h->kind = GP_HEALTH_SUMMARY;
		h->ok = 1;
		if (opt_num(o, "t_s", w, &t_s) && t_s >= 0 && t_s < 1e9)
			h->began = h->at - (int64_t)(t_s * 1e9);
	} else {
		const char *check = gp_need_str(o, "check", w->file, w->line);

		h->kind = !strcmp(check, "vip_chat") ? GP_HEALTH_VIP :
			  !strcmp(check, "backend_models") ? GP_HEALTH_BACKEND :
			  !strcmp(check, "kv_events") ? GP_HEALTH_KV : GP_HEALTH_OTHER;
		/* The checks we judge must say ok; the others only mark rounds. */
		h->ok = h->kind == GP_HEALTH_OTHER ? 1 : need_bool(o, "ok", w);
		h->target = dup_or_null(opt_str(o, "target", w));
	}
	v->n_h++;
}

static void note_request(struct validity *v, const json_t *o, const struct at *w, long *idx)
{
	const char *arm, *outcome, *error, *detail;
	double rate, ttft = NAN, tpot = NAN;
	long long rep, status = 0;
	char *key = need_key(o, w, &arm, &rate, &rep);
	struct vrun *r = vrun_get(v, key, arm, rate, rep, idx);

	free(key);
	vrun_note_id(v, r, *idx, opt_str(o, "run", w));
	outcome = gp_need_str(o, "outcome", w->file, w->line);
	if (strcmp(outcome, "ok") && strcmp(outcome, "single_token") && strcmp(outcome, "failed"))
		gp_die_at(GP_EXIT_DATAERR, w->file, w->line,
			  "field 'outcome' is '%s', not ok, single_token or failed", outcome);
	error = opt_str(o, "error", w);
	detail = opt_str(o, "error_detail", w);
	opt_int(o, "http_status", w, &status);
	opt_num(o, "ttft_ms", w, &ttft);
	opt_num(o, "tpot_ms", w, &tpot);
	if (gp_validity_note_request(&r->ev, outcome, error, (long)status, detail, ttft, tpot))
		gp_die_nomem();
}

/* What a run_end says about the client that shaped the run. */
static void note_client(struct gp_run_evidence *e, const json_t *o, const struct at *w)
{
	double x;
	long long n;
	int b;

	if (gp_json_bool(o, "client_behind", &b) == 0) {
		e->have_behind = 1;
		e->behind |= b;
	}
	if (opt_int(o, "capped_sends", w, &n)) {
		e->have_capped = 1;
		e->capped += n;
	}
	if (gp_json_bool(o, "interrupted", &b) == 0) {
		e->have_interrupted = 1;
		e->interrupted |= b;
	}
	if (opt_num(o, "achieved_rps", w, &x)) {
		e->achieved = e->have_achieved ? e->achieved + x : x;	/* shards add up */
		e->have_achieved = 1;
	}
	if (opt_num(o, "achieved_start_rps", w, &x) && opt_int(o, "starts", w, &n)) {
		e->achieved_start = e->have_achieved_start ? e->achieved_start + x : x;
		e->n_start += n;
		e->have_achieved_start = 1;
	}
	if (opt_num(o, "lateness_p99_ms", w, &x) && x > e->late_p99)
		e->late_p99 = x;
	if (opt_num(o, "lateness_max_ms", w, &x) && x > e->late_max)
		e->late_max = x;
}

/* The shard a run header or run_end names ("I/N"; absent for other producers). */
static void note_shard(struct gp_run_evidence *e, const json_t *o, const struct at *w, int trailer)
{
	const char *s = opt_str(o, "shard", w);
	long i, n;

	if (!s)
		return;
	if (gp_pace_parse_shard(s, &i, &n) || n > 65536)
		gp_die_at(GP_EXIT_DATAERR, w->file, w->line, "field 'shard' is '%s', not I/N", s);
	if (gp_validity_note_shard(e, i, n, trailer))
		gp_die_nomem();
}

/* An optional RFC 3339 time: 1 and *ns when present and not null. */
static int opt_time(const json_t *o, const char *key, const struct at *w, int64_t *ns)
{
	if (!json_object_get(o, key) || json_is_null(json_object_get(o, key)))
		return 0;
	*ns = need_time(o, key, w);
	return 1;
}

/* What a run header says: the schedule, the start and the VIP's URL. */
static void note_header(struct vrun *r, const json_t *o, const struct at *w)
{
	struct gp_run_evidence *e = &r->ev;
	const char *sched, *url = opt_str(o, "url", w);
	int64_t t;

	if (url && !r->url)
		e->url = r->url = gp_xstrdup(url);
	note_shard(e, o, w, 0);
	if (gp_json_str(o, "schedule", &sched) == 0 && !strcmp(sched, "poisson"))
		e->poisson = 1;
	if (opt_time(o, "started_at", w, &t)) {
		if (!e->have_start || t < e->start_ns)
			e->start_ns = t;
		e->have_start = 1;
	}
}

/* What a run_end says: the client, the end, the framing/hang/truncated counts. */
static void note_trailer(struct gp_run_evidence *e, const json_t *o, const struct at *w)
{
	long long n;
	int64_t t;
	json_t *by;

	note_shard(e, o, w, 1);
	note_client(e, o, w);
	if (opt_time(o, "ended_at", w, &t)) {
		if (!e->have_end || t > e->end_ns)
			e->end_ns = t;
		e->have_end = 1;
	}
	if (opt_int(o, "invalid_framing", w, &n)) {
		e->framing_trailer += n;
		e->have_framing_trailer = 1;
	}
	if (opt_int(o, "sse_by_body", w, &n))
		e->sse_by_body += n;
	if (opt_int(o, "usage_contradicted", w, &n))
		e->usage_contradicted += n;
	by = json_object_get(o, "by_error");
	if (by && !json_is_null(by)) {
		struct at w2 = *w;
		int framing_counted = e->have_framing_trailer;

		if (!json_is_object(by))
			gp_die_at(GP_EXIT_DATAERR, w->file, w->line, "field 'by_error' is not an object");
		/* by_error lists the classes that occurred: no key means none. */
		e->have_framing_trailer = 1;
		if (opt_int(by, "hang", &w2, &n))
			e->hang_trailer += n;
		if (opt_int(by, "truncated", &w2, &n))
			e->truncated_trailer += n;
		if (opt_int(by, "invalid_framing", &w2, &n) && !framing_counted)
			e->framing_trailer += n;
	}
}

/* A run_end: its evidence, and its text for the run's digest. */
static void vrun_trailer(struct vrun *r, const json_t *o, const struct at *w)
{
	note_trailer(&r->ev, o, w);
	if (gp_run_digest_add(&r->dig, o))
		gp_die_nomem();
}

static void note_run(struct validity *v, const json_t *o, const struct at *w, int trailer,
		     long *idx)
{
	const char *arm;
	double rate;
	long long rep;
	char *key;
	struct vrun *r;

	if (trailer && !json_object_get(o, "arm")) {
		/* Keyed by run alone (the contract): the run's header or requests
		 * name its arm, rate and rep; resolved after the first pass. */
		const char *id = gp_need_str(o, "run", w->file, w->line);

		GP_XGROW0(v->pending, v->n_pending, v->cap_pending, 16);
		v->pending[v->n_pending++] = (struct pending){json_incref((json_t *)o),
			gp_xstrdup(id), gp_xstrdup(w->file), w->line};
		return;
	}
	key = need_key(o, w, &arm, &rate, &rep);
	r = vrun_get(v, key, arm, rate, rep, idx);
	free(key);
	vrun_note_id(v, r, *idx, opt_str(o, "run", w));
	if (trailer)
		vrun_trailer(r, o, w);
	else
		note_header(r, o, w);
}

/* A gp-replay metrics snapshot (phase before or after) that carries gp-sim's
 * pacing-lag histogram: its evidence for emulator_behind (validity.h). */
static void note_lag(struct gp_run_evidence *e, const json_t *o)
{
	static const char lag[] = "gpsim:token_pacing_lag_seconds";
	char name[64], le[32];
	const char *phase;
	double n, ok;
	int have, have_le;

	if (gp_json_str(o, "phase", &phase) || (strcmp(phase, "before") && strcmp(phase, "after")))
		return;
	snprintf(name, sizeof(name), "%s_count", lag);
	n = gp_scrape_sum(o, name, &have);
	snprintf(name, sizeof(name), "%s_bucket", lag);
	snprintf(le, sizeof(le), "le=\"%g\"", GP_EMU_LATE_S);
	ok = gp_scrape_sum_label(o, name, le, &have_le);
	if (have && have_le)
		gp_validity_note_lag(e, !strcmp(phase, "after"), n, ok);
}

/* Queue a metrics snapshot for its run (by its run id, known after the
 * first pass). */
static void pend_metrics(struct validity *v, const json_t *o, const struct at *w)
{
	const char *id;

	if (gp_json_str(o, "run", &id) || !json_object_get(o, "samples"))
		return;
	GP_XGROW0(v->pending, v->n_pending, v->cap_pending, 16);
	v->pending[v->n_pending++] = (struct pending){json_incref((json_t *)o),
		gp_xstrdup(id), gp_xstrdup(w->file), w->line};
}

/* Resolve the run_ends keyed by run alone, now that every run id is known. */
static void resolve_pending(struct validity *v)
{
	for (size_t i = 0; i < v->n_pending; i++) {
		struct pending *q = &v->pending[i];
		struct at w = {q->file, q->line};
		long idx = run_of_id(v, q->id);

		if (!strcmp(gp_json_type(q->o), "metrics")) {
			if (idx >= 0)	/* a snapshot of a run not in the input: not evidence */
				note_lag(&v->runs[idx].ev, q->o);
		} else if (idx < 0) {
			gp_die_at(GP_EXIT_DATAERR, q->file, q->line, "field 'arm' is missing and run '%s' "
				  "has no run header or request records to take it from", q->id);
		} else {
			vrun_trailer(&v->runs[idx], q->o, &w);
		}
		json_decref(q->o);
		free(q->id);
		free(q->file);
	}
	free(v->pending);
}

/* A probe record: evidence for the runs of its arm (validity.h); one
 * without `at` cannot be placed and covers nothing. */
static void add_probe(struct validity *v, const json_t *o, const struct at *w)
{
	struct gp_probe_ev *p;
	int conf = 0, eng = 0;

	GP_XGROW0(v->probes, v->n_probes, v->cap_probes, 16);
	p = &v->probes[v->n_probes++];
	p->arm = gp_xstrdup(gp_need_str(o, "arm", w->file, w->line));
	p->vip = dup_or_null(opt_str(o, "vip", w));
	p->run = dup_or_null(opt_str(o, "run", w));
	p->for_run = dup_or_null(opt_str(o, "for_run", w));
	p->reason = dup_or_null(opt_str(o, "reason", w));
	gp_json_bool(o, "mode_confirmed", &conf);
	gp_json_bool(o, "engaged", &eng);
	p->ok = conf && eng;
	if (opt_time(o, "at", w, &p->at)) {
		p->at_text = gp_xstrdup(gp_need_str(o, "at", w->file, w->line));
	} else {
		p->at = INT64_MIN;	/* never in a window */
		p->at_text = gp_xstrdup("(no time)");
	}
}

/* A gateway record (the campaign's): one recreation, its generation. */
static void add_gateway(struct validity *v, const json_t *o, const struct at *w)
{
	struct gp_gateway_ev *g;

	GP_XGROW0(v->gw, v->n_gw, v->cap_gw, 16);
	g = &v->gw[v->n_gw++];
	g->arm = gp_xstrdup(gp_need_str(o, "arm", w->file, w->line));
	g->up_at = need_time(o, "up_at", w);
	g->at_text = gp_xstrdup(gp_need_str(o, "up_at", w->file, w->line));
	g->generation = dup_or_null(opt_str(o, "generation", w));
}

/* Note one record's evidence; returns its run index, or -1 when it has none. */
static long validity_note(struct validity *v, const json_t *o, const struct at *w)
{
	const char *type = gp_json_type(o);
	long idx = -1;

	if (!strcmp(type, "request"))
		note_request(v, o, w, &idx);
	else if (!strcmp(type, "run"))
		note_run(v, o, w, 0, &idx);
	else if (!strcmp(type, "run_end"))
		note_run(v, o, w, 1, &idx);
	else if (!strcmp(type, "health"))
		add_health(v, o, w, 0);
	else if (!strcmp(type, "health_summary"))
		add_health(v, o, w, 1);
	else if (!strcmp(type, "metrics"))
		pend_metrics(v, o, w);
	else if (!strcmp(type, "probe"))
		add_probe(v, o, w);
	else if (!strcmp(type, "gateway"))
		add_gateway(v, o, w);
	return idx;
}

/* Spool one record with its tie ("K<run>", "I<run id>" or "-") after noting
 * its evidence; an older validity record is dropped: this pass writes its own. */
static void validity_record(void *ctx, json_t *o, const char *ln, size_t len, const struct at *w)
{
	struct validity *v = ctx;
	const char *type = gp_json_type(o), *id;
	long idx = validity_note(v, o, w);

	if (!strcmp(type, "validity"))
		return;
	if (idx >= 0)
		fprintf(v->spool, "K%ld\t", idx);
	else if (strcmp(type, "discard") && strcmp(type, "health") &&
		 strcmp(type, "health_summary") && (id = opt_str(o, "run", w)))
		fprintf(v->spool, "I%zu\t", gp_map_add(v->idtab, id));
	else
		fputs("-\t", v->spool);
	fwrite(ln, 1, len, v->spool);
	putc('\n', v->spool);
}

/* The fields of a request record that note_request() reads. */
enum { V_TYPE, V_ARM, V_RATE, V_REP, V_RUN, V_OUTCOME, V_ERROR, V_DETAIL, V_STATUS, V_TTFT,
       V_TPOT, V_N };
static const char *const vname[V_N] = {
	"type", "arm", "rate_rps", "rep", "run", "outcome", "error", "error_detail",
	"http_status", "ttft_ms", "tpot_ms",
};
static const size_t vlen[V_N] = { 4, 3, 8, 3, 3, 7, 5, 12, 11, 7, 7 };

/* A string, absent or null (NULL) in *s; 0, or -1 for another kind. */
static int flat_opt_str(struct gp_flat_val *f, const char **s)
{
	*s = gp_flat_cstr(f);
	return f->kind == GP_FLAT_STRING || f->kind == GP_FLAT_ABSENT || f->kind == GP_FLAT_NULL ? 0 : -1;
}

/*
 * validity_record() for a flat request record read by io/flat: the checks of
 * need_key() and note_request() passed, the same evidence noted and the same
 * spool line written; 0 (the jansson path then) for anything else, a record
 * that would die included, so that path words the error.
 */
static int validity_fast(void *ctx, char *ln, size_t len, const struct at *w)
{
	struct validity *v = ctx;
	struct gp_flat_val f[V_N];
	const char *arm, *run, *outcome, *error, *detail;
	double rate, ttft, tpot;
	long long rep, status = 0;
	long idx;
	int ok;

	if (gp_flat_scan(ln, len, vname, vlen, V_N, f) || !gp_flat_is(&f[V_TYPE], "request"))
		return 0;
	ok = f[V_ARM].kind == GP_FLAT_STRING && f[V_OUTCOME].kind == GP_FLAT_STRING &&
	     (f[V_RATE].kind == GP_FLAT_INT || f[V_RATE].kind == GP_FLAT_REAL) &&
	     !gp_flat_num(&f[V_RATE], &rate) && rate >= 0 && !gp_flat_int(&f[V_REP], &rep) &&
	     (gp_flat_is(&f[V_OUTCOME], "ok") || gp_flat_is(&f[V_OUTCOME], "single_token") ||
	      gp_flat_is(&f[V_OUTCOME], "failed")) &&
	     gp_flat_int(&f[V_STATUS], &status) >= 0 && !gp_flat_num(&f[V_TTFT], &ttft) &&
	     !gp_flat_num(&f[V_TPOT], &tpot);
	if (ok) {
		char *key;
		struct vrun *r;

		arm = gp_flat_cstr(&f[V_ARM]);
		outcome = gp_flat_cstr(&f[V_OUTCOME]);
		ok = !flat_opt_str(&f[V_RUN], &run) && !flat_opt_str(&f[V_ERROR], &error) &&
		     !flat_opt_str(&f[V_DETAIL], &detail);
		if (ok && v->last_idx >= 0 && v->last_rep == rep && !strcmp(v->last_arm, arm) &&
		    !memcmp(&v->last_rate, &rate, sizeof(rate))) {
			idx = v->last_idx;	/* the previous record's run: no key to print */
			r = &v->runs[idx];
			vrun_note_id(v, r, idx, run);
			gp_validity_note_request(&r->ev, outcome, error, (long)status, detail, ttft, tpot);
		} else if (ok) {
			key = run_key(arm, rate, rep);
			r = vrun_get(v, key, arm, rate, rep, &idx);
			free(key);
			free(v->last_arm);
			v->last_arm = gp_xstrdup(arm);
			v->last_rate = rate;
			v->last_rep = rep;
			v->last_idx = idx;
			vrun_note_id(v, r, idx, run);
			gp_validity_note_request(&r->ev, outcome, error, (long)status, detail, ttft, tpot);
		}
	}
	for (size_t i = 0; i < V_N; i++)
		gp_flat_uncstr(&f[i]);	/* the line whole again, for the spool */
	if (!ok)
		return 0;
	fprintf(v->spool, "K%ld\t", idx);
	fwrite(ln, 1, len, v->spool);
	putc('\n', v->spool);
	(void)w;
	return 1;
}

/* Read: spool every record and gather the evidence of each run in memory
 * (counts, not records). */
static void validity_read(struct validity *v, char **files, int n_files)
{
	/* GP_VERIFY_SLOW=1 turns the fast path off (the tests compare both). */
	const char *slow = getenv("GP_VERIFY_SLOW");

	read_records(files, n_files, slow && *slow && strcmp(slow, "0") ? NULL : validity_fast,
		     validity_record, v);
	if (fflush(v->spool) || ferror(v->spool))
		gp_die(GP_EXIT_SOFTWARE, "spool write error: %s", strerror(errno));
	resolve_pending(v);
}

/* Decide: judge every run by the rules (validity.h). */
static void validity_decide(struct validity *v)
{
	struct gp_window w;

	if (gp_validity_rounds(v->h, v->n_h, &v->rounds, &v->n_rounds))
		gp_die_nomem();
	w = (struct gp_window){ v->h, v->n_h, v->rounds, v->n_rounds, v->probes, v->n_probes,
				v->gw, v->n_gw, (int64_t)(v->window_s * 1e9) };
	for (size_t i = 0; i < v->n_runs; i++) {
		struct vrun *r = &v->runs[i];

		r->ev.arm = r->arm;
		r->ev.run_id = r->run_id;
		if (gp_validity_judge(&r->ev, &w, v->strict, &r->vd))
			gp_die_nomem();
		if (r->vd.discarded)
			v->dropped++;
		else
			v->kept++;
	}
}

/* Re-emit the spool without the records of discarded runs. */
static void emit_kept(struct validity *v, FILE *spool, struct gp_out *out)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;

	rewind(spool);
	while ((got = getline(&line, &cap, spool)) > 0) {
		char *tab = strchr(line, '\t');
		long idx = -1;

		if (!tab)
			gp_die(GP_EXIT_SOFTWARE, "spool is corrupt");
		if (line[0] == 'K')
			idx = strtol(line + 1, NULL, 10);
		else if (line[0] == 'I')
			idx = run_of_id(v, gp_map_key(v->idtab, strtoul(line + 1, NULL, 10), NULL));
		if (idx >= 0 && v->runs[idx].vd.discarded)
			continue;
		if (got > 0 && line[got - 1] == '\n')
			got--;
		if (gp_out_line(out, tab + 1, (size_t)(got - (tab + 1 - line))))
			gp_output_failed(out);
	}
	free(line);
}

/* The rounds and probes that covered no run: reported, they cover nothing. */
static json_t *untied_evidence(const struct validity *v)
{
	json_t *rounds = json_array(), *probes = json_array();

	for (size_t i = 0; i < v->n_rounds; i++) {
		const struct gp_health_round *r = &v->rounds[i];

		if (!r->used)
			json_array_append_new(rounds, json_pack("{s:s, s:s, s:o, s:o}", "start", r->start_text,
						      "end", r->end_text, "for_run", jstr_or_null(r->for_run),
						      "vip", jstr_or_null(r->vip)));
	}
	for (size_t i = 0; i < v->n_probes; i++) {
		const struct gp_probe_ev *q = &v->probes[i];

		if (!q->used && q->ok)
			json_array_append_new(probes, json_pack("{s:o, s:s, s:s, s:o}", "run", jstr_or_null(q->run),
						      "arm", q->arm, "at", q->at_text,
						      "for_run", jstr_or_null(q->for_run)));
	}
	return json_pack("{s:o, s:o}", "rounds", rounds, "probes", probes);
}

static json_t *run_ident(const struct vrun *r, const char *type)
{
	return json_pack("{s:s, s:s, s:o, s:I, s:o}", "type", type, "arm", r->arm,
			 "rate_rps", gp_json_real(r->ev.rate), "rep", (json_int_t)r->rep,
			 "run", jstr_or_null(r->run_id));
}

/* One discard per discarded run, then the validity record. */
static void emit_verdicts(struct validity *v, struct gp_out *out)
{
	json_t *rec, *runs = json_array(), *rules = json_array();

	for (size_t i = 0; i < v->n_runs; i++) {
		struct vrun *r = &v->runs[i];
		json_t *nc = json_array();

		for (int k = 0; k < GP_N_RULES; k++)
			if (!r->vd.checked[k])
				json_array_append_new(nc, json_string(gp_rule_name[k]));
		if (r->vd.discarded) {
			rec = run_ident(r, "discard");
			json_object_set(rec, "reasons", r->vd.reasons);
			out_record(out, rec);
		}
		rec = run_ident(r, "run");
		json_object_del(rec, "type");
		json_object_set_new(rec, "verdict", json_string(r->vd.discarded ? "discarded" : "kept"));
		json_object_set_new(rec, "not_checked", nc);
		json_object_set(rec, "flags", r->vd.flags);
		gp_json_set_real(rec, "achieved_rps", r->ev.have_achieved ? r->ev.achieved : NAN);
		{
			char dg[GP_DIGEST_LEN + 1];

			if (gp_run_digest_hex(&r->dig, dg))
				gp_die_nomem();
			json_object_set_new(rec, "run_end_digest", json_string(dg));
			json_object_set_new(rec, "run_ends", json_integer((json_int_t)r->dig.n));
		}
		json_array_append_new(runs, rec);
	}
	for (int k = 0; k < GP_N_RULES; k++) {
		long nc = 0, hit = 0;

		for (size_t i = 0; i < v->n_runs; i++) {
			nc += !v->runs[i].vd.checked[k];
			hit += v->runs[i].vd.hit[k];
		}
		json_array_append_new(rules, json_pack("{s:s, s:s, s:I, s:I}", "rule", gp_rule_name[k],
						       "status", nc || !v->n_runs ? "not_checked" : "checked",
						       "not_checked_runs", (json_int_t)nc,
						       "discarded", (json_int_t)hit));
	}
	rec = json_pack("{s:s, s:I, s:I, s:o, s:o, s:b, s:f, s:o}", "type", "validity",
			"kept", (json_int_t)v->kept, "discarded", (json_int_t)v->dropped,
			"runs", runs, "rules", rules, "strict", v->strict, "window_s", v->window_s,
			"untied", untied_evidence(v));
	{
		char dg[GP_DIGEST_LEN + 1];

		if (gp_record_digest(rec, "digest", dg))
			gp_die_nomem();
		json_object_set_new(rec, "digest", json_string(dg));
	}
	out_record(out, rec);
}

static void validity_release(struct validity *v)
{
	free(v->last_arm);
	for (size_t i = 0; i < v->n_runs; i++) {
		free(v->runs[i].arm);
		free(v->runs[i].run_id);
		free(v->runs[i].url);
		free(v->runs[i].other_id);
		gp_run_evidence_release(&v->runs[i].ev);
		gp_run_verdict_release(&v->runs[i].vd);
		gp_run_digest_release(&v->runs[i].dig);
	}
	for (size_t i = 0; i < v->n_h; i++) {
		free((char *)v->h[i].target);
		free((char *)v->h[i].at_text);
		free((char *)v->h[i].for_run);
	}
	for (size_t i = 0; i < v->n_probes; i++) {
		struct gp_probe_ev *q = &v->probes[i];

		free((char *)q->arm);
		free((char *)q->vip);
		free((char *)q->run);
		free((char *)q->for_run);
		free((char *)q->at_text);
		free((char *)q->reason);
	}
	for (size_t i = 0; i < v->n_gw; i++) {
		free((char *)v->gw[i].arm);
		free((char *)v->gw[i].at_text);
		free((char *)v->gw[i].generation);
	}
	free(v->probes);
	free(v->gw);
	free(v->runs);
	free(v->h);
	free(v->rounds);
	gp_map_free(v->keys);
	gp_map_free(v->ids);
	gp_map_free(v->idtab);
}

static int cmd_validity(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "strict", no_argument, NULL, 's' },
		{ "window-s", required_argument, NULL, 'w' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct validity v = { .last_idx = -1, .window_s = GP_WINDOW_S };
	struct gp_out out;
	const char *output = NULL;
	int c;

	while ((c = gp_getopt(argc, argv, "o:h", opts)) != -1) {
		switch (c) {
		case 's': v.strict = 1; break;
		case 'w': v.window_s = gp_opt_double("--window-s", optarg, 0, 1e6); break;
		case 'o': output = optarg; break;
		case 'h': gp_print_help(usage);
		case 'V': gp_print_version();
		default: gp_usage_error("unknown option");
		}
	}
	v.keys = gp_map_new();
	v.ids = gp_map_new();
	v.idtab = gp_map_new();
	v.spool = spool_open();
	validity_read(&v, argv + optind, argc - optind);
	validity_decide(&v);
	gp_output_open(&out, output, 0);
	emit_kept(&v, v.spool, &out);
	fclose(v.spool);
	emit_verdicts(&v, &out);
	out_finish(&out);

	if (v.n_runs == 0)
		gp_warn("no runs in the input (no request, run or run_end records)");
	else if (v.kept == 0)
		gp_warn("every run was discarded (%zu)", v.dropped);
	else if (v.dropped)
		gp_info("kept %zu runs, discarded %zu", v.kept, v.dropped);
	c = v.kept > 0 ? GP_EXIT_OK : GP_EXIT_NEGATIVE;
	validity_release(&v);
	return c;
}

/* -------------------------------------------------------------- publish */

enum { EV_HEALTH, EV_PROBE, EV_DUAL, N_EV };

struct popts {
	int allow[N_EV];	/* --allow-missing */
	long min_reps, rep_cap, min_floor_reps;
	double max_cv, deadline_s, min_tpot_ms, miss_ratio, delivery_min_share;
	int have_deadline, strict, pass, quiet;
	int jq_given;		/* --jq: flatten with jq, not io/flatten */
	const char *fleet_path, *awk, *jq, *awk_dir, *output;
	const char *floor;	/* --floor: the design gates' floor arm */
	unsigned waive;		/* --waive: design gates, a bit each */
	double slo_margin;	/* --slo-margin */
};

/* Metric series the dual proof reads, summed over labels and targets. */
enum { M_HIT, M_MISS, M_VHIT, M_VQUERY, N_METRICS };

struct snap {
	long run;		/* index into runs */
	char *target;
	int seen[2];		/* a snapshot of this phase was read */
	int have[2][N_METRICS];
	double val[2][N_METRICS];	/* [phase][metric] */
};

struct prun {
	char *id, *arm;
	long requests;
	double attempted;
	int have_attempted;
	int replay;		/* a run header, request or run_end names it: a replay */
	int have_key;		/* rate and rep (its first run-keyed record's) */
	double rate;
	long long rep;
	struct gp_run_digest dig;	/* its run_end records (binding.h) */
};

struct parm {
	char *name;
	long completed, receipts;
	long rc[GP_RC_N];	/* completed requests by receipt class (proof.h) */
};

struct publish {
	struct popts *opt;
	FILE *flat;		/* the integrity rows, while reading (io/flatten) */
	int flat_ready;		/* ... written whole: jq is not run */
	struct gp_fleet fleet;
	int have_fleet;
	struct gp_receipt_fmt rfmt;	/* the fleet's receipt_regex, or the built-in shapes */
	const char *metric[N_METRICS];
	json_t *validity;	/* the last validity record, or NULL */
	long n_validity;	/* validity records read */
	long n_unbound;		/* request/run/run_end records without a run id */
	struct at first_unbound;
	char *unbound_file;
	json_t *summaries;	/* arm_summary records, in order */
	json_t *floors;		/* noise_floor records */
	long n_slo, n_goodfrac, n_requests;
	struct prun *runs;
	size_t n_runs, cap_runs;
	struct gp_map *run_ids;	/* run ids; a run's index is its id's */
	struct parm *arms;
	size_t n_arms, cap_arms;
	struct gp_map *arm_ids;	/* arm names, likewise */
	struct snap *snaps;
	size_t n_snaps, cap_snaps;
	struct gp_map *snap_ids;	/* "run index \x1f target", likewise */
	json_t *reasons, *footnotes;
	json_t *notes;		/* non-blocking reasons */
	json_t *missing, *allowed, *relaxed;
	json_t *probes;		/* probe records */
	json_t *knees;		/* knee records */
	json_t *slo;		/* the last slo record */
	json_t *stab;		/* the stability records written, for the table */
	int not_checked;	/* something was not checked (for --strict) */
	FILE *spool;		/* the records, for jq and --pass */
	struct gp_design *design;	/* the design gates' records (method/design.h) */
	json_t *waived;		/* the waived: reasons */
	char *answer;		/* what the verdict answers */
};

static long prun_get(struct publish *p, const char *id)
{
	size_t i = gp_map_add(p->run_ids, id);

	if (i == p->n_runs) {
		GP_XGROW0(p->runs, p->n_runs, p->cap_runs, 16);
		p->n_runs++;
		p->runs[i].id = gp_xstrdup(id);
	}
	return (long)i;
}

static struct parm *parm_get(struct publish *p, const char *name)
{
	size_t i = gp_map_add(p->arm_ids, name);

	if (i == p->n_arms) {
		GP_XGROW0(p->arms, p->n_arms, p->cap_arms, 16);
		p->n_arms++;
		p->arms[i].name = gp_xstrdup(name);
	}
	return &p->arms[i];
}

/* Does series "name{labels}" (or "name") belong to metric `name`? */
static int series_is(const char *series, const char *name)
{
	size_t n;

	if (!name)
		return 0;
	n = strlen(name);
	return !strncmp(series, name, n) && (series[n] == 0 || series[n] == '{');
}

static void note_metrics(struct publish *p, const json_t *o, const struct at *w)
{
	const char *run = opt_str(o, "run", w), *phase = opt_str(o, "phase", w);
	const char *target = opt_str(o, "target", w), *arm = opt_str(o, "arm", w);
	json_t *samples = json_object_get(o, "samples"), *val;
	const char *series;
	struct snap *s;
	char *key;
	size_t j;
	long i, ph;

	if (!run || !phase || (strcmp(phase, "before") && strcmp(phase, "after")))
		return;		/* not a per-run snapshot: no use to the dual proof */
	if (samples && !json_is_null(samples) && !json_is_object(samples))
		gp_die_at(GP_EXIT_DATAERR, w->file, w->line, "field 'samples' is not an object");
	if (!samples || json_is_null(samples) || json_object_get(o, "error"))
		return;		/* a failed scrape is no snapshot */
	ph = !strcmp(phase, "after");
	i = prun_get(p, run);
	if (arm && !p->runs[i].arm)
		p->runs[i].arm = gp_xstrdup(arm);
	key = gp_xasprintf("%ld\x1f%s", i, target ? target : "");
	j = gp_map_add(p->snap_ids, key);
	free(key);
	if (j == p->n_snaps) {
		GP_XGROW0(p->snaps, p->n_snaps, p->cap_snaps, 16);
		p->n_snaps++;
		p->snaps[j].run = i;
		p->snaps[j].target = gp_xstrdup(target);
	}
	s = &p->snaps[j];
	/* before: the first snapshot counts; after: the last. */
	if (ph == 0 && s->seen[0])
		return;
	s->seen[ph] = 1;
	memset(s->have[ph], 0, sizeof(s->have[ph]));
	memset(s->val[ph], 0, sizeof(s->val[ph]));
	json_object_foreach(samples, series, val) {
		if (!json_is_number(val))
			continue;
		for (int m = 0; m < N_METRICS; m++) {
			if (series_is(series, p->metric[m])) {
				s->val[ph][m] += json_number_value(val);
				s->have[ph][m] = 1;
			}
		}
	}
}

/* The class of a completed request's receipt (proof.h): its halves as
 * gp-replay recorded them, else read from the receipt in the fleet's shape. */
static int judge_receipt(const struct publish *p, const json_t *o, const char *receipt,
			 const struct at *w)
{
	const char *pre = opt_str(o, "prefill", w), *dec = opt_str(o, "decode", w);
	char pb[256], db[256];
	int split;

	if (!receipt || !*receipt)
		return GP_RC_NONE;
	if (!p->have_fleet)
		return GP_RC_OK;	/* no fleet: the delivery proof is not checked */
	if (pre && dec && !p->rfmt.have_re) {
		snprintf(pb, sizeof(pb), "%s", pre);
		snprintf(db, sizeof(db), "%s", dec);
		split = GP_RECEIPT_BOTH;
	} else {
		split = gp_receipt_split(&p->rfmt, receipt, pb, sizeof(pb), db, sizeof(db));
	}
	return gp_delivery_judge(&p->fleet, split, pb, db);
}

/* A run header, request or run_end: the replay its run id names, for the
 * bindings (a record without a run id cannot be bound and is counted). */
static long note_replay(struct publish *p, const json_t *o, const struct at *w)
{
	const char *run = opt_str(o, "run", w), *arm = opt_str(o, "arm", w);
	double rate;
	long long rep;
	long i;

	if (!run) {
		if (!p->n_unbound++) {
			p->unbound_file = gp_xstrdup(w->file);
			p->first_unbound = (struct at){ p->unbound_file, w->line };
		}
		return -1;
	}
	i = prun_get(p, run);
	p->runs[i].replay = 1;
	if (arm && !p->runs[i].arm)
		p->runs[i].arm = gp_xstrdup(arm);
	if (!p->runs[i].have_key && arm && opt_num(o, "rate_rps", w, &rate) && opt_int(o, "rep", w, &rep)) {
		p->runs[i].have_key = 1;
		p->runs[i].rate = rate;
		p->runs[i].rep = rep;
	}
	return i;
}

static void note_publish_record(struct publish *p, const json_t *o, const struct at *w)
{
	const char *type = gp_json_type(o);
	char err[256];

	if (gp_design_note(p->design, o, err, sizeof(err)))
		gp_die_at(GP_EXIT_DATAERR, w->file, w->line, "%s", err);

	if (!strcmp(type, "request") || !strcmp(type, "run") || !strcmp(type, "run_end")) {
		long i = note_replay(p, o, w);

		if (i >= 0 && !strcmp(type, "run_end") && gp_run_digest_add(&p->runs[i].dig, o))
			gp_die_nomem();
	}
	if (!strcmp(type, "request")) {
		const char *arm = gp_need_str(o, "arm", w->file, w->line);
		const char *outcome = gp_need_str(o, "outcome", w->file, w->line);
		const char *run = opt_str(o, "run", w), *receipt;
		struct parm *a = parm_get(p, arm);

		p->n_requests++;
		if (run) {
			long i = prun_get(p, run);

			p->runs[i].requests++;
			if (!p->runs[i].arm)
				p->runs[i].arm = gp_xstrdup(arm);
		}
		if (!strcmp(outcome, "ok") || !strcmp(outcome, "single_token")) {
			a->completed++;
			receipt = opt_str(o, "receipt", w);
			if (receipt && *receipt)
				a->receipts++;
			a->rc[judge_receipt(p, o, receipt, w)]++;
		}
	} else if (!strcmp(type, "run_end")) {
		const char *run = opt_str(o, "run", w);
		double att;

		if (run && opt_num(o, "attempted", w, &att)) {
			long i = prun_get(p, run);

			p->runs[i].attempted += att;
			p->runs[i].have_attempted = 1;
		}
	} else if (!strcmp(type, "metrics")) {
		note_metrics(p, o, w);
	} else if (!strcmp(type, "validity")) {
		p->n_validity++;
		json_decref(p->validity);
		p->validity = json_incref((json_t *)o);
	} else if (!strcmp(type, "arm_summary")) {
		gp_need_str(o, "arm", w->file, w->line);
		gp_need_num(o, "rate_rps", w->file, w->line);
		gp_need_int(o, "reps", w->file, w->line);
		json_array_append((json_t *)p->summaries, (json_t *)o);
	} else if (!strcmp(type, "noise_floor")) {
		json_array_append(p->floors, (json_t *)o);
	} else if (!strcmp(type, "slo")) {
		p->n_slo++;
		json_decref(p->slo);
		p->slo = json_incref((json_t *)o);
	} else if (!strcmp(type, "probe")) {
		/* A probe proves the mode (phase 2), never a replay's decision:
		 * its snapshots are not a replay's (note_replay). */
		gp_need_str(o, "arm", w->file, w->line);
		json_array_append(p->probes, (json_t *)o);
	} else if (!strcmp(type, "knee")) {
		json_array_append(p->knees, (json_t *)o);
	} else if (!strcmp(type, "goodfrac")) {
		p->n_goodfrac++;
	}
}

/* The validity record's window W (s), for the messages. */
static double validity_window(const struct publish *p)
{
	double w = GP_WINDOW_S;

	if (p->validity)
		gp_json_num(p->validity, "window_s", &w);
	return w;
}

static void because(struct publish *p, char *text)
{
	json_array_append_new(p->reasons, json_string(text));
	free(text);
}

/* A reason that does not block: what the verdict rests on (allowed_missing:,
 * relaxed:), listed after the blocking reasons. */
static void note_reason(struct publish *p, json_t *list, char *text)
{
	json_array_append_new(p->notes, json_string(text));
	if (list)
		json_array_append_new(list, json_string(text));
	free(text);
}

static const char *const ev_name[N_EV] = { "health", "probe", "dual_proof" };

/* Evidence the method requires is missing: blocking unless --allow-missing. */
static void missing(struct publish *p, int ev, char *what)
{
	if (p->opt->allow[ev]) {
		note_reason(p, p->allowed, gp_xasprintf("allowed_missing: %s: %s (--allow-missing %s)",
						     ev_name[ev], what, ev_name[ev]));
	} else {
		char *t = gp_xasprintf("missing: %s: %s", ev_name[ev], what);

		json_array_append_new(p->missing, json_string(t));
		because(p, t);
	}
	free(what);
}

/* --- stability */

static void stability(struct publish *p, struct gp_out *out)
{
	size_t i;
	json_t *s;

	if (!json_array_size(p->summaries))
		because(p, gp_xasprintf("stability: no arm_summary records (run gp-analyze first)"));
	json_array_foreach(p->summaries, i, s) {
		const char *arm = json_string_value(json_object_get(s, "arm"));
		double rate = json_number_value(json_object_get(s, "rate_rps"));
		long reps = (long)json_integer_value(json_object_get(s, "reps"));
		double cv = NAN, mean = NAN, cv_used;
		enum gp_stability verdict;
		long add;
		char *foot = NULL;
		json_t *rec;

		gp_json_num(s, "cv", &cv);
		gp_json_num(s, "mean_good_fraction", &mean);
		cv_used = gp_gate_stability_cv(reps, cv, mean);
		verdict = gp_stability_verdict(reps, cv_used, p->opt->min_reps, p->opt->max_cv,
					       p->opt->rep_cap);
		add = gp_gate_add_reps(reps, cv_used, p->opt->min_reps, p->opt->max_cv,
				       p->opt->rep_cap);
		if (verdict == GP_STABILITY_PUBLISHABLE_WITH_FOOTNOTE)
			foot = reps == p->opt->rep_cap ?
			       gp_xasprintf("%s at %g rps: residual CV %.4g over the %g bound at the "
					 "%ld-rep cap", arm, rate, cv, p->opt->max_cv, reps) :
			       gp_xasprintf("%s at %g rps: residual CV %.4g over the %g bound at %ld "
					 "reps, past the %ld-rep cap", arm, rate, cv, p->opt->max_cv,
					 reps, p->opt->rep_cap);
		else if (cv_used != cv && verdict == GP_STABILITY_PUBLISHABLE)
			foot = gp_xasprintf("%s at %g rps: every rep had good fraction 0 (CV undefined, "
					 "taken as 0)", arm, rate);
		if (foot)
			json_array_append_new(p->footnotes, json_string(foot));
		if (verdict == GP_STABILITY_ADD_REPLICATES) {
			char cvs[32] = "undefined";

			if (!isnan(cv))
				snprintf(cvs, sizeof(cvs), "%.4g", cv);
			because(p, gp_xasprintf("stability: %s at %g rps: ADD_REPLICATES (%ld reps, CV %s; "
					     "add %ld)", arm, rate, reps, cvs, add));
		}
		rec = json_pack("{s:s, s:s, s:O, s:I, s:o, s:s, s:I, s:o, s:I, s:f, s:o}",
				"type", "stability", "arm", arm,
				"rate_rps", json_object_get(s, "rate_rps"), "reps", (json_int_t)reps,
				"cv", gp_json_real(cv), "verdict", gp_stability_name(verdict),
				"add_reps", (json_int_t)add, "footnote", jstr_or_null(foot),
				"min_reps", (json_int_t)p->opt->min_reps,
				"max_cv", p->opt->max_cv,
				"rep_cap", p->opt->rep_cap > 0 ?
				json_integer(p->opt->rep_cap) : json_null());
		json_array_append(p->stab, rec);
		out_record(out, rec);
		free(foot);
	}
}

/*
 * The noise floor's baseline minimum: enough floor reps to resolve a
 * difference δ.  Reported in its own record, never part of the publish
 * verdict (method §8.2: the two are different things).
 */
static void floor_checks(struct publish *p, struct gp_out *out)
{
	size_t i;
	json_t *f;

	json_array_foreach(p->floors, i, f) {
		long long reps = 0;
		double hw = NAN;

		gp_json_int(f, "reps", &reps);
		gp_json_num(f, "half_width", &hw);
		out_record(out, json_pack("{s:s, s:O, s:O, s:I, s:I, s:b, s:o}",
					  "type", "floor_check",
					  "arm", json_object_get(f, "arm") ? json_object_get(f, "arm") : json_null(),
					  "rate_rps", json_object_get(f, "rate_rps") ?
					  json_object_get(f, "rate_rps") : json_null(),
					  "reps", (json_int_t)reps,
					  "min_reps", (json_int_t)p->opt->min_floor_reps,
					  "resolvable", reps >= p->opt->min_floor_reps && !isnan(hw),
					  "half_width", gp_json_real(hw)));
	}
}

/* --- integrity: jq flattens, POSIX awk re-derives (share/awk/) */

static char *tmp_dir;

static void tmp_cleanup(void)
{
	static const char *const names[] = { "records.ndjson", "flat.tsv", "pass1.tsv" };

	if (!tmp_dir)
		return;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *p = gp_xasprintf("%s/%s", tmp_dir, names[i]);

		unlink(p);
		free(p);
	}
	rmdir(tmp_dir);
	free(tmp_dir);
	tmp_dir = NULL;
}

static void tmp_make(void)
{
	const char *t = getenv("TMPDIR");

	tmp_dir = gp_xasprintf("%s/gp-verify.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmp_dir))
		gp_die(GP_EXIT_SOFTWARE, "cannot create a temporary directory in %s: %s",
		       t && *t ? t : "/tmp", strerror(errno));
	atexit(tmp_cleanup);
}

/* The whole of f from its start, NUL-terminated (the caller frees). */
static char *slurp(FILE *f)
{
	struct gp_buf b = { 0 };

	rewind(f);
	if (gp_buf_read(&b, f)) {
		if (errno == ENOMEM)
			gp_die_nomem();
		gp_die(GP_EXIT_IOERR, "cannot read a temporary file: %s", strerror(errno));
	}
	return b.p;
}

/*
 * Run argv (child.h: PATH search, stdin /dev/null, stderr ours) with stdout
 * into out_fd, or into *buf (NUL-terminated, caller frees) when out_fd < 0.
 * Returns the exit status, 128 + signal, or -1 with err set when the program
 * could not start.
 */
static int run_child(char *const argv[], int out_fd, char **buf, char *err, size_t errlen)
{
	FILE *f = out_fd < 0 ? tmpfile() : NULL;
	int rc;

	if (out_fd < 0 && !f) {
		snprintf(err, errlen, "cannot create a temporary file: %s", strerror(errno));
		return -1;
	}
	rc = gp_child_run(argv, NULL, f ? fileno(f) : out_fd, STDERR_FILENO);
	check_stop();	/* the child shared our terminal's SIGINT */
	if (rc < 0)
		snprintf(err, errlen, "cannot run %s: %s", argv[0], strerror(-rc));
	else if (f)
		*buf = slurp(f);
	if (f)
		fclose(f);
	return rc < 0 ? -1 : rc;
}

static int file_exists(const char *dir, const char *name)
{
	char *p = gp_xasprintf("%s/%s", dir, name);
	struct stat sb;
	int r = stat(p, &sb) == 0 && S_ISREG(sb.st_mode);

	free(p);
	return r;
}

/* --awk-dir, $GP_AWK_DIR, <exe>/../share/awk, <exe>/../share/gp/awk, SHAREDIR/awk. */
static char *find_awk_dir(const char *opt)
{
	char exe[PATH_MAX], *slash, *c;
	const char *env = getenv("GP_AWK_DIR");
	ssize_t n;

	if (opt)
		return gp_xstrdup(opt);
	if (env && *env)
		return gp_xstrdup(env);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			c = gp_xasprintf("%s/../share/awk", exe);
			if (file_exists(c, "common.awk"))
				return c;
			free(c);
			c = gp_xasprintf("%s/../share/gp/awk", exe);
			if (file_exists(c, "common.awk"))
				return c;
			free(c);
		}
	}
	return gp_xstrdup(GP_SHAREDIR "/awk");
}

struct check_out {
	const char *script;
	const char *const checks[3];
};

static const struct check_out scripts[] = {
	{ "counts.awk", { "denominator", "conservation", NULL } },
	{ "units.awk", { "units", NULL } },
	{ "recount.awk", { "recount", NULL } },
	{ "interval.awk", { "cv", "interval", NULL } },
	{ "slo.awk", { "slo", NULL } },
	{ "validity.awk", { "validity", NULL } },
};

static void integrity_record(struct publish *p, struct gp_out *out, const char *check,
			     const char *status, const char *detail)
{
	int ok = !strcmp(status, "ok"), fail = !strcmp(status, "fail");

	if (!ok && !fail)
		status = "not_checked";
	if (fail)
		because(p, gp_xasprintf("integrity: %s failed: %s", check, detail));
	else if (!ok)
		because(p, gp_xasprintf("integrity: %s not checked: %s", check, detail));
	if (!ok && !fail)
		p->not_checked = 1;
	out_record(out, json_pack("{s:s, s:s, s:o, s:s, s:s}", "type", "integrity",
				  "check", check, "ok", ok ? json_true() : fail ? json_false() : json_null(),
				  "status", status, "detail", detail));
}

/* The rows the scripts' first pass reads (io/flatten), in pass1.tsv beside
 * flat; NULL (read flat twice) when it cannot be written.  Caller frees. */
static char *first_pass_rows(const char *flat)
{
	char *path = gp_xasprintf("%s/pass1.tsv", tmp_dir);
	FILE *in = fopen(flat, "r"), *out = fopen(path, "w");
	int rc = in && out ? gp_flatten_pass1(in, out) : -1;

	if (in)
		fclose(in);
	if (out && fclose(out))
		rc = -1;
	if (rc) {
		free(path);
		return NULL;
	}
	return path;
}

static void integrity(struct publish *p, struct gp_out *out, const char *records_path)
{
	char *pass1 = NULL;
	char err[512], *dir = find_awk_dir(p->opt->awk_dir);
	char *flat = gp_xasprintf("%s/flat.tsv", tmp_dir);
	char *jqf = gp_xasprintf("%s/flatten.jq", dir);
	char *jq_argv[] = { (char *)p->opt->jq, "-r", "-f", jqf, (char *)records_path, NULL };
	char dl[64] = "", tp[64], *problem = NULL;
	int fd, rc;

	if (!file_exists(dir, "common.awk") || !file_exists(dir, "flatten.jq"))
		problem = gp_xasprintf("no integrity scripts in %s (set --awk-dir or GP_AWK_DIR)", dir);
	fd = -1;
	if (!problem && p->flat_ready)
		goto flat_done;	/* io/flatten wrote it while the records were read */
	fd = open(flat, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (!problem && fd < 0)
		problem = gp_xasprintf("cannot create %s: %s", flat, strerror(errno));
	if (!problem) {
		rc = run_child(jq_argv, fd, NULL, err, sizeof(err));
		if (rc < 0)
			problem = gp_xstrdup(err);
		else if (rc)
			problem = gp_xasprintf("%s exited with status %d flattening the records", p->opt->jq, rc);
	}
flat_done:
	if (fd >= 0)
		close(fd);
	if (!problem)
		pass1 = first_pass_rows(flat);
	if (p->opt->have_deadline)
		snprintf(dl, sizeof(dl), "deadline_s=%.17g", p->opt->deadline_s);
	else
		snprintf(dl, sizeof(dl), "deadline_s=");
	snprintf(tp, sizeof(tp), "min_tpot_ms=%.17g", p->opt->min_tpot_ms);
	for (size_t s = 0; s < sizeof(scripts) / sizeof(scripts[0]); s++) {
		char *common = gp_xasprintf("%s/common.awk", dir), *tdist = gp_xasprintf("%s/tdist.awk", dir);
		char *script = gp_xasprintf("%s/%s", dir, scripts[s].script), *buf = NULL;
		char *av[] = { (char *)p->opt->awk, "-v", dl, "-v", tp, "-f", common, "-f", tdist,
			       "-f", script, pass1 ? pass1 : flat, flat, NULL };
		int seen[3] = { 0, 0, 0 };

		if (!problem) {
			rc = run_child(av, -1, &buf, err, sizeof(err));
			if (rc < 0 || rc) {
				char *why = rc < 0 ? gp_xstrdup(err) :
					    gp_xasprintf("%s -f %s exited with status %d", p->opt->awk,
						      scripts[s].script, rc);

				for (int k = 0; scripts[s].checks[k]; k++)
					integrity_record(p, out, scripts[s].checks[k], "not_checked", why);
				free(why);
				free(buf);
				buf = NULL;
				goto next;
			}
			for (char *ln = buf, *nl; ln && *ln; ln = nl) {
				char *t1, *t2;

				nl = strchr(ln, '\n');
				if (nl)
					*nl++ = 0;
				else
					nl = ln + strlen(ln);
				t1 = strchr(ln, '\t');
				t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
				if (!t2)
					continue;
				*t1 = *t2 = 0;
				if (!strcmp(ln, "footnote")) {	/* information, never a failure */
					json_array_append_new(p->footnotes, json_string(t2 + 1));
					continue;
				}
				for (int k = 0; scripts[s].checks[k]; k++)
					if (!strcmp(ln, scripts[s].checks[k]))
						seen[k] = 1;
				integrity_record(p, out, ln, t1 + 1, t2 + 1);
			}
		}
		for (int k = 0; scripts[s].checks[k]; k++)
			if (!seen[k])
				integrity_record(p, out, scripts[s].checks[k], "not_checked",
						 problem ? problem : "the awk script did not report it");
next:
		free(buf);
		free(common);
		free(tdist);
		free(script);
	}
	free(problem);
	free(flat);
	free(jqf);
	free(pass1);
	free(dir);
}

/* --- dual proof: routing decision (metrics) vs delivery (receipts) */

/* Sum over the run's targets of the counter's increase; 0/1 in *have. */
static double run_delta(const struct publish *p, long run, int m, int *have)
{
	double d = 0;

	*have = 0;
	for (size_t i = 0; i < p->n_snaps; i++) {
		const struct snap *s = &p->snaps[i];

		if (s->run != run || !s->have[0][m] || !s->have[1][m])
			continue;
		d += gp_gate_counter_delta(s->val[0][m], s->val[1][m]);
		*have = 1;
	}
	return d;
}

/* The runs of one arm as the decision proof reads them (proof.h); the
 * caller frees.  The hit counter is the gateway's, else the backends'. */
static struct gp_proof_run *arm_runs(const struct publish *p, const char *arm, size_t *n)
{
	int mh = p->metric[M_HIT] ? M_HIT : M_VHIT;
	struct gp_proof_run *v = gp_xrealloc(NULL, (p->n_runs + 1) * sizeof(*v));

	*n = 0;
	for (size_t r = 0; r < p->n_runs; r++) {
		struct gp_proof_run *x;

		if (!p->runs[r].replay || !p->runs[r].arm || strcmp(p->runs[r].arm, arm))
			continue;
		x = &v[(*n)++];
		x->id = p->runs[r].id;
		x->hit = run_delta(p, (long)r, mh, &x->have_hit);
		x->miss = run_delta(p, (long)r, M_MISS, &x->have_miss);
		x->query = run_delta(p, (long)r, M_VQUERY, &x->have_query);
		x->attempted = p->runs[r].have_attempted ? p->runs[r].attempted :
			       (double)p->runs[r].requests;
	}
	return v;
}

static json_t *proof_json(int ok)
{
	return ok == GP_PROOF_UNKNOWN ? json_null() : json_boolean(ok);
}

/* Decide both proofs of one arm; the details are the caller's to free. */
static void arm_proofs(struct publish *p, const struct parm *arm, struct gp_proof *dec,
		       struct gp_proof *del)
{
	const struct gp_fleet_arm *fa = p->have_fleet ? gp_fleet_arm(&p->fleet, arm->name) : NULL;
	struct gp_proof_metrics m = { p->metric[M_HIT], p->metric[M_MISS], p->metric[M_VHIT],
				      p->metric[M_VQUERY] };
	struct gp_proof_run *runs;
	size_t n;

	*dec = *del = (struct gp_proof){ .ok = GP_PROOF_UNKNOWN, .evidence = "not_checked" };
	if (!p->have_fleet) {
		dec->detail = gp_xstrdup("no --fleet file");
		del->detail = gp_xstrdup("no --fleet file");
		return;
	}
	if (!fa) {
		dec->detail = gp_xasprintf("arm '%s' is not in the fleet file", arm->name);
		del->detail = gp_xstrdup(dec->detail);
		return;
	}
	runs = arm_runs(p, arm->name, &n);
	if (gp_decision_proof(fa->routes_by_cache, &m, runs, n, p->opt->miss_ratio, dec))
		gp_die_nomem();
	free(runs);
	if (gp_delivery_proof_judged(gp_proof_expects_receipt(fa->disaggregated,
							     p->fleet.receipt_header != NULL),
				     arm->rc, p->opt->delivery_min_share, del))
		gp_die_nomem();
}

static void dual_proof(struct publish *p, struct gp_out *out)
{
	for (size_t a = 0; a < p->n_arms; a++) {
		const struct parm *arm = &p->arms[a];
		struct gp_proof dec, del;
		int dnc, lnc;
		char *detail;

		arm_proofs(p, arm, &dec, &del);
		dnc = !strcmp(dec.evidence, "not_checked");
		lnc = !strcmp(del.evidence, "not_checked");
		if (dec.ok == GP_PROOF_FAIL)
			because(p, gp_xasprintf("dual_proof: arm %s: decision: %s", arm->name, dec.detail));
		if (del.ok == GP_PROOF_FAIL)
			because(p, gp_xasprintf("dual_proof: arm %s: delivery: %s", arm->name, del.detail));
		else if (del.ok == GP_PROOF_OK && arm->rc[GP_RC_OK] < arm->completed)
			/* Held only because --delivery-min-share was relaxed: say so. */
			json_array_append_new(p->footnotes, json_sprintf("dual_proof: arm %s: delivery held "
					      "at --delivery-min-share %g with %ld of %ld completed requests "
					      "lacking a good receipt", arm->name, p->opt->delivery_min_share,
					      arm->completed - arm->rc[GP_RC_OK], arm->completed));
		/* Evidence that could not be gathered is missing evidence (strict
		 * by default; --allow-missing dual_proof relaxes it, and says so). */
		if (dnc)
			missing(p, EV_DUAL, gp_xasprintf("arm %s: decision not checked: %s", arm->name,
							 dec.detail));
		else if (dec.unscraped)
			missing(p, EV_DUAL, gp_xasprintf("arm %s: decision not checked for %ld of %ld "
							 "replays (no before/after scrapes of their own: %s)",
							 arm->name, dec.unscraped, dec.replays,
							 dec.not_scraped));
		if (lnc)
			missing(p, EV_DUAL, gp_xasprintf("arm %s: delivery not checked: %s", arm->name,
							 del.detail));
		detail = gp_xasprintf("decision: %s; delivery: %s", dec.detail, del.detail);
		out_record(out, json_pack("{s:s, s:s, s:o, s:o, s:s, s:s, s:s, s:I, s:o, s:o}",
					  "type", "dual_proof", "arm", arm->name,
					  "decision_ok", proof_json(dec.ok), "delivery_ok", proof_json(del.ok),
					  "evidence", dec.evidence, "delivery_evidence", del.evidence,
					  "detail", detail, "replays", (json_int_t)dec.replays,
					  "not_moved", jstr_or_null(dec.not_moved),
					  "not_scraped", jstr_or_null(dec.not_scraped)));
		free(detail);
		gp_proof_release(&dec);
		gp_proof_release(&del);
	}
}

/* --- the verdict */

/* The rule is evidence from outside the run (health, probe): publish asks
 * for it as evidence (missing unless --allow-missing), --strict or not. */
static int evidence_rule(const char *rule, int *ev)
{
	static const char *const health[] = { "vip_200", "backend_health", "kv_events" };
	static const char *const probe[] = { "probe", "gateway" };

	for (size_t i = 0; rule && i < sizeof(health) / sizeof(health[0]); i++)
		if (!strcmp(rule, health[i]))
			return *ev = EV_HEALTH, 1;
	for (size_t i = 0; rule && i < sizeof(probe) / sizeof(probe[0]); i++)
		if (!strcmp(rule, probe[i]))
			return *ev = EV_PROBE, 1;
	return 0;
}

/* Phases 0 and 2 evidence, run by run: the validity filter found health
 * rounds around each kept run and a probe of its arm before it, after the
 * gateway's last recreation (validity.h, struct gp_window). */
static void window_evidence(struct publish *p)
{
	char *none[N_EV] = { NULL };
	long nruns[N_EV] = { 0 }, kept = 0;
	const char *first[N_EV] = { NULL };
	size_t i, k;
	json_t *r, *rule;

	if (!p->validity)
		return;		/* the validity gate says so */
	json_array_foreach(json_object_get(p->validity, "runs"), i, r) {
		const char *verdict = json_string_value(json_object_get(r, "verdict"));
		int seen[N_EV] = { 0 };

		if (!verdict || strcmp(verdict, "kept"))
			continue;
		kept++;
		json_array_foreach(json_object_get(r, "not_checked"), k, rule) {
			const char *name = json_string_value(rule);
			int ev;

			if (!evidence_rule(name, &ev))
				continue;
			if (!strstr(none[ev] ? none[ev] : "", name)) {
				char *t = gp_xasprintf("%s%s%s", none[ev] ? none[ev] : "", none[ev] ? ", " : "",
						       name);

				free(none[ev]);
				none[ev] = t;
			}
			if (!seen[ev]++ && !nruns[ev]++)
				first[ev] = json_string_value(json_object_get(r, "run"));
		}
	}
	if (none[EV_HEALTH])
		missing(p, EV_HEALTH, gp_xasprintf("%ld of %ld runs have no health round against their VIP "
						"ended at most %g s before and one begun at most %g s "
						"after (%s not checked; first: run %s)", nruns[EV_HEALTH],
						kept, validity_window(p), validity_window(p),
						none[EV_HEALTH], first[EV_HEALTH] ? first[EV_HEALTH] : "?"));
	if (none[EV_PROBE])
		missing(p, EV_PROBE, gp_xasprintf("%ld of %ld runs have no probe of their arm that ended "
					       "after the gateway's last recreation and before the run "
					       "(%s not checked; first: run %s)", nruns[EV_PROBE], kept,
					       none[EV_PROBE], first[EV_PROBE] ? first[EV_PROBE] : "?"));
	free(none[EV_HEALTH]);
	free(none[EV_PROBE]);
}

/* Phase 2 evidence: a probe record that confirmed the mode of every arm. */
static void probe_evidence(struct publish *p)
{
	for (size_t a = 0; a < p->n_arms; a++) {
		const char *name = p->arms[a].name;
		int seen = 0, confirmed = 0, engaged = 0;
		size_t i;
		json_t *r;

		json_array_foreach(p->probes, i, r) {
			int b = 0;

			if (strcmp(json_string_value(json_object_get(r, "arm")), name))
				continue;
			seen = 1;
			if (gp_json_bool(r, "mode_confirmed", &b) == 0 && b)
				confirmed = 1;
			if (gp_json_bool(r, "engaged", &b) == 0 && b)
				engaged = 1;
		}
		switch (gp_gate_probe(seen, confirmed, engaged)) {
		case GP_PROBE_MISSING:
			missing(p, EV_PROBE, gp_xasprintf("arm %s: no probe record (run gp-probe for "
							  "every arm)", name));
			break;
		case GP_PROBE_NOT_CONFIRMED:
			because(p, gp_xasprintf("probe: arm %s: the gateway's mode was not confirmed", name));
			break;
		case GP_PROBE_NOT_ENGAGED:
			because(p, gp_xasprintf("probe: arm %s: the routing mechanism did not engage", name));
			break;
		case GP_PROBE_OK:
			break;
		}
	}
}

/* Thresholds looser than the method's are allowed, and the verdict says so. */
static void relaxed_checks(struct publish *p)
{
	double level = NAN;
	long long mr = 0;

	if (p->opt->min_reps < GP_METHOD_MIN_REPS)
		note_reason(p, p->relaxed, gp_xasprintf("relaxed: --min-reps %ld is below the method's 5",
						     p->opt->min_reps));
	if (p->opt->max_cv > GP_METHOD_MAX_CV)
		note_reason(p, p->relaxed, gp_xasprintf("relaxed: --max-cv %g is above the method's 0.10",
						     p->opt->max_cv));
	if (p->slo && gp_json_num(p->slo, "level", &level) == 0 && level < GP_METHOD_LEVEL)
		note_reason(p, p->relaxed, gp_xasprintf("relaxed: gp-analyze --level %g is below the "
						     "method's 0.95", level));
	if (p->slo && gp_json_int(p->slo, "min_reps", &mr) == 0 && mr < GP_METHOD_MIN_REPS)
		note_reason(p, p->relaxed, gp_xasprintf("relaxed: gp-analyze --min-reps %lld is below the "
						     "method's 5", mr));
}

/* The headline: per accelerator, and a knee on the ladder's edge footnoted. */
static void knee_checks(struct publish *p)
{
	size_t i;
	json_t *k;

	json_array_foreach(p->knees, i, k) {
		const char *arm = json_string_value(json_object_get(k, "arm"));
		const char *edge = NULL, *advice = NULL;
		json_t *rate = json_object_get(k, "rate_rps"), *acc = json_object_get(k, "accelerators");

		if (!arm)
			continue;
		if (rate && !json_is_null(rate) && (!acc || json_is_null(acc)))
			because(p, gp_xasprintf("knee: arm %s: goodput per accelerator needs gp-analyze "
					     "--accelerators N or --fleet FILE", arm));
		gp_json_str(k, "edge", &edge);
		gp_json_str(k, "advice", &advice);
		if (edge)
			json_array_append_new(p->footnotes, json_sprintf("knee of %s at the ladder's "
							  "edge (%s): %s", arm, edge, advice ? advice : ""));
	}
}

/* The design gates (method/design.h): one design record each, a failed one
 * a reason unless --waive names it; then the answer.  A mixed topology,
 * waived, reframes the answer's claim. */
static void design_gates(struct publish *p, struct gp_out *out)
{
	struct gp_design_cfg cfg = { .floor = p->opt->floor, .fleet = p->have_fleet ? &p->fleet : NULL,
				     .slo_margin = p->opt->slo_margin, .waive = p->opt->waive };
	json_t *gates = gp_design_judge(p->design, &cfg), *g;
	const char *claim = NULL;
	size_t i;
	int none;

	if (!gates)
		gp_die(GP_EXIT_SOFTWARE, "out of memory");
	json_array_foreach(gates, i, g) {
		const char *name = json_string_value(json_object_get(g, "gate"));
		const char *st = json_string_value(json_object_get(g, "status"));
		const char *detail = json_string_value(json_object_get(g, "detail"));

		if (!strcmp(st, "fail"))
			because(p, gp_xasprintf("design: %s: %s", name, detail));
		else if (!strcmp(st, "waived"))
			note_reason(p, p->waived, gp_xasprintf("waived: design: %s: %s (--waive %s)",
							    name, detail, name));
		if (!strcmp(st, "waived") && json_object_get(g, "claim"))
			claim = json_string_value(json_object_get(g, "claim"));
		out_record(out, json_incref(g));
	}
	p->answer = gp_design_answer(p->design, claim, &none);
	if (!p->answer)
		gp_die(GP_EXIT_SOFTWARE, "out of memory");
	if (none)
		because(p, gp_xasprintf("knee: %s", p->answer));
	json_decref(gates);
}

static void validity_gate(struct publish *p)
{
	long long kept = 0;
	size_t i;
	json_t *r;
	int strict = 0;

	if (!p->validity) {
		because(p, gp_xasprintf("validity: no validity record (run gp-verify validity first)"));
		return;
	}
	gp_json_int(p->validity, "kept", &kept);
	gp_json_bool(p->validity, "strict", &strict);
	if (kept <= 0)
		because(p, gp_xasprintf("validity: no run survived the validity filter"));
	json_array_foreach(json_object_get(p->validity, "rules"), i, r) {
		const char *st = json_string_value(json_object_get(r, "status"));
		const char *rule = json_string_value(json_object_get(r, "rule"));

		/* The health and probe rules are evidence: missing unless
		 * --allow-missing (window_evidence), --strict or not. */
		int ev;

		if (evidence_rule(rule, &ev))
			continue;
		if (st && strcmp(st, "checked")) {
			p->not_checked = 1;
			if (p->opt->strict && !strict)
				because(p, gp_xasprintf("validity: rule %s not checked (--strict)", rule));
		}
	}
}

/* --- bindings: the validity record judged exactly the runs in the input */

/* A list of run names for one binding reason: the first 3, then a count. */
struct names {
	long n;
	char *text;
};

static void names_add(struct names *l, char *name)
{
	if (++l->n <= 3) {
		char *t = l->text ? gp_xasprintf("%s; %s", l->text, name) : gp_xstrdup(name);

		free(l->text);
		l->text = t;
	}
	free(name);
}

static void names_reason(struct publish *p, struct names *l, const char *what)
{
	if (l->n)
		because(p, gp_xasprintf("binding: %ld %s: %s%s", l->n, what, l->text,
				     l->n > 3 ? "; ..." : ""));
	free(l->text);
}

/* "ID (arm A, R rps, rep N)" of an input run. */
static char *run_name(const struct prun *r)
{
	if (!r->have_key)
		return gp_xasprintf("%s (arm %s)", r->id, r->arm ? r->arm : "?");
	return gp_xasprintf("%s (arm %s, %g rps, rep %lld)", r->id, r->arm ? r->arm : "?", r->rate,
			    r->rep);
}

/* The validity record is whole: one, and its digest is its content's. */
static int validity_intact(struct publish *p)
{
	char dg[GP_DIGEST_LEN + 1];
	const char *have = NULL;

	if (p->n_validity > 1)
		because(p, gp_xasprintf("binding: %ld validity records in the input (the evidence is one "
				     "gp-verify validity pass over every run)", p->n_validity));
	gp_json_str(p->validity, "digest", &have);
	if (gp_record_digest(p->validity, "digest", dg))
		gp_die_nomem();
	if (!have || strcmp(have, dg)) {
		because(p, gp_xasprintf("binding: the validity record's digest %s is not that of its "
				     "content (%s): edited, truncated or foreign", have ? have : "(none)",
				     dg));
		return 0;
	}
	return 1;
}

/*
 * Every run in the input has a kept verdict in the validity record with the
 * digest of its run_end records; every run the record kept is in the input;
 * no (arm, rate, rep) is two runs.  gp-verify(1), "Bindings".
 */
static void binding_gate(struct publish *p)
{
	struct names none = { 0 }, dropped = { 0 }, differ = { 0 }, absent = { 0 }, twice = { 0 };
	struct gp_map *judged, *keys;
	json_t *vruns, *e;
	size_t i;

	if (!p->validity)
		return;		/* the validity gate says so */
	if (p->n_unbound)
		because(p, gp_xasprintf("binding: %ld request, run or run_end records carry no run id "
				     "(first: %s:%lu): they cannot be bound to a verdict", p->n_unbound,
				     p->first_unbound.file, p->first_unbound.line));
	if (!validity_intact(p))
		return;
	vruns = json_object_get(p->validity, "runs");
	judged = gp_map_new();
	json_array_foreach(vruns, i, e) {
		const char *id = json_string_value(json_object_get(e, "run"));

		if (id)
			gp_map_put_u64(judged, id, (uint64_t)i);
	}
	keys = gp_map_new();
	for (size_t r = 0; r < p->n_runs; r++) {
		struct prun *x = &p->runs[r];
		const char *verdict = NULL, *want = NULL;
		char dg[GP_DIGEST_LEN + 1];
		uint64_t j;

		if (!x->replay)
			continue;
		if (x->have_key) {
			char *k = run_key(x->arm ? x->arm : "", x->rate, x->rep);
			uint64_t first;

			if (gp_map_get_u64(keys, k, &first))
				names_add(&twice, gp_xasprintf("rep %lld of arm %s at %g rps is %s and %s",
							       x->rep, x->arm, x->rate,
							       p->runs[first].id, x->id));
			else
				gp_map_put_u64(keys, k, (uint64_t)r);
			free(k);
		}
		if (!gp_map_get_u64(judged, x->id, &j)) {
			names_add(&none, run_name(x));
			continue;
		}
		e = json_array_get(vruns, j);
		gp_json_str(e, "verdict", &verdict);
		gp_json_str(e, "run_end_digest", &want);
		if (!verdict || strcmp(verdict, "kept")) {
			names_add(&dropped, run_name(x));
			continue;
		}
		if (gp_run_digest_hex(&x->dig, dg))
			gp_die_nomem();
		if (!want || strcmp(want, dg))
			names_add(&differ, gp_xasprintf("%s: %.19s... here, %.19s%s in the validity record",
							x->id, dg, want ? want : "(none)",
							want && strlen(want) > 19 ? "..." : ""));
	}
	json_array_foreach(vruns, i, e) {
		const char *id = json_string_value(json_object_get(e, "run"));
		const char *verdict = json_string_value(json_object_get(e, "verdict"));
		uint64_t j;

		if (id && verdict && !strcmp(verdict, "kept") &&
		    !(gp_map_get_u64(p->run_ids, id, &j) && p->runs[j].replay))
			names_add(&absent, gp_xstrdup(id));
	}
	names_reason(p, &none, "runs in the input have no verdict in the validity record");
	names_reason(p, &dropped, "runs in the input were discarded by the validity filter");
	names_reason(p, &differ, "runs' run_end records differ from those the validity record judged");
	names_reason(p, &absent, "runs the validity record kept are absent from the input");
	names_reason(p, &twice, "(arm, rate, rep) cells hold two runs");
	gp_map_free(judged);
	gp_map_free(keys);
}

static void table(struct publish *p, int publishable)
{
	size_t i;
	json_t *s;

	if (p->opt->quiet)
		return;
	fprintf(stderr, "%s: %s\n", gp_progname(), publishable ? "PUBLISHABLE" : "NOT PUBLISHABLE");
	if (p->answer)
		fprintf(stderr, "  answer: %s\n", p->answer);
	json_array_foreach(p->stab, i, s) {
		double cv = NAN, rate = NAN;

		gp_json_num(s, "cv", &cv);
		gp_json_num(s, "rate_rps", &rate);
		fprintf(stderr, "  %-16s %8g rps  %3lld reps  CV %-8.4g %s\n",
			json_string_value(json_object_get(s, "arm")), rate,
			(long long)json_integer_value(json_object_get(s, "reps")), cv,
			json_string_value(json_object_get(s, "verdict")));
	}
	json_array_foreach(p->reasons, i, s)
		fprintf(stderr, "  - %s\n", json_string_value(s));
	json_array_foreach(p->footnotes, i, s)
		fprintf(stderr, "  * %s\n", json_string_value(s));
}

/* --allow-missing health,probe,dual_proof (repeatable, comma-separated). */
static void parse_allow(struct popts *o, const char *arg)
{
	char *copy = gp_xstrdup(arg), *save = NULL;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int k;

		for (k = 0; k < N_EV; k++)
			if (!strcmp(t, ev_name[k]))
				break;
		if (k == N_EV)
			gp_usage_error("--allow-missing: '%s' is not health, probe or dual_proof", t);
		o->allow[k] = 1;
	}
	free(copy);
}

/* --waive GATE[,GATE...] (repeatable): the design gates published without. */
static void parse_waive(struct popts *o, const char *arg)
{
	char *copy = gp_xstrdup(arg), *save = NULL;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int g = gp_design_gate_parse(t);

		if (g < 0)
			gp_usage_error("--waive: '%s' is not floor, same_trace, topology, calibration, "
				       "baseline_vip or slo_feasible", t);
		o->waive |= 1u << g;
	}
	free(copy);
}

/* The publish options into *opt; returns optind. */
static int publish_args(int argc, char **argv, struct popts *opt)
{
	static const struct option opts[] = {
		{ "min-reps", required_argument, NULL, 'm' },
		{ "max-cv", required_argument, NULL, 'c' },
		{ "rep-cap", required_argument, NULL, 'C' },
		{ "fleet", required_argument, NULL, 'f' },
		{ "deadline-s", required_argument, NULL, 'd' },
		{ "min-tpot-ms", required_argument, NULL, 't' },
		{ "miss-ratio", required_argument, NULL, 'r' },
		{ "delivery-min-share", required_argument, NULL, 'D' },
		{ "min-floor-reps", required_argument, NULL, 'F' },
		{ "awk", required_argument, NULL, 'a' },
		{ "jq", required_argument, NULL, 'j' },
		{ "awk-dir", required_argument, NULL, 'A' },
		{ "strict", no_argument, NULL, 's' },
		{ "allow-missing", required_argument, NULL, 'M' },
		{ "floor", required_argument, NULL, 'L' },
		{ "waive", required_argument, NULL, 'W' },
		{ "slo-margin", required_argument, NULL, 'G' },
		{ "pass", no_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = gp_getopt(argc, argv, "qo:h", opts)) != -1) {
		switch (c) {
		case 'm': opt->min_reps = gp_opt_long("--min-reps", optarg, 2, 1000000); break;
		case 'c': opt->max_cv = gp_opt_double("--max-cv", optarg, 0, 1e9); break;
		case 'C': opt->rep_cap = gp_opt_long("--rep-cap", optarg, 1, 1000000); break;
		case 'f': opt->fleet_path = optarg; break;
		case 'd':
			opt->deadline_s = gp_opt_double("--deadline-s", optarg, 1e-9, 1e9);
			opt->have_deadline = 1;
			break;
		case 't': opt->min_tpot_ms = gp_opt_double("--min-tpot-ms", optarg, 0, 1e9); break;
		case 'r': opt->miss_ratio = gp_opt_double("--miss-ratio", optarg, 1e-9, 1e9); break;
		case 'D':
			opt->delivery_min_share = gp_opt_double("--delivery-min-share", optarg, 0, 1);
			break;
		case 'F': opt->min_floor_reps = gp_opt_long("--min-floor-reps", optarg, 2, 1000000); break;
		case 'a': opt->awk = optarg; break;
		case 'j': opt->jq = optarg; opt->jq_given = 1; break;
		case 'A': opt->awk_dir = optarg; break;
		case 's': opt->strict = 1; break;
		case 'M': parse_allow(opt, optarg); break;
		case 'L': opt->floor = optarg; break;
		case 'W': parse_waive(opt, optarg); break;
		case 'G': opt->slo_margin = gp_opt_double("--slo-margin", optarg, 0, 100); break;
		case 'p': opt->pass = 1; break;
		case 'q': opt->quiet = 1; break;
		case 'o': opt->output = optarg; break;
		case 'h': gp_print_help(usage);
		case 'V': gp_print_version();
		default: gp_usage_error("unknown option");
		}
	}
	if (opt->rep_cap && opt->rep_cap < opt->min_reps)
		gp_usage_error("--rep-cap %ld is below --min-reps %ld", opt->rep_cap, opt->min_reps);
	return optind;
}

/* The fleet file (for the dual proof) and the empty collections. */
static void publish_init(struct publish *p)
{
	if (p->opt->fleet_path) {
		char err[512];

		if (gp_fleet_load(&p->fleet, p->opt->fleet_path, err, sizeof(err)))
			gp_die_at(GP_EXIT_DATAERR, p->opt->fleet_path, 0, "%s", err);
		p->have_fleet = 1;
		if (gp_receipt_fmt_init(&p->rfmt, p->fleet.receipt_regex, err, sizeof(err)))
			gp_die_at(GP_EXIT_DATAERR, p->opt->fleet_path, 0, "field 'receipt_regex': %s", err);
		p->metric[M_HIT] = p->fleet.cache_hit_metric;
		p->metric[M_MISS] = p->fleet.miss_metric;
	}
	p->metric[M_VHIT] = "vllm:prefix_cache_hits_total";
	p->metric[M_VQUERY] = "vllm:prefix_cache_queries_total";
	p->summaries = json_array();
	p->floors = json_array();
	p->run_ids = gp_map_new();
	p->arm_ids = gp_map_new();
	p->snap_ids = gp_map_new();
	p->reasons = json_array();
	p->footnotes = json_array();
	p->stab = json_array();
	p->notes = json_array();
	p->missing = json_array();
	p->allowed = json_array();
	p->relaxed = json_array();
	p->probes = json_array();
	p->knees = json_array();
	p->waived = json_array();
	p->design = gp_design_new();
	if (!p->design)
		gp_die(GP_EXIT_SOFTWARE, "out of memory");
}

static void publish_record(void *ctx, json_t *o, const char *ln, size_t len, const struct at *w)
{
	struct publish *p = ctx;

	note_publish_record(p, o, w);
	if (p->flat && gp_flatten_record(o, p->flat) != GP_FLATTEN_OK) {
		fclose(p->flat);	/* jq flattens this file after all */
		p->flat = NULL;
	}
	fwrite(ln, 1, len, p->spool);
	putc('\n', p->spool);
}

/* Read: one pass that spools the records for jq and keeps what the C gates need. */
static void publish_read(struct publish *p, char **files, int n_files, const char *spool_path)
{
	/* The integrity scripts' rows, flattened from the records as they are
	 * read (io/flatten: jq's output at a tenth of jq's cost); --jq, or a
	 * record only jq would print alike, leaves it to jq. */
	if (!p->opt->jq_given) {
		char *flat = gp_xasprintf("%s/flat.tsv", tmp_dir);

		p->flat = fopen(flat, "w");
		free(flat);
	}
	read_records(files, n_files, NULL, publish_record, p);
	if (fflush(p->spool) || ferror(p->spool))
		gp_die(GP_EXIT_SOFTWARE, "%s: write error: %s", spool_path, strerror(errno));
	if (p->flat) {
		p->flat_ready = !fflush(p->flat) && !ferror(p->flat);
		if (fclose(p->flat))
			p->flat_ready = 0;
		p->flat = NULL;
	}
}

/* --pass: the input records, ahead of the verification records. */
static void publish_pass(FILE *spool, struct gp_out *out)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;

	rewind(spool);
	while ((got = getline(&line, &cap, spool)) > 0)
		if (gp_out_line(out, line, (size_t)got - (line[got - 1] == '\n')))
			gp_output_failed(out);
	free(line);
}

/* Decide and emit: every gate, in the documented order, then the verdict. */
static int publish_gates(struct publish *p, struct gp_out *out, const char *records_path)
{
	int publishable;

	validity_gate(p);
	binding_gate(p);
	stability(p, out);
	floor_checks(p, out);
	integrity(p, out, records_path);
	dual_proof(p, out);
	window_evidence(p);
	probe_evidence(p);
	knee_checks(p);
	design_gates(p, out);
	relaxed_checks(p);
	if (p->opt->strict && p->not_checked && !json_array_size(p->reasons))
		because(p, gp_xasprintf("strict: something was not checked"));
	publishable = json_array_size(p->reasons) == 0;
	if (!publishable) {	/* figures never stand alone under a refusal */
		char *a = gp_xasprintf("NOT PUBLISHABLE (see the reasons): %s", p->answer);

		free(p->answer);
		p->answer = a;
	}
	json_array_extend(p->reasons, p->notes);
	out_record(out, json_pack("{s:s, s:b, s:s, s:O, s:O, s:O, s:O, s:O, s:O}", "type", "verdict",
				  "publishable", publishable, "answer", p->answer, "reasons", p->reasons,
				  "footnotes", p->footnotes, "missing", p->missing,
				  "allowed_missing", p->allowed, "relaxed", p->relaxed,
				  "waived", p->waived));
	return publishable;
}

static void publish_release(struct publish *p)
{
	for (size_t i = 0; i < p->n_runs; i++) {
		free(p->runs[i].id);
		free(p->runs[i].arm);
		gp_run_digest_release(&p->runs[i].dig);
	}
	free(p->unbound_file);
	for (size_t i = 0; i < p->n_arms; i++)
		free(p->arms[i].name);
	for (size_t i = 0; i < p->n_snaps; i++)
		free(p->snaps[i].target);
	free(p->runs);
	free(p->arms);
	free(p->snaps);
	json_decref(p->validity);
	json_decref(p->summaries);
	json_decref(p->floors);
	gp_map_free(p->run_ids);
	gp_map_free(p->arm_ids);
	gp_map_free(p->snap_ids);
	json_decref(p->reasons);
	json_decref(p->footnotes);
	json_decref(p->stab);
	json_decref(p->notes);
	json_decref(p->missing);
	json_decref(p->allowed);
	json_decref(p->relaxed);
	json_decref(p->probes);
	json_decref(p->knees);
	json_decref(p->slo);
	json_decref(p->waived);
	gp_design_free(p->design);
	free(p->answer);
	if (p->have_fleet) {
		gp_fleet_release(&p->fleet);
		gp_receipt_fmt_release(&p->rfmt);
	}
}

static int cmd_publish(int argc, char **argv)
{
	struct popts opt = {
		.min_reps = 5, .max_cv = 0.10, .rep_cap = 0, .min_floor_reps = 3,
		.min_tpot_ms = 0.05, .miss_ratio = 0.9, .delivery_min_share = 1, .awk = "awk", .jq = "jq",
		.slo_margin = GP_DESIGN_SLO_MARGIN,
	};
	struct publish p = { .opt = &opt };
	struct gp_out out;
	char *records_path;
	int first = publish_args(argc, argv, &opt), publishable;

	publish_init(&p);
	tmp_make();
	records_path = gp_xasprintf("%s/records.ndjson", tmp_dir);
	p.spool = fopen(records_path, "w+");
	if (!p.spool)
		gp_die(GP_EXIT_SOFTWARE, "%s: %s", records_path, strerror(errno));
	publish_read(&p, argv + first, argc - first, records_path);
	gp_output_open(&out, opt.output, 0);
	if (opt.pass)
		publish_pass(p.spool, &out);
	fclose(p.spool);
	publishable = publish_gates(&p, &out, records_path);
	out_finish(&out);
	table(&p, publishable);
	free(records_path);
	publish_release(&p);
	return publishable ? GP_EXIT_OK : GP_EXIT_NEGATIVE;
}

/* ---------------------------------------------------------- self-check */

static struct gp_tap tap;	/* cli.h */

/*
 * --self-check: the gates' and statistics' C logic (statcheck.h: good, stats,
 * boot, tost with the per-rep intervals, gate) and the integrity scripts' own
 * arithmetic (share/awk/selfcheck.awk under the default awk) against known
 * vectors, as TAP.  No input.
 */
static int self_check(void)
{
	char err[512], *dir = find_awk_dir(NULL), *buf = NULL;
	char *common = gp_xasprintf("%s/common.awk", dir), *tdist = gp_xasprintf("%s/tdist.awk", dir);
	char *sc = gp_xasprintf("%s/selfcheck.awk", dir);
	char *av[] = { "awk", "-f", common, "-f", tdist, "-f", sc, "/dev/null", NULL };
	int rc;

	if (gp_statcheck_run(gp_tap, &tap) < 0)
		gp_die_nomem();
	rc = run_child(av, -1, &buf, err, sizeof(err));
	if (rc)
		gp_tap(&tap, 0, rc < 0 ? err : "awk -f selfcheck.awk exited non-zero", NAN, NAN);
	for (char *ln = buf, *nl; ln && *ln; ln = nl) {
		char *t1 = strchr(ln, '\t'), *t2;

		nl = strchr(ln, '\n');
		nl = nl ? (*nl = 0, nl + 1) : ln + strlen(ln);
		t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
		if (!t2)
			continue;
		*t1 = *t2 = 0;
		gp_tap(&tap, !strcmp(t1 + 1, "ok"), ln, NAN, NAN);
		if (strcmp(t1 + 1, "ok"))
			printf("#   %s\n", t2 + 1);
	}
	gp_tap_plan(&tap);
	free(buf);
	free(common);
	free(tdist);
	free(sc);
	free(dir);
	gp_stdout_close();
	return tap.failed ? GP_EXIT_NEGATIVE : GP_EXIT_OK;
}

int main(int argc, char **argv)
{
	const char *cmd;

	gp_log_init(argv[0]);
	gp_sig_install();
	setenv("LC_ALL", "C", 1);	/* jq and awk: '.' decimal point, byte strings */
	if (argc < 2)
		gp_usage_error("a subcommand is required: validity or publish");
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help"))
		gp_print_help(usage);
	if (!strcmp(cmd, "--version"))
		gp_print_version();
	if (!strcmp(cmd, "--self-check"))
		return self_check();
	optind = 1;
	if (!strcmp(cmd, "validity"))
		return cmd_validity(argc - 1, argv + 1);
	if (!strcmp(cmd, "publish"))
		return cmd_publish(argc - 1, argv + 1);
	gp_usage_error("unknown subcommand '%s' (validity or publish)", cmd);
}
