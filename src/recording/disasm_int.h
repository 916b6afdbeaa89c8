/*
 * recording/disasm_int.h - Capstone, opened in one place (private to src/; see disasm.h).
 */
#ifndef IPCC_DISASM_INT_H
#define IPCC_DISASM_INT_H

#include <capstone/capstone.h>

/*
 * Open Capstone for x86-64 with instruction details on (groups, operands): 0, or IPCC_ENOTSUP
 * with the message "Capstone cannot disassemble x86-64". The caller closes it with cs_close().
 */
int disasm_open(csh *cs);

#endif
