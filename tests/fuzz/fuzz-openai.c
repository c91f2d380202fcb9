/* SPDX-License-Identifier: MIT */
/* fuzz-openai — libFuzzer harness: the request reader, writer and error-body reader. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "wire/openai.h"

/*
 * Byte 0 picks the API (bit 0: chat) and the Content-Type (bit 1: form);
 * the rest is a request body.  Invariants: a rejection's body is JSON; a
 * request the reader accepts, written again by the writer, is accepted
 * again with the same model, limit and prompt; the error-body reader's
 * message is bounded, NUL-terminated and free of control characters.
 */
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct gp_oai_in in, in2;
	struct gp_oai_reject rej;
	struct gp_buf b = { 0 };
	char msg[64];
	size_t k;
	int chat;

	if (n < 1)
		return 0;
	chat = d[0] & 1;
	k = gp_oai_error_read((const char *)d + 1, n - 1, "sekrit", msg, sizeof(msg));
	if (k >= sizeof(msg) || strlen(msg) != k)
		abort();
	for (size_t i = 0; i < k; i++)
		if ((unsigned char)msg[i] < 0x20)
			abort();
	if (gp_oai_req_read(&in, chat, d[0] & 2 ? "application/x-www-form-urlencoded" : "application/json",
			    (const char *)d + 1, n - 1, &rej)) {
		json_t *o = json_loads(rej.body, 0, NULL);

		if (!o || rej.status < 400)
			abort();
		json_decref(o);
		return 0;
	}
	if (d[0] & 2)
		abort();	/* a form body is never read */
	if (in.model && (!chat || json_array_size(in.messages) > 0)) {
		struct gp_oai_req q = { 0 };

		q.chat = chat;
		q.model = in.model;
		q.messages = chat ? in.messages : NULL;
		q.prompt = chat ? NULL : in.prompt;
		q.prompt_len = q.prompt ? strlen(q.prompt) : 0;
		q.max_tokens = in.max_tokens > 0 ? in.max_tokens : 0;
		q.stream = 1;
		q.include_usage = in.include_usage;
		if (!gp_oai_req_write(&b, &q)) {
			if (gp_oai_req_read(&in2, chat, "application/json", b.p, b.len, &rej))
				abort();
			if (strcmp(in2.model, in.model) || in2.max_tokens != in.max_tokens ||
			    (!chat && strcmp(in2.prompt, in.prompt)) ||
			    (chat && json_array_size(in2.messages) != json_array_size(in.messages)))
				abort();
			gp_oai_in_release(&in2);
		}
		gp_buf_release(&b);
	}
	gp_oai_in_release(&in);
	return 0;
}
