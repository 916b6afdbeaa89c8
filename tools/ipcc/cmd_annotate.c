/*
 * cmd_annotate.c - ipcc annotate: a profile file as functions, as instructions of one
 * function with their disassembly, as folded lines, or as its active code footprint.
 */
#include <capstone/capstone.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ipcc/error.h"
#include "ipcc/profile.h"

const char cmd_annotate_help[] =
    "usage: ipcc annotate [options]\n"
    "\n"
    "Read a profile written by 'ipcc record' and show where the samples landed: functions,\n"
    "hottest first, with their share of the samples (symbols from each file's ELF symbol\n"
    "tables); or one function's instructions with their disassembly and samples; or one\n"
    "line per function for flame-graph tools; or the active code footprint.\n"
    "\n"
    "options:\n"
    "  -i, --input FILE    the profile (default ipcc.profile)\n"
    "      --top N         show the N hottest functions (default 20)\n"
    "      --symbol NAME   show function NAME instruction by instruction\n"
    "      --folded        'file;function count' lines, hottest first\n"
    "      --footprint     how many 64-byte code lines (bytes, functions) hold 50%, 75%,\n"
    "                      90% and 99% of the samples\n"
    "      --svg FILE      with --footprint: also plot the cumulative share of samples\n"
    "                      against the number of hottest lines\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 success, 1 the profile cannot be read or NAME has no samples, 2 bad\n"
    "usage.\n";

struct annotate_opts {
	const char *input, *symbol, *svg;
	uint64_t top;
	bool folded, footprint;
};

static int parse(int argc, char **argv, struct annotate_opts *o)
{
	enum { O_TOP = 256, O_SYMBOL, O_FOLDED, O_FOOTPRINT, O_SVG };
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "top", required_argument, NULL, O_TOP },
		{ "symbol", required_argument, NULL, O_SYMBOL },
		{ "folded", no_argument, NULL, O_FOLDED },
		{ "footprint", no_argument, NULL, O_FOOTPRINT },
		{ "svg", required_argument, NULL, O_SVG },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret = 0;

	memset(o, 0, sizeof(*o));
	o->input = "ipcc.profile";
	o->top = 20;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->input = optarg;
			break;
		case O_TOP:
			ret = cli_parse_u64("annotate", "--top", optarg, 1, 1000000, &o->top);
			break;
		case O_SYMBOL:
			o->symbol = optarg;
			break;
		case O_FOLDED:
			o->folded = true;
			break;
		case O_FOOTPRINT:
			o->footprint = true;
			break;
		case O_SVG:
			o->svg = optarg;
			break;
		default:
			return cli_bad_option("annotate", c, argv);
		}
		if (ret)
			return ret;
	}
	if (optind != argc)
		return cli_usage_error("annotate", "unexpected argument '%s'", argv[optind]);
	if ((o->symbol != NULL) + o->folded + o->footprint > 1)
		return cli_usage_error("annotate",
				       "--symbol, --folded and --footprint: one at a time");
	if (o->svg && !o->footprint)
		return cli_usage_error("annotate", "--svg plots the footprint: add --footprint");
	return 0;
}

/* A group of samples: a function, or a 64-byte line. */
struct bucket {
	const char *file, *function;
	uint64_t key; /* function start, or line address */
	uint64_t size;
	uint64_t samples;
};

static int by_samples(const void *a, const void *b)
{
	const struct bucket *x = a, *y = b;

	return x->samples > y->samples ? -1 : x->samples < y->samples;
}

static const char *base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "?";
}

static int by_place(const void *a, const void *b)
{
	const struct bucket *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->function == y->function ? 0 : x->function < y->function ? -1 : 1;
}

/*
 * Group the resolved samples by function (or by 64-byte line), hottest first: one bucket
 * per sample, sorted by place, then runs merged. O(n log n).
 */
static size_t group(const struct ipcc_profile *p, const struct ipcc_symbol *sym, bool lines,
		    struct bucket *b)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nsamples; i++) {
		const struct ipcc_symbol *y = &sym[i];

		b[i] = (struct bucket){ y->file, y->function,
					lines	      ? y->elf_addr & ~63ull
					: y->function ? y->func_start
						      : 0,
					lines ? 64 : y->func_size, 1 };
	}
	qsort(b, p->nsamples, sizeof(*b), by_place);
	for (size_t i = 0; i < p->nsamples; i++) {
		if (n && by_place(&b[n - 1], &b[i]) == 0)
			b[n - 1].samples++;
		else
			b[n++] = b[i];
	}
	qsort(b, n, sizeof(*b), by_samples);
	return n;
}

static void print_functions(const struct ipcc_profile *p, struct bucket *b, size_t n, uint64_t top)
{
	printf("%10s %8s  %-40s %s\n", "samples", "share", "function", "file");
	for (size_t i = 0; i < n && i < top; i++)
		printf("%10" PRIu64 " %7.2f%%  %-40s %s\n", b[i].samples,
		       100.0 * (double)b[i].samples / (double)p->nsamples,
		       b[i].function ? b[i].function : "[unknown]", base(b[i].file));
}

static void print_folded(struct bucket *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%s;%s %" PRIu64 "\n", base(b[i].file),
		       b[i].function ? b[i].function : "[unknown]", b[i].samples);
}

/* Levinthal's active binary size: the hottest lines that hold each share of the samples. */
static void print_footprint(const struct ipcc_profile *p, struct bucket *lines, size_t n)
{
	static const double shares[] = { 0.50, 0.75, 0.90, 0.99 };
	uint64_t cum = 0;
	size_t i = 0;

	printf("%6s %8s %10s %10s\n", "share", "lines", "bytes", "functions");
	for (size_t s = 0; s < sizeof(shares) / sizeof(shares[0]); s++) {
		while (i < n && (double)cum < shares[s] * (double)p->nsamples)
			cum += lines[i++].samples;
		/* Functions: distinct (file, function) among the first i lines. */
		{
			size_t funcs = 0;

			for (size_t a = 0; a < i; a++) {
				bool seen = false;

				for (size_t c = 0; c < a && !seen; c++)
					seen = lines[c].file == lines[a].file &&
					       lines[c].function == lines[a].function;
				funcs += !seen;
			}
			printf("%5.0f%% %8zu %10zu %10zu\n", 100 * shares[s], i, i * 64, funcs);
		}
	}
}

/* The cumulative share of samples against the number of hottest 64-byte lines. */
static int write_svg(const char *path, const struct ipcc_profile *p, const struct bucket *lines,
		     size_t n)
{
	FILE *f = fopen(path, "w");
	uint64_t cum = 0;

	if (!f)
		return cli_error("annotate", "cannot write %s: %s", path, strerror(errno));
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"400\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n"
		"<text x=\"320\" y=\"24\" text-anchor=\"middle\">Active code footprint: "
		"cumulative share of samples</text>\n"
		"<line x1=\"60\" y1=\"360\" x2=\"620\" y2=\"360\" stroke=\"black\"/>\n"
		"<line x1=\"60\" y1=\"40\" x2=\"60\" y2=\"360\" stroke=\"black\"/>\n"
		"<text x=\"340\" y=\"390\" text-anchor=\"middle\">hottest 64-byte lines "
		"(%zu in all)</text>\n"
		"<text x=\"54\" y=\"44\" text-anchor=\"end\">1</text>\n"
		"<text x=\"54\" y=\"364\" text-anchor=\"end\">0</text>\n"
		"<polyline fill=\"none\" stroke=\"steelblue\" stroke-width=\"2\" "
		"points=\"60,360",
		n);
	for (size_t i = 0; i < n; i++) {
		cum += lines[i].samples;
		fprintf(f, " %.1f,%.1f", 60 + 560.0 * (double)(i + 1) / (double)n,
			360 - 320.0 * (double)cum / (double)p->nsamples);
	}
	fprintf(f, "\"/>\n</svg>\n");
	if (fclose(f))
		return cli_error("annotate", "writing %s: %s", path, strerror(errno));
	return EXIT_OK;
}

static int print_symbol(const struct annotate_opts *o, const struct ipcc_profile *p,
			struct ipcc_symbols *syms, const struct ipcc_symbol *sym)
{
	const struct ipcc_symbol *f = NULL;
	uint64_t total = 0;
	unsigned char *code;
	cs_insn *insn = NULL;
	size_t ninsn;
	csh cs;

	for (size_t i = 0; i < p->nsamples; i++)
		if (sym[i].function && !strcmp(sym[i].function, o->symbol)) {
			f = &sym[i];
			total++;
		}
	if (!f)
		return cli_error("annotate", "no samples in a function named '%s'", o->symbol);
	code = malloc(f->func_size ? f->func_size : 1);
	if (!code || ipcc_symbols_read(syms, f->file, f->func_start, code, f->func_size)) {
		free(code);
		return cli_error("annotate", "%s: %s", o->symbol, ipcc_last_error());
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		free(code);
		return cli_error("annotate", "Capstone cannot disassemble x86-64");
	}
	ninsn = cs_disasm(cs, code, f->func_size, f->func_start, 0, &insn);
	printf("%s (%s): %" PRIu64 " samples, %.2f%% of %zu\n", o->symbol, base(f->file), total,
	       100.0 * (double)total / (double)p->nsamples, p->nsamples);
	printf("%10s %8s  %8s  %s\n", "samples", "share", "offset", "instruction");
	for (size_t k = 0; k < ninsn; k++) {
		uint64_t c = 0;

		for (size_t i = 0; i < p->nsamples; i++)
			c += sym[i].function == f->function && sym[i].file == f->file &&
			     sym[i].elf_addr == insn[k].address;
		printf("%10" PRIu64 " %7.2f%%  %8" PRIx64 "  %s %s\n", c,
		       total ? 100.0 * (double)c / (double)total : 0.0,
		       insn[k].address - f->func_start, insn[k].mnemonic, insn[k].op_str);
	}
	cs_free(insn, ninsn);
	cs_close(&cs);
	free(code);
	return EXIT_OK;
}

int cmd_annotate(int argc, char **argv)
{
	struct annotate_opts o;
	struct ipcc_profile *p = NULL;
	struct ipcc_symbols *syms = NULL;
	struct ipcc_symbol *sym = NULL;
	struct bucket *b = NULL;
	size_t n;
	int ret = parse(argc, argv, &o);

	if (ret)
		return ret;
	if (ipcc_profile_load(o.input, &p))
		return cli_error("annotate", "%s", ipcc_last_error());
	if (ipcc_symbols_new(p, &syms)) {
		ipcc_profile_free(p);
		return cli_error("annotate", "%s", ipcc_last_error());
	}
	sym = calloc(p->nsamples + 1, sizeof(*sym));
	b = calloc(p->nsamples + 1, sizeof(*b));
	if (!sym || !b) {
		ret = cli_error("annotate", "out of memory");
		goto out;
	}
	for (size_t i = 0; i < p->nsamples; i++)
		ipcc_symbols_resolve(syms, &p->samples[i], &sym[i]);
	if (p->has_summary && !o.folded)
		printf("%s: %zu samples (%s), %" PRIu64 " lost, throttled %" PRIu64 " times\n",
		       o.input, p->nsamples, p->summary.event, p->summary.lost,
		       p->summary.throttles);
	if (!p->nsamples) {
		ret = o.folded ? EXIT_OK : cli_error("annotate", "%s holds no samples", o.input);
		goto out;
	}
	if (o.symbol) {
		ret = print_symbol(&o, p, syms, sym);
	} else if (o.footprint) {
		n = group(p, sym, true, b);
		print_footprint(p, b, n);
		if (o.svg)
			ret = write_svg(o.svg, p, b, n);
	} else {
		n = group(p, sym, false, b);
		if (o.folded)
			print_folded(b, n);
		else
			print_functions(p, b, n, o.top);
	}
out:
	free(b);
	free(sym);
	ipcc_symbols_free(syms);
	ipcc_profile_free(p);
	return ret;
}
