/* SPDX-License-Identifier: MIT */
/*
 * serve.h — a canned HTTP peer for the unit tests that need one (scrape,
 * stream): a child process on 127.0.0.1 that answers each of n connections
 * with `response` verbatim (after reading the request head), then exits;
 * the response should say "Connection: close".  serve_silent: a peer that
 * never answers.  Header-only.
 *
 *   pid_t pid;
 *   int port = serve_start("HTTP/1.1 200 OK\r\n...", 1, &pid);
 *   ... requests to http://127.0.0.1:<port> ...
 *   serve_stop(pid);
 *
 * serve_stop_later: a stop() for the waits that poll one (gp_http_fetch_stop,
 * a stream's cfg.stop): true once gp_now_ns() reaches serve_stop_at.
 */
#ifndef GP_SERVE_H
#define GP_SERVE_H

#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"

/* The port it listens on, or -1. */
static inline int serve_start(const char *response, int n, pid_t *pid)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int ls = socket(AF_INET, SOCK_STREAM, 0);

	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 16) ||
	    getsockname(ls, (struct sockaddr *)&a, &al))
		return -1;
	fflush(stdout);
	*pid = fork();
	if (*pid < 0)
		return -1;
	if (*pid == 0) {
		for (int i = 0; i < n; i++) {
			char buf[8192];
			size_t got = 0;
			ssize_t r;
			struct timeval tv = { 1, 0 };
			int c = accept(ls, NULL, NULL);

			if (c < 0)
				_exit(1);
			setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
			while (got < sizeof(buf) - 1 && (r = read(c, buf + got, sizeof(buf) - 1 - got)) > 0) {
				got += (size_t)r;
				buf[got] = '\0';
				if (strstr(buf, "\r\n\r\n"))
					break;
			}
			if (write(c, response, strlen(response)) < 0)
				_exit(1);
			shutdown(c, SHUT_WR);	/* then drain (1 s at most): no reset */
			while (read(c, buf, sizeof(buf)) > 0)
				;
			close(c);
		}
		_exit(0);
	}
	close(ls);
	return ntohs(a.sin_port);
}

/* A peer that never answers: the kernel completes the connection (listen's
 * backlog), nobody accepts it, the request waits.  Its port, or -1; close
 * *fd when done. */
static inline int serve_silent(int *fd)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);

	*fd = socket(AF_INET, SOCK_STREAM, 0);
	if (*fd < 0 || bind(*fd, (struct sockaddr *)&a, sizeof(a)) || listen(*fd, 16) ||
	    getsockname(*fd, (struct sockaddr *)&a, &al))
		return -1;
	return ntohs(a.sin_port);
}

static int64_t serve_stop_at;

static inline int serve_stop_later(void)
{
	return gp_now_ns() >= serve_stop_at;
}

static inline void serve_stop(pid_t pid)
{
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

#endif
