/* SPDX-License-Identifier: MIT */
/*
 * gp-sim — an emulated inference fleet: N OpenAI-compatible backends in one
 * process, one port each, each with its own engine model (engine.h), prefix
 * cache (kvcache.h) and Prometheus metrics (prom.h); streaming SSE, fault
 * injection, a truth log and pacing statistics.  One thread, libevent.
 *
 * Timing path.  Each backend has one timer armed at its engine's next event
 * time (absolute, from gp_engine_next_ns).  When it fires, the engine is
 * advanced to "now" and calls on_token() for every token due, with the
 * token's scheduled time; on_token writes the SSE event into the connection's
 * output buffer at once and records how late that was (the pacing lag).
 * Because event times come from the model, not from when we ran, lateness
 * never accumulates into drift.
 *
 * Request lifetime.  A `struct stream` lives from the request handler to one
 * of: the reply finished (evhttp_send_reply_end / evhttp_send_reply), or the
 * connection closed (close callback: the client went away, a reset or
 * bad_chunk fault, or shutdown).  In libevent 2.1 a request whose reply is
 * unfinished is detached from its dying connection (its evcon becomes NULL)
 * and then belongs to us: the close callback frees it.
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <jansson.h>

#include "base/buf.h"
#include "cli/cli.h"
#include "base/clock.h"
#include "sim/engine.h"
#include "base/hash.h"
#include "base/hist.h"
#include "sim/kvcache.h"
#include "base/log.h"
#include "wire/openai.h"
#include "base/proc.h"
#include "wire/prom.h"
#include "base/rng.h"
#include "sim/router.h"
#include "sim/pd.h"
#include "sim/simreq.h"
#include "base/banned.h"

static const char usage[] =
"Usage: gp-sim --port P [--backends N] [--host H] [--model M] [--max-model-len T]\n"
"              [--profile NAME] [--prefill-tok-s X] [--decode-ms X] [--decode-ms-per-seq X]\n"
"              [--ctx-ms-per-ktok X] [--max-num-batched-tokens N] [--no-chunked-prefill]\n"
"              [--max-batch N] [--kv-blocks N] [--block-tokens N] [--speed 1,1,0.5,...]\n"
"              [--roles both|prefill|decode,...] [--kv-link-gbps X] [--kv-xfer-base-ms X]\n"
"              [--kv-bytes-per-token N]\n"
"              [--receipt-header NAME] [--fault KIND=PROB ...] [--truth FILE]\n"
"              [--max-unsent-kb N] [--tokens-per-chunk K] [--seed S] [--stats]\n"
"              [--router PORT [--policy rr|chash|bounded|kv|pd|pd_rr] [--balance-factor F]\n"
"               [--router-fault kv_events_down|fallback]] [--help] [--version]\n"
"\n"
"  -p, --port P             first port; backend i listens on P+i\n"
"  -n, --backends N         number of engines (default 1)\n"
"      --host H             address to bind (default 127.0.0.1)\n"
"  -m, --model M            model id served (default gp-sim)\n"
"      --max-model-len T    context length in tokens (default 32768)\n"
"      --profile NAME       engine parameters of a named model and GPU: sim (default),\n"
"                           llama3-8b-h100, llama3-8b-a100; flags below override\n"
"      --prefill-tok-s X    step time per prefill token is 1000/X ms (sim: 20000)\n"
"      --decode-ms X        fixed time of every step, ms (sim: 8)\n"
"      --decode-ms-per-seq X  step time per decoding sequence, ms (sim: 0.25)\n"
"      --ctx-ms-per-ktok X  step time per 1000 context tokens read, ms (sim: 0)\n"
"      --max-num-batched-tokens N  tokens per step (sim: 2048)\n"
"      --no-chunked-prefill schedule each prefill whole, never in chunks\n"
"      --max-batch N        running sequences per engine (sim: 64)\n"
"      --kv-blocks N        KV pool blocks per engine (sim: 4096)\n"
"      --block-tokens N     tokens per KV block (sim: 16)\n"
"      --speed LIST         capacity multiplier per engine, comma-separated;\n"
"                           the last value repeats (default 1)\n"
"      --roles LIST         role per engine: both (default), prefill or decode,\n"
"                           comma-separated, the last repeating; the router's\n"
"                           pd policy prefills on one member and decodes on another\n"
"      --kv-link-gbps X     pd: the KV handoff's link rate, Gbit/s (default 100)\n"
"      --kv-xfer-base-ms X  pd: the fixed cost of one handoff, ms (default 0.5)\n"
"      --kv-bytes-per-token N  pd: KV bytes of a token over all layers (sim: 16384;\n"
"                           the llama3-8b profiles: 131072)\n"
"      --receipt-header NAME  add NAME: prefill=HOST:PORT;decode=HOST:PORT\n"
"      --fault KIND=PROB    inject a fault (reset, drop_done, bad_frame, bad_chunk,\n"
"                           http500, http429, stall) with probability PROB; repeatable;\n"
"                           pd_fallback: the pd router serves aggregated on the prefill\n"
"                           member, silently (the receipt names it once, or twice)\n"
"      --truth FILE         append one NDJSON truth record per request to FILE\n"
"      --max-unsent-kb N    close a stream whose client lets more than N KiB of\n"
"                           output pile up unsent (default 256)\n"
"      --tokens-per-chunk K after the first token, stream K tokens per chunk\n"
"                           (vLLM's stream interval; default 1)\n"
"      --seed S             random seed (default 1)\n"
"      --stats              on exit, print pacing statistics to stderr (and to\n"
"                           the truth file)\n"
"      --router PORT        also serve a gateway on PORT in front of the engines\n"
"      --policy P           the router's policy: rr, chash (consistent hash of the\n"
"                           x-gp-cache-key header), bounded (chash with bounded\n"
"                           loads), kv (longest cached prefix; default) or pd\n"
"                           (prefill on the prefill member kv would pick, decode on\n"
"                           the least loaded decode member; --roles) or pd_rr (each\n"
"                           half round robin over its members: a pd floor)\n"
"      --balance-factor F   bounded: no engine above F times the mean load (1.25)\n"
"      --router-fault F     kv_events_down (kv silently degrades to round robin)\n"
"                           or fallback (the router starts in rr and says so)\n"
"  -h, --help               this text;  --version  the version\n";

enum fault {
	F_NONE = 0, F_RESET, F_DROP_DONE, F_BAD_FRAME, F_BAD_CHUNK,
	F_HTTP500, F_HTTP429, F_STALL, F_NKINDS
};

static const char *const fault_names[F_NKINDS] = {
	NULL, "reset", "drop_done", "bad_frame", "bad_chunk", "http500", "http429", "stall"
};

struct opts {
	const char *host;
	long port, backends;
	const char *model;
	long max_model_len;
	struct gp_engine_cfg eng;	/* from the profile and the flags below */
	double prefill_tok_s, decode_ms, decode_ms_per_seq, ctx_ms_per_ktok;
	long kv_blocks;
	double *speed;
	size_t nspeed;
	int *roles;			/* enum gp_pd_role per engine (NULL: all both) */
	size_t nroles;
	struct gp_pd_link link;		/* pd: the KV handoff */
	double pd_fallback_p;		/* pd: the fault's probability */
	const char *receipt_header;
	double fault_p[F_NKINDS];
	const char *truth;
	size_t max_unsent;		/* bytes queued per connection before we drop it */
	uint64_t seed;
	int stats;
	long tokens_per_chunk;		/* tokens per content chunk after the first */
	long router_port;		/* 0: no router */
	int policy, router_fault;
	double balance;
};

struct sim;
struct stream;

struct backend {
	struct sim *sim;
	int idx;
	char addr[80];			/* "host:port" */
	struct evhttp *http;
	struct evconnlistener *listener;
	struct evhttp_bound_socket *bound;
	struct gp_kvcache *cache;
	struct gp_engine eng;
	struct event *timer;
	int64_t timer_at;		/* INT64_MAX: disarmed */
	struct gp_rng rng;		/* fault decisions */
	uint64_t nreq;			/* requests received (for generated ids) */
	struct stream *active;		/* doubly linked */
	/* metrics */
	uint64_t success[2];		/* finished_reason stop, length */
	struct gp_prom_hist ttft, tpot;
	struct gp_prom_hist queue, prefill;	/* per request, seconds */
	struct gp_prom_hist step_tokens, step_batch;	/* per engine step */
	struct gp_prom_hist lag;	/* token pacing lag, seconds */
	int role;			/* enum gp_pd_role */
	struct gp_prom_hist xfer, xfer_bytes;	/* pd: KV handoffs received (NIXL's names) */
};

struct sim {
	struct opts o;
	struct event_base *base;
	struct backend *b;
	int nb;
	FILE *truth;
	int64_t t0_ns;
	time_t created;			/* wall-clock seconds for "created" */
	int stopping;
	struct event *sigint, *sigterm;
	struct evbuffer *scratch;
	struct evhttp *rhttp;		/* the router (--router), or NULL */
	struct gp_router router;
	int *role;			/* [nb] enum gp_pd_role, the router's view */
	struct gp_rng pd_rng;		/* the pd_fallback draws */
	int pd_pre;			/* the prefill member of the request being routed, or -1 */
	/* pacing statistics */
	struct gp_hist lag_hist;		/* every token's lag (hist.h) */
	uint64_t lag_n, events, content_events;
	uint64_t slow_readers;		/* streams closed for not reading */
	uint64_t timer_cbs;		/* engine timer callbacks */
	int64_t timer_ns;		/* time spent inside them */
	int64_t timer_late_ns, timer_late_max_ns; /* how late they fired */
	int64_t lag_max_ns;
	double lag_sum_ms;
	/* the current one-second window of lags, for the overload warning */
	int64_t win_t0_ns, win_max_ns, warned_ns;
	uint64_t win_n, win_late, lag_warnings;
};

struct stream {
	struct backend *b;
	struct evhttp_request *req;
	struct evhttp_connection *evcon;
	struct stream *prev, *next;
	struct gp_seq seq;
	uint64_t *keys;
	int chat, streaming, include_usage;
	long max_tokens;
	enum fault fault;
	long fault_at;			/* token index where the fault acts */
	char *id;			/* X-Request-Id or generated */
	char *head;			/* {"id":"…","object":"…","created":…,"model":"…", */
	size_t headlen;
	uint64_t word_seed;
	int64_t t_recv_ns, t_first_ns, t_last_ns;
	int64_t lag_max_ns;		/* latest token write vs its schedule */
	long written;			/* content events handed to the socket */
	int stalled, aborted, done, truth_written;
	int chunked;			/* streamed reply with chunked encoding */
	int slow;			/* closed: the client did not keep up */
	struct evbuffer *text;		/* non-streaming: generated text */
	char pend[1024];		/* streaming: tokens not yet in a chunk */
	size_t pend_len;
	/* pd: a request whose prefill runs on another member.  The phantom is a
	 * stream of the prefill member with no HTTP request: it runs the prompt
	 * (one token) and hands the KV to its pd_dst; pd_ph and pd_timer are the
	 * destination's view of it while the prefill or the transfer is on. */
	int pd_phantom;
	struct stream *pd_dst, *pd_ph;
	struct backend *pd_pre;		/* the prefill member (receipts, metrics) */
	struct event *pd_timer;		/* the KV in flight */
	int64_t pd_xfer_ns;
};

static struct sim S;

/* ---- small helpers ---- */

static const char *const vocab[64] = {
	"the", "of", "and", "to", "in", "is", "it", "that", "for", "on", "as", "with",
	"was", "at", "by", "be", "this", "from", "or", "an", "are", "not", "but", "all",
	"can", "one", "has", "more", "time", "new", "may", "out", "data", "model", "token",
	"cache", "route", "load", "fast", "slow", "queue", "batch", "step", "node", "path",
	"key", "prefix", "serve", "ready", "shard", "block", "page", "graph", "rate", "peak",
	"mean", "tail", "good", "put", "ok", "yes", "no", "so", "we",
};

/* Append s to b as JSON string content (no quotes; buf.h's escapes). */
static void json_esc(struct evbuffer *b, const char *s)
{
	char out[6 * 256];

	for (size_t n = strlen(s), k; n; s += k, n -= k) {
		k = n < 256 ? n : 256;
		evbuffer_add(b, out, gp_json_escape(out, s, k));
	}
}

static char *evbuffer_strdup(struct evbuffer *b, size_t *lenp)
{
	size_t n = evbuffer_get_length(b);
	char *p = gp_xmalloc(n + 1);
	evbuffer_remove(b, p, n);
	p[n] = '\0';
	if (lenp)
		*lenp = n;
	return p;
}

static double ms_between(int64_t a, int64_t b)
{
	return (double)(b - a) / 1e6;
}

/* ---- truth log ---- */

static void truth_write(struct stream *s, int http_status, const char *end)
{
	struct sim *sim = s->b->sim;
	struct evbuffer *b;
	int64_t now = gp_now_ns();
	char *line;
	size_t n;

	if (s->truth_written)
		return;
	s->truth_written = 1;
	if (!sim->truth)
		return;
	b = evbuffer_new();
	evbuffer_add_printf(b, "{\"type\":\"truth\",\"id\":\"");
	json_esc(b, s->id);
	evbuffer_add_printf(b, "\",\"backend\":\"%s\",\"ttft_ms\":", s->b->addr);
	if (s->t_first_ns)
		evbuffer_add_printf(b, "%.3f", ms_between(s->t_recv_ns, s->t_first_ns));
	else
		evbuffer_add_printf(b, "null");
	evbuffer_add_printf(b, ",\"e2e_ms\":%.3f,\"in_tokens\":%ld,\"cached_tokens\":%ld,"
			    "\"out_tokens\":%ld,\"fault\":",
			    ms_between(s->t_recv_ns, now), s->seq.in_tokens,
			    s->seq.cached_tokens, s->written);
	if (s->fault)
		evbuffer_add_printf(b, "\"%s\"", fault_names[s->fault]);
	else
		evbuffer_add_printf(b, "null");
	evbuffer_add_printf(b, ",\"t_recv_s\":%.6f,\"http_status\":%d,\"stream\":%s,"
			    "\"queue_ms\":%.3f,\"prefill_ms\":",
			    gp_ns_to_s(s->t_recv_ns - sim->t0_ns), http_status,
			    s->streaming ? "true" : "false",
			    s->seq.t_admit_ns > s->t_recv_ns ?
			    ms_between(s->t_recv_ns, s->seq.t_admit_ns) : 0.0);
	if (s->seq.t_first_ns && s->seq.admitted_once)
		evbuffer_add_printf(b, "%.3f", ms_between(s->seq.t_admit_ns, s->seq.t_first_ns));
	else
		evbuffer_add_printf(b, "null");
	evbuffer_add_printf(b, ",\"preemptions\":%ld,\"steps\":%ld,\"step_batch_mean\":",
			    s->seq.preemptions, s->seq.steps);
	if (s->seq.steps)
		evbuffer_add_printf(b, "%.2f,\"step_tokens_mean\":%.2f",
				    s->seq.sum_batch / (double)s->seq.steps,
				    s->seq.sum_tokens / (double)s->seq.steps);
	else
		evbuffer_add_printf(b, "null,\"step_tokens_mean\":null");
	evbuffer_add_printf(b, ",\"lag_max_ms\":");
	if (s->written)
		evbuffer_add_printf(b, "%.3f", gp_ns_to_ms(s->lag_max_ns));
	else
		evbuffer_add_printf(b, "null");
	evbuffer_add_printf(b, ",\"end\":\"%s\"}\n", end);
	line = evbuffer_strdup(b, &n);
	evbuffer_free(b);
	if (fwrite(line, 1, n, sim->truth) != n || fflush(sim->truth))
		gp_warn("%s: %s", sim->o.truth, strerror(errno));
	free(line);
}

/* ---- stream bookkeeping ---- */

static void active_link(struct stream *s)
{
	struct backend *b = s->b;

	s->prev = NULL;
	s->next = b->active;
	if (b->active)
		b->active->prev = s;
	b->active = s;
}

static void active_unlink(struct stream *s)
{
	struct backend *b = s->b;

	if (s->prev)
		s->prev->next = s->next;
	else if (b->active == s)
		b->active = s->next;
	if (s->next)
		s->next->prev = s->prev;
	s->prev = s->next = NULL;
}

static void stream_free(struct stream *s)
{
	active_unlink(s);
	free(s->keys);
	free(s->id);
	free(s->head);
	if (s->text)
		evbuffer_free(s->text);
	free(s);
}

static void rearm(struct backend *b)
{
	int64_t t = gp_engine_next_ns(&b->eng);
	struct timeval tv;
	int64_t d;

	if (t == INT64_MAX) {
		if (b->timer_at != INT64_MAX)
			evtimer_del(b->timer);
		b->timer_at = INT64_MAX;
		return;
	}
	if (t == b->timer_at)
		return;
	/* libevent adds a relative timeout to its cached loop time; refresh it
	 * so that a timer armed late in a busy iteration does not fire early. */
	event_base_update_cache_time(b->sim->base);
	d = t - gp_now_ns();
	if (d < 0)
		d = 0;
	tv.tv_sec = (time_t)(d / GP_NS_PER_S);
	tv.tv_usec = (suseconds_t)((d % GP_NS_PER_S + 999) / 1000);
	if (tv.tv_usec >= 1000000) {
		tv.tv_sec++;
		tv.tv_usec -= 1000000;
	}
	evtimer_add(b->timer, &tv);
	b->timer_at = t;
}

#define ADVANCE_SLICE_NS (5 * GP_NS_PER_MS)	/* engine work per timer callback */
#define BEHIND_NS (10 * GP_NS_PER_MS)		/* "overloaded": backlog this old */

/* The time at which to submit, cancel or observe on b's engine: now, or,
 * when the engine is far behind (overload), the engine's own time, so that
 * these calls do not run the whole backlog at once (on_timer works it off
 * in slices). */
static int64_t engine_clock(struct backend *b, int64_t now)
{
	return gp_engine_next_ns(&b->eng) < now - BEHIND_NS ? b->eng.now_ns : now;
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct backend *b = arg;
	int64_t t0 = gp_now_ns();
	int64_t late = t0 - b->timer_at;

	if (late > 0) {
		b->sim->timer_late_ns += late;
		if (late > b->sim->timer_late_max_ns)
			b->sim->timer_late_max_ns = late;
	}
	b->timer_at = INT64_MAX;
	/* Event by event, and back to the loop after a slice of work: when the
	 * process cannot keep up (overload), catching up in one call took
	 * longer than the backlog it cleared, so the loop never again saw a
	 * signal, a closed connection or a new request. */
	for (;;) {
		int64_t nx = gp_engine_next_ns(&b->eng);

		if (nx > t0)
			break;
		gp_engine_advance(&b->eng, nx);
		if (gp_now_ns() - t0 > ADVANCE_SLICE_NS)
			break;
	}
	if (b->eng.oom)
		gp_die_nomem();
	rearm(b);
	b->sim->timer_cbs++;
	b->sim->timer_ns += gp_now_ns() - t0;
}

/* The connection is done for: end our part (the client went away, an abort
 * fault closed it, or shutdown).  Called from libevent's close callback. */
static void on_conn_close(struct evhttp_connection *evcon, void *arg)
{
	struct stream *s = arg;
	struct backend *b = s->b;

	evhttp_connection_set_closecb(evcon, NULL, NULL);
	if (evhttp_request_get_connection(s->req) == NULL)
		evhttp_request_free(s->req);	/* detached: ours */
	if (s->pd_ph)
		s->pd_ph->pd_dst = NULL;	/* the prefill runs on, then frees itself */
	if (s->pd_timer)
		event_free(s->pd_timer);	/* the KV was still on its way */
	gp_engine_cancel(&b->eng, &s->seq, engine_clock(b, gp_now_ns()));
	if (!b->sim->stopping)
		rearm(b);
	truth_write(s, 200, s->slow ? "slow_reader" : s->fault ? "fault" :
		    b->sim->stopping ? "shutdown" : "client_closed");
	stream_free(s);
}

/* Flush what is buffered for the connection (or, with raw == NULL and
 * discard set, throw it away), append raw bytes, and shut the socket down;
 * libevent then sees EOF and closes it (on_conn_close). */
static void abort_conn(struct stream *s, const char *raw, int discard)
{
	struct bufferevent *bev = evhttp_connection_get_bufferevent(s->evcon);
	struct evbuffer *out = bufferevent_get_output(bev);
	evutil_socket_t fd = bufferevent_getfd(bev);

	if (raw)
		evbuffer_add(out, raw, strlen(raw));
	/* A socket bufferevent freezes the front of its output buffer; thaw it
	 * to write out what is pending ourselves. */
	evbuffer_unfreeze(out, 1);
	if (discard)
		evbuffer_drain(out, evbuffer_get_length(out));
	while (evbuffer_get_length(out) > 0 && evbuffer_write(out, fd) > 0)
		;
	evbuffer_freeze(out, 1);
	shutdown(fd, SHUT_RDWR);
	s->aborted = 1;
}

/* ---- SSE output ---- */

#define LAG_LATE_NS (5 * GP_NS_PER_MS)	/* "late" for the overload warning */
#define LAG_WARN_EVERY_NS (10 * GP_NS_PER_S)
#define LAG_LATE_MIN 100			/* late tokens in a window, at least */

/* Warn (at most every 10 s) when over 1% of a second's tokens, and at least
 * 100 of them, were late:
 * the process cannot keep the model's schedule, and every latency measured
 * against it is inflated by up to the lag. */
static void lag_window(struct sim *sim, int64_t lag, int64_t now)
{
	sim->win_n++;
	sim->win_late += lag > LAG_LATE_NS;
	if (lag > sim->win_max_ns)
		sim->win_max_ns = lag;
	if (now - sim->win_t0_ns < GP_NS_PER_S)
		return;
	if (sim->win_late >= LAG_LATE_MIN && sim->win_late * 100 > sim->win_n &&
	    (!sim->warned_ns || now - sim->warned_ns >= LAG_WARN_EVERY_NS)) {
		gp_warn("pacing: %llu of %llu tokens in the last %.1f s were written more than "
			"%.0f ms late (up to %.1f ms): more than this process can write on time; "
			"see lag_max_ms in the truth log and gpsim:token_pacing_lag_seconds",
			(unsigned long long)sim->win_late, (unsigned long long)sim->win_n,
			gp_ns_to_s(now - sim->win_t0_ns), gp_ns_to_ms(LAG_LATE_NS),
			gp_ns_to_ms(sim->win_max_ns));
		sim->warned_ns = now;
		sim->lag_warnings++;
	}
	sim->win_t0_ns = now;
	sim->win_n = sim->win_late = 0;
	sim->win_max_ns = 0;
}

/* Pacing lag: from a token's scheduled time in the engine model to the
 * moment its bytes were handed to the kernel (or, when the socket was
 * full, queued behind what the kernel has not taken yet). */
static void record_lag(struct stream *s, int64_t t_sched, int64_t now)
{
	struct sim *sim = s->b->sim;
	int64_t lag = now - t_sched;

	if (lag < 0)
		lag = 0;
	if (lag > s->lag_max_ns)
		s->lag_max_ns = lag;
	gp_prom_hist_observe(&s->b->lag, (double)lag / 1e9);
	gp_hist_add(&sim->lag_hist, lag);
	lag_window(sim, lag, now);
	sim->lag_n++;
	sim->lag_sum_ms += (double)lag / 1e6;
	if (lag > sim->lag_max_ns)
		sim->lag_max_ns = lag;
}

/*
 * One SSE event as one HTTP chunk.  The write path of every token: when
 * nothing is queued for the connection, the chunk goes to the kernel at
 * once in one writev() — no copy into an evbuffer, no EV_WRITE to arm and
 * disarm (two epoll_ctl calls per token on the evhttp path), and the
 * pacing lag is measured when the bytes were really handed over.  Whatever
 * the kernel does not take, and every chunk behind it, is queued in the
 * connection's output buffer for libevent to write in order.  A reply that
 * is not chunked (HTTP/1.0 client) takes evhttp's path.
 */
static void send_event(struct stream *s, const char *data, size_t n)
{
	struct bufferevent *bev = s->chunked ? evhttp_connection_get_bufferevent(s->evcon) : NULL;
	struct evbuffer *out;
	char hdr[32];
	struct iovec iov[3];
	ssize_t w = 0;

	s->b->sim->events++;
	if (!bev) {
		struct evbuffer *eb = s->b->sim->scratch;

		evbuffer_add(eb, "data: ", 6);
		evbuffer_add(eb, data, n);
		evbuffer_add(eb, "\n\n", 2);
		evhttp_send_reply_chunk(s->req, eb);
		return;
	}
	out = bufferevent_get_output(bev);
	iov[0].iov_base = hdr;
	iov[0].iov_len = (size_t)snprintf(hdr, sizeof(hdr), "%zx\r\ndata: ", n + 8);
	iov[1].iov_base = (void *)data;
	iov[1].iov_len = n;
	iov[2].iov_base = (void *)"\n\n\r\n";
	iov[2].iov_len = 4;
	if (evbuffer_get_length(out) == 0) {
		w = writev(bufferevent_getfd(bev), iov, 3);
		if (w < 0)
			w = 0;	/* EAGAIN; or an error libevent's write will meet */
	}
	for (int i = 0; i < 3; i++) {
		size_t skip = (size_t)w < iov[i].iov_len ? (size_t)w : iov[i].iov_len;

		w -= (ssize_t)skip;
		if (skip < iov[i].iov_len)
			evbuffer_add(out, (const char *)iov[i].iov_base + skip, iov[i].iov_len - skip);
	}
}

static const char *token_word(const struct stream *s, long k)
{
	return vocab[gp_mix64(s->word_seed + (uint64_t)k) & 63];
}

/*
 * Token k of s into the stream (openai.c writes the chunk bytes, as vLLM
 * streams them).  Chat: a role-only chunk just before the first content
 * chunk.  With --tokens-per-chunk K (vLLM's stream interval, or speculative
 * decoding's accepted runs) token 1 goes alone, so TTFT stays exact, and
 * later tokens are written K to a chunk (the last chunk may carry fewer).
 */
static void send_token(struct stream *s, long k)
{
	char buf[4096];
	int n;
	const char *w = token_word(s, k);
	long per = s->b->sim->o.tokens_per_chunk;
	size_t wl = strlen(w);

	if (s->chat && k == 1 && (n = gp_oai_chunk_role(buf, sizeof(buf), s->head)) > 0)
		send_event(s, buf, (size_t)n);
	if (s->pend_len + wl + 1 < sizeof(s->pend)) {
		memcpy(s->pend + s->pend_len, w, wl);
		s->pend[s->pend_len + wl] = ' ';
		s->pend_len += wl + 1;
	}
	if (!(k == 1 || per <= 1 || (k - 1) % per == 0 || k >= s->seq.out_tokens))
		return;
	n = gp_oai_chunk_content(buf, sizeof(buf), s->head, s->chat, s->pend, s->pend_len);
	s->pend_len = 0;
	if (n < 0)
		return;
	send_event(s, buf, (size_t)n);
	s->b->sim->content_events++;
}

static const char *finish_reason(const struct stream *s)
{
	return s->seq.out_tokens >= s->max_tokens ? "length" : "stop";
}

static void send_final(struct stream *s)
{
	char buf[4096];
	int n = gp_oai_chunk_final(buf, sizeof(buf), s->head, s->chat, finish_reason(s));

	if (n > 0)
		send_event(s, buf, (size_t)n);
	if (s->include_usage) {
		n = gp_oai_chunk_usage(buf, sizeof(buf), s->head, s->seq.in_tokens, s->written);
		if (n > 0)
			send_event(s, buf, (size_t)n);
	}
	send_event(s, "[DONE]", 6);
}

/* Finish the reply (the request then belongs to libevent again). */
static void end_reply(struct stream *s, const char *end)
{
	evhttp_connection_set_closecb(s->evcon, NULL, NULL);
	s->done = 1;
	truth_write(s, 200, end);
	evhttp_send_reply_end(s->req);
	stream_free(s);
}

static void add_common_headers(struct stream *s, struct evkeyvalq *h)
{
	struct opts *o = &s->b->sim->o;

	evhttp_add_header(h, "X-Request-Id", s->id);
	if (o->receipt_header && !evhttp_find_header(h, o->receipt_header)) {
		char v[200];

		snprintf(v, sizeof(v), "prefill=%s;decode=%s",
			 s->pd_pre ? s->pd_pre->addr : s->b->addr, s->b->addr);
		evhttp_add_header(h, o->receipt_header, v);
	}
}

static void send_json(struct evhttp_request *req, int code, const char *reason,
		      struct evbuffer *body)
{
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
			  "application/json");
	evhttp_send_reply(req, code, reason, body);
}

/* Non-streaming: the whole response at the end. */
static void send_whole(struct stream *s)
{
	struct evbuffer *b = evbuffer_new();
	size_t tl;
	char *text = evbuffer_strdup(s->text, &tl);
	struct gp_buf w = { 0 };

	if (gp_oai_whole_write(&w, s->chat, s->id, (long long)s->b->sim->created, s->b->sim->o.model, text,
			       tl, finish_reason(s), s->seq.in_tokens, s->written))
		gp_die_nomem();
	evbuffer_add(b, w.p, w.len);
	gp_buf_release(&w);
	free(text);
	if (s->fault == F_BAD_FRAME || s->fault == F_DROP_DONE)	/* truncate: not JSON */
		evbuffer_drain(b, evbuffer_get_length(b) / 2);
	evhttp_connection_set_closecb(s->evcon, NULL, NULL);
	s->done = 1;
	s->t_first_ns = gp_now_ns();
	add_common_headers(s, evhttp_request_get_output_headers(s->req));
	truth_write(s, 200, s->fault ? "fault" : "done");
	send_json(s->req, 200, "OK", b);
	evbuffer_free(b);
	stream_free(s);
}

/* Bytes queued in user space for the stream's connection, not yet taken by
 * the kernel. */
static size_t unsent(const struct stream *s)
{
	struct bufferevent *bev = evhttp_connection_get_bufferevent(s->evcon);

	return bev ? evbuffer_get_length(bufferevent_get_output(bev)) : 0;
}

/* The engine's step callback: the batch it carries. */
static void on_step(const struct gp_step *st, void *arg)
{
	struct backend *b = arg;

	gp_prom_hist_observe(&b->step_tokens, (double)st->tokens);
	gp_prom_hist_observe(&b->step_batch, (double)st->batch);
}

/* At the first token: queue and prefill times in the model's clock. */
static void observe_first(struct backend *b, const struct gp_seq *q)
{
	gp_prom_hist_observe(&b->queue, gp_ns_to_s(q->t_admit_ns - q->t_submit_ns));
	gp_prom_hist_observe(&b->prefill, gp_ns_to_s(q->t_first_ns - q->t_admit_ns));
}

/* The engine's token callback: write token k of s, due at t_sched. */
static void pd_prefilled(struct stream *ph, struct backend *p);

static void on_token(struct gp_seq *seq, int64_t t_sched, void *arg)
{
	struct stream *s = seq->user;
	struct backend *b = arg;
	struct sim *sim = b->sim;
	long k = seq->emitted;
	int last = k >= seq->out_tokens;
	int64_t now;

	if (s->pd_phantom) {
		pd_prefilled(s, b);
		return;
	}
	if (s->aborted || s->stalled || s->done)
		return;		/* the engine keeps modelling; nothing is written */
	now = gp_now_ns();
	if (!s->streaming) {
		evbuffer_add_printf(s->text, "%s ", token_word(s, k));
		s->written++;
		record_lag(s, t_sched, now);
		if (k == 1)
			observe_first(b, seq);
		if (k == 1)
			gp_prom_hist_observe(&b->ttft, ms_between(s->t_recv_ns, now) / 1e3);
		else
			gp_prom_hist_observe(&b->tpot, ms_between(s->t_last_ns, now) / 1e3);
		s->t_last_ns = now;
		if (last && (s->fault == F_RESET || s->fault == F_BAD_CHUNK)) {
			abort_conn(s, NULL, 0);
			return;
		}
		if (last && s->fault == F_STALL) {
			s->stalled = 1;
			return;
		}
		if (last) {
			b->success[finish_reason(s)[0] == 'l']++;
			send_whole(s);
		}
		return;
	}
	if (unsent(s) > sim->o.max_unsent) {
		/* The client does not read (or reads slower than we generate):
		 * buffering for it would grow without bound, so let it go. */
		s->slow = 1;
		sim->slow_readers++;
		abort_conn(s, NULL, 1);
		return;
	}
	if ((s->fault == F_RESET || s->fault == F_BAD_CHUNK) && k == s->fault_at) {
		abort_conn(s, s->fault == F_BAD_CHUNK ? "zz-not-hex\r\ngarbage\r\n" : NULL, 0);
		return;
	}
	if (s->fault == F_BAD_FRAME && k == s->fault_at)
		send_event(s, "{\"id\":\"broken", 13);
	/* TTFT and TPOT from the moment the write starts (no client can see
	 * the token earlier); the lag to the moment it returned (the bytes are
	 * then the kernel's, and the write's own cost is counted). */
	send_token(s, k);
	record_lag(s, t_sched, gp_now_ns());
	s->written++;
	if (k == 1) {
		observe_first(b, seq);
		s->t_first_ns = now;
		gp_prom_hist_observe(&b->ttft, ms_between(s->t_recv_ns, now) / 1e3);
	} else {
		gp_prom_hist_observe(&b->tpot, ms_between(s->t_last_ns, now) / 1e3);
	}
	s->t_last_ns = now;
	if (s->fault == F_STALL) {
		s->stalled = 1;		/* wait for the client to go away */
		return;
	}
	if (!last)
		return;
	if (s->fault == F_DROP_DONE) {
		end_reply(s, "fault");
		return;
	}
	b->success[finish_reason(s)[0] == 'l']++;
	send_final(s);
	end_reply(s, s->fault ? "fault" : "done");
}

/* ---- request parsing ---- */

static enum fault pick_fault(struct backend *b)
{
	struct opts *o = &b->sim->o;
	enum fault f = F_NONE;

	for (int k = 1; k < F_NKINDS; k++) {
		if (o->fault_p[k] <= 0)
			continue;
		/* One draw per configured kind, always, so decisions reproduce. */
		if (gp_rng_uniform(&b->rng) < o->fault_p[k] && f == F_NONE)
			f = (enum fault)k;
	}
	return f;
}

/* A rejected completion request still gets a truth record. */
static void truth_reject(struct backend *b, const char *id, int64_t t_recv, long in_tokens,
			 enum fault f, int code)
{
	struct stream tmp;

	memset(&tmp, 0, sizeof(tmp));
	tmp.b = b;
	tmp.id = (char *)id;
	tmp.t_recv_ns = t_recv;
	tmp.seq.in_tokens = in_tokens;
	tmp.fault = f;
	truth_write(&tmp, code, code >= 500 || code == 429 ? "fault" : "rejected");
}

/* An error reply in vLLM's error object (openai.c writes it). */
static void send_error(struct evhttp_request *req, int code, const char *reason,
		       const char *type, const char *msg)
{
	struct gp_oai_reject rej;
	struct evbuffer *out = evbuffer_new();

	gp_oai_reject_set(&rej, code, type, "%s", msg);
	evbuffer_add(out, rej.body, strlen(rej.body));
	send_json(req, code, reason, out);
	evbuffer_free(out);
}

/* The one reject path: the status and body openai.c chose, and a truth record. */
static void send_reject(struct backend *b, struct evhttp_request *req, const struct gp_oai_reject *rej,
			const char *id, int64_t t_recv, long in_tokens, enum fault f)
{
	struct evbuffer *out = evbuffer_new();

	evbuffer_add(out, rej->body, strlen(rej->body));
	send_json(req, rej->status, rej->reason, out);
	evbuffer_free(out);
	truth_reject(b, id, t_recv, in_tokens, f, rej->status);
}

/* The request's id: its X-Request-Id, else gpsim-BACKEND-N. */
static const char *request_id(struct backend *b, struct evhttp_request *req, char *buf, size_t cap)
{
	const char *xid = evhttp_find_header(evhttp_request_get_input_headers(req), "X-Request-Id");

	if (xid && *xid)
		return xid;
	snprintf(buf, cap, "gpsim-%d-%llu", b->idx, (unsigned long long)b->nreq);
	return buf;
}

/* An injected HTTP fault answers instead of the engine: 1 with rej filled. */
static int fault_reply(struct evhttp_request *req, enum fault f, struct gp_oai_reject *rej)
{
	if (f == F_HTTP429) {
		evhttp_add_header(evhttp_request_get_output_headers(req), "Retry-After", "1");
		gp_oai_reject_set(rej, 429, "rate_limit_exceeded", "injected fault: too many requests");
		return 1;
	}
	if (f == F_HTTP500) {
		gp_oai_reject_set(rej, 500, "InternalServerError", "injected fault: internal server error");
		return 1;
	}
	return 0;
}

/* The stream of an accepted request q (its prompt keys move into it). */
static struct stream *stream_new(struct backend *b, struct evhttp_request *req, int chat,
				 const char *id, int64_t t_recv, const struct gp_simreq *q, enum fault f)
{
	struct stream *s = gp_xcalloc(1, sizeof(*s));
	s->b = b;
	s->req = req;
	s->evcon = evhttp_request_get_connection(req);
	if (b->sim->pd_pre >= 0 && &b->sim->b[b->sim->pd_pre] != b)
		s->pd_pre = &b->sim->b[b->sim->pd_pre];
	s->chat = chat;
	s->streaming = q->stream;
	s->include_usage = q->include_usage;
	s->max_tokens = q->max_tokens;
	s->fault = f;
	s->id = strdup(id);
	s->keys = q->tok.keys;
	s->t_recv_ns = t_recv;
	s->word_seed = gp_mix64(b->sim->o.seed ^ gp_kv_chain_end(q->tok.all));
	s->seq.in_tokens = q->tok.n;
	s->seq.keys = q->tok.keys;
	s->seq.nkeys = q->tok.nkeys;
	s->seq.user = s;
	if (q->ignore_eos) {
		s->seq.out_tokens = q->max_tokens;
	} else {
		long lo = q->min_tokens < 1 ? 1 : q->min_tokens > q->max_tokens ? q->max_tokens :
			  q->min_tokens;

		s->seq.out_tokens = lo + (long)(gp_mix64(s->word_seed ^ 0x656f73) %
						(uint64_t)(q->max_tokens - lo + 1));
	}
	switch (f) {
	case F_RESET:
	case F_BAD_CHUNK:
		s->fault_at = s->seq.out_tokens < 3 ? s->seq.out_tokens : 3;
		break;
	case F_BAD_FRAME:
		s->fault_at = s->seq.out_tokens < 2 ? s->seq.out_tokens : 2;
		break;
	default:
		s->fault_at = 0;
	}
	return s;
}

/* A request that could never be scheduled: vLLM refuses such a model length
 * at start-up; we refuse the request.  0, or -1 with rej filled. */
static int kv_fits(const struct backend *b, const struct stream *s, struct gp_oai_reject *rej)
{
	const struct opts *o = &b->sim->o;
	uint64_t need = gp_engine_blocks_needed(&b->eng, &s->seq);

	if (need <= (uint64_t)o->kv_blocks)
		return 0;
	gp_oai_reject_set(rej, 400, "BadRequestError", "This request needs %llu KV blocks of %ld tokens "
			  "(%ld prompt + %ld completion tokens) but the engine has %ld (--kv-blocks).",
			  (unsigned long long)need, o->eng.block_tokens, s->seq.in_tokens,
			  s->seq.out_tokens, o->kv_blocks);
	return -1;
}

/*
 * Accept a request or say why not: 0 with *sp its stream, or -1 with rej
 * filled and *f the fault its truth record names.  Checks in order: the body
 * (simreq.h), an injected HTTP fault, the KV capacity.
 */
static int admit(struct backend *b, struct evhttp_request *req, int chat, const char *id,
		 int64_t t_recv, struct gp_simreq *q, struct gp_oai_reject *rej, enum fault *f,
		 struct stream **sp)
{
	const struct opts *o = &b->sim->o;
	const struct gp_simreq_limits lim = {o->model, o->max_model_len, o->eng.block_tokens};
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	size_t blen = evbuffer_get_length(in);
	const char *ct = evhttp_find_header(evhttp_request_get_input_headers(req), "Content-Type");

	*f = F_NONE;
	if (gp_simreq_read(q, &lim, chat, ct, (const char *)evbuffer_pullup(in, -1), blen, rej))
		return -1;
	*f = pick_fault(b);
	if (fault_reply(req, *f, rej))
		return -1;
	*sp = stream_new(b, req, chat, id, t_recv, q, *f);
	if (kv_fits(b, *sp, rej)) {
		free((*sp)->id);
		free(*sp);
		*f = F_NONE;
		return -1;
	}
	return 0;
}

/* ---- disaggregated prefill/decode (sim/pd.h) ---- */

/* The KV has arrived on s's member: its full blocks join the pool's prefix
 * cache, and the request goes to the engine, which computes what they do
 * not hold and decodes. */
static void pd_arrived(evutil_socket_t fd, short what, void *arg)
{
	struct stream *s = arg;
	struct backend *d = s->b;

	event_free(s->pd_timer);
	s->pd_timer = NULL;
	gp_kvcache_query(d->cache, s->seq.keys, s->seq.nkeys);
	gp_prom_hist_observe(&d->xfer, (double)s->pd_xfer_ns / 1e9);
	gp_prom_hist_observe(&d->xfer_bytes, gp_pd_xfer_bytes(&d->sim->o.link, s->seq.in_tokens));
	if (gp_engine_submit(&d->eng, &s->seq, engine_clock(d, gp_now_ns())))
		gp_die(GP_EXIT_SOFTWARE, "engine refused a request that fits");
	rearm(d);
}

/* The phantom's one token: the prompt is in the prefill member's KV.  Hand
 * it to the destination (if its client is still there) after the link's
 * time, then let the phantom go. */
static void pd_prefilled(struct stream *ph, struct backend *p)
{
	struct stream *s = ph->pd_dst;
	struct timeval tv;

	observe_first(p, &ph->seq);
	if (s) {
		s->pd_ph = NULL;
		s->pd_xfer_ns = gp_pd_xfer_ns(&p->sim->o.link, s->seq.in_tokens);
		s->pd_timer = evtimer_new(p->sim->base, pd_arrived, s);
		if (!s->pd_timer)
			gp_die_nomem();
		tv.tv_sec = (time_t)(s->pd_xfer_ns / GP_NS_PER_S);
		tv.tv_usec = (suseconds_t)((s->pd_xfer_ns % GP_NS_PER_S) / 1000);
		event_base_update_cache_time(p->sim->base);
		evtimer_add(s->pd_timer, &tv);
	}
	free(ph->keys);
	free(ph);
}

/* s's prefill goes to its prefill member as a phantom stream: the prompt
 * (its own copy of the block keys) and one token. */
static void pd_prefill(struct stream *s, int64_t t_recv)
{
	struct backend *p = s->pd_pre;
	struct stream *ph = gp_xcalloc(1, sizeof(*ph));

	ph->b = p;
	ph->pd_phantom = 1;
	ph->pd_dst = s;
	ph->keys = s->seq.nkeys ? gp_xcalloc(s->seq.nkeys, sizeof(*ph->keys)) : NULL;
	if (s->seq.nkeys)
		memcpy(ph->keys, s->seq.keys, s->seq.nkeys * sizeof(*ph->keys));
	ph->seq.in_tokens = s->seq.in_tokens;
	ph->seq.out_tokens = 1;
	ph->seq.keys = ph->keys;
	ph->seq.nkeys = s->seq.nkeys;
	ph->seq.user = ph;
	s->pd_ph = ph;
	if (gp_engine_submit(&p->eng, &ph->seq, engine_clock(p, t_recv)))
		gp_die(GP_EXIT_SOFTWARE, "engine refused a prefill that fits");
	rearm(p);
}

/* An accepted stream on its way: headers, reply start, the engine. */
static void stream_start(struct backend *b, struct stream *s, int64_t t_recv)
{
	struct sim *sim = b->sim;
	struct opts *o = &sim->o;
	struct evhttp_request *req = s->req;
	char head[1024];

	if (gp_oai_chunk_head(head, sizeof(head), s->chat, s->id ? s->id : "", (long long)sim->created, o->model) < 0)
		gp_oai_chunk_head(head, sizeof(head), s->chat, "long-id", (long long)sim->created, o->model);
	s->head = strdup(head);
	s->headlen = s->head ? strlen(s->head) : 0;
	if (!s->streaming)
		s->text = evbuffer_new();
	if (!s->id || !s->head || (!s->streaming && !s->text))
		gp_die_nomem();

	active_link(s);
	evhttp_connection_set_closecb(s->evcon, on_conn_close, s);
	if (s->streaming) {
		struct evkeyvalq *h = evhttp_request_get_output_headers(req);

		evhttp_add_header(h, "Content-Type", "text/event-stream");
		evhttp_add_header(h, "Cache-Control", "no-cache");
		add_common_headers(s, h);
		evhttp_send_reply_start(req, 200, "OK");
		s->chunked = evhttp_find_header(h, "Transfer-Encoding") != NULL;
	}
	if (s->pd_pre) {
		pd_prefill(s, t_recv);
		return;
	}
	if (gp_engine_submit(&b->eng, &s->seq, engine_clock(b, t_recv)))
		gp_die(GP_EXIT_SOFTWARE, "engine refused a request that fits");	/* checked above */
	rearm(b);
}

static void handle_completion(struct backend *b, struct evhttp_request *req, int chat)
{
	int64_t t_recv = gp_now_ns();
	char idbuf[96];
	const char *id;
	struct gp_simreq q;
	struct gp_oai_reject rej;
	enum fault f;
	struct stream *s = NULL;

	b->nreq++;
	id = request_id(b, req, idbuf, sizeof(idbuf));
	if (admit(b, req, chat, id, t_recv, &q, &rej, &f, &s)) {
		send_reject(b, req, &rej, id, t_recv, q.tok.n, f);	/* the one reject path */
		free(q.tok.keys);
		return;
	}
	stream_start(b, s, t_recv);
}


/* ---- other endpoints ---- */

static void handle_models(struct backend *b, struct evhttp_request *req)
{
	struct evbuffer *out = evbuffer_new();

	evbuffer_add_printf(out, "{\"object\":\"list\",\"data\":[{\"id\":\"");
	json_esc(out, b->sim->o.model);
	evbuffer_add_printf(out, "\",\"object\":\"model\",\"created\":%lld,\"owned_by\":\"gp-sim\","
			    "\"root\":\"", (long long)b->sim->created);
	json_esc(out, b->sim->o.model);
	evbuffer_add_printf(out, "\",\"parent\":null,\"max_model_len\":%ld}]}",
			    b->sim->o.max_model_len);
	send_json(req, 200, "OK", out);
	evbuffer_free(out);
}

static const double ttft_buckets[] = {
	0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0,
	2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0,
};
static const double tpot_buckets[] = {
	0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0,
	2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0,
};
/* vLLM's request_queue/prefill_time_seconds buckets. */
static const double req_time_buckets[] = {
	0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
	120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0,
};
static const double step_tokens_buckets[] = {
	1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384,
};
static const double step_batch_buckets[] = {
	1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048,
};
/* gpsim:token_pacing_lag_seconds.  0.005 must stay a bound: gp-verify's
 * emulator_behind rule reads the tokens within it (validity.h GP_EMU_LATE_S). */
static const double lag_buckets[] = {
	0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0,
};
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* NIXL's own buckets (nixl_connector.py); bytes in powers of 4 from 1 KiB. */
static const double xfer_buckets[] = {
	0.001, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 5.0 };
static const double xfer_bytes_buckets[] = {
	1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
	268435456, 1073741824 };

static void handle_metrics(struct backend *b, struct evhttp_request *req)
{
	struct gp_prom p;
	struct gp_engine *e = &b->eng;
	const char *lab[] = { "model_name", b->sim->o.model, NULL };
	struct evbuffer *out;
	double kv_usage;

	gp_engine_advance(e, engine_clock(b, gp_now_ns()));
	rearm(b);
	if (e->oom)
		gp_die_nomem();
	kv_usage = (double)gp_engine_kv_blocks_used(e) / (double)b->sim->o.kv_blocks;
	if (kv_usage > 1)
		kv_usage = 1;
	gp_prom_init(&p);
	gp_prom_family(&p, "vllm:num_requests_running", "gauge",
		       "Number of requests in model execution batches.");
	gp_prom_sample(&p, "vllm:num_requests_running", NULL, lab, NULL, NULL,
		       (double)gp_engine_running(e));
	gp_prom_family(&p, "vllm:num_requests_waiting", "gauge",
		       "Number of requests waiting to be processed.");
	gp_prom_sample(&p, "vllm:num_requests_waiting", NULL, lab, NULL, NULL,
		       (double)gp_engine_waiting(e));
	gp_prom_family(&p, "vllm:kv_cache_usage_perc", "gauge",
		       "KV-cache usage. 1 means 100 percent usage.");
	gp_prom_sample(&p, "vllm:kv_cache_usage_perc", NULL, lab, NULL, NULL, kv_usage);
	gp_prom_family(&p, "vllm:prefix_cache_queries", "counter",
		       "Prefix cache queries, in terms of number of queried tokens.");
	gp_prom_sample(&p, "vllm:prefix_cache_queries", "_total", lab, NULL, NULL,
		       (double)e->prompt_tokens);
	gp_prom_family(&p, "vllm:prefix_cache_hits", "counter",
		       "Prefix cache hits, in terms of number of cached tokens.");
	gp_prom_sample(&p, "vllm:prefix_cache_hits", "_total", lab, NULL, NULL,
		       (double)e->cached_tokens);
	gp_prom_family(&p, "vllm:prompt_tokens", "counter", "Number of prefill tokens processed.");
	gp_prom_sample(&p, "vllm:prompt_tokens", "_total", lab, NULL, NULL, (double)e->prompt_tokens);
	gp_prom_family(&p, "vllm:generation_tokens", "counter",
		       "Number of generation tokens processed.");
	gp_prom_sample(&p, "vllm:generation_tokens", "_total", lab, NULL, NULL,
		       (double)e->generation_tokens);
	gp_prom_family(&p, "vllm:request_success", "counter", "Count of successfully processed requests.");
	gp_prom_sample(&p, "vllm:request_success", "_total", lab, "finished_reason", "stop",
		       (double)b->success[0]);
	gp_prom_sample(&p, "vllm:request_success", "_total", lab, "finished_reason", "length",
		       (double)b->success[1]);
	gp_prom_family(&p, "vllm:time_to_first_token_seconds", "histogram",
		       "Histogram of time to first token in seconds.");
	gp_prom_hist_write(&p, "vllm:time_to_first_token_seconds", lab, &b->ttft);
	gp_prom_family(&p, "vllm:time_per_output_token_seconds", "histogram",
		       "Histogram of time per output token in seconds.");
	gp_prom_hist_write(&p, "vllm:time_per_output_token_seconds", lab, &b->tpot);
	gp_prom_family(&p, "vllm:num_preemptions", "counter", "Cumulative number of preemption from the engine.");
	gp_prom_sample(&p, "vllm:num_preemptions", "_total", lab, NULL, NULL, (double)e->preemptions);
	gp_prom_family(&p, "vllm:request_queue_time_seconds", "histogram",
		       "Histogram of time spent in WAITING phase for request.");
	gp_prom_hist_write(&p, "vllm:request_queue_time_seconds", lab, &b->queue);
	gp_prom_family(&p, "vllm:request_prefill_time_seconds", "histogram",
		       "Histogram of time spent in PREFILL phase for request.");
	gp_prom_hist_write(&p, "vllm:request_prefill_time_seconds", lab, &b->prefill);
	gp_prom_family(&p, "vllm:iteration_tokens_total", "histogram",
		       "Histogram of number of tokens per engine_step.");
	gp_prom_hist_write(&p, "vllm:iteration_tokens_total", lab, &b->step_tokens);
	gp_prom_family(&p, "gpsim:iteration_batch_size", "histogram",
		       "Histogram of sequences per engine step (gp-sim).");
	gp_prom_hist_write(&p, "gpsim:iteration_batch_size", lab, &b->step_batch);
	gp_prom_family(&p, "gpsim:token_pacing_lag_seconds", "histogram",
		       "Histogram of how late tokens were written after their scheduled time (gp-sim).");
	gp_prom_hist_write(&p, "gpsim:token_pacing_lag_seconds", lab, &b->lag);
	if (b->role == GP_ROLE_DECODE) {
		/* vLLM's NIXL connector's names (vllm/distributed/kv_transfer/
		 * kv_connector/v1/nixl_connector.py, NixlPromMetrics), on the
		 * member that receives the KV. */
		gp_prom_family(&p, "vllm:nixl_xfer_time_seconds", "histogram",
			       "Histogram of transfer duration for NIXL KV Cache transfers.");
		gp_prom_hist_write(&p, "vllm:nixl_xfer_time_seconds", lab, &b->xfer);
		gp_prom_family(&p, "vllm:nixl_bytes_transferred", "histogram",
			       "Histogram of bytes transferred per NIXL KV Cache transfers.");
		gp_prom_hist_write(&p, "vllm:nixl_bytes_transferred", lab, &b->xfer_bytes);
	}
	if (p.err)
		gp_die_nomem();
	out = evbuffer_new();
	evbuffer_add(out, p.buf, p.len);
	gp_prom_release(&p);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
			  "text/plain; version=0.0.4; charset=utf-8");
	evhttp_send_reply(req, 200, "OK", out);
	evbuffer_free(out);
}

static void on_request(struct evhttp_request *req, void *arg)
{
	struct backend *b = arg;
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	enum evhttp_cmd_type m = evhttp_request_get_command(req);
	int get = m == EVHTTP_REQ_GET || m == EVHTTP_REQ_HEAD, post = m == EVHTTP_REQ_POST;

	if (!path)
		path = "/";
	if (b->sim->stopping) {
		send_error(req, 503, "Service Unavailable", "ServiceUnavailable", "shutting down");
		return;
	}
	if (strcmp(path, "/v1/chat/completions") == 0 || strcmp(path, "/v1/completions") == 0) {
		if (!post) {
			send_error(req, 405, "Method Not Allowed", "invalid_request_error",
				   "use POST");
			return;
		}
		handle_completion(b, req, path[4] == 'c' && path[5] == 'h');
	} else if (strcmp(path, "/health") == 0 && get) {
		evhttp_send_reply(req, 200, "OK", NULL);
	} else if (strcmp(path, "/v1/models") == 0 && get) {
		handle_models(b, req);
	} else if (strcmp(path, "/metrics") == 0 && get) {
		handle_metrics(b, req);
	} else if (strcmp(path, "/reset_prefix_cache") == 0 && post) {
		/* vLLM's: empty this engine's prefix cache; 200, empty body. */
		if (b->cache)
			gp_kvcache_reset(b->cache);
		evhttp_send_reply(req, 200, "OK", NULL);
	} else {
		send_error(req, 404, "Not Found", "NotFoundError", "no such endpoint");
	}
}

/* ---- the router (--router): a cache-aware gateway in front of the engines ----
 *
 * The router's request handler picks an engine (router.h) and hands the same
 * evhttp request to that engine's handler, in process: the stream then flows
 * from the engine with no extra hop, and the engine that served it is named
 * in X-GP-Backend.  For kv, each engine's prefix cache is asked, without
 * touching it, how many leading blocks of the prompt it holds. */

#define ROUTER_KEY_HEADER "x-gp-cache-key"

/* The prompt's block keys (t->keys, t->nkeys), as the engines will see
 * them; none when the body is not a request we understand (the engine then
 * answers the error). */
static void router_keys(struct sim *sim, struct evhttp_request *req, int chat, struct gp_simtok *t)
{
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	size_t blen = evbuffer_get_length(in);
	json_t *body = json_loadb((const char *)evbuffer_pullup(in, -1), blen, 0, NULL), *m;
	size_t i;

	gp_simtok_init(t, sim->o.eng.block_tokens);
	if (chat && json_is_array(json_object_get(body, "messages"))) {
		json_array_foreach(json_object_get(body, "messages"), i, m)
			if (json_is_object(m))
				gp_simtok_content(t, json_object_get(m, "content"));
	} else if (!chat && json_is_string(json_object_get(body, "prompt"))) {
		gp_simtok_text(t, json_string_value(json_object_get(body, "prompt")));
	}
	json_decref(body);
	if (t->nomem)
		gp_die_nomem();
}

/* What the router sees of one engine: its load (running + waiting, as of
 * now) and how many leading blocks of the prompt its prefix cache holds —
 * asked without touching the cache (no recency change, no insert). */
static void router_view(struct backend *b, const struct gp_simtok *t, long *load, size_t *prefix)
{
	gp_engine_advance(&b->eng, engine_clock(b, gp_now_ns()));
	rearm(b);
	*load = (long)(gp_engine_running(&b->eng) + gp_engine_waiting(&b->eng));
	*prefix = gp_kvcache_peek(b->cache, t->keys, t->nkeys);
}

static void router_metrics(struct sim *sim, struct evhttp_request *req)
{
	const char **names = calloc((size_t)sim->nb, sizeof(*names));
	struct gp_prom p;
	struct evbuffer *out = evbuffer_new();

	if (!names || !out)
		gp_die_nomem();
	for (int i = 0; i < sim->nb; i++)
		names[i] = sim->b[i].addr;
	gp_prom_init(&p);
	gp_router_metrics(&sim->router, &p, names);
	if (p.err)
		gp_die_nomem();
	evbuffer_add(out, p.buf, p.len);
	gp_prom_release(&p);
	free(names);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
			  "text/plain; version=0.0.4; charset=utf-8");
	evhttp_send_reply(req, 200, "OK", out);
	evbuffer_free(out);
}

/*
 * pd: the two members, the receipt the router writes for them (receipt
 * header, "prefill=HOST:PORT;decode=HOST:PORT"), and sim->pd_pre for the
 * stream that the decode member's handler makes.  Under the pd_fallback
 * fault the prefill member serves the whole request and the receipt names
 * it for both halves, or (every other draw) lacks the decode.
 */
static int router_pick_pd(struct sim *sim, struct evhttp_request *req, const struct gp_router_req *q)
{
	double u = sim->o.pd_fallback_p > 0 ? gp_rng_uniform(&sim->pd_rng) : 1;
	int fb = u < sim->o.pd_fallback_p, pre, dec;
	char v[200];

	gp_router_pick_pd(&sim->router, q, fb, &pre, &dec);
	if (pre < 0 || dec < 0)
		return 0;	/* --roles guarantees both (check_opts) */
	sim->pd_pre = fb ? -1 : pre;
	if (sim->o.receipt_header) {
		if (fb && u < sim->o.pd_fallback_p / 2)
			snprintf(v, sizeof(v), "prefill=%s", sim->b[pre].addr);
		else
			snprintf(v, sizeof(v), "prefill=%s;decode=%s", sim->b[pre].addr, sim->b[dec].addr);
		evhttp_add_header(evhttp_request_get_output_headers(req), sim->o.receipt_header, v);
	}
	return dec;
}

static void on_router_request(struct evhttp_request *req, void *arg)
{
	struct sim *sim = arg;
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	const char *key = evhttp_find_header(evhttp_request_get_input_headers(req), ROUTER_KEY_HEADER);
	long *load = gp_xcalloc((size_t)sim->nb, sizeof(*load));
	size_t *prefix = gp_xcalloc((size_t)sim->nb, sizeof(*prefix));
	struct gp_router_req q = { key != NULL, key ? gp_router_key_hash(key, strlen(key)) : 0,
				   prefix, load };
	struct gp_simtok t;
	int e = 0;

	if (!path)
		path = "/";
	if (!strcmp(path, "/metrics") && evhttp_request_get_command(req) == EVHTTP_REQ_GET) {
		router_metrics(sim, req);
	} else {
		if (!strcmp(path, "/v1/chat/completions") || !strcmp(path, "/v1/completions")) {
			router_keys(sim, req, path[4] == 'c' && path[5] == 'h', &t);
			for (int i = 0; i < sim->nb; i++)
				router_view(&sim->b[i], &t, &load[i], &prefix[i]);
			free(t.keys);
			if (sim->router.active == GP_ROUTER_PD || sim->router.active == GP_ROUTER_PD_RR)
				e = router_pick_pd(sim, req, &q);
			else
				e = gp_router_pick(&sim->router, &q, NULL);
		}
		evhttp_add_header(evhttp_request_get_output_headers(req), "X-GP-Backend",
				  sim->b[e].addr);
		on_request(req, &sim->b[e]);
		sim->pd_pre = -1;
	}
	free(load);
	free(prefix);
}

static void router_setup(struct sim *sim)
{
	struct opts *o = &sim->o;
	struct evhttp_bound_socket *bs;
	int one = 1;

	if (gp_router_init(&sim->router, (enum gp_router_policy)o->policy, sim->nb, o->balance,
			   (enum gp_router_fault)o->router_fault))
		gp_die_nomem();
	sim->role = gp_xcalloc((size_t)sim->nb, sizeof(*sim->role));
	for (int i = 0; i < sim->nb; i++)
		sim->role[i] = sim->b[i].role;
	sim->router.role = sim->role;
	gp_rng_seed(&sim->pd_rng, o->seed ^ 0x7064);
	sim->rhttp = evhttp_new(sim->base);
	if (!sim->rhttp)
		gp_die_nomem();
	evhttp_set_gencb(sim->rhttp, on_router_request, sim);
	evhttp_set_timeout(sim->rhttp, 3600);
	evhttp_set_max_body_size(sim->rhttp, 64 << 20);
	bs = evhttp_bind_socket_with_handle(sim->rhttp, o->host, (ev_uint16_t)o->router_port);
	if (!bs)
		gp_die(GP_EXIT_UNAVAILABLE, "cannot listen on %s:%ld: %s", o->host, o->router_port,
		       strerror(errno));
	/* Accepted sockets inherit TCP_NODELAY, as on the engines' ports. */
	setsockopt(evhttp_bound_socket_get_fd(bs), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (o->router_fault == GP_ROUTER_FALLBACK)
		gp_warn("router: KV events unavailable at start: falling back to round robin");
	gp_info("router on %s:%ld: policy %s, mode %s", o->host, o->router_port,
		gp_router_policy_name((enum gp_router_policy)o->policy),
		gp_router_mode_name(&sim->router));
}

/* ---- stats, shutdown ---- */

/* Type 7 (hist.h), in ms; 0 before the first token. */
static double lag_quantile(const struct sim *sim, double q)
{
	return sim->lag_n ? gp_hist_quantile(&sim->lag_hist, q) / 1e6 : 0;
}

static void print_stats(struct sim *sim)
{
	double up = gp_ns_to_s(gp_now_ns() - sim->t0_ns);
	double p50 = lag_quantile(sim, 0.5), p99 = lag_quantile(sim, 0.99),
	       p999 = lag_quantile(sim, 0.999), mx = gp_ns_to_ms(sim->lag_max_ns);

	struct rusage ru;
	double cpu_s = 0;

	if (getrusage(RUSAGE_SELF, &ru) == 0)
		cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
			(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	fprintf(stderr, "%s: stats: uptime %.3f s, cpu %.3f s, %llu SSE events, %llu tokens written; "
		"pacing lag ms p50 %.3f p99 %.3f p99.9 %.3f max %.3f mean %.3f; "
		"%llu timer callbacks (late by %.3f ms on average, %.3f ms at most), "
		"%.2f us inside per token, %.2f us cpu per event; %llu slow readers closed\n",
		gp_progname(), up, cpu_s, (unsigned long long)sim->events,
		(unsigned long long)sim->lag_n, p50, p99, p999, mx,
		sim->lag_n ? sim->lag_sum_ms / (double)sim->lag_n : 0.0,
		(unsigned long long)sim->timer_cbs,
		sim->timer_cbs ? gp_ns_to_ms(sim->timer_late_ns) / (double)sim->timer_cbs : 0.0,
		gp_ns_to_ms(sim->timer_late_max_ns),
		sim->lag_n ? (double)sim->timer_ns / 1e3 / (double)sim->lag_n : 0.0,
		sim->events ? cpu_s * 1e6 / (double)sim->events : 0.0,
		(unsigned long long)sim->slow_readers);
	if (sim->truth) {
		fprintf(sim->truth, "{\"type\":\"sim_stats\",\"uptime_s\":%.3f,\"events\":%llu,"
			"\"tokens\":%llu,\"lag_p50_ms\":%.3f,\"lag_p99_ms\":%.3f,"
			"\"lag_p999_ms\":%.3f,\"lag_max_ms\":%.3f,\"lag_mean_ms\":%.4f,"
			"\"slow_readers\":%llu,\"lag_warnings\":%llu}\n",
			up, (unsigned long long)sim->events, (unsigned long long)sim->lag_n,
			p50, p99, p999, mx,
			sim->lag_n ? sim->lag_sum_ms / (double)sim->lag_n : 0.0,
			(unsigned long long)sim->slow_readers, (unsigned long long)sim->lag_warnings);
		fflush(sim->truth);
	}
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct sim *sim = arg;

	if (sim->stopping)
		_exit(128 + (int)sig);
	sim->stopping = 1;
	/* Stop accepting, then close every connection: the close callbacks
	 * write the remaining truth records ("end":"shutdown"). */
	for (int i = 0; i < sim->nb; i++) {
		struct backend *b = &sim->b[i];

		if (b->bound)
			evhttp_del_accept_socket(b->http, b->bound);
		b->bound = NULL;
		evhttp_free(b->http);
		b->http = NULL;
		evtimer_del(b->timer);
	}
	if (sim->rhttp) {		/* the router's connections too */
		evhttp_free(sim->rhttp);
		sim->rhttp = NULL;
	}
	event_base_loopexit(sim->base, NULL);
}

/* ---- options ---- */

static void parse_speed(struct opts *o, const char *arg)
{
	char *dup = gp_xstrdup(arg), *save = NULL, *tokn;
	size_t n = 0;

	free(o->speed);
	o->speed = gp_xcalloc(strlen(arg) / 2 + 2, sizeof(double));
	for (tokn = strtok_r(dup, ",", &save); tokn; tokn = strtok_r(NULL, ",", &save))
		o->speed[n++] = gp_opt_double("--speed", tokn, 1e-6, 1e6);
	if (!n)
		gp_usage_error("--speed: '%s' is not a list of numbers", arg);
	o->nspeed = n;
	free(dup);
}

static void parse_roles(struct opts *o, const char *arg)
{
	char *dup = gp_xstrdup(arg), *save = NULL, *tokn;
	size_t n = 0;

	free(o->roles);
	o->roles = gp_xcalloc(strlen(arg) / 2 + 2, sizeof(int));
	for (tokn = strtok_r(dup, ",", &save); tokn; tokn = strtok_r(NULL, ",", &save))
		if ((o->roles[n++] = gp_pd_role_parse(tokn)) < 0)
			gp_usage_error("--roles: '%s' is not both, prefill or decode", tokn);
	if (!n)
		gp_usage_error("--roles: '%s' is not a list of roles", arg);
	o->nroles = n;
	free(dup);
}

static int role_of(const struct opts *o, long i)
{
	return o->nroles ? o->roles[(size_t)i < o->nroles ? (size_t)i : o->nroles - 1] : GP_ROLE_BOTH;
}

static void parse_fault(struct opts *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	int k;

	if (!eq)
		gp_usage_error("--fault: '%s' is not KIND=PROB", arg);
	if ((size_t)(eq - arg) == 11 && !strncmp(arg, "pd_fallback", 11)) {
		o->pd_fallback_p = gp_opt_double("--fault", eq + 1, 0, 1);
		return;
	}
	for (k = 1; k < F_NKINDS; k++)
		if (strlen(fault_names[k]) == (size_t)(eq - arg) &&
		    strncmp(arg, fault_names[k], (size_t)(eq - arg)) == 0)
			break;
	if (k == F_NKINDS)
		gp_usage_error("--fault: unknown kind '%.*s' (reset, drop_done, bad_frame, "
			       "bad_chunk, http500, http429, stall, pd_fallback)", (int)(eq - arg), arg);
	o->fault_p[k] = gp_opt_double("--fault", eq + 1, 0, 1);
}

/*
 * Engine profiles: the step-time coefficients, budget, batch limit and pool
 * of a named model on a named GPU.  How each number is derived, and from
 * which public source, is in gp-sim(1), section Profiles; keep the two in
 * step.  "sim" is the scale of the demo and the tests, not a GPU.
 */
struct profile {
	const char *name;
	double prefill_tok_s, decode_ms, decode_ms_per_seq, ctx_ms_per_ktok;
	long budget, max_batch, kv_blocks, block_tokens;
	double kv_bytes_per_token;	/* 2 × layers × KV heads × head dim × 2 B (bf16) */
};

static const struct profile profiles[] = {
	{ "sim", 20000, 8, 0.25, 0, 2048, 64, 4096, 16, 16384 },
	{ "llama3-8b-h100", 30800, 6.0, 0.0325, 0.049, 8192, 1024, 28000, 16, 131072 },
	{ "llama3-8b-a100", 9700, 9.85, 0.103, 0.080, 2048, 256, 28000, 16, 131072 },
};

/* The --profile argument, looked for before the other options so that
 * they override it wherever they stand on the command line. */
static const struct profile *find_profile(int argc, char **argv)
{
	const char *name = "sim";

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc)
			name = argv[++i];
		else if (strncmp(argv[i], "--profile=", 10) == 0)
			name = argv[i] + 10;
	}
	for (size_t k = 0; k < sizeof(profiles) / sizeof(profiles[0]); k++)
		if (strcmp(profiles[k].name, name) == 0)
			return &profiles[k];
	gp_usage_error("--profile: unknown profile '%s' (sim, llama3-8b-h100, llama3-8b-a100)", name);
	return NULL;
}

static void apply_profile(struct opts *o, const struct profile *pr)
{
	o->prefill_tok_s = pr->prefill_tok_s;
	o->decode_ms = pr->decode_ms;
	o->decode_ms_per_seq = pr->decode_ms_per_seq;
	o->ctx_ms_per_ktok = pr->ctx_ms_per_ktok;
	o->eng.budget = pr->budget;
	o->eng.max_batch = pr->max_batch;
	o->kv_blocks = pr->kv_blocks;
	o->eng.block_tokens = pr->block_tokens;
	o->eng.speed = 1;
	o->link.bytes_per_token = pr->kv_bytes_per_token;
}

/* The model of engine.h from the flags: α = decode_ms, β = 1000 /
 * prefill_tok_s, γ = decode_ms_per_seq, δ = ctx_ms_per_ktok / 1000. */
static void engine_cfg(struct opts *o)
{
	o->eng.alpha_ms = o->decode_ms;
	o->eng.beta_ms = 1000.0 / o->prefill_tok_s;
	o->eng.gamma_ms = o->decode_ms_per_seq;
	o->eng.delta_ms = o->ctx_ms_per_ktok / 1000.0;
}

enum { O_HOST = 256, O_MML, O_PROFILE, O_PREFILL, O_DMS, O_DMSSEQ, O_CTX, O_BUDGET, O_NOCHUNK,
       O_BATCH, O_KVB, O_BT, O_SPEED, O_RECEIPT, O_FAULT, O_TRUTH, O_UNSENT, O_SEED, O_STATS,
       O_HELP, O_VERSION, O_ROUTER, O_POLICY, O_BALANCE, O_RFAULT, O_TPC,
       O_ROLES, O_LINK, O_XBASE, O_KVBPT };

/* The engine's options: 1 when c was one of them. */
static int parse_engine_opt(struct opts *o, int c, const char *arg)
{
	switch (c) {
	case O_PROFILE: break;	/* find_profile */
	case O_PREFILL: o->prefill_tok_s = gp_opt_double("--prefill-tok-s", arg, 1e-3, 1e12); break;
	case O_DMS: o->decode_ms = gp_opt_double("--decode-ms", arg, 0, 1e6); break;
	case O_DMSSEQ: o->decode_ms_per_seq = gp_opt_double("--decode-ms-per-seq", arg, 0, 1e6); break;
	case O_CTX: o->ctx_ms_per_ktok = gp_opt_double("--ctx-ms-per-ktok", arg, 0, 1e6); break;
	case O_BUDGET: o->eng.budget = gp_opt_long("--max-num-batched-tokens", arg, 1, 100000000); break;
	case O_NOCHUNK: o->eng.no_chunking = 1; break;
	case O_BATCH: o->eng.max_batch = gp_opt_long("--max-batch", arg, 1, 1000000); break;
	case O_KVB: o->kv_blocks = gp_opt_long("--kv-blocks", arg, 1, 1L << 30); break;
	case O_BT: o->eng.block_tokens = gp_opt_long("--block-tokens", arg, 1, 1000000); break;
	default: return 0;
	}
	return 1;
}

static const struct option longopts[] = {
	{ "port", required_argument, NULL, 'p' },
	{ "backends", required_argument, NULL, 'n' },
	{ "host", required_argument, NULL, O_HOST },
	{ "model", required_argument, NULL, 'm' },
	{ "max-model-len", required_argument, NULL, O_MML },
	{ "profile", required_argument, NULL, O_PROFILE },
	{ "prefill-tok-s", required_argument, NULL, O_PREFILL },
	{ "decode-ms", required_argument, NULL, O_DMS },
	{ "decode-ms-per-seq", required_argument, NULL, O_DMSSEQ },
	{ "ctx-ms-per-ktok", required_argument, NULL, O_CTX },
	{ "max-num-batched-tokens", required_argument, NULL, O_BUDGET },
	{ "no-chunked-prefill", no_argument, NULL, O_NOCHUNK },
	{ "max-batch", required_argument, NULL, O_BATCH },
	{ "kv-blocks", required_argument, NULL, O_KVB },
	{ "block-tokens", required_argument, NULL, O_BT },
	{ "speed", required_argument, NULL, O_SPEED },
	{ "roles", required_argument, NULL, O_ROLES },
	{ "kv-link-gbps", required_argument, NULL, O_LINK },
	{ "kv-xfer-base-ms", required_argument, NULL, O_XBASE },
	{ "kv-bytes-per-token", required_argument, NULL, O_KVBPT },
	{ "receipt-header", required_argument, NULL, O_RECEIPT },
	{ "fault", required_argument, NULL, O_FAULT },
	{ "truth", required_argument, NULL, O_TRUTH },
	{ "max-unsent-kb", required_argument, NULL, O_UNSENT },
	{ "seed", required_argument, NULL, O_SEED },
	{ "tokens-per-chunk", required_argument, NULL, O_TPC },
	{ "stats", no_argument, NULL, O_STATS },
	{ "router", required_argument, NULL, O_ROUTER },
	{ "policy", required_argument, NULL, O_POLICY },
	{ "balance-factor", required_argument, NULL, O_BALANCE },
	{ "router-fault", required_argument, NULL, O_RFAULT },
	{ "help", no_argument, NULL, O_HELP },
	{ "version", no_argument, NULL, O_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* The defaults, before the profile and the options. */
static void opt_defaults(struct opts *o)
{
	memset(o, 0, sizeof(*o));
	o->host = "127.0.0.1";
	o->port = -1;
	o->backends = 1;
	o->model = "gp-sim";
	o->max_model_len = 32768;
	o->seed = 1;
	o->max_unsent = 256 << 10;
	o->policy = GP_ROUTER_KV;
	o->balance = 1.25;
	o->link.gbit_s = 100;
	o->link.base_ms = 0.5;
}

/* The options judged together, after the last one is read. */
static void check_opts(const struct opts *o)
{
	if (o->port < 0)
		gp_usage_error("--port is required");
	if (o->port + o->backends - 1 > 65535)
		gp_usage_error("--port %ld with --backends %ld runs past port 65535",
			       o->port, o->backends);
	if (o->router_port && o->router_port >= o->port && o->router_port < o->port + o->backends)
		gp_usage_error("--router %ld is one of the engines' ports", o->router_port);
	if (o->decode_ms + o->decode_ms_per_seq <= 0)
		gp_usage_error("--decode-ms and --decode-ms-per-seq cannot both be 0");
	if ((o->policy == GP_ROUTER_PD || o->policy == GP_ROUTER_PD_RR) && o->router_port) {
		int pre = 0, dec = 0;

		for (long i = 0; i < o->backends; i++) {
			pre += gp_pd_can_prefill((enum gp_pd_role)role_of(o, i));
			dec += gp_pd_can_decode((enum gp_pd_role)role_of(o, i));
		}
		if (!pre || !dec)
			gp_usage_error("--policy pd: --roles gives no engine that may %s",
				       pre ? "decode" : "prefill");
	}
	if (o->pd_fallback_p > 0 && o->policy != GP_ROUTER_PD && o->policy != GP_ROUTER_PD_RR)
		gp_usage_error("--fault pd_fallback needs --router with --policy pd");
}

static void parse_opts(struct opts *o, int argc, char **argv)
{
	int c;

	opt_defaults(o);
	apply_profile(o, find_profile(argc, argv));
	while ((c = gp_getopt(argc, argv, "p:n:m:h", longopts)) != -1) {
		if (parse_engine_opt(o, c, optarg))
			continue;
		switch (c) {
		case 'p': o->port = gp_opt_long("--port", optarg, 1, 65535); break;
		case 'n': o->backends = gp_opt_long("--backends", optarg, 1, 1024); break;
		case O_HOST: o->host = optarg; break;
		case 'm':
			if (!*optarg)
				gp_usage_error("--model: empty");
			o->model = optarg;
			break;
		case O_MML: o->max_model_len = gp_opt_long("--max-model-len", optarg, 1, 100000000); break;
		case O_SPEED: parse_speed(o, optarg); break;
		case O_ROLES: parse_roles(o, optarg); break;
		case O_LINK: o->link.gbit_s = gp_opt_double("--kv-link-gbps", optarg, 1e-6, 1e6); break;
		case O_XBASE: o->link.base_ms = gp_opt_double("--kv-xfer-base-ms", optarg, 0, 1e6); break;
		case O_KVBPT:
			o->link.bytes_per_token = gp_opt_double("--kv-bytes-per-token", optarg, 1, 1e9);
			break;
		case O_RECEIPT:
			if (!*optarg || strpbrk(optarg, ": \t\r\n"))
				gp_usage_error("--receipt-header: '%s' is not a header name", optarg);
			o->receipt_header = optarg;
			break;
		case O_FAULT: parse_fault(o, optarg); break;
		case O_TRUTH: o->truth = optarg; break;
		case O_UNSENT:
			o->max_unsent = (size_t)gp_opt_long("--max-unsent-kb", optarg, 1, 1L << 30) << 10;
			break;
		case O_SEED: o->seed = gp_opt_u64("--seed", optarg); break;
		case O_TPC: o->tokens_per_chunk = gp_opt_long("--tokens-per-chunk", optarg, 1, 64); break;
		case O_STATS: o->stats = 1; break;
		case O_ROUTER: o->router_port = gp_opt_long("--router", optarg, 1, 65535); break;
		case O_POLICY:
			if ((o->policy = gp_router_policy_parse(optarg)) < 0)
				gp_usage_error("--policy: '%s' is not rr, chash, bounded, kv, pd or pd_rr", optarg);
			break;
		case O_BALANCE: o->balance = gp_opt_double("--balance-factor", optarg, 1.000001, 100); break;
		case O_RFAULT:
			if ((o->router_fault = gp_router_fault_parse(optarg)) < 0)
				gp_usage_error("--router-fault: '%s' is not kv_events_down or fallback", optarg);
			break;
		case 'h':
		case O_HELP: gp_print_help(usage);
		case O_VERSION: gp_print_version();
		default: gp_usage_error("option not handled");
		}
	}
	if (optind < argc)
		gp_usage_error("unexpected argument '%s'", argv[optind]);
	check_opts(o);
	engine_cfg(o);
}

static void setup_backend(struct sim *sim, int i)
{
	struct backend *b = &sim->b[i];
	struct opts *o = &sim->o;
	struct gp_engine_cfg cfg = o->eng;
	struct evutil_addrinfo hints, *ai = NULL;
	char port[16];
	int port_i = (int)(o->port + i);

	b->sim = sim;
	b->idx = i;
	snprintf(b->addr, sizeof(b->addr), strchr(o->host, ':') ? "[%s]:%d" : "%s:%d",
		 o->host, port_i);
	cfg.speed = o->nspeed ? o->speed[(size_t)i < o->nspeed ? (size_t)i : o->nspeed - 1] : 1;
	b->role = role_of(o, i);
	b->cache = gp_kvcache_new((size_t)o->kv_blocks);
	if (!b->cache)
		gp_die(GP_EXIT_SOFTWARE, "out of memory for --kv-blocks %ld", o->kv_blocks);
	gp_engine_init(&b->eng, &cfg, b->cache, on_token, b);
	b->eng.on_step = on_step;
	gp_rng_seed(&b->rng, o->seed + GP_GOLDEN64 * (uint64_t)(i + 1));
	gp_prom_hist_init(&b->ttft, ttft_buckets, sizeof(ttft_buckets) / sizeof(ttft_buckets[0]));
	gp_prom_hist_init(&b->tpot, tpot_buckets, sizeof(tpot_buckets) / sizeof(tpot_buckets[0]));
	gp_prom_hist_init(&b->queue, req_time_buckets, NELEM(req_time_buckets));
	gp_prom_hist_init(&b->prefill, req_time_buckets, NELEM(req_time_buckets));
	gp_prom_hist_init(&b->step_tokens, step_tokens_buckets, NELEM(step_tokens_buckets));
	gp_prom_hist_init(&b->step_batch, step_batch_buckets, NELEM(step_batch_buckets));
	gp_prom_hist_init(&b->lag, lag_buckets, NELEM(lag_buckets));
	gp_prom_hist_init(&b->xfer, xfer_buckets, NELEM(xfer_buckets));
	gp_prom_hist_init(&b->xfer_bytes, xfer_bytes_buckets, NELEM(xfer_bytes_buckets));
	b->timer = evtimer_new(sim->base, on_timer, b);
	b->timer_at = INT64_MAX;
	b->http = evhttp_new(sim->base);
	if (!b->timer || !b->http)
		gp_die_nomem();
	evhttp_set_gencb(b->http, on_request, b);
	evhttp_set_timeout(b->http, 3600);
	evhttp_set_max_body_size(b->http, 64 << 20);
	evhttp_set_allowed_methods(b->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD |
				   EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE);

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = EVUTIL_AI_PASSIVE | EVUTIL_AI_NUMERICHOST | EVUTIL_AI_NUMERICSERV;
	snprintf(port, sizeof(port), "%d", port_i);
	if (evutil_getaddrinfo(o->host, port, &hints, &ai) || !ai)
		gp_usage_error("--host: '%s' is not a numeric address", o->host);
	b->listener = evconnlistener_new_bind(sim->base, NULL, NULL,
					      LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_FREE |
					      LEV_OPT_CLOSE_ON_EXEC, 4096,
					      ai->ai_addr, (int)ai->ai_addrlen);
	evutil_freeaddrinfo(ai);
	if (!b->listener)
		gp_die(GP_EXIT_UNAVAILABLE, "cannot listen on %s: %s", b->addr, strerror(errno));
	{
		/* Accepted sockets inherit TCP_NODELAY (Linux): a token leaves at
		 * once instead of waiting for the client's delayed ACK (~40 ms). */
		int one = 1;

		setsockopt(evconnlistener_get_fd(b->listener), IPPROTO_TCP, TCP_NODELAY,
			   &one, sizeof(one));
	}
	b->bound = evhttp_bind_listener(b->http, b->listener);
	if (!b->bound)
		gp_die(GP_EXIT_UNAVAILABLE, "cannot serve on %s", b->addr);
}

int main(int argc, char **argv)
{
	struct sim *sim = &S;
	struct event_config *cfg;

	gp_log_init(argv[0]);
	sim->pd_pre = -1;
	parse_opts(&sim->o, argc, argv);
	signal(SIGPIPE, SIG_IGN);
	gp_proc_raise_nofile();
	sim->t0_ns = gp_now_ns();
	sim->win_t0_ns = sim->t0_ns;
	sim->created = time(NULL);
	if (sim->o.truth) {
		sim->truth = fopen(sim->o.truth, "a");
		if (!sim->truth)
			gp_die(GP_EXIT_IOERR, "--truth: %s: %s", sim->o.truth, strerror(errno));
	}
	/* Keep freed memory: trimming and re-faulting the heap on every burst
	 * of SSE writes showed up as page faults in the token path. */
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	mallopt(M_TOP_PAD, 16 << 20);
	cfg = event_config_new();
	/* Precise (timerfd) timers.  No cached time: libevent computes the next
	 * epoll timeout from its loop-time cache, which is stale by however long
	 * the previous iteration's write callbacks ran, so every engine timer
	 * fired that much late (measured: ~17 ms at 2000 streams).  Epoll changes
	 * batched per loop iteration rather than one epoll_ctl per token. */
	event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER | EVENT_BASE_FLAG_NO_CACHE_TIME |
			      EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST);
	sim->base = event_base_new_with_config(cfg);
	event_config_free(cfg);
	if (!sim->base)
		gp_die(GP_EXIT_SOFTWARE, "libevent: cannot create an event base");
	sim->scratch = evbuffer_new();
	sim->nb = (int)sim->o.backends;
	sim->b = calloc((size_t)sim->nb, sizeof(*sim->b));
	if (!sim->b || !sim->scratch)
		gp_die_nomem();
	/* Signals first: a client may see the port open (and a test may signal
	 * us) as soon as listen() returns. */
	sim->sigint = evsignal_new(sim->base, SIGINT, on_signal, sim);
	sim->sigterm = evsignal_new(sim->base, SIGTERM, on_signal, sim);
	evsignal_add(sim->sigint, NULL);
	evsignal_add(sim->sigterm, NULL);
	for (int i = 0; i < sim->nb; i++)
		setup_backend(sim, i);
	gp_info("serving model '%s' on %s..%d (%d backend%s)", sim->o.model, sim->b[0].addr,
		(int)(sim->o.port + sim->nb - 1), sim->nb, sim->nb == 1 ? "" : "s");
	if (sim->o.router_port)
		router_setup(sim);

	event_base_dispatch(sim->base);

	if (sim->o.stats)
		print_stats(sim);
	if (sim->truth && fclose(sim->truth))
		gp_warn("%s: %s", sim->o.truth, strerror(errno));
	if (sim->rhttp)			/* its streams belong to the engines below */
		evhttp_free(sim->rhttp);
	for (int i = 0; i < sim->nb; i++) {
		if (sim->b[i].http)
			evhttp_free(sim->b[i].http);
		event_free(sim->b[i].timer);
		gp_kvcache_free(sim->b[i].cache);
	}
	gp_router_release(&sim->router);
	event_free(sim->sigint);
	event_free(sim->sigterm);
	evbuffer_free(sim->scratch);
	event_base_free(sim->base);
	free(sim->b);
	free(sim->o.speed);
	free(sim->o.roles);
	free(sim->role);
	return 0;
}
