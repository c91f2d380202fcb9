/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of baseline: the SLO as K × a statistic of an unloaded
 * baseline's ok requests.  Quantiles are Hyndman–Fan type 7, the default of
 * R's quantile() and numpy.percentile (numpy 1.26:
 * np.percentile([1, 2, 3, 4, 10], [50, 90, 99]) = [3.0, 7.6, 9.76]; mean 4).
 */
#include <math.h>

#include "method/baseline.h"
#include "tap.h"

static void stats(void)
{
	enum gp_slo_stat st = GP_SLO_MEAN;
	double x[] = {10, 3, 1, 4, 2};

	ok(gp_slo_stat_parse("p90", &st) == 0 && st == GP_SLO_P90, "parse: p90");
	ok(gp_slo_stat_parse("p95", &st) == -1 && st == GP_SLO_P90, "parse: p95 refused, *out unchanged");
	is_str(gp_slo_stat_name(GP_SLO_MEAN), "mean", "name: mean");
	is_dbl(gp_slo_stat_of(x, 5, GP_SLO_MEAN), 4, 1e-12, "mean of 1 2 3 4 10");
	is_dbl(gp_slo_stat_of(x, 5, GP_SLO_P50), 3, 1e-12, "p50 (numpy) 3.0");
	is_dbl(gp_slo_stat_of(x, 5, GP_SLO_P90), 7.6, 1e-12, "p90 (numpy) 7.6");
	is_dbl(gp_slo_stat_of(x, 5, GP_SLO_P99), 9.76, 1e-12, "p99 (numpy) 9.76");
}

static void slo(void)
{
	struct gp_baseline b;
	struct gp_slo s = {.ttft_ms = -1, .tpot_ms = -1};

	gp_baseline_init(&b);
	is_int(gp_baseline_request(&b, "rr", 2), 0, "a failed request: arm and rate only");
	is_int(gp_baseline_slo(&b, GP_SLO_P50, 2, 0, &s), GP_BASELINE_EMPTY, "no ok request: EMPTY");
	for (int i = 1; i <= 5; i++) {
		gp_baseline_request(&b, "rr", i == 3 ? 4 : 2);
		gp_baseline_ok(&b, 100.0 * i, 10.0 + i);
	}
	is_int(gp_baseline_request(&b, "kv", 2), GP_BASELINE_TWO_ARMS, "a second arm is refused");
	is_int((long)b.n, 5, "the refused request recorded nothing");
	is_dbl(b.rate, 4, 0, "rate: the highest seen");
	is_int(gp_baseline_slo(&b, GP_SLO_P50, 2, 1, &s), GP_BASELINE_UNVERIFIED,
	       "validity required and not seen: UNVERIFIED");
	ok(s.ttft_ms == -1, "UNVERIFIED leaves the SLO untouched");
	b.validity = 1;
	is_int(gp_baseline_slo(&b, GP_SLO_P50, 2, 1, &s), 0, "validity seen: an SLO");
	is_dbl(s.ttft_ms, 600, 1e-12, "TTFT SLO = 2 x p50(100..500) = 600");
	is_dbl(s.tpot_ms, 26, 1e-12, "TPOT SLO = 2 x p50(11..15) = 26");
	gp_baseline_slo(&b, GP_SLO_MEAN, 1.5, 1, &s);
	is_dbl(s.ttft_ms, 450, 1e-12, "TTFT SLO = 1.5 x mean 300 = 450");
	gp_baseline_release(&b);
	ok(b.arm == NULL && b.n == 0, "released");
	/* Growth: 1000 ok requests through gp_grow. */
	for (int i = 0; i < 1000; i++) {
		gp_baseline_request(&b, "rr", 1);
		gp_baseline_ok(&b, i, 2 * i);
	}
	gp_baseline_slo(&b, GP_SLO_P50, 1, 0, &s);
	is_dbl(s.ttft_ms, 499.5, 1e-9, "1000 requests: p50 499.5");
	is_dbl(s.tpot_ms, 999, 1e-9, "1000 requests: TPOT p50 999");
	gp_baseline_release(&b);
}

int main(void)
{
	stats();
	slo();
	return done_testing();
}
