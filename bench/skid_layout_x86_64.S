/*
 * skid_layout_x86_64.S - the loops bench/skid_layout.c samples: ten copies of a body of
 * 4-byte instructions, then `sub rdi, 1; jne` (4 + 2 bytes), so that instruction i of the
 * loop starts at byte 4i and the sampler needs no disassembler. Each loop is assembled at
 * several distances from a 64-byte boundary (SKIP bytes of nops run once before it).
 *
 * Contract: rdi = iterations, rsi = a 64-bit word holding its own address (unused by these
 * bodies); every register used is caller-saved.
 */
	.intel_syntax noprefix
	.text

.macro LOOP name, skip, body
	.p2align 6
	.globl sl_\name, sl_\name\()_loop, sl_\name\()_end
	.type sl_\name, @function
sl_\name:
	xor eax, eax
	xor esi, esi
	xor r8d, r8d
	xor r9d, r9d
	jmp sl_\name\()_loop
	.p2align 6
	.if \skip
	.skip \skip, 0x90
	.endif
sl_\name\()_loop:
	.rept 10
	\body
	.endr
	sub rdi, 1
	jne sl_\name\()_loop
sl_\name\()_end:
	ret
	.size sl_\name, . - sl_\name
.endm

/* The bodies; bench/skid_layout.c has the same text for the model. */
.macro add_chain
	add rax, 1		/* a chain: one a cycle unless the renamer folds it */
.endm
.macro add_pair
	add rax, 1		/* two of one chain a copy */
	add rax, 2
.endm
.macro add_other
	add rax, 1		/* one of the chain, one independent */
	add rsi, 2
.endm
.macro adds3
	add rax, 1		/* two of the chain, one independent */
	add rax, 2
	add rsi, 3
.endm
.macro adds
	add rax, 1		/* skid.adds' body, r8 standing for rdi (the counter here) */
	add rax, 2
	add rsi, 3
	add r8, 4
.endm
.macro imul_chain
	imul rax, rax		/* a chain of 3-cycle multiplies */
.endm

LOOP add_chain_0, 0, add_chain
LOOP add_chain_16, 16, add_chain
LOOP add_chain_32, 32, add_chain
LOOP add_pair_0, 0, add_pair
LOOP add_other_0, 0, add_other
LOOP adds3_0, 0, adds3
LOOP adds_0, 0, adds
LOOP adds_32, 32, adds
LOOP imul_chain_0, 0, imul_chain
LOOP imul_chain_32, 32, imul_chain

	.section .note.GNU-stack, "", @progbits
