/*
 * cmd_skid.c - ipcc skid: run the interrupt-placement kernels under sampling and put the
 * measured distribution of samples over each loop's instructions beside the pipeline
 * model's prediction.
 */
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ipcc/error.h"
#include "ipcc/kernels.h"
#include "ipcc/skid.h"

const char cmd_skid_help[] =
    "usage: ipcc skid [options] [KERNEL...]\n"
    "\n"
    "Run each interrupt-placement kernel (skid.mov_imm, skid.adds, skid.load_nops,\n"
    "skid.load_nops_add, skid.vpmulld_lock; default: all) on this thread, sampled on\n"
    "task-clock, and print per instruction of its loop: the byte offset, the instruction,\n"
    "the samples measured on it and their share, the pipeline model's predicted share, and\n"
    "'*' where the model selects the instruction (it is the oldest unretired one for some\n"
    "cycles: an interrupt then reports the instruction after it). Per kernel: the\n"
    "total-variation distance between the two distributions, the measured share on the\n"
    "instructions the model predicts samples on, a verdict (matches: there and in about\n"
    "those proportions, distance <= 0.15; same-places: there, in other proportions;\n"
    "partly: at least half there; differs), and the retire width (1-8) that best explains\n"
    "the measurement.\n"
    "\n"
    "options:\n"
    "  --profile P         auto (default: the closest to this CPU), skylake, icelake,\n"
    "                      zen3, zen4, zen5, goldencove, neoverse-n2, test, or a\n"
    "                      profile FILE\n"
    "  --period NS         sample every NS ns of CPU time (default 100000)\n"
    "  --seconds S         sample each kernel for S seconds (default 1, at most 60)\n"
    "  --format FMT        text (default) or json\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 success, 1 sampling or the model failed, 2 bad usage.\n";

struct skid_opts {
	struct ipcc_model_profile prof;
	struct ipcc_skid_opts run;
	enum cli_format format;
	char **names;
	int nnames;
};

static int parse(int argc, char **argv, struct skid_opts *o)
{
	enum { O_PROFILE = 256, O_PERIOD, O_SECONDS, O_FORMAT };
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, O_PROFILE },
		{ "period", required_argument, NULL, O_PERIOD },
		{ "seconds", required_argument, NULL, O_SECONDS },
		{ "format", required_argument, NULL, O_FORMAT },
		{ NULL, 0, NULL, 0 },
	};
	const char *profile = "auto";
	char *end;
	int c, ret = 0;

	memset(o, 0, sizeof(*o));
	o->run.seconds = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case O_PROFILE:
			profile = optarg;
			break;
		case O_PERIOD:
			ret = cli_parse_u64("skid", "--period", optarg, 10000, 1000000000,
					    &o->run.period_ns);
			break;
		case O_SECONDS:
			o->run.seconds = strtod(optarg, &end);
			if (end == optarg || *end || !(o->run.seconds > 0 && o->run.seconds <= 60))
				return cli_usage_error("skid",
						       "--seconds wants a number in (0, 60], not "
						       "'%s'",
						       optarg);
			break;
		case O_FORMAT:
			ret = cli_parse_format("skid", optarg,
					       1u << FORMAT_TEXT | 1u << FORMAT_JSON, &o->format);
			break;
		default:
			return cli_bad_option("skid", c, argv);
		}
		if (ret)
			return ret;
	}
	ret = cli_parse_profile("skid", profile, &o->prof);
	if (ret)
		return ret;
	o->names = argv + optind;
	o->nnames = argc - optind;
	return 0;
}

/* "skid.adds" or "adds" names skid.adds. */
static const struct ipcc_kernel *find(const char *name)
{
	char full[64];

	if (strncmp(name, "skid.", 5) != 0) {
		snprintf(full, sizeof(full), "skid.%s", name);
		name = full;
	}
	return ipcc_kernel_find(name);
}

static void print_text(const struct ipcc_kernel *k, const struct ipcc_skid_result *r)
{
	printf("%s: %" PRIu64 " samples in the loop, %" PRIu64 " outside it, %" PRIu64
	       " lost; model: %s\n",
	       k->name, r->samples, r->outside, r->lost, r->profile);
	printf("  %6s  %-34s %8s %9s %9s  %s\n", "offset", "instruction", "samples", "measured",
	       "predicted", "sel");
	for (unsigned i = 0; i < r->nrows; i++) {
		const struct ipcc_skid_row *w = &r->rows[i];

		printf("  %6" PRIu32 "  %-34s %8" PRIu64 " %9.3f %9.3f  %s\n", w->offset, w->text,
		       w->samples, w->measured, w->predicted, w->selected ? "*" : "");
	}
	printf("  distance %.3f; %.3f of the samples on instructions the model predicts samples "
	       "on: %s; best retire width %u (distance %.3f)\n\n",
	       r->distance, r->explained, ipcc_skid_verdict(r->explained, r->distance),
	       r->best_retire_width, r->distance_at[r->best_retire_width]);
}

static json_t *to_json(const struct ipcc_kernel *k, const struct ipcc_skid_result *r)
{
	json_t *rows = json_array(), *by_r = json_array();

	for (unsigned i = 0; i < r->nrows; i++) {
		const struct ipcc_skid_row *w = &r->rows[i];

		json_array_append_new(rows, json_pack("{s:i,s:s,s:I,s:f,s:f,s:b}", "offset",
						      (int)w->offset, "text", w->text, "samples",
						      (json_int_t)w->samples, "measured",
						      w->measured, "predicted", w->predicted,
						      "selected", w->selected));
	}
	for (unsigned w = 1; w <= IPCC_SKID_MAX_RETIRE; w++)
		json_array_append_new(
		    by_r, isnan(r->distance_at[w]) ? json_null() : json_real(r->distance_at[w]));
	return json_pack("{s:s,s:s,s:I,s:I,s:I,s:o,s:f,s:f,s:s,s:i,s:o}", "name", k->name,
			 "profile", r->profile, "samples", (json_int_t)r->samples, "outside",
			 (json_int_t)r->outside, "lost", (json_int_t)r->lost, "rows", rows,
			 "distance", r->distance, "explained", r->explained, "verdict",
			 ipcc_skid_verdict(r->explained, r->distance), "best_retire_width",
			 (int)r->best_retire_width, "distance_by_retire_width", by_r);
}

int cmd_skid(int argc, char **argv)
{
	struct skid_opts o;
	const struct ipcc_kernel *list[16];
	unsigned n = 0;
	json_t *kernels = json_array();
	char text[4096];
	int ret = parse(argc, argv, &o);

	if (ret) {
		json_decref(kernels);
		return ret;
	}
	for (int i = 0; i < o.nnames && n < 16; i++) {
		const struct ipcc_kernel *k = find(o.names[i]);

		if (!k || !k->body) {
			json_decref(kernels);
			return cli_usage_error("skid",
					       "no skid kernel '%s' (ipcc bench --list lists them)",
					       o.names[i]);
		}
		list[n++] = k;
	}
	for (unsigned i = 0; !o.nnames && ipcc_kernel_at(i) && n < 16; i++)
		if (ipcc_kernel_at(i)->body)
			list[n++] = ipcc_kernel_at(i);
	for (unsigned i = 0; i < n; i++) {
		struct ipcc_skid_result r;

		if (ipcc_skid_loop_text(list[i], text, sizeof(text)) ||
		    ipcc_skid_measure(list[i], &o.run, &r)) {
			json_decref(kernels);
			return cli_error("skid", "%s: %s", list[i]->name, ipcc_last_error());
		}
		if (ipcc_skid_compare(&r, text, &o.prof)) {
			ipcc_skid_result_release(&r);
			json_decref(kernels);
			return cli_error("skid", "%s: %s", list[i]->name, ipcc_last_error());
		}
		if (o.format == FORMAT_JSON)
			json_array_append_new(kernels, to_json(list[i], &r));
		else
			print_text(list[i], &r);
		ipcc_skid_result_release(&r);
	}
	if (o.format == FORMAT_JSON) {
		json_t *root = json_pack("{s:o}", "kernels", kernels);

		json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
		fputc('\n', stdout);
		json_decref(root);
	} else {
		json_decref(kernels);
	}
	return EXIT_OK;
}
