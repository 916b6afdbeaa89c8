/*
 * branch_patterns.c - the loops bench/branch_patterns.py times natively and under the model
 * backend: one conditional branch that repeats a random pattern of a given period, or one
 * indirect call that repeats a random sequence of eight targets.
 *
 *   bench/branch_patterns cond|indirect PERIOD ITERATIONS
 *   bench/branch_patterns many SITES PERIOD ITERATIONS
 *
 * A core's predictor learns a pattern up to its capacity and then misses about half the
 * conditional branches (7/8 of the indirect ones): the period where that happens is what the
 * model backend's predictors (src/backend/model/predictor.h) are sized by. `many` (x86-64
 * only) asks how many branches it holds at once: SITES conditional branches in a row of
 * straight code written at run time, each taken where bit (i mod PERIOD) of a random word of
 * its own is set (never all ones or zeros), so each takes about PERIOD entries of history.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

/*
 * SITES branches, each `mov eax, [rsi + 4k]; bt eax, ecx; jc +1; nop`, then `inc ecx; and
 * ecx, edx; dec rdi; jnz` back to the first: rdi the iterations, rsi the words, edx PERIOD - 1.
 */
static int many(long sites, unsigned period, long iters)
{
#if defined(__x86_64__)
	size_t size = (size_t)sites * 12 + 64; /* 12 bytes a branch, 16 for the loop */
	uint32_t *word = malloc((size_t)sites * sizeof(*word));
	unsigned char *code = mmap(NULL, size, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t x = 12345;

	if (!word || code == MAP_FAILED) {
		perror("branch_patterns");
		free(word);
		return 1;
	}
	for (long k = 0; k < sites; k++) {
		do {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			word[k] = (uint32_t)(x >> 40) & ((1u << period) - 1);
		} while (word[k] == 0 || word[k] == (1u << period) - 1);
	}
	unsigned char *p = code;

	for (long k = 0; k < sites; k++) {
		int32_t off = (int32_t)(4 * k);

		*p++ = 0x8b, *p++ = 0x86; /* mov eax, [rsi + off] */
		memcpy(p, &off, 4), p += 4;
		*p++ = 0x0f, *p++ = 0xa3, *p++ = 0xc8; /* bt eax, ecx */
		*p++ = 0x72, *p++ = 0x01;	       /* jc +1 */
		*p++ = 0x90;			       /* nop */
	}
	*p++ = 0xff, *p++ = 0xc1;	       /* inc ecx */
	*p++ = 0x21, *p++ = 0xd1;	       /* and ecx, edx */
	*p++ = 0x48, *p++ = 0xff, *p++ = 0xcf; /* dec rdi */
	*p++ = 0x0f, *p++ = 0x85;	       /* jnz code */
	int32_t rel = (int32_t)(code - (p + 4));

	memcpy(p, &rel, 4), p += 4;
	*p = 0xc3; /* ret */
	void (*run)(long, const uint32_t *, long, long);

	memcpy(&run, &code, sizeof(run));
	run(iters, word, (long)period - 1, 0);
	munmap(code, size);
	free(word);
	printf("%ld\n", sites);
	return 0;
#else
	(void)sites, (void)period, (void)iters;
	fprintf(stderr, "branch_patterns: many runs on x86-64 only\n");
	return 2;
#endif
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "many")) {
		long sites = atol(argv[2]), iters = atol(argv[4]);
		unsigned long period = strtoul(argv[3], NULL, 10);

		if (sites <= 0 || sites > (1l << 20) || period < 2 || period > 16 || iters <= 0) {
			fprintf(stderr, "usage: branch_patterns many SITES(1-1048576) "
					"PERIOD(2-16) ITERATIONS\n");
			return 2;
		}
		return many(sites, (unsigned)period, iters);
	}
	int indirect = argc == 4 && !strcmp(argv[1], "indirect");
	unsigned long period = argc == 4 ? strtoul(argv[2], NULL, 10) : 0;
	long iters = argc == 4 ? atol(argv[3]) : 0;

	if ((!indirect && (argc != 4 || strcmp(argv[1], "cond"))) || !period || iters <= 0) {
		fprintf(stderr, "usage: branch_patterns cond|indirect PERIOD ITERATIONS\n"
				"       branch_patterns many SITES PERIOD ITERATIONS\n");
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
