/* SPDX-License-Identifier: MIT */
/*
 * binding — what ties gp-verify publish's evidence to the runs it publishes
 * (gp-verify(1), "Bindings"): the digest of a run's run_end records, which
 * gp-verify validity writes beside each verdict and publish recomputes from
 * the records it is fed, and the digest of a validity record's own content.
 *
 * A digest is "sha256:" and 64 lower-case hex digits of SHA-256 (OpenSSL's
 * libcrypto) over a canonical text: each record serialised by jansson with
 * its keys sorted, compact, every number as a real to 17 significant
 * digits, ASCII only, so that the digest depends on the records' values and
 * not on how a tool spaced, ordered or wrote them (jq writes 60.0 as 60).  A run's digest covers its run_end records (one per
 * shard) sorted by that text, each followed by "\n": merging the shards in
 * another order gives the same digest; editing, dropping or adding a
 * run_end gives another.  A run without a run_end has the digest of the
 * empty text.
 *
 * Nothing here prints or exits: the functions that can fail return -1 with
 * errno ENOMEM (the caller says "out of memory").
 *
 * Ownership: gp_run_digest collects copies of the texts and frees them in
 * gp_run_digest_release; everything else is the caller's.
 */
#ifndef GP_BINDING_H
#define GP_BINDING_H

#include <jansson.h>
#include <stddef.h>

#define GP_DIGEST_LEN 71	/* "sha256:" + 64 hex digits */

struct gp_run_digest {
	char **texts;		/* canonical run_end texts */
	size_t n, cap;
};

/* Add one run_end record to d (a copy of its canonical text).  Returns 0, or
 * -1 when out of memory. */
int gp_run_digest_add(struct gp_run_digest *d, const json_t *run_end);

/* The digest of what d holds, NUL-terminated into out[GP_DIGEST_LEN + 1].
 * Returns 0, or -1 when out of memory (out unchanged). */
int gp_run_digest_hex(struct gp_run_digest *d, char out[GP_DIGEST_LEN + 1]);

void gp_run_digest_release(struct gp_run_digest *d);

/* The digest of a record without its `field` (the record is not changed),
 * as written by gp_json_dump and read back: the validity record's
 * self-digest, the same whether computed before writing or after reading.
 * Returns 0, or -1 when out of memory (out unchanged). */
int gp_record_digest(const json_t *rec, const char *field, char out[GP_DIGEST_LEN + 1]);

#endif
