/* SPDX-License-Identifier: MIT */
/* map — the hash map from byte-string keys and the set (see map.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/log.h"
#include "base/map.h"
#include "base/vec.h"
#include "base/banned.h"

#define CHUNK_MIN 4096			/* the first key chunk; then doubling */
#define CHUNK_MAX (1024 * 1024)		/* to this; a longer key gets its own */

struct ent {
	const char *key;		/* in a chunk, NUL-terminated */
	size_t len;
	uint64_t head;			/* head(key, len) */
	union {
		void *p;
		uint64_t u;
	} val;
};

struct gp_map {
	struct ent *ent;		/* in insertion order */
	size_t n, cap;
	uint8_t *ctrl;			/* per slot: 0 empty, else TAG(hash) */
	uint32_t *slot;			/* per slot: the entry's index */
	size_t nslot;			/* 0 or a power of two > 2 n */
	char **chunk;			/* the keys' storage, freed at the end */
	size_t nchunk, capchunk;
	char *at;			/* the free tail of the current chunk */
	size_t left, chunk_sz;
};

/* A slot's control byte: its hash's top 7 bits and the high bit, so a probe
 * passes other keys reading a byte each (64 slots to a cache line) and
 * reads the index and entry of its own key and of 1 in 128 others only;
 * the table picks by the low bits, independent of these. */
#define TAG(h) ((uint8_t)(0x80 | ((h) >> 57)))

/* tests/unit/t-map-collide.c defines a hash under which all keys collide. */
#ifndef GP_MAP_HASH
#define GP_MAP_HASH(key, len) gp_mix64(gp_fnv1a64(GP_FNV64_OFFSET, key, len))
#endif

static uint64_t key_hash(const void *key, size_t len)
{
	return GP_MAP_HASH(key, len);
}

/* The key's first 8 bytes (zero-padded), kept in its entry: keys of up to
 * 8 bytes compare without reading the chunk. */
static uint64_t head(const void *key, size_t len)
{
	uint64_t v = 0;

	memcpy(&v, key, len < 8 ? len : 8);
	return v;
}

/* Whether entry e holds key[0..len), whose head is hd. */
static int same(const struct ent *e, const char *key, size_t len, uint64_t hd)
{
	return e->len == len && e->head == hd && (len <= 8 || !memcmp(e->key + 8, key + 8, len - 8));
}

struct gp_map *gp_map_new(void)
{
	return gp_xcalloc(1, sizeof(struct gp_map));
}

void gp_map_free(struct gp_map *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nchunk; i++)
		free(m->chunk[i]);
	free(m->chunk);
	free(m->ent);
	free(m->ctrl);
	free(m->slot);
	free(m);
}

size_t gp_map_count(const struct gp_map *m)
{
	return m->n;
}

/* The slot holding key, or the empty slot where it would go (nslot > 0). */
static size_t probe(const struct gp_map *m, uint64_t h, const void *key, size_t len)
{
	size_t mask = m->nslot - 1, j = (size_t)h & mask;
	uint64_t hd = head(key, len);
	uint8_t tag = TAG(h);

	for (; m->ctrl[j]; j = (j + 1) & mask)
		if (m->ctrl[j] == tag && same(&m->ent[m->slot[j]], key, len, hd))
			break;
	return j;
}

/* A table of nslot slots over the entries as they are. */
static void rehash(struct gp_map *m, size_t nslot)
{
	uint8_t *c = gp_xcalloc(nslot, 1);
	uint32_t *s = gp_xreallocarray(NULL, nslot, sizeof(*s));
	size_t mask = nslot - 1;

	for (size_t i = 0; i < m->n; i++) {
		uint64_t h = key_hash(m->ent[i].key, m->ent[i].len);	/* the keys in order */
		size_t j = (size_t)h & mask;

		while (c[j])
			j = (j + 1) & mask;
		c[j] = TAG(h);
		s[j] = (uint32_t)i;
	}
	free(m->ctrl);
	free(m->slot);
	m->ctrl = c;
	m->slot = s;
	m->nslot = nslot;
}

static char *new_chunk(struct gp_map *m, size_t sz)
{
	GP_XGROW(m->chunk, m->nchunk, m->capchunk, 8);
	return m->chunk[m->nchunk++] = gp_xmalloc(sz);
}

static const char *copy_key(char *dst, const void *key, size_t len)
{
	memcpy(dst, key, len);
	dst[len] = '\0';
	return dst;
}

/* A NUL-terminated copy of key[0..len) that never moves. */
static const char *keep(struct gp_map *m, const void *key, size_t len)
{
	size_t need = len + 1;
	char *dst;

	if (len >= SIZE_MAX / 2)
		gp_die_nomem();
	if (need > m->left) {
		size_t sz = m->chunk_sz ? m->chunk_sz : CHUNK_MIN / 2;

		sz = sz < CHUNK_MAX ? 2 * sz : CHUNK_MAX;
		if (need > sz)		/* a chunk of its own; the current one stays */
			return copy_key(new_chunk(m, need), key, len);
		m->at = new_chunk(m, sz);
		m->left = m->chunk_sz = sz;
	}
	dst = m->at;
	m->at += need;
	m->left -= need;
	return copy_key(dst, key, len);
}

size_t gp_map_findn(const struct gp_map *m, const void *key, size_t len)
{
	size_t j;

	if (!m->n)
		return GP_MAP_NONE;
	if (!len)
		key = "";		/* memcmp's arguments are never NULL */
	j = probe(m, key_hash(key, len), key, len);
	return m->ctrl[j] ? m->slot[j] : GP_MAP_NONE;
}

size_t gp_map_addn(struct gp_map *m, const void *key, size_t len)
{
	uint64_t h;
	size_t j;

	if (!len)
		key = "";
	if (2 * (m->n + 1) > m->nslot) {
		if (m->n >= UINT32_MAX / 2)
			gp_die_nomem();		/* past the 32-bit indexes */
		rehash(m, m->nslot ? 2 * m->nslot : 16);
	}
	h = key_hash(key, len);
	j = probe(m, h, key, len);
	if (m->ctrl[j])
		return m->slot[j];
	GP_XGROW(m->ent, m->n, m->cap, 16);
	m->ent[m->n] = (struct ent){ .key = keep(m, key, len), .len = len, .head = head(key, len) };
	m->ent[m->n].val.u = 0;		/* all 8 bytes: NULL and 0 alike */
	m->ctrl[j] = TAG(h);
	m->slot[j] = (uint32_t)m->n;
	return m->n++;
}

size_t gp_map_find(const struct gp_map *m, const char *key)
{
	return gp_map_findn(m, key, strlen(key));
}

size_t gp_map_add(struct gp_map *m, const char *key)
{
	return gp_map_addn(m, key, strlen(key));
}

const char *gp_map_key(const struct gp_map *m, size_t i, size_t *len)
{
	if (len)
		*len = m->ent[i].len;
	return m->ent[i].key;
}

void *gp_map_ptr(const struct gp_map *m, size_t i)
{
	return m->ent[i].val.p;
}

uint64_t gp_map_u64(const struct gp_map *m, size_t i)
{
	return m->ent[i].val.u;
}

void gp_map_set_ptr(struct gp_map *m, size_t i, void *v)
{
	m->ent[i].val.p = v;
}

void gp_map_set_u64(struct gp_map *m, size_t i, uint64_t v)
{
	m->ent[i].val.u = v;
}

int gp_map_has(const struct gp_map *m, const char *key)
{
	return gp_map_find(m, key) != GP_MAP_NONE;
}

void gp_map_put(struct gp_map *m, const char *key, void *v)
{
	gp_map_set_ptr(m, gp_map_add(m, key), v);
}

void *gp_map_get(const struct gp_map *m, const char *key)
{
	size_t i = gp_map_find(m, key);

	return i == GP_MAP_NONE ? NULL : gp_map_ptr(m, i);
}

void gp_map_put_u64(struct gp_map *m, const char *key, uint64_t v)
{
	gp_map_set_u64(m, gp_map_add(m, key), v);
}

int gp_map_get_u64(const struct gp_map *m, const char *key, uint64_t *v)
{
	size_t i = gp_map_find(m, key);

	if (i == GP_MAP_NONE)
		return 0;
	*v = gp_map_u64(m, i);
	return 1;
}

/* ------------------------------------------------------------ u64 set */

struct gp_u64set {
	uint64_t *keys;
	unsigned char *used;	/* 0: empty slot */
	size_t cap, n;		/* cap: a power of two, or 0 */
};

struct gp_u64set *gp_u64set_new(void)
{
	return gp_xcalloc(1, sizeof(struct gp_u64set));
}

void gp_u64set_free(struct gp_u64set *s)
{
	if (!s)
		return;
	free(s->keys);
	free(s->used);
	free(s);
}

size_t gp_u64set_count(const struct gp_u64set *s)
{
	return s->n;
}

/* The slot of v, or the empty slot where it would go. */
static size_t u64set_slot(const struct gp_u64set *s, uint64_t v)
{
	size_t j = (size_t)gp_splitmix64_of(v) & (s->cap - 1);

	while (s->used[j] && s->keys[j] != v)
		j = (j + 1) & (s->cap - 1);
	return j;
}

static void u64set_grow(struct gp_u64set *s)
{
	struct gp_u64set g = {NULL, NULL, s->cap ? s->cap * 2 : 1024, s->n};

	if (g.cap < s->cap)
		gp_die_nomem();
	g.keys = gp_xreallocarray(NULL, g.cap, sizeof(*g.keys));
	g.used = gp_xcalloc(g.cap, 1);
	for (size_t i = 0; i < s->cap; i++) {
		if (!s->used[i])
			continue;
		size_t j = u64set_slot(&g, s->keys[i]);
		g.keys[j] = s->keys[i];
		g.used[j] = 1;
	}
	free(s->keys);
	free(s->used);
	*s = g;
}

int gp_u64set_add(struct gp_u64set *s, uint64_t v)
{
	if (2 * (s->n + 1) > s->cap)
		u64set_grow(s);
	size_t j = u64set_slot(s, v);
	if (s->used[j])
		return 1;
	s->keys[j] = v;
	s->used[j] = 1;
	s->n++;
	return 0;
}

int gp_u64set_has(const struct gp_u64set *s, uint64_t v)
{
	return s->cap && s->used[u64set_slot(s, v)];
}
