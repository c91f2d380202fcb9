/* SPDX-License-Identifier: MIT */
/* knee — the knee rung of a load curve, its crossing neighbour and its edge. */
#include "method/knee.h"

void gp_knee_pick(const double *mean, size_t n, double target, struct gp_knee *k)
{
	k->rung = GP_KNEE_NONE;
	k->monotone = 1;
	for (size_t r = 0; r < n; r++) {
		if (mean[r] >= target)
			k->rung = r;
		if (r > 0 && mean[r] > mean[r - 1])
			k->monotone = 0;
	}
	k->next = k->rung != GP_KNEE_NONE && k->rung + 1 < n ? k->rung + 1 : GP_KNEE_NONE;
	k->dips = 0;
	for (size_t r = 0; k->rung != GP_KNEE_NONE && r < k->rung; r++)
		if (!(mean[r] >= target))
			k->dips++;
	if (k->rung == GP_KNEE_NONE)
		k->edge = GP_KNEE_BELOW;
	else if (n == 1)
		k->edge = GP_KNEE_ONLY;
	else if (k->rung == n - 1)
		k->edge = GP_KNEE_LAST;
	else if (k->rung == 0)
		k->edge = GP_KNEE_FIRST;
	else
		k->edge = GP_KNEE_INSIDE;
}

const char *gp_knee_edge_name(enum gp_knee_edge e)
{
	switch (e) {
	case GP_KNEE_BELOW:
		return "below";
	case GP_KNEE_ONLY:
		return "only";
	case GP_KNEE_LAST:
		return "last";
	case GP_KNEE_FIRST:
		return "first";
	case GP_KNEE_INSIDE:
		break;
	}
	return NULL;
}

const char *gp_knee_edge_advice(enum gp_knee_edge e)
{
	switch (e) {
	case GP_KNEE_BELOW:
		return "no rung clears the target: extend the ladder downward";
	case GP_KNEE_ONLY:
		return "a one-rung ladder cannot locate a knee: add rungs above and below";
	case GP_KNEE_LAST:
		return "every rung clears the target: saturation was not reached; extend the "
		       "ladder upward";
	case GP_KNEE_FIRST:
		return "only the first rung clears the target: the knee lies between the first two "
		       "rungs or below; add rungs there (the ladder is too coarse)";
	case GP_KNEE_INSIDE:
		break;
	}
	return NULL;
}

const char *gp_knee_advice(const struct gp_knee *k)
{
	if (!k->dips)
		return gp_knee_edge_advice(k->edge);
	if (k->edge == GP_KNEE_LAST)
		return "the top rung clears the target but a lower rung does not: the curve is "
		       "non-monotone, the knee is its highest clearing rung; add reps at the failing "
		       "rung before reading it, and extend the ladder upward (saturation not reached)";
	return "a rung below the knee does not clear the target: the curve is non-monotone, the "
	       "knee is its highest clearing rung; add reps at the failing rung before reading it";
}
