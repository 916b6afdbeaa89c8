/*
 * recipes_int.h - per CPU family: which events give each counter, the slot width, and how
 * raw counts become the four slot counters (private to src/).
 *
 * A recipe is data. Each slot counter is a sum of terms `coef x source`, where a source is
 * one of the recipe's events or a slot counter computed before it (total, then filled,
 * issued, retired), and a coefficient of RECIPE_W means "the slot width". The facts behind
 * each entry, with their sources, are in shared/docs/pmu-events.md.
 */
#ifndef IPCC_RECIPES_INT_H
#define IPCC_RECIPES_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RECIPE_MAX_EVENTS 10
#define RECIPE_MAX_TERMS  4

/* Coefficients meaning +W and -W; any multiple k x RECIPE_W means k times the width. */
#define RECIPE_W       100
#define RECIPE_MINUS_W (-100)

/* Sources beyond the recipe's events: the slot counters computed so far. */
enum {
	SRC_TOTAL = RECIPE_MAX_EVENTS,
	SRC_FILLED,
	SRC_ISSUED,
};

struct recipe_term {
	int8_t src; /* an event index, or SRC_* */
	int16_t coef;
};

/* A sum of terms; n == 0 means the recipe has no such counter. */
struct recipe_sum {
	uint8_t n;
	struct recipe_term t[RECIPE_MAX_TERMS];
};

struct recipe_event {
	const char *name;    /* libpfm4 name, without a PMU prefix */
	uint64_t config;     /* the vendor's encoding (perf raw config); 0: not checked */
	const char *aliases; /* other names of it (perf's), space-separated; A+B: a sum */
};

enum recipe_slot { SLOT_TOTAL, SLOT_FILLED, SLOT_ISSUED, SLOT_RETIRED, SLOT_SMT, NSLOTS };

struct recipe {
	const char *name; /* "intel-skl" */
	const char *desc; /* "Intel Skylake to Cascade Lake" */
	const char *pmus; /* libpfm4 PMU names it applies to, space-separated */
	unsigned width;	  /* slots per cycle; 0: read from sysfs caps/slots */
	struct recipe_event ev[RECIPE_MAX_EVENTS];
	unsigned nev;
	int8_t instructions, cycles, ref_cycles; /* event index, or -1 */
	const char *no_ref_cycles;		 /* why there is no ref_cycles event */
	struct recipe_sum slot[NSLOTS];
	/*
	 * Arm, when op_spec >= 0: retired = B x ev[op_retired] / ev[op_spec], where B is the
	 * sum slot[SLOT_RETIRED] (the issued slots when that sum is empty).
	 */
	int8_t op_retired, op_spec;
	const char *approximation; /* NULL, or why the slot counters are approximate */
	/* NULL, or how its level 1 differs from the kernel's own (perf's TopdownL1) */
	const char *differs_from_kernel;
	/* NULL, or the recipe to use instead when SMT is on and AnyThread counting is allowed */
	const char *smt_variant;
};

/* The table, and its length. */
extern const struct recipe recipes[];
extern const unsigned nrecipes;

/*
 * The recipe for a libpfm4 PMU name, or NULL. Where the family's recipe has an SMT variant
 * (Intel SNB-CLX: slots per physical core, as the kernel counts them) and SMT is on
 * (sysfs devices/system/cpu/smt/active is 1) and AnyThread events may be opened
 * (perf_event_paranoid <= 0), the variant. IPCC_SYSFS_ROOT and IPCC_PROCFS_ROOT prefix
 * those paths, for tests.
 */
const struct recipe *recipe_for_pmu(const char *pmu);

/*
 * r, or its SMT variant where recipe_for_pmu() would pick that (SMT on, AnyThread allowed):
 * for a caller that found the family's recipe another way (by name, from CPUID or MIDR).
 */
const struct recipe *recipe_for_smt(const struct recipe *r);

/*
 * How recipe r's level 1 differs from the kernel's on this machine, or NULL: its
 * differs_from_kernel note, or, for a per-thread recipe that has an SMT variant while SMT
 * is on, why the variant was not used.
 */
const char *recipe_kernel_difference(const struct recipe *r);

/*
 * Every other name of recipe event e, space-separated, into buf: its aliases, then perf's
 * raw form of its encoding (r3c, r1000001a0) where it has one. Returns buf.
 */
const char *recipe_event_aliases(const struct recipe_event *e, char *buf, size_t len);

/* Whether SMT is on (1), off (0), or unknown (-1), from sysfs. */
int recipe_smt_active(void);

/* The recipe called `name`, or NULL. */
const struct recipe *recipe_by_name(const char *name);

/*
 * Compute the slot counters from event deltas (`valid` bit e: ev[e] is known). out[s] is set
 * and bit s of the result is 1 for each slot counter the recipe defines and whose events are
 * all known. width is the slot width to use for RECIPE_W (0: no slot counters).
 */
unsigned recipe_slots(const struct recipe *r, unsigned width, const double *ev, uint32_t valid,
		      double out[NSLOTS]);

#endif
