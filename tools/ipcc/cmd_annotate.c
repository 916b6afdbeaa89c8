/*
 * cmd_annotate.c - ipcc annotate: a recording as functions, as instructions of one
 * function with their disassembly, as folded lines, as its active code footprint, or as a
 * pprof profile.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "annotate_int.h"
#include "cli.h"
#include "ipcc/disasm.h"
#include "ipcc/error.h"
#include "ipcc/explain.h"
#include "ipcc/lift.h"
#include "ipcc/pprof.h"
#include "ipcc/recording.h"

const char cmd_annotate_help[] =
    "usage: ipcc annotate [options]\n"
    "\n"
    "Read a recording written by 'ipcc record' and show where the samples landed: functions,\n"
    "hottest first, with their share of the samples; or one function's (or one address\n"
    "range's) instructions with their disassembly and samples; or one line per function for\n"
    "flame-graph tools; or the active code footprint; or a pprof profile for go tool pprof,\n"
    "Pyroscope, Parca and the like.\n"
    "\n"
    "Symbols come from each file's ELF symbol table; a stripped file's from its separate\n"
    "debug file where one is installed (by build ID under $IPCC_DEBUG_ROOT/.build-id/,\n"
    "default /usr/lib/debug, or by .gnu_debuglink), else from its dynamic symbols. Code that\n"
    "no symbol covers is shown as FILE+0xADDR: the address in the file's own (ELF) addresses,\n"
    "as perf report shows it.\n"
    "\n"
    "options:\n"
    "  -i, --input FILE    the recording (default ipcc.profile)\n"
    "      --top N         show the N hottest functions (default 20)\n"
    "      --symbol NAME   show function NAME (mangled or not) instruction by instruction\n"
    "      --symbol FILE+0xSTART-0xEND\n"
    "                      the same for the code of FILE (a name, or the start of one:\n"
    "                      liblzma.so.5 for liblzma.so.5.4.1) at hexadecimal addresses\n"
    "                      [START, END)\n"
    "      --unknown MODE  samples in code no symbol covers, per 'address' (default:\n"
    "                      FILE+0xADDR), per 64-byte 'line' (FILE+0xSTART-0xEND, as\n"
    "                      --symbol takes it) or per 'file' (one [unknown] row each)\n"
    "      --no-demangle   show C++ and Rust names as the symbol table has them\n"
    "      --folded        'file;function count' lines, hottest first\n"
    "      --loops N       the hot loops (backward branches within a function), hottest\n"
    "                      first with their inner loops: at most N, chosen until they hold\n"
    "                      the --cover share of the samples\n"
    "      --cover F       with --loops: the share to cover (default 0.9)\n"
    "      --model         with the hot loops (--loops N, default 10): lift each chosen\n"
    "                      loop's machine code into the pipeline model and show, per\n"
    "                      instruction, the measured share of its samples, the model's\n"
    "                      predicted share and the de-skidded share (each sample moved\n"
    "                      back to the instruction that held retirement when it was\n"
    "                      taken); per loop the predicted cycles per iteration, what\n"
    "                      bounds it, the distance between measured and predicted, and\n"
    "                      the distance between the samples' two halves in time\n"
    "      --profile NAME  with --model: a built-in profile (ipcc sim --help lists\n"
    "                      them), auto (default: the one closest to this CPU), or a\n"
    "                      profile FILE (ipcc bench --fit-profile writes one)\n"
    "      --footprint     how many 64-byte code lines (bytes, functions) hold 50%, 75%,\n"
    "                      90% and 99% of the samples\n"
    "      --svg FILE      with --footprint: also plot the cumulative share of samples\n"
    "                      against the number of hottest lines; with --model: each\n"
    "                      loop's measured, predicted and de-skidded shares per\n"
    "                      instruction\n"
    "      --format FMT    text (default); json with --model; or pprof: a\n"
    "                      gzip-compressed pprof profile\n"
    "                      (one location per sampled address, function names, no\n"
    "                      source lines), to -o FILE or to stdout if not a terminal\n"
    "  -o, --output FILE   with --format pprof: write it to FILE\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 success, 1 the recording cannot be read or NAME has no samples, 2 bad\n"
    "usage.\n";

/*
 * Whether `path` is the file `name` stands for: the same path, the same file name, or a file
 * name that starts with name and a dot (liblzma.so.5 for liblzma.so.5.4.1).
 */
static bool names_file(const char *name, const char *path)
{
	const char *b = annotate_base(path);
	size_t n = strlen(name);

	return !strcmp(name, path) || !strcmp(name, b) || (!strncmp(name, b, n) && b[n] == '.');
}

/* Parse a hexadecimal number with an optional 0x at *s, up to stop; false if malformed. */
static bool parse_hex(const char *s, const char *stop, uint64_t *out)
{
	char *end;

	if (stop - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (s == stop || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	*out = strtoull(s, &end, 16);
	return end == stop && !errno;
}

/* Split FILE+0xSTART-0xEND; false if arg does not have that shape. */
static bool parse_range(const char *arg, char *file, size_t len, uint64_t *lo, uint64_t *hi)
{
	const char *plus = strrchr(arg, '+'), *dash = plus ? strchr(plus, '-') : NULL;

	if (!plus || plus == arg || !dash || (size_t)(plus - arg) >= len ||
	    !parse_hex(plus + 1, dash, lo) || !parse_hex(dash + 1, dash + strlen(dash), hi))
		return false;
	memcpy(file, arg, (size_t)(plus - arg));
	file[plus - arg] = '\0';
	return true;
}

static int parse(int argc, char **argv, struct annotate_opts *o)
{
	enum {
		O_TOP = 256,
		O_SYMBOL,
		O_FOLDED,
		O_FOOTPRINT,
		O_SVG,
		O_UNKNOWN,
		O_NO_DEMANGLE,
		O_FORMAT,
		O_LOOPS,
		O_COVER,
		O_MODEL,
		O_PROFILE
	};
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "top", required_argument, NULL, O_TOP },
		{ "symbol", required_argument, NULL, O_SYMBOL },
		{ "folded", no_argument, NULL, O_FOLDED },
		{ "footprint", no_argument, NULL, O_FOOTPRINT },
		{ "svg", required_argument, NULL, O_SVG },
		{ "unknown", required_argument, NULL, O_UNKNOWN },
		{ "no-demangle", no_argument, NULL, O_NO_DEMANGLE },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "loops", required_argument, NULL, O_LOOPS },
		{ "cover", required_argument, NULL, O_COVER },
		{ "model", no_argument, NULL, O_MODEL },
		{ "profile", required_argument, NULL, O_PROFILE },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c, ret = 0;

	memset(o, 0, sizeof(*o));
	o->input = "ipcc.profile";
	o->top = 20;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:o:", longopts, NULL)) != -1) {
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
		case O_UNKNOWN:
			if (!strcmp(optarg, "address"))
				o->unknown = UNKNOWN_ADDRESS;
			else if (!strcmp(optarg, "line"))
				o->unknown = UNKNOWN_LINE;
			else if (!strcmp(optarg, "file"))
				o->unknown = UNKNOWN_FILE;
			else
				return cli_usage_error("annotate",
						       "--unknown takes address, line or file, not "
						       "'%s'",
						       optarg);
			break;
		case O_NO_DEMANGLE:
			o->raw_names = true;
			break;
		case O_FORMAT:
			if (!strcmp(optarg, "pprof") || !strcmp(optarg, "text") ||
			    !strcmp(optarg, "json")) {
				o->pprof = !strcmp(optarg, "pprof");
				o->json = !strcmp(optarg, "json");
			} else {
				return cli_usage_error(
				    "annotate", "unknown format '%s' (expected text, json, pprof)",
				    optarg);
			}
			break;
		case 'o':
			o->output = optarg;
			break;
		case O_LOOPS:
			ret = cli_parse_u64("annotate", "--loops", optarg, 1, 1000, &o->loops);
			break;
		case O_MODEL:
			o->model = true;
			break;
		case O_PROFILE:
			o->profile = optarg;
			break;
		case O_COVER:
			o->cover = strtod(optarg, &end);
			if (*end || end == optarg || !(o->cover > 0 && o->cover <= 1))
				return cli_usage_error(
				    "annotate",
				    "--cover wants a share above 0, at most 1, not '%s'", optarg);
			break;
		default:
			return cli_bad_option("annotate", c, argv);
		}
		if (ret)
			return ret;
	}
	if (optind != argc)
		return cli_usage_error("annotate", "unexpected argument '%s'", argv[optind]);
	if (o->model && !o->loops)
		o->loops = 10;
	if (o->profile && !o->model)
		return cli_usage_error("annotate", "--profile is for --model: add --model");
	if (o->json && !o->model)
		return cli_usage_error("annotate", "--format json is for --model: add --model");
	if ((o->symbol != NULL) + o->folded + o->footprint + (o->loops > 0) > 1)
		return cli_usage_error(
		    "annotate", "--symbol, --folded, --footprint and --loops: one at a time");
	if (o->cover > 0 && !o->loops)
		return cli_usage_error("annotate", "--cover is for --loops: add --loops N");
	if (o->model &&
	    (ret = cli_parse_profile("annotate", o->profile ? o->profile : "auto", &o->prof,
				     o->profile_note, sizeof(o->profile_note))))
		return ret;
	if (o->pprof && o->loops)
		return cli_usage_error("annotate", "--format pprof holds every sample: no --loops");
	if (o->pprof && (o->symbol || o->folded || o->footprint))
		return cli_usage_error("annotate",
				       "--format pprof holds every sample: no --symbol, "
				       "--folded or --footprint");
	if (o->output && !o->pprof)
		return cli_usage_error("annotate", "-o writes a pprof profile: add --format pprof");
	if (o->pprof && !o->output && isatty(STDOUT_FILENO))
		return cli_usage_error("annotate",
				       "--format pprof writes binary data: give -o FILE "
				       "(or redirect stdout)");
	if (o->svg && !o->footprint && !o->model)
		return cli_usage_error("annotate",
				       "--svg plots the footprint or the model: add --footprint or "
				       "--model");
	if (o->symbol &&
	    parse_range(o->symbol, o->range_file, sizeof(o->range_file), &o->lo, &o->hi) &&
	    (o->hi <= o->lo || o->hi - o->lo > (1u << 24)))
		return cli_usage_error("annotate",
				       "--symbol %s: the range must end after it starts and span "
				       "at most 16 MiB",
				       o->symbol);
	return 0;
}

/* A group of samples: a function, an address or 64-byte line no symbol covers, or a line. */
struct bucket {
	const char *file, *function;
	const char *name; /* the function's name as shown */
	uint64_t key;	  /* function start, address or line address */
	uint64_t size;
	uint64_t samples;
};

/* Names in order, none first. */
static int cmp_name(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) : (a != NULL) - (b != NULL);
}

/*
 * Hottest first; ties by address (function start or line), file and function, whatever
 * the pointers' order: ipcc report's footprint takes its lines in this order too.
 */
static int by_samples(const void *a, const void *b)
{
	const struct bucket *x = a, *y = b;
	int c;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if ((c = cmp_name(x->file, y->file)))
		return c;
	return cmp_name(x->function, y->function);
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
 * per sample, sorted by place, then runs merged. O(n log n). Samples in a file where no
 * function covers them are grouped as `unknown` says.
 */
static size_t group(const struct annotate_opts *o, const struct ipcc_recording *p,
		    const struct ipcc_symbol *sym, bool lines, struct bucket *b)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nsamples; i++) {
		const struct ipcc_symbol *y = &sym[i];
		struct bucket *k = &b[i];

		*k = (struct bucket){
			y->file, y->function,  o->raw_names ? y->function : y->demangled,
			0,	 y->func_size, 1
		};
		if (lines) {
			k->key = y->elf_addr & ~63ull;
			k->size = 64;
		} else if (y->function) {
			k->key = y->func_start;
		} else if (y->file && o->unknown == UNKNOWN_ADDRESS) {
			k->key = y->elf_addr;
			k->size = 1;
		} else if (y->file && o->unknown == UNKNOWN_LINE) {
			k->key = y->elf_addr & ~63ull;
			k->size = 64;
		}
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

/* A bucket's name: the function's, FILE+0xADDR, FILE+0xSTART-0xEND, or [unknown]. */
static const char *label(const struct annotate_opts *o, const struct bucket *b, char *buf,
			 size_t len)
{
	if (b->name)
		return b->name;
	if (!b->file || o->unknown == UNKNOWN_FILE)
		return "[unknown]";
	if (o->unknown == UNKNOWN_LINE)
		snprintf(buf, len, "%s+%#" PRIx64 "-%#" PRIx64, annotate_base(b->file), b->key,
			 b->key + b->size);
	else
		snprintf(buf, len, "%s+%#" PRIx64, annotate_base(b->file), b->key);
	return buf;
}

static void print_functions(const struct annotate_opts *o, const struct ipcc_recording *p,
			    struct bucket *b, size_t n)
{
	char buf[512];

	printf("%10s %8s  %-40s %s\n", "samples", "share", "function", "file");
	for (size_t i = 0; i < n && i < o->top; i++)
		printf("%10" PRIu64 " %7.2f%%  %-40s %s\n", b[i].samples,
		       100.0 * (double)b[i].samples / (double)p->nsamples,
		       label(o, &b[i], buf, sizeof(buf)), annotate_base(b[i].file));
}

static void print_folded(const struct annotate_opts *o, struct bucket *b, size_t n)
{
	char buf[512];

	for (size_t i = 0; i < n; i++)
		printf("%s;%s %" PRIu64 "\n", annotate_base(b[i].file),
		       label(o, &b[i], buf, sizeof(buf)), b[i].samples);
}

/* Levinthal's active binary size: the hottest lines that hold each share of the samples. */
static void print_footprint(const struct ipcc_recording *p, struct bucket *lines, size_t n)
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
static int write_svg(const char *path, const struct ipcc_recording *p, const struct bucket *lines,
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

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Disassemble `file`'s code at [start, start + size) and print each instruction with the
 * samples at it; `at` holds the addresses of the n samples in that range.
 */
static int print_code(const struct annotate_opts *o, const struct ipcc_recording *p,
		      struct ipcc_symbols *syms, const char *title, const char *file,
		      uint64_t start, uint64_t size, uint64_t *at, size_t n, bool offsets)
{
	unsigned char *code = malloc(size ? size : 1);
	struct ipcc_insn *insn = NULL;
	size_t ninsn, next = 0;
	uint64_t placed = 0;

	if (!code || ipcc_symbols_read(syms, file, start, code, &size)) {
		free(code);
		return cli_error("annotate", "%s: %s", o->symbol, ipcc_last_error());
	}
	if (ipcc_disasm(code, size, start, &insn, &ninsn)) {
		free(code);
		return cli_error("annotate", "%s", ipcc_last_error());
	}
	qsort(at, n, sizeof(*at), by_u64);
	printf("%s (%s): %zu samples, %.2f%% of %zu\n", title, annotate_base(file), n,
	       100.0 * (double)n / (double)p->nsamples, p->nsamples);
	printf("%10s %8s  %8s  %s\n", "samples", "share", offsets ? "offset" : "address",
	       "instruction");
	for (size_t k = 0; k < ninsn; k++) {
		uint64_t c = 0;

		while (next < n && at[next] < insn[k].address)
			next++;
		while (next < n && at[next] == insn[k].address)
			c++, next++;
		placed += c;
		printf("%10" PRIu64 " %7.2f%%  %8" PRIx64 "  %s %s\n", c,
		       n ? 100.0 * (double)c / (double)n : 0.0,
		       offsets ? insn[k].address - start : insn[k].address, insn[k].mnemonic,
		       insn[k].operands);
	}
	if (placed < n)
		printf("%10" PRIu64 " %7.2f%%  (not at the start of an instruction above: does the "
		       "range start inside one?)\n",
		       n - placed, 100.0 * (double)(n - placed) / (double)n);
	free(insn);
	free(code);
	return EXIT_OK;
}

/* --symbol: one function, by name (as shown or as in the symbol table), or an address range. */
static int print_symbol(const struct annotate_opts *o, const struct ipcc_recording *p,
			struct ipcc_symbols *syms, const struct ipcc_symbol *sym)
{
	const struct ipcc_symbol *f = NULL;
	uint64_t *at = calloc(p->nsamples + 1, sizeof(*at));
	size_t n = 0;
	int ret;

	if (!at)
		return cli_error("annotate", "out of memory");
	if (o->range_file[0]) {
		for (size_t i = 0; i < p->nsamples; i++)
			if (sym[i].file && (!f || sym[i].file == f->file) &&
			    names_file(o->range_file, sym[i].file) && sym[i].elf_addr >= o->lo &&
			    sym[i].elf_addr < o->hi) {
				f = &sym[i];
				at[n++] = sym[i].elf_addr;
			}
		ret = f ? print_code(o, p, syms, o->symbol, f->file, o->lo, o->hi - o->lo, at, n,
				     false)
			: cli_error("annotate", "no samples in '%s'", o->symbol);
		free(at);
		return ret;
	}
	for (size_t i = 0; i < p->nsamples; i++)
		if (sym[i].function && (!f || sym[i].function == f->function) &&
		    (!strcmp(sym[i].function, o->symbol) || !strcmp(sym[i].demangled, o->symbol))) {
			f = &sym[i];
			at[n++] = sym[i].elf_addr;
		}
	ret = f ? print_code(o, p, syms, o->raw_names ? f->function : f->demangled, f->file,
			     f->func_start, f->func_size, at, n, true)
		: cli_error("annotate", "no samples in a function named '%s'", o->symbol);
	free(at);
	return ret;
}

/*
 * --format pprof: the whole recording, to -o FILE (whole or not at all) or to stdout. The
 * recording started when the recording was last written, less the samples' span.
 */
static int write_pprof(const struct annotate_opts *o, const struct ipcc_recording *p,
		       struct ipcc_symbols *syms)
{
	struct ipcc_pprof_opts po = { 0 };
	struct stat st;
	void *data;
	size_t len;
	uint64_t first = UINT64_MAX, last = 0;

	for (size_t i = 0; i < p->nsamples; i++) {
		if (p->samples[i].time_ns < first)
			first = p->samples[i].time_ns;
		if (p->samples[i].time_ns > last)
			last = p->samples[i].time_ns;
	}
	if (!stat(o->input, &st))
		po.time_nanos = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec -
				(p->nsamples ? (int64_t)(last - first) : 0);
	if (o->output)
		return ipcc_pprof_write(p, syms, &po, o->output)
			   ? cli_error("annotate", "%s", ipcc_last_error())
			   : EXIT_OK;
	if (ipcc_pprof_encode(p, syms, &po, &data, &len))
		return cli_error("annotate", "%s", ipcc_last_error());
	if (fwrite(data, 1, len, stdout) != len || fflush(stdout)) {
		free(data);
		return cli_error("annotate", "writing the profile: %s", strerror(errno));
	}
	free(data);
	return EXIT_OK;
}

/* --loops: the chosen loops, hottest first, each followed by its inner loops. */
static int print_loops(const struct annotate_opts *o, const struct ipcc_recording *p,
		       struct ipcc_symbols *syms)
{
	struct ipcc_loops l;
	int ret =
	    ipcc_loops_find(p, syms, &(struct ipcc_loops_opts){ (unsigned)o->loops, o->cover }, &l);

	if (ret)
		return cli_error("annotate", "%s", ipcc_last_error());
	printf("%zu loops chosen of %zu found in %u functions: %.2f%% of the samples (cover %.2f, "
	       "at most %" PRIu64 ")%s\n",
	       l.nselected, l.n, l.nfunctions, 100 * l.covered, o->cover > 0 ? o->cover : 0.9,
	       o->loops, l.nunreadable ? "; some functions' code could not be read" : "");
	printf("%10s %8s  %-40s %s\n", "samples", "share", "loop", "function (file)");
	for (size_t k = 0; k < l.n; k++) {
		const struct ipcc_loop *lp = &l.loop[k];
		int q = lp->parent;
		bool shown = lp->selected;
		char range[64];

		/* An inner loop of a chosen one is shown under it. */
		for (; q >= 0 && !shown; q = l.loop[q].parent)
			shown = l.loop[q].selected;
		if (!shown)
			continue;
		snprintf(range, sizeof(range), "%*s+%#" PRIx64 "-%#" PRIx64 "%s",
			 2 * (int)lp->depth, "", lp->start - lp->function_start,
			 lp->end - lp->function_start, lp->selected ? "" : " (inner)");
		printf("%10" PRIu64 " %7.2f%%  %-40s %s (%s)\n", lp->samples, 100 * lp->share,
		       range, lp->function, annotate_base(lp->file));
	}
	ipcc_loops_release(&l);
	return EXIT_OK;
}

/* --model: the chosen loops through the pipeline model. */
static int print_model(const struct annotate_opts *o, const struct ipcc_recording *p,
		       struct ipcc_symbols *syms)
{
	struct ipcc_explain x;
	const char *note = o->profile_note;
	int ret = ipcc_explain(
	    p, syms, &(struct ipcc_explain_opts){ (unsigned)o->loops, o->cover, &o->prof, 0 }, &x);

	if (ret)
		return cli_error("annotate", "%s", ipcc_last_error());
	if (*note)
		fprintf(stderr, "%s\n", note);
	if (o->json)
		annotate_model_json(o, &x);
	else
		annotate_model_text(o, &x);
	ret = o->svg ? annotate_model_svg(o->svg, &x) : EXIT_OK;
	ipcc_explain_release(&x);
	return ret;
}

int cmd_annotate(int argc, char **argv)
{
	struct annotate_opts o;
	struct ipcc_recording *p = NULL;
	struct ipcc_symbols *syms = NULL;
	struct ipcc_symbol *sym = NULL;
	struct bucket *b = NULL;
	size_t n;
	int ret = parse(argc, argv, &o);

	if (ret)
		return ret;
	if (ipcc_recording_load(o.input, &p))
		return cli_error("annotate", "%s", ipcc_last_error());
	if (ipcc_symbols_new(p, &syms)) {
		ipcc_recording_free(p);
		return cli_error("annotate", "%s", ipcc_last_error());
	}
	if (o.pprof) {
		ret = write_pprof(&o, p, syms);
		goto out;
	}
	sym = calloc(p->nsamples + 1, sizeof(*sym));
	b = calloc(p->nsamples + 1, sizeof(*b));
	if (!sym || !b) {
		ret = cli_error("annotate", "out of memory");
		goto out;
	}
	for (size_t i = 0; i < p->nsamples; i++)
		ipcc_symbols_resolve(syms, &p->samples[i], &sym[i]);
	if (p->has_summary && !o.folded && !o.json)
		printf("%s: %zu samples (%s), %" PRIu64 " lost, throttled %" PRIu64 " times\n",
		       o.input, p->nsamples, p->summary.event, p->summary.lost,
		       p->summary.throttles);
	if (!p->nsamples) {
		ret = o.folded ? EXIT_OK : cli_error("annotate", "%s holds no samples", o.input);
		goto out;
	}
	if (o.symbol) {
		ret = print_symbol(&o, p, syms, sym);
	} else if (o.model) {
		ret = print_model(&o, p, syms);
	} else if (o.loops) {
		ret = print_loops(&o, p, syms);
	} else if (o.footprint) {
		n = group(&o, p, sym, true, b);
		print_footprint(p, b, n);
		if (o.svg)
			ret = write_svg(o.svg, p, b, n);
	} else {
		n = group(&o, p, sym, false, b);
		if (o.folded)
			print_folded(&o, b, n);
		else
			print_functions(&o, p, b, n);
	}
out:
	free(b);
	free(sym);
	ipcc_symbols_free(syms);
	ipcc_recording_free(p);
	return ret;
}
