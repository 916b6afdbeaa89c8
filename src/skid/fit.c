/*
 * skid/fit.c - a pipeline-model profile fitted to the machine at hand: each parameter the
 * microkernels reveal, measured here, replaces the base profile's (fit.h).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "error_int.h"
#include "ipcc/fit.h"
#include "ipcc/kernels.h"
#include "ipcc/model.h"

/* What one parameter is measured with. */
enum derive {
	D_CYCLES_PER_OP, /* the kernel's fewest cycles per op, rounded */
	D_RECOVERY,	 /* the recovery with which the model runs branch_body as measured */
	D_FOLD,		 /* ops per cycle of a dependent add-immediate chain: folding when >= 1.5 */
	D_WIDTH,	 /* independent instructions (but the branch) per cycle, rounded */
	D_PORTS,	 /* ops per cycle, up: more than N a cycle (by 0.15) needs N + 1 units */
	D_EXCESS	 /* cycles per op less the two rows before it measured, rounded */
};

static const struct {
	const char *param, *kernel;
	enum derive how;
	double ops; /* per iteration, for D_CYCLES_PER_OP, D_FOLD, D_WIDTH and D_PORTS */
	size_t offset;
	uint64_t size; /* the working set of a sized kernel (0: its default) */
} params[IPCC_FIT_ROWS] = {
	/* The model's mov load takes load_latency: the chase's cycles. */
	{ "load_latency", "chain.load", D_CYCLES_PER_OP, 8,
	  offsetof(struct ipcc_model_profile, load_latency) },
	{ "mul_latency", "chain.mul", D_CYCLES_PER_OP, 8,
	  offsetof(struct ipcc_model_profile, mul_latency) },
	{ "lock_latency", "atomic.lock_add", D_CYCLES_PER_OP, 1,
	  offsetof(struct ipcc_model_profile, lock_latency) },
	{ "recovery", "branch.random", D_RECOVERY, 1,
	  offsetof(struct ipcc_model_profile, recovery) },
	{ "fadd_latency", "chain.fadd", D_CYCLES_PER_OP, 8,
	  offsetof(struct ipcc_model_profile, fadd_latency) },
	{ "fmul_latency", "chain.fmul", D_CYCLES_PER_OP, 8,
	  offsetof(struct ipcc_model_profile, fmul_latency) },
	/* A mulsd-addsd pair's cycles less the add's and the multiply's own. */
	{ "fp_bypass", "chain.fmuladd", D_EXCESS, 4,
	  offsetof(struct ipcc_model_profile, fp_bypass) },
	{ "fold_imm", "chain.add_imm", D_FOLD, 8, offsetof(struct ipcc_model_profile, fold_imm) },
	/* 80 independent movs, sub and jne: every one an ALU micro-op but the fused branch. */
	{ "alu_ports", "skid.mov_imm", D_WIDTH, 81,
	  offsetof(struct ipcc_model_profile, alu_ports) },
	/*
	 * The triad from the L1 (12 KiB in all): 4 stores of 16 bytes an iteration. Its loads
	 * may bind first: 1.28 stores a cycle on Golden Cove proves two store ports, which
	 * rounding made one.
	 */
	{ "store_ports", "bandwidth.triad", D_PORTS, 4,
	  offsetof(struct ipcc_model_profile, store_ports), 12 << 10 },
};

/*
 * The branch kernel's loop (kernels_x86_64.S) in the model's text, its branch mispredicted
 * half the time as on branch.random's random pattern.
 */
static const char branch_body[] = ".Lloop:\n"
				  "movzx eax, byte ptr [r9 + r8]\n"
				  "test eax, eax\n"
				  "jz .L2 ; mispredict=0.5\n"
				  "add rdx, 1\n"
				  ".L2:\n"
				  "add r8, 1\n"
				  "and r8, r10\n"
				  "sub rdi, 1\n"
				  "jnz .Lloop\n";

/*
 * The model's cycles per iteration of branch_body with profile p and recovery r; NAN if it
 * cannot run.
 */
static double branch_cycles(const struct ipcc_model_profile *p, unsigned r)
{
	struct ipcc_model_profile q = *p;
	struct ipcc_model_program *prog;
	struct ipcc_model_result res;
	struct ipcc_model_error err;
	double c = NAN;

	q.recovery = r;
	if (ipcc_model_parse(branch_body, &q, &prog, &err))
		return NAN;
	if (!ipcc_model_run(prog, &q, &(struct ipcc_model_opts){ 400, 200, false }, &res)) {
		c = res.summary.cycles_per_iteration;
		ipcc_model_result_release(&res);
	}
	ipcc_model_program_free(prog);
	return c;
}

/*
 * The recovery with which the model runs branch.random's loop at `cycles` an iteration:
 * the whole penalty less what the model already charges before the branch resolves (its
 * load and test). Bisection: the model's cycles grow with recovery. NAN if none in 0..1000.
 */
static double fit_recovery(const struct ipcc_model_profile *p, double cycles)
{
	unsigned lo = 0, hi = 1000;

	if (!(branch_cycles(p, lo) <= cycles) || !(branch_cycles(p, hi) >= cycles))
		return NAN;
	while (hi - lo > 1) {
		unsigned mid = lo + (hi - lo) / 2;

		if (branch_cycles(p, mid) < cycles)
			lo = mid;
		else
			hi = mid;
	}
	return cycles - branch_cycles(p, lo) < branch_cycles(p, hi) - cycles ? lo : hi;
}

/*
 * Rounds of measurement: every kernel once a round, each row's figure from its best round.
 * A disturbance on a shared machine outlasts one kernel's measurement (~2 ms), so one round
 * alone let it through: a fit read branch.random at 17.2 cycles an iteration where 16.0 is
 * right, and fitted a recovery 2 cycles high.
 */
#define FIT_ROUNDS 3

/*
 * Whether run a of a kernel is better than run b: fewer cycles; for a penalty (a
 * difference of two kernels' runs, below zero on a loaded machine), one above zero first.
 */
static bool better(const struct ipcc_bench_point *a, const struct ipcc_bench_point *b, bool penalty)
{
	if (penalty && (a->value > 0) != (b->value > 0))
		return a->value > 0;
	return a->cycles_best < b->cycles_best;
}

static unsigned *field_of(struct ipcc_model_profile *p, int i)
{
	return (unsigned *)(void *)((char *)p + params[i].offset);
}

int ipcc_fit_profile(const struct ipcc_model_profile *base, struct ipcc_model_profile *out,
		     struct ipcc_fit_row rows[IPCC_FIT_ROWS])
{
	struct ipcc_bench_opts o = { .repeat = 9 };
	struct ipcc_bench_point best[IPCC_FIT_ROWS];
	bool got[IPCC_FIT_ROWS] = { false };
	unsigned fitted = 0;

	*out = *base;
	snprintf(out->name, sizeof(out->name), "%.27s-fit", base->name);
	if (!out->latencies[0])
		snprintf(out->latencies, sizeof(out->latencies), "%s", base->name);
	for (int i = 0; i < IPCC_FIT_ROWS; i++)
		rows[i] = (struct ipcc_fit_row){ params[i].param,   params[i].kernel,  NAN, "",
						 *field_of(out, i), *field_of(out, i), "" };
	for (int round = 0; round < FIT_ROUNDS; round++)
		for (int i = 0; i < IPCC_FIT_ROWS; i++) {
			const struct ipcc_kernel *k = ipcc_kernel_find(params[i].kernel);
			struct ipcc_bench_point p;

			o.size = params[i].size;
			if (!k || ipcc_kernel_run(k, &o, 0, &p) != 0) {
				if (!got[i])
					snprintf(rows[i].note, sizeof(rows[i].note),
						 "not measured: %s",
						 k ? ipcc_last_error() : "no such kernel");
				continue;
			}
			if (!got[i] || better(&p, &best[i], params[i].how == D_RECOVERY))
				best[i] = p;
			got[i] = true;
			rows[i].note[0] = 0;
		}
	for (int i = 0; i < IPCC_FIT_ROWS; i++) {
		unsigned *field = field_of(out, i);
		struct ipcc_fit_row *r = &rows[i];
		const struct ipcc_bench_point p = best[i];
		double v = NAN;

		if (!got[i])
			continue;
		switch (params[i].how) {
		case D_CYCLES_PER_OP:
			r->measured = p.cycles_best / params[i].ops;
			r->unit = "cycles";
			v = r->measured;
			break;
		case D_FOLD:
			r->measured = params[i].ops / p.cycles_best;
			r->unit = "adds/cycle";
			v = r->measured >= 1.5 ? r->measured : 0;
			snprintf(r->note, sizeof(r->note), "%s",
				 v ? "the renamer folds immediates"
				   : "no folding (one add a cycle)");
			break;
		case D_EXCESS:
			r->measured = p.cycles_best / params[i].ops;
			r->unit = "cycles";
			v = r->measured - rows[i - 2].measured - rows[i - 1].measured;
			snprintf(r->note, sizeof(r->note), "less %s and %s measured",
				 rows[i - 2].param, rows[i - 1].param);
			break;
		case D_RECOVERY:
			r->measured = p.value;
			r->unit = "cycles";
			v = fit_recovery(out, p.cycles_best);
			snprintf(r->note, sizeof(r->note),
				 "the penalty less what the model charges before the branch "
				 "resolves (%.2f cycles/iteration as measured)",
				 p.cycles_best);
			break;
		case D_WIDTH:
		case D_PORTS:
			r->measured = params[i].ops / p.cycles_best;
			r->unit = "per cycle";
			v = params[i].how == D_PORTS ? ceil(r->measured - 0.15) : r->measured;
			break;
		}
		if (!isfinite(v) || v < 0 || v > 1000) {
			snprintf(r->note, sizeof(r->note), "not fitted: %g is no figure for %s", v,
				 r->param);
			continue;
		}
		*field = r->fitted = (unsigned)lround(v);
		fitted++;
	}
	return fitted ? 0 : err_set(IPCC_ENOTSUP, "no kernel could be measured here");
}
