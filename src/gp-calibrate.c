/* SPDX-License-Identifier: MIT */
/*
 * gp-calibrate — Phase 1 of the method (§4): per-endpoint saturation capacity
 * by a pre-registered geometric sweep against ONE backend (never a VIP), the
 * client-bottleneck cross-check on the backend's queue, the rate ladder
 * (`ladder`), and the staleness check of a capacity file (`check`).
 *
 * The policy (ramp, hold, plateau rule, divergence, SUSPECT, ladder, staleness)
 * is src/lib/method/calib.h; this file drives the load and writes the records.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "method/calib.h"
#include "cli/cli.h"
#include "base/clock.h"
#include "wire/fleet.h"
#include "io/http.h"
#include "io/json.h"
#include "base/log.h"
#include "io/ndjson.h"
#include "wire/openai.h"
#include "method/pace.h"
#include "stats/power.h"
#include "base/proc.h"
#include "wire/scrape.h"
#include "base/sig.h"
#include "wire/stream.h"
#include "wire/trace.h"
#include "base/vec.h"
#include "base/buf.h"
#include "stats/stats.h"
#include "base/banned.h"

static const char usage[] =
	"Usage: gp-calibrate --fleet FILE --endpoint URL|NAME --role prefill|decode\n"
	"                    [--protocol FILE] [--start-rps R] [--ramp F] [--warmup-s S]\n"
	"                    [--hold-s S] [--hold-requests N] [--plateau-pct P] [--max-steps N]\n"
	"                    [--full-step-pct P] [--diverge-requests N] [--sample-s S]\n"
	"                    [--late-ms X] [--max-inflight N]\n"
	"                    [--prefill-input-tokens N] [--prefill-output-tokens N]\n"
	"                    [--decode-input-tokens N] [--decode-output-tokens N]\n"
	"                    [--model M] [--api chat|completions] [--metrics-url URL]\n"
	"                    [--backend-header NAME]... [--cacert FILE] [--insecure]\n"
	"                    [--progress] [-o FILE]\n"
	"       gp-calibrate protocol [--protocol FILE] [protocol options]\n"
	"       gp-calibrate ladder --trace FILE [--unsaturated F] [--moderate F]\n"
	"                    [--saturated F] [--rung F]... [--resolution D\n"
	"                    [--plan-good-fraction P] [--plan-reps N] [--level L]] [FILE...]\n"
	"       gp-calibrate check --fleet FILE [FILE...]\n"
	"       gp-calibrate idle --fleet FILE --trace FILE [--endpoint URL|NAME]...\n"
	"                    [--requests N] [--timeout-s S] [--model M] [--cacert FILE]\n"
	"                    [--insecure] [-o FILE]\n"
	"\n"
	"The sweep drives one backend with a geometric ramp of streamed completions\n"
	"and writes calib_step records and one capacity record.  Exit 0: saturated,\n"
	"capacity trusted; 1: suspect, backstop or interrupted (no capacity); 2: usage\n"
	"or a refused target (a VIP or gateway); 69: endpoint or metrics unreachable\n"
	"(also when the endpoint stops answering mid-sweep).\n"
	"protocol  print the protocol (defaults, file, options) as a protocol file.\n"
	"ladder    capacity records in, one ladder record per role out.\n"
	"check     capacity records in; exit 1 (stale) when the fleet's backends or\n"
	"          accelerators differ from those they were measured on.\n"
	"idle      each backend unloaded: N requests of the trace's shape, one at a\n"
	"          time, cold (prompts no cache holds); one idle_request each and one\n"
	"          idle_baseline per backend.  Exit 0; 1 when a request failed; 69\n"
	"          when a backend is unreachable.\n"
	"\n"
	"  --fleet FILE          the fleet file (VIPs to refuse, backends, metrics)\n"
	"  --endpoint URL|NAME   the backend: its URL, or its name in the fleet\n"
	"  --role ROLE           prefill (prompt tokens/s) or decode (output tokens/s)\n"
	"  --protocol FILE       the pre-registered protocol (JSON); no protocol option\n"
	"                        may be given with it\n"
	"  --start-rps R         first step's rate (default 1)\n"
	"  --ramp F              geometric factor between steps (default 1.25)\n"
	"  --warmup-s S          discarded start of each step (default 10)\n"
	"  --hold-s S            minimum hold after the warmup (default 30)\n"
	"  --hold-requests N     minimum requests in the hold (default 100)\n"
	"  --plateau-pct P       gains below P %% are flat (default 5)\n"
	"  --max-steps N         backstop (default 20)\n"
	"  --full-step-pct P     the offered rate grew by the full step: >= P %% of it (90)\n"
	"  --diverge-requests N  queue growth over a hold that is divergence (default 4)\n"
	"  --sample-s S          metrics sampling interval (default 0.25)\n"
	"  --late-ms X           send lateness p99 that flags the driver (default 10)\n"
	"  --max-inflight N      requests in flight at most, 0 = no cap (default 0)\n"
	"  --prefill-input-tokens N, --prefill-output-tokens N   (default 2048, 1)\n"
	"  --decode-input-tokens N, --decode-output-tokens N     (default 32, 256)\n"
	"  --model M             model (default: the fleet's)\n"
	"  --api API             chat (default) or completions\n"
	"  --metrics-url URL     the backend's metrics (default: the fleet's metrics_url)\n"
	"  --backend-header NAME a gateway's backend-naming header: refuse a target\n"
	"                        that answers with it (also the fleet's backend_header)\n"
	"  --cacert FILE         https: verify certificates against this CA file\n"
	"  --insecure            https: do not verify certificates or host names\n"
	"  --progress            one line per step on stderr (default: when a tty)\n"
	"  -o, --output FILE     write records to FILE (.gz: compressed)\n"
	"  --trace FILE          ladder: the trace whose mean tokens per request convert\n"
	"                        tokens/s to requests/s\n"
	"  --unsaturated F, --moderate F, --saturated F   ladder ratios of the fleet's\n"
	"                        saturation rate (default 0.5, 0.8, 1.2)\n"
	"  --rung F              ladder: one more rung at ratio F (repeatable)\n"
	"  --requests N          idle: requests per backend (default 8)\n"
	"  --timeout-s S         idle: bound on each request (default 120)\n"
	"  --resolution D        ladder: plan the requests per run that resolve a\n"
	"                        difference D in good fraction (the noise floor's\n"
	"                        half-width) at --plan-good-fraction P (0.9), over\n"
	"                        --plan-reps N reps (5), at --level L (0.95)\n"
	"  -h, --help            this text;  --version  the version\n";

/* ------------------------------------------------------------ protocol */

enum {
	O_FLEET = 256, O_ENDPOINT, O_ROLE, O_PROTOCOL, O_MODEL, O_API, O_METRICS, O_BACKH,
	O_PROGRESS, O_CACERT, O_INSECURE, O_TRACE, O_UNSAT, O_MOD, O_SAT, O_RUNG, O_VERSION,
	O_REQUESTS, O_TIMEOUT, O_RESOL, O_PLANGF, O_PLANREPS, O_LEVEL, O_FIELD = 1000,
};

#define FIXED_OPTS 25

static struct option *longopts(void)
{
	static const struct option fixed[] = {
		{ "fleet", required_argument, NULL, O_FLEET },
		{ "endpoint", required_argument, NULL, O_ENDPOINT },
		{ "role", required_argument, NULL, O_ROLE },
		{ "protocol", required_argument, NULL, O_PROTOCOL },
		{ "model", required_argument, NULL, O_MODEL },
		{ "api", required_argument, NULL, O_API },
		{ "metrics-url", required_argument, NULL, O_METRICS },
		{ "backend-header", required_argument, NULL, O_BACKH },
		{ "cacert", required_argument, NULL, O_CACERT },
		{ "insecure", no_argument, NULL, O_INSECURE },
		{ "progress", no_argument, NULL, O_PROGRESS },
		{ "output", required_argument, NULL, 'o' },
		{ "trace", required_argument, NULL, O_TRACE },
		{ "unsaturated", required_argument, NULL, O_UNSAT },
		{ "moderate", required_argument, NULL, O_MOD },
		{ "saturated", required_argument, NULL, O_SAT },
		{ "rung", required_argument, NULL, O_RUNG },
		{ "requests", required_argument, NULL, O_REQUESTS },
		{ "timeout-s", required_argument, NULL, O_TIMEOUT },
		{ "resolution", required_argument, NULL, O_RESOL },
		{ "plan-good-fraction", required_argument, NULL, O_PLANGF },
		{ "plan-reps", required_argument, NULL, O_PLANREPS },
		{ "level", required_argument, NULL, O_LEVEL },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
	};
	static struct option all[FIXED_OPTS + 33];
	static char names[32][48];
	size_t nf, n = sizeof(fixed) / sizeof(fixed[0]);
	const struct gp_calib_field *f = gp_calib_fields(&nf);

	_Static_assert(sizeof(fixed) / sizeof(fixed[0]) == FIXED_OPTS, "FIXED_OPTS");
	if (all[0].name)
		return all;
	memcpy(all, fixed, sizeof(fixed));
	for (size_t i = 0; i < nf && i < 32; i++) {
		snprintf(names[i], sizeof(names[i]), "%s", f[i].name);
		for (char *c = names[i]; *c; c++)
			if (*c == '_')
				*c = '-';
		all[n++] = (struct option){ names[i], required_argument, NULL, O_FIELD + (int)i };
	}
	return all;
}

/* The option spelling of a protocol field ("hold_s" -> "hold-s"). */
static const char *opt_name(int field)
{
	return longopts()[FIXED_OPTS + field].name;
}

/* Options as given, applied once the protocol file (if any) is read. */
struct popts {
	const char *file;
	int n;
	int idx[64];
	const char *val[64];
};

static void popt_add(struct popts *po, int field, const char *val)
{
	if (po->n == 64)
		gp_usage_error("too many protocol options");
	po->idx[po->n] = field;
	po->val[po->n++] = val;
}

static void protocol_file(struct gp_calib_protocol *p, const char *path)
{
	json_error_t je;
	json_t *o = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	char err[256];

	if (!o) {
		if (je.line <= 0)
			gp_die(GP_EXIT_USAGE, "%s: %s", path, je.text);
		gp_die_at(GP_EXIT_DATAERR, path, (unsigned long)je.line, "%s", je.text);
	}
	if (gp_calib_protocol_from_json(p, o, err, sizeof(err)))
		gp_die_at(GP_EXIT_DATAERR, path, 0, "%s", err);
	json_decref(o);
}

/* Defaults, then the file, then the options: a pre-registered protocol is
 * not amended on the command line. */
static void protocol_build(struct gp_calib_protocol *p, const struct popts *po)
{
	size_t nf;
	const struct gp_calib_field *f = gp_calib_fields(&nf);
	char err[96];

	gp_calib_protocol_default(p);
	if (po->file) {
		if (po->n)
			gp_usage_error("--%s with --protocol: the protocol is pre-registered in %s",
				       opt_name(po->idx[0]), po->file);
		protocol_file(p, po->file);
		return;
	}
	for (int i = 0; i < po->n; i++)
		if (gp_calib_protocol_set(p, &f[po->idx[i]], po->val[i], err, sizeof(err)))
			gp_usage_error("option '--%s': %s", opt_name(po->idx[i]), err);
}

/* ------------------------------------------------------------ output */

static struct gp_out out;

/* One record; a reader gone away (EPIPE) ends the tool quietly, exit 1. */
static void emit(json_t *o)
{
	if (!o)
		gp_die_nomem();
	if (gp_out_json(&out, o))
		gp_output_failed(&out);
	json_decref(o);
}

static void out_open(const char *path)
{
	gp_output_open(&out, path, 0);
}

static int out_close(void)
{
	gp_output_close(&out);
	return 0;
}

static int cmd_protocol(int argc, char **argv)
{
	struct popts po = { 0 };
	struct gp_calib_protocol p;
	int c;

	while ((c = gp_getopt(argc, argv, "h", longopts())) != -1) {
		if (c == 'h')
			gp_print_help(usage);
		else if (c == O_PROTOCOL)
			po.file = optarg;
		else if (c >= O_FIELD)
			popt_add(&po, c - O_FIELD, optarg);
		else
			gp_usage_error("protocol: only protocol options are allowed");
	}
	if (optind < argc)
		gp_usage_error("protocol: unexpected argument '%s'", argv[optind]);
	protocol_build(&p, &po);
	out_open(NULL);
	emit(gp_calib_protocol_json(&p));
	return out_close();
}

/* ------------------------------------------------------------ ladder */

/* The token counts of every record of a trace file (t->n >= 1). */
struct trace_shape {
	long *in, *outtok;
	size_t n, cap;
};

static void trace_shapes(const char *path, struct trace_shape *t)
{
	char *paths[1] = { (char *)path }, err[200];
	struct gp_input inp;
	struct gp_trace_rec rec;
	json_t *o;
	int rc;

	gp_trace_init(&rec);
	gp_input_init(&inp, paths, 1);
	while ((rc = gp_input_next_json(&inp, &o)) == GP_NDJSON_LINE) {
		if (gp_trace_parse(&rec, o, err, sizeof(err)))
			gp_die_at(GP_EXIT_DATAERR, gp_input_name(&inp), gp_input_line(&inp), "%s", err);
		if (t->n == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 256;
			t->in = gp_xrealloc(t->in, t->cap * sizeof(*t->in));
			t->outtok = gp_xrealloc(t->outtok, t->cap * sizeof(*t->outtok));
		}
		t->in[t->n] = rec.input_tokens;
		t->outtok[t->n++] = rec.output_tokens;
		json_decref(o);
	}
	if (rc < 0)
		gp_input_failed(&inp, rc);
	gp_trace_release(&rec);
	gp_input_release(&inp);
	if (!t->n)
		gp_die(GP_EXIT_DATAERR, "%s: no trace records", path);
}

/* Mean input and output tokens per request of a trace file. */
static void trace_means(const char *path, double *in, double *outtok, unsigned long *n)
{
	struct trace_shape t = { 0 };
	double si = 0, so = 0;

	trace_shapes(path, &t);
	for (size_t i = 0; i < t.n; i++) {
		si += (double)t.in[i];
		so += (double)t.outtok[i];
	}
	*n = t.n;
	*in = si / (double)t.n;
	*outtok = so / (double)t.n;
	free(t.in);
	free(t.outtok);
}

/* One capacity record as the ladder and the check read it. */
struct cap {
	json_t *rec;		/* owned reference */
	const char *endpoint, *backend;
	enum gp_calib_role role;
	double cap_tok_s;	/* NaN: none (suspect, backstop, interrupted) */
	long accelerators;
	char where[300];	/* file:line */
};

struct caps {
	struct cap *v;
	size_t n, cap;
};

/* Read every capacity record of the input; a later record of the same
 * endpoint and role replaces an earlier one (a recalibration appended). */
static void caps_read(struct caps *cs, char **paths, int npaths)
{
	struct gp_input inp;
	json_t *o;
	int rc;

	gp_input_init(&inp, paths, npaths);
	while ((rc = gp_input_next_json(&inp, &o)) == GP_NDJSON_LINE) {
		const char *type = gp_json_type(o), *file = gp_input_name(&inp), *role;
		unsigned long line = gp_input_line(&inp);
		struct cap c = { o, NULL, NULL, GP_CALIB_PREFILL, NAN, 1, "" };
		long long acc;
		size_t i;
		int flag;

		if (!type || strcmp(type, "capacity")) {
			json_decref(o);
			continue;
		}
		c.endpoint = gp_need_str(o, "endpoint", file, line);
		role = gp_need_str(o, "role", file, line);
		if (gp_calib_role_parse(role, &c.role))
			gp_die_at(GP_EXIT_DATAERR, file, line, "field 'role': '%s' is not prefill or decode", role);
		gp_may_num(o, "capacity_tok_s", file, line, &c.cap_tok_s);
		if (!(c.cap_tok_s > 0) || (!gp_json_bool(o, "suspect", &flag) && flag) ||
		    (!gp_json_bool(o, "saturated", &flag) && !flag))
			c.cap_tok_s = NAN;	/* not a trusted capacity */
		if (gp_json_str(o, "backend", &c.backend))
			c.backend = NULL;
		if (gp_json_int(o, "accelerators", &acc) == 0)
			c.accelerators = (long)acc;
		snprintf(c.where, sizeof(c.where), "%s:%lu", file, line);
		for (i = 0; i < cs->n; i++)
			if (cs->v[i].role == c.role && !strcmp(cs->v[i].endpoint, c.endpoint))
				break;
		if (i == cs->n) {
			GP_XGROW(cs->v, cs->n, cs->cap, 16);
			cs->n++;
		} else {
			json_decref(cs->v[i].rec);
		}
		cs->v[i] = c;
	}
	if (rc < 0)
		gp_input_failed(&inp, rc);
	gp_input_release(&inp);
	if (cs->n == 0)
		gp_die(GP_EXIT_DATAERR, "%s: no capacity records",
		       npaths ? (npaths == 1 ? paths[0] : "input") : "-");
}

static void caps_free(struct caps *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		json_decref(cs->v[i].rec);
	free(cs->v);
}

struct ladder_opts {
	const char *trace;
	double resolution, plan_gf, level;	/* resolution NaN: no run-length plan */
	long plan_reps;
	double ratio[3 + 32];	/* unsaturated, moderate, saturated, extra rungs */
	size_t nratio;
};

/*
 * The run length from a target resolution (power.h): the requests per run
 * whose binomial noise at the planned good fraction gives the noise floor a
 * half-width of at most D over the planned reps.  Null without --resolution.
 */
static void run_plan(json_t *o, const struct ladder_opts *lo)
{
	double n;

	if (isnan(lo->resolution)) {
		json_object_set_new(o, "run_requests", json_null());
		json_object_set_new(o, "resolution", json_null());
		return;
	}
	n = gp_power_requests(lo->plan_gf, 0, (size_t)lo->plan_reps, lo->resolution, lo->level);
	json_object_set_new(o, "run_requests", n > 0 ? json_integer((json_int_t)n) : json_null());
	json_object_set_new(o, "resolution", json_pack("{s:f,s:f,s:I,s:f,s:s}", "delta", lo->resolution,
						       "good_fraction", lo->plan_gf, "reps",
						       (json_int_t)lo->plan_reps, "level", lo->level,
						       "method", "t"));
}

/* The ladder record of one role; NULL when a member has no capacity. */
static json_t *ladder_role(const struct caps *cs, enum gp_calib_role role,
			   const struct ladder_opts *lo, double mean_tokens, unsigned long nreq)
{
	double capv[256], rates[3 + 32], sorted[3 + 32];
	const struct cap *m[256];
	struct gp_calib_ladder l;
	size_t n = 0;
	json_t *o, *rr, *ra, *rungs, *eps;

	for (size_t i = 0; i < cs->n; i++) {
		if (cs->v[i].role != role)
			continue;
		if (n == 256)
			gp_die(GP_EXIT_DATAERR, "ladder: more than 256 %s members",
			       gp_calib_role_name(role));
		if (isnan(cs->v[i].cap_tok_s)) {
			gp_warn("%s: %s (%s) has no trusted capacity: recalibrate it before a ladder",
				cs->v[i].where, cs->v[i].endpoint, gp_calib_role_name(role));
			return json_null();
		}
		m[n] = &cs->v[i];
		capv[n++] = cs->v[i].cap_tok_s;
	}
	if (n == 0)
		return NULL;
	if (gp_calib_ladder(capv, n, mean_tokens, lo->ratio, lo->nratio, &l, rates))
		gp_die(GP_EXIT_SOFTWARE, "ladder: bad capacities");
	memcpy(sorted, rates, lo->nratio * sizeof(double));
	gp_sort_doubles(sorted, lo->nratio);
	rr = json_object();
	ra = json_object();
	static const char *const rung[3] = { "unsaturated", "moderate", "saturated" };
	for (int i = 0; i < 3; i++) {
		json_object_set_new(rr, rung[i], gp_json_real(rates[i]));
		json_object_set_new(ra, rung[i], json_real(lo->ratio[i]));
	}
	rungs = json_array();
	for (size_t i = 0; i < lo->nratio; i++)
		json_array_append_new(rungs, gp_json_real(sorted[i]));
	eps = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(eps, json_string(m[i]->endpoint));
	o = json_pack("{s:s,s:s,s:s,s:s,s:o,s:I,s:o,s:o,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:s,s:I}",
		      "type", "ladder", "role", gp_calib_role_name(role),
		      "reference", m[l.reference]->backend ? m[l.reference]->backend :
							     m[l.reference]->endpoint,
		      "reference_endpoint", m[l.reference]->endpoint,
		      "reference_capacity_tok_s", json_real(capv[l.reference]),
		      "members", (json_int_t)n, "member_endpoints", eps,
		      "mean_tokens", json_real(mean_tokens),
		      "tokens_from", role == GP_CALIB_DECODE ? "output_tokens" : "input_tokens",
		      "capacity_rps", gp_json_real(l.capacity_rps),
		      "fleet_capacity_rps", gp_json_real(l.fleet_rps),
		      "ratios", ra, "rates_rps", rr, "rungs_rps", rungs, "binding", json_false(),
		      "trace", lo->trace, "trace_requests", (json_int_t)nreq);
	if (!o)
		gp_die_nomem();
	json_object_set(o, "protocol", json_object_get(m[l.reference]->rec, "protocol"));
	run_plan(o, lo);
	return o;
}

static double ratio_arg(const char *opt, const char *arg)
{
	return gp_opt_double(opt, arg, 1e-6, 1000);
}

static int cmd_ladder(int argc, char **argv)
{
	struct ladder_opts lo = { NULL, NAN, 0.9, 0.95, 5, { 0.5, 0.8, 1.2 }, 3 };
	const char *outpath = NULL;
	struct caps cs = { 0 };
	json_t *lad[2];
	double min_in, mean_in, mean_out, best = INFINITY;
	unsigned long nreq;
	int c, bad = 0, best_i = -1;

	while ((c = gp_getopt(argc, argv, "ho:", longopts())) != -1) {
		switch (c) {
		case 'h': gp_print_help(usage);
		case O_VERSION: gp_print_version();
		case 'o': outpath = optarg; break;
		case O_TRACE: lo.trace = optarg; break;
		case O_UNSAT: lo.ratio[0] = ratio_arg("--unsaturated", optarg); break;
		case O_MOD: lo.ratio[1] = ratio_arg("--moderate", optarg); break;
		case O_SAT: lo.ratio[2] = ratio_arg("--saturated", optarg); break;
		case O_RUNG:
			if (lo.nratio == sizeof(lo.ratio) / sizeof(lo.ratio[0]))
				gp_usage_error("--rung: at most 32");
			lo.ratio[lo.nratio++] = ratio_arg("--rung", optarg);
			break;
		case O_RESOL: lo.resolution = gp_opt_double("--resolution", optarg, 1e-6, 1); break;
		case O_PLANGF: lo.plan_gf = gp_opt_double("--plan-good-fraction", optarg, 0, 1); break;
		case O_PLANREPS: lo.plan_reps = gp_opt_long("--plan-reps", optarg, 2, 1000000); break;
		case O_LEVEL: lo.level = gp_opt_double("--level", optarg, 0.5, 0.9999); break;
		default: gp_usage_error("ladder: option not allowed here");
		}
	}
	if (!lo.trace)
		gp_usage_error("ladder: --trace FILE is required (its mean tokens per request)");
	if (!(lo.ratio[0] < lo.ratio[1] && lo.ratio[1] < lo.ratio[2]))
		gp_usage_error("ladder: want --unsaturated < --moderate < --saturated");
	trace_means(lo.trace, &mean_in, &mean_out, &nreq);
	caps_read(&cs, argv + optind, argc - optind);
	out_open(outpath);
	for (int r = 0; r < 2; r++) {
		lad[r] = ladder_role(&cs, (enum gp_calib_role)r, &lo,
				     r == GP_CALIB_DECODE ? mean_out : mean_in, nreq);
		if (json_is_null(lad[r]))
			bad = 1;
		if (json_is_object(lad[r]) &&
		    (min_in = json_number_value(json_object_get(lad[r], "fleet_capacity_rps"))) < best) {
			best = min_in;
			best_i = r;
		}
	}
	for (int r = 0; r < 2; r++) {
		if (json_is_object(lad[r])) {
			if (r == best_i)
				json_object_set_new(lad[r], "binding", json_true());
			emit(lad[r]);
		} else if (lad[r]) {
			json_decref(lad[r]);
		}
	}
	caps_free(&cs);
	out_close();
	return bad ? GP_EXIT_NEGATIVE : GP_EXIT_OK;
}

/* ------------------------------------------------------------ check */

static void fleet_load(struct gp_fleet *f, const char *path)
{
	char err[512];

	gp_fleet_init(f);
	if (gp_fleet_load(f, path, err, sizeof(err)))
		gp_die_at(GP_EXIT_DATAERR, path, 0, "%s", err);
}

static void stale_why(void *arg, const char *reason)
{
	json_array_append_new(arg, json_string(reason));
	gp_info("stale: %s", reason);
}

static int cmd_check(int argc, char **argv)
{
	const char *fleet_path = NULL, *outpath = NULL;
	struct gp_fleet f;
	struct caps cs = { 0 };
	struct gp_calib_member *was, *cur;
	size_t nwas = 0, k;
	json_t *reasons;
	int c;

	while ((c = gp_getopt(argc, argv, "ho:", longopts())) != -1) {
		switch (c) {
		case 'h': gp_print_help(usage);
		case O_VERSION: gp_print_version();
		case 'o': outpath = optarg; break;
		case O_FLEET: fleet_path = optarg; break;
		default: gp_usage_error("check: option not allowed here");
		}
	}
	if (!fleet_path)
		gp_usage_error("check: --fleet FILE is required");
	fleet_load(&f, fleet_path);
	caps_read(&cs, argv + optind, argc - optind);
	was = gp_xrealloc(NULL, cs.n * sizeof(*was));
	for (size_t i = 0; i < cs.n; i++) {
		size_t j;

		for (j = 0; j < nwas && strcasecmp(was[j].url, cs.v[i].endpoint); j++)
			;
		was[j].url = cs.v[i].endpoint;
		was[j].accelerators = cs.v[i].accelerators;
		if (j == nwas)
			nwas++;
	}
	cur = gp_xrealloc(NULL, (f.n_backends + 1) * sizeof(*cur));
	for (size_t i = 0; i < f.n_backends; i++) {
		cur[i].url = f.backends[i].url;
		cur[i].accelerators = f.backends[i].accelerators;
	}
	reasons = json_array();
	k = gp_calib_stale(was, nwas, cur, f.n_backends, stale_why, reasons);
	out_open(outpath);
	emit(json_pack("{s:s,s:s,s:b,s:o,s:I,s:I}", "type", "calib_check", "fleet", fleet_path,
		       "stale", k > 0, "reasons", reasons, "measured", (json_int_t)nwas,
		       "current", (json_int_t)f.n_backends));
	free(was);
	free(cur);
	caps_free(&cs);
	gp_fleet_release(&f);
	out_close();
	return k ? GP_EXIT_NEGATIVE : GP_EXIT_OK;
}

/* ------------------------------------------------------------ idle */

/*
 * The unloaded baseline of each member (method §9.1: an SLO the deployment
 * cannot physically meet gives a meaningless goodput): N records of the
 * trace, evenly spaced through it, sent one at a time to the backend
 * directly — far below any capacity — each with a prompt of the record's
 * length that no cache holds (synthesized without hash_ids, salted with the
 * run's start time, the backend and the index), max_tokens its output
 * length with ignore_eos.  The statistics are those an SLO is built from
 * (type-7 quantiles, as gp-analyze's baseline).
 */
/* {"p50","p90","p99","mean","max"} of x[0..n) (sorted in place); nulls when n is 0. */
static json_t *idle_stats(double *x, size_t n)
{
	json_t *o = json_object();

	gp_sort_doubles(x, n);
	gp_json_set_real(o, "p50", n ? gp_quantile_sorted(x, n, 0.50) : NAN);
	gp_json_set_real(o, "p90", n ? gp_quantile_sorted(x, n, 0.90) : NAN);
	gp_json_set_real(o, "p99", n ? gp_quantile_sorted(x, n, 0.99) : NAN);
	gp_json_set_real(o, "mean", n ? gp_mean(x, n) : NAN);
	gp_json_set_real(o, "max", n ? x[n - 1] : NAN);
	return o;
}

/* gp-calibrate idle: its options, the fleet and trace they name, and what
 * every request shares. */
struct idle {
	const char *fleet_path, *outpath, *trace, *model, *cacert;
	const char **eps;
	size_t neps;
	long nreq, timeout_ms;
	int insecure;
	struct gp_fleet f;
	struct trace_shape t;
	struct gp_http_tls tls;
	char key[1024], nonce[64], started[64];
	int have_key;
};

/* One backend's tally of its idle requests. */
struct idle_tally {
	double *ttft, *tpot;
	size_t nt, np;
	long ok, failed, connect, sent;
};

static void idle_opts(struct idle *I, int argc, char **argv)
{
	int c;

	while ((c = gp_getopt(argc, argv, "ho:", longopts())) != -1) {
		switch (c) {
		case 'h': gp_print_help(usage);
		case O_VERSION: gp_print_version();
		case 'o': I->outpath = optarg; break;
		case O_FLEET: I->fleet_path = optarg; break;
		case O_TRACE: I->trace = optarg; break;
		case O_MODEL: I->model = optarg; break;
		case O_CACERT: I->cacert = optarg; break;
		case O_INSECURE: I->insecure = 1; break;
		case O_ENDPOINT:
			I->eps = gp_xrealloc(I->eps, (I->neps + 1) * sizeof(*I->eps));
			I->eps[I->neps++] = optarg;
			break;
		case O_REQUESTS: I->nreq = gp_opt_long("--requests", optarg, 1, 10000); break;
		case O_TIMEOUT:
			I->timeout_ms = (long)(gp_opt_double("--timeout-s", optarg, 0.001, 86400) * 1000);
			break;
		default: gp_usage_error("idle: option not allowed here");
		}
	}
	if (!I->fleet_path || !I->trace)
		gp_usage_error("idle: --fleet FILE and --trace FILE are required");
	if (optind < argc)
		gp_usage_error("idle: unexpected argument '%s'", argv[optind]);
}

/* The fleet, the trace's shapes, the key, TLS and the run's stamps. */
static void idle_setup(struct idle *I)
{
	char err[256];

	fleet_load(&I->f, I->fleet_path);
	if (!I->model)
		I->model = I->f.model;
	if (!I->model)
		gp_usage_error("idle: no model (--model, or the fleet's model)");
	trace_shapes(I->trace, &I->t);
	I->have_key = gp_stream_api_key(NULL, I->key, sizeof(I->key), err, sizeof(err));
	if (I->have_key < 0)
		gp_die(GP_EXIT_USAGE, "%s", err);
	I->tls.cacert = I->cacert;
	I->tls.insecure = I->insecure;
	if (gp_http_global_init())
		gp_die(GP_EXIT_SOFTWARE, "libcurl could not be initialised");
	gp_rfc3339(gp_wall_ns(), I->started, sizeof(I->started));
	snprintf(I->nonce, sizeof(I->nonce), "%lld", (long long)gp_now_ns());
}

/* Is backend bi one that --endpoint names (all of them without one)? */
static int idle_wanted(const struct idle *I, size_t bi)
{
	const struct gp_fleet_backend *b = &I->f.backends[bi];

	if (I->neps == 0)
		return 1;
	for (size_t e = 0; e < I->neps; e++)
		if ((b->name && !strcmp(I->eps[e], b->name)) || gp_fleet_backend_index(&I->f, I->eps[e]) == (long)bi)
			return 1;
	return 0;
}

/* Request i of backend b: a trace-shaped prompt of its own (no prefix any
 * cache could hold), sent directly, tallied, and its idle_request record. */
static void idle_request(const struct idle *I, const struct gp_fleet_backend *b, long i,
			 struct idle_tally *y)
{
	const char *bn = b->name ? b->name : b->url;
	size_t k = (size_t)((double)i * (double)I->t.n / (double)I->nreq);
	long in = I->t.in[k], outn = I->t.outtok[k];
	size_t plen = gp_trace_synth_prompt(NULL, 0, in, NULL, 0, 0, "");
	char *prompt = gp_xmalloc(plen + 1), salt[256];
	struct gp_buf body = { 0 };
	struct gp_oai_req q = { 0 };
	struct gp_stream_chat_cfg cfg = { b->url, I->have_key ? I->key : NULL, NULL, NULL,
					  I->timeout_ms, &I->tls, gp_sig_stop };
	struct gp_stream_chat_res r;

	snprintf(salt, sizeof(salt), "idle %s %s %ld", I->nonce, bn, i);
	gp_trace_synth_prompt(prompt, plen + 1, in, NULL, 0, 0, salt);
	q.chat = 1;
	q.model = I->model;
	q.prompt = prompt;
	q.prompt_len = plen;
	q.max_tokens = outn;
	q.stream = 1;
	q.include_usage = 1;
	q.ignore_eos = 1;
	if (gp_oai_req_write(&body, &q))
		gp_die_nomem();
	if (gp_stream_chat_once(&cfg, body.p, body.len, NULL, 0, &r))
		gp_die(GP_EXIT_SOFTWARE, "libcurl: %s", r.detail);
	y->sent++;
	if (r.error) {
		y->failed++;
		y->connect += !strcmp(r.error, "connect");
	} else {
		y->ok++;
	}
	if (!r.error && isfinite(r.ttft_ms))
		y->ttft[y->nt++] = r.ttft_ms;
	if (!r.error && isfinite(r.tpot_ms))
		y->tpot[y->np++] = r.tpot_ms;
	emit(json_pack("{s:s, s:s?, s:s, s:I, s:I, s:I, s:o, s:o, s:o, s:I, s:s?, s:s?, s:I, s:s?}",
		       "type", "idle_request", "backend", b->name, "endpoint", b->url,
		       "seq", (json_int_t)i, "input_tokens", (json_int_t)in,
		       "output_tokens", (json_int_t)outn,
		       "ttft_ms", gp_json_real(r.ttft_ms), "tpot_ms", gp_json_real(r.tpot_ms),
		       "e2e_ms", gp_json_real(r.e2e_ms), "out_tokens", (json_int_t)r.out_tokens,
		       "outcome", r.outcome ? r.outcome : "failed", "error", r.error,
		       "http_status", (json_int_t)r.status, "error_detail",
		       r.error && *r.detail ? r.detail : NULL));
	free(prompt);
	gp_buf_release(&body);
}

/* Backend b's requests and its idle_baseline record; 1 when one failed, 2
 * when nothing listened (every request refused at connect). */
static int idle_backend(const struct idle *I, const struct gp_fleet_backend *b)
{
	const char *bn = b->name ? b->name : b->url;
	struct idle_tally y = { gp_xcalloc((size_t)I->nreq, sizeof(double)),
				gp_xcalloc((size_t)I->nreq, sizeof(double)), 0, 0, 0, 0, 0, 0 };
	int rc;

	if (gp_fleet_is_gateway_url(&I->f, b->url) || gp_fleet_resolves_to_gateway(&I->f, b->url) >= 0)
		gp_die(GP_EXIT_USAGE, "%s: backend %s (%s) is a VIP or the gateway: the idle "
		       "baseline is taken on each backend directly", I->fleet_path, bn, b->url);
	for (long i = 0; i < I->nreq && !gp_sig_stop(); i++) {
		idle_request(I, b, i, &y);
		if (y.connect && y.connect == y.sent)
			break;	/* nothing listens: one refusal says so */
	}
	emit(json_pack("{s:s, s:s?, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:o, s:o, s:s, s:s}",
		       "type", "idle_baseline", "backend", b->name, "endpoint", b->url, "model", I->model,
		       "trace", I->trace, "requests", (json_int_t)y.sent, "ok", (json_int_t)y.ok,
		       "failed", (json_int_t)y.failed, "trace_records", (json_int_t)I->t.n,
		       "ttft_ms", idle_stats(y.ttft, y.nt), "tpot_ms", idle_stats(y.tpot, y.np),
		       "started_at", I->started, "version", GP_VERSION));
	gp_info("idle %s: %ld ok, %ld failed, TTFT p50 %.4g ms, TPOT p50 %.4g ms", bn, y.ok, y.failed,
		y.nt ? gp_quantile_sorted(y.ttft, y.nt, 0.5) : NAN,
		y.np ? gp_quantile_sorted(y.tpot, y.np, 0.5) : NAN);
	rc = y.connect && y.connect == y.sent ? 2 : y.failed ? 1 : 0;
	free(y.ttft);
	free(y.tpot);
	return rc;
}

static int cmd_idle(int argc, char **argv)
{
	struct idle I = { .nreq = 8, .timeout_ms = 120000 };
	int bad = 0, unreachable = 0;

	idle_opts(&I, argc, argv);
	idle_setup(&I);
	out_open(I.outpath);
	for (size_t bi = 0; bi < I.f.n_backends && !gp_sig_stop(); bi++) {
		int rc;

		if (!idle_wanted(&I, bi))
			continue;
		rc = idle_backend(&I, &I.f.backends[bi]);
		bad |= rc != 0;
		unreachable |= rc == 2;
	}
	free(I.eps);
	free(I.t.in);
	free(I.t.outtok);
	gp_fleet_release(&I.f);
	out_close();
	if (gp_sig_stop())
		return GP_EXIT_NEGATIVE;
	return unreachable ? GP_EXIT_UNAVAILABLE : bad ? GP_EXIT_NEGATIVE : GP_EXIT_OK;
}

/* ------------------------------------------------------------ sweep */

static struct {
	struct gp_calib_protocol P;
	enum gp_calib_role role;
	int have_role, chat, progress;
	const char *fleet_path, *endpoint_arg, *model, *metrics_url, *outpath;
	const char *bh[8];		/* headers whose presence refuses the target */
	int nbh;
	struct gp_fleet fleet;
	const struct gp_fleet_backend *be;
	char url[512], post_url[600];
	struct gp_http *http;
	struct gp_http_tls tls;		/* --cacert, --insecure */
	int64_t t0, wall0;
	json_t *proto;
	char nonce[40];
	unsigned long seq;
	long last_usage_in;
	char *prompt;
	size_t prompt_len;
	const char *const *names;	/* inflight_metrics, or vLLM's two */
	size_t nnames;
	long attempted, failed;		/* over every step */
	char key[4096];			/* the API key, scrubbed from every detail */
} G;

/* ---- the backend's queue, sampled on a thread (a scrape must never hold
 * up a send) ---- */

static struct {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop, running;
	double *t, *d;		/* seconds since G.t0, depth */
	size_t n, cap, capd;
	long fails;
	char err[200];
} S;

/* One scrape (scrape.h): 0 and the in-flight depth (the sum of the
 * inflight_metrics), or -1 with a reason. */
static int scrape(double *depth, char *err, size_t errlen)
{
	json_t *m = gp_scrape(G.metrics_url, &G.tls, 2000, NULL);
	double sum = 0;
	int found = 0;

	if (!m)
		gp_die_nomem();
	if (gp_scrape_failed(m)) {
		gp_scrape_why(m, err, errlen);
		json_decref(m);
		return -1;
	}
	for (size_t i = 0; i < G.nnames; i++) {
		int have;

		sum += gp_scrape_sum(m, G.names[i], &have);
		found |= have;
	}
	json_decref(m);
	if (!found) {
		snprintf(err, errlen, "none of the fleet's inflight_metrics is on the page");
		return -1;
	}
	*depth = sum;
	return 0;
}

static void *sampler(void *arg)
{
	int64_t next = gp_now_ns(), period = (int64_t)(G.P.sample_s * 1e9);

	pthread_mutex_lock(&S.mu);
	while (!S.stop) {
		struct timespec ts;
		char err[200];
		double depth;
		int64_t a, b;
		int rc;

		pthread_mutex_unlock(&S.mu);
		a = gp_now_ns();
		rc = scrape(&depth, err, sizeof(err));
		b = gp_now_ns();
		pthread_mutex_lock(&S.mu);
		if (rc) {
			S.fails++;
			snprintf(S.err, sizeof(S.err), "%s", err);
		} else {
			GP_XGROW(S.t, S.n, S.cap, 1024);
			GP_XGROW(S.d, S.n, S.capd, 1024);
			S.t[S.n] = gp_ns_to_s((a + b) / 2 - G.t0);
			S.d[S.n++] = depth;
		}
		next += period;
		if (next < b)
			next = b;
		ts.tv_sec = (time_t)(next / GP_NS_PER_S);
		ts.tv_nsec = (long)(next % GP_NS_PER_S);
		while (!S.stop && pthread_cond_timedwait(&S.cv, &S.mu, &ts) == 0)
			;
	}
	pthread_mutex_unlock(&S.mu);
	return arg;
}

static void sampler_start(void)
{
	pthread_condattr_t ca;

	pthread_mutex_init(&S.mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&S.cv, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&S.th, NULL, sampler, NULL))
		gp_die(GP_EXIT_SOFTWARE, "cannot start the metrics sampler");
	S.running = 1;
}

static void sampler_stop(void)
{
	if (!S.running)
		return;
	pthread_mutex_lock(&S.mu);
	S.stop = 1;
	pthread_cond_signal(&S.cv);
	pthread_mutex_unlock(&S.mu);
	pthread_join(S.th, NULL);
	S.running = 0;
}

/* ---- requests ---- */

struct step;

/* One request of the sweep (or the probe): the shared streamed-request
 * module does the wire; this struct adds what the windows need. */
struct creq {
	struct gp_stream s;
	struct step *st;	/* NULL for the probe */
	struct creq *next_free;
	long win_events;	/* content events that arrived in the hold window */
	int running, probe, done;
	struct gp_buf body;		/* borrowed by libcurl until the end */
	char xid[128];			/* X-Request-Id header line, likewise */
	const char *xh[1];
};

static struct {
	struct creq **all;
	size_t n, cap;
	struct creq *free_list;
} R;

struct step {
	long k;
	int rerun, interrupted;
	double target_rps, hold_s, offered_rps, delivered_tok_s;
	int64_t t_start, w0, w1, t_end;
	long sent, sent_hold, due_hold, ok, failed, cut, inflight, peak_inflight, capped;
	long by_err[GP_STREAM_NCLASS];
	struct gp_calib_window win;
	struct gp_hist lat;
	double q_slope, q_growth, q_mean;
	long q_n;
	int diverging, late;
};

static long prompt_tokens(const struct gp_stream *s)
{
	if (s->usage_in > 0)
		return s->usage_in;
	if (G.last_usage_in > 0)
		return G.last_usage_in;
	return gp_calib_input_tokens(&G.P, G.role);
}

/* The request is over (class cls): account it in its step, back to the pool. */
static void cal_finish(struct creq *r, int cls)
{
	struct step *st = r->st;
	const struct gp_stream *s = &r->s;

	r->running = 0;
	if (r->probe) {
		r->done = 1;
		return;
	}
	if (s->usage_in > 0)
		G.last_usage_in = s->usage_in;
	if (s->first_ns)
		gp_calib_window_first(&st->win, s->first_ns, prompt_tokens(s));
	/* A chunk may carry several tokens: when usage says more than the
	 * events, the window gets its share of the difference. */
	if (s->usage_out > s->content_events && s->content_events > 0 && r->win_events > 0)
		st->win.output_tokens += (double)(s->usage_out - s->content_events) *
					 (double)r->win_events / (double)s->content_events;
	if (cls == GP_STREAM_OK)
		st->ok++;
	else if (cls == GP_STREAM_CANCELLED)
		st->cut++;
	else {
		st->failed++;
		st->by_err[cls]++;
	}
	st->inflight--;
	r->st = NULL;
	r->next_free = R.free_list;
	R.free_list = r;
}

static void probe_header(const char *line, size_t len);

static void h_sent(void *user, int64_t t)
{
	struct creq *r = user;

	gp_stream_on_sent(&r->s, t);
}

static void h_header(void *user, const char *line, size_t len, int64_t t)
{
	struct creq *r = user;

	if (r->probe)
		probe_header(line, len);
	gp_stream_on_header(&r->s, line, len, t);
}

static int h_body(void *user, long status, const char *buf, size_t len, int64_t t)
{
	struct creq *r = user;
	long before = r->s.content_events;
	int rc = gp_stream_on_body(&r->s, status, buf, len, t);

	/* Events complete inside this write callback, at t. */
	for (long e = before; r->st && e < r->s.content_events; e++) {
		if (t >= r->st->win.w0_ns && t < r->st->win.w1_ns)
			r->win_events++;
		gp_calib_window_token(&r->st->win, t);
	}
	return rc;
}

static void h_done(void *user, const struct gp_http_result *res, int64_t t)
{
	struct creq *r = user;

	cal_finish(r, gp_stream_on_done(&r->s, res, t));
}

static const struct gp_http_ops cal_ops = {
	.on_sent = h_sent, .on_header = h_header, .on_body = h_body, .on_done = h_done,
};

static struct creq *creq_new(void)
{
	struct creq *r = gp_xrealloc(NULL, sizeof(*r));

	memset(r, 0, sizeof(*r));
	if (gp_stream_init(&r->s, G.http, r, 1u << 20))
		gp_die_nomem();
	r->s.secret = G.key[0] ? G.key : NULL;	/* masked in every detail */
	return r;
}

static struct creq *creq_get(void)
{
	struct creq *r = R.free_list;

	if (r) {
		R.free_list = r->next_free;
		r->win_events = 0;
		return r;
	}
	r = creq_new();
	GP_XGROW(R.all, R.n, R.cap, 64);
	R.all[R.n++] = r;
	return r;
}

/* The body of one request: openai.c's writer, exactly out_tokens tokens
 * (max_tokens = min_tokens, ignore_eos), streamed with usage. */
static void write_body(struct creq *r, const char *prompt, long out_tokens)
{
	struct gp_oai_req q = { 0 };

	q.chat = G.chat;
	q.model = G.model;
	q.prompt = prompt;
	q.prompt_len = strlen(prompt);
	q.max_tokens = out_tokens;
	q.stream = 1;
	q.include_usage = 1;
	q.ignore_eos = 1;
	if (gp_oai_req_write(&r->body, &q))
		gp_die_nomem();
}

static void cancel(struct creq *r, int64_t now)
{
	if (!r->running)
		return;
	gp_stream_abort(&r->s, GP_STREAM_CANCELLED, now);
	cal_finish(r, GP_STREAM_CANCELLED);
}

/* Send the next request of step st: a unique prompt (no prefix-cache hits). */
static void send_one(struct step *st, int64_t due, int64_t now)
{
	struct creq *r = creq_get();
	long in = gp_calib_input_tokens(&G.P, G.role);
	char salt[80];
	size_t need;

	snprintf(salt, sizeof(salt), "%s-%lu", G.nonce, G.seq++);
	need = gp_trace_synth_prompt(NULL, 0, in, NULL, 0, 0, salt) + 1;
	G.prompt = gp_xgrow(G.prompt, &G.prompt_len, need, 1, 4096);
	gp_trace_synth_prompt(G.prompt, G.prompt_len, in, NULL, 0, 0, salt);
	write_body(r, G.prompt, gp_calib_output_tokens(&G.P, G.role));
	snprintf(r->xid, sizeof(r->xid), "X-Request-Id: cal-%s", salt);
	r->xh[0] = r->xid;
	r->st = st;
	if (gp_stream_start(&r->s, G.post_url, r->body.p, r->body.len, r->xh, 1))
		gp_die(GP_EXIT_SOFTWARE, "libcurl refused a transfer");
	r->running = 1;
	gp_hist_add(&st->lat, now - due);
	st->sent++;
	if (due >= st->w0 && due < st->w1 && (double)(now - due) <= G.P.late_ms * 1e6)
		st->sent_hold++;	/* offered: due in the hold and sent on time */
	if (++st->inflight > st->peak_inflight)
		st->peak_inflight = st->inflight;
}

static void cancel_all(int64_t now)
{
	for (size_t i = 0; i < R.n; i++)
		cancel(R.all[i], now);
}

/* The queue over the hold window [w0, w1): divergence and mean depth. */
static void step_queue(struct step *st)
{
	double w0 = gp_ns_to_s(st->w0 - G.t0), w1 = gp_ns_to_s(st->w1 - G.t0), sum = 0;
	size_t a, b;

	pthread_mutex_lock(&S.mu);
	for (a = 0; a < S.n && S.t[a] < w0; a++)
		;
	for (b = a; b < S.n && S.t[b] < w1; b++)
		sum += S.d[b];
	st->q_n = (long)(b - a);
	st->q_mean = b > a ? sum / (double)(b - a) : NAN;
	st->diverging = gp_calib_diverging(&G.P, S.t + a, S.d + a, b - a, st->hold_s,
					   &st->q_slope, &st->q_growth);
	pthread_mutex_unlock(&S.mu);
}

/* Drive step k: evenly spaced sends over warmup + hold, then cut what is
 * still in flight.  Returns 0, or -1 when a signal stopped it. */
static int run_step(struct step *st, long k, int rerun)
{
	int64_t gap, now;
	long i = 0, held = -1;

	memset(st, 0, sizeof(*st));
	st->k = k;
	st->rerun = rerun;
	st->target_rps = gp_calib_target_rps(&G.P, k);
	st->hold_s = gp_calib_hold_s(&G.P, st->target_rps);
	gap = (int64_t)(1e9 / st->target_rps);
	st->t_start = gp_now_ns() + GP_NS_PER_MS;
	st->w0 = st->t_start + (int64_t)(G.P.warmup_s * 1e9);
	st->w1 = st->w0 + (int64_t)(st->hold_s * 1e9);
	gp_calib_window_init(&st->win, st->w0, st->w1);
	gp_hist_init(&st->lat);
	for (;;) {
		int64_t due = st->t_start + i * gap;

		now = gp_now_ns();
		if (gp_sig_stop()) {
			st->interrupted = 1;
			break;
		}
		if (due >= st->w1 && now >= st->w1)
			break;	/* every send due before the end is out */
		if (due < st->w1 && due <= now) {
			if (G.P.max_inflight > 0 && st->inflight >= G.P.max_inflight) {
				if (held != i) {
					st->capped++;
					held = i;
				}
				if (now >= st->w1)
					break;
				gp_http_poll(G.http, st->w1);
				continue;
			}
			send_one(st, due, now);
			i++;
			continue;
		}
		gp_http_poll(G.http, due < st->w1 ? due : st->w1);
	}
	cancel_all(now);
	st->t_end = gp_now_ns();
	st->due_hold = gp_calib_due(st->t_start, gap, st->w0, st->w1);
	st->offered_rps = gp_calib_offered(st->target_rps, st->sent_hold, st->due_hold);
	st->delivered_tok_s = gp_calib_window_tok_s(&st->win, G.role);
	step_queue(st);
	st->late = gp_calib_late(&G.P, gp_hist_quantile(&st->lat, 0.99) / 1e6, st->capped);
	G.attempted += st->sent;
	G.failed += st->failed;
	return st->interrupted ? -1 : 0;
}

/* ---- records ---- */

static json_t *base_record(const char *type)
{
	json_t *o = json_pack("{s:s,s:s,s:o,s:s}", "type", type, "endpoint", G.url, "backend",
			      G.be && G.be->name ? json_string(G.be->name) : json_null(),
			      "role", gp_calib_role_name(G.role));

	if (!o)
		gp_die_nomem();
	return o;
}

static void set(json_t *o, const char *k, json_t *v)
{
	if (json_object_set_new(o, k, v ? v : json_null()))
		gp_die_nomem();
}

static json_t *by_error(const long *by)
{
	json_t *o = json_object();

	for (int e = 1; e < GP_STREAM_NCLASS; e++)
		if (by[e])
			set(o, gp_stream_class_name(e), json_integer(by[e]));
	return o;
}

static void emit_step(const struct step *st, double gain, int suspect, const char *verdict)
{
	json_t *o = base_record("calib_step");
	double p99 = gp_hist_quantile(&st->lat, 0.99) / 1e6;

	set(o, "step", json_integer(st->k));
	set(o, "rerun", json_boolean(st->rerun));
	set(o, "target_rps", gp_json_real(st->target_rps));
	set(o, "offered_rps", gp_json_real(st->offered_rps));
	set(o, "delivered_tok_s", gp_json_real(st->delivered_tok_s));
	set(o, "prompt_tok_s", gp_json_real(gp_calib_window_tok_s(&st->win, GP_CALIB_PREFILL)));
	set(o, "output_tok_s", gp_json_real(gp_calib_window_tok_s(&st->win, GP_CALIB_DECODE)));
	set(o, "first_tokens", json_integer(st->win.first_tokens));
	set(o, "gain_pct", gp_json_real(gain));
	set(o, "t_start_s", gp_json_real(gp_ns_to_s(st->t_start - G.t0)));
	set(o, "t_hold_s", gp_json_real(gp_ns_to_s(st->w0 - G.t0)));
	set(o, "t_end_s", gp_json_real(gp_ns_to_s(st->t_end - G.t0)));
	set(o, "hold_s", gp_json_real(st->hold_s));
	set(o, "sent", json_integer(st->sent));
	set(o, "due_hold", json_integer(st->due_hold));
	set(o, "sent_hold", json_integer(st->sent_hold));
	set(o, "ok", json_integer(st->ok));
	set(o, "failed", json_integer(st->failed));
	set(o, "cut", json_integer(st->cut));
	set(o, "by_error", by_error(st->by_err));
	set(o, "peak_inflight", json_integer(st->peak_inflight));
	set(o, "queue_samples", json_integer(st->q_n));
	set(o, "queue_mean", gp_json_real(st->q_mean));
	set(o, "queue_slope_rps", gp_json_real(st->q_slope));
	set(o, "queue_growth", gp_json_real(st->q_growth));
	set(o, "queue_diverging", json_boolean(st->diverging));
	set(o, "lateness_p99_ms", gp_json_real(p99));
	set(o, "lateness_max_ms", st->lat.count ? gp_json_real(gp_ns_to_ms(st->lat.max_ns)) : NULL);
	set(o, "capped_sends", json_integer(st->capped));
	set(o, "late", json_boolean(st->late));
	set(o, "suspect", json_boolean(suspect));
	set(o, "verdict", verdict ? json_string(verdict) : NULL);
	set(o, "interrupted", json_boolean(st->interrupted));
	json_object_set(o, "protocol", G.proto);
	emit(o);
	if (G.progress)
		gp_info("step %ld%s: target %.3g rps, offered %.3g, delivered %.4g tok/s (gain %+.1f%%), "
			"queue %+.1f%s, late %s -> %s", st->k, st->rerun ? " (rerun)" : "",
			st->target_rps, st->offered_rps, st->delivered_tok_s, isnan(gain) ? 0 : gain,
			st->q_growth, st->diverging ? " diverging" : "", st->late ? "yes" : "no",
			verdict ? verdict : "interrupted");
}

static json_t *fleet_backends(void)
{
	json_t *a = json_array();

	for (size_t i = 0; i < G.fleet.n_backends; i++) {
		const struct gp_fleet_backend *b = &G.fleet.backends[i];

		json_array_append_new(a, json_pack("{s:o,s:s,s:s,s:I}", "name",
						   b->name ? json_string(b->name) : json_null(),
						   "url", b->url, "role", b->role ? b->role : "both",
						   "accelerators", (json_int_t)b->accelerators));
	}
	return a;
}

static void emit_capacity(const struct gp_calib_judgement *j, const char *verdict,
			  size_t nsteps, long reruns)
{
	json_t *o = base_record("capacity"), *reasons = json_array(), *plateau = json_array();
	int trusted = !strcmp(verdict, "saturated");
	double cap = trusted ? j->capacity_tok_s : NAN;
	char at[40];

	if (j->flat) {
		for (size_t i = nsteps - 3; i < nsteps; i++)
			json_array_append_new(plateau, json_integer((json_int_t)i));
		if (!j->full_step)
			json_array_append_new(reasons, json_string("offered_did_not_grow"));
		if (!j->diverging)
			json_array_append_new(reasons, json_string("queue_not_diverging"));
		if (j->late)
			json_array_append_new(reasons, json_string("driver_late"));
	} else if (!strcmp(verdict, "backstop")) {
		json_array_append_new(reasons, json_string("no_plateau_within_max_steps"));
	}
	if (!strcmp(verdict, "interrupted"))
		json_array_append_new(reasons, json_string("interrupted"));
	if (!strcmp(verdict, "unreachable"))
		json_array_append_new(reasons, json_string("endpoint_unreachable"));
	if (!trusted && G.failed)
		json_array_append_new(reasons, json_string("failed_requests"));
	set(o, "model", json_string(G.model));
	set(o, "accelerators", json_integer(G.be ? G.be->accelerators : 1));
	set(o, "capacity_tok_s", gp_json_real(cap));
	set(o, "capacity_rps", gp_json_real(cap / (double)(G.role == GP_CALIB_DECODE ?
		gp_calib_output_tokens(&G.P, G.role) : gp_calib_input_tokens(&G.P, G.role))));
	set(o, "observed_tok_s", gp_json_real(j->capacity_tok_s));
	set(o, "plateau_steps", plateau);
	set(o, "saturated", json_boolean(trusted));
	set(o, "suspect", json_boolean(!strcmp(verdict, "suspect")));
	set(o, "verdict", json_string(verdict));
	set(o, "reasons", reasons);
	set(o, "attempted", json_integer(G.attempted));
	set(o, "failed", json_integer(G.failed));
	set(o, "scrape_failures", json_integer(S.fails));
	set(o, "steps", json_integer((json_int_t)nsteps));
	set(o, "reruns", json_integer(reruns));
	set(o, "fleet", json_string(G.fleet_path));
	set(o, "fleet_backends", fleet_backends());
	set(o, "started_at", json_string(gp_rfc3339(G.wall0, at, sizeof(at))));
	set(o, "ended_at", json_string(gp_rfc3339(G.wall0 + (gp_now_ns() - G.t0), at, sizeof(at))));
	set(o, "version", json_string(GP_VERSION));
	json_object_set(o, "protocol", G.proto);
	emit(o);
	if (G.progress)
		gp_info("%s %s: %s%s", G.url, gp_calib_role_name(G.role), verdict,
			trusted ? "" : " (no capacity)");
	if (trusted && G.progress)
		gp_info("capacity %.6g tok/s (mean of steps %zu-%zu)", cap, nsteps - 3, nsteps - 1);
}

/* ---- the target: one backend, never a VIP ---- */

/* The base URL of --endpoint (a URL, or a backend's name in the fleet). */
static void resolve_endpoint(void)
{
	const char *u = G.endpoint_arg;
	char err[200], norm[512];

	if (!strstr(u, "://")) {
		G.be = gp_fleet_backend(&G.fleet, u);
		if (!G.be)
			gp_usage_error("--endpoint %s: no backend of that name in %s", u, G.fleet_path);
		u = G.be->url;
	}
	if (gp_http_url_check(u, G.url, sizeof(G.url), err, sizeof(err)))
		gp_usage_error("--endpoint: %s", err);
	for (size_t i = 0; !G.be && i < G.fleet.n_backends; i++)
		if (!gp_http_url_check(G.fleet.backends[i].url, norm, sizeof(norm), err, sizeof(err)) &&
		    !strcasecmp(norm, G.url))
			G.be = &G.fleet.backends[i];
	if (!G.metrics_url && G.be)
		G.metrics_url = G.be->metrics_url;
	snprintf(G.post_url, sizeof(G.post_url), "%s%s", G.url, gp_oai_path(G.chat));
}

static void refuse_gateway(void)
{
	int v;

	if (gp_fleet_is_gateway_url(&G.fleet, G.url))
		gp_die(GP_EXIT_USAGE, "refusing %s: it is a VIP or the gateway of %s — calibrate a "
		       "backend directly, never the balancer", G.url, G.fleet_path);
	v = gp_fleet_resolves_to_gateway(&G.fleet, G.url);
	if (v >= 0)
		gp_die(GP_EXIT_USAGE, "refusing %s: it resolves to the address and port of %s %s of "
		       "%s — calibrate a backend directly, never the balancer", G.url,
		       (size_t)v < G.fleet.n_vips ? "VIP" : "the gateway metrics URL",
		       (size_t)v < G.fleet.n_vips ? G.fleet.vips[v].url : G.fleet.gateway_metrics_url,
		       G.fleet_path);
}

static char refused_hdr[128];

static void probe_header(const char *line, size_t len)
{
	const char *colon = memchr(line, ':', len);

	for (int i = 0; colon && !refused_hdr[0] && i < G.nbh; i++) {
		size_t n = strlen(G.bh[i]);

		if ((size_t)(colon - line) == n && !strncasecmp(line, G.bh[i], n))
			snprintf(refused_hdr, sizeof(refused_hdr), "%s", G.bh[i]);
	}
}

/* One small streamed completion: the endpoint serves, and it is no gateway
 * (it does not answer with the fleet's receipt or a backend-naming header). */
static void probe(void)
{
	struct creq *r = creq_new();
	int64_t deadline = gp_now_ns() + 30 * GP_NS_PER_S;

	if (G.fleet.receipt_header && G.nbh < 8)
		G.bh[G.nbh++] = G.fleet.receipt_header;
	if (G.fleet.backend_header && G.nbh < 8)
		G.bh[G.nbh++] = G.fleet.backend_header;
	r->probe = 1;
	write_body(r, "ping", 1);
	if (gp_stream_start(&r->s, G.post_url, r->body.p, r->body.len, NULL, 0))
		gp_die(GP_EXIT_SOFTWARE, "cannot start the probe request");
	r->running = 1;
	while (!r->done && gp_now_ns() < deadline && !gp_sig_stop())
		gp_http_poll(G.http, gp_now_ns() + 100 * GP_NS_PER_MS);
	if (!r->done) {
		gp_stream_abort(&r->s, GP_STREAM_TIMEOUT, gp_now_ns());
		r->running = 0;
	}
	if (gp_sig_stop())
		gp_die(GP_EXIT_NEGATIVE, "interrupted before the sweep started");
	if (refused_hdr[0])
		gp_die(GP_EXIT_USAGE, "refusing %s: it answers with the %s header of a gateway "
		       "(%s) — calibrate a backend directly, never the balancer", G.url, refused_hdr,
		       G.fleet_path);
	if (r->s.cls != GP_STREAM_OK)
		gp_die(GP_EXIT_UNAVAILABLE, "%s does not serve a streamed completion: %s%s%s%s",
		       G.post_url, gp_stream_class_name(r->s.cls), r->s.detail[0] ? ": " : "",
		       r->s.detail, r->s.cls == GP_STREAM_TLS ? " (" GP_HTTP_TLS_HINT ")" : "");
	gp_stream_release(&r->s);
	gp_buf_release(&r->body);
	free(r);
}

static void metrics_check(void)
{
	static const char *const dflt[] = { "vllm:num_requests_running",
					    "vllm:num_requests_waiting" };
	char err[200];
	double d;

	if (!G.metrics_url)
		gp_usage_error("no metrics URL for %s: the queue cross-check needs the backend's "
			       "metrics (backends[].metrics_url in %s, or --metrics-url)", G.url,
			       G.fleet_path);
	G.names = G.fleet.inflight_metrics;
	G.nnames = G.fleet.n_inflight_metrics;
	if (!G.nnames) {
		G.names = dflt;
		G.nnames = 2;
	}
	if (scrape(&d, err, sizeof(err)))
		gp_die(GP_EXIT_UNAVAILABLE, "metrics %s of %s: %s", G.metrics_url, G.url, err);
}

/* ---- the sweep ---- */

static void sweep_args(int argc, char **argv, struct popts *po)
{
	const char *api = "chat";
	int c;

	while ((c = gp_getopt(argc, argv, "ho:", longopts())) != -1) {
		switch (c) {
		case 'h': gp_print_help(usage);
		case O_VERSION: gp_print_version();
		case 'o': G.outpath = optarg; break;
		case O_FLEET: G.fleet_path = optarg; break;
		case O_ENDPOINT: G.endpoint_arg = optarg; break;
		case O_ROLE:
			if (gp_calib_role_parse(optarg, &G.role))
				gp_usage_error("--role: '%s' is not prefill or decode", optarg);
			G.have_role = 1;
			break;
		case O_PROTOCOL: po->file = optarg; break;
		case O_MODEL: G.model = optarg; break;
		case O_API: api = optarg; break;
		case O_METRICS: G.metrics_url = optarg; break;
		case O_CACERT: G.tls.cacert = optarg; break;
		case O_INSECURE: G.tls.insecure = 1; break;
		case O_BACKH:
			if (G.nbh >= 6)
				gp_usage_error("--backend-header: at most 6");
			G.bh[G.nbh++] = optarg;
			break;
		case O_PROGRESS: G.progress = 1; break;
		default:
			if (c >= O_FIELD) {
				popt_add(po, c - O_FIELD, optarg);
				break;
			}
			gp_usage_error("option not allowed in the sweep (ladder and check have their own)");
		}
	}
	if (optind < argc)
		gp_usage_error("unexpected argument '%s'", argv[optind]);
	if (!G.fleet_path || !G.endpoint_arg || !G.have_role)
		gp_usage_error("--fleet, --endpoint and --role are required");
	if (strcmp(api, "chat") && strcmp(api, "completions"))
		gp_usage_error("--api: '%s' is not chat or completions", api);
	G.chat = !strcmp(api, "chat");
	if (isatty(STDERR_FILENO))
		G.progress = 1;
}

static void sweep_setup(void)
{
	struct gp_http_opts ho = { 0 };
	char err[200];
	int have_key;

	fleet_load(&G.fleet, G.fleet_path);
	if (!G.model)
		G.model = G.fleet.model;
	if (!G.model)
		gp_usage_error("no model: the fleet file has none, give --model");
	resolve_endpoint();
	refuse_gateway();
	if (!G.be)
		gp_warn("%s is not a backend of %s", G.url, G.fleet_path);
	/* A member measured for a role it does not have would stand in that
	 * role's ladder: a capacity of the fleet that the fleet does not use. */
	if (G.be && G.be->role && strcmp(G.be->role, "both") &&
	    strcmp(G.be->role, gp_calib_role_name(G.role)))
		gp_die(GP_EXIT_USAGE, "refusing --role %s for %s: its role in %s is %s (calibrate it "
		       "for its own role, or give it role both)", gp_calib_role_name(G.role), G.url,
		       G.fleet_path, G.be->role);
	have_key = gp_stream_api_key(NULL, G.key, sizeof(G.key), err, sizeof(err));
	if (have_key < 0)
		gp_die(GP_EXIT_USAGE, "%s", err);
	if (gp_http_global_init())
		gp_die(GP_EXIT_SOFTWARE, "cannot initialise libcurl");
	gp_proc_raise_nofile();		/* one descriptor per stream in flight */
	ho.connect_timeout_ms = 10000;
	ho.tls = G.tls;
	G.http = gp_http_new(&ho, &cal_ops);
	if (!G.http || gp_stream_headers(G.http, 1, have_key ? G.key : NULL))
		gp_die(GP_EXIT_SOFTWARE, "cannot create the HTTP engine");
	if (have_key <= 0)
		G.key[0] = '\0';
	probe();
	metrics_check();
	snprintf(G.nonce, sizeof(G.nonce), "%lx-%ld", (unsigned long)(gp_wall_ns() / 1000),
		 (long)getpid());
}

static void sweep_cleanup(void)
{
	for (size_t i = 0; i < R.n; i++) {
		gp_stream_release(&R.all[i]->s);
		gp_buf_release(&R.all[i]->body);
		free(R.all[i]);
	}
	free(R.all);
	gp_http_free(G.http);
	json_decref(G.proto);
	gp_fleet_release(&G.fleet);
	free(S.t);
	free(S.d);
	free(G.prompt);
}

/* Every request of the step failed before anything was sent. */
static int step_unreachable(const struct step *st)
{
	return st->sent > 0 && st->ok == 0 &&
	       st->by_err[GP_STREAM_CONNECT] + st->by_err[GP_STREAM_TLS] == st->sent;
}

static int cmd_sweep(int argc, char **argv)
{
	struct popts po = { 0 };
	struct gp_calib_step js[1000];
	struct gp_calib_judgement j;
	struct step *st = gp_xrealloc(NULL, sizeof(*st));
	const char *verdict = "interrupted";
	int done = 0;
	size_t n = 0;
	long k = 0, reruns = 0;

	sweep_args(argc, argv, &po);
	protocol_build(&G.P, &po);
	G.proto = gp_calib_protocol_json(&G.P);
	sweep_setup();
	out_open(G.outpath);
	memset(&j, 0, sizeof(j));
	j.capacity_tok_s = NAN;
	G.t0 = gp_now_ns();
	G.wall0 = gp_wall_ns();
	sampler_start();
	while (!done) {
		/* A suspect plateau: re-run the step that made it so (an earlier
		 * late one too, not only the last), once; else the next step. */
		int rerun = n > 0 && j.verdict == GP_CALIB_RERUN;
		size_t at = rerun ? gp_calib_rerun_next(&G.P, js, n) : n;
		int rc = run_step(st, (long)at, rerun);
		double gain;

		if (rc) {
			emit_step(st, NAN, 0, NULL);
			break;
		}
		if (!rerun)
			n++;
		else
			reruns++;
		js[at] = (struct gp_calib_step){ st->target_rps, st->offered_rps,
						 st->delivered_tok_s, st->diverging, st->late,
						 rerun };
		gain = at >= 1 ? gp_calib_gain_pct(js[at - 1].delivered_tok_s, st->delivered_tok_s) :
				 NAN;
		gp_calib_judge(&G.P, js, n, &j);
		emit_step(st, gain, j.verdict == GP_CALIB_RERUN || j.verdict == GP_CALIB_SUSPECT,
			  gp_calib_verdict_name(j.verdict));
		if (step_unreachable(st)) {	/* the endpoint went away: no ramp can follow */
			verdict = "unreachable";
			done = 1;
		} else if (j.verdict == GP_CALIB_CONTINUE)
			k++;
		else if (j.verdict != GP_CALIB_RERUN) {
			verdict = gp_calib_verdict_name(j.verdict);
			done = 1;
		}
	}
	sampler_stop();
	if (S.fails)
		gp_warn("%ld metrics scrapes of %s failed (last: %s)", S.fails, G.metrics_url, S.err);
	emit_capacity(&j, verdict, n, reruns);
	free(st);
	sweep_cleanup();
	out_close();
	if (!strcmp(verdict, "unreachable"))
		gp_die(GP_EXIT_UNAVAILABLE, "%s stopped answering: every request of step %ld failed "
		       "to connect; sweep stopped, no capacity", G.url, k);
	if (strcmp(verdict, "saturated"))	/* exit 1 is never silent */
		gp_warn("%s: no trusted capacity: %s after %zu steps (the capacity record's reasons"
			" say why)", G.url, verdict, n);
	return gp_sig_status(!strcmp(verdict, "saturated") ? GP_EXIT_OK : GP_EXIT_NEGATIVE);
}

int main(int argc, char **argv)
{
	gp_log_init(argv[0]);
	gp_sig_install();
	if (argc >= 2 && !strcmp(argv[1], "protocol"))
		return cmd_protocol(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "ladder"))
		return cmd_ladder(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "check"))
		return cmd_check(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "idle"))
		return cmd_idle(argc - 1, argv + 1);
	return cmd_sweep(argc, argv);
}
