/*
 * report.c - a report's inputs (report.h): JSON outputs of ipcc stat, metrics and bench,
 * checked for their shape and kept; a recording grouped into functions and 64-byte code lines
 * once, when it is added.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error_int.h"
#include "ipcc/recording.h"
#include "report_int.h"

int ipcc_report_new(const struct ipcc_report_opts *o, struct ipcc_report **out)
{
	struct ipcc_report *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return err_set(IPCC_ENOMEM, "report: out of memory");
	r->top = o && o->top ? o->top : 50;
	r->title = o && o->title ? strdup(o->title) : NULL;
	r->generator = strdup(o && o->generator ? o->generator : "ipcc");
	if ((o && o->title && !r->title) || !r->generator) {
		ipcc_report_free(r);
		return err_set(IPCC_ENOMEM, "report: out of memory");
	}
	*out = r;
	return 0;
}

void ipcc_report_free(struct ipcc_report *r)
{
	if (!r)
		return;
	for (int k = 0; k < 3; k++) {
		for (size_t i = 0; i < r->nin[k]; i++) {
			free(r->in[k][i].name);
			json_decref(r->in[k][i].root);
		}
		free(r->in[k]);
	}
	for (size_t i = 0; i < r->nfacts; i++) {
		free(r->facts[i].fact);
		free(r->facts[i].value);
		free(r->facts[i].sources);
	}
	free(r->facts);
	for (int s = 0; s < IPCC_REPORT_NSECTIONS; s++)
		free(r->absent[s]);
	free(r->rec_name);
	free(r->funcs);
	free(r->byfile);
	free(r->files);
	free(r->fp.samples);
	free(r->fp.functions);
	free(r->title);
	free(r->generator);
	free(r);
}

/* Why root is not the output of `kind`, or NULL when it has that command's shape. */
static const char *not_shaped(enum ipcc_report_input kind, json_t *root)
{
	switch (kind) {
	case IPCC_REPORT_STAT_JSON:
		if (!json_is_string(json_object_get(root, "backend")))
			return "not ipcc stat --format json output (no \"backend\")";
		if (!json_is_object(json_object_get(root, "counters")))
			return "not ipcc stat --format json output (no \"counters\")";
		return NULL;
	case IPCC_REPORT_METRICS_JSON:
		return json_is_array(json_object_get(root, "metrics"))
			   ? NULL
			   : "not ipcc metrics --format json output (no \"metrics\")";
	case IPCC_REPORT_BENCH_JSON:
		return json_is_array(json_object_get(root, "kernels"))
			   ? NULL
			   : "not ipcc bench --format json output (no \"kernels\")";
	}
	return "unknown kind of input";
}

int ipcc_report_parse(struct ipcc_report *r, enum ipcc_report_input kind, const char *name,
		      const char *text, size_t len)
{
	json_error_t je;
	json_t *root;
	const char *why;
	struct rpt_json *grown;

	if ((unsigned)kind > IPCC_REPORT_BENCH_JSON)
		return err_set(IPCC_EINVAL, "report: unknown kind of input %d", (int)kind);
	root = json_loadb(text, len, 0, &je);
	if (!root)
		return err_set(IPCC_EINVAL, "%s:%d:%d: %s", name, je.line, je.column, je.text);
	why = json_is_object(root) ? not_shaped(kind, root) : "not a JSON object";
	if (why) {
		json_decref(root);
		return err_set(IPCC_EINVAL, "%s: %s", name, why);
	}
	grown = realloc(r->in[kind], (r->nin[kind] + 1) * sizeof(*grown));
	if (!grown) {
		json_decref(root);
		return err_set(IPCC_ENOMEM, "report: out of memory");
	}
	r->in[kind] = grown;
	grown[r->nin[kind]] = (struct rpt_json){ strdup(name), root };
	if (!grown[r->nin[kind]].name) {
		json_decref(root);
		return err_set(IPCC_ENOMEM, "report: out of memory");
	}
	r->nin[kind]++;
	return 0;
}

int ipcc_report_load(struct ipcc_report *r, enum ipcc_report_input kind, const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t len = 0, cap = 0;
	int ret;

	if (!f)
		return err_sys("cannot read %s", path);
	for (;;) {
		size_t got;

		if (len == cap) {
			char *grown = realloc(text, cap = cap ? 2 * cap : 65536);

			if (!grown) {
				free(text);
				fclose(f);
				return err_set(IPCC_ENOMEM, "report: out of memory");
			}
			text = grown;
		}
		got = fread(text + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		free(text);
		fclose(f);
		return err_set(IPCC_ESYS, "cannot read %s: %s", path, strerror(errno));
	}
	fclose(f);
	ret = ipcc_report_parse(r, kind, path, text, len);
	free(text);
	return ret;
}

int ipcc_report_add_fact(struct ipcc_report *r, const char *fact, const char *value,
			 const char *source)
{
	struct rpt_fact *grown;

	for (size_t i = 0; i < r->nfacts; i++) {
		struct rpt_fact *x = &r->facts[i];
		size_t n;
		char *s;

		if (strcmp(x->fact, fact) || strcmp(x->value, value))
			continue;
		if (strstr(x->sources, source))
			return 0;
		n = strlen(x->sources) + strlen(source) + 3;
		s = realloc(x->sources, n);
		if (!s)
			return err_set(IPCC_ENOMEM, "report: out of memory");
		strcat(strcat(s, "; "), source);
		x->sources = s;
		return 0;
	}
	grown = realloc(r->facts, (r->nfacts + 1) * sizeof(*grown));
	if (!grown)
		return err_set(IPCC_ENOMEM, "report: out of memory");
	r->facts = grown;
	grown[r->nfacts] = (struct rpt_fact){ strdup(fact), strdup(value), strdup(source) };
	if (!grown[r->nfacts].fact || !grown[r->nfacts].value || !grown[r->nfacts].sources) {
		free(grown[r->nfacts].fact);
		free(grown[r->nfacts].value);
		free(grown[r->nfacts].sources);
		return err_set(IPCC_ENOMEM, "report: out of memory");
	}
	r->nfacts++;
	return 0;
}

int ipcc_report_absent(struct ipcc_report *r, enum ipcc_report_section s, const char *why)
{
	char *copy;

	if ((unsigned)s >= IPCC_REPORT_NSECTIONS)
		return err_set(IPCC_EINVAL, "report: no section %d", (int)s);
	copy = strdup(why);
	if (!copy)
		return err_set(IPCC_ENOMEM, "report: out of memory");
	free(r->absent[s]);
	r->absent[s] = copy;
	return 0;
}

int ipcc_report_add_explain(struct ipcc_report *r, const struct ipcc_explain *x)
{
	r->x = x;
	return 0;
}

/* ---- the recording --------------------------------------------------------------------- */

/* One sample as the groupings see it. */
struct key {
	const char *file, *function, *name;
	uint64_t start, size, line;
};

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	return x < y ? -1 : x > y;
}

/* By file, function and line: a function's samples together, and in it a line's. */
static int by_place(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	int c = cmp_ptr(x->file, y->file);

	if (c)
		return c;
	if ((c = cmp_ptr(x->function, y->function)))
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int func_by_samples(const void *a, const void *b)
{
	const struct rpt_func *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int file_by_samples(const void *a, const void *b)
{
	const struct rpt_file *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return cmp_ptr(x->file, y->file);
}

/*
 * A code line: its samples, the function it is in (an index into the unsorted funcs), its
 * address and names.
 */
struct line {
	uint64_t samples;
	size_t func;
	uint64_t at;
	const char *file, *function;
};

/* Names in order, none first. */
static int cmp_name(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) : (a != NULL) - (b != NULL);
}

/*
 * Hottest first; ties by address, file and function, as ipcc annotate --footprint orders
 * them (which lines a share takes decides how many functions it counts).
 */
static int line_by_samples(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	int c;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	if ((c = cmp_name(x->file, y->file)))
		return c;
	return cmp_name(x->function, y->function);
}

/*
 * Group the samples: sorted by place, a run of one (file, function) is a function (code no
 * symbol covers is one per file), and within it a run of one 64-byte line is a line, as
 * ipcc annotate --footprint counts them. O(n log n).
 */
static int group(struct ipcc_report *r, struct key *k, size_t n)
{
	struct line *lines = calloc(n + 1, sizeof(*lines));
	struct rpt_func *f = calloc(n + 1, sizeof(*f));
	size_t nf = 0, nl = 0, i;
	bool *seen;

	if (!lines || !f) {
		free(lines);
		free(f);
		return err_set(IPCC_ENOMEM, "report: out of memory");
	}
	qsort(k, n, sizeof(*k), by_place);
	for (i = 0; i < n; i++) {
		bool new_func =
		    !i || k[i].file != k[i - 1].file || k[i].function != k[i - 1].function;

		if (new_func)
			f[nf++] =
			    (struct rpt_func){ k[i].file, k[i].name, k[i].start, k[i].size, 0 };
		f[nf - 1].samples++;
		if (new_func || k[i].line != k[i - 1].line)
			lines[nl++] =
			    (struct line){ 0, nf - 1, k[i].line, k[i].file, k[i].function };
		lines[nl - 1].samples++;
	}
	/* Distinct functions among the hottest lines, before the functions are sorted. */
	qsort(lines, nl, sizeof(*lines), line_by_samples);
	seen = calloc(nf + 1, sizeof(*seen));
	r->fp.samples = calloc(nl + 1, sizeof(*r->fp.samples));
	r->fp.functions = calloc(nl + 1, sizeof(*r->fp.functions));
	r->files = calloc(nf + 1, sizeof(*r->files));
	r->byfile = calloc(nf + 1, sizeof(*r->byfile));
	if (!seen || !r->fp.samples || !r->fp.functions || !r->files || !r->byfile) {
		free(seen);
		free(lines);
		free(f);
		return err_set(IPCC_ENOMEM, "report: out of memory");
	}
	for (size_t l = 0, distinct = 0; l < nl; l++) {
		distinct += !seen[lines[l].func];
		seen[lines[l].func] = true;
		r->fp.samples[l] = lines[l].samples;
		r->fp.functions[l] = distinct;
	}
	r->fp.n = nl;
	free(seen);
	free(lines);
	/* Files, each with its functions hottest first; the files hottest first. */
	for (i = 0; i < nf; i++) {
		if (!i || f[i].file != f[i - 1].file)
			r->files[r->nfiles++] = (struct rpt_file){ f[i].file, 0, i, 0 };
		r->files[r->nfiles - 1].samples += f[i].samples;
		r->files[r->nfiles - 1].n++;
	}
	for (size_t j = 0; j < r->nfiles; j++)
		qsort(f + r->files[j].first, r->files[j].n, sizeof(*f), func_by_samples);
	qsort(r->files, r->nfiles, sizeof(*r->files), file_by_samples);
	for (size_t j = 0, at = 0; j < r->nfiles; j++) {
		memcpy(r->byfile + at, f + r->files[j].first, r->files[j].n * sizeof(*f));
		r->files[j].first = at;
		at += r->files[j].n;
	}
	qsort(f, nf, sizeof(*f), func_by_samples);
	r->funcs = f;
	r->nfuncs = nf;
	return 0;
}

int ipcc_report_add_recording(struct ipcc_report *r, const char *name,
			      const struct ipcc_recording *p, struct ipcc_symbols *syms)
{
	struct key *k;
	int ret;

	if (r->rec)
		return err_set(IPCC_EINVAL, "report: one recording a report");
	k = calloc(p->nsamples + 1, sizeof(*k));
	r->rec_name = strdup(name);
	if (!k || !r->rec_name) {
		free(k);
		return err_set(IPCC_ENOMEM, "report: out of memory");
	}
	r->first_ns = UINT64_MAX;
	for (size_t i = 0; i < p->nsamples; i++) {
		struct ipcc_symbol y;

		ipcc_symbols_resolve(syms, &p->samples[i], &y);
		k[i] = (struct key){ y.file,
				     y.function,
				     y.demangled,
				     y.function ? y.func_start : 0,
				     y.function ? y.func_size : 0,
				     y.elf_addr & ~63ull };
		if (p->samples[i].time_ns < r->first_ns)
			r->first_ns = p->samples[i].time_ns;
		if (p->samples[i].time_ns > r->last_ns)
			r->last_ns = p->samples[i].time_ns;
	}
	ret = group(r, k, p->nsamples);
	free(k);
	if (ret)
		return ret;
	r->rec = p;
	r->syms = syms;
	return 0;
}
