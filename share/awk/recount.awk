# recount.awk — the good/total recount.  With the slo record's thresholds
# (conjunction; failed = miss; single-token policy from the slo record, else
# "ttft"), count the good requests of every run and compare with gp-analyze's
# goodfrac records: good and attempted must be equal, good_fraction equal to
# 1e-9.  A run without a goodfrac record, or a goodfrac without requests,
# fails.
pass == 1 && $1 == "S" {
	nslo++
	key = $2 SUBSEP $3 SUBSEP $4
	if (nslo > 1 && key != slokey) slobad = 1
	slokey = key; sttft = num($2); stpot = num($3); spol = $4
	if ($2 == "" || $3 == "") slobad = 2
}
pass == 1 && $1 == "G" {
	k = runkey($2, $3, $4)
	if (k in ga) dupg = 1
	ga[k] = $5; gg[k] = $6; gfr[k] = $10; gord[++ng] = k
}
pass == 2 && FNR == 1 {
	if (spol == "" || spol == "ttft" || spol == "ttft_only") pol = "ttft"
	else if (spol == "miss") pol = "miss"
	else polbad = 1
}
pass == 2 && $1 == "Q" {
	k = runkey($2, $3, $4)
	if (!(k in n)) { n[k] = 0; order[++nk] = k }
	n[k]++
	good[k] += is_good($6, $8, $9, sttft, stpot, pol)
}
END {
	if (nslo == 0) { report("recount", "not_checked", "no slo record"); exit }
	if (slobad == 1) { report("recount", "fail", "several slo records with different thresholds"); exit }
	if (slobad == 2) { report("recount", "fail", "the slo record has no ttft_ms or tpot_ms"); exit }
	if (polbad) { report("recount", "not_checked", "unknown single-token policy '" spol "'"); exit }
	if (ng == 0) { report("recount", "not_checked", "no goodfrac records"); exit }
	if (dupg) { bad++; note("r", "several goodfrac records for one run") }
	for (i = 1; i <= nk; i++) {
		k = order[i]
		if (!(k in ga)) { bad++; note("r", showkey(k) ": no goodfrac record"); continue }
		f = n[k] ? num(good[k]) / n[k] : 0
		if (num(ga[k]) != n[k] || num(gg[k]) != num(good[k]) || (gfr[k] != "" && !close_to(num(gfr[k]), f)) || (gfr[k] == "" && n[k] > 0)) {
			bad++
			note("r", sprintf("%s: recount %d good of %d (%.6g), goodfrac %s of %s (%s)", showkey(k), num(good[k]), n[k], f, gg[k], ga[k], gfr[k]))
		}
	}
	for (i = 1; i <= ng; i++) if (!(gord[i] in n)) { bad++; note("r", "goodfrac " showkey(gord[i]) " has no request records") }
	if (bad) report("recount", "fail", notes_of("r"))
	else report("recount", "ok", sprintf("%d runs recounted with ttft <= %s ms and tpot <= %s ms (single-token: %s): good and attempted equal goodfrac", nk, sttft, stpot, pol))
}
