/*
 * cmd_bench.c - ipcc bench: run microkernels and print what they establish (latency,
 * bandwidth, penalties, peak fractions), with a validation table where the PMU can count.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_int.h"
#include "cli.h"
#include "ipcc/clock.h"
#include "ipcc/counters.h"
#include "ipcc/error.h"
#include "ipcc/export.h"
#include "ipcc/fit.h"
#include "ipcc/kernels.h"
#include "ipcc/model.h"

const char cmd_bench_help[] =
    "usage: ipcc bench [KERNEL...] [options]\n"
    "       ipcc bench --block HEX | --blocks FILE [--model [--profile P]] [options]\n"
    "\n"
    "Run microkernels: loops whose counts per iteration are known exactly. For each, ns and\n"
    "core cycles per iteration, the figure it establishes (latency, GB/s, misprediction\n"
    "penalty, fraction of FMA peak, ...) and, where the PMU can count, a validation table of\n"
    "measured against expected counts. KERNEL is a name or a family (chain, latency, pages,\n"
    "bandwidth, branch, call, fma, atomic, skid); the default is every kernel.\n"
    "\n"
    "options:\n"
    "      --size S        working set of sized kernels (bytes, or with K, M, G)\n"
    "      --sweep A:B     sized kernels at every power of two from A to B\n"
    "      --threads N     bandwidth kernels in N threads at once (default 1)\n"
    "      --repeat N      measurements per point (default: until the median is stable)\n"
    "      --huge          ask for transparent huge pages for the working sets\n"
    "      --format FMT    text (default), json, csv or openmetrics (for Prometheus)\n"
    "      --svg FILE      also plot latency and bandwidth against size\n"
    "      --list          list the kernels and their expected counts\n"
    "      --body KERNEL   print a skid kernel's loop body (for ipcc sim)\n"
    "      --fit-profile BASE\n"
    "                      fit the pipeline model's profile BASE (a built-in, auto or a file)\n"
    "                      to this machine: the latencies, recovery, folding and ALU count\n"
    "                      the kernels measure; with -o FILE, write it (for --profile FILE)\n"
    "  -o, --output FILE   where --fit-profile writes the fitted profile\n"
    "      --block HEX     time one basic block (x86-64 machine code in hex) in a loop\n"
    "                      closed by dec/jnz on a register it leaves free: cycles per\n"
    "                      iteration, or why it cannot run (fault, division error, ...)\n"
    "      --blocks FILE   the same for one block a line (BHive's format: HEX[,PROGRAM])\n"
    "      --limit N       with --blocks: the first N blocks only\n"
    "      --passes N      with --block(s): passes over the whole list, spaced in time\n"
    "                      (default 2; the figure is the fewest cycles, from 3 passes\n"
    "                      the fewest another confirms within 1%; the spread shown)\n"
    "      --model         with --block(s): beside the pipeline model's prediction, with\n"
    "                      MAPE and Kendall's tau-b over all, by kind and by program\n"
    "      --profile P     with --model: a built-in profile, auto (default) or a file\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 success, 1 a kernel could not run, 2 bad usage (unknown kernel, size 0,\n"
    "more threads than CPUs).\n";

#define MAX_POINTS 64

struct bench_opts {
	struct ipcc_bench_opts run;
	uint64_t sweep_from, sweep_to;
	enum cli_format format;
	const char *svg;
	bool list;
	const char *body;
	const char *fit_base, *output;
	struct ipcc_model_profile base;
	char profile_note[320]; /* which profile --profile auto chose (cli_parse_profile) */
	char **names;
	int nnames;
	struct bench_blocks_opts blocks;
	const char *profile; /* --profile, for --model */
	struct ipcc_model_profile prof;
};

/* "64M", "4K", "1G", "4096": bytes. */
static int parse_size(const char *opt, const char *s, uint64_t *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v <= 0)
		return cli_usage_error("bench",
				       "%s wants a size above 0 (bytes, or with K, M, G), "
				       "not '%s'",
				       opt, s);
	switch (*end) {
	case 'G':
	case 'g':
		v *= 1024; /* fall through */
	case 'M':
	case 'm':
		v *= 1024; /* fall through */
	case 'K':
	case 'k':
		v *= 1024;
		end++;
		break;
	}
	if (*end == 'B' || *end == 'b' || *end == 'i')
		end += strspn(end, "iBb");
	if (*end || v < 1 || v > 64.0 * (1ull << 30))
		return cli_usage_error("bench", "%s wants a size from 1 byte to 64G, not '%s'", opt,
				       s);
	*out = (uint64_t)v;
	return 0;
}

static int parse(int argc, char **argv, struct bench_opts *o)
{
	enum {
		O_SIZE = 256,
		O_SWEEP,
		O_THREADS,
		O_REPEAT,
		O_HUGE,
		O_FORMAT,
		O_SVG,
		O_LIST,
		O_BODY,
		O_FIT,
		O_BLOCK,
		O_BLOCKS,
		O_LIMIT,
		O_PASSES,
		O_MODEL,
		O_PROFILE
	};
	static const struct option longopts[] = {
		{ "size", required_argument, NULL, O_SIZE },
		{ "sweep", required_argument, NULL, O_SWEEP },
		{ "threads", required_argument, NULL, O_THREADS },
		{ "repeat", required_argument, NULL, O_REPEAT },
		{ "huge", no_argument, NULL, O_HUGE },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "svg", required_argument, NULL, O_SVG },
		{ "list", no_argument, NULL, O_LIST },
		{ "body", required_argument, NULL, O_BODY },
		{ "fit-profile", required_argument, NULL, O_FIT },
		{ "output", required_argument, NULL, 'o' },
		{ "block", required_argument, NULL, O_BLOCK },
		{ "blocks", required_argument, NULL, O_BLOCKS },
		{ "limit", required_argument, NULL, O_LIMIT },
		{ "passes", required_argument, NULL, O_PASSES },
		{ "model", no_argument, NULL, O_MODEL },
		{ "profile", required_argument, NULL, O_PROFILE },
		{ NULL, 0, NULL, 0 },
	};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t v;
	int c, ret = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:", longopts, NULL)) != -1) {
		switch (c) {
		case O_SIZE:
			ret = parse_size("--size", optarg, &o->run.size);
			break;
		case O_SWEEP: {
			char *colon = strchr(optarg, ':');

			if (!colon)
				return cli_usage_error("bench", "--sweep wants A:B, not '%s'",
						       optarg);
			*colon = '\0';
			ret = parse_size("--sweep", optarg, &o->sweep_from);
			if (!ret)
				ret = parse_size("--sweep", colon + 1, &o->sweep_to);
			*colon = ':';
			if (!ret && o->sweep_from > o->sweep_to)
				return cli_usage_error("bench", "--sweep %s: A is larger than B",
						       optarg);
			break;
		}
		case O_THREADS:
			ret = cli_parse_u64("bench", "--threads", optarg, 1, (uint64_t)ncpu, &v);
			o->run.threads = (unsigned)v;
			break;
		case O_REPEAT:
			ret = cli_parse_u64("bench", "--repeat", optarg, 1, 31, &v);
			o->run.repeat = (unsigned)v;
			break;
		case O_HUGE:
			o->run.huge = true;
			break;
		case O_FORMAT:
			ret = cli_parse_format("bench", optarg,
					       1u << FORMAT_TEXT | 1u << FORMAT_JSON |
						   1u << FORMAT_CSV | 1u << FORMAT_OPENMETRICS,
					       &o->format);
			break;
		case O_SVG:
			o->svg = optarg;
			break;
		case O_LIST:
			o->list = true;
			break;
		case O_BODY:
			o->body = optarg;
			break;
		case O_FIT:
			o->fit_base = optarg;
			ret = cli_parse_profile("bench", optarg, &o->base, o->profile_note,
						sizeof(o->profile_note));
			break;
		case 'o':
			o->output = optarg;
			break;
		case O_BLOCK:
			o->blocks.block = optarg;
			break;
		case O_BLOCKS:
			o->blocks.blocks = optarg;
			break;
		case O_LIMIT:
			ret = cli_parse_u64("bench", "--limit", optarg, 1, 10000000, &v);
			o->blocks.limit = (size_t)v;
			break;
		case O_PASSES:
			ret = cli_parse_u64("bench", "--passes", optarg, 1, 8, &v);
			o->blocks.passes = (unsigned)v;
			break;
		case O_MODEL:
			o->blocks.model = true;
			break;
		case O_PROFILE:
			o->profile = optarg;
			break;
		default:
			return cli_bad_option("bench", c, argv);
		}
		if (ret)
			return ret;
	}
	o->names = argv + optind;
	o->nnames = argc - optind;
	if (o->run.size && o->sweep_from)
		return cli_usage_error("bench", "give --size or --sweep, not both");
	if (o->output && !o->fit_base)
		return cli_usage_error("bench", "-o is where --fit-profile writes: give both");
	if (o->fit_base && o->nnames)
		return cli_usage_error("bench", "--fit-profile runs its own kernels: name none");
	if (o->blocks.block && o->blocks.blocks)
		return cli_usage_error("bench", "give --block or --blocks, not both");
	if (!o->blocks.block && !o->blocks.blocks &&
	    (o->blocks.limit || o->blocks.passes || o->blocks.model))
		return cli_usage_error("bench", "--limit, --passes and --model go with --block(s)");
	if (o->profile && !o->blocks.model)
		return cli_usage_error("bench", "--profile goes with --model");
	if ((o->blocks.block || o->blocks.blocks) && (o->nnames || o->fit_base))
		return cli_usage_error("bench", "--block(s) runs blocks, not kernels");
	if (o->blocks.block && o->blocks.limit)
		return cli_usage_error("bench", "--limit goes with --blocks");
	if ((o->blocks.block || o->blocks.blocks) && o->format == FORMAT_OPENMETRICS)
		return cli_usage_error("bench", "--block(s) writes text, json or csv");
	if (o->blocks.model)
		ret = cli_parse_profile("bench", o->profile ? o->profile : "auto", &o->prof,
					o->profile_note, sizeof(o->profile_note));
	o->blocks.prof = &o->prof;
	o->blocks.format = o->format;
	if (!o->blocks.passes)
		o->blocks.passes = 2;
	return ret;
}

/* --fit-profile: measure, print the table, write the profile. */
static int fit_profile(const struct bench_opts *o)
{
	struct ipcc_fit_row rows[IPCC_FIT_ROWS];
	struct ipcc_model_profile fitted;
	char text[8192];
	int kw = (int)strlen("kernel or block"); /* the widest kernel name or block, to 34 */
	int pw = (int)strlen("parameter");	 /* the widest parameter name */

	ipcc_clock_init();
	if (ipcc_fit_profile(&o->base, &fitted, rows))
		return cli_error("bench", "%s", ipcc_last_error());
	for (int i = 0; i < IPCC_FIT_ROWS; i++) {
		if ((int)strlen(rows[i].kernel) > kw)
			kw = strlen(rows[i].kernel) > 34 ? 34 : (int)strlen(rows[i].kernel);
		if ((int)strlen(rows[i].param) > pw)
			pw = (int)strlen(rows[i].param);
	}
	if (*o->profile_note)
		fprintf(stderr, "%s\n", o->profile_note);
	printf("ipcc bench: profile %s fitted to this machine as %s\n\n", o->base.name,
	       fitted.name);
	printf("%-*s %-*s %12s %-11s %6s %6s  %s\n", pw, "parameter", kw, "kernel or block",
	       "measured", "", o->base.name, "fitted", "");
	for (int i = 0; i < IPCC_FIT_ROWS; i++) {
		const struct ipcc_fit_row *r = &rows[i];
		char
		    kernel[40]; /* a long block's first 31 digits and "..." (the man page has it) */

		snprintf(kernel, sizeof(kernel), "%.*s%s", strlen(r->kernel) > 34 ? 31 : 34,
			 r->kernel, strlen(r->kernel) > 34 ? "..." : "");
		if (isnan(r->measured))
			printf("%-*s %-*s %12s %-11s %6u %6s  %s\n", pw, r->param, kw, kernel,
			       "n/a", "", r->base, "-", r->note);
		else
			printf("%-*s %-*s %12.3f %-11s %6u %6u  %s\n", pw, r->param, kw, kernel,
			       r->measured, r->unit, r->base, r->fitted, r->note);
	}
	printf("(0 for mul_latency, lock_latency, fadd_latency and fmul_latency: the %s latencies "
	       "table's own)\n",
	       o->base.latencies[0] ? o->base.latencies : o->base.name);
	if (!o->output)
		return EXIT_OK;
	if (ipcc_model_profile_save(o->output, &fitted))
		return cli_error("bench", "%s", ipcc_last_error());
	if (ipcc_model_profile_format(&fitted, text, sizeof(text)) == 0)
		printf("\nwritten to %s:\n%s", o->output, text);
	return EXIT_OK;
}

/* Does kernel k match name (its full name, or a family prefix before '.')? */
static bool matches(const struct ipcc_kernel *k, const char *name)
{
	size_t n = strlen(name);

	return !strcmp(k->name, name) || (!strncmp(k->name, name, n) && k->name[n] == '.');
}

static void print_list(void)
{
	printf("%-26s %-18s %6s %6s %6s %6s %6s  %s\n", "kernel", "unit", "insns", "loads",
	       "stores", "branch", "misp", "purpose");
	for (unsigned i = 0; ipcc_kernel_at(i); i++) {
		const struct ipcc_kernel *k = ipcc_kernel_at(i);
		const double e[5] = { k->expect.instructions, k->expect.loads, k->expect.stores,
				      k->expect.branches, k->expect.mispredicts };

		printf("%-26s %-18s", k->name, k->unit);
		for (int j = 0; j < 5; j++)
			isnan(e[j]) ? printf(" %6s", "-") : printf(" %6g", e[j]);
		printf("  %s\n", k->purpose);
	}
	printf("\ncounts are per iteration, loop control included; '-': not fixed\n");
}

/* Every result of the run, for the printers. */
struct result {
	const struct ipcc_kernel *k;
	unsigned threads; /* for threaded kernels */
	struct ipcc_bench_point p[MAX_POINTS];
	unsigned np;
	char error[160];
	bool validated;
	struct ipcc_kernel_check check[IPCC_KERNEL_NCHECKS];
};

static const char *size_text(uint64_t b, char *buf, size_t len)
{
	if (b == 0)
		snprintf(buf, len, "-");
	else if (b >= (1ull << 30) && b % (1ull << 30) == 0)
		snprintf(buf, len, "%llu GiB", (unsigned long long)(b >> 30));
	else if (b >= (1ull << 20) && b % (1ull << 20) == 0)
		snprintf(buf, len, "%llu MiB", (unsigned long long)(b >> 20));
	else if (b >= 1024 && b % 1024 == 0)
		snprintf(buf, len, "%llu KiB", (unsigned long long)(b >> 10));
	else
		snprintf(buf, len, "%llu B", (unsigned long long)b);
	return buf;
}

static void print_text(const struct result *r, unsigned nr, const struct ipcc_freq *core,
		       const char *no_validation)
{
	printf("ipcc bench: core %" PRIu64 " kHz at the start (%s; each kernel's cycles use the "
	       "frequency measured around its own runs), TCFREQ %" PRIu64 " kHz\n",
	       core->khz, ipcc_freq_source_name(core->source), ipcc_tcfreq_khz(NULL));
	if (ipcc_freq_disagrees(core))
		printf("warning: the imul chain says %.0f kHz, %+.1f%% off the add chain: a busy "
		       "SMT sibling slows one more than the other, or a latency is not what ipcc "
		       "assumes on this core\n",
		       core->check_hz / 1e3, 100 * (core->check_hz - core->hz) / core->hz);
	putchar('\n');
	printf("figures from the best of the runs (STREAM's rule: a disturbance only adds time); "
	       "spread: (p90 - p10) / median\n\n");
	printf("%-30s %9s %10s %11s %10s %-18s %7s %4s\n", "kernel", "size", "ns/iter",
	       "cycles/iter", "value", "unit", "spread", "reps");
	for (unsigned i = 0; i < nr; i++) {
		if (r[i].error[0]) {
			printf("%-30s n/a: %s\n", r[i].k->name, r[i].error);
			continue;
		}
		for (unsigned j = 0; j < r[i].np; j++) {
			const struct ipcc_bench_point *p = &r[i].p[j];
			char sz[24];

			char name[48];

			snprintf(name, sizeof(name), r[i].threads > 1 ? "%s x%u threads" : "%s",
				 r[i].k->name, r[i].threads);
			printf("%-30s %9s %10.3f %11.2f %10.4g %-18s %6.1f%% %4u\n", name,
			       size_text(p->size_bytes, sz, sizeof(sz)), p->ns_best, p->cycles_best,
			       p->value, r[i].k->unit, 100 * p->spread, p->reps);
		}
	}
	if (*no_validation) {
		printf("\nvalidation (measured vs expected counts per iteration): n/a: %s\n",
		       no_validation);
		return;
	}
	printf("\nvalidation: counts per iteration, measured vs expected (pass: within 2%%)\n");
	printf("%-26s %-13s %12s %10s %8s  %s\n", "kernel", "event", "measured", "expected",
	       "ratio", "");
	for (unsigned i = 0; i < nr; i++)
		for (int c = 0; r[i].validated && c < IPCC_KERNEL_NCHECKS; c++) {
			const struct ipcc_kernel_check *ck = &r[i].check[c];

			if (isnan(ck->measured))
				printf("%-26s %-13s %12s %10s %8s  %s\n", r[i].k->name, ck->event,
				       "n/a", "", "", ck->absent);
			else if (isnan(ck->expected))
				printf("%-26s %-13s %12.3f %10s %8s  not fixed\n", r[i].k->name,
				       ck->event, ck->measured, "-", "");
			else
				printf("%-26s %-13s %12.3f %10g %8.3f  %s\n", r[i].k->name,
				       ck->event, ck->measured, ck->expected, ck->ratio,
				       ck->pass ? "PASS" : "FAIL");
		}
}

static json_t *jnum(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static void print_json(const struct result *r, unsigned nr, const struct ipcc_freq *core,
		       const char *no_validation)
{
	json_t *root = json_object(), *ks = json_array();

	json_object_set_new(root, "core_khz", json_integer((json_int_t)core->khz));
	json_object_set_new(root, "core_source", json_string(ipcc_freq_source_name(core->source)));
	json_object_set_new(root, "core_check_khz",
			    core->check_hz > 0 ? json_real(core->check_hz / 1e3) : json_null());
	json_object_set_new(root, "tcfreq_khz", json_integer((json_int_t)ipcc_tcfreq_khz(NULL)));
	for (unsigned i = 0; i < nr; i++) {
		json_t *k = json_object(), *pts = json_array();
		const struct ipcc_kernel_expect *e = &r[i].k->expect;

		json_object_set_new(k, "name", json_string(r[i].k->name));
		json_object_set_new(k, "threads", json_integer(r[i].threads));
		json_object_set_new(k, "unit", json_string(r[i].k->unit));
		json_object_set_new(
		    k, "expected",
		    json_pack("{s:o,s:o,s:o,s:o,s:o}", "instructions", jnum(e->instructions),
			      "loads", jnum(e->loads), "stores", jnum(e->stores), "branches",
			      jnum(e->branches), "mispredicts", jnum(e->mispredicts)));
		for (unsigned j = 0; j < r[i].np; j++) {
			const struct ipcc_bench_point *p = &r[i].p[j];

			json_array_append_new(
			    pts, json_pack("{s:I,s:f,s:f,s:f,s:f,s:f,s:o,s:f,s:i}", "size_bytes",
					   (json_int_t)p->size_bytes, "ns_per_iter", p->ns_per_iter,
					   "cycles_per_iter", p->cycles_per_iter, "ns_best",
					   p->ns_best, "cycles_best", p->cycles_best, "core_khz",
					   p->core_khz, "value", jnum(p->value), "spread",
					   p->spread, "reps", (int)p->reps));
		}
		json_object_set_new(k, "points", pts);
		json_object_set_new(k, "error",
				    r[i].error[0] ? json_string(r[i].error) : json_null());
		if (r[i].validated) {
			json_t *v = json_array();

			for (int c = 0; c < IPCC_KERNEL_NCHECKS; c++) {
				const struct ipcc_kernel_check *ck = &r[i].check[c];

				json_array_append_new(
				    v, json_pack("{s:s,s:o,s:o,s:o,s:b,s:o}", "event", ck->event,
						 "measured", jnum(ck->measured), "expected",
						 jnum(ck->expected), "ratio", jnum(ck->ratio),
						 "pass", ck->pass, "absent",
						 ck->absent[0] ? json_string(ck->absent)
							       : json_null()));
			}
			json_object_set_new(k, "validation", v);
		} else {
			json_object_set_new(k, "validation", json_null());
			json_object_set_new(
			    k, "validation_absent",
			    json_string(*no_validation ? no_validation : "the kernel did not run"));
		}
		json_array_append_new(ks, k);
	}
	json_object_set_new(root, "kernels", ks);
	json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
	fputc('\n', stdout);
	json_decref(root);
}

static void print_csv(const struct result *r, unsigned nr)
{
	printf("kernel,threads,size_bytes,ns_per_iter,cycles_per_iter,value,unit,spread,reps\n");
	for (unsigned i = 0; i < nr; i++)
		for (unsigned j = 0; j < r[i].np; j++) {
			const struct ipcc_bench_point *p = &r[i].p[j];

			printf("%s,%u,%" PRIu64 ",%.6g,%.6g,%.6g,%s,%.4f,%u\n", r[i].k->name,
			       r[i].threads, p->size_bytes, p->ns_per_iter, p->cycles_per_iter,
			       p->value, r[i].k->unit, p->spread, p->reps);
		}
}

/*
 * The OpenMetrics exposition: per kernel and size, seconds and cycles per iteration, the
 * figure in the kernel's unit, the spread, and measured / expected counts; labelled with the
 * CPU, the recipe and backend a counter set gets here, the kernel, its threads and size.
 * What could not be measured is left out, its reason in ipcc_absent_info.
 */
static int print_openmetrics(FILE *out, const struct result *r, unsigned nr,
			     const struct ipcc_freq *core, const char *no_validation)
{
	struct ipcc_counters_opts co = { .backend = IPCC_BACKEND_AUTO };
	struct ipcc_counter_set *set = NULL;
	struct ipcc_openmetrics *w = ipcc_openmetrics_new(out);
	const char *recipe;
	int ret;
	enum { SECONDS, CYCLES, VALUE, SPREAD, NFAM };
	static const struct {
		const char *name, *unit, *help;
	} fam[NFAM] = {
		{ "ipcc_bench_iteration_seconds", "seconds", "Time per iteration of the kernel." },
		{ "ipcc_bench_iteration_cycles", NULL,
		  "Core cycles per iteration (time x the core frequency around the runs)." },
		{ "ipcc_bench_value", NULL,
		  "The figure the kernel establishes, in the unit its label names." },
		{ "ipcc_bench_spread_ratio", "ratio",
		  "(p90 - p10) / median of the time per iteration over the repeats." },
	};

	if (!w)
		return IPCC_ENOMEM;
	if (ipcc_counters_open(&co, &set))
		set = NULL;
	recipe = set ? ipcc_counters_recipe(set) : NULL;
	const struct ipcc_om_label base[] = {
		{ "command", "ipcc bench" },
		{ "cpu_model", set ? ipcc_counters_cpu(set) : "unknown" },
		{ "recipe", recipe ? recipe : "none" },
		{ "backend", set ? ipcc_backend_name(ipcc_counters_backend(set)) : "time" },
	};
	ret = ipcc_openmetrics_labels(w, base, sizeof(base) / sizeof(base[0]));
	if (!ret)
		ret = ipcc_openmetrics_family(w, "ipcc_tcfreq_hertz", IPCC_OM_GAUGE, "hertz",
					      "TCFREQ: the rate of the time counter.");
	if (!ret)
		ret = ipcc_openmetrics_sample(w, NULL, 0, (double)ipcc_tcfreq_khz(NULL) * 1e3);
	if (!ret)
		ret = ipcc_openmetrics_family(w, "ipcc_core_frequency_hertz", IPCC_OM_GAUGE,
					      "hertz", "The core frequency at the start.");
	if (!ret)
		ret =
		    ipcc_openmetrics_sample(w, NULL, 0, core->khz ? (double)core->khz * 1e3 : NAN);
	for (int f = 0; f < NFAM && !ret; f++) {
		ret = ipcc_openmetrics_family(w, fam[f].name, IPCC_OM_GAUGE, fam[f].unit,
					      fam[f].help);
		for (unsigned i = 0; i < nr && !ret; i++)
			for (unsigned j = 0; j < r[i].np && !ret; j++) {
				const struct ipcc_bench_point *p = &r[i].p[j];
				char th[16], sz[24];
				const struct ipcc_om_label l[] = {
					{ "kernel", r[i].k->name },
					{ "threads", th },
					{ "size_bytes", sz },
					{ "unit", r[i].k->unit },
				};
				const double v[NFAM] = { p->ns_per_iter / 1e9, p->cycles_per_iter,
							 p->value, p->spread };

				snprintf(th, sizeof(th), "%u", r[i].threads);
				snprintf(sz, sizeof(sz), "%" PRIu64, p->size_bytes);
				ret = ipcc_openmetrics_sample(w, l, f == VALUE ? 4 : 3, v[f]);
			}
	}
	if (!ret)
		ret = ipcc_openmetrics_family(
		    w, "ipcc_bench_validation_ratio", IPCC_OM_GAUGE, "ratio",
		    "A count per iteration, measured over expected (1: as the kernel says).");
	for (unsigned i = 0; i < nr && !ret; i++)
		for (int c = 0; r[i].validated && c < IPCC_KERNEL_NCHECKS && !ret; c++) {
			const struct ipcc_om_label l[] = { { "kernel", r[i].k->name },
							   { "event", r[i].check[c].event } };

			ret = ipcc_openmetrics_sample(w, l, 2, r[i].check[c].ratio);
		}
	if (!ret)
		ret = ipcc_openmetrics_family(w, "ipcc_absent_info", IPCC_OM_INFO, NULL,
					      "A figure that was not measured, and why.");
	for (unsigned i = 0; i < nr && !ret; i++) {
		/* The kernel's own run failed, or none of its counts were measured. */
		const struct ipcc_om_label l[] = {
			{ "kernel", r[i].k->name },
			{ "counter", r[i].error[0] ? "kernel" : "validation" },
			{ "reason", r[i].error[0]    ? r[i].error
				    : *no_validation ? no_validation
						     : "the kernel did not run" },
		};

		if (r[i].error[0] || !r[i].validated) {
			ret = ipcc_openmetrics_sample(w, l, 3, 1);
			continue;
		}
		for (int c = 0; c < IPCC_KERNEL_NCHECKS && !ret; c++) {
			const struct ipcc_kernel_check *ck = &r[i].check[c];
			const struct ipcc_om_label la[] = { { "kernel", r[i].k->name },
							    { "counter", ck->event },
							    { "reason", ck->absent } };

			if (isnan(ck->measured))
				ret = ipcc_openmetrics_sample(w, la, 3, 1);
		}
	}
	if (!ret)
		ret = ipcc_openmetrics_end(w);
	ipcc_openmetrics_free(w);
	ipcc_counters_free(set);
	return ret;
}

/* The cache sizes sysfs states for cpu0 (level and bytes), for the plot. */
static unsigned cache_sizes(unsigned level[8], uint64_t bytes[8])
{
	unsigned n = 0;

	for (int i = 0; i < 8 && n < 8; i++) {
		char path[128], buf[32], type[32] = "";
		FILE *f;
		unsigned lv = 0;
		uint64_t sz = 0;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
		if (!(f = fopen(path, "r")))
			break;
		if (!fgets(type, sizeof(type), f))
			type[0] = '\0';
		fclose(f);
		if (!strncmp(type, "Instruction", 11))
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		if ((f = fopen(path, "r"))) {
			if (fscanf(f, "%u", &lv) != 1)
				lv = 0;
			fclose(f);
		}
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		if ((f = fopen(path, "r"))) {
			if (fgets(buf, sizeof(buf), f))
				sz = strtoull(buf, NULL, 10) *
				     (strchr(buf, 'M') ? 1 << 20 : 1 << 10);
			fclose(f);
		}
		if (lv && sz) {
			level[n] = lv;
			bytes[n++] = sz;
		}
	}
	return n;
}

/* One panel: value against log2(size), with the cache sizes marked. */
static void svg_panel(FILE *f, int y0, const char *title, const char *unit, const struct result *r,
		      unsigned nr, const char *family)
{
	const int x0 = 80, w = 640, h = 240;
	uint64_t lo = UINT64_MAX, hi = 0, cb[8];
	unsigned cl[8], nc = cache_sizes(cl, cb);
	double vmax = 0;
	static const char *const colors[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd" };
	int series = 0;

	for (unsigned i = 0; i < nr; i++)
		if (!strncmp(r[i].k->name, family, strlen(family)) && r[i].np > 1)
			for (unsigned j = 0; j < r[i].np; j++) {
				lo = r[i].p[j].size_bytes < lo ? r[i].p[j].size_bytes : lo;
				hi = r[i].p[j].size_bytes > hi ? r[i].p[j].size_bytes : hi;
				vmax = fmax(vmax, r[i].p[j].value);
			}
	if (hi <= lo || vmax <= 0)
		return;
	double lx0 = log2((double)lo), lx1 = log2((double)hi);
#define X(b) (x0 + (log2((double)(b)) - lx0) / (lx1 - lx0) * w)
#define Y(v) (y0 + h - (v) / (vmax * 1.1) * h)
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"15\" font-weight=\"bold\">%s</text>\n", x0,
		y0 - 12, title);
	fprintf(
	    f,
	    "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>\n",
	    x0, y0, w, h);
	for (double lx = ceil(lx0); lx <= lx1; lx += 2) {
		char sz[24];
		double x = x0 + (lx - lx0) / (lx1 - lx0) * w;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ccc\"/>\n",
			x, y0, x, y0 + h);
		fprintf(
		    f,
		    "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s</text>\n",
		    x, y0 + h + 16, size_text((uint64_t)exp2(lx), sz, sizeof(sz)));
	}
	for (int t = 0; t <= 4; t++) {
		double v = vmax * 1.1 * t / 4;

		fprintf(
		    f,
		    "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%.3g</text>\n",
		    x0 - 6, Y(v) + 4, v);
	}
	fprintf(f,
		"<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">working set "
		"(log scale)</text>\n",
		x0 + w / 2, y0 + h + 34);
	fprintf(f,
		"<text x=\"%d\" y=\"%d\" font-size=\"12\" transform=\"rotate(-90 %d %d)\" "
		"text-anchor=\"middle\">%s</text>\n",
		20, y0 + h / 2, 20, y0 + h / 2, unit);
	for (unsigned c = 0; c < nc; c++)
		if (cb[c] >= lo && cb[c] <= hi) {
			fprintf(f,
				"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\" "
				"stroke-dasharray=\"4 3\"/>\n",
				X(cb[c]), y0, X(cb[c]), y0 + h);
			fprintf(
			    f,
			    "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" fill=\"#555\">L%u</text>\n",
			    X(cb[c]) + 3, y0 + 12, cl[c]);
		}
	for (unsigned i = 0; i < nr; i++) {
		if (strncmp(r[i].k->name, family, strlen(family)) || r[i].np < 2)
			continue;
		fprintf(f, "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"%s\" points=\"",
			colors[series % 4]);
		for (unsigned j = 0; j < r[i].np; j++)
			fprintf(f, "%.1f,%.1f ", X(r[i].p[j].size_bytes), Y(r[i].p[j].value));
		fprintf(f, "\"/>\n<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"%s\">%s</text>\n",
			x0 + w + 10, y0 + 16 + 16 * series, colors[series % 4], r[i].k->name);
		series++;
	}
#undef X
#undef Y
}

static int write_svg(const char *path, const struct result *r, unsigned nr)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return cli_error("bench", "cannot write '%s': %s", path, strerror(errno));
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" height=\"680\" "
		   "font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" "
		   "fill=\"white\"/>\n");
	svg_panel(f, 50, "Load latency (pointer chase)", "ns per load", r, nr, "latency");
	svg_panel(f, 390, "Bandwidth, one thread per stream set", "GB/s", r, nr, "bandwidth");
	fprintf(f, "</svg>\n");
	return fclose(f) ? cli_error("bench", "writing '%s' failed", path) : 0;
}

/* Keep a core busy for ~50 ms, so it reaches its running frequency before we measure. */
static void warm_up(void)
{
	uint64_t end = ipcc_now_ns() + 50000000;

	while (ipcc_now_ns() < end)
		ipcc_corefreq_khz(NULL);
}

int cmd_bench(int argc, char **argv)
{
	struct bench_opts o = { 0 };
	struct result *r;
	unsigned nr = 0, total = 0, done = 0;
	struct ipcc_freq core;
	bool progress = isatty(2);
	char why[256];
	int ret = EXIT_OK;

	ret = parse(argc, argv, &o);
	if (ret)
		return ret;
	if (o.list) {
		print_list();
		return EXIT_OK;
	}
	if (o.fit_base)
		return fit_profile(&o);
	if (o.blocks.block || o.blocks.blocks) {
		if (*o.profile_note)
			fprintf(stderr, "%s\n", o.profile_note);
		return bench_blocks(&o.blocks);
	}
	if (o.body) {
		const struct ipcc_kernel *k = ipcc_kernel_find(o.body);

		if (!k || !k->body)
			return cli_usage_error("bench", "'%s' is not a skid kernel", o.body);
		fputs(k->body, stdout);
		return EXIT_OK;
	}
	for (int i = 0; i < o.nnames; i++) {
		bool any = false;

		for (unsigned k = 0; ipcc_kernel_at(k); k++)
			any |= matches(ipcc_kernel_at(k), o.names[i]);
		if (!any)
			return cli_usage_error(
			    "bench", "no kernel '%s' (ipcc bench --list lists them)", o.names[i]);
	}
	r = calloc(2 * ipcc_kernel_count(), sizeof(*r));
	if (!r)
		return cli_error("bench", "out of memory");
	ipcc_clock_init();
	/* A core that was idle runs slow for a while (McCalpin: warm up first). */
	warm_up();
	ipcc_corefreq_khz(&core);
	for (unsigned k = 0; ipcc_kernel_at(k); k++) {
		const struct ipcc_kernel *kk = ipcc_kernel_at(k);
		bool want = o.nnames == 0;

		for (int i = 0; i < o.nnames; i++)
			want |= matches(kk, o.names[i]);
		if (!want)
			continue;
		r[nr].k = kk;
		/* Sized kernels: the sweep, or by default latency from 4 KiB to 256 MiB. */
		if (kk->sized && (o.sweep_from || (!o.run.size && !strcmp(kk->name, "latency")))) {
			uint64_t from = o.sweep_from ? o.sweep_from : 4096;
			uint64_t to = o.sweep_from ? o.sweep_to : 256ull << 20;

			for (uint64_t s = from; s <= to && r[nr].np < MAX_POINTS; s *= 2)
				r[nr].p[r[nr].np++].size_bytes = s;
		} else {
			r[nr].p[0].size_bytes = kk->sized ? o.run.size : 0;
			r[nr].np = 1;
		}
		r[nr].threads = kk->threaded ? (o.run.threads ? o.run.threads : 1) : 1;
		total += r[nr].np;
		nr++;
		/* Bandwidth: one thread and, unless --threads says otherwise, all of them. */
		if (kk->threaded && !o.run.threads && sysconf(_SC_NPROCESSORS_ONLN) > 1) {
			r[nr] = r[nr - 1];
			r[nr].threads = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
			total += r[nr].np;
			nr++;
		}
	}
	for (unsigned i = 0; i < nr; i++) {
		for (unsigned j = 0; j < r[i].np; j++) {
			struct ipcc_bench_opts run = o.run;
			char sz[24];
			int err;

			run.size = r[i].p[j].size_bytes;
			run.threads = r[i].threads;
			if (progress)
				fprintf(stderr, "\r[%u/%u] %-24s %-10s", ++done, total,
					r[i].k->name, size_text(run.size, sz, sizeof(sz)));
			err = ipcc_kernel_run(r[i].k, &run, 0, &r[i].p[j]);
			if (err) {
				snprintf(r[i].error, sizeof(r[i].error), "%s", ipcc_last_error());
				if (err == IPCC_EINVAL) {
					if (progress)
						fputc('\n', stderr);
					ret = cli_usage_error("bench", "%s", ipcc_last_error());
					goto out;
				}
				r[i].np = 0;
				break;
			}
		}
	}
	/* The validation table: the PMU counts each kernel's events once. */
	why[0] = '\0';
	for (unsigned i = 0; i < nr && !why[0]; i++) {
		int err;

		if (r[i].error[0])
			continue;
		err = ipcc_kernel_validate(r[i].k, r[i].p[0].size_bytes, r[i].check);
		if (err == IPCC_ENOTSUP || err == IPCC_EACCES)
			snprintf(why, sizeof(why), "%s", ipcc_last_error());
		else
			r[i].validated = err == 0;
	}
	if (progress)
		fprintf(stderr, "\r%60s\r", "");
	if (o.format == FORMAT_OPENMETRICS) {
		if (print_openmetrics(stdout, r, nr, &core, why)) {
			ret = cli_error("bench", "%s", ipcc_last_error());
			goto out;
		}
	} else if (o.format == FORMAT_JSON)
		print_json(r, nr, &core, why);
	else if (o.format == FORMAT_CSV)
		print_csv(r, nr);
	else
		print_text(r, nr, &core, why);
	if (o.svg)
		ret = write_svg(o.svg, r, nr);
	for (unsigned i = 0; i < nr && !ret; i++)
		if (r[i].error[0])
			ret = EXIT_FAIL;
out:
	free(r);
	return ret;
}
