#!/usr/bin/python3
# gen-overdispersed.py — writes overdispersed.ndjson.gz, the honest campaign of
# the red-team suite (verify-redteam.test): one arm (rr) at 10 rps, 10 reps
# of 200 requests each, with everything a campaign records for a run: the
# gateway recreated in the arm (gateway record) 6 s before it, a health round
# taken for it (vip_chat, backend_models, health_summary with t_s) ending 4.6 s
# before, a good probe of the arm through the same VIP 2 s before, the run
# header (url, started_at), the requests, the run_end with every client field,
# and a health round taken for it beginning 1 s after its end.  The reps' good fractions
# differ by far more than their binomial noise (CV 9.7 %, design effect about
# 4.7 against the bound 3.1): a real fleet's run-to-run variance, which the
# method must publish with a footnote, not refuse.  Standard library only;
# with "-" it writes the NDJSON to stdout, which verify-redteam.test pipes
# into gp-verify (a .gz is not committed: *.gz is ignored).
import gzip
import json
import sys
from datetime import datetime, timezone

T0 = 1735689600  # 2025-01-01T00:00:00Z
VIP = "http://127.0.0.1:8080"
RATE, N = 10.0, 200
GOOD = [122, 158, 140, 129, 151, 162, 126, 144, 135, 153]  # good of 200 per rep


def ts(sec):
    return datetime.fromtimestamp(sec, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def health_round(at, rid):
    return [
        {"type": "health", "check": "vip_chat", "target": VIP, "ok": True, "at": ts(at), "for_run": rid},
        {"type": "health", "check": "backend_models", "target": "http://127.0.0.1:9001", "ok": True,
         "at": ts(at + 0.2), "for_run": rid},
        {"type": "health_summary", "ready": True, "at": ts(at + 0.4), "t_s": 0.4, "for_run": rid},
    ]


out = []
for rep in range(1, len(GOOD) + 1):
    rid = "rr-10-%d-od" % rep
    start = T0 + rep * 40
    out.append({"type": "gateway", "arm": "rr", "up_at": ts(start - 6), "pid": 100 + rep,
                "generation": "%d@%s" % (100 + rep, ts(start - 6))})
    out += health_round(start - 5, rid)
    out.append({"type": "probe", "run": "probe-" + rid, "for_run": rid, "arm": "rr", "vip": VIP,
                "expect": "spread", "concentration": 1.1, "mode_confirmed": True, "engaged": True,
                "requests": 64, "at": ts(start - 2)})
    out.append({"type": "run", "run": rid, "arm": "rr", "rep": rep, "rate_rps": RATE, "url": VIP,
                "started_at": ts(start), "deadline_s": 30, "schedule": "rescale"})
    for i in range(N):
        good = i < GOOD[rep - 1]
        ttft, tpot, out_t = (100.0 if good else 450.0), 10.0, 16
        out.append({"type": "request", "run": rid, "arm": "rr", "rep": rep, "rate_rps": RATE,
                    "id": "%s-%d" % (rid, i), "t_sched_s": i / RATE, "t_sent_s": i / RATE + 0.0002,
                    "ttft_ms": ttft, "tpot_ms": tpot, "e2e_ms": ttft + (out_t - 1) * tpot,
                    "out_tokens": out_t, "outcome": "ok", "error": None, "http_status": 200})
    out.append({"type": "run_end", "run": rid, "arm": "rr", "rep": rep, "rate_rps": RATE,
                "attempted": N, "ok": N, "single_token": 0, "failed": 0, "by_error": {},
                "invalid_framing": 0, "ended_at": ts(start + N / RATE + 1),
                "client_behind": False, "capped_sends": 0, "interrupted": False,
                "lateness_p99_ms": 0.2, "lateness_max_ms": 0.9, "achieved_rps": RATE})
    out += health_round(start + N / RATE + 2, rid)
if sys.argv[1:] == ["-"]:
    f = sys.stdout
else:
    f = gzip.open("overdispersed.ndjson.gz", "wt")
for r in out:
    f.write(json.dumps(r, separators=(",", ":")) + "\n")
f.close()
