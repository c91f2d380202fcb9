#!/bin/sh
# examples/campaign/sweep.sh — the tuning loop (method §10), called by
# `make sweep`: one full campaign cycle per candidate value of one gateway
# knob, and the decision by the gate.
#
#   SWEEP_ARM=bounded SWEEP_VAR=GP_BALANCE sh sweep.sh 110 150 200
#
# For each VALUE: OUT/sweep/VALUE/ is a campaign of its own with the floor
# arm and SWEEP_ARM, run with SWEEP_VAR=VALUE in the environment (the arm's
# up_cmd reads it: examples/haproxy/bounded.cfg takes hash-balance-factor
# from "${GP_BALANCE}"), on this campaign's phase 0 and calibration (copied:
# the fleet did not change, §10.4; a changed fleet needs a new campaign).
# Everything else — baseline, probe, replay at every rung, analysis, publish
# with adaptive replicates, report — runs as in any campaign.
#
# The decision (OUT/sweep/decision.txt): a value qualifies only when its
# verdict is PUBLISHABLE and SWEEP_ARM WINs over the floor at some rung; among
# those, the most WINs, then the higher knee.  No value qualifying means no
# change: the gate, not the eye.
set -eu
: "${SWEEP_ARM:?}" "${SWEEP_VAR:?}" "${OUT:?}" "${FLEET:?}" "${PROTOCOL:?}" "${THIS:?}"
floor=$(jq -r .floor "$PROTOCOL")
[ "$SWEEP_ARM" != "$floor" ] || { echo "sweep: SWEEP_ARM is the floor arm" >&2; exit 2; }
jq -e --arg a "$SWEEP_ARM" 'any(.arms[]; .name == $a)' "$FLEET" >/dev/null ||
	{ echo "sweep: $FLEET: no arm '$SWEEP_ARM'" >&2; exit 2; }
mkdir -p "$OUT/sweep"
: >"$OUT/sweep/candidates.ndjson"
for v in "$@"; do
	d=$OUT/sweep/$v
	mkdir -p "$d/health"
	# The candidate's protocol: the campaign's, with two arms.
	jq --arg a "$SWEEP_ARM" --arg f "$floor" --arg var "$SWEEP_VAR" --arg v "$v" \
		'.arms = [$f, $a] | .sweep = {var: $var, value: $v}' "$PROTOCOL" >"$d/protocol.in.json"
	[ -e "$d/protocol.json" ] || cp "$d/protocol.in.json" "$d/protocol.json"
	for x in trace.ndjson cal ladder.ndjson rates capacity.ndjson idle.ndjson; do
		[ -e "$d/$x" ] || cp -pR "$OUT/$x" "$d/$x"
	done
	[ -e "$d/health/phase0.ndjson" ] || cp -p "$OUT/health/phase0.ndjson" "$d/health/"
	echo "sweep: $SWEEP_VAR=$v" >&2
	env "$SWEEP_VAR=$v" $MAKE --no-print-directory -f "$THIS" OUT="$d" FLEET="$FLEET" \
		PROTOCOL="$d/protocol.in.json" TRACE="$d/trace.ndjson" all >"$d/make.log" 2>&1 ||
		{ echo "sweep: $SWEEP_VAR=$v: the campaign failed (see $d/make.log)" >&2; exit 1; }
	zcat "$d/all.ndjson.gz" | jq -c -s --arg a "$SWEEP_ARM" --arg v "$v" '{
		value: $v,
		publishable: (map(select(.type == "verdict"))[0].publishable),
		wins: (map(select(.type == "compare" and .arm == $a and .verdict == "WIN")) | length),
		losses: (map(select(.type == "compare" and .arm == $a and .verdict == "LOSS")) | length),
		knee_rps: (map(select(.type == "knee" and .arm == $a))[0].rate_rps)}' >>"$OUT/sweep/candidates.ndjson"
done
jq -r -s --arg var "$SWEEP_VAR" '
	(map("\($var)=\(.value): \(if .publishable then "PUBLISHABLE" else "NOT PUBLISHABLE" end), \(.wins) WIN, \(.losses) LOSS vs the floor, knee \(.knee_rps // "none")") | .[]),
	(map(select(.publishable and .wins > 0)) | sort_by(.wins, (.knee_rps // 0)) | last |
	 if . == null then "decision: no value earns a change (none is a publishable WIN over the floor)"
	 else "decision: \($var)=\(.value)" end)' "$OUT/sweep/candidates.ndjson" | tee "$OUT/sweep/decision.txt"
