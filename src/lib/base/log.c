/* SPDX-License-Identifier: MIT */
/* log — message formatting and exit codes shared by every tool. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/buf.h"

static const char *progname = "gp";

void gp_log_init(const char *argv0)
{
	const char *slash;

	signal(SIGPIPE, SIG_IGN);
	if (!argv0 || !*argv0)
		return;
	slash = strrchr(argv0, '/');
	progname = slash ? slash + 1 : argv0;
}

const char *gp_progname(void)
{
	return progname;
}

static void vmsg(const char *file, unsigned long line, const char *tag,
		 const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));

static void vmsg(const char *file, unsigned long line, const char *tag,
		 const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: ", progname);
	if (file && line)
		fprintf(stderr, "%s:%lu: ", file, line);
	else if (file)
		fprintf(stderr, "%s: ", file);
	if (tag)
		fputs(tag, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void gp_die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, 0, NULL, fmt, ap);
	va_end(ap);
	exit(code);
}

void gp_die_at(int code, const char *file, unsigned long line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(file ? file : "-", line, NULL, fmt, ap);
	va_end(ap);
	exit(code);
}

void gp_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, 0, "warning: ", fmt, ap);
	va_end(ap);
}

void gp_warn_at(const char *file, unsigned long line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(file ? file : "-", line, "warning: ", fmt, ap);
	va_end(ap);
}

void gp_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, 0, NULL, fmt, ap);
	va_end(ap);
}

void gp_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, 0, NULL, fmt, ap);
	va_end(ap);
	gp_usage_exit();
}

void gp_usage_exit(void)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", progname);
	exit(GP_EXIT_USAGE);
}

void gp_die_nomem(void)
{
	gp_die(GP_EXIT_SOFTWARE, "out of memory");
}

void *gp_xmalloc(size_t n)
{
	void *q = malloc(n ? n : 1);

	if (!q)
		gp_die_nomem();
	return q;
}

void *gp_xcalloc(size_t n, size_t size)
{
	void *q = calloc(n ? n : 1, size ? size : 1);

	if (!q)
		gp_die_nomem();
	return q;
}

void *gp_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		gp_die_nomem();
	return q;
}

void *gp_xreallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		gp_die_nomem();
	return gp_xrealloc(p, n * size);
}

char *gp_xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d)
		gp_die_nomem();
	return d;
}

char *gp_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = gp_vstrfmt(fmt, ap);
	va_end(ap);
	if (!s)
		gp_die_nomem();
	return s;
}
