/*
 * op_cache.c - where the front end's decoded-op cache runs out and the decoders feed the
 * core: N blocks of code, each a line apart in a random order, each K four-byte nops and a
 * jmp to the next. While the op cache holds every block, a block of K + 1 instructions comes
 * at the cache's rate; past it, at the decoders' (four instructions a cycle on Zen 5, with a
 * cycle at each taken branch), and past L1i too with each line from L2 besides. The
 * model backend has no op cache (docs/internals/model-backend.md, stop 68).
 *
 *   bench/op_cache time N K        cycles a block natively, timed over about 2,000,000 blocks
 *   bench/op_cache run N K PASSES  PASSES passes over the N blocks (for the model backend)
 *
 * A time is the difference of two trip counts' time-counter ticks (each the fewest of seven
 * runs) turned into core cycles by a chain of 64 dependent `add rax, rsi`, three rounds and
 * their fewest. bench/op_cache.py prints the table beside the model backend's figures.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__x86_64__)
#include "jit_loop.h"

#define STRIDE JIT_STRIDE
#define MAX_K  14 /* 14 nops and a jmp fill a line but 3 bytes */

/*
 * The N blocks in a random order (a fixed seed), the loop's tail (dec rdi; jnz to the first
 * block; ret) and an entry (jmp to the first block). Returns the entry.
 */
static pass_fn build(uint8_t *code, unsigned n, unsigned k)
{
	unsigned *order = jit_order(n);
	uint8_t *tail = code + (size_t)n * STRIDE, *p;

	if (!order)
		return NULL;
	for (unsigned i = 0; i < n; i++) {
		p = code + (size_t)order[i] * STRIDE;
		for (unsigned j = 0; j < k; j++)
			*p++ = 0x0f, *p++ = 0x1f, *p++ = 0x40, *p++ = 0x00; /* nop dword [rax] */
		*p = 0xe9;
		put_rel32(p + 1, i + 1 < n ? code + (size_t)order[i + 1] * STRIDE : tail);
	}
	uint8_t *first = code + (size_t)order[0] * STRIDE;

	free(order);
	return jit_close(tail, first, NULL, 0);
}

static int usage(void)
{
	fprintf(stderr, "usage: bench/op_cache time N K | run N K PASSES\n"
			"  N blocks (1 to 65536), each K nops (0 to 14) and a jmp\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return usage();

	int timing = !strcmp(argv[1], "time");
	char *end;
	unsigned long n = strtoul(argv[2], &end, 10), k = strtoul(argv[3], NULL, 10);
	uint64_t passes = argc > 4 ? strtoull(argv[4], NULL, 10) : 0;

	if ((timing && argc != 4) ||
	    (!timing && (strcmp(argv[1], "run") || argc != 5 || !passes)) || *end || n < 1 ||
	    n > 65536 || k > MAX_K)
		return usage();

	size_t code_bytes = (n + 1) * STRIDE + 8192;
	uint8_t *code = mmap(NULL, code_bytes, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (code == MAP_FAILED) {
		fprintf(stderr, "op_cache: out of memory\n");
		return 1;
	}
	pass_fn f = build(code, (unsigned)n, (unsigned)k);

	if (!f) {
		fprintf(stderr, "op_cache: out of memory\n");
		return 1;
	}
	if (!timing) {
		f(passes, NULL);
		munmap(code, code_bytes);
		return 0;
	}

	pass_fn ref = jit_ref(code + (n + 1) * STRIDE + 4096);
	uint64_t p = 2000000 / n + 1;
	double best = 1e300;

	f(p, NULL);
	for (int round = 0; round < 3; round++) {
		double tick = jit_ticks_a_pass(ref, 1000000, NULL) / 64; /* a cycle */
		double c = jit_ticks_a_pass(f, p, NULL) / tick / (double)n;

		best = c < best ? c : best;
	}
	printf("%lu %lu %.3f\n", n, k, best);
	munmap(code, code_bytes);
	return 0;
}
#else
int main(void)
{
	puts("op_cache: x86-64 only");
	return 0;
}
#endif
