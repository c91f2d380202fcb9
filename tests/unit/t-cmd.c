/* SPDX-License-Identifier: MIT */
/* Unit tests of cmd: a bounded sh -c and the regex match of its output. */
#include <string.h>

#include "base/clock.h"
#include "io/cmd.h"
#include "tap.h"

int main(void)
{
	char out[64], line[64], err[128];
	int st = -2;
	int64_t t0;

	ok(gp_cmd_run("echo hello; echo world", 2000, out, sizeof(out), &st, err, sizeof(err)) == 0,
	   "runs");
	is_str(out, "hello\nworld\n", "stdout captured");
	is_int(st, 0, "exit 0");
	gp_cmd_run("echo x >&2; exit 3", 2000, out, sizeof(out), &st, err, sizeof(err));
	is_str(out, "", "stderr is not captured");
	is_int(st, 3, "exit status kept");
	gp_cmd_run("kill -TERM $$", 2000, out, sizeof(out), &st, err, sizeof(err));
	is_int(st, 128 + 15, "killed by a signal: 128 + signal");
	gp_cmd_run("yes abcdefgh | head -c 100000", 5000, out, sizeof(out), &st, err, sizeof(err));
	is_int((long)strlen(out), (long)sizeof(out) - 1, "output cut at cap - 1, the rest drained");
	is_int(st, 0, "a long output still ends normally");
	t0 = gp_now_ns();
	gp_cmd_run("echo early; sleep 20", 300, out, sizeof(out), &st, err, sizeof(err));
	ok(gp_now_ns() - t0 < 2000000000LL, "a hanging command is killed at the timeout");
	is_int(st, -1, "timeout: status -1");
	is_str(out, "early\n", "what it printed before is kept");
	t0 = gp_now_ns();
	gp_cmd_run("sleep 20 & echo bg", 300, out, sizeof(out), &st, err, sizeof(err));
	ok(gp_now_ns() - t0 < 2000000000LL, "a background child holding stdout is bounded too");
	ok(gp_cmd_run("cat", 2000, out, sizeof(out), &st, err, sizeof(err)) == 0 && !*out && st == 0,
	   "stdin is /dev/null");

	is_int(gp_cmd_match("algo=hdr$", "backend a algo=rr\nbackend llm algo=hdr\n", line,
			    sizeof(line), err, sizeof(err)), 1, "matches a line");
	is_str(line, "backend llm algo=hdr", "the whole matching line");
	is_int(gp_cmd_match("^algo", "x algo\n", line, sizeof(line), err, sizeof(err)), 0,
	       "anchors are per line: no match");
	is_int(gp_cmd_match("mode=\"kv\"\\} 1$", "gp_router_mode{mode=\"kv\"} 1\n", line,
			    sizeof(line), err, sizeof(err)), 1, "ERE with escaped brace");
	is_int(gp_cmd_match("(", "x", line, sizeof(line), err, sizeof(err)), -1, "bad regex: -1");
	ok(*err != 0, "with a reason");
	return done_testing();
}
