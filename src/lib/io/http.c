/* SPDX-License-Identifier: MIT */
/* http — libcurl multi on epoll: keep-alive POSTs with streamed bodies. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <curl/curl.h>

#include "io/http.h"
#include "base/clock.h"
#include "base/vec.h"
#include "base/banned.h"

struct gp_http {
	CURLM *multi;
	int epfd;
	int running;
	int warm_left;			/* warm-up GETs still running */
	long n_open;			/* sockets libcurl holds open */
	unsigned long sock_fails;	/* socket(2) calls that failed, */
	int sock_errno;			/* and the last one's errno */
	int64_t timer_ns;		/* libcurl's next timeout, INT64_MAX: none */
	struct gp_http_ops ops;
	struct gp_http_opts opts;
	struct curl_slist *common;	/* headers of every request */
	struct epoll_event ev[64];	/* small batches: the pacer checks its clock between them */
};

struct gp_http_xfer {
	CURL *easy;
	struct gp_http *h;
	void *user;
	long status;
	int active;
	int sent;
	unsigned long sock_fails0;	/* h->sock_fails when it started */
	struct curl_slist xhdr[GP_HTTP_MAX_XHDR];
	char errbuf[CURL_ERROR_SIZE];
};

int gp_http_global_init(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1;
}

static void seterr(char *err, size_t len, const char *msg)
{
	if (len) {
		size_t n = strlen(msg);

		if (n >= len)
			n = len - 1;
		memcpy(err, msg, n);
		err[n] = '\0';
	}
}

static int has_part(CURLU *u, CURLUPart what)
{
	char *part = NULL;
	int r = curl_url_get(u, what, &part, 0) == CURLUE_OK && part;

	curl_free(part);
	return r;
}

const char *gp_http_version(void)
{
	return curl_version_info(CURLVERSION_NOW)->version;
}

int gp_http_url_check(const char *url, char *norm, size_t normlen, char *err, size_t errlen)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *port = NULL, *path = NULL;
	int r = -1;

	if (!u) {
		seterr(err, errlen, "out of memory");
		return -1;
	}
	if (curl_url_set(u, CURLUPART_URL, url, 0)) {
		seterr(err, errlen, "not a valid URL (want http://host:port)");
		goto out;
	}
	curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
	if (!scheme || (strcmp(scheme, "http") && strcmp(scheme, "https"))) {
		seterr(err, errlen, "scheme must be http or https");
		goto out;
	}
	if (has_part(u, CURLUPART_USER) || has_part(u, CURLUPART_PASSWORD) ||
	    has_part(u, CURLUPART_OPTIONS)) {
		seterr(err, errlen, "credentials in the URL are refused (use GP_API_KEY)");
		goto out;
	}
	if (has_part(u, CURLUPART_QUERY) || has_part(u, CURLUPART_FRAGMENT)) {
		seterr(err, errlen, "the URL must not have a query or fragment");
		goto out;
	}
	if (!curl_url_get(u, CURLUPART_PATH, &path, 0) && path && strcmp(path, "/") && *path) {
		seterr(err, errlen, "the URL must be a base (http://host:port), without a path");
		goto out;
	}
	if (curl_url_get(u, CURLUPART_HOST, &host, 0) || !host || !*host) {
		seterr(err, errlen, "the URL has no host");
		goto out;
	}
	curl_url_get(u, CURLUPART_PORT, &port, 0);
	if ((size_t)snprintf(norm, normlen, "%s://%s%s%s", scheme, host, port ? ":" : "",
			     port ? port : "") >= normlen) {
		seterr(err, errlen, "URL too long");
		goto out;
	}
	r = 0;
out:
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_free(path);
	curl_url_cleanup(u);
	return r;
}

/* ---- libcurl → epoll ---- */

static int sock_cb(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp)
{
	struct gp_http *h = userp;
	struct epoll_event ev;

	if (what == CURL_POLL_REMOVE) {
		epoll_ctl(h->epfd, EPOLL_CTL_DEL, s, NULL);
		curl_multi_assign(h->multi, s, NULL);
		return 0;
	}
	memset(&ev, 0, sizeof(ev));
	ev.data.fd = s;
	ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0) | (what & CURL_POLL_OUT ? EPOLLOUT : 0);
	if (!socketp) {
		if (epoll_ctl(h->epfd, EPOLL_CTL_ADD, s, &ev) && errno == EEXIST)
			epoll_ctl(h->epfd, EPOLL_CTL_MOD, s, &ev);
		curl_multi_assign(h->multi, s, h);	/* any non-NULL marks "added" */
	} else if (epoll_ctl(h->epfd, EPOLL_CTL_MOD, s, &ev) && errno == ENOENT) {
		epoll_ctl(h->epfd, EPOLL_CTL_ADD, s, &ev);
	}
	return 0;
}

static int timer_cb(CURLM *multi, long timeout_ms, void *userp)
{
	struct gp_http *h = userp;

	h->timer_ns = timeout_ms < 0 ? INT64_MAX : gp_now_ns() + timeout_ms * GP_NS_PER_MS;
	return 0;
}

/* ---- easy handle callbacks ---- */

/* Count the sockets libcurl opens and closes, so gp_http_start knows when
 * every open connection is busy. */
static curl_socket_t open_cb(void *clientp, curlsocktype purpose, struct curl_sockaddr *a)
{
	struct gp_http *h = clientp;
	curl_socket_t fd = socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);

	if (fd != CURL_SOCKET_BAD) {
		h->n_open++;
	} else {
		h->sock_fails++;	/* libcurl keeps no errno of it (classify) */
		h->sock_errno = errno;
	}
	return fd;
}

static int close_cb(void *clientp, curl_socket_t fd)
{
	struct gp_http *h = clientp;

	h->n_open--;
	return close(fd);
}

/* Certificates (http.h, struct gp_http_tls): verified by default (libcurl's
 * CA bundle), or against tls->cacert; not at all with tls->insecure.  Every
 * handle gp makes passes here. */
static void set_tls(CURL *e, const struct gp_http_tls *tls)
{
	if (!tls)
		return;
	if (tls->cacert && *tls->cacert)
		curl_easy_setopt(e, CURLOPT_CAINFO, tls->cacert);
	if (tls->insecure) {
		curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
	}
}

static void set_socket_cbs(CURL *e, struct gp_http *h)
{
	curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, open_cb);
	curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, h);
	curl_easy_setopt(e, CURLOPT_CLOSESOCKETFUNCTION, close_cb);
	curl_easy_setopt(e, CURLOPT_CLOSESOCKETDATA, h);
}

static int prereq_cb(void *clientp, char *conn_primary_ip, char *conn_local_ip,
		     int conn_primary_port, int conn_local_port)
{
	struct gp_http_xfer *x = clientp;

	x->sent = 1;
	if (x->h->ops.on_sent)
		x->h->ops.on_sent(x->user, gp_now_ns());
	return CURL_PREREQFUNC_OK;
}

static size_t header_cb(char *buf, size_t size, size_t n, void *userp)
{
	struct gp_http_xfer *x = userp;
	size_t len = size * n;

	/* "HTTP/1.1 200 OK" or "HTTP/2 200": remember the status. */
	if (len > 9 && !memcmp(buf, "HTTP/", 5)) {
		const char *sp = memchr(buf, ' ', len);

		if (sp && (size_t)(sp - buf) + 4 <= len &&
		    sp[1] >= '1' && sp[1] <= '9' && sp[2] >= '0' && sp[2] <= '9' && sp[3] >= '0' && sp[3] <= '9')
			x->status = (sp[1] - '0') * 100 + (sp[2] - '0') * 10 + (sp[3] - '0');
	}
	if (x->h->ops.on_header)
		x->h->ops.on_header(x->user, buf, len, gp_now_ns());
	return len;
}

static size_t write_cb(char *buf, size_t size, size_t n, void *userp)
{
	struct gp_http_xfer *x = userp;
	size_t len = size * n;

	if (x->h->ops.on_body && x->h->ops.on_body(x->user, x->status, buf, len, gp_now_ns()))
		return 0;	/* CURLE_WRITE_ERROR → GP_HTTP_EABORT */
	return len;
}

struct gp_http *gp_http_new(const struct gp_http_opts *opts, const struct gp_http_ops *ops)
{
	struct gp_http *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->opts = *opts;
	h->ops = *ops;
	h->timer_ns = INT64_MAX;
	h->epfd = epoll_create1(EPOLL_CLOEXEC);
	h->multi = curl_multi_init();
	if (h->epfd < 0 || !h->multi) {
		gp_http_free(h);
		return NULL;
	}
	curl_multi_setopt(h->multi, CURLMOPT_SOCKETFUNCTION, sock_cb);
	curl_multi_setopt(h->multi, CURLMOPT_SOCKETDATA, h);
	curl_multi_setopt(h->multi, CURLMOPT_TIMERFUNCTION, timer_cb);
	curl_multi_setopt(h->multi, CURLMOPT_TIMERDATA, h);
	curl_multi_setopt(h->multi, CURLMOPT_MAX_HOST_CONNECTIONS, 0L);
	curl_multi_setopt(h->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, 0L);
	curl_multi_setopt(h->multi, CURLMOPT_MAXCONNECTS,
			  opts->max_connects > 0 ? opts->max_connects : 100000L);
	curl_multi_setopt(h->multi, CURLMOPT_PIPELINING,
			  opts->http2 ? (long)CURLPIPE_MULTIPLEX : (long)CURLPIPE_NOTHING);
	/* No "Expect: 100-continue" round trip before a body, ever. */
	if (gp_http_add_header(h, "Expect:")) {
		gp_http_free(h);
		return NULL;
	}
	return h;
}

void gp_http_free(struct gp_http *h)
{
	if (!h)
		return;
	if (h->multi)
		curl_multi_cleanup(h->multi);
	if (h->epfd >= 0)
		close(h->epfd);
	curl_slist_free_all(h->common);
	free(h);
}

int gp_http_add_header(struct gp_http *h, const char *line)
{
	struct curl_slist *n = curl_slist_append(h->common, line);

	if (!n)
		return -1;
	h->common = n;
	return 0;
}

struct gp_http_xfer *gp_http_xfer_new(struct gp_http *h, void *user)
{
	struct gp_http_xfer *x = calloc(1, sizeof(*x));
	CURL *e;

	if (!x || !(e = curl_easy_init())) {
		free(x);
		return NULL;
	}
	x->easy = e;
	x->h = h;
	x->user = user;
	curl_easy_setopt(e, CURLOPT_PRIVATE, x);
	set_socket_cbs(e, h);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
	curl_easy_setopt(e, CURLOPT_PROXY, "");	/* measure the target, not a proxy */
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, x->errbuf);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, header_cb);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(e, CURLOPT_PREREQFUNCTION, prereq_cb);
	curl_easy_setopt(e, CURLOPT_PREREQDATA, x);
	curl_easy_setopt(e, CURLOPT_POST, 1L);
	curl_easy_setopt(e, CURLOPT_HTTP_VERSION,
			 h->opts.http2 ? (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE
				       : (long)CURL_HTTP_VERSION_1_1);
	if (h->opts.http2)
		curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
	if (h->opts.deadline_ms > 0)
		curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, h->opts.deadline_ms);
	if (h->opts.connect_timeout_ms > 0)
		curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, h->opts.connect_timeout_ms);
	if (h->opts.buffer_size > 0)
		curl_easy_setopt(e, CURLOPT_BUFFERSIZE, h->opts.buffer_size);
	set_tls(e, &h->opts.tls);
	return x;
}

void gp_http_xfer_free(struct gp_http_xfer *x)
{
	if (!x)
		return;
	if (x->active)
		gp_http_cancel(x);
	curl_easy_cleanup(x->easy);
	free(x);
}

int gp_http_start(struct gp_http_xfer *x, const char *url, const char *body, size_t len,
		  const char *const *xhdr, int nxhdr)
{
	struct curl_slist *list = x->h->common;
	int i;

	if (nxhdr > GP_HTTP_MAX_XHDR)
		return -1;
	/* Link the per-request lines in front of the common list, in place:
	 * libcurl only reads the list. */
	for (i = nxhdr - 1; i >= 0; i--) {
		x->xhdr[i].data = (char *)xhdr[i];
		x->xhdr[i].next = list;
		list = &x->xhdr[i];
	}
	curl_easy_setopt(x->easy, CURLOPT_URL, url);
	curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, list);
	curl_easy_setopt(x->easy, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(x->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	/*
	 * When every open socket belongs to a running transfer there is no idle
	 * connection to reuse: ask for a fresh one, which skips libcurl's search
	 * of the connection cache — a walk over every connection to the host,
	 * which made each send O(connections) with thousands in flight.
	 */
	curl_easy_setopt(x->easy, CURLOPT_FRESH_CONNECT,
			 !x->h->opts.http2 && x->h->n_open <= x->h->running ? 1L : 0L);
	x->status = 0;
	x->sent = 0;
	x->sock_fails0 = x->h->sock_fails;
	x->errbuf[0] = '\0';
	if (curl_multi_add_handle(x->h->multi, x->easy) != CURLM_OK)
		return -1;
	x->active = 1;
	x->h->running++;
	/* Let libcurl start it now rather than at the next timer turn. */
	{
		int still;

		curl_multi_socket_action(x->h->multi, CURL_SOCKET_TIMEOUT, 0, &still);
	}
	return 0;
}

void gp_http_cancel(struct gp_http_xfer *x)
{
	if (!x->active)
		return;
	curl_multi_remove_handle(x->h->multi, x->easy);
	x->active = 0;
	x->h->running--;
}

long gp_http_status(const struct gp_http_xfer *x)
{
	return x->status;
}

long gp_http_connects(const struct gp_http_xfer *x)
{
	long n = 0;

	curl_easy_getinfo(x->easy, CURLINFO_NUM_CONNECTS, &n);
	return n;
}

int gp_http_running(const struct gp_http *h)
{
	return h->running;
}

/* CURLcode → class, for any transfer (classify refines it for the engine's). */
static enum gp_http_err code_class(CURLcode rc)
{
	switch (rc) {
	case CURLE_OK:
		return GP_HTTP_OK;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
		return GP_HTTP_ECONNECT;
	case CURLE_SSL_CONNECT_ERROR:		/* TLS handshake: nothing was sent */
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CERTPROBLEM:
		return GP_HTTP_ETLS;
	case CURLE_OPERATION_TIMEDOUT:
		return GP_HTTP_ETIMEOUT;
	case CURLE_WRITE_ERROR:
		return GP_HTTP_EABORT;
	case CURLE_WEIRD_SERVER_REPLY:
	case CURLE_BAD_CONTENT_ENCODING:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return GP_HTTP_EFRAMING;
	case CURLE_RECV_ERROR:
	case CURLE_PARTIAL_FILE:
	case CURLE_GOT_NOTHING:
	case CURLE_SEND_ERROR:
		return GP_HTTP_ERESET;
	default:
		return GP_HTTP_EOTHER;
	}
}

/*
 * A finished transfer's class, for the engine's and the blocking GETs
 * alike.  libcurl 7.88 reports a broken chunked encoding as
 * CURLE_RECV_ERROR with "… in chunked-encoding" in the error buffer and no
 * OS errno, while a reset connection carries ECONNRESET; a clean close in
 * the middle of a chunked body is CURLE_PARTIAL_FILE.
 */
static enum gp_http_err easy_class(CURLcode rc, CURL *easy, const char *errbuf)
{
	long os_errno = 0;

	if (rc == CURLE_RECV_ERROR) {
		curl_easy_getinfo(easy, CURLINFO_OS_ERRNO, &os_errno);
		if (!os_errno && strstr(errbuf, "chunk"))
			return GP_HTTP_EFRAMING;
	}
	return code_class(rc);
}

/* An engine transfer's class: a connection lost before the request was
 * written is a connect failure; a failure on the client's own limit
 * (gp_http_client_limit) is client_limit, whatever libcurl called it. */
static enum gp_http_err classify(CURLcode rc, const struct gp_http_xfer *x)
{
	enum gp_http_err k = easy_class(rc, x->easy, x->errbuf);
	long os_errno = 0;

	if (k == GP_HTTP_EFRAMING)
		return k;
	curl_easy_getinfo(x->easy, CURLINFO_OS_ERRNO, &os_errno);
	if (!os_errno && x->h->sock_fails != x->sock_fails0)
		os_errno = x->h->sock_errno;	/* a socket(2) failed meanwhile */
	if (k == GP_HTTP_ERESET && !x->sent)
		k = GP_HTTP_ECONNECT;
	if (k != GP_HTTP_OK && k != GP_HTTP_ETIMEOUT && k != GP_HTTP_EABORT && gp_http_client_limit(rc, os_errno))
		return GP_HTTP_ELIMIT;
	return k;
}

int gp_http_client_limit(int code, long os_errno)
{
	int fd;

	if (code == CURLE_OUT_OF_MEMORY || os_errno == EMFILE || os_errno == ENFILE || os_errno == ENOMEM ||
	    os_errno == ENOBUFS || os_errno == EADDRNOTAVAIL)
		return 1;
	if (code != CURLE_COULDNT_CONNECT && code != CURLE_COULDNT_RESOLVE_HOST)
		return 0;
	/* libcurl does not always keep the errno of a socket(2) or pipe(2) that
	 * failed: ask the process whether it could open one more descriptor. */
	fd = fcntl(0, F_DUPFD_CLOEXEC, 0);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno == EMFILE || errno == ENFILE;
}

const char *gp_http_err_name(enum gp_http_err err)
{
	switch (err) {
	case GP_HTTP_OK: return NULL;
	case GP_HTTP_ECONNECT: return "connect";
	case GP_HTTP_ETLS: return "tls";
	case GP_HTTP_ERESET: return "reset";
	case GP_HTTP_EFRAMING: return "invalid_framing";
	case GP_HTTP_ETIMEOUT: return "timeout";
	case GP_HTTP_ELIMIT: return "client_limit";
	default: return "other";
	}
}

static void drain(struct gp_http *h)
{
	CURLMsg *m;
	int left;

	while ((m = curl_multi_info_read(h->multi, &left))) {
		struct gp_http_xfer *x = NULL;
		struct gp_http_result res;

		if (m->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
		if (!x) {		/* a warm-up GET (gp_http_warm) */
			curl_multi_remove_handle(h->multi, m->easy_handle);
			curl_easy_cleanup(m->easy_handle);
			h->warm_left--;
			continue;
		}
		res.code = (int)m->data.result;
		res.err = classify(m->data.result, x);
		res.status = x->status;
		res.detail = x->errbuf[0] ? x->errbuf : (res.code ? curl_easy_strerror(m->data.result) : "");
		curl_multi_remove_handle(h->multi, x->easy);
		x->active = 0;
		h->running--;
		if (h->ops.on_done)
			h->ops.on_done(x->user, &res, gp_now_ns());
	}
}

/*
 * epoll_pwait2 (nanosecond timeout), or epoll_wait with the timeout rounded
 * up to a millisecond where the kernel (before 5.11), a seccomp filter or
 * valgrind does not have it (ENOSYS, remembered for the process).
 */
static int wait_events(struct gp_http *h, const struct timespec *ts)
{
	static int no_pwait2;
	int max = (int)(sizeof(h->ev) / sizeof(h->ev[0])), n;

	if (!no_pwait2) {
		n = epoll_pwait2(h->epfd, h->ev, max, ts, NULL);
		if (n >= 0 || errno != ENOSYS)
			return n;
		no_pwait2 = 1;
	}
	return epoll_wait(h->epfd, h->ev, max,
			  ts ? (int)(ts->tv_sec * 1000 + (ts->tv_nsec + 999999) / 1000000) : -1);
}

int gp_http_poll(struct gp_http *h, int64_t wake_ns)
{
	int64_t now = gp_now_ns(), until = wake_ns < h->timer_ns ? wake_ns : h->timer_ns;
	struct timespec ts = { 0, 0 };
	int n, i, still;

	if (until > now) {
		int64_t d = until - now;

		ts.tv_sec = (time_t)(d / GP_NS_PER_S);
		ts.tv_nsec = (long)(d % GP_NS_PER_S);
	}
	n = wait_events(h, until == INT64_MAX ? NULL : &ts);
	if (n < 0) {
		if (errno != EINTR)
			return -1;
		n = 0;
	}
	for (i = 0; i < n; i++) {
		uint32_t e = h->ev[i].events;
		int flags = (e & EPOLLIN ? CURL_CSELECT_IN : 0) | (e & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
			    (e & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);

		curl_multi_socket_action(h->multi, h->ev[i].data.fd, flags, &still);
		/* Past the caller's deadline: leave the rest for the next call.
		 * The epoll set is level-triggered, so nothing is lost. */
		if (i + 1 < n && gp_now_ns() >= wake_ns)
			break;
	}
	if (h->timer_ns <= gp_now_ns()) {
		h->timer_ns = INT64_MAX;
		curl_multi_socket_action(h->multi, CURL_SOCKET_TIMEOUT, 0, &still);
	}
	drain(h);
	return n;
}

static size_t discard_cb(char *buf, size_t size, size_t n, void *userp)
{
	return size * n;
}

int gp_http_warm(struct gp_http *h, const char *url, int n, long timeout_ms)
{
	int64_t deadline = gp_now_ns() + timeout_ms * GP_NS_PER_MS;
	int i;

	for (i = 0; i < n; i++) {
		CURL *e = curl_easy_init();

		if (!e)
			break;
		curl_easy_setopt(e, CURLOPT_URL, url);
		curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
		curl_easy_setopt(e, CURLOPT_PROXY, "");
		curl_easy_setopt(e, CURLOPT_HTTPHEADER, h->common);
		curl_easy_setopt(e, CURLOPT_HTTP_VERSION,
				 h->opts.http2 ? (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE
					       : (long)CURL_HTTP_VERSION_1_1);
		curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms);
		curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard_cb);
		curl_easy_setopt(e, CURLOPT_PRIVATE, NULL);
		set_tls(e, &h->opts.tls);
		set_socket_cbs(e, h);
		if (curl_multi_add_handle(h->multi, e) != CURLM_OK) {
			curl_easy_cleanup(e);
			break;
		}
		h->warm_left++;
	}
	while (h->warm_left > 0 && gp_now_ns() < deadline)
		if (gp_http_poll(h, deadline) < 0)
			break;
	return h->warm_left > 0 ? -1 : 0;
}

/* ---- blocking GET ---- */

struct fetchbuf {
	char *p;
	size_t len, max, cap;
	int over;		/* the body was longer than max */
};

static size_t fetch_cb(char *buf, size_t size, size_t n, void *userp)
{
	struct fetchbuf *f = userp;
	size_t len = size * n;
	char *q;

	if (len > f->max - f->len) {
		f->over = 1;
		return 0;	/* CURLE_WRITE_ERROR: never a body cut short */
	}
	if (len) {
		q = gp_grow(f->p, &f->cap, f->len + len + 1, 1, 4096);
		if (!q)
			return 0;
		f->p = q;
		memcpy(f->p + f->len, buf, len);
		f->len += len;
		f->p[f->len] = '\0';
	}
	return len;
}

/* gp_http_fetch_stop's predicate, or NULL. */
static int (*fetch_stop)(void);

void gp_http_fetch_stop(int (*stop)(void))
{
	fetch_stop = stop;
}

/* CURLOPT_XFERINFOFUNCTION: libcurl calls it between its waits, a signal's
 * EINTR included; non-zero aborts the transfer. */
static int fetch_progress(void *p, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	(void)p, (void)dt, (void)dn, (void)ut, (void)un;
	return fetch_stop() != 0;
}

static int fetch(const struct gp_http_tls *tls, const struct curl_slist *hdrs, const char *url,
		 long timeout_ms, size_t max, char **body, size_t *len, long *status, char *err,
		 size_t errlen, enum gp_http_err *kind)
{
	struct fetchbuf f = { NULL, 0, max, 0, 0 };
	char ebuf[CURL_ERROR_SIZE] = "";
	CURL *e = curl_easy_init();
	CURLcode rc;

	*kind = GP_HTTP_EOTHER;
	if (!e) {
		seterr(err, errlen, "out of memory");
		return -1;
	}
	set_tls(e, tls);
	if (hdrs)
		curl_easy_setopt(e, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_PROXY, "");
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, fetch_cb);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, &f);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, ebuf);
	if (fetch_stop) {
		curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, fetch_progress);
		curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
	}
	rc = curl_easy_perform(e);
	if (rc != CURLE_OK) {
		if (f.over)
			snprintf(err, errlen, "the body is over %zu bytes", max);
		else if (rc == CURLE_ABORTED_BY_CALLBACK)
			seterr(err, errlen, "stopped");
		else
			seterr(err, errlen, ebuf[0] ? ebuf : curl_easy_strerror(rc));
		*kind = f.over ? GP_HTTP_EOTHER : rc == CURLE_ABORTED_BY_CALLBACK ? GP_HTTP_EABORT :
			easy_class(rc, e, ebuf);
		curl_easy_cleanup(e);
		free(f.p);
		return -1;
	}
	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, status);
	curl_easy_cleanup(e);
	if (!f.p && !(f.p = calloc(1, 1))) {
		seterr(err, errlen, "out of memory");
		return -1;
	}
	*body = f.p;
	*len = f.len;
	*kind = GP_HTTP_OK;
	return 0;
}

int gp_http_fetch(const char *url, const struct gp_http_tls *tls, long timeout_ms, size_t max,
		  char **body, size_t *len, long *status, char *err, size_t errlen,
		  enum gp_http_err *kind)
{
	enum gp_http_err k;

	return fetch(tls, NULL, url, timeout_ms, max, body, len, status, err, errlen,
		     kind ? kind : &k);
}

enum gp_http_err gp_http_get(const struct gp_http *h, const char *url, long timeout_ms, size_t max,
			     char **body, size_t *len, long *status, char *err, size_t errlen)
{
	enum gp_http_err k;

	fetch(&h->opts.tls, h->common, url, timeout_ms, max, body, len, status, err, errlen, &k);
	return k;
}
