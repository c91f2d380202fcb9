/* SPDX-License-Identifier: MIT */
/*
 * validity — the rules of method §8.1 that discard a whole run before any
 * statistic, by rule and never by judgment (gp-verify validity; the rules,
 * their evidence and tolerances are documented in gp-verify(1)).
 *
 * What it decides: for one run (arm, rate_rps, rep), which rules hit (each
 * with a reason text), which could not be checked for want of evidence, and
 * which kept-but-noteworthy findings to flag.  From what evidence:
 *   - its request records, classified one by one (gp_validity_note_request):
 *     paired ok requests, hangs after the first token, truncated streams,
 *     invalid framing, backend timeouts (gp_gate_backend_timeout);
 *   - its trailers (run_end, summed over shards): the framing, hang and
 *     truncated counts, and the client's fields (client_behind with the send
 *     lateness, capped_sends, interrupted, achieved_rps);
 *   - its header: started_at and whether the schedule is Poisson;
 *   - the shard ("I/N") its headers and trailers name (gp_validity_note_shard);
 *   - the evidence around it (struct gp_window): the health rounds that
 *     ended at most W s before its start and began at most W s after its
 *     end against the run's VIP URL (gp_validity_rounds), the probes of its
 *     arm, and the gateway's recreations (gateway records: its generations).
 * The caller reads the records (and dies on bad input); nothing here reads,
 * prints or exits.  The functions that allocate return 0, or -1 with errno
 * ENOMEM when memory runs out (the evidence or verdict then holds what it
 * held before, or nothing).
 *
 * Ownership: strings in the evidence and the checks are the caller's and are
 * only borrowed during a call, except timeout_example and the shard counts,
 * which gp_validity_note_request and gp_validity_note_shard allocate and
 * gp_run_evidence_release frees.  A
 * verdict's reasons and flags are jansson arrays the verdict owns
 * (gp_run_verdict_release).
 */
#ifndef GP_VALIDITY_H
#define GP_VALIDITY_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* The rules, in the order they are reported. */
enum gp_rule {
	GP_RULE_FRAMING, GP_RULE_HANG, GP_RULE_TIMEOUT, GP_RULE_VIP, GP_RULE_BACKEND,
	GP_RULE_PAIRED, GP_RULE_BEHIND, GP_RULE_CAPPED, GP_RULE_INTERRUPTED, GP_RULE_RATE,
	GP_RULE_SHARDS, GP_RULE_CLIENT_LIMIT, GP_RULE_EMULATOR, GP_RULE_KV, GP_RULE_PROBE,
	GP_RULE_GATEWAY, GP_RULE_MIXED, GP_N_RULES
};

/*
 * The emulator's lag (gp-sim's gpsim:token_pacing_lag_seconds histogram,
 * from the run's before and after metrics snapshots): the run is discarded
 * as emulator_behind when, between the two, more than GP_EMU_LATE_FRAC of
 * the tokens gp-sim wrote, and at least GP_EMU_LATE_MIN of them, were
 * written more than GP_EMU_LATE_S after their scheduled time (gp-sim's own
 * overload warning uses the same bound): the emulator, not the routing,
 * shaped such a run.  A run without the metric has no emulator lag to judge.
 */
#define GP_EMU_LATE_S 0.005
#define GP_EMU_LATE_FRAC 0.01
#define GP_EMU_LATE_MIN 100

/* "invalid_framing", "hang_truncated", ... as in the validity record. */
extern const char *const gp_rule_name[GP_N_RULES];

/*
 * The achieved-rate tolerances: a run whose achieved rate differs from its
 * label by more than GP_RATE_FLAG is flagged; by more than GP_RATE_DISCARD
 * (+ 3/√(n − 1) for a Poisson schedule, whose realized rate varies by about
 * 1/√n by design) it is discarded.  Both bounds are exclusive: a deviation
 * exactly at a bound does not pass it.
 */
#define GP_RATE_FLAG 0.05
#define GP_RATE_DISCARD 0.10
/*
 * The lateness tolerance: gp-replay says client_behind at a send lateness p99
 * over 1 ms or a maximum over 10 ms.  The run is discarded when that lateness
 * is material against its schedule — p99 over GP_LATE_P99_GAP of the mean gap
 * 1/rate_rps, or the maximum over one mean gap (both exclusive) — and kept
 * with a flag below.  A run without a positive rate has no gap: discarded.
 */
#define GP_LATE_P99_GAP 0.5

struct gp_run_evidence {
	double rate;			/* the label, rate_rps */
	/* from the request records */
	long n_req, paired, hang, truncated, framing_req, timeouts;
	char *timeout_example;		/* the first backend timeout, for the reason */
	/* from the trailers (summed over shards) */
	long long framing_trailer, hang_trailer, truncated_trailer;
	int have_framing_trailer;	/* some trailer counts invalid framing */
	int have_behind, behind, have_capped, have_interrupted, interrupted, have_achieved;
	long long capped;
	double achieved, late_p99, late_max;
	/* A session replay's open-loop arrivals (gp-replay's starts and
	 * achieved_start_rps: the sends that rate_rps labels; later turns are
	 * closed loop): when present, the achieved-rate rule holds these to
	 * the label instead of every send. */
	int have_achieved_start;
	double achieved_start;
	long long n_start;
	/* from the header and the trailers: the run's span (ns since the epoch) */
	int have_start, have_end;
	int64_t start_ns, end_ns;
	int poisson;			/* the header's schedule is poisson */
	/* shards: the N of the "I/N" of the headers and trailers (0: unsharded),
	 * another N seen in the same run, and per shard I how many of each */
	long shard_n, shard_n_other;
	int *shard_hdr, *shard_end;
	/* requests failed on the client's own limit (error client_limit) */
	long client_limit;
	/* gp-sim's pacing lag, summed over the targets of each phase
	 * (0 before, 1 after): tokens written, and of those on time (within
	 * GP_EMU_LATE_S); have_lag[phase] once a snapshot carried the metric */
	double lag_tokens[2], lag_on_time[2];
	int have_lag[2];
	/* from the trailers: responses read as event streams by their body, and
	 * usage not believed (flagged, not discarded) */
	long long sse_by_body, usage_contradicted;
	/* the run's identity, borrowed (the caller keeps the strings while it
	 * judges): arm, run id, the header's url, and a second run id seen for
	 * the same (arm, rate, rep), or NULL */
	const char *arm, *run_id, *url, *other_id;
};

/* Count one metrics snapshot of the run (phase 0 before, 1 after) that
 * carries gp-sim's pacing-lag histogram: its count and its bucket at
 * GP_EMU_LATE_S. */
void gp_validity_note_lag(struct gp_run_evidence *e, int after, double tokens, double on_time);

/*
 * Count one request record into e: outcome "ok", "single_token" or
 * "failed"; error NULL or its class; http_status 0 when absent; detail the
 * error_detail or NULL; ttft_ms/tpot_ms NaN when absent.  A request is paired
 * when it is ok with both latencies.  A "hang" counts only when the stream had
 * started (ttft_ms a number): one still waiting for its first token was
 * queued, a measured miss.
 */
int gp_validity_note_request(struct gp_run_evidence *e, const char *outcome, const char *error,
			     long http_status, const char *detail, double ttft_ms, double tpot_ms);

/*
 * Count a run header (trailer 0) or run_end (trailer 1) that names shard i of
 * n (1 <= i <= n, as gp_pace_parse_shard gives them; the caller bounds n).
 * The shards rule: a run whose records name shards is whole only with exactly
 * one run header and one run_end of every shard 1..N — a shard file left out
 * of the merge, cut short, or merged twice is not the run (missing_shard,
 * duplicate_shard).  A run without shard fields is one unsharded file.
 */
int gp_validity_note_shard(struct gp_run_evidence *e, long i, long n, int trailer);

/* Free what gp_validity_note_request and gp_validity_note_shard allocated in e. */
void gp_run_evidence_release(struct gp_run_evidence *e);

/* A health check or a round's end (health_summary), for the health rules. */
enum { GP_HEALTH_VIP, GP_HEALTH_BACKEND, GP_HEALTH_OTHER, GP_HEALTH_SUMMARY, GP_HEALTH_KV };

struct gp_health_check {
	int64_t at;			/* ns since the epoch */
	size_t order;			/* input order, to break ties in `at` */
	int kind;			/* GP_HEALTH_* */
	int ok;
	const char *target, *at_text;	/* for the reason; target may be NULL */
	const char *for_run;		/* the run it was taken for (for_run), or NULL */
	int64_t began;			/* a summary's at − t_s (the round's start); 0: unknown */
};

struct gp_health_round {
	int64_t start, end;
	const char *for_run;		/* its checks' for_run (the first named), or NULL */
	const char *vip;		/* the target of its first vip_chat check, or NULL */
	const char *start_text, *end_text;
	long n_backend;			/* backend_models checks */
	int used;			/* it covered a run (set by gp_validity_judge) */
};

/*
 * Sort h by (at, order) and cut it into rounds, each ending with a
 * GP_HEALTH_SUMMARY (the last round may end without one): *n_rounds of them
 * in *rounds (allocated; the caller frees; NULL when none).  0 or -1.
 */
int gp_validity_rounds(struct gp_health_check *h, size_t n, struct gp_health_round **rounds,
		       size_t *n_rounds);

/* A gp-probe record: arm, VIP, end, verdict, and the run it was taken for. */
struct gp_probe_ev {
	const char *arm, *vip, *run, *for_run, *at_text, *reason;	/* vip, for_run may be NULL */
	int64_t at;
	int ok;				/* mode_confirmed and engaged */
	int used;			/* it covered a run (set by gp_validity_judge) */
};

/* A recreation of the gateway (the campaign's gateway record): a generation. */
struct gp_gateway_ev {
	const char *arm, *generation, *at_text;
	int64_t up_at;
};

/*
 * The evidence around the runs.  window_ns is W: a health round covers a
 * run from before when it ended in [start − W, start], from after when it
 * began in [end, end + W]; it must have a vip_chat check of the run's VIP URL
 * (the run header's `url`; trailing "/" ignored) and name no other run
 * (for_run).  A probe covers a run when it is of the run's arm and VIP, ok,
 * ended in [start − W, start], after the gateway's last recreation before
 * the start (when gateway records exist), and names no other run.  A failed
 * check (vip_chat or kv_events of the run's VIP, backend_models of any
 * backend) or a failed probe of the arm that ended in [start − W, end + W]
 * discards the run.  The gateway rule: the last recreation before the start
 * was of the run's arm, and none happened during the run.
 */
struct gp_window {
	const struct gp_health_check *h;	/* sorted by gp_validity_rounds */
	size_t n_h;
	struct gp_health_round *rounds;
	size_t n_rounds;
	struct gp_probe_ev *probes;
	size_t n_probes;
	const struct gp_gateway_ev *gw;		/* any order */
	size_t n_gw;
	int64_t window_ns;
};

/* The default W: 60 s. */
#define GP_WINDOW_S 60

struct gp_run_verdict {
	int checked[GP_N_RULES];	/* the rule's evidence was there */
	int hit[GP_N_RULES];		/* the rule discards the run */
	json_t *reasons;		/* "<rule>: <detail>" strings */
	json_t *flags;			/* kept-but-flagged findings */
	int discarded;
	int failed;			/* internal: an allocation failed */
};

/*
 * Judge one run: every rule against its evidence and the evidence around it
 * (w; NULL: none).  A run with neither start nor end has no window: its
 * health, probe and gateway rules are not checked.  With strict, a rule not
 * checked is a reason too.  The rounds and probes that cover the run are
 * marked used.  v is overwritten (release it first when reused).  -1 when
 * out of memory: then v holds nothing (no verdict missing one of its
 * reasons is ever returned).
 */
int gp_validity_judge(const struct gp_run_evidence *e, const struct gp_window *w, int strict,
		      struct gp_run_verdict *v);

void gp_run_verdict_release(struct gp_run_verdict *v);

#endif
