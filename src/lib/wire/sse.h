/* SPDX-License-Identifier: MIT */
/*
 * sse — a strict, incremental Server-Sent Events parser (the event-stream
 * interpretation of the WHATWG HTML Living Standard, §9.2.6 "Interpreting an
 * event stream"), and the reader of one OpenAI streaming chunk.
 *
 * Feed it the body bytes of a response in any chunking, one call per chunk;
 * it keeps its state between calls and calls back once per dispatched event.
 *
 *   - Lines end in LF, CR or CRLF.  A CR that ends one chunk and an LF that
 *     starts the next are ONE line ending (the parser remembers the CR).
 *   - A leading UTF-8 BOM of the stream is skipped.
 *   - ":" starts a comment line (ignored).  "field: value" — one optional space
 *     after the colon is stripped; a line without a colon is a field with an
 *     empty value.  "data" lines are appended to the event's data buffer, each
 *     followed by "\n"; "event" sets the event type; "id" and "retry" are
 *     accepted and ignored; unknown fields are ignored.
 *   - A blank line dispatches: when the data buffer is empty nothing is
 *     dispatched; otherwise its final "\n" is removed and the callback gets
 *     the data.  Then the buffers are reset.
 *   - At end of stream an event that was not terminated by a blank line is
 *     discarded (gp_sse_finish reports whether one was pending).
 *
 * Bounds: the pending line plus the event's data may not exceed `max_event`
 * bytes; a stream that tries is rejected with GP_SSE_ETOOBIG and the parser
 * stays failed until gp_sse_reset.  Buffers grow geometrically up to that cap
 * and are kept across events and across gp_sse_reset, so a long stream costs
 * no allocation per event after its first few.  A complete line that lies
 * inside one chunk is processed in place, without a copy.
 *
 * Ownership: the data pointer passed to the callback is borrowed; it is valid
 * only during the call and is NUL-terminated at data[len].
 */
#ifndef GP_SSE_H
#define GP_SSE_H

#include <stddef.h>

enum {
	GP_SSE_OK = 0,
	GP_SSE_ETOOBIG = -1,	/* an event or line over max_event bytes */
	GP_SSE_ENOMEM = -2,
	GP_SSE_ESTOP = -3,	/* the callback returned non-zero */
};

/*
 * Called once per dispatched event.  `type` is the event type ("message"
 * when no "event" field was given).  Return 0 to continue; non-zero stops the
 * parser (gp_sse_feed then returns GP_SSE_ESTOP and the parser stays failed).
 */
typedef int (*gp_sse_cb)(const char *type, const char *data, size_t len, void *arg);

struct gp_sse {
	gp_sse_cb cb;
	void *arg;
	size_t max_event;
	char *line;		/* partial line carried across chunks */
	size_t line_len, line_cap;
	char *data;		/* data buffer of the event being built */
	size_t data_len, data_cap;
	char type[32];		/* event type; longer types are truncated */
	unsigned char type_len;
	unsigned char cr;	/* last byte seen was a CR */
	unsigned char bom;	/* bytes of a leading BOM matched so far (0..3), 4 = done */
	int err;		/* sticky error, 0 when healthy */
	unsigned long events;	/* events dispatched so far */
};

/* Initialise (no allocation).  max_event: the bound described above. */
void gp_sse_init(struct gp_sse *p, size_t max_event, gp_sse_cb cb, void *arg);
/* Forget the stream state and error (keep the buffers): ready for a new stream. */
void gp_sse_reset(struct gp_sse *p);
/* Free the buffers. */
void gp_sse_release(struct gp_sse *p);
/* Feed the next bytes of the stream.  GP_SSE_OK or a negative error. */
int gp_sse_feed(struct gp_sse *p, const char *buf, size_t len);
/*
 * End of stream.  Returns 1 when a partial event (an unterminated line or
 * data not yet dispatched) is discarded, 0 when the stream ended on an event
 * boundary, or the sticky negative error.
 */
int gp_sse_finish(struct gp_sse *p);
/* Bytes held by the parser's buffers (for memory accounting). */
size_t gp_sse_footprint(const struct gp_sse *p);

/*
 * One OpenAI streaming chunk (chat.completion.chunk or text_completion), as
 * read from an event's data by gp_sse_chunk_read.
 */
struct gp_sse_chunk {
	int content;		/* 1: a content-bearing event — non-empty
				 * choices[0].delta.content, delta.reasoning_content
				 * or delta.reasoning (chat), or choices[0].text */
	int finish;		/* 1: choices[0].finish_reason is a non-null string */
	long completion_tokens;	/* usage.completion_tokens, or -1 */
	long prompt_tokens;	/* usage.prompt_tokens, or -1 */
	int has_error;		/* 1: an in-stream {"error":…} object, or a flat
				 * {"object":"error","message":…} (vLLM's older shape) */
	char id[256];		/* the chunk's "id" ("" when absent; truncated) */
};

/*
 * Parse data[0..len) as one JSON object and read the fields above.  Returns
 * 0, or -1 when the data is not a JSON object (invalid framing).  The caller
 * handles the "[DONE]" sentinel before calling.
 */
int gp_sse_chunk_read(const char *data, size_t len, struct gp_sse_chunk *out);

#endif
