/*
 * llc_time.c - a pointer chase with time between its loads, for bench/llc_time.py.
 *
 * `llc_time MIB DELAY` chases a random cycle through MIB MiB of 64-byte lines (on huge pages
 * where the kernel gives them, so that the TLB does not move the figure), with DELAY
 * dependent multiplies (3 cycles each) between one load and the next, and prints the
 * fewest TSC ticks a step of three laps after a first one that warms the caches. On a host
 * whose LLC other tenants share, a line the chase left comes back from memory the more
 * often the longer the lap takes, not only the more lines the chase itself used since.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#if defined(__x86_64__)
#include <x86intrin.h>

int main(int argc, char **argv)
{
	if (argc != 3 || atol(argv[1]) < 1 || atoi(argv[2]) < 0) {
		fprintf(stderr, "usage: llc_time MIB DELAY\n");
		return 2;
	}
	size_t lines = (size_t)atol(argv[1]) << 14, bytes = lines * 64;
	int delay = atoi(argv[2]);
	char *buf = aligned_alloc(2 << 20, (bytes + (2 << 20) - 1) & ~(size_t)((2 << 20) - 1));
	size_t *order = malloc(lines * sizeof(*order));

	if (!buf || !order) {
		fprintf(stderr, "llc_time: out of memory\n");
		return 1;
	}
	madvise(buf, bytes, MADV_HUGEPAGE);
	for (size_t i = 0; i < lines; i++)
		order[i] = i;
	unsigned long long x = 88172645463325252ull;

	for (size_t i = lines - 1; i > 0; i--) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t j = x % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (size_t i = 0; i < lines; i++)
		*(void **)(buf + order[i] * 64) = buf + order[(i + 1) % lines] * 64;
	free(order);

	void *p = buf;
	unsigned long long best = ~0ull;

	for (int lap = 0; lap < 4; lap++) {
		unsigned long long t0 = __rdtsc();

		for (size_t s = 0; s < lines; s++) {
			unsigned long v = (unsigned long)p;

			for (int k = 0; k < delay; k++)
				__asm__ volatile("imul $1, %0, %0" : "+r"(v));
			p = *(void **)v;
		}
		unsigned long long d = __rdtsc() - t0;

		if (lap && d < best)
			best = d;
	}
	printf("%.2f\n", (double)best / (double)lines);
	free(buf);
	return p ? 0 : 1;
}
#else
int main(void)
{
	printf("llc_time: x86-64 only\n");
	return 0;
}
#endif
