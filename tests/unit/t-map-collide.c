/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of map's key comparison: map.c built here with a hash under
 * which every key collides (the same tag, the same first slot), so each
 * lookup compares against every key before it: the length, the first 8
 * bytes, then the rest.  (Under the real hash, t-map.c, keys that differ
 * almost never reach the comparison.)
 */
#define GP_MAP_HASH(key, len) ((void)(key), (void)(len), 0xa5a5a5a500000000ULL)
#include "base/map.c"

#include <stdio.h>

#include "tap.h"

/* Keys that one careless comparison would confuse: a shorter key zero-padded
 * to the same head, a difference in the head, just past it, at the end. */
static const struct {
	const char *k;
	size_t n;
} keys[] = {
	{ "", 0 }, { "\0", 1 }, { "\0\0", 2 }, { "a", 1 }, { "a\0", 2 }, { "b", 1 },
	{ "abcdefgh", 8 }, { "abcdefg", 7 }, { "abcdefgh\0", 9 }, { "abcdefgi", 8 },
	{ "bbcdefgh", 8 }, { "abcdefghX", 9 }, { "abcdefghY", 9 }, { "abcdefghXY", 10 },
	{ "abcdefghXZ", 10 }, { "\xff\xff\xff\xff\xff\xff\xff\xff\xff", 9 },
	{ "\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 9 },
};
enum { K = sizeof(keys) / sizeof(keys[0]) };

/* Keys 'q'... of lengths 1..40 ending in '0', '1' or '2': added (add) or
 * looked up; 1 when each is at the index its rank gives (after keys[]). */
static int last_byte_keys(struct gp_map *m, int add)
{
	char k[40];
	int all = 1;

	memset(k, 'q', sizeof(k));
	for (size_t L = 1; L <= 40; L++)
		for (int c = 0; c < 3; c++) {
			size_t i;

			k[L - 1] = (char)('0' + c);
			i = add ? gp_map_addn(m, k, L) : gp_map_findn(m, k, L);
			all &= i == K + 3 * (L - 1) + (size_t)c;
			k[L - 1] = 'q';
		}
	return all;
}

int main(void)
{
	struct gp_map *m = gp_map_new();
	int distinct = 1, found = 1, absent = 1;

	for (size_t i = 0; i < K; i++)
		distinct &= gp_map_addn(m, keys[i].k, keys[i].n) == i;
	ok(distinct, "%d colliding keys that differ in length, head or tail are distinct", K);
	for (size_t i = 0; i < K; i++)
		found &= gp_map_findn(m, keys[i].k, keys[i].n) == i;
	ok(found, "each found at its own index");
	absent &= gp_map_findn(m, "abcdefghZ", 9) == GP_MAP_NONE;
	absent &= gp_map_findn(m, "abcdefghX\0", 10) == GP_MAP_NONE;
	absent &= gp_map_findn(m, "\0\0\0", 3) == GP_MAP_NONE;
	absent &= gp_map_findn(m, "abcdefgj", 8) == GP_MAP_NONE;
	ok(absent, "near misses (tail, trailing NUL, length, head) are absent");

	/* 40 more lengths, each key differing from the last only in its last
	 * byte; the table grows from 64 to 512 slots with every key colliding. */
	ok(last_byte_keys(m, 1), "120 keys differing in the last byte, through growth, distinct");
	ok(last_byte_keys(m, 0), "and each found after growth");
	is_int(gp_map_count(m), K + 120, "count");
	gp_map_free(m);
	return done_testing();
}
