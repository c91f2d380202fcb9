/* SPDX-License-Identifier: MIT */
/*
 * engine — the timing model of one emulated inference engine (gp-sim), pure
 * logic driven by an explicit clock so that it is testable without sockets.
 *
 * The model (documented for users in gp-sim(1)):
 *
 *  - Admission.  At most cfg.max_batch sequences are *running* (prefilling,
 *    waiting for the prefill lane, or decoding).  Beyond that, submitted
 *    sequences wait in a FIFO queue and are admitted, in order, the instant a
 *    running sequence finishes.
 *  - Prefill lane (one per engine, serial, FIFO over admitted sequences).  When
 *    a sequence's prefill starts at time t, its prompt's full blocks are looked
 *    up in the engine's prefix cache: cached = (leading blocks present) ×
 *    block_tokens, at most in_tokens - 1 (the last prompt token is always
 *    computed, as in vLLM); the chain is then inserted.  The prefill lasts
 *    (in_tokens - cached) / (prefill_tok_s × speed) seconds; at its end the
 *    sequence emits its first token and joins the decode lane.
 *  - Decode lane (concurrent with the prefill lane).  Steps run back to back
 *    while any sequence is decoding.  A step that starts at t with B
 *    sequences lasts (decode_ms + decode_ms_per_seq × B) / speed
 *    milliseconds; at its end each of those B sequences emits one token.  A
 *    sequence that joins during a step waits for the next step.  A sequence
 *    finishes (and frees its slot) when it has emitted out_tokens tokens.
 *
 * Every event time is computed from the previous event time (never from the
 * time the caller happened to run), so the schedule is absolute and does not
 * drift when the caller is late.  Ties: at the same instant a prefill end is
 * processed before a decode step end.
 *
 * Ownership: struct gp_seq is the caller's (embed it in a request object); the
 * engine links it into its queues between gp_engine_submit and either the
 * callback for its last token or gp_engine_cancel, and never frees it.
 * `keys` is borrowed for the same span.
 */
#ifndef GP_ENGINE_H
#define GP_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "kvcache.h"

struct gp_engine_cfg {
	double prefill_tok_s;	/* prompt tokens per second at speed 1 (> 0) */
	double decode_ms;	/* fixed part of a decode step, ms (>= 0) */
	double decode_ms_per_seq; /* per running sequence, ms (>= 0) */
	long max_batch;		/* running sequences (>= 1) */
	long block_tokens;	/* tokens per cache block (>= 1) */
	double speed;		/* capacity multiplier (> 0) */
};

enum gp_seq_state {
	GP_SEQ_IDLE = 0,	/* not in the engine */
	GP_SEQ_WAITING,		/* in the FIFO queue, no slot yet */
	GP_SEQ_ADMITTED,	/* has a slot, waits for the prefill lane */
	GP_SEQ_PREFILL,		/* being prefilled */
	GP_SEQ_DECODE,		/* emitted its first token, decoding */
};

struct gp_seq {
	/* Set by the caller before gp_engine_submit. */
	long in_tokens;		/* >= 1 */
	long out_tokens;	/* tokens to emit, >= 1 */
	const uint64_t *keys;	/* chain keys of the prompt's full blocks */
	size_t nkeys;
	void *user;		/* the caller's */

	/* Filled by the engine. */
	enum gp_seq_state state;
	long cached_tokens;	/* prompt tokens found in the prefix cache */
	long emitted;		/* tokens emitted so far */
	int64_t t_submit_ns, t_admit_ns, t_prefill_ns, t_first_ns;

	/* Private. */
	struct gp_seq *prev, *next;
	int in_step;		/* takes part in the current decode step */
};

/* One token for s, due at t_ns.  s->emitted already counts it; when it equals
 * s->out_tokens the sequence has left the engine.  The callback must not call
 * back into the engine. */
typedef void gp_engine_token_fn(struct gp_seq *s, int64_t t_ns, void *arg);

struct gp_seq_list {
	struct gp_seq *head, *tail;
	long n;
};

struct gp_engine {
	struct gp_engine_cfg cfg;
	struct gp_kvcache *cache;	/* borrowed; may be NULL (no caching) */
	gp_engine_token_fn *on_token;
	void *arg;

	struct gp_seq_list waiting;	/* FIFO, no slot */
	struct gp_seq_list admitted;	/* FIFO, slot, awaiting prefill */
	struct gp_seq_list decoding;	/* in the decode lane */
	long running;			/* admitted + prefilling + decoding */

	struct gp_seq *prefilling;	/* NULL when the lane is idle or the
					   sequence was cancelled mid-prefill */
	int prefill_busy;
	int64_t prefill_end_ns;

	int step_busy;
	int64_t step_end_ns;
	long step_batch;

	int64_t now_ns;			/* time of the last processed event */

	/* Counters (monotonic). */
	uint64_t prompt_tokens, cached_tokens, generation_tokens;
	uint64_t finished, steps;
};

/* Set up e (no allocation).  cache may be NULL. */
void gp_engine_init(struct gp_engine *e, const struct gp_engine_cfg *cfg,
		    struct gp_kvcache *cache, gp_engine_token_fn *on_token, void *arg);

/*
 * Enqueue s arriving at now_ns (first advancing the engine to now_ns).
 * now_ns must not go backwards between calls.
 */
void gp_engine_submit(struct gp_engine *e, struct gp_seq *s, int64_t now_ns);

/* Process every event due at or before now_ns, in time order, calling
 * on_token for each token. */
void gp_engine_advance(struct gp_engine *e, int64_t now_ns);

/* Time of the next event, or INT64_MAX when idle. */
int64_t gp_engine_next_ns(const struct gp_engine *e);

/* Remove s (in any state) at now_ns without further callbacks for it: the
 * engine advances to now_ns, then frees the slot (admitting a waiting
 * sequence at now_ns).  A prefill in progress still occupies the lane until
 * its scheduled end (the work was started).  No-op when s is idle. */
void gp_engine_cancel(struct gp_engine *e, struct gp_seq *s, int64_t now_ns);

static inline long gp_engine_running(const struct gp_engine *e) { return e->running; }
static inline long gp_engine_waiting(const struct gp_engine *e) { return e->waiting.n; }

/* KV blocks held by running sequences (prompt + generated tokens, rounded up
 * to blocks). */
uint64_t gp_engine_kv_blocks_used(const struct gp_engine *e);

#endif
