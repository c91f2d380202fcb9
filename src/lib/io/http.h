/* SPDX-License-Identifier: MIT */
/*
 * http — every piece of libcurl knowledge in gp: one multi handle driven by
 * its socket and timer callbacks on an epoll set, in the calling thread.
 *
 * A struct gp_http owns the CURLM, the epoll fd and the list of headers every
 * request carries.  A struct gp_http_xfer owns one easy handle, reused from
 * request to request (keep-alive connections live in the multi's cache, so
 * reuse does not depend on which xfer runs which request).  The caller hangs
 * its own state on `user` and gets four callbacks:
 *
 *   on_sent   the connection (new or reused) is ready and libcurl is about to
 *             write the request: CURLOPT_PREREQFUNCTION, called right before
 *             the request is built and handed to send(2) — a few µs before
 *             the bytes reach the socket.  Called again if libcurl retries the
 *             request on a fresh connection (the last call is the real send).
 *   on_header one response header line (status line included), as received.
 *   on_body   response body bytes, de-chunked, in arrival order, with the
 *             monotonic time of the write callback and the HTTP status.
 *             Return non-zero to abort the transfer (it completes with
 *             GP_HTTP_EABORT).
 *   on_done   the transfer is over: the handle is already out of the multi, so
 *             the xfer may be started again from inside on_done.
 *
 * Times are CLOCK_MONOTONIC nanoseconds (clock.h) taken inside the callback.
 *
 * Ownership: strings passed to gp_http_start (url, body, extra headers) are
 * borrowed and must stay valid until on_done or gp_http_cancel; `detail` in
 * the result is borrowed for the duration of on_done.
 */
#ifndef GP_HTTP_H
#define GP_HTTP_H

#include <stddef.h>
#include <stdint.h>

/* Outcome classes of a transfer, mapped from CURLcode (see http.c). */
enum gp_http_err {
	GP_HTTP_OK = 0,		/* complete response received (any status) */
	GP_HTTP_ECONNECT,	/* unresolvable, refused, unreachable: nothing sent */
	GP_HTTP_ERESET,		/* connection lost after the request was sent */
	GP_HTTP_EFRAMING,	/* malformed HTTP: bad chunked encoding, bad reply */
	GP_HTTP_ETIMEOUT,	/* over the deadline (gp_http_opts.deadline_ms) */
	GP_HTTP_EABORT,		/* on_body (or gp_http_fetch_stop) asked to stop */
	GP_HTTP_EOTHER,		/* anything else (detail says what) */
	GP_HTTP_ETLS,		/* TLS handshake or certificate refused: nothing sent */
	GP_HTTP_ELIMIT,		/* the client's own limit: out of descriptors (EMFILE,
				 * ENFILE), of memory (ENOMEM, ENOBUFS, libcurl's
				 * out of memory) or of ephemeral ports
				 * (EADDRNOTAVAIL) — not the server's doing */
};

/*
 * Is a failed transfer (CURLcode `code`, CURLINFO_OS_ERRNO `os_errno`) the
 * client's own limit?  Yes for the errnos above, and for a failed connect or
 * resolve while this process cannot open one more descriptor (libcurl does
 * not always keep the errno of its failed socket(2)).
 */
int gp_http_client_limit(int code, long os_errno);

/* The record's class of an error (doc/records.md: "connect", "tls", "reset",
 * "invalid_framing", "timeout", "client_limit", "other"); NULL for GP_HTTP_OK. */
const char *gp_http_err_name(enum gp_http_err err);

struct gp_http_result {
	enum gp_http_err err;
	long status;		/* last HTTP status received, 0 if none */
	int code;		/* the CURLcode, for messages */
	const char *detail;	/* libcurl's error text, "" when none */
};

struct gp_http_ops {
	void (*on_sent)(void *user, int64_t t_ns);
	void (*on_header)(void *user, const char *line, size_t len, int64_t t_ns);
	int (*on_body)(void *user, long status, const char *buf, size_t len, int64_t t_ns);
	void (*on_done)(void *user, const struct gp_http_result *res, int64_t t_ns);
};

/*
 * TLS policy of a process's https:// requests — engine, blocking GETs and
 * scrapes alike (set_tls in http.c is the one place it is applied).
 * Certificates and host names are verified against libcurl's CA bundle, or
 * against cacert; not at all with insecure.  A NULL policy is the default.
 */
struct gp_http_tls {
	const char *cacert;	/* verify against this CA file (borrowed), NULL: system's */
	int insecure;		/* do not verify the certificate or the host name */
};

/* What a tool tells its user when TLS was refused (its options). */
#define GP_HTTP_TLS_HINT "trust the server's CA with --cacert FILE, or skip the check with --insecure"

struct gp_http_opts {
	int http2;		/* HTTP/2: h2c prior knowledge on http://, ALPN on https:// */
	long deadline_ms;	/* whole-transfer limit, 0 = none */
	long connect_timeout_ms;/* 0 = libcurl's default */
	long max_connects;	/* size of the connection cache (0: 100000) */
	long buffer_size;	/* receive buffer per transfer, 0 = libcurl's 16 KiB */
	struct gp_http_tls tls;	/* https: the certificate policy */
};

struct gp_http;
struct gp_http_xfer;

/* Call once per process before anything else (curl_global_init). 0 or -1. */
int gp_http_global_init(void);

/* libcurl's version string, e.g. "7.88.1". */
const char *gp_http_version(void);

/*
 * Check a base URL: scheme http or https, a host, no user or password, no
 * path beyond "/", no query or fragment.  On success writes
 * "scheme://host[:port]" to norm and returns 0; otherwise -1 and a reason in
 * err that never repeats the URL (it may hold a secret).
 */
int gp_http_url_check(const char *url, char *norm, size_t normlen, char *err, size_t errlen);

/* A new engine, or NULL (out of memory, epoll). */
struct gp_http *gp_http_new(const struct gp_http_opts *opts, const struct gp_http_ops *ops);
/* Cancel what is in flight (no on_done) and free the engine.  Free the xfers
 * first or after; both orders are fine. */
void gp_http_free(struct gp_http *h);
/*
 * Add a header line "Name: value" sent with every request (copied).  Order
 * is kept; call before starting transfers.  0 or -1.
 */
int gp_http_add_header(struct gp_http *h, const char *line);

#define GP_HTTP_MAX_XHDR 4	/* per-request extra headers */

struct gp_http_xfer *gp_http_xfer_new(struct gp_http *h, void *user);
void gp_http_xfer_free(struct gp_http_xfer *x);
/*
 * POST body to url with up to GP_HTTP_MAX_XHDR extra header lines (in front
 * of the common ones).  No allocation: the extra headers are linked in place.
 * 0, or -1 when libcurl refuses the handle.
 */
int gp_http_start(struct gp_http_xfer *x, const char *url, const char *body, size_t len,
		  const char *const *xhdr, int nxhdr);
/* Stop a running transfer without calling on_done (the connection is closed). */
void gp_http_cancel(struct gp_http_xfer *x);
/* The last HTTP status line received by x, 0 if none. */
long gp_http_status(const struct gp_http_xfer *x);
/*
 * New connections x's current (or last) transfer opened: 0 when it reused a
 * keep-alive connection.  Valid while running, in on_done and after a cancel.
 */
long gp_http_connects(const struct gp_http_xfer *x);
/* Number of transfers in the multi. */
int gp_http_running(const struct gp_http *h);

/*
 * Wait for I/O until monotonic time wake_ns at the latest (wake_ns <= now:
 * just poll), drive libcurl, and deliver callbacks.  The wait is an
 * epoll_pwait2 with a nanosecond timeout; it returns early on I/O, on
 * libcurl's own timers and on a signal (EINTR).  Once wake_ns has passed it
 * stops serving sockets (at most 64 per call anyway), so the caller's next
 * send is not held up; the sockets left unserved stay ready (level-triggered).
 * Returns the number of sockets that had events, or -1 on an epoll error.
 */
int gp_http_poll(struct gp_http *h, int64_t wake_ns);

/*
 * Warm up: n concurrent GETs of url through the engine, waited for (at most
 * timeout_ms), their responses discarded.  Their keep-alive connections stay
 * in the cache for the first requests, and libcurl's first-use costs are paid
 * before any timed send.  Call before starting transfers.  0, or -1 when some
 * did not finish in time (they keep running and are dropped silently).
 */
int gp_http_warm(struct gp_http *h, const char *url, int n, long timeout_ms);

/*
 * Blocking GET of url (for metrics scrapes, outside the replay loop) under
 * the TLS policy tls (NULL: the default).  On 0, *body (malloc'd,
 * NUL-terminated, caller frees) holds the whole body and *status the HTTP
 * status; a body over max bytes is not cut short but refused.  -1 with a
 * reason in err and its class in *kind (may be NULL: GP_HTTP_ECONNECT,
 * GP_HTTP_ETLS, GP_HTTP_ETIMEOUT, GP_HTTP_ERESET, GP_HTTP_EFRAMING,
 * GP_HTTP_EOTHER — also for a body over max — or GP_HTTP_EABORT, stopped by
 * gp_http_fetch_stop) otherwise.
 */
int gp_http_fetch(const char *url, const struct gp_http_tls *tls, long timeout_ms, size_t max,
		  char **body, size_t *len, long *status, char *err, size_t errlen,
		  enum gp_http_err *kind);

/*
 * From now on a blocking GET (gp_http_fetch, gp_http_get) in flight ends as
 * soon as stop() returns non-zero (NULL: never), with GP_HTTP_EABORT; stop is
 * polled between libcurl's waits, a signal's EINTR included (sig.h's
 * gp_sig_stop).  Process-wide, as gp_http_global_init.
 */
void gp_http_fetch_stop(int (*stop)(void));

/*
 * Blocking GET of url with h's headers (gp_http_add_header) and TLS options,
 * outside the engine's multi handle (before a run: the model list).
 * GP_HTTP_OK with *body (malloc'd, NUL-terminated, at most max bytes — a
 * longer body is GP_HTTP_EOTHER; caller frees) and *status, else
 * GP_HTTP_ECONNECT (nothing listening), GP_HTTP_ETLS (TLS handshake or
 * certificate refused), GP_HTTP_ETIMEOUT, GP_HTTP_ERESET, GP_HTTP_EFRAMING or
 * GP_HTTP_EOTHER, with libcurl's reason in err.
 */
enum gp_http_err gp_http_get(const struct gp_http *h, const char *url, long timeout_ms, size_t max,
			     char **body, size_t *len, long *status, char *err, size_t errlen);

#endif
