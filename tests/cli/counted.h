/*
 * counted.h - counted(n, p), whose counts are known exactly: 3 + 4n instructions, n + 1
 * loads (the ret's among them), n stores, n conditional branches (n - 1 taken) and one
 * return. Defined here (in assembly, so that no compiler changes it); include it in one file
 * of a program.
 */
#ifndef IPCC_TESTS_COUNTED_H
#define IPCC_TESTS_COUNTED_H

long counted(long n, long *p);

__asm__(".text\n"
	".globl counted\n"
	".type counted, @function\n"
	"counted:\n"
	"	mov %rdi, %rcx\n"
	"	xor %eax, %eax\n"
	"1:	add (%rsi), %rax\n"
	"	mov %rax, 8(%rsi)\n"
	"	dec %rcx\n"
	"	jnz 1b\n"
	"	ret\n"
	".size counted, .-counted\n");

#endif
