/* SPDX-License-Identifier: MIT */
/*
 * sse-firehose — a minimal OpenAI-style SSE server for benchmarking the
 * client side (bench/bench-replay.sh), not a test server: it answers every
 * POST with a chunked text/event-stream of N chat.completion.chunk events, a
 * finish event, a usage event and [DONE], over HTTP/1.1 keep-alive.
 *
 *   sse-firehose PORT EVENTS BATCH INTERVAL_MS
 *
 * INTERVAL_MS 0: burst — BATCH events per HTTP chunk, written as fast as the
 * socket takes them (measures how many events/s a client core can parse).
 * INTERVAL_MS > 0: paced — every INTERVAL_MS each open stream gets BATCH
 * events (measures how many concurrent streams a client holds).
 * A GET (gp-replay's /v1/models check before it sends) is answered with the
 * one model "m", Content-Length framed, and the connection kept.
 * One thread, epoll, non-blocking sockets; the cost per event is a memcpy.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

static const char EV[] = "data: {\"id\":\"chatcmpl-fh\",\"object\":\"chat.completion.chunk\","
	"\"created\":1700000000,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":"
	"{\"content\":\"word \"},\"logprobs\":null,\"finish_reason\":null}]}\n\n";
static const char HDR[] = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
	"Transfer-Encoding: chunked\r\n\r\n";
#define MODELS_BODY "{\"object\":\"list\",\"data\":[{\"id\":\"m\",\"object\":\"model\"}]}"
static const char MODELS[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
	"Content-Length: 54\r\n\r\n" MODELS_BODY;

struct conn {
	int fd;
	char in[65536];
	size_t in_len;
	int streaming;		/* 1 while a response is being sent */
	long left;		/* content events still to send */
	char *out;		/* pending bytes */
	size_t out_len, out_off, out_cap;
	struct conn *next_active, *prev_active;
};

static long events_per_resp, batch, interval_ms;
static char *blob;		/* one HTTP chunk of `batch` events */
static size_t blob_len;
static int epfd;
static struct conn active = { .next_active = &active, .prev_active = &active };

static void out_add(struct conn *c, const char *p, size_t n)
{
	if (c->out_len + n > c->out_cap) {
		c->out_cap = (c->out_len + n) * 2;
		c->out = realloc(c->out, c->out_cap);
		if (!c->out)
			exit(70);
	}
	memcpy(c->out + c->out_len, p, n);
	c->out_len += n;
}

static void close_conn(struct conn *c)
{
	if (c->streaming) {
		c->prev_active->next_active = c->next_active;
		c->next_active->prev_active = c->prev_active;
	}
	close(c->fd);
	free(c->out);
	free(c);
}

/* Queue up to `n` events (as HTTP chunks), and the tail when done. */
static void queue_events(struct conn *c, long n)
{
	char head[32];
	static const char tail[] =
		"data: {\"id\":\"chatcmpl-fh\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n"
		"data: {\"id\":\"chatcmpl-fh\",\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":%ld}}\n\n"
		"data: [DONE]\n\n";
	char t[512];
	int k;

	while (n > 0 && c->left > 0) {
		long b = c->left < batch ? c->left : batch;

		if (b > n)
			b = n;
		if (b == batch) {
			out_add(c, blob, blob_len);
		} else {
			k = snprintf(head, sizeof(head), "%zx\r\n", (size_t)b * (sizeof(EV) - 1));
			out_add(c, head, (size_t)k);
			for (long i = 0; i < b; i++)
				out_add(c, EV, sizeof(EV) - 1);
			out_add(c, "\r\n", 2);
		}
		c->left -= b;
		n -= b;
	}
	if (c->left == 0 && c->streaming) {
		int m = snprintf(t, sizeof(t), tail, events_per_resp);

		k = snprintf(head, sizeof(head), "%x\r\n", m);
		out_add(c, head, (size_t)k);
		out_add(c, t, (size_t)m);
		out_add(c, "\r\n0\r\n\r\n", 7);
		c->streaming = 0;
		c->prev_active->next_active = c->next_active;
		c->next_active->prev_active = c->prev_active;
	}
}

static int flush_out(struct conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t w = write(c->fd, c->out + c->out_off, c->out_len - c->out_off);

		if (w < 0) {
			if (errno == EAGAIN)
				return 0;
			return -1;
		}
		c->out_off += (size_t)w;
	}
	c->out_off = c->out_len = 0;
	return 0;
}

static void want_out(struct conn *c, int on)
{
	struct epoll_event ev = { .events = EPOLLIN | (on ? EPOLLOUT : 0), .data.ptr = c };

	epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

/* Parse complete requests in c->in; start a response for each. */
static void on_input(struct conn *c)
{
	for (;;) {
		char *e = memmem(c->in, c->in_len, "\r\n\r\n", 4), *cl;
		size_t head, body = 0, total;

		if (!e || c->streaming)
			return;
		head = (size_t)(e - c->in) + 4;
		cl = memmem(c->in, head, "Content-Length:", 15);
		if (!cl)
			cl = memmem(c->in, head, "content-length:", 15);
		if (cl)
			body = strtoul(cl + 15, NULL, 10);
		total = head + body;
		if (c->in_len < total)
			return;
		if (!strncmp(c->in, "GET ", 4)) {	/* /v1/models */
			memmove(c->in, c->in + total, c->in_len - total);
			c->in_len -= total;
			out_add(c, MODELS, sizeof(MODELS) - 1);
			want_out(c, 1);
			continue;
		}
		memmove(c->in, c->in + total, c->in_len - total);
		c->in_len -= total;
		out_add(c, HDR, sizeof(HDR) - 1);
		c->streaming = 1;
		c->left = events_per_resp;
		c->next_active = active.next_active;
		c->prev_active = &active;
		active.next_active->prev_active = c;
		active.next_active = c;
		if (!interval_ms)
			queue_events(c, batch);
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct epoll_event evs[256], ev;
	struct rlimit rl;
	int lfd, tfd = -1, one = 1;

	if (argc != 5) {
		fprintf(stderr, "usage: sse-firehose PORT EVENTS BATCH INTERVAL_MS\n");
		return 2;
	}
	a.sin_port = htons((unsigned short)atoi(argv[1]));
	events_per_resp = atol(argv[2]);
	batch = atol(argv[3]);
	interval_ms = atol(argv[4]);
	signal(SIGPIPE, SIG_IGN);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	{
		char head[32];
		int k = snprintf(head, sizeof(head), "%zx\r\n", (size_t)batch * (sizeof(EV) - 1));

		blob_len = (size_t)k + (size_t)batch * (sizeof(EV) - 1) + 2;
		blob = malloc(blob_len);
		memcpy(blob, head, (size_t)k);
		for (long i = 0; i < batch; i++)
			memcpy(blob + k + i * (long)(sizeof(EV) - 1), EV, sizeof(EV) - 1);
		memcpy(blob + blob_len - 2, "\r\n", 2);
	}
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(lfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 4096)) {
		perror("sse-firehose: listen");
		return 69;
	}
	epfd = epoll_create1(0);
	ev.events = EPOLLIN;
	ev.data.ptr = NULL;
	epoll_ctl(epfd, EPOLL_CTL_ADD, lfd, &ev);
	if (interval_ms) {
		struct itimerspec its = { { interval_ms / 1000, (interval_ms % 1000) * 1000000 },
					  { interval_ms / 1000, (interval_ms % 1000) * 1000000 } };

		tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
		timerfd_settime(tfd, 0, &its, NULL);
		ev.events = EPOLLIN;
		ev.data.ptr = &active;
		epoll_ctl(epfd, EPOLL_CTL_ADD, tfd, &ev);
	}
	for (;;) {
		int n = epoll_wait(epfd, evs, 256, -1), i;

		for (i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;

			if (!c) {
				int fd;

				while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
					c = calloc(1, sizeof(*c));
					c->fd = fd;
					setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
					ev.events = EPOLLIN;
					ev.data.ptr = c;
					epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
				}
				continue;
			}
			if (c == &active) {
				uint64_t x;
				struct conn *s, *nx;

				if (read(tfd, &x, sizeof(x)) < 0)
					continue;
				for (s = active.next_active; s != &active; s = nx) {
					nx = s->next_active;
					queue_events(s, batch);
					if (flush_out(s)) {
						close_conn(s);
						continue;
					}
					if (s->out_len)
						want_out(s, 1);
				}
				continue;
			}
			if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
				ssize_t r = read(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len);

				if (r == 0 || (r < 0 && errno != EAGAIN)) {
					close_conn(c);
					continue;
				}
				if (r > 0) {
					c->in_len += (size_t)r;
					on_input(c);
				}
			}
			if (!interval_ms && c->streaming && c->out_len - c->out_off < blob_len)
				queue_events(c, batch);
			if (flush_out(c)) {
				close_conn(c);
				continue;
			}
			/* Burst: keep the pipe full while the socket takes more. */
			while (!interval_ms && c->streaming && !c->out_len) {
				queue_events(c, batch);
				if (flush_out(c)) {
					close_conn(c);
					c = NULL;
					break;
				}
			}
			if (c)
				want_out(c, c->out_len > 0);
		}
	}
}
