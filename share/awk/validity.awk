# validity.awk — the validity rules that need no outside evidence, re-judged
# from the raw records (gp-verify validity judges them in C; this is the
# second, independent implementation):
#   validity  no run in the input has invalid framing (its requests' error
#             class, its run_end's invalid_framing or by_error), a hang after
#             the first token or a truncated stream (requests or by_error), a
#             backend timeout (http_status 408 or 504, or a server's message
#             with "timeout", "time-out" or "timed out", the client's own
#             timeout, connect and cancelled excepted), or no paired request
#             (ok with both ttft_ms and tpot_ms).  Every run the analysis
#             rests on must have passed these; one that did not was mixed in.
# Q: $6 outcome $7 error $8 ttft $9 tpot $13 http_status $14 error_detail
# E: $10 invalid_framing $11 hang $12 truncated $13 by_error.invalid_framing
function vrun(k) { if (!(k in seen)) { seen[k] = 1; order[++nk] = k } }
function backend_timeout(err, status, detail,   d) {
	if (err == "" || err == "timeout" || err == "connect" || err == "cancelled") return 0
	if (err == "http_status" && (status == 408 || status == 504)) return 1
	d = tolower(detail)
	return index(d, "timeout") || index(d, "time-out") || index(d, "timed out")
}
function maxv(a, b) { return num(a) > num(b) ? num(a) : num(b) }
pass == 2 && $1 == "Q" {
	k = runkey($2, $3, $4); vrun(k)
	if ($6 == "ok" && $8 != "" && $9 != "") paired[k]++
	if ($7 == "invalid_framing") qframe[k]++
	if ($7 == "hang" && $8 != "") qhang[k]++
	if ($7 == "truncated") qtrunc[k]++
	if (backend_timeout($7, num($13), $14)) tmo[k]++
}
pass == 2 && $1 == "E" {
	k = ekey(); vrun(k)
	eframe[k] += ($10 != "") ? num($10) : num($13)
	ehang[k] += num($11); etrunc[k] += num($12)
}
END {
	bad = 0
	for (i = 1; i <= nk; i++) {
		k = order[i]; why = ""
		f = maxv(qframe[k], eframe[k]); h = maxv(qhang[k], ehang[k]); t = maxv(qtrunc[k], etrunc[k])
		if (f > 0) why = why (why == "" ? "" : ", ") "invalid_framing " f
		if (h > 0) why = why (why == "" ? "" : ", ") "hang " h
		if (t > 0) why = why (why == "" ? "" : ", ") "truncated " t
		if (num(tmo[k]) > 0) why = why (why == "" ? "" : ", ") "backend_timeout " tmo[k]
		if (num(paired[k]) == 0) why = why (why == "" ? "" : ", ") "zero_paired"
		if (why != "") { bad++; note("val", showkey(k) ": " why) }
	}
	if (nk == 0) report("validity", "not_checked", "no request or run_end records")
	else if (bad) report("validity", "fail", bad " of " nk " runs break a validity rule (they did not pass gp-verify validity): " notes_of("val"))
	else report("validity", "ok", nk " runs re-judged: no invalid framing, hang, truncation or backend timeout, and paired requests in each")
}
