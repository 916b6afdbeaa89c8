/*
 * cmd_skid.c - ipcc skid: run the interrupt-placement kernels under sampling and put the
 * measured distribution of samples over each loop's instructions beside the pipeline
 * model's prediction.
 */
#include <getopt.h>
#include <sched.h>
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
    "       ipcc skid --measured FILE [--fit [-o PROFILE]] [options] [KERNEL...]\n"
    "\n"
    "Run each interrupt-placement kernel (skid.mov_imm, skid.adds, skid.load_nops,\n"
    "skid.load_nops_add, skid.vpmulld_lock; default: all) on this thread, pinned to the CPU\n"
    "it is on and sampled on task-clock, and print per instruction of its loop: the byte\n"
    "offset, the instruction, the samples measured on it and their share, the pipeline\n"
    "model's predicted share, and '*' where the model selects the instruction (it is the\n"
    "oldest unretired one for some cycles: an interrupt then reports the instruction after\n"
    "it, or with placement oldest the instruction itself). Per kernel: the total-variation\n"
    "distance between the two distributions, the distance between the run's two halves\n"
    "(its own noise), the measured share on the instructions the model predicts samples\n"
    "on, a verdict (matches: there and in about those proportions, distance <= 0.15;\n"
    "same-places: there, in other proportions; partly: at least half there; differs; none\n"
    "when the halves differ more than the model does), and the retire width (1-8) that\n"
    "best explains the measurement.\n"
    "\n"
    "options:\n"
    "  --profile P         auto (default: the closest to this CPU), skylake, icelake,\n"
    "                      zen3, zen4, zen5, goldencove, raptorcove, neoverse-n2, test, or a\n"
    "                      profile FILE\n"
    "  --period NS         sample every NS ns of CPU time (default 100000)\n"
    "  --seconds S         sample each kernel for S seconds (default 1, at most 60)\n"
    "  --measured FILE     do not sample: model the measurements FILE holds (JSON that\n"
    "                      ipcc skid --format json wrote, on any machine)\n"
    "  --fit               also fit a profile to the kernels: retire and allocation width,\n"
    "                      ALU ports, immediate folding and placement, the rest from\n"
    "                      --profile; each kernel's distance under the stock and fitted\n"
    "                      profile, and left out of the fit (fitted on the others)\n"
    "  -o FILE             with --fit, write the fitted profile to FILE\n"
    "  --format FMT        text (default) or json\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 success, 1 sampling, the model or the fit failed, 2 bad usage.\n";

struct skid_opts {
	struct ipcc_model_profile prof;
	char profile_note[320]; /* which profile --profile auto chose (cli_parse_profile) */
	struct ipcc_skid_opts run;
	enum cli_format format;
	const char *measured, *output;
	bool fit, pinned;
	char **names;
	int nnames;
};

static int parse(int argc, char **argv, struct skid_opts *o)
{
	enum { O_PROFILE = 256, O_PERIOD, O_SECONDS, O_FORMAT, O_MEASURED, O_FIT };
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, O_PROFILE },
		{ "measured", required_argument, NULL, O_MEASURED },
		{ "fit", no_argument, NULL, O_FIT },
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
	while ((c = getopt_long(argc, argv, ":o:", longopts, NULL)) != -1) {
		switch (c) {
		case O_PROFILE:
			profile = optarg;
			break;
		case O_MEASURED:
			o->measured = optarg;
			break;
		case O_FIT:
			o->fit = true;
			break;
		case 'o':
			o->output = optarg;
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
	if (o->output && !o->fit)
		return cli_usage_error("skid", "-o writes a fitted profile: it needs --fit");
	ret =
	    cli_parse_profile("skid", profile, &o->prof, o->profile_note, sizeof(o->profile_note));
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

static const char *verdict_text(const struct ipcc_skid_result *r)
{
	const char *v = ipcc_skid_result_verdict(r);

	return v ? v : "no verdict (the halves differ more than the model does)";
}

static void print_text(const struct ipcc_skid_result *r, bool pinned)
{
	char cpu[48] = "";

	if (r->cpu >= 0)
		snprintf(cpu, sizeof(cpu), pinned ? "; pinned to CPU %d" : "; on CPU %d", r->cpu);
	printf("%s: %" PRIu64 " samples in the loop, %" PRIu64 " outside it, %" PRIu64
	       " lost%s; model: %s\n",
	       r->kernel, r->samples, r->outside, r->lost, cpu, r->profile);
	printf("  %6s  %-34s %8s %9s %9s  %s\n", "offset", "instruction", "samples", "measured",
	       "predicted", "sel");
	for (unsigned i = 0; i < r->nrows; i++) {
		const struct ipcc_skid_row *w = &r->rows[i];

		printf("  %6" PRIu32 "  %-34s %8" PRIu64 " %9.3f %9.3f  %s\n", w->offset, w->text,
		       w->samples, w->measured, w->predicted, w->selected ? "*" : "");
	}
	if (isnan(r->repeat_distance))
		printf("  distance %.3f; halves unknown", r->distance);
	else
		printf("  distance %.3f; halves %.3f apart", r->distance, r->repeat_distance);
	printf("; %.3f of the samples on instructions the model predicts samples on: %s; best "
	       "retire width %u (distance %.3f)\n\n",
	       r->explained, verdict_text(r), r->best_retire_width,
	       r->distance_at[r->best_retire_width]);
}

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *to_json(const struct ipcc_skid_result *r, bool pinned)
{
	json_t *rows = json_array(), *by_r = json_array(), *j;
	const char *v = ipcc_skid_result_verdict(r);

	for (unsigned i = 0; i < r->nrows; i++) {
		const struct ipcc_skid_row *w = &r->rows[i];

		json_array_append_new(
		    rows,
		    json_pack("{s:i,s:s,s:I,s:[I,I],s:f,s:f,s:b}", "offset", (int)w->offset, "text",
			      w->text, "samples", (json_int_t)w->samples, "half",
			      (json_int_t)w->half[0], (json_int_t)w->half[1], "measured",
			      w->measured, "predicted", w->predicted, "selected", w->selected));
	}
	for (unsigned w = 1; w <= IPCC_SKID_MAX_RETIRE; w++)
		json_array_append_new(by_r, real_or_null(r->distance_at[w]));
	j = json_pack("{s:s,s:s,s:I,s:I,s:I,s:o,s:f,s:o,s:f,s:o,s:i,s:o}", "name", r->kernel,
		      "profile", r->profile, "samples", (json_int_t)r->samples, "outside",
		      (json_int_t)r->outside, "lost", (json_int_t)r->lost, "rows", rows, "distance",
		      r->distance, "repeat_distance", real_or_null(r->repeat_distance), "explained",
		      r->explained, "verdict", v ? json_string(v) : json_null(),
		      "best_retire_width", (int)r->best_retire_width, "distance_by_retire_width",
		      by_r);
	json_object_set_new(j, "cpu", r->cpu >= 0 ? json_integer(r->cpu) : json_null());
	json_object_set_new(j, "pinned", json_boolean(pinned));
	return j;
}

static const char *placement_name(enum ipcc_model_placement p)
{
	return p == IPCC_MODEL_PLACE_OLDEST ? "oldest" : "next";
}

/* The fitted parameters, as text. */
static void fit_params(const struct ipcc_model_profile *p, char *buf, size_t len)
{
	char alu[16];

	snprintf(alu, sizeof(alu), p->alu_ports ? "%u" : "any", p->alu_ports);
	snprintf(buf, len, "retire %u, width %u, ALU %s, fold %u, placement %s",
		 p->sample_retire ? p->sample_retire : p->retire, p->width, alu, p->fold_imm,
		 placement_name(p->placement));
}

static void print_fit(const struct ipcc_skid_fit *f, const struct ipcc_skid_result *r,
		      const struct ipcc_model_profile *base)
{
	char params[128];

	fit_params(&f->profile, params, sizeof(params));
	printf("fit over %u kernels, %u candidate profiles from %s: %s\n", f->nkernels,
	       f->candidates, base->name, params);
	printf("  %-22s %8s %8s %9s  %s\n", "kernel", "stock", "fitted", "held-out",
	       "fitted on the other kernels");
	for (unsigned k = 0; k < f->nkernels; k++) {
		if (isnan(f->held_out[k])) {
			printf("  %-22s %8.3f %8.3f %9s\n", r[k].kernel, f->stock[k], f->fitted[k],
			       "-");
			continue;
		}
		fit_params(&f->held_out_profile[k], params, sizeof(params));
		printf("  %-22s %8.3f %8.3f %9.3f  %s\n", r[k].kernel, f->stock[k], f->fitted[k],
		       f->held_out[k], params);
	}
	printf("  %-22s %8.3f %8.3f\n", "total", f->stock_total, f->total);
}

static json_t *fit_json(const struct ipcc_skid_fit *f, const struct ipcc_skid_result *r)
{
	json_t *ks = json_array();

	for (unsigned k = 0; k < f->nkernels; k++) {
		const struct ipcc_model_profile *h = &f->held_out_profile[k];

		json_array_append_new(
		    ks, json_pack("{s:s,s:o,s:o,s:o,s:{s:i,s:i,s:i,s:i,s:s}}", "name", r[k].kernel,
				  "stock", real_or_null(f->stock[k]), "fitted",
				  real_or_null(f->fitted[k]), "held_out",
				  real_or_null(f->held_out[k]), "held_out_profile", "retire",
				  (int)(h->sample_retire ? h->sample_retire : h->retire), "width",
				  (int)h->width, "alu_ports", (int)h->alu_ports, "fold_imm",
				  (int)h->fold_imm, "placement", placement_name(h->placement)));
	}
	return json_pack(
	    "{s:{s:s,s:i,s:i,s:i,s:i,s:s},s:i,s:f,s:f,s:o}", "profile", "name", f->profile.name,
	    "retire",
	    (int)(f->profile.sample_retire ? f->profile.sample_retire : f->profile.retire), "width",
	    (int)f->profile.width, "alu_ports", (int)f->profile.alu_ports, "fold_imm",
	    (int)f->profile.fold_imm, "placement", placement_name(f->profile.placement),
	    "candidates", (int)f->candidates, "stock_total", f->stock_total, "total", f->total,
	    "kernels", ks);
}

/* Pin this thread to the CPU it is on, so that a run's samples come from one core. */
static int pin(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (cpu < 0)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) == 0 ? cpu : -1;
}

static bool wanted(const struct skid_opts *o, const char *kernel)
{
	if (!o->nnames)
		return true;
	for (int i = 0; i < o->nnames; i++) {
		const struct ipcc_kernel *k = find(o->names[i]);

		if (k && !strcmp(k->name, kernel))
			return true;
	}
	return false;
}

/* Measure (or load) the kernels into r[]; *n of them. */
static int collect(struct skid_opts *o, struct ipcc_skid_result **r, unsigned *n)
{
	const struct ipcc_kernel *list[IPCC_SKID_MAX_KERNELS];
	unsigned nk = 0;

	*r = NULL;
	*n = 0;
	for (int i = 0; i < o->nnames; i++) {
		const struct ipcc_kernel *k = find(o->names[i]);

		if (!k || !k->body)
			return cli_usage_error("skid",
					       "no skid kernel '%s' (ipcc bench --list lists them)",
					       o->names[i]);
		if (nk < IPCC_SKID_MAX_KERNELS)
			list[nk++] = k;
	}
	if (o->measured) {
		struct ipcc_skid_result *all;
		unsigned nall, kept = 0;

		if (ipcc_skid_load(o->measured, &all, &nall))
			return cli_usage_error("skid", "%s", ipcc_last_error());
		for (unsigned i = 0; i < nall; i++) {
			if (!wanted(o, all[i].kernel)) {
				ipcc_skid_result_release(&all[i]);
				continue;
			}
			all[kept++] = all[i];
		}
		if (!kept) {
			ipcc_skid_results_free(all, nall);
			return cli_usage_error("skid", "%s holds none of the kernels asked for",
					       o->measured);
		}
		for (unsigned i = kept; i < nall; i++)
			memset(&all[i], 0, sizeof(all[i]));
		*r = all;
		*n = kept;
		return 0;
	}
	for (unsigned i = 0; !o->nnames && ipcc_kernel_at(i) && nk < IPCC_SKID_MAX_KERNELS; i++)
		if (ipcc_kernel_at(i)->body)
			list[nk++] = ipcc_kernel_at(i);
	*r = calloc(nk, sizeof(**r));
	if (!*r)
		return cli_error("skid", "out of memory");
	o->pinned = pin() >= 0;
	for (unsigned i = 0; i < nk; i++) {
		int ret = ipcc_skid_measure(list[i], &o->run, &(*r)[i]);

		if (ret) {
			ipcc_skid_results_free(*r, i);
			*r = NULL;
			return cli_error("skid", "%s (%s): %s", list[i]->name, cli_error_kind(ret),
					 ipcc_last_error());
		}
		*n = i + 1;
	}
	return 0;
}

int cmd_skid(int argc, char **argv)
{
	struct skid_opts o;
	struct ipcc_skid_result *r = NULL;
	const char *texts[IPCC_SKID_MAX_KERNELS];
	static char text[IPCC_SKID_MAX_KERNELS][4096];
	struct ipcc_skid_fit fit;
	json_t *kernels;
	unsigned n = 0;
	int ret = parse(argc, argv, &o);

	if (ret)
		return ret;
	ret = collect(&o, &r, &n);
	if (ret)
		return ret;
	for (unsigned i = 0; i < n; i++) {
		const struct ipcc_kernel *k = ipcc_kernel_find(r[i].kernel);

		if (!k || ipcc_skid_loop_text(k, text[i], sizeof(text[i]))) {
			ret =
			    cli_error("skid", "%s: no such skid kernel in this ipcc", r[i].kernel);
			goto out;
		}
		texts[i] = text[i];
		if (ipcc_skid_compare(&r[i], text[i], &o.prof)) {
			ret = cli_error("skid", "%s: %s", r[i].kernel, ipcc_last_error());
			goto out;
		}
	}
	if (o.fit) {
		if (ipcc_skid_fit(r, texts, n, &o.prof, &fit)) {
			ret = cli_error("skid", "%s", ipcc_last_error());
			goto out;
		}
		if (o.output && ipcc_model_profile_save(o.output, &fit.profile)) {
			ret = cli_error("skid", "%s", ipcc_last_error());
			goto out;
		}
	}
	if (*o.profile_note)
		fprintf(stderr, "%s\n", o.profile_note);
	if (o.format == FORMAT_JSON) {
		json_t *root;

		kernels = json_array();
		for (unsigned i = 0; i < n; i++)
			json_array_append_new(kernels, to_json(&r[i], o.pinned));
		root = json_pack("{s:o}", "kernels", kernels);
		if (o.measured)
			json_object_set_new(root, "measured", json_string(o.measured));
		if (o.fit)
			json_object_set_new(root, "fit", fit_json(&fit, r));
		json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
		fputc('\n', stdout);
		json_decref(root);
	} else {
		if (o.measured)
			printf("measured: %s (not sampled here)\n\n", o.measured);
		for (unsigned i = 0; i < n; i++)
			print_text(&r[i], o.pinned);
		if (o.fit)
			print_fit(&fit, r, &o.prof);
		if (o.output)
			printf("fitted profile written to %s\n", o.output);
	}
	ret = EXIT_OK;
out:
	ipcc_skid_results_free(r, n);
	return ret;
}
