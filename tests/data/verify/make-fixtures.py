#!/usr/bin/python3
# make-fixtures.py — writes the hand-built inputs of the gp-verify tests
# (t5000-t5099).  Run with Debian's /usr/bin/python3 (it needs numpy and
# scipy); the outputs are committed, so the tests never run this.
#
#   runs.ndjson      what gp-replay, gp-health and a metrics scraper would write:
#                    2 arms (rr, cache) x rate 4 rps x 5 reps x 40 requests, run
#                    headers and trailers, a health round (Phase 0) 5 s before every
#                    run and one after the last (run k spans T0+60k .. T0+60k+50 s), and
#                    before/after metrics snapshots of the gateway and 2 backends,
#                    and a probe_sample and probe record per arm (gp-probe)
#   analysis.ndjson  what gp-analyze would write for runs.ndjson: slo, goodfrac,
#                    arm_summary (pooled BCa interval by scipy.stats.bootstrap,
#                    cluster t-interval by scipy.stats.t), noise_floor
#   fleet.json       the fleet file (doc/records.md) of that campaign
#
# The counts are computed here, independently of gp-analyze and of share/awk.
import json, math, random
import numpy as np
from scipy import stats

SLO_TTFT, SLO_TPOT = 300.0, 35.0
RATE, REPS, N = 4.0, 5, 40
rng = random.Random(20250101)
T0 = 1735689600  # 2025-01-01T00:00:00Z


def ts(sec):
    from datetime import datetime, timezone
    return datetime.fromtimestamp(sec, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def dump(f, rec):
    f.write(json.dumps(rec, separators=(",", ":")) + "\n")


runs, analysis = [], []
health = []


def health_round(at, vip_ok=True, be_ok=True):
    return [
        {"type": "health", "check": "vip_chat", "target": "http://127.0.0.1:8080", "ok": vip_ok, "http_status": 200 if vip_ok else 503, "at": ts(at)},
        {"type": "health", "check": "backend_models", "target": "http://127.0.0.1:9001", "ok": be_ok, "at": ts(at + 0.2)},
        {"type": "health", "check": "backend_models", "target": "http://127.0.0.1:9002", "ok": True, "at": ts(at + 0.3)},
        {"type": "health_summary", "ready": vip_ok and be_ok, "at": ts(at + 0.4)},
    ]


out = []
cells = {}
counters = {"hits": 1000.0, "miss": 50.0, "vh": 5000.0, "vq": 9000.0}
run_no = 0
for arm in ("rr", "cache"):
    # Phase 2 (gp-probe, doc/records.md): the mode confirmed and engaged.
    expect = "spread" if arm == "rr" else "concentrate"
    out.append({"type": "probe_sample", "arm": arm, "t_s": 1.0,
                "inflight": {"b1": 3, "b2": 3} if arm == "rr" else {"b1": 6, "b2": 0},
                "peak_to_mean": 1.0 if arm == "rr" else 2.0})
    for rep in range(1, REPS + 1):
        run_no += 1
        rid = "%s-r%d" % (arm, rep)
        start = T0 + run_no * 60
        out.append({"type": "gateway", "arm": arm, "up_at": ts(start - 6), "pid": 1000 + run_no,
                    "generation": "%d@%s" % (1000 + run_no, ts(start - 6))})
        out += health_round(start - 5)
        out.append({"type": "probe", "run": "probe-" + rid, "for_run": rid, "arm": arm,
                    "vip": "http://127.0.0.1:8080", "expect": expect,
                    "concentration": 1.0 if arm == "rr" else 2.0,
                    "mode_evidence": "balance roundrobin" if arm == "rr" else "balance hdr(x-gp-cache-key)",
                    "mode_confirmed": True, "engaged": True, "requests": 64, "at": ts(start - 2)})
        out.append({"type": "run", "run": rid, "arm": arm, "rep": rep, "rate_rps": RATE,
                    "url": "http://127.0.0.1:8080", "started_at": ts(start), "deadline_s": 30,
                    "seed": rep, "schedule": "rescale"})
        snap = lambda phase, t: [
            {"type": "metrics", "target": "http://127.0.0.1:8081/metrics", "t_s": t, "at": ts(start + t),
             "run": rid, "arm": arm, "phase": phase,
             "samples": {"gw_cache_hits_total{mode=\"%s\"}" % arm: counters["hits"],
                         "gw_cache_miss_total{reason=\"no_key\"}": counters["miss"],
                         "haproxy_up": 1}},
            {"type": "metrics", "target": "http://127.0.0.1:9001/metrics", "t_s": t, "at": ts(start + t),
             "run": rid, "arm": arm, "phase": phase,
             "samples": {"vllm:prefix_cache_hits_total{model_name=\"m\"}": counters["vh"],
                         "vllm:prefix_cache_queries_total{model_name=\"m\"}": counters["vq"]}},
        ]
        out += snap("before", 0.0)
        good = paired = single = failed = 0
        goods = []
        ok_n = 0
        for i in range(N):
            u = rng.random()
            rec = {"type": "request", "run": rid, "arm": arm, "rep": rep, "rate_rps": RATE,
                   "id": "%s-%d" % (rid, i), "t_sched_s": round(i / RATE, 3),
                   "t_sent_s": round(i / RATE + 0.0004, 4), "in_tokens": rng.randint(100, 900),
                   "backend": "b%d" % (1 + i % 2), "receipt": None}
            if u < 0.05:
                rec.update(ttft_ms=None, tpot_ms=None, e2e_ms=round(rng.uniform(5, 50), 3),
                           out_tokens=0, tokens_from="chunks", outcome="failed",
                           error="http_status" if u < 0.03 else "reset",
                           http_status=500 if u < 0.03 else 200)
                failed += 1
                g = 0
            elif u < 0.10:
                ttft = round(rng.uniform(40, 320), 3)
                rec.update(ttft_ms=ttft, tpot_ms=None, e2e_ms=round(ttft + 0.2, 3), out_tokens=1,
                           tokens_from="usage", outcome="single_token", error=None, http_status=200)
                single += 1
                g = 1 if ttft <= SLO_TTFT else 0
            else:
                ttft = round(rng.uniform(40, 330), 3)
                tpot = round(rng.uniform(8, 37), 3)
                out_t = rng.randint(2, 64)
                rec.update(ttft_ms=ttft, tpot_ms=tpot, e2e_ms=round(ttft + (out_t - 1) * tpot, 3),
                           out_tokens=out_t, tokens_from="usage", outcome="ok", error=None,
                           http_status=200)
                paired += 1
                g = 1 if (ttft <= SLO_TTFT and tpot <= SLO_TPOT) else 0
            if rec["outcome"] != "failed" and arm == "cache":
                rec["receipt"] = "prefill=b1;decode=b2"
            if rec["outcome"] != "failed":
                ok_n += 1
            good += g
            goods.append(g)
            out.append(rec)
        if arm == "cache":
            counters["hits"] += 30 + rep
            counters["miss"] += 2
            counters["vh"] += 4000
        counters["vq"] += 6000
        out += snap("after", N / RATE + 1)
        out.append({"type": "run_end", "run": rid, "arm": arm, "rep": rep, "rate_rps": RATE,
                    "attempted": N, "ok": paired, "single_token": single, "failed": failed,
                    "by_error": {"http_status": sum(1 for r in out if r.get("run") == rid and r.get("error") == "http_status"),
                                 "reset": sum(1 for r in out if r.get("run") == rid and r.get("error") == "reset")},
                    "invalid_framing": 0, "ended_at": ts(start + 50),
                    # the client held its schedule: achieved within 1 % of the label
                    "client_behind": False, "capped_sends": 0, "interrupted": False,
                    "lateness_p99_ms": 0.2, "lateness_max_ms": 1.5,
                    "achieved_rps": round(RATE * (1 + 0.002 * rep), 6)})
        cells.setdefault(arm, []).append(goods)
        analysis.append({"type": "goodfrac", "arm": arm, "rate_rps": RATE, "rep": rep,
                         "attempted": N, "good": good, "paired": paired, "single_token": single,
                         "failed": failed, "good_fraction": good / N})
out += health_round(T0 + (run_no + 1) * 60 - 5)

with open("runs.ndjson", "w") as f:
    for r in out:
        dump(f, r)

head = [{"type": "slo", "ttft_ms": SLO_TTFT, "tpot_ms": SLO_TPOT, "origin": "fixed",
         "single_token": "ttft"}]
for arm, reps in cells.items():
    fr = np.array([sum(g) / len(g) for g in reps])
    mean, sd = fr.mean(), fr.std(ddof=1)
    cv = sd / mean
    assert cv <= 0.10, (arm, cv)
    tq = stats.t.ppf(0.975, len(fr) - 1)
    pooled = np.array(sum(reps, []), dtype=float)
    b = stats.bootstrap((pooled,), np.mean, method="BCa", n_resamples=4000, confidence_level=0.95,
                        random_state=np.random.default_rng(7))
    head.append({"type": "arm_summary", "arm": arm, "rate_rps": RATE, "reps": len(fr),
                 "mean_good_fraction": mean, "cv": cv,
                 "good_fraction_ci": {"est": mean, "lo": mean - tq * sd / math.sqrt(len(fr)),
                                      "hi": mean + tq * sd / math.sqrt(len(fr)), "level": 0.95,
                                      "method": "cluster"},
                 "good_fraction_pooled": {"est": pooled.mean(), "lo": b.confidence_interval.low,
                                          "hi": b.confidence_interval.high, "level": 0.95,
                                          "method": "bca"}})
    if arm == "rr":
        hw = tq * sd / math.sqrt(len(fr))
        head.append({"type": "noise_floor", "arm": "rr", "rate_rps": RATE, "reps": len(fr),
                     "mean": mean, "half_width": hw, "lo": mean - hw, "hi": mean + hw})
with open("analysis.ndjson", "w") as f:
    for r in head + analysis:
        dump(f, r)

fleet = {
    "model": "m", "context_length": 8192,
    "vips": [{"name": "vip", "url": "http://127.0.0.1:8080"}],
    "backends": [{"name": "b1", "url": "http://127.0.0.1:9001", "metrics_url": "http://127.0.0.1:9001/metrics", "role": "both", "accelerators": 1},
                 {"name": "b2", "url": "http://127.0.0.1:9002", "metrics_url": "http://127.0.0.1:9002/metrics", "role": "both", "accelerators": 1}],
    "inflight_metrics": ["vllm:num_requests_running", "vllm:num_requests_waiting"],
    "key_header": "x-gp-cache-key", "receipt_header": None,
    "gateway": {"metrics_url": "http://127.0.0.1:8081/metrics",
                "cache_hit_metric": "gw_cache_hits_total", "miss_metric": "gw_cache_miss_total"},
    "arms": [{"name": "rr", "expect": "spread", "routes_by_cache": False, "up_cmd": "true"},
             {"name": "cache", "expect": "concentrate", "routes_by_cache": True, "disaggregated": True,
              "up_cmd": "true"}],
}
with open("fleet.json", "w") as f:
    json.dump(fleet, f, indent=2)
    f.write("\n")
