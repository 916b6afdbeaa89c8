/*
 * skid/placement.c - measured and modelled interrupt placement for the skid kernels (see skid.h).
 *
 * The loop is found in the machine code, not assumed: Capstone disassembles the kernel from
 * its entry to its end, and the loop runs from the target of its one backward conditional
 * branch to that branch. A sample is attributed to an instruction when its IP is that
 * instruction's address: the reported IP of an interrupt is always an instruction boundary.
 */
#include <jansson.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_int.h"
#include "ipcc/clock.h"
#include "ipcc/sample.h"
#include "ipcc/skid.h"
#include "recording/disasm_int.h"

#define DEFAULT_PERIOD_NS 100000
#define BODY_COPIES	  10

int ipcc_skid_loop_text(const struct ipcc_kernel *k, char *buf, size_t len)
{
	int n;

	if (!k->body)
		return err_set(IPCC_EINVAL, "%s is not a skid kernel", k->name);
	n = snprintf(buf, len, "top:\n%%rep %d\n%s%%endrep\nsub rcx, 1\njnz top\n", BODY_COPIES,
		     k->body);
	if (n < 0 || (size_t)n >= len)
		return err_set(IPCC_EINVAL, "%s: loop text longer than %zu bytes", k->name, len);
	return 0;
}

/* The loop's instructions as rows: from the backward branch's target to the branch. */
static int disassemble_loop(const struct ipcc_kernel *k, struct ipcc_skid_result *out, uint64_t *lo,
			    uint64_t *hi)
{
	const void *entry, *start, *end;
	csh cs;
	cs_insn *insn = NULL;
	size_t n, first = 0, last = 0;
	bool found = false;
	int ret = 0;

	ipcc_kernel_code(k, &entry, &start, &end);
	ret = disasm_open(&cs);
	if (ret)
		return ret;
	n = cs_disasm(cs, entry, (size_t)((const char *)end - (const char *)entry),
		      (uint64_t)(uintptr_t)entry, 0, &insn);
	for (size_t i = 0; i < n && !found; i++) {
		uint64_t target;
		char *stop;

		if (strcmp(insn[i].mnemonic, "jne") != 0)
			continue;
		target = strtoull(insn[i].op_str, &stop, 16);
		for (size_t j = 0; j < i; j++)
			if (insn[j].address == target) {
				first = j, last = i, found = true;
				break;
			}
	}
	if (!found) {
		ret = err_set(IPCC_EINVAL, "%s: no loop found in its %zu instructions", k->name, n);
		goto out;
	}
	out->nrows = (unsigned)(last - first + 1);
	out->rows = calloc(out->nrows, sizeof(*out->rows));
	if (!out->rows) {
		ret = err_set(IPCC_ENOMEM, "%u rows", out->nrows);
		goto out;
	}
	for (size_t i = first; i <= last; i++) {
		struct ipcc_skid_row *r = &out->rows[i - first];

		r->offset = (uint32_t)(insn[i].address - insn[first].address);
		/* Capstone's own text: a mnemonic (< 32) and operands; long ones are cut. */
		snprintf(r->text, sizeof(r->text), "%.31s%s%.31s", insn[i].mnemonic,
			 insn[i].op_str[0] ? " " : "", insn[i].op_str);
	}
	*lo = insn[first].address;
	*hi = insn[last].address + insn[last].size;
out:
	cs_free(insn, n);
	cs_close(&cs);
	return ret;
}

struct tally {
	struct ipcc_skid_result *r;
	uint64_t lo, hi;
	int half; /* which half of the run the samples being drained belong to */
};

static void on_sample(void *arg, const struct ipcc_sample *s)
{
	struct tally *t = arg;
	struct ipcc_skid_result *r = t->r;

	if (s->ip >= t->lo && s->ip < t->hi)
		for (unsigned i = 0; i < r->nrows; i++)
			if (t->lo + r->rows[i].offset == s->ip) {
				r->rows[i].samples++;
				r->rows[i].half[t->half]++;
				r->samples++;
				return;
			}
	r->outside++;
}

/* Shares and the distance between the halves, from the rows' counts. */
static int finish(struct ipcc_skid_result *r)
{
	double *h = calloc(2 * (size_t)r->nrows + 1, sizeof(*h));

	if (!h)
		return err_set(IPCC_ENOMEM, "%u rows", r->nrows);
	for (unsigned i = 0; i < r->nrows; i++) {
		r->rows[i].measured =
		    r->samples ? (double)r->rows[i].samples / (double)r->samples : 0;
		h[i] = (double)r->rows[i].half[0];
		h[r->nrows + i] = (double)r->rows[i].half[1];
	}
	r->repeat_distance = ipcc_skid_tv(h, h + r->nrows, r->nrows);
	free(h);
	return 0;
}

int ipcc_skid_measure(const struct ipcc_kernel *k, const struct ipcc_skid_opts *o,
		      struct ipcc_skid_result *out)
{
	struct ipcc_sampler_opts so = { .period = o->period_ns ? o->period_ns : DEFAULT_PERIOD_NS };
	double seconds = o->seconds > 0 ? o->seconds : 1.0;
	struct ipcc_sampler *s = NULL;
	struct tally t = { out, 0, 0, 0 };
	struct ipcc_sample_handler h = { on_sample, NULL, &t };
	uint64_t t0, per_call;
	int ret;

	memset(out, 0, sizeof(*out));
	out->repeat_distance = NAN;
	if (!k->body)
		return err_set(IPCC_EINVAL, "%s is not a skid kernel", k->name);
	snprintf(out->kernel, sizeof(out->kernel), "%s", k->name);
	out->cpu = sched_getcpu();
	ret = disassemble_loop(k, out, &t.lo, &t.hi);
	if (ret)
		return ret;
	ret = ipcc_sampler_new(&so, &s);
	if (ret)
		goto fail;
	ipcc_clock_init();
	/* Calls of about a millisecond, draining between them: the ring never fills. */
	t0 = ipcc_now_ns();
	ipcc_kernel_call(k, 10000, 0);
	per_call = 10000ull * 1000000 / (ipcc_now_ns() - t0 + 1) + 1;
	ret = ipcc_sampler_enable(s);
	t0 = ipcc_now_ns();
	while (!ret && (double)(ipcc_now_ns() - t0) < seconds * 1e9) {
		ipcc_kernel_call(k, per_call, 0);
		ret = ipcc_sampler_drain(s, &h) < 0 ? IPCC_EINVAL : 0;
		/* what the next drain brings is (almost all) the second half's */
		if ((double)(ipcc_now_ns() - t0) >= seconds * 0.5e9)
			t.half = 1;
	}
	if (!ret)
		ret = ipcc_sampler_disable(s);
	if (!ret && ipcc_sampler_drain(s, &h) < 0)
		ret = IPCC_EINVAL;
	out->lost = ipcc_sampler_stats(s)->lost;
	ipcc_sampler_free(s);
	if (!ret)
		ret = finish(out);
	if (!ret)
		return 0;
fail:
	ipcc_skid_result_release(out);
	return ret;
}

/* Parse the loop for p; IPCC_EINVAL unless it has one instruction per row. */
static int parse_loop(const char *text, const struct ipcc_model_profile *p, unsigned nrows,
		      struct ipcc_model_program **prog)
{
	struct ipcc_model_error err;
	int ret = ipcc_model_parse(text, p, prog, &err);

	if (ret)
		return err_set(ret, "model: line %u: %s", err.line, err.message);
	if (ipcc_model_program_size(*prog) != nrows) {
		ret = err_set(IPCC_EINVAL,
			      "the machine's loop has %u instructions, the model's %u: "
			      "they cannot be compared",
			      nrows, ipcc_model_program_size(*prog));
		ipcc_model_program_free(*prog);
		*prog = NULL;
	}
	return ret;
}

/* The shares of a parsed loop under p, over `iterations`. */
static int run_loop(const struct ipcc_model_program *prog, const struct ipcc_model_profile *p,
		    uint64_t iterations, double *share, bool *selected)
{
	struct ipcc_model_result res;
	int ret =
	    ipcc_model_run(prog, p, &(struct ipcc_model_opts){ .iterations = iterations }, &res);

	if (!ret) {
		for (unsigned i = 0; i < res.nrows; i++) {
			share[i] = res.rows[i].share;
			if (selected)
				selected[i] = res.rows[i].selected;
		}
		ipcc_model_result_release(&res);
	}
	return ret;
}

/* The model's share per row (and which rows it selects) with profile p. */
static int predict(const char *text, const struct ipcc_model_profile *p, unsigned nrows,
		   double *share, bool *selected)
{
	struct ipcc_model_program *prog;
	int ret = parse_loop(text, p, nrows, &prog);

	if (!ret)
		ret = run_loop(prog, p, 1000, share, selected);
	ipcc_model_program_free(prog);
	return ret;
}

/* The distance between the measured shares and the model's. */
static double distance(const struct ipcc_skid_result *r, const double *share)
{
	double *m = malloc(((size_t)r->nrows + 1) * sizeof(*m));
	double d;

	if (!m)
		return NAN;
	for (unsigned i = 0; i < r->nrows; i++)
		m[i] = r->rows[i].measured;
	d = ipcc_skid_tv(m, share, r->nrows);
	free(m);
	return d;
}

int ipcc_skid_compare(struct ipcc_skid_result *r, const char *loop_text,
		      const struct ipcc_model_profile *p)
{
	double *share = calloc(r->nrows + 1, sizeof(*share));
	bool *selected = calloc(r->nrows + 1, sizeof(*selected));
	int ret;

	if (!share || !selected) {
		ret = err_set(IPCC_ENOMEM, "%u rows", r->nrows);
		goto out;
	}
	ret = predict(loop_text, p, r->nrows, share, selected);
	if (ret)
		goto out;
	snprintf(r->profile, sizeof(r->profile), "%s", p->name);
	r->explained = 0;
	for (unsigned i = 0; i < r->nrows; i++) {
		r->rows[i].predicted = share[i];
		r->rows[i].selected = selected[i];
		if (share[i] > 0)
			r->explained += r->rows[i].measured;
	}
	r->distance = distance(r, share);
	r->distance_at[0] = NAN;
	r->best_retire_width = 0;
	for (unsigned w = 1; w <= IPCC_SKID_MAX_RETIRE; w++) {
		struct ipcc_model_profile q = *p;

		/* the width that places samples (for most profiles the retire width itself) */
		q.sample_retire = w;
		/* A width below an instruction's micro-ops cannot run it: no distance. */
		if (predict(loop_text, &q, r->nrows, share, NULL)) {
			r->distance_at[w] = NAN;
			continue;
		}
		r->distance_at[w] = distance(r, share);
		if (!r->best_retire_width ||
		    r->distance_at[w] < r->distance_at[r->best_retire_width])
			r->best_retire_width = w;
	}
out:
	free(share);
	free(selected);
	return ret;
}

const char *ipcc_skid_result_verdict(const struct ipcc_skid_result *r)
{
	return ipcc_skid_verdict_name(
	    ipcc_skid_judge(r->explained, r->distance, r->repeat_distance));
}

void ipcc_skid_result_release(struct ipcc_skid_result *r)
{
	free(r->rows);
	r->rows = NULL;
	r->nrows = 0;
}

/* ---- measurements from a file ---------------------------------------------------------- */

static int load_one(json_t *k, const char *path, unsigned idx, struct ipcc_skid_result *r)
{
	json_t *rows = json_object_get(k, "rows");
	const char *name = json_string_value(json_object_get(k, "name"));

	memset(r, 0, sizeof(*r));
	r->cpu = -1;
	r->repeat_distance = NAN;
	if (!name || !json_is_array(rows) || json_array_size(rows) == 0 ||
	    json_array_size(rows) > 100000)
		return err_set(IPCC_EINVAL, "%s: kernel %u has no name or no rows", path, idx);
	snprintf(r->kernel, sizeof(r->kernel), "%s", name);
	r->outside = (uint64_t)json_integer_value(json_object_get(k, "outside"));
	r->lost = (uint64_t)json_integer_value(json_object_get(k, "lost"));
	if (json_is_integer(json_object_get(k, "cpu")))
		r->cpu = (int)json_integer_value(json_object_get(k, "cpu"));
	r->nrows = (unsigned)json_array_size(rows);
	r->rows = calloc(r->nrows, sizeof(*r->rows));
	if (!r->rows)
		return err_set(IPCC_ENOMEM, "%u rows", r->nrows);
	for (unsigned i = 0; i < r->nrows; i++) {
		json_t *w = json_array_get(rows, i), *n = json_object_get(w, "samples");
		json_t *half = json_object_get(w, "half");
		const char *text = json_string_value(json_object_get(w, "text"));

		if (!json_is_integer(n) || json_integer_value(n) < 0 ||
		    !json_is_integer(json_object_get(w, "offset")))
			return err_set(IPCC_EINVAL, "%s: %s row %u has no offset or samples", path,
				       name, i);
		r->rows[i].offset = (uint32_t)json_integer_value(json_object_get(w, "offset"));
		snprintf(r->rows[i].text, sizeof(r->rows[i].text), "%s", text ? text : "");
		r->rows[i].samples = (uint64_t)json_integer_value(n);
		r->samples += r->rows[i].samples;
		if (json_is_array(half) && json_array_size(half) == 2) {
			r->rows[i].half[0] = (uint64_t)json_integer_value(json_array_get(half, 0));
			r->rows[i].half[1] = (uint64_t)json_integer_value(json_array_get(half, 1));
		}
	}
	if (r->samples == 0)
		return err_set(IPCC_EINVAL, "%s: %s has no samples on its loop", path, name);
	return finish(r);
}

int ipcc_skid_load(const char *path, struct ipcc_skid_result **out, unsigned *n)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, 0, &jerr), *kernels;
	struct ipcc_skid_result *r;
	int ret = 0;

	*out = NULL;
	*n = 0;
	if (!root && jerr.line < 1)
		return err_set(IPCC_EINVAL, "%s", jerr.text);
	if (!root)
		return err_set(IPCC_EINVAL, "%s:%d: %s", path, jerr.line, jerr.text);
	kernels = json_object_get(root, "kernels");
	if (!json_is_array(kernels) || json_array_size(kernels) == 0 ||
	    json_array_size(kernels) > IPCC_SKID_MAX_KERNELS) {
		json_decref(root);
		return err_set(IPCC_EINVAL, "%s: no \"kernels\" array of 1 to %d measurements",
			       path, IPCC_SKID_MAX_KERNELS);
	}
	r = calloc(json_array_size(kernels), sizeof(*r));
	if (!r) {
		json_decref(root);
		return err_set(IPCC_ENOMEM, "out of memory");
	}
	for (unsigned i = 0; i < json_array_size(kernels) && !ret; i++) {
		ret = load_one(json_array_get(kernels, i), path, i, &r[i]);
		*n = i + 1;
	}
	json_decref(root);
	if (ret) {
		ipcc_skid_results_free(r, *n);
		*n = 0;
		return ret;
	}
	*out = r;
	return 0;
}

void ipcc_skid_results_free(struct ipcc_skid_result *r, unsigned n)
{
	if (!r)
		return;
	for (unsigned i = 0; i < n; i++)
		ipcc_skid_result_release(&r[i]);
	free(r);
}

int ipcc_skid_distance(const struct ipcc_skid_result *r, const char *loop_text,
		       const struct ipcc_model_profile *p, double *d)
{
	double *share = calloc(r->nrows + 1, sizeof(*share));
	int ret;

	if (!share)
		return err_set(IPCC_ENOMEM, "%u rows", r->nrows);
	ret = predict(loop_text, p, r->nrows, share, NULL);
	if (!ret)
		*d = distance(r, share);
	free(share);
	return ret;
}

/* ---- fitting ----------------------------------------------------------------------------- */

/* Iterations per candidate run: enough for the loops' phases to repeat many times. */
#define FIT_ITERATIONS 300

/* `first`, then the values of `list` (n of them) other than it: the search order. */
static unsigned order(unsigned first, const unsigned *list, unsigned n, unsigned *out)
{
	unsigned k = 0;

	out[k++] = first;
	for (unsigned i = 0; i < n; i++)
		if (list[i] != first)
			out[k++] = list[i];
	return k;
}

int ipcc_skid_fit(const struct ipcc_skid_result *r, const char *const *loop_text, unsigned n,
		  const struct ipcc_model_profile *base, struct ipcc_skid_fit *out)
{
	static const unsigned retire[] = { 1, 2, 3, 4, 5, 6, 7, 8 }, width[] = { 3, 4, 5, 6, 8 },
			      alu[] = { 2, 3, 4, 6, 0 }, fold[] = { 0, 2, 3 }, place[] = { 0, 1 };
	unsigned rv[9], wv[6], av[6], fv[4], pv[2], nr, nw, na, nf, np, nc;
	struct ipcc_model_program *prog[IPCC_SKID_MAX_KERNELS] = { NULL };
	struct ipcc_model_profile *cand = NULL;
	double *d = NULL, *share = NULL;
	unsigned most = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (n == 0 || n > IPCC_SKID_MAX_KERNELS)
		return err_set(IPCC_EINVAL, "fit: 1 to %d kernels, not %u", IPCC_SKID_MAX_KERNELS,
			       n);
	nr = order(base->sample_retire ? base->sample_retire : base->retire, retire, 8, rv);
	nw = order(base->width, width, 5, wv);
	na = order(base->alu_ports, alu, 5, av);
	nf = order(base->fold_imm > 1 ? base->fold_imm : 0, fold, 3, fv);
	np = order((unsigned)base->placement, place, 2, pv);
	nc = nr * nw * na * nf * np;
	cand = calloc(nc, sizeof(*cand));
	d = calloc((size_t)nc * n, sizeof(*d));
	for (unsigned k = 0; k < n; k++)
		most = r[k].nrows > most ? r[k].nrows : most;
	share = calloc(most + 1, sizeof(*share));
	if (!cand || !d || !share) {
		ret = err_set(IPCC_ENOMEM, "fit: out of memory");
		goto out;
	}
	/* The fitted parameters change no instruction: parse each loop once. */
	for (unsigned k = 0; k < n && !ret; k++)
		ret = parse_loop(loop_text[k], base, r[k].nrows, &prog[k]);
	if (ret)
		goto out;
	out->nkernels = n;
	for (unsigned k = 0; k < n && !ret; k++) {
		ret = run_loop(prog[k], base, 1000, share, NULL);
		out->stock[k] = ret ? INFINITY : distance(&r[k], share);
		out->stock_total += out->stock[k];
		ret = 0;
	}
	{
		unsigned c = 0;

		for (unsigned a = 0; a < nr; a++)
			for (unsigned b = 0; b < nw; b++)
				for (unsigned e = 0; e < na; e++)
					for (unsigned f = 0; f < nf; f++)
						for (unsigned g = 0; g < np; g++, c++) {
							cand[c] = *base;
							/* the width placing samples;
							 * timing keeps base's */
							cand[c].sample_retire =
							    rv[a] == base->retire ? 0 : rv[a];
							cand[c].width = wv[b];
							cand[c].alu_ports = av[e];
							cand[c].fold_imm = fv[f];
							cand[c].placement =
							    (enum ipcc_model_placement)pv[g];
						}
	}
	out->candidates = nc;
	for (unsigned c = 0; c < nc; c++)
		for (unsigned k = 0; k < n; k++)
			/* a width below an instruction's micro-ops cannot run it */
			d[(size_t)c * n + k] =
			    run_loop(prog[k], &cand[c], FIT_ITERATIONS, share, NULL) == 0
				? distance(&r[k], share)
				: INFINITY;
	/* all kernels, then each left out: the smallest sum, the first (nearest base) on ties */
	for (unsigned left = 0; left <= n; left++) {
		unsigned best = 0;
		double best_sum = INFINITY;

		if (left < n && n == 1) {
			out->held_out[0] = NAN;
			continue;
		}
		for (unsigned c = 0; c < nc; c++) {
			double sum = 0;

			for (unsigned k = 0; k < n; k++)
				if (k != left)
					sum += d[(size_t)c * n + k];
			if (sum < best_sum - 1e-12)
				best_sum = sum, best = c;
		}
		if (left < n) {
			out->held_out[left] = d[(size_t)best * n + left];
			out->held_out_profile[left] = cand[best];
		} else {
			out->profile = cand[best];
			out->total = best_sum;
			for (unsigned k = 0; k < n; k++)
				out->fitted[k] = d[(size_t)best * n + k];
		}
	}
	snprintf(out->profile.name, sizeof(out->profile.name), "%.27s-fit", base->name);
	if (!isfinite(out->total))
		ret = err_set(IPCC_EINVAL, "fit: no candidate profile can run every kernel");
out:
	for (unsigned k = 0; k < n; k++)
		ipcc_model_program_free(prog[k]);
	free(cand);
	free(d);
	free(share);
	return ret;
}
