/*
 * parse.c - x86-64 Intel-syntax assembly text into the model's instructions.
 *
 * One instruction per line, as pasted from a listing: an optional label, an optional `lock`
 * prefix, the mnemonic, operands (registers, immediates, [base + index*scale + disp] with an
 * optional size such as `qword ptr`, labels for jumps). `;` or `#` starts a comment, whose
 * words may override the table: lat=N, uops=N, fe_stall=N, mispredict[=F], at_retire. NASM's
 * `%rep N` ... `%endrep` (nestable) and `times N insn` repeat lines. Every error is reported
 * with its line and column, and parsing stops there.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_int.h"
#include "model_int.h"

/* ---- the instruction table ------------------------------------------------------------- */

/*
 * Forms: which operands an instruction reads and writes (o0 is the first). Flags, implicit
 * registers, implicit memory and the port class are columns of the table, not forms.
 */
enum form {
	F_MOV,	   /* o0 = f(o1 ...): writes o0, reads the rest (moves, converts, AVX 3-op) */
	F_UPD,	   /* o0 = f(o0, o1 ...): reads and writes o0, reads the rest (SSE 2-op, cmov) */
	F_ALU,	   /* o0 op= o1, two operands (integer ALU) */
	F_SHIFT,   /* o0 op= [o1]: one or two operands (shifts, rotates) */
	F_UNARY,   /* inc/dec/neg/not/bswap o0 */
	F_SET,	   /* setcc o0: writes o0 only */
	F_CMP,	   /* cmp/test/bt/ucomisd a, b: reads both, writes nothing but flags */
	F_LEA,	   /* dst = address */
	F_IMUL,	   /* imul o0 (rdx:rax = rax * o0), imul dst, src [, imm] */
	F_IMP,	   /* explicit operands read, registers in the table's implicit columns */
	F_NOP,	   /* nop [operand]; also endbr64, vzeroupper */
	F_JCC,	   /* conditional branch: reads flags */
	F_JMP,	   /* jmp, call */
	F_PUSH,	   /* push o0 */
	F_POP,	   /* pop o0 */
	F_XADD,	   /* (lock) xadd m/r, r; xchg */
	F_CMPXCHG, /* (lock) cmpxchg m/r, r: also rax and flags */
	F_FENCE,   /* lfence, mfence, sfence */
	F_VEC3,	   /* AVX dst, src1, src2 */
	F_FMA	   /* vfmadd231pd acc, src1, src2: reads all three */
};

/* Port classes of a row: ALU or vector; a "move" takes none when it is a load or a store. */
enum { PT_ALU, PT_VEC, PT_NONE, PT_MOVE_ALU, PT_MOVE_VEC };

/* Flags: read, written. */
#define FL_R 1u
#define FL_W 2u

/* Implicit registers, as register bits. */
#define RAX (1ull << 0)
#define RCX (1ull << 1)
#define RDX (1ull << 2)
#define RSP (1ull << 4)
#define RBP (1ull << 5)

struct op_def {
	const char *name;
	enum form form;
	unsigned char lat, uops;
	unsigned char port;	 /* PT_* */
	unsigned char flags;	 /* FL_* */
	bool alu_fusable;	 /* fuses with a following jcc where the profile fuses ALU ops */
	bool cmp_fusable;	 /* fuses where the profile fuses cmp/test */
	bool zero_idiom;	 /* with its last two operands one register: depends on nothing */
	bool load;		 /* an implicit load (ret, leave) */
	uint64_t imp_rd, imp_wr; /* implicit registers read and written */
};

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
	ALU("bsf", F_MOV, 3, 1, FL_W),
	ALU("bsr", F_MOV, 3, 1, FL_W),
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

/* Per-profile differences: {profile, mnemonic, latency, uops}; lock adds its own row. */
static const struct {
	const char *profile, *name;
	unsigned lat, uops;
} overrides[] = {
	{ "zen3", "vpmulld", 3, 1 },
	{ "zen4", "vpmulld", 3, 1 },
	{ "zen3", "vaddpd", 3, 1 },
	{ "zen4", "vaddpd", 3, 1 },
	{ "zen3", "vmulpd", 3, 1 },
	{ "zen4", "vmulpd", 3, 1 },
	{ "zen3", "mfence", 7, 1 },
	{ "zen4", "mfence", 7, 1 },
	{ "zen5", "vpmulld", 3, 1 },
	{ "zen5", "vaddpd", 3, 1 },
	{ "zen5", "vmulpd", 3, 1 },
	{ "zen5", "mfence", 7, 1 },
	{ "neoverse-n2", "vpmulld", 4, 1 },
	/* Zen: FP add and multiply in 3 cycles, a radix-4 integer divider */
	{ "zen3", "addpd", 3, 1 },
	{ "zen3", "addps", 3, 1 },
	{ "zen3", "addsd", 3, 1 },
	{ "zen3", "addss", 3, 1 },
	{ "zen3", "mulpd", 3, 1 },
	{ "zen3", "mulps", 3, 1 },
	{ "zen3", "mulsd", 3, 1 },
	{ "zen3", "mulss", 3, 1 },
	{ "zen3", "subpd", 3, 1 },
	{ "zen3", "subsd", 3, 1 },
	{ "zen3", "div", 14, 2 },
	{ "zen3", "idiv", 14, 2 },
	{ "zen3", "divsd", 13, 1 },
	{ "zen3", "divpd", 13, 1 },
	{ "zen3", "pmulld", 3, 1 },
	{ "zen4", "pmulld", 3, 1 },
	{ "zen4", "addpd", 3, 1 },
	{ "zen4", "addps", 3, 1 },
	{ "zen4", "addsd", 3, 1 },
	{ "zen4", "addss", 3, 1 },
	{ "zen4", "mulpd", 3, 1 },
	{ "zen4", "mulps", 3, 1 },
	{ "zen4", "mulsd", 3, 1 },
	{ "zen4", "mulss", 3, 1 },
	{ "zen4", "subpd", 3, 1 },
	{ "zen4", "subsd", 3, 1 },
	{ "zen4", "div", 14, 2 },
	{ "zen4", "idiv", 14, 2 },
	{ "zen5", "addpd", 2, 1 },
	{ "zen5", "addsd", 2, 1 },
	{ "zen5", "mulpd", 3, 1 },
	{ "zen5", "mulsd", 3, 1 },
	{ "zen5", "div", 12, 2 },
	{ "zen5", "idiv", 12, 2 },
	/* Ice Lake and Golden Cove: a faster divider */
	{ "icelake", "div", 15, 4 },
	{ "icelake", "idiv", 15, 4 },
	{ "goldencove", "div", 15, 4 },
	{ "goldencove", "idiv", 15, 4 },
	{ "goldencove", "addpd", 3, 1 },
	{ "goldencove", "addsd", 3, 1 },
	{ "goldencove", "addps", 3, 1 },
	{ "goldencove", "addss", 3, 1 },
};

/* Which built-in's latencies apply: the profile's `latencies`, else its name. */
static const char *table_of(const struct ipcc_model_profile *p)
{
	return p->latencies[0] ? p->latencies : p->name;
}

/* A locked read-modify-write: executes at retire, ~18 cycles on Intel, ~8 on Zen. */
static unsigned lock_latency(const struct ipcc_model_profile *p)
{
	if (p->lock_latency)
		return p->lock_latency;
	return strncmp(table_of(p), "zen", 3) == 0 ? 8 : 18;
}

/* ---- registers ------------------------------------------------------------------------- */

static int gpr(const char *s)
{
	static const char *const r64[] = { "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi" };
	static const char *const r32[] = { "eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi" };
	static const char *const r16[] = { "ax", "cx", "dx", "bx", "sp", "bp", "si", "di" };
	static const char *const r8[] = { "al", "cl", "dl", "bl", "spl", "bpl", "sil", "dil" };
	static const char *const r8h[] = { "ah", "ch", "dh", "bh" };
	char *end;
	long n;

	for (int i = 0; i < 8; i++)
		if (!strcmp(s, r64[i]) || !strcmp(s, r32[i]) || !strcmp(s, r16[i]) ||
		    !strcmp(s, r8[i]))
			return i;
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, r8h[i]))
			return i;
	if (s[0] == 'r' && isdigit((unsigned char)s[1])) {
		n = strtol(s + 1, &end, 10);
		if (n >= 8 && n <= 15 &&
		    (!*end || !strcmp(end, "d") || !strcmp(end, "w") || !strcmp(end, "b")))
			return (int)n;
	}
	return -1;
}

/* Whether s names an 8- or 16-bit part of a general register (al, ah, ax, r8b, r8w). */
static bool gpr_partial(const char *s)
{
	size_t n = strlen(s);

	if (gpr(s) < 0)
		return false;
	if (s[0] == 'r' && isdigit((unsigned char)s[1]))
		return s[n - 1] == 'b' || s[n - 1] == 'w';
	return n == 2 ? s[0] != 'e' && s[0] != 'r' : !strcmp(s + 1, "pl") || !strcmp(s + 1, "il");
}

/* A register's bit number, or -1. */
static int reg_id(const char *s)
{
	char *end;
	long n;

	if (gpr(s) >= 0)
		return gpr(s);
	if ((!strncmp(s, "xmm", 3) || !strncmp(s, "ymm", 3) || !strncmp(s, "zmm", 3)) &&
	    isdigit((unsigned char)s[3])) {
		n = strtol(s + 3, &end, 10);
		if (!*end && n >= 0 && n < 32)
			return REG_VEC0 + (int)n;
	}
	return -1;
}

/* ---- the parser ------------------------------------------------------------------------ */

struct parser {
	const struct ipcc_model_profile *p;
	struct ipcc_model_program *prog;
	struct ipcc_model_error *err;
	const char *line_start;
	unsigned line;
	bool label_before; /* a label since the last instruction: no fusion across it */
	bool lenient;	   /* approximate what the table does not know */
};

static int fail(struct parser *ps, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct parser *ps, const char *at, const char *fmt, ...)
{
	va_list ap;

	ps->err->line = ps->line;
	ps->err->column = at ? (unsigned)(at - ps->line_start) + 1 : 1;
	va_start(ap, fmt);
	vsnprintf(ps->err->message, sizeof(ps->err->message), fmt, ap);
	va_end(ap);
	return err_set(IPCC_EINVAL, "%u:%u: %s", ps->err->line, ps->err->column, ps->err->message);
}

enum opkind { O_REG, O_IMM, O_MEM, O_LABEL };

struct operand {
	enum opkind kind;
	int reg;	    /* O_REG */
	bool partial;	    /* O_REG: an 8- or 16-bit part of a general register (al, ah, r8w) */
	uint64_t addr_regs; /* O_MEM: base and index */
	struct mkey key;    /* O_MEM: the address, normalised */
	const char *at;
};

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* An identifier or number token [A-Za-z0-9_.$@]+, lower-cased into buf. */
static const char *word(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	while (isalnum((unsigned char)*s) || *s == '_' || *s == '.' || *s == '$' || *s == '@') {
		if (n + 1 < len)
			buf[n++] = (char)tolower((unsigned char)*s);
		s++;
	}
	buf[n] = '\0';
	return s;
}

static bool is_number(const char *w)
{
	char *end;

	if (!*w)
		return false;
	errno = 0;
	strtoull(w, &end, 0);
	if (*end == 'h' && end[1] == '\0') /* NASM's 10h */
		return true;
	return *end == '\0' && errno == 0;
}

/* A number token's value (is_number: decimal, 0x hex, NASM's 10h). */
static uint64_t number_value(const char *w)
{
	size_t n = strlen(w);

	if (n > 1 && w[n - 1] == 'h' && (w[0] != '0' || (w[1] != 'x' && w[1] != 'b')))
		return strtoull(w, NULL, 16);
	return strtoull(w, NULL, 0);
}

/* A symbol's hash (FNV-1a), never 0. */
static uint32_t symbol_hash(const char *w)
{
	uint32_t h = 2166136261u;

	while (*w)
		h = (h ^ (unsigned char)*w++) * 16777619u;
	return h ? h : 1;
}

/*
 * The address key of a memory operand with `nregs` registers regs[] (scales[]): one with
 * scale 1 alone is a base; two of scale 1 are ordered by register number.
 */
static void make_key(struct mkey *k, int nregs, const int *regs, const int *scales)
{
	int b = -1, x = -1, sc = 0;

	if (nregs == 1 && scales[0] == 1) {
		b = regs[0];
	} else if (nregs == 1) {
		x = regs[0], sc = scales[0];
	} else if (nregs == 2) {
		int i = scales[0] > 1 && scales[1] == 1 ? 1 : 0; /* the base */

		if (scales[0] == 1 && scales[1] == 1 && regs[1] < regs[0])
			i = 1;
		b = regs[i], x = regs[1 - i], sc = scales[1 - i];
	}
	k->base = (int8_t)b;
	k->index = (int8_t)x;
	k->scale = (uint8_t)sc;
}

/* [base + index*scale + disp] starting at '[': fills o, returns the character after ']'. */
static const char *parse_mem(struct parser *ps, const char *s, struct operand *o)
{
	int nregs = 0, regs[2], scales[2];
	bool want_term = true, minus = false;

	o->kind = O_MEM;
	o->addr_regs = 0;
	o->key.disp = 0;
	o->key.sym = 0;
	s = skip_space(s + 1);
	for (;;) {
		char w[64];
		const char *at = s;

		if (*s == ']') {
			if (want_term)
				return fail(ps, at, "expected a register or number before ']'"),
				       NULL;
			make_key(&o->key, nregs, regs, scales);
			return s + 1;
		}
		if (!want_term) {
			if (*s != '+' && *s != '-')
				return fail(ps, at, "expected '+', '-' or ']' in a memory operand"),
				       NULL;
			minus = *s == '-';
			s = skip_space(s + 1);
			want_term = true;
			continue;
		}
		s = word(s, w, sizeof(w));
		if (!*w)
			return fail(ps, at, "unexpected '%c' in a memory operand", *at ? *at : ' '),
			       NULL;
		s = skip_space(s);
		if (reg_id(w) >= 0) {
			if (reg_id(w) >= REG_VEC0)
				return fail(ps, at, "'%s' cannot address memory", w), NULL;
			if (++nregs > 2)
				return fail(ps, at, "more than two registers in an address"), NULL;
			o->addr_regs |= 1ull << reg_id(w);
			regs[nregs - 1] = reg_id(w);
			scales[nregs - 1] = 1;
			if (*s == '*') {
				char sc[16];
				const char *sat = skip_space(s + 1);

				s = skip_space(word(sat, sc, sizeof(sc)));
				if (strcmp(sc, "1") && strcmp(sc, "2") && strcmp(sc, "4") &&
				    strcmp(sc, "8"))
					return fail(ps, sat, "scale must be 1, 2, 4 or 8"), NULL;
				scales[nregs - 1] = sc[0] - '0';
			}
		} else if (is_number(w) && *s == '*') {
			/* scale*reg */
			char r[16];
			const char *rat = skip_space(s + 1);

			if (strcmp(w, "1") && strcmp(w, "2") && strcmp(w, "4") && strcmp(w, "8"))
				return fail(ps, at, "scale must be 1, 2, 4 or 8"), NULL;
			s = skip_space(word(rat, r, sizeof(r)));
			if (reg_id(r) < 0 || reg_id(r) >= REG_VEC0)
				return fail(ps, rat, "expected an index register after '*'"), NULL;
			if (++nregs > 2)
				return fail(ps, rat, "more than two registers in an address"), NULL;
			o->addr_regs |= 1ull << reg_id(r);
			regs[nregs - 1] = reg_id(r);
			scales[nregs - 1] = w[0] - '0';
		} else if (is_number(w)) { /* numbers and symbols are displacements */
			uint64_t v = number_value(w);

			o->key.disp += minus ? 0 - v : v;
		} else if (isalpha((unsigned char)w[0]) || w[0] == '_' || w[0] == '.') {
			uint32_t h = symbol_hash(w);

			o->key.sym += minus ? 0 - h : h;
		} else {
			return fail(ps, at, "bad displacement '%s'", w), NULL;
		}
		want_term = false;
		minus = false;
	}
}

/* After a segment override (fs:, cs: ...) at s, or s; *seg: its number + 1, else kept. */
static const char *skip_segment(const char *s, uint8_t *seg)
{
	static const char *const segs[] = { "cs", "ds", "es", "fs", "gs", "ss", NULL };
	char w[8];
	const char *e = word(s, w, sizeof(w));

	for (int i = 0; segs[i]; i++)
		if (!strcmp(w, segs[i]) && *e == ':') {
			*seg = (uint8_t)(i + 1);
			return skip_space(e + 1);
		}
	return s;
}

/* One operand at s; returns the character after it. */
static const char *parse_operand(struct parser *ps, const char *s, struct operand *o)
{
	static const char *const sizes[] = { "byte",  "word",	 "dword",   "qword",   "tword",
					     "oword", "xmmword", "ymmword", "zmmword", NULL };
	char w[64];
	const char *at;
	uint8_t seg = 0;

	s = skip_segment(skip_space(s), &seg);
	o->at = s;
	if (*s == '[') {
		s = parse_mem(ps, s, o);
		o->key.segment = seg;
		return s;
	}
	at = s;
	if (*s == '-' || *s == '+') {
		s = skip_space(s + 1);
		s = word(s, w, sizeof(w));
		if (!is_number(w))
			return fail(ps, at, "expected a number after '%c'", *at), NULL;
		o->kind = O_IMM;
		return s;
	}
	s = word(s, w, sizeof(w));
	if (!*w)
		return fail(ps, at, "expected an operand"), NULL;
	for (int i = 0; sizes[i]; i++)
		if (!strcmp(w, sizes[i])) {
			char p[8];
			const char *after = skip_space(s);
			const char *next = word(after, p, sizeof(p));

			if (!strcmp(p, "ptr"))
				after = skip_space(next);
			after = skip_segment(after, &seg);
			if (*after != '[')
				return fail(ps, after, "expected '[' after '%s'", sizes[i]), NULL;
			after = parse_mem(ps, after, o);
			o->key.segment = seg;
			return after;
		}
	if (reg_id(w) >= 0) {
		o->kind = O_REG;
		o->reg = reg_id(w);
		o->partial = gpr_partial(w);
		return s;
	}
	if (is_number(w)) {
		o->kind = O_IMM;
		return s;
	}
	if (isalpha((unsigned char)w[0]) || w[0] == '_' || w[0] == '.') {
		o->kind = O_LABEL;
		return s;
	}
	return fail(ps, at, "bad operand '%s'", w), NULL;
}

static uint32_t pool_add(struct ipcc_model_program *prog, const char *s, size_t len)
{
	uint32_t off;

	if (prog->pool_len + len + 1 > prog->pool_cap) {
		size_t cap = prog->pool_cap ? prog->pool_cap * 2 : 4096;
		char *p;

		while (cap < prog->pool_len + len + 1)
			cap *= 2;
		p = realloc(prog->pool, cap);
		if (!p)
			return UINT32_MAX;
		prog->pool = p;
		prog->pool_cap = cap;
	}
	off = (uint32_t)prog->pool_len;
	memcpy(prog->pool + off, s, len);
	prog->pool[off + len] = '\0';
	prog->pool_len += len + 1;
	return off;
}

static int emit(struct parser *ps, const struct minsn *in, unsigned times)
{
	struct ipcc_model_program *prog = ps->prog;

	if ((uint64_t)prog->n + times > MODEL_MAX_INSNS)
		return fail(ps, NULL, "the block expands to more than %d instructions",
			    MODEL_MAX_INSNS);
	if (prog->n + times > prog->cap) {
		unsigned cap = prog->cap ? prog->cap : 64;
		struct minsn *p;

		while (cap < prog->n + times)
			cap *= 2;
		p = realloc(prog->insn, cap * sizeof(*p));
		if (!p)
			return err_set(IPCC_ENOMEM, "model: out of memory");
		prog->insn = p;
		prog->cap = cap;
	}
	for (unsigned t = 0; t < times; t++)
		prog->insn[prog->n++] = *in;
	return 0;
}

/* The comment's overrides: lat=N uops=N fe_stall=N mispredict[=F] at_retire. */
static int annotations(struct parser *ps, const char *c, struct minsn *in)
{
	while (*c) {
		char w[64];

		while (*c && !isalpha((unsigned char)*c) && *c != '_')
			c++;
		if (!*c)
			break;
		c = word(c, w, sizeof(w));
		if (!strcmp(w, "mispredict") && *c == '=') {
			/* a share F of its instances, 0 <= F <= 1, spread evenly */
			char num[32];
			const char *nat = c + 1;
			char *end;
			double v;

			c = word(nat, num, sizeof(num));
			errno = 0;
			v = strtod(num, &end);
			if (!*num || *end || errno || !(v >= 0 && v <= 1))
				return fail(ps, nat, "bad value for mispredict (a share, 0 to 1)");
			in->mispredict = (uint32_t)(v * MISPREDICT_ALL + 0.5);
		} else if (!strcmp(w, "mispredict")) {
			in->mispredict = MISPREDICT_ALL;
		} else if (!strcmp(w, "at_retire")) {
			in->at_retire = true;
		} else if ((!strcmp(w, "lat") || !strcmp(w, "uops") || !strcmp(w, "fe_stall")) &&
			   *c == '=') {
			char num[32];
			const char *nat = c + 1;
			char *end;
			unsigned long v;

			c = word(nat, num, sizeof(num));
			errno = 0;
			v = strtoul(num, &end, 10);
			if (!*num || *end || errno || v > 100000 || (!strcmp(w, "uops") && v > 64))
				return fail(ps, nat, "bad value for %s", w);
			if (!strcmp(w, "lat"))
				in->latency = (unsigned)v;
			else if (!strcmp(w, "uops"))
				in->uops = (unsigned)v;
			else
				in->fe_stall = (unsigned)v;
		}
	}
	return 0;
}

/* Whether s is a condition code (of jcc, cmovcc, setcc). */
static bool is_cond(const char *s)
{
	for (int i = 0; conds[i]; i++)
		if (!strcmp(s, conds[i]))
			return true;
	return false;
}

static const struct op_def *find_row(const char *m)
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
				*row = find_row(name);
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
static bool lookup(const char *m, struct op_def *d, const char **base)
{
	static const char *const fma[] = { "vfmadd", "vfmsub", "vfnmadd", "vfnmsub", NULL };
	const struct op_def *r = find_row(m);

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
	if (m[0] == 'j' && is_cond(m + 1)) {
		d->form = F_JCC;
		d->flags = FL_R;
		return true;
	}
	if (!strncmp(m, "cmov", 4) && is_cond(m + 4)) {
		d->form = F_UPD;
		d->flags = FL_R;
		return true;
	}
	if (!strncmp(m, "set", 3) && is_cond(m + 3)) {
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
	if (m[0] == 'v' && (r = find_row(m + 1)) && (r->port == PT_VEC || r->port == PT_MOVE_VEC)) {
		*d = *r;
		d->name = m;
		if (d->form == F_UPD)
			d->form = F_MOV;
		*base = r->name;
		return true;
	}
	return false;
}

/* Whether form f writes (rather than reads) a memory operand in first place. */
static bool writes_first(enum form f)
{
	return f == F_MOV || f == F_SET || f == F_POP;
}

/* Whether form f stores to a memory operand in first place. */
static bool stores_first(enum form f)
{
	return f == F_MOV || f == F_UPD || f == F_ALU || f == F_SHIFT || f == F_UNARY ||
	       f == F_SET || f == F_POP || f == F_XADD || f == F_CMPXCHG;
}

/* Operands read and written by row d; `n` operands in o[]. */
static int semantics(struct parser *ps, const char *mat, const char *m, const struct op_def *d,
		     struct operand *o, int n, bool lock, struct minsn *in, bool *load, bool *store)
{
	static const int want[][2] = {
		[F_MOV] = { 2, 4 },   [F_UPD] = { 2, 3 },     [F_ALU] = { 2, 2 },
		[F_SHIFT] = { 1, 2 }, [F_UNARY] = { 1, 1 },   [F_SET] = { 1, 1 },
		[F_CMP] = { 2, 2 },   [F_LEA] = { 2, 2 },     [F_IMUL] = { 1, 3 },
		[F_IMP] = { 0, 2 },   [F_NOP] = { 0, 1 },     [F_JCC] = { 1, 1 },
		[F_JMP] = { 1, 1 },   [F_PUSH] = { 1, 1 },    [F_POP] = { 1, 1 },
		[F_XADD] = { 2, 2 },  [F_CMPXCHG] = { 2, 2 }, [F_FENCE] = { 0, 0 },
		[F_VEC3] = { 3, 3 },  [F_FMA] = { 3, 3 },
	};
	const enum form f = d->form;
	uint64_t rd = 0, wr = 0;

	if (n < want[f][0] || n > want[f][1]) {
		if (want[f][0] == want[f][1])
			return fail(ps, mat, "'%s' takes %d operand%s, not %d", m, want[f][0],
				    want[f][0] == 1 ? "" : "s", n);
		return fail(ps, mat, "'%s' takes %d to %d operands, not %d", m, want[f][0],
			    want[f][1], n);
	}
	for (int i = 0; i < n; i++) {
		if (o[i].kind == O_MEM) {
			const uint8_t had = in->mem;

			rd |= o[i].addr_regs;
			/* lea's and a nop's address are no access */
			if (f != F_LEA && f != F_NOP && !(i == 0 && writes_first(f))) {
				*load = true;
				in->mem |= MEM_LOAD;
			}
			if (i == 0 && stores_first(f)) {
				*store = true;
				in->mem |= MEM_STORE;
			}
			if (!had && in->mem)
				in->key = o[i].key;
		}
		if (o[i].kind == O_LABEL && f != F_JCC && f != F_JMP)
			return fail(ps, o[i].at, "'%s' does not take a label", m);
	}
#define REG(i) (o[i].kind == O_REG ? 1ull << o[i].reg : 0)
	if ((f == F_MOV || f == F_UPD || f == F_ALU || f == F_SHIFT || f == F_SET || f == F_POP ||
	     f == F_UNARY) &&
	    o[0].kind != O_REG && o[0].kind != O_MEM)
		return fail(ps, o[0].at, "cannot write to this operand");
	switch (f) {
	case F_MOV:
		if (n == 2 && o[0].kind == O_MEM && o[1].kind == O_MEM)
			return fail(ps, o[1].at, "two memory operands");
		wr |= REG(0);
		for (int i = 1; i < n; i++)
			rd |= REG(i);
		if (o[0].kind == O_MEM) { /* a plain store of its other operands */
			in->plain_store = true;
			for (int i = 1; i < n; i++)
				in->data |= REG(i);
		}
		break;
	case F_ALU:
		if (o[0].kind == O_MEM && o[1].kind == O_MEM)
			return fail(ps, o[1].at, "two memory operands");
		/* fallthrough */
	case F_UPD:
	case F_SHIFT:
	case F_UNARY:
	case F_IMP:
		for (int i = 0; i < n; i++)
			rd |= REG(i);
		if (f != F_IMP)
			wr |= REG(0);
		break;
	case F_SET:
	case F_POP:
		wr |= REG(0);
		if (f == F_SET && o[0].kind == O_MEM) { /* setcc [m]: stores the flags */
			in->plain_store = true;
			in->data = 1ull << REG_FLAGS;
		}
		break;
	case F_CMP:
	case F_JMP:
	case F_PUSH:
		for (int i = 0; i < n; i++)
			rd |= REG(i);
		break;
	case F_LEA:
		if (o[0].kind != O_REG || o[1].kind != O_MEM)
			return fail(ps, o[0].at, "lea takes a register and a memory operand");
		wr |= REG(0);
		break;
	case F_IMUL:
		if (n == 1) { /* rdx:rax = rax * o0 */
			rd |= REG(0) | RAX;
			wr |= RAX | RDX;
			break;
		}
		if (o[0].kind != O_REG)
			return fail(ps, o[0].at, "imul writes a register");
		rd |= REG(1) | (n == 2 ? REG(0) : 0);
		wr |= REG(0);
		break;
	case F_NOP:
	case F_FENCE:
	case F_JCC:
		break;
	case F_XADD:
		rd |= REG(0) | REG(1);
		wr |= REG(0) | REG(1);
		break;
	case F_CMPXCHG:
		rd |= REG(0) | REG(1) | RAX;
		wr |= REG(0) | RAX;
		break;
	case F_VEC3:
	case F_FMA:
		if (o[0].kind != O_REG || o[0].reg < REG_VEC0)
			return fail(ps, o[0].at, "'%s' writes a vector register", m);
		rd |= REG(1) | REG(2) | (f == F_FMA ? REG(0) : 0);
		wr |= REG(0);
		break;
	}
	/*
	 * A write to an 8- or 16-bit part merges into the whole register, so it reads the old
	 * value too (setcc al, mov al, [m]), unless the profile renames parts apart.
	 */
	if (n > 0 && o[0].kind == O_REG && o[0].partial && (wr & REG(0)) && !ps->p->partial_rename)
		rd |= REG(0);
	/* xor r, r, pxor x, x, vxorps x, y, y ...: a zero idiom, which depends on nothing */
	if (d->zero_idiom && n >= 2 && n <= 3 && o[n - 1].kind == O_REG && o[n - 2].kind == O_REG &&
	    o[n - 1].reg == o[n - 2].reg && o[0].kind == O_REG) {
		rd = 0;
		in->zero = true;
	}
#undef REG
	if (f == F_PUSH || (f == F_JMP && d->imp_wr)) /* push, call */
		*store = true;
	if (f == F_POP || d->load)
		*load = true;
	if (d->flags & FL_R)
		rd |= 1ull << REG_FLAGS;
	if (d->flags & FL_W)
		wr |= 1ull << REG_FLAGS;
	rd |= d->imp_rd;
	wr |= d->imp_wr;
	if (lock && (f != F_ALU && f != F_UNARY && f != F_XADD && f != F_CMPXCHG))
		return fail(ps, mat, "'lock' cannot prefix '%s'", m);
	if (lock && o[0].kind != O_MEM)
		return fail(ps, o[0].at, "'lock' needs a memory destination");
	in->reads = rd;
	in->writes = wr;
	return 0;
}

/*
 * An instruction the table does not know (or whose operands it cannot read), in lenient
 * mode: one micro-op of latency 3 that reads every operand it can read and the flags,
 * writes its first, loads from a memory operand and stores to a first one.
 */
#define APPROX_LATENCY 3

static int approximate(struct parser *ps, const char *s, struct minsn *in, bool *load, bool *store)
{
	uint64_t rd = 1ull << REG_FLAGS, wr = 0;
	bool vec = false;
	int i = 0;

	while (*s) {
		size_t len = 0;
		int depth = 0;
		char piece[256];
		struct operand o;
		struct ipcc_model_error saved = *ps->err;

		while (s[len] && (depth > 0 || s[len] != ',')) {
			depth += s[len] == '[' || s[len] == '{' || s[len] == '(';
			depth -= s[len] == ']' || s[len] == '}' || s[len] == ')';
			len++;
		}
		snprintf(piece, sizeof(piece), "%.*s", (int)len, s);
		s += len + (s[len] == ',');
		{
			const char *line_start = ps->line_start, *end;

			ps->line_start = piece; /* where a failure's column counts from */
			end = parse_operand(ps, piece, &o);
			ps->line_start = line_start;
			*ps->err = saved;
			if (!end || *skip_space(end)) {
				i++;
				continue; /* not an operand the model reads: ignored */
			}
		}
		if (o.kind == O_REG) {
			rd |= 1ull << o.reg;
			if (i == 0)
				wr |= 1ull << o.reg;
			vec |= o.reg >= REG_VEC0;
		} else if (o.kind == O_MEM) {
			rd |= o.addr_regs;
			*load = true;
			if (i == 0)
				*store = true;
			if (!in->mem) {
				in->mem = (uint8_t)(MEM_LOAD | (i == 0 ? MEM_STORE : 0));
				in->key = o.key;
			}
		}
		i++;
	}
	in->reads = rd;
	in->writes = wr;
	in->latency = APPROX_LATENCY;
	in->uops = 1;
	in->ports = 1u << (vec ? PORT_VEC : PORT_ALU);
	in->approx = true;
	return 0;
}

/* Prefixes that change nothing the model sees (lock is handled on its own). */
static bool is_prefix(const char *w)
{
	static const char *const pre[] = { "rep",    "repe",	 "repz",     "repne",
					   "repnz",  "data16",	 "notrack",  "bnd",
					   "addr32", "xacquire", "xrelease", NULL };

	for (int i = 0; pre[i]; i++)
		if (!strcmp(w, pre[i]))
			return true;
	return false;
}

/*
 * The floating-point unit of the row named `base` (SSE names stand for their AVX forms):
 * FPU_ADD for add and subtract, FPU_MUL for multiply and FMA, else 0.
 */
static uint8_t fp_unit(const char *base)
{
	static const char *const adds[] = { "addps", "addpd", "addss", "addsd", "subps",
					    "subpd", "subss", "subsd", NULL };
	static const char *const muls[] = { "mulps", "mulpd", "mulss", "mulsd", NULL };

	for (int i = 0; adds[i]; i++)
		if (!strcmp(base, adds[i]))
			return FPU_ADD;
	for (int i = 0; muls[i]; i++)
		if (!strcmp(base, muls[i]))
			return FPU_MUL;
	return !strncmp(base, "vfm", 3) || !strncmp(base, "vfnm", 4) ? FPU_MUL : 0;
}

/* One instruction, s just after any label; c the comment (or ""). */
static int parse_insn(struct parser *ps, const char *s, const char *c, unsigned times)
{
	const struct ipcc_model_profile *p = ps->p;
	struct minsn in = { 0 };
	struct operand o[4];
	struct op_def def;
	const char *base;
	char m[32];
	const char *mat, *start, *ops_at, *end;
	bool lock = false, load = false, store = false, known;
	int n = 0, ret = 0;

	s = skip_space(s);
	start = s;
	mat = s;
	s = word(s, m, sizeof(m));
	while (!strcmp(m, "lock") || is_prefix(m)) {
		lock |= !strcmp(m, "lock");
		s = skip_space(s);
		mat = s;
		s = word(s, m, sizeof(m));
	}
	if (!*m)
		return fail(ps, mat, "expected an instruction");
	known = lookup(m, &def, &base);
	if (!known && !ps->lenient)
		return fail(ps, mat, "unknown instruction '%s'", m);
	s = skip_space(s);
	ops_at = s;
	end = s + strlen(s);
	if (known) {
		in.latency = def.lat;
		in.uops = def.uops;
		if (p->width && in.uops > p->width)
			in.uops = p->width;
		if (p->retire && in.uops > p->retire)
			in.uops = p->retire;
		for (size_t i = 0; i < sizeof(overrides) / sizeof(overrides[0]); i++)
			if (!strcmp(overrides[i].profile, table_of(p)) &&
			    (!strcmp(overrides[i].name, m) || !strcmp(overrides[i].name, base))) {
				in.latency = overrides[i].lat;
				in.uops = overrides[i].uops;
			}
		if (def.form == F_IMUL && p->mul_latency)
			in.latency = p->mul_latency;
		in.fpu = fp_unit(base);
		if (in.fpu == FPU_ADD && p->fadd_latency)
			in.latency = p->fadd_latency;
		if (in.fpu == FPU_MUL && p->fmul_latency && def.form != F_FMA)
			in.latency = p->fmul_latency;
		while (*s && ret == 0) {
			if (n == 4) {
				ret = fail(ps, s, "too many operands");
				break;
			}
			s = parse_operand(ps, s, &o[n]);
			if (!s) {
				ret = IPCC_EINVAL;
				break;
			}
			n++;
			s = skip_space(s);
			if (*s == ',')
				s = skip_space(s + 1);
			else if (*s)
				ret = fail(ps, s, "expected ',' or the end of the line");
		}
		if (ret == 0)
			ret = semantics(ps, mat, m, &def, o, n, lock, &in, &load, &store);
		if (ret != 0 && !(ret == IPCC_EINVAL && ps->lenient))
			return ret;
	}
	if (!known || ret != 0) {
		memset(ps->err, 0, sizeof(*ps->err));
		memset(&in, 0, sizeof(in));
		load = store = false;
		lock = false;
		approximate(ps, ops_at, &in, &load, &store);
		s = end;
	} else {
		/* Ports: one of each class the instruction uses (see model_int.h). */
		bool mem = load || store;

		if (def.port == PT_ALU || (def.port == PT_MOVE_ALU && !mem))
			in.ports |= 1u << PORT_ALU;
		if (def.port == PT_VEC || (def.port == PT_MOVE_VEC && !mem))
			in.ports |= 1u << PORT_VEC;
		if (in.zero) { /* eliminated at rename */
			in.ports = 0;
			in.latency = 0;
		}
	}
	if (load)
		in.ports |= 1u << PORT_LOAD;
	if (store)
		in.ports |= 1u << PORT_STORE;
	/* add/sub reg, imm: what immediate folding folds */
	in.fold = known && (!strcmp(m, "add") || !strcmp(m, "sub")) && !lock && n == 2 &&
		  !in.approx && o[0].kind == O_REG && o[1].kind == O_IMM;
	/* A memory source adds the profile's load latency (a mov load: 1 + load_latency). */
	if (load)
		in.latency += p->load_latency;
	if (lock) {
		in.latency = lock_latency(p);
		in.at_retire = true;
	}
	if (known && !in.approx && def.form == F_FENCE)
		in.at_retire = true;
	/* Macro-fusion: a jcc right after a fusable op goes with it, in no slot of its own. */
	if (known && !in.approx && def.form == F_JCC && ps->prog->n > 0 && !ps->label_before &&
	    times == 1) {
		const char *prev = ps->prog->pool + ps->prog->insn[ps->prog->n - 1].text;
		const struct op_def *pr;
		char pm[32];

		word(skip_space(prev), pm, sizeof(pm));
		pr = find_row(pm);
		if (pr &&
		    ((p->fuse_alu_jcc && pr->alu_fusable) ||
		     (p->fuse_cmp_jcc && pr->cmp_fusable)) &&
		    !strstr(prev, "[")) {
			/* one micro-op: the branch resolves with its pair */
			in.uops = 0;
			in.ports = 0;
			in.latency = 0;
		}
	}
	/* The comment's overrides win, over fusion too. */
	ret = annotations(ps, c, &in);
	if (ret)
		return ret;
	in.line = ps->line;
	{
		const char *t = start, *e = s;

		while (e > t && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		in.text = pool_add(ps->prog, t, (size_t)(e - t));
		if (in.text == UINT32_MAX)
			return err_set(IPCC_ENOMEM, "model: out of memory");
	}
	ps->label_before = false;
	return emit(ps, &in, times);
}

#define MAX_REP_DEPTH 16

int ipcc_model_parse(const char *text, const struct ipcc_model_profile *p,
		     struct ipcc_model_program **out, struct ipcc_model_error *err)
{
	return ipcc_model_parse_mode(text, p, IPCC_MODEL_STRICT, out, err);
}

int ipcc_model_parse_mode(const char *text, const struct ipcc_model_profile *p,
			  enum ipcc_model_mode mode, struct ipcc_model_program **out,
			  struct ipcc_model_error *err)
{
	struct ipcc_model_program *prog = calloc(1, sizeof(*prog));
	struct parser ps = {
		.p = p, .prog = prog, .err = err, .lenient = mode == IPCC_MODEL_LENIENT
	};
	struct {
		unsigned start, count, line;
	} rep[MAX_REP_DEPTH];
	int depth = 0, ret = 0;
	const char *s = text;
	char *buf = NULL;

	*out = NULL;
	memset(err, 0, sizeof(*err));
	if (!prog)
		return err_set(IPCC_ENOMEM, "model: out of memory");
	while (*s && ret == 0) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char *line, *comment, *c;

		ps.line++;
		free(buf);
		buf = malloc(len + 1);
		if (!buf) {
			ret = err_set(IPCC_ENOMEM, "model: out of memory");
			break;
		}
		memcpy(buf, s, len);
		buf[len] = '\0';
		s = nl ? nl + 1 : s + len;
		line = buf;
		ps.line_start = line;
		if (memchr(line, '\0', len) != line + len || strchr(line, '\r')) {
			char *cr = strchr(line, '\r');

			if (cr && cr[1] == '\0')
				*cr = '\0'; /* CRLF */
			else if (strlen(line) != len) {
				ret = fail(&ps, line + strlen(line), "a NUL byte in the text");
				break;
			}
		}
		comment = line + strcspn(line, ";#");
		c = *comment ? comment + 1 : comment;
		*comment = '\0';
		{
			const char *t = skip_space(line);
			char w[64];
			const char *after = word(t, w, sizeof(w));

			/* label: */
			if (*w && *after == ':') {
				ps.label_before = true;
				t = skip_space(after + 1);
				after = word(t, w, sizeof(w));
			}
			if (!*t)
				continue;
			if (*t == '%') {
				char d[16];
				const char *dat = t;

				after = word(t + 1, d, sizeof(d));
				if (!strcmp(d, "rep")) {
					char num[32];
					const char *nat = skip_space(after);
					char *end;
					unsigned long v;

					word(nat, num, sizeof(num));
					errno = 0;
					v = strtoul(num, &end, 0);
					if (!*num || *end || errno || v > MODEL_MAX_INSNS) {
						ret = fail(&ps, nat, "%%rep needs a count");
						break;
					}
					if (depth == MAX_REP_DEPTH) {
						ret = fail(&ps, dat, "%%rep nested too deep");
						break;
					}
					rep[depth].start = prog->n;
					rep[depth].count = (unsigned)v;
					rep[depth].line = ps.line;
					depth++;
				} else if (!strcmp(d, "endrep")) {
					unsigned start, count, body;

					if (depth == 0) {
						ret = fail(&ps, dat, "%%endrep without %%rep");
						break;
					}
					depth--;
					start = rep[depth].start;
					count = rep[depth].count;
					body = prog->n - start;
					if (count == 0) {
						prog->n = start;
					} else if ((uint64_t)body * count > MODEL_MAX_INSNS) {
						ret = fail(&ps, dat,
							   "the block expands to more than %d "
							   "instructions",
							   MODEL_MAX_INSNS);
						break;
					} else {
						for (unsigned k = 1; k < count && ret == 0; k++)
							for (unsigned j = 0; j < body && ret == 0;
							     j++) {
								struct minsn copy =
								    prog->insn[start + j];

								ret = emit(&ps, &copy, 1);
							}
					}
				} else {
					ret = fail(&ps, dat, "unknown directive '%%%s'", d);
				}
				if (*skip_space(after) && ret == 0 && strcmp(d, "rep") != 0)
					ret = fail(&ps, skip_space(after),
						   "unexpected text after "
						   "the directive");
				continue;
			}
			if (!strcmp(w, "times")) {
				char num[32];
				const char *nat = skip_space(after);
				char *end;
				unsigned long v;

				after = word(nat, num, sizeof(num));
				errno = 0;
				v = strtoul(num, &end, 0);
				if (!*num || *end || errno || v > MODEL_MAX_INSNS) {
					ret = fail(&ps, nat, "'times' needs a count");
					break;
				}
				ret = parse_insn(&ps, after, c, (unsigned)v);
				continue;
			}
			ret = parse_insn(&ps, t, c, 1);
		}
	}
	free(buf);
	if (ret == 0 && depth > 0) {
		ps.line = rep[depth - 1].line;
		ps.line_start = NULL;
		ret = fail(&ps, NULL, "%%rep without %%endrep");
	}
	if (ret == 0 && prog->n == 0) {
		ps.line = ps.line ? ps.line : 1;
		ret = fail(&ps, NULL, "no instructions");
	}
	if (ret) {
		ipcc_model_program_free(prog);
		return ret;
	}
	*out = prog;
	return 0;
}

void ipcc_model_program_free(struct ipcc_model_program *prog)
{
	if (!prog)
		return;
	free(prog->insn);
	free(prog->pool);
	free(prog);
}

unsigned ipcc_model_program_size(const struct ipcc_model_program *prog)
{
	return prog->n;
}

const char *ipcc_model_program_text(const struct ipcc_model_program *prog, unsigned i)
{
	return i < prog->n ? prog->pool + prog->insn[i].text : NULL;
}

bool ipcc_model_program_approximate(const struct ipcc_model_program *prog, unsigned i)
{
	return i < prog->n && prog->insn[i].approx;
}

/* The mnemonic of an instruction's text, with its prefixes: "rep stosq". */
static size_t mnemonic_len(const char *t)
{
	const char *s = skip_space(t);
	char w[32];

	for (;;) {
		const char *e = word(s, w, sizeof(w));

		if (!*w)
			return (size_t)(s - t);
		if (strcmp(w, "lock") && !is_prefix(w))
			return (size_t)(e - t);
		s = skip_space(e);
	}
}

unsigned ipcc_model_program_approximated(const struct ipcc_model_program *prog, char *names,
					 size_t len)
{
	unsigned count = 0;
	size_t used = 0;

	if (names && len)
		names[0] = '\0';
	for (unsigned i = 0; i < prog->n; i++) {
		const char *t = prog->pool + prog->insn[i].text;
		size_t ml = mnemonic_len(t);
		bool seen = false;

		if (!prog->insn[i].approx)
			continue;
		count++;
		for (unsigned k = 0; k < i && !seen; k++) {
			const char *u = prog->pool + prog->insn[k].text;

			seen = prog->insn[k].approx && mnemonic_len(u) == ml && !strncmp(u, t, ml);
		}
		if (seen || !names || !len)
			continue;
		{
			int w = snprintf(names + used, len - used, "%s%.*s", used ? ", " : "",
					 (int)ml, t);

			if (w < 0 || (size_t)w >= len - used) {
				/* cut: end with "..." where it fits */
				if (len >= 4)
					memcpy(names + len - 4, "...", 4);
				used = len - 1;
			} else {
				used += (size_t)w;
			}
		}
	}
	return count;
}
