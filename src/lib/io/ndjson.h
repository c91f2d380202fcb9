/* SPDX-License-Identifier: MIT */
/*
 * ndjson — line-oriented record input and output, gzip transparent (zlib).
 *
 * Input: gp_input iterates over the files named on the command line, or stdin
 * when there are none ("-" also means stdin).  Each file may be plain or gzip
 * (concatenated members too; zlib inflate, member by member).  Bytes after a
 * gzip member that do not start another member (plain NDJSON appended to a
 * .gz, garbage) are an error naming their byte offset (GP_NDJSON_ETRAIL), as
 * is a member cut short (GP_NDJSON_ETRUNC): zlib's gzread would drop the
 * first silently and the records with it.  CRLF and a missing final newline are accepted;
 * blank lines are skipped.  A line longer than GP_NDJSON_MAX_LINE bytes is an
 * error.  The line returned by gp_input_next() is borrowed: valid until the
 * next call; it is NUL-terminated and without its line ending.
 *
 * Output: gp_out writes one record per line to stdout or a file, gzip when asked
 * or when the name ends in ".gz"; when the destination is a pipe or terminal
 * (and not gzip) every record is flushed as written.
 */
#ifndef GP_NDJSON_H
#define GP_NDJSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include <zlib.h>

#define GP_NDJSON_MAX_LINE (64u << 20)	/* 64 MiB: one record, documented */

enum {
	GP_NDJSON_EOF = 0,
	GP_NDJSON_LINE = 1,
	GP_NDJSON_EOPEN = -1,	/* cannot open (errno set) */
	GP_NDJSON_EREAD = -2,	/* read error or corrupt gzip stream */
	GP_NDJSON_ETOOLONG = -3,	/* line over GP_NDJSON_MAX_LINE */
	GP_NDJSON_EJSON = -4,	/* line is not a JSON object */
	GP_NDJSON_ENOMEM = -5,
	GP_NDJSON_ETRAIL = -6,	/* bytes after a gzip member that are not gzip */
	GP_NDJSON_ETRUNC = -7,	/* gzip member cut short */
};

struct gp_ndjson {
	int fd;			/* -1: closed */
	int mode;		/* 0 not yet known, 1 plain, 2 gzip */
	int in_member;		/* gzip: inside a member (inflate running) */
	int raw_eof;
	z_stream z;		/* z.next_in/avail_in: raw bytes not yet used */
	unsigned char *raw;	/* raw (file) bytes */
	size_t raw_len;		/* bytes in raw[] */
	unsigned long long raw_off;	/* file offset of raw[0] */
	unsigned long long trail_at;	/* GP_NDJSON_ETRAIL: its byte offset */
	const char *name;	/* for messages: the path, or "-" (stdin) */
	unsigned long line;	/* number of the line last returned (1-based) */
	char *buf;		/* holds the buffered bytes */
	size_t cap, start, end;	/* buf[start..end) not yet consumed */
	int eof;
	int pending;		/* read error held until the whole lines before it are returned */
	size_t max_line;
};

void gp_ndjson_init(struct gp_ndjson *r);
/* Open path ("-" or NULL: stdin).  0 or GP_NDJSON_EOPEN. */
int gp_ndjson_open(struct gp_ndjson *r, const char *path);
/* Next non-blank line: GP_NDJSON_LINE, GP_NDJSON_EOF, or a negative error. */
int gp_ndjson_next(struct gp_ndjson *r, char **line, size_t *len);
void gp_ndjson_release(struct gp_ndjson *r);

struct gp_input {
	char **paths;		/* borrowed */
	int npaths, next;
	struct gp_ndjson cur;
	int open;
	char errmsg[256];	/* filled on a negative return */
	const char *shown;	/* name in messages instead of the path, or NULL */
};

/* Iterate over paths[0..n), or stdin when n == 0. */
void gp_input_init(struct gp_input *in, char **paths, int n);
/* Next line of the current file, moving to the next file at EOF. */
int gp_input_next(struct gp_input *in, char **line, size_t *len);
/*
 * Next line parsed as a JSON object: *out is a new reference the caller
 * decrefs.  GP_NDJSON_EJSON with in->errmsg set when the line is not an object.
 */
int gp_input_next_json(struct gp_input *in, json_t **out);
/* Where the last line came from, for messages. */
static inline const char *gp_input_name(const struct gp_input *in)
{
	return in->shown ? in->shown : in->cur.name;
}
static inline unsigned long gp_input_line(const struct gp_input *in) { return in->cur.line; }
void gp_input_release(struct gp_input *in);
/* Human text for a negative return (uses in->errmsg when set). */
const char *gp_input_strerror(const struct gp_input *in, int err);

/*
 * line (read from in) parsed as a JSON object: GP_NDJSON_LINE and a new
 * reference in *out, or GP_NDJSON_EJSON with the one wording in the input's
 * message ("not valid JSON (column N): …", "record is not a JSON object").
 * cli.h's gp_input_need_object is the tools' dying form.
 */
int gp_input_parse_object(struct gp_input *in, const char *line, size_t len, json_t **out);

/*
 * Spool: lines kept on disk to be read again, in an unlinked temporary file
 * in $TMPDIR (else /tmp) — constant memory, nothing left behind.  Write with
 * gp_spool_put (or fprintf to f), gp_spool_rewind, then gp_spool_next returns
 * the lines in order (borrowed until the next call, without the newline).
 * gp_spool_stdin makes stdin re-readable by path instead: a regular file is
 * used in place, anything else is copied into the spool first; path is then
 * "/proc/self/fd/N" for gp_input.  All return 0, or -1 with errno set.
 */
struct gp_spool {
	FILE *f;
	char *line;
	size_t cap;
	char path[32];
};

int gp_spool_open(struct gp_spool *s);
/* n bytes and a newline. */
int gp_spool_put(struct gp_spool *s, const char *p, size_t n);
/* -1 when any write failed; then reading starts at the first line. */
int gp_spool_rewind(struct gp_spool *s);
/* GP_NDJSON_LINE, GP_NDJSON_EOF or GP_NDJSON_EREAD. */
int gp_spool_next(struct gp_spool *s, char **line, size_t *len);
/* Copy stdin (unless a regular file at offset 0): 0, -1 reading stdin
 * (errno EINTR when stop() said so after a signal), -2 writing the spool. */
int gp_spool_stdin(struct gp_spool *s, int (*stop)(void));
void gp_spool_close(struct gp_spool *s);

struct gp_out {
	FILE *f;
	gzFile gz;
	int flush_each;
	int is_stdout;
	int err;
	const char *name;		/* the path (borrowed), or "stdout" */
	int64_t flushed_ns;		/* the last gp_out_tick flush (clock.h) */
};

/*
 * Durability: a long-running writer (gp-replay) calls gp_out_tick often;
 * once GP_OUT_FLUSH_NS has passed since the last flush it flushes — stdio
 * to the kernel, gzip with Z_SYNC_FLUSH, so a file cut after it (SIGKILL,
 * the OOM killer) decompresses up to that point — and reports a write error
 * then, not at the end of the run.
 */
#define GP_OUT_FLUSH_NS 1000000000LL

/* path NULL or "-": stdout.  gzip: 1 to compress (also when path ends ".gz").
 * Returns 0, or -1 with errno set. */
int gp_out_open(struct gp_out *o, const char *path, int gzip);
/* Write buf (without newline) and a newline. 0 or -1 (error remembered). */
int gp_out_line(struct gp_out *o, const char *buf, size_t len);
/* Dump a JSON value compactly as one line. */
int gp_out_json(struct gp_out *o, const json_t *v);
/* Flush and close; -1 if any write failed (errno set, EPIPE included). */
int gp_out_close(struct gp_out *o);
/* Flush what is buffered (as above).  0 or -1 (errno set, error remembered). */
int gp_out_flush(struct gp_out *o);
/* gp_out_flush when GP_OUT_FLUSH_NS passed since the last one (now_ns on
 * clock.h's monotonic clock); else 0 at once. */
int gp_out_tick(struct gp_out *o, int64_t now_ns);

#endif
