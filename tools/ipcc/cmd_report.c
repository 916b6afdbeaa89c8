/*
 * cmd_report.c - ipcc report: one self-contained HTML page from a recording and the JSON
 * outputs of ipcc stat, metrics and bench (the page itself is the library's: report.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "ipcc/cpu.h"
#include "ipcc/error.h"
#include "ipcc/explain.h"
#include "ipcc/model.h"
#include "ipcc/recording.h"
#include "ipcc/report.h"

const char cmd_report_help[] =
    "usage: ipcc report [-i RECORDING] [--stat FILE.json ...] [--metrics FILE.json ...]\n"
    "                   [--bench FILE.json ...] [--model] [-o FILE.html]\n"
    "\n"
    "Write one HTML page that shows where the time went and why: the machine (CPU, recipe,\n"
    "model profile, TCFREQ and core frequency, each with where it came from), the four-way\n"
    "split of issue slots per run and region (ipcc stat --regions; measured, or modelled by\n"
    "--backend model), the cycle tree, the recording's functions as a sortable table and a\n"
    "flame graph, its hot loops explained by the pipeline model, its active code footprint\n"
    "(as ipcc annotate --footprint counts it), and benchmark figures. The page is\n"
    "self-contained (inline SVG and CSS, no network) and reads and prints without its\n"
    "script, which only sorts, zooms and expands. A figure the inputs do not hold is said\n"
    "to be absent, with the reason.\n"
    "\n"
    "options:\n"
    "  -i, --input FILE    the recording ipcc record wrote (without it: no functions,\n"
    "                      loops or footprint)\n"
    "      --stat FILE     ipcc stat --format json output (any backend; repeatable)\n"
    "      --metrics FILE  ipcc metrics --format json output: the cycle tree (repeatable)\n"
    "      --bench FILE    ipcc bench --format json output (repeatable)\n"
    "      --model         explain the recording's hot loops with the pipeline model, as\n"
    "                      ipcc annotate --model does\n"
    "      --profile NAME  with --model: a built-in profile, auto (default: the one\n"
    "                      closest to this CPU) or a profile FILE (ipcc bench\n"
    "                      --fit-profile writes one)\n"
    "      --loops N       with --model: at most N loops (default 10)\n"
    "      --top N         functions in the table (default 50)\n"
    "      --title TEXT    the page's title (default: from the inputs)\n"
    "  -o, --output FILE   the page (default ipcc-report.html), replaced whole\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 written, 1 an input cannot be read or the page cannot be written, 2 bad\n"
    "usage.\n";

#define MAX_INPUTS 64

struct report_opts {
	const char *input, *output, *title, *profile;
	const char *json[MAX_INPUTS];
	enum ipcc_report_input kind[MAX_INPUTS];
	unsigned njson;
	uint64_t loops, top;
	bool model;
	struct ipcc_model_profile prof;
	char profile_note[320]; /* which profile --profile auto chose (cli_parse_profile) */
};

static int parse(int argc, char **argv, struct report_opts *o)
{
	enum { O_STAT = 256, O_METRICS, O_BENCH, O_MODEL, O_PROFILE, O_LOOPS, O_TOP, O_TITLE };
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "stat", required_argument, NULL, O_STAT },
		{ "metrics", required_argument, NULL, O_METRICS },
		{ "bench", required_argument, NULL, O_BENCH },
		{ "model", no_argument, NULL, O_MODEL },
		{ "profile", required_argument, NULL, O_PROFILE },
		{ "loops", required_argument, NULL, O_LOOPS },
		{ "top", required_argument, NULL, O_TOP },
		{ "title", required_argument, NULL, O_TITLE },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret = 0;

	memset(o, 0, sizeof(*o));
	o->output = "ipcc-report.html";
	o->top = 50;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:o:", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->input = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case O_STAT:
		case O_METRICS:
		case O_BENCH:
			if (o->njson == MAX_INPUTS)
				return cli_usage_error("report", "at most %d JSON inputs",
						       MAX_INPUTS);
			o->kind[o->njson] = c == O_STAT	     ? IPCC_REPORT_STAT_JSON
					    : c == O_METRICS ? IPCC_REPORT_METRICS_JSON
							     : IPCC_REPORT_BENCH_JSON;
			o->json[o->njson++] = optarg;
			break;
		case O_MODEL:
			o->model = true;
			break;
		case O_PROFILE:
			o->profile = optarg;
			break;
		case O_LOOPS:
			ret = cli_parse_u64("report", "--loops", optarg, 1, 1000, &o->loops);
			break;
		case O_TOP:
			ret = cli_parse_u64("report", "--top", optarg, 1, 100000, &o->top);
			break;
		case O_TITLE:
			o->title = optarg;
			break;
		default:
			return cli_bad_option("report", c, argv);
		}
		if (ret)
			return ret;
	}
	if (optind != argc)
		return cli_usage_error("report", "unexpected argument '%s'", argv[optind]);
	if (!o->input && !o->njson)
		return cli_usage_error("report", "nothing to report: give -i RECORDING, --stat, "
						 "--metrics or --bench");
	if (o->model && !o->input)
		return cli_usage_error("report", "--model explains a recording's hot loops: add "
						 "-i RECORDING");
	if ((o->profile || o->loops) && !o->model)
		return cli_usage_error("report", "--profile and --loops are for --model: add "
						 "--model");
	if (!o->loops)
		o->loops = 10;
	if (o->model &&
	    (ret = cli_parse_profile("report", o->profile ? o->profile : "auto", &o->prof,
				     o->profile_note, sizeof(o->profile_note))))
		return ret;
	return 0;
}

/* The facts ipcc knows here: this machine's CPU, and the model profile --model used. */
static int add_facts(const struct report_opts *o, struct ipcc_report *r)
{
	struct ipcc_cpu cpu;
	char value[256];
	const char *note = o->profile_note, *colon;
	int ret = 0;

	if (ipcc_cpu_identify(&cpu) == 0) {
		ipcc_cpu_describe(&cpu, value, sizeof(value));
		ret = ipcc_report_add_fact(r, "CPU", value,
					   "CPUID of the machine that wrote this report");
	}
	if (!ret && o->model) {
		const char *asked = o->profile ? o->profile : "auto";

		if (!strcmp(asked, "auto") || !strcmp(asked, o->prof.name))
			snprintf(value, sizeof(value), "%s", o->prof.name);
		else
			snprintf(value, sizeof(value), "%s (from %s)", o->prof.name, asked);
		/* "ipcc report: profile auto is P, for CPU": the part after the command. */
		colon = strstr(note, ": ");
		ret = ipcc_report_add_fact(r, "model profile", value,
					   *note && colon ? colon + 2
					   : strcmp(asked, "auto")
					       ? "named with --profile"
					       : "auto: the built-in profile closest to this CPU");
	}
	return ret;
}

/*
 * The page's file: a regular file (or a new one) is written whole to a temporary file and
 * renamed onto it (cli_output); anything else that exists (/dev/null, /dev/stdout, a pipe)
 * is written straight to, never replaced.
 */
struct page_out {
	struct cli_output tmp;
	FILE *direct;
};

static int page_open(const char *path, struct page_out *p)
{
	struct stat st;

	memset(p, 0, sizeof(*p));
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		p->direct = fopen(path, "w");
		return p->direct
			   ? 0
			   : cli_error("report", "cannot write '%s': %s", path, strerror(errno));
	}
	return cli_output_open("report", path, stdout, &p->tmp);
}

static FILE *page_file(struct page_out *p)
{
	return p->direct ? p->direct : p->tmp.f;
}

/* Make the page the file's; EXIT_FAIL when that fails. */
static int page_commit(const char *path, struct page_out *p)
{
	FILE *f = p->direct;

	if (!f)
		return cli_output_commit("report", &p->tmp);
	p->direct = NULL;
	if (fflush(f) || ferror(f)) {
		fclose(f);
		return cli_error("report", "writing '%s': %s", path, strerror(errno));
	}
	return fclose(f) ? cli_error("report", "writing '%s': %s", path, strerror(errno)) : EXIT_OK;
}

/* Leave the file as it was (what was written straight to a device stays written). */
static void page_abort(struct page_out *p)
{
	if (p->direct)
		fclose(p->direct);
	p->direct = NULL;
	cli_output_abort(&p->tmp);
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o;
	struct ipcc_report *r = NULL;
	struct ipcc_recording *p = NULL;
	struct ipcc_symbols *syms = NULL;
	struct ipcc_explain x;
	bool explained = false;
	struct page_out out;
	struct stat st;
	char generator[64];
	int ret = parse(argc, argv, &o);

	if (ret)
		return ret;
	/* A page that cannot be written fails before any work. */
	if ((ret = page_open(o.output, &out)))
		return ret;
	snprintf(generator, sizeof(generator), "ipcc %s", IPCC_VERSION);
	if (ipcc_report_new(&(struct ipcc_report_opts){ o.title, generator, (unsigned)o.top },
			    &r)) {
		page_abort(&out);
		return cli_error("report", "%s", ipcc_last_error());
	}
	for (unsigned i = 0; i < o.njson; i++)
		if (ipcc_report_load(r, o.kind[i], o.json[i])) {
			ret = cli_error("report", "%s", ipcc_last_error());
			goto out;
		}
	if (o.input) {
		if (ipcc_recording_load(o.input, &p) || ipcc_symbols_new(p, &syms) ||
		    ipcc_report_add_recording(r, o.input, p, syms)) {
			ret = cli_error("report", "%s", ipcc_last_error());
			goto out;
		}
	} else {
		ipcc_report_absent(r, IPCC_REPORT_FUNCTIONS, "no recording given (-i RECORDING)");
		ipcc_report_absent(r, IPCC_REPORT_FOOTPRINT, "no recording given (-i RECORDING)");
		ipcc_report_absent(r, IPCC_REPORT_LOOPS,
				   "no recording given (-i RECORDING): the model explains a "
				   "recording's hot loops");
	}
	if (o.model && p->nsamples) {
		if (ipcc_explain(p, syms,
				 &(struct ipcc_explain_opts){ (unsigned)o.loops, 0, &o.prof, 0 },
				 &x)) {
			ret = cli_error("report", "%s", ipcc_last_error());
			goto out;
		}
		explained = true;
		ipcc_report_add_explain(r, &x);
	} else if (o.model) {
		ipcc_report_absent(r, IPCC_REPORT_LOOPS, "the recording holds no samples");
	} else if (o.input) {
		ipcc_report_absent(r, IPCC_REPORT_LOOPS,
				   "not asked for: ipcc report --model explains the recording's "
				   "hot loops with the pipeline model");
	}
	ipcc_report_absent(r, IPCC_REPORT_SPLIT,
			   "no ipcc stat --format json output given (--stat FILE)");
	ipcc_report_absent(r, IPCC_REPORT_CYCLES,
			   "no ipcc metrics --format json output given (--metrics FILE)");
	ipcc_report_absent(r, IPCC_REPORT_BENCH,
			   "no ipcc bench --format json output given (--bench FILE)");
	if (add_facts(&o, r)) {
		ret = cli_error("report", "%s", ipcc_last_error());
		goto out;
	}
	if (ipcc_report_write(r, page_file(&out))) {
		ret = cli_error("report", "%s", ipcc_last_error());
		goto out;
	}
	if ((ret = page_commit(o.output, &out)))
		goto out;
	if (stat(o.output, &st) == 0 && S_ISREG(st.st_mode))
		printf("ipcc report: wrote %s (%.0f KiB)\n", o.output, (double)st.st_size / 1024);
out:
	page_abort(&out); /* nothing once committed */
	if (explained)
		ipcc_explain_release(&x);
	ipcc_report_free(r);
	ipcc_symbols_free(syms);
	ipcc_recording_free(p);
	return ret;
}
