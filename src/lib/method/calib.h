/* SPDX-License-Identifier: MIT */
/*
 * calib — the policy of per-endpoint capacity calibration (method §4, phase 1)
 * as pure logic: the pre-registered protocol, the geometric ramp, the hold,
 * the plateau rule, the queue-divergence cross-check, the capacity, the rate
 * ladder and the staleness check.  gp-calibrate drives the load; every
 * decision it takes is one of the functions below, so it is testable without
 * sockets.
 *
 * The protocol (method §4.1), fixed before the run and echoed whole in every
 * record gp-calibrate writes:
 *
 *   step k (0-based) offers target_k = start_rps · ramp^k requests/s, evenly
 *   spaced, for warmup_s + hold seconds; the first warmup_s are discarded;
 *   hold = max(hold_s, hold_requests / target_k) — the longer of the minimum
 *   duration and the minimum request count.  Only tokens delivered inside the
 *   hold window count: for the prefill role the prompt tokens of a request
 *   whose first token arrived in the window (its prefill ended there), for
 *   the decode role every content event that arrived in the window.
 *   delivered_k = those tokens / hold; offered_k = target_k · (requests due
 *   in the window that the driver sent on time, within late_ms of their due
 *   time) / (requests due in the window): what the driver achieved, not what
 *   it was asked, without the ±1 of counting sends in a short window.
 *
 *   gain_k = 100 · (delivered_k − delivered_{k−1}) / delivered_{k−1}.
 *   The plateau rule: the last two gains (steps k−1 and k) are both below
 *   plateau_pct while the offered rate still grew by the full step at both —
 *   offered_j / offered_{j−1} − 1 >= full_step_pct/100 · (ramp − 1).  The
 *   plateau steps are k−2, k−1, k (the three steps the two gains join);
 *   capacity = the mean of their delivered throughput.  max_steps is the
 *   backstop.
 *
 *   The client-bottleneck cross-check (§4.2): the backend's in-flight depth
 *   (the sum of the fleet's inflight_metrics: running + waiting) is sampled
 *   every sample_s through each step.  The queue diverges in a step when the
 *   least-squares slope of depth over time, times the hold window, grows by
 *   at least diverge_requests.  A step is driver-late when the p99 of its
 *   send lateness exceeds late_ms or any send was held back by max_inflight:
 *   the driver did not offer the rate.
 *
 *   After every step, gp_calib_judge decides (struct gp_calib_judgement):
 *     flat      the last two gains are below plateau_pct;
 *     saturated flat, the offered rate grew by the full step at both, the
 *               queue diverged in the last step and no plateau step was
 *               driver-late: the endpoint saturated, capacity is trusted;
 *     suspect   flat but not saturated: a plateau without a diverging queue
 *               (or with a driver that could not offer the rate) is the
 *               client's ceiling, not the endpoint's.  Every plateau step
 *               that made it so is re-run, once each, in step order: a
 *               driver-late step, a step whose offered rate did not grow by
 *               the full step, the last step when its queue did not diverge
 *               (gp_calib_rerun_next).  A re-run replaces its step and the
 *               plateau is judged again; when every step that makes it
 *               untrusted has had its re-run, the sweep stops as SUSPECT and
 *               the capacity record says so, with no capacity.  (Re-running
 *               only the last step never cleared a plateau made suspect by
 *               an earlier late step.)
 *     backstop  max_steps steps done without a plateau.
 *
 * The ladder (§4.3): per role, the member with the lowest capacity is the
 * reference.  Round robin over `members` endpoints saturates when its slowest
 * member does, at members · capacity_tok_s / mean_tokens requests/s (mean
 * tokens per request of the trace: input tokens for prefill, output tokens
 * for decode); each rung is a ratio of that rate.
 *
 * Ownership: every function works on caller-owned memory.  gp_calib_protocol_
 * json returns a new reference.  No function prints or exits.
 */
#ifndef GP_CALIB_H
#define GP_CALIB_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

enum gp_calib_role { GP_CALIB_PREFILL = 0, GP_CALIB_DECODE = 1 };

/* "prefill" / "decode" → role: 0, or -1. */
int gp_calib_role_parse(const char *s, enum gp_calib_role *out);
const char *gp_calib_role_name(enum gp_calib_role r);

struct gp_calib_protocol {
	double start_rps;		/* > 0 */
	double ramp;			/* > 1 */
	double warmup_s;		/* >= 0, discarded */
	double hold_s;			/* > 0, minimum duration */
	long hold_requests;		/* >= 0, minimum request count */
	double plateau_pct;		/* > 0 */
	long max_steps;			/* >= 3 */
	double full_step_pct;		/* (0, 100]: "grew by the full step" */
	long diverge_requests;		/* >= 1 */
	double sample_s;		/* > 0 */
	double late_ms;			/* > 0 */
	long max_inflight;		/* >= 0, 0 = no cap */
	long prefill_input_tokens;	/* prefill role: long prompts ... */
	long prefill_output_tokens;	/* ... short outputs */
	long decode_input_tokens;	/* decode role: short prompts ... */
	long decode_output_tokens;	/* ... long outputs */
};

/* One field of the protocol: its name in records, files and (with '-' for
 * '_') on the command line, its range and its default. */
struct gp_calib_field {
	const char *name;
	int is_long;
	size_t offset;
	double min, max;
	int min_open;			/* min itself excluded */
	double def;
	const char *help;
};

/* The fields, in record order; *n gets their number. */
const struct gp_calib_field *gp_calib_fields(size_t *n);
/* The field named name (records' spelling, or the option's with '-'), or NULL. */
const struct gp_calib_field *gp_calib_field(const char *name);

/* Every field at its default. */
void gp_calib_protocol_default(struct gp_calib_protocol *p);
/* Set field f from text (a command-line value).  0, or -1 with the reason
 * in err ("must be > 1", "is not a number"). */
int gp_calib_protocol_set(struct gp_calib_protocol *p, const struct gp_calib_field *f,
			  const char *text, char *err, size_t errlen);
/*
 * Read a protocol object (a protocol file, or the `protocol` of a record):
 * every key must be a field and every value a number in range (integers for
 * the integer fields); fields not given keep their value in p.  0, or -1
 * with "field 'x': what" in err.
 */
int gp_calib_protocol_from_json(struct gp_calib_protocol *p, const json_t *o,
				char *err, size_t errlen);
/* The whole protocol as a JSON object (new reference), fields in order. */
json_t *gp_calib_protocol_json(const struct gp_calib_protocol *p);
/* 1 when every field of a and b is equal. */
int gp_calib_protocol_equal(const struct gp_calib_protocol *a, const struct gp_calib_protocol *b);

/* start_rps · ramp^k. */
double gp_calib_target_rps(const struct gp_calib_protocol *p, long k);
/* max(hold_s, hold_requests / rate_rps): the hold window of a step, s. */
double gp_calib_hold_s(const struct gp_calib_protocol *p, double rate_rps);
/* The request shape of a role. */
long gp_calib_input_tokens(const struct gp_calib_protocol *p, enum gp_calib_role r);
long gp_calib_output_tokens(const struct gp_calib_protocol *p, enum gp_calib_role r);

/* Sends due in [w0_ns, w1_ns) of the schedule t_start_ns + i · gap_ns,
 * i = 0, 1, … (gap_ns > 0, t_start_ns <= w0_ns <= w1_ns). */
long gp_calib_due(int64_t t_start_ns, int64_t gap_ns, int64_t w0_ns, int64_t w1_ns);
/* offered_k = target_rps · on_time / due (0 when due is 0). */
double gp_calib_offered(double target_rps, long on_time, long due);

/*
 * Token tally of one hold window [w0_ns, w1_ns).  Feed it every first token
 * (with the request's prompt tokens) and every content event; it keeps what
 * the role counts.
 */
struct gp_calib_window {
	int64_t w0_ns, w1_ns;
	double prompt_tokens;		/* of requests whose first token is in the window */
	double output_tokens;		/* content events in the window */
	long first_tokens;		/* requests whose first token is in the window */
};

void gp_calib_window_init(struct gp_calib_window *w, int64_t w0_ns, int64_t w1_ns);
void gp_calib_window_first(struct gp_calib_window *w, int64_t t_ns, long in_tokens);
void gp_calib_window_token(struct gp_calib_window *w, int64_t t_ns);
/* Delivered tokens/s of the role over the window (0 for an empty window). */
double gp_calib_window_tok_s(const struct gp_calib_window *w, enum gp_calib_role r);

/*
 * Queue divergence from depth samples (t_s[i], depth[i]), i < n, taken inside
 * the hold window of length hold_s: slope = the least-squares slope of depth
 * on time (requests/s), growth = slope · hold_s.  Returns 1 (diverging) when
 * growth >= diverge_requests, else 0; fewer than 3 samples, or all at the
 * same time, are never diverging (slope 0).  *slope and *growth may be NULL.
 */
int gp_calib_diverging(const struct gp_calib_protocol *p, const double *t_s,
		       const double *depth, size_t n, double hold_s, double *slope,
		       double *growth);

/* Whether the driver fell behind: lateness p99 (ms, NaN = no sends) over
 * late_ms, or any send held back by max_inflight. */
int gp_calib_late(const struct gp_calib_protocol *p, double lateness_p99_ms, long capped);

/* What the judge needs of one step. */
struct gp_calib_step {
	double target_rps;
	double offered_rps;
	double delivered_tok_s;
	int diverging;
	int late;
	int rerun;		/* this step is the re-run of a suspect one */
};

/* 100 · (cur − prev) / prev; NaN when prev <= 0 (a gain from nothing is
 * undefined, never "small"). */
double gp_calib_gain_pct(double prev, double cur);

enum gp_calib_verdict {
	GP_CALIB_CONTINUE = 0,	/* ramp on */
	GP_CALIB_SATURATED,	/* plateau with a diverging queue: done, trusted */
	GP_CALIB_RERUN,		/* suspect: re-run a step that made it so, once */
	GP_CALIB_SUSPECT,	/* still suspect after those re-runs: done, no capacity */
	GP_CALIB_BACKSTOP,	/* max_steps without a plateau: done, no capacity */
};

struct gp_calib_judgement {
	enum gp_calib_verdict verdict;
	int flat;		/* the last two gains below plateau_pct */
	int full_step;		/* the offered rate grew by the full step at both */
	int diverging;		/* the last step's queue diverged */
	int late;		/* a plateau step was driver-late */
	double capacity_tok_s;	/* mean delivered over the plateau steps (when flat), else NaN */
};

/* "continue", "saturated", "rerun", "suspect", "backstop". */
const char *gp_calib_verdict_name(enum gp_calib_verdict v);

/*
 * Judge the sweep after its step n−1 (steps[0..n), a re-run replacing the
 * step it re-ran).  The rules are those of the header comment; a flat but
 * untrusted plateau asks for a re-run (RERUN) while gp_calib_rerun_next
 * finds a step to re-run, else it is SUSPECT.
 */
void gp_calib_judge(const struct gp_calib_protocol *p, const struct gp_calib_step *steps,
		    size_t n, struct gp_calib_judgement *j);

/*
 * After a RERUN judgement: the index (n−3 .. n−1) of the first plateau step
 * that makes the plateau untrusted and has not been re-run (rerun 0) — late;
 * or one of the last two whose offered rate did not grow by the full step
 * over the step before it; or the last when its queue did not diverge.  n
 * when there is none.
 */
size_t gp_calib_rerun_next(const struct gp_calib_protocol *p, const struct gp_calib_step *steps,
			   size_t n);

/* The rungs of the ladder. */
struct gp_calib_ladder {
	size_t reference;	/* index of the lowest capacity */
	double capacity_rps;	/* reference capacity_tok_s / mean_tokens */
	double fleet_rps;	/* members · capacity_rps */
};

/*
 * From the capacities cap_tok_s[0..n) (n >= 1, each > 0) of one role and the
 * trace's mean tokens per request (> 0): the reference and the saturation
 * rate of the fleet; rates_rps[i] = ratio[i] · fleet_rps for i < nratio.
 * Ties go to the first member.  0, or -1 on a bad argument.
 */
int gp_calib_ladder(const double *cap_tok_s, size_t n, double mean_tokens,
		    const double *ratio, size_t nratio, struct gp_calib_ladder *out,
		    double *rates_rps);

/* One backend as measured (from capacity records) or as the fleet has it now. */
struct gp_calib_member {
	const char *url;	/* borrowed */
	long accelerators;
};

/*
 * Staleness (§10.4): the fleet now (cur[0..ncur)) against the fleet the
 * capacities were measured on (was[0..nwas)).  Members are matched by URL
 * (origin compared without case, a trailing '/' ignored).  Calls why(arg,
 * reason) once per difference — "added <url>", "removed <url>",
 * "accelerators of <url>: 1 -> 2" — and returns their number (0: fresh).
 */
size_t gp_calib_stale(const struct gp_calib_member *was, size_t nwas,
		      const struct gp_calib_member *cur, size_t ncur,
		      void (*why)(void *arg, const char *reason), void *arg);

#endif
