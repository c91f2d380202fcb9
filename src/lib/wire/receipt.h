/* SPDX-License-Identifier: MIT */
/*
 * receipt — the handoff receipt of a disaggregated request: which member did
 * the prefill and which the decode, read from the text a gateway returns.
 * One reader for gp-replay (which records the two halves) and gp-verify
 * (whose delivery proof judges them against the fleet file).
 *
 * Shapes read without configuration:
 *   prefill=<member>;decode=<member>     a receipt header (gp-sim's router;
 *                                        other fields after a ';' ignored)
 *   ...___prefill_addr_<ip:port>___decode_addr_<ip:port>_<uuid>
 *                                        LoxiLB's disaggregated request id
 *                                        (X-Request-Id, echoed by vLLM as the
 *                                        completion id; examples/loxilb)
 * Any other gateway's shape: a POSIX extended regular expression with two
 * groups, the prefill member then the decode member (the fleet file's
 * receipt_regex), e.g. for Envoy in front of llm-d's decode sidecar, a
 * response header made of %REQ(x-prefiller-host-port)% and %UPSTREAM_HOST%
 * (examples/gateways/README).
 *
 * gp_receipt_split's result: GP_RECEIPT_BOTH (both halves filled),
 * GP_RECEIPT_PREFILL_ONLY (a prefill half and no decode: "prefill=X", or a
 * regex whose second group matched nothing), GP_RECEIPT_NONE (no shape
 * matched).  Halves longer than their buffers are cut.
 */
#ifndef GP_RECEIPT_H
#define GP_RECEIPT_H

#include <regex.h>
#include <stddef.h>

enum { GP_RECEIPT_NONE = -1, GP_RECEIPT_BOTH = 0, GP_RECEIPT_PREFILL_ONLY = 1 };

struct gp_receipt_fmt {
	int have_re;
	regex_t re;
};

/* The built-in shapes (regex NULL or empty), or regex: 0, or -1 with a
 * message in err when it does not compile or has fewer than two groups. */
int gp_receipt_fmt_init(struct gp_receipt_fmt *f, const char *regex, char *err, size_t errlen);
void gp_receipt_fmt_release(struct gp_receipt_fmt *f);

/* f NULL: the built-in shapes. */
int gp_receipt_split(const struct gp_receipt_fmt *f, const char *s, char *pre, size_t plen,
		     char *dec, size_t dlen);

#endif
