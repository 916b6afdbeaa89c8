/*
 * model/insn_table.c - the x86-64 instruction table: for each mnemonic its form (which
 * operands it reads and writes), latency and micro-ops (Skylake's), port class, flags,
 * fusion, zero idioms and implicit registers; and how a mnemonic finds its row (insn_int.h).
 */
#include <stdio.h>
#include <string.h>

#include "error_int.h"
#include "insn_int.h"
#include "model_int.h"

/* Row builders: integer ALU, moves, vector (SSE 2-operand and otherwise). */
#define ALU(n, f, l, u, fl)                                              \
	{                                                                \
		n, f, l, u, PT_ALU, fl, false, false, false, false, 0, 0 \
	}
#define FUSE(n, f, fl, a, c)                                     \
	{                                                        \
		n, f, 1, 1, PT_ALU, fl, a, c, false, false, 0, 0 \
	}
#define MOVE(n, l)                                                               \
	{                                                                        \
		n, F_MOV, l, 1, PT_MOVE_ALU, 0, false, false, false, false, 0, 0 \
	}
#define VMOVE(n, l)                                                              \
	{                                                                        \
		n, F_MOV, l, 1, PT_MOVE_VEC, 0, false, false, false, false, 0, 0 \
	}
#define VEC(n, f, l, u)                                                 \
	{                                                               \
		n, f, l, u, PT_VEC, 0, false, false, false, false, 0, 0 \
	}
#define VZERO(n, f, l, u)                                              \
	{                                                              \
		n, f, l, u, PT_VEC, 0, false, false, true, false, 0, 0 \
	}
/* A string instruction without rep: microcoded, `fe` cycles, its operands implicit. */
#define STR(n, fe, fl, rd, wr)                                                     \
	{                                                                          \
		n, F_IMP, 1, 4, PT_ALU, fl, false, false, false, false, rd, wr, fe \
	}
/* A store of a control or status word (fnstcw [m], stmxcsr [m]): microcoded, `fe` cycles. */
#define CTLW(n, fe)                                                             \
	{                                                                       \
		n, F_SET, 1, 2, PT_ALU, 0, false, false, false, false, 0, 0, fe \
	}
#define IMP(n, l, u, fl, rd, wr)                                               \
	{                                                                      \
		n, F_IMP, l, u, PT_ALU, fl, false, false, false, false, rd, wr \
	}

/*
 * Latencies in cycles (Skylake's; per-profile differences below) and micro-ops, for register
 * operands; a memory source adds the profile's load latency. SSE mnemonics stand for their
 * AVX forms too (vaddps is addps with a separate destination: see lookup()); FMA, cmovcc,
 * setcc and jcc are families (see family()).
 */
static const struct op_def ops[] = {
	/* integer moves */
	MOVE("mov", 1),
	MOVE("movzx", 1),
	MOVE("movsx", 1),
	MOVE("movsxd", 1),
	MOVE("movabs", 1),
	ALU("lea", F_LEA, 1, 1, 0),
	IMP("cdqe", 1, 1, 0, RAX, RAX),
	IMP("cwde", 1, 1, 0, RAX, RAX),
	IMP("cdq", 1, 1, 0, RAX, RDX),
	IMP("cqo", 1, 1, 0, RAX, RDX),
	/*
	 * The carry flag and ah (Emerald Rapids): clc and stc alone 1.00, eight 2.00; cmc a
	 * chain through the flags, four 3.99; lahf into ah four 3.98 (ah's merge a chain), sahf
	 * four 4.66; wait (fwait, no x87 exception pending) two a cycle, as the shift ports'
	 * class.
	 */
	IMP("clc", 1, 1, FL_W, 0, 0),
	IMP("stc", 1, 1, FL_W, 0, 0),
	IMP("cmc", 1, 1, FL_R | FL_W, 0, 0),
	IMP("lahf", 1, 1, FL_R, RAX, RAX),
	IMP("sahf", 1, 1, FL_W, RAX, 0),
	IMP("wait", 1, 1, 0, 0, 0),
	/*
	 * xlatb: al = [rbx + al], a load and two micro-ops more: xlatb; xlatb 14.0 cycles on
	 * Emerald Rapids (7 each, the load's 5 and 2), four after xor eax, eax 3.00
	 */
	{ "xlatb", F_IMP, 2, 3, PT_ALU, 0, false, false, false, true, RAX | RBX, RAX },
	IMP("cbw", 1, 1, 0, RAX, RAX),
	IMP("cwd", 1, 2, 0, RAX, RDX),
	ALU("movbe", F_MOV, 2, 2, 0), /* a byte-swapping load or store */
	/* integer ALU */
	FUSE("add", F_ALU, FL_W, true, false),
	{ "sub", F_ALU, 1, 1, PT_ALU, FL_W, true, false, true, false, 0, 0 },
	FUSE("and", F_ALU, FL_W, true, false),
	FUSE("or", F_ALU, FL_W, false, false),
	{ "xor", F_ALU, 1, 1, PT_ALU, FL_W, false, false, true, false, 0, 0 },
	FUSE("adc", F_ALU, FL_R | FL_W, false, false),
	FUSE("sbb", F_ALU, FL_R | FL_W, false, false),
	FUSE("inc", F_UNARY, FL_W, true, false),
	FUSE("dec", F_UNARY, FL_W, true, false),
	FUSE("neg", F_UNARY, FL_W, false, false),
	FUSE("not", F_UNARY, 0, false, false),
	FUSE("cmp", F_CMP, FL_W, true, true),
	FUSE("test", F_CMP, FL_W, true, true),
	ALU("bswap", F_UNARY, 2, 2, 0),
	ALU("shl", F_SHIFT, 1, 1, FL_W),
	ALU("sal", F_SHIFT, 1, 1, FL_W),
	ALU("shr", F_SHIFT, 1, 1, FL_W),
	ALU("sar", F_SHIFT, 1, 1, FL_W),
	ALU("rol", F_SHIFT, 1, 1, FL_W),
	ALU("ror", F_SHIFT, 1, 1, FL_W),
	ALU("rcl", F_SHIFT, 2, 3, FL_R | FL_W),
	ALU("rcr", F_SHIFT, 2, 3, FL_R | FL_W),
	ALU("shld", F_UPD, 3, 1, FL_W),
	ALU("shrd", F_UPD, 3, 1, FL_W),
	ALU("shlx", F_MOV, 1, 1, 0),
	ALU("shrx", F_MOV, 1, 1, 0),
	ALU("sarx", F_MOV, 1, 1, 0),
	ALU("rorx", F_MOV, 1, 1, 0),
	ALU("andn", F_MOV, 1, 1, FL_W),
	ALU("blsr", F_MOV, 1, 1, FL_W),
	ALU("blsi", F_MOV, 1, 1, FL_W),
	ALU("blsmsk", F_MOV, 1, 1, FL_W),
	ALU("bzhi", F_MOV, 1, 1, FL_W),
	ALU("pdep", F_MOV, 3, 1, 0),
	ALU("pext", F_MOV, 3, 1, 0),
	ALU("bt", F_CMP, 1, 1, FL_W),
	ALU("bts", F_ALU, 1, 1, FL_W),
	ALU("btr", F_ALU, 1, 1, FL_W),
	ALU("btc", F_ALU, 1, 1, FL_W),
	ALU("popcnt", F_MOV, 3, 1, FL_W),
	ALU("lzcnt", F_MOV, 3, 1, FL_W),
	ALU("tzcnt", F_MOV, 3, 1, FL_W),
	/*
	 * bsf and bsr leave their destination as it was where the source is zero (Intel and
	 * AMD alike), so they read it: bsf rax, rsi alone in a loop 3.00 cycles on a Granite
	 * Rapids-class core, where popcnt, lzcnt and tzcnt rax, rsi take 1.00 (no false
	 * dependency there).
	 */
	ALU("bsf", F_UPD, 3, 1, FL_W),
	ALU("bsr", F_UPD, 3, 1, FL_W),
	/* multiply and divide: rdx:rax; divides are not pipelined, which the model ignores */
	ALU("imul", F_IMUL, 3, 1, FL_W),
	IMP("mul", 3, 2, FL_W, RAX, RAX | RDX),
	IMP("div", 26, 10, FL_W, RAX | RDX, RAX | RDX),
	IMP("idiv", 26, 10, FL_W, RAX | RDX, RAX | RDX),
	/* stack, calls; conservative: the stack pointer is a dependency chain */
	{ "push", F_PUSH, 1, 1, PT_NONE, 0, false, false, false, false, RSP, RSP },
	{ "pop", F_POP, 0, 1, PT_NONE, 0, false, false, false, true, RSP, RSP },
	{ "call", F_JMP, 1, 2, PT_ALU, 0, false, false, false, false, RSP, RSP },
	{ "ret", F_IMP, 1, 1, PT_ALU, 0, false, false, false, true, RSP, RSP },
	{ "leave", F_IMP, 0, 2, PT_ALU, 0, false, false, false, true, RBP, RSP | RBP },
	/* control, nops, atomics, fences */
	ALU("jmp", F_JMP, 1, 1, 0),
	{ "nop", F_NOP, 0, 1, PT_NONE, 0, false, false, false, false, 0, 0 },
	{ "endbr64", F_NOP, 0, 1, PT_NONE, 0, false, false, false, false, 0, 0 },
	/* prefetches: a load that writes nothing (it takes a load port, nothing waits for it) */
	{ "prefetcht0", F_NOP, 0, 1, PT_NONE, 0, false, false, false, true, 0, 0 },
	{ "prefetcht1", F_NOP, 0, 1, PT_NONE, 0, false, false, false, true, 0, 0 },
	{ "prefetcht2", F_NOP, 0, 1, PT_NONE, 0, false, false, false, true, 0, 0 },
	{ "prefetchnta", F_NOP, 0, 1, PT_NONE, 0, false, false, false, true, 0, 0 },
	{ "prefetchw", F_NOP, 0, 1, PT_NONE, 0, false, false, false, true, 0, 0 },
	{ "pause", F_FENCE, 140, 4, PT_NONE, 0, false, false, false, false, 0, 0 },
	ALU("xadd", F_XADD, 3, 3, FL_W),
	ALU("xchg", F_XADD, 2, 3, 0),
	ALU("cmpxchg", F_CMPXCHG, 5, 4, FL_W),
	{ "lfence", F_FENCE, 4, 2, PT_NONE, 0, false, false, false, false, 0, 0 },
	{ "mfence", F_FENCE, 33, 3, PT_NONE, 0, false, false, false, false, 0, 0 },
	{ "sfence", F_FENCE, 6, 2, PT_NONE, 0, false, false, false, false, 0, 0 },
	/*
	 * Microcoded, one at a time, as a fence: xgetbv (ecx = 0) 16 cycles apart on a Granite
	 * Rapids-class core, 17 on Emerald Rapids; rdtsc 25 on Skylake (uops.info's
	 * throughput; goldencove's cost row has the Granite Rapids-class guest's 29)
	 */
	{ "xgetbv", F_FENCE, 16, 4, PT_NONE, 0, false, false, false, false, RCX, RAX | RDX },
	{ "rdtsc", F_FENCE, 25, 4, PT_NONE, 0, false, false, false, false, 0, RAX | RDX },
	/*
	 * The direction flag: std, cld 5.00 cycles apart on Emerald Rapids, alone or after mov
	 * ebx, imm (cld after std and std after cld 138 a pair: not modelled)
	 */
	{ "std", F_FENCE, 5, 4, PT_NONE, 0, false, false, false, false, 0, 0 },
	{ "cld", F_FENCE, 5, 4, PT_NONE, 0, false, false, false, false, 0, 0 },
	/*
	 * stos without rep: one element stored at [rdi], rdi moved on: 2.00 cycles an element
	 * on a Granite Rapids-class core (stosb alone; clc, mov esi, imm, stosb alike), 1.99 on
	 * Emerald Rapids.
	 */
	{ "stosb", F_MOV, 2, 2, PT_ALU, 0, false, false, false, false, RDI, RDI },
	{ "stosw", F_MOV, 2, 2, PT_ALU, 0, false, false, false, false, RDI, RDI },
	{ "stosd", F_MOV, 2, 2, PT_ALU, 0, false, false, false, false, RDI, RDI },
	{ "stosq", F_MOV, 2, 2, PT_ALU, 0, false, false, false, false, RDI, RDI },
	/*
	 * The other string instructions without rep, microcoded: the front end delivers their
	 * micro-ops from the microcode sequencer, cycles in which it delivers nothing else, and
	 * they do not serialize (what they load is not followed). Emerald Rapids: lodsb and
	 * scasb 2.22 cycles apart, alone or four in a row (modelled 2); movsb and cmpsb 5.00
	 * alone, 4.25 four in a row (modelled 5 each); movsq and cmpsd alike; lodsb; add al, 1
	 * 2.41 (as loads into a part of rax, lods and scas would chain through the load's
	 * latency in the model, which the core does not do).
	 */
	STR("lodsb", 2, 0, RSI, RAX | RSI),
	STR("lodsw", 2, 0, RSI, RAX | RSI),
	STR("lodsd", 2, 0, RSI, RAX | RSI),
	STR("lodsq", 2, 0, RSI, RAX | RSI),
	STR("scasb", 2, FL_W, RAX | RDI, RDI),
	STR("scasw", 2, FL_W, RAX | RDI, RDI),
	STR("scasd", 2, FL_W, RAX | RDI, RDI),
	STR("scasq", 2, FL_W, RAX | RDI, RDI),
	STR("movsb", 5, 0, RSI | RDI, RSI | RDI),
	STR("movsw", 5, 0, RSI | RDI, RSI | RDI),
	STR("movs_d", 5, 0, RSI | RDI, RSI | RDI), /* movsd, the string move */
	STR("movsq", 5, 0, RSI | RDI, RSI | RDI),
	STR("cmpsb", 5, FL_W, RSI | RDI, RSI | RDI),
	STR("cmpsw", 5, FL_W, RSI | RDI, RSI | RDI),
	STR("cmps_d", 5, FL_W, RSI | RDI, RSI | RDI), /* cmpsd, the string compare */
	STR("cmpsq", 5, FL_W, RSI | RDI, RSI | RDI),
	/*
	 * The x87 and SSE control and status words stored: fnstcw [m] 1.87 cycles alone on
	 * Emerald Rapids (two 3.00), stmxcsr [m] 2.00 (two 4.64), fnstsw ax 2.00, fnstsw [m]
	 * 3.08; fnstcw [m]; movzx edi, word ptr [m] 1.96 (the load forwarded, nothing chained).
	 * fldcw [m] loads one: 3.00, the passes far apart; ldmxcsr faults on the harness's
	 * bytes, not measured.
	 */
	CTLW("fnstcw", 2),
	CTLW("fstcw", 2),
	CTLW("stmxcsr", 2),
	CTLW("vstmxcsr", 2),
	CTLW("fnstsw", 2),
	CTLW("fstsw", 2),
	{ "fldcw", F_NOP, 0, 2, PT_NONE, 0, false, false, false, true, 0, 0, 3 },
	/* serializing as a fence; its cycles are the profile's cpuid_cycles (none: unknown) */
	{ "cpuid", F_FENCE, 100, 4, PT_NONE, 0, false, false, false, false, RAX | RCX,
	  RAX | RBX | RCX | RDX },
	/* vector moves and GPR <-> vector */
	VMOVE("movaps", 1),
	VMOVE("movapd", 1),
	VMOVE("movups", 1),
	VMOVE("movupd", 1),
	VMOVE("movdqa", 1),
	VMOVE("movdqu", 1),
	VMOVE("vmovdqa64", 1),
	VMOVE("vmovdqu8", 1),
	VMOVE("vmovdqu16", 1),
	VMOVE("vmovdqu32", 1),
	VMOVE("vmovdqu64", 1),
	VMOVE("vmovdqa32", 1),
	VMOVE("movntps", 1),
	VMOVE("movntpd", 1),
	VMOVE("movntdq", 1),
	VMOVE("movq", 2),
	VMOVE("movd", 2),
	VMOVE("movss", 1),
	VMOVE("movsd", 1),
	VMOVE("movhps", 1),
	VMOVE("movlps", 1),
	VMOVE("movhpd", 1),
	VMOVE("movlpd", 1),
	/*
	 * movhps, movhpd (movlps, movlpd) xmm, m64: a load merged into the register's high
	 * (low) half, on the shuffle port (a vector port). Emerald Rapids: two independent
	 * movhps 1.99 cycles a loop, movlps 1.07; movhps xmm0, [m] chained through addps 4.00
	 */
	VEC("movhps_load", F_UPD, 1, 1),
	VEC("movlps_load", F_UPD, 1, 1),
	VMOVE("movddup", 1),
	VMOVE("movshdup", 1),
	VMOVE("movsldup", 1),
	VMOVE("lddqu", 1),
	VEC("movmskps", F_MOV, 2, 1),
	VEC("movmskpd", F_MOV, 2, 1),
	VEC("pmovmskb", F_MOV, 2, 1),
	VEC("movhlps", F_UPD, 1, 1),
	VEC("movlhps", F_UPD, 1, 1),
	/* floating point: add, multiply, divide, square root, min/max, compare, round */
	VEC("addps", F_UPD, 4, 1),
	VEC("addpd", F_UPD, 4, 1),
	VEC("addss", F_UPD, 4, 1),
	VEC("addsd", F_UPD, 4, 1),
	VEC("subps", F_UPD, 4, 1),
	VEC("subpd", F_UPD, 4, 1),
	VEC("subss", F_UPD, 4, 1),
	VEC("subsd", F_UPD, 4, 1),
	VEC("mulps", F_UPD, 4, 1),
	VEC("mulpd", F_UPD, 4, 1),
	VEC("mulss", F_UPD, 4, 1),
	VEC("mulsd", F_UPD, 4, 1),
	VEC("addsubps", F_UPD, 4, 1),
	VEC("addsubpd", F_UPD, 4, 1),
	VEC("haddps", F_UPD, 6, 3),
	VEC("haddpd", F_UPD, 6, 3),
	VEC("hsubps", F_UPD, 6, 3),
	VEC("hsubpd", F_UPD, 6, 3),
	VEC("dpps", F_UPD, 13, 4),
	VEC("dppd", F_UPD, 9, 3),
	VEC("divps", F_UPD, 11, 1),
	VEC("divss", F_UPD, 11, 1),
	VEC("divpd", F_UPD, 14, 1),
	VEC("divsd", F_UPD, 14, 1),
	VEC("sqrtps", F_MOV, 12, 1),
	VEC("sqrtpd", F_MOV, 16, 1),
	VEC("sqrtss", F_UPD, 12, 1),
	VEC("sqrtsd", F_UPD, 16, 1),
	VEC("rcpps", F_MOV, 4, 1),
	VEC("rsqrtps", F_MOV, 4, 1),
	VEC("rcpss", F_UPD, 4, 1),
	VEC("rsqrtss", F_UPD, 4, 1),
	VEC("minps", F_UPD, 4, 1),
	VEC("minpd", F_UPD, 4, 1),
	VEC("minss", F_UPD, 4, 1),
	VEC("minsd", F_UPD, 4, 1),
	VEC("maxps", F_UPD, 4, 1),
	VEC("maxpd", F_UPD, 4, 1),
	VEC("maxss", F_UPD, 4, 1),
	VEC("maxsd", F_UPD, 4, 1),
	VEC("cmpps", F_UPD, 4, 1),
	VEC("cmppd", F_UPD, 4, 1),
	VEC("cmpss", F_UPD, 4, 1),
	VEC("cmpsd", F_UPD, 4, 1),
	VEC("roundps", F_MOV, 8, 2),
	VEC("roundpd", F_MOV, 8, 2),
	VEC("roundss", F_UPD, 8, 2),
	VEC("roundsd", F_UPD, 8, 2),
	{ "ucomiss", F_CMP, 3, 1, PT_VEC, FL_W, false, false, false, false, 0, 0 },
	{ "ucomisd", F_CMP, 3, 1, PT_VEC, FL_W, false, false, false, false, 0, 0 },
	{ "comiss", F_CMP, 3, 1, PT_VEC, FL_W, false, false, false, false, 0, 0 },
	{ "comisd", F_CMP, 3, 1, PT_VEC, FL_W, false, false, false, false, 0, 0 },
	{ "ptest", F_CMP, 3, 2, PT_VEC, FL_W, false, false, false, false, 0, 0 },
	/* logic: xor/andn/sub/compare of a register with itself is a zero (or ones) idiom */
	VEC("andps", F_UPD, 1, 1),
	VEC("andpd", F_UPD, 1, 1),
	VZERO("andnps", F_UPD, 1, 1),
	VZERO("andnpd", F_UPD, 1, 1),
	VEC("orps", F_UPD, 1, 1),
	VEC("orpd", F_UPD, 1, 1),
	VZERO("xorps", F_UPD, 1, 1),
	VZERO("xorpd", F_UPD, 1, 1),
	VEC("pand", F_UPD, 1, 1),
	VZERO("pandn", F_UPD, 1, 1),
	VEC("por", F_UPD, 1, 1),
	VZERO("pxor", F_UPD, 1, 1),
	/* AVX-512's element-typed forms (vpxord zmm ...), the same operations */
	VEC("pandd", F_UPD, 1, 1),
	VEC("pandq", F_UPD, 1, 1),
	VZERO("pandnd", F_UPD, 1, 1),
	VZERO("pandnq", F_UPD, 1, 1),
	VEC("pord", F_UPD, 1, 1),
	VEC("porq", F_UPD, 1, 1),
	VZERO("pxord", F_UPD, 1, 1),
	VZERO("pxorq", F_UPD, 1, 1),
	VEC("blendps", F_UPD, 1, 1),
	VEC("blendpd", F_UPD, 1, 1),
	VEC("pblendw", F_UPD, 1, 1),
	VEC("blendvps", F_UPD, 2, 2),
	VEC("blendvpd", F_UPD, 2, 2),
	VEC("pblendvb", F_UPD, 2, 2),
	/* integer SIMD */
	VEC("paddb", F_UPD, 1, 1),
	VEC("paddw", F_UPD, 1, 1),
	VEC("paddd", F_UPD, 1, 1),
	VEC("paddq", F_UPD, 1, 1),
	VZERO("psubb", F_UPD, 1, 1),
	VZERO("psubw", F_UPD, 1, 1),
	VZERO("psubd", F_UPD, 1, 1),
	VZERO("psubq", F_UPD, 1, 1),
	VEC("paddsb", F_UPD, 1, 1),
	VEC("paddsw", F_UPD, 1, 1),
	VEC("paddusb", F_UPD, 1, 1),
	VEC("paddusw", F_UPD, 1, 1),
	VEC("psubsb", F_UPD, 1, 1),
	VEC("psubsw", F_UPD, 1, 1),
	VEC("psubusb", F_UPD, 1, 1),
	VEC("psubusw", F_UPD, 1, 1),
	VEC("pavgb", F_UPD, 1, 1),
	VEC("pavgw", F_UPD, 1, 1),
	VEC("pmullw", F_UPD, 5, 1),
	VEC("pmulhw", F_UPD, 5, 1),
	VEC("pmulhuw", F_UPD, 5, 1),
	VEC("pmulld", F_UPD, 10, 2),
	VEC("pmuludq", F_UPD, 5, 1),
	VEC("pmuldq", F_UPD, 5, 1),
	VEC("pmaddwd", F_UPD, 5, 1),
	VEC("pmaddubsw", F_UPD, 5, 1),
	VEC("psadbw", F_UPD, 3, 1),
	VZERO("pcmpeqb", F_UPD, 1, 1),
	VZERO("pcmpeqw", F_UPD, 1, 1),
	VZERO("pcmpeqd", F_UPD, 1, 1),
	VZERO("pcmpeqq", F_UPD, 1, 1),
	VZERO("pcmpgtb", F_UPD, 1, 1),
	VZERO("pcmpgtw", F_UPD, 1, 1),
	VZERO("pcmpgtd", F_UPD, 1, 1),
	VEC("pcmpgtq", F_UPD, 3, 1),
	VEC("pminsb", F_UPD, 1, 1),
	VEC("pminsw", F_UPD, 1, 1),
	VEC("pminsd", F_UPD, 1, 1),
	VEC("pminub", F_UPD, 1, 1),
	VEC("pminuw", F_UPD, 1, 1),
	VEC("pminud", F_UPD, 1, 1),
	VEC("pmaxsb", F_UPD, 1, 1),
	VEC("pmaxsw", F_UPD, 1, 1),
	VEC("pmaxsd", F_UPD, 1, 1),
	VEC("pmaxub", F_UPD, 1, 1),
	VEC("pmaxuw", F_UPD, 1, 1),
	VEC("pmaxud", F_UPD, 1, 1),
	VEC("pabsb", F_MOV, 1, 1),
	VEC("pabsw", F_MOV, 1, 1),
	VEC("pabsd", F_MOV, 1, 1),
	VEC("psllw", F_UPD, 1, 1),
	VEC("pslld", F_UPD, 1, 1),
	VEC("psllq", F_UPD, 1, 1),
	VEC("psrlw", F_UPD, 1, 1),
	VEC("psrld", F_UPD, 1, 1),
	VEC("psrlq", F_UPD, 1, 1),
	VEC("psraw", F_UPD, 1, 1),
	VEC("psrad", F_UPD, 1, 1),
	VEC("pslldq", F_UPD, 1, 1),
	VEC("psrldq", F_UPD, 1, 1),
	VEC("vpsllvd", F_MOV, 1, 1),
	VEC("vpsllvq", F_MOV, 1, 1),
	VEC("vpsrlvd", F_MOV, 1, 1),
	VEC("vpsrlvq", F_MOV, 1, 1),
	VEC("vpsravd", F_MOV, 1, 1),
	/* shuffles, packs, inserts, extracts, broadcasts */
	VEC("unpcklps", F_UPD, 1, 1),
	VEC("unpckhps", F_UPD, 1, 1),
	VEC("unpcklpd", F_UPD, 1, 1),
	VEC("unpckhpd", F_UPD, 1, 1),
	VEC("shufps", F_UPD, 1, 1),
	VEC("shufpd", F_UPD, 1, 1),
	VEC("punpcklbw", F_UPD, 1, 1),
	VEC("punpcklwd", F_UPD, 1, 1),
	VEC("punpckldq", F_UPD, 1, 1),
	VEC("punpcklqdq", F_UPD, 1, 1),
	VEC("punpckhbw", F_UPD, 1, 1),
	VEC("punpckhwd", F_UPD, 1, 1),
	VEC("punpckhdq", F_UPD, 1, 1),
	VEC("punpckhqdq", F_UPD, 1, 1),
	VEC("packsswb", F_UPD, 1, 1),
	VEC("packssdw", F_UPD, 1, 1),
	VEC("packuswb", F_UPD, 1, 1),
	VEC("packusdw", F_UPD, 1, 1),
	VEC("pshufb", F_UPD, 1, 1),
	VEC("palignr", F_UPD, 1, 1),
	VEC("pshufd", F_MOV, 1, 1),
	VEC("pshuflw", F_MOV, 1, 1),
	VEC("pshufhw", F_MOV, 1, 1),
	/*
	 * AES-NI and carry-less multiplies (Emerald Rapids, ipcc bench --block): aesenc,
	 * aesenclast, aesdec, aesdeclast chained 3.00 cycles a loop, three independent ones 1.49
	 * (two units); aesimc chained 6.00; pclmulqdq chained 3.00, two independent 1.99 (one
	 * unit); aeskeygenassist 13.9-14.0 alone, chained or beside four adds, two 26.9:
	 * microcoded, 14 cycles of the front end (the model's nearest: the adds would add one).
	 * Every profile takes these (the approximation before was 3 cycles, one micro-op)
	 */
	VEC("aesenc", F_UPD, 3, 1),
	VEC("aesenclast", F_UPD, 3, 1),
	VEC("aesdec", F_UPD, 3, 1),
	VEC("aesdeclast", F_UPD, 3, 1),
	VEC("aesimc", F_MOV, 6, 1),
	VEC("pclmulqdq", F_UPD, 3, 1),
	{ "aeskeygenassist", F_MOV, 12, 2, PT_VEC, 0, false, false, false, false, 0, 0, 14 },
	VEC("insertps", F_UPD, 1, 1),
	VEC("pinsrb", F_UPD, 2, 2),
	VEC("pinsrw", F_UPD, 2, 2),
	VEC("pinsrd", F_UPD, 2, 2),
	VEC("pinsrq", F_UPD, 2, 2),
	VEC("pextrb", F_MOV, 3, 2),
	VEC("pextrw", F_MOV, 3, 2),
	VEC("pextrd", F_MOV, 3, 2),
	VEC("pextrq", F_MOV, 3, 2),
	VEC("extractps", F_MOV, 3, 2),
	VEC("pmovzxbw", F_MOV, 1, 1),
	VEC("pmovzxbd", F_MOV, 1, 1),
	VEC("pmovzxwd", F_MOV, 1, 1),
	VEC("pmovzxdq", F_MOV, 1, 1),
	VEC("pmovsxbw", F_MOV, 1, 1),
	VEC("pmovsxbd", F_MOV, 1, 1),
	VEC("pmovsxwd", F_MOV, 1, 1),
	VEC("pmovsxdq", F_MOV, 1, 1),
	VEC("vbroadcastss", F_MOV, 3, 1),
	VEC("vbroadcastsd", F_MOV, 3, 1),
	VEC("vbroadcastf128", F_MOV, 3, 1),
	VEC("vbroadcasti128", F_MOV, 3, 1),
	VEC("vpbroadcastb", F_MOV, 3, 1),
	VEC("vpbroadcastw", F_MOV, 3, 1),
	VEC("vpbroadcastd", F_MOV, 3, 1),
	VEC("vpbroadcastq", F_MOV, 3, 1),
	VEC("vperm2f128", F_MOV, 3, 1),
	VEC("vperm2i128", F_MOV, 3, 1),
	VEC("vpermd", F_MOV, 3, 1),
	VEC("vpermps", F_MOV, 3, 1),
	VEC("vpermq", F_MOV, 3, 1),
	VEC("vpermpd", F_MOV, 3, 1),
	VEC("vpermilps", F_MOV, 1, 1),
	VEC("vpermilpd", F_MOV, 1, 1),
	VEC("vinsertf128", F_MOV, 3, 1),
	VEC("vinserti128", F_MOV, 3, 1),
	VEC("vextractf128", F_MOV, 3, 1),
	VEC("vextracti128", F_MOV, 3, 1),
	/* their AVX-512 forms: 128 or 256 bits in or out of a zmm (the same lane crossing) */
	VEC("vinsertf32x4", F_MOV, 3, 1),
	VEC("vinserti32x4", F_MOV, 3, 1),
	VEC("vinsertf64x2", F_MOV, 3, 1),
	VEC("vinserti64x2", F_MOV, 3, 1),
	VEC("vinsertf32x8", F_MOV, 3, 1),
	VEC("vinserti32x8", F_MOV, 3, 1),
	VEC("vinsertf64x4", F_MOV, 3, 1),
	VEC("vinserti64x4", F_MOV, 3, 1),
	VEC("vextractf32x4", F_MOV, 3, 1),
	VEC("vextracti32x4", F_MOV, 3, 1),
	VEC("vextractf64x2", F_MOV, 3, 1),
	VEC("vextracti64x2", F_MOV, 3, 1),
	VEC("vextractf32x8", F_MOV, 3, 1),
	VEC("vextracti32x8", F_MOV, 3, 1),
	VEC("vextractf64x4", F_MOV, 3, 1),
	VEC("vextracti64x4", F_MOV, 3, 1),
	VEC("vpblendd", F_MOV, 1, 1),
	{ "vzeroupper", F_NOP, 0, 4, PT_NONE, 0, false, false, false, false, 0, 0 },
	{ "vzeroall", F_NOP, 0, 4, PT_NONE, 0, false, false, false, false, 0, 0 },
	/* converts; the scalar ones into xmm merge into their destination (a dependency) */
	VEC("cvtsi2ss", F_UPD, 4, 2),
	VEC("cvtsi2sd", F_UPD, 4, 2),
	VEC("cvtss2sd", F_UPD, 5, 2),
	VEC("cvtsd2ss", F_UPD, 5, 2),
	VEC("cvtss2si", F_MOV, 6, 2),
	VEC("cvtsd2si", F_MOV, 6, 2),
	VEC("cvttss2si", F_MOV, 6, 2),
	VEC("cvttsd2si", F_MOV, 6, 2),
	VEC("cvtdq2ps", F_MOV, 4, 1),
	VEC("cvtps2dq", F_MOV, 4, 1),
	VEC("cvttps2dq", F_MOV, 4, 1),
	VEC("cvtdq2pd", F_MOV, 5, 2),
	VEC("cvtpd2dq", F_MOV, 5, 2),
	VEC("cvttpd2dq", F_MOV, 5, 2),
	VEC("cvtps2pd", F_MOV, 5, 2),
	VEC("cvtpd2ps", F_MOV, 5, 2),
	VEC("vcvtph2ps", F_MOV, 5, 2),
	VEC("vcvtps2ph", F_MOV, 5, 2),
	/* the AVX rows the model started with: exact three-operand forms */
	VEC("vpmulld", F_VEC3, 10, 2),
	VEC("vpaddd", F_VEC3, 1, 1),
	VEC("vaddpd", F_VEC3, 4, 1),
	VEC("vmulpd", F_VEC3, 4, 1),
	VEC("vfmadd231pd", F_FMA, 4, 1),
};

/* The condition codes of jcc, cmovcc and setcc. */
static const char *const conds[] = { "o",  "no", "b",  "nae", "c",   "nb", "ae",  "nc",
				     "z",  "e",	 "nz", "ne",  "be",  "na", "nbe", "a",
				     "s",  "ns", "p",  "pe",  "np",  "po", "l",	  "nge",
				     "nl", "ge", "le", "ng",  "nle", "g",  NULL };

bool model_insn_is_cond(const char *s)
{
	for (int i = 0; conds[i]; i++)
		if (!strcmp(s, conds[i]))
			return true;
	return false;
}

const struct op_def *model_insn_row(const char *m)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(m, ops[i].name))
			return &ops[i];
	return NULL;
}

/*
 * Whether m is an SSE or AVX compare with its predicate in the name (cmpltsd, vcmpnle_uqps):
 * then *row is the row of the compare it stands for (cmpsd, cmpps ...).
 */
static bool fp_compare(const char *m, const struct op_def **row)
{
	static const char *const preds[] = { "eq",    "lt",  "le",   "unord", "neq",
					     "nlt",   "nle", "ord",  "nge",   "ngt",
					     "false", "ge",  "true", "gt",    NULL };
	static const char *const tails[] = { "", "_oq", "_os", "_uq", "_us", "_s", NULL };
	const char *p = m + (m[0] == 'v'), *sfx;
	char name[8];
	size_t n = strlen(p);

	if (strncmp(p, "cmp", 3) || n < 3 + 2 + 2)
		return false;
	sfx = p + n - 2;
	if (strcmp(sfx, "ss") && strcmp(sfx, "sd") && strcmp(sfx, "ps") && strcmp(sfx, "pd"))
		return false;
	for (int i = 0; preds[i]; i++)
		for (int j = 0; tails[j]; j++)
			if (strlen(preds[i]) + strlen(tails[j]) == (size_t)(sfx - p - 3) &&
			    !strncmp(p + 3, preds[i], strlen(preds[i])) &&
			    !strncmp(p + 3 + strlen(preds[i]), tails[j], strlen(tails[j]))) {
				snprintf(name, sizeof(name), "cmp%s", sfx);
				*row = model_insn_row(name);
				return *row != NULL;
			}
	return false;
}

/*
 * Mnemonic m's row, into *d: its own; a family's (jcc, cmovcc, setcc, the FMA forms, the
 * compares with a predicate in the name); or,
 * for vNAME, NAME's where that is a vector row: the AVX form of an SSE instruction, whose
 * destination is no source (F_UPD becomes F_MOV). *base is the row's name, for overrides.
 */
bool model_insn_lookup(const char *m, struct op_def *d, const char **base)
{
	static const char *const fma[] = { "vfmadd", "vfmsub", "vfnmadd", "vfnmsub", NULL };
	const struct op_def *r = model_insn_row(m);

	*base = m;
	if (r) {
		*d = *r;
		return true;
	}
	memset(d, 0, sizeof(*d));
	d->name = m;
	d->lat = 1;
	d->uops = 1;
	d->port = PT_ALU;
	if (m[0] == 'j' && model_insn_is_cond(m + 1)) {
		d->form = F_JCC;
		d->flags = FL_R;
		return true;
	}
	if (!strncmp(m, "cmov", 4) && model_insn_is_cond(m + 4)) {
		d->form = F_UPD;
		d->flags = FL_R;
		return true;
	}
	if (!strncmp(m, "set", 3) && model_insn_is_cond(m + 3)) {
		d->form = F_SET;
		d->flags = FL_R;
		return true;
	}
	for (int i = 0; fma[i]; i++)
		if (!strncmp(m, fma[i], strlen(fma[i])) && m[strlen(fma[i])]) {
			d->form = F_FMA;
			d->lat = 4;
			d->port = PT_VEC;
			return true;
		}
	if (fp_compare(m, &r)) { /* cmpltsd x, y is cmpsd x, y, 1; the AVX form as below */
		*d = *r;
		d->name = m;
		if (m[0] == 'v' && d->form == F_UPD)
			d->form = F_MOV;
		*base = r->name;
		return true;
	}
	if (m[0] == 'v' && (r = model_insn_row(m + 1)) &&
	    (r->port == PT_VEC || r->port == PT_MOVE_VEC)) {
		*d = *r;
		d->name = m;
		if (d->form == F_UPD)
			d->form = F_MOV;
		*base = r->name;
		return true;
	}
	return false;
}

int model_insn_default(const char *mnemonic, unsigned *latency, unsigned *uops)
{
	struct op_def d;
	const char *base = NULL;

	if (!model_insn_lookup(mnemonic, &d, &base))
		return IPCC_EINVAL;
	*latency = d.lat;
	*uops = d.uops;
	return 0;
}

bool model_insn_in_list(const char *m, const char *const *list)
{
	for (int i = 0; list[i]; i++)
		if (!strcmp(m, list[i]))
			return true;
	return false;
}

enum unit model_insn_unit(const char *m)
{
	static const char *const shift[] = { "shl",  "sal",  "shr",  "sar",  "rol",  "ror", "rcl",
					     "rcr",  "shlx", "shrx", "sarx", "rorx", "adc", "sbb",
					     "bt",   "bts",  "btr",  "btc",  "cdq",  "cqo", "cwd",
					     "lahf", "sahf", "jmp",  "wait", NULL };
	static const char *const mul[] = { "imul", "mul",  "popcnt", "lzcnt", "tzcnt", "bsf", "bsr",
					   "pdep", "pext", "shld",   "shrd",  "crc32", NULL };

	if ((m[0] == 'j' && model_insn_is_cond(m + 1)) ||
	    (!strncmp(m, "cmov", 4) && model_insn_is_cond(m + 4)) ||
	    (!strncmp(m, "set", 3) && model_insn_is_cond(m + 3)))
		return U_SHIFT;
	if (model_insn_in_list(m, shift))
		return U_SHIFT;
	if (model_insn_in_list(m, mul))
		return U_MUL;
	return U_ANY;
}

bool model_insn_branches(const char *m)
{
	return (m[0] == 'j' && model_insn_is_cond(m + 1)) || !strcmp(m, "jmp") ||
	       (!strncmp(m, "cmov", 4) && model_insn_is_cond(m + 4)) ||
	       (!strncmp(m, "set", 3) && model_insn_is_cond(m + 3));
}

/* Vector instructions that write flags: the out class, on Intel's ports and Zen 5's pipes alike. */
static const char *const vec_out[] = { "ucomiss", "ucomisd", "comiss", "comisd", "ptest", NULL };

/*
 * Which is which, from four independent instances (and the loop's branch) each, on a
 * Granite Rapids-class core: 2.00 cycles for the two-port rows, 4.00 for the one-port ones
 * (include/ipcc/model.h, vec_mul_ports).
 */
enum vunit model_insn_vunit(const char *b, bool to_gpr, bool from_gpr, bool mem)
{
	static const char *const mul[] = {
		"mulps",    "mulpd",	  "mulss",   "mulsd",	   "minps",   "minpd",
		"minss",    "minsd",	  "maxps",   "maxpd",	   "maxss",   "maxsd",
		"cmpps",    "cmppd",	  "cmpss",   "cmpsd",	   "roundps", "roundpd",
		"roundss",  "roundsd",	  "pmullw",  "pmulhw",	   "pmulhuw", "pmulld",
		"pmuludq",  "pmuldq",	  "pmaddwd", "pmaddubsw",  "pcmpeqb", "pcmpeqw",
		"pcmpeqd",  "pcmpeqq",	  "pcmpgtb", "pcmpgtw",	   "pcmpgtd", "pminsb",
		"pminsw",   "pminsd",	  "pminub",  "pminuw",	   "pminud",  "pmaxsb",
		"pmaxsw",   "pmaxsd",	  "pmaxub",  "pmaxuw",	   "pmaxud",  "pavgb",
		"pavgw",    "pabsb",	  "pabsw",   "pabsd",	   "psllw",   "pslld",
		"psllq",    "psrlw",	  "psrld",   "psrlq",	   "psraw",   "psrad",
		"vpsllvd",  "vpsllvq",	  "vpsrlvd", "vpsrlvq",	   "vpsravd", "cvtdq2ps",
		"cvtps2dq", "cvttps2dq",  "rcpps",   "rsqrtps",	   "rcpss",   "rsqrtss",
		"aesenc",   "aesenclast", "aesdec",  "aesdeclast", "aesimc",  NULL
	};
	static const char *const add[] = {
		"addps",     "addpd",	   "addss",	"addsd",     "subps",	  "subpd",
		"subss",     "subsd",	   "addsubps",	"addsubpd",  "pshufd",	  "pshufb",
		"shufps",    "shufpd",	   "pshuflw",	"pshufhw",   "punpcklbw", "punpcklwd",
		"punpckldq", "punpcklqdq", "punpckhbw", "punpckhwd", "punpckhdq", "punpckhqdq",
		"pslldq",    "psrldq",	   "pmovzxbw",	"pmovzxbd",  "pmovzxwd",  "pmovzxdq",
		"pmovsxbw",  "pmovsxbd",   "pmovsxwd",	"pmovsxdq",  NULL
	};
	static const char *const shuf[] = { "unpcklps", "unpckhps",    "unpcklpd",   "unpckhpd",
					    "palignr",	"packsswb",    "packssdw",   "packuswb",
					    "packusdw", "psadbw",      "vpermilps",  "vpermilpd",
					    "movhlps",	"movlhps",     "vpermd",     "vpermps",
					    "vpermq",	"vpermpd",     "vperm2f128", "vperm2i128",
					    "insertps", "movhps_load", "pclmulqdq",  NULL };
	/* from a register only: from memory, the load does it */
	static const char *const shuf_reg[] = { "vbroadcastss",	 "vbroadcastsd",  "vpbroadcastb",
						"vpbroadcastw",	 "vpbroadcastd",  "vpbroadcastq",
						"vinsertf128",	 "vinserti128",	  "vextractf128",
						"vextracti128",	 "vinsertf32x4",  "vinserti32x4",
						"vinsertf64x2",	 "vinserti64x2",  "vinsertf32x8",
						"vinserti32x8",	 "vinsertf64x4",  "vinserti64x4",
						"vextractf32x4", "vextracti32x4", "vextractf64x2",
						"vextracti64x2", "vextractf32x8", "vextracti32x8",
						"vextractf64x4", "vextracti64x4", NULL };

	if (to_gpr || model_insn_in_list(b, vec_out))
		return V_OUT;
	if (model_insn_is_conversion(b)) /* from memory: the load, then the converting one */
		return mem ? V_MUL : V_SHUF;
	if (from_gpr)
		return V_SHUF;
	if (model_insn_in_list(b, mul) || !strncmp(b, "vfm", 3) || !strncmp(b, "vfnm", 4))
		return V_MUL;
	if (model_insn_in_list(b, add))
		return V_ADD;
	if (model_insn_in_list(b, shuf) || (!mem && model_insn_in_list(b, shuf_reg)))
		return V_SHUF;
	return V_ANY;
}

/*
 * The same on Zen 5's four pipes (vec_zen_pipes; include/ipcc/model.h says what was
 * measured): V_MUL on two, V_ADD on two others, V_SHUF on one of each, V_ANY on all four.
 * Moves from general registers are the profile's vec_in_ports' (V_ANY here).
 */
enum vunit model_insn_vunit_zen(const char *b, bool to_gpr, bool from_gpr, bool mem)
{
	static const char *const mul[] = { "mulps",	"mulpd",      "mulss",	   "mulsd",
					   "pmullw",	"pmulld",     "pmulhw",	   "pmulhuw",
					   "pmulhrsw",	"pmuludq",    "pmuldq",	   "pmaddwd",
					   "pmaddubsw", "psadbw",     "aesenc",	   "aesenclast",
					   "aesdec",	"aesdeclast", "aesimc",	   "blendvps",
					   "blendvpd",	"pblendvb",   "pclmulqdq", NULL };
	static const char *const add[] = {
		"addps",    "addpd",	"addss",    "addsd",	 "subps",     "subpd",
		"subss",    "subsd",	"addsubps", "addsubpd",	 "minps",     "minpd",
		"minss",    "minsd",	"maxps",    "maxpd",	 "maxss",     "maxsd",
		"cmpps",    "cmppd",	"cmpss",    "cmpsd",	 "roundps",   "roundpd",
		"roundss",  "roundsd",	"cvtdq2ps", "cvtps2dq",	 "cvttps2dq", "cvtps2pd",
		"cvtpd2ps", "cvtdq2pd", "cvtpd2dq", "cvttpd2dq", "cvtss2sd",  "cvtsd2ss",
		"psllw",    "pslld",	"psllq",    "psrlw",	 "psrld",     "psrlq",
		"psraw",    "psrad",	"vpsllvd",  "vpsllvq",	 "vpsrlvd",   "vpsrlvq",
		"vpsravd",  NULL
	};
	static const char *const mix[] = {
		"pshufb",   "pslldq",	"psrldq",   "pmovzxbw",	  "pmovzxbd",	"pmovzxbq",
		"pmovzxwd", "pmovzxwq", "pmovzxdq", "pmovsxbw",	  "pmovsxbd",	"pmovsxbq",
		"pmovsxwd", "pmovsxwq", "pmovsxdq", "palignr",	  "packsswb",	"packssdw",
		"packuswb", "packusdw", "paddusb",  "paddusw",	  "psubusb",	"psubusw",
		"paddsb",   "paddsw",	"psubsb",   "psubsw",	  "pabsb",	"pabsw",
		"pabsd",    "rcpps",	"rsqrtps",  "rcpss",	  "rsqrtss",	"vpermd",
		"vpermps",  "vpermq",	"vpermpd",  "vperm2f128", "vperm2i128", NULL
	};
	/* from a register only: from memory, the load does it */
	static const char *const mix_reg[] = { "vinsertf128",  "vinserti128",  "vextractf128",
					       "vextracti128", "vinsertf32x4", "vinserti32x4",
					       "vinsertf64x2", "vinserti64x2", NULL };

	if (to_gpr || model_insn_in_list(b, vec_out))
		return V_OUT;
	if (from_gpr)
		return V_ANY;
	if (model_insn_in_list(b, mul) || !strncmp(b, "vfm", 3) || !strncmp(b, "vfnm", 4))
		return V_MUL;
	if (model_insn_in_list(b, add))
		return V_ADD;
	if (model_insn_in_list(b, mix) || (!mem && model_insn_in_list(b, mix_reg)))
		return V_SHUF;
	return V_ANY;
}

/*
 * Conversions between single and double precision, and from double to 32-bit integers and
 * back, in two micro-ops from a register: one on the shuffle port and one on a multiplying
 * one (Emerald Rapids, four independent cvtps2pd, cvtpd2ps, cvtdq2pd or cvttpd2dq 4.00
 * cycles a loop, 6.00 beside eight mulpd; cvtss2sd 4.00 and 6.03; from memory, four
 * cvtps2pd 2.00: the load and the multiplying port's).
 */
bool model_insn_is_conversion(const char *b)
{
	static const char *const conv[] = { "cvtps2pd",	 "cvtpd2ps", "cvtdq2pd", "cvtpd2dq",
					    "cvttpd2dq", "cvtss2sd", "cvtsd2ss", "vcvtph2ps",
					    "vcvtps2ph", NULL };

	return model_insn_in_list(b, conv);
}

/* Prefixes that change nothing the model sees (lock is handled on its own). */
bool model_insn_is_prefix(const char *w)
{
	static const char *const pre[] = { "rep",    "repe",	 "repz",     "repne",
					   "repnz",  "data16",	 "notrack",  "bnd",
					   "addr32", "xacquire", "xrelease", NULL };

	for (int i = 0; pre[i]; i++)
		if (!strcmp(w, pre[i]))
			return true;
	return false;
}
