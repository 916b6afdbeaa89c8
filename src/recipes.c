/*
 * recipes.c - the recipe table and the arithmetic that turns event counts into the four
 * slot counters. Sources for every event and formula: shared/docs/pmu-events.md, sections
 * 1-4 and the summary table in section 6.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_int.h"
#include "ipcc/recipes.h"
#include "pmu_int.h"
#include "procfs_int.h"
#include "recipes_int.h"

#define T(s, c)          \
	{                \
		(s), (c) \
	}
#define SUM1(a)           \
	{                 \
		1,        \
		{         \
			a \
		}         \
	}
#define SUM2(a, b)           \
	{                    \
		2,           \
		{            \
			a, b \
		}            \
	}
#define SUM3(a, b, c)           \
	{                       \
		3,              \
		{               \
			a, b, c \
		}               \
	}
#define NONE                         \
	{                            \
		0,                   \
		{                    \
			{            \
				0, 0 \
			}            \
		}                    \
	}

/* Intel before Ice Lake: TMA level 1 exactly (pmu-events.md section 1). */
#define INTEL_SNB_SKL_SLOTS(cyc, fe, issued, retired, recovery)            \
	{                                                                  \
		[SLOT_TOTAL] = SUM1(T(cyc, RECIPE_W)),                     \
		[SLOT_FILLED] = SUM2(T(SRC_TOTAL, 1), T(fe, -1)),          \
		[SLOT_ISSUED] = SUM2(T(issued, 1), T(recovery, RECIPE_W)), \
		[SLOT_RETIRED] = SUM1(T(retired, 1)), [SLOT_SMT] = NONE,   \
	}

/*
 * Other names of the events, so that counts perf stat wrote with its own names (perf's JSON
 * event names, its generic and sysfs aliases) are taken as the recipe's events. Aliases
 * that perf scales (topdown-total-slots, topdown-recovery-bubbles) are not the same count
 * and are left out.
 */
#define INTEL_CYCLES	   "CPU_CLK_UNHALTED.THREAD CPU_CLK_UNHALTED.THREAD_P cycles cpu-cycles"
#define INTEL_INSTRUCTIONS "INST_RETIRED.ANY INST_RETIRED.ANY_P instructions"
#define INTEL_REF_CYCLES   "CPU_CLK_UNHALTED.REF_TSC ref-cycles"
#define AMD_CYCLES	   "ls_not_halted_cyc cycles cpu-cycles"
#define AMD_INSTRUCTIONS   "ex_ret_instr instructions"
#define ARM_CYCLES	   "cycles cpu-cycles"
#define ARM_INSTRUCTIONS   "instructions"

/* AMD Zen 4 and Zen 5: the same events (perf's PipelineL1), different widths. */
#define ZEN45_EVENTS_AND_SLOTS \
	.ev = { { "CYCLES_NOT_IN_HALT", 0x76, AMD_CYCLES },                                        \
		{ "RETIRED_INSTRUCTIONS", 0xc0, AMD_INSTRUCTIONS },                                \
		{ "DISPATCH_STALLS_1:FE_NO_OPS", 0x1000001a0,                                      \
		  "de_no_dispatch_per_slot.no_ops_from_frontend" },                                \
		{ "DISPATCH_STALLS_1:SMT_CONTENTION", 0x1000060a0,                                 \
		  "de_no_dispatch_per_slot.smt_contention" },                                      \
		{ "OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER", 0x7aa,         \
		  "de_src_op_disp.all" },                                                          \
		{ "RETIRED_OPS", 0xc1, "ex_ret_ops" } },                                           \
	.nev = 6, .instructions = 1, .cycles = 0, .ref_cycles = -1,                               \
	.no_ref_cycles = "AMD cores have no constant-rate reference-cycle event",                  \
	.slot = {                                                                                  \
		[SLOT_TOTAL] = SUM1(T(0, RECIPE_W)),                                               \
		[SLOT_FILLED] = SUM2(T(SRC_TOTAL, 1), T(2, -1)),                                   \
		[SLOT_ISSUED] = SUM1(T(4, 1)),                                                     \
		[SLOT_RETIRED] = SUM1(T(5, 1)),                                                    \
		[SLOT_SMT] = SUM1(T(3, 1)),                                                        \
	},                                                                                         \
	.op_retired = -1, .op_spec = -1

/* AMD Zen 2 and Zen 3: cycles, instructions, op-queue-empty cycles, dispatched, retired. */
#define ZEN23_SLOTS \
	.nev = 5, .instructions = 1, .cycles = 0, .ref_cycles = -1,                               \
	.no_ref_cycles = "AMD cores have no constant-rate reference-cycle event",                  \
	.slot = {                                                                                  \
		[SLOT_TOTAL] = SUM1(T(0, RECIPE_W)),                                               \
		[SLOT_FILLED] = SUM2(T(SRC_TOTAL, 1), T(2, RECIPE_MINUS_W)),                       \
		[SLOT_ISSUED] = SUM1(T(3, 1)),                                                     \
		[SLOT_RETIRED] = SUM1(T(4, 1)),                                                    \
		[SLOT_SMT] = NONE,                                                                 \
	},                                                                                         \
	.op_retired = -1, .op_spec = -1,                                                           \
	.approximation = "Zen 2 and Zen 3 have no slot stall events: front-end stall is 6 slots "  \
			 "per cycle with the op queue empty, back-end stall is the residual (and " \
			 "holds SMT effects); not AMD's method",                                   \
	.differs_from_kernel = "the kernel defines no top-down level 1 for Zen 2 and Zen 3 "       \
			       "(no PipelineL1 metrics): there is nothing to agree with"

/* Arm Neoverse PMUv3 with the slot events (perf's sbsa.json). */
#define NEOVERSE_EVENTS_6                                                               \
	{ "CPU_CYCLES", 0x11, ARM_CYCLES }, { "INST_RETIRED", 0x08, ARM_INSTRUCTIONS }, \
	    { "STALL_SLOT_FRONTEND", 0x3e, NULL }, { "STALL_SLOT", 0x3f, NULL },        \
	    { "OP_RETIRED", 0x3a, NULL },                                               \
	{                                                                               \
		"OP_SPEC", 0x3b, NULL                                                   \
	}
#define NEOVERSE_EVENTS                                                                          \
	.ev = { NEOVERSE_EVENTS_6 }, .nev = 6, .instructions = 1, .cycles = 0, .ref_cycles = -1, \
	.no_ref_cycles = "Arm PMUv3 has no constant-rate reference-cycle event"

/*
 * Neoverse V1, N3 and V3: the kernel's own level 1 (arm64/arm/neoverse-{v1,n3,v3}/
 * metrics.json) moves a penalty, ev[6] x k per cycle, from front-end stall to bad
 * speculation: V1 4 x BR_MIS_PRED, N3 and V3 STALL_FRONTEND_FLUSH; and it fixes the width
 * (V1 8, N3 5, V3 10). Filled and issued both gain the penalty's slots; retired is the
 * unstalled slots (total - STALL_SLOT) split by OP_RETIRED / OP_SPEC, as in sbsa.json.
 */
#define NEOVERSE_MOVED(w, penalty, config, k) \
	.width = (w), .ev = { NEOVERSE_EVENTS_6, { penalty, config, NULL } }, .nev = 7,           \
	.instructions = 1, .cycles = 0, .ref_cycles = -1,                                          \
	.no_ref_cycles = "Arm PMUv3 has no constant-rate reference-cycle event",                   \
	.slot = {                                                                                  \
		[SLOT_TOTAL] = SUM1(T(0, RECIPE_W)),                                               \
		[SLOT_FILLED] = SUM3(T(SRC_TOTAL, 1), T(2, -1), T(6, (k)*RECIPE_W)),               \
		[SLOT_ISSUED] = SUM3(T(SRC_TOTAL, 1), T(3, -1), T(6, (k)*RECIPE_W)),               \
		[SLOT_RETIRED] = SUM2(T(SRC_TOTAL, 1), T(3, -1)),                                  \
		[SLOT_SMT] = NONE,                                                                 \
	},                                                                                         \
	.op_retired = 4, .op_spec = 5

/*
 * Their events; INT_MISC.RECOVERY_CYCLES is umask 3, cmask 1 before Skylake, umask 1 since.
 * `cycles_ev` and `recovery_ev` are the per-thread events, or (SMT variant) the AnyThread ones.
 */
#define INTEL_SNB_SKL_EVENTS(cycles_ev, recovery_ev)                               \
	.width = 4,                                                                \
	.ev = { cycles_ev,                                                         \
		{ "INSTRUCTION_RETIRED", 0xc0, INTEL_INSTRUCTIONS },               \
		{ "UNHALTED_REFERENCE_CYCLES", 0x300, INTEL_REF_CYCLES },          \
		{ "IDQ_UOPS_NOT_DELIVERED:CORE", 0x19c, "topdown-fetch-bubbles" }, \
		{ "UOPS_ISSUED:ANY", 0x10e, "topdown-slots-issued" },              \
		{ "UOPS_RETIRED:RETIRE_SLOTS", 0x2c2, "topdown-slots-retired" },   \
		recovery_ev },                                                     \
	.nev = 7, .instructions = 1, .cycles = 0, .ref_cycles = 2, .op_retired = -1, .op_spec = -1
#define EV_CYCLES                                          \
	{                                                  \
		"UNHALTED_CORE_CYCLES", 0x3c, INTEL_CYCLES \
	}
#define EV_CYCLES_ANY                                                               \
	{                                                                           \
		"UNHALTED_CORE_CYCLES:t=1", 0x20003c, "CPU_CLK_UNHALTED.THREAD_ANY" \
	}
#define EV_RECOVERY(config)                                \
	{                                                  \
		"INT_MISC:RECOVERY_CYCLES", (config), NULL \
	}
#define EV_RECOVERY_ANY(config)                                                          \
	{                                                                                \
		"INT_MISC:RECOVERY_CYCLES_ANY", (config), "INT_MISC.RECOVERY_CYCLES_ANY" \
	}
#define INTEL_SNB_SKL(recovery_config)                                 \
	INTEL_SNB_SKL_EVENTS(EV_CYCLES, EV_RECOVERY(recovery_config)), \
	    .slot = INTEL_SNB_SKL_SLOTS(0, 3, 4, 5, 6)

/*
 * SMT on: the kernel counts slots per physical core, 4 x CPU_CLK_UNHALTED.THREAD_ANY / 2,
 * and recovery as INT_MISC.RECOVERY_CYCLES_ANY / 2 (skylake/skl-metrics.json,
 * tma_info_core_core_clks and tma_bad_speculation). Four general-purpose counters per
 * thread with SMT on cannot hold a per-thread cycles event beside these, so the cycles
 * counter is CPU_CLK_UNHALTED.THREAD_ANY (fixed counter 1 with AnyThread).
 */
#define INTEL_SNB_SKL_SMT(recovery_any_config)                                               \
	INTEL_SNB_SKL_EVENTS(EV_CYCLES_ANY, EV_RECOVERY_ANY(recovery_any_config)), .slot = { \
		[SLOT_TOTAL] = SUM1(T(0, 2)),                                                \
		[SLOT_FILLED] = SUM2(T(SRC_TOTAL, 1), T(3, -1)),                             \
		[SLOT_ISSUED] = SUM2(T(4, 1), T(6, 2)),                                      \
		[SLOT_RETIRED] = SUM1(T(5, 1)),                                              \
		[SLOT_SMT] = NONE,                                                           \
	}

const struct recipe recipes[] = {
	{
		.name = "intel-snb",
		.desc = "Intel Sandy Bridge to Broadwell (slots per thread)",
		.pmus = "snb snb_ep ivb ivb_ep hsw hsw_ep bdw bdw_ep",
		INTEL_SNB_SKL(0x100030d),
		.smt_variant = "intel-snb-smt",
	},
	{
		.name = "intel-snb-smt",
		.desc = "Intel Sandy Bridge to Broadwell, SMT on (slots per physical core, as the "
			"kernel counts them)",
		.pmus = "",
		INTEL_SNB_SKL_SMT(0x120030d),
	},
	{
		.name = "intel-skl",
		.desc = "Intel Skylake to Cascade Lake (slots per thread)",
		.pmus = "skl skx clx",
		INTEL_SNB_SKL(0x10d),
		.smt_variant = "intel-skl-smt",
	},
	{
		.name = "intel-skl-smt",
		.desc = "Intel Skylake to Cascade Lake, SMT on (slots per physical core, as the "
			"kernel counts them)",
		.pmus = "",
		INTEL_SNB_SKL_SMT(0x20010d),
	},
	{
		/* General-purpose path B; the PERF_METRICS path is not implemented. */
		.name = "intel-icl",
		.desc = "Intel Ice Lake and Tiger Lake (general-purpose counters)",
		.pmus = "icl icx tgl rkl",
		.width = 5,
		.ev = { EV_CYCLES,
			{ "INSTRUCTION_RETIRED", 0xc0, INTEL_INSTRUCTIONS },
			{ "UNHALTED_REFERENCE_CYCLES", 0x300, INTEL_REF_CYCLES },
			{ "TOPDOWN:SLOTS", 0x400, "slots TOPDOWN.SLOTS_P" },
			{ "IDQ_UOPS_NOT_DELIVERED:CORE", 0x19c, NULL },
			{ "INT_MISC:UOP_DROPPING", 0x100d, NULL },
			{ "TOPDOWN:BACKEND_BOUND_SLOTS", 0x2a4, NULL },
			{ "INT_MISC:CLEARS_COUNT", 0x104010d, NULL },
			{ "UOPS_RETIRED:SLOTS", 0x2c2, NULL } },
		.nev = 9,
		.instructions = 1, .cycles = 0, .ref_cycles = 2,
		.slot = {
			[SLOT_TOTAL] = SUM1(T(3, 1)),
			[SLOT_FILLED] = SUM3(T(SRC_TOTAL, 1), T(4, -1), T(5, 1)),
			[SLOT_ISSUED] = SUM3(T(SRC_FILLED, 1), T(6, -1), T(7, -5)),
			[SLOT_RETIRED] = SUM1(T(8, 1)),
			[SLOT_SMT] = NONE,
		},
		.op_retired = -1, .op_spec = -1,
	},
	{
		.name = "intel-spr",
		.desc = "Intel Sapphire Rapids, Alder Lake P-cores and later (general-purpose "
			"counters)",
		.pmus = "spr emr gnr adl_glc rpl_glc",
		.width = 6,
		.ev = { EV_CYCLES,
			{ "INSTRUCTION_RETIRED", 0xc0, INTEL_INSTRUCTIONS },
			{ "UNHALTED_REFERENCE_CYCLES", 0x300, INTEL_REF_CYCLES },
			{ "TOPDOWN:SLOTS", 0x400, "slots TOPDOWN.SLOTS_P" },
			{ "IDQ_UOPS_NOT_DELIVERED:CORE", 0x19c, "IDQ_BUBBLES.CORE" },
			{ "INT_MISC:UOP_DROPPING", 0x10ad, NULL },
			{ "TOPDOWN:BACKEND_BOUND_SLOTS", 0x2a4, NULL },
			{ "UOPS_RETIRED:SLOTS", 0x2c2, NULL } },
		.nev = 8,
		.instructions = 1, .cycles = 0, .ref_cycles = 2,
		.slot = {
			[SLOT_TOTAL] = SUM1(T(3, 1)),
			[SLOT_FILLED] = SUM3(T(SRC_TOTAL, 1), T(4, -1), T(5, 1)),
			[SLOT_ISSUED] = SUM2(T(SRC_FILLED, 1), T(6, -1)),
			[SLOT_RETIRED] = SUM1(T(7, 1)),
			[SLOT_SMT] = NONE,
		},
		.op_retired = -1, .op_spec = -1,
	},
	{
		/* Event names after intel/perfmon; libpfm4 4.13 has no adl_grt PMU to check them. */
		.name = "intel-gracemont",
		.desc = "Intel Gracemont E-cores",
		.pmus = "adl_grt",
		.width = 5,
		.ev = { { "CPU_CLK_UNHALTED:CORE", 0x3c, "cycles cpu-cycles" },
			{ "INST_RETIRED:ANY_P", 0xc0, "INST_RETIRED.ANY instructions" },
			{ "CPU_CLK_UNHALTED:REF_TSC_P", 0x13c, INTEL_REF_CYCLES },
			{ "TOPDOWN_FE_BOUND:ALL", 0x71, NULL },
			{ "TOPDOWN_BE_BOUND:ALL", 0x74, NULL },
			{ "TOPDOWN_RETIRING:ALL", 0xc2, NULL } },
		.nev = 6,
		.instructions = 1, .cycles = 0, .ref_cycles = 2,
		.slot = {
			[SLOT_TOTAL] = SUM1(T(0, RECIPE_W)),
			[SLOT_FILLED] = SUM2(T(SRC_TOTAL, 1), T(3, -1)),
			[SLOT_ISSUED] = SUM2(T(SRC_FILLED, 1), T(4, -1)),
			[SLOT_RETIRED] = SUM1(T(5, 1)),
			[SLOT_SMT] = NONE,
		},
		.op_retired = -1, .op_spec = -1,
	},
	{
		/*
		 * perf's PipelineL1. Six counters: back-end stall slots are the residual
		 * filled - issued, and the SMT sibling's share of it is reported beside.
		 */
		.name = "amd-zen4",
		.desc = "AMD Zen 4",
		.pmus = "amd64_fam19h_zen4",
		.width = 6,
		ZEN45_EVENTS_AND_SLOTS,
	},
	{
		.name = "amd-zen5",
		.desc = "AMD Zen 5",
		.pmus = "amd64_fam1ah_zen5",
		.width = 8,
		ZEN45_EVENTS_AND_SLOTS,
	},
	{
		.name = "amd-zen3",
		.desc = "AMD Zen 3",
		.pmus = "amd64_fam19h_zen3",
		.width = 6,
		.ev = { { "CYCLES_NOT_IN_HALT", 0x76, AMD_CYCLES },
			{ "RETIRED_INSTRUCTIONS", 0xc0, AMD_INSTRUCTIONS },
			{ "UOPS_QUEUE_EMPTY", 0xa9, "de_dis_uop_queue_empty_di0" },
			{ "OPS_SOURCE_DISPATCHED_FROM_DECODER:X86DECODER_DISPATCHED:OPCACHE_DISPATCHED",
			  0x3aa, NULL },
			{ "RETIRED_OPS", 0xc1, "ex_ret_ops" } },
		ZEN23_SLOTS,
	},
	{
		.name = "amd-zen2",
		.desc = "AMD Zen 2",
		.pmus = "amd64_fam17h_zen2",
		.width = 6,
		.ev = { { "CYCLES_NOT_IN_HALT", 0x76, AMD_CYCLES },
			{ "RETIRED_INSTRUCTIONS", 0xc0, AMD_INSTRUCTIONS },
			{ "UOPS_QUEUE_EMPTY", 0xa9, "de_dis_uop_queue_empty_di0" },
			{ "UOPS_DISPATCHED_FROM_DECODER:DECODER_DISPATCHED:OPCACHE_DISPATCHED", 0x3aa,
			  "de_dis_uops_from_decoder.decoder_dispatched+"
			  "de_dis_uops_from_decoder.opcache_dispatched" },
			{ "RETIRED_UOPS", 0xc1, "ex_ret_cops" } },
		ZEN23_SLOTS,
	},
	{
		/* perf's sbsa.json TopdownL1; the width is PMMIR_EL1.SLOTS (sysfs caps/slots). */
		.name = "arm-neoverse",
		.desc = "Arm Neoverse V2 (sbsa.json's level 1)",
		.pmus = "arm_v2",
		.width = 0,
		NEOVERSE_EVENTS,
		.slot = {
			[SLOT_TOTAL] = SUM1(T(0, RECIPE_W)),
			[SLOT_FILLED] = SUM2(T(SRC_TOTAL, 1), T(2, -1)),
			[SLOT_ISSUED] = SUM2(T(SRC_TOTAL, 1), T(3, -1)),
			[SLOT_RETIRED] = NONE,
			[SLOT_SMT] = NONE,
		},
		.op_retired = 4, .op_spec = 5,
	},
	{
		/* As above, with the N2 override: STALL_SLOT* also count one slot per cycle. */
		.name = "arm-neoverse-n2",
		.desc = "Arm Neoverse N2",
		.pmus = "arm_n2",
		.width = 0,
		NEOVERSE_EVENTS,
		.slot = {
			[SLOT_TOTAL] = SUM1(T(0, RECIPE_W)),
			[SLOT_FILLED] = SUM3(T(SRC_TOTAL, 1), T(2, -1), T(0, 1)),
			[SLOT_ISSUED] = SUM3(T(SRC_TOTAL, 1), T(3, -1), T(0, 1)),
			[SLOT_RETIRED] = NONE,
			[SLOT_SMT] = NONE,
		},
		.op_retired = 4, .op_spec = 5,
	},
	{
		/* 4 x BR_MIS_PRED per cycle moved from front-end stall to bad speculation. */
		.name = "arm-neoverse-v1",
		.desc = "Arm Neoverse V1",
		.pmus = "arm_v1",
		NEOVERSE_MOVED(8, "BR_MIS_PRED", 0x10, 4),
	},
	{
		/* STALL_FRONTEND_FLUSH cycles moved from front-end stall to bad speculation. */
		.name = "arm-neoverse-n3",
		.desc = "Arm Neoverse N3",
		.pmus = "arm_n3",
		NEOVERSE_MOVED(5, "STALL_FRONTEND_FLUSH", 0x8162, 1),
	},
	{
		.name = "arm-neoverse-v3",
		.desc = "Arm Neoverse V3",
		.pmus = "arm_v3",
		NEOVERSE_MOVED(10, "STALL_FRONTEND_FLUSH", 0x8162, 1),
	},
	{
		/* Any other CPU: the kernel's generic events, and no slot counters. */
		.name = "generic",
		.desc = "any CPU: the kernel's generic instructions and cycles events",
		.pmus = "",
		.width = 0,
		.ev = { { "perf::PERF_COUNT_HW_CPU_CYCLES", 0, "cycles cpu-cycles" },
			{ "perf::PERF_COUNT_HW_INSTRUCTIONS", 0, "instructions" },
			{ "perf::PERF_COUNT_HW_REF_CPU_CYCLES", 0, "ref-cycles" } },
		.nev = 3,
		.instructions = 1, .cycles = 0, .ref_cycles = 2,
		.slot = { NONE, NONE, NONE, NONE, NONE },
		.op_retired = -1, .op_spec = -1,
	},
};

const unsigned nrecipes = sizeof(recipes) / sizeof(recipes[0]);

/* Where a test points IPCC_SYSFS_ROOT, or "". */
static const char *sysfs_root(void)
{
	const char *r = getenv("IPCC_SYSFS_ROOT");

	return r ? r : "";
}

int recipe_smt_active(void)
{
	char path[512];
	int active = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/smt/active", sysfs_root());
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &active) != 1)
		active = -1;
	fclose(f);
	return active < 0 ? -1 : active != 0;
}

const struct recipe *recipe_for_smt(const struct recipe *r)
{
	/* AnyThread events need perf_event_paranoid <= 0 (or CAP_PERFMON). */
	if (r && r->smt_variant && recipe_smt_active() == 1 && pmu_paranoid() <= 0)
		return recipe_by_name(r->smt_variant);
	return r;
}

const struct recipe *recipe_for_pmu(const char *pmu)
{
	for (unsigned i = 0; i < nrecipes; i++)
		if (*pmu && procfs_has_word(recipes[i].pmus, pmu))
			return recipe_for_smt(&recipes[i]);
	return NULL;
}

const struct recipe *recipe_by_name(const char *name)
{
	for (unsigned i = 0; i < nrecipes; i++)
		if (strcmp(recipes[i].name, name) == 0)
			return &recipes[i];
	return NULL;
}

const char *recipe_kernel_difference(const struct recipe *r)
{
	if (!r)
		return NULL;
	if (r->differs_from_kernel)
		return r->differs_from_kernel;
	if (r->smt_variant && recipe_smt_active() == 1)
		return "SMT is on: these slots are per thread, while the kernel counts them per "
		       "physical core with AnyThread events (recipe -smt), which need "
		       "perf_event_paranoid <= 0";
	return NULL;
}

/* The public handle is the table entry itself, opaque outside this file. */
const struct ipcc_recipe *ipcc_recipe_by_name(const char *name)
{
	return (const struct ipcc_recipe *)(const void *)recipe_by_name(name);
}

static const struct recipe *from_handle(const struct ipcc_recipe *h)
{
	return (const struct recipe *)(const void *)h;
}

const char *ipcc_recipe_get_name(const struct ipcc_recipe *r)
{
	return r ? from_handle(r)->name : NULL;
}

const char *ipcc_recipe_differs_from_kernel(const struct ipcc_recipe *r)
{
	return recipe_kernel_difference(from_handle(r));
}

const char *recipe_event_aliases(const struct recipe_event *e, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s", e->aliases ? e->aliases : "");

	if (e->config && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "%sr%llx", n ? " " : "",
			 (unsigned long long)e->config);
	return buf;
}

/* A term's coefficient for slot width `width`: k x RECIPE_W means k x width. */
static double coefficient(int coef, unsigned width)
{
	if (coef != 0 && coef % RECIPE_W == 0)
		return (double)(coef / RECIPE_W) * width;
	return coef;
}

unsigned recipe_slots(const struct recipe *r, unsigned width, const double *ev, uint32_t valid,
		      double out[NSLOTS])
{
	unsigned ok = 0;

	if (width == 0)
		return 0;
	for (int s = 0; s < NSLOTS; s++) {
		const struct recipe_sum *sum = &r->slot[s];
		bool known = sum->n > 0;
		double v = 0;

		for (unsigned i = 0; i < sum->n && known; i++) {
			const struct recipe_term *t = &sum->t[i];
			double x;

			if (t->src >= SRC_TOTAL) {
				int prev = t->src - SRC_TOTAL; /* SLOT_TOTAL, _FILLED, _ISSUED */

				known = ok & (1u << prev);
				x = out[prev];
			} else {
				known = valid & (1u << t->src);
				x = ev[t->src];
			}
			v += coefficient(t->coef, width) * x;
		}
		/* Arm: the issued (or unstalled) slots split by the share of speculated ops
		 * that retired. */
		if (s == SLOT_RETIRED && r->op_spec >= 0) {
			if (!sum->n) {
				known = ok & (1u << SLOT_ISSUED);
				v = out[SLOT_ISSUED];
			}
			known = known && (valid & (1u << r->op_retired)) &&
				(valid & (1u << r->op_spec)) && ev[r->op_spec] > 0;
			if (known)
				v = v * ev[r->op_retired] / ev[r->op_spec];
		}
		if (known) {
			out[s] = v;
			ok |= 1u << s;
		}
	}
	return ok;
}

/* ---- the top-down metric file of a recipe ------------------------------------------------ */

const char *ipcc_recipe_name(unsigned i)
{
	return i < nrecipes ? recipes[i].name : NULL;
}

const char *ipcc_recipe_desc(unsigned i)
{
	return i < nrecipes ? recipes[i].desc : NULL;
}

/* Append to a NUL-terminated buffer, truncating at len. */
static void cat(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void cat(char *buf, size_t len, const char *fmt, ...)
{
	size_t off = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + off, len - off, fmt, ap);
	va_end(ap);
}

/* A sum of terms as an expression over aliases a, b, ... (event i is 'a' + i). */
static void slot_expr(const struct recipe *r, int s, char *buf, size_t len, uint32_t *used);

static void sum_expr(const struct recipe *r, const struct recipe_sum *sum, char *buf, size_t len,
		     uint32_t *used)
{
	char w[32];

	if (r->width)
		snprintf(w, sizeof(w), "%u", r->width);
	else
		snprintf(w, sizeof(w), "slots_per_cycle");
	buf[0] = '\0';
	for (unsigned t = 0; t < sum->n; t++) {
		const struct recipe_term *term = &sum->t[t];
		int c = term->coef;
		bool minus = c < 0;

		cat(buf, len, "%s", t == 0 ? (minus ? "-" : "") : (minus ? " - " : " + "));
		if (c == RECIPE_W || c == RECIPE_MINUS_W)
			cat(buf, len, "%s*", w);
		else if (c % RECIPE_W == 0)
			cat(buf, len, "%d*%s*", (c < 0 ? -c : c) / RECIPE_W, w);
		else if (c != 1 && c != -1)
			cat(buf, len, "%d*", c < 0 ? -c : c);
		if (term->src >= SRC_TOTAL) {
			size_t off;

			cat(buf, len, "(");
			off = strlen(buf);
			slot_expr(r, term->src - SRC_TOTAL, buf + off, len - off, used);
			cat(buf, len, ")");
		} else {
			cat(buf, len, "%c", 'a' + term->src);
			*used |= 1u << term->src;
		}
	}
}

/* Slot counter s as an expression over aliases a, b, ... */
static void slot_expr(const struct recipe *r, int s, char *buf, size_t len, uint32_t *used)
{
	if (s == SLOT_RETIRED && r->op_spec >= 0) {
		/* Arm: the issued slots (or the recipe's own base) split by OP_RETIRED / OP_SPEC */
		buf[0] = '(';
		if (r->slot[s].n)
			sum_expr(r, &r->slot[s], buf + 1, len - 1, used);
		else
			slot_expr(r, SLOT_ISSUED, buf + 1, len - 1, used);
		cat(buf, len, ") * %c / %c", 'a' + r->op_retired, 'a' + r->op_spec);
		*used |= 1u << r->op_retired | 1u << r->op_spec;
		return;
	}
	sum_expr(r, &r->slot[s], buf, len, used);
}

static void xml_metric(FILE *out, const struct recipe *r, const char *name, const char *parent,
		       const char *unit, const char *formula, uint32_t used)
{
	fprintf(out, "<metric name=\"%s\"", name);
	if (parent)
		fprintf(out, " parent=\"%s\"", parent);
	fprintf(out, " unit=\"%s\">\n", unit);
	for (unsigned i = 0; i < r->nev; i++) {
		char also[512];

		if (!(used & (1u << i)))
			continue;
		if (*recipe_event_aliases(&r->ev[i], also, sizeof(also)))
			fprintf(out, "  <event alias=\"%c\" also=\"%s\">%s</event>\n", 'a' + i,
				also, r->ev[i].name);
		else
			fprintf(out, "  <event alias=\"%c\">%s</event>\n", 'a' + i, r->ev[i].name);
	}
	fprintf(out, "  <formula>%s</formula>\n</metric>\n\n", formula);
}

int ipcc_recipe_topdown_xml(const char *name, FILE *out)
{
	const struct recipe *r = recipe_by_name(name);
	char e[NSLOTS][2048], f[8192];
	uint32_t u[NSLOTS] = { 0 };

	if (!r)
		return err_set(IPCC_EINVAL, "no recipe '%s'", name);
	if (!r->slot[SLOT_TOTAL].n)
		return err_set(IPCC_EINVAL, "recipe '%s' has no slot events", name);
	for (int s = 0; s < NSLOTS; s++)
		if (r->slot[s].n || (s == SLOT_RETIRED && r->op_spec >= 0))
			slot_expr(r, s, e[s], sizeof(e[s]), &u[s]);
	/* No double hyphen: XML comments cannot hold one. */
	fprintf(out,
		"<?xml version=\"1.0\"?>\n<!--\n  Top-down level 1 for %s (recipe %s), "
		"written by ipcc metrics\n  (option topdown-xml %s) from the recipe table in "
		"src/recipes.c: the formulas ipcc stat\n  uses, over raw event counts.\n",
		r->desc, r->name, r->name);
	if (!r->width)
		fprintf(out, "  The width is the hardware's (sysfs caps/slots): bind it with "
			     "slots_per_cycle=N.\n");
	if (r->approximation)
		fprintf(out, "  Approximation: %s.\n", r->approximation);
	fprintf(out, "  Events by their libpfm4 names; \"also\" gives perf's names for the same "
		     "count\n  (its JSON and generic names, its raw form rNNN; A+B a sum).\n-->\n");
	if (r->approximation)
		fprintf(out, "<note>approximation: %s</note>\n\n", r->approximation);
	if (r->differs_from_kernel)
		fprintf(out, "<note>differs from the kernel's level 1: %s</note>\n\n",
			r->differs_from_kernel);
	if (r->smt_variant)
		fprintf(out,
			"<note>slots per thread: with SMT on the kernel counts them per physical "
			"core, as recipe %s does (metrics/topdown-%s.xml)</note>\n\n",
			r->smt_variant, r->smt_variant);
	xml_metric(out, r, "slots", NULL, "slots", e[SLOT_TOTAL], u[SLOT_TOTAL]);
	snprintf(f, sizeof(f), "((%s) - (%s)) / (%s)", e[SLOT_TOTAL], e[SLOT_FILLED],
		 e[SLOT_TOTAL]);
	xml_metric(out, r, "frontend stall", "slots", "fraction", f,
		   u[SLOT_TOTAL] | u[SLOT_FILLED]);
	snprintf(f, sizeof(f), "((%s) - (%s)) / (%s)", e[SLOT_FILLED], e[SLOT_ISSUED],
		 e[SLOT_TOTAL]);
	xml_metric(out, r, "backend stall", "slots", "fraction", f,
		   u[SLOT_TOTAL] | u[SLOT_FILLED] | u[SLOT_ISSUED]);
	if (r->slot[SLOT_SMT].n) {
		snprintf(f, sizeof(f), "(%s) / (%s)", e[SLOT_SMT], e[SLOT_TOTAL]);
		xml_metric(out, r, "of which SMT contention", "backend stall", "fraction", f,
			   u[SLOT_TOTAL] | u[SLOT_SMT]);
	}
	snprintf(f, sizeof(f), "((%s) - (%s)) / (%s)", e[SLOT_ISSUED], e[SLOT_RETIRED],
		 e[SLOT_TOTAL]);
	xml_metric(out, r, "wasted speculation", "slots", "fraction", f,
		   u[SLOT_TOTAL] | u[SLOT_ISSUED] | u[SLOT_RETIRED]);
	snprintf(f, sizeof(f), "(%s) / (%s)", e[SLOT_RETIRED], e[SLOT_TOTAL]);
	xml_metric(out, r, "retiring", "slots", "fraction", f, u[SLOT_TOTAL] | u[SLOT_RETIRED]);
	return 0;
}
