/* SPDX-License-Identifier: MIT */
/* engine — continuous-batching timing model of one emulated engine (engine.h). */
#include <math.h>
#include <string.h>

#include "engine.h"
#include "banned.h"

static void list_push(struct gp_seq_list *l, struct gp_seq *s)
{
	s->next = NULL;
	s->prev = l->tail;
	if (l->tail)
		l->tail->next = s;
	else
		l->head = s;
	l->tail = s;
	l->n++;
}

static void list_remove(struct gp_seq_list *l, struct gp_seq *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		l->head = s->next;
	if (s->next)
		s->next->prev = s->prev;
	else
		l->tail = s->prev;
	s->prev = s->next = NULL;
	l->n--;
}

static struct gp_seq *list_pop(struct gp_seq_list *l)
{
	struct gp_seq *s = l->head;

	if (s)
		list_remove(l, s);
	return s;
}

void gp_engine_init(struct gp_engine *e, const struct gp_engine_cfg *cfg,
		    struct gp_kvcache *cache, gp_engine_token_fn *on_token, void *arg)
{
	memset(e, 0, sizeof(*e));
	e->cfg = *cfg;
	e->cache = cache;
	e->on_token = on_token;
	e->arg = arg;
}

static int64_t ns_of_s(double s)
{
	return (int64_t)llround(s * 1e9);
}

static int64_t step_ns(const struct gp_engine *e, long batch)
{
	double ms = (e->cfg.decode_ms + e->cfg.decode_ms_per_seq * (double)batch) / e->cfg.speed;

	return (int64_t)llround(ms * 1e6);
}

/* Start the next prefill at time t if the lane is free. */
static void prefill_start(struct gp_engine *e, int64_t t)
{
	struct gp_seq *s;
	size_t hit = 0;
	long cached, todo;

	if (e->prefill_busy || !(s = list_pop(&e->admitted)))
		return;
	if (e->cache && s->nkeys)
		hit = gp_kvcache_query(e->cache, s->keys, s->nkeys);
	cached = (long)hit * e->cfg.block_tokens;
	if (cached > s->in_tokens - 1)
		cached = s->in_tokens - 1;
	if (cached < 0)
		cached = 0;
	todo = s->in_tokens - cached;
	s->cached_tokens = cached;
	s->state = GP_SEQ_PREFILL;
	s->t_prefill_ns = t;
	e->prompt_tokens += (uint64_t)s->in_tokens;
	e->cached_tokens += (uint64_t)cached;
	e->prefilling = s;
	e->prefill_busy = 1;
	e->prefill_end_ns = t + ns_of_s((double)todo / (e->cfg.prefill_tok_s * e->cfg.speed));
}

/* Give free slots to waiting sequences at time t, then feed the lane. */
static void admit(struct gp_engine *e, int64_t t)
{
	struct gp_seq *s;

	while (e->running < e->cfg.max_batch && (s = list_pop(&e->waiting))) {
		s->state = GP_SEQ_ADMITTED;
		s->t_admit_ns = t;
		list_push(&e->admitted, s);
		e->running++;
	}
	prefill_start(e, t);
}

/* Start a decode step at time t over every decoding sequence. */
static void step_start(struct gp_engine *e, int64_t t)
{
	if (e->step_busy || !e->decoding.n)
		return;
	for (struct gp_seq *s = e->decoding.head; s; s = s->next)
		s->in_step = 1;
	e->step_busy = 1;
	e->step_batch = e->decoding.n;
	e->step_end_ns = t + step_ns(e, e->decoding.n);
	e->steps++;
}

static void finish(struct gp_engine *e, struct gp_seq *s)
{
	s->state = GP_SEQ_IDLE;
	e->running--;
	e->finished++;
}

static void prefill_end(struct gp_engine *e)
{
	struct gp_seq *s = e->prefilling;
	int64_t t = e->prefill_end_ns;

	e->prefill_busy = 0;
	e->prefilling = NULL;
	e->now_ns = t;
	if (s) {
		s->emitted = 1;
		s->t_first_ns = t;
		e->generation_tokens++;
		if (s->emitted >= s->out_tokens) {
			finish(e, s);
		} else {
			s->state = GP_SEQ_DECODE;
			s->in_step = 0;
			list_push(&e->decoding, s);
		}
		e->on_token(s, t, e->arg);
	}
	admit(e, t);
	step_start(e, t);
}

static void step_end(struct gp_engine *e)
{
	int64_t t = e->step_end_ns;
	struct gp_seq *s, *nx;

	e->step_busy = 0;
	e->now_ns = t;
	for (s = e->decoding.head; s; s = nx) {
		nx = s->next;
		if (!s->in_step)
			continue;
		s->emitted++;
		e->generation_tokens++;
		if (s->emitted >= s->out_tokens) {
			list_remove(&e->decoding, s);
			finish(e, s);
		}
		e->on_token(s, t, e->arg);
	}
	admit(e, t);
	step_start(e, t);
}

int64_t gp_engine_next_ns(const struct gp_engine *e)
{
	int64_t t = INT64_MAX;

	if (e->prefill_busy)
		t = e->prefill_end_ns;
	if (e->step_busy && e->step_end_ns < t)
		t = e->step_end_ns;
	return t;
}

void gp_engine_advance(struct gp_engine *e, int64_t now_ns)
{
	for (;;) {
		int pf = e->prefill_busy && e->prefill_end_ns <= now_ns;
		int st = e->step_busy && e->step_end_ns <= now_ns;

		if (pf && (!st || e->prefill_end_ns <= e->step_end_ns))
			prefill_end(e);
		else if (st)
			step_end(e);
		else
			break;
	}
	if (now_ns > e->now_ns)
		e->now_ns = now_ns;
}

void gp_engine_submit(struct gp_engine *e, struct gp_seq *s, int64_t now_ns)
{
	gp_engine_advance(e, now_ns);
	s->state = GP_SEQ_WAITING;
	s->cached_tokens = 0;
	s->emitted = 0;
	s->t_submit_ns = now_ns;
	s->t_admit_ns = s->t_prefill_ns = s->t_first_ns = 0;
	s->in_step = 0;
	list_push(&e->waiting, s);
	admit(e, now_ns);
}

void gp_engine_cancel(struct gp_engine *e, struct gp_seq *s, int64_t now_ns)
{
	enum gp_seq_state st = s->state;

	switch (st) {
	case GP_SEQ_IDLE:
		return;
	case GP_SEQ_WAITING:
		list_remove(&e->waiting, s);
		break;
	case GP_SEQ_ADMITTED:
		list_remove(&e->admitted, s);
		break;
	case GP_SEQ_PREFILL:
		e->prefilling = NULL;	/* the lane stays busy until its end */
		break;
	case GP_SEQ_DECODE:
		list_remove(&e->decoding, s);
		break;
	}
	s->state = GP_SEQ_IDLE;
	/* Its slot frees at now_ns, not at the events before it. */
	gp_engine_advance(e, now_ns);
	if (st != GP_SEQ_WAITING) {
		e->running--;
		admit(e, e->now_ns);
	}
}

static uint64_t blocks_of(const struct gp_engine *e, const struct gp_seq *s)
{
	uint64_t tok = (uint64_t)s->in_tokens + (uint64_t)s->emitted;
	uint64_t bt = (uint64_t)e->cfg.block_tokens;

	return (tok + bt - 1) / bt;
}

uint64_t gp_engine_kv_blocks_used(const struct gp_engine *e)
{
	uint64_t n = 0;

	for (const struct gp_seq *s = e->admitted.head; s; s = s->next)
		n += blocks_of(e, s);
	for (const struct gp_seq *s = e->decoding.head; s; s = s->next)
		n += blocks_of(e, s);
	if (e->prefilling)
		n += blocks_of(e, e->prefilling);
	return n;
}
