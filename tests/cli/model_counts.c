/*
 * model_counts.c - a program whose counts in one function are known exactly, for the model
 * backend's test (stat_model.sh): counted(n, p) runs 3 + 4n instructions, n + 1 loads (the
 * ret's among them), n stores, n conditional branches (n - 1 taken) and one return.
 * `model_counts N rep` runs rep_runs(N, buf) instead: N passes of 6 instructions, one of
 * them a rep stosb of 1,000 bytes (one instruction however many bytes it stores).
 */
#include <stdlib.h>

#include <string.h>

#include "counted.h"

long rep_runs(long n, char *buf);

__asm__(".text\n"
	".globl rep_runs\n"
	".type rep_runs, @function\n"
	"rep_runs:\n"
	"	mov %rdi, %r8\n"
	"1:	mov %rsi, %rdi\n"
	"	mov $1000, %ecx\n"
	"	xor %eax, %eax\n"
	"	rep stosb\n"
	"	dec %r8\n"
	"	jnz 1b\n"
	"	ret\n"
	".size rep_runs, .-rep_runs\n");

int main(int argc, char **argv)
{
	static long cell[2] = { 1, 0 };
	static char buf[1000];
	long n = argc > 1 ? atol(argv[1]) : 100000;

	if (argc > 2 && !strcmp(argv[2], "rep"))
		return (int)rep_runs(n, buf);
	return counted(n, cell) == n ? 0 : 1;
}
