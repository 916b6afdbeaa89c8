/*
 * recipes.c - the recipe table and the arithmetic that turns event counts into the four
 * slot counters. Sources for every event and formula: shared/docs/pmu-events.md, sections
 * 1-4 and the summary table in section 6.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error_int.h"
#include "ipcc/recipes.h"
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

/* AMD Zen 4 and Zen 5: the same events (perf's PipelineL1), different widths. */
#define ZEN45_EVENTS_AND_SLOTS \
	.ev = { { "CYCLES_NOT_IN_HALT", 0x76 },                                                    \
		{ "RETIRED_INSTRUCTIONS", 0xc0 },                                                  \
		{ "DISPATCH_STALLS_1:FE_NO_OPS", 0x1000001a0 },                                    \
		{ "DISPATCH_STALLS_1:SMT_CONTENTION", 0x1000060a0 },                               \
		{ "OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER", 0x7aa },       \
		{ "RETIRED_OPS", 0xc1 } },                                                         \
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
			 "holds SMT effects); not AMD's method"

/* Arm Neoverse PMUv3 with the slot events (perf's sbsa.json). */
#define NEOVERSE_EVENTS                                                                            \
	.ev = { { "CPU_CYCLES", 0x11 }, { "INST_RETIRED", 0x08 }, { "STALL_SLOT_FRONTEND", 0x3e }, \
		{ "STALL_SLOT", 0x3f }, { "OP_RETIRED", 0x3a },	  { "OP_SPEC", 0x3b } },           \
	.nev = 6, .instructions = 1, .cycles = 0, .ref_cycles = -1,                                \
	.no_ref_cycles = "Arm PMUv3 has no constant-rate reference-cycle event"

/* Their events; INT_MISC.RECOVERY_CYCLES is umask 3, cmask 1 before Skylake, umask 1 since. */
#define INTEL_SNB_SKL(recovery_config)                             \
	.width = 4,                                                \
	.ev = { { "UNHALTED_CORE_CYCLES", 0x3c },                  \
		{ "INSTRUCTION_RETIRED", 0xc0 },                   \
		{ "UNHALTED_REFERENCE_CYCLES", 0x300 },            \
		{ "IDQ_UOPS_NOT_DELIVERED:CORE", 0x19c },          \
		{ "UOPS_ISSUED:ANY", 0x10e },                      \
		{ "UOPS_RETIRED:RETIRE_SLOTS", 0x2c2 },            \
		{ "INT_MISC:RECOVERY_CYCLES", recovery_config } }, \
	.nev = 7, .instructions = 1, .cycles = 0, .ref_cycles = 2, \
	.slot = INTEL_SNB_SKL_SLOTS(0, 3, 4, 5, 6), .op_retired = -1, .op_spec = -1

const struct recipe recipes[] = {
	{
		.name = "intel-snb",
		.desc = "Intel Sandy Bridge to Broadwell",
		.pmus = "snb snb_ep ivb ivb_ep hsw hsw_ep bdw bdw_ep",
		INTEL_SNB_SKL(0x100030d),
	},
	{
		.name = "intel-skl",
		.desc = "Intel Skylake to Cascade Lake",
		.pmus = "skl skx clx",
		INTEL_SNB_SKL(0x10d),
	},
	{
		/* General-purpose path B; the PERF_METRICS path is not implemented. */
		.name = "intel-icl",
		.desc = "Intel Ice Lake and Tiger Lake (general-purpose counters)",
		.pmus = "icl icx tgl rkl",
		.width = 5,
		.ev = { { "UNHALTED_CORE_CYCLES", 0x3c },
			{ "INSTRUCTION_RETIRED", 0xc0 },
			{ "UNHALTED_REFERENCE_CYCLES", 0x300 },
			{ "TOPDOWN:SLOTS", 0x400 },
			{ "IDQ_UOPS_NOT_DELIVERED:CORE", 0x19c },
			{ "INT_MISC:UOP_DROPPING", 0x100d },
			{ "TOPDOWN:BACKEND_BOUND_SLOTS", 0x2a4 },
			{ "INT_MISC:CLEARS_COUNT", 0x104010d },
			{ "UOPS_RETIRED:SLOTS", 0x2c2 } },
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
		.ev = { { "UNHALTED_CORE_CYCLES", 0x3c },
			{ "INSTRUCTION_RETIRED", 0xc0 },
			{ "UNHALTED_REFERENCE_CYCLES", 0x300 },
			{ "TOPDOWN:SLOTS", 0x400 },
			{ "IDQ_UOPS_NOT_DELIVERED:CORE", 0x19c },
			{ "INT_MISC:UOP_DROPPING", 0x10ad },
			{ "TOPDOWN:BACKEND_BOUND_SLOTS", 0x2a4 },
			{ "UOPS_RETIRED:SLOTS", 0x2c2 } },
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
		.ev = { { "CPU_CLK_UNHALTED:CORE", 0x3c },
			{ "INST_RETIRED:ANY_P", 0xc0 },
			{ "CPU_CLK_UNHALTED:REF_TSC_P", 0x13c },
			{ "TOPDOWN_FE_BOUND:ALL", 0x71 },
			{ "TOPDOWN_BE_BOUND:ALL", 0x74 },
			{ "TOPDOWN_RETIRING:ALL", 0xc2 } },
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
		.ev = { { "CYCLES_NOT_IN_HALT", 0x76 },
			{ "RETIRED_INSTRUCTIONS", 0xc0 },
			{ "UOPS_QUEUE_EMPTY", 0xa9 },
			{ "OPS_SOURCE_DISPATCHED_FROM_DECODER:X86DECODER_DISPATCHED:OPCACHE_DISPATCHED",
			  0x3aa },
			{ "RETIRED_OPS", 0xc1 } },
		ZEN23_SLOTS,
	},
	{
		.name = "amd-zen2",
		.desc = "AMD Zen 2",
		.pmus = "amd64_fam17h_zen2",
		.width = 6,
		.ev = { { "CYCLES_NOT_IN_HALT", 0x76 },
			{ "RETIRED_INSTRUCTIONS", 0xc0 },
			{ "UOPS_QUEUE_EMPTY", 0xa9 },
			{ "UOPS_DISPATCHED_FROM_DECODER:DECODER_DISPATCHED:OPCACHE_DISPATCHED", 0x3aa },
			{ "RETIRED_UOPS", 0xc1 } },
		ZEN23_SLOTS,
	},
	{
		/* perf's sbsa.json TopdownL1; the width is PMMIR_EL1.SLOTS (sysfs caps/slots). */
		.name = "arm-neoverse",
		.desc = "Arm Neoverse V1, V2, N3, V3",
		.pmus = "arm_v1 arm_v2 arm_n3 arm_v3",
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
		/* Any other CPU: the kernel's generic events, and no slot counters. */
		.name = "generic",
		.desc = "any CPU: the kernel's generic instructions and cycles events",
		.pmus = "",
		.width = 0,
		.ev = { { "perf::PERF_COUNT_HW_CPU_CYCLES", 0 },
			{ "perf::PERF_COUNT_HW_INSTRUCTIONS", 0 },
			{ "perf::PERF_COUNT_HW_REF_CPU_CYCLES", 0 } },
		.nev = 3,
		.instructions = 1, .cycles = 0, .ref_cycles = 2,
		.slot = { NONE, NONE, NONE, NONE, NONE },
		.op_retired = -1, .op_spec = -1,
	},
};

const unsigned nrecipes = sizeof(recipes) / sizeof(recipes[0]);

const struct recipe *recipe_for_pmu(const char *pmu)
{
	for (unsigned i = 0; i < nrecipes; i++)
		if (*pmu && procfs_has_word(recipes[i].pmus, pmu))
			return &recipes[i];
	return NULL;
}

const struct recipe *recipe_by_name(const char *name)
{
	for (unsigned i = 0; i < nrecipes; i++)
		if (strcmp(recipes[i].name, name) == 0)
			return &recipes[i];
	return NULL;
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
			double coef = t->coef == RECIPE_W	  ? width
				      : t->coef == RECIPE_MINUS_W ? -(double)width
								  : t->coef;
			double x;

			if (t->src >= SRC_TOTAL) {
				int prev = t->src - SRC_TOTAL; /* SLOT_TOTAL, _FILLED, _ISSUED */

				known = ok & (1u << prev);
				x = out[prev];
			} else {
				known = valid & (1u << t->src);
				x = ev[t->src];
			}
			v += coef * x;
		}
		/* Arm: the issued slots split by the share of speculated ops that retired. */
		if (s == SLOT_RETIRED && r->op_spec >= 0) {
			known = (ok & (1u << SLOT_ISSUED)) && (valid & (1u << r->op_retired)) &&
				(valid & (1u << r->op_spec)) && ev[r->op_spec] > 0;
			if (known)
				v = out[SLOT_ISSUED] * ev[r->op_retired] / ev[r->op_spec];
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

/* Slot counter s as an expression over aliases a, b, ... (event i is 'a' + i). */
static void slot_expr(const struct recipe *r, int s, char *buf, size_t len, uint32_t *used)
{
	char w[32];

	if (r->width)
		snprintf(w, sizeof(w), "%u", r->width);
	else
		snprintf(w, sizeof(w), "slots_per_cycle");
	buf[0] = '\0';
	if (s == SLOT_RETIRED && r->op_spec >= 0) {
		cat(buf, len, "(");
		slot_expr(r, SLOT_ISSUED, buf + 1, len - 1, used);
		cat(buf, len, ") * %c / %c", 'a' + r->op_retired, 'a' + r->op_spec);
		*used |= 1u << r->op_retired | 1u << r->op_spec;
		return;
	}
	for (unsigned t = 0; t < r->slot[s].n; t++) {
		const struct recipe_term *term = &r->slot[s].t[t];
		int c = term->coef;
		bool minus = c < 0;

		cat(buf, len, "%s", t == 0 ? (minus ? "-" : "") : (minus ? " - " : " + "));
		if (c == RECIPE_W || c == RECIPE_MINUS_W)
			cat(buf, len, "%s*", w);
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

static void xml_metric(FILE *out, const struct recipe *r, const char *name, const char *parent,
		       const char *unit, const char *formula, uint32_t used)
{
	fprintf(out, "<metric name=\"%s\"", name);
	if (parent)
		fprintf(out, " parent=\"%s\"", parent);
	fprintf(out, " unit=\"%s\">\n", unit);
	for (unsigned i = 0; i < r->nev; i++)
		if (used & (1u << i))
			fprintf(out, "  <event alias=\"%c\">%s</event>\n", 'a' + i, r->ev[i].name);
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
	fprintf(out, "-->\n");
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
