/*
 * lone_miss.c - what a lone cache miss costs beside one that a chain waits for: the slack the
 * model backend gives a miss whose address no earlier miss gave, in a segment that chases
 * no pointer (account.c charge(): the reorder buffer fills rob / IPC cycles behind it).
 *
 *   bench/lone_miss [SCALE [MIB]]
 *
 * Each loop runs an LCG (an imul and an add, 4 cycles an iteration) and K chained adds on x
 * (K = 0, 8 or 48), and loads one word an iteration into x: from a 4 KiB buffer, but every
 * M-th iteration (M = 64) from a random line of a MIB MiB one (default 256: memory, with the
 * TLB's walks). "lone": the load's address comes from the LCG alone, so the core issues it
 * as soon as it is allocated and runs on past it; "waited": the address takes x's low bit
 * too, so the load waits for the chain, and the chain for it. Each figure is the difference
 * of N and 2N iterations (N = 200,000 x SCALE), the fewest time-counter ticks of seven runs,
 * in core cycles (a chain of 64 dependent adds); three rounds, the fewest of each. Printed:
 * the cycles an iteration with no miss (M = 2^20), with the lone and the waited misses, what
 * each miss costs over the missless loop, and the part of the waited one's cost the lone one
 * hides, beside rob / IPC for a reorder buffer of 448 (Zen 5's) at the missless loop's pace.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__x86_64__)
#include <x86intrin.h>

#define ADD(x, y) __asm__ volatile("add %1, %0" : "+r"(x) : "r"(y))
#define ADD8(x, y)         \
	do {               \
		ADD(x, y); \
		ADD(x, y); \
		ADD(x, y); \
		ADD(x, y); \
		ADD(x, y); \
		ADD(x, y); \
		ADD(x, y); \
		ADD(x, y); \
	} while (0)
#define ADD48(x, y)         \
	do {                \
		ADD8(x, y); \
		ADD8(x, y); \
		ADD8(x, y); \
		ADD8(x, y); \
		ADD8(x, y); \
		ADD8(x, y); \
	} while (0)

/* One loop: K adds after the load; DEP: the address takes x's low bit. */
#define LOOP(name, dep, adds)                                                               \
	static __attribute__((noinline)) uint64_t name(const uint64_t *buf, long n, long m, \
						       uint64_t big)                        \
	{                                                                                   \
		uint64_t r = 12345, x = 0;                                                  \
		for (long i = 0; i < n; i++) {                                              \
			r = r * 6364136223846793005ull + 1442695040888963407ull;            \
			uint64_t far = (uint64_t)((i & (m - 1)) != 0) - 1;                  \
			uint64_t at = (r >> 17) ^ (dep ? x & 1 : 0);                        \
			x += buf[at & (511 | (far & big))];                                 \
			adds;                                                               \
		}                                                                           \
		return x;                                                                   \
	}
LOOP(lone0, 0, (void)0)
LOOP(lone8, 0, ADD8(x, i))
LOOP(lone48, 0, ADD48(x, i))
LOOP(dep0, 1, (void)0)
LOOP(dep8, 1, ADD8(x, i))
LOOP(dep48, 1, ADD48(x, i))

typedef uint64_t (*loop_fn)(const uint64_t *, long, long, uint64_t);

static const struct {
	int k;
	loop_fn lone, dep;
} loops[] = { { 0, lone0, dep0 }, { 8, lone8, dep8 }, { 48, lone48, dep48 } };
#define NLOOPS (sizeof(loops) / sizeof(loops[0]))

/* 64 dependent adds an iteration: 64 cycles */
__asm__(".text\n.p2align 6\nlm_ref:\n1:\n.rept 64\nadd %rsi, %rax\n.endr\ndec %rdi\njnz 1b\nret");
void lm_ref(long);

static uint64_t sink;

/* The fewest ticks of seven runs of n iterations. */
static double fewest(loop_fn fn, const uint64_t *buf, long n, long m, uint64_t big)
{
	double best = 1e300;

	for (int r = 0; r < 7; r++) {
		uint64_t t0 = __rdtsc();

		sink += fn ? fn(buf, n, m, big) : (lm_ref(n), 0);

		double t = (double)(__rdtsc() - t0);

		best = t < best ? t : best;
	}
	return best;
}

/* Ticks an iteration: the difference of n and 2n iterations. */
static double per_iteration(loop_fn fn, const uint64_t *buf, long n, long m, uint64_t big)
{
	return (fewest(fn, buf, 2 * n, m, big) - fewest(fn, buf, n, m, big)) / (double)n;
}

int main(int argc, char **argv)
{
	double scale = argc > 1 ? atof(argv[1]) : 1.0;
	long mib = argc > 2 ? atol(argv[2]) : 256, n = (long)(200000 * scale), m = 64;

	if (argc > 3 || n < 1000 || mib < 1 || mib > 16384) {
		fprintf(stderr, "usage: bench/lone_miss [SCALE [MIB]] (SCALE at least 0.005, MIB "
				"1 to 16384)\n");
		return 2;
	}
	size_t words = (size_t)mib << 17;
	uint64_t *buf = malloc(words * sizeof(*buf));

	if (!buf) {
		fprintf(stderr, "bench/lone_miss: no room for %ld MiB\n", mib);
		return 1;
	}
	for (size_t i = 0; i < words; i++)
		buf[i] = i;
	double base[NLOOPS], lone[NLOOPS], dep[NLOOPS], dbase[NLOOPS];

	for (size_t i = 0; i < NLOOPS; i++)
		base[i] = lone[i] = dep[i] = dbase[i] = 1e300;
	for (int round = 0; round < 3; round++) {
		double tick = per_iteration(NULL, NULL, n / 64 > 0 ? n / 64 : 1, 0, 0) / 64;

		for (size_t i = 0; i < NLOOPS; i++) {
			double c[4] = {
				per_iteration(loops[i].lone, buf, n, 1l << 20, words - 1) / tick,
				per_iteration(loops[i].lone, buf, n, m, words - 1) / tick,
				per_iteration(loops[i].dep, buf, n, 1l << 20, words - 1) / tick,
				per_iteration(loops[i].dep, buf, n, m, words - 1) / tick,
			};

			base[i] = c[0] < base[i] ? c[0] : base[i];
			lone[i] = c[1] < lone[i] ? c[1] : lone[i];
			dbase[i] = c[2] < dbase[i] ? c[2] : dbase[i];
			dep[i] = c[3] < dep[i] ? c[3] : dep[i];
		}
	}
	printf("lone_miss: cycles an iteration (the fewest of three rounds), a miss every %ld "
	       "iterations to %ld MiB\n\n",
	       m, mib);
	printf("%4s %8s %8s %8s %8s %10s %10s %10s %10s\n", "K", "no miss", "lone", "no miss",
	       "waited", "lone/miss", "waited", "hidden", "rob/IPC");
	for (size_t i = 0; i < NLOOPS; i++) {
		double lc = (lone[i] - base[i]) * m, dc = (dep[i] - dbase[i]) * m;
		/* the loop's instructions: 15 and K adds (gcc -O2, x86-64) */
		double ipc = (15.0 + loops[i].k) / base[i];

		printf("%4d %8.2f %8.2f %8.2f %8.2f %10.0f %10.0f %10.0f %10.0f\n", loops[i].k,
		       base[i], lone[i], dbase[i], dep[i], lc, dc, dc - lc, 448 / ipc);
	}
	free(buf);
	return sink == 1; /* keeps the loops' results alive */
}
#else
int main(void)
{
	printf("lone_miss: x86-64 only\n");
	return 0;
}
#endif
