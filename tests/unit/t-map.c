/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of map: insert, look up, replace; 100k keys through every
 * growth; keys that differ in one byte at every length near a word boundary,
 * in an embedded NUL or a high bit; the empty key; a key longer than a
 * chunk; insertion-order indexes; key addresses that survive growth.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/map.h"
#include "tap.h"

static void test_empty(void)
{
	struct gp_map *m = gp_map_new();
	uint64_t v = 42;

	is_int(gp_map_count(m), 0, "a new map is empty");
	ok(gp_map_find(m, "a") == GP_MAP_NONE, "find in an empty map: none");
	ok(!gp_map_has(m, "") && !gp_map_get(m, "a"), "has and get in an empty map: no");
	ok(!gp_map_get_u64(m, "a", &v) && v == 42, "get_u64 of an absent key: 0, *v untouched");
	gp_map_free(m);
	gp_map_free(NULL);
}

static void test_put_get(void)
{
	struct gp_map *m = gp_map_new();
	int x, y;
	uint64_t v = 0;

	gp_map_put(m, "alpha", &x);
	gp_map_put(m, "beta", NULL);
	ok(gp_map_get(m, "alpha") == &x, "get returns what put stored");
	ok(gp_map_has(m, "beta") && !gp_map_get(m, "beta"), "a NULL value is still a key");
	ok(!gp_map_has(m, "alph") && !gp_map_has(m, "alphaa"), "a prefix or extension is another key");
	gp_map_put(m, "alpha", &y);
	ok(gp_map_get(m, "alpha") == &y, "put on a present key replaces the value");
	is_int(gp_map_count(m), 2, "replacing does not add a key");
	is_int(gp_map_find(m, "alpha"), 0, "the replaced key keeps its index");
	gp_map_free(m);

	m = gp_map_new();
	gp_map_put_u64(m, "n", UINT64_MAX);
	ok(gp_map_get_u64(m, "n", &v) && v == UINT64_MAX, "a 64-bit value round trips");
	is_int(gp_map_add(m, "n"), 0, "add of a present key: its index");
	ok(gp_map_u64(m, 0) == UINT64_MAX, "add of a present key keeps the value");
	is_int(gp_map_add(m, "fresh"), 1, "add of a new key: the count before");
	ok(gp_map_u64(m, 1) == 0 && gp_map_ptr(m, 1) == NULL, "a new key's value is 0 / NULL");
	gp_map_free(m);
}

/* 100k keys: every growth of the table, the entries and the key chunks. */
static void test_many(void)
{
	enum { N = 100000 };
	struct gp_map *m = gp_map_new();
	const char *first = NULL;
	char k[32];
	int order = 1, found = 1, vals = 1;

	for (int i = 0; i < N; i++) {
		snprintf(k, sizeof(k), "key-%d", i);
		order &= gp_map_add(m, k) == (size_t)i;
		gp_map_set_u64(m, (size_t)i, (uint64_t)i * 7 + 1);
		if (i == 0)
			first = gp_map_key(m, 0, NULL);
	}
	is_int(gp_map_count(m), N, "100000 distinct keys counted");
	ok(order, "each new key took the next index");
	for (int i = 0; i < N; i++) {
		uint64_t v = 0;

		snprintf(k, sizeof(k), "key-%d", i);
		found &= gp_map_find(m, k) == (size_t)i && !strcmp(gp_map_key(m, (size_t)i, NULL), k);
		vals &= gp_map_get_u64(m, k, &v) && v == (uint64_t)i * 7 + 1;
	}
	ok(found, "every key found at its index after growth");
	ok(vals, "every value kept through growth");
	ok(!gp_map_has(m, "key-100000") && !gp_map_has(m, "key--1") && !gp_map_has(m, "key-"),
	   "absent keys are absent in a full map");
	ok(first == gp_map_key(m, 0, NULL) && !strcmp(first, "key-0"),
	   "a key's address survives 100000 inserts");
	for (int i = 0; i < N; i += 1000) {
		snprintf(k, sizeof(k), "key-%d", i);
		gp_map_add(m, k);
	}
	is_int(gp_map_count(m), N, "adding present keys again changes nothing");
	gp_map_free(m);
}

/* Keys of length L = 1..40 that differ in their last byte only, those
 * differing in the high bit of one byte, and each with a NUL in it. */
static void test_bytes(void)
{
	struct gp_map *m = gp_map_new();
	unsigned char k[42];
	size_t n = 0, len;
	int all = 1;

	memset(k, 'x', sizeof(k));

	for (size_t L = 1; L <= 40; L++) {
		memset(k, 'x', L);
		for (int last = 0; last < 256; last += 51) {	/* 0, 51, ..., 255 */
			k[L - 1] = (unsigned char)last;
			all &= gp_map_addn(m, k, L) == n++;
		}
		k[L - 1] = 'x';
		k[0] ^= 0x80;
		all &= gp_map_addn(m, k, L) == n++;
	}
	ok(all, "280 keys differing in one byte (NUL, high bit) are distinct");
	all = 1;
	for (size_t L = 1; L <= 40; L++) {
		memset(k, 'x', L);
		k[L - 1] = 0;
		all &= gp_map_findn(m, k, L) == (L - 1) * 7 && gp_map_findn(m, k, L + 1) != (L - 1) * 7;
	}
	ok(all, "a key ending in NUL is found by its length, not by a longer one");
	ok(!memcmp(gp_map_key(m, 6, &len), "\xf8", 2) && len == 1, "the stored copy: bytes, length, a NUL after");

	is_int(gp_map_addn(m, "a\0b", 3), n, "\"a\\0b\" is a new key");
	is_int(gp_map_addn(m, "a\0c", 3), n + 1, "\"a\\0c\" differs after the NUL");
	is_int(gp_map_addn(m, "a", 1), n + 2, "\"a\" is not \"a\\0b\"");
	is_int(gp_map_findn(m, "a\0b", 3), n, "\"a\\0b\" found again");
	ok(gp_map_find(m, "a") == n + 2, "the C-string \"a\" is the 1-byte key");
	gp_map_free(m);
}

static void test_empty_key(void)
{
	struct gp_map *m = gp_map_new();
	size_t len = 9;

	is_int(gp_map_add(m, ""), 0, "the empty key is a key");
	is_int(gp_map_addn(m, "", 1), 1, "a lone NUL is another");
	is_int(gp_map_findn(m, NULL, 0), 0, "findn(NULL, 0) is the empty key");
	ok(!strcmp(gp_map_key(m, 0, &len), "") && len == 0, "the empty key reads back empty");
	gp_map_put(m, "", m);
	ok(gp_map_get(m, "") == m && gp_map_count(m) == 2, "the empty key holds a value");
	gp_map_free(m);
}

/* A key longer than the largest chunk, between short keys. */
static void test_long_key(void)
{
	enum { LONG = 3 * 1024 * 1024 };
	struct gp_map *m = gp_map_new();
	char *big = malloc(LONG);
	size_t len = 0;

	memset(big, 'z', LONG);
	gp_map_add(m, "before");
	is_int(gp_map_addn(m, big, LONG), 1, "a 3 MiB key is added");
	gp_map_add(m, "after");
	big[LONG - 1] = 'y';
	ok(gp_map_findn(m, big, LONG) == GP_MAP_NONE, "it differs from its last byte changed");
	big[LONG - 1] = 'z';
	ok(gp_map_findn(m, big, LONG) == 1 && !memcmp(gp_map_key(m, 1, &len), big, LONG) && len == LONG,
	   "found and read back whole");
	ok(!strcmp(gp_map_key(m, 0, NULL), "before") && !strcmp(gp_map_key(m, 2, NULL), "after"),
	   "short keys on either side intact");
	free(big);
	gp_map_free(m);
}

/* Indexes are insertion order, whatever the hash order. */
static void test_order(void)
{
	static const char *const keys[] = { "pear", "apple", "zebra", "", "mango", "apple2", "b" };
	enum { K = sizeof(keys) / sizeof(keys[0]) };
	struct gp_map *m = gp_map_new();
	int same = 1;

	for (size_t i = K; i-- > 0;)
		gp_map_put_u64(m, keys[i], i);
	for (size_t i = 0; i < K; i++)
		gp_map_put_u64(m, keys[i], 100 + i);		/* replacing keeps the order */
	for (size_t i = 0; i < K; i++)
		same &= !strcmp(gp_map_key(m, i, NULL), keys[K - 1 - i]) &&
			gp_map_u64(m, i) == 100 + (K - 1 - i);
	ok(same, "iteration by index is insertion order, values replaced in place");
	is_int(gp_map_count(m), K, "count");
	gp_map_free(m);
}

/* The integer set: new or seen, across growth, 0 and the all-ones value
 * (no value is a sentinel), against a plain sorted reference. */
static void test_u64set(void)
{
	struct gp_u64set *s = gp_u64set_new();
	const size_t N = 200000;
	int bad = 0;

	ok(!gp_u64set_has(s, 0) && gp_u64set_count(s) == 0, "a new set is empty, 0 not in it");
	is_int(gp_u64set_add(s, 0), 0, "0 is a value like another: new");
	is_int(gp_u64set_add(s, 0), 1, "0 again: seen");
	is_int(gp_u64set_add(s, UINT64_MAX), 0, "the all-ones value: new");
	ok(gp_u64set_has(s, UINT64_MAX) && !gp_u64set_has(s, 1), "has: the values added, not others");
	/* i * 2^32 (+ small): values alike in their low bits, each twice. */
	for (size_t i = 1; i <= N; i++)
		bad += gp_u64set_add(s, (uint64_t)i << 32) != 0;
	for (size_t i = 1; i <= N; i++)
		bad += gp_u64set_add(s, (uint64_t)i << 32) != 1;
	for (size_t i = 1; i <= N; i++)
		bad += gp_u64set_has(s, ((uint64_t)i << 32) + 1);
	is_int(bad, 0, "200k values with equal low bits: new once, then seen; neighbours absent");
	is_int(gp_u64set_count(s), N + 2, "count: distinct values only");
	gp_u64set_free(s);
	gp_u64set_free(NULL);
}

int main(void)
{
	test_empty();
	test_put_get();
	test_many();
	test_bytes();
	test_empty_key();
	test_long_key();
	test_order();
	test_u64set();
	return done_testing();
}
