/* SPDX-License-Identifier: MIT */
/*
 * t-model — gp-report's records (report/model.h): what is kept, what is
 * reduced or dropped, the queries, the achieved rate (arm_summary first,
 * else the run_end mean, tied to the run header when the trailer does not
 * name its arm), the palette and the number formats.
 */
#include <math.h>
#include <string.h>

#include "io/json.h"
#include "report/model.h"
#include "tap.h"

static void add(struct gp_records *m, const char *text, unsigned long line)
{
	json_t *o = json_loads(text, 0, NULL);

	if (!o || gp_records_add(m, o, gp_json_type(o), "in.ndjson", line))
		ok(0, "could not add line %lu", line);
}

int main(void)
{
	struct gp_records m = { 0 };
	const json_t *o;
	size_t i = 0;

	add(&m, "{\"type\":\"run\",\"run\":\"r1\",\"arm\":\"rr\",\"rate_rps\":4}", 1);
	add(&m, "{\"type\":\"request\",\"arm\":\"rr\",\"rate_rps\":4,\"ttft_ms\":10,\"tpot_ms\":null}", 2);
	add(&m, "{\"type\":\"request\",\"arm\":\"kv\",\"rate_rps\":4,\"ttft_ms\":12,\"tpot_ms\":3}", 3);
	add(&m, "{\"type\":\"metrics\",\"samples\":{}}", 4);
	add(&m, "{\"type\":\"run_end\",\"run\":\"r1\",\"achieved_rps\":3.8}", 5);
	add(&m, "{\"type\":\"run_end\",\"run\":\"r1\",\"achieved_rps\":4.2}", 6);
	add(&m, "{\"type\":\"arm_summary\",\"arm\":\"kv\",\"rate_rps\":4,\"achieved_rps\":3.9}", 7);
	add(&m, "{\"type\":\"knee\",\"arm\":\"zz\"}", 8);

	is_int(m.nq, 2, "two request records, reduced");
	is_int(m.requests, 2, "counted");
	ok(m.nq == 2 && isnan(m.q[0].tpot) && m.q[1].ttft == 12, "null is NaN, numbers kept");
	is_int(m.narms, 2, "their arms interned");
	is_int(m.nr, 5, "metrics dropped, the rest kept whole (run, 2 run_end, arm_summary, knee)");
	is_int(gp_records_count(&m, "run_end"), 2, "count_of");
	o = gp_records_next(&m, "run_end", &i);
	ok(o && gp_jnum(o, "achieved_rps") == 3.8, "next_of: the first");
	o = gp_records_next(&m, "run_end", &i);
	ok(o && gp_jnum(o, "achieved_rps") == 4.2, "then the second");
	ok(!gp_records_next(&m, "run_end", &i), "then none");
	ok(gp_jnum(gp_records_last(&m, "run_end"), "achieved_rps") == 4.2, "last_of");
	is_str(m.r[0].file, "in.ndjson", "the file kept");
	is_int(m.r[0].line, 1, "and the line");

	is_dbl(gp_records_achieved(&m, "rr", 4), 4.0, 1e-12,
	       "rr: the mean of its run_ends, tied to the run header (3.8, 4.2)");
	is_dbl(gp_records_achieved(&m, "kv", 4), 3.9, 0, "kv: the arm_summary's");
	ok(isnan(gp_records_achieved(&m, "rr", 8)), "no such rung: NaN");

	is_int(gp_records_palette(&m), 0, "the palette");
	is_int(m.npal, 3, "every arm named, once (kv, rr, zz)");
	is_int(gp_records_slot(&m, "kv"), 0, "sorted: kv first");
	is_int(gp_records_slot(&m, "zz"), 2, "zz third");
	is_int(gp_records_slot(&m, "none"), 0, "an unknown arm: 0");

	is_str(gp_g4(20000), "20000", "G4: 20000, not 2e+04");
	is_str(gp_g4(0.123456), "0.1235", "G4: 4 significant digits");
	is_str(gp_f3(0.5), "0.500", "F3");
	is_str(gp_ms(12.34), "12.3", "F1");
	is_str(gp_rfmt(GP_PCT, 0.25), "25% ", "PCT");
	is_str(gp_g4(NAN), "n/a", "NaN: n/a");
	ok(gp_same_rate(4, 4 + 1e-12) && !gp_same_rate(4, 4.001), "same_rate: 1e-9 relative");
	ok(gp_same_str(NULL, NULL) && !gp_same_str("a", NULL) && gp_same_str("a", "a"), "same_str");
	{
		json_t *c = json_loads("{\"endpoint\":\"http://b1\",\"backend\":\"b1\"}", 0, NULL);
		json_t *t = json_loads("{\"target\":\"http://b2\"}", 0, NULL);

		is_str(gp_endpoint_label(c), "b1 (http://b1)", "endpoint_label: name (endpoint)");
		is_str(gp_endpoint_of(t), "http://b2", "endpoint_of: target when no endpoint");
		json_decref(c);
		json_decref(t);
	}
	gp_records_release(&m);
	ok(m.r == NULL && m.nr == 0, "released");
	return done_testing();
}
