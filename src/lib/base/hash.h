/* SPDX-License-Identifier: MIT */
/*
 * hash — the two non-cryptographic hashes every tool uses, defined once.
 * Header-only (static inline), no state, no allocation.
 *
 *  - splitmix64 (Steele, Lea & Flood 2014; Vigna's public-domain reference at
 *    prng.di.unimi.it/splitmix64.c): gp_splitmix64() steps a 64-bit state by
 *    the golden-ratio increment and returns its finaliser gp_mix64(), a
 *    bijective 64-bit mixer.  gp-trace's seeds, gp-sim's streams and the
 *    key hashes of router/kvcache depend on these exact constants: changing
 *    them changes seeded outputs.
 *  - FNV-1a 64 (Fowler, Noll & Vo; offset basis 14695981039346656037, prime
 *    1099511628211): gp_fnv1a64() over bytes, continuing from a given state
 *    so a digest can be fed line by line; gp_fnv1a64_str() over a C string
 *    from the offset basis.
 */
#ifndef GP_HASH_H
#define GP_HASH_H

#include <stddef.h>
#include <stdint.h>

#define GP_FNV64_OFFSET 0xcbf29ce484222325ULL
#define GP_FNV64_PRIME 0x100000001b3ULL
#define GP_GOLDEN64 0x9e3779b97f4a7c15ULL

/* splitmix64's output function. */
static inline uint64_t gp_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* One splitmix64 step: advance *state, return the mixed value. */
static inline uint64_t gp_splitmix64(uint64_t *state)
{
	return gp_mix64(*state += GP_GOLDEN64);
}

/* The first splitmix64 output from state x: a stateless hash of x. */
static inline uint64_t gp_splitmix64_of(uint64_t x)
{
	return gp_splitmix64(&x);
}

/* FNV-1a 64 of n bytes, continuing from h (GP_FNV64_OFFSET to start). */
static inline uint64_t gp_fnv1a64(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * GP_FNV64_PRIME;
	return h;
}

/* FNV-1a 64 of a NUL-terminated string from the offset basis; NULL hashes as "". */
static inline uint64_t gp_fnv1a64_str(const char *s)
{
	uint64_t h = GP_FNV64_OFFSET;

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * GP_FNV64_PRIME;
	return h;
}

#endif
