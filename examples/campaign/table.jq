# table.jq — the campaign's verdict table from its records (jq -r -s over
# all.ndjson.gz): one line per arm and rung, then the knees, the verdict and
# what it answers.
# Every figure printed is a field of a record of this run.
def r(n): if . == null then "-" else (. * pow(10; n) | round / pow(10; n) | tostring) end;
def pad(n): tostring | if length < n then . + (" " * (n - length)) else . end;
(map(select(.type == "slo"))[0]) as $slo
| (map(select(.type == "stability")) | map({key: "\(.arm)@\(.rate_rps)", value: .}) | from_entries) as $st
| (map(select(.type == "compare")) | map({key: "\(.arm)@\(.rate_rps)", value: .}) | from_entries) as $cmp
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
  ("arm" | pad(9)) + ("req/s" | pad(7)) + ("reps" | pad(5)) + ("good" | pad(7)) + ("cv" | pad(7))
    + ("stability" | pad(26)) + ("vs floor" | pad(18)) + ("TTFT p50" | pad(10)) + "TPOT p50",
  (map(select(.type == "arm_summary")) | sort_by(.arm, .rate_rps) | .[]
   | "\(.arm)@\(.rate_rps)" as $k
   | (.arm | pad(9)) + (.rate_rps | tostring | pad(7)) + (.reps | tostring | pad(5))
     + (.mean_good_fraction | r(3) | pad(7)) + (.cv | r(3) | pad(7))
     + (($st[$k].verdict // "-") | pad(26))
     + (($cmp[$k].verdict // "floor") | pad(18))
     + ("\(.ttft_ms.p50.est | r(1)) ms" | pad(10)) + "\(.tpot_ms.p50.est | r(2)) ms"),
  "",
  (map(select(.type == "knee")) | sort_by(.arm) | .[]
   | "knee \(.arm | pad(8)) \(if .rate_rps == null then "none (no rung clears \(.target))\(if .advice then ": " + .advice else "" end)"
      else "\(.rate_rps) req/s (achieved \(.achieved_rps | r(2))): goodput@SLO \(.goodput_rps | r(2)) req/s, \(.goodput_rps_per_accel | r(2)) per accelerator" end)"),
  "",
  "discarded runs: \($ndis)",
  (map(select(.type == "verdict"))[0]
   | "verdict: \(if .publishable then "PUBLISHABLE" else "NOT PUBLISHABLE" end)"
     + "\n  answer: \(.answer // "-")"
     + (if (.reasons | length) > 0 then "\n  " + (.reasons | join("\n  ")) else "" end)
     + (if ((.footnotes // []) | length) > 0 then "\n  footnotes: " + (.footnotes | join("\n  ")) else "" end))
  ] | .[]
