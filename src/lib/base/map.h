/* SPDX-License-Identifier: MIT */
/*
 * map — the one hash map from byte-string keys to a value, and the one set.
 *
 * Keys are byte strings (any bytes, NUL too, through the *n functions; C
 * strings through the others).  A key is copied into the map and owned by
 * it; the copy is NUL-terminated and stays at the same address until
 * gp_map_free, so gp_map_key() pointers outlive later inserts.  Each key
 * holds one value, a pointer or a 64-bit number (a map keeps one kind; the
 * value of a new key is NULL / 0); the map never frees a pointer value.  A set
 * is a map whose values are not used.
 *
 * Every key has an index: its rank in insertion order, 0 .. count - 1.  A
 * new key takes the index gp_map_count() had before the insert, and indexes
 * never change (there is no delete), so a map is also an interning table
 * beside the caller's own array (`i = gp_map_add(m, k); if (i == n) ...`),
 * and iterating by index is deterministic.
 *
 * Inside: open addressing with linear probing over a power-of-two table,
 * kept at most half full: per slot a control byte (empty, or 7 bits of the
 * hash) and an entry index (32 bits), so a probe passes other keys reading a
 * byte each and reads the entry of its own key only (and of 1 in 128
 * others); the hash is FNV-1a 64 (hash.h) finished with splitmix64's mixer,
 * so the table's low bits see every bit of the key.  Keys live in arena
 * chunks, entries (with a key's first 8 bytes, so short keys compare there)
 * in one array in insertion order.  Memory comes from vec.h and log.h's gp_x*
 * allocators: running out (or past 2^31 keys) is "out of memory", exit 70,
 * never a NULL.  So, like them, map is for tool code (and cli): no library
 * module uses it (`make check-layers` refuses one that does).  Pointers from
 * gp_map_key() are borrowed until gp_map_free.
 */
#ifndef GP_MAP_H
#define GP_MAP_H

#include <stddef.h>
#include <stdint.h>

struct gp_map;

/* What the index functions return for a key that is not there. */
#define GP_MAP_NONE ((size_t)-1)

struct gp_map *gp_map_new(void);
/* Free the map and its keys (not the pointer values).  NULL is a no-op. */
void gp_map_free(struct gp_map *m);
size_t gp_map_count(const struct gp_map *m);

/* The index of key[0..len), or GP_MAP_NONE. */
size_t gp_map_findn(const struct gp_map *m, const void *key, size_t len);
/* The index of key[0..len), inserting it (value NULL / 0) when absent. */
size_t gp_map_addn(struct gp_map *m, const void *key, size_t len);
size_t gp_map_find(const struct gp_map *m, const char *key);
size_t gp_map_add(struct gp_map *m, const char *key);

/* By index i < count: the key (NUL-terminated; its length in *len when
 * len is not NULL) and the value. */
const char *gp_map_key(const struct gp_map *m, size_t i, size_t *len);
void *gp_map_ptr(const struct gp_map *m, size_t i);
uint64_t gp_map_u64(const struct gp_map *m, size_t i);
void gp_map_set_ptr(struct gp_map *m, size_t i, void *v);
void gp_map_set_u64(struct gp_map *m, size_t i, uint64_t v);

/* By C-string key: insert or replace; look up (NULL, or 0 returned, when
 * absent; gp_map_get_u64 stores the value in *v when present). */
int gp_map_has(const struct gp_map *m, const char *key);
void gp_map_put(struct gp_map *m, const char *key, void *v);
void *gp_map_get(const struct gp_map *m, const char *key);
void gp_map_put_u64(struct gp_map *m, const char *key, uint64_t v);
int gp_map_get_u64(const struct gp_map *m, const char *key, uint64_t *v);

/*
 * The one set of 64-bit integers (block hashes, say): the numbers themselves
 * in an open-addressing table (splitmix64, linear probing, at most half
 * full), no index and no order.  For millions of numbers it is several times
 * faster than a map of 8-byte keys (one memory read per probe, not two).
 * Memory as above: running out is exit 70.
 */
struct gp_u64set;

struct gp_u64set *gp_u64set_new(void);
void gp_u64set_free(struct gp_u64set *s);
size_t gp_u64set_count(const struct gp_u64set *s);
/* Insert v; returns 1 if it was already there, 0 if it is new. */
int gp_u64set_add(struct gp_u64set *s, uint64_t v);
int gp_u64set_has(const struct gp_u64set *s, uint64_t v);

#endif
