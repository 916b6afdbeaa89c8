/*
 * front_end.c - what this core's front end does with branches packed close, and with a
 * branch that goes both ways but is predicted: the two things behind the model backend's
 * misses on the branch.alternate and call.direct kernels (docs/internals/model-backend.md,
 * "Figures on the Emerald Rapids guest, stop 39"), which the pipeline model lacks.
 *
 *   bench/front_end [SCALE]
 *
 * Each loop runs N and 2N iterations (N = 1,000,000 x SCALE, default 1); a loop's figure is
 * the difference of the two runs' time-counter ticks over N, each run the fewest ticks of
 * nine, turned into core cycles by a chain of 64 dependent `add rax, rsi` timed alike (one
 * cycle each on every x86 core; an add of an immediate some cores fold). Three rounds; the
 * fewest cycles of each loop and the rounds' spread.
 *
 * Loops: one `jz` taken never, always, every other iteration, or on a period of 4 or 8, beside
 * the loop's `jnz` (all of them predictable), the two in one 32-byte half of a line; every
 * other iteration and on a period of 4 with the loop 12 bytes into its line, the two in the
 * line's two halves (a branch that goes both ways costs the front end less there: the model
 * backend's branch_mixed_apart); N `jmp`s to the next, 2, 8 or 32 bytes apart
 * (N + 1 taken branches an iteration with the loop's); a chain of four calls and returns
 * packed (as the call.direct kernel) or a line apart; a call and its return alone, two deep,
 * four of one leaf in a row, and one whose callee does four adds (what a call and its
 * return take as a pair: the profile's call_ret_cycles).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__x86_64__)
#include <x86intrin.h>

#define LOOP(name, body)                                                                 \
	__asm__(".text\n.p2align 6\n.globl fe_" #name "\n.type fe_" #name ",@function\n" \
		"fe_" #name ":\n" body "\n.size fe_" #name ", .-fe_" #name "\n");

/* 64 dependent adds an iteration: 64 cycles */
LOOP(ref, "1:\n.rept 64\nadd %rsi, %rax\n.endr\ndec %rdi\njnz 1b\nret")
/* the jz's direction from bit `b` of an iteration count: never, always, 1, 2 or 4 */
#define JZ_AT(name, test, start)                                   \
	LOOP(name, "xor %r8d, %r8d\n.p2align 6\n" start "1: " test \
		   "\njz 2f\nadd $1, %rdx\n2: add $1, %r8\ndec %rdi\njnz 1b\nret")
#define JZ(name, test) JZ_AT(name, test, "")
JZ(never, "mov $1, %eax\nand $1, %eax")
JZ(always, "xor %eax, %eax\nand $1, %eax")
JZ(alternate, "mov %r8d, %eax\nand $1, %eax")
JZ(period4, "mov %r8d, %eax\nand $2, %eax")
JZ(period8, "mov %r8d, %eax\nand $4, %eax")
JZ_AT(alternate_apart, "mov %r8d, %eax\nand $1, %eax", ".skip 12, 0x90\n")
JZ_AT(period4_apart, "mov %r8d, %eax\nand $2, %eax", ".skip 12, 0x90\n")
/* n jmps, each to the next, `align` bytes apart (.p2align), then the loop's branch */
#define J1(a)		 "jmp 3f\n.p2align " #a "\n3:\n"
#define JMPS(name, body) LOOP(name, ".p2align 6\n1:\n" body "dec %rdi\njnz 1b\nret")
JMPS(jmp5_2, J1(0) J1(0) J1(0) J1(0) J1(0))
JMPS(jmp6_2, J1(0) J1(0) J1(0) J1(0) J1(0) J1(0))
JMPS(jmp8_2, J1(0) J1(0) J1(0) J1(0) J1(0) J1(0) J1(0) J1(0))
JMPS(jmp8_8, J1(3) J1(3) J1(3) J1(3) J1(3) J1(3) J1(3) J1(3))
JMPS(jmp8_32, J1(5) J1(5) J1(5) J1(5) J1(5) J1(5) J1(5) J1(5))
/* four calls and returns, each function calling the next: packed, or a line apart */
LOOP(calls_packed, ".p2align 6\n1: call 11f\ndec %rdi\njnz 1b\nret\n11: call 12f\nret\n"
		   "12: call 13f\nret\n13: call 14f\nret\n14: ret")
LOOP(calls_spread, ".p2align 6\n1: call 21f\ndec %rdi\njnz 1b\nret\n.p2align 6\n21: call 22f\n"
		   "ret\n.p2align 6\n22: call 23f\nret\n.p2align 6\n23: call 24f\nret\n"
		   ".p2align 6\n24: ret")
/* a call and its return; two deep; four calls of one leaf; a callee of four adds */
LOOP(call1, ".p2align 6\n1: call 31f\ndec %rdi\njnz 1b\nret\n.p2align 6\n31: ret")
LOOP(call2, ".p2align 6\n1: call 41f\ndec %rdi\njnz 1b\nret\n.p2align 6\n41: call 42f\nret\n"
	    ".p2align 6\n42: ret")
LOOP(call_leaf4, ".p2align 6\n1: call 51f\ncall 51f\ncall 51f\ncall 51f\ndec %rdi\njnz 1b\n"
		 "ret\n.p2align 6\n51: ret")
LOOP(call_work, ".p2align 6\n1: call 61f\ndec %rdi\njnz 1b\nret\n.p2align 6\n61: add %rsi, "
		"%rax\nadd %rsi, %rax\nadd %rsi, %rax\nadd %rsi, %rax\nret")

void fe_ref(long), fe_never(long), fe_always(long), fe_alternate(long), fe_period4(long),
    fe_period8(long), fe_alternate_apart(long), fe_period4_apart(long), fe_jmp5_2(long),
    fe_jmp6_2(long), fe_jmp8_2(long), fe_jmp8_8(long), fe_jmp8_32(long), fe_calls_packed(long),
    fe_calls_spread(long), fe_call1(long), fe_call2(long), fe_call_leaf4(long), fe_call_work(long);

static const struct {
	const char *name, *what;
	void (*fn)(long);
} loops[] = {
	{ "jz.never", "one jz, never taken, and the loop's jnz", fe_never },
	{ "jz.always", "taken every iteration", fe_always },
	{ "jz.alternate", "taken every other iteration", fe_alternate },
	{ "jz.period4", "taken two iterations in four", fe_period4 },
	{ "jz.period8", "taken four in eight", fe_period8 },
	{ "jz.alt.apart", "every other, the jz and jnz in a line's two halves",
	  fe_alternate_apart },
	{ "jz.p4.apart", "two in four, in the two halves", fe_period4_apart },
	{ "jmp5.2", "five jmps 2 bytes apart, and the loop's jnz", fe_jmp5_2 },
	{ "jmp6.2", "six jmps 2 bytes apart", fe_jmp6_2 },
	{ "jmp8.2", "eight jmps 2 bytes apart", fe_jmp8_2 },
	{ "jmp8.8", "eight jmps 8 bytes apart", fe_jmp8_8 },
	{ "jmp8.32", "eight jmps 32 bytes apart", fe_jmp8_32 },
	{ "calls.packed", "four calls and returns 6 bytes apart", fe_calls_packed },
	{ "calls.spread", "the same, each function a line apart", fe_calls_spread },
	{ "call.1", "a call and its return", fe_call1 },
	{ "call.2", "a call two deep and the returns", fe_call2 },
	{ "call.leaf4", "four calls of one leaf in a row", fe_call_leaf4 },
	{ "call.work", "a call of four chained adds", fe_call_work },
};
#define NLOOPS (sizeof(loops) / sizeof(loops[0]))

/* The fewest ticks of nine runs of n iterations. */
static double fewest(void (*fn)(long), long n)
{
	double best = 1e300;

	for (int r = 0; r < 9; r++) {
		uint64_t t0 = __rdtsc();

		fn(n);

		double t = (double)(__rdtsc() - t0);

		if (t < best)
			best = t;
	}
	return best;
}

/* Ticks an iteration: the difference of n and 2n iterations. */
static double per_iteration(void (*fn)(long), long n)
{
	return (fewest(fn, 2 * n) - fewest(fn, n)) / (double)n;
}

int main(int argc, char **argv)
{
	double scale = argc > 1 ? atof(argv[1]) : 1.0;
	long n = (long)(1e6 * scale);
	double best[NLOOPS], worst[NLOOPS];

	if (argc > 2 || n < 1000) {
		fprintf(stderr, "usage: bench/front_end [SCALE] (at least 0.001)\n");
		return 2;
	}
	for (size_t i = 0; i < NLOOPS; i++)
		best[i] = 1e300, worst[i] = 0;
	for (int round = 0; round < 3; round++) {
		double tick = per_iteration(fe_ref, n / 16 > 0 ? n / 16 : 1) / 64; /* a cycle */

		for (size_t i = 0; i < NLOOPS; i++) {
			double c = per_iteration(loops[i].fn, n) / tick;

			best[i] = c < best[i] ? c : best[i];
			worst[i] = c > worst[i] ? c : worst[i];
		}
	}
	printf(
	    "front_end: core cycles an iteration, the fewest of three rounds (a cycle: one of 64 "
	    "chained adds), and the rounds' spread\n\n");
	printf("%-14s %8s %8s  %s\n", "loop", "cycles", "spread", "what");
	for (size_t i = 0; i < NLOOPS; i++)
		printf("%-14s %8.2f %7.0f%%  %s\n", loops[i].name, best[i],
		       best[i] > 0 ? 100 * (worst[i] - best[i]) / best[i] : 0.0, loops[i].what);
	return 0;
}
#else
int main(void)
{
	printf("front_end: x86-64 only\n");
	return 0;
}
#endif
