/* SPDX-License-Identifier: MIT */
/* Unit tests of ndjson: plain/gzip input, line endings, limits, bad input, output. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "io/json.h"
#include "io/ndjson.h"
#include "tap.h"

static char dir[] = "/tmp/gp-t-ndjson.XXXXXX";

static char *path(const char *name)
{
	static char buf[8][256];
	static int k;

	k = (k + 1) % 8;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

static void write_file(const char *name, const char *data, size_t len)
{
	FILE *f = fopen(path(name), "wb");

	fwrite(data, 1, len, f);
	fclose(f);
}

static void write_gz(const char *name, const char *data, size_t len, const char *mode)
{
	gzFile g = gzopen(path(name), mode);

	gzwrite(g, data, (unsigned)len);
	gzclose(g);
}

static int lines_before;	/* lines read_all returned before its error */

/* Read all lines of one file; returns count or the negative error. */
static int read_all(const char *file, char out[][64], int max, unsigned long *lastline)
{
	struct gp_ndjson r;
	char *line;
	size_t len;
	int n = 0, e;

	gp_ndjson_init(&r);
	if (gp_ndjson_open(&r, file))
		return -100;
	while ((e = gp_ndjson_next(&r, &line, &len)) == GP_NDJSON_LINE) {
		if (n < max)
			snprintf(out[n], 64, "%.*s", (int)len, line);
		n++;
	}
	if (lastline)
		*lastline = r.line;
	lines_before = n;
	gp_ndjson_release(&r);
	return e < 0 ? e : n;
}

int main(void)
{
	char got[16][64];
	unsigned long last;
	const char *three = "{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n";

	if (!mkdtemp(dir))
		return 1;

	write_file("lf.ndjson", three, strlen(three));
	is_int(read_all(path("lf.ndjson"), got, 16, NULL), 3, "LF file: three lines");
	is_str(got[2], "{\"a\":3}", "LF file: third line intact");

	write_file("crlf.ndjson", "{\"a\":1}\r\n{\"a\":2}", 16);
	is_int(read_all(path("crlf.ndjson"), got, 16, NULL), 2, "CRLF without final newline: two lines");
	is_str(got[0], "{\"a\":1}", "CRLF stripped");
	is_str(got[1], "{\"a\":2}", "last line without newline kept");

	write_file("blank.ndjson", "\n{\"a\":1}\n  \n\n{\"a\":2}\n", 21);
	is_int(read_all(path("blank.ndjson"), got, 16, &last), 2, "blank lines skipped");
	is_int(last, 5, "line numbers count blank lines");

	write_file("empty.ndjson", "", 0);
	is_int(read_all(path("empty.ndjson"), got, 16, NULL), 0, "empty file: no lines");

	write_gz("z.ndjson.gz", three, strlen(three), "wb");
	is_int(read_all(path("z.ndjson.gz"), got, 16, NULL), 3, "gzip read transparently");
	is_str(got[1], "{\"a\":2}", "gzip content intact");

	/* Two gzip members back to back (as `cat a.gz b.gz`). */
	{
		write_gz("m1.gz", "{\"m\":1}\n", 8, "wb");
		write_gz("m2.gz", "{\"m\":2}\n", 8, "wb");
		FILE *a = fopen(path("m1.gz"), "rb"), *b = fopen(path("m2.gz"), "rb");
		FILE *c = fopen(path("cat.gz"), "wb");
		char buf[4096];
		size_t k;
		while ((k = fread(buf, 1, sizeof(buf), a)) > 0)
			fwrite(buf, 1, k, c);
		while ((k = fread(buf, 1, sizeof(buf), b)) > 0)
			fwrite(buf, 1, k, c);
		fclose(a), fclose(b), fclose(c);
		is_int(read_all(path("cat.gz"), got, 16, NULL), 2, "concatenated gzip members");
	}

	/* Truncated gzip: cut a member in half. */
	{
		char big[20000];
		size_t len = 0;
		for (int i = 0; len < sizeof(big) - 40; i++)
			len += (size_t)snprintf(big + len, sizeof(big) - len, "{\"i\":%d,\"pad\":\"%08x\"}\n", i, i * 2654435761u);
		write_gz("full.gz", big, len, "wb");
		FILE *f = fopen(path("full.gz"), "rb");
		char zbuf[30000];
		size_t zn = fread(zbuf, 1, sizeof(zbuf), f);
		fclose(f);
		write_file("trunc.gz", zbuf, zn / 2);
		ok(read_all(path("trunc.gz"), got, 16, NULL) == GP_NDJSON_ETRUNC, "truncated gzip is an error (cut short)");
		ok(lines_before > 10 && lines_before < 800, "the whole lines before the cut are returned first (%d)",
		   lines_before);
		zbuf[zn / 2] ^= 0x55;
		zbuf[zn / 2 + 1] ^= 0x55;
		write_file("corrupt.gz", zbuf, zn);
		ok(read_all(path("corrupt.gz"), got, 16, NULL) == GP_NDJSON_EREAD, "corrupt gzip is a read error");
	}

	/* After a gzip member: another member is read, anything else is an error
	 * naming its byte offset, after the member's lines. */
	{
		char zbuf[256];
		size_t zn;
		FILE *f;

		write_gz("one.gz", three, strlen(three), "wb");
		f = fopen(path("one.gz"), "rb");
		zn = fread(zbuf, 1, sizeof(zbuf), f);
		fclose(f);
		memcpy(zbuf + zn, "{\"a\":4}\n", 8);
		write_file("gzplain.gz", zbuf, zn + 8);
		{
			struct gp_ndjson r;
			char *line;
			size_t len;
			int n = 0, e;

			gp_ndjson_init(&r);
			gp_ndjson_open(&r, path("gzplain.gz"));
			while ((e = gp_ndjson_next(&r, &line, &len)) == GP_NDJSON_LINE)
				n++;
			is_int(e, GP_NDJSON_ETRAIL, ".gz + plain NDJSON: trailing-data error");
			is_int(n, 3, ".gz + plain: the member's three lines first");
			is_int(r.trail_at, zn, ".gz + plain: offset is the member's size");
			gp_ndjson_release(&r);
		}
		zbuf[zn] = 'x';
		write_file("gzbyte.gz", zbuf, zn + 1);
		is_int(read_all(path("gzbyte.gz"), got, 16, NULL), GP_NDJSON_ETRAIL, ".gz + one garbage byte: error");
		write_gz("two.gz", three, strlen(three), "ab");
		write_gz("two.gz", three, strlen(three), "ab");
		is_int(read_all(path("two.gz"), got, 16, NULL), 6, ".gz + .gz: both members read");
	}

	/* Spool: lines come back in order, in $TMPDIR, with nothing left there. */
	{
		struct gp_spool sp;
		char *line, cmd[512];
		size_t len;
		int n = 0, same = 1;
		static const char *const want[] = { "{\"a\":1}", "", "x\ty" };

		setenv("TMPDIR", dir, 1);
		ok(gp_spool_open(&sp) == 0, "spool: opens in $TMPDIR");
		for (int i = 0; i < 3; i++)
			gp_spool_put(&sp, want[i], strlen(want[i]));
		ok(gp_spool_rewind(&sp) == 0, "spool: rewinds after good writes");
		while (gp_spool_next(&sp, &line, &len) == GP_NDJSON_LINE) {
			same &= n < 3 && len == strlen(want[n]) && !strcmp(line, want[n]);
			n++;
		}
		ok(same && n == 3, "spool: the three lines back in order (%d)", n);
		snprintf(cmd, sizeof(cmd), "ls %s | grep -q gp-spool", dir);
		ok(system(cmd) != 0, "spool: the file is unlinked at once");
		gp_spool_close(&sp);
		unsetenv("TMPDIR");
	}

	/* Long lines: over the limit is an error naming the line; long but under is fine. */
	{
		size_t n = 3u << 20;
		char *big = malloc(n + 32);
		memset(big, 'x', n);
		memcpy(big, "{\"s\":\"", 6);
		memcpy(big + n - 2, "\"}", 2);
		big[n] = '\n';
		write_file("long.ndjson", big, n + 1);
		struct gp_ndjson r;
		char *line;
		size_t len;
		gp_ndjson_init(&r);
		gp_ndjson_open(&r, path("long.ndjson"));
		ok(gp_ndjson_next(&r, &line, &len) == GP_NDJSON_LINE && len == n, "3 MiB line read whole");
		gp_ndjson_release(&r);
		gp_ndjson_init(&r);
		r.max_line = 1u << 20;
		gp_ndjson_open(&r, path("long.ndjson"));
		ok(gp_ndjson_next(&r, &line, &len) == GP_NDJSON_ETOOLONG, "line over the limit refused");
		is_int(r.line, 1, "the refusal names line 1");
		gp_ndjson_release(&r);
		free(big);
	}

	/* gp_input over several files, JSON parsing and its errors. */
	{
		write_file("bad.ndjson", "{\"a\":1}\n{\"a\":\n", 14);
		write_file("arr.ndjson", "[1,2]\n", 6);
		char *paths[] = { path("lf.ndjson"), path("z.ndjson.gz"), path("bad.ndjson") };
		struct gp_input in;
		json_t *v;
		int e, n = 0;
		gp_input_init(&in, paths, 3);
		while ((e = gp_input_next_json(&in, &v)) == GP_NDJSON_LINE) {
			n++;
			json_decref(v);
		}
		is_int(n, 7, "gp_input reads across files");
		is_int(e, GP_NDJSON_EJSON, "bad JSON reported");
		ok(strstr(gp_input_name(&in), "bad.ndjson") != NULL, "error names the file");
		is_int(gp_input_line(&in), 2, "error names line 2");
		ok(strstr(gp_input_strerror(&in, e), "not valid JSON") != NULL, "message says not valid JSON");
		gp_input_release(&in);

		char *p2[] = { path("arr.ndjson") };
		gp_input_init(&in, p2, 1);
		e = gp_input_next_json(&in, &v);
		is_int(e, GP_NDJSON_EJSON, "a JSON array is not a record");
		gp_input_release(&in);

		char *p3[] = { path("does-not-exist") };
		gp_input_init(&in, p3, 1);
		e = gp_input_next_json(&in, &v);
		is_int(e, GP_NDJSON_EOPEN, "missing file reported");
		ok(strstr(gp_input_strerror(&in, e), "No such file") != NULL, "with the system's reason");
		gp_input_release(&in);
	}

	/* Output: plain and gzip round trip. */
	{
		struct gp_out o;
		json_t *v = json_pack("{s:s,s:f,s:i}", "type", "x", "t_s", 0.1, "n", 3);
		ok(gp_out_open(&o, path("out.ndjson.gz"), 0) == 0, "open .gz output");
		for (int i = 0; i < 100; i++)
			gp_out_json(&o, v);
		ok(gp_out_close(&o) == 0, "close .gz output");
		is_int(read_all(path("out.ndjson.gz"), got, 16, NULL), 100, "gz output reads back 100 records");
		is_str(got[0], "{\"type\":\"x\",\"t_s\":0.1,\"n\":3}", "compact, ordered, 0.1 printed as 0.1");
		json_decref(v);
		v = json_object();
		gp_json_set_real(v, "x", NAN);
		char *s = gp_json_dump(v);
		is_str(s, "{\"x\":null}", "NaN becomes null");
		free(s);
		json_decref(v);
	}

	/* Writing to a closed pipe fails with EPIPE, not a crash. */
	{
		int fds[2];
		struct gp_out o;
		if (pipe(fds) == 0) {
			signal(SIGPIPE, SIG_IGN);
			close(fds[0]);
			memset(&o, 0, sizeof(o));
			o.f = fdopen(fds[1], "w");
			o.flush_each = 1;
			int r = gp_out_line(&o, "{}", 2);
			ok(r == -1 && o.err == EPIPE, "EPIPE reported");
			fclose(o.f);
		}
	}

	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
	return done_testing();
}
