/*
 * profiles.c - the built-in cores. Widths and ROB sizes follow the vendors' public figures
 * (pmu-events.md for the slot widths); load latencies and recovery penalties are typical
 * published values, not measured here; override them per run or per instruction.
 */
#include <stdio.h>
#include <string.h>

#include "error_int.h"
#include "model_int.h"

static const struct ipcc_model_profile builtin[] = {
	/* name          W  R  ROB  load rec  alu+jcc cmp+jcc */
	{ "skylake", 4, 4, 224, 5, 16, true, true },
	{ "icelake", 5, 8, 352, 5, 16, true, true },
	{ "zen3", 6, 8, 256, 4, 13, false, true },
	{ "zen4", 6, 8, 320, 4, 13, false, true },
	{ "neoverse-n2", 5, 8, 160, 4, 11, false, false },
	/* For worked examples: W = R = 4, no ROB limit, no fusion. */
	{ "test", 4, 4, 0, 4, 10, false, false },
};

const char *const ipcc_model_profiles[] = { "skylake",	   "icelake", "zen3", "zen4",
					    "neoverse-n2", "test",    NULL };

int ipcc_model_profile(const char *name, struct ipcc_model_profile *p)
{
	for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
		if (strcmp(builtin[i].name, name) == 0) {
			*p = builtin[i];
			return 0;
		}
	return err_set(IPCC_EINVAL, "unknown profile '%s'", name);
}
