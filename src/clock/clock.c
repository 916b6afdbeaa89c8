/*
 * clock/clock.c - the time counter: finding TCFREQ, the tick -> ns conversion, the core frequency.
 *
 * TCFREQ comes from the first source that states it to within CLOCK_TARGET_PPM, tried in
 * this order: the perf mmap page (the kernel's own conversion, when cap_user_time is set),
 * the hardware (CPUID leaves 15h, 16h, 40000010h; cntfrq_el0), and last a calibration
 * against CLOCK_MONOTONIC_RAW. See docs/internals/clock.md.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock_int.h"
#include "error_int.h"
#include "perf_sys_int.h"

struct ipcc_tc_conv ipcc_clock_conv;

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic bool init_done;
static int init_result;
static bool fresh; /* calibrate even where the cache has a figure (ipcc calibrate) */
static struct ipcc_freq tcfreq;

static const struct {
	const char *name;
	const char *text;
} source_names[] = {
	[IPCC_FREQ_NONE] = { "none", "not known" },
	[IPCC_FREQ_PERF_PAGE] = { "perf-page", "the kernel's conversion in the perf mmap page" },
	[IPCC_FREQ_CPUID_15H] = { "cpuid-15h", "CPUID leaf 15h: crystal clock x TSC ratio" },
	[IPCC_FREQ_CPUID_16H] = { "cpuid-16h", "CPUID leaf 16h: base frequency" },
	[IPCC_FREQ_HYPERVISOR] = { "hypervisor", "CPUID leaf 40000010h from the hypervisor" },
	[IPCC_FREQ_CNTFRQ] = { "cntfrq", "the generic timer's cntfrq_el0" },
	[IPCC_FREQ_CALIBRATED] = { "calibrated", "calibrated against CLOCK_MONOTONIC_RAW" },
	[IPCC_FREQ_PMU_CYCLES] = { "pmu-cycles", "PMU cycles / reference cycles" },
	[IPCC_FREQ_ADD_CHAIN] = { "add-chain", "a chain of dependent adds, one per cycle" },
	[IPCC_FREQ_CACHED] = { "cached", "calibrated earlier in this boot (the cache file)" },
};

const char *ipcc_freq_source_name(enum ipcc_freq_source source)
{
	if ((unsigned)source >= sizeof(source_names) / sizeof(source_names[0]))
		return "unknown";
	return source_names[source].name;
}

const char *ipcc_freq_source_text(enum ipcc_freq_source source)
{
	if ((unsigned)source >= sizeof(source_names) / sizeof(source_names[0]))
		return "unknown";
	return source_names[source].text;
}

int ipcc_tc_conv_init(struct ipcc_tc_conv *conv, uint64_t num, uint64_t den)
{
	ipcc_u128 q;

	if (den == 0)
		return err_set(IPCC_EINVAL, "tick conversion with a zero denominator");
	/* num < 2^64, so num * 2^64 fits in 128 bits and the whole part of q in 64. */
	q = ((ipcc_u128)num << 64) / den;
	conv->whole = (uint64_t)(q >> 64);
	conv->frac = (uint64_t)q;
	return 0;
}

static uint64_t raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int clock_tcfreq_from_perf_page(const struct perf_event_mmap_page *page, struct ipcc_freq *out)
{
	const volatile struct perf_event_mmap_page *pg = page;
	uint32_t seq, mult;
	uint16_t shift;
	bool cap;

	/* The page's seqlock: retry while the kernel updates it under us. */
	do {
		seq = pg->lock;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		cap = pg->cap_user_time;
		mult = pg->time_mult;
		shift = pg->time_shift;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (pg->lock != seq || (seq & 1));

	if (!cap || !mult || shift > 63)
		return err_set(IPCC_ENOTSUP, "the perf page does not publish the TSC conversion "
					     "(cap_user_time is 0)");
	/* ns = cyc * mult >> shift, so ticks per second = 2^shift * 1e9 / mult. */
	out->hz = ldexp(1e9 / mult, shift);
	out->khz = (uint64_t)(out->hz / 1000.0 + 0.5);
	out->source = IPCC_FREQ_PERF_PAGE;
	/* mult is an integer: the figure is as exact as one part in mult. */
	out->ppm = 0.5 / mult * 1e6;
	out->cost_ns = 0;
	return 0;
}

static int tcfreq_from_kernel(struct ipcc_freq *out)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	size_t len = (size_t)sysconf(_SC_PAGESIZE);
	void *page;
	int fd, ret;

	fd = perf_sys->perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return err_sys("perf_event_open(dummy)");
	page = perf_sys->mmap(len, fd);
	if (page == MAP_FAILED) {
		ret = err_sys("mmap of the perf page");
	} else {
		ret = clock_tcfreq_from_perf_page(page, out);
		perf_sys->munmap(page, len);
	}
	perf_sys->close(fd);
	return ret;
}

/*
 * One (ticks, CLOCK_MONOTONIC_RAW) pair. The clock read lies between two ordered tick reads,
 * so pairing it with their midpoint is off by at most half their distance: the narrowest of
 * a few tries bounds the error.
 */
struct cal_pair {
	uint64_t ticks;
	uint64_t ns;
	uint64_t width;
};

static struct cal_pair cal_pair(void)
{
	struct cal_pair best = { .width = UINT64_MAX };

	for (int i = 0; i < 7; i++) {
		uint64_t t0 = ipcc_ticks_ordered();
		uint64_t ns = raw_ns();
		uint64_t t1 = ipcc_ticks_ordered();

		if (t1 - t0 < best.width)
			best = (struct cal_pair){ t0 + (t1 - t0) / 2, ns, t1 - t0 };
	}
	return best;
}

/*
 * Rate = ticks / ns between two pairs taken ever further apart, until the error bound (both
 * pairs' half-widths plus 1 ns of clock resolution at each end) is below CLOCK_CAL_GOAL_PPM.
 */
static int tcfreq_calibrate(struct ipcc_freq *out)
{
	struct cal_pair a = cal_pair(), b;
	double hz = 0, ppm = INFINITY;
	uint64_t wait = CLOCK_CAL_MIN_NS;

	for (;;) {
		uint64_t waited;

		/* Sleep, not spin: ipcc stat calibrates while the measured command runs. */
		while ((waited = raw_ns() - a.ns) < wait) {
			struct timespec ts = { 0, (long)(wait - waited) };

			nanosleep(&ts, NULL);
		}
		b = cal_pair();
		if (b.ns <= a.ns || b.ticks <= a.ticks)
			return err_set(IPCC_ENOTSUP, "the tick counter did not advance");
		hz = (double)(b.ticks - a.ticks) * 1e9 / (double)(b.ns - a.ns);
		ppm = ((a.width + b.width) / 2.0 / hz * 1e9 + 2.0) / (double)(b.ns - a.ns) * 1e6;
		if (ppm <= CLOCK_CAL_GOAL_PPM || b.ns - a.ns >= CLOCK_CAL_MAX_NS)
			break;
		wait *= 2;
	}
	out->hz = hz;
	out->khz = (uint64_t)(hz / 1000.0 + 0.5);
	out->source = IPCC_FREQ_CALIBRATED;
	out->ppm = ppm;
	return 0;
}

/* Set TCFREQ and the tick conversion from f. */
static int clock_set(struct ipcc_freq *f, uint64_t start)
{
	/* 1e12 / (rate in mHz) ns per tick keeps the rate to 1 part in 10^12. */
	uint64_t mhz = (uint64_t)(f->hz * 1000.0 + 0.5);
	int ret = ipcc_tc_conv_init(&ipcc_clock_conv, 1000000000000ull, mhz);

	if (ret == 0) {
		f->cost_ns = raw_ns() - start;
		tcfreq = *f;
	}
	return ret;
}

/*
 * TCFREQ from a source that needs no waiting: the kernel's perf page, CPUID, or a figure
 * calibrated earlier in this boot (unless a fresh one was asked for).
 */
static int tcfreq_quick(struct ipcc_freq *f)
{
	int ret = tcfreq_from_kernel(f);

	if (ret || f->ppm > CLOCK_TARGET_PPM)
		ret = clock_arch_tcfreq(f);
	if ((ret || f->ppm > CLOCK_TARGET_PPM) && !fresh)
		ret = clock_cache_read(f);
	if (!ret && f->ppm > CLOCK_TARGET_PPM && f->source != IPCC_FREQ_CACHED)
		ret = IPCC_ENOTSUP;
	return ret;
}

/* Initialise once: quick sources, then (unless quick_only) a calibration, kept for the boot. */
static int clock_init_locked(bool quick_only)
{
	uint64_t start = raw_ns();
	struct ipcc_freq f = { 0 };
	int ret;

	if (atomic_load_explicit(&init_done, memory_order_acquire))
		return init_result;
	ret = tcfreq_quick(&f);
	if (ret && quick_only)
		return IPCC_ENOTSUP;
	if (ret) {
		ret = tcfreq_calibrate(&f);
		if (!ret)
			clock_cache_write(&f);
	}
	if (!ret)
		ret = clock_set(&f, start);
	init_result = ret;
	atomic_store_explicit(&init_done, true, memory_order_release);
	return ret;
}

static int clock_init(bool quick_only)
{
	int ret;

	if (atomic_load_explicit(&init_done, memory_order_acquire))
		return init_result;
	pthread_mutex_lock(&init_lock);
	ret = clock_init_locked(quick_only);
	pthread_mutex_unlock(&init_lock);
	return ret;
}

int ipcc_clock_init(void)
{
	int ret = clock_init(false);

	return ret ? err_set(ret, "the time counter's frequency is unknown") : 0;
}

int ipcc_clock_init_quick(void)
{
	int ret = clock_init(true);

	if (ret == IPCC_ENOTSUP && !atomic_load_explicit(&init_done, memory_order_acquire))
		return err_set(ret, "TCFREQ needs calibrating: no exact source, nothing cached");
	return ret ? err_set(ret, "the time counter's frequency is unknown") : 0;
}

void ipcc_clock_fresh(void)
{
	pthread_mutex_lock(&init_lock);
	fresh = true;
	pthread_mutex_unlock(&init_lock);
}

extern const int ipcc_clock_manual_init __attribute__((weak));

/*
 * At load: TCFREQ from the boot cache or a calibration, so that the first reading is quick.
 * Not under Valgrind (the model backend's, IPCC_REGION_BACKEND=model, or any other tool):
 * no cached line is for Valgrind's CPU (the key is the CPUID signature), and a calibration
 * would take Valgrind's time and run rdtsc against the virtual clocks until they agree, a
 * count of instructions that differs from run to run (the model backend counted 184,203
 * to 184,245 for one program that never reads a clock). A program that reads one
 * calibrates then.
 */
__attribute__((constructor)) static void clock_autoinit(void)
{
	const char *b = getenv("IPCC_REGION_BACKEND");

	if ((&ipcc_clock_manual_init && ipcc_clock_manual_init) || (b && !strcmp(b, "model")) ||
	    clock_under_valgrind())
		return;
	ipcc_clock_init();
}

uint64_t ipcc_tcfreq_khz(struct ipcc_freq *detail)
{
	ipcc_clock_init();
	if (detail)
		*detail = tcfreq;
	return tcfreq.khz;
}

double clock_tcfreq_hz(void)
{
	return tcfreq.hz;
}

int ipcc_clock_props(struct ipcc_clock_props *props)
{
	return clock_arch_props(props);
}

uint64_t clock_chain_ticks(void (*chain)(uint64_t), uint64_t blocks, unsigned tries)
{
	uint64_t best = UINT64_MAX;

	for (unsigned i = 0; i < tries; i++) {
		uint64_t t0 = ipcc_ticks_ordered();

		chain(blocks);
		uint64_t t1 = ipcc_ticks_ordered();

		if (t1 - t0 < best)
			best = t1 - t0;
	}
	return best;
}

/*
 * Core cycles / reference cycles over the add chain, with the PMU. Reference cycles tick at
 * TCFREQ where the kernel offers them (Intel); elsewhere this fails and the add chain rules.
 */
static int corefreq_pmu(struct ipcc_freq *out)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.read_format = PERF_FORMAT_GROUP,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	struct {
		uint64_t nr;
		uint64_t value[2];
	} counts;
	uint64_t start = raw_ns();
	int leader, ref, ret = 0;

	leader = perf_sys->perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (leader < 0)
		return err_sys("perf_event_open(cycles)");
	attr.config = PERF_COUNT_HW_REF_CPU_CYCLES;
	attr.disabled = 0;
	ref = perf_sys->perf_event_open(&attr, 0, -1, leader, PERF_FLAG_FD_CLOEXEC);
	if (ref < 0) {
		ret = err_sys("perf_event_open(ref-cycles)");
		goto out;
	}
	clock_arch_add_chain(64); /* warm up the loop and the counters */
	perf_sys->ioctl(leader, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
	perf_sys->ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	clock_arch_add_chain(512);
	perf_sys->ioctl(leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	if (perf_sys->read(leader, &counts, sizeof(counts)) != (ssize_t)sizeof(counts) ||
	    counts.nr != 2) {
		ret = err_set(IPCC_ESYS, "reading the cycles group failed");
		goto out;
	}
	/* A PMU that counts nothing (some guests) is no PMU. */
	if (counts.value[0] == 0 || counts.value[1] == 0) {
		ret = err_set(IPCC_ENOTSUP, "the PMU counted no cycles");
		goto out;
	}
	out->hz = tcfreq.hz * (double)counts.value[0] / (double)counts.value[1];
	out->khz = (uint64_t)(out->hz / 1000.0 + 0.5);
	out->source = IPCC_FREQ_PMU_CYCLES;
	out->ppm = 1e6 / (double)counts.value[1] + tcfreq.ppm;
	out->cost_ns = raw_ns() - start;
out:
	if (ref >= 0)
		perf_sys->close(ref);
	perf_sys->close(leader);
	return ret;
}

/*
 * Cycles per tick of a chain of `latency`-cycle instructions, from the difference of two
 * chain lengths, which cancels the fixed cost of the reads around them; each length is the
 * fastest of a few tries, which discards tries that an interrupt stretched. Two estimates:
 * the higher is kept, and how far they disagree is its uncertainty.
 */
static int chain_hz(void (*chain)(uint64_t), unsigned latency, double *hz, double *ppm)
{
	/* ~22000 cycles between the lengths: a read's ~25-tick jitter is ~0.1% of it. */
	const uint64_t short_blocks = 32 / latency, long_blocks = 352 / latency;
	double est[2];

	chain(short_blocks); /* warm up */
	for (int i = 0; i < 2; i++) {
		uint64_t ts = clock_chain_ticks(chain, short_blocks, 3);
		uint64_t tl = clock_chain_ticks(chain, long_blocks, 3);

		if (tl <= ts)
			return err_set(IPCC_ENOTSUP, "the chain did not take longer when longer");
		est[i] = (double)((long_blocks - short_blocks) * CLOCK_CHAIN_BLOCK * latency) *
			 tcfreq.hz / (double)(tl - ts);
	}
	*hz = est[0] > est[1] ? est[0] : est[1];
	*ppm = fabs(est[0] - est[1]) / *hz * 1e6 + tcfreq.ppm;
	return 0;
}

/*
 * The add chain: register-register adds, one cycle each on every core, no renamer can fold
 * them. With `check`, the same figure from the imul chain (another latency class), kept
 * beside it: a disagreement says that one of the two latencies is not what we assume.
 */
static int corefreq_chain(struct ipcc_freq *out, bool check)
{
	uint64_t start = raw_ns();
	double hz, ppm, check_hz = 0, check_ppm = 0; /* set by chain_hz when it succeeds */
	int ret = chain_hz(clock_arch_add_chain, 1, &out->hz, &out->ppm);

	if (ret)
		return ret;
	out->check_hz = 0;
	/*
	 * A preempted or interrupted measurement can make the two disagree once; a latency that
	 * is not what we assume makes them disagree every time. Up to five pairs: the closest.
	 */
	for (int i = 0; check && clock_arch_check_latency && i < 5; i++) {
		if (i > 0 && chain_hz(clock_arch_add_chain, 1, &hz, &ppm) != 0)
			break;
		if (chain_hz(clock_arch_check_chain, clock_arch_check_latency, &check_hz,
			     &check_ppm) != 0)
			break;
		if (i == 0)
			hz = out->hz, ppm = out->ppm;
		if (out->check_hz == 0 ||
		    fabs(check_hz - hz) / hz < fabs(out->check_hz - out->hz) / out->hz) {
			out->hz = hz, out->ppm = ppm;
			out->check_hz = check_hz;
		}
		if (!ipcc_freq_disagrees(out))
			break;
	}
	out->khz = (uint64_t)(out->hz / 1000.0 + 0.5);
	out->source = IPCC_FREQ_ADD_CHAIN;
	out->cost_ns = raw_ns() - start;
	return 0;
}

int clock_corefreq(struct ipcc_freq *out, bool check)
{
	int ret = ipcc_clock_init();

	*out = (struct ipcc_freq){ 0 };
	if (!ret && corefreq_pmu(out) != 0)
		ret = corefreq_chain(out, check);
	if (ret)
		*out = (struct ipcc_freq){ 0 };
	return ret;
}

bool ipcc_freq_disagrees(const struct ipcc_freq *f)
{
	return f->check_hz > 0 && fabs(f->check_hz - f->hz) > 0.02 * f->hz;
}

uint64_t ipcc_corefreq_khz(struct ipcc_freq *detail)
{
	struct ipcc_freq f;

	clock_corefreq(&f, true);
	if (detail)
		*detail = f;
	return f.khz;
}
