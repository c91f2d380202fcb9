/* SPDX-License-Identifier: MIT */
/* fuzz-wire — libFuzzer harness: the wire module's readers (openai.h), the client side: chunk reader, error-body reader with a secret; and the request reader's rejections. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "wire/openai.h"

/*
 * Byte 0 picks the reader, the rest is its input:
 *   0, 1  gp_oai_req_read (chat, completions) with Content-Type
 *         application/json: accepted requests must carry their prompt,
 *         refusals a 4xx status and a JSON error body that
 *         gp_oai_error_read reads back non-empty;
 *   2     gp_oai_chunk_read: [DONE] or a chunk or EBAD, nothing else;
 *   3     gp_oai_error_read with a secret: the secret never survives, the
 *         output is NUL-terminated, within cap (from byte 0) and free of
 *         control characters.
 */
#define SECRET "sk-fuzzSECRETfuzz0123456789"

static void req(int chat, const char *s, size_t n)
{
	struct gp_oai_in in;
	struct gp_oai_reject rej;
	char msg[256];
	json_t *j;

	if (gp_oai_req_read(&in, chat, "application/json", s, n, &rej) == 0) {
		if (!in.root || (chat ? !in.messages : !in.prompt))	/* model is optional */
			abort();
		gp_oai_in_release(&in);
		return;
	}
	if (rej.status < 400 || rej.status > 499 || !rej.reason || !memchr(rej.body, '\0', sizeof(rej.body)))
		abort();
	j = json_loads(rej.body, 0, NULL);
	if (!j)
		abort();
	json_decref(j);
	if (!gp_oai_error_read(rej.body, strlen(rej.body), NULL, msg, sizeof(msg)))
		abort();
}

static void err_body(const char *s, size_t n, size_t cap)
{
	char out[1100];
	size_t len = gp_oai_error_read(s, n, SECRET, out, cap);

	if (len >= cap || out[len] != '\0' || strlen(out) != len)
		abort();
	if (strstr(out, SECRET))
		abort();
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct gp_sse_chunk c;
	char *s;
	int r;

	if (n < 1)
		return 0;
	s = malloc(n);		/* exact size: ASan sees any read past the end */
	if (!s)
		return 0;
	memcpy(s, d + 1, n - 1);
	switch (d[0] & 3) {
	case 0:
	case 1:
		req(!(d[0] & 1), s, n - 1);
		break;
	case 2:
		r = gp_oai_chunk_read(s, n - 1, &c);
		if (r != GP_OAI_CHUNK && r != GP_OAI_DONE && r != GP_OAI_EBAD)
			abort();
		if (r == GP_OAI_CHUNK && !memchr(c.id, '\0', sizeof(c.id)))
			abort();
		break;
	default:
		err_body(s, n - 1, 1 + (d[0] >> 2) * 17 % 1100);
		break;
	}
	free(s);
	return 0;
}
