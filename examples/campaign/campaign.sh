#!/bin/sh
# examples/campaign/campaign.sh — the steps of the campaign Makefile, one
# subcommand each; the Makefile decides when each runs.  Everything it reads
# comes from the fleet file (FLEET) and the pre-registered protocol (PROTOCOL);
# everything it writes goes under OUT.
#
#   campaign.sh preflight         before anything drives the fleet: every step the
#                                 campaign will take can be taken (exit 65 naming
#                                 what is missing; OUT/preflight.ok)
#   campaign.sh idle              each member unloaded and directly (gp-calibrate
#                                 idle) -> OUT/idle.ndjson: the SLO's feasibility
#   campaign.sh up ARM            recreate the gateway in ARM (the arm's up_cmd,
#                                 in its own session; OUT/gateway.pid, and a
#                                 gateway record, its generation, appended to
#                                 OUT/gateway.ndjson) and wait until gp-health
#                                 passes (at most UP_WAIT_S)
#   campaign.sh down              stop the gateway the campaign started
#   campaign.sh health TAG [ARM]  gp-health -> OUT/health/TAG.ndjson (exit 1: not ready)
#   campaign.sh probe ARM TAG     gp-probe  -> OUT/probe/TAG.ndjson (exit 1: not engaged)
#   campaign.sh reset             the backends' prefix caches emptied (reset_url,
#                                 or the fleet's cache_reset_cmd); OUT/cache.log
#   campaign.sh rep ARM RATE REP  one repetition: up, health, probe, reset,
#                                 replay -> OUT/runs/ARM/RATE/REP.ndjson.gz, health;
#                                 the replay's run id ARM-RATE-REP-<campaign id>
#                                 is in the health rounds and the probe taken
#                                 for it (--for-run)
#   campaign.sh baseline          the unloaded baseline for the SLO -> OUT/baseline.ndjson
#   campaign.sh calib NAME        Phase 1 for one backend (its roles one after
#                                 the other) -> OUT/cal/NAME.ndjson
#   campaign.sh ladder            OUT/capacity.ndjson -> OUT/ladder.ndjson, OUT/rates
#   campaign.sh plan              OUT/rates + OUT/reps.tsv -> OUT/plan.mk, OUT/order.ndjson
#   campaign.sh adapt             publish's ADD_REPLICATES -> more reps in OUT/reps.tsv
#                                 (exit 0: reps were added; 1: nothing to add)
#   campaign.sh table             the verdict table, from OUT/all.ndjson.gz
#   campaign.sh check-compare     the protocol's compare list: pairs of two
#                                 different arms of its arms (exit 65: not)
#
# Environment: FLEET, PROTOCOL, OUT (absolute), TRACE; GP_BIN (the tools).
set -eu
: "${FLEET:?}" "${PROTOCOL:?}" "${OUT:?}"
[ -n "${GP_BIN:-}" ] && PATH=$GP_BIN:$PATH
export PATH
me=$0

p() { jq -r "$1" "$PROTOCOL"; }			# a protocol field
f() { jq -r "$1" "$FLEET"; }			# a fleet field
log() { printf 'campaign: %s\n' "$*" >&2; }

# The campaign's id, drawn once per OUT: run ids are unique to the campaign,
# so that runs of two campaigns mixed in one input are told apart.
campaign_id() {
	[ -s "$OUT/campaign.id" ] || { mkdir -p "$OUT"; od -An -N6 -tx1 /dev/urandom | tr -d ' \n' >"$OUT/campaign.id"; }
	cat "$OUT/campaign.id"
}

# The fields a rep reads, in one jq call per file and process: a jq start-up
# costs ~30 ms (over 100 ms on a loaded host), and a rep reads two dozen.
settings() {
	[ -n "${_settings:-}" ] && return 0
	_settings=1
	eval "$(jq -r '@sh "
		probe_requests=\(.probe.requests // 64) probe_keys=\(.probe.keys // 1)
		probe_concurrency=\(.probe.concurrency // 16) probe_prompt=\(.probe.prompt_tokens // 256)
		probe_max_tokens=\(.probe.max_tokens // 64) probe_interval=\(.probe.interval_ms // 50)
		probe_spread_max=\(.probe.spread_max // 1.5) probe_concentrate_min=\(.probe.concentrate_min // 2)
		cache_mode=\(.cache // "reset") schedule=\(.run.schedule // "poisson")
		seed_replay=\(.seeds.replay // 1000) deadline_s=\(.run.deadline_s // 30)
		idle_s=\(.run.idle_s // 10) duration_s=\(.run.duration_s)"' "$PROTOCOL")"
	eval "$(jq -r '@sh "
		vip_url=\(.vips[0].url) model=\(.model) key_header=\(.key_header // "")
		backend_header=\(.backend_header // "") receipt_header=\(.receipt_header // "")
		scrapes=\([.backends[].metrics_url // empty, (.gateway.metrics_url // empty)] | map("--scrape " + .) | join(" "))
		reset_cmd=\(.cache_reset_cmd // "") reset_urls=\([.backends[] | .reset_url // empty] | join(" "))"' "$FLEET")"
}

# Whether PID runs: a zombie has exited (its sockets are closed) and only
# waits for its parent, which for a gateway whose starter has gone is init —
# in a container init can take over a second to reap it.
running() {
	kill -0 "$1" 2>/dev/null || return 1
	case $(ps -o stat= -p "$1" 2>/dev/null) in Z*) return 1 ;; esac
}

gateway_down() {
	[ -s "$OUT/gateway.pid" ] || return 0
	pid=$(cat "$OUT/gateway.pid")
	kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || :
	i=0
	while running "$pid" && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	kill -KILL -- "-$pid" 2>/dev/null || :
	rm -f "$OUT/gateway.pid" "$OUT/gateway.arm"
}

gateway_up() { # ARM [TAG]: with TAG, the passing check is kept as OUT/health/TAG.ndjson
	local cmd n i tag=${2:-} ka
	eval "$(jq -r --arg a "$1" 'first(.arms[] | select(.name == $a)) // {} |
		@sh "cmd=\(.up_cmd // "") ka=\(if .routes_by_cache then .name else "" end)"' "$FLEET")"
	[ -n "$cmd" ] || { log "fleet: arm '$1' has no up_cmd"; exit 65; }
	gateway_down
	mkdir -p "$OUT/log"
	# Its own session, so that the whole gateway (a shell and its children)
	# is stopped by its process group.
	up_at=$(date -u +%Y-%m-%dT%H:%M:%S.%6NZ)
	setsid sh -c "$cmd" >>"$OUT/log/gateway-$1.log" 2>&1 </dev/null &
	echo $! >"$OUT/gateway.pid"
	echo "$1" >"$OUT/gateway.arm"
	# The gateway's generation: a probe counts for a run only after the last
	# recreation before it, and that recreation must be of the run's arm.
	printf '{"type":"gateway","arm":"%s","up_at":"%s","pid":%d,"generation":"%d@%s"}\n' \
		"$1" "$up_at" "$!" "$!" "$up_at" >>"$OUT/gateway.ndjson"
	# Ready when gp-health passes (a real streamed chat through the VIP, and
	# the KV-events precheck for an arm that routes by cache); that passing
	# round is the health record before the run.
	n=$(awk -v s="${UP_WAIT_S:-10}" 'BEGIN { print int(s / 0.1) }')
	i=0
	mkdir -p "$OUT/health"
	until gp-health --fleet "$FLEET" ${ka:+--arm "$ka"} $(prefill_opt) ${for_run:+--for-run "$for_run"} -q --timeout-s 5 \
		-o "$OUT/health/.up.tmp" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -ge "$n" ] || ! running "$(cat "$OUT/gateway.pid")"; then
			log "arm $1: the gateway did not become ready (see $OUT/log/gateway-$1.log)"
			exit 69
		fi
		sleep 0.1
	done
	if [ -n "$tag" ]; then mv "$OUT/health/.up.tmp" "$OUT/health/$tag.ndjson"; else rm -f "$OUT/health/.up.tmp"; fi
}

# --longest-prefill-s once the calibration gave it (the gateway checks).
prefill_opt() {
	[ -s "$OUT/longest-prefill-s" ] && echo "--longest-prefill-s $(cat "$OUT/longest-prefill-s")" || :
}

health() { # TAG [ARM]
	mkdir -p "$OUT/health"
	gp-health --fleet "$FLEET" ${2:+--arm "$2"} $(prefill_opt) ${for_run:+--for-run "$for_run"} -q \
		-o "$OUT/health/$1.ndjson.tmp" || {
		mv "$OUT/health/$1.ndjson.tmp" "$OUT/health/failed-$1.ndjson"
		log "health $1: not ready ($OUT/health/failed-$1.ndjson):"
		jq -r 'select(.type == "health" and .ok == false) | "  \(.check) \(.target): \(.detail // .error // "")"' \
			"$OUT/health/failed-$1.ndjson" >&2
		exit 1
	}
	mv "$OUT/health/$1.ndjson.tmp" "$OUT/health/$1.ndjson"
}

probe() { # ARM TAG
	settings
	mkdir -p "$OUT/probe"
	# Spread is judged against the members' calibrated capacities (a slow
	# member holds round robin's requests longer: gp-probe(1)).
	cap=
	[ -s "$OUT/capacity.ndjson" ] && cap=$OUT/capacity.ndjson
	gp-probe --fleet "$FLEET" --arm "$1" --run "probe-$2" ${for_run:+--for-run "$for_run"} \
		--requests "$probe_requests" --keys "$probe_keys" --concurrency "$probe_concurrency" \
		--prompt-tokens "$probe_prompt" --max-tokens "$probe_max_tokens" \
		--interval-ms "$probe_interval" --spread-max "$probe_spread_max" \
		--concentrate-min "$probe_concentrate_min" \
		${cap:+--capacity "$cap"} -o "$OUT/probe/$2.ndjson.tmp" 2>>"$OUT/log/probe.log" || {
		mv "$OUT/probe/$2.ndjson.tmp" "$OUT/probe/failed-$2.ndjson"
		log "probe $2: arm $1 not engaged or its mode not confirmed ($OUT/probe/failed-$2.ndjson):"
		jq -r 'select(.type == "probe") | "  mode_confirmed \(.mode_confirmed), engaged \(.engaged), concentration \(.concentration), spread \(.spread_concentration), \(.reason // "")"' \
			"$OUT/probe/failed-$2.ndjson" >&2
		exit 1
	}
	mv "$OUT/probe/$2.ndjson.tmp" "$OUT/probe/$2.ndjson"
}

reset_caches() {
	settings
	[ "$cache_mode" = reset ] || { echo "$(date -u +%FT%TZ) cache $cache_mode: not reset" >>"$OUT/cache.log"; return 0; }
	if [ -n "$reset_cmd" ]; then
		sh -c "$reset_cmd" >>"$OUT/cache.log" 2>&1 || { log "cache_reset_cmd failed (see $OUT/cache.log)"; exit 69; }
	elif [ -n "$reset_urls" ]; then
		for u in $reset_urls; do
			curl -sf -X POST --max-time 10 -o /dev/null "$u" ||
				{ log "cache reset: POST $u failed"; exit 69; }
		done
	else
		echo "$(date -u +%FT%TZ) the fleet gives no reset_url or cache_reset_cmd: caches not reset" >>"$OUT/cache.log"
		return 0
	fi
	echo "$(date -u +%FT%TZ) caches reset" >>"$OUT/cache.log"
}

# The replay seed of a rung and rep: the first 48 bits of
# sha256("replay seed/rate/rep"), so that every rung and every rep has its own
# arrivals (the same luck never hits every rung) while the arms of one rung
# and rep replay the same ones (the pairing the comparisons rely on).
replay_seed() { # RATE REP
	printf '%s' "$((0x$(printf '%s/%s/%s' "$seed_replay" "$1" "$2" | sha256sum | cut -c1-12)))"
}

# Whether a run of RATE over duration_s is too short for a Poisson process
# to hold its label: under 401 requests its achieved rate's sd, 1/sqrt(n - 1),
# is over the 5 % at which validity flags it (doc/method.md, achieved rate).
short_run() { # RATE
	awk -v r="$1" -v d="$duration_s" 'BEGIN { exit !(r * d < 401) }'
}

replay() { # ARM RATE REP OUTFILE [gp-replay options]
	local arm=$1 rate=$2 rep=$3 of=$4 kh bh rh sched
	shift 4
	settings
	set -- "$@" $scrapes
	kh=$key_header bh=$backend_header rh=$receipt_header
	sched=--poisson-rps
	[ "$schedule" = constant ] && sched=--rate-rps
	gp-replay --url "$vip_url" --model "$model" --arm "$arm" --rep "$rep" ${for_run:+--run "$for_run"} \
		"$sched" "$rate" --seed "$(replay_seed "$rate" "$rep")" \
		--deadline-s "$deadline_s" --idle-s "$idle_s" \
		${kh:+--key-header "$kh"} ${bh:+--backend-header "$bh"} ${rh:+--receipt-header "$rh"} \
		"$@" -o "$of" <"$TRACE" 2>>"$OUT/log/replay.log"
}

rep() { # ARM RATE REP
	arm=$1 rate=$2 rep=$3 tag=$1-$2-$3
	# The run's id, in every record taken for it: the health rounds before
	# and after, the probe, the replay's own records.
	for_run=$tag-$(campaign_id)
	# One variable per arm: the gateway is recreated in this arm's mode for
	# every run, and its mode re-confirmed by the probe.
	gateway_up "$arm" "$tag-before"
	probe "$arm" "$tag"
	reset_caches
	mkdir -p "$OUT/runs/$arm/$rate"
	of=$OUT/runs/$arm/$rate/$rep.ndjson.gz
	settings
	# The run length: run.duration_s, or with a planned resolution
	# (ladder's run_requests) at least that many requests.  A short run
	# without one is a Poisson process conditioned on its count
	# (--poisson-count), so that its achieved rate is the label.
	n=$(jq -r -s --argjson d "$duration_s" --argjson r "$rate" '(map(select(.binding)) + .)[0].run_requests |
		if . == null then "" else [., ($d * $r | ceil)] | max end' "$OUT/ladder.ndjson")
	if [ -n "$n" ]; then set -- --max-requests "$n"; else set -- --duration-s "$duration_s"; fi
	cond=
	[ -n "$n" ] || [ "$schedule" = constant ] || ! short_run "$rate" || cond=--poisson-count
	replay "$arm" "$rate" "$rep" "$of.tmp.gz" "$@" $cond || {
		rc=$?
		log "replay $tag failed (exit $rc; see $OUT/log/replay.log)"
		exit $rc
	}
	health "$tag-after"
	mv "$of.tmp.gz" "$of"
	log "$(zcat "$of" | jq -r 'select(.type == "run_end") |
		"run \(.arm // "'"$arm"'") \("'"$rate"'") req/s rep \("'"$rep"'"): \(.attempted) attempted, \(.ok) ok, \(.failed) failed"')"
}

baseline() {
	arm=$(p '.slo.baseline.arm // .floor')
	gateway_up "$arm" baseline-before
	reset_caches
	replay "$arm" "$(p '.slo.baseline.rate_rps')" 0 "$OUT/baseline.raw.ndjson" \
		--max-requests "$(p '.slo.baseline.requests')"
	health baseline-after
	# The baseline is a run like any other: it must pass validity.
	cat "$OUT/baseline.raw.ndjson" "$OUT/health/baseline-before.ndjson" "$OUT/health/baseline-after.ndjson" |
		gp-verify validity >"$OUT/baseline.ndjson.tmp" ||
		{ log "the baseline run was discarded:"; jq -c 'select(.type == "discard")' "$OUT/baseline.ndjson.tmp" >&2; exit 1; }
	mv "$OUT/baseline.ndjson.tmp" "$OUT/baseline.ndjson"
}

# What cannot be done stops the campaign before the first replay: a cache
# reset the fleet cannot do, a placeholder nobody filled, a command that
# works only from one directory, an arm the fleet does not have.
preflight() {
	cache=$(p '.cache // "reset"')
	problems=$(jq -r --arg cache "$cache" --argjson arms "$(jq -c '.arms // []' "$PROTOCOL")" '
		def fmt: reduce .[] as $k (""; if ($k | type) == "number" then . + "[\($k)]"
			elif . == "" then $k else . + "." + $k end);
		def command: .[-1] | tostring | IN("up_cmd", "mode_cmd", "cache_reset_cmd", "cmd");
		# A word naming a file (a / and an extension: run.sh, rr.cfg) not
		# anchored at /, $ or ~; "deploy/NAME" (kubectl) is no file.
		def relative: sub("^[0-9]*[<>]+"; "") | sub("^[^=/]*="; "") | ltrimstr("\"") | ltrimstr("'"'"'")
			| rtrimstr("\"") | rtrimstr("'"'"'") | rtrimstr(";")
			| select(contains("/") and test("/[^/]*[^/.]\\.[A-Za-z0-9]+$") and (startswith("/") or startswith("$")
				or startswith("~") or startswith("-") or contains("://") or startswith("\\") | not));
		. as $f
		| (paths(type == "string") as $p | ($p | fmt) as $at | $f | getpath($p)
		   | if ($p | command) then
			([scan("\\$\\{([A-Za-z_][A-Za-z0-9_]*)\\}") | .[0]] | unique[]
			 | select($ENV[.] == null) | "field \u0027\($at)\u0027: ${\(.)} is not set in the environment"),
			([splits("[ \t]+")] | .[] | relative
			 | "field \u0027\($at)\u0027: relative path \u0027\(.)\u0027 (it resolves against the directory make runs in: write it absolute, or under ${GP_TOP})")
		     else
			(scan("\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}") | "field \u0027\($at)\u0027 holds the unexpanded placeholder \(.)")
		     end),
		  (if $cache == "reset" and (.cache_reset_cmd // "") == "" then
			(.backends // [] | to_entries[] | select((.value.reset_url // "") == "")
			 | "protocol cache \"reset\": backend \(.value.name // .value.url) (field \u0027backends[\(.key)]\u0027) has no reset_url, and the fleet no cache_reset_cmd: its cache cannot be reset")
		   else empty end),
		  ($arms[] as $a | ([.arms // [] | .[] | select(.name == $a)] | first) as $fa
		   | if $fa == null then "protocol arm \($a) is not in the fleet"
		     elif ($fa.up_cmd // "") == "" then "protocol arm \($a): the fleet gives it no up_cmd"
		     else empty end)' "$FLEET") || { log "fleet: $FLEET is not a JSON fleet file"; exit 65; }
	if [ -n "$problems" ]; then
		printf '%s\n' "$problems" | while IFS= read -r l; do log "$FLEET: $l"; done
		log "preflight: $(printf '%s\n' "$problems" | wc -l) step(s) cannot be done; nothing was run"
		exit 65
	fi
	: >"$OUT/preflight.ok"
}

# The unloaded baseline of each member, directly (phase 1): the trace's
# shape, one request at a time, cold — whether the SLO can be met at all.
idle() {
	mkdir -p "$OUT/log"
	gp-calibrate idle --fleet "$FLEET" --trace "$TRACE" --requests "$(p '.slo.idle_requests // 8')" \
		-o "$OUT/idle.ndjson.tmp" 2>>"$OUT/log/idle.log" || {
		rc=$?
		log "idle baseline failed (exit $rc; see $OUT/log/idle.log):"
		jq -r 'select(.type == "idle_baseline" and .failed > 0) | "  \(.backend // .endpoint): \(.failed) of \(.requests) failed"' \
			"$OUT/idle.ndjson.tmp" >&2
		exit $rc
	}
	mv "$OUT/idle.ndjson.tmp" "$OUT/idle.ndjson"
	log "idle: $(jq -r -s 'map(select(.type == "idle_baseline") | "\(.backend // .endpoint) TTFT p50 \(.ttft_ms.p50 * 10 | round / 10) ms, TPOT p50 \(.tpot_ms.p50 * 100 | round / 100) ms") | join("; ")' "$OUT/idle.ndjson")"
}

calib() { # NAME
	mkdir -p "$OUT/cal"
	: >"$OUT/cal/$1.ndjson.tmp"
	for role in $(p '.calibration.roles // ["prefill","decode"] | .[]'); do
		role_of=$(jq -r --arg b "$1" '.backends[] | select(.name == $b) | .role // "both"' "$FLEET")
		[ "$role_of" = both ] || [ "$role_of" = "$role" ] || continue
		jq ".calibration.$role // {}" "$PROTOCOL" >"$OUT/cal/$1-$role.protocol.json"
		gp-calibrate --fleet "$FLEET" --protocol "$OUT/cal/$1-$role.protocol.json" \
			--endpoint "$1" --role "$role" -o "$OUT/cal/$1-$role.ndjson" 2>>"$OUT/log/calib-$1.log" || {
			log "calibration of $1 ($role) did not saturate (see $OUT/cal/$1-$role.ndjson, $OUT/log/calib-$1.log)"
			exit 1
		}
		cat "$OUT/cal/$1-$role.ndjson" >>"$OUT/cal/$1.ndjson.tmp"
	done
	mv "$OUT/cal/$1.ndjson.tmp" "$OUT/cal/$1.ndjson"
}

ladder() {
	jq -c 'select(.type == "capacity")' $(f '.backends[].name' | sed "s|.*|$OUT/cal/&.ndjson|") >"$OUT/capacity.ndjson"
	# With run.resolution the run length is planned from it (the requests
	# per run whose noise floor resolves delta at good_fraction over min_reps).
	set -- $(jq -r 'if .run.resolution then "--resolution \(.run.resolution.delta // .delta)
		--plan-good-fraction \(.run.resolution.good_fraction // .target) --plan-reps \(.min_reps)
		--level \(.level // 0.95)" else "" end' "$PROTOCOL")
	gp-calibrate ladder --trace "$TRACE" --unsaturated "$(p .ladder.unsaturated)" \
		--moderate "$(p .ladder.moderate)" --saturated "$(p .ladder.saturated)" "$@" \
		"$OUT/capacity.ndjson" >"$OUT/ladder.ndjson"
	# The binding role's rates, rounded to the protocol's step: the rungs.
	jq -r -s --argjson r "$(p '.ladder.round // 0.1')" \
		--argjson rungs "$(jq -c '.ladder.rungs // ["unsaturated","moderate","saturated"]' "$PROTOCOL")" '
		(map(select(.binding)) as $b | if ($b | length) > 0 then $b[0] else .[0] end) |
		.rates_rps as $rr | $rungs | map($rr[.]) |
		map(. / $r | round * $r | . * 1000 | round / 1000) | .[]' "$OUT/ladder.ndjson" >"$OUT/rates"
	# The longest prefill the trace implies (its largest prompt on the slowest
	# prefill member): the bound of the gateway's prefill-timeout check.
	jq -r -s --slurpfile t "$TRACE" '[.[] | select(.role == "prefill") | .capacity_tok_s // empty] | min as $c |
		($t | map(.input_tokens) | max) as $n | if $c and $n then $n / $c else empty end' \
		"$OUT/capacity.ndjson" >"$OUT/longest-prefill-s"
	log "ladder: $(jq -r -s '(map(select(.binding)) + .)[0] | "\(.role) binding, reference \(.reference)\(if .run_requests then ", at least \(.run_requests) requests a run (resolution \(.resolution.delta) at a good fraction of \(.resolution.good_fraction) over \(.resolution.reps) reps)" else "" end)"' "$OUT/ladder.ndjson"), rungs $(tr '\n' ' ' <"$OUT/rates")req/s"
}

# The run order: per rung (ascending), rep by rep, the arms sorted by
# sha256("order seed/rate/rep/arm") — seeded, reproducible with any tool,
# and different from one rep to the next.  Reps added by `adapt` come after
# those already planned, in the same way.
plan() {
	settings
	# Every rung must hold its label: at least 2 requests a run, and a short
	# run's count (conditioned Poisson) within the trace.  Refused before the
	# first replay, naming the rung.
	ntrace=$(jq -c 'select(.type == "trace")' "$TRACE" | wc -l)
	for rate in $(cat "$OUT/rates"); do
		n=$(awk -v r="$rate" -v d="$duration_s" 'BEGIN { x = r * d - 1e-9; n = int(x); if (n < x) n++; print n }')
		[ "$n" -ge 2 ] || { log "rung $rate req/s: run.duration_s $duration_s gives $n request(s); a rate needs at least 2"; exit 65; }
		[ "$schedule" = constant ] || ! short_run "$rate" || [ "$n" -le "$ntrace" ] ||
			{ log "rung $rate req/s: a run sends $n requests, the trace holds $ntrace"; exit 65; }
	done
	[ -s "$OUT/reps.tsv" ] || {
		min=$(p .min_reps)
		for rate in $(cat "$OUT/rates"); do
			for arm in $(p '.arms[]'); do printf '%s\t%s\t%s\n' "$arm" "$rate" "$min"; done
		done >"$OUT/reps.tsv"
	}
	seed=$(p '.seeds.order // 1')
	maxn=$(awk -F'\t' '$3 > m { m = $3 } END { print m + 0 }' "$OUT/reps.tsv")
	: >"$OUT/order.tmp"
	for rate in $(cat "$OUT/rates"); do
		r=1
		while [ $r -le "$maxn" ]; do
			awk -F'\t' -v rate="$rate" -v r="$r" '$2 == rate && $3 >= r { print $1 }' "$OUT/reps.tsv" |
			while read -r arm; do
				printf '%s %s %s %s\n' "$(printf '%s/%s/%s/%s' "$seed" "$rate" "$r" "$arm" | sha256sum | cut -c1-16)" \
					"$arm" "$rate" "$r"
			done | sort | cut -d' ' -f2- >>"$OUT/order.tmp"
			r=$((r + 1))
		done
	done
	# Runs already made keep their place; new ones follow, so that an
	# adaptive round runs after everything planned before it.
	: >"$OUT/order.new"
	while read -r arm rate r; do
		[ -e "$OUT/runs/$arm/$rate/$r.ndjson.gz" ] && echo "$arm $rate $r" >>"$OUT/order.new"
	done <"$OUT/order.tmp"
	while read -r arm rate r; do
		[ -e "$OUT/runs/$arm/$rate/$r.ndjson.gz" ] || echo "$arm $rate $r" >>"$OUT/order.new"
	done <"$OUT/order.tmp"
	awk -v seed="$seed" '{ printf "{\"type\":\"run_order\",\"seq\":%d,\"arm\":\"%s\",\"rate_rps\":%s,\"rep\":%d,\"order_seed\":%s}\n", NR, $1, $2, $3, seed }' \
		"$OUT/order.new" >"$OUT/order.ndjson"
	# plan.mk: every run a target, each after the one before it (order-only):
	# the chain runs them one at a time, in this order, also under make -j.
	awk -v out="$OUT" '
		{ t = out "/runs/" $1 "/" $2 "/" $3 ".ndjson.gz"; runs = runs " " t
		  printf "%s: | %s\n\t$(CAMPAIGN) rep %s %s %s\n", t, (prev == "" ? out "/baseline.ndjson" : prev), $1, $2, $3
		  prev = t }
		END { printf "RUNS :=%s\n", runs }' "$OUT/order.new" >"$OUT/plan.mk.tmp"
	mv "$OUT/plan.mk.tmp" "$OUT/plan.mk"
	rm -f "$OUT/order.tmp" "$OUT/order.new"
}

# The adaptive ladder (protocol ladder.grow: ratio, max_below, max_above):
# while an arm's knee is not bracketed (gp-analyze's knee bound: "upper", no
# rung clears; "lower", the top rung clears), one rung is added that way —
# the lowest rung / ratio, or the highest x ratio, rounded like the others —
# for every arm, at min_reps reps, at most max_below / max_above rungs each
# way.  Each added rung is a rung_added record in OUT/rungs-added.ndjson
# (why: the arms and their knees); a way whose limit is reached is a
# ladder_limit record there, once (the knee stays a bound).  Exit 0 when a
# rung was added.
grow() {
	local ratio maxb maxa rnd min arms rate dir added=1
	eval "$(jq -r '@sh "ratio=\(.ladder.grow.ratio // 0) maxb=\(.ladder.grow.max_below // 0) maxa=\(.ladder.grow.max_above // 0) rnd=\(.ladder.round // 0.1) min=\(.min_reps) target=\(.target)"' "$PROTOCOL")"
	[ "$ratio" != 0 ] || return 1
	touch "$OUT/rungs-added.ndjson"
	for dir in below above; do
		arms=$(zcat "$OUT/all.ndjson.gz" | jq -r --arg b "$([ $dir = below ] && echo upper || echo lower)" \
			'select(.type == "knee" and .bound == $b) | .arm' | tr '\n' ' ')
		[ -n "$arms" ] || continue
		n=$(jq -s --arg d $dir 'map(select(.type == "rung_added" and .direction == $d)) | length' "$OUT/rungs-added.ndjson")
		lim=$([ $dir = below ] && echo "$maxb" || echo "$maxa")
		if [ "$n" -ge "$lim" ]; then
			jq -s -e --arg d $dir 'any(.[]; .type == "ladder_limit" and .direction == $d)' "$OUT/rungs-added.ndjson" >/dev/null ||
				jq -n -c --arg d $dir --argjson k "$lim" --arg arms "$arms" '{type: "ladder_limit", direction: $d,
					max: $k, arms: ($arms | split(" ") | map(select(. != ""))),
					reason: "\($k) rung(s) added \($d) the calibrated ones, the protocol'"'"'s limit: these knees stay bounds"}' >>"$OUT/rungs-added.ndjson"
			log "ladder: the limit of $lim rung(s) $dir is reached; the knee of ${arms% } stays a bound"
			continue
		fi
		from=$(sort -g "$OUT/rates" | { [ $dir = below ] && head -n 1 || tail -n 1; })
		rate=$(awk -v f="$from" -v q="$ratio" -v r="$rnd" -v d=$dir 'BEGIN {
			x = d == "below" ? f / q : f * q; x = int(x / r + 0.5) * r
			if (d == "below" && x >= f) x = f - r
			if (d == "above" && x <= f) x = f + r
			printf "%.10g\n", int(x * 1000 + 0.5) / 1000 }')
		awk -v x="$rate" 'BEGIN { exit !(x > 0) }' || { log "ladder: no rung below $from req/s"; continue; }
		echo "$rate" >>"$OUT/rates"
		for arm in $(p '.arms[]'); do printf '%s\t%s\t%s\n' "$arm" "$rate" "$min"; done >>"$OUT/reps.tsv"
		zcat "$OUT/all.ndjson.gz" | jq -c -s --arg d $dir --argjson rate "$rate" --argjson from "$from" \
			--argjson q "$ratio" --argjson step $((n + 1)) --argjson min "$min" '
			[.[] | select(.type == "knee" and .bound == (if $d == "below" then "upper" else "lower" end))] as $k |
			{type: "rung_added", rate_rps: $rate, direction: $d, step: $step, from_rate_rps: $from, ratio: $q,
			 reps: $min, arms: ($k | map(.arm)),
			 reason: ($k | map(if $d == "below" then "\(.arm): no rung clears the target \(.target) (knee below \(.bound_rate_rps) req/s)"
				else "\(.arm): the top rung \(.rate_rps) req/s clears the target \(.target) (good fraction \(.good_fraction * 1000 | round / 1000))" end) | join("; "))}' \
			>>"$OUT/rungs-added.ndjson"
		log "ladder: rung $rate req/s added $dir ($(tail -n 1 "$OUT/rungs-added.ndjson" | jq -r .reason))"
		added=0
	done
	return $added
}

# ADD_REPLICATES on a rung below the cap: the reps publish asks for, up to
# the cap (counted in reps run, discarded ones included); and the ladder
# grown (grow, above).  Exit 0 when anything was added.
adapt() {
	grown=1
	grow && grown=0
	cap=$(p .rep_cap)
	zcat "$OUT/all.ndjson.gz" | jq -r 'select(.type == "stability" and .verdict == "ADD_REPLICATES") |
		"\(.arm)\t\(.rate_rps)\t\(.add_reps // 1)"' >"$OUT/adapt.tmp"
	awk -F'\t' -v cap="$cap" -v lf="$OUT/adapt.log" '
		NR == FNR { add[$1 "\t" $2 + 0] = $3; next }
		{ k = $1 "\t" $2 + 0; n = $3
		  if (k in add && n < cap) {
			m = n + add[k]; if (m > cap) m = cap
			printf "%s at %s req/s: %d -> %d reps (ADD_REPLICATES)\n", $1, $2, n, m >> lf
			n = m; changed = 1 }
		  printf "%s\t%s\t%d\n", $1, $2, n }
		END { exit changed ? 0 : 3 }' "$OUT/adapt.tmp" "$OUT/reps.tsv" >"$OUT/reps.new" && rc=0 || rc=$?
	[ $rc = 0 ] || [ $rc = 3 ] || { log "adapt: could not read $OUT/reps.tsv"; exit 70; }
	if [ $rc = 0 ]; then
		mv "$OUT/reps.new" "$OUT/reps.tsv"
		log "adaptive replicates: $(tail -n "$(wc -l <"$OUT/adapt.tmp")" "$OUT/adapt.log" | tr '\n' ';')"
	fi
	rm -f "$OUT/reps.new" "$OUT/adapt.tmp"
	[ $rc = 0 ] || [ $grown = 0 ]
}

# The comparisons the user asks for (the protocol's compare list, passed to
# gp-analyze --compare): each a pair of two different arms of the protocol.
check_compare() {
	bad=$(jq -r '.arms as $arms | (.compare // []) |
		if type != "array" then "compare: not a list of pairs" else
		.[] | select(type != "array" or length != 2 or .[0] == .[1] or
			any(.[]; . as $a | ($a | type) != "string" or all($arms[]; . != $a))) |
		"compare: \(tojson) is not a pair of two different arms of the protocol" end' "$PROTOCOL") ||
		{ log "$PROTOCOL: not JSON"; exit 65; }
	[ -z "$bad" ] || { log "$PROTOCOL: $bad"; exit 65; }
}

table() {
	{ zcat "$OUT/all.ndjson.gz"; cat "$OUT/rungs-added.ndjson" 2>/dev/null; } |
		jq -r -s --slurpfile p "$PROTOCOL" -f "$(dirname "$me")/table.jq"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
preflight) preflight ;;
idle) idle ;;
up) gateway_up "$@" ;;
down) gateway_down ;;
health) health "$@" ;;
probe) probe "$@" ;;
reset) reset_caches ;;
rep) rep "$@" ;;
baseline) baseline ;;
calib) calib "$@" ;;
ladder) ladder ;;
plan) plan ;;
adapt) adapt ;;
table) table ;;
check-compare) check_compare ;;
*) echo "usage: $me preflight|idle|up|down|health|probe|reset|rep|baseline|calib|ladder|plan|adapt|table|check-compare ..." >&2; exit 2 ;;
esac
