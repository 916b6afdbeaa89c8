/*
 * recipe_cases.h - the rows of tests/data/recipes.txt, for test_recipes and test_counters.
 */
#ifndef IPCC_RECIPE_CASES_H
#define IPCC_RECIPE_CASES_H

#include <stdint.h>

#define CASE_MAX_EVENTS 10

struct recipe_case {
	int line;
	char recipe[32];
	char pmu[32]; /* "" when libpfm4 lacks it */
	unsigned width;
	unsigned nev;
	char event[CASE_MAX_EVENTS][96];
	uint64_t delta[CASE_MAX_EVENTS];
	int64_t slots[5]; /* total filled issued retired smt */
	int has_smt;
};

/* Read every row of the file; returns the number read, or -1 (with a message) on error. */
int recipe_cases_load(const char *path, struct recipe_case *cases, int max);

#endif
