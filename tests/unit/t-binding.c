/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of binding: the digest of a run's run_end records is SHA-256
 * over their canonical texts (keys sorted, every number a real), sorted, each
 * followed by "\n"; the reference digests are GNU coreutils 9.1's sha256sum
 * over the texts written out by hand (printf '{"a":1.0,"b":[2.0,"x"]}\n' |
 * sha256sum).  60 and 60.0 are one value; the shards' order does not count;
 * an edit does.
 */
#include <string.h>

#include "method/binding.h"
#include "tap.h"

static void digest_of(const char *const *texts, size_t n, char out[GP_DIGEST_LEN + 1])
{
	struct gp_run_digest d = { 0 };

	for (size_t i = 0; i < n; i++) {
		json_t *o = json_loads(texts[i], 0, NULL);

		ok(o && gp_run_digest_add(&d, o) == 0, "record %zu added", i);
		json_decref(o);
	}
	ok(gp_run_digest_hex(&d, out) == 0, "digest computed");
	gp_run_digest_release(&d);
}

int main(void)
{
	char a[GP_DIGEST_LEN + 1], b[GP_DIGEST_LEN + 1];
	const char *one[] = { "{\"b\": [2, \"x\"], \"a\": 1}" };
	const char *one_real[] = { "{\"a\":1.0,\"b\":[2.0,\"x\"]}" };
	const char *two[] = { "{\"a\":2}", "{\"a\":1}" };
	const char *two_other[] = { "{\"a\":1}", "{\"a\":2}" };
	const char *edited[] = { "{\"a\":1}", "{\"a\":3}" };
	json_t *rec;

	digest_of(NULL, 0, a);
	is_str(a, "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	       "no run_end: the digest of the empty text");
	digest_of(one, 1, a);
	is_str(a, "sha256:5130767f7ed6a4702f347395e7c6d2b4b9bac8b4cb6d3afd9fb19a6b90126cc8",
	       "keys sorted, integers as reals: sha256sum of {\"a\":1.0,\"b\":[2.0,\"x\"]}\\n");
	digest_of(one_real, 1, b);
	is_str(b, a, "1 and 1.0 are one value (jq writes 1.0 as 1)");
	digest_of(two, 2, a);
	is_str(a, "sha256:e409ba2116bf5cb3fd9266c59198ce50d85c3a1125704b0ad107175acd3c3b23",
	       "two shards' run_ends, sorted: sha256sum of {\"a\":1.0}\\n{\"a\":2.0}\\n");
	digest_of(two_other, 2, b);
	is_str(b, a, "the shards merged in another order: the same digest");
	digest_of(edited, 2, b);
	ok(strcmp(a, b) != 0, "a run_end edited: another digest");
	is_int((long)strlen(a), GP_DIGEST_LEN, "sha256: and 64 hex digits");

	rec = json_loads("{\"type\":\"validity\",\"kept\":1,\"window_s\":60.0,\"digest\":\"x\"}", 0, NULL);
	ok(gp_record_digest(rec, "digest", a) == 0, "record digest computed");
	json_object_set_new(rec, "digest", json_string("something else"));
	ok(gp_record_digest(rec, "digest", b) == 0, "record digest computed");
	is_str(b, a, "a record's digest leaves its own field out");
	json_object_set_new(rec, "window_s", json_integer(60));
	ok(gp_record_digest(rec, "digest", b) == 0, "record digest computed");
	is_str(b, a, "and reads 60 as 60.0");
	json_object_set_new(rec, "kept", json_integer(2));
	ok(gp_record_digest(rec, "digest", b) == 0, "record digest computed");
	ok(strcmp(a, b) != 0, "an edited field changes it");
	ok(json_object_get(rec, "digest") != NULL, "the record itself is not changed");
	json_decref(rec);
	return done_testing();
}
