/*
 * profiles.c - the built-in cores. Widths and ROB sizes follow the vendors' public figures
 * (pmu-events.md for the slot widths); load latencies and recovery penalties are typical
 * published values, not measured here; override them per run or per instruction.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_int.h"
#include "model_int.h"
#include "procfs_int.h"

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

/*
 * The built-in profile closest to this CPU, from /proc/cpuinfo: AMD family 19h models
 * 10h-1Fh, 60h-7Fh and A0h on, and family 1Ah, are Zen 4 or later (zen4), the rest of 19h
 * Zen 3; Intel from Ice Lake (models 6Ah, 6Ch, 7Dh, 7Eh, 8Ch on) icelake, earlier skylake;
 * Arm neoverse-n2.
 */
static const char *detect(void)
{
	char vendor[64] = "", family[16] = "", model[16] = "";
	long fam, mod;

	if (procfs_cpuinfo_field("vendor_id", vendor, sizeof(vendor)) != 0)
		return procfs_cpuinfo_field("CPU implementer", vendor, sizeof(vendor)) == 0
			   ? "neoverse-n2"
			   : NULL;
	procfs_cpuinfo_field("cpu family", family, sizeof(family));
	procfs_cpuinfo_field("model", model, sizeof(model));
	fam = strtol(family, NULL, 10);
	mod = strtol(model, NULL, 10);
	if (!strcmp(vendor, "AuthenticAMD")) {
		if (fam == 0x1a || (fam == 0x19 && ((mod >= 0x10 && mod <= 0x1f) ||
						    (mod >= 0x60 && mod <= 0x7f) || mod >= 0xa0)))
			return "zen4";
		return fam == 0x19 ? "zen3" : NULL;
	}
	if (!strcmp(vendor, "GenuineIntel") && fam == 6)
		return mod == 0x6a || mod == 0x6c || mod == 0x7d || mod == 0x7e || mod >= 0x8c
			   ? "icelake"
			   : "skylake";
	return NULL;
}

int ipcc_model_profile(const char *name, struct ipcc_model_profile *p)
{
	if (!strcmp(name, "auto")) {
		const char *found = detect();

		if (!found)
			return err_set(IPCC_ENOTSUP,
				       "no built-in profile for this CPU: name one with --profile");
		name = found;
	}
	for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
		if (strcmp(builtin[i].name, name) == 0) {
			*p = builtin[i];
			return 0;
		}
	return err_set(IPCC_EINVAL, "unknown profile '%s'", name);
}
