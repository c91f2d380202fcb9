/* SPDX-License-Identifier: MIT */
/* ndjson — line reader over zlib inflate (member by member), spool, record writer. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/clock.h"
#include "io/json.h"
#include "io/ndjson.h"
#include "base/sig.h"
#include "base/vec.h"

#define READ_CHUNK (256u << 10)

#define RAW_CHUNK (64u << 10)

void gp_ndjson_init(struct gp_ndjson *r)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->max_line = GP_NDJSON_MAX_LINE;
	r->name = "-";
}

int gp_ndjson_open(struct gp_ndjson *r, const char *path)
{
	int fd;

	if (!path || !strcmp(path, "-")) {
		fd = dup(STDIN_FILENO);
		r->name = "-";
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		r->name = path;
	}
	if (fd < 0)
		return GP_NDJSON_EOPEN;
	r->raw = malloc(RAW_CHUNK);
	if (!r->raw) {
		close(fd);
		errno = ENOMEM;
		return GP_NDJSON_EOPEN;
	}
	r->fd = fd;
	r->mode = 0;
	r->in_member = 0;
	r->raw_eof = 0;
	r->raw_len = r->raw_off = 0;
	r->z.next_in = r->raw;
	r->z.avail_in = 0;
	r->line = 0;
	r->start = r->end = 0;
	r->eof = r->pending = 0;
	return 0;
}

/* Keep the unused raw bytes, read more after them: 1 read, 0 EOF, <0 error. */
static int raw_more(struct gp_ndjson *r)
{
	size_t keep = r->z.avail_in, used = r->raw_len - keep;
	ssize_t got;

	if (r->raw_eof)
		return 0;
	memmove(r->raw, r->z.next_in, keep);
	r->raw_off += used;
	r->raw_len = keep;
	/* EINTR is an error, not retried: a stopping signal (sig.h) must end a
	 * read from a pipe that never closes; gp_input_failed tells the two apart. */
	got = read(r->fd, r->raw + keep, RAW_CHUNK - keep);
	r->z.next_in = r->raw;
	if (got < 0)
		return GP_NDJSON_EREAD;
	if (got == 0)
		r->raw_eof = 1;
	r->raw_len += (size_t)got;
	r->z.avail_in = (uInt)r->raw_len;
	return got > 0;
}

/* At least two raw bytes unused, unless the file ends first.  0 or <0. */
static int raw_two(struct gp_ndjson *r)
{
	int e;

	while (r->z.avail_in < 2)
		if ((e = raw_more(r)) <= 0)
			return e;
	return 0;
}

static int at_gzip_magic(const struct gp_ndjson *r)
{
	return r->z.avail_in >= 2 && r->z.next_in[0] == 0x1f && r->z.next_in[1] == 0x8b;
}

/* Between gzip members: start the next one, or end cleanly at EOF. */
static int next_member(struct gp_ndjson *r)
{
	int e = raw_two(r);

	if (e < 0)
		return e;
	if (!r->z.avail_in)
		return 0;
	if (!at_gzip_magic(r)) {
		r->trail_at = r->raw_off + (unsigned long long)(r->z.next_in - r->raw);
		return GP_NDJSON_ETRAIL;
	}
	if (inflateReset(&r->z) != Z_OK)
		return GP_NDJSON_EREAD;
	r->in_member = 1;
	return 1;
}

/* Inflate into dst[0..n): bytes made (> 0), 0 at a clean end, or < 0. */
static int inflate_some(struct gp_ndjson *r, char *dst, size_t n)
{
	for (;;) {
		int rc, e;

		if (!r->in_member && (e = next_member(r)) <= 0)
			return e;
		if (!r->z.avail_in && (e = raw_more(r)) <= 0)
			return e < 0 ? e : GP_NDJSON_ETRUNC;
		r->z.next_out = (unsigned char *)dst;
		r->z.avail_out = (uInt)n;
		rc = inflate(&r->z, Z_NO_FLUSH);
		if (rc == Z_STREAM_END)
			r->in_member = 0;
		else if (rc != Z_OK && rc != Z_BUF_ERROR)
			return GP_NDJSON_EREAD;
		if (r->z.avail_out < n)
			return (int)(n - r->z.avail_out);
	}
}

/* Decoded bytes into dst[0..n): count (> 0), 0 at end of file, or < 0. */
static int decode(struct gp_ndjson *r, char *dst, size_t n)
{
	int e;

	if (!r->mode) {
		if ((e = raw_two(r)) < 0)
			return e;
		r->mode = at_gzip_magic(r) ? 2 : 1;
		if (r->mode == 2 && inflateInit2(&r->z, 15 + 16) != Z_OK)
			return GP_NDJSON_ENOMEM;
	}
	if (r->mode == 2)
		return inflate_some(r, dst, n);
	if (!r->z.avail_in && (e = raw_more(r)) <= 0)
		return e;
	if (n > r->z.avail_in)
		n = r->z.avail_in;
	memcpy(dst, r->z.next_in, n);
	r->z.next_in += n;
	r->z.avail_in -= (uInt)n;
	return (int)n;
}

/* Make room for at least READ_CHUNK more bytes after end. */
static int grow(struct gp_ndjson *r)
{
	size_t used = r->end - r->start;
	size_t need = used + READ_CHUNK + 1;
	char *nb;

	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, used);
		r->start = 0;
		r->end = used;
	}
	if (r->cap >= need)
		return 0;
	nb = gp_grow(r->buf, &r->cap, need, 1, READ_CHUNK * 2);
	if (!nb)
		return GP_NDJSON_ENOMEM;
	r->buf = nb;
	return 0;
}

int gp_ndjson_next(struct gp_ndjson *r, char **line, size_t *len)
{
	size_t scan = r->start;

	for (;;) {
		char *nl = r->end > scan ? memchr(r->buf + scan, '\n', r->end - scan) : NULL;
		char *s;
		size_t n;

		if (!nl && !r->eof) {
			if (r->end - r->start > r->max_line) {
				r->line++;
				return GP_NDJSON_ETOOLONG;
			}
			size_t off = scan - r->start;
			int e = grow(r);
			if (e)
				return e;
			scan = r->start + off;
			int got = decode(r, r->buf + r->end, READ_CHUNK);
			if (got < 0) {
				r->pending = got;	/* after the whole lines read so far */
				got = 0;
			}
			if (got == 0)
				r->eof = 1;
			r->end += (size_t)got;
			continue;
		}
		if (!nl && (r->start == r->end || r->pending))
			return r->pending ? r->pending : GP_NDJSON_EOF;
		s = r->buf + r->start;
		if (nl) {
			n = (size_t)(nl - s);
			r->start += n + 1;
		} else {
			n = r->end - r->start;	/* last line without newline */
			r->start = r->end;
		}
		r->line++;
		if (n > r->max_line)
			return GP_NDJSON_ETOOLONG;
		if (n && s[n - 1] == '\r')
			n--;
		s[n] = '\0';
		/* Skip blank lines (only spaces/tabs). */
		size_t k = 0;
		while (k < n && (s[k] == ' ' || s[k] == '\t'))
			k++;
		if (k == n) {
			scan = r->start;
			continue;
		}
		*line = s;
		*len = n;
		return GP_NDJSON_LINE;
	}
}

void gp_ndjson_release(struct gp_ndjson *r)
{
	if (r->mode == 2)
		inflateEnd(&r->z);
	if (r->fd >= 0)
		close(r->fd);
	free(r->raw);
	free(r->buf);
	r->fd = -1;
	r->mode = 0;
	r->raw = NULL;
	r->buf = NULL;
	r->cap = r->start = r->end = 0;
}

void gp_input_init(struct gp_input *in, char **paths, int n)
{
	memset(in, 0, sizeof(*in));
	in->paths = paths;
	in->npaths = n;
	gp_ndjson_init(&in->cur);
}

int gp_input_next(struct gp_input *in, char **line, size_t *len)
{
	for (;;) {
		if (!in->open) {
			const char *p;

			if (in->npaths == 0 && in->next == 0)
				p = "-";
			else if (in->next < in->npaths)
				p = in->paths[in->next];
			else
				return GP_NDJSON_EOF;
			in->next++;
			gp_ndjson_init(&in->cur);
			if (gp_ndjson_open(&in->cur, p) < 0) {
				in->cur.name = p;
				snprintf(in->errmsg, sizeof(in->errmsg), "cannot open: %s", strerror(errno));
				return GP_NDJSON_EOPEN;
			}
			in->open = 1;
		}
		int e = gp_ndjson_next(&in->cur, line, len);
		if (e == GP_NDJSON_ETRAIL)
			snprintf(in->errmsg, sizeof(in->errmsg),
				 "byte %llu: data after the gzip member is not gzip "
				 "(plain records appended to a .gz?)", in->cur.trail_at);
		if (e != GP_NDJSON_EOF)
			return e;
		/* Keep the name for messages after EOF; release buffers. */
		const char *name = in->cur.name;
		unsigned long ln = in->cur.line;
		gp_ndjson_release(&in->cur);
		in->cur.name = name;
		in->cur.line = ln;
		in->open = 0;
		if (in->npaths == 0 || in->next >= in->npaths)
			return GP_NDJSON_EOF;
	}
}

/* line as a JSON object in *out, or GP_NDJSON_EJSON with in->errmsg set. */
static int parse_object(struct gp_input *in, const char *line, size_t len, json_t **out)
{
	json_error_t jerr;
	json_t *v = json_loadb(line, len, 0, &jerr);

	if (!v) {
		snprintf(in->errmsg, sizeof(in->errmsg), "not valid JSON (column %d): %s",
			 jerr.column, jerr.text);
		return GP_NDJSON_EJSON;
	}
	if (!json_is_object(v)) {
		json_decref(v);
		snprintf(in->errmsg, sizeof(in->errmsg), "record is not a JSON object");
		return GP_NDJSON_EJSON;
	}
	*out = v;
	return GP_NDJSON_LINE;
}

int gp_input_next_json(struct gp_input *in, json_t **out)
{
	char *line;
	size_t len;
	int e = gp_input_next(in, &line, &len);

	if (e != GP_NDJSON_LINE)
		return e;
	return parse_object(in, line, len, out);
}

int gp_input_parse_object(struct gp_input *in, const char *line, size_t len, json_t **out)
{
	return parse_object(in, line, len, out);
}

void gp_input_release(struct gp_input *in)
{
	if (in->open)
		gp_ndjson_release(&in->cur);
	in->open = 0;
}

const char *gp_input_strerror(const struct gp_input *in, int err)
{
	switch (err) {
	case GP_NDJSON_EOPEN:
	case GP_NDJSON_EJSON:
	case GP_NDJSON_ETRAIL:
		return in->errmsg;
	case GP_NDJSON_ETRUNC:
		return "corrupt gzip data: cut short (truncated file?)";
	case GP_NDJSON_EREAD:
		return "read error or corrupt gzip data";
	case GP_NDJSON_ETOOLONG:
		return "line longer than 64 MiB";
	case GP_NDJSON_ENOMEM:
		return "out of memory";
	default:
		return "unknown error";
	}
}

/* ---- spool ---- */

int gp_spool_open(struct gp_spool *s)
{
	const char *dir = getenv("TMPDIR");
	char tmpl[4096];
	int fd, n;

	memset(s, 0, sizeof(*s));
	n = snprintf(tmpl, sizeof(tmpl), "%s/gp-spool.XXXXXX", dir && *dir ? dir : "/tmp");
	if (n < 0 || (size_t)n >= sizeof(tmpl)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0)
		return -1;
	unlink(tmpl);
	s->f = fdopen(fd, "w+");
	if (!s->f) {
		close(fd);
		return -1;
	}
	snprintf(s->path, sizeof(s->path), "/proc/self/fd/%d", fd);
	return 0;
}

int gp_spool_put(struct gp_spool *s, const char *p, size_t n)
{
	return fwrite(p, 1, n, s->f) == n && putc('\n', s->f) != EOF ? 0 : -1;
}

int gp_spool_rewind(struct gp_spool *s)
{
	if (fflush(s->f) || ferror(s->f))
		return -1;
	rewind(s->f);
	return 0;
}

int gp_spool_next(struct gp_spool *s, char **line, size_t *len)
{
	ssize_t got = getline(&s->line, &s->cap, s->f);

	if (got < 0)
		return ferror(s->f) ? GP_NDJSON_EREAD : GP_NDJSON_EOF;
	if (got && s->line[got - 1] == '\n')
		s->line[--got] = '\0';
	*line = s->line;
	*len = (size_t)got;
	return GP_NDJSON_LINE;
}

int gp_spool_stdin(struct gp_spool *s, int (*stop)(void))
{
	struct stat st;
	char buf[1 << 16];
	ssize_t r;

	if (fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode) && lseek(STDIN_FILENO, 0, SEEK_CUR) == 0) {
		memset(s, 0, sizeof(*s));
		snprintf(s->path, sizeof(s->path), "/proc/self/fd/%d", STDIN_FILENO);
		return 0;
	}
	if (gp_spool_open(s))
		return -2;
	while ((r = read(STDIN_FILENO, buf, sizeof(buf))) != 0) {
		if (r < 0 && errno == EINTR && !(stop && stop()))
			continue;
		if (r < 0)
			return -1;
		if (fwrite(buf, 1, (size_t)r, s->f) != (size_t)r)
			return -2;
	}
	return fflush(s->f) ? -2 : 0;
}

void gp_spool_close(struct gp_spool *s)
{
	if (s->f)
		fclose(s->f);
	free(s->line);
	memset(s, 0, sizeof(*s));
}

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a >= b && !strcmp(s + a - b, suf);
}

int gp_out_open(struct gp_out *o, const char *path, int gzip)
{
	struct stat st;
	int fd;

	memset(o, 0, sizeof(*o));
	o->name = path && strcmp(path, "-") ? path : "stdout";
	o->flushed_ns = gp_now_ns();
	if (!path || !strcmp(path, "-")) {
		o->is_stdout = 1;
		fd = STDOUT_FILENO;
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			return -1;
		if (ends_with(path, ".gz"))
			gzip = 1;
	}
	if (gzip) {
		int gfd = o->is_stdout ? dup(fd) : fd;
		o->gz = gfd >= 0 ? gzdopen(gfd, "wb6") : NULL;
		if (!o->gz)
			return -1;
		return 0;
	}
	o->f = o->is_stdout ? stdout : fdopen(fd, "w");
	if (!o->f)
		return -1;
	if (fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode)))
		o->flush_each = 1;
	return 0;
}

/*
 * One line to a pipe or terminal, past stdio.  A stopping signal (sig.h)
 * before its first byte fails the write (EINTR), so the output ends on a
 * record boundary; once a byte is out the rest follows (a partial write or an
 * EINTR is resumed), so the first SIGINT/SIGTERM never cuts a record in two.
 * A second signal still exits at once.
 */
static int write_line(int fd, const char *buf, size_t len)
{
	struct iovec v[2] = { { (void *)buf, len }, { "\n", 1 } };
	int i = 0, started = 0;

	while (i < 2) {
		ssize_t n = writev(fd, v + i, 2 - i);

		if (n < 0 && errno == EINTR && (started || !gp_sig_stop()))
			continue;
		if (n < 0)
			return -1;
		started |= n > 0;
		for (; i < 2 && (size_t)n >= v[i].iov_len; i++)
			n -= (ssize_t)v[i].iov_len;
		if (i < 2) {
			v[i].iov_base = (char *)v[i].iov_base + n;
			v[i].iov_len -= (size_t)n;
		}
	}
	return 0;
}

int gp_out_line(struct gp_out *o, const char *buf, size_t len)
{
	if (o->err)
		return -1;
	if (o->flush_each && !o->gz) {
		/* Nothing else is buffered: every line is flushed. */
		if (fflush(o->f) || write_line(fileno(o->f), buf, len)) {
			o->err = errno ? errno : EIO;
			return -1;
		}
		return 0;
	}
	if (o->gz) {
		if ((len && gzwrite(o->gz, buf, (unsigned)len) != (int)len) || gzputc(o->gz, '\n') < 0) {
			o->err = errno ? errno : EIO;
			return -1;
		}
		return 0;
	}
	if ((len && fwrite(buf, 1, len, o->f) != len) || putc('\n', o->f) == EOF ||
	    (o->flush_each && fflush(o->f))) {
		o->err = errno ? errno : EIO;
		return -1;
	}
	return 0;
}

int gp_out_json(struct gp_out *o, const json_t *v)
{
	char *s = gp_json_dump(v);
	int r;

	if (!s)
		return -1;
	r = gp_out_line(o, s, strlen(s));
	free(s);
	return r;
}

int gp_out_flush(struct gp_out *o)
{
	if (o->err)
		return -1;
	errno = 0;
	if (o->gz ? gzflush(o->gz, Z_SYNC_FLUSH) != Z_OK : o->f && (fflush(o->f) || ferror(o->f))) {
		o->err = errno ? errno : EIO;
		return -1;
	}
	return 0;
}

int gp_out_tick(struct gp_out *o, int64_t now_ns)
{
	if (now_ns - o->flushed_ns < GP_OUT_FLUSH_NS)
		return o->err ? -1 : 0;
	o->flushed_ns = now_ns;
	return gp_out_flush(o);
}

int gp_out_close(struct gp_out *o)
{
	int r = o->err ? -1 : 0;

	if (o->gz) {
		if (gzclose(o->gz) != Z_OK)
			r = -1;
		o->gz = NULL;
	} else if (o->f) {
		if (fflush(o->f) || ferror(o->f))
			r = -1;
		if (o->is_stdout) {
			if (fclose(stdout))
				r = -1;
		} else if (fclose(o->f)) {
			r = -1;
		}
		o->f = NULL;
	}
	if (r && o->err)
		errno = o->err;
	return r;
}
