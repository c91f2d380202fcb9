/* SPDX-License-Identifier: MIT */
/*
 * kvcache — the prefix cache of one emulated engine: a fixed number of blocks,
 * each holding `block_tokens` prompt tokens, keyed by a hash chain and evicted
 * least-recently-used first.
 *
 * Keys (the chain property).  Block i of a prompt is keyed by
 *     key[i] = gp_kv_block_key(key[i-1], the block_tokens words of block i)
 * with key[-1] = GP_KV_ROOT_KEY, so a block's key names the whole prefix that
 * ends with it: two prompts share key[i] only if they share blocks 0..i (up to
 * 64-bit hash collisions).  Only full blocks get a key; a trailing partial
 * block is never cached (as in vLLM's automatic prefix caching).
 *
 * A lookup counts the leading keys present in the cache and stops at the first
 * miss, so a hit always covers a prefix of the prompt.  Touching a chain marks
 * its blocks recently used from the last block to the first, so that under
 * pressure a chain loses its tail before its head (vLLM evicts the same way).
 *
 * The KV pool (vLLM's block pool).  The same `cap` blocks are the engine's
 * whole KV memory.  A block is *held* (reference count >= 1) by the running
 * sequences whose KV it stores, or *free*.  Free blocks are the LRU list
 * above; a free block that still carries a key is a prefix-cache entry, so
 * the prefix cache is exactly the pool's free-but-valid blocks.  Allocation
 * takes a never-used block, else the least recently freed one (dropping its
 * key: an eviction).  Held blocks are never evicted; a lookup that hits a
 * free block takes a reference (gp_kvcache_acquire), which takes it out of
 * the LRU list.  Releasing a chain's blocks from its last to its first makes
 * the tail evict before the head.
 *
 * Ownership: the cache copies keys; key arrays passed in stay the caller's.
 * The cache allocates once in gp_kvcache_new and never again.
 */
#ifndef GP_KVCACHE_H
#define GP_KVCACHE_H

#include <stddef.h>
#include <stdint.h>

#define GP_KV_ROOT_KEY 0x6770736b76726f6fULL	/* the key "before" block 0 */

struct gp_kvcache {
	size_t cap;		/* blocks */
	size_t used;		/* slots [0, used) have been handed out */
	uint64_t *key;		/* [cap] the key held by each slot */
	uint32_t *prev, *next;	/* [cap] LRU list links; head = most recent */
	uint32_t head, tail;	/* GP_KV_NIL when empty */
	uint32_t *table;	/* open-addressing index: slot+1, 0 = empty */
	size_t tmask;		/* table size - 1 (a power of two >= 2*cap) */
	uint32_t *ref;		/* [cap] holders of each block (0: free) */
	uint8_t *valid;		/* [cap] 1: key[slot] is in the table */
	size_t nfree;		/* blocks with ref 0 (never used ones included) */
	uint64_t evictions;	/* blocks evicted so far */
};

#define GP_KV_NIL UINT32_MAX

/* A cache of nblocks (>= 1, < 2^31) blocks, or NULL when out of memory. */
struct gp_kvcache *gp_kvcache_new(size_t nblocks);
void gp_kvcache_free(struct gp_kvcache *c);

/*
 * The chain step: the key of a block whose predecessor's key is `prev` and
 * whose words are words[0..n) with lengths lens[0..n).  Words are hashed as
 * bytes, each followed by a separator, so "ab c" and "a bc" differ.
 */
uint64_t gp_kv_block_key(uint64_t prev, const char *const *words,
			 const size_t *lens, size_t n);

/*
 * Incremental form of the same hash, for callers that walk words one at a
 * time: start with h = gp_kv_chain_begin(prev), feed each word with
 * gp_kv_chain_word, and finish with gp_kv_chain_end.  The result equals
 * gp_kv_block_key over the same words.
 */
uint64_t gp_kv_chain_begin(uint64_t prev);
uint64_t gp_kv_chain_word(uint64_t h, const char *w, size_t len);
uint64_t gp_kv_chain_end(uint64_t h);

/* Number of leading keys[0..n) present (0..n).  Does not change recency. */
size_t gp_kvcache_peek(const struct gp_kvcache *c, const uint64_t *keys, size_t n);
/*
 * Look up then insert: returns the number of leading keys[0..n) that were
 * present, then makes every key of the chain present and recently used
 * (evicting least-recently-used blocks as needed; a chain longer than the
 * cache keeps its first `cap` blocks).
 */
size_t gp_kvcache_query(struct gp_kvcache *c, const uint64_t *keys, size_t n);
/*
 * Empty the prefix cache (vLLM's POST /reset_prefix_cache): every free block
 * loses its key, so no later lookup hits it; blocks held by running
 * sequences keep theirs (vLLM refuses a reset while blocks are held; reset
 * an idle engine).  Not an eviction: the eviction count is kept.
 */
void gp_kvcache_reset(struct gp_kvcache *c);
/* 1 if key is cached. */
int gp_kvcache_has(const struct gp_kvcache *c, uint64_t key);

/*
 * Pool use.  gp_kvcache_peek above is the side-effect-free lookup (held and
 * free blocks both count as cached: a running sequence's computed blocks are
 * shareable, as in vLLM).
 *
 * gp_kvcache_acquire: the number h of leading keys[0..n) present; takes one
 * reference on each of those h blocks and stores their slots in slots[0..h).
 * gp_kvcache_alloc: one free block, anonymous, referenced once, in *slot;
 * -1 when no block is free (every block is held).
 * gp_kvcache_commit: give held block `slot` the key `key`, so that later
 * lookups find it; no-op when another block already has that key or the
 * slot already has one.
 * gp_kvcache_release: drop one reference; at zero the block becomes free:
 * most recently used if it has a key, first to be reused if not.
 */
size_t gp_kvcache_acquire(struct gp_kvcache *c, const uint64_t *keys, size_t n,
			  uint32_t *slots);
int gp_kvcache_alloc(struct gp_kvcache *c, uint32_t *slot);
void gp_kvcache_commit(struct gp_kvcache *c, uint32_t slot, uint64_t key);
void gp_kvcache_release(struct gp_kvcache *c, uint32_t slot);
/* Blocks that are free (never used, anonymous, or cached). */
static inline size_t gp_kvcache_nfree(const struct gp_kvcache *c) { return c->nfree; }

#endif
