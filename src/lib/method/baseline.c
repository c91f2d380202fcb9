/* SPDX-License-Identifier: MIT */
/*
 * baseline — the SLO as a multiple of an unloaded baseline's statistic (the
 * rule is written out in baseline.h).
 */
#include <stdlib.h>
#include <string.h>

#include "method/baseline.h"
#include "stats/stats.h"
#include "base/vec.h"
#include "base/banned.h"

static const char *const stat_names[] = {"p50", "p90", "p99", "mean"};

int gp_slo_stat_parse(const char *s, enum gp_slo_stat *out)
{
	for (size_t i = 0; i < sizeof(stat_names) / sizeof(stat_names[0]); i++)
		if (!strcmp(s, stat_names[i])) {
			*out = (enum gp_slo_stat)i;
			return 0;
		}
	return -1;
}

const char *gp_slo_stat_name(enum gp_slo_stat st)
{
	return (unsigned)st < sizeof(stat_names) / sizeof(stat_names[0]) ? stat_names[st] : "p50";
}

double gp_slo_stat_of(double *x, size_t n, enum gp_slo_stat st)
{
	static const double q[] = {0.5, 0.9, 0.99};

	if (st == GP_SLO_MEAN)
		return gp_mean(x, n);
	gp_sort_doubles(x, n);
	return gp_quantile_sorted(x, n, q[st <= GP_SLO_P99 ? st : GP_SLO_P50]);
}

void gp_baseline_init(struct gp_baseline *b)
{
	memset(b, 0, sizeof(*b));
}

void gp_baseline_release(struct gp_baseline *b)
{
	free(b->arm);
	free(b->ttft);
	free(b->tpot);
	gp_baseline_init(b);
}

int gp_baseline_request(struct gp_baseline *b, const char *arm, double rate)
{
	if (!b->arm) {
		if (!(b->arm = strdup(arm)))
			return GP_BASELINE_NOMEM;
		b->rate = rate;
	} else if (strcmp(b->arm, arm)) {
		return GP_BASELINE_TWO_ARMS;
	}
	if (rate > b->rate)
		b->rate = rate;
	return 0;
}

int gp_baseline_ok(struct gp_baseline *b, double ttft_ms, double tpot_ms)
{
	if (b->n >= b->cap) {
		size_t c1 = b->cap, c2 = b->cap;
		double *t = gp_grow(b->ttft, &c1, b->n + 1, sizeof(double), 256);

		if (!t)
			return GP_BASELINE_NOMEM;
		b->ttft = t;
		if (!(t = gp_grow(b->tpot, &c2, b->n + 1, sizeof(double), 256)))
			return GP_BASELINE_NOMEM;	/* ttft grown, cap unchanged: consistent */
		b->tpot = t;
		b->cap = c1 < c2 ? c1 : c2;
	}
	b->ttft[b->n] = ttft_ms;
	b->tpot[b->n++] = tpot_ms;
	return 0;
}

int gp_baseline_slo(struct gp_baseline *b, enum gp_slo_stat st, double multiple,
		    int require_validity, struct gp_slo *slo)
{
	if (require_validity && !b->validity)
		return GP_BASELINE_UNVERIFIED;
	if (b->n == 0)
		return GP_BASELINE_EMPTY;
	slo->ttft_ms = multiple * gp_slo_stat_of(b->ttft, b->n, st);
	slo->tpot_ms = multiple * gp_slo_stat_of(b->tpot, b->n, st);
	return 0;
}
