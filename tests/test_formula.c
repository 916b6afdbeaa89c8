/*
 * test_formula.c - the metric language (tests/data/formula.txt), every shipped metric worked
 * by hand (tests/data/metric-cases.txt), the generated top-down files against every recipe
 * case (tests/data/recipes.txt), counts files, the cycle tree, and parsers that never crash.
 */
#include <math.h>
#include <stdlib.h>

#include "ipcc/breakdown.h"
#include "ipcc/error.h"
#include "ipcc/formula.h"
#include "recipe_cases.h"
#include "test.h"

#define METRICS IPCC_SOURCE_DIR "/metrics"

static bool close_to(double got, double want)
{
	return fabs(got - want) <= 1e-12 * fmax(1.0, fabs(want));
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

/* name=value words (the value after the last '=') into counts. */
static void bind(struct ipcc_counts *c, char *words)
{
	char *save = NULL;

	for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		char *eq = strrchr(w, '=');

		*eq = '\0';
		ipcc_counts_set(c, w, strtod(eq + 1, NULL));
	}
}

TEST(language_cases_from_data_file)
{
	FILE *f = fopen(test_data("formula.txt"), "r");
	char line[1024];
	int lineno = 0, cases = 0;

	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f)) {
		char *p1, *p2, *text, *want;
		char formula[512];
		struct ipcc_formula *fm;
		struct ipcc_formula_error err;
		struct ipcc_counts *c = ipcc_counts_new();
		size_t k = 0;

		lineno++;
		if (line[0] == '#' || line[0] == '\n' || !(p1 = strchr(line, '|')) ||
		    !(p2 = strchr(p1 + 1, '|'))) {
			ipcc_counts_free(c);
			continue;
		}
		*p1 = *p2 = '\0';
		text = trim(line);
		for (const char *s = text; *s && k + 1 < sizeof(formula); s++)
			formula[k++] = s[0] == '\\' && s[1] == 'n' ? (s++, '\n') : *s;
		formula[k] = '\0';
		bind(c, trim(p1 + 1));
		want = trim(p2 + 1);
		cases++;
		if (want[0] == '!') {
			unsigned l, col;
			char *msg;

			sscanf(want + 1, "%u:%u", &l, &col);
			msg = strchr(want + 2, ' ') + 1;
			if (ipcc_formula_parse(formula, &fm, &err) != IPCC_EINVAL ||
			    err.line != l || err.column != col || !strstr(err.message, msg)) {
				fprintf(stderr, "formula.txt:%d: got %u:%u %s\n", lineno, err.line,
					err.column, err.message);
				test_failures++;
			}
			CHECK(fm == NULL);
		} else if (ipcc_formula_parse(formula, &fm, &err) != 0) {
			fprintf(stderr, "formula.txt:%d: %u:%u: %s\n", lineno, err.line, err.column,
				err.message);
			test_failures++;
		} else {
			double vals[16];
			unsigned flags;
			double v;

			for (unsigned i = 0; i < ipcc_formula_nvars(fm) && i < 16; i++)
				vals[i] = ipcc_counts_get(c, ipcc_formula_var(fm, i));
			v = ipcc_formula_eval(fm, vals, &flags);
			if (!strncmp(want, "nan", 3)) {
				unsigned wf =
				    strstr(want, "div0") ? IPCC_FORMULA_DIV0 : IPCC_FORMULA_MISSING;

				if (!isnan(v) || !(flags & wf)) {
					fprintf(stderr, "formula.txt:%d: got %g flags %#x\n",
						lineno, v, flags);
					test_failures++;
				}
			} else if (!close_to(v, strtod(want, NULL)) || flags) {
				fprintf(stderr, "formula.txt:%d: got %.17g flags %#x\n", lineno, v,
					flags);
				test_failures++;
			}
			ipcc_formula_free(fm);
		}
		ipcc_counts_free(c);
	}
	if (f)
		fclose(f);
	CHECK_CMP(int, cases, >=, 40);
	return TEST_OK;
}

TEST(dump_shows_the_tree)
{
	struct ipcc_formula *f;
	struct ipcc_formula_error err;
	char *d;

	CHECK_EQ(int, ipcc_formula_parse("((6*(b+c)+d)/a) if a > 0 else -1", &f, &err), 0);
	d = ipcc_formula_dump(f);
	CHECK_STR(d, "(if (> a 0) (/ (+ (* 6 (+ b c)) d) a) (neg 1))");
	free(d);
	ipcc_formula_free(f);
	return TEST_OK;
}

static const struct ipcc_metric_value *find(const struct ipcc_metric_value *v, unsigned n,
					    const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

TEST(every_shipped_metric_worked_by_hand)
{
	FILE *f = fopen(test_data("metric-cases.txt"), "r");
	char line[2048];
	int lineno = 0, cases = 0;

	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f)) {
		char *p[3], path[512];
		struct ipcc_metric_set *set;
		struct ipcc_counts *c;
		struct ipcc_metric_value v[32];
		struct ipcc_formula_error err;
		const struct ipcc_metric_value *m;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		p[0] = strchr(line, '|');
		p[1] = p[0] ? strchr(p[0] + 1, '|') : NULL;
		p[2] = p[1] ? strchr(p[1] + 1, '|') : NULL;
		if (!p[2]) {
			fprintf(stderr, "metric-cases.txt:%d: bad row\n", lineno);
			test_failures++;
			continue;
		}
		*p[0] = *p[1] = *p[2] = '\0';
		snprintf(path, sizeof(path), METRICS "/%s", trim(line));
		set = ipcc_metric_set_new();
		c = ipcc_counts_new();
		CHECK_EQ(int, ipcc_metrics_load(set, path, &err), 0);
		bind(c, trim(p[1] + 1));
		ipcc_metrics_eval(set, c, NULL, v);
		m = find(v, ipcc_metrics_count(set), trim(p[0] + 1));
		if (!m || !close_to(m->value, strtod(p[2] + 1, NULL))) {
			fprintf(stderr, "metric-cases.txt:%d: %s = %.17g (missing: %s)\n", lineno,
				trim(p[0] + 1), m ? m->value : NAN,
				m ? m->missing : "no such metric");
			test_failures++;
		}
		cases++;
		ipcc_counts_free(c);
		ipcc_metric_set_free(set);
	}
	if (f)
		fclose(f);
	CHECK_CMP(int, cases, >=, 21);
	return TEST_OK;
}

TEST(smt_split_parts_sum_to_core_time)
{
	struct ipcc_metric_set *set = ipcc_metric_set_new();
	struct ipcc_counts *c = ipcc_counts_new();
	struct ipcc_metric_value v[8];
	struct ipcc_formula_error err;
	double sum = 0;

	CHECK_EQ(int, ipcc_metrics_load(set, METRICS "/smt-split.xml", &err), 0);
	ipcc_counts_set(c, "tsc_ticks", 1000);
	ipcc_counts_set(c, "CPU_CLK_UNHALTED.REF_XCLK:any", 36);
	ipcc_counts_set(c, "ref_xclk_scale", 25);
	ipcc_counts_set(c, "ref_cycles_thread0", 700);
	ipcc_counts_set(c, "ref_cycles_thread1", 600);
	ipcc_metrics_eval(set, c, NULL, v);
	CHECK_STR(v[0].name, "core time");
	for (unsigned i = 1; i < 5; i++) {
		CHECK_EQ(int, v[i].parent_index, 0);
		CHECK_CMP(dbl, v[i].cycles, >=, 0);
		sum += v[i].cycles;
	}
	CHECK(close_to(sum, 1000));
	CHECK(!(v[0].flags & IPCC_METRIC_CHILDREN_EXCEED));
	ipcc_counts_free(c);
	ipcc_metric_set_free(set);
	return TEST_OK;
}

/* ipcc stat and ipcc metrics agree by construction: the generated files give the slot split. */
TEST(topdown_files_agree_with_the_recipes)
{
	struct recipe_case cases[32];
	int n = recipe_cases_load(test_data("recipes.txt"), cases, 32), checked = 0;

	for (int k = 0; k < n; k++) {
		const struct recipe_case *rc = &cases[k];
		char path[512];
		struct ipcc_metric_set *set = ipcc_metric_set_new();
		struct ipcc_counts *c = ipcc_counts_new();
		struct ipcc_metric_value v[16];
		struct ipcc_formula_error err;
		double t = (double)rc->slots[0], fi = (double)rc->slots[1];
		double is = (double)rc->slots[2], re = (double)rc->slots[3];
		const struct {
			const char *name;
			double want;
		} parts[] = { { "slots", t },
			      { "frontend stall", (t - fi) / t },
			      { "backend stall", (fi - is) / t },
			      { "wasted speculation", (is - re) / t },
			      { "retiring", re / t } };

		snprintf(path, sizeof(path), METRICS "/topdown-%s.xml", rc->recipe);
		CHECK_EQ(int, ipcc_metrics_load(set, path, &err), 0);
		for (unsigned e = 0; e < rc->nev; e++)
			ipcc_counts_set(c, rc->event[e], (double)rc->delta[e]);
		ipcc_counts_set(c, "slots_per_cycle", rc->width);
		ipcc_metrics_eval(set, c, NULL, v);
		for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
			const struct ipcc_metric_value *m =
			    find(v, ipcc_metrics_count(set), parts[i].name);

			if (!m || !close_to(m->value, parts[i].want)) {
				fprintf(stderr, "recipes.txt:%d: %s %s = %.17g, want %.17g (%s)\n",
					rc->line, rc->recipe, parts[i].name, m ? m->value : NAN,
					parts[i].want, m ? m->missing : "absent");
				test_failures++;
			}
		}
		if (rc->has_smt) {
			const struct ipcc_metric_value *m =
			    find(v, ipcc_metrics_count(set), "of which SMT contention");

			CHECK(m && close_to(m->value, (double)rc->slots[4] / t));
		}
		checked++;
		ipcc_counts_free(c);
		ipcc_metric_set_free(set);
	}
	CHECK_CMP(int, checked, >=, 13);
	return TEST_OK;
}

TEST(counts_from_perf_stat_csv_and_ipcc_stat_json)
{
	struct ipcc_counts *c = ipcc_counts_new();
	struct ipcc_formula_error err;
	struct ipcc_metric_set *set = ipcc_metric_set_new();
	struct ipcc_metric_value v[8];
	const struct ipcc_metric_value *m;

	CHECK_EQ(int, ipcc_counts_load(c, test_data("counts/perf-stat-skx.csv"), &err), 0);
	CHECK_CMP(dbl, ipcc_counts_get(c, "cpu_clk_unhalted.thread"), ==, 1000); /* any case */
	CHECK_CMP(dbl, ipcc_counts_get(c, "RS_EVENTS.EMPTY_CYCLES"), ==, 250);	 /* :u dropped */
	CHECK(ipcc_counts_has(c, "RESOURCE_STALLS.SB") &&
	      isnan(ipcc_counts_get(c, "RESOURCE_STALLS.SB")));
	CHECK_EQ(int, ipcc_metrics_load(set, METRICS "/levinthal-skx.xml", &err), 0);
	ipcc_metrics_eval(set, c, NULL, v);
	m = find(v, 6, "HIGH_LEVEL_CYCLE branch misprediction penalty");
	CHECK(m && close_to(m->value, 0.15) && close_to(m->cycles, 150));
	CHECK(m && close_to(m->share_of_parent, 0.15));
	m = find(v, 6, "HIGH_LEVEL_CYCLE no store buffer cycle fraction");
	CHECK(m && isnan(m->value) && strstr(m->missing, "RESOURCE_STALLS.SB"));
	m = find(v, 6, "HIGH_LEVEL_CYCLE load latency penalty");
	CHECK(m && isnan(m->value) && strstr(m->missing, "MEM_LOAD_RETIRED.L3_HIT"));
	ipcc_metric_set_free(set);
	ipcc_counts_free(c);

	c = ipcc_counts_new();
	CHECK_EQ(int, ipcc_counts_load(c, test_data("counts/ipcc-stat.json"), &err), 0);
	CHECK_CMP(dbl, ipcc_counts_get(c, "slots_total"), ==, 4000);
	CHECK_CMP(dbl, ipcc_counts_get(c, "BR_MISP_RETIRED.ALL_BRANCHES"), ==, 42); /* . is : */
	CHECK_CMP(dbl, ipcc_counts_get(c, "tsc_ticks"), ==, 2000000);
	CHECK(ipcc_counts_has(c, "slots_smt") && isnan(ipcc_counts_get(c, "slots_smt")));
	ipcc_counts_free(c);

	/* bad files say where */
	c = ipcc_counts_new();
	CHECK_EQ(int, ipcc_counts_load(c, test_data("formula.txt"), &err), IPCC_EINVAL);
	CHECK(err.line >= 1 && err.message[0]);
	CHECK_EQ(int, ipcc_counts_load(c, test_data("no-such-file"), &err), IPCC_ESYS);
	ipcc_counts_free(c);
	return TEST_OK;
}

static int load(struct ipcc_metric_set *set, const char *xml, struct ipcc_formula_error *err)
{
	return ipcc_metrics_load_text(set, xml, strlen(xml), "test.xml", err);
}

TEST(events_answer_to_their_other_names_and_files_keep_their_notes)
{
	static const char xml[] = "<note> differs from X </note>\n"
				  "<metric name=\"r\" unit=\"fraction\">\n"
				  "  <event alias=\"a\" also=\"cycles "
				  "CPU_CLK_UNHALTED.THREAD\">UNHALTED_CORE_CYCLES</event>\n"
				  "  <event alias=\"b\" also=\"d1+d2\">DISPATCHED</event>\n"
				  "  <formula>b / a</formula>\n"
				  "</metric>\n<note></note>";
	struct ipcc_metric_set *set = ipcc_metric_set_new();
	struct ipcc_counts *c = ipcc_counts_new();
	struct ipcc_formula_error err;
	struct ipcc_metric_value v[2];

	CHECK_EQ(int, load(set, xml, &err), 0);
	CHECK_STR(ipcc_metrics_note(set, 0), "differs from X"); /* trimmed; empty ones dropped */
	CHECK(ipcc_metrics_note(set, 1) == NULL);
	/* The event's own name first, then its other names in order; A+B is a sum. */
	ipcc_counts_set(c, "CPU_CLK_UNHALTED.THREAD", 1000);
	ipcc_counts_set(c, "d1", 300);
	ipcc_counts_set(c, "d2", 200);
	ipcc_metrics_eval(set, c, NULL, v);
	CHECK(close_to(v[0].value, 0.5) && !v[0].missing[0]);
	ipcc_counts_set(c, "unhalted_core_cycles", 500);
	ipcc_metrics_eval(set, c, NULL, v);
	CHECK(close_to(v[0].value, 1));
	/* Half a sum is no count: missing, by the event's own name. */
	ipcc_counts_free(c);
	c = ipcc_counts_new();
	ipcc_counts_set(c, "cycles", 1000);
	ipcc_counts_set(c, "d1", 300);
	ipcc_metrics_eval(set, c, NULL, v);
	CHECK(isnan(v[0].value) && !strcmp(v[0].missing, "DISPATCHED"));
	CHECK(isnan(ipcc_counts_get_any(c, "d1+d2 d3")));
	CHECK(close_to(ipcc_counts_get_any(c, "d3 d1 cycles"), 300));
	ipcc_counts_free(c);
	ipcc_metric_set_free(set);

	/* perf's hybrid names, cpu_atom/EVENT/, are read as EVENT as well. */
	c = ipcc_counts_new();
	CHECK_EQ(int, ipcc_counts_load(c, test_data("counts/perf-names-intel-gracemont.csv"), &err),
		 0);
	CHECK_CMP(dbl, ipcc_counts_get(c, "TOPDOWN_FE_BOUND.ALL"), ==, 1000000);
	CHECK_CMP(dbl, ipcc_counts_get(c, "cpu_atom/TOPDOWN_FE_BOUND.ALL/"), ==, 1000000);
	ipcc_counts_free(c);
	return TEST_OK;
}

TEST(tree_flags_overlap_negative_and_orphans)
{
	static const char xml[] =
	    "<metric name=\"cycles\" unit=\"cycles\"><formula>c</formula></metric>\n"
	    "<metric name=\"a\" parent=\"cycles\" "
	    "unit=\"fraction\"><formula>0.7</formula></metric>\n"
	    "<metric name=\"b\" parent=\"cycles\" "
	    "unit=\"fraction\"><formula>0.5</formula></metric>\n"
	    "<metric name=\"a1\" parent=\"a\" unit=\"fraction\"><formula>-0.1</formula></metric>\n"
	    "<metric name=\"lost\" parent=\"nowhere\" "
	    "unit=\"cycles\"><formula>1</formula></metric>\n"
	    "<metric name=\"x\" parent=\"y\" unit=\"cycles\"><formula>1</formula></metric>\n"
	    "<metric name=\"y\" parent=\"x\" unit=\"cycles\"><formula>2</formula></metric>\n"
	    "<metric name=\"ratio\" unit=\"ratio\"><formula>c / 0</formula></metric>\n";
	struct ipcc_metric_set *set = ipcc_metric_set_new();
	struct ipcc_counts *c = ipcc_counts_new();
	struct ipcc_metric_value v[8];
	struct ipcc_formula_error err;
	const struct ipcc_metric_value *m;

	CHECK_EQ(int, load(set, xml, &err), 0);
	ipcc_counts_set(c, "c", 1000);
	ipcc_metrics_eval(set, c, NULL, v);
	/* tree order: cycles, a, a1, b; then the others */
	CHECK_STR(v[0].name, "cycles");
	CHECK_STR(v[1].name, "a");
	CHECK_STR(v[2].name, "a1");
	CHECK_EQ(int, v[2].depth, 2);
	CHECK_STR(v[3].name, "b");
	CHECK(v[0].flags & IPCC_METRIC_CHILDREN_EXCEED); /* 0.7 + 0.5 > 1: flagged, not scaled */
	CHECK(close_to(v[1].cycles, 700) && close_to(v[3].cycles, 500));
	CHECK(close_to(v[1].share_of_parent, 0.7));
	CHECK(v[2].flags & IPCC_METRIC_NEGATIVE);
	CHECK(close_to(v[2].share_of_total, -0.1));
	m = find(v, 8, "lost");
	CHECK(m && (m->flags & IPCC_METRIC_NO_PARENT));
	m = find(v, 8, "x");
	CHECK(m && (m->flags & IPCC_METRIC_NO_PARENT));
	m = find(v, 8, "ratio");
	CHECK(m && isnan(m->value) && (m->flags & IPCC_FORMULA_DIV0));
	ipcc_counts_free(c);
	ipcc_metric_set_free(set);
	return TEST_OK;
}

TEST(metric_file_errors_say_where)
{
	static const struct {
		const char *xml;
		unsigned line;
		const char *says;
	} cases[] = {
		{ "<metric name=\"a\"><formula>1 +</formula></metric>", 1, "formula" },
		{ "<metric name=\"a\">\n<formula>x</formula>\n</metric\n", 4, "" },
		{ "<metric><formula>1</formula></metric>", 1, "without a name" },
		{ "<metric name=\"a\"></metric>", 1, "has no <formula>" },
		{ "<metric name=\"a\"><event>X</event><formula>1</formula></metric>", 1,
		  "without an alias" },
		{ "<metric name=\"a\">\n  <formul>1</formul></metric>", 2, "unknown element" },
		{ "<event alias=\"a\">X</event>", 1, "outside a <metric>" },
		{ "<metric name=\"a\"><formula>1</formula><formula>2</formula></metric>", 1,
		  "second <formula>" },
		{ "<metric name=\"a\"><formula>1 &amp;&amp; 2</formula></metric>", 1,
		  "unexpected" },
		{ "<metric name=\"a\"><formula>1</formula></metric><<", 1, "" },
		{ "<metric name=\"a\"><note>x</note><formula>1</formula></metric>", 1,
		  "<note> inside <metric>" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ipcc_metric_set *set = ipcc_metric_set_new();
		struct ipcc_formula_error err;

		if (load(set, cases[i].xml, &err) != IPCC_EINVAL || err.line != cases[i].line ||
		    !strstr(err.message, cases[i].says) || !err.message[0]) {
			fprintf(stderr, "case %zu: %u:%u: %s\n", i, err.line, err.column,
				err.message);
			test_failures++;
		}
		ipcc_metric_set_free(set);
	}
	return TEST_OK;
}

static void mutate(char *text, size_t cap, const char *alphabet)
{
	size_t len = strlen(text);

	for (unsigned m = 1 + test_rand(5); m > 0 && len > 0; m--) {
		unsigned at = test_rand((unsigned)len);

		switch (test_rand(3)) {
		case 0:
			text[at] = alphabet[test_rand((unsigned)strlen(alphabet))];
			break;
		case 1:
			memmove(text + at, text + at + 1, len - at);
			len--;
			break;
		default:
			if (len + 2 < cap) {
				memmove(text + at + 1, text + at, len - at + 1);
				text[at] = alphabet[test_rand((unsigned)strlen(alphabet))];
				len++;
			}
		}
	}
}

/* Mutated formulas and metric files: parsed or refused, never a crash (run under ASan). */
TEST(parsers_survive_mutated_input)
{
	static const char formula[] = "((6*(b+c)+d+((e-f)*g/e))/a) if min(a, 2) >= 1e3 else -x";
	static const char xml[] =
	    "<?xml version=\"1.0\"?><metric name=\"m\" parent=\"p\" unit=\"fraction\">"
	    "<event alias=\"a\">UOPS_ISSUED.ANY:c1</event><formula>(a+1)/max(a,2)</formula>"
	    "</metric>";
	int ok = 0, bad = 0;

	for (int t = 0; t < 20000; t++) {
		char text[sizeof(xml) + 64];
		struct ipcc_formula *f;
		struct ipcc_formula_error err;

		snprintf(text, sizeof(text), "%s", formula);
		mutate(text, sizeof(text), "()+-*/<>=!,.:_ abcdx019eifls\n\t$");
		if (ipcc_formula_parse(text, &f, &err) == 0) {
			double vals[32] = { 0 };
			char *d = ipcc_formula_dump(f);

			ipcc_formula_eval(f, vals, NULL);
			free(d);
			ipcc_formula_free(f);
			ok++;
		} else {
			CHECK(err.line >= 1 && err.column >= 1 && err.message[0]);
			bad++;
		}
		snprintf(text, sizeof(text), "%s", xml);
		mutate(text, sizeof(text), "<>/=\"'&;?! abcdemtrix()+*1");
		{
			struct ipcc_metric_set *set = ipcc_metric_set_new();
			struct ipcc_counts *c = ipcc_counts_new();
			struct ipcc_metric_value v[8];

			if (ipcc_metrics_load_text(set, text, strlen(text), "fuzz.xml", &err) ==
				0 &&
			    ipcc_metrics_count(set) <= 8)
				ipcc_metrics_eval(set, c, NULL, v);
			ipcc_counts_free(c);
			ipcc_metric_set_free(set);
		}
	}
	printf("%d formulas parsed, %d refused\n", ok, bad);
	CHECK(ok > 0 && bad > 0);
	return TEST_OK;
}
