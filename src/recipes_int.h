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
#include <stdint.h>

#define RECIPE_MAX_EVENTS 10
#define RECIPE_MAX_TERMS  4

/* Coefficients meaning +W and -W. */
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
	const char *name; /* libpfm4 name, without a PMU prefix */
	uint64_t config;  /* the vendor's encoding (perf raw config); 0: not checked */
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
	/* retired = issued x ev[op_retired] / ev[op_spec] (Arm), when op_spec >= 0 */
	int8_t op_retired, op_spec;
	const char *approximation; /* NULL, or why the slot counters are approximate */
};

/* The table, and its length. */
extern const struct recipe recipes[];
extern const unsigned nrecipes;

/* The recipe for a libpfm4 PMU name, or NULL. */
const struct recipe *recipe_for_pmu(const char *pmu);

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
