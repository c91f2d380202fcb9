/* SPDX-License-Identifier: MIT */
/*
 * sse-ref.h — the reference for gp_sse_chunk_read: the same fields read with
 * jansson (a validating parser), flags 0, top level an object.  Shared by the
 * unit test (tests/unit/t-sse.c) and the fuzz harness (tests/fuzz/fuzz-sse.c),
 * which both require our allocation-free reader to agree with it on
 * accept/reject and on every field.  Header-only, test code only.
 */
#ifndef GP_SSE_REF_H
#define GP_SSE_REF_H

#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "wire/sse.h"

static int sse_ref_nonempty(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_string(v) && json_string_length(v) > 0;
}

static int sse_ref_read(const char *data, size_t len, struct gp_sse_chunk *out)
{
	json_t *root = json_loadb(data, len, 0, NULL), *c0, *d, *u, *v;

	memset(out, 0, sizeof(*out));
	out->completion_tokens = out->prompt_tokens = -1;
	if (!json_is_object(root)) {
		json_decref(root);
		return -1;
	}
	v = json_object_get(root, "id");
	if (json_is_string(v))
		snprintf(out->id, sizeof(out->id), "%s", json_string_value(v));
	c0 = json_array_get(json_object_get(root, "choices"), 0);
	if (json_is_object(c0)) {
		d = json_object_get(c0, "delta");
		if (json_is_object(d))
			out->content = sse_ref_nonempty(d, "content") || sse_ref_nonempty(d, "reasoning_content") ||
				       sse_ref_nonempty(d, "reasoning");
		out->content = out->content || sse_ref_nonempty(c0, "text");
		out->finish = json_is_string(json_object_get(c0, "finish_reason"));
	}
	u = json_object_get(root, "usage");
	v = json_object_get(u, "completion_tokens");
	if (json_is_integer(v) && json_integer_value(v) >= 0)
		out->completion_tokens = (long)json_integer_value(v);
	v = json_object_get(u, "prompt_tokens");
	if (json_is_integer(v) && json_integer_value(v) >= 0)
		out->prompt_tokens = (long)json_integer_value(v);
	out->has_error = json_is_object(json_object_get(root, "error"));
	json_decref(root);
	return 0;
}

#endif
