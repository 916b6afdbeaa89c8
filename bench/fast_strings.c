/*
 * fast_strings.c - what rep stosb and rep movsb cost on this machine, beside what the model
 * profile that `auto` picks says (its rep_short_cycles, rep_cycles, rep_bytes_per_cycle,
 * rep_l2_bytes_per_cycle, rep_llc_bytes_per_cycle: the model backend's fast-string model).
 *
 *   bench/fast_strings
 *
 * L1-resident runs from 16 bytes to 16 KiB: core cycles a run, the best of 200 rounds of 100
 * runs. Then copies and fills of 256 KiB (L2), 4 MiB and 32 MiB (the LLC on most servers):
 * bytes a cycle, the best of 30. Core cycles are time-counter ticks times the core frequency
 * ipcc measures (add chain) over TCFREQ.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcc/clock.h"
#include "ipcc/model.h"

#if defined(__x86_64__)
static void stos(void *d, size_t n)
{
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(0) : "memory");
}

static void movs(void *d, const void *s, size_t n)
{
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

/* What the profile's fast-string model gives a run of n bytes whose lines all hit L1. */
static double predicted(const struct ipcc_model_profile *p, size_t n)
{
	if (!p->rep_bytes_per_cycle)
		return 0;
	return n <= 128 ? p->rep_short_cycles : p->rep_cycles + (double)n / p->rep_bytes_per_cycle;
}

int main(void)
{
	static char dst[16384] __attribute__((aligned(64))),
	    src[16384] __attribute__((aligned(64)));
	static const size_t small[] = { 16, 64, 256, 1024, 4096, 16384 };
	static const size_t big[] = { 256 << 10, 4 << 20, 32 << 20 };
	struct ipcc_model_profile p;
	struct ipcc_freq core;
	double k;

	if (ipcc_clock_init() || !ipcc_corefreq_khz(&core)) {
		fprintf(stderr,
			"fast_strings: the time counter or the core frequency is unknown\n");
		return 1;
	}
	k = (double)core.khz / (double)ipcc_tcfreq_khz(NULL);
	if (ipcc_model_profile("auto", &p))
		ipcc_model_profile("skylake", &p);
	printf("fast strings, core %.0f MHz, profile %s\n", core.khz / 1e3, p.name);
	printf("%10s %14s %14s %12s\n", "bytes", "stosb cycles", "movsb cycles", "profile");
	for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++) {
		size_t n = small[i];
		double bs = 1e30, bm = 1e30;

		for (int r = 0; r < 200; r++) {
			uint64_t t0 = ipcc_ticks_ordered();

			for (int j = 0; j < 100; j++)
				stos(dst, n);
			uint64_t t1 = ipcc_ticks_ordered();

			for (int j = 0; j < 100; j++)
				movs(dst, src, n);
			uint64_t t2 = ipcc_ticks_ordered();

			bs = (double)(t1 - t0) / 100 < bs ? (double)(t1 - t0) / 100 : bs;
			bm = (double)(t2 - t1) / 100 < bm ? (double)(t2 - t1) / 100 : bm;
		}
		printf("%10zu %14.1f %14.1f %12.1f\n", n, bs * k, bm * k, predicted(&p, n));
	}
	printf("%10s %14s %14s %12s\n", "bytes", "stosb B/cycle", "movsb B/cycle", "profile");
	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		size_t n = big[i];
		char *a = aligned_alloc(4096, n), *b = aligned_alloc(4096, n);
		double bs = 1e30, bm = 1e30;

		if (!a || !b) {
			free(a);
			free(b);
			return 1;
		}
		memset(a, 1, n);
		memset(b, 2, n);
		for (int r = 0; r < 30; r++) {
			uint64_t t0 = ipcc_ticks_ordered();

			movs(a, b, n);
			uint64_t t1 = ipcc_ticks_ordered();

			stos(a, n);
			uint64_t t2 = ipcc_ticks_ordered();

			bm = (double)(t1 - t0) < bm ? (double)(t1 - t0) : bm;
			bs = (double)(t2 - t1) < bs ? (double)(t2 - t1) : bs;
		}
		/* The profile: a copy misses L1 on both lines; a line costs 64 / rate more. */
		unsigned rate = i == 0 ? p.rep_l2_bytes_per_cycle : p.rep_llc_bytes_per_cycle;
		double lines = (double)n / 64, cyc = rate && p.rep_bytes_per_cycle
							 ? predicted(&p, n) + 2 * lines * 64 / rate
							 : 0;

		printf("%10zu %14.2f %14.2f %12.2f\n", n, (double)n / (bs * k),
		       (double)n / (bm * k), cyc ? (double)n / cyc : 0);
		free(a);
		free(b);
	}
	return 0;
}
#else
int main(void)
{
	puts("fast_strings: x86-64 only (rep movsb, rep stosb)");
	return 0;
}
#endif
