/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of kvcache: the chain property of block keys, leading-prefix
 * hits, LRU eviction order (tail of a chain first), capacity bounds, and the
 * hash table's deletion under heavy churn (checked against a brute-force
 * model of the same LRU).
 */
#include <stdlib.h>
#include <string.h>

#include "sim/kvcache.h"
#include "tap.h"

/* Keys of a prompt of nblocks blocks whose words are "w<id>" where block b
 * holds words of id ids[b]*100 + j. */
static void chain(const int *ids, size_t nblocks, uint64_t *keys)
{
	uint64_t prev = GP_KV_ROOT_KEY;
	char wb[4][16];
	const char *w[4];
	size_t l[4];

	for (size_t b = 0; b < nblocks; b++) {
		for (int j = 0; j < 4; j++) {
			snprintf(wb[j], sizeof(wb[j]), "w%d", ids[b] * 100 + j);
			w[j] = wb[j];
			l[j] = strlen(wb[j]);
		}
		keys[b] = prev = gp_kv_block_key(prev, w, l, 4);
	}
}

int main(void)
{
	struct gp_kvcache *c;
	uint64_t a[8], b[8], k2[8];
	int ida[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	int idb[] = { 1, 2, 9, 4, 5, 6, 7, 8 };
	int idc[] = { 9, 2, 3, 4 };

	/* Keys: the chain property. */
	chain(ida, 8, a);
	chain(idb, 8, b);
	ok(a[0] == b[0] && a[1] == b[1], "shared leading blocks share keys");
	ok(a[2] != b[2], "a different block changes its key");
	ok(a[3] != b[3] && a[7] != b[7], "... and every key after it (same words later)");
	chain(idc, 4, k2);
	ok(k2[1] != a[1], "same words after a different first block give another key");
	{
		const char *w1[] = { "ab", "c" }, *w2[] = { "a", "bc" };
		size_t l1[] = { 2, 1 }, l2[] = { 1, 2 };
		ok(gp_kv_block_key(1, w1, l1, 2) != gp_kv_block_key(1, w2, l2, 2),
		   "word boundaries matter");
		uint64_t h = gp_kv_chain_begin(1);
		h = gp_kv_chain_word(h, "ab", 2);
		h = gp_kv_chain_word(h, "c", 1);
		ok(gp_kv_chain_end(h) == gp_kv_block_key(1, w1, l1, 2),
		   "incremental hash equals block hash");
	}

	/* Hits are leading prefixes. */
	c = gp_kvcache_new(16);
	ok(c != NULL, "new");
	is_int(gp_kvcache_query(c, a, 8), 0, "cold cache: no hit");
	is_int(c->used, 8, "8 blocks inserted");
	is_int(gp_kvcache_query(c, a, 8), 8, "same prompt: all 8 blocks hit");
	is_int(gp_kvcache_query(c, b, 8), 2, "shared prefix of 2 blocks hits 2");
	is_int(c->used, 14, "6 new blocks of b inserted");
	is_int(gp_kvcache_peek(c, k2, 4), 0, "different first block: no hit");
	/* Reset (POST /reset_prefix_cache): the free blocks lose their keys. */
	gp_kvcache_reset(c);
	is_int(gp_kvcache_peek(c, a, 8), 0, "reset: the prompt no longer hits");
	is_int(gp_kvcache_peek(c, b, 8), 0, "reset: nor does the other one");
	is_int(gp_kvcache_query(c, a, 8), 0, "reset: the first query misses");
	is_int(gp_kvcache_query(c, a, 8), 8, "reset: the second hits all 8 blocks");
	{
		uint32_t held[8];

		is_int(gp_kvcache_acquire(c, a, 8, held), 8, "reset: 8 blocks held");
		gp_kvcache_reset(c);
		is_int(gp_kvcache_peek(c, a, 8), 8, "reset: held blocks keep their keys");
	}
	gp_kvcache_free(c);

	/* LRU: a chain loses its tail first. */
	c = gp_kvcache_new(8);
	gp_kvcache_query(c, a, 8);		/* full */
	is_int(c->used, 8, "cache full");
	gp_kvcache_query(c, k2, 2);		/* 2 new blocks evict a[7], a[6] */
	ok(!gp_kvcache_has(c, a[7]) && !gp_kvcache_has(c, a[6]), "tail blocks evicted first");
	ok(gp_kvcache_has(c, a[0]) && gp_kvcache_has(c, a[5]), "head blocks kept");
	is_int(gp_kvcache_peek(c, a, 8), 6, "a now hits its first 6 blocks");
	is_int((long long)c->evictions, 2, "2 evictions counted");
	/* Touching a refreshes it: k2 becomes the LRU victim. */
	gp_kvcache_query(c, a, 6);
	gp_kvcache_query(c, b + 2, 1);		/* one new block */
	ok(!gp_kvcache_has(c, k2[1]), "least recently used block evicted");
	ok(gp_kvcache_has(c, a[0]) && gp_kvcache_has(c, a[5]), "recently touched chain kept");
	gp_kvcache_free(c);

	/* A chain longer than the cache keeps its head. */
	c = gp_kvcache_new(4);
	is_int(gp_kvcache_query(c, a, 8), 0, "long chain, cold");
	is_int(gp_kvcache_peek(c, a, 8), 4, "keeps its first 4 blocks");
	gp_kvcache_free(c);

	/* Churn against a brute-force LRU model. */
	{
		enum { CAP = 50, N = 200000, U = 400 };
		uint64_t model[CAP];
		size_t mn = 0;
		int bad = 0;
		uint64_t x = 12345;

		c = gp_kvcache_new(CAP);
		for (int i = 0; i < N && !bad; i++) {
			uint64_t k;
			size_t j;

			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			k = (x >> 33) % U;
			k = k * 0x9e3779b97f4a7c15ULL;	/* spread, collide in table */
			for (j = 0; j < mn && model[j] != k; j++)
				;
			if ((size_t)gp_kvcache_has(c, k) != (j < mn))
				bad = 1;
			if (j < mn) {
				memmove(model + 1, model, j * sizeof(*model));
			} else {
				if (mn < CAP)
					mn++;
				memmove(model + 1, model, (mn - 1) * sizeof(*model));
			}
			model[0] = k;
			gp_kvcache_query(c, &k, 1);
		}
		ok(!bad, "200000 random touches agree with a brute-force LRU");
		is_int(c->used, CAP, "cache stays at capacity");
		for (size_t j = 0; j < mn; j++)
			if (!gp_kvcache_has(c, model[j]))
				bad = 1;
		ok(!bad, "final contents equal the model's");
		gp_kvcache_free(c);
	}
	/* The pool: held blocks are never evicted; freed keyed blocks are the
	 * prefix cache; anonymous freed blocks are reused first. */
	{
		uint32_t sl[8], x, y;

		c = gp_kvcache_new(4);
		is_int(gp_kvcache_nfree(c), 4, "all free");
		for (int i = 0; i < 3; i++)
			is_int(gp_kvcache_alloc(c, &sl[i]), 0, "alloc %d", i);
		gp_kvcache_commit(c, sl[0], a[0]);
		gp_kvcache_commit(c, sl[1], a[1]);
		is_int(gp_kvcache_nfree(c), 1, "3 held");
		is_int(gp_kvcache_peek(c, a, 8), 2, "held committed blocks are found");
		gp_kvcache_release(c, sl[2]);
		gp_kvcache_release(c, sl[1]);
		gp_kvcache_release(c, sl[0]);
		is_int(gp_kvcache_nfree(c), 4, "released");
		is_int(gp_kvcache_peek(c, a, 8), 2, "released keyed blocks stay cached");
		is_int(gp_kvcache_alloc(c, &x), 0, "alloc: a never-used block first");
		is_int(gp_kvcache_alloc(c, &y), 0, "alloc again");
		ok(y == sl[2], "then the anonymous freed block");
		is_int(gp_kvcache_peek(c, a, 8), 2, "the cache is untouched so far");
		is_int(gp_kvcache_acquire(c, a, 8, sl), 2, "acquire the 2 cached blocks");
		is_int(gp_kvcache_nfree(c), 0, "everything held");
		is_int(gp_kvcache_alloc(c, &x), -1, "a full pool refuses");
		gp_kvcache_release(c, sl[1]);
		gp_kvcache_release(c, sl[0]);
		is_int(gp_kvcache_alloc(c, &x), 0, "alloc evicts the LRU free block");
		ok(x == sl[1], "the chain's tail goes first");
		ok(gp_kvcache_has(c, a[0]) && !gp_kvcache_has(c, a[1]), "head kept, tail evicted");
		is_int((long long)c->evictions, 1, "one eviction");
		gp_kvcache_free(c);
	}
	ok(gp_kvcache_new(0) == NULL, "zero blocks refused");
	return done_testing();
}
