# table.jq — the campaign's verdict table from its records (jq -r -s over
# all.ndjson.gz, --slurpfile p PROTOCOL): one line per arm and rung, the
# comparisons the protocol asked for (its `compare` list, each pair at every
# rung, "not compared" where no record is), then the knees, the verdict and
# what it answers.  Every figure printed is a field of a record of this run.
# Each column is as wide as its widest cell, so long arm names never run into
# the next column.
def r(n): if . == null then "-" else (. * pow(10; n) | round / pow(10; n) | tostring) end;
def pad(n): tostring | if length < n then . + (" " * (n - length)) else . end;
# rows: an array of arrays of strings (the first the header) -> aligned lines
def columns: . as $rows
  | ([range(0; $rows[0] | length) as $i | $rows | map(.[$i] | length) | max]) as $w
  | $rows[] | [range(0; length) as $i | if $i == length - 1 then .[$i] else (.[$i] | pad($w[$i] + 2)) end] | join("");
def tost_text: if . == null then "no TOST"
  elif .equivalent then "equivalent within \(.delta)"
  elif .tost_passed then "passes, not trusted: \(.reason)"
  elif .lo90 == null then "n/a: \(.reason // "")"
  else "not equivalent within \(.delta)" end;
(map(select(.type == "slo"))[0]) as $slo
| (map(select(.type == "noise_floor"))[0].arm // (map(select(.type == "knee_compare"))[0].vs)) as $floor
| (map(select(.type == "stability")) | map({key: "\(.arm)@\(.rate_rps)", value: .}) | from_entries) as $st
| (map(select(.type == "compare" and .vs == $floor)) | map({key: "\(.arm)@\(.rate_rps)", value: .}) | from_entries) as $cmp
| (. as $all | [($p[0].compare // [])[] as $q
    | ($all | map(select(.type == "compare" and .arm == $q[0] and .vs == $q[1])))
    | if length > 0 then .[] else {arm: $q[0], vs: $q[1], rate_rps: null, verdict: "not compared",
                                   reason: "no compare record of this pair"} end]) as $pairs
| (map(select(.type == "discard")) | length) as $ndis
| (map(select(.type == "knee_compare")) | map({key: .arm, value: .}) | from_entries) as $kc
| (map(select(.type == "slo"))[0].level // 0.95) as $lvl
| (map(select(.type == "knee_compare"))[0].vs // null) as $floor
| def ci(lo; hi; n): "[\(lo | r(n)), \(hi | r(n))]";
  def ge: if .bound == "lower" then ">= " else "" end;
[
  "headline: goodput@SLO per accelerator at the knee, \($lvl * 100 | round) % intervals\(if $floor then "; against the floor arm \($floor)" else "" end)",
  (map(select(.type == "knee")) | sort_by(.arm != $floor, .arm) | .[]
   | . as $k | ($kc[.arm] // null) as $c
   | "  \(.arm | pad(8)) "
     + (if .rate_rps == null then "none: no rung clears \(.target); the knee is below \(.bound_rate_rps) req/s"
        else "\(ge)\(.goodput_rps_per_accel | r(2)) \(ci(.goodput_per_accel_ci.lo; .goodput_per_accel_ci.hi; 2)) good req/s per accelerator at \(ge)\(.rate_rps) req/s"
          + (if .arm == $floor then " (the floor)"
             elif $c == null or $c.ratio == null then ""
             else ": \(if $c.bound == "lower" then ">= " elif $c.bound == "upper" then "<= " else "" end)\($c.ratio | r(2))x \(ci($c.ratio_ci.lo; $c.ratio_ci.hi; 2)) \($floor)'s, \($c.diff_goodput | if . >= 0 then "+" else "" end)\($c.diff_goodput | r(2)) \(ci($c.lo; $c.hi; 2)): \($c.verdict)" end)
          + (if .bound == "lower" then " (a lower bound: the top rung clears)" else "" end) end)),
  (map(select(.type == "rung_added")) | if length > 0 then
     "ladder grown: " + (map("\(.rate_rps) req/s \(.direction) (\(.reason))") | join("; ")) else empty end),
  (map(select(.type == "ladder_limit")) | .[] | "ladder limit \(.direction): \(.reason) (\(.arms | join(", ")))"),
  "",
  "SLO: TTFT \($slo.ttft_ms | r(1)) ms, TPOT \($slo.tpot_ms | r(2)) ms (\($slo.origin), x\($slo.multiple) the unloaded \($slo.baseline_stat // "") on the floor arm)",
  "",
  ([["arm", "req/s", "reps", "good", "cv", "stability", "vs floor", "TTFT p50", "TPOT p50"]] +
   (map(select(.type == "arm_summary")) | sort_by(.arm, .rate_rps) | map(
     "\(.arm)@\(.rate_rps)" as $k
     | [.arm, (.rate_rps | tostring), (.reps | tostring), (.mean_good_fraction | r(3)), (.cv | r(3)),
        ($st[$k].verdict // "-"), ($cmp[$k].verdict // (if .arm == $floor then "floor" else "-" end)),
        "\(.ttft_ms.p50.est | r(1)) ms", "\(.tpot_ms.p50.est | r(2)) ms"]))
   | columns),
  (if ($pairs | length) > 0 then
     "",
     "comparisons asked for (diff = good fraction of arm - of vs; TOST at the protocol's delta):",
     ([["arm", "vs", "req/s", "diff", "CI", "verdict", "TOST"]] +
      ($pairs | map(
        [.arm, .vs, (.rate_rps | r(3)), (.diff | r(3)),
         (if .lo == null then "n/a" else "[\(.lo | r(3)), \(.hi | r(3))]" end),
         (.verdict + (if .reason then ": " + .reason else "" end)),
         (if .verdict == "not compared" then "-" else (.tost | tost_text) end)]))
      | columns)
   else empty end),
  "",
  (map(select(.type == "knee")) | sort_by(.arm) | (map(.arm | length) | max // 0) as $aw | .[]
   | "knee \(.arm | pad($aw)) \(if .rate_rps == null then "none (no rung clears \(.target))\(if .advice then ": " + .advice else "" end)"
      else "\(.rate_rps) req/s (achieved \(.achieved_rps | r(2))): goodput@SLO \(.goodput_rps | r(2)) req/s, \(.goodput_rps_per_accel | r(2)) per accelerator" end)"
     + (if .monotone == false then " (non-monotone curve)" else "" end)),
  "",
  "discarded runs: \($ndis)",
  (map(select(.type == "verdict"))[0]
   | "verdict: \(if .publishable then "PUBLISHABLE" else "NOT PUBLISHABLE" end)"
     + "\n  answer: \(.answer // "-")"
     + (if (.reasons | length) > 0 then "\n  " + (.reasons | join("\n  ")) else "" end)
     + (if ((.footnotes // []) | length) > 0 then "\n  footnotes: " + (.footnotes | join("\n  ")) else "" end))
  ] | .[]
