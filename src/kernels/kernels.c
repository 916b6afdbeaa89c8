/*
 * kernels.c - the microkernel registry, their working sets, and the measurement loop
 * (docs/internals/bench.md).
 */
#include <cpuid.h>
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "error_int.h"
#include "clock/clock_int.h"
#include "ipcc/clock.h"
#include "ipcc/counters.h"
#include "ipcc/kernels.h"
#include "kernels_int.h"

/* ---- the registry ---------------------------------------------------------------------- */

enum arg_kind {
	ARG_NONE,    /* no argument */
	ARG_SELF,    /* a word holding its own address */
	ARG_CHASE,   /* a random cyclic permutation of cache lines of `size` bytes */
	ARG_PAGES,   /* ... of one line in each page of `size` bytes (pattern: where) */
	ARG_ARRAYS,  /* three arrays of size/3 bytes each */
	ARG_PATTERN, /* a branch pattern */
	ARG_ZERO,    /* 32 bytes of 0.0 */
	ARG_WORD     /* a word to lock-add to */
};

enum figure {
	FIG_CYCLES_PER_OP, /* cycles per iteration / ops */
	FIG_NS_PER_OP,	   /* ns per iteration / ops */
	FIG_GBS,	   /* bytes per iteration x threads / ns */
	FIG_PENALTY,	   /* (this - branch.always) cycles per misprediction */
	FIG_PEAK,	   /* ops / (cycles x 2 FMA pipes) */
	FIG_OPS_PER_CYCLE  /* ops / cycles per iteration */
};

struct kdef {
	struct ipcc_kernel pub;
	uint64_t (*fn)(uint64_t n, void *arg);
	enum arg_kind arg;
	int pattern; /* ARG_PATTERN: 0 always taken, 1 alternating, 2 random; ARG_PAGES: 0 the
		      * lines spread over the page's 64, 1 each at its page's start */
	enum figure figure;
	double ops; /* per iteration, for the figure: adds, loads, bytes, FMAs, ... */
	uint64_t default_size;
	const void *start, *end; /* code range; NULL: the .S file's */
};

#define N NAN
#define EXPECT(i, l, s, b, m)           \
	{                               \
		(i), (l), (s), (b), (m) \
	}
#define SIMPLE(nm, fn_, purpose, unit, expect, fig, ops_)                                        \
	{                                                                                        \
		{ nm, purpose, unit, false, false, false, expect, NULL }, fn_, ARG_NONE, 0, fig, \
		    ops_, 0, NULL, NULL                                                          \
	}

#define FMA(k, u)                                                               \
	{                                                                       \
		{ "fma." #k "." #u,                                             \
		  #k " independent FMA chains, unrolled " #u " times",          \
		  "fraction of peak",                                           \
		  false,                                                        \
		  false,                                                        \
		  true,                                                         \
		  EXPECT(k * u + 2, k * u, 0, 1, 0),                            \
		  NULL },                                                       \
		    k_fma_##k##_##u, ARG_ZERO, 0, FIG_PEAK, k *u, 0, NULL, NULL \
	}

#define SKID(nm, fn_, text, insns, loads)                                                   \
	{                                                                                   \
		{ "skid." nm,                                                               \
		  "interrupt placement: ten of this body per iteration",                    \
		  "cycles/iteration",                                                       \
		  false,                                                                    \
		  false,                                                                    \
		  true,                                                                     \
		  EXPECT(insns, loads, N, 1, 0),                                            \
		  text },                                                                   \
		    fn_, ARG_SELF, 0, FIG_CYCLES_PER_OP, 1, 0, (const void *)fn_, fn_##_end \
	}

static const struct kdef kernels[] = {
	SIMPLE("empty", k_empty, "loop control alone: what every loop pays", "cycles/iteration",
	       EXPECT(2, 0, 0, 1, 0), FIG_CYCLES_PER_OP, 1),
	SIMPLE("chain.add", k_chain_add, "8 dependent register adds: one cycle each, on every core",
	       "cycles/add", EXPECT(10, 0, 0, 1, 0), FIG_CYCLES_PER_OP, 8),
	SIMPLE("chain.add_imm", k_chain_add_imm,
	       "8 dependent adds of an immediate: above 1 where the renamer folds them",
	       "adds/cycle", EXPECT(10, 0, 0, 1, 0), FIG_OPS_PER_CYCLE, 8),
	SIMPLE("chain.mul", k_chain_mul, "8 dependent multiplies: multiply latency",
	       "cycles/multiply", EXPECT(10, 0, 0, 1, 0), FIG_CYCLES_PER_OP, 8),
	SIMPLE("chain.fadd", k_chain_fadd, "8 dependent scalar FP adds: FP add latency",
	       "cycles/add", EXPECT(10, 0, 0, 1, 0), FIG_CYCLES_PER_OP, 8),
	SIMPLE("chain.fmul", k_chain_fmul, "8 dependent scalar FP multiplies: FP multiply latency",
	       "cycles/multiply", EXPECT(10, 0, 0, 1, 0), FIG_CYCLES_PER_OP, 8),
	SIMPLE("chain.fmuladd", k_chain_fmuladd,
	       "4 dependent FP multiply-add pairs: both latencies and the wait between the units",
	       "cycles/pair", EXPECT(10, 0, 0, 1, 0), FIG_CYCLES_PER_OP, 4),
	{ { "chain.load", "8 dependent loads of a word that points to itself: L1 hit latency",
	    "cycles/load", false, false, false, EXPECT(10, 8, 0, 1, 0), NULL },
	  k_chase,
	  ARG_SELF,
	  0,
	  FIG_CYCLES_PER_OP,
	  8,
	  0,
	  NULL,
	  NULL },
	{ { "latency", "pointer chase over a random cyclic permutation of cache lines", "ns/load",
	    true, false, false, EXPECT(10, 8, 0, 1, 0), NULL },
	  k_chase,
	  ARG_CHASE,
	  0,
	  FIG_NS_PER_OP,
	  8,
	  64 << 20,
	  NULL,
	  NULL },
	/*
	 * The TLBs (ipcc bench --fit-profile): one line a page, spread over the lines of a page
	 * so that the lines stay in L1 or L2 while the pages outrun the TLBs; and every line at
	 * its page's start, where a few sets of L1 and L2 hold them all, so that the LLC serves
	 * (pages within the second-level TLB's reach).
	 */
	{ { "pages.spread", "pointer chase over one line a page, the lines spread over L1's sets",
	    "ns/load", true, false, false, EXPECT(10, 8, 0, 1, 0), NULL },
	  k_chase,
	  ARG_PAGES,
	  0,
	  FIG_NS_PER_OP,
	  8,
	  16 << 20,
	  NULL,
	  NULL },
	{ { "pages.start",
	    "pointer chase over the first line of each page: L1 and L2 sets conflict", "ns/load",
	    true, false, false, EXPECT(10, 8, 0, 1, 0), NULL },
	  k_chase,
	  ARG_PAGES,
	  1,
	  FIG_NS_PER_OP,
	  8,
	  4 << 20,
	  NULL,
	  NULL },
	{ { "bandwidth.load", "read one array: x += b[i]", "GB/s", true, true, false,
	    EXPECT(4, 1, 0, 1, 0), NULL },
	  k_load,
	  ARG_ARRAYS,
	  0,
	  FIG_GBS,
	  16,
	  96 << 20,
	  NULL,
	  NULL },
	{ { "bandwidth.copy", "a[i] = b[i]", "GB/s", true, true, false, EXPECT(5, 1, 1, 1, 0),
	    NULL },
	  k_copy,
	  ARG_ARRAYS,
	  0,
	  FIG_GBS,
	  32,
	  96 << 20,
	  NULL,
	  NULL },
	{ { "bandwidth.triad", "a[i] = b[i] + s*c[i]", "GB/s", true, true, false,
	    EXPECT(19, 8, 4, 1, 0), NULL },
	  k_triad,
	  ARG_ARRAYS,
	  0,
	  FIG_GBS,
	  192,
	  96 << 20,
	  NULL,
	  NULL },
	{ { "bandwidth.triad_nt", "triad with non-temporal (streaming) stores", "GB/s", true, true,
	    false, EXPECT(19, 8, 4, 1, 0), NULL },
	  k_triad_nt,
	  ARG_ARRAYS,
	  0,
	  FIG_GBS,
	  192,
	  96 << 20,
	  NULL,
	  NULL },
	{ { "branch.always", "a conditional branch always taken", "cycles/iteration", false, false,
	    false, EXPECT(7, 1, 0, 2, 0), NULL },
	  k_branch,
	  ARG_PATTERN,
	  0,
	  FIG_CYCLES_PER_OP,
	  1,
	  0,
	  NULL,
	  NULL },
	{ { "branch.alternate", "taken, not taken, taken, ...", "cycles/iteration", false, false,
	    false, EXPECT(7.5, 1, 0, 2, 0), NULL },
	  k_branch,
	  ARG_PATTERN,
	  1,
	  FIG_CYCLES_PER_OP,
	  1,
	  0,
	  NULL,
	  NULL },
	{ { "branch.random", "taken at random, half the time: the misprediction penalty",
	    "cycles/mispredict", false, false, false, EXPECT(7.5, 1, 0, 2, N), NULL },
	  k_branch,
	  ARG_PATTERN,
	  2,
	  FIG_PENALTY,
	  0.5,
	  0,
	  NULL,
	  NULL },
	SIMPLE("call.direct", k_call_direct, "a chain of 4 direct calls and returns", "cycles/call",
	       EXPECT(10, N, N, 9, 0), FIG_CYCLES_PER_OP, 4),
	SIMPLE("call.pointer", k_call_pointer, "a call through a function pointer", "cycles/call",
	       EXPECT(4, N, N, 3, 0), FIG_CYCLES_PER_OP, 1),
	FMA(1, 1),
	FMA(1, 2),
	FMA(1, 4),
	FMA(2, 1),
	FMA(2, 2),
	FMA(2, 4),
	FMA(4, 1),
	FMA(4, 2),
	FMA(4, 4),
	FMA(6, 1),
	FMA(6, 2),
	FMA(6, 4),
	FMA(8, 1),
	FMA(8, 2),
	FMA(8, 4),
	FMA(10, 1),
	FMA(10, 2),
	FMA(10, 4),
	FMA(12, 1),
	FMA(12, 2),
	FMA(12, 4),
	FMA(16, 1),
	FMA(16, 2),
	FMA(16, 4),
	{ { "atomic.lock_add", "lock add to memory, alone", "cycles/lock add", false, false, false,
	    EXPECT(3, N, N, 1, 0), NULL },
	  k_lock_add,
	  ARG_WORD,
	  0,
	  FIG_CYCLES_PER_OP,
	  1,
	  0,
	  NULL,
	  NULL },
	{ { "atomic.lock_add_vpmulld",
	    "lock add beside a dependent vpmulld pair (execute at retire)", "cycles/iteration",
	    false, false, true, EXPECT(5, N, N, 1, 0), NULL },
	  k_lock_add_vpmulld,
	  ARG_WORD,
	  0,
	  FIG_CYCLES_PER_OP,
	  1,
	  0,
	  NULL,
	  NULL },
	SKID("mov_imm", k_skid_mov_imm, skid_mov_imm, 82, 0),
	SKID("adds", k_skid_adds, skid_adds, 42, 0),
	SKID("load_nops", k_skid_load_nops, skid_load_nops, 112, 10),
	SKID("load_nops_add", k_skid_load_nops_add, skid_load_nops_add, 72, 10),
	SKID("vpmulld_lock", k_skid_vpmulld_lock, skid_vpmulld_lock, 32, N),
};

#define NKERNELS (sizeof(kernels) / sizeof(kernels[0]))

unsigned ipcc_kernel_count(void)
{
	return NKERNELS;
}

const struct ipcc_kernel *ipcc_kernel_at(unsigned i)
{
	return i < NKERNELS ? &kernels[i].pub : NULL;
}

const struct ipcc_kernel *ipcc_kernel_find(const char *name)
{
	for (unsigned i = 0; i < NKERNELS; i++)
		if (!strcmp(kernels[i].pub.name, name))
			return &kernels[i].pub;
	return NULL;
}

static const struct kdef *def(const struct ipcc_kernel *k)
{
	return (const struct kdef *)k; /* pub is the first member */
}

void ipcc_kernel_code(const struct ipcc_kernel *k, const void **entry, const void **start,
		      const void **end)
{
	const struct kdef *d = def(k);

	*entry = (const void *)d->fn;
	*start = d->start ? d->start : (const void *)ipcc_kernels_start;
	*end = d->end ? d->end : (const void *)ipcc_kernels_end;
}

static bool probe_avx2_fma(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_FMA) || !(c & bit_OSXSAVE))
		return false;
	if (__get_cpuid_max(0, NULL) < 7)
		return false;
	__cpuid_count(7, 0, a, b, c, d);
	return b & bit_AVX2;
}

/*
 * Asked once: in a guest, cpuid traps to the hypervisor, and a timer interrupt that falls in
 * that exit is taken on the cpuid. Asked on every kernel call, it drew 3-5% of the skid
 * kernels' samples away from their loops.
 */
static bool have_avx2_fma(void)
{
	static _Atomic int known; /* 0: not asked yet, 1: no, 2: yes */
	int v = atomic_load_explicit(&known, memory_order_relaxed);

	if (!v) {
		v = probe_avx2_fma() ? 2 : 1;
		atomic_store_explicit(&known, v, memory_order_relaxed);
	}
	return v == 2;
}

/* ---- working sets ---------------------------------------------------------------------- */

struct arrays {
	double *a, *b, *c;
	double s;
};

struct pattern {
	uint8_t *bytes;
	uint64_t mask;
	uint64_t next; /* where the next run starts: each run goes on where the last stopped */
};

struct work {
	void *arg; /* what the kernel gets in rsi */
	void *mem; /* what to release */
	size_t mem_len;
	uint64_t per_call; /* iterations of one pass over the working set (0: any) */
	struct arrays arrays;
	struct pattern pattern;
	void *self[8] __attribute__((aligned(64)));
	double zero[4] __attribute__((aligned(32)));
};

static void *big_alloc(size_t len, bool huge)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	return p;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int work_init(struct work *w, const struct kdef *d, uint64_t size, bool huge)
{
	uint64_t seed = 0x2545f4914f6cdd1dull;

	memset(w, 0, sizeof(*w));
	switch (d->arg) {
	case ARG_NONE:
		return 0;
	case ARG_SELF:
		w->self[0] = &w->self[0];
		w->arg = &w->self[0];
		return 0;
	case ARG_WORD:
		w->arg = &w->self[0];
		return 0;
	case ARG_ZERO:
		w->arg = w->zero;
		return 0;
	case ARG_CHASE:
	case ARG_PAGES: {
		/* Lines (ARG_CHASE) or pages (ARG_PAGES), each holding one pointer. */
		uint64_t stride = d->arg == ARG_PAGES ? 4096 : 64, lines = size / stride, *order;
		char *mem;

		/* A chase of one page is a word that points to itself; of one line, too short. */
		uint64_t least = d->arg == ARG_PAGES ? 1 : 2;

		if (lines < least)
			return err_set(IPCC_EINVAL, "%s needs at least %llu bytes, not %llu",
				       d->pub.name, (unsigned long long)(least * stride),
				       (unsigned long long)size);
		/* Pages of 4 KiB: a huge page would hold 512 of them in one TLB entry. */
		mem = big_alloc(lines * stride, huge && d->arg == ARG_CHASE);
		order = malloc(lines * sizeof(*order));
		if (!mem || !order) {
			free(order);
			if (mem)
				munmap(mem, lines * stride);
			return err_set(IPCC_ENOMEM, "latency: cannot allocate %llu bytes",
				       (unsigned long long)size);
		}
		/* Sattolo's shuffle: one cycle through every line, in random order, so neither
		 * the prefetchers nor a short cycle can help. */
		for (uint64_t i = 0; i < lines; i++)
			order[i] = i;
		for (uint64_t i = lines - 1; i > 0; i--) {
			uint64_t j = xorshift(&seed) % i, t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
		/* Where in its line or page each pointer is: a page's line (p * 17) % 64, a
		 * walk over all 64, or its first. */
#define AT(k) (mem + (k)*stride + (d->arg == ARG_PAGES && d->pattern == 0 ? ((k)*17 % 64) * 64 : 0))
		for (uint64_t i = 0; i < lines; i++)
			*(void **)AT(order[i]) = AT(order[(i + 1) % lines]);
		w->self[0] = AT(order[0]);
#undef AT
		free(order);
		w->arg = &w->self[0];
		w->mem = mem;
		w->mem_len = lines * stride;
		return 0;
	}
	case ARG_ARRAYS: {
		uint64_t each = (size / 3) & ~(uint64_t)63;
		char *mem;

		if (each < 64)
			return err_set(IPCC_EINVAL, "%s needs at least 192 bytes, not %llu",
				       d->pub.name, (unsigned long long)size);
		mem = big_alloc(3 * each, huge);
		if (!mem)
			return err_set(IPCC_ENOMEM, "%s: cannot allocate %llu bytes", d->pub.name,
				       (unsigned long long)size);
		memset(mem, 0, 3 * each); /* touch every page before timing */
		w->arrays = (struct arrays){ (double *)mem, (double *)(mem + each),
					     (double *)(mem + 2 * each), 1.5 };
		w->arg = &w->arrays;
		w->mem = mem;
		w->mem_len = 3 * each;
		/* iterations of one pass: triad takes a cache line of each stream at a time */
		w->per_call = each / (d->fn == k_triad || d->fn == k_triad_nt ? 64 : 16);
		return 0;
	}
	case ARG_PATTERN: {
		/* Long enough that no predictor learns the "random" one by heart (a 4 KiB pattern
		 * was learned on Zen 3: 1.6 cycles "per misprediction"); read in order, so the
		 * prefetchers keep it close. Each run goes on where the last one stopped: runs
		 * that each replayed the pattern's first 50 000 bytes let Zen 5 learn them (7
		 * cycles an iteration where 13 is right). */
		const uint64_t len = 1 << 20;
		uint8_t *p = malloc(len);

		if (!p)
			return err_set(IPCC_ENOMEM, "branch: out of memory");
		for (uint64_t i = 0; i < len; i++)
			p[i] = d->pattern == 0 ? 0 : d->pattern == 1 ? (uint8_t)(i & 1) : 0;
		if (d->pattern == 2) { /* exactly half taken, in random order */
			for (uint64_t i = 0; i < len; i++)
				p[i] = i < len / 2;
			for (uint64_t i = len - 1; i > 0; i--) {
				uint64_t j = xorshift(&seed) % (i + 1);
				uint8_t t = p[i];

				p[i] = p[j];
				p[j] = t;
			}
		}
		w->pattern = (struct pattern){ p, len - 1, 0 };
		w->arg = &w->pattern;
		w->mem = p;
		return 0;
	}
	}
	return 0;
}

static void work_release(struct work *w, const struct kdef *d)
{
	if (d->arg == ARG_PATTERN)
		free(w->mem);
	else if (w->mem)
		munmap(w->mem, w->mem_len);
}

int ipcc_kernel_call(const struct ipcc_kernel *k, uint64_t iterations, uint64_t size)
{
	const struct kdef *d = def(k);
	struct work w;
	int ret;

	if (k->needs_avx2_fma && !have_avx2_fma())
		return err_set(IPCC_ENOTSUP, "%s needs AVX2 and FMA", k->name);
	ret = work_init(&w, d, size ? size : (d->default_size ? d->default_size : 4096), false);
	if (ret)
		return ret;
	if (w.per_call && iterations > w.per_call)
		iterations = w.per_call;
	d->fn(iterations, w.arg);
	work_release(&w, d);
	return 0;
}

/* ---- measuring ------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Ticks for `calls` calls of fn(n, arg), ordered reads around them. */
static uint64_t timed(const struct kdef *d, uint64_t n, void *arg, uint64_t calls)
{
	uint64_t t0 = ipcc_ticks_ordered();

	for (uint64_t c = 0; c < calls; c++)
		d->fn(n, arg);
	return ipcc_ticks_ordered() - t0;
}

/* The fixed cost of one timed call: an empty kernel of one iteration, the median of many. */
static double fixed_cost_ticks(void)
{
	static double cost = -1;
	double t[101];

	if (cost >= 0)
		return cost;
	for (int i = 0; i < 101; i++)
		t[i] = (double)timed(&kernels[0], 1, NULL, 1);
	qsort(t, 101, sizeof(t[0]), cmp_double);
	cost = t[50];
	return cost;
}

struct thread_run {
	const struct kdef *d;
	struct work *w;
	uint64_t n, calls;
	int cpu;
	pthread_barrier_t *go;
	uint64_t ticks;
};

static void *thread_body(void *p)
{
	struct thread_run *t = p;

	pthread_barrier_wait(t->go);
	t->ticks = timed(t->d, t->n, t->w->arg, t->calls);
	return NULL;
}

/* ns per iteration of one measurement: one thread, or the slowest of several at once. */
static double measure_once(const struct kdef *d, struct work *w, unsigned nthreads, uint64_t n,
			   uint64_t calls, double hz)
{
	double fixed = fixed_cost_ticks() * (double)calls;

	if (nthreads <= 1) {
		double t = (double)timed(d, n, w[0].arg, calls) - fixed;

		return (t > 0 ? t : 0) / hz * 1e9 / (double)(n * calls);
	}
	{
		pthread_t thr[64];
		struct thread_run run[64];
		pthread_barrier_t go;
		uint64_t worst = 0;

		pthread_barrier_init(&go, NULL, nthreads);
		for (unsigned i = 0; i < nthreads; i++) {
			pthread_attr_t attr;
			cpu_set_t set;

			run[i] = (struct thread_run){ d, &w[i], n, calls, (int)i, &go, 0 };
			pthread_attr_init(&attr);
			CPU_ZERO(&set);
			CPU_SET(i, &set);
			pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
			pthread_create(&thr[i], &attr, thread_body, &run[i]);
			pthread_attr_destroy(&attr);
		}
		for (unsigned i = 0; i < nthreads; i++) {
			pthread_join(thr[i], NULL);
			if (run[i].ticks > worst)
				worst = run[i].ticks;
		}
		pthread_barrier_destroy(&go);
		return ((double)worst - fixed) / hz * 1e9 / (double)(n * calls);
	}
}

/* Involuntary context switches of this thread so far: a measurement preempted in between. */
static long preemptions(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nivcsw : 0;
}

/*
 * Median over reps of measure_once; more reps while the spread is over 2% (up to 31). With
 * core_khz 0, the core frequency is measured between every two reps (the add chain, or PMU
 * cycles), and each rep's cycles use the mean of the figures before and after it: a core that
 * changes its clock between reps cannot skew them (the higher of the two figures: a disturbed
 * chain errs low). A single-thread rep during which this
 * thread was preempted is taken again (up to four tries per rep; then it stands).
 */
static void measure(const struct kdef *d, struct work *w, unsigned nthreads, unsigned repeat,
		    double hz, uint64_t core_khz, struct ipcc_bench_point *out)
{
	double t[31], cyc[31], khz[31];
	uint64_t n = w[0].per_call ? w[0].per_call : 1024, calls = 1;
	unsigned reps = 0, tries = 0, want = repeat ? (repeat > 31 ? 31 : repeat) : 7;
	struct ipcc_freq before = { 0 }, after = { 0 };

	/*
	 * Enough work per measurement for ~200 us: the fixed cost is then negligible, and the
	 * median measurement is an undisturbed one. (On a Zen 5 guest, runs of 2 ms took 3-5%
	 * longer per add than runs of 200 us and than the frequency chain around them:
	 * interrupts, a busy SMT sibling or a clock that sags; no PMU there to tell which.)
	 */
	for (;;) {
		double ns = measure_once(d, w, 1, n, calls, hz) * (double)(n * calls);

		if (ns >= 2e5 || n * calls > (1ull << 36))
			break;
		if (w[0].per_call)
			calls *= 2;
		else
			n *= 2;
	}
	measure_once(d, w, nthreads, n, calls, hz); /* warm-up at the final size */
	if (!core_khz)
		clock_corefreq(&before, false);
	for (;;) {
		while (reps < want) {
			long p0 = preemptions();
			double ns = measure_once(d, w, nthreads, n, calls, hz),
			       k = (double)core_khz;
			bool preempted = nthreads <= 1 && preemptions() != p0;

			if (!core_khz) {
				clock_corefreq(&after, false);
				/*
				 * The higher of the two: a disturbed chain only takes longer, so it
				 * errs low, and a low figure would make the best run look short.
				 */
				k = (before.hz > after.hz ? before.hz : after.hz) / 1e3;
				before = after;
			}
			if (preempted && ++tries < 4 * want)
				continue;
			t[reps] = ns;
			khz[reps] = k;
			cyc[reps++] = ns * k / 1e6;
		}
		qsort(t, reps, sizeof(t[0]), cmp_double);
		qsort(cyc, reps, sizeof(cyc[0]), cmp_double);
		qsort(khz, reps, sizeof(khz[0]), cmp_double);
		out->ns_per_iter = t[reps / 2];
		out->cycles_per_iter = cyc[reps / 2];
		out->cycles_best = cyc[0];
		out->ns_best = t[0];
		out->core_khz = khz[reps / 2];
		out->spread = out->ns_per_iter > 0
				  ? (t[(reps - 1) * 9 / 10] - t[(reps - 1) / 10]) / out->ns_per_iter
				  : 0;
		if (repeat || out->spread <= 0.02 || reps >= 31)
			break;
		want = reps + 6 > 31 ? 31 : reps + 6;
	}
	out->reps = reps;
	out->iterations = n * calls;
}

int ipcc_kernel_run(const struct ipcc_kernel *k, const struct ipcc_bench_opts *o, uint64_t core_khz,
		    struct ipcc_bench_point *out)
{
	const struct kdef *d = def(k);
	unsigned nthreads = o->threads ? o->threads : 1;
	uint64_t size = d->pub.sized ? (o->size ? o->size : d->default_size) : 0;
	struct work w[64];
	double hz;
	int ret = ipcc_clock_init();
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	memset(out, 0, sizeof(*out));
	if (ret)
		return ret;
	hz = (double)ipcc_tcfreq_khz(NULL) * 1000.0;
	if (k->needs_avx2_fma && !have_avx2_fma())
		return err_set(IPCC_ENOTSUP, "%s needs AVX2 and FMA, which this CPU lacks",
			       k->name);
	if (nthreads > 1 && !k->threaded)
		nthreads = 1;
	if (nthreads > 64 || (long)nthreads > ncpu)
		return err_set(IPCC_EINVAL, "%u threads, but %ld CPUs", nthreads, ncpu);
	for (unsigned i = 0; i < nthreads; i++) {
		ret = work_init(&w[i], d, size, o->huge);
		if (ret) {
			while (i--)
				work_release(&w[i], d);
			return ret;
		}
	}
	out->size_bytes = size;
	measure(d, w, nthreads, o->repeat, hz, core_khz, out);
	/* The figure is the best run's, as STREAM reports the best: a disturbance only adds. */
	switch (d->figure) {
	case FIG_CYCLES_PER_OP:
		out->value = out->cycles_best / d->ops;
		break;
	case FIG_OPS_PER_CYCLE:
		out->value = out->cycles_best > 0 ? d->ops / out->cycles_best : NAN;
		break;
	case FIG_NS_PER_OP:
		out->value = out->ns_best / d->ops;
		break;
	case FIG_GBS:
		out->value = out->ns_best > 0 ? d->ops * nthreads / out->ns_best : NAN;
		break;
	case FIG_PEAK:
		out->value = out->cycles_best > 0 ? d->ops / (out->cycles_best * 2) : NAN;
		break;
	case FIG_PENALTY: {
		/* The same loop with the branch always taken, measured now, is the reference. */
		struct ipcc_bench_point ref;

		ret = ipcc_kernel_run(ipcc_kernel_find("branch.always"), o, core_khz, &ref);
		out->value = ret ? NAN : (out->cycles_best - ref.cycles_best) / d->ops;
		ret = 0;
		break;
	}
	}
	for (unsigned i = 0; i < nthreads; i++)
		work_release(&w[i], d);
	return ret;
}

/* ---- validation ------------------------------------------------------------------------ */

int ipcc_kernel_validate(const struct ipcc_kernel *k, uint64_t size,
			 struct ipcc_kernel_check c[IPCC_KERNEL_NCHECKS])
{
	static const char *const extra[] = { "perf::PERF_COUNT_HW_BRANCH_INSTRUCTIONS",
					     "perf::PERF_COUNT_HW_BRANCH_MISSES" };
	struct ipcc_counters_opts o = { .backend = IPCC_BACKEND_PERF, .extra = extra, .nextra = 2 };
	const struct kdef *d = def(k);
	struct ipcc_counter_set *set;
	struct ipcc_reading a, b;
	struct ipcc_interval iv;
	struct work w;
	uint64_t n;
	int ret;

	memset(c, 0, sizeof(*c) * IPCC_KERNEL_NCHECKS);
	c[0] = (struct ipcc_kernel_check){ "instructions", NAN, k->expect.instructions };
	c[1] = (struct ipcc_kernel_check){ "branches", NAN, k->expect.branches };
	c[2] = (struct ipcc_kernel_check){ "mispredicts", NAN, k->expect.mispredicts };
	c[3] = (struct ipcc_kernel_check){ "loads", NAN, k->expect.loads };
	c[4] = (struct ipcc_kernel_check){ "stores", NAN, k->expect.stores };
	for (int i = 3; i < 5; i++)
		snprintf(
		    c[i].absent, sizeof(c[i].absent),
		    "no generic event counts retired %s; a recipe-specific one is not wired yet",
		    c[i].event);
	if (k->needs_avx2_fma && !have_avx2_fma())
		return err_set(IPCC_ENOTSUP, "%s needs AVX2 and FMA", k->name);
	ret = ipcc_counters_open(&o, &set);
	if (ret)
		return ret;
	ret = work_init(&w, d, d->pub.sized ? (size ? size : d->default_size) : 0, false);
	if (ret) {
		ipcc_counters_free(set);
		return ret;
	}
	n = w.per_call ? w.per_call : 1 << 20;
	d->fn(n, w.arg); /* warm-up */
	ipcc_read(set, &a);
	d->fn(n, w.arg);
	ipcc_read(set, &b);
	ipcc_interval(set, &a, &b, &iv);
	if (iv.valid & (1u << IPCC_INSTRUCTIONS))
		c[0].measured = (double)iv.value[IPCC_INSTRUCTIONS] / (double)n;
	else
		snprintf(c[0].absent, sizeof(c[0].absent), "%s",
			 ipcc_counters_absent(set, IPCC_INSTRUCTIONS));
	for (unsigned x = 0; x < 2; x++) {
		if (iv.extra_valid & (1u << x))
			c[1 + x].measured = (double)iv.extra[x] / (double)n;
		else
			snprintf(c[1 + x].absent, sizeof(c[1 + x].absent), "%s",
				 ipcc_counters_extra_absent(set, x)
				     ? ipcc_counters_extra_absent(set, x)
				     : "not counted");
	}
	for (int i = 0; i < IPCC_KERNEL_NCHECKS; i++) {
		c[i].ratio = c[i].expected > 0 ? c[i].measured / c[i].expected : NAN;
		c[i].pass =
		    !isnan(c[i].measured) && !isnan(c[i].expected) &&
		    (c[i].expected == 0 ? c[i].measured <= 0.01 : fabs(c[i].ratio - 1.0) <= 0.01);
	}
	work_release(&w, d);
	ipcc_counters_free(set);
	return 0;
}
