/*
 * cpu.c - CPU identification: vendor, family and model to the core's libpfm4 PMU, event
 * table and model profile. One table; model numbers from the vendors' public lists (Intel
 * SDM vol. 4 "Model-Specific Registers" family/model table, AMD's PPRs, Arm's MIDR parts)
 * and from the kernel's arch/x86/include/asm/intel-family.h.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_int.h"
#include "ipcc/cpu.h"
#include "procfs_int.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

/*
 * One core. `pmu` is libpfm4's name for it, which may be newer than the installed libpfm4
 * (4.13 knows neither "emr" nor "amd64_fam1ah_zen5"); `table` is then the closest table it
 * has, for looking names up. `approx` says what is not made for this core; "" when nothing.
 */
struct core {
	enum ipcc_cpu_vendor vendor;
	unsigned family, lo, hi; /* models lo..hi */
	const char *name, *pmu, *table, *profile;
	const char *profile_approx, *table_approx; /* "" when made for this core */
};

#define INTEL(lo, hi, nm, pmu, table, prof, papprox, tapprox)                     \
	{                                                                         \
		IPCC_CPU_INTEL, 6, lo, hi, nm, pmu, table, prof, papprox, tapprox \
	}
#define AMD(fam, lo, hi, nm, pmu, table, prof, papprox, tapprox)                  \
	{                                                                         \
		IPCC_CPU_AMD, fam, lo, hi, nm, pmu, table, prof, papprox, tapprox \
	}
#define ARM(part, nm, pmu, prof, papprox)                                       \
	{                                                                       \
		IPCC_CPU_ARM, 0x41, part, part, nm, pmu, pmu, prof, papprox, "" \
	}

static const char snb_prof[] = "Sandy Bridge to Broadwell modelled as Skylake (also 4 wide)";
static const char glc_ec[] = "the E-cores (Gracemont) are not modelled: P-core figures";
static const char glc_table[] = "libpfm4 4.13 has no Alder/Raptor Lake table: spr's";
static const char mtl_table[] = "libpfm4 4.13 has no Meteor Lake table: spr's";

static const struct core cores[] = {
	INTEL(0x2a, 0x2a, "Sandy Bridge", "snb", "snb", "skylake", snb_prof, ""),
	INTEL(0x2d, 0x2d, "Sandy Bridge-EP", "snb_ep", "snb_ep", "skylake", snb_prof, ""),
	INTEL(0x3a, 0x3a, "Ivy Bridge", "ivb", "ivb", "skylake", snb_prof, ""),
	INTEL(0x3e, 0x3e, "Ivy Bridge-EP", "ivb_ep", "ivb_ep", "skylake", snb_prof, ""),
	INTEL(0x3c, 0x3c, "Haswell", "hsw", "hsw", "skylake", snb_prof, ""),
	INTEL(0x45, 0x46, "Haswell", "hsw", "hsw", "skylake", snb_prof, ""),
	INTEL(0x3f, 0x3f, "Haswell-EP", "hsw_ep", "hsw_ep", "skylake", snb_prof, ""),
	INTEL(0x3d, 0x3d, "Broadwell", "bdw", "bdw", "skylake", snb_prof, ""),
	INTEL(0x47, 0x47, "Broadwell", "bdw", "bdw", "skylake", snb_prof, ""),
	INTEL(0x4f, 0x4f, "Broadwell-EP", "bdw_ep", "bdw_ep", "skylake", snb_prof, ""),
	INTEL(0x56, 0x56, "Broadwell-DE", "bdw_ep", "bdw_ep", "skylake", snb_prof, ""),
	INTEL(0x4e, 0x4e, "Skylake", "skl", "skl", "skylake", "", ""),
	INTEL(0x5e, 0x5e, "Skylake", "skl", "skl", "skylake", "", ""),
	INTEL(0x8e, 0x8e, "Kaby/Coffee/Whiskey Lake (Skylake)", "skl", "skl", "skylake", "", ""),
	INTEL(0x9e, 0x9e, "Kaby/Coffee Lake (Skylake)", "skl", "skl", "skylake", "", ""),
	INTEL(0xa5, 0xa6, "Comet Lake (Skylake)", "skl", "skl", "skylake", "", ""),
	INTEL(0x55, 0x55, "Skylake-SP/Cascade Lake", "skx", "skx", "skylake", "", ""),
	INTEL(0x7d, 0x7e, "Ice Lake (Sunny Cove)", "icl", "icl", "icelake", "", ""),
	INTEL(0x6a, 0x6a, "Ice Lake-SP (Sunny Cove)", "icx", "icx", "icelake", "", ""),
	INTEL(0x6c, 0x6c, "Ice Lake-D (Sunny Cove)", "icx", "icx", "icelake", "", ""),
	INTEL(0x8c, 0x8d, "Tiger Lake (Willow Cove)", "tgl", "icl", "icelake",
	      "Willow Cove modelled as Sunny Cove", "libpfm4 4.13 has no tgl table: icl's"),
	INTEL(0xa7, 0xa7, "Rocket Lake (Cypress Cove)", "rkl", "icl", "icelake", "",
	      "libpfm4 4.13 has no rkl table: icl's"),
	INTEL(0x8f, 0x8f, "Sapphire Rapids (Golden Cove)", "spr", "spr", "goldencove", "", ""),
	INTEL(0xcf, 0xcf, "Emerald Rapids (Raptor Cove)", "emr", "spr", "raptorcove", "",
	      "libpfm4 4.13 has no emr table: spr's (same core events)"),
	INTEL(0xad, 0xae, "Granite Rapids (Redwood Cove)", "gnr", "spr", "goldencove",
	      "Redwood Cove modelled as Golden Cove", "libpfm4 4.13 has no gnr table: spr's"),
	INTEL(0x97, 0x97, "Alder Lake (Golden Cove + Gracemont)", "adl_glc", "spr", "goldencove",
	      glc_ec, glc_table),
	INTEL(0x9a, 0x9a, "Alder Lake (Golden Cove + Gracemont)", "adl_glc", "spr", "goldencove",
	      glc_ec, glc_table),
	INTEL(0xb7, 0xb7, "Raptor Lake (Raptor Cove + Gracemont)", "rpl_glc", "spr", "goldencove",
	      glc_ec, glc_table),
	INTEL(0xba, 0xba, "Raptor Lake (Raptor Cove + Gracemont)", "rpl_glc", "spr", "goldencove",
	      glc_ec, glc_table),
	INTEL(0xbf, 0xbf, "Raptor Lake (Raptor Cove + Gracemont)", "rpl_glc", "spr", "goldencove",
	      glc_ec, glc_table),
	INTEL(0xaa, 0xaa, "Meteor Lake (Redwood Cove + Crestmont)", "mtl_rwc", "spr", "goldencove",
	      "Redwood Cove modelled as Golden Cove; E-cores not modelled", mtl_table),
	INTEL(0xac, 0xac, "Meteor Lake (Redwood Cove + Crestmont)", "mtl_rwc", "spr", "goldencove",
	      "Redwood Cove modelled as Golden Cove; E-cores not modelled", mtl_table),
	INTEL(0xbe, 0xbe, "Alder Lake-N (Gracemont)", "adl_grt", "tmt", "skylake",
	      "Gracemont modelled as Skylake", "libpfm4 4.13 has no adl_grt table: tmt's"),
	INTEL(0xaf, 0xaf, "Sierra Forest (Crestmont)", "adl_grt", "tmt", "skylake",
	      "Crestmont modelled as Skylake", "libpfm4 4.13 has no Crestmont table: tmt's"),
	AMD(0x17, 0x00, 0x2f, "Zen", "amd64_fam17h_zen1", "amd64_fam17h_zen1", "zen3",
	    "Zen modelled as Zen 3", ""),
	AMD(0x17, 0x30, 0xff, "Zen 2", "amd64_fam17h_zen2", "amd64_fam17h_zen2", "zen3",
	    "Zen 2 modelled as Zen 3", ""),
	AMD(0x19, 0x10, 0x1f, "Zen 4", "amd64_fam19h_zen4", "amd64_fam19h_zen4", "zen4", "", ""),
	AMD(0x19, 0x60, 0x7f, "Zen 4", "amd64_fam19h_zen4", "amd64_fam19h_zen4", "zen4", "", ""),
	AMD(0x19, 0xa0, 0xaf, "Zen 4", "amd64_fam19h_zen4", "amd64_fam19h_zen4", "zen4", "", ""),
	AMD(0x19, 0x00, 0xff, "Zen 3", "amd64_fam19h_zen3", "amd64_fam19h_zen3", "zen3", "", ""),
	AMD(0x1a, 0x00, 0xff, "Zen 5", "amd64_fam1ah_zen5", "amd64_fam19h_zen4", "zen5", "",
	    "libpfm4 4.13 has no Zen 5 table: Zen 4's"),
	ARM(0xd0c, "Neoverse N1", "arm_n1", "neoverse-n2", "Neoverse N1 modelled as N2"),
	ARM(0xd40, "Neoverse V1", "arm_v1", "neoverse-n2", "Neoverse V1 modelled as N2"),
	ARM(0xd49, "Neoverse N2", "arm_n2", "neoverse-n2", ""),
	ARM(0xd4f, "Neoverse V2", "arm_v2", "neoverse-n2", "Neoverse V2 modelled as N2"),
	ARM(0xd8e, "Neoverse N3", "arm_n3", "neoverse-n2", "Neoverse N3 modelled as N2"),
	ARM(0xd84, "Neoverse V3", "arm_v3", "neoverse-n2", "Neoverse V3 modelled as N2"),
};

/*
 * A hypervisor may report a model number that is not the core's: a guest on a server with
 * AMX, avx512_fp16 and a 480 MiB L3 was told Rocket Lake (model 0xa7), a client core with
 * none of these. AMX tiles came with Sapphire Rapids (Golden Cove) and are on every server
 * core since; an Intel core that has them is modelled as Golden Cove whatever its model
 * number says, unless that number names Golden Cove or a later core of its own profile
 * (Emerald Rapids' Raptor Cove: a guest that shows its AMX was modelled as Golden Cove
 * until stop 52). The PMU and its table stay the model number's: the kernel and libpfm4
 * choose by it too.
 */
static void amx_core(struct ipcc_cpu *c)
{
	char was[48];

	if (c->vendor != IPCC_CPU_INTEL || c->family != 6 || !c->amx ||
	    !strcmp(c->profile, "goldencove") || !strcmp(c->profile, "raptorcove"))
		return;
	snprintf(was, sizeof(was), "%s", *c->name ? c->name : "a model the table lacks");
	snprintf(c->name, sizeof(c->name), "a core with AMX, reported as model %#x", c->model);
	snprintf(c->profile, sizeof(c->profile), "goldencove");
	snprintf(c->profile_approx, sizeof(c->profile_approx),
		 "model %#x says %.30s; AMX says Golden Cove or later", c->model, was);
}

void ipcc_cpu_lookup(struct ipcc_cpu *c)
{
	c->name[0] = c->pmu[0] = c->pfm_table[0] = c->profile[0] = '\0';
	c->profile_approx[0] = c->table_approx[0] = '\0';
	for (size_t i = 0; i < sizeof(cores) / sizeof(cores[0]); i++) {
		const struct core *k = &cores[i];

		if (k->vendor != c->vendor || k->family != c->family || c->model < k->lo ||
		    c->model > k->hi)
			continue;
		snprintf(c->name, sizeof(c->name), "%s", k->name);
		snprintf(c->pmu, sizeof(c->pmu), "%s", k->pmu);
		snprintf(c->pfm_table, sizeof(c->pfm_table), "%s", k->table);
		snprintf(c->profile, sizeof(c->profile), "%s", k->profile);
		snprintf(c->profile_approx, sizeof(c->profile_approx), "%s", k->profile_approx);
		snprintf(c->table_approx, sizeof(c->table_approx), "%s", k->table_approx);
		break;
	}
	amx_core(c);
}

void ipcc_cpu_describe(const struct ipcc_cpu *c, char *buf, size_t len)
{
	static const char *const vendors[] = { "unknown vendor", "Intel", "AMD", "Arm" };

	if (c->vendor == IPCC_CPU_ARM)
		snprintf(buf, len, "Arm part %#x", c->model);
	else
		snprintf(buf, len, "%s family %#x model %#x", vendors[c->vendor], c->family,
			 c->model);
	if (*c->name) {
		size_t n = strlen(buf);

		snprintf(buf + n, len - n, " (%s)", c->name);
	}
}

/* From /proc/cpuinfo (or IPCC_PROC_CPUINFO): x86's vendor_id, or Arm's CPU implementer. */
static int from_cpuinfo(struct ipcc_cpu *c)
{
	char vendor[64] = "", family[32] = "", model[32] = "", flags[4096] = "";

	if (procfs_cpuinfo_field("vendor_id", vendor, sizeof(vendor)) == 0) {
		c->vendor = !strcmp(vendor, "GenuineIntel")   ? IPCC_CPU_INTEL
			    : !strcmp(vendor, "AuthenticAMD") ? IPCC_CPU_AMD
							      : IPCC_CPU_OTHER;
		procfs_cpuinfo_field("cpu family", family, sizeof(family));
		procfs_cpuinfo_field("model", model, sizeof(model));
		if (procfs_cpuinfo_field("flags", flags, sizeof(flags)) == 0)
			c->amx = procfs_has_word(flags, "amx_tile");
	} else if (procfs_cpuinfo_field("CPU implementer", family, sizeof(family)) == 0) {
		c->vendor = IPCC_CPU_ARM;
		procfs_cpuinfo_field("CPU part", model, sizeof(model));
	} else {
		char why[160];

		snprintf(why, sizeof(why), "%s", ipcc_last_error());
		return err_set(IPCC_ENOTSUP, "cannot tell the CPU: %s", why);
	}
	/* x86 prints decimal, Arm hexadecimal with 0x: base 0 reads both. */
	c->family = (unsigned)strtoul(family, NULL, 0);
	c->model = (unsigned)strtoul(model, NULL, 0);
	return 0;
}

#if defined(__x86_64__)
/* CPUID leaves 0 and 1: two instructions, where /proc/cpuinfo would cost a file's worth. */
static int from_cpuid(struct ipcc_cpu *c)
{
	unsigned a, b, cx, d, base;
	char vendor[13];

	if (!__get_cpuid(0, &a, &b, &cx, &d))
		return err_set(IPCC_ENOTSUP, "no CPUID");
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &cx, 4);
	vendor[12] = '\0';
	c->vendor = !strcmp(vendor, "GenuineIntel")   ? IPCC_CPU_INTEL
		    : !strcmp(vendor, "AuthenticAMD") ? IPCC_CPU_AMD
						      : IPCC_CPU_OTHER;
	__cpuid(1, a, b, cx, d);
	base = (a >> 8) & 0xf;
	c->family = base == 0xf ? base + ((a >> 20) & 0xff) : base;
	c->model = (a >> 4) & 0xf;
	if (base == 0x6 || base == 0xf)
		c->model |= ((a >> 16) & 0xf) << 4;
	if (__get_cpuid_max(0, NULL) >= 7) {
		__cpuid_count(7, 0, a, b, cx, d);
		c->amx = (d >> 24) & 1; /* AMX-TILE */
	}
	return 0;
}
#endif

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct ipcc_cpu this_cpu;
static int this_ret;

static void identify_once(void)
{
#if defined(__x86_64__)
	this_ret = from_cpuid(&this_cpu);
#else
	this_ret = from_cpuinfo(&this_cpu);
#endif
	if (!this_ret)
		ipcc_cpu_lookup(&this_cpu);
}

int ipcc_cpu_identify(struct ipcc_cpu *out)
{
	const char *file = getenv("IPCC_PROC_CPUINFO");
	int ret;

	memset(out, 0, sizeof(*out));
	if (file && *file) {
		ret = from_cpuinfo(out);
		if (!ret)
			ipcc_cpu_lookup(out);
		return ret;
	}
	pthread_once(&once, identify_once);
	*out = this_cpu;
	return this_ret ? err_set(this_ret, "cannot tell the CPU") : 0;
}
