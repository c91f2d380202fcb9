/* SPDX-License-Identifier: MIT */
/*
 * fuzz-stream — libFuzzer harness: the response reader (stream.h) fed
 * arbitrary response headers and body bytes in arbitrary chunks, as http.c
 * would pass them, then ended (stream.h's on_done with an arbitrary outcome,
 * or the end after [DONE]); and the model-list reader (models.h).  Asserts
 * that every record built from what it read — the class, its detail, the
 * Content-Type, the completion id, a header value, the server's message, the
 * ids shown — parses as JSON (jansson checks UTF-8) and is valid UTF-8, that
 * what goes to a terminal holds no control character, and that the secret
 * never survives.
 *
 * Input: byte 0 the outcome and the ending, byte 1 the chunk size of the
 * body (1..256), then header lines ("\n"-separated) up to a NUL byte, then
 * the body.  With bit 7 of byte 0 set, the rest is a /v1/models body.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "base/buf.h"
#include "io/http.h"
#include "wire/models.h"
#include "wire/openai.h"
#include "wire/stream.h"

#define SECRET "sk-fuzzSECRETfuzz0123456789"

static struct gp_http *H;
static struct gp_stream S;

static void no_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f ||
		    ((unsigned char)*s == 0xC2 && (unsigned char)s[1] >= 0x80 && (unsigned char)s[1] < 0xA0))
			abort();
}

/* The record of what the stream read: it must parse, every string UTF-8. */
static void check_record(const struct gp_stream *s, const char *backend, const char *msg)
{
	struct gp_stream_result m;
	struct gp_buf b = { 0 };
	const char *str[6];
	char term[1100];
	json_t *j;

	gp_stream_result(s, &m);
	str[0] = gp_stream_class_name(m.cls);
	str[1] = s->detail;
	str[2] = s->content_type;
	str[3] = s->id;
	str[4] = backend;
	str[5] = msg;
	if (gp_buf_add(&b, "{\"error\":", 9))
		abort();
	for (size_t i = 0; i < 6; i++) {
		if (!str[i])
			str[i] = "";
		if (!gp_utf8_valid(str[i], strlen(str[i])) || strstr(str[i], SECRET))
			abort();
		if ((i && gp_buf_add(&b, ",\"f\":", 5)) || gp_buf_jstr(&b, str[i], strlen(str[i])))
			abort();
		gp_term_escape(term, sizeof(term), str[i], strlen(str[i]));
		no_control(term);
	}
	if (gp_buf_add(&b, ",\"tokens_from\":", 15) || gp_buf_jstr(&b, m.tokens_from ? m.tokens_from : "", 
	    m.tokens_from ? strlen(m.tokens_from) : 0) || gp_buf_add(&b, "}", 1))
		abort();
	j = json_loadb(b.p, b.len, 0, NULL);
	if (!j)
		abort();
	json_decref(j);
	gp_buf_release(&b);
	no_control(s->detail);
	if ((m.cls == 0) != (!strcmp(m.outcome, "ok") || !strcmp(m.outcome, "single_token")))
		abort();
	if (!m.cls && (m.out_tokens < s->content_events || m.out_tokens < 1))
		abort();
}

static void models(const char *s, size_t n)
{
	struct gp_models ml;
	char out[300], list[512];

	if (gp_models_read(s, n, &ml))
		return;
	for (size_t i = 0; i < ml.n; i++) {
		gp_models_shown(ml.id[i], SECRET, out, sizeof(out));
		if (strstr(out, SECRET) || !gp_utf8_valid(out, strlen(out)))
			abort();
		no_control(out);
	}
	gp_models_list(&ml, SECRET, list, sizeof(list));
	if (strstr(list, SECRET) || strlen(list) >= sizeof(list))
		abort();
	no_control(list);
	gp_models_release(&ml);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static const enum gp_http_err errs[8] = {
		GP_HTTP_OK, GP_HTTP_OK, GP_HTTP_OK, GP_HTTP_ERESET, GP_HTTP_EFRAMING, GP_HTTP_ETIMEOUT,
		GP_HTTP_EABORT, GP_HTTP_ECONNECT,
	};
	struct gp_http_result res;
	const char *nul;
	char backend[128] = "", msg[256], *copy;
	size_t step, i, hl;
	int stop = 0;

	if (n < 2)
		return 0;
	if (d[0] & 0x80) {
		copy = malloc(n - 1);
		if (copy) {
			memcpy(copy, d + 1, n - 1);
			models(copy, n - 1);
			free(copy);
		}
		return 0;
	}
	if (!H) {
		struct gp_http_opts o = { 0 };
		static const struct gp_http_ops ops = { 0 };

		if (gp_http_global_init() || !(H = gp_http_new(&o, &ops)) || gp_stream_init(&S, H, NULL, 4096))
			abort();
		S.secret = SECRET;
		S.max_event_flag = "--max-event-bytes";
	}
	step = 1 + d[1];
	d += 2;
	n -= 2;
	nul = memchr(d, '\0', n);
	hl = nul ? (size_t)(nul - (const char *)d) : n;
	if (gp_stream_start(&S, "http://127.0.0.1:1/v1/chat/completions", "{}", 2, NULL, 0))
		abort();
	gp_stream_on_sent(&S, 1000);
	for (i = 0; i < hl;) {
		const char *ln = (const char *)d + i, *e = memchr(ln, '\n', hl - i);
		size_t k = e ? (size_t)(e - ln) : hl - i;
		char *line = malloc(k + 2);

		if (!line)
			abort();
		memcpy(line, ln, k);
		memcpy(line + k, "\r\n", 2);
		gp_stream_on_header(&S, line, k + 2, 2000);
		if (gp_stream_header_value(line, k + 2, "X-Backend", backend, sizeof(backend)))
			gp_oai_mask_secret(backend, SECRET);	/* as gp-replay and stream.c do */
		free(line);
		i += k + 1;
	}
	if (nul) {
		const uint8_t *b = (const uint8_t *)nul + 1;
		size_t bl = n - hl - 1;
		long status = hl && d[0] >= '5' ? 500 : 200;

		for (i = 0; i < bl && !stop; i += step) {
			size_t k = bl - i < step ? bl - i : step;
			char *chunk = malloc(k);	/* exact: ASan sees a read past it */

			if (!chunk)
				abort();
			memcpy(chunk, b + i, k);
			stop = gp_stream_on_body(&S, status, chunk, k, 3000 + (int64_t)i);
			free(chunk);
		}
	}
	if (S.saw_done && (d[-2] & 8)) {
		gp_stream_end_done(&S);
	} else {
		res.err = stop ? GP_HTTP_EABORT : errs[d[-2] & 7];
		res.status = 0;
		res.code = 0;
		res.detail = "libcurl said \xff\xfe " SECRET;
		gp_stream_on_done(&S, &res, 5000);
		gp_http_cancel(S.x);
	}
	gp_oai_error_read(S.body, S.body_len, SECRET, msg, sizeof(msg));
	check_record(&S, backend, msg);
	return 0;
}
