/* SPDX-License-Identifier: MIT */
/*
 * pd — gp-sim's disaggregated prefill/decode: the members' roles and the
 * model of the KV handoff between them.  Pure logic.
 *
 * Roles (gp-sim --roles, one per engine, as in the fleet file's "role"):
 *   both     aggregated: prefill and decode on the same engine (default)
 *   prefill  a prefill member (vLLM's kv_producer): the router sends it the
 *            prompt; it runs the prompt through its step loop and prefix
 *            cache and produces the first token's KV
 *   decode   a decode member (vLLM's kv_consumer): it receives the prompt's
 *            KV, then streams every token
 * A role is what the router does with an engine; an engine still answers a
 * request sent to it directly (as a vLLM server in either role does), which
 * is how gp-calibrate measures each member.
 *
 * The handoff.  When the prefill member's step emits the first token, the
 * prompt's KV moves to the decode member over a link of `gbit_s`:
 *     t_xfer = base_ms + tokens × bytes_per_token × 8 / (gbit_s × 10^9) s
 * bytes_per_token is the KV of one token over all layers:
 *     2 (K and V) × layers × kv_heads × head_dim × bytes per element,
 * e.g. Llama 3 8B in bf16: 2 × 32 × 8 × 128 × 2 = 131072 B (128 KiB); the
 * link is the NIC or NVLink the connector uses (NIXL over RDMA, in vLLM).
 * The decode member then holds the prompt's full blocks in its prefix cache
 * (as the connector writes them into its KV pool) and admits the request,
 * which computes only what the blocks do not hold (the partial last block;
 * vLLM's decode instance likewise computes the last prompt token) and then
 * decodes.  The transfer is modelled as a delay; concurrent transfers do not
 * share the link (an upper bound on the link's speed under load).
 */
#ifndef GP_PD_H
#define GP_PD_H

#include <stdint.h>

enum gp_pd_role { GP_ROLE_BOTH = 0, GP_ROLE_PREFILL, GP_ROLE_DECODE };

/* "both", "prefill", "decode" → the role; -1 when unknown. */
int gp_pd_role_parse(const char *s);
const char *gp_pd_role_name(enum gp_pd_role r);
/* May the router give this role the prefill (1: prefill or both), or the
 * decode (1: decode or both)? */
int gp_pd_can_prefill(enum gp_pd_role r);
int gp_pd_can_decode(enum gp_pd_role r);

struct gp_pd_link {
	double base_ms;			/* fixed cost of a transfer (>= 0) */
	double gbit_s;			/* link rate, Gbit/s (> 0) */
	double bytes_per_token;		/* KV bytes of one token (> 0) */
};

/* The transfer time of the KV of `tokens` prompt tokens, in nanoseconds
 * (tokens < 0 counts as 0). */
int64_t gp_pd_xfer_ns(const struct gp_pd_link *l, long tokens);
/* Its size in bytes. */
double gp_pd_xfer_bytes(const struct gp_pd_link *l, long tokens);

#endif
