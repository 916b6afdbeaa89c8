/*
 * test_recipes.c - every recipe's arithmetic, against tests/data/recipes.txt.
 */
#include <math.h>

#include "recipe_cases.h"
#include "recipes_int.h"
#include "test.h"

static int event_index(const struct recipe *r, const char *name)
{
	for (unsigned i = 0; i < r->nev; i++)
		if (strcmp(r->ev[i].name, name) == 0)
			return (int)i;
	return -1;
}

TEST(slot_counters_match_worked_examples)
{
	struct recipe_case cases[32];
	int n = recipe_cases_load(test_data("recipes.txt"), cases, 32);

	CHECK_CMP(int, n, >=, 10);
	for (int k = 0; k < n; k++) {
		const struct recipe_case *c = &cases[k];
		const struct recipe *r = recipe_by_name(c->recipe);
		double ev[RECIPE_MAX_EVENTS] = { 0 }, out[NSLOTS];
		uint32_t valid = 0;
		unsigned have;

		if (!r) {
			fprintf(stderr, "recipes.txt:%d: no recipe %s\n", c->line, c->recipe);
			test_failures++;
			continue;
		}
		for (unsigned e = 0; e < c->nev; e++) {
			int i = event_index(r, c->event[e]);

			if (i < 0) {
				fprintf(stderr, "recipes.txt:%d: %s has no event %s\n", c->line,
					r->name, c->event[e]);
				test_failures++;
				continue;
			}
			ev[i] = (double)c->delta[e];
			valid |= 1u << i;
		}
		CHECK_EQ(u64, valid, (1u << r->nev) - 1); /* every event of the recipe is given */
		have = recipe_slots(r, c->width, ev, valid, out);
		for (int s = 0; s < NSLOTS; s++) {
			bool want = s < SLOT_SMT || c->has_smt;

			if (!!(have & (1u << s)) != want ||
			    (want && llround(out[s]) != c->slots[s])) {
				fprintf(stderr,
					"recipes.txt:%d: %s slot %d: got %s%.1f, want %lld\n",
					c->line, r->name, s, have & (1u << s) ? "" : "(absent) ",
					out[s], (long long)c->slots[s]);
				test_failures++;
			}
		}
	}
	return TEST_OK;
}

TEST(missing_event_makes_dependent_counters_absent)
{
	const struct recipe *r = recipe_by_name("intel-skl");
	double ev[RECIPE_MAX_EVENTS] = { 1000, 1500, 800, 600, 2500, 2000, 50 }, out[NSLOTS];
	/* Without IDQ_UOPS_NOT_DELIVERED (event 3): filled is unknown, so is nothing else. */
	unsigned have = recipe_slots(r, 4, ev, 0x7f & ~(1u << 3), out);

	CHECK(have & (1u << SLOT_TOTAL));
	CHECK(!(have & (1u << SLOT_FILLED)));
	CHECK(have & (1u << SLOT_ISSUED));
	CHECK(have & (1u << SLOT_RETIRED));
	/* ICL: issued is built on filled, so it goes too. */
	r = recipe_by_name("intel-icl");
	have = recipe_slots(r, 5, ev, 0x1ff & ~(1u << 4), out);
	CHECK(!(have & (1u << SLOT_FILLED)));
	CHECK(!(have & (1u << SLOT_ISSUED)));
	/* No width, no slot counters. */
	CHECK_EQ(u64, recipe_slots(r, 0, ev, 0x1ff, out), 0);
	return TEST_OK;
}

TEST(arm_retired_needs_speculated_ops)
{
	const struct recipe *r = recipe_by_name("arm-neoverse");
	double ev[RECIPE_MAX_EVENTS] = { 1000, 2000, 1000, 2000, 0, 0 }, out[NSLOTS];
	unsigned have = recipe_slots(r, 8, ev, 0x3f, out);

	/* OP_SPEC = 0: no ratio to split issued slots by. */
	CHECK(have & (1u << SLOT_ISSUED));
	CHECK(!(have & (1u << SLOT_RETIRED)));
	return TEST_OK;
}

TEST(every_family_has_a_recipe_and_pmus_map_uniquely)
{
	static const char *const pmus[] = { "snb",
					    "skl",
					    "icl",
					    "spr",
					    "adl_grt",
					    "amd64_fam19h_zen4",
					    "amd64_fam1ah_zen5",
					    "amd64_fam19h_zen3",
					    "amd64_fam17h_zen2",
					    "arm_n2",
					    "arm_v1" };

	for (size_t i = 0; i < sizeof(pmus) / sizeof(pmus[0]); i++)
		CHECK(recipe_for_pmu(pmus[i]) != NULL);
	CHECK(recipe_for_pmu("") == NULL);
	CHECK(recipe_for_pmu("sk") == NULL); /* whole names only */
	CHECK_STR(recipe_for_pmu("clx")->name, "intel-skl");
	CHECK(recipe_by_name("generic") != NULL);
	CHECK(recipe_by_name("amd-zen3")->approximation != NULL);
	CHECK(recipe_by_name("amd-zen4")->approximation == NULL);
	/* Every recipe names its instructions and cycles events within its table. */
	for (unsigned i = 0; i < nrecipes; i++) {
		CHECK(recipes[i].instructions >= 0 &&
		      (unsigned)recipes[i].instructions < recipes[i].nev);
		CHECK(recipes[i].cycles >= 0 && (unsigned)recipes[i].cycles < recipes[i].nev);
		CHECK(recipes[i].ref_cycles >= 0 || recipes[i].no_ref_cycles != NULL);
	}
	return TEST_OK;
}
