/* SPDX-License-Identifier: MIT */
/*
 * session — the multi-turn sessions of a replay: each session's turns, the
 * closed-loop schedule within a session, the failed-turn policy, and the
 * prompt of turn k built from the history.
 *
 * Schedule.  A session's turn 1 is an ordinary open-loop arrival (pace.h
 * places it); turn k >= 2 becomes ready think_s after turn k - 1 completed:
 *     ready_k = completion_{k-1} + think_s_k,
 * and that is its scheduled time, so the lateness of its send (dispatch −
 * ready) means what it means for an open-loop send: the client's own delay.
 * Ready sessions wait in a binary min-heap on ready time (ties: trace order),
 * so picking the next send is O(log sessions).
 *
 * History.  Turn k's prompt is the history followed by turn k's new message:
 * for each earlier turn j that succeeded, its message then its answer.  A
 * message is the trace record's `prompt` or `messages` as given, else
 * synthesized (gp_trace_synth_prompt: input_tokens words, from hash_ids and
 * the record id).  An answer is what the server actually sent when the
 * turn's message is real (the record's prompt or messages): its text, kept
 * (gp_session_keep_answer).  Where the message is synthetic, the answer is
 * synthetic too, from the tokens actually received for turn j (usage
 * completion_tokens, else content events) and the salt "<id>#answer": a
 * server that caches its generated tokens (vLLM does) then hits the history
 * up to the last answer, not into it; gp-sim caches prompt blocks only, and
 * so sees every earlier turn's prompt as a shared prefix.  Synthetic text
 * is rebuilt at each turn from those counts: such a session holds no text.
 *
 * Failed turns (policy, gp-replay --on-failed-turn):
 *   continue  the failed turn is left out of the history (its message and
 *             any partial answer), and the next turn becomes ready think_s
 *             after the failure ended;
 *   abandon   the session stops: every turn not yet sent is reported to the
 *             caller to be recorded as not sent (so attempted = records).
 *
 * Ownership: gp_sessions_add copies what it keeps of a trace record (id,
 * prompt, cache_key, hash_ids; a reference on messages) and the session's
 * name.  gp_sessions_release frees everything; `user` is the caller's and
 * never freed.  Nothing here exits: a function that runs out of memory
 * returns -1 (or NULL) with errno ENOMEM and leaves the set as a whole, to
 * be released (the tool says "out of memory").
 */
#ifndef GP_SESSION_H
#define GP_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "base/buf.h"
#include "wire/trace.h"

struct gp_sess_turn {
	char *id;			/* owned */
	long in_tokens, out_tokens;	/* the new message's tokens; tokens to generate */
	double think_s;
	int64_t *hash_ids;		/* owned, may be NULL */
	size_t n_hash_ids;
	json_t *messages;		/* a reference, or NULL */
	char *prompt;			/* owned, or NULL */
	char *cache_key;		/* owned, or NULL */
	unsigned long index;		/* trace record index, file order */
	long got_out;			/* answer tokens received; -1: failed or not yet */
	char *answer;			/* owned: the answer received (real messages), or NULL */
	size_t answer_len;
};

struct gp_session {
	char *name;			/* the session id, owned */
	struct gp_sess_turn *turn;	/* [nturns], turn k at turn[k - 1] */
	size_t nturns, cap;
	size_t next;			/* turns sent (or given up) so far */
	int64_t ready_ns;		/* while in the heap: when turn[next] may go */
	size_t heap_i;			/* position in the heap, GP_SESS_NOHEAP when out */
	void *user;			/* the caller's (gp-replay: the prepared request) */
};

#define GP_SESS_NOHEAP ((size_t)-1)

enum gp_sess_policy { GP_SESS_CONTINUE = 0, GP_SESS_ABANDON };

struct gp_sessions {
	struct gp_session **all;	/* [nall], in the order they were added */
	size_t nall, capall;
	json_t *by_name;		/* name -> its index in all (a JSON integer) */
	struct gp_session **heap;	/* ready sessions, min ready_ns first */
	size_t nheap, capheap;
	enum gp_sess_policy policy;
};

void gp_sessions_init(struct gp_sessions *ss, enum gp_sess_policy policy);
void gp_sessions_release(struct gp_sessions *ss);
/* Parse "continue" or "abandon": 0, or -1. */
int gp_sess_policy_parse(const char *s, enum gp_sess_policy *p);
const char *gp_sess_policy_name(enum gp_sess_policy p);

/*
 * Append record r (r->session set, its turn already checked in order by
 * gp_trace_check_rec) as the session's next turn; index is its trace
 * index.  Returns the session; NULL when out of memory: then the turn is
 * not added (a new session may be, without turns).
 */
struct gp_session *gp_sessions_add(struct gp_sessions *ss, const struct gp_trace_rec *r,
				   unsigned long index);
/* The session named name, or NULL. */
struct gp_session *gp_sessions_get(const struct gp_sessions *ss, const char *name);
/* Sessions added. */
size_t gp_sessions_count(const struct gp_sessions *ss);
/* Bytes the set holds (sessions, turns, strings; not the map's own). */
size_t gp_sessions_bytes(const struct gp_sessions *ss);

/* Ready sessions: put s in the heap with ready time t (s not in it).  0;
 * -1 when out of memory: s is then not in the heap. */
int gp_sessions_push(struct gp_sessions *ss, struct gp_session *s, int64_t t);
/* The ready session due first, or NULL; pop removes it. */
static inline struct gp_session *gp_sessions_top(const struct gp_sessions *ss)
{
	return ss->nheap ? ss->heap[0] : NULL;
}
struct gp_session *gp_sessions_pop(struct gp_sessions *ss);

/* What gp_session_done says comes next. */
enum gp_sess_next {
	GP_SESS_END = 0,		/* no turn left */
	GP_SESS_READY,			/* turn[next] is ready at *ready_ns */
	GP_SESS_ABANDONED,		/* turns next..nturns-1 are given up */
};

/*
 * The turn just sent, turn[s->next - 1], ended at end_ns: ok (it may go
 * into the history) with got_out answer tokens.  Applies the policy; for
 * GP_SESS_READY, *ready_ns = end_ns + the next turn's think_s.  For
 * GP_SESS_ABANDONED the caller records turns [s->next, nturns) as not sent,
 * then the session is over (s->next = nturns after gp_session_give_up).
 */
enum gp_sess_next gp_session_done(const struct gp_sessions *ss, struct gp_session *s, int ok,
				  long got_out, int64_t end_ns, int64_t *ready_ns);
/* 1 when turn k (1-based) carries its own content (prompt or messages):
 * its answer is then to be kept as received. */
int gp_session_real(const struct gp_session *s, size_t k);
/* Keep text[0..n) as the answer of the turn just sent, turn[s->next - 1]
 * (copied; replaces an earlier one).  Call before gp_session_done.  0; -1
 * when out of memory: the turn keeps what it held. */
int gp_session_keep_answer(struct gp_session *s, const char *text, size_t n);

/* Mark every turn not yet sent as given up (s->next = nturns). */
void gp_session_give_up(struct gp_session *s);

/*
 * The prompt of turn k (1-based) of s, as text: the history then the new
 * message, joined by single spaces (completions; block_tokens as in
 * gp_trace_synth_prompt).  Appended to b.  Returns its tokens as counted
 * from the trace (sum of input_tokens and of got_out over what it holds).
 * -1 when out of memory: b then holds part of the prompt (release it).
 */
long gp_session_prompt(const struct gp_session *s, size_t k, long block_tokens, struct gp_buf *b);
/*
 * The same as chat messages: a new JSON array (the caller's reference) of
 * {"role":"user","content":…} and {"role":"assistant","content":…}; a turn
 * whose record carries messages contributes them as they are.  *tokens
 * gets the count as above.  NULL when out of memory (errno ENOMEM).
 */
json_t *gp_session_messages(const struct gp_session *s, size_t k, long block_tokens, long *tokens);

#endif
