/* SPDX-License-Identifier: MIT */
/* turns — goodput@SLO split by session turn and by session (turns.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/map.h"
#include "method/turns.h"
#include "stats/stats.h"

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
	gp_map_free(t->sess);
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

static void push(struct gp_turns *t, int b, double v)
{
	if (t->nttft[b] == t->capttft[b]) {
		t->capttft[b] = t->capttft[b] ? 2 * t->capttft[b] : 64;
		t->ttft[b] = gp_xreallocarray(t->ttft[b], t->capttft[b], sizeof(double));
	}
	t->ttft[b][t->nttft[b]++] = v;
}

void gp_turns_add(struct gp_turns *t, const struct gp_slo *slo, const char *session, long turn,
		  enum gp_outcome o, double ttft_ms, double tpot_ms)
{
	int b = gp_turns_bucket(turn);
	int good = gp_tally_add(&t->t[b], slo, o, ttft_ms, tpot_ms);
	size_t i;

	if (o != GP_OUTCOME_FAILED && !isnan(ttft_ms))
		push(t, b, ttft_ms);
	if (!t->sess)
		t->sess = gp_map_new();
	i = gp_map_add(t->sess, session);
	if (!good || gp_map_u64(t->sess, i) == 2)
		gp_map_set_u64(t->sess, i, 2);
	else
		gp_map_set_u64(t->sess, i, 1);
	t->requests++;
}

void gp_turns_merge(struct gp_turns *dst, const struct gp_turns *src)
{
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
		for (size_t k = 0; k < src->nttft[b]; k++)
			push(dst, b, src->ttft[b][k]);
	}
	/* Sessions of another run are other sessions: keyed by their number. */
	if (!dst->sess)
		dst->sess = gp_map_new();
	for (size_t i = 0; src->sess && i < gp_map_count(src->sess); i++) {
		size_t n = gp_map_count(dst->sess);

		snprintf(key, sizeof(key), "#%zu", n);
		gp_map_set_u64(dst->sess, gp_map_add(dst->sess, key), gp_map_u64(src->sess, i));
	}
	dst->requests += src->requests;
}

void gp_turns_sessions(const struct gp_turns *t, long *sessions, long *good)
{
	*sessions = *good = 0;
	for (size_t i = 0; t->sess && i < gp_map_count(t->sess); i++) {
		(*sessions)++;
		*good += gp_map_u64(t->sess, i) == 1;
	}
}

double gp_turns_ttft(struct gp_turns *t, int b, double p)
{
	if (!t->nttft[b])
		return NAN;
	gp_sort_doubles(t->ttft[b], t->nttft[b]);
	return gp_quantile_sorted(t->ttft[b], t->nttft[b], p);
}
