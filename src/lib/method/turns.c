/* SPDX-License-Identifier: MIT */
/* turns — goodput@SLO split by session turn and by session (turns.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "method/turns.h"
#include "stats/stats.h"

static int nomem(void)
{
	errno = ENOMEM;
	return -1;
}

void gp_turns_init(struct gp_turns *t)
{
	memset(t, 0, sizeof(*t));
	for (int b = 0; b < GP_TURNS_NB; b++)
		gp_tally_init(&t->t[b]);
}

void gp_turns_release(struct gp_turns *t)
{
	for (int b = 0; b < GP_TURNS_NB; b++)
		free(t->ttft[b]);
	json_decref(t->sess);
	gp_turns_init(t);
}

int gp_turns_bucket(long turn)
{
	return turn <= 1 ? 0 : turn == 2 ? 1 : 2;
}

const char *gp_turns_name(int bucket)
{
	static const char *const n[GP_TURNS_NB] = { "1", "2", "3+" };

	return bucket >= 0 && bucket < GP_TURNS_NB ? n[bucket] : "?";
}

static int push(struct gp_turns *t, int b, double v)
{
	if (t->nttft[b] == t->capttft[b]) {
		double *p = gp_grow(t->ttft[b], &t->capttft[b], t->nttft[b] + 1, sizeof(double), 64);

		if (!p)
			return nomem();
		t->ttft[b] = p;
	}
	t->ttft[b][t->nttft[b]++] = v;
	return 0;
}

/* Session key's state set to state (1 all good so far, 2 a miss). */
static int sess_set(struct gp_turns *t, const char *key, json_int_t state)
{
	if (!t->sess && !(t->sess = json_object()))
		return nomem();
	if (json_object_set_new_nocheck(t->sess, key, json_integer(state)))
		return nomem();
	return 0;
}

int gp_turns_add(struct gp_turns *t, const struct gp_slo *slo, const char *session, long turn,
		 enum gp_outcome o, double ttft_ms, double tpot_ms)
{
	int b = gp_turns_bucket(turn);
	json_t *was = t->sess ? json_object_get(t->sess, session) : NULL;
	int miss = was && json_integer_value(was) == 2;

	if (o != GP_OUTCOME_FAILED && !isnan(ttft_ms) && push(t, b, ttft_ms))
		return -1;
	if (!gp_tally_add(&t->t[b], slo, o, ttft_ms, tpot_ms))
		miss = 1;
	if (was)
		json_integer_set(was, miss ? 2 : 1);
	else if (sess_set(t, session, miss ? 2 : 1))
		return -1;
	t->requests++;
	return 0;
}

int gp_turns_merge(struct gp_turns *dst, const struct gp_turns *src)
{
	const char *k;
	json_t *v;
	char key[32];

	for (int b = 0; b < GP_TURNS_NB; b++) {
		const struct gp_tally *s = &src->t[b];
		struct gp_tally *d = &dst->t[b];

		d->attempted += s->attempted;
		d->good += s->good;
		d->good_single += s->good_single;
		d->paired += s->paired;
		d->unpaired_ok += s->unpaired_ok;
		d->single_token += s->single_token;
		d->failed += s->failed;
		for (size_t i = 0; i < src->nttft[b]; i++)
			if (push(dst, b, src->ttft[b][i]))
				return -1;
	}
	/* Sessions of another run are other sessions: keyed by their number. */
	if (src->sess)
		json_object_foreach(src->sess, k, v) {
			snprintf(key, sizeof(key), "#%zu", dst->sess ? json_object_size(dst->sess) : 0);
			if (sess_set(dst, key, json_integer_value(v)))
				return -1;
		}
	dst->requests += src->requests;
	return 0;
}

void gp_turns_sessions(const struct gp_turns *t, long *sessions, long *good)
{
	const char *k;
	json_t *v;

	*sessions = *good = 0;
	if (t->sess)
		json_object_foreach(t->sess, k, v) {
			(*sessions)++;
			*good += json_integer_value(v) == 1;
		}
}

double gp_turns_ttft(struct gp_turns *t, int b, double p)
{
	if (!t->nttft[b])
		return NAN;
	gp_sort_doubles(t->ttft[b], t->nttft[b]);
	return gp_quantile_sorted(t->ttft[b], t->nttft[b], p);
}
