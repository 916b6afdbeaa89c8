/*
 * test_recipes.c - every recipe's arithmetic, against tests/data/recipes.txt; every recipe's
 * level 1 against the kernel's own (tests/data/kernel-metrics/); picking the SMT variant.
 */
#include <math.h>
#include <stdlib.h>

#include "ipcc/breakdown.h"
#include "ipcc/formula.h"
#include "ipcc/recipes.h"
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
					    "arm_v1",
					    "arm_v2",
					    "arm_n3",
					    "arm_v3" };

	for (size_t i = 0; i < sizeof(pmus) / sizeof(pmus[0]); i++)
		CHECK(recipe_for_pmu(pmus[i]) != NULL);
	CHECK(recipe_for_pmu("") == NULL);
	CHECK(recipe_for_pmu("sk") == NULL); /* whole names only */
	CHECK_STR(recipe_for_pmu("clx")->name, "intel-skl");
	/* Neoverse cores whose kernel level 1 is not sbsa.json's have their own recipes. */
	CHECK_STR(recipe_for_pmu("arm_v1")->name, "arm-neoverse-v1");
	CHECK_STR(recipe_for_pmu("arm_v2")->name, "arm-neoverse");
	CHECK_STR(recipe_for_pmu("arm_n3")->name, "arm-neoverse-n3");
	CHECK_STR(recipe_for_pmu("arm_v3")->name, "arm-neoverse-v3");
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

TEST(recipes_are_found_by_name_through_the_public_api)
{
	/* What the CPU-identification module maps a MIDR or CPUID to. */
	static const char *const names[] = {
		"intel-snb",	   "intel-snb-smt",   "intel-skl",	 "intel-skl-smt",
		"intel-icl",	   "intel-spr",	      "intel-gracemont", "amd-zen2",
		"amd-zen3",	   "amd-zen4",	      "amd-zen5",	 "arm-neoverse",
		"arm-neoverse-n2", "arm-neoverse-v1", "arm-neoverse-n3", "arm-neoverse-v3",
		"generic"
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct ipcc_recipe *r = ipcc_recipe_by_name(names[i]);

		CHECK(r != NULL);
		if (r)
			CHECK_STR(ipcc_recipe_get_name(r), names[i]);
	}
	CHECK(ipcc_recipe_by_name("pentium4") == NULL);
	CHECK(ipcc_recipe_get_name(NULL) == NULL);
	CHECK(ipcc_recipe_differs_from_kernel(ipcc_recipe_by_name("amd-zen3")) != NULL);
	return TEST_OK;
}

/* recipe_for_pmu with sysfs smt/active and perf_event_paranoid from test data. */
static const struct recipe *pick(const char *pmu, const char *sysfs, const char *procfs)
{
	const struct recipe *r;

	setenv("IPCC_SYSFS_ROOT", test_data(sysfs), 1);
	setenv("IPCC_PROCFS_ROOT", test_data(procfs), 1);
	r = recipe_for_pmu(pmu);
	return r;
}

static void unpick(void)
{
	unsetenv("IPCC_SYSFS_ROOT");
	unsetenv("IPCC_PROCFS_ROOT");
}

TEST(smt_on_with_anythread_allowed_counts_slots_per_core_as_the_kernel)
{
	const struct recipe *r = pick("skl", "sysfs-smt-on", "procfs-paranoid-0");

	CHECK_STR(r->name, "intel-skl-smt");
	CHECK(recipe_kernel_difference(r) == NULL);
	CHECK_STR(pick("hsw", "sysfs-smt-on", "procfs-paranoid-0")->name, "intel-snb-smt");
	/* Families whose slots are per thread anyway have no variant. */
	CHECK_STR(pick("icl", "sysfs-smt-on", "procfs-paranoid-0")->name, "intel-icl");
	CHECK_STR(pick("amd64_fam19h_zen4", "sysfs-smt-on", "procfs-paranoid-0")->name, "amd-zen4");
	CHECK_EQ(int, recipe_smt_active(), 1);
	unpick();
	return TEST_OK;
}

TEST(smt_on_without_anythread_counts_per_thread_and_says_so)
{
	const struct recipe *r = pick("skl", "sysfs-smt-on", "procfs-paranoid-2");
	const char *why = recipe_kernel_difference(r);

	CHECK_STR(r->name, "intel-skl");
	CHECK(why != NULL && strstr(why, "per thread") && strstr(why, "per physical core"));
	unpick();
	return TEST_OK;
}

TEST(smt_off_or_unknown_counts_per_thread_as_the_kernel)
{
	const struct recipe *r = pick("snb", "sysfs-smt-off", "procfs-paranoid-0");

	CHECK_STR(r->name, "intel-snb");
	CHECK(recipe_kernel_difference(r) == NULL);
	CHECK_EQ(int, recipe_smt_active(), 0);
	/* No smt/active (an old kernel): per thread, and nothing to say. */
	r = pick("skl", "sysfs-no-pmu", "procfs-paranoid-0");
	CHECK_STR(r->name, "intel-skl");
	CHECK(recipe_kernel_difference(r) == NULL);
	CHECK_EQ(int, recipe_smt_active(), -1);
	unpick();
	return TEST_OK;
}

/* ---- the kernel's level 1 (tests/data/kernel-metrics/RECIPE.txt) ------------------------ */

enum { K_FRONTEND, K_BACKEND, K_SMT, K_SPECULATION, K_RETIRING, NK };
static const char *const kcat[NK] = { "frontend", "backend", "smt", "speculation", "retiring" };

#define K_MAX_LINES  16
#define K_MAX_COUNTS 4
#define K_MAX_NOT    4

struct kernel_file {
	char recipe[32];
	unsigned width;
	struct ipcc_counts *set; /* the `set` literals */
	struct {
		char name[64]; /* the kernel's metric name, bound to its value for later lines */
		int cat;       /* K_*, or -1 for a `define` */
		struct ipcc_formula *f;
	} line[K_MAX_LINES];
	int nlines;
	char *counts[K_MAX_COUNTS];
	int ncounts;
	char not_recipe[K_MAX_NOT][32];
	int nnot;
};

static void kernel_file_release(struct kernel_file *k)
{
	ipcc_counts_free(k->set);
	for (int i = 0; i < k->nlines; i++)
		ipcc_formula_free(k->line[i].f);
	for (int i = 0; i < k->ncounts; i++)
		free(k->counts[i]);
}

/* Read a kernel-metrics file; false (with a message) when it is malformed. */
static bool kernel_file_load(const char *path, struct kernel_file *k)
{
	char buf[4096];
	int lineno = 0;
	bool ok = true;
	FILE *f = fopen(path, "r");

	memset(k, 0, sizeof(*k));
	k->set = ipcc_counts_new();
	if (!f) {
		perror(path);
		return false;
	}
	while (ok && fgets(buf, sizeof(buf), f)) {
		char word[64], *rest, *eq;

		lineno++;
		buf[strcspn(buf, "\n")] = '\0';
		if (buf[0] == '#' || buf[strspn(buf, " \t")] == '\0')
			continue;
		if (sscanf(buf, "%63s", word) != 1)
			continue;
		rest = buf + strlen(word);
		rest += strspn(rest, " \t");
		if (!strcmp(word, "recipe")) {
			ok = sscanf(rest, "%31s", k->recipe) == 1;
		} else if (!strcmp(word, "width")) {
			ok = sscanf(rest, "%u", &k->width) == 1;
		} else if (!strcmp(word, "set")) {
			for (char *t = strtok(rest, " "); t && ok; t = strtok(NULL, " ")) {
				ok = (eq = strchr(t, '=')) != NULL;
				if (ok) {
					*eq = '\0';
					ipcc_counts_set(k->set, t, strtod(eq + 1, NULL));
				}
			}
		} else if (!strcmp(word, "counts")) {
			ok = k->ncounts < K_MAX_COUNTS;
			if (ok)
				k->counts[k->ncounts++] = strdup(rest);
		} else if (!strcmp(word, "not")) {
			ok = k->nnot < K_MAX_NOT &&
			     sscanf(rest, "%31s", k->not_recipe[k->nnot++]) == 1;
		} else {
			struct ipcc_formula_error err;
			int cat = -1;

			for (int c = 0; c < NK; c++)
				if (!strcmp(word, kcat[c]))
					cat = c;
			ok = (cat >= 0 || !strcmp(word, "define")) && k->nlines < K_MAX_LINES &&
			     (eq = strstr(rest, " = ")) != NULL;
			if (ok) {
				*eq = '\0';
				snprintf(k->line[k->nlines].name, sizeof(k->line[0].name), "%s",
					 rest);
				k->line[k->nlines].cat = cat;
				ok = ipcc_formula_parse(eq + 3, &k->line[k->nlines].f, &err) == 0;
				if (!ok)
					fprintf(stderr, "%s:%d: %s\n", path, lineno, err.message);
				else
					k->nlines++;
			}
		}
		if (!ok)
			fprintf(stderr, "%s:%d: bad line\n", path, lineno);
	}
	fclose(f);
	return ok && k->recipe[0] && k->width && k->ncounts;
}

/* A count set's text ("NAME=VALUE ...") as counts. */
static struct ipcc_counts *parse_counts(const char *text)
{
	struct ipcc_counts *c = ipcc_counts_new();
	char *copy = strdup(text), *save = NULL;

	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		char *eq = strrchr(t, '=');

		if (eq) {
			*eq = '\0';
			ipcc_counts_set(c, t, strtod(eq + 1, NULL));
		}
	}
	free(copy);
	return c;
}

/*
 * The kernel's level 1 on these counts: out[K_*] (NaN where the file has no such line).
 * False, with a message, when a formula cannot be evaluated.
 */
static bool kernel_level1(const struct kernel_file *k, const struct ipcc_counts *counts,
			  double out[NK])
{
	struct ipcc_counts *known = ipcc_counts_new();
	bool ok = true;

	for (int c = 0; c < NK; c++)
		out[c] = NAN;
	for (int i = 0; i < k->nlines && ok; i++) {
		const struct ipcc_formula *f = k->line[i].f;
		double vals[64], v;

		for (unsigned n = 0; n < ipcc_formula_nvars(f) && n < 64; n++) {
			const char *id = ipcc_formula_var(f, n);

			vals[n] = ipcc_counts_has(known, id)	? ipcc_counts_get(known, id)
				  : ipcc_counts_has(k->set, id) ? ipcc_counts_get(k->set, id)
								: ipcc_counts_get(counts, id);
		}
		v = ipcc_formula_eval(f, vals, NULL);
		if (isnan(v)) {
			fprintf(stderr, "kernel-metrics/%s.txt: %s: no value (an event missing?)\n",
				k->recipe, k->line[i].name);
			ok = false;
		}
		ipcc_counts_set(known, k->line[i].name, v);
		if (k->line[i].cat >= 0)
			out[k->line[i].cat] = v;
	}
	ipcc_counts_free(known);
	return ok;
}

/* The count of recipe event e: by its own name, else by the first of its other names there. */
static bool recipe_event_count(const struct recipe_event *e, const struct ipcc_counts *c, double *v)
{
	char names[512];

	*v = ipcc_counts_has(c, e->name)
		 ? ipcc_counts_get(c, e->name)
		 : ipcc_counts_get_any(c, recipe_event_aliases(e, names, sizeof(names)));
	return !isnan(*v);
}

/*
 * ipcc's level 1 on these counts, as ipcc stat prints it: the recipe's slot counters, then
 * the breakdown. out[K_SMT] is NaN where the recipe has no SMT counter.
 */
static bool ipcc_level1(const struct recipe *r, unsigned width, const struct ipcc_counts *c,
			double out[NK])
{
	double ev[RECIPE_MAX_EVENTS] = { 0 }, slots[NSLOTS];
	struct ipcc_interval iv = { 0 };
	struct ipcc_breakdown bd;
	uint32_t valid = 0;
	unsigned have;

	for (unsigned e = 0; e < r->nev; e++) {
		if (recipe_event_count(&r->ev[e], c, &ev[e]))
			valid |= 1u << e;
		else
			fprintf(stderr, "%s: the counts have no %s (nor any of its names: %s)\n",
				r->name, r->ev[e].name, r->ev[e].aliases ? r->ev[e].aliases : "-");
	}
	if (valid != (1u << r->nev) - 1)
		return false;
	have = recipe_slots(r, r->width ? r->width : width, ev, valid, slots);
	for (int s = 0; s < NSLOTS; s++)
		if (have & (1u << s)) {
			iv.value[IPCC_SLOTS_TOTAL + s] = llround(slots[s]);
			iv.valid |= 1u << (IPCC_SLOTS_TOTAL + s);
		}
	iv.width = r->width ? r->width : width;
	if (ipcc_breakdown(&iv, &bd) != 0 || !bd.valid) {
		fprintf(stderr, "%s: no breakdown from the counts\n", r->name);
		return false;
	}
	out[K_FRONTEND] = bd.frontend;
	out[K_BACKEND] = bd.backend;
	out[K_SMT] = bd.smt;
	out[K_SPECULATION] = bd.speculation;
	out[K_RETIRING] = bd.retiring;
	return true;
}

/* The largest |ipcc - kernel| per category over the file's count sets; false on an error. */
static bool compare(const struct kernel_file *k, const struct recipe *r, double maxdiff[NK])
{
	for (int c = 0; c < NK; c++)
		maxdiff[c] = NAN;
	for (int i = 0; i < k->ncounts; i++) {
		struct ipcc_counts *counts = parse_counts(k->counts[i]);
		double kern[NK], mine[NK];
		bool ok = kernel_level1(k, counts, kern) && ipcc_level1(r, k->width, counts, mine);

		ipcc_counts_free(counts);
		if (!ok)
			return false;
		/* ipcc's back-end stall holds the SMT sibling's share, the kernel's does not. */
		if (!isnan(kern[K_SMT]))
			kern[K_BACKEND] += kern[K_SMT];
		for (int c = 0; c < NK; c++) {
			double d = fabs(mine[c] - kern[c]);

			if (isnan(kern[c]))
				continue;
			if (isnan(mine[c]))
				d = INFINITY; /* the kernel has a category ipcc does not */
			if (isnan(maxdiff[c]) || d > maxdiff[c])
				maxdiff[c] = d;
		}
	}
	return true;
}

static double worst(const double d[NK])
{
	double w = 0;

	for (int c = 0; c < NK; c++)
		if (!isnan(d[c]) && d[c] > w)
			w = d[c];
	return w;
}

TEST(kernel_level1_agrees_with_every_recipe)
{
	int files = 0;

	/* No SMT state: a per-thread recipe's note must not depend on this machine. */
	setenv("IPCC_SYSFS_ROOT", test_data("sysfs-no-pmu"), 1);
	printf("%-18s %9s %9s %9s %11s %9s   max |ipcc - kernel|\n", "recipe", "frontend",
	       "backend", "smt", "speculation", "retiring");
	for (unsigned i = 0; i < nrecipes; i++) {
		const struct recipe *r = &recipes[i];
		char path[256];
		struct kernel_file k;
		double d[NK];
		FILE *probe;

		if (!r->slot[SLOT_TOTAL].n)
			continue; /* no slot counters, no level 1 (generic) */
		snprintf(path, sizeof(path), "%s/%s.txt", test_data("kernel-metrics"), r->name);
		probe = fopen(path, "r");
		if (!probe) {
			/* No kernel definition to agree with: the recipe must say so. */
			if (!recipe_kernel_difference(r)) {
				fprintf(stderr,
					"%s: no kernel-metrics/%s.txt and no "
					"differs_from_kernel note\n",
					r->name, r->name);
				test_failures++;
			}
			printf("%-18s (no kernel level 1: %s)\n", r->name,
			       recipe_kernel_difference(r));
			continue;
		}
		fclose(probe);
		files++;
		if (!kernel_file_load(path, &k) || strcmp(k.recipe, r->name) != 0 ||
		    (r->width && r->width != k.width)) {
			fprintf(stderr, "%s: bad file, or not for this recipe and width\n", path);
			test_failures++;
			kernel_file_release(&k);
			continue;
		}
		if (!compare(&k, r, d)) {
			test_failures++;
			kernel_file_release(&k);
			continue;
		}
		printf("%-18s", r->name);
		for (int c = 0; c < NK; c++) {
			int w = c == K_SPECULATION ? 11 : 9;

			if (isnan(d[c]))
				printf(" %*s", w, "-");
			else
				printf(" %*.4f", w, d[c]);
		}
		printf("\n");
		if (worst(d) > 0.01 && !recipe_kernel_difference(r)) {
			fprintf(stderr, "%s: differs from the kernel by %.4f and does not say so\n",
				r->name, worst(d));
			test_failures++;
		}
		/* The counts tell this recipe from the ones that do not follow the kernel. */
		for (int n = 0; n < k.nnot; n++) {
			const struct recipe *other = recipe_by_name(k.not_recipe[n]);
			double od[NK];

			if (other && compare(&k, other, od))
				printf("%-18s   (recipe %s on these counts: %.4f off)\n", "",
				       other->name, worst(od));
			if (!other || !compare(&k, other, od) || worst(od) <= 0.01) {
				fprintf(stderr,
					"%s: recipe %s should disagree with the kernel here\n",
					path, k.not_recipe[n]);
				test_failures++;
			}
		}
		kernel_file_release(&k);
	}
	unsetenv("IPCC_SYSFS_ROOT");
	CHECK_CMP(int, files, >=, 14);
	return TEST_OK;
}
