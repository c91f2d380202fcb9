/* SPDX-License-Identifier: MIT */
/*
 * trace — the trace record (input of gp-replay, output of gp-trace) and the
 * deterministic prompt synthesizer.
 *
 * A trace record (doc/records.md):
 *   {"type":"trace","id":"r17","t_s":1.250,"input_tokens":812,"output_tokens":128,
 *    "cache_key":"doc-3","hash_ids":[4,5,9],"messages":[...]}  (or "prompt":"...")
 * and, in a multi-turn session, "session":"c9","turn":2,"think_s":3.5: turn k
 * (1-based) of session c9 is sent think_s after turn k-1 completed; turn 1's
 * t_s is the session's start (doc/records.md).
 *
 * Ownership: gp_trace_parse() fills a struct whose strings and arrays are
 * borrowed from the json_t it was given (valid while that object lives), except
 * hash_ids, which it copies into rec->hash_ids (owned; gp_trace_release frees).
 */
#ifndef GP_TRACE_H
#define GP_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

struct gp_trace_rec {
	const char *id;		/* required, unique within a trace */
	double t_s;		/* arrival offset, seconds from trace start (>= 0) */
	long input_tokens;	/* >= 1 */
	long output_tokens;	/* >= 1 */
	const char *cache_key;	/* optional (NULL) */
	int64_t *hash_ids;	/* optional; owned */
	size_t n_hash_ids;
	json_t *messages;	/* optional, borrowed: a JSON array of chat messages */
	const char *prompt;	/* optional, borrowed */
	const char *session;	/* optional (NULL): the session's id */
	long turn;		/* 1-based turn within session; 0 without one */
	double think_s;		/* pause after turn-1 completed (0 for turn 1) */
};

void gp_trace_init(struct gp_trace_rec *r);
/*
 * Parse and validate one record.  Returns 0, or -1 with a message in
 * err (e.g. "field 't_s' is missing", "field 'input_tokens' must be >= 1").
 * The caller prefixes file:line.  r must be initialised (gp_trace_init) or
 * released; parse first releases what r holds, and on failure leaves r
 * released.  A JSON null counts as absent.  "type", when present, must be
 * "trace"; "id" must be a non-empty string; the token counts integers in
 * [1, 2^31 - 1]; "hash_ids" an array of integers; "messages" an array.
 * "session" a non-empty string; with it "turn" is required, an integer in
 * [1, 2^31 - 1], and "think_s" optional, a number >= 0 (0 when absent), and
 * 0 on turn 1; "turn" and "think_s" without "session" are errors.
 */
int gp_trace_parse(struct gp_trace_rec *r, const json_t *o, char *err, size_t errlen);
void gp_trace_release(struct gp_trace_rec *r);

/*
 * The trace-wide rules of sessions, one record at a time in file order: a
 * session's turns come in order and without a gap (the first record of a
 * session is its turn 1, each next one the turn after the last), so that a
 * session id names one session.  The set of sessions is owned by the check
 * (gp_trace_check_release frees it); records are only read.
 */
struct gp_trace_check {
	json_t *sessions;		/* session id -> last turn seen (a JSON integer) */
	unsigned long nsessions;	/* distinct sessions */
	unsigned long nturns;		/* records with a session */
	long max_turn;			/* the longest session's turns */
};

void gp_trace_check_init(struct gp_trace_check *c);
void gp_trace_check_release(struct gp_trace_check *c);
/* 0, or -1 with a message in err ("field 'turn' is 3 but session 'c9' is
 * at turn 1: a turn is missing", ...); -2 when out of memory (errno ENOMEM,
 * err untouched; the record is not counted, c still to be released). */
int gp_trace_check_rec(struct gp_trace_check *c, const struct gp_trace_rec *r, char *err,
		       size_t errlen);

/*
 * Synthesize a prompt of exactly `input_tokens` whitespace-separated words
 * into buf (NUL-terminated; returns its length, or the length needed when
 * buf is too small, like snprintf).  Block i of `block_tokens` words is a pure
 * function of (hash_ids[0..i]) — the chain of ids up to and including i — so
 * records sharing leading hash_ids share an identical textual prefix, and a
 * different id at block i changes block i and everything after it.  Without
 * hash_ids, the words are a function of `salt` (e.g. the record id) only, so
 * different records do not share prefixes.  Words are drawn from a fixed
 * vocabulary of short lowercase words; one word = one token for gp-sim.
 * Every word is 4 letters, so the prompt is 5 * input_tokens - 1 bytes (0 when
 * input_tokens < 1); buf may be NULL when buflen is 0.  Words past the blocks
 * that hash_ids cover are a function of (all hash_ids, salt): a unique tail.
 * block_tokens < 1 ignores hash_ids.  No allocation, no global state.
 */
/* The longest prompt a tool synthesizes (tokens: 20 MiB of text); a record
 * that asks for more is refused by the tool with its file:line. */
#define GP_TRACE_MAX_SYNTH_TOKENS (1L << 22)
size_t gp_trace_synth_prompt(char *buf, size_t buflen, long input_tokens,
			     const int64_t *hash_ids, size_t n_hash_ids,
			     long block_tokens, const char *salt);

#endif
