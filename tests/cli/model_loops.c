/*
 * model_loops.c: the known-answer loops of annotate_model.sh, compiled at -O2 by the test
 * itself, twice: as a program, `model_loops KERNEL [ITERATIONS]`, which runs the loop
 * ITERATIONS times (default 200 million) for ipcc record; and as a shared library, which
 * model_loops_timer loads to time the same loops with ipcc_now_ns (loops_prepare,
 * loops_run).
 *   chase   a pointer chase through 64 nodes in one 4 KiB page, with independent work
 *           after each load
 *   fp      a dependent floating-point chain: x = x * a + b
 *   branch  a branch on random bits (taken half the time, unpredictably: 32 MiB of them, read
 *           on in order from call to call, never replayed: a predictor learns a pattern it
 *           sees again, as Zen 3 learned 4 KiB and Zen 5 50 000 bytes replayed)
 *   triad   a[i] = b[i] + s * c[i] over three 1024-double arrays (24 KiB: in the L1), set
 *           apart by other than a multiple of 4 KiB (no 4K aliasing between the store and
 *           the loads)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
	struct node *next;
	long pad[7];
};

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

__attribute__((noinline)) static long branch(const unsigned char *bits, long from, long to,
					     long mask)
{
	long s = 0;

	for (long i = from; i < to; i++)
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

static const char *kernel;
static struct node nodes[64];
static unsigned char bits[1 << 25];
static long bits_next; /* where the branch's next call reads on */
static double mem[3 * 1024 + 64];
static double *a, *b, *c;
static volatile double sink;

/* Set up KERNEL's data: 0, or -1 if there is no such kernel. */
int loops_prepare(const char *k)
{
	kernel = k;
	if (!strcmp(k, "chase")) {
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
	} else if (!strcmp(k, "branch")) {
		for (unsigned i = 0; i < sizeof(bits); i++)
			bits[i] = (unsigned char)next_random();
	} else if (!strcmp(k, "triad")) {
		double *volatile at[3] = { mem, mem + 1024 + 24, mem + 2048 + 40 };

		a = at[0], b = at[1], c = at[2];
		for (unsigned i = 0; i < 1024; i++)
			b[i] = i, c[i] = 2.0 * i;
	} else if (strcmp(k, "fp")) {
		return -1;
	}
	return 0;
}

/* Run the prepared kernel's loop about n times; how many it ran. */
long loops_run(long n)
{
	if (!strcmp(kernel, "chase")) {
		sink = (double)chase(&nodes[0], n);
	} else if (!strcmp(kernel, "fp")) {
		sink = fp(1.0, 0.999999, 1e-9, n);
	} else if (!strcmp(kernel, "branch")) {
		sink = (double)branch(bits, bits_next, bits_next + n, (long)sizeof(bits) - 1);
		bits_next += n;
	} else {
		long reps = n / 1024 > 0 ? n / 1024 : 1;

		for (long r = 0; r < reps; r++)
			triad(a, b, c, 1.5 + (double)(r & 1), 1024);
		sink = a[7];
		n = reps * 1024;
	}
	return n;
}

int main(int argc, char **argv)
{
	if (argc < 2 || loops_prepare(argv[1])) {
		fprintf(stderr, "usage: model_loops chase|fp|branch|triad [ITERATIONS]\n");
		return 2;
	}
	loops_run(argc > 2 ? atol(argv[2]) : 200000000);
	return 0;
}
