# flatten.jq — turn gp records into the tab-separated lines that the integrity
# scripts read (jq -r -f flatten.jq records.ndjson).  One line per record of
# interest; the first column says which:
#   Q  request      arm rate rep run outcome error ttft_ms tpot_ms e2e_ms out_tokens has_receipt
#                   http_status error_detail
#   H  run header   arm rate rep run deadline_s schedule shard
#   E  run_end      arm rate rep run attempted ok single_token failed invalid_framing
#                   by_error.hang by_error.truncated by_error.invalid_framing
#                   capped_sends interrupted client_behind lateness_p99_ms
#                   lateness_max_ms achieved_rps shard
#   S  slo          ttft_ms tpot_ms single_token_policy origin baseline_stat multiple
#   B  baseline_request  ttft_ms tpot_ms   (gp-analyze --pass copies the baseline's ok requests)
#   G  goodfrac     arm rate rep attempted good paired single_token failed good_fraction
#   A  arm_summary  arm rate reps mean_good_fraction cv
#                   pooled_est pooled_lo pooled_hi pooled_level
#                   cluster_est cluster_lo cluster_hi cluster_level
# null and absent fields are empty columns; numbers keep jq's shortest exact
# form, so awk reads the same doubles that the records hold.
def ci(f): (f | if type == "object" then [.est, .lo, .hi, .level] else [null, null, null, null] end);
def cell: if type == "object" or type == "array" or type == "boolean" then tojson else . end;
(if .type == "request" then
	["Q", .arm, .rate_rps, .rep, .run, .outcome, .error, .ttft_ms, .tpot_ms, .e2e_ms,
	 .out_tokens, (if (.receipt | type) == "string" and .receipt != "" then 1 else 0 end),
	 .http_status, .error_detail]
elif .type == "run" then
	["H", .arm, .rate_rps, .rep, .run, .deadline_s, .schedule, .shard]
elif .type == "run_end" then
	["E", .arm, .rate_rps, .rep, .run, .attempted, .ok, .single_token, .failed, .invalid_framing,
	 (if (.by_error | type) == "object" then .by_error.hang else null end),
	 (if (.by_error | type) == "object" then .by_error.truncated else null end),
	 (if (.by_error | type) == "object" then .by_error.invalid_framing else null end),
	 .capped_sends, .interrupted, .client_behind, .lateness_p99_ms, .lateness_max_ms,
	 .achieved_rps, .shard]
elif .type == "slo" then
	["S", .ttft_ms, .tpot_ms, (.single_token // .single_token_policy), .origin, .baseline_stat, .multiple]
elif .type == "baseline_request" then
	["B", .ttft_ms, .tpot_ms]
elif .type == "goodfrac" then
	["G", .arm, .rate_rps, .rep, .attempted, .good, .paired, .single_token, .failed, .good_fraction]
elif .type == "arm_summary" then
	["A", .arm, .rate_rps, .reps, .mean_good_fraction, .cv]
	+ ci(.good_fraction_pooled) + ci(.good_fraction_ci)
else empty end) | . as $row | try @tsv catch ($row | map(cell) | @tsv)
