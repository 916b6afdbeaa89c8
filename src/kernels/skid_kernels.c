/*
 * skid.c - the interrupt-placement kernels. Each body is one string, assembled here (ten
 * times per iteration, in an outer loop) and handed as text to the pipeline model, so the
 * model runs exactly the instructions the machine runs.
 *
 * Register contract: in rdi = iterations (the outer loop counts in rcx), rsi = a pointer to
 * a 64-bit word holding its own address: rax and rdx start there, so mov rax, [rax] chases
 * it (an L1 hit) and lock add [rdx] has a word to add to. The bodies may use rax, rdx, rsi,
 * rdi, r8-r11, ymm0-ymm1 (all caller-saved); vzeroupper at the end.
 */
#include "kernels_int.h"

#define SKID_MOV_IMM                                                                         \
	"mov rax, 1\nmov rsi, 2\nmov rdi, 3\nmov r8, 4\nmov r9, 5\nmov r10, 6\nmov r11, 7\n" \
	"mov rdx, 8\n"
#define SKID_ADDS	   "add rax, 1\nadd rax, 2\nadd rsi, 3\nadd rdi, 4\n"
#define SKID_LOAD_NOPS	   "mov rax, [rax]\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\n"
#define SKID_LOAD_NOPS_ADD "mov rax, [rax]\nnop\nnop\nnop\nnop\nnop\nadd rax, 0\n"
#define SKID_VPMULLD_LOCK \
	"vpmulld ymm0, ymm0, ymm1\nvpmulld ymm0, ymm0, ymm1\nlock add qword ptr [rdx], 1\n"

const char skid_mov_imm[] = SKID_MOV_IMM;
const char skid_adds[] = SKID_ADDS;
const char skid_load_nops[] = SKID_LOAD_NOPS;
const char skid_load_nops_add[] = SKID_LOAD_NOPS_ADD;
const char skid_vpmulld_lock[] = SKID_VPMULLD_LOCK;

/* A skid kernel: ten bodies per iteration; rsi, rdi and rdx saved for the body's use. */
#define SKID_KERNEL(name, body)                  \
	__asm__(".intel_syntax noprefix\n"       \
		".text\n"                        \
		".p2align 6\n"                   \
		".globl k_" #name "\n"           \
		".type k_" #name ", @function\n" \
		"k_" #name ":\n"                 \
		"	mov rcx, rdi\n"                \
		"	mov rdx, rsi\n"                \
		"	mov rax, rsi\n"                \
		"	vpxor ymm0, ymm0, ymm0\n"      \
		"	vpxor ymm1, ymm1, ymm1\n"      \
		"1:\n"                           \
		".rept 10\n" body ".endr\n"      \
		"	sub rcx, 1\n"                  \
		"	jnz 1b\n"                      \
		"	vzeroupper\n"                  \
		"	ret\n"                         \
		".globl k_" #name "_end\n"       \
		"k_" #name "_end:\n"             \
		".att_syntax prefix\n")

SKID_KERNEL(skid_mov_imm, SKID_MOV_IMM);
SKID_KERNEL(skid_adds, SKID_ADDS);
SKID_KERNEL(skid_load_nops, SKID_LOAD_NOPS);
SKID_KERNEL(skid_load_nops_add, SKID_LOAD_NOPS_ADD);
SKID_KERNEL(skid_vpmulld_lock, SKID_VPMULLD_LOCK);
