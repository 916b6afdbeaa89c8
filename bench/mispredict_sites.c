/*
 * mispredict_sites.c - what a mispredict costs where many branch sites mispredict: N blocks
 * of code, each a line apart in a random order, each reading a byte of a 16 MiB random
 * array and branching on it (jz over an add), then jumping to the next block. Every R-th
 * block's branch goes both ways at random (half of them mispredicted); the others test a
 * register that is never zero (never taken). The array's index is a loop-carried chain of
 * two ALU operations (`inc`, `and`): two cycles a block where nothing else limits.
 *
 *   bench/mispredict_sites time N R [B]  cycles a block natively, random and never taken,
 *                                       timed over about B blocks (default 4,000,000)
 *   bench/mispredict_sites run N R K [never]
 *                                       K passes over the N blocks (for the model backend);
 *                                       with never, on bits that take no branch
 *
 * A time is the difference of two trip counts' time-counter ticks (each the fewest of
 * seven runs) turned into core cycles by a chain of 64 dependent `add rax, rsi`, three
 * rounds and their fewest; the array is larger than any predictor can learn (16 million
 * random bits), so half the random branches mispredict whatever N is. bench/
 * mispredict_sites.py prints the table beside the model backend's figures.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__x86_64__)
#include "jit_loop.h"

#define ARRAY_BYTES (1u << 24)
#define STRIDE	    JIT_STRIDE

/* movzx eax, byte [rsi + rcx]; inc ecx; and ecx, 0xffffff; test eax, eax; jz +3; add edx, 1 */
static const uint8_t block_body[] = { 0x0f, 0xb6, 0x04, 0x0e, 0xff, 0xc1, 0x81, 0xe1, 0xff, 0xff,
				      0xff, 0x00, 0x85, 0xc0, 0x74, 0x03, 0x83, 0xc2, 0x01 };
#define TEST_MODRM 13 /* 0xc0: test eax, eax; 0xe4: test esp, esp (never zero) */

/*
 * The N blocks in a random order (a fixed seed), the loop's tail (dec rdi; jnz to the
 * first block; ret) and an entry (xor ecx, ecx; jmp to the first block). Returns the entry.
 */
static pass_fn build(uint8_t *code, unsigned n, unsigned r)
{
	unsigned *order = jit_order(n);
	uint8_t *tail = code + (size_t)n * STRIDE, *p;

	if (!order)
		return NULL;
	for (unsigned i = 0; i < n; i++) {
		p = code + (size_t)order[i] * STRIDE;
		memcpy(p, block_body, sizeof block_body);
		if (i % r)
			p[TEST_MODRM] = 0xe4;
		p += sizeof block_body;
		*p = 0xe9;
		put_rel32(p + 1, i + 1 < n ? code + (size_t)order[i + 1] * STRIDE : tail);
	}
	uint8_t *first = code + (size_t)order[0] * STRIDE;

	free(order);

	static const uint8_t xor_ecx[] = { 0x31, 0xc9 }; /* xor ecx, ecx */

	return jit_close(tail, first, xor_ecx, sizeof xor_ecx);
}

static int usage(void)
{
	fprintf(stderr, "usage: bench/mispredict_sites time N R [BLOCKS] | run N R PASSES [never]\n"
			"  N blocks (1 to 65536), every R-th one's branch random (R at least 1)\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return usage();

	int timing = !strcmp(argv[1], "time");
	unsigned long n = strtoul(argv[2], NULL, 10), r = strtoul(argv[3], NULL, 10);
	uint64_t passes = argc > 4 ? strtoull(argv[4], NULL, 10) : 0;

	int on_never = argc == 6 && !strcmp(argv[5], "never");

	if ((!timing && (strcmp(argv[1], "run") || argc < 5 || argc > 6 || !passes ||
			 (argc == 6 && !on_never))) ||
	    (timing && (argc > 5 || (argc == 5 && !passes))) || n < 1 || n > 65536 || r < 1)
		return usage();

	size_t code_bytes = (n + 1) * STRIDE + 4096;
	uint8_t *code = mmap(NULL, code_bytes, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *random_bits = malloc(ARRAY_BYTES), *never = malloc(ARRAY_BYTES);

	if (code == MAP_FAILED || !random_bits || !never) {
		fprintf(stderr, "mispredict_sites: out of memory\n");
		return 1;
	}
	/* random bits from a xorshift (a fixed seed), eight a word's byte: quick under Valgrind */
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (unsigned i = 0; i < ARRAY_BYTES; i += 8) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t bits = x >> 3 & 0x0101010101010101ull;

		memcpy(random_bits + i, &bits, 8);
	}
	memset(never, 1, ARRAY_BYTES);

	pass_fn f = build(code, (unsigned)n, (unsigned)r);

	if (!f) {
		fprintf(stderr, "mispredict_sites: out of memory\n");
		return 1;
	}
	if (!timing) {
		f(passes, on_never ? never : random_bits);
		return 0;
	}

	pass_fn ref = jit_ref(code + (n + 1) * STRIDE);
	uint64_t k = (argc == 5 ? passes : 4000000) / n + 1;
	double rnd = 1e300, nev = 1e300;

	f(k, random_bits);
	for (int round = 0; round < 3; round++) {
		double tick = jit_ticks_a_pass(ref, 1000000, never) / 64; /* a cycle */
		double a = jit_ticks_a_pass(f, k, random_bits) / tick / (double)n;
		double b = jit_ticks_a_pass(f, k, never) / tick / (double)n;

		rnd = a < rnd ? a : rnd;
		nev = b < nev ? b : nev;
	}
	printf("%lu %lu %.3f %.3f\n", n, r, rnd, nev);
	munmap(code, code_bytes);
	free(random_bits);
	free(never);
	return 0;
}
#else
int main(void)
{
	printf("mispredict_sites: x86-64 only\n");
	return 0;
}
#endif
