# counts.awk — the denominator and conservation checks.
#   denominator   every run's request records number its trailer's attempted
#                 count (summed over the shards of the run), the trailer's
#                 ok/single_token/failed match the records, and gp-analyze's
#                 goodfrac.attempted equals the records too.
#   conservation  paired + single_token + failed = total for every run (an ok
#                 request without TTFT/TPOT or an unknown outcome is a lost
#                 request), and the same identity holds in every trailer and
#                 in every goodfrac record.
pass == 2 && $1 == "Q" {
	k = runkey($2, $3, $4)
	if (!(k in n)) { n[k] = 0; order[++nk] = k }
	n[k]++
	if ($6 == "ok") { ok[k]++; if ($8 != "" && $9 != "") paired[k]++; else lost[k]++ }
	else if ($6 == "single_token") single[k]++
	else if ($6 == "failed") failed[k]++
	else lost[k]++
}
pass == 2 && $1 == "E" {
	k = ekey()
	if (!(k in n)) { n[k] = 0; order[++nk] = k }
	if ($6 != "") { att[k] += $6; hasatt[k] = 1 }
	if ($7 != "" && $8 != "" && $9 != "") {
		eok[k] += $7; esingle[k] += $8; efailed[k] += $9; hasparts[k] = 1
	}
}
pass == 2 && $1 == "G" {
	k = runkey($2, $3, $4)
	ng++
	gk[ng] = k; ga[ng] = $5; gp[ng] = $7; gs[ng] = $8; gf[ng] = $9
}
END {
	# denominator
	bad = 0; unchecked = 0; checked = 0
	for (i = 1; i <= nk; i++) {
		k = order[i]
		if (!(k in hasatt)) { unchecked++; continue }
		checked++
		if (num(att[k]) != n[k]) { bad++; note("den", showkey(k) ": " n[k] " request records, run_end attempted " att[k]) }
		if ((k in hasparts) && (num(eok[k]) != num(ok[k]) || num(esingle[k]) != num(single[k]) || num(efailed[k]) != num(failed[k]))) {
			bad++
			note("den", showkey(k) ": run_end ok/single_token/failed " eok[k] "/" esingle[k] "/" efailed[k] ", records " num(ok[k]) "/" num(single[k]) "/" num(failed[k]))
		}
	}
	for (i = 1; i <= ng; i++) {
		checked++
		if (num(ga[i]) != num(n[gk[i]])) { bad++; note("den", "goodfrac " showkey(gk[i]) ": attempted " ga[i] ", request records " num(n[gk[i]])) }
	}
	if (bad) report("denominator", "fail", notes_of("den"))
	else if (nk == 0) report("denominator", "not_checked", "no request or run_end records")
	else if (unchecked) report("denominator", "not_checked", unchecked " of " nk " runs have no run_end attempted count")
	else report("denominator", "ok", nk " runs: request records equal run_end attempted" (ng ? "; " ng " goodfrac records agree" : ""))

	# conservation
	bad = 0; total = 0
	for (i = 1; i <= nk; i++) {
		k = order[i]
		total += n[k]
		s = num(paired[k]) + num(single[k]) + num(failed[k])
		if (s != n[k]) { bad++; note("con", showkey(k) ": paired " num(paired[k]) " + single_token " num(single[k]) " + failed " num(failed[k]) " = " s " of " n[k] " requests (" num(lost[k]) " lost)") }
		if ((k in hasparts) && (k in hasatt) && num(eok[k]) + num(esingle[k]) + num(efailed[k]) != num(att[k])) {
			bad++; note("con", showkey(k) ": run_end ok + single_token + failed != attempted " att[k])
		}
	}
	for (i = 1; i <= ng; i++) {
		k = gk[i]
		if (num(gp[i]) + num(gs[i]) + num(gf[i]) != num(ga[i])) {
			bad++; note("con", "goodfrac " showkey(k) ": paired " gp[i] " + single_token " gs[i] " + failed " gf[i] " != attempted " ga[i])
		} else if (num(gp[i]) != num(paired[k]) || num(gs[i]) != num(single[k]) || num(gf[i]) != num(failed[k])) {
			bad++; note("con", "goodfrac " showkey(k) ": paired/single_token/failed " gp[i] "/" gs[i] "/" gf[i] ", records " num(paired[k]) "/" num(single[k]) "/" num(failed[k]))
		}
	}
	if (bad) report("conservation", "fail", notes_of("con"))
	else if (nk == 0) report("conservation", "not_checked", "no request records")
	else report("conservation", "ok", total " requests in " nk " runs: paired + single_token + failed = total")
}
