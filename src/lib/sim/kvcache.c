/* SPDX-License-Identifier: MIT */
/* kvcache — LRU prefix cache of hash-chained token blocks (see kvcache.h). */
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "sim/kvcache.h"
#include "base/banned.h"

uint64_t gp_kv_chain_begin(uint64_t prev)
{
	return GP_FNV64_OFFSET ^ gp_mix64(prev);
}

uint64_t gp_kv_chain_word(uint64_t h, const char *w, size_t len)
{
	h = gp_fnv1a64(h, w, len);
	return (h ^ 0x1f) * GP_FNV64_PRIME;	/* word separator */
}

uint64_t gp_kv_chain_end(uint64_t h)
{
	return gp_mix64(h);
}

uint64_t gp_kv_block_key(uint64_t prev, const char *const *words,
			 const size_t *lens, size_t n)
{
	uint64_t h = gp_kv_chain_begin(prev);

	for (size_t i = 0; i < n; i++)
		h = gp_kv_chain_word(h, words[i], lens[i]);
	return gp_kv_chain_end(h);
}

struct gp_kvcache *gp_kvcache_new(size_t nblocks)
{
	struct gp_kvcache *c;
	size_t tsize = 16;

	if (nblocks < 1 || nblocks >= (1u << 31))
		return NULL;
	while (tsize < 2 * nblocks)
		tsize <<= 1;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->cap = nblocks;
	c->key = calloc(nblocks, sizeof(*c->key));
	c->prev = calloc(nblocks, sizeof(*c->prev));
	c->next = calloc(nblocks, sizeof(*c->next));
	c->table = calloc(tsize, sizeof(*c->table));
	c->ref = calloc(nblocks, sizeof(*c->ref));
	c->valid = calloc(nblocks, 1);
	c->tmask = tsize - 1;
	c->head = c->tail = GP_KV_NIL;
	c->nfree = nblocks;
	if (!c->key || !c->prev || !c->next || !c->table || !c->ref || !c->valid) {
		gp_kvcache_free(c);
		return NULL;
	}
	return c;
}

void gp_kvcache_free(struct gp_kvcache *c)
{
	if (!c)
		return;
	free(c->key);
	free(c->prev);
	free(c->next);
	free(c->table);
	free(c->ref);
	free(c->valid);
	free(c);
}


/* Table position holding key, or the empty position where it would go. */
static size_t find_pos(const struct gp_kvcache *c, uint64_t key)
{
	size_t i = (size_t)gp_mix64(key) & c->tmask;

	while (c->table[i] && c->key[c->table[i] - 1] != key)
		i = (i + 1) & c->tmask;
	return i;
}

int gp_kvcache_has(const struct gp_kvcache *c, uint64_t key)
{
	return c->table[find_pos(c, key)] != 0;
}

/* Remove the entry at table position i (linear probing: backward shift). */
static void table_delete(struct gp_kvcache *c, size_t i)
{
	size_t j = i;

	c->table[i] = 0;
	for (;;) {
		size_t home;

		j = (j + 1) & c->tmask;
		if (!c->table[j])
			return;
		home = (size_t)gp_mix64(c->key[c->table[j] - 1]) & c->tmask;
		/* Move j into the hole at i unless its home lies in (i, j]. */
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && (home <= i && home > j))) {
			c->table[i] = c->table[j];
			c->table[j] = 0;
			i = j;
		}
	}
}

void gp_kvcache_reset(struct gp_kvcache *c)
{
	for (uint32_t s = c->head; s != GP_KV_NIL; s = c->next[s])
		if (c->valid[s]) {
			table_delete(c, find_pos(c, c->key[s]));
			c->valid[s] = 0;
		}
}

static void lru_unlink(struct gp_kvcache *c, uint32_t s)
{
	if (c->prev[s] != GP_KV_NIL)
		c->next[c->prev[s]] = c->next[s];
	else
		c->head = c->next[s];
	if (c->next[s] != GP_KV_NIL)
		c->prev[c->next[s]] = c->prev[s];
	else
		c->tail = c->prev[s];
}

static void lru_push_head(struct gp_kvcache *c, uint32_t s)
{
	c->prev[s] = GP_KV_NIL;
	c->next[s] = c->head;
	if (c->head != GP_KV_NIL)
		c->prev[c->head] = s;
	c->head = s;
	if (c->tail == GP_KV_NIL)
		c->tail = s;
}

/* Make key present and most recently used. */
static void touch(struct gp_kvcache *c, uint64_t key)
{
	size_t pos = find_pos(c, key);
	uint32_t s;

	if (c->table[pos]) {
		s = c->table[pos] - 1;
		if (!c->ref[s]) {
			lru_unlink(c, s);
			lru_push_head(c, s);
		}
		return;
	}
	if (c->used < c->cap) {
		s = (uint32_t)c->used++;
	} else {
		if ((s = c->tail) == GP_KV_NIL)
			return;		/* every block is held */
		lru_unlink(c, s);
		if (c->valid[s]) {
			table_delete(c, find_pos(c, c->key[s]));
			c->evictions++;
			pos = find_pos(c, key);	/* the shift may have moved the hole */
		}
	}
	c->key[s] = key;
	c->valid[s] = 1;
	c->table[pos] = s + 1;
	lru_push_head(c, s);
}

size_t gp_kvcache_peek(const struct gp_kvcache *c, const uint64_t *keys, size_t n)
{
	size_t i = 0;

	while (i < n && gp_kvcache_has(c, keys[i]))
		i++;
	return i;
}

size_t gp_kvcache_query(struct gp_kvcache *c, const uint64_t *keys, size_t n)
{
	size_t hit = gp_kvcache_peek(c, keys, n);
	size_t m = n < c->cap ? n : c->cap;

	/* Tail first, so the head of the chain ends most recently used. */
	for (size_t i = m; i-- > 0;)
		touch(c, keys[i]);
	return hit;
}

size_t gp_kvcache_acquire(struct gp_kvcache *c, const uint64_t *keys, size_t n,
			  uint32_t *slots)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t e = c->table[find_pos(c, keys[i])];
		uint32_t s;

		if (!e)
			break;
		s = e - 1;
		if (!c->ref[s]++) {
			lru_unlink(c, s);
			c->nfree--;
		}
		slots[i] = s;
	}
	return i;
}

int gp_kvcache_alloc(struct gp_kvcache *c, uint32_t *slot)
{
	uint32_t s;

	if (!c->nfree)
		return -1;
	if (c->used < c->cap) {
		s = (uint32_t)c->used++;
	} else {
		s = c->tail;	/* nfree > 0 and every block used: the list is not empty */
		lru_unlink(c, s);
		if (c->valid[s]) {
			table_delete(c, find_pos(c, c->key[s]));
			c->evictions++;
		}
	}
	c->valid[s] = 0;
	c->ref[s] = 1;
	c->nfree--;
	*slot = s;
	return 0;
}

void gp_kvcache_commit(struct gp_kvcache *c, uint32_t slot, uint64_t key)
{
	size_t pos;

	if (c->valid[slot])
		return;
	pos = find_pos(c, key);
	if (c->table[pos])
		return;
	c->key[slot] = key;
	c->valid[slot] = 1;
	c->table[pos] = slot + 1;
}

void gp_kvcache_release(struct gp_kvcache *c, uint32_t slot)
{
	if (!c->ref[slot] || --c->ref[slot])
		return;
	c->nfree++;
	if (c->valid[slot]) {
		lru_push_head(c, slot);
		return;
	}
	/* Anonymous: at the tail, reused first. */
	c->next[slot] = GP_KV_NIL;
	c->prev[slot] = c->tail;
	if (c->tail != GP_KV_NIL)
		c->next[c->tail] = slot;
	c->tail = slot;
	if (c->head == GP_KV_NIL)
		c->head = slot;
}
