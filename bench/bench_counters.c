/*
 * bench_counters.c - what reading counters costs, side by side in one run.
 *
 *   ipcc_read()           a 7-event counter set (the intel-skl recipe) on the fake kernel:
 *                         the seqlock loop, rdpmc (the fake's: one load), sign extension
 *   raw sequence          what it wraps: rdtsc + one rdpmc per counter, same fake rdpmc
 *   read() of a group     the read()-based alternative: one read() system call of a real
 *                         PERF_FORMAT_GROUP group of 7 software events on this kernel
 *   region begin + end    ipcc_region_begin/end, time backend
 *   rdtsc pair            two raw rdtsc
 *
 * Each figure: ticks per call, the median over many rounds of 64 calls, every method timed
 * in turn within each round, minus the cost of timing an empty batch.
 * On a machine with a PMU the real rdpmc path would replace the fake; this machine has none.
 *
 *   counters [ROUNDS]     rounds to take the median of (2001; the test suite runs it short)
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fake_kernel.h"
#include "ipcc/clock.h"
#include "ipcc/counters.h"
#include "ipcc/error.h"
#include "ipcc/region.h"
#include "pmu_int.h"

#define MAX_ROUNDS 2001
#define PER	   64

enum { M_READ, M_RAW, M_GROUP_READ, M_REGION, M_RDTSC_PAIR, M_EMPTY, NM };

static struct ipcc_counter_set *set;
static int group_fd;
static uint64_t sink;

static void run(int m)
{
	struct ipcc_reading r;
	uint64_t buf[1 + 2 * 8];

	for (int i = 0; i < PER; i++) {
		switch (m) {
		case M_READ:
			ipcc_read(set, &r);
			sink += r.raw[0];
			break;
		case M_RAW:
			sink += ipcc_ticks();
			for (uint32_t c = 0; c < 7; c++)
				sink += fake_ops.rdpmc(c);
			break;
		case M_GROUP_READ:
			if (read(group_fd, buf, sizeof(buf)) > 0)
				sink += buf[1];
			break;
		case M_REGION:
			ipcc_region_begin("bench");
			ipcc_region_end("bench");
			break;
		case M_RDTSC_PAIR:
			sink += ipcc_ticks();
			sink += ipcc_ticks();
			break;
		default:
			__asm__ volatile("");
		}
	}
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int open_group(void)
{
	struct perf_event_attr a = { .size = sizeof(a),
				     .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_DUMMY,
				     .exclude_kernel = 1,
				     .read_format = PERF_FORMAT_GROUP };
	int leader = -1;

	for (int i = 0; i < 7; i++) {
		int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, leader, 0);

		if (fd < 0)
			return -1;
		if (leader < 0)
			leader = fd;
	}
	return leader;
}

int main(int argc, char **argv)
{
	static double t[NM][MAX_ROUNDS];
	static const char *const names[NM] = { "ipcc_read() (fake kernel, 7 events)",
					       "raw: rdtsc + 7 x rdpmc (fake)",
					       "read() of a 7-event group (real kernel)",
					       "region begin + end (time backend)",
					       "rdtsc pair",
					       "empty" };
	struct ipcc_counters_opts o = { .backend = IPCC_BACKEND_PERF };
	double med[NM];
	int rounds = argc > 1 ? atoi(argv[1]) : MAX_ROUNDS;

	if (rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: counters [ROUNDS, 1 to %d]\n", MAX_ROUNDS);
		return 2;
	}
	ipcc_clock_init();
	group_fd = open_group();
	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	setenv("IPCC_SYSFS_ROOT", "/nonexistent", 1);
	pmu_reset();
	fake_reset();
	perf_sys_set(&fake_ops);
	if (ipcc_counters_open(&o, &set) != 0) {
		fprintf(stderr, "bench: cannot open the fake counter set: %s\n", ipcc_last_error());
		return 1;
	}
	for (int r = 0; r < rounds; r++)
		for (int m = 0; m < NM; m++) {
			uint64_t t0, t1;

			if (m == M_GROUP_READ && group_fd < 0)
				continue;
			t0 = ipcc_ticks_ordered();
			run(m);
			t1 = ipcc_ticks_ordered();
			t[m][r] = (double)(t1 - t0);
		}
	for (int m = 0; m < NM; m++) {
		qsort(t[m], (size_t)rounds, sizeof(double), cmp);
		med[m] = t[m][rounds / 2];
	}
	printf("ticks per call, median of %d rounds of %d calls (TCFREQ %llu kHz)\n", rounds, PER,
	       (unsigned long long)ipcc_tcfreq_khz(NULL));
	for (int m = 0; m < M_EMPTY; m++) {
		if (m == M_GROUP_READ && group_fd < 0) {
			printf("  %-42s n/a (perf_event_open failed)\n", names[m]);
			continue;
		}
		printf("  %-42s %8.1f ticks %8.1f ns\n", names[m], (med[m] - med[M_EMPTY]) / PER,
		       (med[m] - med[M_EMPTY]) / PER * 1e6 / (double)ipcc_tcfreq_khz(NULL));
	}
	printf("ratios, side by side\n");
	printf("  ipcc_read() / raw sequence               %8.2fx   (goal <= 1.3)\n",
	       (med[M_READ] - med[M_EMPTY]) / (med[M_RAW] - med[M_EMPTY]));
	if (group_fd >= 0)
		printf("  read() group read / ipcc_read()          %8.2fx   (goal >= 5)\n",
		       (med[M_GROUP_READ] - med[M_EMPTY]) / (med[M_READ] - med[M_EMPTY]));
	printf("  region pair / rdtsc pair                 %8.2fx   (goal <= 2)\n",
	       (med[M_REGION] - med[M_EMPTY]) / (med[M_RDTSC_PAIR] - med[M_EMPTY]));
	ipcc_counters_free(set);
	perf_sys_set(NULL);
	return sink == 42; /* keep sink alive */
}
