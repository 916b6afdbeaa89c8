/*
 * clock.h - the time counter: nanoseconds with known units, read in a few cycles.
 *
 * The time counter is the CPU's constant-rate tick counter (the TSC on x86-64, the generic
 * timer's cntvct_el0 on arm64) scaled to nanoseconds. Its raw rate is TCFREQ, in kHz;
 * ipcc_tcfreq_khz() says what it is and where that figure came from. The scaling is a
 * precomputed 64.64 fixed-point multiply (ns per tick), so ipcc_now_ns() is one counter read,
 * two multiplies and an add: no division, no system call, no branch.
 *
 * Time never goes backwards: the conversion is fixed once initialised and is monotonic in
 * the tick count, and the kernel keeps the tick counters of all CPUs in step (checked by
 * ipcc_clock_cross_core()). One caution across threads: rdtsc is not ordered against
 * earlier loads, so a plain read right after a synchronisation (seeing a flag, taking a
 * lock) can execute before the synchronising load completes and return a time earlier than
 * the other thread's read before it. Where that order matters, read with
 * ipcc_now_ns_ordered() (lfence first; about twice the cost).
 *
 * Initialisation finds TCFREQ; it is explicit (ipcc_clock_init()), idempotent and
 * thread-safe, and it also runs by itself when a program that uses the time counter starts
 * (a constructor in the library) and on first use of any non-inline function here. It never
 * prints. Everything returned here lives in caller storage; nothing needs freeing.
 *
 * Where TCFREQ has to be calibrated (no exact source: many guests), the figure is kept for
 * the rest of the boot in a cache file ($IPCC_CACHE_DIR, else $XDG_CACHE_HOME/ipcc, else
 * ~/.cache/ipcc; IPCC_CACHE_DIR=off keeps none), keyed by the boot id and the CPU's
 * signature, so that only the first process of a boot pays the ~10 ms (source "cached").
 *
 * A program that must choose when the search happens (ipcc stat calibrates while the
 * measured command runs) defines
 *     const int ipcc_clock_manual_init = 1;
 * and calls ipcc_clock_init() before its first ipcc_now_ns(). Raw ticks need no
 * initialisation.
 */
#ifndef IPCC_CLOCK_H
#define IPCC_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* Where a frequency figure came from. */
enum ipcc_freq_source {
	IPCC_FREQ_NONE = 0,   /* not known */
	IPCC_FREQ_PERF_PAGE,  /* perf mmap page time_mult/time_shift (cap_user_time) */
	IPCC_FREQ_CPUID_15H,  /* CPUID leaf 0x15: crystal clock x TSC ratio */
	IPCC_FREQ_CPUID_16H,  /* CPUID leaf 0x16: base frequency, whole MHz */
	IPCC_FREQ_HYPERVISOR, /* CPUID leaf 0x40000010: TSC kHz stated by the hypervisor */
	IPCC_FREQ_CNTFRQ,     /* arm64 cntfrq_el0 */
	IPCC_FREQ_CALIBRATED, /* timed against CLOCK_MONOTONIC_RAW */
	IPCC_FREQ_PMU_CYCLES, /* core: cycles / reference cycles from the PMU */
	IPCC_FREQ_ADD_CHAIN,  /* core: a chain of dependent adds timed by the time counter */
	IPCC_FREQ_CACHED      /* calibrated earlier in this boot, on this CPU (the cache file) */
};

/* A frequency, with its provenance. */
struct ipcc_freq {
	uint64_t khz; /* rounded to the nearest kHz; 0 only when unknown */
	double hz;    /* the unrounded estimate */
	enum ipcc_freq_source source;
	double ppm;	  /* uncertainty of the figure, parts per million */
	uint64_t cost_ns; /* how long finding the figure took */
	/*
	 * Core frequency from the add chain: the same figure from a chain of another latency
	 * class (imul, 3 cycles), in Hz; 0 where it was not cross-checked (the PMU's figure,
	 * arm64).
	 */
	double check_hz;
};

/* Whether a core frequency's cross-check disagrees with it by more than 2%. */
bool ipcc_freq_disagrees(const struct ipcc_freq *f);

/* A short stable name for a source, e.g. "cpuid-15h", "calibrated". */
const char *ipcc_freq_source_name(enum ipcc_freq_source source);

/* A one-line description of a source, for people. */
const char *ipcc_freq_source_text(enum ipcc_freq_source source);

/*
 * ns per tick as a 64.64 fixed-point number: ns = t * whole + (t * frac) / 2^64.
 * For every 64-bit tick count the result is the exact quotient rounded down, or 1 ns less.
 */
struct ipcc_tc_conv {
	uint64_t whole;
	uint64_t frac;
};

/* The process-wide conversion, set once by initialisation. Read it only through the inlines. */
extern struct ipcc_tc_conv ipcc_clock_conv;

/* Set `conv` to num/den ns per tick, rounded down to 2^-64 ns. IPCC_EINVAL if den is 0. */
int ipcc_tc_conv_init(struct ipcc_tc_conv *conv, uint64_t num, uint64_t den);

__extension__ typedef unsigned __int128 ipcc_u128;

/* ticks -> ns with an explicit conversion. */
static inline uint64_t ipcc_tc_conv_ns(const struct ipcc_tc_conv *conv, uint64_t ticks)
{
	return ticks * conv->whole + (uint64_t)(((ipcc_u128)ticks * conv->frac) >> 64);
}

#if defined(__x86_64__)
/* The raw tick counter (rdtsc). Not ordered against earlier instructions. */
static inline uint64_t ipcc_ticks(void)
{
	return __builtin_ia32_rdtsc();
}

/* The raw tick counter, read after every earlier instruction has completed (lfence; rdtsc). */
static inline uint64_t ipcc_ticks_ordered(void)
{
	__builtin_ia32_lfence();
	return __builtin_ia32_rdtsc();
}
#elif defined(__aarch64__)
static inline uint64_t ipcc_ticks(void)
{
	uint64_t t;

	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(t));
	return t;
}

static inline uint64_t ipcc_ticks_ordered(void)
{
	uint64_t t;

	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(t)::"memory");
	return t;
}
#else
#error "ipcc: the time counter supports x86-64 and arm64 only"
#endif

/* ticks -> ns with the process-wide conversion. */
static inline uint64_t ipcc_ticks_to_ns(uint64_t ticks)
{
	return ipcc_tc_conv_ns(&ipcc_clock_conv, ticks);
}

/* Nanoseconds since the tick counter's zero (usually boot). Only differences are meaningful. */
static inline uint64_t ipcc_now_ns(void)
{
	return ipcc_ticks_to_ns(ipcc_ticks());
}

/* Nanoseconds, read after every earlier instruction has completed (lfence; rdtsc). */
static inline uint64_t ipcc_now_ns_ordered(void)
{
	return ipcc_ticks_to_ns(ipcc_ticks_ordered());
}

/*
 * Find TCFREQ and set the conversion. Returns 0, or a negative IPCC_E* code when no
 * source worked (the time counter then reads 0 ns). Idempotent and thread-safe: the work
 * is done once and later calls return the first call's result.
 */
int ipcc_clock_init(void);

/*
 * Initialise only if that needs no waiting (an exact source, or a figure cached in this
 * boot): 0 when the clock is ready, IPCC_ENOTSUP when only a calibration would do (then
 * ipcc_clock_init() calibrates).
 */
int ipcc_clock_init_quick(void);

/* Make the coming initialisation calibrate afresh, ignoring the cache (ipcc calibrate). */
void ipcc_clock_fresh(void);

/*
 * TCFREQ in kHz (0 if unknown). If `detail` is not NULL it receives the full figure:
 * source, unrounded Hz, uncertainty and the time that finding it took.
 */
uint64_t ipcc_tcfreq_khz(struct ipcc_freq *detail);

/*
 * The core's frequency now, in kHz (0 if it could not be measured): cycles / reference
 * cycles from the PMU when there is one, otherwise a chain of dependent register-register
 * adds timed by the time counter, cross-checked by a chain of imuls (detail->check_hz; see
 * ipcc_freq_disagrees). Measures afresh on every call; costs about 100 microseconds.
 */
uint64_t ipcc_corefreq_khz(struct ipcc_freq *detail);

/* What the kernel says about the tick counter. */
struct ipcc_clock_props {
	bool known;    /* the flags below could be read */
	bool constant; /* ticks at a fixed rate whatever the core frequency (constant_tsc) */
	bool nonstop;  /* keeps ticking in deep idle states (nonstop_tsc) */
};

int ipcc_clock_props(struct ipcc_clock_props *props);

/*
 * Cross-core check: two threads pinned to different CPUs pass a token back and forth
 * `handoffs` times. Each reads the time counter just before handing the token over and
 * just after receiving it (ordered: after the load that saw the token); a receive time
 * earlier than its send time is a backwards step.
 */
struct ipcc_cross_core {
	int cpu[2];	       /* the two CPUs used */
	uint64_t trials;       /* hand-offs completed */
	uint64_t backwards;    /* hand-offs whose receive time was before the send time */
	int64_t min_gap_ticks; /* the smallest receive - send, in ticks (negative if backwards) */
	int64_t min_gap_ns;    /* the same in ns */
};

/*
 * Run the cross-core check on the first two CPUs this thread may run on. IPCC_ENOTSUP
 * when it may run on only one; IPCC_ETIMEOUT (with the partial result filled in) when the
 * hand-offs take longer than `timeout_ms`.
 */
int ipcc_clock_cross_core(uint64_t handoffs, unsigned timeout_ms, struct ipcc_cross_core *out);

/* The ways of reading time that ipcc_clock_read_costs() compares. */
enum ipcc_read_method {
	IPCC_READ_TICKS,	 /* rdtsc | cntvct_el0 */
	IPCC_READ_TICKS_P,	 /* rdtscp | (none on arm64) */
	IPCC_READ_TICKS_ORDERED, /* lfence; rdtsc | isb; cntvct_el0 */
	IPCC_READ_NOW_NS,	 /* ipcc_now_ns() */
	IPCC_READ_MONOTONIC,	 /* clock_gettime(CLOCK_MONOTONIC) */
	IPCC_READ_MONOTONIC_RAW, /* clock_gettime(CLOCK_MONOTONIC_RAW) */
	IPCC_READ_PERF_READ,	 /* read() of a task-clock perf event */
	IPCC_READ_NMETHODS
};

/* The cost of one read, over many batches of back-to-back reads. */
struct ipcc_read_cost {
	const char *key;     /* a stable identifier, e.g. "rdtsc", "clock_monotonic" */
	const char *name;    /* for people, e.g. "clock_gettime(CLOCK_MONOTONIC)" */
	bool valid;	     /* false: not available here, see `why` */
	char why[96];	     /* why the method could not be measured */
	double ticks_median; /* ticks per read: median over batches */
	double ticks_p10;    /* 10th percentile */
	double ticks_p90;    /* 90th percentile */
	double ns_median;    /* the median in ns */
};

/*
 * Measure every method side by side: `batches` rounds, each timing one batch of `per_batch`
 * back-to-back reads of every method in turn, minus the cost of timing an empty batch.
 */
int ipcc_clock_read_costs(unsigned batches, unsigned per_batch,
			  struct ipcc_read_cost costs[IPCC_READ_NMETHODS]);

#endif
