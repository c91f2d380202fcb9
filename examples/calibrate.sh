#!/bin/sh
# calibrate.sh — Phase 1 for a whole fleet: every backend calibrated for each
# of its roles, several at once with GNU parallel (each job drives ONE backend
# directly, never the VIP), then the rate ladder and the staleness check.
#
#   examples/calibrate.sh FLEET PROTOCOL TRACE OUTDIR
#
# FLEET     the fleet file (backends[].role: prefill, decode or both)
# PROTOCOL  the pre-registered protocol, e.g. from
#           `gp-calibrate protocol --ramp 1.25 --hold-s 30 > protocol.json`
#           (commit it before measuring: nothing changes mid-run)
# TRACE     the trace the campaign will replay (its mean tokens per request
#           turn tokens/s into requests/s)
# OUTDIR    gets cal-NAME-ROLE.ndjson per job, capacity.ndjson (all of them),
#           ladder.ndjson
#
# Environment: JOBS (default: every backend at once) backends in parallel.
# Jobs against different backends do not disturb each other's measurement
# (each backend is driven on its own); the client host must keep up with all
# of them at once — a job whose driver falls behind comes out SUSPECT, not with a
# false capacity.  Exit status: 0 when every backend saturated and the ladder
# was made, 1 otherwise (the failing jobs are named on stderr).
set -eu
[ $# -eq 4 ] || { echo "usage: $0 FLEET PROTOCOL TRACE OUTDIR" >&2; exit 2; }
fleet=$1 protocol=$2 trace=$3 out=$4
mkdir -p "$out"
# One job per backend: "NAME ROLE[,ROLE]" ("both" is calibrated for each
# role, one after the other — two sweeps on one backend at once would
# measure each other).
jq -r '.backends[] | "\(.name) \(if (.role // "both") == "both" then "prefill,decode" else .role end)"' \
	"$fleet" >"$out/jobs"
rc=0
parallel -j "${JOBS:-0}" --colsep ' ' \
	'rc=0; for r in $(echo {2} | tr , " "); do
		gp-calibrate --fleet "'"$fleet"'" --protocol "'"$protocol"'" --endpoint {1} --role $r \
			-o "'"$out"'/cal-{1}-$r.ndjson" || rc=1
	done; exit $rc' :::: "$out/jobs" || rc=1
cat "$out"/cal-*.ndjson >"$out/capacity.ndjson"
jq -r 'select(.type == "capacity") |
	"\(.backend // .endpoint) \(.role): \(.verdict) \(.capacity_tok_s // "-") tok/s"' \
	"$out/capacity.ndjson" >&2
gp-calibrate ladder --trace "$trace" "$out/capacity.ndjson" >"$out/ladder.ndjson" || rc=1
jq -r '"\(.role): reference \(.reference), rates \(.rates_rps)"' "$out/ladder.ndjson" >&2
# Later, before trusting these numbers again (method §10.4):
gp-calibrate check --fleet "$fleet" "$out/capacity.ndjson" >/dev/null || rc=1
exit $rc
