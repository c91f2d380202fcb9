/* SPDX-License-Identifier: MIT */
/*
 * turns — the breakdown of goodput@SLO by session turn and by session
 * (gp-analyze's `turns` record).  Goodput stays per request (good.h); this
 * only splits the same mask:
 *
 *   by turn    requests of turn 1, turn 2 and turns 3 and later, each with
 *              its good fraction (good / attempted, failed and abandoned
 *              turns in the denominator) and the TTFT of its requests that
 *              have one (ok and single_token; failed ones have none);
 *   by session a session is good when every one of its turns was good
 *              (an abandoned turn is a failed request, so a miss).
 *
 * Requests without a session are not counted here.  Ownership: the struct
 * owns its samples and its session table (gp_turns_release frees them);
 * session names are copied.  Nothing here exits: out of memory is -1 with
 * errno ENOMEM, the struct still to be released.
 */
#ifndef GP_TURNS_H
#define GP_TURNS_H

#include <stddef.h>
#include <jansson.h>

#include "method/good.h"

#define GP_TURNS_NB 3		/* turn 1, turn 2, turns 3+ */

struct gp_turns {
	struct gp_tally t[GP_TURNS_NB];
	double *ttft[GP_TURNS_NB];	/* TTFT samples, ms */
	size_t nttft[GP_TURNS_NB], capttft[GP_TURNS_NB];
	json_t *sess;			/* session -> 1 all good so far, 2 a miss */
	long requests;			/* session requests counted */
};

void gp_turns_init(struct gp_turns *t);
void gp_turns_release(struct gp_turns *t);
/* The bucket of turn k >= 1: 0, 1, or 2 for 3 and later. */
int gp_turns_bucket(long turn);
/* The bucket's name in records: "1", "2", "3+". */
const char *gp_turns_name(int bucket);
/* Count one request of session `session`, turn `turn` >= 1.  0; -1 when
 * out of memory: t then holds part of the request (release it). */
int gp_turns_add(struct gp_turns *t, const struct gp_slo *slo, const char *session, long turn,
		 enum gp_outcome o, double ttft_ms, double tpot_ms);
/* Add src's counts and samples to dst (sessions kept apart: different
 * runs' sessions are different sessions even under one id).  0; -1 when
 * out of memory: dst then holds part of src (release it). */
int gp_turns_merge(struct gp_turns *dst, const struct gp_turns *src);
/* Sessions seen, and of those, good ones (every turn good). */
void gp_turns_sessions(const struct gp_turns *t, long *sessions, long *good);
/* TTFT quantile p (type 7) of bucket b; NaN without samples.  Sorts the
 * bucket's samples in place. */
double gp_turns_ttft(struct gp_turns *t, int b, double p);

#endif
