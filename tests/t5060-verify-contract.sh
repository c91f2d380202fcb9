#!/bin/sh
# The contract (doc/records.md): every reader — gp-verify validity, gp-analyze,
# gp-verify publish and the awk re-derivation — accepts any stream the
# contract allows.  The records below are the contract's own examples, with
# exactly the fields it lists (the "…" filled in), a run_end keyed by `run`
# alone (its arm, rate_rps and rep come from the run header), health records
# without the optional fields, the probe and metrics shapes, and an unknown
# field (nested) on every record, which readers must ignore.
. "$(dirname "$0")/lib.sh"
for t in gp-verify gp-analyze; do command -v $t >/dev/null || skip_all "$t not built"; done
command -v jq >/dev/null || skip_all "jq missing"

# One run of the contract's request example, {"type":"request","run":"…",
# "arm":"bounded","rep":3,"rate_rps":6.0,"id":"r17","t_sched_s":…,"t_sent_s":…,
# "ttft_ms":…,"tpot_ms":…,"e2e_ms":…,"in_tokens":…,"out_tokens":…,
# "tokens_from":"usage|chunks","outcome":"ok|single_token|failed",
# "error":null|"<class>","http_status":200,"backend":"…","receipt":"…"},
# framed by {"type":"run",…config, versions, url, trace digest…} and
# {"type":"run_end","run":…,"attempted":…,"ok":…,"single_token":…,"failed":…,
# "by_error":{…},"invalid_framing":…}.
run() { # ARM REP
	awk -v a="$1" -v rep="$2" 'BEGIN {
		x = ",\"x_future\":{\"nested\":[1,{\"k\":\"v\"}]}"
		printf "{\"type\":\"run\",\"run\":\"%s-%d\",\"arm\":\"%s\",\"rep\":%d,\"rate_rps\":6.0,\"url\":\"http://127.0.0.1:8080\",\"version\":\"x\",\"trace_digest\":\"fnv1a64:0123456789abcdef\"%s}\n", a, rep, a, rep, x
		for (i = 0; i < 30; i++) {
			oc = (i == 7) ? "single_token" : (i == 11) ? "failed" : "ok"
			printf "{\"type\":\"request\",\"run\":\"%s-%d\",\"arm\":\"%s\",\"rep\":%d,\"rate_rps\":6.0,\"id\":\"r%d\",\"t_sched_s\":%.3f,\"t_sent_s\":%.3f,", a, rep, a, rep, i, i / 6, i / 6 + 0.0002
			if (oc == "ok")
				printf "\"ttft_ms\":%d,\"tpot_ms\":%d,\"e2e_ms\":%d,\"in_tokens\":812,\"out_tokens\":17,\"tokens_from\":\"usage\",\"outcome\":\"ok\",\"error\":null,\"http_status\":200", 40 + i, 10, 40 + i + 160
			else if (oc == "single_token")
				printf "\"ttft_ms\":50,\"tpot_ms\":null,\"e2e_ms\":50,\"in_tokens\":812,\"out_tokens\":1,\"tokens_from\":\"chunks\",\"outcome\":\"single_token\",\"error\":null,\"http_status\":200"
			else
				printf "\"ttft_ms\":null,\"tpot_ms\":null,\"e2e_ms\":3,\"in_tokens\":812,\"out_tokens\":null,\"tokens_from\":null,\"outcome\":\"failed\",\"error\":\"http_status\",\"http_status\":500"
			printf ",\"backend\":\"b1\",\"receipt\":\"rcpt-%d\"%s}\n", i, x
		}
		printf "{\"type\":\"run_end\",\"run\":\"%s-%d\",\"attempted\":30,\"ok\":28,\"single_token\":1,\"failed\":1,\"by_error\":{\"http_status\":1},\"invalid_framing\":0%s}\n", a, rep, x
	}'
}
{
	for arm in bounded rr; do
		# {"type":"probe_sample","arm","t_s","inflight":{backend:n},"peak_to_mean"},
		# {"type":"probe","arm","expect":"spread|concentrate","concentration",
		#  "mode_evidence","mode_confirmed","engaged"}
		echo "{\"type\":\"probe_sample\",\"arm\":\"$arm\",\"t_s\":0.5,\"inflight\":{\"b1\":2,\"b2\":2},\"peak_to_mean\":1.0,\"x_future\":[1]}"
		echo "{\"type\":\"probe\",\"arm\":\"$arm\",\"expect\":\"spread\",\"concentration\":1.0,\"mode_evidence\":\"balance roundrobin\",\"mode_confirmed\":true,\"engaged\":true,\"x_future\":{}}"
	done
	# {"type":"health","check":"vip_chat|backend_models|metrics|kv_events|receipt",
	#  "target":…,"ok":…,…} then {"type":"health_summary","ready":…}
	echo '{"type":"health","check":"vip_chat","target":"http://127.0.0.1:8080","ok":true,"x_future":null}'
	echo '{"type":"health","check":"kv_events","target":"b1","ok":true}'
	echo '{"type":"health_summary","ready":true}'
	# {"type":"metrics","target","t_s","samples":{"name{labels}":value}}
	echo '{"type":"metrics","target":"http://127.0.0.1:9001/metrics","t_s":0,"samples":{"vllm:num_requests_running{model=\"m\"}":3}}'
	for rep in 1 2 3 4 5; do run bounded $rep; run rr $rep; done
} >contract.ndjson

test_expect_success 'the contract examples are valid JSON, every run_end keyed by run alone' '
	jq -e -s "length == 328 and (map(select(.type == \"run_end\" and has(\"arm\"))) | length) == 0" contract.ndjson >/dev/null
'
test_expect_success 'gp-verify validity accepts the stream and keeps every run' '
	gp-verify validity contract.ndjson >v.ndjson &&
	tail -n 1 v.ndjson | jq -e ".type == \"validity\" and .kept == 10 and .discarded == 0" >/dev/null &&
	test $(jq -c "select(.type == \"run_end\")" v.ndjson | wc -l) = 10
'
test_expect_success 'gp-analyze accepts it: counts from the request records, the run_ends matched by run' '
	gp-analyze --pass --ttft-slo-ms 500 --tpot-slo-ms 50 --floor rr --resamples 500 --accelerators 2 v.ndjson >a.ndjson &&
	jq -e -s "[.[] | select(.type == \"goodfrac\")] | length == 10 and all(.attempted == 30 and .good == 29
		and .paired == 28 and .single_token == 1 and .failed == 1 and .achieved_from == \"t_sent_span\")" a.ndjson >/dev/null
'
# The stream has no times: its health and probes cannot be placed in a run's
# window, so both are waived (and said to be); the probe records still prove
# each arm's mode (phase 2).
test_expect_success 'gp-verify publish accepts it: integrity ok under the contract, probe evidence read' '
	{ gp-verify publish $WAIVE_DESIGN -q --allow-missing health,probe,dual_proof <a.ndjson >p.ndjson; test $? -le 1; } &&
	test "$(jq -r "select(.type == \"integrity\") | .status" p.ndjson | sort -u)" = ok &&
	jq -e "select(.type == \"verdict\") | .publishable == true and
		(.missing == []) and (.allowed_missing | map(startswith(\"allowed_missing: health\")) | any) and
		(.allowed_missing | map(startswith(\"allowed_missing: probe: 10 of 10 runs\")) | any) and
		(.allowed_missing | map(startswith(\"allowed_missing: probe: arm\")) | any | not)" p.ndjson >/dev/null
'
test_expect_success 'the test can fail: a run_end keyed by a run nobody named is refused' '
	sed "s/\"run_end\",\"run\":\"rr-5\"/\"run_end\",\"run\":\"rr-6\"/" contract.ndjson >bad.ndjson &&
	! gp-verify validity bad.ndjson >/dev/null 2>err && grep -q "run .rr-6. has no run header" err
'
test_done
