/*
 * stat_output.c - ipcc stat's output: text (perf-stat style), JSON and CSV. Absent counters
 * print as n/a (JSON null) with their reasons; never as 0.
 */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ipcc/breakdown.h"
#include "ipcc/error.h"
#include "ipcc/export.h"
#include "stat_int.h"

/* One counter over the runs: the median, min and max of the runs where it was valid. */
struct agg {
	bool valid;
	double median, min, max, coverage;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static struct agg aggregate(const double *v, unsigned n)
{
	double *s = malloc(sizeof(*s) * (n ? n : 1));
	struct agg a = { .valid = n > 0, .coverage = 1.0 };

	if (!s || n == 0) {
		free(s);
		a.valid = false;
		return a;
	}
	memcpy(s, v, sizeof(*s) * n);
	qsort(s, n, sizeof(*s), cmp_double);
	a.min = s[0];
	a.max = s[n - 1];
	a.median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return a;
}

/* Everything the printers show, aggregated over the runs. */
struct view {
	const struct stat_result *r;
	struct agg elapsed, user, sys, ctr[IPCC_NCOUNTERS], extra[IPCC_MAX_EXTRA];
	struct ipcc_interval med; /* the medians, as an interval, for the breakdown and metrics */
	struct ipcc_breakdown bd;
	struct ipcc_metrics m;
};

static void build_view(const struct stat_result *r, struct view *v)
{
	unsigned n = r->nruns;
	double *x = calloc(n, sizeof(*x));

	memset(v, 0, sizeof(*v));
	v->r = r;
	for (unsigned i = 0; i < n; i++)
		x[i] = (double)r->run[i].elapsed_ns;
	v->elapsed = aggregate(x, n);
	for (unsigned i = 0; i < n; i++)
		x[i] = (double)r->run[i].user_ns;
	v->user = aggregate(x, r->watched || r->has_model ? 0 : n);
	for (unsigned i = 0; i < n; i++)
		x[i] = (double)r->run[i].sys_ns;
	v->sys = aggregate(x, r->watched || r->has_model ? 0 : n);
	for (int c = 0; c < IPCC_NCOUNTERS; c++) {
		unsigned k = 0;
		double cov = 1.0;

		for (unsigned i = 0; i < n; i++)
			if (r->run[i].iv.valid & (1u << c)) {
				x[k++] = (double)r->run[i].iv.value[c];
				cov = fmin(cov, r->run[i].iv.coverage[c]);
			}
		/* Valid only when every run measured it. */
		v->ctr[c] = aggregate(x, k == n ? k : 0);
		v->ctr[c].coverage = cov;
		if (v->ctr[c].valid) {
			v->med.value[c] = llround(v->ctr[c].median);
			v->med.valid |= 1u << c;
		}
	}
	for (unsigned e = 0; e < ipcc_counters_nextra(r->set); e++) {
		unsigned k = 0;
		double cov = 1.0;

		for (unsigned i = 0; i < n; i++)
			if (r->run[i].iv.extra_valid & (1u << e)) {
				x[k++] = (double)r->run[i].iv.extra[e];
				cov = fmin(cov, r->run[i].iv.extra_coverage[e]);
			}
		v->extra[e] = aggregate(x, k == n ? k : 0);
		v->extra[e].coverage = cov;
	}
	free(x);
	v->med.elapsed_ns = (uint64_t)llround(v->elapsed.median);
	v->med.width = n ? r->run[n - 1].iv.width : 0;
	ipcc_breakdown(&v->med, &v->bd);
	ipcc_metrics(&v->med, r->tc.khz, &v->m);
}

/* ---- text ------------------------------------------------------------------------------ */

static const struct {
	enum ipcc_counter c;
	const char *label;
	const char *unit;
} text_rows[] = {
	{ IPCC_TASK_CLOCK_NS, "task clock", "ns" },
	{ IPCC_CONTEXT_SWITCHES, "context switches", "" },
	{ IPCC_MIGRATIONS, "CPU migrations", "" },
	{ IPCC_PAGE_FAULTS, "page faults", "" },
	{ IPCC_INSTRUCTIONS, "instructions", "" },
	{ IPCC_CYCLES, "cycles", "" },
	{ IPCC_REF_CYCLES, "reference cycles", "" },
	{ IPCC_INSTRUCTIONS_K, "instructions (kernel)", "" },
	{ IPCC_CYCLES_K, "cycles (kernel)", "" },
	{ IPCC_SLOTS_TOTAL, "slots total", "" },
	{ IPCC_SLOTS_FILLED, "slots filled", "" },
	{ IPCC_SLOTS_ISSUED, "slots issued", "" },
	{ IPCC_SLOTS_RETIRED, "slots retired", "" },
	{ IPCC_SLOTS_SMT, "slots lost to SMT", "" },
};

static void text_value(FILE *out, const char *label, const struct agg *a, const char *unit,
		       unsigned nruns)
{
	if (!a->valid) {
		fprintf(out, "  %-24s %18s\n", label, "n/a");
		return;
	}
	fprintf(out, "  %-24s %18.0f%s%s", label, a->median, *unit ? " " : "", unit);
	if (nruns > 1)
		fprintf(out, " (min %.0f, max %.0f)", a->min, a->max);
	if (a->coverage < 1.0)
		fprintf(out, " (counted %.0f%% of the time, scaled)", a->coverage * 100);
	fputc('\n', out);
}

static void text_ratio(FILE *out, const char *label, double v, const char *fmt, const char *unit)
{
	char buf[32];

	if (isnan(v)) {
		fprintf(out, "  %-24s %18s\n", label, "n/a");
		return;
	}
	snprintf(buf, sizeof(buf), fmt, v);
	fprintf(out, "  %-24s %18s %s\n", label, buf, unit);
}

static void text_bar(FILE *out, const char *label, double f)
{
	char bar[41];
	int n = (int)lround(f * 40);

	memset(bar, '#', (size_t)n);
	bar[n] = '\0';
	fprintf(out, "    %-22s %6.3f  %s\n", label, f, bar);
}

/* The absent counters, grouped by reason. */
static void text_absent(FILE *out, const struct stat_result *r, const struct view *v)
{
	bool done[IPCC_NCOUNTERS] = { false }, header = false;

	for (int c = 0; c < IPCC_NCOUNTERS; c++) {
		const char *why = ipcc_counters_absent(r->set, c);

		if (done[c] || v->ctr[c].valid)
			continue;
		if (!why)
			why = "not measured in every run";
		if (!header) {
			fprintf(out, "\nabsent counters:\n");
			header = true;
		}
		fprintf(out, "  %s", ipcc_counter_name(c));
		for (int d = c + 1; d < IPCC_NCOUNTERS; d++) {
			const char *w = ipcc_counters_absent(r->set, d);

			if (!done[d] && !v->ctr[d].valid && w && strcmp(w, why) == 0) {
				fprintf(out, ", %s", ipcc_counter_name(d));
				done[d] = true;
			}
		}
		fprintf(out, ":\n      %s\n", why);
	}
	for (unsigned e = 0; e < ipcc_counters_nextra(r->set); e++) {
		const char *why = ipcc_counters_extra_absent(r->set, e);

		if (!v->extra[e].valid && why)
			fprintf(out, "  %s:\n      %s\n", ipcc_counters_extra_name(r->set, e), why);
	}
}

static void text_regions(FILE *out, const char *file);

static void print_text(FILE *out, const struct stat_result *r, const struct view *v)
{
	const char *recipe = ipcc_counters_recipe(r->set);
	const char *notes = ipcc_counters_notes(r->set);

	if (r->watched)
		fprintf(out, "ipcc stat: process %d (%d threads)\n", (int)r->pid, r->nthreads);
	else {
		fprintf(out, "ipcc stat:");
		for (int i = 0; i < r->argc; i++)
			fprintf(out, " %s", r->argv[i]);
		fprintf(out, r->nruns > 1 ? "  (%u runs: median, min, max)\n" : "\n", r->nruns);
	}
	if (r->has_model)
		fprintf(out, "  backend model, profile %s (every counter modelled: see below)",
			r->model.profile);
	else
		fprintf(out, "  backend %s, recipe %s",
			ipcc_backend_name(ipcc_counters_backend(r->set)), recipe ? recipe : "none");
	/* Fell back to time: name the recipe this CPU would count with, and the CPU. */
	if (!recipe && r->backend_asked != IPCC_BACKEND_TIME && !r->has_model)
		fprintf(out, " (this CPU's is %s: %s)",
			ipcc_counters_cpu_recipe(r->set) ? ipcc_counters_cpu_recipe(r->set)
							 : "none",
			ipcc_counters_cpu(r->set));
	fputs("\n\n", out);

	text_value(out, r->has_model ? "elapsed (modelled)" : "elapsed", &v->elapsed, "ns",
		   r->nruns);
	fprintf(out, "  %-24s %18" PRIu64 " kHz  %s, +-%.1f ppm\n", "TCFREQ", r->tc.khz,
		ipcc_freq_source_name(r->tc.source), r->tc.ppm);
	if (r->core.khz) {
		fprintf(out, "  %-24s %18" PRIu64 " kHz  %s, %s\n", "core frequency", r->core.khz,
			ipcc_freq_source_name(r->core.source),
			r->has_model	? "kept for the boot: the model's time and IPCC use it"
			: r->core_after ? "measured after the run"
					: "measured while the command ran");
		if (ipcc_freq_disagrees(&r->core))
			fprintf(out,
				"  %-24s %18.0f kHz  imul chain: DISAGREES by %.1f%% (a busy SMT "
				"sibling, or a latency ipcc assumes wrongly here)\n",
				"", r->core.check_hz / 1e3,
				100 * fabs(r->core.check_hz - r->core.hz) / r->core.hz);
	} else
		fprintf(out, "  %-24s %18s\n", "core frequency", "n/a");
	if (!r->has_model) { /* under the model: Valgrind's, not the program's */
		text_value(out, "user time", &v->user, "ns", r->nruns);
		text_value(out, "system time", &v->sys, "ns", r->nruns);
	}
	for (size_t i = 0; i < sizeof(text_rows) / sizeof(text_rows[0]); i++)
		text_value(out, text_rows[i].label, &v->ctr[text_rows[i].c], text_rows[i].unit,
			   r->nruns);
	for (unsigned e = 0; e < ipcc_counters_nextra(r->set); e++)
		text_value(out, ipcc_counters_extra_name(r->set, e), &v->extra[e], "", r->nruns);

	fputc('\n', out);
	text_ratio(out, "IPC", v->m.ipc, "%.3f", "instructions per cycle");
	text_ratio(out, "IPCC", v->m.ipcc, "%.3f", "instructions per constant cycle");
	text_ratio(out, "CPUs utilised", v->m.cpu_utilisation, "%.3f", "task clock / elapsed");
	text_ratio(out, "core utilisation", v->m.utilisation, "%.3f", "ref. cycles / ticks");
	text_ratio(out, "frequency, not halted", v->m.avg_khz, "%.0f", "kHz");
	text_ratio(out, "net frequency", v->m.net_khz, "%.0f", "kHz");
	text_ratio(out, "kernel instructions", v->m.kernel_instructions, "%.3f", "of all");
	text_ratio(out, "kernel cycles", v->m.kernel_cycles, "%.3f", "of all");

	fputc('\n', out);
	if (v->bd.valid) {
		fprintf(out, "  where the slots went (%" PRId64 " slots, %u per cycle)\n",
			v->bd.total, v->med.width);
		text_bar(out, "front-end stall", v->bd.frontend);
		text_bar(out, "back-end stall", v->bd.backend);
		if (!isnan(v->bd.smt))
			fprintf(out, "      %-20s %6.3f\n", "of which SMT", v->bd.smt);
		text_bar(out, "wasted speculation", v->bd.speculation);
		text_bar(out, "retiring", v->bd.retiring);
		if (v->bd.flags)
			fprintf(out,
				"    the raw slot counters disagree (flags %#x); clamped to make "
				"the split, raw values above\n",
				v->bd.flags);
		if (ipcc_counters_approximation(r->set))
			fprintf(out, "    approximation: %s\n",
				ipcc_counters_approximation(r->set));
		if (ipcc_counters_differs_from_kernel(r->set))
			fprintf(out, "    differs from the kernel's level 1: %s\n",
				ipcc_counters_differs_from_kernel(r->set));
	} else {
		fprintf(out, "  %-24s %18s  (the slot counters are absent)\n",
			"where the slots went", "n/a");
	}
	if (r->watched && r->per_thread) {
		fprintf(out, "\n  %8s %18s %18s %18s\n", "thread", "task clock ns", "instructions",
			"cycles");
		for (int i = 0; i < r->nthreads; i++) {
			const struct ipcc_interval *iv = &r->thread_iv[i];
			char cell[3][24];
			const enum ipcc_counter cs[3] = { IPCC_TASK_CLOCK_NS, IPCC_INSTRUCTIONS,
							  IPCC_CYCLES };

			for (int k = 0; k < 3; k++)
				if (iv->valid & (1u << cs[k]))
					snprintf(cell[k], sizeof(cell[k]), "%" PRId64,
						 iv->value[cs[k]]);
				else
					snprintf(cell[k], sizeof(cell[k]), "n/a");
			fprintf(out, "  %8d %18s %18s %18s\n", (int)r->tid[i], cell[0], cell[1],
				cell[2]);
		}
	}
	if (r->has_model)
		stat_model_text(out, r);
	text_absent(out, r, v);
	if (*notes)
		fprintf(out, "\nnotes:\n  %.*s\n", (int)strlen(notes) - 1, notes);
	if (r->watched)
		fprintf(out, "\n  threads started after ipcc attached are not counted\n");
	if (r->interrupted)
		fprintf(out, "\n  interrupted by signal %d: the counts so far\n", r->interrupted);
	if (r->regions_file)
		text_regions(out, r->regions_file);
}

/* The regions the command wrote to IPCC_OUTPUT (see include/ipcc/region.h). */
static void text_regions(FILE *out, const char *file)
{
	json_error_t err;
	json_t *root = json_load_file(file, 0, &err), *regions, *reg;
	size_t i;

	fprintf(out, "\nregions\n");
	if (!root) {
		fprintf(out,
			"  none: the command wrote no regions (is it built with ipcc regions?)\n");
		return;
	}
	regions = json_object_get(root, "regions");
	fprintf(out, "  %-20s %8s %8s %16s %14s %14s %14s\n", "region", "thread", "calls",
		"total ns", "mean ns", "min ns", "max ns");
	json_array_foreach(regions, i, reg)
	{
		json_t *t = json_object_get(json_object_get(reg, "counters"), "elapsed_ns");
		json_int_t calls = json_integer_value(json_object_get(reg, "calls"));
		double total = json_number_value(json_object_get(t, "total"));

		fprintf(out,
			"  %-20s %8" JSON_INTEGER_FORMAT " %8" JSON_INTEGER_FORMAT
			" %16.0f %14.1f %14.0f %14.0f\n",
			json_string_value(json_object_get(reg, "name")),
			json_integer_value(json_object_get(reg, "thread")), calls, total,
			calls ? total / (double)calls : 0.0,
			json_number_value(json_object_get(t, "min")),
			json_number_value(json_object_get(t, "max")));
	}
	fprintf(out, "  read overhead subtracted: %.1f ns per begin/end pair (backend %s)\n",
		json_number_value(json_object_get(root, "overhead_ns")),
		json_string_value(json_object_get(root, "backend")));
	json_decref(root);
}

/* ---- JSON ------------------------------------------------------------------------------ */

static json_t *jnum(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static json_t *jagg(const struct agg *a)
{
	return a->valid ? json_integer((json_int_t)llround(a->median)) : json_null();
}

static void print_json(FILE *out, const struct stat_result *r, const struct view *v)
{
	json_t *root = json_object(), *ctr = json_object(), *cov = json_object(),
	       *absent = json_object(), *extra = json_object(), *notes = json_array(), *cmd;
	const char *recipe = ipcc_counters_recipe(r->set), *approx;
	char *copy, *line, *save;

	if (r->watched) {
		cmd = json_null();
	} else {
		cmd = json_array();
		for (int i = 0; i < r->argc; i++)
			json_array_append_new(cmd, json_string(r->argv[i]));
	}
	json_object_set_new(root, "command", cmd);
	json_object_set_new(root, "pid", r->watched ? json_integer(r->pid) : json_null());
	json_object_set_new(root, "backend",
			    json_string(ipcc_backend_name(ipcc_counters_backend(r->set))));
	json_object_set_new(root, "cpu", json_string(ipcc_counters_cpu(r->set)));
	json_object_set_new(root, "cpu_recipe",
			    ipcc_counters_cpu_recipe(r->set)
				? json_string(ipcc_counters_cpu_recipe(r->set))
				: json_null());
	json_object_set_new(root, "recipe", recipe ? json_string(recipe) : json_null());
	approx = ipcc_counters_approximation(r->set);
	json_object_set_new(root, "approximation", approx ? json_string(approx) : json_null());
	approx = ipcc_counters_differs_from_kernel(r->set);
	json_object_set_new(root, "differs_from_kernel",
			    approx ? json_string(approx) : json_null());
	json_object_set_new(root, "runs", json_integer(r->nruns));
	json_object_set_new(root, "elapsed_ns", jagg(&v->elapsed));
	json_object_set_new(root, "tcfreq_khz", json_integer((json_int_t)r->tc.khz));
	json_object_set_new(root, "tcfreq_source",
			    json_string(ipcc_freq_source_name(r->tc.source)));
	json_object_set_new(root, "core_khz",
			    r->core.khz ? json_integer((json_int_t)r->core.khz) : json_null());
	json_object_set_new(root, "core_source",
			    json_string(ipcc_freq_source_name(r->core.source)));
	json_object_set_new(root, "core_check_khz",
			    r->core.check_hz > 0 ? json_real(r->core.check_hz / 1e3) : json_null());
	json_object_set_new(root, "user_ns", jagg(&v->user));
	json_object_set_new(root, "sys_ns", jagg(&v->sys));

	for (int c = 0; c < IPCC_NCOUNTERS; c++) {
		const char *why = ipcc_counters_absent(r->set, c);

		json_object_set_new(ctr, ipcc_counter_name(c), jagg(&v->ctr[c]));
		json_object_set_new(cov, ipcc_counter_name(c),
				    v->ctr[c].valid ? json_real(v->ctr[c].coverage) : json_null());
		if (!v->ctr[c].valid)
			json_object_set_new(absent, ipcc_counter_name(c),
					    json_string(why ? why : "not measured in every run"));
	}
	json_object_set_new(root, "counters", ctr);
	json_object_set_new(root, "coverage", cov);
	if (r->nruns > 1) {
		json_t *mn = json_object(), *mx = json_object();

		for (int c = 0; c < IPCC_NCOUNTERS; c++) {
			json_object_set_new(mn, ipcc_counter_name(c),
					    v->ctr[c].valid ? json_real(v->ctr[c].min)
							    : json_null());
			json_object_set_new(mx, ipcc_counter_name(c),
					    v->ctr[c].valid ? json_real(v->ctr[c].max)
							    : json_null());
		}
		json_object_set_new(mn, "elapsed_ns", json_real(v->elapsed.min));
		json_object_set_new(mx, "elapsed_ns", json_real(v->elapsed.max));
		json_object_set_new(root, "min", mn);
		json_object_set_new(root, "max", mx);
	}
	for (unsigned e = 0; e < ipcc_counters_nextra(r->set); e++) {
		const char *name = ipcc_counters_extra_name(r->set, e);
		const char *why = ipcc_counters_extra_absent(r->set, e);

		json_object_set_new(extra, name, jagg(&v->extra[e]));
		if (!v->extra[e].valid)
			json_object_set_new(absent, name, json_string(why ? why : "not measured"));
	}
	json_object_set_new(root, "extra", extra);
	json_object_set_new(root, "absent", absent);
	json_object_set_new(
	    root, "breakdown",
	    v->bd.valid ? json_pack("{s:o,s:o,s:o,s:o,s:o,s:i}", "frontend", jnum(v->bd.frontend),
				    "backend", jnum(v->bd.backend), "speculation",
				    jnum(v->bd.speculation), "retiring", jnum(v->bd.retiring),
				    "smt", jnum(v->bd.smt), "flags", (int)v->bd.flags)
			: json_null());
	json_object_set_new(root, "ipc", jnum(v->m.ipc));
	json_object_set_new(root, "ipcc", jnum(v->m.ipcc));
	json_object_set_new(root, "cpu_utilisation", jnum(v->m.cpu_utilisation));
	json_object_set_new(root, "core_utilisation", jnum(v->m.utilisation));
	json_object_set_new(root, "avg_khz", jnum(v->m.avg_khz));
	json_object_set_new(root, "net_khz", jnum(v->m.net_khz));
	json_object_set_new(root, "kernel_instructions", jnum(v->m.kernel_instructions));
	json_object_set_new(root, "kernel_cycles", jnum(v->m.kernel_cycles));
	copy = strdup(ipcc_counters_notes(r->set));
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		json_array_append_new(notes, json_string(line));
	free(copy);
	json_object_set_new(root, "notes", notes);
	json_object_set_new(root, "interrupted_by",
			    r->interrupted ? json_integer(r->interrupted) : json_null());
	json_object_set_new(root, "exit_status",
			    r->watched ? json_null()
				       : json_integer(r->run[r->nruns - 1].exit_status));
	if (r->regions_file) {
		json_t *reg = json_load_file(r->regions_file, 0, NULL);

		json_object_set_new(root, "regions", reg ? reg : json_null());
	}
	if (r->has_model)
		stat_model_json(root, r);
	if (r->model_regions)
		json_object_set_new(root, "regions", stat_model_regions_json(r));
	json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
	fputc('\n', out);
	json_decref(root);
}

/* ---- CSV ------------------------------------------------------------------------------- */

static void csv_row(FILE *out, const char *name, const struct agg *a, const char *unit,
		    const char *why)
{
	if (a->valid)
		fprintf(out, "%s,%.0f,%s,%.0f,%.0f,%.4f,\n", name, a->median, unit, a->min, a->max,
			a->coverage);
	else
		fprintf(out, "%s,,%s,,,,\"%s\"\n", name, unit, why ? why : "not measured");
}

static void csv_metric(FILE *out, const char *name, double v, const char *unit)
{
	if (isnan(v))
		fprintf(out, "%s,,%s,,,,\"absent: its counters were not measured\"\n", name, unit);
	else
		fprintf(out, "%s,%.6g,%s,,,,\n", name, v, unit);
}

static void print_csv(FILE *out, const struct stat_result *r, const struct view *v)
{
	struct agg tc = { .valid = true,
			  .median = (double)r->tc.khz,
			  .min = (double)r->tc.khz,
			  .max = (double)r->tc.khz,
			  .coverage = 1 };

	fprintf(out, "name,value,unit,min,max,coverage,absent\n");
	csv_row(out, "elapsed", &v->elapsed, "ns", NULL);
	csv_row(out, "tcfreq", &tc, "kHz", NULL);
	csv_row(out, "user_time", &v->user, "ns", "not known for a watched process");
	csv_row(out, "system_time", &v->sys, "ns", "not known for a watched process");
	for (int c = 0; c < IPCC_NCOUNTERS; c++)
		csv_row(out, ipcc_counter_name(c), &v->ctr[c],
			c == IPCC_TASK_CLOCK_NS ? "ns" : "count", ipcc_counters_absent(r->set, c));
	for (unsigned e = 0; e < ipcc_counters_nextra(r->set); e++)
		csv_row(out, ipcc_counters_extra_name(r->set, e), &v->extra[e], "count",
			ipcc_counters_extra_absent(r->set, e));
	csv_metric(out, "ipc", v->m.ipc, "ratio");
	csv_metric(out, "ipcc", v->m.ipcc, "ratio");
	csv_metric(out, "frontend", v->bd.frontend, "fraction");
	csv_metric(out, "backend", v->bd.backend, "fraction");
	csv_metric(out, "speculation", v->bd.speculation, "fraction");
	csv_metric(out, "retiring", v->bd.retiring, "fraction");
	csv_metric(out, "cpu_utilisation", v->m.cpu_utilisation, "ratio");
	if (r->has_model)
		stat_model_csv(out, r);
}

/* ---- OpenMetrics ----------------------------------------------------------------------- */

/* Families of one sample: name, type, unit, help, value (NaN: absent, left out). */
static int om_one(struct ipcc_openmetrics *w, const char *name, enum ipcc_om_type type,
		  const char *unit, const char *help, double v)
{
	int ret = ipcc_openmetrics_family(w, name, type, unit, help);

	return ret ? ret : ipcc_openmetrics_sample(w, NULL, 0, v);
}

static double om_agg(const struct agg *a, double divisor)
{
	return a->valid ? a->median / divisor : NAN;
}

/*
 * Base units: seconds, hertz, ratios in [0,1], counts as counters. The command, CPU, recipe
 * and backend label every sample; an absent counter is left out and its reason is in
 * ipcc_absent_info.
 */
static int print_openmetrics(FILE *out, const struct stat_result *r, const struct view *v)
{
	struct ipcc_openmetrics *w = ipcc_openmetrics_new(out);
	const char *recipe = ipcc_counters_recipe(r->set);
	char *cmd;
	size_t len = 32;
	int ret;

	if (!w)
		return IPCC_ENOMEM;
	for (int i = 0; i < r->argc; i++)
		len += strlen(r->argv[i]) + 1;
	cmd = calloc(1, len);
	if (!cmd) {
		ipcc_openmetrics_free(w);
		return IPCC_ENOMEM;
	}
	if (r->watched)
		snprintf(cmd, len, "pid %d", (int)r->pid);
	for (int i = 0; i < r->argc; i++) {
		if (i)
			strcat(cmd, " ");
		strcat(cmd, r->argv[i]);
	}
	const struct ipcc_om_label base[] = {
		{ "command", cmd },
		{ "cpu_model", ipcc_counters_cpu(r->set) },
		{ "recipe", recipe ? recipe : "none" },
		{ "backend", ipcc_backend_name(ipcc_counters_backend(r->set)) },
	};
	ret = ipcc_openmetrics_labels(w, base, sizeof(base) / sizeof(base[0]));
#define ONE(name, type, unit, help, val)                              \
	do {                                                          \
		if (!ret)                                             \
			ret = om_one(w, name, type, unit, help, val); \
	} while (0)
	ONE("ipcc_runs", IPCC_OM_GAUGE, NULL, "Runs of the command the figures are the median of.",
	    (double)r->nruns);
	ONE("ipcc_exit_status", IPCC_OM_GAUGE, NULL,
	    "The command's exit status (128 + N for signal N).",
	    r->watched ? NAN : (double)r->run[r->nruns - 1].exit_status);
	ONE("ipcc_elapsed_seconds", IPCC_OM_GAUGE, "seconds", "Elapsed time of the command.",
	    om_agg(&v->elapsed, 1e9));
	ONE("ipcc_tcfreq_hertz", IPCC_OM_GAUGE, "hertz", "TCFREQ: the rate of the time counter.",
	    (double)r->tc.khz * 1e3);
	ONE("ipcc_core_frequency_hertz", IPCC_OM_GAUGE, "hertz",
	    "The frequency the core ran at, measured around the command.",
	    r->core.khz ? (double)r->core.khz * 1e3 : NAN);
	ONE("ipcc_user_seconds", IPCC_OM_GAUGE, "seconds", "User time of the command.",
	    om_agg(&v->user, 1e9));
	ONE("ipcc_system_seconds", IPCC_OM_GAUGE, "seconds", "System time of the command.",
	    om_agg(&v->sys, 1e9));
	ONE("ipcc_task_clock_seconds_total", IPCC_OM_COUNTER, "seconds",
	    "Time the command's tasks were on a CPU.", om_agg(&v->ctr[IPCC_TASK_CLOCK_NS], 1e9));
	if (!ret)
		ret = ipcc_openmetrics_family(
		    w, "ipcc_count_total", IPCC_OM_COUNTER, NULL,
		    "Counts of the command: instructions, cycles, slots, software and -e events.");
	for (int c = 0; c < IPCC_NCOUNTERS && !ret; c++) {
		const struct ipcc_om_label l = { "counter", ipcc_counter_name(c) };

		if (c != IPCC_TASK_CLOCK_NS)
			ret = ipcc_openmetrics_sample(w, &l, 1, om_agg(&v->ctr[c], 1));
	}
	for (unsigned e = 0; e < ipcc_counters_nextra(r->set) && !ret; e++) {
		const struct ipcc_om_label l = { "counter", ipcc_counters_extra_name(r->set, e) };

		ret = ipcc_openmetrics_sample(w, &l, 1, om_agg(&v->extra[e], 1));
	}
	ONE("ipcc_ipc_ratio", IPCC_OM_GAUGE, "ratio", "Instructions per core cycle.", v->m.ipc);
	ONE("ipcc_ipcc_ratio", IPCC_OM_GAUGE, "ratio",
	    "IPCC: instructions per constant cycle (of the time counter).", v->m.ipcc);
	if (!ret)
		ret = ipcc_openmetrics_family(
		    w, "ipcc_slots_ratio", IPCC_OM_GAUGE, "ratio",
		    "Where the issue slots went: the four parts sum to 1; smt is part of backend.");
	if (v->bd.valid) {
		const char *part[] = { "frontend", "backend", "speculation", "retiring", "smt" };
		const double f[] = { v->bd.frontend, v->bd.backend, v->bd.speculation,
				     v->bd.retiring, v->bd.smt };

		for (int i = 0; i < 5 && !ret; i++) {
			const struct ipcc_om_label l = { "slots", part[i] };

			ret = ipcc_openmetrics_sample(w, &l, 1, f[i]);
		}
	}
	ONE("ipcc_cpu_utilisation_ratio", IPCC_OM_GAUGE, "ratio", "Task clock over elapsed time.",
	    v->m.cpu_utilisation);
	ONE("ipcc_core_utilisation_ratio", IPCC_OM_GAUGE, "ratio",
	    "Reference cycles over time-counter ticks.", v->m.utilisation);
	ONE("ipcc_frequency_not_halted_hertz", IPCC_OM_GAUGE, "hertz",
	    "Average core frequency while not halted.", v->m.avg_khz * 1e3);
	ONE("ipcc_net_frequency_hertz", IPCC_OM_GAUGE, "hertz", "Core cycles over elapsed time.",
	    v->m.net_khz * 1e3);
	ONE("ipcc_kernel_instructions_ratio", IPCC_OM_GAUGE, "ratio",
	    "Instructions retired in kernel mode, of all.", v->m.kernel_instructions);
	ONE("ipcc_kernel_cycles_ratio", IPCC_OM_GAUGE, "ratio", "Cycles in kernel mode, of all.",
	    v->m.kernel_cycles);
#undef ONE
	if (!ret && r->has_model)
		ret = stat_model_openmetrics(w, r);
	if (!ret)
		ret = ipcc_openmetrics_family(w, "ipcc_absent_info", IPCC_OM_INFO, NULL,
					      "A counter that was not measured, and why.");
	for (int c = 0; c < IPCC_NCOUNTERS && !ret; c++) {
		const char *why = ipcc_counters_absent(r->set, c);
		const struct ipcc_om_label l[] = {
			{ "counter", ipcc_counter_name(c) },
			{ "reason", why ? why : "not measured in every run" },
		};

		if (!v->ctr[c].valid)
			ret = ipcc_openmetrics_sample(w, l, 2, 1);
	}
	for (unsigned e = 0; e < ipcc_counters_nextra(r->set) && !ret; e++) {
		const char *why = ipcc_counters_extra_absent(r->set, e);
		const struct ipcc_om_label l[] = {
			{ "counter", ipcc_counters_extra_name(r->set, e) },
			{ "reason", why ? why : "not measured" },
		};

		if (!v->extra[e].valid)
			ret = ipcc_openmetrics_sample(w, l, 2, 1);
	}
	if (!ret)
		ret = ipcc_openmetrics_end(w);
	ipcc_openmetrics_free(w);
	free(cmd);
	return ret;
}

int stat_print(FILE *out, enum cli_format format, const struct stat_result *r)
{
	struct view v;

	build_view(r, &v);
	if (format == FORMAT_OPENMETRICS)
		return print_openmetrics(out, r, &v);
	if (format == FORMAT_JSON)
		print_json(out, r, &v);
	else if (format == FORMAT_CSV)
		print_csv(out, r, &v);
	else
		print_text(out, r, &v);
	return 0;
}
