/* SPDX-License-Identifier: MIT */
/* fuzz-ndjson — libFuzzer harness: the NDJSON line reader (plain and gzip) and gp_input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "io/ndjson.h"

/*
 * Input layout: byte 0 — bit 0: gzip the rest before writing it (so the
 * reader's gzip path sees well-formed members); bits 1..3 pick max_line;
 * bit 4: read the file a second time through gp_input as JSON records.
 * A raw file may end in anything (trailing data after a member, a member
 * cut short: the reader's documented errors); a file we gzipped may not.
 * The rest is the file.  It goes into a memfd read through /proc/self/fd.
 */

static void write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w <= 0)
			abort();
		p += w;
		n -= (size_t)w;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static const size_t maxes[8] = { 1, 2, 7, 64, 1000, 4096, 300000, GP_NDJSON_MAX_LINE };
	struct gp_ndjson r;
	struct gp_input in;
	char path[64], *paths[1] = { path }, *line;
	size_t len, max_line;
	int fd, rc;

	if (n < 1)
		return 0;
	max_line = maxes[(d[0] >> 1) & 7];
	fd = memfd_create("fuzz-ndjson", 0);
	if (fd < 0)
		abort();
	if (d[0] & 1) {
		uLongf zn = compressBound((uLong)(n - 1)) + 32;
		unsigned char *z = malloc(zn);
		z_stream zs = { 0 };

		if (!z || deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			abort();
		zs.next_in = (unsigned char *)d + 1;
		zs.avail_in = (uInt)(n - 1);
		zs.next_out = z;
		zs.avail_out = (uInt)zn;
		if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
			abort();
		write_all(fd, z, zs.total_out);
		deflateEnd(&zs);
		free(z);
	} else {
		write_all(fd, d + 1, n - 1);
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

	gp_ndjson_init(&r);
	r.max_line = max_line;
	if (gp_ndjson_open(&r, path))
		abort();
	unsigned long prev = 0;
	while ((rc = gp_ndjson_next(&r, &line, &len)) == GP_NDJSON_LINE) {
		if (line[len] != '\0' || memchr(line, '\n', len) || len > max_line || len == 0)
			abort();
		if (r.line <= prev)
			abort();
		prev = r.line;
	}
	if (rc != GP_NDJSON_EOF && rc != GP_NDJSON_ETOOLONG && rc != GP_NDJSON_EREAD &&
	    rc != GP_NDJSON_ETRAIL && rc != GP_NDJSON_ETRUNC)
		abort();
	/* A member we wrote ourselves is whole gzip: never trailing data, cut
	 * short or corrupt, whatever bytes it holds. */
	if ((d[0] & 1) && (rc == GP_NDJSON_ETRAIL || rc == GP_NDJSON_ETRUNC || rc == GP_NDJSON_EREAD))
		abort();
	gp_ndjson_release(&r);

	if (!(d[0] & 0x10)) {
		close(fd);
		return 0;
	}
	/* The same file through gp_input, as records. */
	gp_input_init(&in, paths, 1);
	for (;;) {
		json_t *o = NULL;

		rc = gp_input_next_json(&in, &o);
		if (rc == GP_NDJSON_LINE) {
			if (!json_is_object(o))
				abort();
			json_decref(o);
			continue;
		}
		if (rc == GP_NDJSON_EJSON) {
			(void)gp_input_strerror(&in, rc);
			continue;
		}
		break;
	}
	(void)gp_input_strerror(&in, rc);
	gp_input_release(&in);
	close(fd);
	return 0;
}
