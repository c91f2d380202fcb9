/* SPDX-License-Identifier: MIT */
/*
 * t-openai — the wire format held together: what the request writer writes
 * the request reader accepts with the same meaning; what the chunk writer
 * writes the chunk reader reads back; what the reject path writes the
 * error-body reader reads back.  The rejections are FastAPI 0.92 / pydantic
 * 1.10's answers as observed from tests/fixtures/vllm-shaped.py (Debian 12's
 * python3-fastapi), and vLLM's messages.
 */
#include <stdlib.h>
#include <string.h>

#include "wire/openai.h"
#include "tap.h"

static const char *CT = "application/json";

static void round_trip_requests(void)
{
	struct gp_buf b = { 0 };
	struct gp_oai_req q = { 0 };
	struct gp_oai_in in;
	struct gp_oai_reject rej;
	json_t *msgs = json_pack("[{s:s,s:s},{s:s,s:s}]", "role", "system", "content", "be \"brief\"",
				 "role", "user", "content", "hi\nthere");

	q.chat = 1;
	q.model = "m/x";
	q.prompt = "one two three";
	q.prompt_len = strlen(q.prompt);
	q.max_tokens = 7;
	q.stream = q.include_usage = q.ignore_eos = 1;
	ok(gp_oai_req_write(&b, &q) == 0, "chat request written");
	is_str(b.p, "{\"model\":\"m/x\",\"messages\":[{\"role\":\"user\",\"content\":\"one two three\"}],"
	       "\"max_tokens\":7,\"min_tokens\":7,\"ignore_eos\":true,\"stream\":true,"
	       "\"stream_options\":{\"include_usage\":true}}", "chat body exactly as vLLM reads it");
	ok(gp_oai_req_read(&in, 1, CT, b.p, b.len, &rej) == 0, "the reader accepts it");
	is_str(in.model, "m/x", "model");
	is_int(in.max_tokens, 7, "max_tokens");
	is_int(in.min_tokens, 7, "min_tokens");
	ok(in.ignore_eos && in.stream && in.include_usage, "ignore_eos, stream, include_usage");
	is_int(json_array_size(in.messages), 1, "one message");
	gp_oai_in_release(&in);

	q.strict = 1;
	q.max_completion_tokens = 1;
	q.messages = msgs;
	ok(gp_oai_req_write(&b, &q) == 0, "strict chat request with messages");
	ok(!strstr(b.p, "ignore_eos") && !strstr(b.p, "min_tokens"), "strict: no vLLM extras");
	ok(strstr(b.p, "\"max_completion_tokens\":7") != NULL, "max_completion_tokens named");
	ok(gp_oai_req_read(&in, 1, CT, b.p, b.len, &rej) == 0, "reader accepts the strict body");
	is_int(in.max_tokens, 7, "max_completion_tokens read as the limit");
	is_int(in.min_tokens, 0, "no min_tokens");
	is_str(json_string_value(json_object_get(json_array_get(in.messages, 1), "content")), "hi\nthere",
	       "messages kept verbatim (escapes survive)");
	gp_oai_in_release(&in);

	q.chat = 0;
	q.strict = 0;
	q.prompt = NULL;
	q.stream = 0;
	ok(gp_oai_req_write(&b, &q) == 0, "completions from messages");
	ok(gp_oai_req_read(&in, 0, "application/json; charset=utf-8", b.p, b.len, &rej) == 0,
	   "reader accepts it (charset parameter)");
	is_str(in.prompt, "be \"brief\"\nhi\nthere", "messages joined by newline into the prompt");
	ok(!in.stream && !in.include_usage, "stream false: no stream_options sent");
	gp_oai_in_release(&in);

	q.model = NULL;
	ok(gp_oai_req_write(&b, &q) == -1, "no model: refused");
	is_str(gp_oai_path(1), "/v1/chat/completions", "chat path");
	is_str(gp_oai_path(0), "/v1/completions", "completions path");
	json_decref(msgs);
	gp_buf_release(&b);
}

/* One rejection: status and the message the client reads back from it. */
static void rejects(int chat, const char *ct, const char *body, int status, const char *msg)
{
	struct gp_oai_in in;
	struct gp_oai_reject rej;
	char out[256];

	memset(&rej, 0, sizeof(rej));
	if (!ok(gp_oai_req_read(&in, chat, ct, body, strlen(body), &rej) == -1, "rejected: %s (%s)", body,
		ct ? ct : "no content type")) {
		gp_oai_in_release(&in);
		return;
	}
	is_int(rej.status, status, "status of %s", body);
	{
		json_t *o = json_loads(rej.body, 0, NULL);

		ok(o != NULL, "the error body is JSON: %s", rej.body);
		json_decref(o);
	}
	gp_oai_error_read(rej.body, strlen(rej.body), NULL, out, sizeof(out));
	is_str(out, msg, "the client reads the server's message back");
}

static void request_rejects(void)
{
	const char *ok_body = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}";
	struct gp_oai_in in;
	struct gp_oai_reject rej;

	/* FastAPI: a body not declared JSON is not parsed: 422 on "body". */
	rejects(1, "application/x-www-form-urlencoded", ok_body, 422, "body: value is not a valid dict");
	rejects(1, "text/plain", ok_body, 422, "body: value is not a valid dict");
	ok(gp_oai_req_read(&in, 1, NULL, ok_body, strlen(ok_body), &rej) == 0,
	   "no Content-Type at all: FastAPI reads the body as JSON");
	gp_oai_in_release(&in);
	ok(gp_oai_req_read(&in, 1, "application/vnd.api+json", ok_body, strlen(ok_body), &rej) == 0,
	   "application/...+json is JSON");
	gp_oai_in_release(&in);
	rejects(1, CT, "{\"model\":", 422, "body: unexpected token near end of file: line 1 column 9 (char 9)");
	/* fuzz-openai found it: jansson's message quotes raw input bytes, and a
	 * byte that is not UTF-8 made the 422 body invalid JSON. */
	rejects(1, CT, "{\"el\":\"6\\\xde\x92\"}", 422,
		"body: invalid escape near ''6''': line 1 column 10 (char 10)");
	rejects(1, CT, "[1]", 422, "body: value is not a valid dict");
	rejects(1, CT, "{\"model\":7,\"messages\":[]}", 422, "body.model: str type expected");
	ok(gp_oai_req_read(&in, 1, CT, "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}", 44, &rej) == 0 &&
	   in.model == NULL, "no model: accepted, model NULL (vLLM serves its own)");
	gp_oai_in_release(&in);
	rejects(1, CT, "{\"model\":\"m\"}", 422, "body.messages: field required");
	rejects(0, CT, "{\"model\":\"m\"}", 422, "body.prompt: field required");
	rejects(1, CT, "{\"model\":\"m\",\"messages\":[],\"max_tokens\":\"x\"}", 422,
		"body.max_tokens: value is not a valid integer");
	rejects(1, CT, "{\"model\":\"m\",\"messages\":[]}", 400, "messages must be a non-empty list");
	rejects(0, CT, "{\"model\":\"m\",\"prompt\":\"a\",\"max_tokens\":0}", 400, "max_tokens must be at least 1, got 0.");
	rejects(0, CT, "{\"model\":\"m\",\"prompt\":\"a\",\"max_tokens\":2,\"min_tokens\":3}", 400,
		"min_tokens must be less than or equal to max_tokens=2, got 3.");
	rejects(0, CT, "{\"model\":\"m\",\"prompt\":\"a\",\"stream_options\":{\"include_usage\":true}}", 400,
		"Stream options can only be defined when `stream=True`.");
	{
		char out[300];

		gp_oai_reject_model(&rej, "nope");
		is_int(rej.status, 404, "unknown model: 404");
		gp_oai_error_read(rej.body, strlen(rej.body), NULL, out, sizeof(out));
		is_str(out, "The model `nope` does not exist.", "vLLM's message for an unknown model");
		ok(strstr(rej.body, "\"type\":\"NotFoundError\"") != NULL, "vLLM's error type");
		gp_oai_reject_context(&rej, 100, 90, 20);
		is_int(rej.status, 400, "over the context: 400");
		gp_oai_error_read(rej.body, strlen(rej.body), NULL, out, sizeof(out));
		is_str(out, "This model's maximum context length is 100 tokens. However, you requested 110 "
		       "tokens (90 in the messages, 20 in the completion). Please reduce the length of the "
		       "messages or completion.", "vLLM's context-length message");
	}
}

static void round_trip_chunks(void)
{
	char head[256], buf[1024];
	struct gp_sse_chunk c;
	int n;

	n = gp_oai_chunk_head(head, sizeof(head), 1, "r\"1", 1700000000, "m");
	ok(n > 0, "chat head");
	is_str(head, "{\"id\":\"chatcmpl-r\\\"1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
	       "\"model\":\"m\",", "head escapes the id");
	n = gp_oai_chunk_role(buf, sizeof(buf), head);
	is_int(gp_oai_chunk_read(buf, (size_t)n, &c), GP_OAI_CHUNK, "role chunk reads");
	ok(!c.content && !c.finish, "role-only chunk is not content");
	is_str(c.id, "chatcmpl-r\"1", "id read back");
	n = gp_oai_chunk_content(buf, sizeof(buf), head, 1, "a \"b\" c ", 8);
	is_int(gp_oai_chunk_read(buf, (size_t)n, &c), GP_OAI_CHUNK, "content chunk reads");
	ok(c.content && !c.finish && c.completion_tokens == -1, "content chunk");
	n = gp_oai_chunk_final(buf, sizeof(buf), head, 1, "length");
	is_int(gp_oai_chunk_read(buf, (size_t)n, &c), GP_OAI_CHUNK, "final chunk reads");
	ok(!c.content && c.finish, "final chunk carries finish_reason only");
	n = gp_oai_chunk_usage(buf, sizeof(buf), head, 12, 34);
	is_int(gp_oai_chunk_read(buf, (size_t)n, &c), GP_OAI_CHUNK, "usage chunk reads");
	ok(!c.content && !c.finish, "usage chunk: empty choices");
	is_int(c.prompt_tokens, 12, "prompt_tokens");
	is_int(c.completion_tokens, 34, "completion_tokens");
	{
		json_t *o = json_loadb(buf, (size_t)n, 0, NULL);

		ok(json_is_array(json_object_get(o, "choices")), "usage chunk is JSON");
		json_decref(o);
	}
	n = gp_oai_chunk_head(head, sizeof(head), 0, "x", 1, "m");
	n = gp_oai_chunk_content(buf, sizeof(buf), head, 0, "w ", 2);
	is_int(gp_oai_chunk_read(buf, (size_t)n, &c), GP_OAI_CHUNK, "completions chunk reads");
	ok(c.content, "completions text is content");
	n = gp_oai_chunk_final(buf, sizeof(buf), head, 0, "stop");
	gp_oai_chunk_read(buf, (size_t)n, &c);
	ok(c.finish && !c.content, "completions final");
	is_int(gp_oai_chunk_content(buf, 20, head, 0, "w", 1), -1, "too small a buffer: -1");
	is_int(gp_oai_chunk_read("[DONE]", 6, &c), GP_OAI_DONE, "[DONE]");
	is_int(gp_oai_chunk_read("{\"id\":", 6, &c), GP_OAI_EBAD, "broken JSON: invalid framing");
	is_int(gp_oai_chunk_read("{\"error\":{\"message\":\"boom\"}}", 28, &c), GP_OAI_CHUNK, "error event");
	ok(c.has_error, "in-stream error seen");
}

static void whole_responses(void)
{
	struct gp_buf b = { 0 };
	json_t *o;

	ok(gp_oai_whole_write(&b, 1, "r\"1", 5, "m", "a b ", 4, "length", 3, 2) == 0, "whole chat written");
	o = json_loadb(b.p, b.len, 0, NULL);
	ok(o != NULL, "whole chat is JSON");
	is_str(json_string_value(json_object_get(o, "id")), "chatcmpl-r\"1", "id");
	is_str(json_string_value(json_object_get(o, "object")), "chat.completion", "object");
	is_str(json_string_value(json_object_get(json_object_get(json_array_get(json_object_get(o, "choices"), 0),
				 "message"), "content")), "a b ", "message content");
	is_int(json_integer_value(json_object_get(json_object_get(o, "usage"), "total_tokens")), 5, "usage total");
	json_decref(o);
	ok(gp_oai_whole_write(&b, 0, "x", 5, "m", "w ", 2, "stop", 1, 1) == 0, "whole completion written");
	o = json_loadb(b.p, b.len, 0, NULL);
	is_str(json_string_value(json_object_get(json_array_get(json_object_get(o, "choices"), 0), "text")), "w ",
	       "completion text");
	json_decref(o);
	gp_buf_release(&b);
}

static void error_bodies(void)
{
	char out[64];
	const char *key = "gp-test-key-123456";
	char body[256];

	gp_oai_error_read("{\"detail\":\"Not Found\"}", 22, NULL, out, sizeof(out));
	is_str(out, "Not Found", "FastAPI detail string");
	gp_oai_error_read("{\"message\":\"m1\"}", 16, NULL, out, sizeof(out));
	is_str(out, "m1", "top-level message");
	gp_oai_error_read("{\"error\":\"e1\"}", 14, NULL, out, sizeof(out));
	is_str(out, "e1", "error as a string");
	gp_oai_error_read("Bad\ngateway", 11, NULL, out, sizeof(out));
	is_str(out, "Bad gateway", "plain text, control characters blanked");
	snprintf(body, sizeof(body), "{\"error\":{\"message\":\"key %s refused; Bearer abc.def; sk-abcdefghijklmnop\"}}", key);
	gp_oai_error_read(body, strlen(body), key, out, sizeof(out));
	is_str(out, "key *** refused; Bearer ***; ***", "the key, a bearer token and an sk- key scrubbed");
	gp_oai_error_read("{\"message\":\"token ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 bad\"}", 60, NULL, out, sizeof(out));
	is_str(out, "token *** bad", "a long key-like word scrubbed");
	for (int i = 0; i < 200; i++)
		body[i] = i % 4 == 3 ? ' ' : 'x';
	body[200] = '\0';
	is_int(gp_oai_error_read(body, 200, NULL, out, 16), 15, "bounded to cap - 1");
	strcpy(body, "{\"message\":\"\xc3\xa9\xc3\xa9\xc3\xa9\"}");
	gp_oai_error_read(body, strlen(body), NULL, out, 6);
	is_str(out, "\xc3\xa9\xc3\xa9", "cut on a UTF-8 boundary");
	strcpy(body, "a*b");
	gp_oai_scrub(body, sizeof(body), "*");
	is_str(body, "a*b", "a secret that matches its own mask terminates");
}

int main(void)
{
	round_trip_requests();
	request_rejects();
	round_trip_chunks();
	error_bodies();
	whole_responses();
	return done_testing();
}
