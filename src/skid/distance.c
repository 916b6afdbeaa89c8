/*
 * skid/distance.c - the one distance and the one verdict for "does the model explain where the
 * samples land" (skid.h): `ipcc skid`, `ipcc annotate --model` and the fit all use these.
 */
#include <math.h>

#include "ipcc/skid.h"

double ipcc_skid_tv(const double *a, const double *b, unsigned n)
{
	double sa = 0, sb = 0, d = 0;

	for (unsigned k = 0; k < n; k++)
		sa += a[k], sb += b[k];
	if (!(sa > 0) || !(sb > 0))
		return NAN;
	for (unsigned k = 0; k < n; k++)
		d += fabs(a[k] / sa - b[k] / sb);
	return d / 2;
}

enum ipcc_skid_verdict ipcc_skid_judge(double explained, double distance, double halves)
{
	if (isnan(distance))
		return IPCC_SKID_UNJUDGED;
	if (halves > IPCC_SKID_MATCH_DISTANCE && halves > distance)
		return IPCC_SKID_NO_VERDICT;
	if (explained >= 0.9)
		return distance <= IPCC_SKID_MATCH_DISTANCE ? IPCC_SKID_MATCHES
							    : IPCC_SKID_SAME_PLACES;
	return explained >= 0.5 ? IPCC_SKID_PARTLY : IPCC_SKID_DIFFERS;
}

const char *ipcc_skid_verdict_name(enum ipcc_skid_verdict v)
{
	static const char *const names[] = {
		[IPCC_SKID_UNJUDGED] = NULL,	 [IPCC_SKID_NO_VERDICT] = NULL,
		[IPCC_SKID_MATCHES] = "matches", [IPCC_SKID_SAME_PLACES] = "same-places",
		[IPCC_SKID_PARTLY] = "partly",	 [IPCC_SKID_DIFFERS] = "differs",
	};

	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : NULL;
}
