/* SPDX-License-Identifier: MIT */
/*
 * boot-p99 — the BCa interval of one quantile of the values in a file, timed
 * (stats/boot.c); bench/bench-analyze.sh runs it beside
 * scipy.stats.bootstrap(method='BCa') on the same values.
 *
 *   boot-p99 FILE P RESAMPLES    prints: est lo hi seconds
 */
#include <stdio.h>
#include <stdlib.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/rng.h"
#include "base/vec.h"
#include "stats/boot.h"
#include "stats/stats.h"

int main(int argc, char **argv)
{
	FILE *f;
	double p, *x = NULL, v;
	long B;
	size_t n = 0, cap = 0;
	struct gp_rng rng;
	struct gp_ci ci;
	int64_t t0, t1;

	gp_log_init(argv[0]);
	if (argc != 4)
		gp_usage_error("usage: boot-p99 FILE P RESAMPLES");
	if (!(f = fopen(argv[1], "r")))
		gp_die(GP_EXIT_DATAERR, "%s: cannot read", argv[1]);
	p = strtod(argv[2], NULL);
	B = strtol(argv[3], NULL, 10);
	while (fscanf(f, "%lf", &v) == 1) {
		GP_XGROW(x, n, cap, 1024);
		x[n++] = v;
	}
	fclose(f);
	gp_rng_seed(&rng, 7);
	t0 = gp_now_ns();
	gp_sort_doubles(x, n);
	if (gp_boot_quantiles(x, n, &p, 1, B, 0.95, &rng, &ci))
		gp_die(GP_EXIT_SOFTWARE, "gp_boot_quantiles failed");
	t1 = gp_now_ns();
	printf("%.9g %.9g %.9g %.6f\n", ci.est, ci.lo, ci.hi, gp_ns_to_s(t1 - t0));
	free(x);
	return 0;
}
