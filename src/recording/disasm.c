/*
 * recording/disasm.c - x86-64 machine code to instructions through Capstone (disasm.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "error_int.h"
#include "ipcc/disasm.h"
#include "recording/disasm_int.h"

int disasm_open(csh *cs)
{
	if (cs_open(CS_ARCH_X86, CS_MODE_64, cs) != CS_ERR_OK)
		return err_set(IPCC_ENOTSUP, "Capstone cannot disassemble x86-64");
	cs_option(*cs, CS_OPT_DETAIL, CS_OPT_ON);
	return 0;
}

int ipcc_disasm(const void *code, size_t size, uint64_t address, struct ipcc_insn **out, size_t *n)
{
	cs_insn *insn = NULL;
	size_t ninsn;
	csh cs;
	int ret;

	*out = NULL;
	*n = 0;
	ret = disasm_open(&cs);
	if (ret)
		return ret;
	/* The text is all this caller needs: no details, which costs about half the time. */
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_OFF);
	ninsn = cs_disasm(cs, code, size, address, 0, &insn);
	if (ninsn) {
		*out = calloc(ninsn, sizeof(**out));
		if (!*out)
			ret = err_set(IPCC_ENOMEM, "out of memory for %zu instructions", ninsn);
	}
	for (size_t i = 0; !ret && i < ninsn; i++) {
		struct ipcc_insn *o = &(*out)[i];

		o->address = insn[i].address;
		o->size = insn[i].size;
		snprintf(o->mnemonic, sizeof(o->mnemonic), "%s", insn[i].mnemonic);
		snprintf(o->operands, sizeof(o->operands), "%s", insn[i].op_str);
	}
	if (!ret)
		*n = ninsn;
	cs_free(insn, ninsn);
	cs_close(&cs);
	return ret;
}
