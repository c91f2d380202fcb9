# decide.jq — the tuning loop's decision (method §10 step 3) from the
# candidates' summaries (jq -r -s over OUT/sweep/candidates.ndjson, with
# --arg var SWEEP_VAR): one line per candidate, then the decision.
#
# A value qualifies only by the gate:
#   win     its verdict is PUBLISHABLE and the arm WINs over the floor at some
#           rung and LOSEs at none (a knob that wins at one rate and loses at
#           another is not a change to make);
#   parity  its verdict is PUBLISHABLE and the arm is EQUIVALENT (a trusted
#           TOST) to the comparator (SWEEP_VS) at every rung.
# A disqualified candidate (its probe failed: the knob does not do what the
# arm claims) never qualifies; its reason is printed.  Among the qualified:
# the wins first (most WINs, then the higher knee), then parity (the higher
# knee).  None qualifying means no change.
def knee: (.knee_rps // "none") | tostring;
def line:
  if .disqualified then "\($var)=\(.value): disqualified: \(.reason)"
  else "\($var)=\(.value): \(if .publishable then "PUBLISHABLE" else "NOT PUBLISHABLE" end), "
       + "\(.wins) WIN, \(.losses) LOSS vs the floor"
       + (if .vs then ", \(.equivalent) of \(.rungs) rungs EQUIVALENT to \(.vs)" else "" end)
       + ", knee \(knee)" end;
def qual:
  if .disqualified or (.publishable | not) then null
  elif .wins > 0 and .losses == 0 then "win"
  elif .vs and .rungs > 0 and .equivalent == .rungs then "parity"
  else null end;
(.[] | line),
(map(. + {q: qual}) | map(select(.q != null)) as $ok
 | (($ok | map(select(.q == "win")) | sort_by(.wins, (.knee_rps // 0)) | last) //
    ($ok | map(select(.q == "parity")) | sort_by(.knee_rps // 0) | last)) as $best
 | if $best == null then
     "decision: no value earns a change (none is a publishable WIN over the floor"
     + (if any(.[]; .vs) then " or a publishable TOST parity with the comparator" else "" end) + ")"
   elif $best.q == "win" then
     "decision: \($var)=\($best.value) (a publishable WIN over the floor at \($best.wins) rung(s), no LOSS)"
   else
     "decision: \($var)=\($best.value) (publishable, EQUIVALENT to \($best.vs) at every rung: parity)"
   end)
