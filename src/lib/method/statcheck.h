/* SPDX-License-Identifier: MIT */
/*
 * statcheck — the self-check of the statistics modules (method §8.4): runs
 * stats, boot, tost (with the per-rep intervals), good and gate against known vectors computed by independent
 * implementations (numpy, Python's statistics, scipy; provenance beside each
 * vector in statcheck.c and in tests/unit/stats-vectors.py), with no input
 * and no network, so a bare host can prove the logic before trusting it.
 *
 * The library does not print: each check is handed to `report` (name is a
 * static string; got/want are NaN for boolean checks).
 */
#ifndef GP_STATCHECK_H
#define GP_STATCHECK_H

typedef void gp_statcheck_fn(void *ctx, int ok, const char *name, double got, double want);

/* Run every check; returns the number that failed (0: all passed), or -1
 * when memory ran out. */
int gp_statcheck_run(gp_statcheck_fn *report, void *ctx);

#endif
