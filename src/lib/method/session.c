/* SPDX-License-Identifier: MIT */
/* session — multi-turn sessions: turns, the ready heap, the failed-turn
 * policy and the history prompt (the header states the rules). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "method/session.h"

static int nomem(void)
{
	errno = ENOMEM;
	return -1;
}

static void *nomem_null(void)
{
	errno = ENOMEM;
	return NULL;
}

/* *dst = a copy of s, or NULL for NULL; -1 when out of memory. */
static int dup_or_null(char **dst, const char *s)
{
	*dst = s ? strdup(s) : NULL;
	return s && !*dst ? nomem() : 0;
}

static void turn_release(struct gp_sess_turn *t)
{
	free(t->id);
	free(t->hash_ids);
	free(t->prompt);
	free(t->cache_key);
	free(t->answer);
	json_decref(t->messages);
}

void gp_sessions_init(struct gp_sessions *ss, enum gp_sess_policy policy)
{
	memset(ss, 0, sizeof(*ss));
	ss->policy = policy;
}

void gp_sessions_release(struct gp_sessions *ss)
{
	for (size_t i = 0; i < ss->nall; i++) {
		struct gp_session *s = ss->all[i];

		for (size_t j = 0; j < s->nturns; j++)
			turn_release(&s->turn[j]);
		free(s->turn);
		free(s->name);
		free(s);
	}
	free(ss->all);
	json_decref(ss->by_name);
	free(ss->heap);
	gp_sessions_init(ss, ss->policy);
}

int gp_sess_policy_parse(const char *s, enum gp_sess_policy *p)
{
	if (!strcmp(s, "continue"))
		*p = GP_SESS_CONTINUE;
	else if (!strcmp(s, "abandon"))
		*p = GP_SESS_ABANDON;
	else
		return -1;
	return 0;
}

const char *gp_sess_policy_name(enum gp_sess_policy p)
{
	return p == GP_SESS_ABANDON ? "abandon" : "continue";
}

struct gp_session *gp_sessions_add(struct gp_sessions *ss, const struct gp_trace_rec *r,
				   unsigned long index)
{
	struct gp_session *s = gp_sessions_get(ss, r->session);
	struct gp_sess_turn t = { 0 }, *v;

	if (!s) {
		struct gp_session **a = ss->all;
		json_t *i;

		if (!ss->by_name && !(ss->by_name = json_object()))
			return nomem_null();
		if (ss->nall == ss->capall &&
		    !(a = gp_grow(ss->all, &ss->capall, ss->nall + 1, sizeof(*ss->all), 64)))
			return nomem_null();
		ss->all = a;
		if (!(s = calloc(1, sizeof(*s))) || !(s->name = strdup(r->session))) {
			free(s);
			return nomem_null();
		}
		s->heap_i = GP_SESS_NOHEAP;
		i = json_integer((json_int_t)ss->nall);
		if (json_object_set_new_nocheck(ss->by_name, r->session, i)) {
			free(s->name);
			free(s);
			return nomem_null();
		}
		ss->all[ss->nall++] = s;
	}
	if (s->nturns == s->cap) {
		if (!(v = gp_grow(s->turn, &s->cap, s->nturns + 1, sizeof(*s->turn), 4)))
			return nomem_null();
		s->turn = v;
	}
	t.in_tokens = r->input_tokens;
	t.out_tokens = r->output_tokens;
	t.think_s = r->think_s;
	t.index = index;
	t.got_out = -1;
	if (dup_or_null(&t.id, r->id) ||
	    dup_or_null(&t.prompt, r->messages ? NULL : r->prompt) ||
	    dup_or_null(&t.cache_key, r->cache_key))
		goto nomem;
	if (r->n_hash_ids) {
		if (!(t.hash_ids = malloc(r->n_hash_ids * sizeof(*t.hash_ids))))
			goto nomem;
		memcpy(t.hash_ids, r->hash_ids, r->n_hash_ids * sizeof(*t.hash_ids));
		t.n_hash_ids = r->n_hash_ids;
	}
	if (r->messages)
		t.messages = json_incref(r->messages);
	s->turn[s->nturns++] = t;
	return s;
nomem:
	turn_release(&t);
	return nomem_null();
}

struct gp_session *gp_sessions_get(const struct gp_sessions *ss, const char *name)
{
	json_t *i = ss->by_name ? json_object_get(ss->by_name, name) : NULL;

	return i ? ss->all[(size_t)json_integer_value(i)] : NULL;
}

size_t gp_sessions_count(const struct gp_sessions *ss)
{
	return ss->nall;
}

size_t gp_sessions_bytes(const struct gp_sessions *ss)
{
	size_t b = ss->capheap * sizeof(*ss->heap) + ss->capall * sizeof(*ss->all);

	for (size_t i = 0; i < ss->nall; i++) {
		const struct gp_session *s = ss->all[i];

		b += sizeof(*s) + s->cap * sizeof(*s->turn) + strlen(s->name) + 1;
		for (size_t j = 0; j < s->nturns; j++) {
			const struct gp_sess_turn *t = &s->turn[j];

			b += strlen(t->id) + 1 + t->n_hash_ids * sizeof(*t->hash_ids);
			b += t->prompt ? strlen(t->prompt) + 1 : 0;
			b += t->cache_key ? strlen(t->cache_key) + 1 : 0;
			b += t->answer ? t->answer_len + 1 : 0;
		}
	}
	return b;
}

/* ---- the ready heap: min on (ready_ns, trace index of the next turn) ---- */

static int before(const struct gp_session *a, const struct gp_session *b)
{
	if (a->ready_ns != b->ready_ns)
		return a->ready_ns < b->ready_ns;
	return a->turn[a->next].index < b->turn[b->next].index;
}

static void heap_set(struct gp_sessions *ss, size_t i, struct gp_session *s)
{
	ss->heap[i] = s;
	s->heap_i = i;
}

static void sift_up(struct gp_sessions *ss, size_t i)
{
	struct gp_session *s = ss->heap[i];

	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (!before(s, ss->heap[p]))
			break;
		heap_set(ss, i, ss->heap[p]);
		i = p;
	}
	heap_set(ss, i, s);
}

static void sift_down(struct gp_sessions *ss, size_t i)
{
	struct gp_session *s = ss->heap[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= ss->nheap)
			break;
		if (c + 1 < ss->nheap && before(ss->heap[c + 1], ss->heap[c]))
			c++;
		if (!before(ss->heap[c], s))
			break;
		heap_set(ss, i, ss->heap[c]);
		i = c;
	}
	heap_set(ss, i, s);
}

int gp_sessions_push(struct gp_sessions *ss, struct gp_session *s, int64_t t)
{
	if (ss->nheap == ss->capheap) {
		struct gp_session **h = gp_grow(ss->heap, &ss->capheap, ss->nheap + 1,
						sizeof(*ss->heap), 64);

		if (!h)
			return nomem();
		ss->heap = h;
	}
	s->ready_ns = t;
	ss->heap[ss->nheap++] = s;
	sift_up(ss, ss->nheap - 1);
	return 0;
}

struct gp_session *gp_sessions_pop(struct gp_sessions *ss)
{
	struct gp_session *s;

	if (!ss->nheap)
		return NULL;
	s = ss->heap[0];
	s->heap_i = GP_SESS_NOHEAP;
	if (--ss->nheap) {
		ss->heap[0] = ss->heap[ss->nheap];
		sift_down(ss, 0);
	}
	return s;
}

/* ---- the closed loop ---- */

enum gp_sess_next gp_session_done(const struct gp_sessions *ss, struct gp_session *s, int ok,
				  long got_out, int64_t end_ns, int64_t *ready_ns)
{
	struct gp_sess_turn *t;

	if (s->next == 0 || s->next > s->nturns)
		return GP_SESS_END;
	t = &s->turn[s->next - 1];
	t->got_out = ok && got_out >= 0 ? got_out : -1;
	if (s->next == s->nturns)
		return GP_SESS_END;
	if (!ok && ss->policy == GP_SESS_ABANDON)
		return GP_SESS_ABANDONED;
	*ready_ns = end_ns + (int64_t)(s->turn[s->next].think_s * 1e9 + 0.5);
	return GP_SESS_READY;
}

int gp_session_real(const struct gp_session *s, size_t k)
{
	return k >= 1 && k <= s->nturns && (s->turn[k - 1].prompt || s->turn[k - 1].messages);
}

int gp_session_keep_answer(struct gp_session *s, const char *text, size_t n)
{
	struct gp_sess_turn *t;
	char *a;

	if (s->next == 0 || s->next > s->nturns)
		return 0;
	t = &s->turn[s->next - 1];
	if (!(a = malloc(n + 1)))
		return nomem();
	memcpy(a, text, n);
	a[n] = '\0';
	free(t->answer);
	t->answer = a;
	t->answer_len = n;
	return 0;
}

void gp_session_give_up(struct gp_session *s)
{
	s->next = s->nturns;
}

/* ---- the prompt ---- */

/* The helpers below append to b: 0, or -1 when out of memory (b then
 * holds part of the text; the caller releases it). */

static int synth_into(struct gp_buf *b, long n, const int64_t *ids, size_t nids, long bt,
		      const char *salt)
{
	size_t need = gp_trace_synth_prompt(NULL, 0, n, ids, nids, bt, salt);

	if (gp_buf_reserve(b, need + 1))
		return nomem();
	gp_trace_synth_prompt(b->p + b->len, need + 1, n, ids, nids, bt, salt);
	b->len += need;
	return 0;
}

static int add(struct gp_buf *b, const char *s, size_t n)
{
	return gp_buf_add(b, s, n) ? nomem() : 0;
}

/* The answer of turn t: the text kept, else got_out words salted
 * "<id>#answer". */
static int answer_into(struct gp_buf *b, const struct gp_sess_turn *t)
{
	size_t n = strlen(t->id);
	char *salt;
	int e;

	if (t->answer)
		return add(b, t->answer, t->answer_len);
	if (!(salt = malloc(n + 8)))
		return nomem();
	memcpy(salt, t->id, n);
	memcpy(salt + n, "#answer", 8);
	e = synth_into(b, t->got_out, NULL, 0, 0, salt);
	free(salt);
	return e;
}

/* The message of turn t as text (completions). */
static int message_into(struct gp_buf *b, const struct gp_sess_turn *t, long bt)
{
	size_t i;
	json_t *m;
	int first = 1;

	if (t->prompt)
		return add(b, t->prompt, strlen(t->prompt));
	if (!t->messages)
		return synth_into(b, t->in_tokens, t->hash_ids, t->n_hash_ids, bt, t->id);
	json_array_foreach(t->messages, i, m) {
		const char *c = json_string_value(json_object_get(m, "content"));

		if (!c)
			continue;
		if ((!first && add(b, "\n", 1)) || add(b, c, strlen(c)))
			return -1;
		first = 0;
	}
	return 0;
}

long gp_session_prompt(const struct gp_session *s, size_t k, long block_tokens, struct gp_buf *b)
{
	long tokens = 0;

	if (k < 1 || k > s->nturns)
		return 0;
	for (size_t j = 0; j + 1 < k; j++) {
		const struct gp_sess_turn *t = &s->turn[j];

		if (t->got_out < 0)
			continue;	/* failed: not in the history */
		if (message_into(b, t, block_tokens) || add(b, " ", 1))
			return -1;
		if ((t->answer ? t->answer_len > 0 : t->got_out > 0) &&
		    (answer_into(b, t) || add(b, " ", 1)))
			return -1;
		tokens += t->in_tokens + t->got_out;
	}
	if (message_into(b, &s->turn[k - 1], block_tokens))
		return -1;
	return tokens + s->turn[k - 1].in_tokens;
}

static int push_msg(json_t *a, const char *role, const char *text, size_t n)
{
	json_t *m = json_object();

	/* The _new setters take their value's reference even when they fail. */
	if (!m || json_object_set_new(m, "role", json_string(role)) ||
	    json_object_set_new(m, "content", json_stringn(text, n))) {
		json_decref(m);
		return -1;
	}
	return json_array_append_new(a, m);
}

/* The messages of turn t into a. */
static int turn_msgs(json_t *a, const struct gp_sess_turn *t, long bt, struct gp_buf *b)
{
	if (t->messages) {
		size_t i;
		json_t *m;

		json_array_foreach(t->messages, i, m)
			if (json_array_append(a, m))
				return -1;
		return 0;
	}
	b->len = 0;
	if (message_into(b, t, bt))
		return -1;
	return push_msg(a, "user", b->p ? b->p : "", b->len);
}

json_t *gp_session_messages(const struct gp_session *s, size_t k, long block_tokens, long *tokens)
{
	json_t *a = json_array();
	struct gp_buf b = { 0 };
	long n = 0;
	int rc = !a;

	if (k < 1 || k > s->nturns)
		rc = 1;
	for (size_t j = 0; !rc && j + 1 < k; j++) {
		const struct gp_sess_turn *t = &s->turn[j];

		if (t->got_out < 0)
			continue;
		rc |= turn_msgs(a, t, block_tokens, &b);
		b.len = 0;
		rc = rc || answer_into(&b, t) || push_msg(a, "assistant", b.p ? b.p : "", b.len);
		n += t->in_tokens + t->got_out;
	}
	if (!rc) {
		rc |= turn_msgs(a, &s->turn[k - 1], block_tokens, &b);
		n += s->turn[k - 1].in_tokens;
	}
	gp_buf_release(&b);
	if (rc) {
		json_decref(a);
		return nomem_null();
	}
	if (tokens)
		*tokens = n;
	return a;
}
