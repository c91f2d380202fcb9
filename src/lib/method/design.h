/* SPDX-License-Identifier: MIT */
/*
 * design — the design gates of gp-verify publish: that the experiment
 * compared what it claims to compare, not only that its statistics hold
 * (method §2, §3, §9.1; doc/method.md "Design gates").  Six gates, each a
 * named reason, each waivable only by name (gp-verify publish --waive):
 *
 *   floor         the floor arm is named and has runs at every rung any arm has
 *   same_trace    at each rung every arm replayed the same trace digest, and
 *                 at each (rung, rep) every arm the same replay seed
 *   topology      every arm is aggregated, or every arm disaggregated (the
 *                 fleet's arms[].disaggregated, else the receipts: a request
 *                 whose prefill and decode endpoints differ); a fleet that
 *                 says aggregated contradicted by the receipts fails too
 *   calibration   every backend in the runs (named by the backend header or a
 *                 receipt, else the fleet's backends) has a trusted capacity
 *                 record, and the capacity records are not stale against the
 *                 fleet (calib.h's gp_calib_stale: what gp-calibrate check says)
 *   baseline_vip  a baseline SLO was measured on the floor arm, through the
 *                 arms' URL (gp-analyze's slo: baseline_arm, baseline_same_url)
 *   slo_feasible  every member meets the SLO unloaded: its idle_baseline
 *                 (gp-calibrate idle) statistic — the SLO's own, p50 for a
 *                 fixed SLO — times (1 + margin) is within the SLO, for TTFT
 *                 and TPOT, with no failed request
 *
 * and the answer the verdict gives (gp_design_answer).
 *
 * Ownership: gp_design_note() keeps references to the records it needs
 * (the caller's object is not modified); everything is freed by
 * gp_design_free().  gp_design_judge() returns a new array the caller owns.
 * Nothing prints or exits; malformed input comes back as -1 with a message
 * naming the field, which the caller prefixes with file:line.
 */
#ifndef GP_DESIGN_H
#define GP_DESIGN_H

#include <stddef.h>
#include <jansson.h>

#include "wire/fleet.h"

enum gp_design_gate {
	GP_DESIGN_FLOOR,
	GP_DESIGN_SAME_TRACE,
	GP_DESIGN_TOPOLOGY,
	GP_DESIGN_CALIBRATION,
	GP_DESIGN_BASELINE_VIP,
	GP_DESIGN_SLO_FEASIBLE,
	GP_DESIGN_N
};

/* The pre-registered margin of slo_feasible when none is given: a member
 * whose idle statistic is within 10 % of the SLO is refused. */
#define GP_DESIGN_SLO_MARGIN 0.10

/* "floor", "same_trace", "topology", "calibration", "baseline_vip",
 * "slo_feasible"; NULL out of range. */
const char *gp_design_gate_name(enum gp_design_gate g);
/* The gate of that name, or -1. */
int gp_design_gate_parse(const char *name);

struct gp_design_cfg {
	const char *floor;		/* the floor arm; NULL: the noise_floor records' */
	const struct gp_fleet *fleet;	/* the fleet the runs used; NULL: none given */
	double slo_margin;		/* slo_feasible's margin, >= 0 */
	unsigned waive;			/* bit (1u << gate) per waived gate */
};

struct gp_design;

struct gp_design *gp_design_new(void);
void gp_design_free(struct gp_design *d);

/*
 * Note one record.  Read: run (arm, rate_rps, rep, trace_digest, seed),
 * request (arm, rate_rps, backend, prefill, decode), capacity (endpoint,
 * backend, role, capacity_tok_s, saturated, suspect, accelerators), slo,
 * idle_baseline, arm_summary (arm, rate_rps), noise_floor (arm), knee,
 * knee_compare; other types are ignored.  0, or -1 with err ("field 'x' ...").
 */
int gp_design_note(struct gp_design *d, const json_t *rec, char *err, size_t errlen);

/*
 * Every gate, in the order of the enum: a new array of
 *   {"type":"design","gate":NAME,"status":"ok"|"fail"|"waived"|"not_applicable",
 *    "detail":TEXT}
 * (the topology record adds "topologies": {arm: "aggregated"|"disaggregated"},
 * and "claim" when the topologies mix; the slo_feasible record adds
 * "infeasible": [member...]).  A waived gate is one that failed and whose
 * bit is in cfg->waive; its detail is the failure's.  NULL when out of memory.
 */
json_t *gp_design_judge(const struct gp_design *d, const struct gp_design_cfg *cfg);

/*
 * Whether one member meets the SLO unloaded.  idle is an idle_baseline
 * record; stat "p50", "p90", "p99" or "mean" (NULL: "p50") names its
 * statistic.  1: feasible; 0: not, with why ("idle p50 TTFT 228.4 ms x 1.10
 * = 251.2 ms > SLO 232 ms", or "2 of 8 idle requests failed"); -1: the record
 * lacks the statistic (why says which field).
 */
int gp_design_idle_feasible(const json_t *idle, const char *stat, double slo_ttft_ms,
			    double slo_tpot_ms, double margin, char *why, size_t cap);

/*
 * The verdict's answer, one line (the caller frees): the goodput@SLO per
 * accelerator (else per deployment) at each arm's knee with its interval,
 * the arms that reach the target at no rung, and each knee_compare verdict
 * against the floor; "no arm reaches the target T at any rung: no
 * goodput@SLO" when there are knee records and no arm has a knee (*none =
 * 1, else 0), "no knee records ..." when there are none; the topology
 * record's claim, when given, appended.  NULL when out of memory.
 */
char *gp_design_answer(const struct gp_design *d, const char *claim, int *none);

#endif
