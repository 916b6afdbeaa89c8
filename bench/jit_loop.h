/*
 * jit_loop.h - what bench/mispredict_sites.c and bench/op_cache.c share: blocks of code
 * written at run time into an executable mapping, N of them a line apart in a random order
 * (a fixed seed), closed into a loop of PASSES passes, and timed as the difference of two
 * trip counts' time-counter ticks (each the fewest of seven runs) against a chain of 64
 * dependent `add rax, rsi` (a cycle each on every x86 core). x86-64 only.
 */
#ifndef IPCC_BENCH_JIT_LOOP_H
#define IPCC_BENCH_JIT_LOOP_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#define JIT_STRIDE 64 /* a block a line */

/* A pass over the blocks, `passes` times (rdi), with `arg` in rsi. */
typedef void (*pass_fn)(uint64_t passes, const uint8_t *arg);

static void put_rel32(uint8_t *at, const uint8_t *target)
{
	int32_t rel = (int32_t)(target - (at + 4));

	memcpy(at, &rel, 4);
}

/* 0 to n - 1 in a random order (a fixed seed); NULL where there is no memory. */
static unsigned *jit_order(unsigned n)
{
	unsigned *order = malloc(n * sizeof *order);

	if (!order)
		return NULL;
	for (unsigned i = 0; i < n; i++)
		order[i] = i;
	srand(1);
	for (unsigned i = n - 1; i > 0; i--) {
		unsigned j = (unsigned)rand() % (i + 1), t = order[i];

		order[i] = order[j], order[j] = t;
	}
	return order;
}

/*
 * The loop's tail at p (dec rdi; jnz first; ret), then an entry: the `n` bytes of `pre`
 * and a jmp to the first block. Returns the entry.
 */
static pass_fn jit_close(uint8_t *p, const uint8_t *first, const uint8_t *pre, size_t n)
{
	*p++ = 0x48, *p++ = 0xff, *p++ = 0xcf; /* dec rdi */
	*p++ = 0x0f, *p++ = 0x85;	       /* jnz first */
	put_rel32(p, first);
	p += 4;
	*p++ = 0xc3;

	uint8_t *entry = p;

	if (n)
		memcpy(p, pre, n);
	p += n;
	*p++ = 0xe9; /* jmp first */
	put_rel32(p, first);
	return (pass_fn)(void *)entry;
}

/* 64 dependent add rax, rsi a pass: 64 cycles */
static pass_fn jit_ref(uint8_t *code)
{
	uint8_t *p = code;

	for (int i = 0; i < 64; i++)
		*p++ = 0x48, *p++ = 0x01, *p++ = 0xf0;
	*p++ = 0x48, *p++ = 0xff, *p++ = 0xcf, *p++ = 0x0f, *p++ = 0x85;
	put_rel32(p, code);
	p += 4;
	*p = 0xc3;
	return (pass_fn)(void *)code;
}

static double jit_fewest(pass_fn f, uint64_t passes, const uint8_t *arg)
{
	double best = 1e300;

	for (int run = 0; run < 7; run++) {
		uint64_t t0 = __rdtsc();

		f(passes, arg);

		double t = (double)(__rdtsc() - t0);

		best = t < best ? t : best;
	}
	return best;
}

/* Time-counter ticks a pass: the difference of 2 x passes and passes. */
static double jit_ticks_a_pass(pass_fn f, uint64_t passes, const uint8_t *arg)
{
	return (jit_fewest(f, 2 * passes, arg) - jit_fewest(f, passes, arg)) / (double)passes;
}

#endif
