/* SPDX-License-Identifier: MIT */
/* session — multi-turn sessions: turns, the ready heap, the failed-turn
 * policy and the history prompt (the header states the rules). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/map.h"
#include "method/session.h"

static char *dup_or_null(const char *s)
{
	return s ? gp_xstrdup(s) : NULL;
}

void gp_sessions_init(struct gp_sessions *ss, enum gp_sess_policy policy)
{
	memset(ss, 0, sizeof(*ss));
	ss->policy = policy;
}

void gp_sessions_release(struct gp_sessions *ss)
{
	size_t n = ss->by_name ? gp_map_count(ss->by_name) : 0;

	for (size_t i = 0; i < n; i++) {
		struct gp_session *s = gp_map_ptr(ss->by_name, i);

		for (size_t j = 0; j < s->nturns; j++) {
			struct gp_sess_turn *t = &s->turn[j];

			free(t->id);
			free(t->hash_ids);
			free(t->prompt);
			free(t->cache_key);
			free(t->answer);
			json_decref(t->messages);
		}
		free(s->turn);
		free(s);
	}
	gp_map_free(ss->by_name);
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
	struct gp_session *s;
	struct gp_sess_turn *t;
	size_t n, i;

	if (!ss->by_name)
		ss->by_name = gp_map_new();
	n = gp_map_count(ss->by_name);
	i = gp_map_add(ss->by_name, r->session);
	if (i == n) {
		s = gp_xcalloc(1, sizeof(*s));
		s->name = gp_map_key(ss->by_name, i, NULL);
		s->heap_i = GP_SESS_NOHEAP;
		gp_map_set_ptr(ss->by_name, i, s);
	} else {
		s = gp_map_ptr(ss->by_name, i);
	}
	if (s->nturns == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4;
		s->turn = gp_xrealloc(s->turn, s->cap * sizeof(*s->turn));
	}
	t = &s->turn[s->nturns++];
	memset(t, 0, sizeof(*t));
	t->id = gp_xstrdup(r->id);
	t->in_tokens = r->input_tokens;
	t->out_tokens = r->output_tokens;
	t->think_s = r->think_s;
	if (r->n_hash_ids) {
		t->hash_ids = gp_xmalloc(r->n_hash_ids * sizeof(*t->hash_ids));
		memcpy(t->hash_ids, r->hash_ids, r->n_hash_ids * sizeof(*t->hash_ids));
		t->n_hash_ids = r->n_hash_ids;
	}
	if (r->messages)
		t->messages = json_incref(r->messages);
	t->prompt = dup_or_null(r->messages ? NULL : r->prompt);
	t->cache_key = dup_or_null(r->cache_key);
	t->index = index;
	t->got_out = -1;
	return s;
}

struct gp_session *gp_sessions_get(const struct gp_sessions *ss, const char *name)
{
	size_t i = ss->by_name ? gp_map_find(ss->by_name, name) : GP_MAP_NONE;

	return i == GP_MAP_NONE ? NULL : gp_map_ptr(ss->by_name, i);
}

size_t gp_sessions_count(const struct gp_sessions *ss)
{
	return ss->by_name ? gp_map_count(ss->by_name) : 0;
}

size_t gp_sessions_bytes(const struct gp_sessions *ss)
{
	size_t n = gp_sessions_count(ss), b = ss->capheap * sizeof(*ss->heap);

	for (size_t i = 0; i < n; i++) {
		const struct gp_session *s = gp_map_ptr(ss->by_name, i);

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

void gp_sessions_push(struct gp_sessions *ss, struct gp_session *s, int64_t t)
{
	if (ss->nheap == ss->capheap) {
		ss->capheap = ss->capheap ? 2 * ss->capheap : 64;
		ss->heap = gp_xrealloc(ss->heap, ss->capheap * sizeof(*ss->heap));
	}
	s->ready_ns = t;
	ss->heap[ss->nheap++] = s;
	sift_up(ss, ss->nheap - 1);
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

void gp_session_keep_answer(struct gp_session *s, const char *text, size_t n)
{
	struct gp_sess_turn *t;

	if (s->next == 0 || s->next > s->nturns)
		return;
	t = &s->turn[s->next - 1];
	free(t->answer);
	t->answer = gp_xmalloc(n + 1);
	memcpy(t->answer, text, n);
	t->answer[n] = '\0';
	t->answer_len = n;
}

void gp_session_give_up(struct gp_session *s)
{
	s->next = s->nturns;
}

/* ---- the prompt ---- */

static void synth_into(struct gp_buf *b, long n, const int64_t *ids, size_t nids, long bt,
		       const char *salt)
{
	size_t need = gp_trace_synth_prompt(NULL, 0, n, ids, nids, bt, salt);

	if (gp_buf_reserve(b, need + 1))
		gp_die_nomem();
	gp_trace_synth_prompt(b->p + b->len, need + 1, n, ids, nids, bt, salt);
	b->len += need;
}

static void add(struct gp_buf *b, const char *s, size_t n)
{
	if (gp_buf_add(b, s, n))
		gp_die_nomem();
}

/* The answer of turn t: the text kept, else got_out words salted
 * "<id>#answer". */
static void answer_into(struct gp_buf *b, const struct gp_sess_turn *t)
{
	size_t n = strlen(t->id);
	char *salt;

	if (t->answer) {
		add(b, t->answer, t->answer_len);
		return;
	}
	salt = gp_xmalloc(n + 8);

	memcpy(salt, t->id, n);
	memcpy(salt + n, "#answer", 8);
	synth_into(b, t->got_out, NULL, 0, 0, salt);
	free(salt);
}

/* The message of turn t as text (completions). */
static void message_into(struct gp_buf *b, const struct gp_sess_turn *t, long bt)
{
	size_t i;
	json_t *m;
	int first = 1;

	if (t->prompt) {
		add(b, t->prompt, strlen(t->prompt));
		return;
	}
	if (!t->messages) {
		synth_into(b, t->in_tokens, t->hash_ids, t->n_hash_ids, bt, t->id);
		return;
	}
	json_array_foreach(t->messages, i, m) {
		const char *c = json_string_value(json_object_get(m, "content"));

		if (!c)
			continue;
		if (!first)
			add(b, "\n", 1);
		add(b, c, strlen(c));
		first = 0;
	}
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
		message_into(b, t, block_tokens);
		add(b, " ", 1);
		if (t->answer ? t->answer_len > 0 : t->got_out > 0) {
			answer_into(b, t);
			add(b, " ", 1);
		}
		tokens += t->in_tokens + t->got_out;
	}
	message_into(b, &s->turn[k - 1], block_tokens);
	return tokens + s->turn[k - 1].in_tokens;
}

static int push_msg(json_t *a, const char *role, const char *text, size_t n)
{
	json_t *m = json_object(), *c = json_stringn(text, n);

	if (!m || !c || json_object_set_new(m, "role", json_string(role)) ||
	    json_object_set_new(m, "content", c) || json_array_append_new(a, m)) {
		json_decref(m);
		return -1;
	}
	return 0;
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
	message_into(b, t, bt);
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
		answer_into(&b, t);
		rc |= push_msg(a, "assistant", b.p ? b.p : "", b.len);
		n += t->in_tokens + t->got_out;
	}
	if (!rc) {
		rc |= turn_msgs(a, &s->turn[k - 1], block_tokens, &b);
		n += s->turn[k - 1].in_tokens;
	}
	gp_buf_release(&b);
	if (rc) {
		json_decref(a);
		return NULL;
	}
	if (tokens)
		*tokens = n;
	return a;
}
