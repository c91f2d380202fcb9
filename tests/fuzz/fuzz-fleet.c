/* SPDX-License-Identifier: MIT */
/* fuzz-fleet — libFuzzer harness: fleet file validation and its lookups. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "wire/fleet.h"

/*
 * The input is one JSON document.  A valid fleet is then walked: every arm
 * and backend must be found by its name, and the VIP, backend and metrics
 * URLs go through gp_fleet_is_gateway_url (its URL origin parser).
 */
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct gp_fleet f;
	char err[256];
	json_t *root = json_loadb((const char *)d, n, JSON_DECODE_ANY, NULL);

	if (!root)
		return 0;
	gp_fleet_init(&f);
	if (gp_fleet_parse(&f, root, err, sizeof(err))) {	/* takes root */
		if (!memchr(err, '\0', sizeof(err)) || !err[0])
			abort();
		gp_fleet_release(&f);
		return 0;
	}
	for (size_t i = 0; i < f.n_arms; i++)
		if (!f.arms[i].name || gp_fleet_arm(&f, f.arms[i].name) != &f.arms[i])
			abort();
	for (size_t i = 0; i < f.n_backends; i++) {
		if (!f.backends[i].url)
			abort();
		if (f.backends[i].name && !gp_fleet_backend(&f, f.backends[i].name))
			abort();
		(void)gp_fleet_is_gateway_url(&f, f.backends[i].url);
		if (f.backends[i].metrics_url)
			(void)gp_fleet_is_gateway_url(&f, f.backends[i].metrics_url);
	}
	for (size_t i = 0; i < f.n_vips; i++) {
		if (!f.vips[i].url)
			abort();
		(void)gp_fleet_is_gateway_url(&f, f.vips[i].url);
	}
	for (size_t i = 0; i < f.n_inflight_metrics; i++)
		if (!f.inflight_metrics[i])
			abort();
	(void)gp_fleet_arm(&f, "no such arm");
	gp_fleet_release(&f);
	return 0;
}
