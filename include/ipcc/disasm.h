/*
 * disasm.h - x86-64 machine code to instructions, as Capstone reads them. This module
 * (recording/disasm.c) is the one place that opens Capstone: the library's modules that need
 * its instruction details (lift, skid, explain) open it through the same private helper.
 *
 * The caller owns the array ipcc_disasm() returns and frees it with free().
 */
#ifndef IPCC_DISASM_H
#define IPCC_DISASM_H

#include <stddef.h>
#include <stdint.h>

struct ipcc_insn {
	uint64_t address;
	uint16_t size;
	char mnemonic[32];  /* "add" */
	char operands[160]; /* "rax, qword ptr [rbx + 8]"; "" for none */
};

/*
 * Disassemble `size` bytes of x86-64 code that sit at `address`, until the end or the first
 * byte that starts no instruction: *out (malloc'd, NULL when n is 0) and *n. IPCC_ENOTSUP
 * when Capstone cannot disassemble x86-64, IPCC_ENOMEM.
 */
int ipcc_disasm(const void *code, size_t size, uint64_t address, struct ipcc_insn **out, size_t *n);

#endif
