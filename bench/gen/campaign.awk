# camp.awk — a synthetic campaign: arms x rates x reps runs of per requests each
BEGIN {
	srand(777)
	for (a = 1; a <= arms; a++) for (q = 1; q <= rates; q++) for (rep = 1; rep <= reps; rep++) {
		arm = "arm" a; rate = 2 * q; run = arm "-" rate "-" rep
		printf "{\"type\":\"run\",\"run\":\"%s\",\"arm\":\"%s\",\"rep\":%d,\"rate_rps\":%d,\"started_at\":\"2025-01-01T00:00:00Z\",\"deadline_s\":60}\n", run, arm, rep, rate
		ok = single = failed = 0
		for (i = 0; i < per; i++) {
			u = rand(); ts = i / rate
			if (u < 0.03) {
				failed++
				printf "{\"type\":\"request\",\"run\":\"%s\",\"arm\":\"%s\",\"rep\":%d,\"rate_rps\":%d,\"id\":\"%d\",\"t_sent_s\":%.3f,\"ttft_ms\":null,\"tpot_ms\":null,\"e2e_ms\":12.5,\"out_tokens\":0,\"outcome\":\"failed\",\"error\":\"reset\",\"http_status\":200}\n", run, arm, rep, rate, i, ts
			} else if (u < 0.05) {
				single++; t = 50 + 300 * rand()
				printf "{\"type\":\"request\",\"run\":\"%s\",\"arm\":\"%s\",\"rep\":%d,\"rate_rps\":%d,\"id\":\"%d\",\"t_sent_s\":%.3f,\"ttft_ms\":%.3f,\"tpot_ms\":null,\"e2e_ms\":%.3f,\"out_tokens\":1,\"outcome\":\"single_token\",\"error\":null,\"http_status\":200}\n", run, arm, rep, rate, i, ts, t, t + 0.1
			} else {
				ok++; t = 50 + 300 * rand(); p = 10 + 30 * rand(); o = 2 + int(100 * rand())
				printf "{\"type\":\"request\",\"run\":\"%s\",\"arm\":\"%s\",\"rep\":%d,\"rate_rps\":%d,\"id\":\"%d\",\"t_sent_s\":%.3f,\"ttft_ms\":%.3f,\"tpot_ms\":%.4f,\"e2e_ms\":%.3f,\"out_tokens\":%d,\"outcome\":\"ok\",\"error\":null,\"http_status\":200}\n", run, arm, rep, rate, i, ts, t, p, t + (o - 1) * p, o
			}
		}
		printf "{\"type\":\"run_end\",\"run\":\"%s\",\"arm\":\"%s\",\"rep\":%d,\"rate_rps\":%d,\"attempted\":%d,\"ok\":%d,\"single_token\":%d,\"failed\":%d,\"by_error\":{\"reset\":%d},\"invalid_framing\":0,\"duration_s\":%.3f,\"ended_at\":\"2025-01-01T00:50:00Z\"}\n", run, arm, rep, rate, per, ok, single, failed, failed, per / rate
	}
}
