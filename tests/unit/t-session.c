/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of sessions: the trace record's session fields and the
 * trace-wide check (turns in order, no gap, one session per id), and
 * session.h — the ready heap, the failed-turn policy both ways, and the
 * history prompt (turn k's prompt starts with turn k-1's prompt and its
 * answer, word for word, so a prefix cache sees the shared prefix; a failed
 * turn is left out).  Out of memory, made cheap through jansson's
 * allocator hooks: each of the three modules returns its error (errno
 * ENOMEM) and what it holds is released without a leak (LeakSanitizer).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "method/session.h"
#include "method/turns.h"
#include "wire/trace.h"
#include "tap.h"

static int parse(struct gp_trace_rec *r, const char *js, char *err, size_t errlen)
{
	json_t *o = json_loads(js, 0, NULL);
	int rc;

	if (!o)
		return 99;
	rc = gp_trace_parse(r, o, err, errlen);
	json_decref(o);		/* strings borrowed from o: read r only for numbers after */
	return rc;
}

static void parse_err(const char *js, const char *want)
{
	struct gp_trace_rec r;
	char err[160] = "";
	int rc;

	gp_trace_init(&r);
	rc = parse(&r, js, err, sizeof(err));
	ok(rc == -1 && !strcmp(err, want), "reject %s", js);
	if (rc != -1 || strcmp(err, want))
		diag("   rc %d err '%s', want '%s'", rc, err, want);
	gp_trace_release(&r);
}

#define REC "\"id\":\"a\",\"t_s\":1,\"input_tokens\":3,\"output_tokens\":2"

static void test_fields(void)
{
	struct gp_trace_rec r;
	char err[160];
	json_t *o = json_loads("{" REC ",\"session\":\"c1\",\"turn\":2,\"think_s\":1.5}", 0, NULL);

	gp_trace_init(&r);
	is_int(gp_trace_parse(&r, o, err, sizeof(err)), 0, "a session turn parses");
	is_str(r.session, "c1", "session");
	is_int(r.turn, 2, "turn");
	is_dbl(r.think_s, 1.5, 0, "think_s");
	gp_trace_release(&r);
	json_decref(o);
	o = json_loads("{" REC ",\"session\":\"c1\",\"turn\":1}", 0, NULL);
	is_int(gp_trace_parse(&r, o, err, sizeof(err)), 0, "turn 1 without think_s");
	is_dbl(r.think_s, 0, 0, "... thinks 0 s");
	json_decref(o);
	o = json_loads("{" REC "}", 0, NULL);
	is_int(gp_trace_parse(&r, o, err, sizeof(err)), 0, "no session");
	ok(r.session == NULL && r.turn == 0, "... session NULL, turn 0");
	json_decref(o);
	gp_trace_release(&r);

	parse_err("{" REC ",\"session\":\"c1\"}", "field 'turn' is missing");
	parse_err("{" REC ",\"session\":\"\",\"turn\":1}", "field 'session' is empty");
	parse_err("{" REC ",\"session\":3,\"turn\":1}", "field 'session' is not a string");
	parse_err("{" REC ",\"turn\":1}", "field 'turn' needs field 'session'");
	parse_err("{" REC ",\"think_s\":1}", "field 'think_s' needs field 'session'");
	parse_err("{" REC ",\"session\":\"c\",\"turn\":0}", "field 'turn' must be >= 1");
	parse_err("{" REC ",\"session\":\"c\",\"turn\":2,\"think_s\":-1}", "field 'think_s' must be >= 0");
	parse_err("{" REC ",\"session\":\"c\",\"turn\":2,\"think_s\":\"x\"}", "field 'think_s' is not a number");
	parse_err("{" REC ",\"session\":\"c\",\"turn\":1,\"think_s\":2}",
		  "field 'think_s' must be 0 on turn 1 (its t_s is the start)");
}

/* Feed (session, turn) pairs to a check; the index of the first refused, or -1. */
static int check_seq(const char *const *sess, const long *turn, int n, char *err, size_t errlen)
{
	struct gp_trace_check c;
	struct gp_trace_rec r;
	int bad = -1;

	gp_trace_check_init(&c);
	for (int i = 0; i < n && bad < 0; i++) {
		gp_trace_init(&r);
		r.id = "x";
		r.session = sess[i];
		r.turn = turn[i];
		if (gp_trace_check_rec(&c, &r, err, errlen))
			bad = i;
	}
	if (bad < 0)
		ok(c.nsessions == 2 && c.nturns == (unsigned long)n - 1 && c.max_turn == 3,
		   "counts: 2 sessions, %d turns, longest 3", n - 1);
	gp_trace_check_release(&c);
	return bad;
}

static void test_check(void)
{
	const char *s[] = { "a", "b", NULL, "a", "b", "a" };
	long good[] = { 1, 1, 0, 2, 2, 3 };
	long gap[] = { 1, 1, 0, 3, 2, 3 };
	long again[] = { 1, 1, 0, 2, 1, 3 };
	long late[] = { 2, 1, 0, 2, 2, 3 };
	char err[200];

	is_int(check_seq(s, good, 6, err, sizeof(err)), -1, "interleaved sessions in order pass");
	is_int(check_seq(s, gap, 6, err, sizeof(err)), 3, "a missing turn is refused");
	ok(strstr(err, "a turn is missing") != NULL, "... saying so: %s", err);
	is_int(check_seq(s, again, 6, err, sizeof(err)), 4, "turn 1 again: a second session with the id");
	ok(strstr(err, "a session id names one session") != NULL, "... saying so: %s", err);
	is_int(check_seq(s, late, 6, err, sizeof(err)), 0, "a session that starts at turn 2");
	ok(strstr(err, "must be turn 1") != NULL, "... saying so: %s", err);
}

/* A session "c" of n synthesized turns (in_tokens 8 + j, out 4). */
static struct gp_session *mk(struct gp_sessions *ss, const char *name, int n, double think)
{
	struct gp_session *s = NULL;
	char id[32];

	for (int j = 1; j <= n; j++) {
		struct gp_trace_rec r;

		gp_trace_init(&r);
		snprintf(id, sizeof(id), "%s-%d", name, j);
		r.id = id;
		r.session = name;
		r.turn = j;
		r.think_s = j > 1 ? think : 0;
		r.input_tokens = 8 + j;
		r.output_tokens = 4;
		s = gp_sessions_add(ss, &r, (unsigned long)j);
	}
	return s;
}

static long words(const char *s, size_t n)
{
	long w = 0;
	int in = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == ' ' || s[i] == '\n') {
			in = 0;
		} else if (!in) {
			in = 1;
			w++;
		}
	}
	return w;
}

static void test_prompt(void)
{
	struct gp_sessions ss;
	struct gp_session *s;
	struct gp_buf p1 = { 0 }, p2 = { 0 }, p3 = { 0 }, one = { 0 };
	int64_t ready = 0;
	long n;

	gp_sessions_init(&ss, GP_SESS_CONTINUE);
	s = mk(&ss, "c", 3, 0.5);
	is_int(gp_sessions_count(&ss), 1, "one session");
	ok(gp_sessions_get(&ss, "c") == s && !gp_sessions_get(&ss, "d"), "found by name");
	is_int(s->nturns, 3, "three turns");

	n = gp_session_prompt(s, 1, 16, &p1);
	is_int(n, 9, "turn 1: its message alone, 9 tokens");
	is_int(words(p1.p, p1.len), 9, "... 9 words");
	gp_trace_synth_prompt(NULL, 0, 9, NULL, 0, 16, "c-1");
	if (!gp_buf_reserve(&one, 64)) {
		one.len = gp_trace_synth_prompt(one.p, 64, 9, NULL, 0, 16, "c-1");
		ok(one.len == p1.len && !memcmp(one.p, p1.p, p1.len),
		   "... the same words a lone record of that id gets");
	}

	s->next = 1;
	is_int(gp_session_done(&ss, s, 1, 4, 1000, &ready), GP_SESS_READY, "turn 1 ok: turn 2 is ready");
	is_int(ready, 1000 + 500000000, "... think_s after turn 1 ended");
	n = gp_session_prompt(s, 2, 16, &p2);
	is_int(n, 9 + 4 + 10, "turn 2: message 1, answer 1 (4 received), message 2");
	is_int(words(p2.p, p2.len), 23, "... 23 words");
	ok(p2.len > p1.len && !memcmp(p2.p, p1.p, p1.len) && p2.p[p1.len] == ' ',
	   "turn 2's prompt starts with turn 1's, word for word");

	s->next = 2;
	is_int(gp_session_done(&ss, s, 0, -1, 2000, &ready), GP_SESS_READY,
	       "continue: a failed turn 2 still lets turn 3 go");
	n = gp_session_prompt(s, 3, 16, &p3);
	is_int(n, 9 + 4 + 11, "turn 3 leaves the failed turn 2 out");
	ok(p3.len > p1.len && !memcmp(p3.p, p2.p, p1.len), "... and keeps turn 1 and its answer");
	ok(p3.len < p2.len + 11 * 5, "... shorter than with turn 2 in it");

	{
		long t = 0;
		json_t *m = gp_session_messages(s, 3, 16, &t);
		char *d;

		ok(m && json_array_size(m) == 3, "chat: user, assistant, user (failed turn out)");
		is_int(t, n, "... the same token count");
		is_str(json_string_value(json_object_get(json_array_get(m, 1), "role")), "assistant",
		       "... the answer is the assistant's");
		d = json_dumps(json_array_get(m, 0), JSON_COMPACT);
		ok(d && strstr(d, "\"role\":\"user\""), "... the first is the user's");
		free(d);
		is_str(json_string_value(json_object_get(json_array_get(m, 0), "content")),
		       one.p, "... turn 1's message as text");
		json_decref(m);
	}
	s->next = 3;
	is_int(gp_session_done(&ss, s, 1, 4, 3000, &ready), GP_SESS_END, "after the last turn: end");
	ok(gp_sessions_bytes(&ss) > 3 * sizeof(struct gp_sess_turn), "bytes held counted");
	gp_buf_release(&p1);
	gp_buf_release(&p2);
	gp_buf_release(&p3);
	gp_buf_release(&one);
	gp_sessions_release(&ss);
}

static void test_abandon(void)
{
	struct gp_sessions ss;
	struct gp_session *s;
	int64_t ready = -7;

	gp_sessions_init(&ss, GP_SESS_ABANDON);
	s = mk(&ss, "a", 4, 1);
	s->next = 2;
	is_int(gp_session_done(&ss, s, 0, -1, 10, &ready), GP_SESS_ABANDONED,
	       "abandon: a failed turn 2 gives the session up");
	is_int(ready, -7, "... no ready time");
	gp_session_give_up(s);
	is_int(s->next, 4, "... every turn accounted for");
	s = mk(&ss, "b", 2, 1);
	s->next = 1;
	is_int(gp_session_done(&ss, s, 1, 3, 10, &ready), GP_SESS_READY, "abandon: an ok turn goes on");
	s->next = 2;
	is_int(gp_session_done(&ss, s, 0, -1, 10, &ready), GP_SESS_END,
	       "a failed last turn leaves nothing to abandon");
	gp_sessions_release(&ss);

	{
		enum gp_sess_policy p;

		ok(!gp_sess_policy_parse("abandon", &p) && p == GP_SESS_ABANDON, "parse abandon");
		ok(!gp_sess_policy_parse("continue", &p) && p == GP_SESS_CONTINUE, "parse continue");
		ok(gp_sess_policy_parse("retry", &p) == -1, "refuse retry");
	}
}

/* A real turn (its record's prompt): the answer received is resent as is. */
static void test_real_answer(void)
{
	struct gp_sessions ss;
	struct gp_session *s = NULL;
	struct gp_buf b = { 0 };
	int64_t ready;
	const char *prompts[] = { "what is a cache", "and a prefix" };

	gp_sessions_init(&ss, GP_SESS_CONTINUE);
	for (int j = 1; j <= 2; j++) {
		struct gp_trace_rec r;
		char id[8];

		gp_trace_init(&r);
		snprintf(id, sizeof(id), "r-%d", j);
		r.id = id;
		r.session = "r";
		r.turn = j;
		r.input_tokens = 3;
		r.output_tokens = 4;
		r.prompt = prompts[j - 1];
		s = gp_sessions_add(&ss, &r, (unsigned long)j);
	}
	ok(gp_session_real(s, 1) && gp_session_real(s, 2) && !gp_session_real(s, 3), "turns with a prompt are real");
	s->next = 1;
	gp_session_keep_answer(s, "a store of KV", 13);
	is_int(gp_session_done(&ss, s, 1, 4, 0, &ready), GP_SESS_READY, "turn 1 ok");
	gp_session_prompt(s, 2, 16, &b);
	is_str(b.p, "what is a cache a store of KV and a prefix", "turn 2 = prompt 1, the answer received, prompt 2");
	{
		json_t *m = gp_session_messages(s, 2, 16, NULL);

		is_str(json_string_value(json_object_get(json_array_get(m, 1), "content")), "a store of KV",
		       "chat: the assistant message is the text received");
		json_decref(m);
	}
	gp_buf_release(&b);
	gp_sessions_release(&ss);
}

static void test_heap(void)
{
	struct gp_sessions ss;
	struct gp_session *v[200];
	char name[16];
	int64_t last = -1;
	int sorted = 1, n = 0;
	unsigned long long x = 88172645463325252ULL;

	gp_sessions_init(&ss, GP_SESS_CONTINUE);
	for (int i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		v[i] = mk(&ss, name, 2, 0);
		v[i]->next = 1;
	}
	for (int i = 0; i < 200; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;	/* xorshift64 */
		gp_sessions_push(&ss, v[i], (int64_t)(x % 50));	/* many ties */
	}
	is_int(ss.nheap, 200, "200 ready");
	ok(gp_sessions_top(&ss) != NULL, "a top");
	for (struct gp_session *s; (s = gp_sessions_pop(&ss)); n++) {
		if (s->ready_ns < last)
			sorted = 0;
		last = s->ready_ns;
		if (s->heap_i != GP_SESS_NOHEAP)
			sorted = 0;
	}
	ok(sorted && n == 200, "popped in ready order, all 200, out of the heap");
	ok(gp_sessions_top(&ss) == NULL && gp_sessions_pop(&ss) == NULL, "empty after");
	gp_sessions_release(&ss);
}

/* jansson's allocations after the first fail_at ones fail (-1: none). */
static long fail_at = -1, nalloc;

static void *failing_malloc(size_t n)
{
	if (nalloc++ >= fail_at && fail_at >= 0)
		return NULL;
	return malloc(n);
}

/*
 * One pass over the session modules with jansson's allocation fail_at
 * failing: three records of two sessions through the trace check, the
 * session set, a chat history, and the by-turn breakdown with a merge.
 * Each call either works or returns its out-of-memory value with errno
 * ENOMEM; *nomem counts those.  Everything is released.  0, or the number
 * of calls that did neither.
 */
static int nomem_pass(long at, int *nomem)
{
	static const char *const sess[] = { "a", "b", "a" };
	static const long turn[] = { 1, 1, 2 };
	struct gp_slo slo = { .ttft_ms = 100, .tpot_ms = 50 };
	struct gp_trace_check c;
	struct gp_sessions ss;
	struct gp_turns t, all;
	struct gp_session *s = NULL;
	char err[100], id[8];
	int bad = 0, e;
	json_t *m;

	gp_trace_check_init(&c);
	gp_sessions_init(&ss, GP_SESS_CONTINUE);
	gp_turns_init(&t);
	gp_turns_init(&all);
	fail_at = at;
	nalloc = 0;
	*nomem = 0;
	for (int i = 0; i < 3; i++) {
		struct gp_trace_rec r;

		gp_trace_init(&r);
		snprintf(id, sizeof(id), "r%d", i);
		r.id = id;
		r.session = sess[i];
		r.turn = turn[i];
		r.input_tokens = 8;
		r.output_tokens = 4;
		snprintf(err, sizeof(err), "untouched");
		errno = 0;
		e = gp_trace_check_rec(&c, &r, err, sizeof(err));
		if (e == -2 && errno == ENOMEM && !strcmp(err, "untouched")) {
			long was = fail_at;

			++*nomem;	/* the record was not counted: it passes again */
			fail_at = -1;
			bad += gp_trace_check_rec(&c, &r, err, sizeof(err)) != 0;
			fail_at = was;
		} else if (e) {
			bad++;
		}
		errno = 0;
		if ((s = gp_sessions_add(&ss, &r, (unsigned long)i)))
			s->next = s->nturns;
		else if (errno == ENOMEM)
			++*nomem;
		else
			bad++;
		errno = 0;
		e = gp_turns_add(&t, &slo, sess[i], turn[i], GP_OUTCOME_OK, 10, 5);
		if (e == -1 && errno == ENOMEM)
			++*nomem;
		else if (e)
			bad++;
	}
	s = gp_sessions_get(&ss, "a");
	if (s && s->nturns == 2) {
		s->turn[0].got_out = 4;
		errno = 0;
		if ((m = gp_session_messages(s, 2, 16, NULL)))
			bad += json_array_size(m) != 3;
		else if (errno == ENOMEM)
			++*nomem;
		else
			bad++;
		json_decref(m);
	}
	errno = 0;
	e = gp_turns_merge(&all, &t);
	if (e == -1 && errno == ENOMEM)
		++*nomem;
	else if (e)
		bad++;
	fail_at = -1;
	gp_turns_release(&all);
	gp_turns_release(&t);
	gp_sessions_release(&ss);
	gp_trace_check_release(&c);
	return bad;
}

static void test_nomem(void)
{
	int bad = 0, nomem, passes = 0, failing = 0;
	long n;

	json_set_alloc_funcs(failing_malloc, free);
	ok(nomem_pass(-1, &nomem) == 0 && nomem == 0, "no failure: every call works");
	n = nalloc;
	for (long at = 0; at < 200; at++) {
		bad += nomem_pass(at, &nomem);
		failing += nomem > 0;
		passes++;
		if (!nomem)
			break;	/* past the pass's last jansson allocation */
	}
	json_set_alloc_funcs(malloc, free);
	ok(n >= 10 && failing == n && passes == n + 1, "each of the pass's %ld jansson allocations "
	   "failing in turn is reported (%d of %d passes)", n, failing, passes);
	is_int(bad, 0, "out of memory: -2/-1/NULL and ENOMEM, nothing else, no leak after release");
}

int main(void)
{
	test_fields();
	test_check();
	test_prompt();
	test_abandon();
	test_real_answer();
	test_heap();
	test_nomem();
	return done_testing();
}
