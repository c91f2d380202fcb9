/* SPDX-License-Identifier: MIT */
/* good — the conjunction good-mask and the failed-as-miss tally. */
#include <math.h>
#include <string.h>

#include "method/good.h"

int gp_outcome_parse(const char *s, enum gp_outcome *out)
{
	if (!s)
		return -1;
	if (strcmp(s, "ok") == 0)
		*out = GP_OUTCOME_OK;
	else if (strcmp(s, "single_token") == 0)
		*out = GP_OUTCOME_SINGLE_TOKEN;
	else if (strcmp(s, "failed") == 0)
		*out = GP_OUTCOME_FAILED;
	else
		return -1;
	return 0;
}

const char *gp_outcome_name(enum gp_outcome o)
{
	switch (o) {
	case GP_OUTCOME_OK:
		return "ok";
	case GP_OUTCOME_SINGLE_TOKEN:
		return "single_token";
	case GP_OUTCOME_FAILED:
		break;
	}
	return "failed";
}

int gp_good(const struct gp_slo *slo, enum gp_outcome o, double ttft_ms, double tpot_ms)
{
	switch (o) {
	case GP_OUTCOME_OK:
		/* The conjunction; NaN on either side compares false. */
		return ttft_ms <= slo->ttft_ms && tpot_ms <= slo->tpot_ms;
	case GP_OUTCOME_SINGLE_TOKEN:
		return slo->single == GP_SINGLE_TTFT && ttft_ms <= slo->ttft_ms;
	case GP_OUTCOME_FAILED:
		break;
	}
	return 0;
}

void gp_tally_init(struct gp_tally *t)
{
	memset(t, 0, sizeof(*t));
}

int gp_tally_add(struct gp_tally *t, const struct gp_slo *slo, enum gp_outcome o,
		 double ttft_ms, double tpot_ms)
{
	int g = gp_good(slo, o, ttft_ms, tpot_ms);

	t->attempted++;
	switch (o) {
	case GP_OUTCOME_OK:
		if (!isnan(ttft_ms) && !isnan(tpot_ms))
			t->paired++;
		else
			t->unpaired_ok++;
		break;
	case GP_OUTCOME_SINGLE_TOKEN:
		t->single_token++;
		t->good_single += g;
		break;
	case GP_OUTCOME_FAILED:
		t->failed++;
		break;
	}
	t->good += g;
	return g;
}

double gp_tally_fraction(const struct gp_tally *t)
{
	return t->attempted > 0 ? (double)t->good / (double)t->attempted : NAN;
}
