/*
 * model_loops_timer.c LIBRARY KERNEL: times a loop of model_loops.c, compiled by
 * annotate_model.sh at -O2 as the shared LIBRARY, the way ipcc bench times its kernels:
 * slices of about 200 us, each timed with ipcc_now_ns and a known trip count, the core
 * frequency measured between every two slices (ipcc_corefreq_khz: the add chain, cross-checked
 * by another latency class) and each slice's cycles taken at the higher of the figures
 * before and after it. Prints "KERNEL CYCLES_BEST CYCLES_MEDIAN SLICES": cycles per
 * iteration of the fastest slice (the estimator ipcc bench --fit-profile fits with) and of
 * the median one.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ipcc/clock.h"

#define SLICES 31

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	void *lib = argc == 3 ? dlopen(argv[1], RTLD_NOW) : NULL;
	int (*prepare)(const char *);
	long (*run)(long);
	double cycles[SLICES], before, after;
	long n = 1024;

	if (!lib) {
		fprintf(stderr, "model_loops_timer: %s\n",
			argc == 3 ? dlerror() : "usage: LIBRARY KERNEL");
		return 2;
	}
	*(void **)&prepare = dlsym(lib, "loops_prepare");
	*(void **)&run = dlsym(lib, "loops_run");
	if (!prepare || !run || prepare(argv[2])) {
		fprintf(stderr, "model_loops_timer: %s: no kernel %s\n", argv[1], argv[2]);
		dlclose(lib);
		return 2;
	}
	if (ipcc_clock_init()) {
		fprintf(stderr, "model_loops_timer: no time counter\n");
		dlclose(lib);
		return 2;
	}
	/* Slices of about 200 us: long enough that the timer reads cost nothing, short enough
	 * that most slices see no interrupt. */
	for (;;) {
		uint64_t t0 = ipcc_now_ns(), done = (uint64_t)run(n);

		if (ipcc_now_ns() - t0 >= 200000 || n > (1l << 30))
			break;
		n = (long)done * 2;
	}
	before = (double)ipcc_corefreq_khz(NULL);
	for (int i = 0; i < SLICES; i++) {
		uint64_t t0 = ipcc_now_ns(), done = (uint64_t)run(n), t1 = ipcc_now_ns();

		after = (double)ipcc_corefreq_khz(NULL);
		cycles[i] =
		    (double)(t1 - t0) * (before > after ? before : after) / 1e6 / (double)done;
		before = after;
	}
	qsort(cycles, SLICES, sizeof(cycles[0]), cmp_double);
	printf("%s %.4f %.4f %d\n", argv[2], cycles[0], cycles[SLICES / 2], SLICES);
	dlclose(lib);
	return 0;
}
