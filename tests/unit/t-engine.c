/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the engine timing model, driven by an explicit clock.  The
 * expected times are worked out by hand from the model in engine.h (each
 * case states its arithmetic), so they do not depend on the code under test.
 *
 * Unless a case says otherwise: α = 10 ms, β = 1 ms per prefill token,
 * γ = 5 ms per decoding sequence, δ = 0, budget 1000 tokens, 8 sequences,
 * blocks of 10 tokens, a pool of 1000 blocks.  So a step with P prefill
 * tokens and D decodes lasts 10 + P + 5·D ms.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/engine.h"
#include "tap.h"

#define MS 1000000LL

struct ev { int who; long k; int64_t t; };
static struct ev evs[4096];
static int nev;

static void on_tok(struct gp_seq *s, int64_t t, void *arg)
{
	(void)arg;
	if (nev < 4096) {
		evs[nev].who = (int)(intptr_t)s->user;
		evs[nev].k = s->emitted;
		evs[nev].t = t;
	}
	nev++;
}

/* Time of token k of sequence who, or -1. */
static int64_t tok_t(int who, long k)
{
	for (int i = 0; i < nev; i++)
		if (evs[i].who == who && evs[i].k == k)
			return evs[i].t;
	return -1;
}

static int count_of(int who)
{
	int n = 0;

	for (int i = 0; i < nev; i++)
		n += evs[i].who == who;
	return n;
}

static void seq_set(struct gp_seq *s, int who, long in, long out)
{
	memset(s, 0, sizeof(*s));
	s->in_tokens = in;
	s->out_tokens = out;
	s->user = (void *)(intptr_t)who;
}

/* Run the engine to idle by jumping from event to event. */
static void run(struct gp_engine *e)
{
	int64_t t;

	while ((t = gp_engine_next_ns(e)) != INT64_MAX)
		gp_engine_advance(e, t);
}

static const struct gp_engine_cfg base = {
	.alpha_ms = 10, .beta_ms = 1, .gamma_ms = 5, .delta_ms = 0,
	.budget = 1000, .max_batch = 8, .block_tokens = 10, .speed = 1,
};

static struct gp_kvcache *pool;
static struct gp_engine e;

static void fresh(const struct gp_engine_cfg *cfg, size_t blocks)
{
	gp_kvcache_free(pool);
	pool = gp_kvcache_new(blocks);
	nev = 0;
	gp_engine_init(&e, cfg, pool, on_tok, NULL);
}

static void keys_set(uint64_t *k, size_t n, uint64_t base_key)
{
	for (size_t i = 0; i < n; i++)
		k[i] = base_key + i;
}

static void t_single(void)
{
	struct gp_seq a;

	/* Prefill 100: 10 + 100 = 110 ms; then decode steps of 10 + 5 = 15. */
	fresh(&base, 1000);
	seq_set(&a, 1, 100, 4);
	is_int(gp_engine_submit(&e, &a, 0), 0, "submit");
	is_int(gp_engine_running(&e), 1, "running at once (the step started)");
	is_int(gp_engine_next_ns(&e), 110 * MS, "next event: end of the prefill step");
	run(&e);
	is_int(tok_t(1, 1), 110 * MS, "first token at the end of the prefill step");
	is_int(tok_t(1, 2), 125 * MS, "second after one 15 ms decode step");
	is_int(tok_t(1, 4), 155 * MS, "last token");
	is_int(count_of(1), 4, "exactly out_tokens tokens");
	is_int(gp_engine_running(&e), 0, "slot freed");
	is_int(gp_engine_next_ns(&e), INT64_MAX, "idle");
	is_int((long long)e.generation_tokens, 4, "generation tokens counted");
	is_int((long long)e.prompt_tokens, 100, "prompt tokens counted");
	is_int((long long)e.steps, 4, "4 steps");
	is_int((long long)gp_engine_kv_blocks_used(&e), 0, "no block held when idle");
	is_int(a.t_admit_ns, 0, "scheduled at once: no queue time");
	is_int(a.steps, 4, "the sequence was in 4 steps");

	/* δ: 0.1 ms per context token read.  Step 1 reads 0 + 100 tokens:
	 * 10 + 100 + 10 = 120; step 2 decodes token 101 over 100 + 1:
	 * 10 + 5 + 10.1 = 25.1 ms. */
	{
		struct gp_engine_cfg c = base;

		c.delta_ms = 0.1;
		fresh(&c, 1000);
		seq_set(&a, 1, 100, 2);
		gp_engine_submit(&e, &a, 0);
		run(&e);
		is_int(tok_t(1, 1), 120 * MS, "delta: prefill step reads 100 context tokens");
		is_int(tok_t(1, 2), 145100000LL, "delta: decode step reads 101");
	}
	/* Speed 0.5 doubles every step: 220, then 30 ms steps. */
	{
		struct gp_engine_cfg c = base;

		c.speed = 0.5;
		fresh(&c, 1000);
		seq_set(&a, 1, 100, 3);
		gp_engine_submit(&e, &a, 0);
		run(&e);
		is_int(tok_t(1, 1), 220 * MS, "half speed: prefill step 220 ms");
		is_int(tok_t(1, 3), 280 * MS, "half speed: 30 ms decode steps");
	}
}

static void t_prefill_joins(void)
{
	struct gp_seq a, b;

	/* A (10 in, 20 out) at 0: step 10 + 10 = 20, then 15 ms steps: tokens
	 * at 20, 35, 50.  B (500 in) arrives at 40, mid-step; the step that
	 * starts at 50 carries A's decode and B's 500-token prefill:
	 * 10 + 500 + 5 = 515 ms, so A's 4th token comes 515 ms after its 3rd
	 * (β·500 = 500 ms more than alone) and B's first at 565.  Then both
	 * decode: 10 + 2·5 = 20 ms. */
	fresh(&base, 1000);
	seq_set(&a, 1, 10, 20);
	seq_set(&b, 2, 500, 2);
	gp_engine_submit(&e, &a, 0);
	gp_engine_advance(&e, 40 * MS);
	gp_engine_submit(&e, &b, 40 * MS);
	is_int(gp_engine_waiting(&e), 1, "B waits for the step boundary");
	run(&e);
	is_int(tok_t(1, 3) - tok_t(1, 2), 15 * MS, "A alone: 15 ms per token");
	is_int(tok_t(1, 4) - tok_t(1, 3), 515 * MS, "A's step with B's prefill: alpha + beta*500 + gamma");
	is_int(tok_t(2, 1), 565 * MS, "B's first token at the end of that step");
	is_int(b.t_admit_ns, 50 * MS, "B admitted at the step boundary: 10 ms queue");
	is_int(tok_t(1, 5) - tok_t(1, 4), 20 * MS, "two decodes: alpha + 2 gamma");
	is_int(tok_t(2, 2), 585 * MS, "B's second token");
	is_int(tok_t(1, 6) - tok_t(1, 5), 15 * MS, "A alone again");
	is_int(count_of(1), 20, "A got 20 tokens");
}

/* The gap around a neighbour's arrival and the newcomer's TTFT, with the
 * newcomer's prompt (100 tokens, keys 500..509) cold or already cached. */
static void hit_case(int warm, int64_t *gap, int64_t *ttft, long *cached)
{
	struct gp_seq x, a, c;
	uint64_t k[10];
	int64_t t0 = warm ? 200 * MS : 0;

	keys_set(k, 10, 500);
	fresh(&base, 1000);
	if (warm) {
		/* X with the same prompt: 110 ms, then it leaves; its blocks stay cached. */
		seq_set(&x, 9, 100, 1);
		x.keys = k;
		x.nkeys = 10;
		gp_engine_submit(&e, &x, 0);
		run(&e);
	}
	/* A at t0: tokens at t0+20, +35, +50; C arrives at t0+40. */
	seq_set(&a, 1, 10, 10);
	seq_set(&c, 3, 100, 2);
	c.keys = k;
	c.nkeys = 10;
	gp_engine_submit(&e, &a, t0);
	gp_engine_advance(&e, t0 + 40 * MS);
	gp_engine_submit(&e, &c, t0 + 40 * MS);
	run(&e);
	*gap = tok_t(1, 4) - tok_t(1, 3);
	*ttft = tok_t(3, 1) - (t0 + 40 * MS);
	*cached = c.cached_tokens;
}

static void t_cache_hit(void)
{
	int64_t gap_c, ttft_c, gap_w, ttft_w;
	long cc, cw;

	/* Cold: the step at 50 carries 100 prefill tokens: 10 + 100 + 5 = 115;
	 * C's TTFT = 50 + 115 - 40 = 125.  Warm: 10 blocks hit = 100 tokens,
	 * capped at 99 (the last token is computed): 10 + 1 + 5 = 16;
	 * TTFT = 10 + 16 = 26. */
	hit_case(0, &gap_c, &ttft_c, &cc);
	hit_case(1, &gap_w, &ttft_w, &cw);
	is_int(cc, 0, "cold: nothing cached");
	is_int(cw, 99, "warm: the whole prompt but its last token cached");
	is_int(ttft_c, 125 * MS, "cold TTFT: queue to the boundary + 100-token prefill step");
	is_int(ttft_w, 26 * MS, "warm TTFT: 1-token prefill step");
	is_int(gap_c, 115 * MS, "neighbour's token gap, cold: alpha + beta*100 + gamma");
	is_int(gap_w, 16 * MS, "neighbour's token gap, warm: alpha + beta*1 + gamma");
	is_int((long long)e.cached_tokens, 99, "counter: cached tokens of the warm run");
	is_int((long long)e.prompt_tokens, 210, "counter: prompt tokens X + A + C");

	/* A shared prefix hits only leading full blocks: keys 500..504 then
	 * others: 5 blocks = 50 tokens. */
	{
		struct gp_seq x, y;
		uint64_t k1[10], k2[10];

		keys_set(k1, 10, 500);
		keys_set(k2, 10, 500);
		k2[5] = 9999;
		k2[6] = 500 + 6;	/* a later key equal to the first chain's does not count */
		fresh(&base, 1000);
		seq_set(&x, 1, 100, 1);
		x.keys = k1;
		x.nkeys = 10;
		gp_engine_submit(&e, &x, 0);
		run(&e);
		seq_set(&y, 2, 100, 1);
		y.keys = k2;
		y.nkeys = 10;
		gp_engine_submit(&e, &y, 200 * MS);
		run(&e);
		is_int(y.cached_tokens, 50, "leading blocks only");
		is_int(tok_t(2, 1), 200 * MS + 60 * MS, "50 uncached tokens: 10 + 50 ms");
	}
}

static void t_budget(void)
{
	struct gp_engine_cfg c = base;
	struct gp_seq a, d;

	/* Budget 100, prompt 350: chunks 100, 100, 100, 50 → steps of 110, 110,
	 * 110, 60: first token at 390 after 4 steps. */
	c.budget = 100;
	fresh(&c, 1000);
	seq_set(&a, 1, 350, 1);
	gp_engine_submit(&e, &a, 0);
	run(&e);
	is_int(tok_t(1, 1), 390 * MS, "4 chunks: first token at 390");
	is_int(a.steps, 4, "ceil(350 / 100) = 4 steps to the first token");
	is_int((long long)e.steps, 4, "engine counted 4 steps");

	/* A decode takes its token first: D (10 in) decoding, A (350) joins at
	 * the boundary 20 (D's first token): chunks of 99, 99, 99, 53, each
	 * step with D: 10 + 99 + 5 = 114 three times, then 10 + 53 + 5 = 68:
	 * A's first token at 20 + 342 + 68 = 430. */
	fresh(&c, 1000);
	seq_set(&d, 2, 10, 100);
	seq_set(&a, 1, 350, 1);
	gp_engine_submit(&e, &d, 0);
	gp_engine_advance(&e, 5 * MS);
	gp_engine_submit(&e, &a, 5 * MS);
	run(&e);
	is_int(tok_t(1, 1), 430 * MS, "chunks of budget - decodes");
	is_int(a.steps, 4, "still 4 steps");
	is_int(tok_t(2, 2) - tok_t(2, 1), 114 * MS, "the decode's step carries a 99-token chunk");

	/* Chunking off: the whole prompt in one step even past the budget:
	 * 10 + 350 = 360. */
	c.no_chunking = 1;
	fresh(&c, 1000);
	seq_set(&a, 1, 350, 1);
	gp_engine_submit(&e, &a, 0);
	run(&e);
	is_int(tok_t(1, 1), 360 * MS, "no chunking: one 360 ms step");
	is_int(a.steps, 1, "one step");
	/* ... and a prompt that does not fit in what is left waits for the
	 * next step: D (10 in) at 0 (step 0-20); A and B (80 each) arrive at 5.
	 * Step at 20: D's decode, A's 80 (19 left): 10 + 80 + 5 = 95 → 115.
	 * Step at 115: two decodes and B's 80: 10 + 80 + 10 = 100 → 215.
	 * (Chunked, B would have got 19 tokens in the first step.) */
	{
		struct gp_seq b;

		fresh(&c, 1000);
		seq_set(&d, 3, 10, 10);
		seq_set(&a, 1, 80, 2);
		seq_set(&b, 2, 80, 1);
		gp_engine_submit(&e, &d, 0);
		gp_engine_advance(&e, 5 * MS);
		gp_engine_submit(&e, &a, 5 * MS);
		gp_engine_submit(&e, &b, 5 * MS);
		run(&e);
		is_int(tok_t(1, 1), 115 * MS, "no chunking: first prompt with the decode");
		is_int(tok_t(2, 1), 215 * MS, "second whole in the next step");
		is_int(b.steps, 1, "in one step");
	}
}

static void t_preempt(void)
{
	struct gp_seq a, b, z;
	uint64_t kb[4];

	/* Pool of 10 blocks of 10.  Z (1 token) occupies the step 0-11, so
	 * that A and B (40 in, 30 out; B's prompt has keys), both arriving at
	 * 5, start together.  Step 11-101: both prefill, 4 blocks each.
	 * Token k of each at 101 + 20(k-1) while both decode (10 + 2·5).
	 * Scheduling token 51 (after token 11, at 301) needs a 6th block each:
	 * the pool is full (5 + 5), so the newest, B, is preempted (its blocks
	 * released tail first); A takes B's anonymous 5th block.  A alone:
	 * 15 ms steps, token 30 at 301 + 19·15 = 586; scheduling its 61st
	 * token (after token 21) took B's 4th prompt block, the LRU tail of
	 * B's released chain.  At 586 B is readmitted: 3 blocks still cached
	 * (30 tokens), 51 - 30 = 21 recomputed: 10 + 21 = 31 ms → token 12
	 * at 617, then 15 ms steps. */
	keys_set(kb, 4, 700);
	fresh(&base, 10);
	seq_set(&z, 3, 1, 1);
	seq_set(&a, 1, 40, 30);
	seq_set(&b, 2, 40, 30);
	b.keys = kb;
	b.nkeys = 4;
	gp_engine_submit(&e, &z, 0);
	gp_engine_submit(&e, &a, 5 * MS);
	gp_engine_submit(&e, &b, 5 * MS);
	gp_engine_advance(&e, 290 * MS);
	is_int((long long)gp_engine_kv_blocks_used(&e), 10, "the pool is full");
	is_int((long long)e.preemptions, 0, "no preemption yet");
	gp_engine_advance(&e, 310 * MS);
	is_int((long long)e.preemptions, 1, "the counter moved");
	is_int(b.preemptions, 1, "the newest sequence was preempted");
	is_int(a.preemptions, 0, "not the oldest");
	is_int(gp_engine_waiting(&e), 1, "B is waiting again");
	is_int((long long)gp_engine_kv_blocks_used(&e), 6, "A's 6 blocks held");
	run(&e);
	is_int(tok_t(2, 11), 301 * MS, "B's token 11 before the preemption");
	is_int(tok_t(1, 12), 316 * MS, "A alone: 15 ms step");
	is_int(tok_t(1, 30), 586 * MS, "A done at 586");
	is_int(tok_t(2, 12), 617 * MS, "B recomputed 21 tokens: its 12th token at 617");
	is_int(tok_t(2, 13), 632 * MS, "then decodes");
	is_int(count_of(2), 30, "B got every token once");
	is_int(b.cached_tokens, 0, "cached_tokens is the first admission's");
	is_int((long long)gp_engine_kv_blocks_used(&e), 0, "all released");
	is_int(gp_engine_submit(&e, &a, 1000 * MS), 0, "70 tokens = 7 blocks fit");
	run(&e);
	seq_set(&a, 1, 60, 41);
	is_int(gp_engine_submit(&e, &a, 2000 * MS), -1, "101 tokens = 11 blocks cannot");
}

static void t_queue_cancel(void)
{
	struct gp_engine_cfg c = base;
	struct gp_seq a, b;

	/* max_batch 1: A (50, 2) at 0: 60, 75.  B at 10 waits; admitted at 75:
	 * prefill 60 → 135, then 150. */
	c.max_batch = 1;
	fresh(&c, 1000);
	seq_set(&a, 1, 50, 2);
	seq_set(&b, 2, 50, 2);
	gp_engine_submit(&e, &a, 0);
	gp_engine_submit(&e, &b, 10 * MS);
	is_int(gp_engine_waiting(&e), 1, "B waits");
	run(&e);
	is_int(tok_t(1, 2), 75 * MS, "A done at 75");
	is_int(b.t_admit_ns, 75 * MS, "B admitted when A finished");
	is_int(tok_t(2, 1), 135 * MS, "B's first token after its own prefill step");

	/* Cancel: A (10, 100): 20, 35, 50...; cancelled at 40 mid-step: the step
	 * keeps its end (50), where B is admitted: 10 + 10 → 70. */
	fresh(&c, 1000);
	seq_set(&a, 1, 10, 100);
	seq_set(&b, 2, 10, 1);
	gp_engine_submit(&e, &a, 0);
	gp_engine_submit(&e, &b, 0);
	gp_engine_advance(&e, 40 * MS);
	is_int(count_of(1), 2, "A has 2 tokens at 40 ms");
	gp_engine_cancel(&e, &a, 40 * MS);
	is_int(a.state, GP_SEQ_IDLE, "A idle after cancel");
	is_int(gp_engine_next_ns(&e), 50 * MS, "the step in flight keeps its end");
	run(&e);
	is_int(count_of(1), 2, "no token for A after cancel");
	is_int(b.t_admit_ns, 50 * MS, "B admitted at the step boundary after the cancel");
	is_int(tok_t(2, 1), 70 * MS, "B's prefill step");
	is_int(gp_engine_running(&e), 0, "all slots free");
	is_int((long long)gp_engine_kv_blocks_used(&e), 0, "all blocks free");
	/* Cancel while waiting. */
	fresh(&c, 1000);
	seq_set(&a, 1, 100, 1);
	seq_set(&b, 2, 100, 1);
	gp_engine_submit(&e, &a, 0);
	gp_engine_submit(&e, &b, 0);
	gp_engine_cancel(&e, &b, 1 * MS);
	is_int(gp_engine_waiting(&e), 0, "waiting sequence removed");
	run(&e);
	is_int(count_of(2), 0, "no token for it");

	/* KV usage: 25 tokens = 3 blocks of 10 from the first step; after 7
	 * tokens the step scheduling the 32nd token holds 4. */
	fresh(&base, 1000);
	seq_set(&a, 1, 25, 100);
	gp_engine_submit(&e, &a, 0);
	is_int((long long)gp_engine_kv_blocks_used(&e), 3, "25 tokens = 3 blocks");
	gp_engine_advance(&e, 35 * MS + 6 * 15 * MS);
	is_int(a.emitted, 7, "7 tokens emitted");
	is_int((long long)gp_engine_kv_blocks_used(&e), 4, "32 tokens = 4 blocks");
	gp_engine_cancel(&e, &a, 200 * MS);
	is_int((long long)gp_engine_kv_blocks_used(&e), 0, "none after cancel");
}

static void t_jump(void)
{
	int64_t t1[64], t2[64];
	int n1 = 0, n2 = 0, mono = 1;
	struct gp_seq a, b;

	for (int pass = 0; pass < 2; pass++) {
		fresh(&base, 1000);
		seq_set(&a, 1, 30, 10);
		seq_set(&b, 2, 70, 10);
		gp_engine_submit(&e, &a, 0);
		gp_engine_submit(&e, &b, 3 * MS);
		if (pass == 0)
			run(&e);
		else
			gp_engine_advance(&e, 10000 * MS);
		for (int i = 0; i < nev && i < 64; i++)
			(pass ? t2 : t1)[i] = evs[i].t * 10 + evs[i].who;
		if (pass)
			n2 = nev;
		else
			n1 = nev;
	}
	is_int(n1, 20, "20 tokens");
	ok(n1 == n2 && memcmp(t1, t2, (size_t)n1 * sizeof(t1[0])) == 0,
	   "one big advance equals event-by-event");
	for (int i = 1; i < n2; i++)
		if (t2[i] / 10 < t2[i - 1] / 10)
			mono = 0;
	ok(mono, "callbacks come in time order");
}

int main(void)
{
	t_single();
	t_prefill_joins();
	t_cache_hit();
	t_budget();
	t_preempt();
	t_queue_cancel();
	t_jump();
	gp_kvcache_free(pool);
	return done_testing();
}
