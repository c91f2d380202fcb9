/* SPDX-License-Identifier: MIT */
/*
 * engine — the timing model of one emulated inference engine (gp-sim), pure
 * logic driven by an explicit clock so that it is testable without sockets.
 * One step loop, as vLLM's V1 scheduler (vllm/v1/core/sched/scheduler.py);
 * documented for users in gp-sim(1).
 *
 * Tokens.  A sequence has in_tokens prompt tokens and has emitted `emitted`
 * tokens; its KV must hold n = in_tokens + emitted tokens before it can emit
 * the next one, and `computed` of them are in KV.  A step schedules
 * n - computed tokens for it (a chunk of them when chunking), and when the
 * step ends with computed == n the sequence emits one token.  A sequence
 * with emitted >= 1 and n - computed == 1 is *decoding*; any other scheduled
 * sequence is *prefilling* (its prompt, or its prompt and output again after
 * a preemption).
 *
 * A step (starts when the previous one ends, or at a submit when idle):
 *   1. every running decoding sequence, in admission order, 1 token each;
 *   2. every running prefilling sequence, in admission order, a chunk of
 *      min(n - computed, budget left) tokens;
 *   3. waiting sequences, first come first served, while fewer than
 *      max_batch are running and budget is left: the prompt's leading full
 *      blocks are looked up in the pool (computed = hit blocks × block_tokens,
 *      at most n - 1: the last token is always computed, as in vLLM), then a
 *      chunk as in 2.  The first waiting sequence that cannot be taken stops
 *      the scan (no overtaking).
 *   With cfg.no_chunking a prefill is scheduled whole or not at all: whole
 *   when it fits in the budget left or when it is the step's first prefill
 *   (so a prompt longer than the budget still runs, alone among prefills).
 *   The step lasts
 *       t = (α + β·P + γ·D + δ·C) / speed   milliseconds
 *   with P prefill tokens scheduled, D decoding sequences, C context tokens
 *   read = Σ over scheduled sequences of (computed + tokens scheduled),
 *   α = alpha_ms, β = beta_ms, γ = gamma_ms, δ = delta_ms (after Vidur,
 *   Agrawal et al., MLSys 2024: a step's time is a linear function of the
 *   tokens it computes and the KV it reads).  At its end every scheduled
 *   sequence's tokens are computed and each one that reached computed == n
 *   emits a token (the first token of a fresh sequence is emitted at the end
 *   of the step that completes its prefill).
 *
 * KV memory (kvcache.h, one pool of blocks of block_tokens tokens).  A
 * scheduled sequence must hold ceil((computed + scheduled) / block_tokens)
 * blocks; the blocks of its prompt's full blocks get their chain keys when
 * scheduled (as vLLM's allocate_slots caches them, so a request arriving
 * next can share blocks still being computed), and become the prefix
 * cache when freed.  Hit blocks are shared
 * (referenced), not copied.  When a running sequence cannot get a block,
 * the newest running sequence is preempted: its blocks are released (they
 * stay cached), computed = 0, and it goes back to the head of the waiting
 * queue, to be recomputed (prompt and output so far) later (vLLM's
 * RECOMPUTE preemption; e->preemptions counts them).  A waiting sequence
 * that cannot get its blocks waits (it never preempts).  A sequence
 * finishes when it has emitted out_tokens tokens; its blocks are released
 * at the end of that step, tail first.
 *
 * Times come from the previous step's end (or the submit that woke an idle
 * engine), never from when the caller ran, so the schedule is absolute and
 * does not drift when the caller is late.
 *
 * The old gp-sim flags map onto this model as α = --decode-ms,
 * β = 1000 / --prefill-tok-s, γ = --decode-ms-per-seq (gp-sim(1)).
 *
 * Ownership: struct gp_seq is the caller's (embed it in a request object); the
 * engine links it into its queues between gp_engine_submit and either the
 * callback for its last token or gp_engine_cancel, and never frees it; its
 * block table (blocks) is the engine's, freed when it leaves.  `keys` is
 * borrowed for the same span.  The pool is borrowed for the engine's life.
 */
#ifndef GP_ENGINE_H
#define GP_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "sim/kvcache.h"

struct gp_engine_cfg {
	double alpha_ms;	/* α: fixed time of a step (>= 0) */
	double beta_ms;		/* β: per prefill token (>= 0) */
	double gamma_ms;	/* γ: per decoding sequence (>= 0) */
	double delta_ms;	/* δ: per context token read (>= 0) */
	long budget;		/* tokens per step, max_num_batched_tokens (>= 1) */
	long max_batch;		/* running sequences, max_num_seqs (>= 1) */
	long block_tokens;	/* tokens per KV block (>= 1) */
	int no_chunking;	/* 1: schedule a prefill whole or not at all */
	double speed;		/* capacity multiplier (> 0) */
};

enum gp_seq_state {
	GP_SEQ_IDLE = 0,	/* not in the engine */
	GP_SEQ_WAITING,		/* in the FIFO queue, not running */
	GP_SEQ_RUNNING,		/* admitted: prefilling or decoding */
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
	long cached_tokens;	/* prompt tokens found in the pool at first admission */
	long emitted;		/* tokens emitted so far */
	long preemptions;	/* times this sequence was preempted */
	int64_t t_submit_ns;	/* submitted */
	int64_t t_admit_ns;	/* first scheduled (0: never) */
	int64_t t_first_ns;	/* first token (0: none yet) */
	long steps;		/* steps it was scheduled in */
	double sum_batch;	/* Σ sequences of those steps */
	double sum_tokens;	/* Σ tokens of those steps */

	/* Private. */
	struct gp_seq *prev, *next;
	long computed;		/* tokens in KV */
	long sched;		/* tokens scheduled in the current step (0: not in it) */
	int decode;		/* scheduled as a decode in the current step */
	int admitted_once;
	size_t ncommitted;	/* leading blocks that carry their key */
	uint32_t *blocks;	/* block table */
	size_t nblocks, capblocks;
};

/* One token for s, due at t_ns.  s->emitted already counts it; when it equals
 * s->out_tokens the sequence has left the engine.  The callback must not call
 * back into the engine. */
typedef void gp_engine_token_fn(struct gp_seq *s, int64_t t_ns, void *arg);

/* What a step that starts at t_ns carries and when it ends. */
struct gp_step {
	int64_t t_start_ns, t_end_ns;
	long batch;		/* sequences scheduled */
	long tokens;		/* tokens scheduled (P + D) */
	long prefill_tokens;	/* P */
	long decodes;		/* D */
	long ctx_tokens;	/* C */
};

/* Optional: called when a non-empty step starts. */
typedef void gp_engine_step_fn(const struct gp_step *st, void *arg);

struct gp_seq_list {
	struct gp_seq *head, *tail;
	long n;
};

struct gp_engine {
	struct gp_engine_cfg cfg;
	struct gp_kvcache *pool;	/* borrowed, required */
	gp_engine_token_fn *on_token;
	gp_engine_step_fn *on_step;	/* may be NULL; set after init */
	void *arg;

	struct gp_seq_list waiting;	/* FIFO, head first */
	struct gp_seq_list running;	/* admission order, tail = newest */

	int step_busy;
	struct gp_step step;		/* the current (or last) step */
	int64_t now_ns;			/* time of the last processed event */
	int oom;			/* a block table could not grow (fatal) */

	/* Counters (monotonic). */
	uint64_t prompt_tokens, cached_tokens, generation_tokens;
	uint64_t finished, steps, preemptions;
	uint64_t step_tokens, step_batch;	/* Σ over steps */
};

/* Set up e (no allocation). */
void gp_engine_init(struct gp_engine *e, const struct gp_engine_cfg *cfg,
		    struct gp_kvcache *pool, gp_engine_token_fn *on_token, void *arg);

/* Blocks sequence s needs at most: ceil((in_tokens + out_tokens) / block_tokens). */
uint64_t gp_engine_blocks_needed(const struct gp_engine *e, const struct gp_seq *s);

/*
 * Enqueue s arriving at now_ns (first advancing the engine to now_ns).
 * now_ns must not go backwards between calls.  Returns -1 (s untouched)
 * when s could never fit: gp_engine_blocks_needed > the pool's size.
 */
int gp_engine_submit(struct gp_engine *e, struct gp_seq *s, int64_t now_ns);

/* Process every step end due at or before now_ns, in time order, calling
 * on_token for each token. */
void gp_engine_advance(struct gp_engine *e, int64_t now_ns);

/* Time of the next event, or INT64_MAX when idle. */
int64_t gp_engine_next_ns(const struct gp_engine *e);

/* Remove s (in any state) at now_ns without further callbacks for it: the
 * engine advances to now_ns, then releases its blocks.  A step in progress
 * keeps its scheduled end (the work was started).  No-op when s is idle. */
void gp_engine_cancel(struct gp_engine *e, struct gp_seq *s, int64_t now_ns);

static inline long gp_engine_running(const struct gp_engine *e) { return e->running.n; }
static inline long gp_engine_waiting(const struct gp_engine *e) { return e->waiting.n; }

/* KV blocks held by running sequences (shared blocks counted once). */
uint64_t gp_engine_kv_blocks_used(const struct gp_engine *e);

#endif
