/* SPDX-License-Identifier: MIT */
/*
 * cmd — run a fleet file's shell command (an arm's mode_cmd or up_cmd,
 * doc/records.md, "The fleet file") with /bin/sh -c, bounded in time and output, and match its
 * output against a POSIX extended regular expression.
 *
 * gp_cmd_run: the command's stdout (stderr is discarded; stdin is /dev/null)
 * goes to out (at most cap − 1 bytes kept, NUL-terminated; more is read and
 * dropped).  It runs in its own process group, which is killed (SIGKILL) when
 * it outlives timeout_ms.  *status gets the exit status (0..255), 128 + the
 * signal when killed by one, or -1 on timeout.  Returns 0, or -1 when it could
 * not be started (err says why).
 *
 * gp_cmd_match: 1 when regex (REG_EXTENDED | REG_NEWLINE) matches text, with
 * the whole matching line copied to line (at most cap − 1 bytes); 0 when it
 * does not; -1 when the regex does not compile (err says why).
 *
 * Nothing here prints; the caller owns every buffer.
 */
#ifndef GP_CMD_H
#define GP_CMD_H

#include <stddef.h>

int gp_cmd_run(const char *cmd, long timeout_ms, char *out, size_t cap, int *status,
	       char *err, size_t errlen);
int gp_cmd_match(const char *regex, const char *text, char *line, size_t cap, char *err,
		 size_t errlen);

#endif
