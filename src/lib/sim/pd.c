/* SPDX-License-Identifier: MIT */
/* pd — prefill/decode roles and the KV handoff's time (pd.h). */
#include <string.h>

#include "sim/pd.h"

static const char *const role_names[] = { "both", "prefill", "decode" };

int gp_pd_role_parse(const char *s)
{
	for (int i = 0; i < 3; i++)
		if (s && !strcmp(s, role_names[i]))
			return i;
	return -1;
}

const char *gp_pd_role_name(enum gp_pd_role r)
{
	return (unsigned)r < 3 ? role_names[r] : "?";
}

int gp_pd_can_prefill(enum gp_pd_role r)
{
	return r == GP_ROLE_BOTH || r == GP_ROLE_PREFILL;
}

int gp_pd_can_decode(enum gp_pd_role r)
{
	return r == GP_ROLE_BOTH || r == GP_ROLE_DECODE;
}

double gp_pd_xfer_bytes(const struct gp_pd_link *l, long tokens)
{
	return tokens > 0 ? (double)tokens * l->bytes_per_token : 0;
}

int64_t gp_pd_xfer_ns(const struct gp_pd_link *l, long tokens)
{
	double s = l->base_ms / 1e3 + gp_pd_xfer_bytes(l, tokens) * 8 / (l->gbit_s * 1e9);

	return (int64_t)(s * 1e9 + 0.5);
}
