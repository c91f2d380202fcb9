#!/bin/sh
# examples/campaign/sweep.sh — the tuning loop (method §10), called by
# `make sweep`: one full campaign cycle per candidate value of one gateway
# knob, and the decision by the gate.
#
#   SWEEP_ARM=bounded SWEEP_VAR=GP_BALANCE [SWEEP_VS=ARM] sh sweep.sh 110 150 200
#
# For each VALUE: OUT/sweep/VALUE/ is a campaign of its own with the floor
# arm, SWEEP_ARM and (when given) the comparator SWEEP_VS, run with
# SWEEP_VAR=VALUE in the environment (the arm's up_cmd reads it:
# examples/haproxy/bounded.cfg takes hash-balance-factor from
# "${GP_BALANCE}"), on this campaign's phase 0 and calibration (copied).
# Everything else — baseline, probe, replay at every rung, analysis, publish
# with adaptive replicates, report — runs as in any campaign; the candidate's
# protocol asks for the comparison SWEEP_ARM:SWEEP_VS (its compare list).
#
# Before each candidate, `gp-calibrate check` holds the calibration against
# the fleet as it is now (§10.4): when it says the fleet changed, the members
# it names (added, or with other accelerators) are calibrated again, the
# ladder is redone, and a candidate directory made on another calibration
# is started afresh.  OUT/sweep/check.ndjson keeps the last check.
#
# A candidate whose probe fails (the knob does not make the arm do what it
# claims: spread, concentrate, or its mode) is disqualified with the probe's
# reason and the sweep goes on; any other failure of a candidate's campaign
# stops the sweep (exit 1).
#
# The decision (OUT/sweep/decision.txt, by decide.jq): a value qualifies
# only with a PUBLISHABLE verdict and a WIN over the floor at some rung and
# a LOSS at none, or with a PUBLISHABLE verdict and a TOST parity
# (EQUIVALENT) to SWEEP_VS at every rung; among those, the wins first (the
# most WINs, then the higher knee), then parity.  None qualifying means no
# change: the gate, not the eye.
set -eu
: "${SWEEP_ARM:?}" "${SWEEP_VAR:?}" "${OUT:?}" "${FLEET:?}" "${PROTOCOL:?}" "${THIS:?}"
SWEEP_VS=${SWEEP_VS:-}
here=$(dirname "$0")
floor=$(jq -r .floor "$PROTOCOL")
log() { printf 'sweep: %s\n' "$*" >&2; }
[ "$SWEEP_ARM" != "$floor" ] || { log "SWEEP_ARM is the floor arm"; exit 2; }
[ "$SWEEP_VS" != "$SWEEP_ARM" ] || { log "SWEEP_VS is SWEEP_ARM"; exit 2; }
for a in "$SWEEP_ARM" ${SWEEP_VS:+"$SWEEP_VS"}; do
	jq -e --arg a "$a" 'any(.arms[]; .name == $a)' "$FLEET" >/dev/null ||
		{ log "$FLEET: no arm '$a'"; exit 2; }
done
mkdir -p "$OUT/sweep"
: >"$OUT/sweep/candidates.ndjson"
# The campaign's own gateway (phase 0 leaves the floor arm up) would hold the
# VIP beside each candidate's: stopped first.
sh "$here/campaign.sh" down

# Hold the calibration against the fleet as it is now; recalibrate the
# members that changed (and redo the ladder) when it does not hold.
recalibrate_if_stale() {
	files=$(jq -r '.backends[].name' "$FLEET" | while read -r b; do
		[ ! -e "$OUT/cal/$b.ndjson" ] || echo "$OUT/cal/$b.ndjson"; done)
	rc=0
	gp-calibrate check --fleet "$FLEET" $files >"$OUT/sweep/check.ndjson" || rc=$?
	[ $rc = 0 ] && return 0
	[ $rc = 1 ] || { log "gp-calibrate check failed (exit $rc)"; exit 1; }
	log "the fleet changed since its calibration: $(jq -r '.reasons | join("; ")' "$OUT/sweep/check.ndjson")"
	names=$(jq -r --slurpfile f "$FLEET" '.reasons[] | select(startswith("added ") or startswith("accelerators of ")) |
		sub("^added "; "") | sub("^accelerators of "; "") | sub(": [0-9]+ -> [0-9]+$"; "") as $u |
		$f[0].backends[] | select((.url | rtrimstr("/") | ascii_downcase) == ($u | rtrimstr("/") | ascii_downcase)) |
		.name' "$OUT/sweep/check.ndjson")
	for b in $names; do
		log "calibrating $b again"
		rm -f "$OUT/cal/$b.ndjson"
		sh "$here/campaign.sh" calib "$b"
	done
	sh "$here/campaign.sh" ladder
}

for v in "$@"; do
	d=$OUT/sweep/$v
	recalibrate_if_stale
	if [ -e "$d/capacity.ndjson" ] && ! cmp -s "$d/capacity.ndjson" "$OUT/capacity.ndjson"; then
		log "$SWEEP_VAR=$v: made on another calibration, started afresh"
		rm -rf "$d"
	fi
	mkdir -p "$d/health"
	# The candidate's protocol: the campaign's, with its arms and the
	# comparison the sweep asks for.
	jq --arg a "$SWEEP_ARM" --arg f "$floor" --arg vs "$SWEEP_VS" --arg var "$SWEEP_VAR" --arg v "$v" \
		'.arms = ([$f, $a] + (if $vs != "" and $vs != $f then [$vs] else [] end)) |
		 .compare = (if $vs != "" then [[$a, $vs]] else [] end) |
		 .sweep = {var: $var, value: $v, vs: (if $vs != "" then $vs else null end)}' \
		"$PROTOCOL" >"$d/protocol.in.json"
	[ -e "$d/protocol.json" ] || cp "$d/protocol.in.json" "$d/protocol.json"
	for x in trace.ndjson cal ladder.ndjson rates capacity.ndjson idle.ndjson; do
		[ -e "$d/$x" ] || cp -pR "$OUT/$x" "$d/$x"
	done
	[ -e "$d/health/phase0.ndjson" ] || cp -p "$OUT/health/phase0.ndjson" "$d/health/"
	log "$SWEEP_VAR=$v"
	if ! env "$SWEEP_VAR=$v" $MAKE --no-print-directory -f "$THIS" OUT="$d" FLEET="$FLEET" \
		PROTOCOL="$d/protocol.in.json" TRACE="$d/trace.ndjson" all >"$d/make.log" 2>&1; then
		env FLEET="$FLEET" PROTOCOL="$d/protocol.in.json" OUT="$d" sh "$here/campaign.sh" down || :
		failed=$(ls "$d"/probe/failed-*.ndjson 2>/dev/null | head -n 1)
		[ -n "$failed" ] || { log "$SWEEP_VAR=$v: the campaign failed (see $d/make.log)"; exit 1; }
		jq -c -s --arg v "$v" --arg f "$(basename "$failed" .ndjson)" 'map(select(.type == "probe"))[0] |
			{value: $v, disqualified: true,
			 reason: "probe \($f | ltrimstr("failed-")): arm \(.arm) \(if .mode_confirmed then "not engaged" else "mode not confirmed" end): \(.reason)"}' \
			"$failed" >>"$OUT/sweep/candidates.ndjson"
		log "$SWEEP_VAR=$v: disqualified ($(jq -r 'select(.value == "'"$v"'") | .reason' "$OUT/sweep/candidates.ndjson"))"
		continue
	fi
	zcat "$d/all.ndjson.gz" | jq -c -s --arg a "$SWEEP_ARM" --arg vs "$SWEEP_VS" --arg v "$v" '
		(map(select(.type == "noise_floor"))[0].arm // null) as $floor | {
		value: $v,
		disqualified: false,
		publishable: (map(select(.type == "verdict"))[0].publishable),
		wins: (map(select(.type == "compare" and .arm == $a and .vs == $floor and .verdict == "WIN")) | length),
		losses: (map(select(.type == "compare" and .arm == $a and .vs == $floor and .verdict == "LOSS")) | length),
		vs: (if $vs != "" then $vs else null end),
		rungs: (map(select(.type == "arm_summary" and .arm == $a)) | length),
		equivalent: (map(select(.type == "compare" and .arm == $a and .vs == $vs and .tost.equivalent)) | length),
		knee_rps: (map(select(.type == "knee" and .arm == $a))[0].rate_rps)}' >>"$OUT/sweep/candidates.ndjson"
done
jq -r -s --arg var "$SWEEP_VAR" -f "$here/decide.jq" "$OUT/sweep/candidates.ndjson" | tee "$OUT/sweep/decision.txt"
