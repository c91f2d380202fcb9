/* SPDX-License-Identifier: MIT */
/*
 * t-http — io/http against tiny servers on 127.0.0.1 (serve.h): the base-URL
 * check (no credentials echoed), the blocking GET (Content-Length and
 * chunked bodies, a body over the limit, a refused port, a silent peer, a
 * broken chunked encoding, each in its class), and one POST through the
 * engine with its four callbacks in order.
 */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/clock.h"
#include "io/http.h"
#include "serve.h"
#include "tap.h"

static int fetch(const char *resp, size_t max, long timeout_ms, char **body, size_t *len, long *status,
		 enum gp_http_err *kind, char *err, size_t errlen)
{
	pid_t pid;
	int port = serve_start(resp, 1, &pid), rc;
	char url[64];

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", port);
	rc = gp_http_fetch(url, NULL, timeout_ms, max, body, len, status, err, errlen, kind);
	serve_stop(pid);
	return rc;
}

static void url_check(void)
{
	char norm[128], err[128];

	is_int(gp_http_url_check("http://127.0.0.1:8080", norm, sizeof(norm), err, sizeof(err)), 0, "a base URL");
	is_str(norm, "http://127.0.0.1:8080", "normalised as scheme://host:port");
	is_int(gp_http_url_check("https://example.org/", norm, sizeof(norm), err, sizeof(err)), 0, "https, a bare /");
	is_str(norm, "https://example.org", "without the /");
	is_int(gp_http_url_check("http://u:s3cret@h:1", norm, sizeof(norm), err, sizeof(err)), -1,
	       "credentials refused");
	ok(!strstr(err, "s3cret"), "and the reason does not repeat them (%s)", err);
	is_int(gp_http_url_check("ftp://h", norm, sizeof(norm), err, sizeof(err)), -1, "ftp refused");
	is_int(gp_http_url_check("http://h:1/v1", norm, sizeof(norm), err, sizeof(err)), -1, "a path refused");
	is_int(gp_http_url_check("http://h:1/?k=v", norm, sizeof(norm), err, sizeof(err)), -1, "a query refused");
	is_str(gp_http_err_name(GP_HTTP_ECONNECT), "connect", "class names: connect");
	is_str(gp_http_err_name(GP_HTTP_EFRAMING), "invalid_framing", "invalid_framing");
	ok(gp_http_err_name(GP_HTTP_OK) == NULL, "none for OK");
}

static void gets(void)
{
	char *body = NULL, err[256];
	size_t len = 0;
	long status = 0;
	enum gp_http_err k = GP_HTTP_OK;
	int fd, port;
	int64_t t0;
	char url[64];

	is_int(fetch("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello",
		     1 << 20, 5000, &body, &len, &status, &k, err, sizeof(err)), 0, "GET, Content-Length");
	ok(body && len == 5 && !strcmp(body, "hello") && status == 200, "its body and status (%s)", err);
	free(body);
	body = NULL;
	is_int(fetch("HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
		     "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n", 1 << 20, 5000, &body, &len, &status, &k, err, sizeof(err)),
	       0, "GET, chunked, a 404 is a response");
	ok(body && !strcmp(body, "abcde") && status == 404, "de-chunked body, status 404");
	free(body);
	body = NULL;
	is_int(fetch("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n"
		     "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789",
		     10, 5000, &body, &len, &status, &k, err, sizeof(err)), -1, "a body over max is refused");
	is_int(k, GP_HTTP_EOTHER, "as other, not cut short");
	is_int(fetch("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
		     "zz\r\nabc\r\n0\r\n\r\n", 1 << 20, 5000, &body, &len, &status, &k, err, sizeof(err)), -1,
	       "a broken chunk size fails");
	is_int(k, GP_HTTP_EFRAMING, "as invalid_framing (%s)", err);

	/* a port nobody listens on: bound, then closed */
	{
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t al = sizeof(a);
		int s = socket(AF_INET, SOCK_STREAM, 0);

		bind(s, (struct sockaddr *)&a, sizeof(a));
		getsockname(s, (struct sockaddr *)&a, &al);
		close(s);
		snprintf(url, sizeof(url), "http://127.0.0.1:%d/", ntohs(a.sin_port));
	}
	is_int(gp_http_fetch(url, NULL, 5000, 1 << 20, &body, &len, &status, err, sizeof(err), &k), -1,
	       "a refused connection fails");
	is_int(k, GP_HTTP_ECONNECT, "as connect");

	port = serve_silent(&fd);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", port);
	t0 = gp_now_ns();
	is_int(gp_http_fetch(url, NULL, 300, 1 << 20, &body, &len, &status, err, sizeof(err), &k), -1,
	       "a silent peer fails");
	is_int(k, GP_HTTP_ETIMEOUT, "as timeout");
	ok(gp_now_ns() - t0 < 3 * GP_NS_PER_S, "near its 300 ms (%.3f s)", gp_ns_to_s(gp_now_ns() - t0));
	close(fd);
}

/* ---- one POST through the engine ---- */

struct seen {
	int sent, headers, done, order_ok;
	char status_line[64], body[64];
	struct gp_http_result res;
};

static void on_sent(void *u, int64_t t) { struct seen *s = u; (void)t; s->sent++; }

static void on_header(void *u, const char *l, size_t n, int64_t t)
{
	struct seen *s = u;

	(void)t;
	if (!s->headers++)
		snprintf(s->status_line, sizeof(s->status_line), "%.*s", (int)n, l);
	s->order_ok = s->sent > 0;
}

static int on_body(void *u, long status, const char *b, size_t n, int64_t t)
{
	struct seen *s = u;
	size_t have = strlen(s->body);

	(void)status;
	(void)t;
	snprintf(s->body + have, sizeof(s->body) - have, "%.*s", (int)n, b);
	return 0;
}

static void on_done(void *u, const struct gp_http_result *r, int64_t t)
{
	struct seen *s = u;

	(void)t;
	s->done++;
	s->res = *r;
}

static void engine(void)
{
	static const struct gp_http_ops ops = { on_sent, on_header, on_body, on_done };
	struct gp_http_opts o = { 0 };
	struct gp_http *h;
	struct gp_http_xfer *x;
	struct seen s = { 0 };
	pid_t pid;
	int port = serve_start("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 4\r\n"
			       "Connection: close\r\n\r\npong", 1, &pid);
	char url[64];
	int64_t end;

	o.deadline_ms = 5000;
	h = gp_http_new(&o, &ops);
	ok(h != NULL, "an engine");
	is_int(gp_http_add_header(h, "Content-Type: application/json"), 0, "a common header");
	x = gp_http_xfer_new(h, &s);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/v1/completions", port);
	is_int(gp_http_start(x, url, "{}", 2, NULL, 0), 0, "a POST started");
	end = gp_now_ns() + 5 * GP_NS_PER_S;
	while (!s.done && gp_now_ns() < end)
		gp_http_poll(h, gp_now_ns() + 50 * GP_NS_PER_MS);
	is_int(s.done, 1, "on_done once");
	ok(s.sent >= 1 && s.order_ok, "on_sent before the first header");
	ok(!strncmp(s.status_line, "HTTP/1.1 200", 12), "the status line is the first header (%s)", s.status_line);
	is_str(s.body, "pong", "on_body: the body");
	is_int(s.res.err, GP_HTTP_OK, "the result: OK");
	is_int(s.res.status, 200, "status 200");
	is_int(gp_http_connects(x), 1, "one new connection");
	is_int(gp_http_running(h), 0, "nothing left in the multi");
	gp_http_xfer_free(x);
	gp_http_free(h);
	serve_stop(pid);
}

int main(void)
{
	if (gp_http_global_init())
		return 1;
	url_check();
	gets();
	engine();
	return done_testing();
}
