/*
 * bench_blocks.c - ipcc bench --block HEX / --blocks FILE [--model]: basic blocks timed by
 * the harness (block.h), in passes over the whole list spaced in time, and beside the
 * pipeline model's prediction: per block and summed up (MAPE, Kendall's tau-b, by kind, by
 * program, the harness's own repeatability, the worst blocks).
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_int.h"
#include "cli.h"
#include "ipcc/block.h"
#include "ipcc/clock.h"
#include "ipcc/error.h"
#include "ipcc/model.h"

#define MAX_PASSES 8 /* as --passes allows */
#define WORST	   20
#define TAU_BIN	   0.05 /* cycles: the bins tau-b ranks in */

struct row {
	struct ipcc_block b;
	char hex[2 * IPCC_BLOCK_MAX + 1];
	char program[32];
	struct ipcc_block_result pass[MAX_PASSES];
	double cycles; /* of the passes, as ipcc_block_figure takes it; NaN when not measured */
	double spread; /* (most - fewest) / fewest over the passes */
	enum ipcc_block_status status;
	char why[160];
	double predicted; /* NaN without --model or when the model failed */
	bool approximated;
	char approx[160];
	char model_error[160];
};

/* One block line: HEX[,PROGRAM]. */
static void read_line(const char *line, struct row *r)
{
	const char *comma = strchr(line, ',');
	size_t n = comma ? (size_t)(comma - line) : strcspn(line, "\r\n");

	snprintf(r->hex, sizeof(r->hex), "%.*s", (int)n, line);
	if (comma)
		snprintf(r->program, sizeof(r->program), "%.*s", (int)strcspn(comma + 1, "\r\n"),
			 comma + 1);
}

static int load(const struct bench_blocks_opts *o, struct row **rows, size_t *n)
{
	size_t cap = 64, lineno = 0;
	char *line = NULL;
	size_t len = 0;
	FILE *f;

	*rows = calloc(cap, sizeof(**rows));
	*n = 0;
	if (!*rows)
		return cli_error("bench", "out of memory");
	if (o->block) {
		read_line(o->block, &(*rows)[0]);
		if (ipcc_block_parse_hex(o->block, &(*rows)[0].b))
			return cli_usage_error("bench", "--block %s: %s", o->block,
					       ipcc_last_error());
		*n = 1;
		return 0;
	}
	f = strcmp(o->blocks, "-") ? fopen(o->blocks, "r") : stdin;
	if (!f)
		return cli_usage_error("bench", "cannot read %s: %s", o->blocks, strerror(errno));
	while (getline(&line, &len, f) > 0 && (!o->limit || *n < o->limit)) {
		struct row *r;

		lineno++;
		if (line[strspn(line, " \t\r\n")] == '\0' || line[0] == '#')
			continue;
		if (*n == cap) {
			struct row *more = realloc(*rows, 2 * cap * sizeof(**rows));

			if (!more) {
				free(line);
				return cli_error("bench", "out of memory");
			}
			memset(more + cap, 0, cap * sizeof(**rows));
			*rows = more, cap *= 2;
		}
		r = &(*rows)[*n];
		read_line(line, r);
		if (ipcc_block_parse_hex(line, &r->b)) {
			free(line);
			if (f != stdin)
				fclose(f);
			return cli_usage_error("bench", "%s:%zu: %s", o->blocks, lineno,
					       ipcc_last_error());
		}
		(*n)++;
	}
	free(line);
	if (f != stdin)
		fclose(f);
	if (!*n)
		return cli_usage_error("bench", "%s holds no block", o->blocks);
	return 0;
}

static void predict(const struct bench_blocks_opts *o, struct row *r)
{
	struct ipcc_model_program *prog = NULL;
	struct ipcc_model_error err;
	struct ipcc_model_result res;
	char *text = NULL;

	r->predicted = NAN;
	if (r->b.status != IPCC_BLOCK_OK || ipcc_block_lift(&r->b, &text)) {
		snprintf(r->model_error, sizeof(r->model_error), "%s",
			 r->b.status != IPCC_BLOCK_OK ? r->b.why : ipcc_last_error());
		return;
	}
	if (ipcc_model_parse_mode(text, o->prof, IPCC_MODEL_LENIENT, &prog, &err)) {
		snprintf(r->model_error, sizeof(r->model_error), "%s", err.message);
		free(text);
		return;
	}
	free(text);
	/* the steady state as ipcc sim --block(s) takes it: the last 500 of 1000 iterations
	 * (with .warmup unset, the first iterations' filling of the pipeline counted too) */
	if (ipcc_model_run(prog, o->prof,
			   &(struct ipcc_model_opts){ .iterations = 1000, .warmup = 500 }, &res)) {
		snprintf(r->model_error, sizeof(r->model_error), "%s", ipcc_last_error());
	} else {
		r->predicted = res.summary.cycles_per_iteration;
		ipcc_model_result_release(&res);
	}
	r->approximated = ipcc_model_program_approximated(prog, r->approx, sizeof(r->approx)) > 0;
	ipcc_model_program_free(prog);
}

static void progress(size_t done, size_t n, unsigned pass, unsigned passes)
{
	int width = 40, full = n ? (int)((double)width * (double)done / (double)n) : width;

	fprintf(stderr, "\rpass %u/%u [%.*s%*s] %zu/%zu", pass + 1, passes, full,
		"########################################", width - full, "", done, n);
	if (done == n)
		fputc('\n', stderr);
}

static int measure_all(const struct bench_blocks_opts *o, struct row *rows, size_t n)
{
	bool bar = isatty(2) && n > 1;

	for (unsigned p = 0; p < o->passes; p++) {
		for (size_t i = 0; i < n; i++) {
			if (ipcc_block_measure(&rows[i].b, &o->run, &rows[i].pass[p]))
				return cli_error("bench", "%s", ipcc_last_error());
			if (bar && (i % 8 == 0 || i + 1 == n))
				progress(i + 1, n, p, o->passes);
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct row *r = &rows[i];
		double lo = INFINITY, hi = -INFINITY, c[MAX_PASSES];

		r->status = r->pass[0].status;
		snprintf(r->why, sizeof(r->why), "%s", r->pass[0].why);
		for (unsigned p = 0; p < o->passes; p++) {
			if (r->pass[p].status != IPCC_BLOCK_OK) {
				r->status = r->pass[p].status;
				snprintf(r->why, sizeof(r->why), "%s", r->pass[p].why);
				lo = NAN;
				break;
			}
			c[p] = r->pass[p].cycles;
			lo = fmin(lo, c[p]);
			hi = fmax(hi, c[p]);
		}
		r->cycles = r->status == IPCC_BLOCK_OK ? ipcc_block_figure(c, o->passes) : NAN;
		r->spread = r->status == IPCC_BLOCK_OK && lo > 0 ? (hi - lo) / lo : NAN;
		if (o->model)
			predict(o, r);
	}
	return 0;
}

/* The agreement of measured and predicted over the rows `keep` selects. */
static void agree(const struct row *rows, size_t n, int kind, int exact, const char *program,
		  struct ipcc_block_agreement *a)
{
	double *m = malloc((n + 1) * sizeof(*m)), *q = malloc((n + 1) * sizeof(*q));
	size_t k = 0;

	for (size_t i = 0; m && q && i < n; i++) {
		const struct row *r = &rows[i];

		if ((kind >= 0 && (int)r->b.kind != kind) || (exact && r->approximated) ||
		    (program && strcmp(r->program, program)))
			continue;
		m[k] = r->cycles;
		q[k++] = r->predicted;
	}
	ipcc_block_agree(m ? m : (double[]){ 0 }, q ? q : (double[]){ 0 }, k, TAU_BIN, a);
	free(m);
	free(q);
}

/* The second pass against the first. */
static void repeatability(const struct row *rows, size_t n, struct ipcc_block_agreement *a)
{
	double *x = malloc((n + 1) * sizeof(*x)), *y = malloc((n + 1) * sizeof(*y));

	for (size_t i = 0; x && y && i < n; i++) {
		x[i] = rows[i].status == IPCC_BLOCK_OK ? rows[i].pass[0].cycles : NAN;
		y[i] = rows[i].status == IPCC_BLOCK_OK ? rows[i].pass[1].cycles : NAN;
	}
	ipcc_block_agree(x ? x : (double[]){ 0 }, y ? y : (double[]){ 0 }, x && y ? n : 0, TAU_BIN,
			 a);
	free(x);
	free(y);
}

static double rel_error(const struct row *r)
{
	return isfinite(r->cycles) && isfinite(r->predicted) && r->cycles > 0
		   ? (r->predicted - r->cycles) / r->cycles
		   : NAN;
}

static const struct row *const *worst_first(const struct row *rows, size_t n, size_t *nw)
{
	const struct row **w = malloc((n + 1) * sizeof(*w));
	size_t k = 0;

	for (size_t i = 0; w && i < n; i++)
		if (isfinite(rel_error(&rows[i])))
			w[k++] = &rows[i];
	/* a selection of the WORST largest |error| (insertion: n is small enough) */
	for (size_t i = 0; i < k && i < WORST; i++)
		for (size_t j = i + 1; j < k; j++)
			if (fabs(rel_error(w[j])) > fabs(rel_error(w[i]))) {
				const struct row *t = w[i];

				w[i] = w[j], w[j] = t;
			}
	*nw = k < WORST ? k : WORST;
	return w;
}

/* The distinct programs the rows name, in their first order (at most 16). */
static size_t programs(const struct row *rows, size_t n, const char *out[16])
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		bool seen = !rows[i].program[0];

		for (size_t j = 0; j < k && !seen; j++)
			seen = !strcmp(out[j], rows[i].program);
		if (!seen && k < 16)
			out[k++] = rows[i].program;
	}
	return k;
}

static void print_agreement(const char *what, const struct ipcc_block_agreement *a)
{
	printf("  %-34s %6zu blocks  MAPE %6.2f%%  tau-b %.3f\n", what, a->n_used, 100 * a->mape,
	       a->tau_b);
}

static void print_text(const struct bench_blocks_opts *o, const struct row *rows, size_t n)
{
	size_t measured = 0, counts[IPCC_BLOCK_CRASH + 1] = { 0 };
	const char *prog[16];
	size_t nprog = programs(rows, n, prog);

	printf("%5s %-8s %9s %7s", "block", "kind", "measured", "spread");
	if (o->model)
		printf(" %9s %8s", "predicted", "error");
	printf("  %s\n", "code (or why it was not measured)");
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];

		counts[r->status]++;
		measured += r->status == IPCC_BLOCK_OK;
		printf("%5zu %-8s ", i + 1, ipcc_block_kind_name(r->b.kind));
		if (r->status == IPCC_BLOCK_OK)
			printf("%9.3f %6.1f%%", r->cycles, 100 * r->spread);
		else
			printf("%9s %7s", "n/a", "");
		if (o->model) {
			if (isfinite(r->predicted))
				printf(" %9.3f", r->predicted);
			else
				printf(" %9s", "n/a");
			if (isfinite(rel_error(r)))
				printf(" %+7.1f%%%c", 100 * rel_error(r),
				       r->approximated ? '~' : ' ');
			else
				printf(" %8s", "");
		}
		if (r->status == IPCC_BLOCK_OK)
			printf("  %s\n", r->hex);
		else
			printf("  %s: %s (%s)\n", ipcc_block_status_name(r->status), r->why,
			       r->hex);
	}
	printf("\n%zu of %zu blocks measured, cycles per iteration of the loop (the block, then "
	       "dec and jnz), the fewest of %u passes%s\n",
	       measured, n, o->passes,
	       o->passes >= 3 ? " that another confirms within 1% (a lone pass a few percent "
				"under the rest is left out)"
			      : "");
	for (int s = 1; s <= IPCC_BLOCK_CRASH; s++)
		if (counts[s])
			printf("  not measured, %s: %zu\n",
			       ipcc_block_status_name((enum ipcc_block_status)s), counts[s]);
	if (o->passes >= 2) {
		struct ipcc_block_agreement a;

		repeatability(rows, n, &a);
		printf("the harness's repeatability, pass 2 against pass 1:\n");
		print_agreement("all measured", &a);
	}
	if (!o->model)
		return;
	printf("the model (profile %s) against the measurement (~: an instruction approximated; "
	       "tau-b in %.2f-cycle bins):\n",
	       o->prof->name, TAU_BIN);
	{
		struct ipcc_block_agreement a;
		char what[64];

		agree(rows, n, -1, 0, NULL, &a);
		print_agreement("all", &a);
		agree(rows, n, -1, 1, NULL, &a);
		print_agreement("no instruction approximated", &a);
		for (int k = 0; k < IPCC_BLOCK_NKINDS; k++) {
			agree(rows, n, k, 0, NULL, &a);
			snprintf(what, sizeof(what), "kind %s", ipcc_block_kind_name(k));
			if (a.n_used)
				print_agreement(what, &a);
		}
		for (size_t p = 0; p < nprog && nprog > 1; p++) {
			agree(rows, n, -1, 0, prog[p], &a);
			snprintf(what, sizeof(what), "program %s", prog[p]);
			if (a.n_used)
				print_agreement(what, &a);
		}
	}
	{
		size_t nw;
		const struct row *const *w = worst_first(rows, n, &nw);

		if (nw)
			printf("the %zu worst:\n", nw);
		for (size_t i = 0; i < nw; i++)
			printf("  %+7.1f%%  measured %7.3f predicted %7.3f  %-8s %s%s%s\n",
			       100 * rel_error(w[i]), w[i]->cycles, w[i]->predicted,
			       ipcc_block_kind_name(w[i]->b.kind), w[i]->hex,
			       w[i]->approximated ? "  approximated: " : "", w[i]->approx);
		free((void *)w);
	}
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *agreement_json(const struct ipcc_block_agreement *a)
{
	return json_pack("{s:I,s:o,s:o}", "blocks", (json_int_t)a->n_used, "mape", num(a->mape),
			 "tau_b", num(a->tau_b));
}

static void print_json(const struct bench_blocks_opts *o, const struct row *rows, size_t n)
{
	json_t *root = json_object(), *blocks = json_array(), *sum = json_object();
	struct ipcc_block_agreement a;

	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		json_t *j = json_pack("{s:s,s:s,s:s,s:s}", "code", r->hex, "program", r->program,
				      "kind", ipcc_block_kind_name(r->b.kind), "status",
				      ipcc_block_status_name(r->status)),
		       *passes = json_array();

		if (r->status != IPCC_BLOCK_OK)
			json_object_set_new(j, "why", json_string(r->why));
		for (unsigned p = 0; p < o->passes; p++)
			json_array_append_new(passes, num(r->pass[p].cycles));
		json_object_set_new(j, "passes", passes);
		json_object_set_new(j, "cycles", num(r->cycles));
		json_object_set_new(j, "spread", num(r->spread));
		json_object_set_new(j, "core_khz", num(r->pass[0].core_khz));
		if (o->model) {
			json_object_set_new(j, "predicted", num(r->predicted));
			json_object_set_new(j, "error", num(rel_error(r)));
			json_object_set_new(j, "approximated", json_string(r->approx));
			if (!isfinite(r->predicted))
				json_object_set_new(j, "model_error", json_string(r->model_error));
		}
		json_array_append_new(blocks, j);
	}
	json_object_set_new(root, "unit", json_string("cycles per iteration"));
	json_object_set_new(root, "passes", json_integer(o->passes));
	json_object_set_new(root, "blocks", blocks);
	if (o->passes >= 2) {
		repeatability(rows, n, &a);
		json_object_set_new(sum, "repeatability", agreement_json(&a));
	}
	if (o->model) {
		json_t *kinds = json_object();

		json_object_set_new(sum, "profile", json_string(o->prof->name));
		agree(rows, n, -1, 0, NULL, &a);
		json_object_set_new(sum, "all", agreement_json(&a));
		agree(rows, n, -1, 1, NULL, &a);
		json_object_set_new(sum, "exact", agreement_json(&a));
		for (int k = 0; k < IPCC_BLOCK_NKINDS; k++) {
			agree(rows, n, k, 0, NULL, &a);
			json_object_set_new(kinds, ipcc_block_kind_name(k), agreement_json(&a));
		}
		json_object_set_new(sum, "by_kind", kinds);
	}
	json_object_set_new(root, "summary", sum);
	json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
	putchar('\n');
	json_decref(root);
}

static void print_csv(const struct bench_blocks_opts *o, const struct row *rows, size_t n)
{
	printf("code,program,kind,status,cycles,spread%s\n",
	       o->model ? ",predicted,error,approximated" : "");
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];

		printf("%s,%s,%s,%s,", r->hex, r->program, ipcc_block_kind_name(r->b.kind),
		       ipcc_block_status_name(r->status));
		if (isfinite(r->cycles))
			printf("%.4f,%.4f", r->cycles, r->spread);
		else
			printf(",");
		if (o->model) {
			printf(",");
			if (isfinite(r->predicted))
				printf("%.4f", r->predicted);
			printf(",");
			if (isfinite(rel_error(r)))
				printf("%.4f", rel_error(r));
			printf(",%d", r->approximated);
		}
		putchar('\n');
	}
}

int bench_blocks(const struct bench_blocks_opts *o)
{
	struct row *rows = NULL;
	size_t n = 0;
	int ret = load(o, &rows, &n);

	if (!ret)
		ret = ipcc_clock_init() ? cli_error("bench", "%s", ipcc_last_error()) : 0;
	if (!ret)
		ret = measure_all(o, rows, n);
	if (!ret) {
		if (o->format == FORMAT_JSON)
			print_json(o, rows, n);
		else if (o->format == FORMAT_CSV)
			print_csv(o, rows, n);
		else
			print_text(o, rows, n);
	}
	free(rows);
	return ret;
}
