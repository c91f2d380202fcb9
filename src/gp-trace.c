/* SPDX-License-Identifier: MIT */
/*
 * gp-trace — synthesize cache-keyed request traces, convert public traces
 * (Mooncake JSONL, Azure LLM inference CSV, BurstGPT CSV) to trace records,
 * summarize a trace, and show the prompts gp-replay would synthesize.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "cli/cli.h"
#include "wire/csv.h"
#include "io/json.h"
#include "base/log.h"
#include "base/map.h"
#include "io/ndjson.h"
#include "base/rfc3339.h"
#include "base/sig.h"
#include "stats/stats.h"
#include "wire/trace.h"
#include "base/vec.h"
#include "method/workload.h"
#include "base/banned.h"

static const char usage[] =
"Usage: gp-trace synth [--requests N] [--rate-rps R] [--keys K] [--zipf S]\n"
"                      [--prefix-tokens P] [--input-tokens DIST] [--output-tokens DIST]\n"
"                      [--arrival poisson|gamma|constant] [--burstiness B]\n"
"                      [--block-tokens T] [--seed S] [-o FILE[.gz]] [-z]\n"
"                      [--sessions N [--turns DIST] [--think-s SDIST]\n"
"                       [--first-input-tokens DIST]]\n"
"       gp-trace from-mooncake [--key-blocks N] [-o FILE[.gz]] [-z] [FILE]\n"
"       gp-trace from-azure [-o FILE[.gz]] [-z] [FILE]\n"
"       gp-trace from-burstgpt [--sessions on|off] [-o FILE[.gz]] [-z] [FILE]\n"
"       gp-trace stats [FILE...]\n"
"       gp-trace prompt [--block-tokens T] [-o FILE[.gz]] [-z] [FILE...]\n"
"       gp-trace --help | --version\n"
"\n"
"Write NDJSON trace records (type \"trace\") on stdout.  Input may be gzip.\n"
"\n"
"synth: a cache-keyed trace for routing studies.\n"
"  --requests N        records (default 1000)\n"
"  --rate-rps R        mean arrival rate, requests/s (default 1)\n"
"  --arrival A         poisson (default), gamma, or constant gaps\n"
"  --burstiness B      gamma shape B, scale 1/(R*B): 1 = Poisson, < 1 burstier\n"
"                      (implies --arrival gamma)\n"
"  --keys K            prefix keys \"key-1\"..\"key-K\" (default 16; 0: none)\n"
"  --zipf S            key popularity ~ 1/k^S (default 1; 0: uniform)\n"
"  --prefix-tokens P   tokens shared by the requests of a key (default 1024,\n"
"                      a multiple of --block-tokens)\n"
"  --input-tokens D    prompt tokens, prefix included (default 2048)\n"
"  --output-tokens D   tokens to generate (default 128)\n"
"                      D: N | uniform:A:B | lognormal:MEDIAN:SIGMA\n"
"  --block-tokens T    tokens per hash_ids block (default 512)\n"
"  --seed S            random seed (default 1)\n"
"  --sessions N        N multi-turn sessions instead of --requests: sessions\n"
"                      start at --rate-rps (--arrival); --input-tokens is each\n"
"                      turn's new message, the history comes from gp-replay\n"
"  --turns D           turns per session (default 4; D as for tokens)\n"
"  --think-s SD        pause before turns 2.. after the previous one completed\n"
"                      (default 5): S | uniform:A:B | exp:MEAN |\n"
"                      lognormal:MEDIAN:SIGMA, seconds\n"
"  --first-input-tokens D  turn 1's message (default: --input-tokens), e.g. a\n"
"                      document the later, shorter turns ask about\n"
"from-mooncake: Mooncake JSONL (ms timestamps, 512-token hash_ids).\n"
"  --key-blocks N      cache_key = the first N hash_ids (default 2; 0: none)\n"
"from-azure: Azure LLM inference CSV (TIMESTAMP,ContextTokens,GeneratedTokens).\n"
"from-burstgpt: BurstGPT CSV (6- or 8-column layout); cache_key = Session ID.\n"
"  --sessions on       rows with a Session ID become that session's turns:\n"
"                      think_s = Timestamp - (previous turn's Timestamp +\n"
"                      Elapsed time), at least 0 (default off)\n"
"stats: one trace_stats record summarizing the trace records read.\n"
"prompt: one prompt record per trace record, with the synthesized prompt.\n"
"  -o, --output FILE   write to FILE (gzip when it ends in .gz)\n"
"  -z, --gzip          gzip the output\n"
"  -h, --help          this text;  --version  the version\n"
"Exit status: 0 ok, 1 output pipe closed, 2 usage error, 65 bad input data,\n"
	"70 internal error, 74 output not writable.\n";

enum cmd { C_SYNTH, C_MOONCAKE, C_AZURE, C_BURSTGPT, C_STATS, C_PROMPT };
static const char *const cmd_names[] = {
	"synth", "from-mooncake", "from-azure", "from-burstgpt", "stats", "prompt",
};

struct opts {
	enum cmd cmd;
	long requests;
	double rate_rps;
	long keys;
	double zipf;
	long prefix_tokens;
	struct gp_dist in_dist, out_dist;	/* workload.h */
	int arrival;		/* 0 poisson, 1 gamma, 2 constant */
	int arrival_set;
	double burstiness;
	int burstiness_set;
	long block_tokens;
	uint64_t seed;
	long key_blocks;
	long sessions;		/* 0: independent requests */
	struct gp_dist turns;
	struct gp_secs think;
	struct gp_dist first_dist;
	int first_set;
	int requests_set, sess_opt_set;
	const char *output;
	int gzip;
	char **files;
	int nfiles;
};


#define MAX_TOKENS 0x7fffffffL
#define UNIQUE_ID_LIMIT 1000000000LL	/* unique block ids are [0, 1e9) */
#define MAX_KEYS 1000000L		/* key k's prefix ids are k*1e9 + j */

/* ---------------------------------------------------------------- output */

static struct gp_out out;

static void out_open(const struct opts *o)
{
	gp_output_open(&out, o->output, o->gzip);
}

/* Every record goes out here: the first SIGINT/SIGTERM stops the tool at
 * this record boundary (cli.h), output closed, exit 128+N. */
static void out_record(json_t *rec)
{
	gp_stop_point(&out);
	if (gp_out_json(&out, rec))
		gp_output_failed(&out);
	json_decref(rec);
}

static void out_close(void)
{
	gp_output_close(&out);
}

/* A trace record; hash_ids written when has_ids (possibly empty). */
static json_t *trace_record(const char *id, double t_s, long in, long outt,
			    const char *key, int has_ids, const int64_t *ids, size_t nids)
{
	json_t *r = json_object();

	json_object_set_new(r, "type", json_string("trace"));
	json_object_set_new(r, "id", json_string(id));
	json_object_set_new(r, "t_s", json_real(t_s));
	json_object_set_new(r, "input_tokens", json_integer(in));
	json_object_set_new(r, "output_tokens", json_integer(outt));
	if (key)
		json_object_set_new(r, "cache_key", json_string(key));
	if (has_ids) {
		json_t *a = json_array();
		for (size_t i = 0; i < nids; i++)
			json_array_append_new(a, json_integer(ids[i]));
		json_object_set_new(r, "hash_ids", a);
	}
	return r;
}

/* ----------------------------------------------------------------- synth */

static void parse_dist(const char *opt, const char *s, struct gp_dist *d)
{
	char err[96];

	switch (gp_dist_parse(s, d, err, sizeof(err))) {
	case -2:
		gp_usage_error("%s: '%.32s...' is too long", opt, s);
	case -1:
		gp_usage_error("%s: '%s': %s", opt, s, err);
	}
}

/* One MT19937 stream per purpose (arrivals, keys, input, output): workload.h. */
static gsl_rng *stream(uint64_t seed, unsigned k)
{
	gsl_rng *r = gp_workload_stream(seed, k);

	if (!r)
		gp_die_nomem();
	return r;
}

static void cmd_synth(const struct opts *o)
{
	gsl_rng *ra = stream(o->seed, 0), *rk = stream(o->seed, 1);
	gsl_rng *ri = stream(o->seed, 2), *ro = stream(o->seed, 3);
	gsl_ran_discrete_t *zipf = NULL;
	long prefix_blocks = o->keys > 0 ? o->prefix_tokens / o->block_tokens : 0;
	long long next_unique = 0;
	int64_t *ids = NULL;
	size_t ids_cap = 0;
	double t = 0;
	char id[32], key[32];

	if (o->keys > 0) {
		zipf = gp_zipf_table(o->keys, o->zipf);
		if (!zipf)
			gp_die(GP_EXIT_SOFTWARE, "cannot build the Zipf table");
	}
	out_open(o);
	for (long i = 0; i < o->requests; i++) {
		long in = gp_dist_draw(&o->in_dist, ri);
		long outt = gp_dist_draw(&o->out_dist, ro);
		long k = zipf ? (long)gsl_ran_discrete(rk, zipf) + 1 : 0;
		size_t nb = (size_t)((in + o->block_tokens - 1) / o->block_tokens);
		size_t pb = zipf ? (size_t)prefix_blocks : 0;

		if (i > 0)
			t += gp_arrival_gap((enum gp_arrival)o->arrival, o->rate_rps, o->burstiness, ra);
		if (pb > nb)
			pb = nb;
		ids = gp_xgrow(ids, &ids_cap, nb, sizeof(*ids), 64);
		for (size_t j = 0; j < pb; j++)
			ids[j] = (int64_t)k * UNIQUE_ID_LIMIT + (int64_t)j;
		for (size_t j = pb; j < nb; j++) {
			if (next_unique >= UNIQUE_ID_LIMIT)
				gp_die(GP_EXIT_USAGE, "more than %lld unique blocks: raise --block-tokens",
				       UNIQUE_ID_LIMIT);
			ids[j] = next_unique++;
		}
		snprintf(id, sizeof(id), "s%ld", i);
		if (k)
			snprintf(key, sizeof(key), "key-%ld", k);
		out_record(trace_record(id, nearbyint(t * 1e6) / 1e6, in, outt,
					k ? key : NULL, 1, ids, nb));
	}
	out_close();
	free(ids);
	gsl_ran_discrete_free(zipf);
	gsl_rng_free(ra);
	gsl_rng_free(rk);
	gsl_rng_free(ri);
	gsl_rng_free(ro);
}

/* One record of a synthesized session, kept until all are sorted by t_s. */
struct srec {
	double t_s;
	long seq;		/* generation order: ties keep a session's turns in order */
	long sess, turn, in, out;
	double think_s;
	long key;		/* 0: none */
	size_t ids0, nids;	/* hash_ids in the shared array */
};

static int srec_cmp(const void *a, const void *b)
{
	const struct srec *x = a, *y = b;

	if (x->t_s != y->t_s)
		return x->t_s < y->t_s ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/*
 * synth --sessions: session i starts at the i-th arrival; its turn 1 carries
 * the key's shared prefix blocks (as a synth request does), later turns new
 * blocks only (their history is built by gp-replay).  The t_s of turn k >= 2
 * is a nominal one, the previous turn's plus its think time (responses taking
 * no time): it keeps the file in time order and is not used to send.
 */
static void cmd_synth_sessions(const struct opts *o)
{
	gsl_rng *ra = stream(o->seed, 0), *rk = stream(o->seed, 1);
	gsl_rng *ri = stream(o->seed, 2), *ro = stream(o->seed, 3);
	gsl_rng *rt = stream(o->seed, 4), *rth = stream(o->seed, 5);
	gsl_ran_discrete_t *zipf = NULL;
	long prefix_blocks = o->keys > 0 ? o->prefix_tokens / o->block_tokens : 0;
	long long next_unique = 0;
	struct srec *v = NULL;
	int64_t *ids = NULL;
	size_t n = 0, cap = 0, nids = 0, ids_cap = 0;
	double t0 = 0;
	char id[48], key[32], sess[32];

	if (o->keys > 0 && !(zipf = gp_zipf_table(o->keys, o->zipf)))
		gp_die(GP_EXIT_SOFTWARE, "cannot build the Zipf table");
	for (long i = 0; i < o->sessions; i++) {
		long turns = gp_dist_draw(&o->turns, rt);
		long k = zipf ? (long)gsl_ran_discrete(rk, zipf) + 1 : 0;
		double t;

		if (i > 0)
			t0 += gp_arrival_gap((enum gp_arrival)o->arrival, o->rate_rps, o->burstiness, ra);
		t = t0;
		for (long j = 1; j <= turns; j++) {
			long in = gp_dist_draw(j == 1 && o->first_set ? &o->first_dist : &o->in_dist, ri);
			long outt = gp_dist_draw(&o->out_dist, ro);
			double think = j > 1 ? nearbyint(gp_secs_draw(&o->think, rth) * 1e6) / 1e6 : 0;
			size_t nb = (size_t)((in + o->block_tokens - 1) / o->block_tokens);
			size_t pb = j == 1 && zipf ? (size_t)prefix_blocks : 0;
			struct srec *r;

			if (pb > nb)
				pb = nb;
			if (n == cap) {
				cap = cap ? 2 * cap : 1024;
				v = gp_xrealloc(v, cap * sizeof(*v));
			}
			if (nids + nb > ids_cap) {
				ids_cap = 2 * (nids + nb);
				ids = gp_xrealloc(ids, ids_cap * sizeof(*ids));
			}
			for (size_t b = 0; b < nb; b++) {
				if (b < pb) {
					ids[nids + b] = (int64_t)k * UNIQUE_ID_LIMIT + (int64_t)b;
					continue;
				}
				if (next_unique >= UNIQUE_ID_LIMIT)
					gp_die(GP_EXIT_USAGE, "more than %lld unique blocks: raise --block-tokens",
					       UNIQUE_ID_LIMIT);
				ids[nids + b] = next_unique++;
			}
			t += think;
			r = &v[n];
			*r = (struct srec){ .t_s = nearbyint(t * 1e6) / 1e6, .seq = (long)n, .sess = i,
					    .turn = j, .in = in, .out = outt, .think_s = think, .key = k,
					    .ids0 = nids, .nids = nb };
			n++;
			nids += nb;
		}
	}
	qsort(v, n, sizeof(*v), srec_cmp);
	out_open(o);
	for (size_t i = 0; i < n; i++) {
		json_t *rec;

		snprintf(sess, sizeof(sess), "c%ld", v[i].sess);
		snprintf(id, sizeof(id), "c%ld-%ld", v[i].sess, v[i].turn);
		if (v[i].key)
			snprintf(key, sizeof(key), "key-%ld", v[i].key);
		rec = trace_record(id, v[i].t_s, v[i].in, v[i].out, v[i].key ? key : NULL, 1,
				   ids + v[i].ids0, v[i].nids);
		json_object_set_new(rec, "session", json_string(sess));
		json_object_set_new(rec, "turn", json_integer(v[i].turn));
		json_object_set_new(rec, "think_s", json_real(v[i].think_s));
		out_record(rec);
	}
	out_close();
	free(v);
	free(ids);
	gsl_ran_discrete_free(zipf);
	gsl_rng_free(ra);
	gsl_rng_free(rk);
	gsl_rng_free(ri);
	gsl_rng_free(ro);
	gsl_rng_free(rt);
	gsl_rng_free(rth);
}

/* ------------------------------------------------------------ converters */

static void input_open(struct gp_input *in, const struct opts *o)
{
	if (o->nfiles > 1)
		gp_usage_error("%s: one input file at most", cmd_names[o->cmd]);
	gp_input_init(in, o->files, o->nfiles);
}

/* The shared bookkeeping of every converter: order, origin, skipped rows. */
struct conv {
	struct gp_input in;
	struct gp_csv csv;
	int have_first;
	long long first_ns, prev_ns;
	long skipped;
	long written;
};

/*
 * Check order, decide the row's t_s; returns 0 when the row is to be written,
 * 1 when it is skipped (a zero token count: a failed request in the source).
 * A timestamp earlier than the previous row's is a data error: the sources are
 * sorted, and a replay needs t_s in order.
 */
static int conv_row(struct conv *c, const char *tfield, long long ns, long in, long outt,
		    double *t_s)
{
	const char *file = gp_input_name(&c->in);
	unsigned long line = gp_input_line(&c->in);

	if (c->have_first && ns < c->prev_ns)
		gp_die_at(GP_EXIT_DATAERR, file, line,
			  "field '%s' decreases (rows must be sorted by time)", tfield);
	c->prev_ns = ns;
	if (in == 0 || outt == 0) {
		c->skipped++;
		return 1;
	}
	if (!c->have_first) {
		c->have_first = 1;
		c->first_ns = ns;
	}
	*t_s = (double)(ns - c->first_ns) / 1e9;
	c->written++;
	return 0;
}

static void conv_done(struct conv *c)
{
	if (c->skipped)
		gp_warn_at(gp_input_name(&c->in), 0,
			   "skipped %ld row%s with 0 tokens (failed requests in the source)",
			   c->skipped, c->skipped == 1 ? "" : "s");
	gp_input_release(&c->in);
	out_close();
}

/* A token count: an integer >= 0 (0 marks a failed request). */
static long row_tokens(struct conv *c, const char *field, const char *s)
{
	long v;

	while (*s == ' ')
		s++;
	if (gp_parse_long(s, -MAX_TOKENS, MAX_TOKENS, &v))
		gp_die_at(GP_EXIT_DATAERR, gp_input_name(&c->in), gp_input_line(&c->in),
			  "field '%s' is not an integer: '%.40s'", field, s);
	if (v < 0)
		gp_die_at(GP_EXIT_DATAERR, gp_input_name(&c->in), gp_input_line(&c->in),
			  "field '%s' is negative: %ld", field, v);
	return v;
}

static void cmd_mooncake(const struct opts *o)
{
	struct conv c;
	json_t *row;
	int e;
	int64_t *ids = NULL;
	size_t cap = 0;
	char id[32];

	memset(&c, 0, sizeof(c));
	input_open(&c.in, o);
	out_open(o);
	while ((e = gp_input_next_json(&c.in, &row)) == GP_NDJSON_LINE) {
		const char *file = gp_input_name(&c.in);
		unsigned long line = gp_input_line(&c.in);
		double ts = gp_need_num(row, "timestamp", file, line);
		long long in = gp_need_int(row, "input_length", file, line);
		long long outt = gp_need_int(row, "output_length", file, line);
		json_t *h = json_object_get(row, "hash_ids");
		size_t n = 0;
		double t_s;
		char key[64 * 21 + 8];	/* "mc" + up to 64 "-<int64>" */

		if (!(ts >= 0) || ts > 9e12)
			gp_die_at(GP_EXIT_DATAERR, file, line, "field 'timestamp' is negative or too large");
		if (in < 0 || outt < 0)
			gp_die_at(GP_EXIT_DATAERR, file, line, "field '%s' is negative",
				  in < 0 ? "input_length" : "output_length");
		if (in > MAX_TOKENS || outt > MAX_TOKENS)
			gp_die_at(GP_EXIT_DATAERR, file, line, "field '%s' is too large",
				  in > MAX_TOKENS ? "input_length" : "output_length");
		if (h && !json_is_null(h)) {
			if (!json_is_array(h))
				gp_die_at(GP_EXIT_DATAERR, file, line, "field 'hash_ids' is not an array");
			n = json_array_size(h);
			ids = gp_xgrow(ids, &cap, n, sizeof(*ids), 64);
			for (size_t i = 0; i < n; i++) {
				json_t *x = json_array_get(h, i);
				if (!json_is_integer(x))
					gp_die_at(GP_EXIT_DATAERR, file, line,
						  "field 'hash_ids' element %zu is not an integer", i);
				ids[i] = (int64_t)json_integer_value(x);
			}
		}
		/* ms to ns exactly for integral ms (all Mooncake traces). */
		if (conv_row(&c, "timestamp", (long long)llround(ts * 1e6), (long)in, (long)outt, &t_s)) {
			json_decref(row);
			continue;
		}
		key[0] = '\0';
		if (o->key_blocks > 0 && n > 0) {
			size_t k = (size_t)o->key_blocks < n ? (size_t)o->key_blocks : n;
			size_t len = (size_t)snprintf(key, sizeof(key), "mc");
			for (size_t i = 0; i < k && len < sizeof(key); i++)
				len += (size_t)snprintf(key + len, sizeof(key) - len, "-%lld",
							(long long)ids[i]);
			if (len >= sizeof(key))
				gp_die_at(GP_EXIT_USAGE, file, line, "--key-blocks %ld: key too long",
					  o->key_blocks);
		}
		snprintf(id, sizeof(id), "mc%lu", line);
		out_record(trace_record(id, t_s, (long)in, (long)outt, key[0] ? key : NULL,
					h && !json_is_null(h), ids, n));
		json_decref(row);
	}
	if (e < 0)
		gp_input_failed(&c.in, e);
	free(ids);
	conv_done(&c);
}

/* Read the header (csv.h); fill col[i] for each name (or -1). */
static void csv_header(struct conv *c, const char *const *names, int nnames, int *col,
		      int required_mask)
{
	char *line;
	size_t len;
	int e = gp_input_next(&c->in, &line, &len);

	if (e == GP_NDJSON_EOF)
		gp_die_at(GP_EXIT_DATAERR, gp_input_name(&c->in), 0, "empty input: no header line");
	if (e < 0)
		gp_input_failed(&c->in, e);
	if (gp_csv_header(&c->csv, line, names, nnames, col, (unsigned)required_mask) < 0)
		gp_die_at(GP_EXIT_DATAERR, gp_input_name(&c->in), gp_input_line(&c->in), "%s", c->csv.err);
}

/* Next data row split into c->csv.f; 0 at EOF. */
static int csv_row(struct conv *c, const char *const *names, const int *col, int nnames)
{
	char *line;
	size_t len;
	int e;

	gp_stop_point(&out);
	e = gp_input_next(&c->in, &line, &len);
	if (e == GP_NDJSON_EOF)
		return 0;
	if (e < 0)
		gp_input_failed(&c->in, e);
	if (gp_csv_row(&c->csv, line, names, col, nnames))
		gp_die_at(GP_EXIT_DATAERR, gp_input_name(&c->in), gp_input_line(&c->in), "%s", c->csv.err);
	return 1;
}

/* ".ddddddddd" fraction (1-9 digits used, more ignored) into ns; returns chars used. */
static int frac_ns(const char *s, long long *ns)
{
	int i = 0;
	long long scale = 100000000;

	*ns = 0;
	if (*s != '.')
		return 0;
	for (i = 1; isdigit((unsigned char)s[i]); i++) {
		*ns += (s[i] - '0') * scale;
		scale /= 10;
	}
	return i == 1 ? -1 : i;
}

/* Seconds "123" or "123.5" (>= 0) into integer nanoseconds. */
static int parse_seconds_ns(const char *s, long long *ns)
{
	long long whole = 0, fr;
	int i = 0, k;

	while (*s == ' ')
		s++;
	if (!isdigit((unsigned char)s[0]))
		return -1;
	for (; isdigit((unsigned char)s[i]); i++) {
		if (whole > 9000000000LL)
			return -1;
		whole = whole * 10 + (s[i] - '0');
	}
	k = frac_ns(s + i, &fr);
	if (k < 0 || s[i + k] != '\0')
		return -1;
	*ns = whole * 1000000000LL + fr;
	return 0;
}

static void cmd_azure(const struct opts *o)
{
	static const char *const names[] = {"TIMESTAMP", "ContextTokens", "GeneratedTokens"};
	struct conv c;
	int col[3];
	char **f, id[32];

	memset(&c, 0, sizeof(c));
	f = c.csv.f;	/* the row's fields, refilled by each csv_row */
	input_open(&c.in, o);
	csv_header(&c, names, 3, col, 7);
	out_open(o);
	while (csv_row(&c, names, col, 3)) {
		int64_t ns;	/* a naive clock: only differences are used */
		double t_s;
		char *ts = f[col[0]];

		while (*ts == ' ')
			ts++;
		if (gp_rfc3339_parse_naive(ts, &ns))
			gp_die_at(GP_EXIT_DATAERR, gp_input_name(&c.in), gp_input_line(&c.in),
				  "field 'TIMESTAMP' is not a time 'YYYY-MM-DD HH:MM:SS.fffffff': '%.40s'", ts);
		long in = row_tokens(&c, names[1], f[col[1]]);
		long outt = row_tokens(&c, names[2], f[col[2]]);
		if (conv_row(&c, names[0], ns, in, outt, &t_s))
			continue;
		snprintf(id, sizeof(id), "az%lu", gp_input_line(&c.in));
		out_record(trace_record(id, t_s, in, outt, NULL, 0, NULL, 0));
	}
	conv_done(&c);
}

/* A BurstGPT session so far: its turns, and when its last turn ended. */
struct bg_sess {
	long turns;
	double end_s;		/* t_s + Elapsed time of its last turn */
};

static void cmd_burstgpt(const struct opts *o)
{
	static const char *const names[] = {"Timestamp", "Request tokens", "Response tokens",
					    "Session ID", "Elapsed time"};
	struct conv c;
	int col[5];
	char **f, id[32];
	struct gp_map *sess = gp_map_new();
	struct bg_sess *sv = NULL;
	size_t sv_cap = 0;

	memset(&c, 0, sizeof(c));
	f = c.csv.f;	/* the row's fields, refilled by each csv_row */
	input_open(&c.in, o);
	csv_header(&c, names, 5, col, 7);
	if (o->sessions && (col[3] < 0 || col[4] < 0))
		gp_die_at(GP_EXIT_DATAERR, gp_input_name(&c.in), 1,
			  "--sessions on needs the columns 'Session ID' and 'Elapsed time' (BurstGPT_3's layout)");
	out_open(o);
	while (csv_row(&c, names, col, 5)) {
		long long ns;
		double t_s;
		const char *key = NULL;

		if (parse_seconds_ns(f[col[0]], &ns))
			gp_die_at(GP_EXIT_DATAERR, gp_input_name(&c.in), gp_input_line(&c.in),
				  "field 'Timestamp' is not a number of seconds >= 0: '%.40s'", f[col[0]]);
		long in = row_tokens(&c, names[1], f[col[1]]);
		long outt = row_tokens(&c, names[2], f[col[2]]);
		if (conv_row(&c, names[0], ns, in, outt, &t_s))
			continue;
		if (col[3] >= 0) {
			char *s = gp_csv_trim(f[col[3]]);
			if (*s)
				key = s;
		}
		snprintf(id, sizeof(id), "bg%lu", gp_input_line(&c.in));
		json_t *rec = trace_record(id, t_s, in, outt, key, 0, NULL, 0);
		if (o->sessions && key) {
			size_t n = gp_map_count(sess), i = gp_map_add(sess, key);
			double el;

			if (gp_parse_double(gp_csv_trim(f[col[4]]), 0, 1e9, &el))
				gp_die_at(GP_EXIT_DATAERR, gp_input_name(&c.in), gp_input_line(&c.in),
					  "field 'Elapsed time' is not a number of seconds >= 0: '%.40s'",
					  f[col[4]]);
			if (i == n) {
				if (n == sv_cap) {
					sv_cap = sv_cap ? 2 * sv_cap : 256;
					sv = gp_xrealloc(sv, sv_cap * sizeof(*sv));
				}
				sv[i].turns = 0;
			}
			json_object_set_new(rec, "session", json_string(key));
			json_object_set_new(rec, "turn", json_integer(++sv[i].turns));
			json_object_set_new(rec, "think_s", json_real(sv[i].turns == 1 ? 0 :
				nearbyint(fmax(0, t_s - sv[i].end_s) * 1e6) / 1e6));
			sv[i].end_s = t_s + el;
		}
		out_record(rec);
	}
	gp_map_free(sess);
	free(sv);
	conv_done(&c);
}

/* ----------------------------------------------------------------- stats */

/* Count one occurrence of key[0..len) in m; returns the count before it. */
static uint64_t count_add(struct gp_map *m, const void *key, size_t len)
{
	size_t i = gp_map_addn(m, key, len);
	uint64_t c = gp_map_u64(m, i);

	gp_map_set_u64(m, i, c + 1);
	return c;
}

struct dvec {
	double *v;
	size_t n, cap;
};

static void dvec_push(struct dvec *d, double x)
{
	GP_XGROW(d->v, d->n, d->cap, 1024);
	d->v[d->n++] = x;
}

/* {"mean","p50","p90","p99","min","max","sum"} of a sample (sorted here). */
static json_t *summary(struct dvec *d)
{
	json_t *o = json_object();
	double sum = 0;

	for (size_t i = 0; i < d->n; i++)
		sum += d->v[i];
	gp_sort_doubles(d->v, d->n);
	gp_json_set_real(o, "mean", d->n ? sum / (double)d->n : NAN);
	gp_json_set_real(o, "p50", gp_quantile_sorted(d->v, d->n, 0.50));
	gp_json_set_real(o, "p90", gp_quantile_sorted(d->v, d->n, 0.90));
	gp_json_set_real(o, "p99", gp_quantile_sorted(d->v, d->n, 0.99));
	json_object_set_new(o, "min", d->n ? json_integer((json_int_t)d->v[0]) : json_null());
	json_object_set_new(o, "max", d->n ? json_integer((json_int_t)d->v[d->n - 1]) : json_null());
	json_object_set_new(o, "sum", json_integer((json_int_t)sum));
	return o;
}

static double frac(long a, long b)
{
	return b > 0 ? (double)a / (double)b : NAN;
}

/* What `stats` accumulates over the trace records it reads. */
struct tally {
	struct dvec ts, tin, tout;
	struct gp_map *keys, *ids;	/* key or id → occurrences */
	struct gp_u64set *blocks;	/* the hash_ids seen */
	long nreq, keyed, key_seen, dup_ids, nblocks, blocks_seen;
	int sorted;
	double prev, tmin, tmax;
	struct gp_trace_check chk;	/* sessions' turns in order (trace.h) */
};

static void tally_add(struct tally *t, const struct gp_trace_rec *r)
{
	t->nreq++;
	if (r->t_s < t->prev)
		t->sorted = 0;
	t->prev = r->t_s;
	t->tmin = fmin(t->tmin, r->t_s);
	t->tmax = fmax(t->tmax, r->t_s);
	dvec_push(&t->ts, r->t_s);
	dvec_push(&t->tin, (double)r->input_tokens);
	dvec_push(&t->tout, (double)r->output_tokens);
	if (count_add(t->ids, r->id, strlen(r->id)))
		t->dup_ids++;
	if (r->cache_key) {
		t->keyed++;
		if (count_add(t->keys, r->cache_key, strlen(r->cache_key)))
			t->key_seen++;
	}
	for (size_t i = 0; i < r->n_hash_ids; i++) {
		t->nblocks++;
		t->blocks_seen += gp_u64set_add(t->blocks, (uint64_t)r->hash_ids[i]);
	}
}

/* Read every trace record of the inputs into t (exit 65 on bad data). */
static void tally_read(struct tally *t, const struct opts *o)
{
	struct gp_input in;
	struct gp_trace_rec r;
	json_t *row;
	char err[256];
	int e, c;

	gp_input_init(&in, o->files, o->nfiles);
	gp_trace_init(&r);
	while ((e = gp_input_next_json(&in, &row)) == GP_NDJSON_LINE) {
		gp_stop_point(NULL);
		c = gp_trace_parse(&r, row, err, sizeof(err));
		if (!c && (c = gp_trace_check_rec(&t->chk, &r, err, sizeof(err))) == -2)
			gp_die_nomem();
		if (c)
			gp_die_at(GP_EXIT_DATAERR, gp_input_name(&in), gp_input_line(&in), "%s", err);
		tally_add(t, &r);
		gp_trace_release(&r);
		json_decref(row);
	}
	if (e < 0)
		gp_input_failed(&in, e);
	gp_input_release(&in);
}

/* The most frequent key (ties: the smallest), NULL when none; its count in *top. */
static const char *top_key_of(const struct gp_map *keys, long *top)
{
	const char *top_key = NULL;

	*top = 0;
	for (size_t i = 0; i < gp_map_count(keys); i++) {
		const char *k = gp_map_key(keys, i, NULL);
		long c = (long)gp_map_u64(keys, i);

		if (c > *top || (c == *top && strcmp(k, top_key) < 0)) {
			*top = c;
			top_key = k;
		}
	}
	return top_key;
}

/* The human summary of a trace_stats record, on a terminal. */
static void stats_tty(const struct tally *t, const json_t *rec, double duration, double cv)
{
	json_t *ti = json_object_get(rec, "input_tokens");
	json_t *to = json_object_get(rec, "output_tokens");
	long nreq = t->nreq;

	gp_info("%ld requests over %.3f s (%.3f req/s, inter-arrival CV %.2f)", nreq,
		nreq ? duration : 0.0, nreq >= 2 && duration > 0 ? (double)(nreq - 1) / duration : 0.0,
		isnan(cv) ? 0.0 : cv);
	if (nreq)
		gp_info("input tokens p50 %.0f p99 %.0f; output tokens p50 %.0f p99 %.0f",
			json_number_value(json_object_get(ti, "p50")),
			json_number_value(json_object_get(ti, "p99")),
			json_number_value(json_object_get(to, "p50")),
			json_number_value(json_object_get(to, "p99")));
	gp_info("%zu keys (reuse %.1f%%), %ld blocks (reuse %.1f%%)%s", gp_map_count(t->keys),
		nreq ? 100.0 * (double)t->key_seen / (double)nreq : 0.0, t->nblocks,
		t->nblocks ? 100.0 * (double)t->blocks_seen / (double)t->nblocks : 0.0,
		t->dup_ids ? "; DUPLICATE ids" : "");
}

static void cmd_stats(const struct opts *o)
{
	struct tally t = {.sorted = 1, .prev = -1, .tmin = INFINITY, .tmax = -INFINITY};
	long top, nreq;
	const char *top_key;
	json_t *rec;

	t.keys = gp_map_new();
	t.ids = gp_map_new();
	t.blocks = gp_u64set_new();
	tally_read(&t, o);
	nreq = t.nreq;
	top_key = top_key_of(t.keys, &top);

	/* Inter-arrival gaps in time order. */
	double duration = nreq ? t.tmax - t.tmin : NAN, cv = NAN;
	gp_sort_doubles(t.ts.v, t.ts.n);
	if (t.ts.n >= 3) {
		for (size_t i = 1; i < t.ts.n; i++)
			t.ts.v[i - 1] = t.ts.v[i] - t.ts.v[i - 1];
		cv = gp_cv(t.ts.v, t.ts.n - 1);
	}

	rec = json_object();
	json_object_set_new(rec, "type", json_string("trace_stats"));
	json_object_set_new(rec, "requests", json_integer(nreq));
	gp_json_set_real(rec, "duration_s", duration);
	gp_json_set_real(rec, "mean_rate_rps", nreq >= 2 && duration > 0 ? (double)(nreq - 1) / duration : NAN);
	gp_json_set_real(rec, "interarrival_cv", cv);
	json_object_set_new(rec, "sorted", json_boolean(t.sorted));
	json_object_set_new(rec, "input_tokens", summary(&t.tin));
	json_object_set_new(rec, "output_tokens", summary(&t.tout));
	json_object_set_new(rec, "keys", json_integer((json_int_t)gp_map_count(t.keys)));
	json_object_set_new(rec, "keyed_requests", json_integer(t.keyed));
	gp_json_set_real(rec, "key_reuse", frac(t.key_seen, nreq));
	json_object_set_new(rec, "top_key", top_key ? json_string(top_key) : json_null());
	gp_json_set_real(rec, "top_key_share", top_key ? frac(top, nreq) : NAN);
	json_object_set_new(rec, "hash_blocks", json_integer(t.nblocks));
	json_object_set_new(rec, "hash_blocks_distinct", json_integer((json_int_t)gp_u64set_count(t.blocks)));
	gp_json_set_real(rec, "hash_block_reuse", frac(t.blocks_seen, t.nblocks));
	json_object_set_new(rec, "duplicate_ids", json_integer(t.dup_ids));
	json_object_set_new(rec, "sessions", json_integer((json_int_t)t.chk.nsessions));
	json_object_set_new(rec, "session_turns", json_integer((json_int_t)t.chk.nturns));
	json_object_set_new(rec, "session_turns_max", json_integer(t.chk.max_turn));

	if (isatty(STDERR_FILENO))
		stats_tty(&t, rec, duration, cv);
	out_open(o);
	out_record(rec);
	out_close();
	gp_map_free(t.keys);
	gp_map_free(t.ids);
	gp_u64set_free(t.blocks);
	gp_trace_check_release(&t.chk);
	free(t.ts.v);
	free(t.tin.v);
	free(t.tout.v);
}

/* ---------------------------------------------------------------- prompt */

static void cmd_prompt(const struct opts *o)
{
	struct gp_input in;
	struct gp_trace_rec r;
	json_t *row;
	char err[256], *buf = NULL;
	size_t cap = 0;
	int e;

	gp_input_init(&in, o->files, o->nfiles);
	gp_trace_init(&r);
	out_open(o);
	while ((e = gp_input_next_json(&in, &row)) == GP_NDJSON_LINE) {
		json_t *rec = json_object();

		if (gp_trace_parse(&r, row, err, sizeof(err)))
			gp_die_at(GP_EXIT_DATAERR, gp_input_name(&in), gp_input_line(&in), "%s", err);
		json_object_set_new(rec, "type", json_string("prompt"));
		json_object_set_new(rec, "id", json_string(r.id));
		json_object_set_new(rec, "input_tokens", json_integer(r.input_tokens));
		if (r.messages) {
			json_object_set(rec, "messages", r.messages);
		} else if (r.prompt) {
			json_object_set_new(rec, "prompt", json_string(r.prompt));
		} else {
			size_t need = gp_trace_synth_prompt(NULL, 0, r.input_tokens, r.hash_ids,
							    r.n_hash_ids, o->block_tokens, r.id);
			buf = gp_xgrow(buf, &cap, need + 1, 1, 256);
			gp_trace_synth_prompt(buf, cap, r.input_tokens, r.hash_ids, r.n_hash_ids,
					      o->block_tokens, r.id);
			json_object_set_new(rec, "prompt", json_stringn(buf, need));
		}
		out_record(rec);
		gp_trace_release(&r);
		json_decref(row);
	}
	if (e < 0)
		gp_input_failed(&in, e);
	gp_input_release(&in);
	free(buf);
	out_close();
}

/* ------------------------------------------------------------------ main */

enum {
	O_REQUESTS = 256, O_RATE, O_KEYS, O_ZIPF, O_PREFIX, O_IN, O_OUT, O_ARRIVAL,
	O_BURST, O_BLOCK, O_SEED, O_KEYBLOCKS, O_SESSIONS, O_TURNS, O_THINK, O_FIRST, O_VERSION,
};

/* Which subcommands take each option (bit per enum cmd). */
#define B(c) (1u << (c))
static const struct {
	int opt;
	unsigned cmds;
} applies[] = {
	{O_REQUESTS, B(C_SYNTH)}, {O_RATE, B(C_SYNTH)}, {O_KEYS, B(C_SYNTH)},
	{O_ZIPF, B(C_SYNTH)}, {O_PREFIX, B(C_SYNTH)}, {O_IN, B(C_SYNTH)}, {O_OUT, B(C_SYNTH)},
	{O_ARRIVAL, B(C_SYNTH)}, {O_BURST, B(C_SYNTH)}, {O_SEED, B(C_SYNTH)},
	{O_BLOCK, B(C_SYNTH) | B(C_PROMPT)}, {O_KEYBLOCKS, B(C_MOONCAKE)},
	{O_SESSIONS, B(C_SYNTH) | B(C_BURSTGPT)}, {O_FIRST, B(C_SYNTH)}, {O_TURNS, B(C_SYNTH)}, {O_THINK, B(C_SYNTH)},
};

static const struct option longopts[] = {
	{"requests", required_argument, NULL, O_REQUESTS},
	{"rate-rps", required_argument, NULL, O_RATE},
	{"keys", required_argument, NULL, O_KEYS},
	{"zipf", required_argument, NULL, O_ZIPF},
	{"prefix-tokens", required_argument, NULL, O_PREFIX},
	{"input-tokens", required_argument, NULL, O_IN},
	{"output-tokens", required_argument, NULL, O_OUT},
	{"arrival", required_argument, NULL, O_ARRIVAL},
	{"burstiness", required_argument, NULL, O_BURST},
	{"block-tokens", required_argument, NULL, O_BLOCK},
	{"seed", required_argument, NULL, O_SEED},
	{"key-blocks", required_argument, NULL, O_KEYBLOCKS},
	{"sessions", required_argument, NULL, O_SESSIONS},
	{"turns", required_argument, NULL, O_TURNS},
	{"think-s", required_argument, NULL, O_THINK},
	{"first-input-tokens", required_argument, NULL, O_FIRST},
	{"output", required_argument, NULL, 'o'},
	{"gzip", no_argument, NULL, 'z'},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, O_VERSION},
	{NULL, 0, NULL, 0},
};

static const char *opt_name(int c)
{
	for (const struct option *l = longopts; l->name; l++)
		if (l->val == c)
			return l->name;
	return "?";
}

/* The subcommand argv[1] names (or --help, --version). */
static enum cmd parse_cmd(int argc, char **argv)
{
	const char *sub;
	int k;

	if (argc < 2)
		gp_usage_error("missing subcommand (synth, from-mooncake, from-azure, "
			       "from-burstgpt, stats, prompt)");
	sub = argv[1];
	if (!strcmp(sub, "--help") || !strcmp(sub, "-h"))
		gp_print_help(usage);
	if (!strcmp(sub, "--version"))
		gp_print_version();
	if (sub[0] == '-')
		gp_usage_error("unknown option '%s' (a subcommand comes first)", sub);
	for (k = 0; k < (int)(sizeof(cmd_names) / sizeof(cmd_names[0])); k++)
		if (!strcmp(sub, cmd_names[k]))
			return (enum cmd)k;
	gp_usage_error("unknown subcommand '%s'", sub);
	return C_SYNTH;
}

/* One option c (its argument optarg) of subcommand sub into o; arg0 is the
 * option as written, for the message of one not handled. */
static void parse_opt(struct opts *o, int c, const char *sub, const char *arg0)
{
	for (size_t i = 0; i < sizeof(applies) / sizeof(applies[0]); i++)
		if (applies[i].opt == c && !(applies[i].cmds & B(o->cmd)))
			gp_usage_error("--%s does not apply to '%s'", opt_name(c), sub);
	switch (c) {
	case O_REQUESTS:
		o->requests = gp_opt_long("--requests", optarg, 0, 100000000L);
		o->requests_set = 1;
		break;
	case O_SESSIONS:
		if (o->cmd == C_BURSTGPT) {
			if (strcmp(optarg, "on") && strcmp(optarg, "off"))
				gp_usage_error("from-burstgpt --sessions: 'on' or 'off'");
			o->sessions = !strcmp(optarg, "on");
			break;
		}
		o->sessions = gp_opt_long("--sessions", optarg, 1, 10000000L);
		break;
	case O_TURNS: parse_dist("--turns", optarg, &o->turns); o->sess_opt_set = 1; break;
	case O_FIRST:
		parse_dist("--first-input-tokens", optarg, &o->first_dist);
		o->first_set = o->sess_opt_set = 1;
		break;
	case O_THINK: {
		char err[96];

		if (gp_secs_parse(optarg, &o->think, err, sizeof(err)))
			gp_usage_error("--think-s: '%.40s': %s", optarg, err);
		o->sess_opt_set = 1;
		break;
	}
	case O_RATE: o->rate_rps = gp_opt_double("--rate-rps", optarg, 1e-9, 1e9); break;
	case O_KEYS: o->keys = gp_opt_long("--keys", optarg, 0, MAX_KEYS); break;
	case O_ZIPF: o->zipf = gp_opt_double("--zipf", optarg, 0, 100); break;
	case O_PREFIX: o->prefix_tokens = gp_opt_long("--prefix-tokens", optarg, 0, MAX_TOKENS); break;
	case O_IN: parse_dist("--input-tokens", optarg, &o->in_dist); break;
	case O_OUT: parse_dist("--output-tokens", optarg, &o->out_dist); break;
	case O_ARRIVAL:
		if (!strcmp(optarg, "poisson"))
			o->arrival = GP_ARRIVAL_POISSON;
		else if (!strcmp(optarg, "gamma"))
			o->arrival = GP_ARRIVAL_GAMMA;
		else if (!strcmp(optarg, "constant"))
			o->arrival = GP_ARRIVAL_CONSTANT;
		else
			gp_usage_error("--arrival: '%s' is not poisson, gamma or constant", optarg);
		o->arrival_set = 1;
		break;
	case O_BURST:
		o->burstiness = gp_opt_double("--burstiness", optarg, 1e-3, 1e3);
		o->burstiness_set = 1;
		break;
	case O_BLOCK: o->block_tokens = gp_opt_long("--block-tokens", optarg, 1, 1L << 24); break;
	case O_SEED: o->seed = gp_opt_u64("--seed", optarg); break;
	case O_KEYBLOCKS: o->key_blocks = gp_opt_long("--key-blocks", optarg, 0, 64); break;
	case 'o': o->output = optarg; break;
	case 'z': o->gzip = 1; break;
	case 'h': gp_print_help(usage);
	case O_VERSION: gp_print_version();
	default:
		gp_usage_error("%s: option not handled: '%s'", sub, arg0);
	}
}

/* synth's options judged together, after the last one is read. */
static void check_synth(struct opts *o)
{
	if (o->nfiles)
		gp_usage_error("synth takes no file argument ('%s')", o->files[0]);
	if (o->burstiness_set && !o->arrival_set)
		o->arrival = GP_ARRIVAL_GAMMA;
	if (o->burstiness_set && o->arrival != GP_ARRIVAL_GAMMA)
		gp_usage_error("--burstiness needs --arrival gamma");
	if (o->sessions && o->requests_set)
		gp_usage_error("--sessions and --requests exclude each other");
	if (!o->sessions && o->sess_opt_set)
		gp_usage_error("--turns, --think-s and --first-input-tokens need --sessions");
	if (o->keys > 0 && o->prefix_tokens % o->block_tokens)
		gp_usage_error("--prefix-tokens %ld is not a multiple of --block-tokens %ld",
			       o->prefix_tokens, o->block_tokens);
}

int main(int argc, char **argv)
{
	struct opts o = {
		.requests = 1000, .rate_rps = 1, .keys = 16, .zipf = 1, .prefix_tokens = 1024,
		.in_dist = {GP_DIST_FIXED, 2048, 0}, .out_dist = {GP_DIST_FIXED, 128, 0},
		.arrival = GP_ARRIVAL_POISSON, .burstiness = 1, .block_tokens = 512, .seed = 1,
		.key_blocks = 2, .turns = {GP_DIST_FIXED, 4, 0}, .think = {0, 5, 0},
	};
	const char *sub;
	int c;

	gp_log_init(argv[0]);
	gp_sig_install();
	o.cmd = parse_cmd(argc, argv);
	sub = argv[1];
	argv++;
	argc--;
	while ((c = gp_getopt(argc, argv, "o:zh", longopts)) != -1)
		parse_opt(&o, c, sub, argv[optind - 1]);
	o.files = argv + optind;
	o.nfiles = argc - optind;
	if (o.cmd == C_SYNTH)
		check_synth(&o);
	switch (o.cmd) {
	case C_SYNTH: o.sessions ? cmd_synth_sessions(&o) : cmd_synth(&o); break;
	case C_MOONCAKE: cmd_mooncake(&o); break;
	case C_AZURE: cmd_azure(&o); break;
	case C_BURSTGPT: cmd_burstgpt(&o); break;
	case C_STATS: cmd_stats(&o); break;
	case C_PROMPT: cmd_prompt(&o); break;
	}
	return GP_EXIT_OK;
}
