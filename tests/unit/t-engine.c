/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the engine timing model, driven by an explicit clock.  The
 * expected times are worked out by hand from the model in engine.h (each
 * case states its arithmetic), so they do not depend on the code under test.
 */
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "tap.h"

#define MS 1000000LL

struct ev { int who; long k; int64_t t; };
static struct ev evs[4096];
static int nev;

static void on_tok(struct gp_seq *s, int64_t t, void *arg)
{
	evs[nev].who = (int)(intptr_t)s->user;
	evs[nev].k = s->emitted;
	evs[nev].t = t;
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

int main(void)
{
	struct gp_engine e;
	struct gp_engine_cfg cfg = {
		.prefill_tok_s = 1000, .decode_ms = 10, .decode_ms_per_seq = 5,
		.max_batch = 8, .block_tokens = 10, .speed = 1,
	};
	struct gp_seq a, b, c;

	/* 1. One sequence: prefill 100 tok / 1000 tok/s = 100 ms; then steps of
	 * 10 + 5*1 = 15 ms: tokens at 100, 115, 130, 145. */
	nev = 0;
	gp_engine_init(&e, &cfg, NULL, on_tok, NULL);
	seq_set(&a, 1, 100, 4);
	gp_engine_submit(&e, &a, 0);
	is_int(gp_engine_running(&e), 1, "running after submit");
	is_int(gp_engine_next_ns(&e), 100 * MS, "next event: end of prefill");
	run(&e);
	is_int(tok_t(1, 1), 100 * MS, "first token at end of prefill");
	is_int(tok_t(1, 2), 115 * MS, "second after one 15 ms step");
	is_int(tok_t(1, 4), 145 * MS, "last token");
	is_int(count_of(1), 4, "exactly out_tokens tokens");
	is_int(gp_engine_running(&e), 0, "slot freed");
	is_int(gp_engine_next_ns(&e), INT64_MAX, "idle");
	is_int((long long)e.generation_tokens, 4, "generation tokens counted");
	is_int((long long)e.prompt_tokens, 100, "prompt tokens counted");

	/* 2. Two at once: prefills are serial (A ends 100, B ends 200).  A's
	 * steps alone last 15 ms: 100-115-130-145-160-175-190-205; B joins at
	 * 200 and waits for the step ending 205; then steps of 10+5*2 = 20 ms. */
	nev = 0;
	gp_engine_init(&e, &cfg, NULL, on_tok, NULL);
	seq_set(&a, 1, 100, 20);
	seq_set(&b, 2, 100, 3);
	gp_engine_submit(&e, &a, 0);
	gp_engine_submit(&e, &b, 0);
	is_int(gp_engine_running(&e), 2, "both admitted");
	run(&e);
	is_int(tok_t(2, 1), 200 * MS, "B's first token waits for A's prefill");
	is_int(tok_t(1, 8), 205 * MS, "A's 8th token after 7 single steps");
	is_int(tok_t(1, 9), 225 * MS, "then 20 ms steps with 2 sequences");
	is_int(tok_t(2, 2), 225 * MS, "B joins at the next step boundary");
	is_int(tok_t(2, 3), 245 * MS, "B's last token");
	is_int(tok_t(1, 11), 260 * MS, "A alone again: 15 ms steps");
	is_int(count_of(1), 20, "A got 20 tokens");

	/* 3. Queueing past max_batch = 1: B is admitted when A finishes. */
	nev = 0;
	cfg.max_batch = 1;
	gp_engine_init(&e, &cfg, NULL, on_tok, NULL);
	seq_set(&a, 1, 50, 2);
	seq_set(&b, 2, 50, 2);
	gp_engine_submit(&e, &a, 0);
	gp_engine_submit(&e, &b, 10 * MS);
	is_int(gp_engine_waiting(&e), 1, "B waits");
	run(&e);
	/* A: prefill 50 ms, token 1 at 50, token 2 at 65: finishes 65. */
	is_int(b.t_admit_ns, 65 * MS, "B admitted when A finished");
	is_int(tok_t(2, 1), 115 * MS, "B's first token after its own prefill");
	cfg.max_batch = 8;

	/* 4. Prefix cache: 100 tokens = 10 blocks; the second identical prompt
	 * hits 10 blocks = 100 tokens, capped at in-1 = 99: prefill 1 ms. */
	{
		struct gp_kvcache *kc = gp_kvcache_new(64);
		uint64_t keys[10];

		for (int i = 0; i < 10; i++)
			keys[i] = 1000 + (uint64_t)i;
		nev = 0;
		gp_engine_init(&e, &cfg, kc, on_tok, NULL);
		seq_set(&a, 1, 100, 1);
		a.keys = keys;
		a.nkeys = 10;
		gp_engine_submit(&e, &a, 0);
		run(&e);
		is_int(a.cached_tokens, 0, "cold: nothing cached");
		is_int(tok_t(1, 1), 100 * MS, "cold prefill 100 ms");
		seq_set(&b, 2, 105, 1);
		b.keys = keys;
		b.nkeys = 10;
		gp_engine_submit(&e, &b, 200 * MS);
		run(&e);
		is_int(b.cached_tokens, 100, "warm: 10 blocks cached");
		is_int(tok_t(2, 1), 205 * MS, "warm prefill: 5 uncached tokens, 5 ms");
		seq_set(&c, 3, 100, 1);
		c.keys = keys;
		c.nkeys = 10;
		gp_engine_submit(&e, &c, 300 * MS);
		run(&e);
		is_int(c.cached_tokens, 99, "full hit is capped at in_tokens - 1");
		is_int(tok_t(3, 1), 301 * MS, "one token recomputed: 1 ms");
		is_int((long long)e.cached_tokens, 199, "cached tokens counted");
		gp_kvcache_free(kc);
	}

	/* 5. Speed 0.5 doubles every duration: prefill 200 ms, steps 30 ms. */
	nev = 0;
	cfg.speed = 0.5;
	gp_engine_init(&e, &cfg, NULL, on_tok, NULL);
	seq_set(&a, 1, 100, 3);
	gp_engine_submit(&e, &a, 0);
	run(&e);
	is_int(tok_t(1, 1), 200 * MS, "half speed: prefill 200 ms");
	is_int(tok_t(1, 3), 260 * MS, "half speed: 30 ms steps");
	cfg.speed = 1;

	/* 6. Cancel: a running sequence frees its slot at the cancel time. */
	nev = 0;
	cfg.max_batch = 1;
	gp_engine_init(&e, &cfg, NULL, on_tok, NULL);
	seq_set(&a, 1, 10, 100);
	seq_set(&b, 2, 10, 1);
	gp_engine_submit(&e, &a, 0);
	gp_engine_submit(&e, &b, 0);
	gp_engine_advance(&e, 30 * MS);	/* A: token 1 at 10, 2 at 25 */
	is_int(count_of(1), 2, "A has 2 tokens at 30 ms");
	gp_engine_cancel(&e, &a, 37 * MS);
	is_int(a.state, GP_SEQ_IDLE, "A idle after cancel");
	is_int(b.t_admit_ns, 37 * MS, "B admitted at the cancel time");
	run(&e);
	is_int(count_of(1), 2, "no token for A after cancel");
	is_int(tok_t(2, 1), 47 * MS, "B's prefill 10 ms after admission");
	is_int(gp_engine_running(&e), 0, "all slots free");
	/* Cancel while waiting, and cancel mid-prefill keeps the lane busy. */
	nev = 0;
	gp_engine_init(&e, &cfg, NULL, on_tok, NULL);
	seq_set(&a, 1, 100, 1);
	seq_set(&b, 2, 100, 1);
	gp_engine_submit(&e, &a, 0);
	gp_engine_submit(&e, &b, 0);
	gp_engine_cancel(&e, &b, 1 * MS);
	is_int(gp_engine_waiting(&e), 0, "waiting sequence removed");
	cfg.max_batch = 8;
	gp_engine_init(&e, &cfg, NULL, on_tok, NULL);
	seq_set(&a, 1, 100, 1);
	seq_set(&b, 2, 100, 1);
	gp_engine_submit(&e, &a, 0);
	gp_engine_submit(&e, &b, 0);
	gp_engine_cancel(&e, &a, 50 * MS);
	run(&e);
	is_int(tok_t(1, 1), -1, "cancelled mid-prefill: no token");
	is_int(tok_t(2, 1), 200 * MS, "the lane stayed busy until 100 ms");

	/* 7. Advancing in one jump gives the same schedule as event by event. */
	{
		int64_t t1[64], t2[64];
		int n1 = 0, n2 = 0;

		for (int pass = 0; pass < 2; pass++) {
			nev = 0;
			gp_engine_init(&e, &cfg, NULL, on_tok, NULL);
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
		int mono = 1;
		for (int i = 1; i < n2; i++)
			if (t2[i] / 10 < t2[i - 1] / 10)
				mono = 0;
		ok(mono, "callbacks come in time order");
	}

	/* 8. KV usage: blocks of prompt + generated tokens of running sequences. */
	nev = 0;
	gp_engine_init(&e, &cfg, NULL, on_tok, NULL);
	seq_set(&a, 1, 25, 100);
	gp_engine_submit(&e, &a, 0);
	is_int((long long)gp_engine_kv_blocks_used(&e), 3, "25 tokens = 3 blocks of 10");
	gp_engine_advance(&e, 25 * MS + 6 * 15 * MS);	/* 7 tokens: 32 -> 4 blocks */
	is_int(a.emitted, 7, "7 tokens emitted");
	is_int((long long)gp_engine_kv_blocks_used(&e), 4, "32 tokens = 4 blocks");
	gp_engine_cancel(&e, &a, 200 * MS);
	is_int((long long)gp_engine_kv_blocks_used(&e), 0, "none after cancel");

	return done_testing();
}
