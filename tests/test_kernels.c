/*
 * test_kernels.c - the microkernels: every kernel's expected instructions per iteration
 * against an independent count (single-stepping it with ptrace), and what the kernels
 * measure on this machine, bounded by ratios (robust to a busy machine).
 */
#include <cpuid.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fake_kernel.h"
#include "ipcc/block.h"
#include "ipcc/clock.h"
#include "ipcc/error.h"
#include "ipcc/fit.h"
#include "ipcc/kernels.h"
#include "ipcc/model.h"
#include "test.h"

/*
 * Instructions the kernel executes in `iters` iterations, counted by a tracer: a breakpoint
 * at its entry (so its setup is not counted), then single steps while the program counter is
 * in the kernel's code. -1 if the kernel did not run (e.g. no AVX2 here).
 */
static long count_instructions(const struct ipcc_kernel *k, uint64_t iters)
{
	const void *entry, *start, *end;
	struct user_regs_struct regs;
	long n = 0, orig;
	int st;
	pid_t pid;

	ipcc_kernel_code(k, &entry, &start, &end);
	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		ipcc_kernel_call(k, iters, 4096);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	errno = 0;
	orig = ptrace(PTRACE_PEEKTEXT, pid, entry, NULL);
	if (errno)
		return -2;
	ptrace(PTRACE_POKETEXT, pid, entry, (void *)((orig & ~0xffL) | 0xcc));
	ptrace(PTRACE_CONT, pid, NULL, NULL);
	waitpid(pid, &st, 0);
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP) {
		if (!WIFEXITED(st))
			kill(pid, SIGKILL), waitpid(pid, &st, 0);
		return -1;
	}
	/* Back to the real first instruction. */
	ptrace(PTRACE_POKETEXT, pid, entry, (void *)orig);
	ptrace(PTRACE_GETREGS, pid, NULL, &regs);
	regs.rip = (unsigned long long)entry;
	ptrace(PTRACE_SETREGS, pid, NULL, &regs);
	for (;;) {
		ptrace(PTRACE_GETREGS, pid, NULL, &regs);
		if (regs.rip < (unsigned long long)start || regs.rip >= (unsigned long long)end)
			break;
		n++;
		ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL);
		waitpid(pid, &st, 0);
		if (!WIFSTOPPED(st))
			return -3;
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return n;
}

TEST(expected_instructions_match_single_stepping)
{
	int checked = 0;

	for (unsigned i = 0; ipcc_kernel_at(i); i++) {
		const struct ipcc_kernel *k = ipcc_kernel_at(i);
		long a = count_instructions(k, 4), b = count_instructions(k, 12);
		double per;

		if (a == -1 && k->needs_avx2_fma)
			continue; /* this CPU cannot run it */
		if (a < 0 || b < 0) {
			fprintf(stderr, "%s: could not be traced (%ld, %ld)\n", k->name, a, b);
			test_failures++;
			continue;
		}
		per = (double)(b - a) / 8;
		if (!strcmp(k->name, "branch.random")) {
			/* taken at random: 7 or 8 per iteration */
			CHECK(per >= 7 && per <= 8);
		} else if (per != k->expect.instructions) {
			fprintf(stderr,
				"%s: %.3f instructions per iteration single-stepped, %g "
				"expected\n",
				k->name, per, k->expect.instructions);
			test_failures++;
		}
		checked++;
	}
	printf("%d kernels single-stepped\n", checked);
	CHECK_CMP(int, checked, >=, 20);
	return TEST_OK;
}

TEST(registry_is_consistent)
{
	for (unsigned i = 0; ipcc_kernel_at(i); i++) {
		const struct ipcc_kernel *k = ipcc_kernel_at(i);

		CHECK(ipcc_kernel_find(k->name) == k);
		CHECK(k->purpose && *k->purpose && k->unit && *k->unit);
		CHECK(!isnan(k->expect.instructions) && k->expect.instructions >= 2);
		CHECK(k->expect.branches >= 1);
	}
	CHECK(ipcc_kernel_find("no.such") == NULL);
	CHECK_CMP(u64, ipcc_kernel_count(), >=, 40);
	return TEST_OK;
}

/* The skid kernels' bodies are the model's input: they must parse, one source of truth. */
TEST(skid_bodies_run_through_the_model)
{
	struct ipcc_model_profile p;
	int n = 0;

	ipcc_model_profile("zen3", &p);
	for (unsigned i = 0; ipcc_kernel_at(i); i++) {
		const struct ipcc_kernel *k = ipcc_kernel_at(i);
		struct ipcc_model_program *prog;
		struct ipcc_model_error err;
		struct ipcc_model_opts o = { .iterations = 100, .warmup = 50 };
		struct ipcc_model_result res;

		if (!k->body)
			continue;
		if (ipcc_model_parse(k->body, &p, &prog, &err)) {
			fprintf(stderr, "%s: %u:%u: %s\n", k->name, err.line, err.column,
				err.message);
			test_failures++;
			continue;
		}
		CHECK_EQ(int, ipcc_model_run(prog, &p, &o, &res), 0);
		/* ten bodies + the loop's 2 instructions per kernel iteration */
		CHECK_EQ(u64, 10 * ipcc_model_program_size(prog) + 2,
			 (uint64_t)k->expect.instructions);
		ipcc_model_result_release(&res);
		ipcc_model_program_free(prog);
		n++;
	}
	CHECK_EQ(int, n, 5);
	return TEST_OK;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The median of three tries, each with the core frequency measured around its own runs,
 * after the core has been kept busy for 50 ms (an idle core starts slow).
 */
static double median_value(const char *name, uint64_t size)
{
	struct ipcc_bench_opts o = { .size = size, .repeat = 5 };
	struct ipcc_bench_point p;
	uint64_t end = ipcc_now_ns() + 50000000;
	double v[3];

	while (ipcc_now_ns() < end)
		ipcc_corefreq_khz(NULL);
	for (int t = 0; t < 3; t++) {
		if (ipcc_kernel_run(ipcc_kernel_find(name), &o, 0, &p) != 0)
			return NAN;
		v[t] = p.value;
	}
	qsort(v, 3, sizeof(v[0]), cmp);
	return v[1];
}

TEST(latency_sweep_shows_the_cache_hierarchy)
{
	double l1 = median_value("latency", 16 << 10);
	double l2 = median_value("latency", 256 << 10);
	double dram = median_value("latency", 128 << 20);

	printf("latency: 16 KiB %.2f ns, 256 KiB %.2f ns, 128 MiB %.2f ns\n", l1, l2, dram);
	/* each level clearly slower than the one inside it */
	CHECK_CMP(dbl, l2, >, 1.5 * l1);
	CHECK_CMP(dbl, dram, >, 5 * l2);
	return TEST_OK;
}

/*
 * Cycles per op, the fewest of ten tries or more of nine runs each, the core frequency
 * measured around every run; tries stop once one reads `enough` or fewer, and go on, 30 ms
 * apart, for up to three seconds while none does (a CI's sanitizer run read chain.add at
 * 1.16 in all ten tries in a row, 2026-11-29). The fewest: an
 * interrupt or a busy SMT sibling mostly adds cycles (on the loaded 2-CPU guest, single runs
 * of chain.add took 9, 10.7 or 17 cycles an iteration instead of 8, unpreempted; with another
 * test running beside it, three tries in a row read chain.add at 1.34 and chain.load at 7.5),
 * while a wrong frequency or latency would move every try.
 */
static double best_cycles_per_op(const char *name, double ops, double enough)
{
	struct ipcc_bench_opts o = { .repeat = 9 };
	struct ipcc_bench_point p;
	uint64_t end = ipcc_now_ns() + 50000000;
	double best = INFINITY;

	while (ipcc_now_ns() < end)
		ipcc_corefreq_khz(NULL);
	end = ipcc_now_ns() + 3000000000ull; /* tries go on to here while none reads enough */
	for (int t = 0; (t < 10 || ipcc_now_ns() < end) && best > enough; t++) {
		if (ipcc_kernel_run(ipcc_kernel_find(name), &o, 0, &p) != 0)
			return NAN;
		if (p.cycles_best / ops < best)
			best = p.cycles_best / ops;
		/* spaced apart: out of a busy spell of the host's (a sibling's burst) */
		if (best > enough)
			nanosleep(&(struct timespec){ .tv_nsec = 30000000 }, NULL);
	}
	return best;
}

TEST(core_kernels_agree_with_the_core_frequency)
{
	/*
	 * Which figures are independent: chain.add's 1 cycle is the clock module's own
	 * assumption (the core frequency is measured with an add chain), so it checks only
	 * that the kernel and the clock agree. The others test something: imul's 3 cycles
	 * and an L1 load's 3 or more are facts of the core the clock knows nothing of.
	 */
	double add = best_cycles_per_op("chain.add", 8, 1.05);
	double mul = best_cycles_per_op("chain.mul", 8, 3.1);
	double imm = best_cycles_per_op("chain.add_imm", 8, 1.05);
	double load = best_cycles_per_op("chain.load", 8, 6); /* checked from below only */

	printf("chain.add %.3f cycles/add, chain.mul %.3f cycles/multiply, chain.add_imm %.3f "
	       "cycles/add, chain.load %.3f cycles/load\n",
	       add, mul, imm, load);
	/*
	 * On a quiet machine all three are within 0.01 of 1, 3 and 1 (ipcc bench: 1.000, 3.00).
	 * The bounds are wider because an SMT sibling busy all through a run contends for the
	 * ALU ports the frequency chain uses, more than for the multiplier or the load unit:
	 * under stress-ng on both CPUs chain.add stayed at 1.00 while chain.mul read 2.59-2.92
	 * and chain.load 3.45-3.9. A chain the renamer shortens (the old add-immediate: 0.3-0.5
	 * on Golden Cove) or a wrong frequency (3-4x on Emerald Rapids) is far outside them.
	 */
	CHECK_CMP(dbl, fabs(add - 1.0), <, 0.15);
	CHECK_CMP(dbl, fabs(mul - 3.0), <, 0.55); /* imul r64: 3 cycles on every big x86 core */
	/*
	 * 1, or less where the renamer folds; 1.16 in all 90 runs of one CI on the Zen 5
	 * guest (2026-11-28, chain.add 1.00 beside it, the host's sibling busy), so not 1.15
	 */
	CHECK_CMP(dbl, imm, <, 1.3);
	CHECK_CMP(dbl, load, >=, 3.0); /* no core has an L1 hit under 3 cycles */
	return TEST_OK;
}

/* A profile fitted here: every parameter measured, within what any core can be. */
TEST(fitted_profile_takes_what_the_kernels_measure)
{
	struct ipcc_fit_row rows[IPCC_FIT_ROWS];
	struct ipcc_model_profile base, fit, back;
	char text[4096];

	CHECK_EQ(int, ipcc_model_profile("zen3", &base), 0);
	CHECK_EQ(int, ipcc_fit_profile(&base, &fit, rows), 0);
	CHECK_STR(fit.name, "zen3-fit");
	int unmeasured = 0;

	for (int i = 0; i < IPCC_FIT_ROWS; i++) {
		printf("%-14s %-16s %8.3f %s -> %u  %s\n", rows[i].param, rows[i].kernel,
		       rows[i].measured, rows[i].unit, rows[i].fitted, rows[i].note);
		/*
		 * every kernel measured; a block may not be, with the CPUs busy (a page-split
		 * store's runs of n and 2n iterations disagreed 40 times under stress-ng), and
		 * then the row says so and fits nothing
		 */
		const bool block =
		    !strcmp(rows[i].param, "lsd_no_unroll") ||
		    (rows[i].kernel[0] &&
		     strspn(rows[i].kernel, "0123456789abcdef") == strlen(rows[i].kernel));

		if (isnan(rows[i].measured)) {
			CHECK(block);
			CHECK(!strncmp(rows[i].note, "not measured", 12));
			CHECK_EQ(int, (int)rows[i].fitted, 0);
			unmeasured++;
		}
		/* the fitted figure is what was measured, as the row's derivation says */
		if (!strcmp(rows[i].param, "load_latency") ||
		    !strcmp(rows[i].param, "mul_latency") ||
		    !strcmp(rows[i].param, "lock_latency") ||
		    !strcmp(rows[i].param, "fadd_latency") ||
		    !strcmp(rows[i].param, "fmul_latency"))
			CHECK_EQ(int, (int)rows[i].fitted, (int)lround(rows[i].measured));
		/* no folding under 1.5 adds a cycle; else the folding the model runs nearest */
		if (!strcmp(rows[i].param, "fold_imm") && rows[i].measured < 1.5)
			CHECK_EQ(int, (int)rows[i].fitted, 0);
		if (!strcmp(rows[i].param, "fold_imm") && rows[i].measured >= 1.5)
			CHECK(rows[i].fitted >= 2 && rows[i].fitted <= 16);
	}
	CHECK(unmeasured <= 3);
	/* and the profile holds the rows' figures */
	CHECK_EQ(int, (int)fit.load_latency, (int)rows[0].fitted);
	CHECK_EQ(int, (int)fit.mul_latency, (int)rows[1].fitted);
	CHECK_EQ(int, (int)fit.lock_latency, (int)rows[2].fitted);
	CHECK_EQ(int, (int)fit.recovery, (int)rows[3].fitted);
	/*
	 * Bounds any core meets, loose enough for a machine whose other CPU and SMT sibling are
	 * busy (a shared core runs the ALU-bound kernels slower and can skew a frequency chain):
	 * the exact figures are printed. Quiet Zen 5: load 5 (4 before a mov load was the load
	 * alone), imul 3, lock 20, recovery 23, 6 ALUs.
	 */
	CHECK(fit.load_latency >= 2 && fit.load_latency <= 10);
	CHECK(fit.mul_latency >= 2 && fit.mul_latency <= 6); /* imul: 3 on every big x86 core */
	CHECK(fit.lock_latency >= 3 && fit.lock_latency <= 200);
	CHECK(fit.recovery >= 5 && fit.recovery <= 200);
	CHECK(fit.fold_imm == 0 || fit.fold_imm >= 2);
	CHECK(fit.taken_per_cycle >= 1 && fit.taken_per_cycle <= 2);
	CHECK(fit.indirect_call_cycles >= 1 && fit.indirect_call_cycles <= 40);
	/*
	 * The hierarchy, each level on top of the one before (a Granite Rapids-class guest:
	 * L2 16, a second-level TLB hit 7 more, a walk 46 more, the LLC 119): where zen3's
	 * TLBs (64 and 2048 pages) are smaller than this machine's, their pages still outrun
	 * them, so each row measures what it names.
	 */
	CHECK(fit.l2_latency > fit.load_latency && fit.l2_latency <= 40);
	CHECK(fit.stlb_latency >= 1 && fit.stlb_latency <= 40);
	CHECK(fit.walk_latency >= 5 && fit.walk_latency <= 1000);
	CHECK(fit.llc_latency > fit.l2_latency && fit.llc_latency <= 1000);
	/* a line L1 fills from L2 (87 bytes a cycle here; 44 as one rate with write-backs), 64
	 * bytes streamed past the caches (5) */
	CHECK(fit.l2_bytes_per_cycle >= 4 && fit.l2_bytes_per_cycle <= 512);
	CHECK(fit.nt_bytes_per_cycle >= 1 && fit.nt_bytes_per_cycle <= 256);
	/* write-backs apart (18 here), or 0 where the fills could not be told apart */
	CHECK(fit.l2_wb_bytes_per_cycle == 0 ||
	      (fit.l2_wb_bytes_per_cycle >= 1 && fit.l2_wb_bytes_per_cycle <= 512));
	CHECK(fit.alu_ports >= 1 && fit.alu_ports <= 16);
	CHECK_EQ(int, fit.width, base.width); /* what no kernel measures stays the base's */
	/* It reads back as written. */
	CHECK_EQ(int, ipcc_model_profile_format(&fit, text, sizeof(text)), 0);
	CHECK_EQ(int, ipcc_model_profile_parse(text, &back, &(struct ipcc_model_error){ 0 }), 0);
	CHECK(ipcc_model_profile_equal(&fit, &back));
	return TEST_OK;
}

/*
 * branch.always runs at its chain's cycle an iteration wherever two taken branches a cycle
 * are followed: there it cannot tell a loop buffer of two from one of three, and the base's
 * figure stands; slower, it is the figure (Emerald Rapids: 2.00 cycles, one a cycle).
 */
TEST(fit_keeps_the_loop_buffer_that_branch_always_cannot_tell)
{
	struct ipcc_fit_row rows[IPCC_FIT_ROWS];
	struct ipcc_model_profile base, fit;
	int found = 0;

	CHECK_EQ(int, ipcc_model_profile("goldencove", &base), 0);
	CHECK(base.loop_taken_per_cycle == 3);
	CHECK_EQ(int, ipcc_fit_profile(&base, &fit, rows), 0);
	for (int i = 0; i < IPCC_FIT_ROWS; i++) {
		if (!rows[i].param || strcmp(rows[i].param, "loop_taken_per_cycle"))
			continue;
		found++;
		printf("%s %s %.3f %s -> %u  %s\n", rows[i].param, rows[i].kernel, rows[i].measured,
		       rows[i].unit, rows[i].fitted, rows[i].note);
		CHECK_STR(rows[i].kernel, "branch.always");
		CHECK(!isnan(rows[i].measured));
		if (rows[i].measured >= 1.7) {
			CHECK_EQ(int, (int)rows[i].fitted, 3);
			CHECK(strstr(rows[i].note, "at least 2") != NULL);
		} else {
			CHECK_EQ(int, (int)rows[i].fitted, (int)lround(rows[i].measured));
		}
		CHECK_EQ(int, (int)fit.loop_taken_per_cycle, (int)rows[i].fitted);
		/* and taken_per_cycle, outside the buffer, is not the row's */
		CHECK_EQ(int, (int)fit.taken_per_cycle, (int)base.taken_per_cycle);
	}
	CHECK_EQ(int, found, 1);
	return TEST_OK;
}

/* The model's cycles per iteration of block `hex` as ipcc bench --block runs it. */
static double model_block(const struct ipcc_model_profile *p, const char *hex)
{
	struct ipcc_block b;
	struct ipcc_model_program *prog;
	struct ipcc_model_result res;
	struct ipcc_model_error err;
	char *text = NULL;
	double c = NAN;

	if (ipcc_block_parse_hex(hex, &b) || ipcc_block_lift(&b, &text))
		return NAN;
	if (!ipcc_model_parse_mode(text, p, IPCC_MODEL_LENIENT, &prog, &err)) {
		if (!ipcc_model_run(prog, p, &(struct ipcc_model_opts){ 0 }, &res)) {
			c = res.summary.cycles_per_iteration;
			ipcc_model_result_release(&res);
		}
		ipcc_model_program_free(prog);
	}
	free(text);
	return c;
}

/*
 * A key fitted from a block is the value with which the model runs the block as measured:
 * given the cycles a built-in's own figure gives each block, the fit recovers that figure
 * from the same profile with the key at 0; a key no row fits and a block that does not
 * parse are errors.
 */
TEST(block_keys_fit_back_to_the_figure_that_made_the_cycles)
{
	/* goldencove's keys, and zen5's for those goldencove lacks */
	static const struct {
		const char *base, *key, *hex;
		size_t offset;
	} keys[] = {
		{ "goldencove", "vector_load_latency", "f20f100066480f7ec0",
		  offsetof(struct ipcc_model_profile, vector_load_latency) },
		{ "goldencove", "lea_scale_latency", "488d04c1",
		  offsetof(struct ipcc_model_profile, lea_scale_latency) },
		{ "goldencove", "mul_high_latency", "48f7e94889d0",
		  offsetof(struct ipcc_model_profile, mul_high_latency) },
		{ "goldencove", "forward_fail_latency", "488906488b5e04",
		  offsetof(struct ipcc_model_profile, forward_fail_latency) },
		{ "goldencove", "forward_wide_latency", "8906488b06",
		  offsetof(struct ipcc_model_profile, forward_wide_latency) },
		{ "zen5", "forward_extra", "4889078b4604",
		  offsetof(struct ipcc_model_profile, forward_extra) },
		{ "zen5", "vector_forward_extra", "f30f7f07f30f6f06",
		  offsetof(struct ipcc_model_profile, vector_forward_extra) },
		{ "zen5", "from_gpr_extra", "66480f6ec066480f7ec0",
		  offsetof(struct ipcc_model_profile, from_gpr_extra) },
	};
	struct ipcc_model_profile glc, base, zero;
	unsigned v;
	double pred, cycles;

	CHECK_EQ(int, ipcc_model_profile("goldencove", &glc), 0);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		CHECK_EQ(int, ipcc_model_profile(keys[i].base, &base), 0);

		unsigned want =
		    *(const unsigned *)(const void *)((const char *)&base + keys[i].offset);

		/* the cycles the profile gives the block: its figure, fitted back */
		pred = model_block(&base, keys[i].hex);
		zero = base;
		*(unsigned *)(void *)((char *)&zero + keys[i].offset) = 0;
		CHECK(model_block(&zero, keys[i].hex) != pred); /* the key matters to the block */
		CHECK_EQ(int,
			 ipcc_fit_block_key(&zero, keys[i].key, keys[i].hex, pred, 60, &v, &cycles),
			 0);
		printf("%-22s %s %u: %.2f cycles; fitted back %u (%.2f)\n", keys[i].key,
		       keys[i].base, want, pred, v, cycles);
		CHECK_EQ(int, (int)v, (int)want);
		CHECK_EQ(dbl, cycles, pred);
	}
	/*
	 * A count of units is never fitted to 0, which would lift the bound: the twenty movzx
	 * of the alu_ports row, timed as the model runs them with no port bound (a CI machine
	 * that timed them so fitted 0 before the row began at 1).
	 */
	{
		static const char movzx20[] =
		    "410fb7c4410fb7dc410fb7cc410fb7d4410fb7f4410fb7fc450fb7c4450fb7cc450fb7d4"
		    "450fb7dc410fb7c4410fb7dc410fb7cc410fb7d4410fb7f4410fb7fc450fb7c4450fb7cc"
		    "450fb7d4450fb7dc";

		zero = glc;
		zero.alu_ports = 0;
		pred = model_block(&zero, movzx20);
		CHECK_EQ(int, ipcc_fit_block_key(&glc, "alu_ports", movzx20, pred, 8, &v, &cycles),
			 0);
		printf("alu_ports unbounded: %.2f cycles; fitted %u (%.2f)\n", pred, v, cycles);
		CHECK(v >= 1 && v <= 8);
	}
	CHECK_EQ(int, ipcc_fit_block_key(&glc, "width", "488d04c1", 1, 4, &v, &pred), IPCC_EINVAL);
	CHECK_EQ(int, ipcc_fit_block_key(&glc, "lea_scale_latency", "48zz", 1, 4, &v, &pred),
		 IPCC_EINVAL);
	return TEST_OK;
}

/*
 * Mispredict recovery is fitted to what the mispredicts add: branch.random's cycles less
 * branch.always's (the machine's limit on taken branches, which the model backend adds on
 * its own), on the model's loop with its branch predicted. Only the difference counts; a
 * cycle more an iteration is two of recovery (half the iterations mispredict); without
 * branch.always the whole loop is fitted, its taken-branch cycle put in recovery.
 */
TEST(recovery_fits_what_the_mispredicts_add_to_the_predicted_loop)
{
	struct ipcc_model_profile rc;
	unsigned diff, shifted, whole, more, none;

	CHECK_EQ(int, ipcc_model_profile("raptorcove", &rc), 0);
	/* Emerald Rapids: branch.random 14.9 cycles an iteration, branch.always 2.00 */
	CHECK_EQ(int, ipcc_fit_recovery(&rc, 14.9, 2.00, &diff), 0);
	CHECK_EQ(int, ipcc_fit_recovery(&rc, 15.9, 3.00, &shifted), 0);
	CHECK_EQ(int, ipcc_fit_recovery(&rc, 14.9, NAN, &whole), 0);
	CHECK_EQ(int, ipcc_fit_recovery(&rc, 15.9, 2.00, &more), 0);
	printf("raptorcove's recovery %u; fitted %u, shifted %u, whole loop %u, a cycle more %u\n",
	       rc.recovery, diff, shifted, whole, more);
	CHECK_EQ(int, (int)diff, (int)rc.recovery);
	CHECK_EQ(int, (int)shifted, (int)diff);
	CHECK(whole >= diff + 1 && whole <= diff + 3);
	CHECK(more >= diff + 1 && more <= diff + 3);
	/* faster than the model's loop can run with no recovery at all */
	CHECK_EQ(int, ipcc_fit_recovery(&rc, 0.5, 2.00, &none), IPCC_EINVAL);
	return TEST_OK;
}

/*
 * The validation table on a PMU that counts: the fake kernel counts each kernel run as a PMU
 * would, n iterations of its exact counts (on every read, so two readings differ by one
 * run). Skylake's recipe: instructions are raw 0xc0, branches and mispredicts perf's generic
 * events. Exact counts pass within 1%; one event more or less per iteration fails.
 */
static double fake_per_iteration[3]; /* instructions, branches, mispredicts */
static uint64_t fake_iterations;

static void count_a_run(struct fake_event *e)
{
	double per = -1;

	if (e->attr.type == PERF_TYPE_RAW && e->attr.config == 0xc0)
		per = fake_per_iteration[0];
	else if (e->attr.type == PERF_TYPE_HARDWARE &&
		 e->attr.config == PERF_COUNT_HW_BRANCH_INSTRUCTIONS)
		per = fake_per_iteration[1];
	else if (e->attr.type == PERF_TYPE_HARDWARE &&
		 e->attr.config == PERF_COUNT_HW_BRANCH_MISSES)
		per = fake_per_iteration[2];
	if (per >= 0)
		e->count += (uint64_t)(per * (double)fake_iterations + 0.5);
}

TEST(validation_passes_exact_counts_and_fails_one_event_off)
{
	static const char *const names[] = { "chain.add", "chain.load", "branch.always" };
	const struct perf_sys_ops *old = fake_use("skl", test_data("sysfs-cpu-pmu"));

	fake.on_read = count_a_run;
	fake_iterations = 1u << 20; /* what ipcc_kernel_validate runs of an unsized kernel */
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct ipcc_kernel *k = ipcc_kernel_find(names[i]);
		struct ipcc_kernel_check c[IPCC_KERNEL_NCHECKS];

		for (int off = -1; off <= 1; off++) {
			for (int e = 0; e < 3; e++) {
				double exact = e == 0	? k->expect.instructions
					       : e == 1 ? k->expect.branches
							: k->expect.mispredicts;

				for (int x = 0; x < 3; x++)
					fake_per_iteration[x] = x == 0	 ? k->expect.instructions
								: x == 1 ? k->expect.branches
									 : k->expect.mispredicts;
				if (exact + off < 0)
					continue;
				fake_per_iteration[e] = exact + off;
				CHECK_EQ(int, ipcc_kernel_validate(k, 0, c), 0);
				if (c[e].pass != (off == 0))
					fprintf(stderr,
						"%s: %s at %g a iteration (expected %g): %s%s\n",
						k->name, c[e].event, c[e].measured, c[e].expected,
						c[e].pass ? "PASS" : "FAIL ", c[e].absent);
				CHECK_EQ(int, c[e].pass, off == 0);
				CHECK_EQ(dbl, c[e].measured, exact + off);
			}
		}
	}
	fake.on_read = NULL;
	fake_unuse(old);
	return TEST_OK;
}

TEST(bad_parameters_are_errors)
{
	struct ipcc_bench_opts o = { .size = 64, .repeat = 1 };
	struct ipcc_bench_point p;

	CHECK_EQ(int, ipcc_kernel_run(ipcc_kernel_find("latency"), &o, 1000000, &p), IPCC_EINVAL);
	o.size = 1 << 20;
	o.threads = 1000;
	CHECK_EQ(int, ipcc_kernel_run(ipcc_kernel_find("bandwidth.triad"), &o, 1000000, &p),
		 IPCC_EINVAL);
	return TEST_OK;
}
