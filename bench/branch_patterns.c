/*
 * branch_patterns.c - the loops bench/branch_patterns.py times natively and under the model
 * backend: one conditional branch that repeats a random pattern of a given period, or one
 * indirect call that repeats a random sequence of eight targets.
 *
 *   bench/branch_patterns cond|indirect PERIOD ITERATIONS
 *
 * A core's predictor learns a pattern up to its capacity and then misses about half the
 * conditional branches (7/8 of the indirect ones): the period where that happens is what the
 * model backend's predictors (src/backend/model/predictor.h) are sized by.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long sum;

/* Eight callees, distinct targets (the struct declaration takes the semicolon). */
#define TARGET(n)                                          \
	__attribute__((noinline)) static void t##n(long i) \
	{                                                  \
		__asm__ volatile("" ::: "memory");         \
		sum += i ^ n;                              \
	}                                                  \
	struct t##n##_unused
TARGET(0);
TARGET(1);
TARGET(2);
TARGET(3);
TARGET(4);
TARGET(5);
TARGET(6);
TARGET(7);
static void (*const targets[8])(long) = { t0, t1, t2, t3, t4, t5, t6, t7 };

int main(int argc, char **argv)
{
	int indirect = argc == 4 && !strcmp(argv[1], "indirect");
	unsigned long period = argc == 4 ? strtoul(argv[2], NULL, 10) : 0;
	long iters = argc == 4 ? atol(argv[3]) : 0;

	if ((!indirect && (argc != 4 || strcmp(argv[1], "cond"))) || !period || iters <= 0) {
		fprintf(stderr, "usage: branch_patterns cond|indirect PERIOD ITERATIONS\n");
		return 2;
	}
	unsigned char *pattern = malloc(period);
	uint64_t x = 12345;

	if (!pattern) {
		perror("branch_patterns");
		return 1;
	}
	for (unsigned long i = 0; i < period; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		pattern[i] = (unsigned char)(indirect ? x >> 61 : x >> 63);
	}
	unsigned long j = 0;

	for (long i = 0; i < iters; i++) {
		if (indirect)
			targets[pattern[j]](i);
		else if (pattern[j]) {
			__asm__ volatile("" ::: "memory");
			sum += i;
		} else
			sum ^= i;
		j = j + 1 == period ? 0 : j + 1;
	}
	printf("%ld\n", sum);
	free(pattern);
	return 0;
}
