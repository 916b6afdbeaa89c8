/*
 * cmd_calibrate.c - ipcc calibrate: what the time counter is on this machine, and what
 * reading it costs.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ipcc/clock.h"
#include "ipcc/error.h"

const char cmd_calibrate_help[] =
    "usage: ipcc calibrate [--format text|json] [--handoffs N] [--batches N]\n"
    "\n"
    "Measure the time counter of this machine: its frequency TCFREQ (kHz, where the figure\n"
    "came from, its uncertainty), the core frequency now (kHz), whether the counter is\n"
    "invariant, the cost of each way of reading time (measured side by side), and whether\n"
    "time ever goes backwards when a token passes between two CPUs.\n"
    "\n"
    "options:\n"
    "  --format FMT    text (default) or json\n"
    "  --handoffs N    cross-core hand-offs (default 100000; 0 skips the check)\n"
    "  --batches N     read-cost rounds, 32 reads of each method per round (default 2001)\n"
    "  -h, --help      show this help\n"
    "\n"
    "Exit status: 0 success, 1 TCFREQ unknown or time went backwards across CPUs, 2 bad usage.\n";

#define READS_PER_BATCH	      32
#define CROSS_CORE_TIMEOUT_MS 30000

struct calibrate_opts {
	enum cli_format format;
	uint64_t handoffs;
	uint64_t batches;
};

struct calibration {
	struct ipcc_freq tc;
	struct ipcc_freq core;
	struct ipcc_clock_props props;
	struct ipcc_read_cost cost[IPCC_READ_NMETHODS];
	int cost_err;
	struct ipcc_cross_core xc;
	int xc_err;
	char xc_why[256];
};

static int parse(int argc, char **argv, struct calibrate_opts *o)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "handoffs", required_argument, NULL, 'H' },
		{ "batches", required_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	*o = (struct calibrate_opts){ FORMAT_TEXT, 100000, 2001 };
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			ret = cli_parse_format("calibrate", optarg,
					       1u << FORMAT_TEXT | 1u << FORMAT_JSON, &o->format);
			break;
		case 'H':
			ret = cli_parse_u64("calibrate", "--handoffs", optarg, 0, 100000000,
					    &o->handoffs);
			break;
		case 'b':
			ret = cli_parse_u64("calibrate", "--batches", optarg, 1, 1000000,
					    &o->batches);
			break;
		default:
			return cli_bad_option("calibrate", c, argv);
		}
		if (ret)
			return ret;
	}
	if (optind < argc)
		return cli_usage_error("calibrate", "unexpected argument '%s'", argv[optind]);
	return 0;
}

static const struct ipcc_read_cost *cost_of(const struct calibration *cal, enum ipcc_read_method m)
{
	return cal->cost_err == 0 && cal->cost[m].valid ? &cal->cost[m] : NULL;
}

/* a / b of two read costs, or a negative number when either is absent. */
static double cost_ratio(const struct calibration *cal, enum ipcc_read_method a,
			 enum ipcc_read_method b)
{
	const struct ipcc_read_cost *x = cost_of(cal, a), *y = cost_of(cal, b);

	if (!x || !y || y->ticks_median <= 0)
		return -1;
	return x->ticks_median / y->ticks_median;
}

static void print_freq(const char *label, const struct ipcc_freq *f)
{

	if (!f->khz) {
		printf("  %-20s n/a\n", label);
		return;
	}
	printf("  %-20s %" PRIu64 " kHz   +-%.1f ppm   %s (took %.0f us)\n", label, f->khz, f->ppm,
	       ipcc_freq_source_text(f->source), f->cost_ns / 1e3);
}

static void print_text(const struct calibration *cal, const struct calibrate_opts *o)
{
	static const enum ipcc_read_method ratios[][2] = {
		{ IPCC_READ_NOW_NS, IPCC_READ_TICKS },
		{ IPCC_READ_NOW_NS, IPCC_READ_MONOTONIC },
	};

	printf("time counter\n");
	print_freq("TCFREQ", &cal->tc);
	if (cal->props.known)
		printf("  %-20s %s (constant rate: %s, counts when idle: %s)\n", "invariant",
		       cal->props.constant && cal->props.nonstop ? "yes" : "no",
		       cal->props.constant ? "yes" : "no", cal->props.nonstop ? "yes" : "no");
	else
		printf("  %-20s n/a\n", "invariant");
	printf("\ncore\n");
	print_freq("frequency", &cal->core);
	if (cal->core.check_hz > 0)
		printf("  %-20s %.0f kHz   imul chain, 3 cycles each: %s, %.2f%% apart\n",
		       "cross-check", cal->core.check_hz / 1e3,
		       ipcc_freq_disagrees(&cal->core) ? "DISAGREES (a busy SMT sibling or a "
							 "latency ipcc assumes wrongly here)"
						       : "agrees",
		       100 * fabs(cal->core.check_hz - cal->core.hz) / cal->core.hz);
	else
		printf("  %-20s n/a (%s)\n", "cross-check",
		       cal->core.source == IPCC_FREQ_PMU_CYCLES
			   ? "the PMU's cycles need none"
			   : "no chain of another latency class is the same on every core here");

	printf("\nread cost, per read (%" PRIu64 " rounds of %d back-to-back reads each)\n",
	       o->batches, READS_PER_BATCH);
	printf("  %-36s %9s %9s %9s %9s\n", "method", "ticks", "p10", "p90", "ns");
	for (int m = 0; m < IPCC_READ_NMETHODS; m++) {
		const struct ipcc_read_cost *c = &cal->cost[m];

		if (cal->cost_err) {
			printf("  %-36s n/a\n", cal->cost[m].name ? cal->cost[m].name : "?");
		} else if (!c->valid) {
			printf("  %-36s n/a (%s)\n", c->name, c->why);
		} else {
			printf("  %-36s %9.1f %9.1f %9.1f %9.1f\n", c->name, c->ticks_median,
			       c->ticks_p10, c->ticks_p90, c->ns_median);
		}
	}
	printf("\nread cost ratios, side by side\n");
	for (size_t i = 0; i < sizeof(ratios) / sizeof(ratios[0]); i++) {
		double r = cost_ratio(cal, ratios[i][0], ratios[i][1]);
		char label[96];

		snprintf(label, sizeof(label), "%s / %s", cal->cost[ratios[i][0]].name,
			 cal->cost[ratios[i][1]].name);
		if (r < 0)
			printf("  %-52s n/a\n", label);
		else
			printf("  %-52s %.2fx\n", label, r);
	}

	printf("\ncross-core check\n");
	if (cal->xc_err && cal->xc.trials == 0) {
		printf("  %-20s %s\n", "skipped", cal->xc_why);
		return;
	}
	printf("  %-20s cpu %d <-> cpu %d\n", "cpus", cal->xc.cpu[0], cal->xc.cpu[1]);
	printf("  %-20s %" PRIu64 "%s\n", "hand-offs", cal->xc.trials,
	       cal->xc_err ? " (incomplete: timed out)" : "");
	printf("  %-20s %" PRIu64 "\n", "backwards", cal->xc.backwards);
	printf("  %-20s %" PRId64 " ticks (%" PRId64 " ns)\n", "smallest gap",
	       cal->xc.min_gap_ticks, cal->xc.min_gap_ns);
}

static json_t *json_freq_khz(const struct ipcc_freq *f)
{
	return f->khz ? json_integer((json_int_t)f->khz) : json_null();
}

static json_t *json_ratio(const struct calibration *cal, enum ipcc_read_method a,
			  enum ipcc_read_method b)
{
	double r = cost_ratio(cal, a, b);

	return r < 0 ? json_null() : json_real(r);
}

static int print_json(const struct calibration *cal)
{
	json_t *root = json_object(), *cost = json_object(), *xc, *ratios = json_object();
	int ret;

	json_object_set_new(root, "tcfreq_khz", json_freq_khz(&cal->tc));
	json_object_set_new(root, "tcfreq_hz",
			    cal->tc.khz ? json_integer((json_int_t)(cal->tc.hz + 0.5))
					: json_null());
	json_object_set_new(root, "tcfreq_source",
			    json_string(ipcc_freq_source_name(cal->tc.source)));
	json_object_set_new(root, "tcfreq_ppm", cal->tc.khz ? json_real(cal->tc.ppm) : json_null());
	json_object_set_new(root, "tcfreq_cost_ns", json_integer((json_int_t)cal->tc.cost_ns));
	json_object_set_new(root, "invariant",
			    cal->props.known
				? json_pack("{s:b,s:b}", "constant", cal->props.constant, "nonstop",
					    cal->props.nonstop)
				: json_null());
	json_object_set_new(root, "core_khz", json_freq_khz(&cal->core));
	json_object_set_new(root, "core_source",
			    json_string(ipcc_freq_source_name(cal->core.source)));
	json_object_set_new(root, "core_ppm",
			    cal->core.khz ? json_real(cal->core.ppm) : json_null());
	json_object_set_new(root, "core_cost_ns", json_integer((json_int_t)cal->core.cost_ns));
	json_object_set_new(root, "core_check_khz",
			    cal->core.check_hz > 0 ? json_real(cal->core.check_hz / 1e3)
						   : json_null());
	json_object_set_new(root, "core_check_disagrees",
			    json_boolean(ipcc_freq_disagrees(&cal->core)));

	for (int m = 0; m < IPCC_READ_NMETHODS; m++) {
		const struct ipcc_read_cost *c = cost_of(cal, (enum ipcc_read_method)m);

		if (!cal->cost[m].key || strcmp(cal->cost[m].key, "none") == 0)
			continue;
		json_object_set_new(cost, cal->cost[m].key,
				    c ? json_pack("{s:s,s:f,s:f,s:f,s:f}", "name", c->name, "ticks",
						  c->ticks_median, "ns", c->ns_median, "ticks_p10",
						  c->ticks_p10, "ticks_p90", c->ticks_p90)
				      : json_null());
	}
	json_object_set_new(root, "read_cost", cost);
	json_object_set_new(ratios, "now_ns_per_ticks",
			    json_ratio(cal, IPCC_READ_NOW_NS, IPCC_READ_TICKS));
	json_object_set_new(ratios, "now_ns_per_clock_monotonic",
			    json_ratio(cal, IPCC_READ_NOW_NS, IPCC_READ_MONOTONIC));
	json_object_set_new(root, "read_cost_ratio", ratios);

	if (cal->xc_err && cal->xc.trials == 0) {
		xc = json_pack("{s:n,s:s}", "trials", "skipped", cal->xc_why);
	} else {
		xc = json_pack("{s:[i,i],s:I,s:I,s:I,s:I,s:b}", "cpus", cal->xc.cpu[0],
			       cal->xc.cpu[1], "trials", (json_int_t)cal->xc.trials, "backwards",
			       (json_int_t)cal->xc.backwards, "min_gap_ticks",
			       (json_int_t)cal->xc.min_gap_ticks, "min_gap_ns",
			       (json_int_t)cal->xc.min_gap_ns, "complete", cal->xc_err == 0);
	}
	json_object_set_new(root, "cross_core", xc);

	ret = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
	fputc('\n', stdout);
	json_decref(root);
	return ret ? cli_error("calibrate", "could not write JSON") : 0;
}

int cmd_calibrate(int argc, char **argv)
{
	struct calibrate_opts o;
	struct calibration cal = { 0 };
	int ret;

	ret = parse(argc, argv, &o);
	if (ret)
		return ret;
	ipcc_clock_fresh(); /* always measured afresh, and the boot's cache refreshed */
	if (ipcc_clock_init() != 0)
		return cli_error("calibrate", "the time counter's frequency is unknown: %s",
				 ipcc_last_error());
	ipcc_tcfreq_khz(&cal.tc);
	ipcc_corefreq_khz(&cal.core);
	ipcc_clock_props(&cal.props);
	cal.cost_err = ipcc_clock_read_costs((unsigned)o.batches, READS_PER_BATCH, cal.cost);
	if (cal.cost_err)
		return cli_error("calibrate", "measuring read costs: %s", ipcc_last_error());

	if (o.handoffs == 0) {
		cal.xc_err = IPCC_ENOTSUP;
		snprintf(cal.xc_why, sizeof(cal.xc_why), "--handoffs 0");
	} else {
		cal.xc_err = ipcc_clock_cross_core(o.handoffs, CROSS_CORE_TIMEOUT_MS, &cal.xc);
		if (cal.xc_err)
			snprintf(cal.xc_why, sizeof(cal.xc_why), "%s", ipcc_last_error());
	}

	ret = o.format == FORMAT_JSON ? print_json(&cal) : (print_text(&cal, &o), 0);
	if (ret)
		return ret;
	if (cal.xc.backwards)
		return cli_error("calibrate",
				 "time went backwards %" PRIu64 " times in %" PRIu64
				 " hand-offs between cpu %d and cpu %d",
				 cal.xc.backwards, cal.xc.trials, cal.xc.cpu[0], cal.xc.cpu[1]);
	return EXIT_OK;
}
