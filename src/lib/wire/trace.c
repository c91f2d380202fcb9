/* SPDX-License-Identifier: MIT */
/* trace — trace record validation and the deterministic prompt synthesizer. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "io/json.h"
#include "wire/trace.h"

void gp_trace_init(struct gp_trace_rec *r)
{
	memset(r, 0, sizeof(*r));
}

void gp_trace_release(struct gp_trace_rec *r)
{
	free(r->hash_ids);
	gp_trace_init(r);
}

static int fail(struct gp_trace_rec *r, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(struct gp_trace_rec *r, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	gp_trace_release(r);
	return -1;
}

/* A required integer field >= 1. */
static int need_count(struct gp_trace_rec *r, const json_t *o, const char *key, long *out,
		      char *err, size_t errlen)
{
	long long v = 0;
	int e = gp_json_int(o, key, &v);

	if (e == GP_JSON_MISSING)
		return fail(r, err, errlen, "field '%s' is missing", key);
	if (e)
		return fail(r, err, errlen, "field '%s' is not an integer", key);
	if (v < 1)
		return fail(r, err, errlen, "field '%s' must be >= 1", key);
	if (v > 0x7fffffffLL)
		return fail(r, err, errlen, "field '%s' is too large", key);
	*out = (long)v;
	return 0;
}

/* session, turn, think_s: together or not at all (turn 1 thinks 0 s). */
static int parse_session(struct gp_trace_rec *r, const json_t *o, char *err, size_t errlen)
{
	int has_turn = json_object_get(o, "turn") && !json_is_null(json_object_get(o, "turn"));
	int e = gp_json_str(o, "session", &r->session);

	if (e == GP_JSON_TYPE)
		return fail(r, err, errlen, "field 'session' is not a string");
	if (r->session && !*r->session)
		return fail(r, err, errlen, "field 'session' is empty");
	if (!r->session) {
		if (has_turn)
			return fail(r, err, errlen, "field 'turn' needs field 'session'");
		e = gp_json_num(o, "think_s", &r->think_s);
		if (e != GP_JSON_MISSING)
			return fail(r, err, errlen, "field 'think_s' needs field 'session'");
		r->think_s = 0;
		return 0;
	}
	if (need_count(r, o, "turn", &r->turn, err, errlen))
		return -1;
	e = gp_json_num(o, "think_s", &r->think_s);
	if (e == GP_JSON_MISSING) {
		r->think_s = 0;
		return 0;
	}
	if (e)
		return fail(r, err, errlen, "field 'think_s' is not a number");
	if (!isfinite(r->think_s) || r->think_s < 0)
		return fail(r, err, errlen, "field 'think_s' must be >= 0");
	if (r->turn == 1 && r->think_s > 0)
		return fail(r, err, errlen, "field 'think_s' must be 0 on turn 1 (its t_s is the start)");
	return 0;
}

int gp_trace_parse(struct gp_trace_rec *r, const json_t *o, char *err, size_t errlen)
{
	const char *s = NULL;
	json_t *v;
	int e;

	gp_trace_release(r);
	if (!json_is_object(o))
		return fail(r, err, errlen, "record is not a JSON object");

	e = gp_json_str(o, "type", &s);
	if (e == GP_JSON_TYPE)
		return fail(r, err, errlen, "field 'type' is not a string");
	if (e == 0 && strcmp(s, "trace") != 0)
		return fail(r, err, errlen, "field 'type' is '%.64s', not 'trace'", s);

	e = gp_json_str(o, "id", &r->id);
	if (e == GP_JSON_MISSING)
		return fail(r, err, errlen, "field 'id' is missing");
	if (e)
		return fail(r, err, errlen, "field 'id' is not a string");
	if (!*r->id)
		return fail(r, err, errlen, "field 'id' is empty");

	e = gp_json_num(o, "t_s", &r->t_s);
	if (e == GP_JSON_MISSING)
		return fail(r, err, errlen, "field 't_s' is missing");
	if (e)
		return fail(r, err, errlen, "field 't_s' is not a number");
	if (!isfinite(r->t_s) || r->t_s < 0)
		return fail(r, err, errlen, "field 't_s' must be >= 0");

	if (need_count(r, o, "input_tokens", &r->input_tokens, err, errlen) ||
	    need_count(r, o, "output_tokens", &r->output_tokens, err, errlen))
		return -1;

	e = gp_json_str(o, "cache_key", &r->cache_key);
	if (e == GP_JSON_TYPE)
		return fail(r, err, errlen, "field 'cache_key' is not a string");

	v = json_object_get(o, "hash_ids");
	if (v && !json_is_null(v)) {
		size_t n, i;

		if (!json_is_array(v))
			return fail(r, err, errlen, "field 'hash_ids' is not an array");
		n = json_array_size(v);
		if (n) {
			r->hash_ids = malloc(n * sizeof(*r->hash_ids));
			if (!r->hash_ids)
				return fail(r, err, errlen, "out of memory for field 'hash_ids'");
		}
		for (i = 0; i < n; i++) {
			json_t *x = json_array_get(v, i);

			if (!json_is_integer(x))
				return fail(r, err, errlen,
					    "field 'hash_ids' element %zu is not an integer", i);
			r->hash_ids[i] = (int64_t)json_integer_value(x);
		}
		r->n_hash_ids = n;
	}

	v = json_object_get(o, "messages");
	if (v && !json_is_null(v)) {
		if (!json_is_array(v))
			return fail(r, err, errlen, "field 'messages' is not an array");
		r->messages = v;
	}

	e = gp_json_str(o, "prompt", &r->prompt);
	if (e == GP_JSON_TYPE)
		return fail(r, err, errlen, "field 'prompt' is not a string");
	return parse_session(r, o, err, errlen);
}

void gp_trace_check_init(struct gp_trace_check *c)
{
	memset(c, 0, sizeof(*c));
}

void gp_trace_check_release(struct gp_trace_check *c)
{
	json_decref(c->sessions);
	gp_trace_check_init(c);
}

int gp_trace_check_rec(struct gp_trace_check *c, const struct gp_trace_rec *r, char *err,
		       size_t errlen)
{
	json_t *v;
	uint64_t last;

	if (!r->session)
		return 0;
	v = c->sessions ? json_object_get(c->sessions, r->session) : NULL;
	last = v ? (uint64_t)json_integer_value(v) : 0;
	if ((uint64_t)r->turn != last + 1) {
		if (last == 0)
			snprintf(err, errlen, "field 'turn' is %ld but session '%.64s' starts here: "
				 "its first record must be turn 1", r->turn, r->session);
		else if ((uint64_t)r->turn <= last)
			snprintf(err, errlen, "field 'turn' is %ld but session '%.64s' is at turn %llu: "
				 "turns go in order, and a session id names one session", r->turn,
				 r->session, (unsigned long long)last);
		else
			snprintf(err, errlen, "field 'turn' is %ld but session '%.64s' is at turn %llu: "
				 "a turn is missing", r->turn, r->session, (unsigned long long)last);
		return -1;
	}
	if (v) {
		json_integer_set(v, r->turn);
	} else {
		if ((!c->sessions && !(c->sessions = json_object())) ||
		    json_object_set_new_nocheck(c->sessions, r->session, json_integer(r->turn))) {
			errno = ENOMEM;
			return -2;
		}
		c->nsessions++;
	}
	c->nturns++;
	if (r->turn > c->max_turn)
		c->max_turn = r->turn;
	return 0;
}

/*
 * The synthesizer.
 *
 * Vocabulary: 1024 four-letter pseudo-words, consonant-vowel-consonant-vowel,
 * indexed by 10 bits: 4 bits pick the first consonant out of 16, then 2 bits
 * each for a vowel, a second consonant (out of 4 liquids/nasals) and a final
 * vowel ("bala", "kemi", ...).  All 1024 are distinct and every word is
 * exactly GP_WORD_LEN bytes, so a prompt of n words is 5n - 1 bytes.  Words
 * are spelled from the bits directly: no table, no state, no allocation.
 *
 * Chain: h(-1) = IV; h(i) = mix(h(i-1) ^ mix(hash_ids[i] + K)), where mix is
 * the splitmix64 finaliser (a bijection of 64-bit words).  Block i is then
 * block_tokens words drawn from a splitmix64 stream seeded with h(i): a pure
 * function of hash_ids[0..i].  The tail beyond the blocks (and the whole
 * prompt when there are no hash_ids) draws from a stream seeded with
 * mix(h(last) ^ gp_fnv1a64_str(salt) ^ TAIL), so it is unique to the salt.
 *
 * Each 64-bit draw gives six words, low 10 bits first; within a word, bits
 * 9..6 pick the first consonant, 5..4 the vowel, 3..2 the second consonant,
 * 1..0 the last vowel.  splitmix64 is Steele, Lea & Flood's SplitMix (OOPSLA
 * 2014) with the constants of Vigna's splitmix64.c; FNV-1a is Fowler, Noll
 * and Vo's 64-bit hash.  The output is a cross-version contract (a prefix
 * cache warmed by one build must hit with the next): tests/unit/t-trace.c
 * pins it with vectors from an independent transcription.
 */
#define GP_WORD_LEN 4

static const char consonants[] = "bdfgkmnprstvzhjc";
static const char vowels[] = "aeio";
static const char mids[] = "lmnr";


#define CHAIN_IV 0x6770747261636521ULL	/* "gptrace!" */
#define CHAIN_K 0x2545f4914f6cdd1dULL
#define TAIL_K 0x7461696c7461696cULL	/* "tailtail" */

/* Emit `n` words from the stream seeded by `seed` into buf[*pos..cap). */
static void emit(char *buf, size_t cap, size_t *pos, long n, uint64_t seed, int *first)
{
	uint64_t st = seed, r = 0;
	size_t p = *pos;
	int left = 0;
	long k = 0;

	if (n > 0 && *first) {	/* the first word of the prompt has no space */
		r = gp_splitmix64(&st);
		left = 6;
		char w[GP_WORD_LEN] = {consonants[(r >> 6) & 15], vowels[(r >> 4) & 3],
				       mids[(r >> 2) & 3], vowels[r & 3]};
		for (int j = 0; j < GP_WORD_LEN && p < cap; j++)
			buf[p++] = w[j];
		r >>= 10;
		left--;
		k = 1;
		*first = 0;
	}
	/* Fast path: room for " word" without checks. */
	for (; k < n && p + GP_WORD_LEN + 1 <= cap; k++) {
		if (left == 0) {	/* six 10-bit words per 64-bit draw */
			r = gp_splitmix64(&st);
			left = 6;
		}
		buf[p] = ' ';
		buf[p + 1] = consonants[(r >> 6) & 15];
		buf[p + 2] = vowels[(r >> 4) & 3];
		buf[p + 3] = mids[(r >> 2) & 3];
		buf[p + 4] = vowels[r & 3];
		p += GP_WORD_LEN + 1;
		r >>= 10;
		left--;
	}
	/* The end of a buffer that is too small: byte by byte. */
	if (k < n && p < cap) {
		if (left == 0)
			r = gp_splitmix64(&st);
		char w[GP_WORD_LEN + 1] = {' ', consonants[(r >> 6) & 15], vowels[(r >> 4) & 3],
					   mids[(r >> 2) & 3], vowels[r & 3]};
		for (int j = 0; j <= GP_WORD_LEN && p < cap; j++)
			buf[p++] = w[j];
	}
	*pos = p;
}

size_t gp_trace_synth_prompt(char *buf, size_t buflen, long input_tokens,
			     const int64_t *hash_ids, size_t n_hash_ids,
			     long block_tokens, const char *salt)
{
	size_t need = input_tokens > 0 ? (size_t)input_tokens * (GP_WORD_LEN + 1) - 1 : 0;
	size_t cap, pos = 0;
	uint64_t h = CHAIN_IV;
	long done = 0;
	int first = 1;

	if (!buf || buflen == 0)
		return need;
	cap = buflen - 1;	/* room for the NUL */
	if (block_tokens < 1 || !hash_ids)
		n_hash_ids = 0;
	for (size_t i = 0; i < n_hash_ids && done < input_tokens && pos < cap; i++) {
		long n = input_tokens - done < block_tokens ? input_tokens - done : block_tokens;

		h = gp_mix64(h ^ gp_mix64((uint64_t)hash_ids[i] + CHAIN_K));
		emit(buf, cap, &pos, n, h, &first);
		done += n;
	}
	/* Here every block is written, or the prompt is complete, or buf is full. */
	if (done < input_tokens && pos < cap)
		emit(buf, cap, &pos, input_tokens - done, gp_mix64(h ^ gp_fnv1a64_str(salt) ^ TAIL_K), &first);
	buf[pos < cap ? pos : cap] = '\0';
	return need;
}
