/*
 * recipes.h - the CPU families ipcc knows: which events give the slot counters.
 *
 * The recipes themselves are data inside the library (src/recipes.c); this header lists them
 * and writes each one's top-down level 1 as a metric file, so the formulas a user evaluates
 * with ipcc metrics over raw counts are the recipes' own.
 */
#ifndef IPCC_RECIPES_H
#define IPCC_RECIPES_H

#include <stdio.h>

/* The recipes' names ("intel-skl", "amd-zen4", ...), and a line about each; NULL past the end. */
const char *ipcc_recipe_name(unsigned i);
const char *ipcc_recipe_desc(unsigned i);

/* A recipe, opaque: an entry of the library's table, never freed. */
struct ipcc_recipe;

/* The recipe called `name` (as IPCC_RECIPE names it), or NULL. */
const struct ipcc_recipe *ipcc_recipe_by_name(const char *name);

/* Its name. */
const char *ipcc_recipe_get_name(const struct ipcc_recipe *r);

/*
 * How its top-down level 1 differs from the kernel's own (perf's TopdownL1) on this machine,
 * or NULL where the two agree on the same counts.
 */
const char *ipcc_recipe_differs_from_kernel(const struct ipcc_recipe *r);

/*
 * Write recipe `name`'s top-down level 1 as metric-file XML: "slots" (unit slots) and its
 * four fractions (and the SMT share where the recipe has one), over the recipe's events by
 * their libpfm4 names, each with perf's names for it in an `also` attribute. A recipe
 * whose width the hardware states (Arm) uses the identifier
 * slots_per_cycle for it. IPCC_EINVAL if there is no such recipe or it has no slot events.
 */
int ipcc_recipe_topdown_xml(const char *name, FILE *out);

#endif
