# units.awk — latencies are in milliseconds.
#   range     every ttft_ms, tpot_ms, e2e_ms lies in [0, 1.1 * deadline + 1000 ms]
#             (deadline_s from the run header, else -v deadline_s; the margin
#             allows the cancellation of an over-deadline request to land late);
#             without a deadline only >= 0 is checked
#   order     e2e_ms >= ttft_ms (to 1 microsecond)
#   identity  the median over ok requests with out_tokens >= 2 of
#             |ttft + (out_tokens - 1) * tpot - e2e| / max(e2e, 1 ms) is <= 1 %
#             (TPOT is defined by that identity: a field in another unit breaks it)
#   floor     the median TPOT is >= min_tpot_ms (default 0.05 ms, i.e. at most
#             20 000 tokens/s per stream): all three fields in seconds keep the
#             identity but land far below it
pass == 1 && $1 == "H" && $6 != "" { dl[runkey($2, $3, $4)] = num($6) }
pass == 2 && $1 == "Q" {
	k = runkey($2, $3, $4)
	d = (k in dl) ? dl[k] : deadline_s
	if (d != "") { cap = 1.1 * d * 1000 + 1000; withdl++ } else cap = ""
	for (f = 8; f <= 10; f++) {
		if ($f == "") continue
		nlat++
		v = num($f)
		if (v < 0) { bad++; note("u", showkey(k) ": " fname(f) " " $f " < 0") }
		else if (cap != "" && v > cap) { bad++; note("u", showkey(k) ": " fname(f) " " $f " ms over the " d " s deadline") }
	}
	if ($8 != "" && $10 != "" && num($10) < num($8) - 0.001) { bad++; note("u", showkey(k) ": e2e_ms " $10 " < ttft_ms " $8) }
	if ($6 == "ok" && $8 != "" && $9 != "" && $10 != "" && $11 != "" && num($11) >= 2) {
		e = num($10)
		r = absf(num($8) + (num($11) - 1) * num($9) - e) / (e > 1 ? e : 1)
		res[++nres] = r
		tp[++ntp] = num($9)
	}
}
function fname(f) { return f == 8 ? "ttft_ms" : f == 9 ? "tpot_ms" : "e2e_ms" }
END {
	if (nlat == 0) { report("units", "not_checked", "no latency values"); exit }
	detail = nlat " latencies"
	if (withdl == 0) detail = detail ", no deadline known (upper bound not checked)"
	if (nres > 0) {
		mr = median(res, nres)
		mt = median(tp, ntp)
		if (mr > 0.01) { bad++; note("u", sprintf("median |ttft + (out_tokens-1) tpot - e2e| / e2e = %.4g > 1 %% over %d requests: the fields are not in one unit", mr, nres)) }
		if (mt < min_tpot_ms) { bad++; note("u", sprintf("median tpot %.4g ms < %g ms: values look like seconds", mt, min_tpot_ms)) }
		detail = detail sprintf(", median identity residual %.3g, median tpot %.4g ms", mr, mt)
	} else detail = detail ", no paired request for the identity"
	if (bad) report("units", "fail", notes_of("u"))
	else report("units", "ok", detail)
}
