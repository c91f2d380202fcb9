/* SPDX-License-Identifier: MIT */
/* fuzz-prom — libFuzzer harness: the Prometheus text exposition parser. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/prom.h"

/*
 * Every reported series must be a non-empty metric name optionally followed
 * by {...}; the whole input is parsed again as its own prefix up to the
 * first malformed line, which must report the same number of samples.
 */
struct acc {
	size_t n;
	size_t bytes;
};

static void on_sample(const char *series, double value, void *arg)
{
	struct acc *a = arg;
	size_t len = strlen(series);
	char c = series[0];

	if (!len || !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':'))
		abort();
	if (strchr(series, '{') && series[len - 1] != '}')
		abort();
	a->n++;
	a->bytes += len;
	(void)value;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct acc a = { 0 }, b = { 0 };
	/* An exact-size heap copy so reads past the end are caught. */
	char *text = malloc(n ? n : 1);
	int rc, rc2;

	if (!text)
		abort();
	memcpy(text, d, n);
	rc = gp_prom_parse(text, n, on_sample, &a);
	if (rc < -1)
		abort();
	if (rc > 0) {
		/* Cut just before the bad line: every sample again, and rc 0. */
		size_t pos = 0;
		int line = 1;

		while (line < rc) {
			const char *nl = memchr(text + pos, '\n', n - pos);

			if (!nl)
				abort();
			pos = (size_t)(nl - text) + 1;
			line++;
		}
		rc2 = gp_prom_parse(text, pos, on_sample, &b);
		if (rc2 != 0 || b.n != a.n || b.bytes != a.bytes)
			abort();
	}
	free(text);
	return 0;
}
