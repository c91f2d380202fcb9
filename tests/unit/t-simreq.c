/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of simreq: gp-sim's reading of a completion request — each way
 * it refuses one (status, the message a client reads back, the prompt words
 * counted for the truth record) and the bodies it accepts (the fields it
 * keeps, the words and block keys of the prompt).  Limits are small so the
 * context cases can be counted by hand: model "m", 20 tokens, blocks of 4.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "sim/kvcache.h"
#include "sim/simreq.h"
#include "tap.h"

#define CT "application/json"

static const struct gp_simreq_limits lim = {"m", 20, 4};

/* One refusal: status, message, prompt words counted, keys freed. */
static void refuses(int chat, const char *ct, const char *body, int status, long words,
		    const char *msg)
{
	struct gp_simreq r;
	struct gp_oai_reject rej;
	char out[400];
	json_t *o;

	memset(&rej, 0, sizeof(rej));
	if (!ok(gp_simreq_read(&r, &lim, chat, ct, body, strlen(body), &rej) == -1, "refused: %s", body)) {
		free(r.tok.keys);
		return;
	}
	is_int(rej.status, status, "status of %s", body);
	is_int(r.tok.n, words, "prompt words counted before the refusal of %s", body);
	ok(r.tok.keys == NULL && r.tok.nkeys == 0, "keys freed on refusal of %s", body);
	o = json_loads(rej.body, 0, NULL);
	ok(o != NULL, "the error body is JSON: %s", rej.body);
	json_decref(o);
	gp_oai_error_read(rej.body, strlen(rej.body), NULL, out, sizeof(out));
	is_str(out, msg, "the client reads the message back");
}

static void refusals(void)
{
	/* FastAPI's and vLLM's checks (openai.c) come first: not parsed, 0 words. */
	refuses(1, "text/plain", "{\"messages\":[{\"role\":\"user\",\"content\":\"a\"}]}", 422, 0,
		"body: value is not a valid dict");
	refuses(1, CT, "{\"model\":\"m\"}", 422, 0, "body.messages: field required");
	refuses(0, CT, "{\"prompt\":\"a\",\"max_tokens\":0}", 400, 0, "max_tokens must be at least 1, got 0.");
	/* A model other than the served one: vLLM's 404, before any word. */
	refuses(1, CT, "{\"model\":\"other\",\"messages\":[{\"role\":\"user\",\"content\":\"a b\"}]}", 404, 0,
		"The model `other` does not exist.");
	/* A content that is a number: FastAPI's 422 comes before gp-sim's own
	 * 400 (a backstop), so no word is counted. */
	refuses(1, CT, "{\"messages\":[{\"role\":\"user\",\"content\":\"a b\"},{\"role\":\"user\",\"content\":7}]}", 422, 0,
		"body.messages: each message needs a string 'role' and a string or list 'content'");
	/* Whitespace only, or null: no word at all. */
	refuses(0, CT, "{\"prompt\":\" \\t\\n \"}", 400, 0, "the prompt is empty");
	refuses(1, CT, "{\"messages\":[{\"role\":\"user\",\"content\":null}]}", 400, 0, "the prompt is empty");
	/* Context: 5 words + 16 (the default max_tokens) = 21 > 20. */
	refuses(0, CT, "{\"prompt\":\"a b c d e\"}", 400, 5,
		"This model's maximum context length is 20 tokens. However, you requested 21 tokens "
		"(5 in the messages, 16 in the completion). Please reduce the length of the messages "
		"or completion.");
	/* 3 words + 18 = 21 > 20: one over. */
	refuses(1, CT, "{\"messages\":[{\"role\":\"user\",\"content\":\"a b c\"}],\"max_tokens\":18}", 400, 3,
		"This model's maximum context length is 20 tokens. However, you requested 21 tokens "
		"(3 in the messages, 18 in the completion). Please reduce the length of the messages "
		"or completion.");
}

/* One acceptance: 0, then the caller looks at r (and frees its keys). */
static int accepts(struct gp_simreq *r, int chat, const char *body)
{
	struct gp_oai_reject rej;

	return ok(gp_simreq_read(r, &lim, chat, CT, body, strlen(body), &rej) == 0, "accepted: %s", body);
}

static void acceptances(void)
{
	struct gp_simreq r, r2;
	struct gp_simtok t;

	/* 4 words + 16 = 20 = max_model_len: exactly at the limit is fine. */
	if (accepts(&r, 0, "{\"prompt\":\"a b c d\"}")) {
		is_int(r.tok.n, 4, "4 words");
		is_int(r.max_tokens, 16, "max_tokens not given: 16");
		ok(r.min_tokens == 0 && !r.ignore_eos && !r.stream && !r.include_usage, "the rest default");
		is_int(r.tok.nkeys, 1, "4 words, blocks of 4: one full block, one key");
		free(r.tok.keys);
	}
	/* Chat: a string, a null, a list of parts (a string, a {"text"}, an
	 * object without text, ignored): "a b" + "c" + "d" = 4 words; the chain
	 * is the one gp_simtok_text builds over the same words in order. */
	if (accepts(&r, 1, "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"a b\"},{\"role\":\"user\",\"content\":null},"
		    "{\"role\":\"user\",\"content\":[\"c\",{\"type\":\"text\",\"text\":\"d\"},{\"type\":\"image\"}]}],"
		    "\"max_tokens\":9,\"min_tokens\":2,\"ignore_eos\":true,\"stream\":true,"
		    "\"stream_options\":{\"include_usage\":true}}")) {
		is_int(r.tok.n, 4, "chat: 4 words over the messages");
		ok(r.max_tokens == 9 && r.min_tokens == 2 && r.ignore_eos && r.stream && r.include_usage,
		   "chat: the sampling fields kept");
		gp_simtok_init(&t, 4);
		gp_simtok_text(&t, "a\tb\n c   d");
		ok(t.n == 4 && t.nkeys == 1 && r.tok.nkeys == 1 && t.keys[0] == r.tok.keys[0] && t.all == r.tok.all,
		   "chat: same words in order → same block key and prompt hash as one text");
		free(t.keys);
		free(r.tok.keys);
	}
	/* 9 words in blocks of 4: keys for blocks 1 and 2, the ninth word in a
	 * partial block has none; the second key chains from the first, so a
	 * different first block changes it. */
	if (accepts(&r, 0, "{\"prompt\":\"w1 w2 w3 w4 w5 w6 w7 w8 w9\",\"max_tokens\":1}") &&
	    accepts(&r2, 0, "{\"prompt\":\"x1 w2 w3 w4 w5 w6 w7 w8 w9\",\"max_tokens\":1}")) {
		is_int(r.tok.nkeys, 2, "9 words: 2 full blocks");
		ok(r.tok.nkeys == 2 && r2.tok.nkeys == 2 && r.tok.keys[0] != r2.tok.keys[0] && r.tok.keys[1] != r2.tok.keys[1],
		   "a block's key depends on the blocks before it");
		free(r.tok.keys);
		free(r2.tok.keys);
	}
	/* No model given: vLLM serves its own. */
	if (accepts(&r, 1, "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")) {
		is_int(r.tok.n, 1, "no model: accepted, 1 word");
		free(r.tok.keys);
	}
}

/* The content reader on its own: what the 400 backstop would refuse. */
static void contents(void)
{
	struct gp_simtok t;
	json_t *num = json_integer(7), *obj = json_pack("{s:s}", "text", "x y");
	json_t *str = json_string("a b"), *parts = json_pack("[s,{s:s},{s:i},i]", "c", "text", "d e", "text", 1, 2);

	gp_simtok_init(&t, 4);
	ok(gp_simtok_content(&t, str) == 0 && t.n == 2, "a string: 0, its 2 words");
	ok(gp_simtok_content(&t, NULL) == 0 && gp_simtok_content(&t, json_null()) == 0 && t.n == 2,
	   "absent or null: 0, no word");
	ok(gp_simtok_content(&t, num) == -1 && t.n == 2, "a number: -1, no word");
	ok(gp_simtok_content(&t, obj) == -1 && t.n == 2, "an object: -1 (a part only inside a list)");
	/* "c" + "d e"; a non-string text and a bare number are skipped: 3 more. */
	ok(gp_simtok_content(&t, parts) == 0 && t.n == 5, "a list of parts: 0, 3 more words");
	is_int(t.nkeys, 1, "5 words in blocks of 4: one key");
	free(t.keys);
	json_decref(num);
	json_decref(obj);
	json_decref(str);
	json_decref(parts);
}

int main(void)
{
	contents();
	refusals();
	acceptances();
	return done_testing();
}
