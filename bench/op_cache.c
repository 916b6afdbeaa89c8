/*
 * op_cache.c - where the front end's decoded-op cache runs out and the decoders feed the
 * core: N blocks of code, each a line apart in a random order, each K four-byte nops and a
 * jmp to the next. While the op cache holds every block, a block of K + 1 instructions comes
 * at the cache's rate; past it, at the decoders' (four instructions a cycle on Zen 5, with a
 * cycle at each taken branch), and past L1i too with each line from L2 besides. The
 * model backend has no op cache's capacity (docs/internals/model-backend.md, stop 68).
 * With K written Km the block's instructions are adds and loads in turn instead (add ecx,
 * edx, r8d .. r11d, 1, each register once a block; mov eax, [rsi + 8j]), which the op cache's
 * entries hold as they are (nops are fused away); Kd the same with the loads' displacements
 * 32 bits; Km@AT (or Kd@AT) each block AT bytes into two lines of its own, so that it
 * crosses into the second (zen5's opcache_entries, stop 70).
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

static unsigned stride = JIT_STRIDE, at; /* a block's room, and where in it the block starts */
#define STRIDE stride
#define MAX_K  14 /* 14 nops and a jmp fill a line but 3 bytes */

/*
 * The N blocks in a random order (a fixed seed), the loop's tail (dec rdi; jnz to the first
 * block; ret) and an entry (jmp to the first block). Returns the entry.
 */
static pass_fn build(uint8_t *code, unsigned n, unsigned k, int mix)
{
	unsigned *order = jit_order(n);
	uint8_t *tail = code + (size_t)n * STRIDE, *p;

	if (!order)
		return NULL;
	for (unsigned i = 0; i < n; i++) {
		p = code + (size_t)order[i] * STRIDE + at;
		for (unsigned j = 0; j < k; j++)
			if (!mix)
				*p++ = 0x0f, *p++ = 0x1f, *p++ = 0x40,
				*p++ = 0x00;	    /* nop dword [rax] */
			else if (j % 2 && mix == 2) /* mov eax, [rsi + 8 * (j / 2 % 4)], disp32 */
				*p++ = 0x8b, *p++ = 0x86, *p++ = (uint8_t)(8 * (j / 2 % 4)),
				*p++ = 0, *p++ = 0, *p++ = 0;
			else if (j % 2) /* mov eax, [rsi + 8 * (j / 2 % 4)] */
				*p++ = 0x8b, *p++ = 0x46, *p++ = (uint8_t)(8 * (j / 2 % 4));
			else if (j / 2 % 6 < 2) /* add ecx, 1; add edx, 1 */
				*p++ = 0x83, *p++ = (uint8_t)(0xc1 + j / 2 % 6), *p++ = 0x01;
			else /* add r8d..r11d, 1 */
				*p++ = 0x41, *p++ = 0x83, *p++ = (uint8_t)(0xc0 + j / 2 % 6 - 2),
				*p++ = 0x01;
		*p = 0xe9;
		put_rel32(p + 1, i + 1 < n ? code + (size_t)order[i + 1] * STRIDE + at : tail);
	}
	uint8_t *first = code + (size_t)order[0] * STRIDE + at;

	free(order);
	return jit_close(tail, first, NULL, 0);
}

static int usage(void)
{
	fprintf(stderr, "usage: bench/op_cache time N K | run N K PASSES\n"
			"  N blocks (1 to 65536), each K nops (0 to 14) and a jmp; K as Km: adds\n"
			"  and loads, Kd: with 32-bit displacements, Km@AT or Kd@AT: AT (0 to 63)\n"
			"  bytes into two lines\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return usage();

	int timing = !strcmp(argv[1], "time");
	char *end;
	char *kend;
	unsigned long n = strtoul(argv[2], &end, 10), k = strtoul(argv[3], &kend, 10);
	int mix = *kend == 'm' ? 1 : *kend == 'd' ? 2 : 0;

	kend += mix != 0;
	if (mix && *kend == '@') { /* Km@AT: each block AT bytes into two lines of its own */
		if (kend[1] < '0' || kend[1] > '9')
			return usage();
		at = (unsigned)strtoul(kend + 1, &kend, 10), stride = 2 * JIT_STRIDE;
		if (at >= JIT_STRIDE)
			return usage();
	}
	static uint64_t data[8];
	uint64_t passes = argc > 4 ? strtoull(argv[4], NULL, 10) : 0;

	if ((timing && argc != 4) ||
	    (!timing && (strcmp(argv[1], "run") || argc != 5 || !passes)) || *end || n < 1 ||
	    n > 65536 || k > MAX_K || *kend)
		return usage();

	size_t code_bytes = (n + 1) * STRIDE + 8192;
	uint8_t *code = mmap(NULL, code_bytes, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (code == MAP_FAILED) {
		fprintf(stderr, "op_cache: out of memory\n");
		return 1;
	}
	pass_fn f = build(code, (unsigned)n, (unsigned)k, mix);

	if (!f) {
		fprintf(stderr, "op_cache: out of memory\n");
		return 1;
	}
	if (!timing) {
		f(passes, (const uint8_t *)data);
		munmap(code, code_bytes);
		return 0;
	}

	pass_fn ref = jit_ref(code + (n + 1) * STRIDE + 4096);
	uint64_t p = 2000000 / n + 1;
	double best = 1e300;

	f(p, (const uint8_t *)data);
	for (int round = 0; round < 3; round++) {
		double tick = jit_ticks_a_pass(ref, 1000000, NULL) / 64; /* a cycle */
		double c = jit_ticks_a_pass(f, p, (const uint8_t *)data) / tick / (double)n;

		best = c < best ? c : best;
	}
	printf("%lu %s %.3f\n", n, argv[3], best);
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
