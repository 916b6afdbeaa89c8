/*
 * cmd_metrics.c - ipcc metrics: evaluate metric files over counts (ipcc stat's JSON, perf
 * stat -x, CSV, or a run of a command) and print the cycle tree.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "ipcc/counters.h"
#include "ipcc/error.h"
#include "ipcc/formula.h"
#include "ipcc/recipes.h"

const char cmd_metrics_help[] =
    "usage: ipcc metrics -m FILE [-m FILE...] [options] --counts FILE [FILE...]\n"
    "       ipcc metrics -m FILE [-m FILE...] [options] -- command [args...]\n"
    "       ipcc metrics --topdown-xml RECIPE\n"
    "\n"
    "Evaluate metrics (event aliases and a formula, in XML metric files) over counts, and\n"
    "print the cycle tree: each metric's value and, for cycle (or slot) metrics, its cycles,\n"
    "its share of its parent and of the total, children indented under their parent.\n"
    "A parent whose children sum to more than it is flagged (overlap is real in an\n"
    "out-of-order core). A metric whose events are missing is n/a, with their names.\n"
    "\n"
    "options:\n"
    "  -m, --metrics FILE   a metric file; repeatable (shipped ones: metrics/*.xml)\n"
    "      --counts FILE    counts from ipcc stat --format json, or perf stat -x, (- : stdin);\n"
    "                       repeatable, and words after it are more files: their counts\n"
    "                       are summed (rates in kHz averaged)\n"
    "      --set NAME=VALUE bind a name to a number (a constant, an expected count)\n"
    "      --dump           print each metric's formula as parsed, instead of values\n"
    "      --topdown-xml R  write recipe R's top-down level 1 as a metric file\n"
    "      --format FMT     text (default), json or csv\n"
    "  -h, --help           show this help\n"
    "\n"
    "With a command, ipcc stat runs it and counts the metrics' events (up to 8 beyond\n"
    "ipcc's own counters). Exit status: 0 (or the command's), 1 a failure, 2 bad usage or\n"
    "a bad file (reported as FILE:LINE:COLUMN: message).\n";

#define MAX_FILES  32
#define MAX_COUNTS 4096

struct metrics_opts {
	const char *files[MAX_FILES];
	unsigned nfiles;
	const char *counts[MAX_COUNTS];
	unsigned ncounts;
	const char *topdown;
	struct ipcc_counts *bindings;
	bool dump;
	enum cli_format format;
	char **argv;
	int argc;
};

static int parse(int argc, char **argv, struct metrics_opts *o)
{
	enum { O_COUNTS = 256, O_SET, O_DUMP, O_TOPDOWN, O_FORMAT };
	static const struct option longopts[] = {
		{ "metrics", required_argument, NULL, 'm' },
		{ "counts", required_argument, NULL, O_COUNTS },
		{ "set", required_argument, NULL, O_SET },
		{ "dump", no_argument, NULL, O_DUMP },
		{ "topdown-xml", required_argument, NULL, O_TOPDOWN },
		{ "format", required_argument, NULL, O_FORMAT },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+:m:", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (o->nfiles == MAX_FILES)
				return cli_usage_error("metrics", "at most %d metric files",
						       MAX_FILES);
			o->files[o->nfiles++] = optarg;
			break;
		case O_COUNTS:
			if (o->ncounts == MAX_COUNTS)
				return cli_usage_error("metrics", "at most %d counts files",
						       MAX_COUNTS);
			o->counts[o->ncounts++] = optarg;
			break;
		case O_SET: {
			char *eq = strchr(optarg, '='), *end;
			double v;

			if (!eq || eq == optarg)
				return cli_usage_error("metrics",
						       "--set wants NAME=VALUE, not '%s'", optarg);
			errno = 0;
			v = strtod(eq + 1, &end);
			if (end == eq + 1 || *end || errno)
				return cli_usage_error("metrics",
						       "--set %.*s wants a number, not '%s'",
						       (int)(eq - optarg), optarg, eq + 1);
			*eq = '\0';
			ret = ipcc_counts_set(o->bindings, optarg, v);
			*eq = '=';
			break;
		}
		case O_DUMP:
			o->dump = true;
			break;
		case O_TOPDOWN:
			o->topdown = optarg;
			break;
		case O_FORMAT:
			ret = cli_parse_format(
			    "metrics", optarg,
			    1u << FORMAT_TEXT | 1u << FORMAT_JSON | 1u << FORMAT_CSV, &o->format);
			break;
		default:
			return cli_bad_option("metrics", c, argv);
		}
		if (ret)
			return ret;
	}
	o->argv = argv + optind;
	o->argc = argc - optind;
	/* --counts A B C: the words after the options are more counts files (not after --). */
	if (o->ncounts && o->argc && strcmp(argv[optind - 1], "--") != 0) {
		for (int i = 0; i < o->argc; i++) {
			if (o->ncounts == MAX_COUNTS)
				return cli_usage_error("metrics", "at most %d counts files",
						       MAX_COUNTS);
			o->counts[o->ncounts++] = o->argv[i];
		}
		o->argc = 0;
	}
	if (o->topdown)
		return o->nfiles || o->ncounts || o->argc
			   ? cli_usage_error("metrics", "--topdown-xml takes nothing else")
			   : 0;
	if (!o->nfiles)
		return cli_usage_error("metrics", "no metric file (-m FILE)");
	if (o->dump)
		return o->ncounts || o->argc ? cli_usage_error("metrics", "--dump takes no counts")
					     : 0;
	if (!!o->ncounts == !!o->argc)
		return cli_usage_error("metrics", "give --counts FILE or -- command, one of them");
	return 0;
}

/*
 * Count the metrics' events by running `ipcc stat --format json` on the command: ipcc's own
 * counters always, and up to 8 other events with -e. Returns the command's exit status, or
 * -1 when nothing could be counted.
 */
static int measure(const struct metrics_opts *o, const struct ipcc_metric_set *set,
		   const char *json_path)
{
	char *args[64 + 2 * IPCC_MAX_EXTRA];
	int n = 0, status, extra = 0;
	pid_t pid;

	args[n++] = "ipcc";
	args[n++] = "stat";
	args[n++] = "--format";
	args[n++] = "json";
	args[n++] = "-o";
	args[n++] = (char *)json_path;
	for (unsigned i = 0; ipcc_metrics_event(set, i); i++) {
		const char *ev = ipcc_metrics_event(set, i);
		bool own = false;

		for (int c = 0; c < IPCC_NCOUNTERS; c++)
			own |= !strcmp(ev, ipcc_counter_name(c));
		own |= !strcmp(ev, "tsc_ticks") || !strcmp(ev, "tcfreq_khz") ||
		       !strcmp(ev, "elapsed_ns") || ipcc_counts_has(o->bindings, ev);
		/* A name no event table knows (a metric file's own alias) stays missing. */
		if (own || ipcc_event_check(ev) == IPCC_EINVAL)
			continue;
		if (extra == IPCC_MAX_EXTRA) {
			fprintf(stderr,
				"ipcc metrics: more than %d events: '%s' and later ones are "
				"not counted\n",
				IPCC_MAX_EXTRA, ev);
			break;
		}
		args[n++] = "-e";
		args[n++] = (char *)ev;
		extra++;
	}
	args[n++] = "--";
	for (int i = 0; i < o->argc && n < 64 + 2 * IPCC_MAX_EXTRA - 1; i++)
		args[n++] = o->argv[i];
	args[n] = NULL;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execv("/proc/self/exe", args);
		_exit(126);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static const char *flag_names(unsigned flags, char *buf, size_t len)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {
		{ IPCC_FORMULA_DIV0, "division_by_zero" },
		{ IPCC_FORMULA_MISSING, "missing_events" },
		{ IPCC_METRIC_CHILDREN_EXCEED, "children_exceed_parent" },
		{ IPCC_METRIC_NEGATIVE, "negative" },
		{ IPCC_METRIC_NO_PARENT, "no_such_parent" },
	};
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (flags & names[i].bit)
			off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s%s",
						off ? " " : "", names[i].name);
	return buf;
}

static void print_text(const struct ipcc_metric_set *set, const struct ipcc_metric_value *v,
		       unsigned n)
{
	int w = (int)strlen("metric");

	for (unsigned i = 0; i < n; i++)
		if ((int)(2 * v[i].depth + strlen(v[i].name)) > w)
			w = (int)(2 * v[i].depth + strlen(v[i].name));
	printf("%-*s %16s %9s %9s\n", w, "metric", "value", "of parent", "of total");
	for (unsigned i = 0; i < n; i++) {
		char label[256], val[32], sp[16] = "", st[16] = "", tail[64] = "", flags[128];
		int nb;

		snprintf(label, sizeof(label), "%*s%s", (int)(2 * v[i].depth), "", v[i].name);
		if (isnan(v[i].value))
			snprintf(val, sizeof(val), "n/a");
		else if (!isnan(v[i].cycles))
			snprintf(val, sizeof(val), "%.0f", v[i].cycles);
		else
			snprintf(val, sizeof(val), "%.6g", v[i].value);
		if (!isnan(v[i].share_of_parent))
			snprintf(sp, sizeof(sp), "%.1f%%", 100 * v[i].share_of_parent);
		if (!isnan(v[i].share_of_total)) {
			snprintf(st, sizeof(st), "%.1f%%", 100 * v[i].share_of_total);
			nb = (int)lround(fmin(fmax(v[i].share_of_total, 0), 1) * 40);
			memset(tail, '#', (size_t)nb);
			tail[nb] = '\0';
		} else if (!isnan(v[i].value) && isnan(v[i].cycles)) {
			snprintf(tail, sizeof(tail), "%s", v[i].unit);
		}
		if (*tail)
			printf("%-*s %16s %9s %9s  %s\n", w, label, val, sp, st, tail);
		else if (*st || *sp)
			printf("%-*s %16s %9s %9s\n", w, label, val, sp, st);
		else
			printf("%-*s %16s\n", w, label, val);
		if (v[i].missing[0])
			printf("%*s  missing: %s\n", (int)(2 * v[i].depth), "", v[i].missing);
		flag_names(v[i].flags & ~(unsigned)IPCC_FORMULA_MISSING, flags, sizeof(flags));
		if (flags[0])
			printf("%*s  ! %s\n", (int)(2 * v[i].depth), "", flags);
	}
	for (unsigned i = 0; ipcc_metrics_note(set, i); i++)
		printf("note: %s\n", ipcc_metrics_note(set, i));
}

static json_t *jnum(double x)
{
	return isnan(x) ? json_null() : json_real(x);
}

static void print_json(const struct ipcc_metric_set *set, const struct ipcc_metric_value *v,
		       unsigned n)
{
	json_t *root = json_object(), *arr = json_array(), *notes = json_array();

	for (unsigned i = 0; i < n; i++) {
		json_t *m = json_object(), *missing = json_array(), *flags = json_array();
		char buf[1024], *save = NULL, *w;

		snprintf(buf, sizeof(buf), "%s", v[i].missing);
		for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
			json_array_append_new(missing, json_string(w));
		flag_names(v[i].flags, buf, sizeof(buf));
		for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
			json_array_append_new(flags, json_string(w));
		json_object_set_new(m, "name", json_string(v[i].name));
		json_object_set_new(m, "value", jnum(v[i].value));
		json_object_set_new(m, "unit", json_string(v[i].unit));
		json_object_set_new(m, "parent",
				    v[i].parent ? json_string(v[i].parent) : json_null());
		json_object_set_new(m, "cycles", jnum(v[i].cycles));
		json_object_set_new(m, "share_of_parent", jnum(v[i].share_of_parent));
		json_object_set_new(m, "share_of_total", jnum(v[i].share_of_total));
		json_object_set_new(m, "missing", missing);
		json_object_set_new(m, "flags", flags);
		json_array_append_new(arr, m);
	}
	json_object_set_new(root, "metrics", arr);
	for (unsigned i = 0; ipcc_metrics_note(set, i); i++)
		json_array_append_new(notes, json_string(ipcc_metrics_note(set, i)));
	json_object_set_new(root, "notes", notes);
	json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	fputc('\n', stdout);
	json_decref(root);
}

static void csv_field(const char *s)
{
	putchar('"');
	for (; *s; s++)
		printf(*s == '"' ? "\"\"" : "%c", *s);
	putchar('"');
}

static void print_csv(const struct ipcc_metric_value *v, unsigned n)
{
	printf("name,value,unit,parent,cycles,share_of_parent,share_of_total,missing,flags\n");
	for (unsigned i = 0; i < n; i++) {
		char flags[128];

		csv_field(v[i].name);
		isnan(v[i].value) ? printf(",") : printf(",%.10g", v[i].value);
		printf(",%s,", v[i].unit);
		csv_field(v[i].parent ? v[i].parent : "");
		isnan(v[i].cycles) ? printf(",") : printf(",%.10g", v[i].cycles);
		isnan(v[i].share_of_parent) ? printf(",") : printf(",%.6f", v[i].share_of_parent);
		isnan(v[i].share_of_total) ? printf(",") : printf(",%.6f", v[i].share_of_total);
		printf(",");
		csv_field(v[i].missing);
		printf(",");
		csv_field(flag_names(v[i].flags, flags, sizeof(flags)));
		printf("\n");
	}
}

int cmd_metrics(int argc, char **argv)
{
	struct metrics_opts o = { 0 };
	struct ipcc_metric_set *set = NULL;
	struct ipcc_counts *counts = NULL;
	struct ipcc_metric_value *v = NULL;
	struct ipcc_formula_error err;
	char json_path[] = "/tmp/ipcc-metrics-XXXXXX";
	int ret, status = 0, fd;

	o.bindings = ipcc_counts_new();
	if (!o.bindings)
		return cli_error("metrics", "out of memory");
	ret = parse(argc, argv, &o);
	if (ret)
		goto out;
	if (o.topdown) {
		if (ipcc_recipe_topdown_xml(o.topdown, stdout)) {
			ret = cli_usage_error("metrics", "%s (one of the recipes, e.g. intel-skl)",
					      ipcc_last_error());
		}
		goto out;
	}
	set = ipcc_metric_set_new();
	counts = ipcc_counts_new();
	if (!set || !counts) {
		ret = cli_error("metrics", "out of memory");
		goto out;
	}
	for (unsigned i = 0; i < o.nfiles; i++)
		if (ipcc_metrics_load(set, o.files[i], &err)) {
			if (err.message[0])
				fprintf(stderr, "%s:%u:%u: %s\n", o.files[i], err.line, err.column,
					err.message);
			else
				fprintf(stderr, "ipcc metrics: %s\n", ipcc_last_error());
			ret = EXIT_USAGE;
			goto out;
		}
	if (o.dump) {
		struct ipcc_formula *f;

		/* Re-parse each formula text as evaluated, and print its tree. */
		v = calloc(ipcc_metrics_count(set) + 1, sizeof(*v));
		ipcc_metrics_eval(set, counts, o.bindings, v);
		for (unsigned i = 0; i < ipcc_metrics_count(set); i++) {
			char *d;

			if (ipcc_formula_parse(v[i].formula, &f, &err))
				continue;
			d = ipcc_formula_dump(f);
			printf("%s\n  %s\n", v[i].name, d ? d : "?");
			free(d);
			ipcc_formula_free(f);
		}
		goto out;
	}
	if (o.ncounts) {
		for (unsigned i = 0; i < o.ncounts; i++) {
			struct ipcc_counts *one = ipcc_counts_new();

			if (!one || ipcc_counts_load(one, o.counts[i], &err)) {
				if (one && err.message[0])
					fprintf(stderr, "%s:%u:%u: %s\n", o.counts[i], err.line,
						err.column, err.message);
				else
					fprintf(stderr, "ipcc metrics: %s\n", ipcc_last_error());
				ipcc_counts_free(one);
				ret = EXIT_USAGE;
				goto out;
			}
			ret = ipcc_counts_add(counts, one, i);
			ipcc_counts_free(one);
			if (ret) {
				ret = cli_error("metrics", "%s", ipcc_last_error());
				goto out;
			}
		}
		if (o.ncounts > 1)
			fprintf(stderr, "ipcc metrics: the sum of the counts of %u files\n",
				o.ncounts);
	} else {
		fd = mkstemp(json_path);
		if (fd < 0) {
			ret = cli_error("metrics", "cannot make a temporary file: %s",
					strerror(errno));
			goto out;
		}
		close(fd);
		status = measure(&o, set, json_path);
		if (ipcc_counts_load(counts, json_path, &err)) {
			unlink(json_path);
			ret = status == 127 ? 127 : cli_error("metrics", "the run gave no counts");
			goto out;
		}
		unlink(json_path);
	}
	v = calloc(ipcc_metrics_count(set) + 1, sizeof(*v));
	if (!v || ipcc_metrics_eval(set, counts, o.bindings, v)) {
		ret = cli_error("metrics", "%s", ipcc_last_error());
		goto out;
	}
	if (o.format == FORMAT_JSON)
		print_json(set, v, ipcc_metrics_count(set));
	else if (o.format == FORMAT_CSV)
		print_csv(v, ipcc_metrics_count(set));
	else
		print_text(set, v, ipcc_metrics_count(set));
	ret = status;
out:
	free(v);
	ipcc_counts_free(counts);
	ipcc_counts_free(o.bindings);
	ipcc_metric_set_free(set);
	return ret;
}
