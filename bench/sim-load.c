/* SPDX-License-Identifier: MIT */
/*
 * sim-load — a load client for bench-sim.sh: holds C concurrent streaming
 * completions open against gp-sim (spread over P consecutive ports), and
 * counts SSE events per second.  Raw sockets on epoll so that the client is
 * cheaper than the server it measures; each connection sends one request
 * ("Connection: close") and reconnects when the response ends.
 *
 *   sim-load HOST PORT NPORTS CONNS MAX_TOKENS WARMUP_S MEASURE_S [STAGGER_MS]
 *
 * STAGGER_MS: the connections of port i (0-based) open STAGGER_MS * i /
 * NPORTS after the start, so that the engines' step phases spread evenly
 * over one step instead of all starting at the same instant (0, the
 * default: every connection at once).
 *
 * Prints one line: conns, open streams at the end, events and events/s in
 * the measurement window, reconnects, errors.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct conn {
	int fd;
	int port;
	size_t sent;		/* bytes of the request written */
	char tail[8];		/* last bytes of the previous read (split patterns) */
	size_t ntail;
};

static char req[1024];
static size_t reqlen;
static unsigned long long events, reconnects, errors;
static const char *host;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int open_conn(int ep, struct conn *c)
{
	struct sockaddr_in a;
	struct epoll_event ev;
	int one = 1;

	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (c->fd < 0)
		return -1;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((unsigned short)c->port);
	inet_pton(AF_INET, host, &a.sin_addr);
	if (connect(c->fd, (struct sockaddr *)&a, sizeof(a)) < 0 && errno != EINPROGRESS) {
		close(c->fd);
		return -1;
	}
	c->sent = 0;
	c->ntail = 0;
	ev.events = EPOLLIN | EPOLLOUT;
	ev.data.ptr = c;
	return epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
}

/* Count "data: " occurrences in tail+buf. */
static unsigned long long count_events(struct conn *c, const char *buf, size_t n)
{
	static const char pat[] = "data: ";
	unsigned long long k = 0;
	char join[16];
	size_t jn = 0;

	/* patterns straddling the previous read */
	memcpy(join, c->tail, c->ntail);
	jn = c->ntail;
	for (size_t i = 0; i < 5 && i < n; i++)
		join[jn++] = buf[i];
	for (size_t i = 0; i + 6 <= jn; i++)
		if (i < c->ntail && i + 6 > c->ntail && memcmp(join + i, pat, 6) == 0)
			k++;
	for (const char *p = buf, *e = buf + n; (p = memmem(p, (size_t)(e - p), pat, 6)); p += 6)
		k++;
	c->ntail = n < 5 ? n : 5;
	memcpy(c->tail, buf + n - c->ntail, c->ntail);
	return k;
}

/* The request body; max_tokens is the one field filled in. */
#define BODY_FMT "{\"prompt\":\"bench load prompt with a few words\",\"max_tokens\":%ld," \
	"\"ignore_eos\":true,\"stream\":true}"

int main(int argc, char **argv)
{
	int port, nports, nconn, ep;
	long max_tokens;
	double warm, meas, t0, tm0 = 0, tend;
	struct conn *cs;
	struct epoll_event evs[512];
	static char buf[1 << 16];
	unsigned long long ev_at_start = 0;
	char body[256];
	struct rlimit rl;
	int measuring = 0;

	double stagger = 0;
	int opened = 0;

	if (argc != 8 && argc != 9) {
		fprintf(stderr, "usage: sim-load HOST PORT NPORTS CONNS MAX_TOKENS WARMUP_S MEASURE_S [STAGGER_MS]\n");
		return 2;
	}
	host = argv[1];
	port = (int)strtol(argv[2], NULL, 10);
	nports = (int)strtol(argv[3], NULL, 10);
	nconn = (int)strtol(argv[4], NULL, 10);
	max_tokens = strtol(argv[5], NULL, 10);
	warm = strtod(argv[6], NULL);
	meas = strtod(argv[7], NULL);
	if (argc == 9)
		stagger = strtod(argv[8], NULL) / 1e3;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	snprintf(body, sizeof(body), BODY_FMT, max_tokens);
	reqlen = (size_t)snprintf(req, sizeof(req),
				  "POST /v1/completions HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n"
				  "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
				  host, strlen(body), body);
	ep = epoll_create1(0);
	cs = calloc((size_t)nconn, sizeof(*cs));
	/* Grouped by port, so that each port's group opens at its stagger time. */
	for (int i = 0; i < nconn; i++)
		cs[i].port = port + (int)((long)i * nports / nconn);
	t0 = now_s();
	tend = t0 + warm + meas;
	for (;;) {
		double t = now_s();
		int n;

		if (!measuring && t >= t0 + warm) {
			measuring = 1;
			tm0 = t;
			ev_at_start = events;
		}
		if (t >= tend)
			break;
		while (opened < nconn &&
		       t >= t0 + stagger * (double)(cs[opened].port - port) / (double)nports) {
			if (open_conn(ep, &cs[opened]))
				errors++;
			opened++;
		}
		n = epoll_wait(ep, evs, 512, opened < nconn ? 1 : 50);
		for (int i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;

			if ((evs[i].events & EPOLLOUT) && c->sent < reqlen) {
				ssize_t w = write(c->fd, req + c->sent, reqlen - c->sent);

				if (w > 0)
					c->sent += (size_t)w;
				if (c->sent == reqlen) {
					struct epoll_event e2 = { .events = EPOLLIN, .data.ptr = c };
					epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &e2);
				}
			}
			if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
				ssize_t r = read(c->fd, buf, sizeof(buf));

				if (r > 0) {
					events += count_events(c, buf, (size_t)r);
				} else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
					if (r < 0)
						errors++;
					epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
					close(c->fd);
					reconnects++;
					if (open_conn(ep, c))
						errors++;
				}
			}
		}
	}
	{
		double span = now_s() - tm0;
		unsigned long long m = events - ev_at_start;

		printf("conns %d events %llu window_s %.3f events_per_s %.0f reconnects %llu errors %llu\n",
		       nconn, m, span, (double)m / span, reconnects, errors);
	}
	return 0;
}
