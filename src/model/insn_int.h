/*
 * model/insn_int.h - the x86 instruction table's rows and how a mnemonic finds its row
 * (private to src/model/; the table is insn_table.c). Latencies and micro-ops are Skylake's;
 * where a core differs, its profile's cost rows say so (model.h).
 */
#ifndef IPCC_MODEL_INSN_INT_H
#define IPCC_MODEL_INSN_INT_H

#include <stdbool.h>
#include <stdint.h>

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
#define RBX (1ull << 3)
#define RSI (1ull << 6)
#define RDI (1ull << 7)
#define RSP (1ull << 4)
#define RBP (1ull << 5)
#define R13 (1ull << 13)

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
	/*
	 * Microcoded: the cycles the front end takes to deliver it (the microcode sequencer's),
	 * in which it delivers nothing else; 0: not microcoded.
	 */
	unsigned char fe_cycles;
};

/*
 * Mnemonic m's row, into *d: its own; a family's (jcc, cmovcc, setcc, the FMA forms, the
 * compares with a predicate in the name); or, for vNAME, NAME's where that is a vector row
 * (the AVX form of an SSE instruction, whose destination is no source: F_UPD becomes F_MOV).
 * *base is the row's name, which a profile's cost rows may name.
 */
bool model_insn_lookup(const char *m, struct op_def *d, const char **base);

/* The table's own row named m, or NULL (no families). */
const struct op_def *model_insn_row(const char *m);

/*
 * The ALU unit a mnemonic needs beyond any ALU port (the profile's shift_ports and
 * mul_ports say how many ports have it): U_SHIFT for shifts, rotates, setcc, cmovcc, jcc,
 * adc/sbb, bt*, cdq/cqo/cwd, lahf/sahf; U_MUL for multiplies and bit counts; else U_ANY.
 */
/* Whether m is one of the NULL-terminated names in list. */
bool model_insn_in_list(const char *m, const char *const *list);

enum unit { U_ANY, U_SHIFT, U_MUL };
enum unit model_insn_unit(const char *m);

/* Whether m branches or selects on a condition (jcc, jmp, setcc, cmovcc): branch_ports'. */
bool model_insn_branches(const char *m);

/*
 * The vector unit row `base` needs beyond any vector port (the profile's vec_*_ports):
 * V_MUL (multiplies, compares, min/max, shifts), V_ADD (FP adds, two-port shuffles), V_OUT
 * (to general registers or flags: `to_gpr`, or ucomis*, comis*, ptest), V_SHUF (one-port
 * shuffles; from general registers: `from_gpr`), else V_ANY. `mem`: a memory operand (a
 * broadcast or insert from memory is the load's; a shuffle from memory still shuffles).
 */
enum vunit { V_ANY, V_MUL, V_ADD, V_OUT, V_SHUF };
enum vunit model_insn_vunit(const char *base, bool to_gpr, bool from_gpr, bool mem);
enum vunit model_insn_vunit_zen(const char *base, bool to_gpr, bool from_gpr, bool mem);
bool model_insn_is_conversion(const char *base);

/* Whether s is a condition code (o, no, b, ... g), as in jcc, cmovcc and setcc. */
bool model_insn_is_cond(const char *s);

/* Whether w is a prefix written as a word before the mnemonic (rep, repne, ..., data16). */
bool model_insn_is_prefix(const char *w);

#endif
