/*
 * skid.c - measured and modelled interrupt placement for the skid kernels (see skid.h).
 *
 * The loop is found in the machine code, not assumed: Capstone disassembles the kernel from
 * its entry to its end, and the loop runs from the target of its one backward conditional
 * branch to that branch. A sample is attributed to an instruction when its IP is that
 * instruction's address: the reported IP of an interrupt is always an instruction boundary.
 */
#include <capstone/capstone.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_int.h"
#include "ipcc/clock.h"
#include "ipcc/sample.h"
#include "ipcc/skid.h"

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
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return err_set(IPCC_ENOTSUP, "Capstone cannot disassemble x86-64");
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
};

static void on_sample(void *arg, const struct ipcc_sample *s)
{
	struct tally *t = arg;
	struct ipcc_skid_result *r = t->r;

	if (s->ip >= t->lo && s->ip < t->hi)
		for (unsigned i = 0; i < r->nrows; i++)
			if (t->lo + r->rows[i].offset == s->ip) {
				r->rows[i].samples++;
				r->samples++;
				return;
			}
	r->outside++;
}

int ipcc_skid_measure(const struct ipcc_kernel *k, const struct ipcc_skid_opts *o,
		      struct ipcc_skid_result *out)
{
	struct ipcc_sampler_opts so = { .period = o->period_ns ? o->period_ns : DEFAULT_PERIOD_NS };
	double seconds = o->seconds > 0 ? o->seconds : 1.0;
	struct ipcc_sampler *s = NULL;
	struct tally t = { out, 0, 0 };
	struct ipcc_sample_handler h = { on_sample, NULL, &t };
	uint64_t t0, per_call;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!k->body)
		return err_set(IPCC_EINVAL, "%s is not a skid kernel", k->name);
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
	}
	if (!ret)
		ret = ipcc_sampler_disable(s);
	if (!ret && ipcc_sampler_drain(s, &h) < 0)
		ret = IPCC_EINVAL;
	out->lost = ipcc_sampler_stats(s)->lost;
	ipcc_sampler_free(s);
	if (ret)
		goto fail;
	for (unsigned i = 0; i < out->nrows; i++)
		out->rows[i].measured =
		    out->samples ? (double)out->rows[i].samples / (double)out->samples : 0;
	return 0;
fail:
	ipcc_skid_result_release(out);
	return ret;
}

/* The model's share per row (and which rows it selects) with profile p. */
static int predict(const char *text, const struct ipcc_model_profile *p, unsigned nrows,
		   double *share, bool *selected)
{
	struct ipcc_model_program *prog;
	struct ipcc_model_error err;
	struct ipcc_model_result res;
	int ret = ipcc_model_parse(text, p, &prog, &err);

	if (ret)
		return err_set(ret, "model: line %u: %s", err.line, err.message);
	if (ipcc_model_program_size(prog) != nrows) {
		ret = err_set(IPCC_EINVAL,
			      "the machine's loop has %u instructions, the model's %u: "
			      "they cannot be compared",
			      nrows, ipcc_model_program_size(prog));
		ipcc_model_program_free(prog);
		return ret;
	}
	ret = ipcc_model_run(prog, p, &(struct ipcc_model_opts){ .iterations = 1000 }, &res);
	if (!ret) {
		for (unsigned i = 0; i < nrows; i++) {
			share[i] = res.rows[i].share;
			if (selected)
				selected[i] = res.rows[i].selected;
		}
		ipcc_model_result_release(&res);
	}
	ipcc_model_program_free(prog);
	return ret;
}

static double distance(const struct ipcc_skid_result *r, const double *share)
{
	double d = 0;

	for (unsigned i = 0; i < r->nrows; i++)
		d += fabs(r->rows[i].measured - share[i]);
	return d / 2;
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

		q.retire = w;
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

const char *ipcc_skid_verdict(double explained, double distance)
{
	if (explained >= 0.9)
		return distance <= 0.15 ? "matches" : "same-places";
	return explained >= 0.5 ? "partly" : "differs";
}

void ipcc_skid_result_release(struct ipcc_skid_result *r)
{
	free(r->rows);
	r->rows = NULL;
	r->nrows = 0;
}
