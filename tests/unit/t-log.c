/* SPDX-License-Identifier: MIT */
/*
 * t-log — the one message format and the exit codes (base/log.h): each
 * dying call runs in a child (fork.h) and its stderr and status are checked
 * byte for byte against doc/conventions.md.
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "fork.h"
#include "tap.h"

static void die_65(void *a) { (void)a; gp_die(GP_EXIT_DATAERR, "bad %s %d", "thing", 3); }
static void die_at(void *a) { (void)a; gp_die_at(GP_EXIT_DATAERR, "t.ndjson", 1042, "field 't_s' is not a number"); }
static void die_at0(void *a) { (void)a; gp_die_at(GP_EXIT_IOERR, "out.ndjson", 0, "cannot write"); }
static void die_at_null(void *a) { (void)a; gp_die_at(GP_EXIT_DATAERR, NULL, 7, "x"); }
static void warn(void *a) { (void)a; gp_warn("careful %d", 1); gp_warn_at("f", 2, "w"); gp_info("done"); }
static void usage(void *a) { (void)a; gp_usage_error("--rate-rps: '%s' is not a number", "fast"); }
static void nomem(void *a) { (void)a; gp_die_nomem(); }
/* stdout into the same pipe, fully buffered: the record must come out first */
static void stdout_first(void *a)
{
	(void)a;
	dup2(2, 1);
	setvbuf(stdout, NULL, _IOFBF, 4096);
	fputs("record\n", stdout);
	gp_die(70, "late");
}

int main(void)
{
	char err[1024];
	struct sigaction sa;
	char *s;

	gp_log_init("/usr/local/bin/gp-test");
	is_str(gp_progname(), "gp-test", "the program name is argv[0]'s basename");
	gp_log_init(NULL);
	is_str(gp_progname(), "gp-test", "a NULL argv[0] keeps it");
	sigaction(SIGPIPE, NULL, &sa);
	ok(sa.sa_handler == SIG_IGN, "gp_log_init ignores SIGPIPE (a closed reader is EPIPE)");

	is_int(fork_run(die_65, NULL, err, sizeof(err)), 65, "gp_die exits with its code");
	is_str(err, "gp-test: bad thing 3\n", "prog: message");
	is_int(fork_run(die_at, NULL, err, sizeof(err)), 65, "gp_die_at exits 65");
	is_str(err, "gp-test: t.ndjson:1042: field 't_s' is not a number\n", "prog: file:line: message");
	is_int(fork_run(die_at0, NULL, err, sizeof(err)), 74, "exit 74");
	is_str(err, "gp-test: out.ndjson: cannot write\n", "line 0: the file alone");
	fork_run(die_at_null, NULL, err, sizeof(err));
	is_str(err, "gp-test: -:7: x\n", "no file name: '-' (stdin)");
	is_int(fork_run(warn, NULL, err, sizeof(err)), 0, "gp_warn, gp_warn_at, gp_info do not exit");
	is_str(err, "gp-test: warning: careful 1\ngp-test: f:2: warning: w\ngp-test: done\n",
	       "warning: after the place, info bare");
	is_int(fork_run(usage, NULL, err, sizeof(err)), 2, "a usage error exits 2");
	is_str(err, "gp-test: --rate-rps: 'fast' is not a number\n"
	       "Try 'gp-test --help' for more information.\n", "the message, then Try --help");
	is_int(fork_run(nomem, NULL, err, sizeof(err)), 70, "out of memory exits 70");
	is_str(err, "gp-test: out of memory\n", "the one out-of-memory message");
	fork_run(stdout_first, NULL, err, sizeof(err));
	is_str(err, "record\ngp-test: late\n", "stdout is flushed before the message (no record lost)");

	s = gp_xasprintf("%s-%03d", "run", 7);
	is_str(s, "run-007", "gp_xasprintf formats");
	free(s);
	s = gp_xstrdup(NULL);
	is_str(s, "", "gp_xstrdup(NULL) is an empty string");
	free(s);
	s = gp_xmalloc(0);
	ok(s != NULL, "gp_xmalloc(0) is a block, not NULL");
	free(s);
	s = gp_xreallocarray(NULL, 4, 8);
	ok(s != NULL, "gp_xreallocarray(NULL, 4, 8)");
	free(s);
	return done_testing();
}
