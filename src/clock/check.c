/*
 * clock/check.c - measurements of the time counter itself: the cross-core order check and
 * the side-by-side cost of each way of reading time. ipcc calibrate prints both.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock_int.h"
#include "error_int.h"
#include "perf_sys_int.h"

/* ---- cross-core check ------------------------------------------------------------------ */

/* Spins before a waiting thread yields its CPU to whatever else wants it. */
#define SPINS_BEFORE_YIELD 20000

struct xc_side {
	uint64_t backwards;
	int64_t min_gap;
	int cpu;
};

struct xc {
	/* The count of hand-offs so far; side (count % 2) holds the token. */
	_Alignas(64) atomic_uint_fast64_t token;
	/* The tick count the sender read just before handing over. */
	_Alignas(64) atomic_uint_fast64_t stamp;
	_Alignas(64) atomic_bool stop;
	uint64_t handoffs;
	uint64_t deadline_ns;
	struct xc_side side[2];
};

struct xc_arg {
	struct xc *xc;
	unsigned me;
};

static void *xc_run(void *p)
{
	struct xc_arg *arg = p;
	struct xc *xc = arg->xc;
	struct xc_side *s = &xc->side[arg->me];
	uint64_t n;

	s->min_gap = INT64_MAX;
	for (;;) {
		unsigned spins = 0;

		while ((n = atomic_load_explicit(&xc->token, memory_order_acquire)) % 2 !=
		       arg->me) {
			if (n >= xc->handoffs ||
			    atomic_load_explicit(&xc->stop, memory_order_relaxed))
				return NULL;
			if (++spins % SPINS_BEFORE_YIELD == 0) {
				if (ipcc_now_ns() > xc->deadline_ns)
					atomic_store(&xc->stop, true);
				sched_yield();
			}
		}
		if (n >= xc->handoffs)
			return NULL;
		if (n > 0) {
			/*
			 * Received: the first read after seeing the token, against the send stamp.
			 * Ordered: a plain rdtsc may run before the token load completes (the loop
			 * exit is predicted, not waited for) and reads an earlier time; measured
			 * here, that gave steps of up to 49 ticks backwards in about 1 run in 6.
			 */
			uint64_t now = ipcc_ticks_ordered();
			uint64_t sent = atomic_load_explicit(&xc->stamp, memory_order_relaxed);
			int64_t gap = (int64_t)(now - sent);

			if (gap < 0)
				s->backwards++;
			if (gap < s->min_gap)
				s->min_gap = gap;
		}
		atomic_store_explicit(&xc->stamp, ipcc_ticks(), memory_order_relaxed);
		atomic_store_explicit(&xc->token, n + 1, memory_order_release);
	}
}

/* The first two CPUs the calling thread may run on. */
static int pick_cpus(int cpu[2])
{
	cpu_set_t set;
	int found = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return err_sys("sched_getaffinity");
	for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
		if (CPU_ISSET(c, &set))
			cpu[found++] = c;
	if (found < 2)
		return err_set(IPCC_ENOTSUP, "the cross-core check needs 2 CPUs; this thread may "
					     "run on only 1");
	return 0;
}

int ipcc_clock_cross_core(uint64_t handoffs, unsigned timeout_ms, struct ipcc_cross_core *out)
{
	struct xc *xc;
	struct xc_arg args[2];
	pthread_t thr[2];
	int started = 0, ret;

	memset(out, 0, sizeof(*out));
	ret = ipcc_clock_init();
	if (ret)
		return ret;
	ret = pick_cpus(out->cpu);
	if (ret)
		return ret;
	xc = aligned_alloc(64, sizeof(*xc));
	if (!xc)
		return err_set(IPCC_ENOMEM, "cross-core check: out of memory");
	memset(xc, 0, sizeof(*xc));
	/* The first pass of the token has no send before it: one more pass than checks. */
	xc->handoffs = handoffs + 1;
	xc->deadline_ns = ipcc_now_ns() + (uint64_t)timeout_ms * 1000000u;

	for (started = 0; started < 2; started++) {
		pthread_attr_t attr;
		cpu_set_t set;
		int err;

		CPU_ZERO(&set);
		CPU_SET(out->cpu[started], &set);
		xc->side[started].cpu = out->cpu[started];
		args[started] = (struct xc_arg){ xc, (unsigned)started };
		pthread_attr_init(&attr);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		err = pthread_create(&thr[started], &attr, xc_run, &args[started]);
		pthread_attr_destroy(&attr);
		if (err) {
			errno = err;
			ret = err_sys("cross-core check: pthread_create");
			atomic_store(&xc->stop, true);
			break;
		}
	}
	for (int i = 0; i < started; i++)
		pthread_join(thr[i], NULL);

	if (ret == 0) {
		uint64_t done = atomic_load(&xc->token);

		out->trials = done > 1 ? done - 1 : 0;
		out->backwards = xc->side[0].backwards + xc->side[1].backwards;
		out->min_gap_ticks = xc->side[0].min_gap < xc->side[1].min_gap
					 ? xc->side[0].min_gap
					 : xc->side[1].min_gap;
		out->min_gap_ns = (int64_t)((double)out->min_gap_ticks * 1e9 / clock_tcfreq_hz());
		if (out->trials < handoffs)
			ret = err_set(IPCC_ETIMEOUT,
				      "cross-core check: %llu of %llu hand-offs in %u ms",
				      (unsigned long long)out->trials, (unsigned long long)handoffs,
				      timeout_ms);
	}
	free(xc);
	return ret;
}

/* ---- read costs ------------------------------------------------------------------------ */

static uint64_t run_empty(unsigned n, const void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < n; i++)
		__asm__ volatile("");
	return n;
}

static uint64_t run_now_ns(unsigned n, const void *arg)
{
	uint64_t sum = 0;

	(void)arg;
	for (unsigned i = 0; i < n; i++)
		sum += ipcc_now_ns();
	return sum;
}

static uint64_t run_clock(unsigned n, clockid_t id)
{
	struct timespec ts;
	uint64_t sum = 0;

	for (unsigned i = 0; i < n; i++) {
		clock_gettime(id, &ts);
		sum += (uint64_t)ts.tv_nsec;
	}
	return sum;
}

static uint64_t run_monotonic(unsigned n, const void *arg)
{
	(void)arg;
	return run_clock(n, CLOCK_MONOTONIC);
}

static uint64_t run_monotonic_raw(unsigned n, const void *arg)
{
	(void)arg;
	return run_clock(n, CLOCK_MONOTONIC_RAW);
}

static uint64_t run_perf_read(unsigned n, const void *arg)
{
	int fd = *(const int *)arg;
	uint64_t sum = 0, v;

	for (unsigned i = 0; i < n; i++)
		if (perf_sys->read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
			sum += v;
	return sum;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The p-th percentile (0..100) of n sorted values, nearest rank. */
static double percentile(const double *sorted, unsigned n, unsigned p)
{
	unsigned i = (unsigned)(((uint64_t)p * (n - 1) + 50) / 100);

	return sorted[i];
}

static int open_task_clock(void)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	return perf_sys->perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int ipcc_clock_read_costs(unsigned batches, unsigned per_batch,
			  struct ipcc_read_cost costs[IPCC_READ_NMETHODS])
{
	struct clock_read_method m[IPCC_READ_NMETHODS] = {
		[IPCC_READ_TICKS] = clock_arch_methods[0],
		[IPCC_READ_TICKS_P] = clock_arch_methods[1],
		[IPCC_READ_TICKS_ORDERED] = clock_arch_methods[2],
		[IPCC_READ_NOW_NS] = { "ipcc_now_ns", "ipcc_now_ns()", run_now_ns },
		[IPCC_READ_MONOTONIC] = { "clock_monotonic", "clock_gettime(CLOCK_MONOTONIC)",
					  run_monotonic },
		[IPCC_READ_MONOTONIC_RAW] = { "clock_monotonic_raw",
					      "clock_gettime(CLOCK_MONOTONIC_RAW)",
					      run_monotonic_raw },
		[IPCC_READ_PERF_READ] = { "perf_read", "read() of a task-clock perf event",
					  run_perf_read },
	};
	const unsigned nm = IPCC_READ_NMETHODS;
	double *t, base, hz;
	uint64_t sink = 0;
	int fd, ret = ipcc_clock_init();

	if (ret)
		return ret;
	if (batches < 1 || per_batch < 1)
		return err_set(IPCC_EINVAL, "read costs need at least one batch of one read");
	/* Row nm of t holds the empty batch, the cost of timing itself. */
	t = malloc(sizeof(*t) * batches * (nm + 1));
	if (!t)
		return err_set(IPCC_ENOMEM, "read costs: out of memory");

	memset(costs, 0, sizeof(*costs) * nm);
	for (unsigned k = 0; k < nm; k++) {
		costs[k].key = m[k].key;
		costs[k].name = m[k].name ? m[k].name : "(none)";
		costs[k].valid = m[k].run != NULL;
		if (!m[k].run)
			snprintf(costs[k].why, sizeof(costs[k].why), "no such instruction here");
	}
	fd = open_task_clock();
	if (fd < 0) {
		costs[IPCC_READ_PERF_READ].valid = false;
		snprintf(costs[IPCC_READ_PERF_READ].why, sizeof(costs[0].why),
			 "perf_event_open(task-clock): %s", strerror(errno));
	}

	/* Every round times one batch of each method in turn, so all see the same machine. */
	for (unsigned b = 0; b < batches; b++) {
		for (unsigned k = 0; k <= nm; k++) {
			uint64_t (*run)(unsigned, const void *) = k == nm ? run_empty : m[k].run;
			uint64_t t0, t1;

			if (k < nm && !costs[k].valid)
				continue;
			t0 = ipcc_ticks_ordered();
			sink += run(per_batch, &fd);
			t1 = ipcc_ticks_ordered();
			t[(size_t)k * batches + b] = (double)(t1 - t0);
		}
	}
	__asm__ volatile("" : : "r"(sink));

	qsort(t + (size_t)nm * batches, batches, sizeof(*t), cmp_double);
	base = percentile(t + (size_t)nm * batches, batches, 50);
	hz = clock_tcfreq_hz();
	for (unsigned k = 0; k < nm; k++) {
		double *row = t + (size_t)k * batches;

		if (!costs[k].valid)
			continue;
		for (unsigned b = 0; b < batches; b++)
			row[b] = (row[b] - base) / per_batch;
		qsort(row, batches, sizeof(*row), cmp_double);
		costs[k].ticks_median = percentile(row, batches, 50);
		costs[k].ticks_p10 = percentile(row, batches, 10);
		costs[k].ticks_p90 = percentile(row, batches, 90);
		costs[k].ns_median = costs[k].ticks_median * 1e9 / hz;
	}
	if (fd >= 0)
		perf_sys->close(fd);
	free(t);
	return 0;
}
