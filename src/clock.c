/*
 * clock.c - the time counter: finding TCFREQ, the tick -> ns conversion, the core frequency.
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
#include <sys/mman.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock_int.h"
#include "error_int.h"
#include "kernel_int.h"

struct ipcc_tc_conv ipcc_clock_conv;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_result;
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

	fd = kernel->perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return err_sys("perf_event_open(dummy)");
	page = kernel->mmap(len, fd);
	if (page == MAP_FAILED) {
		ret = err_sys("mmap of the perf page");
	} else {
		ret = clock_tcfreq_from_perf_page(page, out);
		kernel->munmap(page, len);
	}
	kernel->close(fd);
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

static void clock_init_once(void)
{
	uint64_t start = raw_ns();
	struct ipcc_freq f = { 0 };
	int ret;

	ret = tcfreq_from_kernel(&f);
	if (ret || f.ppm > CLOCK_TARGET_PPM)
		ret = clock_arch_tcfreq(&f);
	if (ret || f.ppm > CLOCK_TARGET_PPM)
		ret = tcfreq_calibrate(&f);
	if (ret == 0) {
		/* 1e12 / (rate in mHz) ns per tick keeps the rate to 1 part in 10^12. */
		uint64_t mhz = (uint64_t)(f.hz * 1000.0 + 0.5);

		ret = ipcc_tc_conv_init(&ipcc_clock_conv, 1000000000000ull, mhz);
	}
	if (ret == 0) {
		f.cost_ns = raw_ns() - start;
		tcfreq = f;
	}
	init_result = ret;
}

int ipcc_clock_init(void)
{
	pthread_once(&init_once, clock_init_once);
	if (init_result)
		return err_set(init_result, "the time counter's frequency is unknown");
	return 0;
}

/*
 * Programs that use the time counter get it initialised before main(), unless they define
 * ipcc_clock_manual_init (see clock.h).
 */
extern const int ipcc_clock_manual_init __attribute__((weak));

__attribute__((constructor)) static void clock_autoinit(void)
{
	if (&ipcc_clock_manual_init && ipcc_clock_manual_init)
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

uint64_t clock_chain_ticks(uint64_t blocks, unsigned tries)
{
	uint64_t best = UINT64_MAX;

	for (unsigned i = 0; i < tries; i++) {
		uint64_t t0 = ipcc_ticks_ordered();

		clock_arch_add_chain(blocks);
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

	leader = kernel->perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (leader < 0)
		return err_sys("perf_event_open(cycles)");
	attr.config = PERF_COUNT_HW_REF_CPU_CYCLES;
	attr.disabled = 0;
	ref = kernel->perf_event_open(&attr, 0, -1, leader, PERF_FLAG_FD_CLOEXEC);
	if (ref < 0) {
		ret = err_sys("perf_event_open(ref-cycles)");
		goto out;
	}
	clock_arch_add_chain(64); /* warm up the loop and the counters */
	kernel->ioctl(leader, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
	kernel->ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	clock_arch_add_chain(512);
	kernel->ioctl(leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	if (kernel->read(leader, &counts, sizeof(counts)) != (ssize_t)sizeof(counts) ||
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
		kernel->close(ref);
	kernel->close(leader);
	return ret;
}

/*
 * Adds per tick from the difference of two chain lengths, which cancels the fixed cost of
 * the reads around them; each length is the fastest of a few tries, which discards tries
 * that an interrupt stretched. The uncertainty is how far the two best tries disagree.
 */
static int corefreq_chain(struct ipcc_freq *out)
{
	/* 20480 adds between the lengths: a read's ~25-tick jitter is ~0.1% of the difference. */
	const uint64_t short_blocks = 32, long_blocks = 352;
	uint64_t start = raw_ns();
	double est[2];

	clock_arch_add_chain(short_blocks); /* warm up */
	for (int i = 0; i < 2; i++) {
		uint64_t ts = clock_chain_ticks(short_blocks, 3);
		uint64_t tl = clock_chain_ticks(long_blocks, 3);

		if (tl <= ts)
			return err_set(IPCC_ENOTSUP,
				       "the add chain did not take longer when longer");
		est[i] = (double)((long_blocks - short_blocks) * CLOCK_CHAIN_BLOCK) * tcfreq.hz /
			 (double)(tl - ts);
	}
	out->hz = est[0] > est[1] ? est[0] : est[1];
	out->khz = (uint64_t)(out->hz / 1000.0 + 0.5);
	out->source = IPCC_FREQ_ADD_CHAIN;
	out->ppm = fabs(est[0] - est[1]) / out->hz * 1e6 + tcfreq.ppm;
	out->cost_ns = raw_ns() - start;
	return 0;
}

uint64_t ipcc_corefreq_khz(struct ipcc_freq *detail)
{
	struct ipcc_freq f = { 0 };

	if (ipcc_clock_init() == 0 && corefreq_pmu(&f) != 0 && corefreq_chain(&f) != 0)
		f = (struct ipcc_freq){ 0 };
	if (detail)
		*detail = f;
	return f.khz;
}
