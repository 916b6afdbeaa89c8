/*
 * model_loops.c KERNEL [ITERATIONS]: the known-answer loops of annotate_model.sh, compiled at
 * -O2 by the test itself. Each runs its loop ITERATIONS times (default 200 million), then
 * prints "KERNEL ITERATIONS NS NS_PER_CYCLE": the loop's own time, read with CLOCK_MONOTONIC
 * around it, and the length of a core cycle: the pace of a chain of dependent register adds
 * (one a cycle on every x86 core) timed right before and right after it, the faster of the
 * two (a disturbed chain only errs slow). The test takes the fastest loop and the fastest
 * cycle of several runs, each apart, and compares the model's cycles per iteration with
 * their ratio.
 *   chase   a pointer chase through 64 nodes in one 4 KiB page, with independent work
 *           after each load
 *   fp      a dependent floating-point chain: x = x * a + b
 *   branch  a branch on random bits (taken half the time, unpredictably: 32 MiB of them, read
 *           once in order by a run of up to 32 million iterations: a predictor learns a
 *           pattern it sees again, as Zen 3 learned 4 KiB and Zen 5 50 000 bytes replayed)
 *   triad   a[i] = b[i] + s * c[i] over three 1024-double arrays (24 KiB: in the L1), set
 *           apart by other than a multiple of 4 KiB (no 4K aliasing between the store and
 *           the loads)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct node {
	struct node *next;
	long pad[7];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Nanoseconds per core cycle: 8 million dependent adds, one a cycle. */
static double ns_per_cycle(void)
{
	uint64_t x = 0, t0 = now_ns();

	for (int i = 0; i < 1000000; i++)
		__asm__ volatile(".rept 8\n\tadd %1, %0\n\t.endr" : "+r"(x) : "r"(1ull));
	return (double)(now_ns() - t0) / 8e6;
}

static uint64_t rng = 88172645463325252ull;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

__attribute__((noinline)) static long chase(struct node *p, long n)
{
	long a = 0, b = 1, c = 2;

	for (long i = 0; i < n; i++) {
		p = p->next;
		a += i;
		b ^= a;
		c += b >> 3;
	}
	return a + b + c + (long)(uintptr_t)p;
}

__attribute__((noinline)) static double fp(double x, double a, double b, long n)
{
	for (long i = 0; i < n; i++)
		x = x * a + b;
	return x;
}

__attribute__((noinline)) static long branch(const unsigned char *bits, long n, long mask)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		if (bits[i & mask] & 1) {
			__asm__ volatile("");
			s += i;
		}
	return s;
}

__attribute__((noinline)) static void triad(double *a, const double *b, const double *c, double s,
					    long n)
{
	for (long i = 0; i < n; i++)
		a[i] = b[i] + s * c[i];
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 200000000;
	const char *k = argc > 1 ? argv[1] : "";
	volatile double sink;
	uint64_t t0, t1;
	double before = ns_per_cycle(), after;

	if (!strcmp(k, "chase")) {
		static struct node nodes[64];
		unsigned order[64];

		for (unsigned i = 0; i < 64; i++)
			order[i] = i;
		for (unsigned i = 63; i > 0; i--) {
			unsigned j = (unsigned)(next_random() % (i + 1)), t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
		for (unsigned i = 0; i < 64; i++)
			nodes[order[i]].next = &nodes[order[(i + 1) % 64]];
		t0 = now_ns();
		sink = (double)chase(&nodes[0], n);
		t1 = now_ns();
	} else if (!strcmp(k, "fp")) {
		t0 = now_ns();
		sink = fp(1.0, 0.999999, 1e-9, n);
		t1 = now_ns();
	} else if (!strcmp(k, "branch")) {
		static unsigned char bits[1 << 25];

		for (unsigned i = 0; i < sizeof(bits); i++)
			bits[i] = (unsigned char)next_random();
		t0 = now_ns();
		sink = (double)branch(bits, n, (long)sizeof(bits) - 1);
		t1 = now_ns();
	} else if (!strcmp(k, "triad")) {
		static double mem[3 * 1024 + 64];
		double *volatile at[3] = { mem, mem + 1024 + 24, mem + 2048 + 40 };
		double *a = at[0], *b = at[1], *c = at[2];
		long reps = n / 1024 > 0 ? n / 1024 : 1;

		for (unsigned i = 0; i < 1024; i++)
			b[i] = i, c[i] = 2.0 * i;
		t0 = now_ns();
		for (long r = 0; r < reps; r++)
			triad(a, b, c, 1.5 + (double)(r & 1), 1024);
		t1 = now_ns();
		n = reps * 1024;
		sink = a[7];
	} else {
		fprintf(stderr, "usage: model_loops chase|fp|branch|triad [ITERATIONS]\n");
		return 2;
	}
	(void)sink;
	after = ns_per_cycle();
	printf("%s %ld %llu %.6f\n", k, n, (unsigned long long)(t1 - t0),
	       after < before ? after : before);
	return 0;
}
