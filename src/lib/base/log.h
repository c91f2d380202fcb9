/* SPDX-License-Identifier: MIT */
/*
 * log — the one message format of every gp tool, and the exit codes.
 *
 *   gp-replay: trace.ndjson:1042: field 't_s' is not a number
 *
 * Tool code only: the library never prints or exits (it returns negative
 * errors and leaves the wording to the caller).  Messages go to stderr.
 */
#ifndef GP_LOG_H
#define GP_LOG_H

#include <stdarg.h>
#include <stddef.h>

/* Exit status, the same in every tool and man page (doc/conventions.md). */
enum {
	GP_EXIT_OK = 0,		/* success, gate passed */
	GP_EXIT_NEGATIVE = 1,	/* gate or verdict negative */
	GP_EXIT_USAGE = 2,	/* usage error */
	GP_EXIT_DATAERR = 65,	/* bad input data (message names file:line) */
	GP_EXIT_UNAVAILABLE = 69, /* a required service is unreachable */
	GP_EXIT_SOFTWARE = 70,	/* internal error */
	GP_EXIT_IOERR = 74,	/* an output cannot be created or written */
};

/*
 * Set once from main(): the basename of argv[0] prefixes every message.  It
 * also ignores SIGPIPE, in every tool: a reader that went away is then seen
 * as a write failing with EPIPE, which ends the tool quietly with exit 1
 * (gp_output_failed() in cli.h; doc/conventions.md).
 */
void gp_log_init(const char *argv0);
const char *gp_progname(void);

/* "prog: message" then exit(code).  Never returns. */
void gp_die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
/* "prog: file:line: message" then exit(code); line 0 omits the line. */
void gp_die_at(int code, const char *file, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), noreturn));
/* "prog: warning: message" — does not exit. */
void gp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: file:line: warning: message" */
void gp_warn_at(const char *file, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "prog: message" — informational, only when verbose or stderr is a tty is the
 * caller's business. */
void gp_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Usage error: "prog: message" + "Try 'prog --help'." and exit 2. */
void gp_usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
/* The second half of a usage error, when the message is already out:
 * "Try 'prog --help' for more information." and exit 2. */
void gp_usage_exit(void) __attribute__((noreturn));

/*
 * Tool support: allocation that cannot fail.  On failure each prints
 * "prog: out of memory" and exits 70 (gp_die_nomem(), the one place that
 * message is written; call it too when a library call reports it could not
 * allocate).  Zero sizes return a 1-byte block, never NULL; gp_xcalloc and
 * gp_xreallocarray also fail on n * size overflow; gp_xstrdup(NULL) returns
 * an empty string.  The caller frees what they return.
 */
void gp_die_nomem(void) __attribute__((noreturn));
void *gp_xmalloc(size_t n);
void *gp_xcalloc(size_t n, size_t size);
void *gp_xrealloc(void *p, size_t n);
void *gp_xreallocarray(void *p, size_t n, size_t size);
char *gp_xstrdup(const char *s);
char *gp_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
