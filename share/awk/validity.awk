# validity.awk — the validity rules that need no outside evidence, re-judged
# from the raw records (gp-verify validity judges them in C; this is the
# second, independent implementation):
#   validity  no run in the input has invalid framing (its requests' error
#             class, its run_end's invalid_framing or by_error), a hang after
#             the first token or a truncated stream (requests or by_error), a
#             backend timeout (http_status 408 or 504, or a server's message
#             with "timeout", "time-out" or "timed out", the client's own
#             timeout, connect and cancelled excepted), or no paired request
#             (ok with both ttft_ms and tpot_ms); and by the client's rules,
#             from the run_end: capped sends, an interrupted run, a client
#             behind its schedule by more than the tolerance (send lateness
#             p99 over half the mean gap 1/rate, or the maximum over one gap),
#             an achieved rate more than 10 % off its label (plus 3/sqrt(n-1)
#             for a Poisson schedule); a run whose shards ("I/N") are not each
#             there once (one header, one run_end); two run ids for one
#             (arm, rate, rep).  Every run the analysis rests on must have
#             passed these; one that did not was mixed in.
# Q: $5 run $6 outcome $7 error $8 ttft $9 tpot $13 http_status $14 error_detail
# H: $5 run $7 schedule $8 shard
# E: $5 run $10 invalid_framing $11 hang $12 truncated $13 by_error.invalid_framing
#    $14 capped_sends $15 interrupted $16 client_behind $17 lateness_p99_ms
#    $18 lateness_max_ms $19 achieved_rps $20 shard
function vrun(k) { if (!(k in seen)) { seen[k] = 1; order[++nk] = k } }
function backend_timeout(err, status, detail,   d) {
	if (err == "" || err == "timeout" || err == "connect" || err == "cancelled") return 0
	if (err == "http_status" && (status == 408 || status == 504)) return 1
	d = tolower(detail)
	return index(d, "timeout") || index(d, "time-out") || index(d, "timed out")
}
function maxv(a, b) { return num(a) > num(b) ? num(a) : num(b) }
# The run ids seen for a key (mixed_runs) and the shards ("I/N") its headers
# (kind "h") and run_ends ("e") name.
function runid(k, id) {
	if (id == "" || ((k, id) in ids)) return
	ids[k, id] = 1; nids[k]++; if (nids[k] > 1) other[k] = id; else firstid[k] = id
}
function shard(k, s, kind,   p) {
	if (s == "" || split(s, p, "/") != 2) return
	if ((k in shn) && shn[k] != p[2]) shbad[k] = "shards of " shn[k] " and of " p[2]
	shn[k] = p[2]; shc[k, kind, p[1]]++
}
pass == 2 && $1 == "H" { k = runkey($2, $3, $4); vrun(k); runid(k, $5); shard(k, $8, "h"); if ($7 == "poisson") poisson[k] = 1 }
pass == 2 && $1 == "Q" {
	k = runkey($2, $3, $4); vrun(k); runid(k, $5); nreq[k]++; rate[k] = $3
	if ($6 == "ok" && $8 != "" && $9 != "") paired[k]++
	if ($7 == "invalid_framing") qframe[k]++
	if ($7 == "hang" && $8 != "") qhang[k]++
	if ($7 == "truncated") qtrunc[k]++
	if (backend_timeout($7, num($13), $14)) tmo[k]++
}
pass == 2 && $1 == "E" {
	k = ekey(); vrun(k); runid(k, $5); shard(k, $20, "e")
	eframe[k] += ($10 != "") ? num($10) : num($13)
	ehang[k] += num($11); etrunc[k] += num($12)
	capped[k] += num($14)
	if ($15 == "true") intr[k] = 1
	if ($16 == "true") behind[k] = 1
	if (num($17) > p99[k]) p99[k] = num($17)
	if (num($18) > lmax[k]) lmax[k] = num($18)
	if ($19 != "") { ach[k] += num($19); hasach[k] = 1 }
	split(k, kp, SUBSEP); rate[k] = kp[2]
}
# The client's rules of run k: the text of those it breaks, each after ", ".
function client(k,   r, gap, dev, bound, w) {
	w = ""; r = num(rate[k]); gap = r > 0 ? 1000 / r : 0
	if (num(capped[k]) > 0) w = w ", capped_sends " capped[k]
	if (k in intr) w = w ", interrupted"
	if ((k in behind) && (!(gap > 0) || num(p99[k]) > 0.5 * gap || num(lmax[k]) > gap))
		w = w sprintf(", client_behind (lateness p99 %.3g ms, max %.3g ms; gap %.3g ms)", p99[k], lmax[k], gap)
	if ((k in hasach) && r > 0) {
		dev = ach[k] / r - 1; bound = 0.10
		if ((k in poisson) && nreq[k] > 1) bound += 3 / sqrt(nreq[k] - 1)
		if (absf(dev) > bound) w = w sprintf(", achieved_rate %.4g against %.4g", ach[k], r)
	}
	return w
}
function shards(k,   i, n) {
	if (!(k in shn)) return ""
	if (k in shbad) return ", " shbad[k]
	n = num(shn[k])
	for (i = 1; i <= n; i++)
		if (num(shc[k, "h", i]) != 1 || num(shc[k, "e", i]) != 1) return ", shard " i "/" n " not once"
	return ""
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
		why = why client(k) shards(k)
		if (nids[k] > 1) why = why (why == "" ? "" : ", ") "mixed_runs " firstid[k] " and " other[k]
		sub(/^, /, "", why)
		if (why != "") { bad++; note("val", showkey(k) ": " why) }
	}
	if (nk == 0) report("validity", "not_checked", "no request or run_end records")
	else if (bad) report("validity", "fail", bad " of " nk " runs break a validity rule (they did not pass gp-verify validity): " notes_of("val"))
	else report("validity", "ok", nk " runs re-judged: no invalid framing, hang, truncation, backend timeout, client or shard fault, one run id each, and paired requests in each")
}
