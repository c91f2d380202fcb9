/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of trace: record validation (every field, every error) and the
 * prompt synthesizer (prefix property, word counts, determinism, salts,
 * truncation).  The pinned prompts below were computed by an independent
 * Python transcription of the algorithm described in src/lib/wire/trace.c
 * (splitmix64 finaliser chain, FNV-1a salt, CVCV words from 10-bit draws),
 * not by this C code; a change there changes every synthesized prompt and
 * every prefix-cache hit across versions, so it must be deliberate.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wire/trace.h"
#include "tap.h"

static char *synth(long n, const int64_t *ids, size_t nids, long bt, const char *salt)
{
	size_t need = gp_trace_synth_prompt(NULL, 0, n, ids, nids, bt, salt);
	char *b = malloc(need + 1);
	size_t got = gp_trace_synth_prompt(b, need + 1, n, ids, nids, bt, salt);

	if (got != need || strlen(b) != need)
		diag("size mismatch: need %zu got %zu strlen %zu", need, got, strlen(b));
	return b;
}

static long count_words(const char *s)
{
	long n = 0;
	int in = 0;

	for (; *s; s++) {
		if (*s == ' ')
			in = 0;
		else if (!in) {
			in = 1;
			n++;
		}
	}
	return n;
}

/* Word k (0-based) of s, copied into out. */
static const char *word(const char *s, long k, char out[16])
{
	const char *p = s;

	for (long i = 0; i < k && p; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p)
		return "";
	size_t n = strcspn(p, " ");
	if (n > 15)
		n = 15;
	memcpy(out, p, n);
	out[n] = '\0';
	return out;
}

/* Byte offset of word k. */
static size_t woff(long k)
{
	return (size_t)k * 5;
}

static void test_synth(void)
{
	int64_t a[] = {1, 2, 3}, b[] = {1, 2, 7}, c[] = {5, 2, 3}, m[] = {0, 14}, neg[] = {-5};
	char *pa, *pb, *pc, *x, *y;
	char w1[16], w2[16];

	/* Pinned vectors (independent Python transcription, see top). */
	x = synth(10, a, 3, 4, "r1");
	is_str(x, "rimo fimi coro peri gone kome sani jero bara sere", "pinned: 10 words, ids [1,2,3], T=4");
	free(x);
	x = synth(7, NULL, 0, 512, "r17");
	is_str(x, "bimi kene halo vomo mino noro gari", "pinned: salt only");
	free(x);
	x = synth(9, m, 2, 4, "x");
	is_str(x, "jalo pame dari hima jamo zami gala hali tala", "pinned: ids [0,14] T=4 with a salted tail");
	free(x);
	x = synth(3, neg, 1, 2, "");
	is_str(x, "hiro jine nolo", "pinned: a negative hash id, tail of 1");
	free(x);

	/* Prefix property. */
	pa = synth(12, a, 3, 4, "ra");
	pb = synth(12, b, 3, 4, "rb");
	pc = synth(12, c, 3, 4, "ra");
	ok(memcmp(pa, pb, woff(8)) == 0, "[1,2,3] and [1,2,7] share blocks 1-2 (8 words)");
	ok(memcmp(pa + woff(8), pb + woff(8), woff(4) - 1) != 0, "... and differ in block 3");
	{
		int same = 0;
		for (long k = 8; k < 12; k++)
			same += !strcmp(word(pa, k, w1), word(pb, k, w2));
		ok(same < 4, "block 3 differs word-wise (%d of 4 equal)", same);
	}
	ok(memcmp(pa, pc, woff(4) - 1) != 0, "[5,2,3] differs from [1,2,3] in block 1");
	ok(memcmp(pa + woff(4), pc + woff(4), woff(4) - 1) != 0,
	   "... and in block 2 (same id, different chain)");
	ok(memcmp(pa + woff(8), pc + woff(8), woff(4) - 1) != 0, "... and in block 3");
	free(pb);
	free(pc);

	/* Word counts and lengths. */
	for (long n = 0; n <= 40; n += 7) {
		x = synth(n, a, 3, 4, "w");
		is_int(count_words(x), n, "%ld tokens give %ld words", n, n);
		is_int((long)strlen(x), n ? 5 * n - 1 : 0, "%ld words are %ld bytes", n, n ? 5 * n - 1 : 0);
		free(x);
	}
	x = synth(-3, NULL, 0, 4, "w");
	is_str(x, "", "negative input_tokens: empty prompt");
	free(x);

	/* Determinism and truncated blocks. */
	x = synth(12, a, 3, 4, "ra");
	is_str(x, pa, "same inputs, same prompt");
	free(x);
	x = synth(6, a, 3, 4, "zz");
	ok(strncmp(x, pa, strlen(x)) == 0 && strlen(x) == woff(6) - 1,
	   "6 tokens over [1,2,3]: the first 6 words of the 12-token prompt (salt unused)");
	free(x);

	/* Tail beyond the blocks. */
	x = synth(20, a, 3, 4, "one");
	y = synth(20, a, 3, 4, "two");
	ok(memcmp(x, y, woff(12) - 1) == 0, "tail: the 3 blocks are shared across salts");
	ok(strcmp(x + woff(12), y + woff(12)) != 0, "tail: the 8 tail words differ by salt");
	ok(memcmp(x, pa, woff(12) - 1) == 0, "tail: blocks equal the 12-token prompt");
	free(y);
	y = synth(20, a, 3, 4, "one");
	is_str(x, y, "tail: same salt, same tail");
	free(y);
	y = synth(20, b, 3, 4, "one");
	ok(strcmp(x + woff(12), y + woff(12)) != 0, "tail: depends on the last chain hash too");
	free(x);
	free(y);

	/* Salt only. */
	x = synth(50, NULL, 0, 4, "r1");
	y = synth(50, NULL, 0, 4, "r2");
	ok(strcmp(x, y) != 0, "salt-only prompts differ by salt");
	{
		int same = 0;
		for (long k = 0; k < 50; k++)
			same += !strcmp(word(x, k, w1), word(y, k, w2));
		ok(same < 10, "salt-only prompts share few words positionally (%d of 50)", same);
	}
	free(y);
	y = synth(50, a, 3, 0, "r1");
	is_str(y, x, "block_tokens 0 ignores hash_ids");
	free(y);
	y = synth(50, NULL, 0, 4, NULL);
	char *z = synth(50, NULL, 0, 4, "");
	is_str(y, z, "NULL salt = empty salt");
	free(y);
	free(z);
	free(x);

	/* Truncation like snprintf. */
	{
		char small[23];
		size_t r;

		memset(small, 'X', sizeof(small));
		r = gp_trace_synth_prompt(small, sizeof(small), 12, a, 3, 4, "ra");
		is_int((long)r, 59, "truncated: returns the full length");
		is_int((long)strlen(small), 22, "truncated: buflen - 1 bytes written");
		ok(strncmp(small, pa, 22) == 0, "truncated: a prefix of the full prompt");
		r = gp_trace_synth_prompt(small, 1, 12, a, 3, 4, "ra");
		ok(r == 59 && small[0] == '\0', "buflen 1: empty string, full length");
		char exact[60];
		r = gp_trace_synth_prompt(exact, sizeof(exact), 12, a, 3, 4, "ra");
		is_str(exact, pa, "exact fit (need + 1) holds the whole prompt");
		r = gp_trace_synth_prompt(exact, 59, 12, a, 3, 4, "ra");
		ok(strlen(exact) == 58 && strncmp(exact, pa, 58) == 0, "one byte short: last letter cut");
	}
	/* Every buffer size from 1 to need + 1: a NUL-terminated prefix. */
	{
		int good = 0, total = 0;
		char tb[64];

		for (size_t bl = 1; bl <= 60; bl++) {
			memset(tb, 'X', sizeof(tb));
			size_t r = gp_trace_synth_prompt(tb, bl, 12, a, 3, 4, "ra");
			size_t want = bl - 1 < 59 ? bl - 1 : 59;
			total++;
			good += r == 59 && strlen(tb) == want && strncmp(tb, pa, want) == 0 &&
				tb[bl] == 'X';
		}
		is_int(good, total, "every buflen 1..60 gives the right prefix, no overrun");
	}
	free(pa);

	/* Vocabulary: 4 lowercase letters; about 1024 distinct words. */
	{
		long n = 20000, bad = 0, distinct = 0;
		static char seen[26 * 26 * 26 * 26];
		x = synth(n, NULL, 0, 512, "vocab");
		for (long k = 0; k < n; k++) {
			const char *w = word(x, k, w1);
			if (strlen(w) != 4) {
				bad++;
				continue;
			}
			int idx = 0;
			for (int j = 0; j < 4; j++) {
				if (w[j] < 'a' || w[j] > 'z')
					bad++;
				idx = idx * 26 + (w[j] - 'a');
			}
			if (idx >= 0 && idx < (int)sizeof(seen) && !seen[idx]++)
				distinct++;
		}
		is_int(bad, 0, "every word is 4 lowercase letters");
		ok(distinct > 1000 && distinct <= 1024, "%ld distinct words in 20000 (vocabulary 1024)", distinct);
		free(x);
	}

	/* Speed (informative; the benchmark is bench/bench-trace.sh). */
	{
		int64_t ids[64];
		struct timespec t0, t1;
		size_t need = gp_trace_synth_prompt(NULL, 0, 32768, ids, 64, 512, "s");
		char *big = malloc(need + 1);
		int reps = 50;

		for (int i = 0; i < 64; i++)
			ids[i] = i;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (int i = 0; i < reps; i++)
			gp_trace_synth_prompt(big, need + 1, 32768, ids, 64, 512, "s");
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double us = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / reps;
		diag("32768-token prompt: %.1f us (sanitized build)", us);
		is_int((long)strlen(big), 5 * 32768 - 1, "32k prompt length");
		free(big);
	}
}

static void parse_err(const char *js, const char *want)
{
	struct gp_trace_rec r;
	json_error_t je;
	json_t *o = json_loads(js, 0, &je);
	char err[128] = "";
	int rc;

	gp_trace_init(&r);
	rc = o ? gp_trace_parse(&r, o, err, sizeof(err)) : 99;
	ok(rc == -1 && !strcmp(err, want), "reject %s", js);
	if (rc != -1 || strcmp(err, want))
		diag("   rc %d err '%s', want '%s'", rc, err, want);
	ok(r.hash_ids == NULL && r.id == NULL, "... leaves the record released");
	gp_trace_release(&r);
	json_decref(o);
}

static void test_parse(void)
{
	struct gp_trace_rec r;
	char err[128];
	json_t *o = json_loads("{\"type\":\"trace\",\"id\":\"r17\",\"t_s\":1.25,\"input_tokens\":812,"
			       "\"output_tokens\":128,\"cache_key\":\"doc-3\",\"hash_ids\":[4,5,-9],"
			       "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"extra\":1}", 0, NULL);

	gp_trace_init(&r);
	is_int(gp_trace_parse(&r, o, err, sizeof(err)), 0, "parse the doc/records.md example");
	is_str(r.id, "r17", "id");
	is_dbl(r.t_s, 1.25, 0, "t_s");
	is_int(r.input_tokens, 812, "input_tokens");
	is_int(r.output_tokens, 128, "output_tokens");
	is_str(r.cache_key, "doc-3", "cache_key");
	is_int((long)r.n_hash_ids, 3, "n_hash_ids");
	ok(r.hash_ids && r.hash_ids[0] == 4 && r.hash_ids[2] == -9, "hash_ids copied");
	ok(r.messages && json_array_size(r.messages) == 1, "messages borrowed");
	ok(r.prompt == NULL, "no prompt");
	/* Re-parse into the same struct: the old hash_ids are freed (ASan checks). */
	json_t *o2 = json_loads("{\"id\":\"x\",\"t_s\":0,\"input_tokens\":1,\"output_tokens\":1,"
				"\"prompt\":\"hello\",\"cache_key\":null,\"hash_ids\":null}", 0, NULL);
	is_int(gp_trace_parse(&r, o2, err, sizeof(err)), 0, "minimal record without type");
	ok(r.hash_ids == NULL && r.n_hash_ids == 0 && r.cache_key == NULL && r.messages == NULL,
	   "nulls are absent");
	is_str(r.prompt, "hello", "prompt");
	gp_trace_release(&r);
	json_decref(o2);
	o2 = json_loads("{\"id\":\"x\",\"t_s\":3,\"input_tokens\":5.0,\"output_tokens\":2,\"hash_ids\":[]}", 0, NULL);
	is_int(gp_trace_parse(&r, o2, err, sizeof(err)), 0, "integral real token count, empty hash_ids");
	ok(r.input_tokens == 5 && r.n_hash_ids == 0, "... values");
	gp_trace_release(&r);
	json_decref(o2);
	json_decref(o);

#define BASE "\"id\":\"a\",\"t_s\":0,\"input_tokens\":1,\"output_tokens\":1"
	parse_err("[1]", "record is not a JSON object");
	parse_err("{\"type\":\"request\"," BASE "}", "field 'type' is 'request', not 'trace'");
	parse_err("{\"type\":3," BASE "}", "field 'type' is not a string");
	parse_err("{\"t_s\":0,\"input_tokens\":1,\"output_tokens\":1}", "field 'id' is missing");
	parse_err("{\"id\":17,\"t_s\":0,\"input_tokens\":1,\"output_tokens\":1}", "field 'id' is not a string");
	parse_err("{\"id\":\"\",\"t_s\":0,\"input_tokens\":1,\"output_tokens\":1}", "field 'id' is empty");
	parse_err("{\"id\":\"a\",\"input_tokens\":1,\"output_tokens\":1}", "field 't_s' is missing");
	parse_err("{\"id\":\"a\",\"t_s\":\"1\",\"input_tokens\":1,\"output_tokens\":1}", "field 't_s' is not a number");
	parse_err("{\"id\":\"a\",\"t_s\":-0.5,\"input_tokens\":1,\"output_tokens\":1}", "field 't_s' must be >= 0");
	parse_err("{\"id\":\"a\",\"t_s\":0,\"output_tokens\":1}", "field 'input_tokens' is missing");
	parse_err("{\"id\":\"a\",\"t_s\":0,\"input_tokens\":1.5,\"output_tokens\":1}", "field 'input_tokens' is not an integer");
	parse_err("{\"id\":\"a\",\"t_s\":0,\"input_tokens\":0,\"output_tokens\":1}", "field 'input_tokens' must be >= 1");
	parse_err("{\"id\":\"a\",\"t_s\":0,\"input_tokens\":4294967296,\"output_tokens\":1}", "field 'input_tokens' is too large");
	parse_err("{\"id\":\"a\",\"t_s\":0,\"input_tokens\":1}", "field 'output_tokens' is missing");
	parse_err("{\"id\":\"a\",\"t_s\":0,\"input_tokens\":1,\"output_tokens\":\"9\"}", "field 'output_tokens' is not an integer");
	parse_err("{\"id\":\"a\",\"t_s\":0,\"input_tokens\":1,\"output_tokens\":-2}", "field 'output_tokens' must be >= 1");
	parse_err("{" BASE ",\"cache_key\":5}", "field 'cache_key' is not a string");
	parse_err("{" BASE ",\"hash_ids\":{}}", "field 'hash_ids' is not an array");
	parse_err("{" BASE ",\"hash_ids\":[1,2,\"3\"]}", "field 'hash_ids' element 2 is not an integer");
	parse_err("{" BASE ",\"hash_ids\":[1.5]}", "field 'hash_ids' element 0 is not an integer");
	parse_err("{" BASE ",\"messages\":\"hi\"}", "field 'messages' is not an array");
	parse_err("{" BASE ",\"prompt\":[]}", "field 'prompt' is not a string");
	/* Errors fit and truncate safely. */
	{
		char tiny[8];
		json_t *bad = json_loads("{\"id\":\"a\"}", 0, NULL);

		gp_trace_init(&r);
		is_int(gp_trace_parse(&r, bad, tiny, sizeof(tiny)), -1, "tiny error buffer");
		is_str(tiny, "field '", "... truncated message");
		is_int(gp_trace_parse(&r, bad, NULL, 0), -1, "NULL error buffer");
		json_decref(bad);
	}
}

int main(void)
{
	test_synth();
	test_parse();
	return done_testing();
}
