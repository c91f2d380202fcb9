/* SPDX-License-Identifier: MIT */
/* Unit tests of cli: checked number parsing, and the exits of the conventions
 * (doc/conventions.md), each run in a child whose status and stderr we read. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/log.h"
#include "io/ndjson.h"
#include "base/sig.h"
#include "tap.h"

/* Run fn(arg) in a child; its exit status (or -1), and up to cap bytes of
 * what it wrote on stderr in err. */
static int in_child(void (*fn)(int), int arg, char *err, size_t cap)
{
	int p[2], st;
	ssize_t n, got = 0;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 2);
		close(p[0]);
		fn(arg);
		_exit(99);
	}
	close(p[1]);
	while (got < (ssize_t)cap - 1 && (n = read(p[0], err + got, cap - 1 - (size_t)got)) > 0)
		got += n;
	err[got] = 0;
	close(p[0]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void write_failed(int e)
{
	struct gp_out o = { .err = e };

	gp_output_failed(&o);
}

static void open_missing(int unused)
{
	struct gp_out o;

	gp_output_open(&o, "/nonexistent-dir/x.ndjson", 0);
}

static void stopped(int signo)
{
	gp_sig_install();
	raise(signo);
	exit(gp_sig_status(GP_EXIT_NEGATIVE));
}

static void bad_option(int unused)
{
	static const struct option lo[] = { { "url", required_argument, NULL, 'u' }, { 0 } };
	char a0[] = "/some/path/gp-x", a1[] = "--bogus";
	char *argv[] = { a0, a1, NULL };

	gp_log_init("gp-x");
	gp_getopt(2, argv, "u:", lo);
}

int main(void)
{
	double d = -7;
	long l = -7;
	uint64_t u = 7;

	ok(gp_parse_double("1.5", 0, 10, &d) == 0 && d == 1.5, "double parses");
	ok(gp_parse_double("1e3", 0, 1e4, &d) == 0 && d == 1000, "double exponent");
	d = -7;
	ok(gp_parse_double("1.5x", 0, 10, &d) == -1 && d == -7, "trailing garbage refused, value untouched");
	ok(gp_parse_double("", 0, 10, &d) == -1, "empty refused");
	ok(gp_parse_double(NULL, 0, 10, &d) == -1, "NULL refused");
	ok(gp_parse_double("nan", -1e9, 1e9, &d) == -1, "nan refused");
	ok(gp_parse_double("inf", -1e9, 1e300, &d) == -1, "inf refused");
	ok(gp_parse_double("11", 0, 10, &d) == -1, "above max refused");
	ok(gp_parse_double("-0.1", 0, 10, &d) == -1, "below min refused");
	ok(gp_parse_double("10", 0, 10, &d) == 0 && d == 10, "max inclusive");
	ok(gp_parse_long("42", 0, 100, &l) == 0 && l == 42, "long parses");
	ok(gp_parse_long("4.2", 0, 100, &l) == -1, "long refuses a fraction");
	ok(gp_parse_long("99999999999999999999", 0, 100, &l) == -1, "long refuses overflow");
	ok(gp_parse_long("-3", -5, 5, &l) == 0 && l == -3, "long negative");
	ok(gp_parse_long("0x10", 0, 100, &l) == -1, "long is decimal only");
	ok(gp_parse_u64("18446744073709551615", &u) == 0 && u == UINT64_MAX, "u64 max");
	ok(gp_parse_u64("18446744073709551616", &u) == -1, "u64 overflow refused");
	ok(gp_parse_u64("-1", &u) == -1, "u64 refuses a sign");

	char err[1024];

	ok(in_child(write_failed, EPIPE, err, sizeof(err)) == GP_EXIT_NEGATIVE && !*err,
	   "a closed pipe: exit 1, nothing on stderr");
	ok(in_child(write_failed, ENOSPC, err, sizeof(err)) == GP_EXIT_IOERR &&
	   strstr(err, "No space left"), "a full disk: exit 74, said");
	ok(in_child(open_missing, 0, err, sizeof(err)) == GP_EXIT_IOERR &&
	   strstr(err, "/nonexistent-dir/x.ndjson"), "an output that cannot be created: 74, named");
	ok(in_child(stopped, SIGTERM, err, sizeof(err)) == 128 + SIGTERM, "SIGTERM: 143");
	ok(in_child(stopped, SIGINT, err, sizeof(err)) == 128 + SIGINT, "SIGINT: 130");
	ok(gp_sig_status(GP_EXIT_NEGATIVE) == GP_EXIT_NEGATIVE, "no signal: the code itself");
	ok(in_child(bad_option, 0, err, sizeof(err)) == GP_EXIT_USAGE &&
	   !strcmp(err, "gp-x: unrecognized option '--bogus'\n"
		   "Try 'gp-x --help' for more information.\n"),
	   "an unknown option: getopt's line under the tool's name, the Try line, exit 2");
	return done_testing();
}
