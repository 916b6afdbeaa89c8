/*
 * kernels_x86_64.S - the microkernels' loop bodies (x86-64, System V ABI).
 *
 * Register contract, for every kernel:
 *   in:      rdi = iterations (>= 1), rsi = the kernel's argument (a pointer)
 *   uses:    rax, rcx, rdx, r8-r11, ymm0-ymm15 (all caller-saved); no stack beyond call/ret
 *   out:     rax = a value that depends on the work (so nothing is optimised away)
 *   leaves:  the upper halves of the ymm registers clean (vzeroupper) after AVX work
 * One iteration is one pass through the loop between the label `1:` and `jnz 1b`; the
 * expected counts per iteration, in the comment above each kernel, include the loop control
 * (sub rdi, 1; jnz). src/kernels/kernels.c registers them; tests/test_kernels.c counts each
 * one's instructions by single-stepping it (ptrace), independently of these comments.
 *
 * Everything between ipcc_kernels_start and ipcc_kernels_end is kernel code: the call kernels'
 * callees too, so the single-stepping test can count them.
 *
 * The block starts on a 4 KiB page (and fits in one), so each kernel sits at the same offset
 * in its page whatever the linker puts around it: with the block 64-byte aligned, a change
 * of link order moved branch.random's loop across a page boundary and slowed it from 16 to
 * 18 cycles an iteration on Zen 5.
 */
	.intel_syntax noprefix
	.altmacro
	.text
	.p2align 12
	.globl ipcc_kernels_start
ipcc_kernels_start:

	/* Each kernel starts a 64-byte line, so that its figure does not move with where the
	 * linker puts it: the front end predicts and fetches by line and 32-byte half (the
	 * call.direct chain packed into one half ran 27 to 55 cycles an iteration on Emerald
	 * Rapids as its start moved within a line). */
	.macro KERNEL name
	.p2align 6
	.globl k_\name
	.type k_\name, @function
k_\name:
	.endm

	/* A kernel's size (to the next kernel, its callees with it): tools that name code by
	 * symbol (Valgrind, the model backend's per-function counts) need it. */
	.macro ENDKERNEL name
	.size k_\name, . - k_\name
	.endm

/* empty: loop control alone.  2 instructions, 1 branch. */
KERNEL empty
1:	sub rdi, 1
	jnz 1b
	xor eax, eax
	ret
ENDKERNEL empty

/*
 * chain.add: 8 dependent register-register adds, one cycle each on every core.  10
 * instructions, 1 branch.
 */
ENDKERNEL empty
KERNEL chain_add
	xor eax, eax
	mov edx, 1
1:	.rept 8
	add rax, rdx
	.endr
	sub rdi, 1
	jnz 1b
	ret

/*
 * chain.add_imm: 8 dependent adds of an immediate. Golden Cove's renamer folds such adds
 * into one another and runs the chain at 2-3 per cycle; elsewhere 1.  10 instructions,
 * 1 branch.
 */
ENDKERNEL chain_add
KERNEL chain_add_imm
	xor eax, eax
1:	.rept 8
	add rax, 1
	.endr
	sub rdi, 1
	jnz 1b
	ret

/* chain.mul: 8 dependent multiplies.  10 instructions, 1 branch. */
ENDKERNEL chain_add_imm
KERNEL chain_mul
	mov eax, 3
1:	.rept 8
	imul rax, rax
	.endr
	sub rdi, 1
	jnz 1b
	ret

/*
 * chain.fadd, chain.fmul: 8 dependent scalar FP adds (of 0.0) or multiplies (by 1.0): the
 * value never changes, so no denormal or overflow slows them.  10 instructions, 1 branch.
 * chain.fmuladd: 4 dependent multiply-add pairs (mulsd, addsd): the adder's wait for the
 * multiplier's result.  10 instructions, 1 branch.
 */
ENDKERNEL chain_mul
KERNEL chain_fadd
	mov eax, 1
	cvtsi2sd xmm0, eax
	xorpd xmm1, xmm1
1:	.rept 8
	addsd xmm0, xmm1
	.endr
	sub rdi, 1
	jnz 1b
	cvttsd2si eax, xmm0
	ret

ENDKERNEL chain_fadd
KERNEL chain_fmul
	mov eax, 1
	cvtsi2sd xmm0, eax
	movapd xmm1, xmm0
1:	.rept 8
	mulsd xmm0, xmm1
	.endr
	sub rdi, 1
	jnz 1b
	cvttsd2si eax, xmm0
	ret

ENDKERNEL chain_fmul
KERNEL chain_fmuladd
	mov eax, 1
	cvtsi2sd xmm0, eax
	movapd xmm1, xmm0
	xorpd xmm2, xmm2
1:	.rept 4
	mulsd xmm0, xmm1
	addsd xmm0, xmm2
	.endr
	sub rdi, 1
	jnz 1b
	cvttsd2si eax, xmm0
	ret

/*
 * chase: 8 dependent loads through a pointer ring (rsi = void **, the ring's current node;
 * the node reached is stored back). chain.load runs it on a node that points to itself (an
 * L1 hit every time); latency on a random cyclic permutation of cache lines.
 * 10 instructions, 8 loads, 1 branch.
 */
ENDKERNEL chain_fmuladd
KERNEL chase
	mov rdx, rsi
	mov rax, [rsi]
1:	.rept 8
	mov rax, [rax]
	.endr
	sub rdi, 1
	jnz 1b
	mov [rdx], rax
	ret

/*
 * Streams over arrays: rsi = struct { double *a, *b, *c; double s; } (offsets 0, 8, 16, 24),
 * 16 bytes (2 doubles) of each stream per iteration, 16-byte aligned.
 * load:  x += b[i]             16 B a stream per iteration: 4 instructions, 1 load, 1 branch
 * copy:  a[i] = b[i]           16 B: 5 instructions, 1 load, 1 store, 1 branch
 * triad: a[i] = b[i] + s*c[i]  a cache line (64 B) of each stream per iteration, unrolled 4 times
 *                              (as likwid-bench's stream kernel is): 19 instructions, 8 loads,
 *                              4 stores, 1 branch; 128 B read and 64 written.
 * triad_nt: the same, streaming (non-temporal) stores.
 */
ENDKERNEL chase
KERNEL load
	mov rdx, [rsi + 8]
	xorpd xmm0, xmm0
	xor eax, eax
1:	addpd xmm0, [rdx + rax]
	add rax, 16
	sub rdi, 1
	jnz 1b
	movq rax, xmm0
	ret

ENDKERNEL load
KERNEL copy
	mov r8, [rsi]
	mov rdx, [rsi + 8]
	xor eax, eax
1:	movapd xmm0, [rdx + rax]
	movapd [r8 + rax], xmm0
	add rax, 16
	sub rdi, 1
	jnz 1b
	ret

	.macro TRIAD name, store
KERNEL \name
	mov r8, [rsi]
	mov rdx, [rsi + 8]
	mov rcx, [rsi + 16]
	movddup xmm2, [rsi + 24]
	xor eax, eax
1:	.irp off, 0, 16, 32, 48
	movapd xmm0, [rcx + rax + \off]
	mulpd xmm0, xmm2
	addpd xmm0, [rdx + rax + \off]
	\store [r8 + rax + \off], xmm0
	.endr
	add rax, 64
	sub rdi, 1
	jnz 1b
	ret
ENDKERNEL \name
	.endm
	TRIAD triad, movapd
	TRIAD triad_nt, movntpd

/*
 * branch: a conditional branch on a byte pattern (rsi = struct { uint8_t *pattern;
 * uint64_t mask; uint64_t next; }, length mask + 1, a power of two): taken where the byte is
 * 0. It starts at byte `next` and stores where it stopped there, so that runs in a row read
 * on through the pattern rather than replay its start.
 * 7 instructions when taken, 8 when not; 2 branches; 1 load.
 */
ENDKERNEL copy
KERNEL branch
	mov r9, [rsi]
	mov r10, [rsi + 8]
	mov r8, [rsi + 16]
	xor edx, edx
1:	movzx eax, byte ptr [r9 + r8]
	test eax, eax
	jz 2f
	add rdx, 1
2:	add r8, 1
	and r8, r10
	sub rdi, 1
	jnz 1b
	mov [rsi + 16], r8
	mov rax, rdx
	ret

/*
 * call.direct: a chain of 4 calls (each function calls the next, the last returns):
 * 4 calls + 4 returns + the loop's 2 = 10 instructions, 9 branches (calls and returns are).
 * Each function has a line of its own, so that the figure is the calls' and returns' cost:
 * packed six bytes apart, eight taken branches in one 32-byte half, they measure the front
 * end's limit on branches close together instead (bench/front_end.c times both).
 * call.pointer: a call through a register to a function that only returns:
 * call + ret + the loop's 2 = 4 instructions, 3 branches.
 */
ENDKERNEL branch
KERNEL call_direct
1:	call ipcc_callee_1
	sub rdi, 1
	jnz 1b
	xor eax, eax
	ret
	.p2align 6
ipcc_callee_1:
	call ipcc_callee_2
	ret
	.p2align 6
ipcc_callee_2:
	call ipcc_callee_3
	ret
	.p2align 6
ipcc_callee_3:
	call ipcc_callee_4
	ret
	.p2align 6
ipcc_callee_4:
	ret

ENDKERNEL call_direct
KERNEL call_pointer
	lea rdx, [rip + ipcc_callee_4]
1:	call rdx
	sub rdi, 1
	jnz 1b
	xor eax, eax
	ret

/*
 * fma.K.U: K independent accumulators (ymm0..), each updated U times per iteration by
 * vfmadd231pd acc, acc, [rsi] with [rsi] = 0.0 (acc = acc * 0 + acc: a true dependency on
 * acc, values that never grow). K*U + 2 instructions, K*U loads, 1 branch.
 */
	.macro FMAS from, to
	vfmadd231pd ymm\from, ymm\from, [rsi]
	.if \to-\from
	FMAS %(\from+1), \to
	.endif
	.endm
	.macro FMA k, u
KERNEL fma_\k\()_\u
1:	.rept \u
	FMAS 0, %(\k-1)
	.endr
	sub rdi, 1
	jnz 1b
	vzeroupper
	xor eax, eax
	ret
	.endm
	.irp k, 1, 2, 4, 6, 8, 10, 12, 16
	FMA \k, 1
	FMA \k, 2
	FMA \k, 4
	.endr

/*
 * atomic.lock_add: lock add qword ptr [rsi], 1.  3 instructions, 1 branch.
 * atomic.lock_add_vpmulld: a dependent vpmulld pair and the lock add (it executes at
 * retirement, so the multiplies cannot hide it).  5 instructions, 1 branch.
 */
ENDKERNEL call_pointer
KERNEL lock_add
1:	lock add qword ptr [rsi], 1
	sub rdi, 1
	jnz 1b
	xor eax, eax
	ret

ENDKERNEL lock_add
KERNEL lock_add_vpmulld
	vpxor ymm0, ymm0, ymm0
	vpxor ymm1, ymm1, ymm1
1:	vpmulld ymm0, ymm0, ymm1
	vpmulld ymm0, ymm0, ymm1
	lock add qword ptr [rsi], 1
	sub rdi, 1
	jnz 1b
	vzeroupper
	xor eax, eax
	ret

ENDKERNEL lock_add_vpmulld
	.globl ipcc_kernels_end
ipcc_kernels_end:
	.section .note.GNU-stack, "", @progbits
