/* SPDX-License-Identifier: MIT */
/* engine — one step loop with a token budget over one KV pool (engine.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine.h"
#include "base/vec.h"
#include "base/banned.h"

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

static void list_push_front(struct gp_seq_list *l, struct gp_seq *s)
{
	s->prev = NULL;
	s->next = l->head;
	if (l->head)
		l->head->prev = s;
	else
		l->tail = s;
	l->head = s;
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

void gp_engine_init(struct gp_engine *e, const struct gp_engine_cfg *cfg,
		    struct gp_kvcache *pool, gp_engine_token_fn *on_token, void *arg)
{
	memset(e, 0, sizeof(*e));
	e->cfg = *cfg;
	e->pool = pool;
	e->on_token = on_token;
	e->arg = arg;
}

/* Tokens that must be in KV before s emits its next token. */
static long seq_n(const struct gp_seq *s)
{
	return s->in_tokens + s->emitted;
}

static int is_decoding(const struct gp_seq *s)
{
	return s->emitted >= 1 && seq_n(s) - s->computed == 1;
}

uint64_t gp_engine_blocks_needed(const struct gp_engine *e, const struct gp_seq *s)
{
	uint64_t bt = (uint64_t)e->cfg.block_tokens;

	return ((uint64_t)s->in_tokens + (uint64_t)s->out_tokens + bt - 1) / bt;
}

static int64_t step_ns(const struct gp_engine *e, const struct gp_step *st)
{
	const struct gp_engine_cfg *c = &e->cfg;
	double ms = (c->alpha_ms + c->beta_ms * (double)st->prefill_tokens +
		     c->gamma_ms * (double)st->decodes + c->delta_ms * (double)st->ctx_tokens) /
		    c->speed;
	int64_t ns = (int64_t)llround(ms * 1e6);

	return ns > 0 ? ns : 1;
}

/* Tail first, so that the head of a chain stays cached longest. */
static void release_blocks(struct gp_engine *e, struct gp_seq *s)
{
	while (s->nblocks > 0)
		gp_kvcache_release(e->pool, s->blocks[--s->nblocks]);
	s->ncommitted = 0;
}

static int reserve(struct gp_engine *e, struct gp_seq *s, size_t n)
{
	uint32_t *p;

	if (n <= s->capblocks)
		return 0;
	p = gp_grow(s->blocks, &s->capblocks, n, sizeof(*p), 4);	/* vec.h */
	if (!p) {
		e->oom = 1;
		return -1;
	}
	s->blocks = p;
	return 0;
}

/* Make s hold the blocks for its first `upto` tokens: 0, or -1 when the pool
 * has too few free blocks (nothing is taken then). */
static int grow(struct gp_engine *e, struct gp_seq *s, long upto)
{
	size_t bt = (size_t)e->cfg.block_tokens;
	size_t need = ((size_t)upto + bt - 1) / bt;

	if (need <= s->nblocks)
		return 0;
	if (need - s->nblocks > gp_kvcache_nfree(e->pool) || reserve(e, s, need))
		return -1;
	while (s->nblocks < need)
		gp_kvcache_alloc(e->pool, &s->blocks[s->nblocks++]);
	return 0;
}

/* Register the keys of s's prompt blocks that are full once its first
 * `upto` tokens are computed (vLLM caches them when it schedules them). */
static void commit_keys(struct gp_engine *e, struct gp_seq *s, long upto)
{
	size_t bt = (size_t)e->cfg.block_tokens;

	while (s->ncommitted < s->nkeys && s->ncommitted < s->nblocks &&
	       (s->ncommitted + 1) * bt <= (size_t)upto) {
		gp_kvcache_commit(e->pool, s->blocks[s->ncommitted], s->keys[s->ncommitted]);
		s->ncommitted++;
	}
}

static void schedule(struct gp_engine *e, struct gp_seq *s, long k, int decode, long *left)
{
	struct gp_step *st = &e->step;

	commit_keys(e, s, s->computed + k);
	s->sched = k;
	s->decode = decode;
	st->batch++;
	st->tokens += k;
	if (decode)
		st->decodes++;
	else
		st->prefill_tokens += k;
	st->ctx_tokens += s->computed + k;
	*left -= k;
}

static void unschedule(struct gp_engine *e, struct gp_seq *s, long *left)
{
	struct gp_step *st = &e->step;

	if (!s->sched)
		return;
	st->batch--;
	st->tokens -= s->sched;
	if (s->decode)
		st->decodes--;
	else
		st->prefill_tokens -= s->sched;
	st->ctx_tokens -= s->computed + s->sched;
	*left += s->sched;
	s->sched = 0;
}

/* Back to the head of the queue, to be recomputed. */
static void preempt(struct gp_engine *e, struct gp_seq *v, long *left)
{
	unschedule(e, v, left);
	list_remove(&e->running, v);
	release_blocks(e, v);
	v->computed = 0;
	v->state = GP_SEQ_WAITING;
	list_push_front(&e->waiting, v);
	v->preemptions++;
	e->preemptions++;
}

/* Schedule running s for k tokens, preempting the newest running sequence
 * until its blocks fit.  0 when s itself was preempted (or out of memory). */
static int sched_running(struct gp_engine *e, struct gp_seq *s, long k, int decode, long *left)
{
	while (grow(e, s, s->computed + k) < 0) {
		struct gp_seq *v = e->running.tail;

		if (e->oom)
			return 0;
		preempt(e, v, left);
		if (v == s)
			return 0;
	}
	schedule(e, s, k, decode, left);
	return 1;
}

/* Take waiting sequences, first come first served, while there is room.
 * have_prefill: the step already carries a prefill (for no_chunking). */
static void admit(struct gp_engine *e, int64_t t, long *left, int have_prefill)
{
	const struct gp_engine_cfg *c = &e->cfg;
	struct gp_seq *s;

	while ((s = e->waiting.head) && e->running.n < c->max_batch && *left > 0) {
		long n = seq_n(s), computed, k;
		size_t h, nk = s->nkeys;

		if (reserve(e, s, (size_t)((n + c->block_tokens - 1) / c->block_tokens) + 1))
			return;
		if (nk > (size_t)(n / c->block_tokens))
			nk = (size_t)(n / c->block_tokens);
		h = s->keys ? gp_kvcache_acquire(e->pool, s->keys, nk, s->blocks) : 0;
		s->nblocks = s->ncommitted = h;
		computed = (long)h * c->block_tokens;
		if (computed > n - 1)
			computed = n - 1;
		k = n - computed;
		if (k > *left && (!c->no_chunking || have_prefill)) {
			if (!c->no_chunking)
				k = *left;
			else
				k = 0;
		}
		s->computed = computed;
		if (!k || grow(e, s, computed + k) < 0) {
			release_blocks(e, s);
			s->computed = 0;
			return;		/* first come, first served: no overtaking */
		}
		list_remove(&e->waiting, s);
		list_push(&e->running, s);
		s->state = GP_SEQ_RUNNING;
		if (!s->admitted_once) {
			s->admitted_once = 1;
			s->t_admit_ns = t;
			s->cached_tokens = computed;
			e->prompt_tokens += (uint64_t)s->in_tokens;
			e->cached_tokens += (uint64_t)computed;
		}
		schedule(e, s, k, 0, left);
		have_prefill = 1;
		if (*left < 0)
			*left = 0;
	}
}

/* Build and start the step beginning at t (engine.h, steps 1-3). */
static void step_start(struct gp_engine *e, int64_t t)
{
	const struct gp_engine_cfg *c = &e->cfg;
	struct gp_step *st = &e->step;
	long left = c->budget;
	int have_prefill = 0;
	struct gp_seq *s, *nx;

	memset(st, 0, sizeof(*st));
	st->t_start_ns = t;
	for (s = e->running.head; s && left > 0; s = nx) {
		nx = s->next;
		if (!is_decoding(s))
			continue;
		if (!sched_running(e, s, 1, 1, &left))
			break;
		nx = s->next;	/* the tail may have been preempted */
	}
	for (s = e->running.head; s && left > 0; s = nx) {
		long k;

		nx = s->next;
		if (s->sched || is_decoding(s))
			continue;
		k = seq_n(s) - s->computed;
		if (k > left && !c->no_chunking)
			k = left;
		if (!sched_running(e, s, k, 0, &left))
			break;
		have_prefill = 1;
		if (left < 0)
			left = 0;
		nx = s->next;
	}
	admit(e, t, &left, have_prefill);
	if (!st->batch) {
		e->step_busy = 0;
		return;
	}
	st->t_end_ns = t + step_ns(e, st);
	e->step_busy = 1;
	e->steps++;
	e->step_tokens += (uint64_t)st->tokens;
	e->step_batch += (uint64_t)st->batch;
	if (e->on_step)
		e->on_step(st, e->arg);
}

static void seq_leave(struct gp_engine *e, struct gp_seq *s)
{
	release_blocks(e, s);
	free(s->blocks);
	s->blocks = NULL;
	s->capblocks = 0;
	s->state = GP_SEQ_IDLE;
}

static void step_end(struct gp_engine *e)
{
	const struct gp_step *st = &e->step;
	int64_t t = st->t_end_ns;
	struct gp_seq *s, *nx;

	e->step_busy = 0;
	e->now_ns = t;
	for (s = e->running.head; s; s = nx) {
		nx = s->next;
		if (!s->sched)
			continue;
		s->computed += s->sched;
		s->sched = 0;
		s->steps++;
		s->sum_batch += (double)st->batch;
		s->sum_tokens += (double)st->tokens;
		if (s->computed < seq_n(s))
			continue;
		s->emitted++;
		e->generation_tokens++;
		if (s->emitted == 1)
			s->t_first_ns = t;
		if (s->emitted >= s->out_tokens) {
			list_remove(&e->running, s);
			seq_leave(e, s);
			e->finished++;
		}
		e->on_token(s, t, e->arg);	/* may free s */
	}
	step_start(e, t);
}

int64_t gp_engine_next_ns(const struct gp_engine *e)
{
	return e->step_busy ? e->step.t_end_ns : INT64_MAX;
}

void gp_engine_advance(struct gp_engine *e, int64_t now_ns)
{
	while (e->step_busy && e->step.t_end_ns <= now_ns)
		step_end(e);
	if (now_ns > e->now_ns)
		e->now_ns = now_ns;
}

/* An idle engine with work starts a step at t. */
static void wake(struct gp_engine *e, int64_t t)
{
	if (!e->step_busy && (e->waiting.n || e->running.n))
		step_start(e, t);
}

int gp_engine_submit(struct gp_engine *e, struct gp_seq *s, int64_t now_ns)
{
	if (gp_engine_blocks_needed(e, s) > e->pool->cap)
		return -1;
	gp_engine_advance(e, now_ns);
	s->state = GP_SEQ_WAITING;
	s->cached_tokens = s->emitted = s->preemptions = s->steps = 0;
	s->sum_batch = s->sum_tokens = 0;
	s->t_submit_ns = now_ns;
	s->t_admit_ns = s->t_first_ns = 0;
	s->computed = s->sched = 0;
	s->decode = s->admitted_once = 0;
	s->blocks = NULL;
	s->nblocks = s->capblocks = s->ncommitted = 0;
	list_push(&e->waiting, s);
	wake(e, e->now_ns);
	return 0;
}

void gp_engine_cancel(struct gp_engine *e, struct gp_seq *s, int64_t now_ns)
{
	switch (s->state) {
	case GP_SEQ_IDLE:
		return;
	case GP_SEQ_WAITING:
		list_remove(&e->waiting, s);
		break;
	case GP_SEQ_RUNNING:
		list_remove(&e->running, s);
		break;
	}
	s->sched = 0;		/* the step in progress keeps its end time */
	s->state = GP_SEQ_IDLE;
	/* Its blocks are held until now_ns, not released at the events before. */
	gp_engine_advance(e, now_ns);
	seq_leave(e, s);
	wake(e, e->now_ns);
}

uint64_t gp_engine_kv_blocks_used(const struct gp_engine *e)
{
	return (uint64_t)(e->pool->cap - gp_kvcache_nfree(e->pool));
}
