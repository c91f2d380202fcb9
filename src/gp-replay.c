/* SPDX-License-Identifier: MIT */
/*
 * gp-replay — open-loop streaming trace replayer: sends every trace record at
 * its scheduled instant, whatever is in flight, and writes one request record
 * per attempted trace record with its TTFT, TPOT, E2E and outcome.
 *
 * Timing path (the part that must be exact):
 *   scheduled  t_sched = run start + pace offset (pace.h);
 *   woken      epoll_pwait2 with a nanosecond timeout until t_sched − spin,
 *              then a busy wait on CLOCK_MONOTONIC until t_sched (timer slack
 *              set to 1 ns so the kernel does not round the sleep);
 *   sent       CURLOPT_PREREQFUNCTION: the connection is ready and libcurl is
 *              about to write the request (http.h);
 *   first      the write callback in which the first content-bearing SSE
 *              event completed (its blank line arrived);
 *   end        the write callback in which "data: [DONE]" completed, or the
 *              transfer's end when there was no [DONE].
 * TTFT = first − sent; E2E = end − sent; TPOT = (E2E − TTFT)/(out_tokens − 1).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <jansson.h>

#include "base/buf.h"
#include "cli/cli.h"
#include "base/clock.h"
#include "base/hash.h"
#include "io/http.h"
#include "io/json.h"
#include "base/log.h"
#include "base/map.h"
#include "io/ndjson.h"
#include "method/pace.h"
#include "method/session.h"
#include "base/proc.h"
#include "wire/scrape.h"
#include "base/sig.h"
#include "wire/models.h"
#include "wire/openai.h"
#include "wire/receipt.h"
#include "wire/sse.h"
#include "wire/stream.h"
#include "wire/trace.h"
#include "base/vec.h"
#include "base/banned.h"

#ifndef GP_VERSION
#define GP_VERSION "0.1"
#endif

static const char usage[] =
"Usage: gp-replay --url URL --model M [--arm NAME] [--rep N]\n"
"                 [--rate-rps R | --poisson-rps R [--poisson-count]] [--seed S]\n"
"                 [--api chat|completions]\n"
"                 [--deadline-s S] [--idle-s S] [--duration-s S] [--max-requests N]\n"
"                 [--max-inflight N] [--key-header NAME] [--receipt-header NAME]\n"
"                 [--receipt-from id] [--backend-header NAME] [-H 'K: V']...\n"
"                 [--shard I/N] [--start-at EPOCH] [--run ID] [--block-tokens N]\n"
"                 [--no-ignore-eos] [--itl] [--http2] [--scrape URL]... [--spin-us N]\n"
"                 [--max-event-bytes N] [--preconnect N] [--progress] [-o FILE[.gz]] [-z]\n"
"                 [--api-key-file FILE] [--max-completion-tokens] [--no-model-check]\n"
"                 [--cacert FILE] [--insecure] [--on-failed-turn continue|abandon]\n"
"                 [--session-key session|cache_key]\n"
"                 [TRACE...]\n"
"\n"
"Replay a trace (NDJSON trace records, files or stdin) against an OpenAI-compatible\n"
"streaming endpoint, open loop, and write one request record per attempted trace\n"
"record, framed by a run header and a run_end trailer.  See gp-replay(1).\n"
"\n"
"  --url URL               base URL (http or https, no path, no credentials)\n"
"  --model M               the model of every request\n"
"  --api chat|completions  which endpoint (default chat)\n"
"  --arm NAME, --rep N     labels of every record (default default, 1)\n"
"  --rate-rps R            rescale the trace's timestamps to mean rate R\n"
"  --poisson-rps R         Poisson arrivals at rate R\n"
"  --poisson-count         with --duration-s D: exactly ceil(R x D) arrivals, first\n"
"                          at 0, last at (n-1)/R, uniform between (achieved = R)\n"
"  --seed S                random seed, recorded in the run header\n"
"  --deadline-s S          cancel a request after S s as timeout (600; 0: none)\n"
"  --idle-s S              cancel a started stream silent for S s as hang (60)\n"
"  --duration-s S          send only the records scheduled before S s\n"
"  --max-requests N        send only the first N trace records\n"
"  --max-inflight N        at most N in flight (the run is then not open loop)\n"
"  --key-header NAME       send the record's cache_key in header NAME\n"
"  --receipt-header NAME   record response header NAME as the receipt\n"
"  --receipt-from id       record the completion id the server echoes as receipt\n"
"  --backend-header NAME   record response header NAME as the backend\n"
"  -H, --header 'K: V'     an extra request header (repeatable)\n"
"  --shard I/N             send only the records whose index mod N is I - 1\n"
"  --start-at EPOCH        start at this wall-clock instant (Unix seconds)\n"
"  --run ID                the run id (default derived from the run's options)\n"
"  --block-tokens N        tokens per hash_ids block of synthesized prompts (512)\n"
"  --no-ignore-eos         do not send ignore_eos and min_tokens\n"
"  --itl                   keep the gaps between content events (itl_ms)\n"
"  --http2                 use HTTP/2\n"
"  --scrape URL            a metrics record of URL before and after (repeatable)\n"
"  --spin-us N             busy-wait the last N us before each send (100)\n"
"  --max-event-bytes N     largest SSE event accepted (1 MiB)\n"
"  --preconnect N          open N keep-alive connections before the start (1)\n"
"  --progress              a progress line on stderr (default: when a tty)\n"
"  -o, --output FILE       write the records to FILE (.gz: compressed)\n"
"  -z, --gzip              compress the output\n"
"  --api-key-file FILE     read the bearer token from FILE's first line\n"
"  --max-completion-tokens name the limit max_completion_tokens (chat API)\n"
"  --no-model-check        do not require --model in the server's /v1/models\n"
"  --cacert FILE           verify https certificates against FILE's CAs\n"
"  --insecure              do not verify the certificate\n"
"  --on-failed-turn P      a failed session turn: continue (default) or abandon\n"
"  --session-key K         --key-header of a session's turn: its session (default)\n"
"                          or its record's cache_key\n"
"  -h, --help              this text;  --version  the version\n";

/* Error classes (the record's "error"): stream.h. */
#define E_NCLASS GP_STREAM_NCLASS
/* Descriptors kept for the rest of the process (output, trace, epoll, the
 * resolver's, scrapes) when judging the limit against streams in flight. */
#define GP_NOFILE_MARGIN 32

/* ---- record text: buf.h's buffer and escaper; out of memory is fatal ---- */

#define sb gp_buf

static void sb_add(struct sb *b, const char *s, size_t n)
{
	if (gp_buf_add(b, s, n))
		gp_die_nomem();
}

static void sb_str(struct sb *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

static __attribute__((format(printf, 2, 3))) void sb_fmt(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = gp_buf_vfmt(b, fmt, ap);
	va_end(ap);
	if (r)
		gp_die_nomem();
}

/* A JSON string (quoted, escaped: buf.h) of s[0..n), or null when s is NULL. */
static void sb_jstrn(struct sb *b, const char *s, size_t n)
{
	if (!s)
		sb_add(b, "null", 4);
	else if (gp_buf_jstr(b, s, n))
		gp_die_nomem();
}

static void sb_jstr(struct sb *b, const char *s)
{
	sb_jstrn(b, s, s ? strlen(s) : 0);
}

/* A number with `prec` decimals, or null when not finite. */
static void sb_num(struct sb *b, double v, int prec)
{
	if (isfinite(v))
		sb_fmt(b, "%.*f", prec, v);
	else
		sb_add(b, "null", 4);
}

/* ---- configuration ---- */

static struct {
	const char *url_in;
	char url[1024];		/* normalised base */
	char endpoint[1100];	/* base + API path */
	int api_chat;
	const char *model;
	const char *arm;
	long rep;
	double rate_rps, poisson_rps;
	int poisson_count;
	uint64_t seed;
	int seed_set;
	double deadline_s, idle_s, duration_s;
	long max_requests, max_inflight;
	const char *key_header, *receipt_header, *backend_header;
	int receipt_from_id;
	const char **hdrs;
	int nhdrs;
	size_t caphdrs;
	long shard_i, shard_n;
	double start_at;
	int start_at_set;
	const char *run_id;
	long block_tokens;
	int ignore_eos;
	int itl;
	int http2;
	const char **scrape;
	int nscrape;
	size_t capscrape;
	long spin_us;
	long max_event;
	long preconnect;
	int progress;
	const char *out_path;
	int gzip;
	char **paths;
	int npaths;
	const char *api_key;		/* NULL, or api_key_buf */
	const char *api_key_file;
	char api_key_buf[4096];
	int max_completion_tokens;
	int no_model_check;
	const char *cacert;
	int insecure;
	enum gp_sess_policy on_failed;	/* session.h */
	int key_from_cache;		/* --session-key cache_key */
} cfg = {
	.api_chat = 1, .arm = "default", .rep = 1, .deadline_s = 600, .idle_s = 60,
	.shard_i = 1, .shard_n = 1, .block_tokens = 512, .ignore_eos = 1,
	.spin_us = 100, .max_event = 1 << 20, .preconnect = 1,
};

/* ---- one request in flight ---- */

struct req {
	struct req *prev, *next;	/* on the waiting or the streaming list */
	struct gp_stream st;		/* the measured stream (stream.h) */
	unsigned long index;		/* trace record index, file order */
	char *id;			/* owned copy of the trace id */
	size_t id_cap;
	long in_tokens;			/* from the trace (a session's: history + message) */
	struct gp_session *sess;	/* NULL, or its session (session.h) */
	size_t turn;			/* 1-based turn in sess; 0 without one */
	struct gp_buf answer;		/* a real turn's answer text, as received */
	int64_t sched_ns, dispatch_ns;
	int64_t runq0_ns;		/* client run-queue wait when its window began, -1: unknown */
	int capped;
	int streaming;			/* on the streaming list: its first token arrived */
	struct gp_buf body;		/* the request body, reused */
	struct sb hdr_id, hdr_key;	/* "X-Request-Id: …", "<key header>: …" */
	char receipt[256], backend[256];
};

static struct {
	struct gp_http *http;
	struct gp_out out;
	struct req *free_list;		/* linked through ->next */
	struct req waiting, inflight;	/* list heads (see inflight_add) */
	long n_inflight, peak_inflight, n_reqs;
	int64_t t0;			/* run start, monotonic ns */
	int64_t wall0;			/* run start, wall ns */
	char run_id[64];
	char rate_txt[32];		/* rate_rps as JSON (number or null) */
	double rate_rps;		/* NaN when unknown */
	unsigned long attempted, ok, single, failed, by_err[E_NCLASS], capped;
	unsigned long unsent;		/* abandoned turns: attempted, never sent */
	unsigned long starts;		/* open-loop arrivals: no session, or turn 1 */
	int64_t first_start_ns, last_start_ns;
	int64_t first_send_ns, last_send_ns, last_done_ns;
	struct gp_hist late;	/* dispatch − scheduled */
	struct gp_hist conn;	/* sent − dispatch of sends on a new connection */
	unsigned long new_conns, late_sends, late_cpu_wait;
	int schedstat_fd;		/* /proc/self/schedstat, -1 when absent */
	int64_t runq_t0, cpu_t0;	/* client run-queue wait and CPU time at t = 0 */
	int64_t runq_win;		/* run-queue wait when the client was last on time */
	int runq_win_set;
	long majflt_t0;
	struct sb rec;			/* record being written */
	/* the end-of-run summary */
	char first_detail[E_NCLASS][256];	/* the first server message of each class */
	long first_status[E_NCLASS];
	struct gp_hist s_ttft, s_tpot, s_e2e, s_itl;
	unsigned long out_tokens;
	int64_t first_token_ns, last_end_ns;
	int any_sent;			/* some request reached a server */
	unsigned long sniffed, contradicted;	/* streams read by their body; usage not believed */
	char sniffed_ct[96];		/* the first such stream's Content-Type */
	long nofile;			/* the descriptor limit, raised to the hard one */
	long max_model_len;		/* the model's, from /v1/models; -1: not advertised */
} G;

/* ---- trace input ---- */

struct trace_in {
	struct gp_input in;
	char **paths;
	int npaths;
	const char *shown;		/* name in messages for a spooled stdin */
	int spool_fd;
};

static const char *in_name(const struct trace_in *t)
{
	const char *n = gp_input_name(&t->in);

	return t->spool_fd >= 0 ? "-" : (n ? n : "-");
}

/* Read the next trace record: 1 with *o (new ref) and *rec filled, 0 at end.
 * Bad data exits 65 naming file:line. */
static int trace_next(struct trace_in *t, json_t **o, struct gp_trace_rec *rec, uint64_t *digest)
{
	char *line, err[256];
	size_t len, i;
	int e = gp_input_next(&t->in, &line, &len);

	if (e == GP_NDJSON_EOF)
		return 0;
	if (e < 0)
		gp_input_failed(&t->in, e);
	if (digest) {
		/* FNV-1a 64 over every record line as read (decompressed, without
		 * its line ending) followed by "\n". */
		*digest = gp_fnv1a64(gp_fnv1a64(*digest, line, len), "\n", 1);
	}
	*o = gp_input_need_object(&t->in, line, len);
	if (gp_trace_parse(rec, *o, err, sizeof(err)))
		gp_die_at(GP_EXIT_DATAERR, in_name(t), gp_input_line(&t->in), "%s", err);
	for (i = 0; rec->id[i]; i++)
		if ((unsigned char)rec->id[i] < 0x20 || rec->id[i] == 0x7f)
			gp_die_at(GP_EXIT_DATAERR, in_name(t), gp_input_line(&t->in),
				  "field 'id' holds a control character");
	if (rec->cache_key && cfg.key_header)
		for (i = 0; rec->cache_key[i]; i++)
			if ((unsigned char)rec->cache_key[i] < 0x20 || rec->cache_key[i] == 0x7f)
				gp_die_at(GP_EXIT_DATAERR, in_name(t), gp_input_line(&t->in),
					  "field 'cache_key' holds a control character");
	return 1;
}

static void trace_open(struct trace_in *t)
{
	gp_input_init(&t->in, t->paths, t->npaths);
	if (t->spool_fd >= 0)
		t->in.shown = "-";	/* the spool's /proc path is no name to show */
}

/*
 * A trace on a pipe is spooled once to an unlinked temporary file, so that
 * the first pass (validation, digest, mean rate) and the replay pass both read
 * it with constant memory.
 */
static void trace_setup(struct trace_in *t, char **paths, int n)
{
	static struct gp_spool spool;
	static char *spool_paths[1];

	t->spool_fd = -1;
	t->paths = paths;
	t->npaths = n;
	if (n > 0 && !(n == 1 && !strcmp(paths[0], "-")))
		return;
	switch (gp_spool_stdin(&spool, gp_sig_stop)) {
	case -1:
		if (errno == EINTR)
			exit(GP_EXIT_NEGATIVE);
		gp_die(GP_EXIT_DATAERR, "-: read error: %s", strerror(errno));
	case -2:
		gp_die(GP_EXIT_SOFTWARE, "cannot spool stdin: %s", strerror(errno));
	}
	t->spool_fd = spool.f ? fileno(spool.f) : STDIN_FILENO;
	spool_paths[0] = spool.path;
	t->paths = spool_paths;
	t->npaths = 1;
}

/* ---- the client's own share of the host ---- */

/*
 * Time this process has spent runnable but waiting for a CPU (ns), from
 * /proc/self/schedstat (second field), or -1 when the kernel does not keep
 * it.  A late send during which this grew by as much as the lateness was
 * late because other processes held the CPU, not because of gp-replay.
 */
static int64_t runq_wait_ns(void)
{
	char buf[128];
	long long run, wait;
	ssize_t n;

	if (G.schedstat_fd < 0)
		return -1;
	n = pread(G.schedstat_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "%lld %lld", &run, &wait) != 2)
		return -1;
	return wait;
}

/* CPU time (user + system, ns) and major page faults of this process so far. */
static int64_t cpu_ns(long *majflt)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	if (majflt)
		*majflt = ru.ru_majflt;
	return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * GP_NS_PER_S +
	       ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

/* ---- records ---- */

/* Scrub what a server or libcurl said before it reaches a record. */
static void sanitize(char *s, size_t cap)
{
	gp_oai_scrub(s, cap < 201 ? cap : 201, cfg.api_key);
}

static void tally(const struct req *r, const struct gp_stream_result *m);

static void summary_add(const struct gp_stream *st, const struct gp_stream_result *m)
{
	size_t i;

	if (m->cls)
		return;
	gp_hist_add(&G.s_ttft, (int64_t)(m->ttft_ms * 1e6));
	gp_hist_add(&G.s_e2e, (int64_t)(m->e2e_ms * 1e6));
	if (isfinite(m->tpot_ms))
		gp_hist_add(&G.s_tpot, (int64_t)(m->tpot_ms * 1e6));
	for (i = 0; i < st->itl_n; i++)
		gp_hist_add(&G.s_itl, (int64_t)((double)st->itl[i] * 1e6));
	G.out_tokens += (unsigned long)(m->out_tokens > 0 ? m->out_tokens : 0);
	if (!G.first_token_ns || st->first_ns < G.first_token_ns)
		G.first_token_ns = st->first_ns;
	if (st->end_ns > G.last_end_ns)
		G.last_end_ns = st->end_ns;
}

/* A request record's head, up to its session and turn: {"type":"request",
 * "run",…,"id",…,"session":…,"turn":… (null, null outside a session). */
static void write_head(struct sb *b, const char *id, const struct gp_session *s, size_t turn)
{
	b->len = 0;
	sb_str(b, "{\"type\":\"request\",\"run\":");
	sb_jstr(b, G.run_id);
	sb_str(b, ",\"arm\":");
	sb_jstr(b, cfg.arm);
	sb_fmt(b, ",\"rep\":%ld,\"rate_rps\":%s,\"id\":", cfg.rep, G.rate_txt);
	sb_jstr(b, id);
	sb_str(b, ",\"session\":");
	sb_jstr(b, s ? s->name : NULL);
	if (s)
		sb_fmt(b, ",\"turn\":%zu", turn);
	else
		sb_str(b, ",\"turn\":null");
}

static void write_record(struct req *r)
{
	struct sb *b = &G.rec;
	const struct gp_stream *st = &r->st;
	struct gp_stream_result m;
	long in_tokens = st->usage_in >= 0 ? st->usage_in : r->in_tokens;
	int sent = st->sent_ns != 0;
	char pre[128], dec[128];
	int split;
	size_t i;

	gp_stream_result(st, &m);
	write_head(b, r->id, r->sess, r->turn);
	sb_str(b, ",\"t_sched_s\":");
	sb_num(b, gp_ns_to_s(r->sched_ns - G.t0), 6);
	sb_str(b, ",\"t_sent_s\":");
	sb_num(b, sent ? gp_ns_to_s(st->sent_ns - G.t0) : NAN, 6);
	sb_str(b, ",\"connect_ms\":");
	sb_num(b, sent ? gp_ns_to_ms(st->sent_ns - r->dispatch_ns) : NAN, 3);
	sb_fmt(b, ",\"new_connection\":%s", sent ? (st->connects > 0 ? "true" : "false") : "null");
	sb_str(b, ",\"ttft_ms\":");
	sb_num(b, m.ttft_ms, 3);
	sb_str(b, ",\"tpot_ms\":");
	sb_num(b, m.tpot_ms, 4);
	sb_str(b, ",\"e2e_ms\":");
	sb_num(b, m.e2e_ms, 3);
	sb_fmt(b, ",\"in_tokens\":%ld,\"out_tokens\":", in_tokens);
	if (m.tokens_from)
		sb_fmt(b, "%ld,\"tokens_from\":\"%s\"", m.out_tokens, m.tokens_from);
	else
		sb_str(b, "null,\"tokens_from\":null");
	sb_fmt(b, ",\"outcome\":\"%s\",\"error\":", m.outcome);
	sb_jstr(b, gp_stream_class_name(m.cls));
	if (st->status)
		sb_fmt(b, ",\"http_status\":%ld", st->status);
	else
		sb_str(b, ",\"http_status\":null");
	sb_str(b, ",\"error_detail\":");
	sb_jstr(b, m.cls && st->detail[0] ? st->detail : NULL);
	sb_str(b, ",\"backend\":");
	sb_jstr(b, r->backend[0] ? r->backend : NULL);
	sb_str(b, ",\"receipt\":");
	sb_jstr(b, r->receipt[0] ? r->receipt : NULL);
	split = r->receipt[0] && gp_receipt_split(NULL, r->receipt, pre, sizeof(pre), dec,
						    sizeof(dec)) == GP_RECEIPT_BOTH;
	sb_str(b, ",\"prefill\":");
	sb_jstr(b, split ? pre : NULL);
	sb_str(b, ",\"decode\":");
	sb_jstr(b, split ? dec : NULL);
	if (cfg.itl) {
		sb_str(b, ",\"itl_ms\":[");
		for (i = 0; i < st->itl_n; i++)
			sb_fmt(b, "%s%.3f", i ? "," : "", (double)st->itl[i]);
		sb_str(b, "]");
	}
	sb_str(b, "}");
	if (gp_out_line(&G.out, b->p, b->len))
		gp_output_failed(&G.out);
	tally(r, &m);
}

/* The run's counters and the end-of-run summary's samples. */
static void tally(const struct req *r, const struct gp_stream_result *m)
{
	const struct gp_stream *st = &r->st;
	int64_t s = st->sent_ns ? st->sent_ns : r->dispatch_ns;

	G.attempted++;
	if (st->sniffed && !G.sniffed++)
		snprintf(G.sniffed_ct, sizeof(G.sniffed_ct), "%s", st->content_type[0] ? st->content_type : "(none)");
	G.contradicted += m->tokens_from && !strcmp(m->tokens_from, "chunks_usage_contradicted");
	if (m->cls) {
		G.failed++;
		G.by_err[m->cls]++;
		if (!G.first_status[m->cls] && !G.first_detail[m->cls][0]) {
			snprintf(G.first_detail[m->cls], sizeof(G.first_detail[m->cls]), "%s", st->detail);
			G.first_status[m->cls] = st->status;
		}
	} else if (m->out_tokens == 1) {
		G.single++;
	} else {
		G.ok++;
	}
	summary_add(st, m);
	gp_hist_add(&G.late, r->dispatch_ns - r->sched_ns);
	if (st->sent_ns && st->connects > 0) {
		G.new_conns++;
		gp_hist_add(&G.conn, st->sent_ns - r->dispatch_ns);
	}
	if (!r->sess || r->turn == 1) {
		G.starts++;
		if (!G.first_start_ns || s < G.first_start_ns)
			G.first_start_ns = s;
		if (s > G.last_start_ns)
			G.last_start_ns = s;
	}
	if (!G.first_send_ns || s < G.first_send_ns)
		G.first_send_ns = s;
	if (s > G.last_send_ns)
		G.last_send_ns = s;
	if (st->end_ns > G.last_done_ns)
		G.last_done_ns = st->end_ns;
}

/* ---- the request pool ---- */

static void on_sent(void *user, int64_t t);
static void on_header(void *user, const char *line, size_t len, int64_t t);
static int on_body(void *user, long status, const char *buf, size_t len, int64_t t);
static void on_done(void *user, const struct gp_http_result *res, int64_t t);

static struct req *req_get(void)
{
	struct req *r = G.free_list;

	if (r) {
		G.free_list = r->next;
	} else {
		r = calloc(1, sizeof(*r));
		if (!r || gp_stream_init(&r->st, G.http, r, (size_t)cfg.max_event))
			gp_die_nomem();
		r->st.secret = cfg.api_key;
		r->st.max_event_flag = "--max-event-bytes";
		r->st.keep_itl = 1;	/* for the summary; in records with --itl */
		G.n_reqs++;
	}
	r->prev = r->next = NULL;
	r->dispatch_ns = 0;
	r->capped = r->streaming = 0;
	r->receipt[0] = r->backend[0] = '\0';
	return r;
}

static void req_put(struct req *r)
{
	r->next = G.free_list;
	G.free_list = r;
}

static void list_push(struct req *head, struct req *r)
{
	r->next = head->next;
	r->prev = head;
	head->next->prev = r;
	head->next = r;
}

static void list_del(struct req *r)
{
	r->prev->next = r->next;
	r->next->prev = r->prev;
}

/*
 * Two lists.  `waiting` holds the requests whose first content token has
 * not arrived: only --deadline-s bounds them (a long prefill or a queue is a
 * measurement, not a fault).  `inflight` holds the streams that started, in
 * order of last activity, most recent first: every received byte moves its
 * request to the front (O(1)), so the idle sweep only looks at the tail and
 * stops at the first request that is not idle — O(requests cancelled).
 */
static void inflight_add(struct req *r)
{
	list_push(&G.waiting, r);
	if (++G.n_inflight > G.peak_inflight)
		G.peak_inflight = G.n_inflight;
}

static void inflight_del(struct req *r)
{
	list_del(r);
	G.n_inflight--;
}

static void touch(struct req *r)
{
	if (!r->streaming) {
		if (!gp_stream_started(&r->st) && !r->st.saw_done)
			return;
		r->streaming = 1;	/* first token: from waiting to streaming */
	} else if (G.inflight.next == r) {
		return;
	}
	list_del(r);
	list_push(&G.inflight, r);
}

static void session_next(struct req *r);

/* Finish a request that http.c no longer runs. */
static void finish(struct req *r)
{
	inflight_del(r);
	write_record(r);
	if (r->sess)
		session_next(r);
	req_put(r);
}

/* Stop a running request ourselves (hang, cancelled). */
static void abort_req(struct req *r, int cls, int64_t t)
{
	gp_stream_abort(&r->st, cls, t);
	finish(r);
}

/* ---- http callbacks ---- */

static void on_sent(void *user, int64_t t)
{
	struct req *r = user;

	gp_stream_on_sent(&r->st, t);
	G.any_sent = 1;
}

static void on_header(void *user, const char *line, size_t len, int64_t t)
{
	struct req *r = user;

	gp_stream_on_header(&r->st, line, len, t);
	if (cfg.receipt_header &&
	    gp_stream_header_value(line, len, cfg.receipt_header, r->receipt, sizeof(r->receipt)))
		gp_oai_mask_secret(r->receipt, cfg.api_key);
	if (cfg.backend_header &&
	    gp_stream_header_value(line, len, cfg.backend_header, r->backend, sizeof(r->backend)))
		gp_oai_mask_secret(r->backend, cfg.api_key);
}

static int on_body(void *user, long status, const char *buf, size_t len, int64_t t)
{
	struct req *r = user;
	int rc = gp_stream_on_body(&r->st, status, buf, len, t);

	touch(r);
	return rc;
}

static void on_done(void *user, const struct gp_http_result *res, int64_t t)
{
	struct req *r = user;

	gp_stream_on_done(&r->st, res, t);
	if (cfg.receipt_from_id && !r->receipt[0] && r->st.id[0])
		gp_stream_copy_value(r->receipt, sizeof(r->receipt), r->st.id, strlen(r->st.id));
	sanitize(r->st.detail, sizeof(r->st.detail));
	finish(r);
}

/* ---- building a request ---- */

static void build_body(struct req *r, const struct gp_trace_rec *rec)
{
	struct gp_oai_req q = { 0 };
	static struct sb synth;
	json_t *hist = NULL;

	q.chat = cfg.api_chat;
	q.model = cfg.model;
	q.messages = rec->messages;
	q.max_tokens = rec->output_tokens;
	q.max_completion_tokens = cfg.max_completion_tokens;
	q.stream = 1;
	q.include_usage = 1;
	q.ignore_eos = cfg.ignore_eos;
	if (r->sess && cfg.api_chat) {
		/* A session's turn: its history then its message (session.h). */
		hist = gp_session_messages(r->sess, r->turn, cfg.block_tokens, &r->in_tokens);
		if (!hist)
			gp_die_nomem();
		q.messages = hist;
	} else if (r->sess) {
		synth.len = 0;
		r->in_tokens = gp_session_prompt(r->sess, r->turn, cfg.block_tokens, &synth);
		if (r->in_tokens < 0)
			gp_die_nomem();
		q.prompt = synth.p ? synth.p : "";
		q.prompt_len = synth.len;
	} else if (!rec->messages && rec->prompt) {
		q.prompt = rec->prompt;
		q.prompt_len = strlen(rec->prompt);
	} else if (!rec->messages) {
		size_t need = gp_trace_synth_prompt(NULL, 0, rec->input_tokens, rec->hash_ids,
						    rec->n_hash_ids, cfg.block_tokens, rec->id);

		if (gp_buf_reserve(&synth, need + 1))
			gp_die_nomem();
		gp_trace_synth_prompt(synth.p, need + 1, rec->input_tokens, rec->hash_ids, rec->n_hash_ids,
				      cfg.block_tokens, rec->id);
		q.prompt = synth.p;
		q.prompt_len = need;
	}
	if (gp_oai_req_write(&r->body, &q))
		gp_die_nomem();
	json_decref(hist);
}

/* The next record of this shard, prepared to go (body, headers, schedule),
 * or NULL at the end of what this run sends. */
static struct {
	struct trace_in t;
	struct gp_pace pace;
	unsigned long index;		/* next trace record index */
	int eof;
	long longest;			/* the largest input + output tokens of a record */
	unsigned long longest_line;	/* and where it is */
	char longest_in[512];
	struct gp_sessions ss;		/* the trace's sessions (session.h) */
} S;

/*
 * Can the server serve the whole trace?  Before the first send: a record
 * whose prompt and completion exceed the model's max_model_len (from
 * /v1/models) would only be refused one by one, so the run is refused,
 * naming it (65).
 */
static void trace_fits(void)
{
	if (G.max_model_len > 0 && S.longest > G.max_model_len)
		gp_die_at(GP_EXIT_DATAERR, S.longest_in, S.longest_line,
			  "fields 'input_tokens' + 'output_tokens': %ld tokens are over the context of "
			  "model '%s' (max_model_len %ld at %s/v1/models); nothing sent", S.longest, cfg.model,
			  G.max_model_len, cfg.url);
}

/*
 * Will the streams in flight fit in the descriptor limit (one each)?  At
 * most: the records this shard sends, --max-inflight, and (with a known
 * rate) those sent within one --deadline-s.  Over the limit, less a margin
 * for the rest of the process: a warning before the first send, since the
 * sends beyond it fail as client_limit.
 */
static void check_nofile(unsigned long nrec)
{
	double peak = ceil((double)nrec / (double)cfg.shard_n);

	if (cfg.max_requests && peak > (double)cfg.max_requests)
		peak = (double)cfg.max_requests;
	if (cfg.max_inflight && peak > (double)cfg.max_inflight)
		peak = (double)cfg.max_inflight;
	if (isfinite(G.rate_rps) && cfg.deadline_s > 0 && peak > ceil(G.rate_rps * cfg.deadline_s))
		peak = ceil(G.rate_rps * cfg.deadline_s);
	if (G.nofile > 0 && peak > (double)(G.nofile - GP_NOFILE_MARGIN))
		gp_warn("up to %.0f requests may be in flight at once but the descriptor limit (raised to "
			"its hard limit) is %ld: sends beyond about %ld in flight will fail as client_limit "
			"(raise the hard limit, ulimit -Hn, or bound the run with --max-inflight)", peak,
			G.nofile, G.nofile - GP_NOFILE_MARGIN);
}

/* A request for record `id` (trace index `index`) due at sched_ns, with
 * its body built from rec (and r->sess, r->turn) and its headers. */
static struct req *req_prepare(const char *id, unsigned long index, int64_t sched_ns,
			       struct gp_session *sess, size_t turn, const struct gp_trace_rec *rec)
{
	struct req *r = req_get();
	size_t n = strlen(id) + 1;
	const char *key = rec->cache_key;

	r->index = index;
	r->id = gp_xgrow(r->id, &r->id_cap, n, 1, 64);
	memcpy(r->id, id, n);
	r->in_tokens = rec->input_tokens;
	r->sess = sess;
	r->turn = turn;
	r->sched_ns = sched_ns;
	/* A turn with its own text resends the answer it got (session.h). */
	r->answer.len = 0;
	r->st.text = sess && gp_session_real(sess, turn) ? &r->answer : NULL;
	/* The window that explains this send's lateness starts when
	 * the client was last ahead of its schedule: now, unless this
	 * send is already due (then an earlier delay made it late). */
	if (!G.runq_win_set || gp_now_ns() < r->sched_ns) {
		G.runq_win = runq_wait_ns();
		G.runq_win_set = 1;
	}
	r->runq0_ns = G.runq_win;
	build_body(r, rec);
	r->hdr_id.len = 0;
	sb_str(&r->hdr_id, "X-Request-Id: ");
	sb_str(&r->hdr_id, id);
	r->hdr_key.len = 0;
	if (sess && !cfg.key_from_cache)
		key = sess->name;	/* a session's turns share its key */
	if (cfg.key_header && key) {
		sb_str(&r->hdr_key, cfg.key_header);
		sb_str(&r->hdr_key, ": ");
		sb_str(&r->hdr_key, key);
	}
	return r;
}

static struct req *prepare_next(void)
{
	struct gp_trace_rec rec;
	json_t *o;
	double off;

	gp_trace_init(&rec);
	while (!S.eof) {
		if (cfg.max_requests && S.index >= (unsigned long)cfg.max_requests) {
			S.eof = 1;
			break;
		}
		if (!trace_next(&S.t, &o, &rec, NULL)) {
			S.eof = 1;
			break;
		}
		if (rec.session && rec.turn > 1) {
			/* A later turn: sent by its session, not by the schedule. */
			S.index++;
			json_decref(o);
			continue;
		}
		off = gp_pace_next(&S.pace, rec.t_s);
		if (cfg.duration_s > 0 && off >= cfg.duration_s) {
			S.eof = 1;
			json_decref(o);
			break;
		}
		if (gp_pace_in_shard(S.index++, cfg.shard_i, cfg.shard_n)) {
			struct gp_session *sess = rec.session ? gp_sessions_get(&S.ss, rec.session) : NULL;
			struct req *r;

			if (sess)
				sess->next = 1;	/* turn 1 is this request */
			r = req_prepare(rec.id, S.index - 1, G.t0 + (int64_t)llround(off * 1e9),
					sess, sess ? 1 : 0, &rec);
			json_decref(o);
			gp_trace_release(&rec);
			return r;
		}
		json_decref(o);
	}
	gp_trace_release(&rec);
	return NULL;
}

/* The next turn of s (turn[s->next]), prepared to go at s->ready_ns. */
static struct req *prepare_turn(struct gp_session *s)
{
	const struct gp_sess_turn *t = &s->turn[s->next];
	struct gp_trace_rec rec;

	gp_trace_init(&rec);
	rec.input_tokens = t->in_tokens;
	rec.output_tokens = t->out_tokens;
	rec.cache_key = t->cache_key;
	return req_prepare(t->id, t->index, s->ready_ns, s, s->next + 1, &rec);
}

/* The ready turn due first, prepared (NULL when no session is ready). */
static struct req *turn_next(void)
{
	struct gp_session *s = gp_sessions_top(&S.ss);

	if (s && !s->user)
		s->user = prepare_turn(s);
	return s ? s->user : NULL;
}

/*
 * The record of turn t (0-based) of s, which was never sent because turn
 * `failed` (0-based) failed and the session was abandoned: attempted and
 * failed, class abandoned, every measurement null.
 */
static void write_unsent(const struct gp_session *s, size_t t, size_t failed, int cls)
{
	struct sb *b = &G.rec;
	const struct gp_sess_turn *u = &s->turn[t];
	char why[96];

	write_head(b, u->id, s, t + 1);
	sb_fmt(b, ",\"t_sched_s\":null,\"t_sent_s\":null,\"connect_ms\":null,\"new_connection\":null,"
	       "\"ttft_ms\":null,\"tpot_ms\":null,\"e2e_ms\":null,\"in_tokens\":%ld,\"out_tokens\":null,"
	       "\"tokens_from\":null,\"outcome\":\"failed\",\"error\":\"abandoned\",\"http_status\":null,"
	       "\"error_detail\":", u->in_tokens);
	snprintf(why, sizeof(why), "turn %zu failed (%s): session abandoned", failed + 1,
		 gp_stream_class_name(cls) ? gp_stream_class_name(cls) : "?");
	sb_jstr(b, why);
	sb_str(b, ",\"backend\":null,\"receipt\":null,\"prefill\":null,\"decode\":null");
	if (cfg.itl)
		sb_str(b, ",\"itl_ms\":[]");
	sb_str(b, "}");
	if (gp_out_line(&G.out, b->p, b->len))
		gp_output_failed(&G.out);
	G.attempted++;
	G.failed++;
	G.unsent++;
	G.by_err[GP_STREAM_ABANDONED]++;
}

/*
 * r, a session's turn, is over: its session goes on (its next turn ready
 * think_s after r ended), ends, or is abandoned (policy, session.h).  After
 * a stop nothing more is sent or recorded: the run is interrupted.  A next
 * turn past --max-requests is not part of the run, as a record past it is
 * not; --duration-s bounds when sessions start, and a session that started
 * runs to its end (as a request sent completes).
 */
static void session_next(struct req *r)
{
	struct gp_session *s = r->sess;
	const struct gp_stream *st = &r->st;
	struct gp_stream_result m;
	int64_t end = st->end_ns ? st->end_ns : gp_now_ns(), ready;

	if (gp_sig_stop())
		return;
	gp_stream_result(st, &m);
	if (st->text && !m.cls && !st->text_lost &&
	    gp_session_keep_answer(s, r->answer.p ? r->answer.p : "", r->answer.len))
		gp_die_nomem();
	switch (gp_session_done(&S.ss, s, !m.cls, m.out_tokens, end, &ready)) {
	case GP_SESS_END:
		return;
	case GP_SESS_ABANDONED:
		for (size_t t = s->next; t < s->nturns; t++)
			if (!cfg.max_requests || s->turn[t].index < (unsigned long)cfg.max_requests)
				write_unsent(s, t, s->next - 1, m.cls);
		gp_session_give_up(s);
		return;
	case GP_SESS_READY:
		if (cfg.max_requests && s->turn[s->next].index >= (unsigned long)cfg.max_requests) {
			gp_session_give_up(s);
			return;
		}
		if (gp_sessions_push(&S.ss, s, ready))
			gp_die_nomem();
		return;
	}
}

static void dispatch(struct req *r)
{
	const char *xh[2];
	int n = 0;

	xh[n++] = r->hdr_id.p;
	if (r->hdr_key.len)
		xh[n++] = r->hdr_key.p;
	r->dispatch_ns = gp_now_ns();
	if (r->dispatch_ns - r->sched_ns > GP_NS_PER_MS) {
		/* Late: was the client waiting for a CPU meanwhile?  (Measured
		 * after the stamp, so it costs the late send nothing more.) */
		int64_t w = runq_wait_ns();

		G.late_sends++;
		if (w >= 0 && r->runq0_ns >= 0 && 2 * (w - r->runq0_ns) >= r->dispatch_ns - r->sched_ns)
			G.late_cpu_wait++;
	}
	inflight_add(r);
	if (gp_stream_start(&r->st, cfg.endpoint, r->body.p, r->body.len, xh, n))
		finish(r);	/* libcurl refused the handle: count it, never drop it */
}

/* ---- metrics scrapes ---- */

/* "before" snapshots wait here until the run's start instant is final, so
 * their t_s (negative: before the start) is relative to it. */
static json_t *pending_metrics[64];
static int64_t pending_t[64];
static int npending;

static void emit_metrics(json_t *o, int64_t t)
{
	gp_json_set_real(o, "t_s", gp_ns_to_s(t - G.t0));
	if (gp_out_json(&G.out, o))
		gp_output_failed(&G.out);
	json_decref(o);
}

static void flush_metrics(void)
{
	int i;

	for (i = 0; i < npending; i++)
		emit_metrics(pending_metrics[i], pending_t[i]);
	npending = 0;
}

/* One metrics record per --scrape URL (scrape.h), under the run's TLS policy. */
static void scrape_all(const char *phase, int later)
{
	struct gp_http_tls tls = { cfg.cacert, cfg.insecure };
	int i;

	for (i = 0; i < cfg.nscrape; i++) {
		char why[512];
		int64_t t;
		json_t *o = gp_scrape(cfg.scrape[i], &tls, 5000, &t);

		if (!o)
			gp_die_nomem();
		if (gp_scrape_failed(o))
			gp_warn("scrape %s: %s", cfg.scrape[i], gp_scrape_why(o, why, sizeof(why)));
		if (gp_scrape_stamp(o, NAN, G.run_id, cfg.arm, cfg.rep, phase))
			gp_die_nomem();	/* t_s null until emit_metrics */
		if (later && npending < 64) {
			pending_metrics[npending] = o;
			pending_t[npending++] = t;
		} else {
			emit_metrics(o, t);
		}
	}
}

/* ---- progress ---- */

static void progress(int64_t now, int final)
{
	double el = gp_ns_to_s(now - G.t0);
	double ach = G.attempted + (double)G.n_inflight;

	fprintf(stderr, "%sgp-replay: %6.1fs offered %s rps, achieved %.1f rps, in flight %ld, ok %lu, failed %lu, late p99 %.3f ms%s",
		isatty(STDERR_FILENO) ? "\r" : "", el, G.rate_txt,
		el > 0 ? ach / el : 0.0, G.n_inflight, G.ok + G.single, G.failed,
		G.late.count ? gp_hist_quantile(&G.late, 0.99) / 1e6 : 0.0,
		final || !isatty(STDERR_FILENO) ? "\n" : "");
}

/* ---- main ---- */

enum {
	O_URL = 256, O_API, O_MODEL, O_ARM, O_REP, O_RATE, O_POISSON, O_SEED, O_DEADLINE,
	O_IDLE, O_DURATION, O_MAXREQ, O_MAXINFL, O_KEYH, O_RECH, O_RECFROM, O_BACKH, O_SHARD,
	O_STARTAT, O_RUN, O_BLOCK, O_NOEOS, O_ITL, O_HTTP2, O_SCRAPE, O_SPIN, O_MAXEV,
	O_PROGRESS, O_PRECONNECT, O_APIKEYFILE, O_MAXCT, O_NOMODELCHECK, O_CACERT, O_INSECURE,
	O_ONFAILED, O_SESSKEY, O_HELP, O_VERSION, O_PCOUNT,
};

static const struct option longopts[] = {
	{ "url", required_argument, NULL, O_URL },
	{ "api", required_argument, NULL, O_API },
	{ "model", required_argument, NULL, O_MODEL },
	{ "arm", required_argument, NULL, O_ARM },
	{ "rep", required_argument, NULL, O_REP },
	{ "rate-rps", required_argument, NULL, O_RATE },
	{ "poisson-rps", required_argument, NULL, O_POISSON },
	{ "poisson-count", no_argument, NULL, O_PCOUNT },
	{ "seed", required_argument, NULL, O_SEED },
	{ "deadline-s", required_argument, NULL, O_DEADLINE },
	{ "idle-s", required_argument, NULL, O_IDLE },
	{ "duration-s", required_argument, NULL, O_DURATION },
	{ "max-requests", required_argument, NULL, O_MAXREQ },
	{ "max-inflight", required_argument, NULL, O_MAXINFL },
	{ "key-header", required_argument, NULL, O_KEYH },
	{ "receipt-header", required_argument, NULL, O_RECH },
	{ "receipt-from", required_argument, NULL, O_RECFROM },
	{ "backend-header", required_argument, NULL, O_BACKH },
	{ "header", required_argument, NULL, 'H' },
	{ "shard", required_argument, NULL, O_SHARD },
	{ "start-at", required_argument, NULL, O_STARTAT },
	{ "run", required_argument, NULL, O_RUN },
	{ "block-tokens", required_argument, NULL, O_BLOCK },
	{ "no-ignore-eos", no_argument, NULL, O_NOEOS },
	{ "itl", no_argument, NULL, O_ITL },
	{ "http2", no_argument, NULL, O_HTTP2 },
	{ "scrape", required_argument, NULL, O_SCRAPE },
	{ "spin-us", required_argument, NULL, O_SPIN },
	{ "max-event-bytes", required_argument, NULL, O_MAXEV },
	{ "progress", no_argument, NULL, O_PROGRESS },
	{ "preconnect", required_argument, NULL, O_PRECONNECT },
	{ "api-key-file", required_argument, NULL, O_APIKEYFILE },
	{ "max-completion-tokens", no_argument, NULL, O_MAXCT },
	{ "no-model-check", no_argument, NULL, O_NOMODELCHECK },
	{ "cacert", required_argument, NULL, O_CACERT },
	{ "insecure", no_argument, NULL, O_INSECURE },
	{ "on-failed-turn", required_argument, NULL, O_ONFAILED },
	{ "session-key", required_argument, NULL, O_SESSKEY },
	{ "output", required_argument, NULL, 'o' },
	{ "gzip", no_argument, NULL, 'z' },
	{ "help", no_argument, NULL, O_HELP },
	{ "version", no_argument, NULL, O_VERSION },
	{ NULL, 0, NULL, 0 },
};

static int valid_header_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      strchr("!#$%&'*+-.^_`|~", *s)))
			return 0;
	return 1;
}

/* The options taken together: what is required, what excludes what, the
 * endpoint and the API key (usage error, exit 2, otherwise). */
static void check_args(void)
{
	if (!cfg.url_in)
		gp_usage_error("--url is required");
	if (!cfg.model)
		gp_usage_error("--model is required");
	if (cfg.rate_rps > 0 && cfg.poisson_rps > 0)
		gp_usage_error("--rate-rps and --poisson-rps exclude each other");
	if (cfg.poisson_count && (!(cfg.poisson_rps > 0) || !(cfg.duration_s > 0)))
		gp_usage_error("--poisson-count needs --poisson-rps R and --duration-s D");
	if (cfg.poisson_count && gp_pace_count_for(cfg.poisson_rps, cfg.duration_s) < 2)
		gp_usage_error("--poisson-count: %g req/s over %g s is fewer than 2 requests",
			       cfg.poisson_rps, cfg.duration_s);
	if (cfg.key_header && !valid_header_name(cfg.key_header))
		gp_usage_error("--key-header: '%s' is not a header name", cfg.key_header);
	if (cfg.receipt_header && cfg.receipt_from_id)
		gp_usage_error("--receipt-header and --receipt-from exclude each other");
	{
		char err[256];

		if (gp_http_url_check(cfg.url_in, cfg.url, sizeof(cfg.url), err, sizeof(err)))
			gp_usage_error("--url: %s", err);
	}
	snprintf(cfg.endpoint, sizeof(cfg.endpoint), "%s%s", cfg.url,
		 cfg.api_chat ? "/v1/chat/completions" : "/v1/completions");
	{
		char err[512];
		int k = gp_stream_api_key(cfg.api_key_file, cfg.api_key_buf, sizeof(cfg.api_key_buf), err,
					  sizeof(err));

		if (k < 0)
			gp_usage_error("--api-key-file: %s", err);
		cfg.api_key = k ? cfg.api_key_buf : NULL;
	}
}

/* 0 when v is a, 1 when it is b, else a usage error naming opt. */
static int one_of(const char *opt, const char *v, const char *a, const char *b)
{
	if (strcmp(v, a) && strcmp(v, b))
		gp_usage_error("%s: '%s' is not %s or %s", opt, v, b, a);
	return !strcmp(v, b);
}

static void parse_args(int argc, char **argv)
{
	int c;

	while ((c = gp_getopt(argc, argv, "H:o:zh", longopts)) != -1) {
		switch (c) {
		case O_URL: cfg.url_in = optarg; break;
		case O_API: cfg.api_chat = one_of("--api", optarg, "completions", "chat"); break;
		case O_MODEL: cfg.model = optarg; break;
		case O_ARM: cfg.arm = optarg; break;
		case O_REP: cfg.rep = gp_opt_long("--rep", optarg, 0, 1000000); break;
		case O_RATE: cfg.rate_rps = gp_opt_double("--rate-rps", optarg, 1e-9, 1e7); break;
		case O_PCOUNT: cfg.poisson_count = 1; break;
		case O_POISSON: cfg.poisson_rps = gp_opt_double("--poisson-rps", optarg, 1e-9, 1e7); break;
		case O_SEED: cfg.seed = gp_opt_u64("--seed", optarg); cfg.seed_set = 1; break;
		case O_DEADLINE: cfg.deadline_s = gp_opt_double("--deadline-s", optarg, 0, 1e6); break;
		case O_IDLE: cfg.idle_s = gp_opt_double("--idle-s", optarg, 0, 1e6); break;
		case O_DURATION: cfg.duration_s = gp_opt_double("--duration-s", optarg, 0, 1e9); break;
		case O_MAXREQ: cfg.max_requests = gp_opt_long("--max-requests", optarg, 0, 1L << 62); break;
		case O_MAXINFL: cfg.max_inflight = gp_opt_long("--max-inflight", optarg, 0, 10000000); break;
		case O_KEYH: cfg.key_header = optarg; break;
		case O_RECH: cfg.receipt_header = optarg; break;
		case O_RECFROM:
			if (strcmp(optarg, "id"))
				gp_usage_error("--receipt-from: only 'id' is known");
			cfg.receipt_from_id = 1;
			break;
		case O_BACKH: cfg.backend_header = optarg; break;
		case 'H': {
			const char *colon = strchr(optarg, ':');
			char name[256];

			if (!colon || colon == optarg || (size_t)(colon - optarg) >= sizeof(name) ||
			    strpbrk(optarg, "\r\n"))
				gp_usage_error("-H: want 'Name: value' on one line");
			snprintf(name, sizeof(name), "%.*s", (int)(colon - optarg), optarg);
			if (!valid_header_name(name))
				gp_usage_error("-H: '%s' is not a header name", name);
			GP_XGROW(cfg.hdrs, (size_t)cfg.nhdrs, cfg.caphdrs, 8);
			cfg.hdrs[cfg.nhdrs++] = optarg;
			break;
		}
		case O_SHARD:
			if (gp_pace_parse_shard(optarg, &cfg.shard_i, &cfg.shard_n))
				gp_usage_error("--shard: '%s' is not I/N with 1 <= I <= N", optarg);
			break;
		case O_STARTAT:
			cfg.start_at = gp_opt_double("--start-at", optarg, 0, 1e11);
			cfg.start_at_set = 1;
			break;
		case O_RUN: cfg.run_id = optarg; break;
		case O_BLOCK: cfg.block_tokens = gp_opt_long("--block-tokens", optarg, 1, 1 << 24); break;
		case O_NOEOS: cfg.ignore_eos = 0; break;
		case O_ITL: cfg.itl = 1; break;
		case O_HTTP2: cfg.http2 = 1; break;
		case O_SCRAPE:
			GP_XGROW(cfg.scrape, (size_t)cfg.nscrape, cfg.capscrape, 4);
			cfg.scrape[cfg.nscrape++] = optarg;
			break;
		case O_SPIN: cfg.spin_us = gp_opt_long("--spin-us", optarg, 0, 100000); break;
		case O_MAXEV: cfg.max_event = gp_opt_long("--max-event-bytes", optarg, 64, 1L << 30); break;
		case O_PROGRESS: cfg.progress = 1; break;
		case O_PRECONNECT: cfg.preconnect = gp_opt_long("--preconnect", optarg, 0, 100000); break;
		case O_APIKEYFILE: cfg.api_key_file = optarg; break;
		case O_MAXCT: cfg.max_completion_tokens = 1; break;
		case O_NOMODELCHECK: cfg.no_model_check = 1; break;
		case O_CACERT: cfg.cacert = optarg; break;
		case O_INSECURE: cfg.insecure = 1; break;
		case O_ONFAILED:
			if (gp_sess_policy_parse(optarg, &cfg.on_failed))
				gp_usage_error("--on-failed-turn: '%s' is not continue or abandon", optarg);
			break;
		case O_SESSKEY: cfg.key_from_cache = one_of("--session-key", optarg, "session", "cache_key"); break;
		case 'o': cfg.out_path = optarg; break;
		case 'z': cfg.gzip = 1; break;
		case 'h':
		case O_HELP: gp_print_help(usage);
		case O_VERSION: gp_print_version();
		default: gp_usage_error("unknown option");
		}
	}
	check_args();
	cfg.paths = argv + optind;
	cfg.npaths = argc - optind;
}

static void make_run_id(uint64_t digest)
{
	char buf[512];
	uint64_t h = GP_FNV64_OFFSET;
	int n;

	if (cfg.run_id) {
		snprintf(G.run_id, sizeof(G.run_id), "%s", cfg.run_id);
		return;
	}
	/* FNV-1a 64 of arm, rep, rate, trace digest and the start instant. */
	n = snprintf(buf, sizeof(buf), "%s%c%ld%c%s%c%016llx%c%.6f%c%lld", cfg.arm, 0, cfg.rep, 0,
		     G.rate_txt, 0, (unsigned long long)digest, 0, cfg.start_at_set ? cfg.start_at : 0.0,
		     0, cfg.start_at_set ? 0LL : (long long)G.wall0);
	h = gp_fnv1a64(h, buf, n < (int)sizeof(buf) ? (size_t)n : sizeof(buf));
	snprintf(G.run_id, sizeof(G.run_id), "%016llx", (unsigned long long)h);
}

static void write_header(uint64_t digest, unsigned long nrec, double trace_rps)
{
	struct sb *b = &G.rec;
	char at[40], host[256] = "";
	int i;

	gethostname(host, sizeof(host) - 1);
	b->len = 0;
	sb_str(b, "{\"type\":\"run\",\"run\":");
	sb_jstr(b, G.run_id);
	sb_str(b, ",\"arm\":");
	sb_jstr(b, cfg.arm);
	sb_fmt(b, ",\"rep\":%ld,\"rate_rps\":%s,\"schedule\":\"%s\",\"trace_rps\":", cfg.rep, G.rate_txt,
	       cfg.poisson_count ? "poisson_count" : cfg.poisson_rps > 0 ? "poisson" :
	       cfg.rate_rps > 0 ? "rescale" : "asis");
	sb_num(b, trace_rps > 0 ? trace_rps : NAN, 6);
	sb_str(b, ",\"url\":");
	sb_jstr(b, cfg.url);
	sb_fmt(b, ",\"api\":\"%s\",\"model\":", cfg.api_chat ? "chat" : "completions");
	sb_jstr(b, cfg.model);
	sb_fmt(b, ",\"trace_digest\":\"fnv1a64:%016llx\",\"trace_records\":%lu,\"seed\":",
	       (unsigned long long)digest, nrec);
	if (cfg.poisson_rps > 0 || cfg.seed_set)
		sb_fmt(b, "%llu", (unsigned long long)cfg.seed);
	else
		sb_str(b, "null");
	sb_fmt(b, ",\"started_at\":\"%s\",\"start_at\":", gp_rfc3339(G.wall0, at, sizeof(at)));
	sb_num(b, cfg.start_at_set ? cfg.start_at : NAN, 6);
	sb_str(b, ",\"version\":");
	sb_jstr(b, GP_VERSION);
	sb_str(b, ",\"libcurl\":");
	sb_jstr(b, gp_http_version());
	sb_str(b, ",\"host\":");
	sb_jstr(b, host);
	sb_fmt(b, ",\"shard\":\"%ld/%ld\",\"max_inflight\":", cfg.shard_i, cfg.shard_n);
	if (cfg.max_inflight)
		sb_fmt(b, "%ld", cfg.max_inflight);
	else
		sb_str(b, "null");
	sb_str(b, ",\"deadline_s\":");
	sb_num(b, cfg.deadline_s > 0 ? cfg.deadline_s : NAN, 3);
	sb_str(b, ",\"idle_s\":");
	sb_num(b, cfg.idle_s > 0 ? cfg.idle_s : NAN, 3);
	sb_str(b, ",\"duration_s\":");
	sb_num(b, cfg.duration_s > 0 ? cfg.duration_s : NAN, 3);
	sb_str(b, ",\"max_requests\":");
	if (cfg.max_requests)
		sb_fmt(b, "%ld", cfg.max_requests);
	else
		sb_str(b, "null");
	sb_fmt(b, ",\"ignore_eos\":%s,\"http2\":%s,\"block_tokens\":%ld,\"key_header\":",
	       cfg.ignore_eos ? "true" : "false", cfg.http2 ? "true" : "false", cfg.block_tokens);
	sb_jstr(b, cfg.key_header);
	sb_str(b, ",\"receipt_header\":");
	sb_jstr(b, cfg.receipt_header);
	sb_fmt(b, ",\"receipt_from\":%s,\"backend_header\":", cfg.receipt_from_id ? "\"id\"" : "null");
	sb_jstr(b, cfg.backend_header);
	/* Header names only: values may be secrets. */
	sb_fmt(b, ",\"api_key\":%s,\"headers\":[", cfg.api_key ? "true" : "false");
	for (i = 0; i < cfg.nhdrs; i++) {
		if (i)
			sb_str(b, ",");
		sb_jstrn(b, cfg.hdrs[i], strcspn(cfg.hdrs[i], ":"));
	}
	sb_fmt(b, "],\"spin_us\":%ld,\"preconnect\":%ld,\"itl\":%s", cfg.spin_us, cfg.preconnect,
	       cfg.itl ? "true" : "false");
	sb_fmt(b, ",\"max_completion_tokens\":%s,\"model_check\":%s,\"tls_verify\":%s,\"cacert\":",
	       cfg.max_completion_tokens ? "true" : "false", cfg.no_model_check ? "false" : "true",
	       cfg.insecure ? "false" : "true");
	sb_jstr(b, cfg.cacert);
	sb_fmt(b, ",\"sessions\":%zu,\"on_failed_turn\":\"%s\",\"session_key\":\"%s\"}",
	       gp_sessions_count(&S.ss), gp_sess_policy_name(cfg.on_failed),
	       cfg.key_from_cache ? "cache_key" : "session");
	if (gp_out_line(&G.out, b->p, b->len))
		gp_output_failed(&G.out);
}

/* What the trailer flags, said on stderr too. */
static void warn_flags(void)
{
	if (G.by_err[GP_STREAM_CLIENT_LIMIT])
		gp_warn("%lu requests failed on this client's own limit (%s): they measure the client, not "
			"the server, and gp-verify validity discards the run (client_limit); the descriptor "
			"limit is %ld", G.by_err[GP_STREAM_CLIENT_LIMIT], G.first_detail[GP_STREAM_CLIENT_LIMIT],
			G.nofile);
	if (G.sniffed) {
		char ct[4 * sizeof(G.sniffed_ct)];

		gp_term_escape(ct, sizeof(ct), G.sniffed_ct, strlen(G.sniffed_ct));
		gp_warn("%lu responses were event streams by their body, not their Content-Type (first: %s)",
			G.sniffed, ct);
	}
	if (G.contradicted)
		gp_warn("%lu responses sent usage.completion_tokens below their count of content events: "
			"out_tokens is the count (tokens_from chunks_usage_contradicted)", G.contradicted);
}

static int write_trailer(int interrupted)
{
	struct sb *b = &G.rec;
	char at[40];
	double p50 = gp_hist_quantile(&G.late, 0.5) / 1e6;
	double p99 = gp_hist_quantile(&G.late, 0.99) / 1e6;
	double mx = G.late.count ? (double)G.late.max_ns / 1e6 : NAN;
	int behind = G.late.count && (p99 > 1.0 || mx > 10.0);
	int64_t end = G.last_done_ns > G.t0 ? G.last_done_ns : gp_now_ns();
	unsigned long nsent = G.attempted - G.unsent;
	double ach = nsent >= 2 && G.last_send_ns > G.first_send_ns
		     ? (double)(nsent - 1) / gp_ns_to_s(G.last_send_ns - G.first_send_ns) : NAN;
	int64_t runq = runq_wait_ns();
	long majflt = 0;
	int64_t cpu = cpu_ns(&majflt);
	int i, first = 1;

	b->len = 0;
	sb_str(b, "{\"type\":\"run_end\",\"run\":");
	sb_jstr(b, G.run_id);
	sb_str(b, ",\"arm\":");
	sb_jstr(b, cfg.arm);
	sb_fmt(b, ",\"rep\":%ld,\"rate_rps\":%s,\"shard\":\"%ld/%ld\",\"attempted\":%lu,\"ok\":%lu,"
	       "\"single_token\":%lu,\"failed\":%lu,\"by_error\":{",
	       cfg.rep, G.rate_txt, cfg.shard_i, cfg.shard_n, G.attempted, G.ok, G.single, G.failed);
	for (i = 1; i < E_NCLASS; i++)
		if (G.by_err[i]) {
			sb_fmt(b, "%s\"%s\":%lu", first ? "" : ",", gp_stream_class_name(i), G.by_err[i]);
			first = 0;
		}
	sb_fmt(b, "},\"invalid_framing\":%lu,\"client_limit\":%lu,\"sse_by_body\":%lu,"
	       "\"usage_contradicted\":%lu,\"lateness_p50_ms\":", G.by_err[GP_STREAM_INVALID_FRAMING],
	       G.by_err[GP_STREAM_CLIENT_LIMIT], G.sniffed, G.contradicted);
	sb_num(b, p50, 4);
	sb_str(b, ",\"lateness_p99_ms\":");
	sb_num(b, p99, 4);
	sb_str(b, ",\"lateness_max_ms\":");
	sb_num(b, mx, 4);
	sb_fmt(b, ",\"late_sends\":%lu,\"late_sends_cpu_wait\":%lu,\"new_connections\":%lu,\"connect_p99_ms\":",
	       G.late_sends, G.late_cpu_wait, G.new_conns);
	sb_num(b, gp_hist_quantile(&G.conn, 0.99) / 1e6, 4);
	sb_str(b, ",\"connect_max_ms\":");
	sb_num(b, G.conn.count ? (double)G.conn.max_ns / 1e6 : NAN, 4);
	sb_str(b, ",\"client_cpu_s\":");
	sb_num(b, gp_ns_to_s(cpu - G.cpu_t0), 3);
	sb_str(b, ",\"client_runq_wait_ms\":");
	sb_num(b, runq >= 0 && G.runq_t0 >= 0 ? gp_ns_to_ms(runq - G.runq_t0) : NAN, 3);
	sb_fmt(b, ",\"client_major_faults\":%ld", majflt - G.majflt_t0);
	sb_fmt(b, ",\"client_behind\":%s,\"capped_sends\":%lu,\"peak_inflight\":%ld,\"duration_s\":",
	       behind ? "true" : "false", G.capped, G.peak_inflight);
	sb_num(b, gp_ns_to_s(end - G.t0), 6);
	sb_str(b, ",\"achieved_rps\":");
	sb_num(b, ach, 4);
	/* The open loop alone (what rate_rps labels): sessions' later turns
	 * are closed loop, so they are not held to it. */
	sb_fmt(b, ",\"starts\":%lu,\"achieved_start_rps\":", G.starts);
	sb_num(b, G.starts >= 2 && G.last_start_ns > G.first_start_ns
	       ? (double)(G.starts - 1) / gp_ns_to_s(G.last_start_ns - G.first_start_ns) : NAN, 4);
	sb_fmt(b, ",\"ended_at\":\"%s\",\"interrupted\":%s}",
	       gp_rfc3339(G.wall0 + (end - G.t0), at, sizeof(at)), interrupted ? "true" : "false");
	if (gp_out_line(&G.out, b->p, b->len))
		gp_output_failed(&G.out);
	warn_flags();
	if (behind) {
		gp_warn("the client fell behind its schedule: send lateness p99 %.3f ms, max %.3f ms "
			"(rule: p99 > 1 ms or max > 10 ms); this run is not open loop", p99, mx);
		if (G.capped)
			gp_warn("%lu sends were held back by --max-inflight %ld", G.capped, cfg.max_inflight);
		if (G.late_cpu_wait)
			gp_warn("%lu of %lu sends late by over 1 ms waited mostly for a CPU that other "
				"processes held (run-queue wait %.1f ms over the run): the host is "
				"overloaded; give gp-replay a core of its own", G.late_cpu_wait,
				G.late_sends, runq >= 0 && G.runq_t0 >= 0 ? gp_ns_to_ms(runq - G.runq_t0) : NAN);
	}
	return behind;
}

/*
 * Before anything is sent: is anything listening at --url, and does it
 * serve --model?  GET /v1/models (with the request headers, so a key is
 * sent; models.h reads the list): nothing listening exits 69 at once; a
 * model list without --model exits 2 naming what it lists (ids shown as
 * models.h shows them: key masked, control characters escaped).
 * --no-model-check skips the list (servers without /v1/models), not the
 * reachability.  The model's max_model_len, when advertised, is kept for
 * the trace's check (trace_fits).
 */
static void check_server(void)
{
	char url[1200], err[256], names[512];
	char *body = NULL;
	size_t len = 0;
	long status = 0, at;
	enum gp_http_err k;
	struct gp_models ml;

	snprintf(url, sizeof(url), "%s/v1/models", cfg.url);
	/* A server started just before us (`gp-sim & gp-replay`) gets 1.5 s
	 * to open its port; nothing listening after that is an error. */
	for (int64_t until = gp_now_ns() + 3 * GP_NS_PER_S / 2;;) {
		free(body);
		body = NULL;
		k = gp_http_get(G.http, url, GP_MODELS_TIMEOUT_MS, GP_MODELS_MAX_BYTES, &body, &len, &status,
				err, sizeof(err));
		if (k != GP_HTTP_ECONNECT || gp_now_ns() >= until || gp_sig_stop())
			break;
		gp_sleep_until_ns(gp_now_ns() + 100 * GP_NS_PER_MS);
	}
	if (k != GP_HTTP_OK) {
		sanitize(err, sizeof(err));
		gp_die(GP_EXIT_UNAVAILABLE, "%s: GET /v1/models: %s%s", cfg.url, err,
		       k == GP_HTTP_ECONNECT ? " (nothing to measure: no request sent)"
		       : k == GP_HTTP_ETLS ? " (TLS refused, no request sent: trust the server's CA"
					     " with --cacert FILE, or skip the check with --insecure)"
		       : cfg.no_model_check ? " (no request sent)"
		       : " (no request sent; the list is bounded to 1 MiB and 10 s: --no-model-check"
			 " skips it)");
	}
	if (cfg.no_model_check) {
		free(body);
		return;
	}
	if (status != 200) {
		char msg[256];

		gp_oai_error_read(body, len, cfg.api_key, msg, sizeof(msg));
		free(body);
		gp_die(GP_EXIT_UNAVAILABLE, "%s: GET /v1/models: HTTP %ld: %s (--no-model-check for a "
		       "server without a model list)", cfg.url, status, msg);
	}
	if (gp_models_read(body, len, &ml)) {
		free(body);
		if (errno == ENOMEM)
			gp_die_nomem();
		gp_die(GP_EXIT_UNAVAILABLE, "%s: GET /v1/models: not an OpenAI model list "
		       "(--no-model-check for a server without one)", cfg.url);
	}
	free(body);
	at = gp_models_find(&ml, cfg.model);
	if (at < 0) {
		gp_models_list(&ml, cfg.api_key, names, sizeof(names));
		gp_models_release(&ml);
		gp_die(GP_EXIT_USAGE, "--model '%s': %s serves %s (--no-model-check to send anyway)",
		       cfg.model, cfg.url, names);
	}
	G.max_model_len = ml.max_model_len[at];
	gp_models_release(&ml);
}

/* The end-of-run summary on stderr: what a user reads first. */
static void print_summary(double offered, double achieved)
{
	const struct gp_hist *h[4] = { &G.s_ttft, &G.s_tpot, &G.s_e2e, &G.s_itl };
	static const char *const nm[4] = { "TTFT", "TPOT", "E2E", "ITL" };
	double span = G.last_end_ns > G.first_token_ns ? gp_ns_to_s(G.last_end_ns - G.first_token_ns) : NAN;
	int i;

	fprintf(stderr, "%s: %lu attempted, %lu ok, %lu single_token, %lu failed\n", gp_progname(),
		G.attempted, G.ok, G.single, G.failed);
	for (i = 1; i < E_NCLASS; i++)
		if (G.by_err[i]) {
			fprintf(stderr, "  %-16s %6lu", gp_stream_class_name(i), G.by_err[i]);
			if (G.first_status[i])
				fprintf(stderr, "  first: HTTP %ld", G.first_status[i]);
			if (G.first_detail[i][0])
				fprintf(stderr, "%s %s", G.first_status[i] ? "," : "  first:", G.first_detail[i]);
			fputc('\n', stderr);
		}
	for (i = 0; i < 4; i++)
		if (h[i]->count)
			fprintf(stderr, "  %-4s ms  p50 %9.3f  p90 %9.3f  p99 %9.3f  max %9.3f  (n %llu)\n", nm[i],
				gp_hist_quantile(h[i], 0.5) / 1e6, gp_hist_quantile(h[i], 0.9) / 1e6,
				gp_hist_quantile(h[i], 0.99) / 1e6, (double)h[i]->max_ns / 1e6,
				(unsigned long long)h[i]->count);
	fprintf(stderr, "  output %.1f tok/s; offered %.3f req/s, achieved %.3f req/s\n",
		span > 0 ? (double)G.out_tokens / span : 0.0, offered, achieved);
}

/* ---- the phases of a run ---- */

/* First pass: validate every record (order in time, unique ids, sessions'
 * turns in order), digest and count them, and keep the sessions' turns.
 * *n_open, *t_first and *t_last get the number of records the open-loop
 * schedule places (all but the later turns of sessions) and the first and
 * last t_s among them. */
static unsigned long trace_scan(uint64_t *digest, unsigned long *n_open, double *t_first,
				double *t_last)
{
	struct gp_trace_rec rec;
	json_t *o;
	unsigned long nrec = 0, line_prev = 0;
	const char *name_prev = NULL;
	double t_prev = 0;
	struct gp_trace_check chk;
	char err[256];
	int e;

	struct gp_map *ids = gp_map_new();	/* each trace id at most once */

	gp_trace_check_init(&chk);
	gp_sessions_init(&S.ss, cfg.on_failed);
	*n_open = 0;

	trace_setup(&S.t, cfg.paths, cfg.npaths);
	trace_open(&S.t);
	gp_trace_init(&rec);
	while (trace_next(&S.t, &o, &rec, digest)) {
		if (nrec > 0 && rec.t_s < t_prev)
			gp_die_at(GP_EXIT_DATAERR, in_name(&S.t), gp_input_line(&S.t.in),
				  "field 't_s' goes back in time (%g after %g at %s:%lu)", rec.t_s, t_prev,
				  name_prev ? name_prev : "-", line_prev);
		t_prev = rec.t_s;
		e = gp_trace_check_rec(&chk, &rec, err, sizeof(err));
		if (e == -2)
			gp_die_nomem();
		if (e)
			gp_die_at(GP_EXIT_DATAERR, in_name(&S.t), gp_input_line(&S.t.in), "%s", err);
		if (rec.session && !gp_sessions_add(&S.ss, &rec, nrec))
			gp_die_nomem();
		if (!rec.session || rec.turn == 1) {
			if ((*n_open)++ == 0)
				*t_first = rec.t_s;
			*t_last = rec.t_s;
		}
		if (gp_map_add(ids, rec.id) < nrec)	/* a new id takes index nrec */
			gp_die_at(GP_EXIT_DATAERR, in_name(&S.t), gp_input_line(&S.t.in),
				  "field 'id': '%s' is not unique in the trace", rec.id);
		if (!rec.messages && !rec.prompt && rec.input_tokens > GP_TRACE_MAX_SYNTH_TOKENS)
			gp_die_at(GP_EXIT_DATAERR, in_name(&S.t), gp_input_line(&S.t.in),
				  "field 'input_tokens': %ld is over the %ld tokens of prompt gp-replay "
				  "synthesizes; nothing sent", rec.input_tokens, GP_TRACE_MAX_SYNTH_TOKENS);
		if (rec.input_tokens + rec.output_tokens > S.longest) {
			S.longest = rec.input_tokens + rec.output_tokens;
			S.longest_line = gp_input_line(&S.t.in);
			snprintf(S.longest_in, sizeof(S.longest_in), "%s", in_name(&S.t));
		}
		line_prev = gp_input_line(&S.t.in);
		name_prev = in_name(&S.t);
		nrec++;
		json_decref(o);
	}
	gp_trace_release(&rec);
	gp_input_release(&S.t.in);
	gp_map_free(ids);
	gp_trace_check_release(&chk);
	if (nrec == 0)
		gp_die(GP_EXIT_DATAERR, "%s: the trace holds no record", cfg.npaths ? cfg.paths[0] : "-");
	return nrec;
}

/* The schedule (Poisson, rescaled or as is) and the run's rate; returns the
 * trace's own mean rate. */
static double schedule(unsigned long nrec, double t_first, double t_last)
{
	double trace_rps = gp_pace_trace_rps(nrec, t_first, t_last);

	if (cfg.poisson_count) {
		unsigned long n = gp_pace_count_for(cfg.poisson_rps, cfg.duration_s);

		if (nrec < n)
			gp_die(GP_EXIT_DATAERR, "%s: --poisson-count at %g req/s over %g s sends %lu "
			       "requests; the trace holds %lu", cfg.npaths ? cfg.paths[0] : "-",
			       cfg.poisson_rps, cfg.duration_s, n, nrec);
		if (gp_pace_poisson_count(&S.pace, cfg.poisson_rps, n, cfg.seed))
			gp_die_nomem();
		G.rate_rps = cfg.poisson_rps;
	} else if (cfg.poisson_rps > 0) {
		gp_pace_poisson(&S.pace, cfg.poisson_rps, cfg.seed);
		G.rate_rps = cfg.poisson_rps;
	} else if (cfg.rate_rps > 0) {
		if (!(trace_rps > 0))
			gp_die(GP_EXIT_DATAERR, "%s: --rate-rps needs a trace of at least 2 records spanning a time > 0",
			       cfg.npaths ? cfg.paths[0] : "-");
		gp_pace_rescale(&S.pace, trace_rps, cfg.rate_rps);
		G.rate_rps = cfg.rate_rps;
	} else {
		gp_pace_asis(&S.pace);
		G.rate_rps = trace_rps > 0 ? trace_rps : NAN;
	}
	if (isfinite(G.rate_rps))
		snprintf(G.rate_txt, sizeof(G.rate_txt), "%.15g", G.rate_rps);
	else
		snprintf(G.rate_txt, sizeof(G.rate_txt), "null");
	return trace_rps;
}

/* The HTTP engine, the server check, the output and the run's state. */
static void run_setup(void)
{
	static const struct gp_http_ops hops = { on_sent, on_header, on_body, on_done };
	struct gp_http_opts hopts = { 0 };

	hopts.http2 = cfg.http2;
	hopts.deadline_ms = cfg.deadline_s > 0 ? (long)ceil(cfg.deadline_s * 1000) : 0;
	hopts.connect_timeout_ms = hopts.deadline_ms && hopts.deadline_ms < 10000 ? hopts.deadline_ms : 10000;
	hopts.tls.cacert = cfg.cacert;
	hopts.tls.insecure = cfg.insecure;
	G.http = gp_http_new(&hopts, &hops);
	if (!G.http)
		gp_die(GP_EXIT_SOFTWARE, "cannot create the HTTP engine");
	if (gp_stream_headers_with(G.http, 1, cfg.api_key, cfg.hdrs, cfg.nhdrs))
		gp_die_nomem();
	G.max_model_len = -1;
	check_server();
	trace_fits();
	gp_output_open(&G.out, cfg.out_path, cfg.gzip);
	G.inflight.next = G.inflight.prev = &G.inflight;
	G.waiting.next = G.waiting.prev = &G.waiting;
	gp_hist_init(&G.s_ttft);
	gp_hist_init(&G.s_tpot);
	gp_hist_init(&G.s_e2e);
	gp_hist_init(&G.s_itl);
	gp_hist_init(&G.late);
	gp_hist_init(&G.conn);
	G.schedstat_fd = open("/proc/self/schedstat", O_RDONLY | O_CLOEXEC);
}

/* The run's start: now, or the --start-at wall-clock instant. */
static void set_start(void)
{
	int64_t m = gp_now_ns(), w = gp_wall_ns();

	if (cfg.start_at_set) {
		G.t0 = gp_pace_mono_of_epoch(cfg.start_at, m, w);
		if (G.t0 < m - GP_NS_PER_S)
			gp_die(GP_EXIT_USAGE, "--start-at is %.3f s in the past", gp_ns_to_s(m - G.t0));
		if (G.t0 < m)
			gp_warn("--start-at is %.3f ms in the past; sends will be late", gp_ns_to_ms(m - G.t0));
		G.wall0 = w + (G.t0 - m);
	} else {
		G.t0 = m;
		G.wall0 = w;
	}
}

/*
 * The header, the "before" scrapes and the warm-up, then the first request
 * prepared (trace read, prompt synthesized, body built) before the clock
 * starts, so that its send is on time.  Returns it (NULL: nothing to send).
 */
static struct req *run_start(uint64_t digest, unsigned long nrec, double trace_rps)
{
	struct req *la;

	make_run_id(digest);
	write_header(digest, nrec, trace_rps);
	if (cfg.nscrape)
		scrape_all("before", 1);
	if (cfg.preconnect > 0) {
		char models[1200];

		snprintf(models, sizeof(models), "%s/v1/models", cfg.url);
		gp_http_warm(G.http, models, (int)cfg.preconnect, 5000);
	}
	trace_open(&S.t);
	la = gp_sig_stop() ? NULL : prepare_next();
	if (cfg.start_at_set) {
		/* Wait for the common start, interruptibly. */
		while (!gp_sig_stop() && gp_now_ns() < G.t0)
			gp_sleep_until_ns(G.t0);
	} else {
		/* Restart the clock after the scrapes, the warm-up and the first
		 * prompt: measured, these made the first send ~4 ms late. */
		int64_t d = gp_now_ns() - G.t0;

		G.wall0 += d;
		G.t0 += d;
		if (la)
			la->sched_ns += d;
	}
	flush_metrics();
	G.runq_t0 = runq_wait_ns();
	G.cpu_t0 = cpu_ns(&G.majflt_t0);
	return la;
}

/* Nothing listens (any more), or TLS refuses, and no request ever reached
 * the server: 1 (stop now, not after the whole schedule), with a warning. */
static int unreachable_now(void)
{
	if (!(G.by_err[GP_STREAM_CONNECT] || G.by_err[GP_STREAM_TLS]) || G.any_sent)
		return 0;
	if (G.by_err[GP_STREAM_TLS])
		gp_warn("%s: %s; TLS refused: trust the server's CA with --cacert FILE"
			" (or --insecure); stopping the run", cfg.url, G.first_detail[GP_STREAM_TLS]);
	else
		gp_warn("%s: %s; stopping the run", cfg.url, G.first_detail[GP_STREAM_CONNECT]);
	return 1;
}

/* Cancel the streams idle for --idle-s: the oldest activity is last, so
 * from the tail while idle. */
static void sweep_idle(int64_t now)
{
	int64_t lim = cfg.idle_s > 0 ? (int64_t)(cfg.idle_s * 1e9) : INT64_MAX;
	int64_t least = lim < GP_STREAM_DONE_GRACE_NS ? lim : GP_STREAM_DONE_GRACE_NS;
	struct req *r, *p;

	/* Also the streams whose [DONE] came and whose server left the
	 * response open: ended as complete after the grace (stream.h). */
	for (r = G.inflight.prev; r != &G.inflight && now - r->st.last_byte_ns >= least; r = p) {
		p = r->prev;
		if (r->st.saw_done) {
			if (gp_stream_done_due(&r->st, now)) {
				gp_stream_end_done(&r->st);
				finish(r);
			}
		} else if (now - r->st.last_byte_ns >= lim) {
			abort_req(r, GP_STREAM_HANG, now);
		}
	}
}

/* After a stop: every request in flight is recorded as cancelled; la,
 * prepared but never sent, is not attempted. */
static void cancel_all(struct req *la)
{
	int64_t now = gp_now_ns();

	while (G.inflight.next != &G.inflight)
		abort_req(G.inflight.next, GP_STREAM_CANCELLED, now);
	while (G.waiting.next != &G.waiting)
		abort_req(G.waiting.next, GP_STREAM_CANCELLED, now);
	if (la)
		req_put(la);
	for (struct gp_session *s; (s = gp_sessions_pop(&S.ss));)
		if (s->user) {	/* a turn prepared, never sent: not attempted */
			req_put(s->user);
			s->user = NULL;
		}
}

/* Can la go now, as far as --max-inflight is concerned? */
static int may_send(const struct req *la)
{
	return la && (!cfg.max_inflight || G.n_inflight < cfg.max_inflight);
}

/*
 * The open loop: send each request at its instant, poll the transfers in
 * between, sweep the idle ones, show progress.  Returns 1 when stopped early
 * (a signal, or *unreachable set), 0 when every request is done.
 */
static int run_loop(struct req *la, int show_progress, int *unreachable)
{
	int64_t spin_ns = cfg.spin_us * 1000;
	int64_t sweep_ns = cfg.idle_s > 0 ? (int64_t)fmin(cfg.idle_s * 1e9 / 10, 10e6) : 100 * GP_NS_PER_MS;
	int64_t next_sweep = G.t0 + sweep_ns, next_progress = G.t0 + GP_NS_PER_S / 2;

	for (;;) {
		int64_t now = gp_now_ns(), wake;
		int can_send;
		struct req *tn, *nx;

		if (gp_sig_stop() || (*unreachable = unreachable_now())) {
			cancel_all(la);
			return 1;
		}
		/* The next send: the open loop's, or a session's ready turn. */
		tn = turn_next();
		nx = !tn || (la && la->sched_ns <= tn->sched_ns) ? la : tn;
		can_send = may_send(nx);
		if (can_send && now >= nx->sched_ns) {
			if (nx == la) {
				dispatch(la);
				la = prepare_next();
			} else {
				struct gp_session *s = gp_sessions_pop(&S.ss);

				s->user = NULL;
				s->next++;
				dispatch(nx);
			}
			continue;
		}
		if (!nx && G.n_inflight == 0)
			return 0;
		if (nx && !can_send && now >= nx->sched_ns && !nx->capped) {
			nx->capped = 1;		/* due, but --max-inflight holds it back */
			G.capped++;
		}
		wake = can_send ? nx->sched_ns - spin_ns : now + 100 * GP_NS_PER_MS;
		if (sweep_ns && next_sweep < wake)
			wake = next_sweep;
		if (show_progress && next_progress < wake)
			wake = next_progress;
		if (gp_http_poll(G.http, wake) < 0)
			gp_die(GP_EXIT_SOFTWARE, "epoll: %s", strerror(errno));
		now = gp_now_ns();
		if (can_send && may_send(nx) && now >= nx->sched_ns - spin_ns) {
			/* The final stretch: busy-wait on the clock (no I/O for at
			 * most spin_us) so the send is not rounded by the scheduler. */
			while ((now = gp_now_ns()) < nx->sched_ns)
				;
		}
		if (sweep_ns && now >= next_sweep) {
			sweep_idle(now);
			next_sweep = now + sweep_ns;
		}
		if (show_progress && now >= next_progress) {
			progress(now, 0);
			next_progress = now + GP_NS_PER_S / 2;
		}
		if (gp_out_tick(&G.out, now))	/* durable within a second (ndjson.h) */
			gp_output_failed(&G.out);
	}
}

/* The "after" scrapes, the trailer, the summary, the output closed; returns
 * the exit status. */
static int run_finish(int interrupted, int unreachable)
{
	write_trailer(interrupted);
	print_summary(G.rate_rps, G.attempted - G.unsent >= 2 && G.last_send_ns > G.first_send_ns
		      ? (double)(G.attempted - G.unsent - 1) / gp_ns_to_s(G.last_send_ns - G.first_send_ns)
		      : NAN);
	gp_output_close(&G.out);
	gp_http_free(G.http);
	if (unreachable ||
	    (G.attempted && G.by_err[GP_STREAM_CONNECT] + G.by_err[GP_STREAM_TLS] == G.attempted)) {
		gp_warn("%s: no request could connect", cfg.url);
		return GP_EXIT_UNAVAILABLE;
	}
	if (interrupted)
		return gp_sig_status(GP_EXIT_NEGATIVE);
	if (G.attempted && G.ok + G.single == 0) {
		gp_warn("every request failed (%lu attempted)", G.attempted);
		return GP_EXIT_NEGATIVE;
	}
	return GP_EXIT_OK;
}

int main(int argc, char **argv)
{
	uint64_t digest = GP_FNV64_OFFSET;
	unsigned long nrec, n_open;
	double t_first = 0, t_last = 0, trace_rps;
	struct req *la;
	int interrupted, unreachable = 0, show_progress;

	gp_log_init(argv[0]);
	parse_args(argc, argv);
	gp_sig_install();
	G.nofile = gp_proc_raise_nofile();	/* one descriptor per stream in flight */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (gp_http_global_init())
		gp_die(GP_EXIT_SOFTWARE, "cannot initialise libcurl");
	nrec = trace_scan(&digest, &n_open, &t_first, &t_last);
	trace_rps = schedule(n_open, t_first, t_last);
	check_nofile(nrec);
	run_setup();
	set_start();
	la = run_start(digest, nrec, trace_rps);
	show_progress = cfg.progress || isatty(STDERR_FILENO);
	interrupted = run_loop(la, show_progress, &unreachable);
	if (show_progress)
		progress(gp_now_ns(), 1);
	if (cfg.nscrape && !interrupted)
		scrape_all("after", 0);
	return run_finish(interrupted, unreachable);
}
