/*
 * kernels.h - microkernels: tiny loops whose counts per iteration are known exactly, to
 * establish penalties (load latency, bandwidth, misprediction, call cost, FMA throughput,
 * execute-at-retire) and to check that each event counts what it claims.
 *
 * Each kernel is an assembly loop (src/kernels/kernels_x86_64.S, skid.c) registered with its
 * expected counts per iteration (NaN where not fixed), the unit of its derived figure, and,
 * for the interrupt-placement (skid) kernels, its loop body as text for the pipeline model.
 * The measurement loop is in docs/internals/bench.md. x86-64 only for now.
 */
#ifndef IPCC_KERNELS_H
#define IPCC_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

struct ipcc_kernel_expect {
	double instructions, loads, stores, branches,
	    mispredicts; /* per iteration; NaN: not fixed */
};

struct ipcc_kernel {
	const char *name;    /* "chain.add", "latency", "fma.8.2", "skid.load_nops" */
	const char *purpose; /* one line */
	const char *unit;    /* of its derived figure: "cycles/add", "ns/load", "GB/s", ... */
	bool sized;	     /* works on a working set of a given size */
	bool threaded;	     /* can run in several threads at once (bandwidth) */
	bool needs_avx2_fma; /* AVX2 and FMA instructions */
	struct ipcc_kernel_expect expect;
	const char *body; /* the loop body, Intel syntax (skid kernels), or NULL */
};

unsigned ipcc_kernel_count(void);
const struct ipcc_kernel *ipcc_kernel_at(unsigned i);
const struct ipcc_kernel *ipcc_kernel_find(const char *name);

struct ipcc_bench_opts {
	uint64_t size;	  /* working set in bytes, for sized kernels (0: the kernel's default) */
	unsigned threads; /* for threaded kernels (0 or 1: one) */
	unsigned repeat;  /* measurements to take the median of (0: adapt until stable) */
	bool huge;	  /* ask for transparent huge pages for the working set */
};

/* One measurement of one kernel. */
struct ipcc_bench_point {
	uint64_t size_bytes;	/* 0 for kernels without a working set */
	uint64_t iterations;	/* per measurement */
	unsigned reps;		/* measurements taken */
	double ns_per_iter;	/* median */
	double cycles_per_iter; /* median over reps of ns x the core frequency around each */
	double cycles_best;	/* the fewest of any rep: a busy SMT sibling only adds */
	double ns_best;		/* the fastest rep */
	double core_khz;	/* median core frequency around the reps */
	double spread;		/* (p90 - p10) / median of ns_per_iter */
	double value;		/* the derived figure, from the best rep, in the kernel's unit */
};

/*
 * Measure kernel k: warm up, then repeat a timed run (the fixed cost of timing one, measured
 * on an empty kernel, taken off) until the median is stable. With core_khz 0 the core
 * frequency is measured between every two runs and each run's cycles use the frequency
 * around it (see docs/internals/bench.md); otherwise core_khz is taken as given. IPCC_ENOTSUP when this machine cannot run it (no AVX2/FMA, more threads than
 * CPUs), IPCC_EINVAL for a bad size.
 */
int ipcc_kernel_run(const struct ipcc_kernel *k, const struct ipcc_bench_opts *o, uint64_t core_khz,
		    struct ipcc_bench_point *out);

/* One event's check: measured per iteration against expected. */
struct ipcc_kernel_check {
	const char *event; /* "instructions", "branches", "mispredicts", ... */
	double measured;   /* per iteration; NaN when it could not be counted */
	double expected;   /* per iteration; NaN when not fixed */
	double ratio;	   /* measured / expected, NaN when either is */
	bool pass;	   /* within the tolerance: 1%, or 0.01 per iteration of an expected 0 */
	char absent[160];  /* why measured is NaN */
};

#define IPCC_KERNEL_NCHECKS 5

/*
 * Count kernel k's events with the PMU (a per-thread counter set on this thread) over one
 * run, and check them against its expected counts: instructions, branches and mispredicts
 * through the kernel's generic events; loads and stores say why they are absent. Returns
 * IPCC_ENOTSUP (and the reason in ipcc_last_error()) when there is no PMU to count with.
 */
int ipcc_kernel_validate(const struct ipcc_kernel *k, uint64_t size,
			 struct ipcc_kernel_check checks[IPCC_KERNEL_NCHECKS]);

/*
 * Run kernel k once for `iterations`, set up as for a measurement (for tools that count its
 * instructions some other way). Returns the kernel's result value.
 */
int ipcc_kernel_call(const struct ipcc_kernel *k, uint64_t iterations, uint64_t size);

/*
 * Where kernel k's code is: its entry point, and the address range that holds it and
 * anything it calls (for tools that count its instructions by single-stepping).
 */
void ipcc_kernel_code(const struct ipcc_kernel *k, const void **entry, const void **start,
		      const void **end);

#endif
