/*
 * model_traces.c: a loop of more segments than a short walk finds (model_branches.sh).
 *   model_traces N   N iterations of: ten branches that are never taken (each ends a
 *                    segment), then a call to tail(), whose last segment is as glibc's
 *                    memcmp ends: tzcnt rax, rax; movzx eax, byte [rsi + rax]; ret.
 * Alone as a loop, that segment carries rax from one pass into the next: the tzcnt and the
 * load, 8 cycles a pass on Golden Cove. In the program rax comes fresh from the segment
 * before it (mov rax, rdi), so a core runs the whole loop in a few cycles.
 *   model_traces jumps N   N passes over a chain of 2,048 jmps, each to the next, 16 bytes
 *                    apart (32 KiB of code): more taken branches than a first-level
 *                    branch-target buffer holds. A Granite Rapids-class guest: 2.10 cycles a
 *                    jump natively (256 of them: 1.05).
 *   model_traces lines N   N passes over a chain of 384 jmps, each to the next, a 64-byte
 *                    line apart (24 KiB of code, within L1i): more than Emerald Rapids' first
 *                    level holds (1.92-2.03 cycles a jump natively; 256 of them 0.94-1.56,
 *                    128 0.77-1.14), fewer than goldencove's 1,024.
 *   model_traces packed N   N passes over eight jmps, each to the next, 2 bytes apart at the
 *                    start of a line, then the loop's dec, jnz in the next line: more taken
 *                    branches in 32 bytes than this core's front end keeps (Emerald Rapids:
 *                    31-39 cycles a pass natively; 9 taken branches, 9 cycles, spread out).
 *   model_traces both N   N iterations of a loop whose jz is taken two iterations in four
 *                    (bit 1 of the count), predicted: it goes both ways (Emerald Rapids:
 *                    2.98-3.29 cycles an iteration, where one taken branch a cycle gives 1.50);
 *                    its jz and the loop's jnz in one 32-byte half. `apart N` the same loop
 *                    12 bytes into a line: the two in the line's two halves (2.25 cycles).
 *   model_traces chain N   N passes over a chain of 49,152 jmps, each to the next, 4 bytes
 *                    apart (192 KiB of code): more than Zen 5's branch-target buffer holds
 *                    (about 32,768: 17.6 cycles a jump natively; 1.06 for 8,192).
 *   model_traces far N   N calls through a pointer to one of 1,024 functions 128 bytes
 *                    apart (128 KiB of code), chosen at random: each call is mispredicted
 *                    and three in four restart the fetch at a line L1i does not hold. `near
 *                    N` the same with the functions 16 bytes apart (16 KiB, within L1i).
 *                    A Zen 5 guest: 13.3 ns a call far, 9.6-10.4 near (11-13 cycles).
 *   model_traces scatter N   N passes over a chain of 2,048 jmps a line apart (128 KiB),
 *                    each to the one 67 lines on: every jump an L1i miss that L2 serves on
 *                    the predicted path, which no next-line prefetch brings in. Zen 5: 2.0
 *                    cycles a jump natively, 0.7 within L1i (stop 65).
 *   model_traces runs N   N passes over 2,048 blocks of two lines (256 KiB of code), each
 *                    jumping to the one 67 on from its second line, into which it runs
 *                    from its first: the line the L1i prefetcher asks L2 for is then run.
 *                    `hops N` the same with each block's jmp at its first line, its second
 *                    never run (the line the prefetcher brings is not used).
 *   model_traces dispatch N   N iterations of an interpreter's loop: a call through memory
 *                    (call [rax+16], as perl's runops) to a function of four chains of four
 *                    adds, which returns where the next one is; `direct N` the same loop with
 *                    a direct call. The function's chains take 4 cycles an iteration, more
 *                    than an indirect call's floor under the loop (raptorcove's 2 cycles).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long tail(long m, const unsigned char *p);
__asm__(".text\n"
	".type tail, @function\n"
	"tail:\n"
	"	mov %rdi, %rax\n"
	"	test %rdi, %rdi\n"
	"	jz 1f\n"
	"	tzcnt %rax, %rax\n"
	"	movzbl (%rsi, %rax), %eax\n"
	"	ret\n"
	"1:	xor %eax, %eax\n"
	"	ret\n"
	".size tail, . - tail\n");

void jumps(long n);
__asm__(".text\n"
	".p2align 6\n"
	".type jumps, @function\n"
	"jumps:\n"
	".rept 2048\n"
	"	jmp 1f\n"
	"	.p2align 4\n"
	"1:\n"
	".endr\n"
	"	dec %rdi\n"
	"	jnz jumps\n"
	"	ret\n"
	".size jumps, . - jumps\n");

void lines(long n);
__asm__(".text\n"
	".p2align 6\n"
	".type lines, @function\n"
	"lines:\n"
	".rept 384\n"
	"	jmp 1f\n"
	"	.p2align 6\n"
	"1:\n"
	".endr\n"
	"	dec %rdi\n"
	"	jnz lines\n"
	"	ret\n"
	".size lines, . - lines\n");

void chain(long n);
__asm__(".text\n"
	".p2align 6\n"
	".type chain, @function\n"
	"chain:\n"
	".rept 49152\n"
	"	jmp 1f\n"
	"	.p2align 2\n"
	"1:\n"
	".endr\n"
	"	dec %rdi\n"
	"	jnz chain\n"
	"	ret\n"
	".size chain, . - chain\n");

/*
 * 2,048 jmps a line apart, each to the one 67 lines on (modulo 2,048; the one whose next
 * would be the first ends the pass): one cycle through all of them, never to the next line.
 */
void scatter(long n);
__asm__(".text\n"
	".p2align 6\n"
	".type scatter, @function\n"
	"scatter:\n"
	".set scatter_j, 0\n"
	".rept 2048\n"
	"	.p2align 6\n"
	"	.if ((scatter_j + 67) % 2048) == 0\n"
	"	jmp 2f\n"
	"	.else\n"
	"	jmp scatter + ((scatter_j + 67) % 2048) * 64\n"
	"	.endif\n"
	"	.set scatter_j, scatter_j + 1\n"
	".endr\n"
	"	.p2align 6\n"
	"2:	dec %rdi\n"
	"	jnz scatter\n"
	"	ret\n"
	".size scatter, . - scatter\n");

/* 2,048 blocks of 128 bytes, each jumping to the one 67 on, after BODY. */
#define BLOCKS(name, body)                                                              \
	void name(long n);                                                              \
	__asm__(".text\n"                                                               \
		".p2align 7\n"                                                          \
		".type " #name ", @function\n" #name ":\n"                              \
		".set " #name "_j, 0\n"                                                 \
		".rept 2048\n"                                                          \
		"	.p2align 7\n" body "	.if ((" #name "_j + 67) % 2048) == 0\n" \
		"	jmp 2f\n"                                                             \
		"	.else\n"                                                              \
		"	jmp " #name " + ((" #name "_j + 67) % 2048) * 128\n"            \
		"	.endif\n"                                                             \
		"	.set " #name "_j, " #name "_j + 1\n"                            \
		".endr\n"                                                               \
		"	.p2align 7\n"                                                         \
		"2:	dec %rdi\n"                                                         \
		"	jnz " #name "\n"                                                \
		"	ret\n"                                                                \
		".size " #name ", . - " #name "\n");
/* a line of 64 one-byte nops, then the jmp at the second line's start */
BLOCKS(runs, "	.skip 64, 0x90\n")
BLOCKS(hops, "")

/* 1,024 functions of lea rax, [rdi + 1]; ret: 128 (far) or 16 bytes (near) apart. */
#define FUNCTIONS(name, align)                             \
	long name(long);                                   \
	__asm__(".text\n"                                  \
		".p2align 7\n"                             \
		".type " #name ", @function\n" #name ":\n" \
		".rept 1024\n"                             \
		"	lea 1(%rdi), %rax\n"                     \
		"	ret\n"                                   \
		"	.p2align " #align "\n"             \
		".endr\n"                                  \
		".size " #name ", . - " #name "\n");
FUNCTIONS(far_fns, 7)
FUNCTIONS(near_fns, 4)

/* n calls to the function at base + a random index << shift */
static void calls(long n, uintptr_t base, unsigned shift)
{
	uint64_t s = 1;
	long acc = 0;

	for (long i = 0; i < n; i++) {
		s = s * 6364136223846793005u + 1442695040888963407u;
		acc += ((long (*)(long))(base + ((s >> 54) << shift)))(acc);
	}
	printf("%ld\n", acc);
}

static void far(long n)
{
	calls(n, (uintptr_t)far_fns, 7);
}

static void near(long n)
{
	calls(n, (uintptr_t)near_fns, 4);
}

void packed(long n);
__asm__(".text\n"
	".p2align 6\n"
	".type packed, @function\n"
	"packed:\n"
	".rept 8\n"
	"	jmp 1f\n"
	"1:\n"
	".endr\n"
	"	.p2align 6\n"
	"	dec %rdi\n"
	"	jnz packed\n"
	"	ret\n"
	".size packed, . - packed\n");

/* jz on the count's bits MASK: taken where they are all clear; the loop after PAD. */
#define TURNS(name, mask, pad)                                      \
	void name(long n);                                          \
	__asm__(".text\n"                                           \
		".p2align 6\n"                                      \
		".type " #name ", @function\n" #name ":\n"          \
		"	xor %r8d, %r8d\n"                                 \
		"	xor %edx, %edx\n" pad "1:	mov %r8d, %eax\n" \
		"	and $" #mask ", %eax\n"                     \
		"	jz 2f\n"                                          \
		"	add $1, %rdx\n"                                   \
		"2:	add $1, %r8\n"                                  \
		"	dec %rdi\n"                                       \
		"	jnz 1b\n"                                         \
		"	ret\n"                                            \
		".size " #name ", . - " #name "\n");
TURNS(both, 2, "")
TURNS(apart, 2, ".p2align 6\n.skip 12, 0x90\n")

/* ops: a "struct op" of three words whose third is the function (work), as perl's. */
void dispatch(long n);
void direct(long n);
__asm__(".text\n"
	".type work, @function\n"
	"work:\n"
	".rept 4\n"
	"	add %rcx, %r8\n"
	"	add %rcx, %r9\n"
	"	add %rcx, %r10\n"
	"	add %rcx, %r11\n"
	".endr\n"
	"	mov %rdi, %rax\n"
	"	ret\n"
	".size work, . - work\n"
	".type dispatch, @function\n"
	"dispatch:\n"
	"	mov %rdi, %rdx\n"
	"	lea ops(%rip), %rdi\n"
	"	mov %rdi, %rax\n"
	"1:	call *16(%rax)\n"
	"	dec %rdx\n"
	"	jnz 1b\n"
	"	ret\n"
	".size dispatch, . - dispatch\n"
	".type direct, @function\n"
	"direct:\n"
	"	mov %rdi, %rdx\n"
	"	lea ops(%rip), %rdi\n"
	"	mov %rdi, %rax\n"
	"1:	call work\n"
	"	dec %rdx\n"
	"	jnz 1b\n"
	"	ret\n"
	".size direct, . - direct\n"
	".section .data.rel.local\n"
	".p2align 3\n"
	"ops:	.quad 0, 0, work\n"
	".text\n");

/*
 * interp: an interpreter's loop through eight functions in turn (call *(%r12, %rcx, 8)), each
 * an op whose last segment is a chain of three loads from a pointer it took fresh from rdi
 * in its first (a never-taken branch between). No successor of the call is taken half the
 * time, so no loop of segments holds an op; alone as a loop the last segment carries its
 * chain into its next pass (15 cycles under raptorcove's 5-cycle loads), where the core
 * starts each op's chain anew and overlaps them.
 */
void interp(long n);
#define OP(k)                         \
	".type op" #k ", @function\n" \
	"op" #k ":\n"                 \
	"	mov %rdi, %rax\n"           \
	"	test %rsi, %rsi\n"          \
	"	jnz 9f\n"                   \
	"	mov (%rax), %rax\n"         \
	"	mov (%rax), %rax\n"         \
	"	mov (%rax), %rax\n"         \
	"	ret\n"                      \
	"9:	ud2\n"
__asm__(".text\n" OP(0) OP(1) OP(2) OP(3) OP(4) OP(5) OP(6)
	    OP(7) ".type interp, @function\n"
		  "interp:\n"
		  "	push %rbx\n"
		  "	push %r12\n"
		  "	mov %rdi, %rdx\n"
		  "	lea self(%rip), %rbx\n"
		  "	lea optab(%rip), %r12\n"
		  "	xor %ecx, %ecx\n"
		  "	xor %esi, %esi\n"
		  "1:	mov %rbx, %rdi\n"
		  "	call *(%r12, %rcx, 8)\n"
		  "	inc %ecx\n"
		  "	and $7, %ecx\n"
		  "	dec %rdx\n"
		  "	jnz 1b\n"
		  "	pop %r12\n"
		  "	pop %rbx\n"
		  "	ret\n"
		  ".size interp, . - interp\n"
		  ".section .data.rel.local\n"
		  ".p2align 3\n"
		  "self:	.quad self\n"
		  "optab:	.quad op0, op1, op2, op3, op4, op5, op6, op7\n"
		  ".text\n");

static const struct {
	const char *name;
	void (*run)(long);
} modes[] = {
	{ "jumps", jumps }, { "lines", lines },	      { "packed", packed }, { "both", both },
	{ "apart", apart }, { "dispatch", dispatch }, { "direct", direct }, { "interp", interp },
	{ "chain", chain }, { "far", far },	      { "near", near },	    { "scatter", scatter },
	{ "runs", runs },   { "hops", hops },
};

static unsigned char bytes[64];

/* A branch never taken: a segment ends at it. */
#define EXIT() __asm__ goto("test %0, %0\n\tjnz %l1" ::"r"(zero) : "cc" : out)

int main(int argc, char **argv)
{
	long n = argc >= 2 ? atol(argv[argc - 1]) : 0, sum = 0;
	volatile long z = 0;
	long zero = z;

	if (n <= 0 || argc > 3) {
		fprintf(stderr,
			"usage: model_traces "
			"[jumps|lines|packed|both|apart|dispatch|direct|interp|chain|far|near|"
			"scatter|runs|hops] "
			"ITERATIONS\n");
		return 2;
	}
	for (size_t m = 0; argc == 3 && m < sizeof(modes) / sizeof(modes[0]); m++)
		if (!strcmp(argv[1], modes[m].name)) {
			modes[m].run(n);
			return 0;
		}
	if (argc == 3) {
		fprintf(stderr,
			"model_traces: no mode %s (jumps, lines, packed, both, apart, dispatch, "
			"direct, interp, chain, far, near, scatter, runs, hops)\n",
			argv[1]);
		return 2;
	}
	for (long i = 1; i <= n; i++) {
		EXIT();
		EXIT();
		EXIT();
		EXIT();
		EXIT();
		EXIT();
		EXIT();
		EXIT();
		EXIT();
		EXIT();
		sum += tail(i | 1, bytes);
	}
	printf("%ld\n", sum);
	return 0;
out:
	abort();
}
