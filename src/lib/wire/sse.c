/* SPDX-License-Identifier: MIT */
/* sse — incremental WHATWG event-stream parser and OpenAI chunk reader. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "wire/sse.h"
#include "base/banned.h"

void gp_sse_init(struct gp_sse *p, size_t max_event, gp_sse_cb cb, void *arg)
{
	memset(p, 0, sizeof(*p));
	p->max_event = max_event ? max_event : 1;
	p->cb = cb;
	p->arg = arg;
}

void gp_sse_reset(struct gp_sse *p)
{
	p->line_len = p->data_len = 0;
	p->type_len = 0;
	p->cr = 0;
	p->bom = 0;
	p->err = 0;
	p->events = 0;
}

void gp_sse_release(struct gp_sse *p)
{
	free(p->line);
	free(p->data);
	p->line = p->data = NULL;
	p->line_cap = p->data_cap = 0;
	gp_sse_reset(p);
}

size_t gp_sse_footprint(const struct gp_sse *p)
{
	return p->line_cap + p->data_cap;
}

/* Make room for `need` bytes (+1 for a NUL) in *buf; the caller has already
 * checked need against max_event, so growth stops at the cap. */
static int grow(char **buf, size_t *cap, size_t need, size_t max)
{
	size_t c = *cap ? *cap : 128;
	char *n;

	if (need + 1 <= *cap)
		return 0;
	while (c < need + 1)
		c *= 2;
	if (c > max + 1)
		c = max + 1;
	n = realloc(*buf, c);
	if (!n)
		return GP_SSE_ENOMEM;
	*buf = n;
	*cap = c;
	return 0;
}

static int fail(struct gp_sse *p, int err)
{
	p->err = err;
	return err;
}

static int dispatch(struct gp_sse *p)
{
	static const char message[] = "message";
	const char *type;
	int r;

	if (!p->data_len) {		/* WHATWG: empty data buffer, no event */
		p->type_len = 0;
		return 0;
	}
	p->data_len--;			/* drop the final "\n" */
	p->data[p->data_len] = '\0';
	p->type[p->type_len] = '\0';
	type = p->type_len ? p->type : message;
	p->events++;
	r = p->cb ? p->cb(type, p->data, p->data_len, p->arg) : 0;
	p->data_len = 0;
	p->type_len = 0;
	return r ? fail(p, GP_SSE_ESTOP) : 0;
}

static int field(struct gp_sse *p, const char *s, size_t n)
{
	const char *colon, *v;
	size_t flen, vlen;

	if (n == 0)
		return dispatch(p);
	if (s[0] == ':')
		return 0;		/* comment */
	colon = memchr(s, ':', n);
	if (colon) {
		flen = (size_t)(colon - s);
		v = colon + 1;
		vlen = n - flen - 1;
		if (vlen && *v == ' ') {
			v++;
			vlen--;
		}
	} else {
		flen = n;
		v = s + n;
		vlen = 0;
	}
	if (flen == 4 && !memcmp(s, "data", 4)) {
		if (p->data_len + vlen + 1 > p->max_event)
			return fail(p, GP_SSE_ETOOBIG);
		if (grow(&p->data, &p->data_cap, p->data_len + vlen + 1, p->max_event))
			return fail(p, GP_SSE_ENOMEM);
		memcpy(p->data + p->data_len, v, vlen);
		p->data_len += vlen;
		p->data[p->data_len++] = '\n';
	} else if (flen == 5 && !memcmp(s, "event", 5)) {
		if (vlen > sizeof(p->type) - 1)
			vlen = sizeof(p->type) - 1;
		memcpy(p->type, v, vlen);
		p->type_len = (unsigned char)vlen;
	}
	/* "id", "retry" and unknown fields: ignored. */
	return 0;
}

/* Append bytes of an unfinished line to the carry buffer. */
static int carry(struct gp_sse *p, const char *s, size_t n)
{
	if (p->line_len + n + p->data_len > p->max_event)
		return fail(p, GP_SSE_ETOOBIG);
	if (grow(&p->line, &p->line_cap, p->line_len + n, p->max_event))
		return fail(p, GP_SSE_ENOMEM);
	memcpy(p->line + p->line_len, s, n);
	p->line_len += n;
	return 0;
}

int gp_sse_feed(struct gp_sse *p, const char *buf, size_t len)
{
	static const unsigned char bom[3] = { 0xEF, 0xBB, 0xBF };
	const char *s = buf, *end = buf + len;
	int r;

	if (p->err)
		return p->err;
	while (p->bom < 3 && s < end) {
		if ((unsigned char)*s == bom[p->bom]) {
			p->bom++;
			s++;
			continue;
		}
		/* Not a BOM after all: the bytes matched so far are text. */
		if (p->bom && (r = carry(p, (const char *)bom, p->bom)))
			return r;
		p->bom = 4;
	}
	if (p->bom == 3 && s < end)
		p->bom = 4;
	if (p->cr && s < end) {		/* CR ended the last chunk: CRLF split */
		if (*s == '\n')
			s++;
		p->cr = 0;
	}
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *lim = nl ? nl : end;
		const char *q = memchr(s, '\r', (size_t)(lim - s));

		if (!q)
			q = nl;
		if (!q)
			return carry(p, s, (size_t)(end - s));
		if (p->line_len) {
			size_t n;

			if ((r = carry(p, s, (size_t)(q - s))))
				return r;
			n = p->line_len;
			p->line_len = 0;	/* field() copies what it keeps */
			r = field(p, p->line, n);
		} else {
			if ((size_t)(q - s) + p->data_len > p->max_event)
				return fail(p, GP_SSE_ETOOBIG);
			r = field(p, s, (size_t)(q - s));
		}
		if (r)
			return r;
		if (*q == '\r') {
			if (q + 1 < end) {
				if (q[1] == '\n')
					q++;
			} else {
				p->cr = 1;
			}
		}
		s = q + 1;
	}
	return 0;
}

int gp_sse_finish(struct gp_sse *p)
{
	int partial;

	if (p->err)
		return p->err;
	partial = p->line_len > 0 || p->data_len > 0;
	p->line_len = p->data_len = 0;
	p->type_len = 0;
	p->cr = 0;
	return partial;
}

/* ---- OpenAI streaming chunk ----
 *
 * A strict RFC 8259 JSON reader that allocates nothing and walks the event's
 * data once, keeping only the handful of fields gp-replay needs.  It accepts
 * exactly what a validating parser accepts (UTF-8 checked, escapes checked,
 * surrogate pairs matched, no raw control characters, the number grammar,
 * one top-level value with only whitespace around it), with two additions
 * kept in step with jansson, which the unit test holds it against: "\u0000"
 * is refused and nesting deeper than GP_JSON_DEPTH levels is refused.
 * Duplicate keys are allowed; the last one wins.
 */

#define GP_JSON_DEPTH 64

/* Where a value sits, for the fields we keep. */
enum ctx { C_OTHER, C_ROOT, C_CHOICES, C_CHOICE0, C_DELTA, C_USAGE };
/* Which field a string, number or object value is. */
enum fld {
	F_NONE, F_ID, F_CONTENT, F_REASONING_CONTENT, F_REASONING, F_TEXT, F_FINISH,
	F_COMPLETION, F_PROMPT, F_ERROR, F_CHOICES, F_USAGE, F_DELTA, F_OBJECT,
};

/* The last value seen for each key we keep (duplicate keys: last wins). */
struct jr {
	const unsigned char *p, *end;
	struct gp_sse_chunk *out;
	unsigned char d_content, d_reasoning_content, d_reasoning, text, finish, error, flat_error;
	long completion, prompt;
	enum fld cur;		/* which delta key is being read (F_CONTENT + k) */
};

static void skip_ws(struct jr *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int hex4(const unsigned char *s, unsigned *v)
{
	unsigned x = 0;
	int i;

	for (i = 0; i < 4; i++) {
		unsigned c = s[i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		x = x * 16 + d;
	}
	*v = x;
	return 0;
}

/*
 * Append code point cp as UTF-8 to dst (bounded, NUL kept).  Kept out of
 * line: inlined into read_string's one call site it made the plain-run loop
 * 5-8 % slower (measured against the previous read_string, side by side).
 */
__attribute__((noinline)) static void put_utf8(char *dst, size_t cap, size_t *n, unsigned cp)
{
	unsigned char b[4];
	size_t k, i;

	if (cp < 0x80) {
		b[0] = (unsigned char)cp; k = 1;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xC0 | cp >> 6); b[1] = (unsigned char)(0x80 | (cp & 0x3F)); k = 2;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xE0 | cp >> 12); b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (unsigned char)(0x80 | (cp & 0x3F)); k = 3;
	} else {
		b[0] = (unsigned char)(0xF0 | cp >> 18); b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
		b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F)); b[3] = (unsigned char)(0x80 | (cp & 0x3F)); k = 4;
	}
	if (*n + k >= cap)
		return;		/* truncated at a character boundary */
	for (i = 0; i < k; i++)
		dst[(*n)++] = (char)b[i];
	dst[*n] = '\0';
}

/* Bytes that stand for themselves inside a JSON string: printable ASCII
 * except '"' and '\\'.  The hot loop skips runs of them. */
static const unsigned char plain[256] = {
	['\x20'] = 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/*
 * The escape at p (on its backslash): its code point to *cp and the bytes
 * it takes (2, 6, or 12 for a surrogate pair), or 0 when it is not a JSON
 * escape, is cut short, is \u0000 or a lone surrogate.
 */
static size_t read_escape(const unsigned char *p, const unsigned char *end, unsigned *cp)
{
	unsigned lo;

	if (p + 1 >= end)
		return 0;
	switch (p[1]) {
	case '"': *cp = '"'; return 2;
	case '\\': *cp = '\\'; return 2;
	case '/': *cp = '/'; return 2;
	case 'b': *cp = '\b'; return 2;
	case 'f': *cp = '\f'; return 2;
	case 'n': *cp = '\n'; return 2;
	case 'r': *cp = '\r'; return 2;
	case 't': *cp = '\t'; return 2;
	case 'u':
		if (end - p < 6 || hex4(p + 2, cp) || *cp == 0)
			return 0;
		if (*cp >= 0xDC00 && *cp <= 0xDFFF)
			return 0;	/* lone low surrogate */
		if (*cp < 0xD800 || *cp > 0xDBFF)
			return 6;
		if (end - p < 12 || p[6] != '\\' || p[7] != 'u' || hex4(p + 8, &lo) || lo < 0xDC00 ||
		    lo > 0xDFFF)
			return 0;
		*cp = 0x10000 + ((*cp - 0xD800) << 10) + (lo - 0xDC00);
		return 12;
	default:
		return 0;
	}
}

/*
 * A string at j->p (on the opening quote).  Sets *nonempty; copies the
 * decoded text into dst when dst is not NULL (cut at a character boundary
 * to cap − 1 bytes).  0 or -1.  The hot path is the run of plain bytes
 * (one table look-up a byte, one memcpy a run); escapes and UTF-8 are
 * checked one at a time.
 */
static int read_string(struct jr *j, int *nonempty, char *dst, size_t cap)
{
	const unsigned char *p = j->p + 1, *end = j->end;
	size_t n = 0;

	if (dst)
		dst[0] = '\0';
	*nonempty = 0;
	for (;;) {
		const unsigned char *q = p;
		unsigned c, cp;
		size_t k;

		while (q < end && plain[*q])
			q++;
		if (q > p) {
			*nonempty = 1;
			if (dst) {
				k = (size_t)(q - p);
				if (n + k >= cap)
					k = n + 1 < cap ? cap - n - 1 : 0;
				memcpy(dst + n, p, k);
				n += k;
				dst[n] = '\0';
			}
			p = q;
		}
		if (p >= end)
			return -1;
		c = *p;
		if (c == '"') {
			j->p = p + 1;
			return 0;
		}
		*nonempty = 1;
		if (c < 0x20)
			return -1;
		if (c == '\\')
			k = read_escape(p, end, &cp);
		else if (c < 0x80)
			k = 1, cp = c;	/* not reached while plain[] holds all of ASCII but '"' and '\\' */
		else
			k = gp_utf8_decode((const char *)p, (size_t)(end - p), &cp);	/* buf.h */
		if (!k)
			return -1;
		if (dst)
			put_utf8(dst, cap, &n, cp);
		p += k;
	}
}

static int read_number(struct jr *j, long *ival)
{
	const unsigned char *p = j->p, *start = p, *end = j->end;
	int neg = 0, integer = 1, digits = 0;
	long v = 0;

	if (p < end && *p == '-') {
		neg = 1;
		p++;
	}
	if (p >= end)
		return -1;
	if (*p == '0') {
		p++;
		digits = 1;
	} else if (*p >= '1' && *p <= '9') {
		while (p < end && *p >= '0' && *p <= '9') {
			if (digits++ < 18)
				v = v * 10 + (*p - '0');
			p++;
		}
	} else {
		return -1;
	}
	if (p < end && *p == '.') {
		integer = 0;
		p++;
		if (p >= end || *p < '0' || *p > '9')
			return -1;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		integer = 0;
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (p >= end || *p < '0' || *p > '9')
			return -1;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	}
	j->p = p;
	if ((integer && digits > 18) || !integer) {
		/* The rare slow path: let the C library judge the range.  A
		 * token too long for buf is read in place: strtoll/strtod stop
		 * at p, the first byte after the token, so they read no further
		 * than *p — which must lie inside the data (it does in a valid
		 * chunk: a number never ends an object). */
		char buf[128];
		const char *s = buf;
		size_t n = (size_t)(p - start);

		if (n < sizeof(buf)) {
			memcpy(buf, start, n);
			buf[n] = '\0';
		} else if (p < end) {
			s = (const char *)start;
		} else {
			return -1;
		}
		errno = 0;
		if (integer) {
			long long ll = strtoll(s, NULL, 10);

			if (errno == ERANGE)
				return -1;
			v = (long)ll;
		} else if (isinf(strtod(s, NULL))) {
			return -1;
		}
	}
	*ival = integer && (!neg || v == 0) ? v : -1;	/* -0 is 0, as jansson reads it */
	return 0;
}

static int read_literal(struct jr *j, const char *lit, size_t n)
{
	if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n))
		return -1;
	j->p += n;
	return 0;
}

/* Context and field of key k (length n) inside an object in context c. */
static void classify_key(enum ctx c, const unsigned char *k, size_t n, enum ctx *child, enum fld *f)
{
	*child = C_OTHER;
	*f = F_NONE;
#define KEY(s) (n == sizeof(s) - 1 && !memcmp(k, s, n))
	switch (c) {
	case C_ROOT:
		if (KEY("id"))
			*f = F_ID;
		else if (KEY("choices"))
			*child = C_CHOICES, *f = F_CHOICES;
		else if (KEY("usage"))
			*child = C_USAGE, *f = F_USAGE;
		else if (KEY("error"))
			*f = F_ERROR;
		else if (KEY("object"))
			*f = F_OBJECT;
		break;
	case C_CHOICE0:
		if (KEY("delta"))
			*child = C_DELTA, *f = F_DELTA;
		else if (KEY("text"))
			*f = F_TEXT;
		else if (KEY("finish_reason"))
			*f = F_FINISH;
		break;
	case C_DELTA:
		if (KEY("content"))
			*f = F_CONTENT;
		else if (KEY("reasoning_content"))
			*f = F_REASONING_CONTENT;
		else if (KEY("reasoning"))
			*f = F_REASONING;
		break;
	case C_USAGE:
		if (KEY("completion_tokens"))
			*f = F_COMPLETION;
		else if (KEY("prompt_tokens"))
			*f = F_PROMPT;
		break;
	default:
		break;
	}
#undef KEY
}

static int read_value(struct jr *j, enum ctx c, enum fld f, int depth);

/*
 * After a member or element: 1 at the closing bracket (consumed), 0 after a
 * comma (consumed, with the white space behind it), -1 otherwise.
 */
static int next_or_close(struct jr *j, char close)
{
	skip_ws(j);
	if (j->p >= j->end)
		return -1;
	if (*j->p == close) {
		j->p++;
		return 1;
	}
	if (*j->p != ',')
		return -1;
	j->p++;
	skip_ws(j);
	return 0;
}

static int read_object(struct jr *j, enum ctx c, int depth)
{
	int more;

	j->p++;				/* '{' */
	skip_ws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
		return 0;
	}
	for (;;) {
		const unsigned char *k;
		enum ctx child;
		enum fld f;
		int ne;

		if (j->p >= j->end || *j->p != '"')
			return -1;
		k = j->p + 1;
		if (c == C_OTHER) {
			if (read_string(j, &ne, NULL, 0))
				return -1;
			child = C_OTHER;
			f = F_NONE;
		} else {
			/* Decoded, so an escaped spelling of a key still matches;
			 * 128 bytes hold any of ours even fully \\u-escaped, and a
			 * longer raw key is compared by its raw length (no match). */
			char key[128];
			size_t raw;

			if (read_string(j, &ne, key, sizeof(key)))
				return -1;
			raw = (size_t)(j->p - 1 - k);
			classify_key(c, (const unsigned char *)key, raw < sizeof(key) ? strlen(key) : raw,
				     &child, &f);
		}
		skip_ws(j);
		if (j->p >= j->end || *j->p != ':')
			return -1;
		j->p++;
		skip_ws(j);
		if (read_value(j, child, f, depth + 1))
			return -1;
		if ((more = next_or_close(j, '}')))
			return more < 0 ? -1 : 0;
	}
}

static int read_array(struct jr *j, enum ctx c, int depth)
{
	int i = 0, k;

	j->p++;				/* '[' */
	skip_ws(j);
	if (j->p < j->end && *j->p == ']') {
		j->p++;
		return 0;
	}
	for (;; i++) {
		if (read_value(j, c == C_CHOICES && i == 0 ? C_CHOICE0 : C_OTHER, F_NONE, depth + 1))
			return -1;
		if ((k = next_or_close(j, ']')))
			return k < 0 ? -1 : 0;
	}
}

/* A new value for key f: forget what an earlier duplicate of it said. */
static void reset_field(struct jr *j, enum fld f)
{
	switch (f) {
	case F_ID: j->out->id[0] = '\0'; break;
	case F_CONTENT: j->d_content = 0; break;
	case F_REASONING_CONTENT: j->d_reasoning_content = 0; break;
	case F_REASONING: j->d_reasoning = 0; break;
	case F_TEXT: j->text = 0; break;
	case F_FINISH: j->finish = 0; break;
	case F_COMPLETION: j->completion = -1; break;
	case F_PROMPT: j->prompt = -1; break;
	case F_ERROR: j->error = 0; break;
	case F_OBJECT: j->flat_error = 0; break;
	case F_CHOICES:
		j->d_content = j->d_reasoning_content = j->d_reasoning = j->text = j->finish = 0;
		break;
	case F_DELTA: j->d_content = j->d_reasoning_content = j->d_reasoning = 0; break;
	case F_USAGE: j->completion = j->prompt = -1; break;
	default: break;
	}
}

static int read_value(struct jr *j, enum ctx c, enum fld f, int depth)
{
	int ne;
	long iv;

	if (depth > GP_JSON_DEPTH || j->p >= j->end)
		return -1;
	reset_field(j, f);
	switch (*j->p) {
	case '{':
		if (f == F_ERROR)
			j->error = 1;
		return read_object(j, c, depth);
	case '[':
		/* choices[0] is only the choice when choices is an array. */
		return read_array(j, c, depth);
	case '"':
		if (f == F_ID)
			return read_string(j, &ne, j->out->id, sizeof(j->out->id));
		if (f == F_OBJECT) {
			char obj[8];

			if (read_string(j, &ne, obj, sizeof(obj)))
				return -1;
			j->flat_error = !strcmp(obj, "error");
			return 0;
		}
		if (read_string(j, &ne, NULL, 0))
			return -1;
		switch (f) {
		case F_CONTENT: j->d_content = (unsigned char)ne; break;
		case F_REASONING_CONTENT: j->d_reasoning_content = (unsigned char)ne; break;
		case F_REASONING: j->d_reasoning = (unsigned char)ne; break;
		case F_TEXT: j->text = (unsigned char)ne; break;
		case F_FINISH: j->finish = 1; break;
		default: break;
		}
		return 0;
	case 't':
		return read_literal(j, "true", 4);
	case 'f':
		return read_literal(j, "false", 5);
	case 'n':
		return read_literal(j, "null", 4);
	default:
		if (read_number(j, &iv))
			return -1;
		if (f == F_COMPLETION)
			j->completion = iv;
		if (f == F_PROMPT)
			j->prompt = iv;
		return 0;
	}
}

int gp_sse_chunk_read(const char *data, size_t len, struct gp_sse_chunk *out)
{
	struct jr j;

	memset(&j, 0, sizeof(j));
	j.p = (const unsigned char *)data;
	j.end = j.p + len;
	j.out = out;
	j.completion = j.prompt = -1;
	out->id[0] = '\0';
	skip_ws(&j);
	if (j.p >= j.end || *j.p != '{' || read_object(&j, C_ROOT, 1))
		goto bad;
	skip_ws(&j);
	if (j.p != j.end)
		goto bad;
	out->content = j.d_content || j.d_reasoning_content || j.d_reasoning || j.text;
	out->finish = j.finish;
	out->completion_tokens = j.completion;
	out->prompt_tokens = j.prompt;
	out->has_error = j.error || j.flat_error;
	return 0;
bad:
	out->content = out->finish = out->has_error = 0;
	out->completion_tokens = out->prompt_tokens = -1;
	out->id[0] = '\0';
	return -1;
}
