/*
 * model/parse_insn.c - one instruction line into the model's instruction: its row, the data
 * flow of its operands (registers, flags, memory), its ports, fusion with the branch after
 * it, the profile's costs, and the comment's overrides (lat=N uops=N fe_stall=N
 * mispredict[=F] taken=F at_retire); what the table does not know is approximated when
 * lenient.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_int.h"
#include "insn_int.h"
#include "parse_int.h"

/*
 * The comment's overrides: lat=N uops=N fe_stall=N mispredict[=F] taken=F at_retire, and
 * where its machine code is known bytes=N, the instruction's length (1 to 15), and at=N, its
 * offset in its 64-byte line (0 to 63) where fetch comes to it from elsewhere.
 */
static int annotations(struct parser *ps, const char *c, struct minsn *in)
{
	while (*c) {
		char w[64];

		while (*c && !isalpha((unsigned char)*c) && *c != '_')
			c++;
		if (!*c)
			break;
		c = model_lex_word(c, w, sizeof(w));
		if ((!strcmp(w, "mispredict") || !strcmp(w, "taken")) && *c == '=') {
			/* a share F of its instances, 0 <= F <= 1, spread evenly */
			char num[32];
			const char *nat = c + 1;
			char *end;
			double v;

			c = model_lex_word(nat, num, sizeof(num));
			errno = 0;
			v = strtod(num, &end);
			if (!*num || *end || errno || !(v >= 0 && v <= 1))
				return model_parse_fail(ps, nat,
							"bad value for %s (a share, 0 to 1)", w);
			if (!strcmp(w, "taken"))
				in->taken = (uint32_t)(v * MISPREDICT_ALL + 0.5);
			else
				in->mispredict = (uint32_t)(v * MISPREDICT_ALL + 0.5);
		} else if (!strcmp(w, "mispredict")) {
			in->mispredict = MISPREDICT_ALL;
		} else if (!strcmp(w, "at_retire")) {
			in->at_retire = true;
		} else if ((!strcmp(w, "lat") || !strcmp(w, "uops") || !strcmp(w, "fe_stall") ||
			    !strcmp(w, "bytes") || !strcmp(w, "at")) &&
			   *c == '=') {
			char num[32];
			const char *nat = c + 1;
			char *end;
			unsigned long v;

			c = model_lex_word(nat, num, sizeof(num));
			errno = 0;
			v = strtoul(num, &end, 10);
			if (!*num || *end || errno || v > 100000 ||
			    (!strcmp(w, "uops") && v > 64) ||
			    (!strcmp(w, "bytes") && (v < 1 || v > 15)) ||
			    (!strcmp(w, "at") && v > 63))
				return model_parse_fail(ps, nat, "bad value for %s", w);
			if (!strcmp(w, "lat"))
				in->latency = (unsigned)v;
			else if (!strcmp(w, "bytes"))
				in->bytes = (uint8_t)v;
			else if (!strcmp(w, "at"))
				in->line_at = (uint8_t)(v + 1);
			else if (!strcmp(w, "uops"))
				in->uops = (unsigned)v;
			else
				in->fe_stall = (unsigned)v;
		}
	}
	return 0;
}

/* Whether s is a condition code (of jcc, cmovcc, setcc). */

/* Whether form f writes (rather than reads) a memory operand in first place. */

/* Whether text holds w as a whole word (not "qword" for "word"). */
static bool has_word(const char *text, const char *w)
{
	size_t n = strlen(w);

	for (const char *t = strstr(text, w); t; t = strstr(t + 1, w))
		if ((t == text || !isalnum((unsigned char)t[-1])) && !isalnum((unsigned char)t[n]))
			return true;
	return false;
}

/* The bytes a memory operand's ptr size word says (byte .. zmmword); 0: none said. */
static uint8_t ptr_size(const char *text)
{
	static const struct {
		const char *word;
		uint8_t size;
	} sizes[] = { { "byte", 1 },   { "word", 2 },	  { "dword", 4 },    { "qword", 8 },
		      { "tbyte", 10 }, { "xmmword", 16 }, { "ymmword", 32 }, { "zmmword", 64 } };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (has_word(text, sizes[i].word))
			return sizes[i].size;
	return 0;
}

/*
 * Whether `mov`-like mnemonic m from register src to dst is a move a renamer eliminates:
 * mov between general registers (32 or 64 bits), the whole-register vector moves between
 * vector registers.
 */
static bool eliminable(const char *m, int dst, int src, bool self)
{
	static const char *const vec[] = { "movaps",  "movapd",	 "movups",  "movupd",  "movdqa",
					   "movdqu",  "vmovaps", "vmovapd", "vmovups", "vmovupd",
					   "vmovdqa", "vmovdqu", NULL };

	/*
	 * a register into itself is no move to eliminate: mov eax, eax zero-extends, a cycle
	 * (three in a row 3.00 cycles a loop on Emerald Rapids), unless the profile renames it
	 * (self_move_renamed: Zen 5)
	 */
	if (!strcmp(m, "mov"))
		return dst < REG_VEC0 && src < REG_VEC0 && (dst != src || self);
	for (int i = 0; vec[i]; i++)
		if (!strcmp(m, vec[i]))
			return dst >= REG_VEC0 && src >= REG_VEC0;
	return false;
}

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

/* Whether condition code cc reads two flags or more: SF and OF (l, ge, le, g), CF and ZF. */
static bool two_flag_cond(const char *cc)
{
	static const char *const two[] = { "l", "nge", "ge", "nl",  "le", "ng",
					   "g", "nle", "a",  "nbe", "be", "na" };

	for (size_t i = 0; i < sizeof(two) / sizeof(two[0]); i++)
		if (!strcmp(cc, two[i]))
			return true;
	return false;
}

/*
 * The flags an instruction that reads them reads: the carry alone (adc, sbb, rcl, rcr, a
 * condition b, c, nae, ae, nb, nc), the carry and the others (a, nbe, be, na; lahf,
 * pushf), or the others alone (e, ne, s, l, g, o, p, ...).
 */
static uint64_t flags_read(const char *m)
{
	static const char *const carry[] = { "adc", "sbb", "rcl", "rcr", "cmc" };
	static const char *const conds[] = { "b", "c", "nae", "ae", "nb", "nc" };
	static const char *const both[] = { "a", "nbe", "be", "na" };
	const char *cc = !strncmp(m, "set", 3)	  ? m + 3
			 : !strncmp(m, "cmov", 4) ? m + 4
			 : m[0] == 'j'		  ? m + 1
						  : NULL;

	for (size_t i = 0; i < sizeof(carry) / sizeof(carry[0]); i++)
		if (!strcmp(m, carry[i]))
			return 1ull << REG_CF;
	if (!cc || !model_insn_is_cond(cc))
		return FLAG_REGS;
	for (size_t i = 0; i < sizeof(conds) / sizeof(conds[0]); i++)
		if (!strcmp(cc, conds[i]))
			return 1ull << REG_CF;
	for (size_t i = 0; i < sizeof(both) / sizeof(both[0]); i++)
		if (!strcmp(cc, both[i]))
			return FLAG_REGS;
	return 1ull << REG_FLAGS;
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
			return model_parse_fail(ps, mat, "'%s' takes %d operand%s, not %d", m,
						want[f][0], want[f][0] == 1 ? "" : "s", n);
		return model_parse_fail(ps, mat, "'%s' takes %d to %d operands, not %d", m,
					want[f][0], want[f][1], n);
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
			if (!had && in->mem) {
				in->key = o[i].key;
				in->addr_regs = mkey_regs(&o[i].key);
			}
		}
		if (o[i].kind == O_LABEL && f != F_JCC && f != F_JMP)
			return model_parse_fail(ps, o[i].at, "'%s' does not take a label", m);
	}
#define REG(i) (o[i].kind == O_REG ? 1ull << o[i].reg : 0)
	if ((f == F_MOV || f == F_UPD || f == F_ALU || f == F_SHIFT || f == F_SET || f == F_POP ||
	     f == F_UNARY) &&
	    o[0].kind != O_REG && o[0].kind != O_MEM)
		return model_parse_fail(ps, o[0].at, "cannot write to this operand");
	switch (f) {
	case F_MOV:
		if (n == 2 && o[0].kind == O_MEM && o[1].kind == O_MEM)
			return model_parse_fail(ps, o[1].at, "two memory operands");
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
			return model_parse_fail(ps, o[1].at, "two memory operands");
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
			in->data = d->flags & FL_R ? flags_read(m) : 0; /* fnstcw [m]: none */
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
			return model_parse_fail(ps, o[0].at,
						"lea takes a register and a memory operand");
		wr |= REG(0);
		break;
	case F_IMUL:
		if (n == 1) { /* rdx:rax = rax * o0 */
			rd |= REG(0) | RAX;
			wr |= RAX | RDX;
			break;
		}
		if (o[0].kind != O_REG)
			return model_parse_fail(ps, o[0].at, "imul writes a register");
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
			return model_parse_fail(ps, o[0].at, "'%s' writes a vector register", m);
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
	/* A register move the renamer eliminates (the profile's move_elimination). */
	if (ps->p->move_elimination && n == 2 && o[0].kind == O_REG && o[1].kind == O_REG &&
	    !o[0].partial && !o[1].partial &&
	    eliminable(m, o[0].reg, o[1].reg, ps->p->self_move_renamed)) {
		in->eliminated = true;
		if (o[0].wide && o[1].wide)
			in->move_from = (uint8_t)(o[1].reg + 1);
	}
	/* xchg between whole general registers, done at rename (the profile's xchg_renamed) */
	if (ps->p->xchg_renamed && !strcmp(m, "xchg") && n == 2 && o[0].kind == O_REG &&
	    o[1].kind == O_REG && o[0].reg < REG_VEC0 && o[1].reg < REG_VEC0 && !o[0].partial &&
	    !o[1].partial)
		in->eliminated = true;
	/*
	 * A memory operand the profile's memory_renaming may rename: [base + index*s + disp]
	 * with a base or an index or both (no rip, label or segment), or an absolute address
	 * where the profile says (rename_absolute; the model backend writes a rip-relative
	 * operand as its address), moving general registers
	 * or an immediate, of any size (measured on Zen 5: byte, word, dword and qword
	 * read-modify-writes alike; add dword ptr [rbx*4 + 0x100], 1 1.00 cycle a loop, as
	 * with [rbx + 0x100]). A mov into a whole register then takes no cycle; into a part,
	 * it still merges.
	 */
	if (in->mem &&
	    (in->key.base >= 0 || in->key.index >= 0 || (ps->p->rename_absolute && in->key.disp)) &&
	    !in->key.sym && !in->key.segment && !has_word(mat, "xmmword") &&
	    !has_word(mat, "ymmword") && !has_word(mat, "zmmword")) {
		bool gpr_only = true;

		for (int i = 0; i < n; i++)
			if (o[i].kind == O_REG && o[i].reg >= REG_VEC0)
				gpr_only = false;
		/* imul r, [m] too: 2.96 cycles chained through a store on a Granite Rapids-class
		 * core, imul's own 3; and mul [m] (Zen 5: mov [rbx], rax; mul qword ptr [rbx]
		 * 2.94 cycles a loop, as imul rax, [rbx]; 10 modelled through the forward) */
		const bool mul1 = (f == F_IMUL || !strcmp(m, "mul")) && n == 1;

		in->renamable =
		    gpr_only && (f == F_MOV || f == F_ALU || f == F_UNARY || f == F_IMUL || mul1 ||
				 f == F_CMP || (f == F_CMPXCHG && !lock));
		/*
		 * cmovcc r, [m], a load into an operation as add r, [m] is (cmovne eax, [rbp -
		 * 0x74]; mov [rbp - 0x74], eax 1.12 cycles a loop on Zen 5, 8 modelled through the
		 * forward); not where the profile renames only an immediate's read-modify-writes
		 * (Intel's, not measured with cmov)
		 */
		if (gpr_only && f == F_UPD && !strncmp(m, "cmov", 4) && !ps->p->rename_rmw_imm_only)
			in->renamable = true;
		/*
		 * a shift or rotate of memory, not through the carry (rcr dword ptr [rdi - 0x52],
		 * 0xd8 8.99 cycles a loop on Zen 5): by an immediate where the profile renames
		 * only an immediate's read-modify-writes (shr dword ptr [rbx], 1 chained through
		 * memory 1.00-1.90 cycles a loop on Emerald Rapids, by cl 5.00), by cl too
		 * elsewhere (Zen 5: shr dword ptr [rax + 0x10], 1, shl byte ptr [r9], 0x48, shr
		 * dword ptr [rax + 0x10], cl 1.00, 8 modelled before)
		 */
		if (f == F_SHIFT && gpr_only && o[0].kind == O_MEM && strcmp(m, "rcl") &&
		    strcmp(m, "rcr") &&
		    (!ps->p->rename_rmw_imm_only || n == 1 || o[1].kind == O_IMM))
			in->renamable = true;
		/*
		 * adc and sbb, whose carry comes in beside the memory's value: not renamed where
		 * the profile renames only an immediate's read-modify-writes (adc r8, [rdx]; mov
		 * [rdi], r8 7.40 cycles a loop on Emerald Rapids, add in its place 1.00; adc
		 * qword ptr [rdx], 1 8.00, add 1.00; Zen not measured)
		 */
		if (ps->p->rename_rmw_imm_only && (!strcmp(m, "adc") || !strcmp(m, "sbb")))
			in->renamable = false;
		/* cmpxchg [m], r on AMD: not renamed (Zen 5: cmpxchg dword ptr [r8], esi 8.93-9.00
		 * cycles a loop, cmpxchg ecx, esi 3.00) */
		if (!ps->p->rename_rmw_imm_only && f == F_CMPXCHG)
			in->renamable = false;
		/* a read-modify-write that a stored folded value is not renamed into */
		in->rmw_alu = f == F_ALU && n == 2 && o[0].kind == O_MEM;
		/* add [m], r: not renamed where the profile renames only an immediate's */
		if (ps->p->rename_rmw_imm_only && f == F_ALU && o[0].kind == O_MEM && n == 2 &&
		    o[1].kind == O_REG)
			in->renamable = false;
		/*
		 * cmp and test: with an immediate only, there (xor ecx, ecx; cmp dword ptr [rdx],
		 * 2; sete cl; mov [rdx], ecx 2.00 cycles on Emerald Rapids, cmp ecx, [rdx] and
		 * cmp [rdx], ecx with sbb ecx, ecx instead 8.33)
		 */
		if (ps->p->rename_rmw_imm_only && f == F_CMP && n == 2 && o[1].kind != O_IMM)
			in->renamable = false;
		/* [base + index*s + disp]: not renamed where the profile renames base + disp only */
		if (ps->p->rename_base_only && in->key.index >= 0)
			in->renamable = false;
		/* 16-bit accesses and movsxd: not renamed where the profile says so */
		if (ps->p->rename_no_word &&
		    (ptr_size(mat) == 2 || !strcmp(m, "movsxd") ||
		     (n >= 1 && o[0].kind == O_REG && o[0].partial && ptr_size(mat) != 1)))
			in->renamable = false;
		/* byte accesses: not renamed where the profile says so */
		if (ps->p->rename_no_byte && ptr_size(mat) == 1)
			in->renamable = false;
		/* movzx: not renamed where the profile says so */
		if (ps->p->rename_no_movzx && !strcmp(m, "movzx"))
			in->renamable = false;
		/*
		 * a load through no index into an operation with a register or the flags for its
		 * result
		 */
		if (ps->p->rename_no_load_op && in->key.index < 0 &&
		    (f == F_CMP || mul1 || ((f == F_ALU || f == F_IMUL) && o[0].kind == O_REG)))
			in->renamable = false;
	}
	/* a byte or a word into part of a register, or sign-extended (rename_partial_extra) */
	in->partial_load = (in->mem & MEM_LOAD) && ptr_size(mat) >= 1 && ptr_size(mat) <= 2 &&
			   n == 2 && o[0].kind == O_REG && o[0].reg < REG_VEC0 &&
			   ((!strcmp(m, "mov") && o[0].partial) || !strcmp(m, "movsx"));
	/*
	 * A store of at most 8 bytes: of general registers, flags or an immediate, or of a
	 * vector register's low part with the size said (vmovsd qword ptr [rbx], xmm2)
	 */
	if (in->mem)
		in->size = ptr_size(mat);
	if ((in->mem & MEM_STORE) && !lock && ps->p->pair_wide_stores) {
		in->narrow_store = true; /* any store pairs: none is "wide" */
	} else if ((in->mem & MEM_STORE) && !lock && !has_word(mat, "xmmword") &&
		   !has_word(mat, "ymmword") && !has_word(mat, "zmmword")) {
		in->narrow_store = true;
		for (int i = 0; i < n; i++)
			if (o[i].kind == O_REG && o[i].reg >= REG_VEC0)
				in->vector_store = true;
		if (in->vector_store)
			in->narrow_store = has_word(mat, "qword") || has_word(mat, "dword") ||
					   has_word(mat, "word") || has_word(mat, "byte");
	}
	in->whole_mov = !strcmp(m, "mov") && n == 2 && o[0].kind == O_REG && o[0].reg < REG_VEC0 &&
			!o[0].partial && (o[1].kind == O_MEM || o[1].kind == O_REG);
	/* xor r, r, pxor x, x, vxorps x, y, y ...: a zero idiom, which depends on nothing */
	if (d->zero_idiom && n >= 2 && n <= 3 && o[n - 1].kind == O_REG && o[n - 2].kind == O_REG &&
	    o[n - 1].reg == o[n - 2].reg && o[0].kind == O_REG) {
		rd = 0;
		in->zero = true;
	}
	/* sbb r, r: the carry's, not the register's (the profile's sbb_idiom) */
	if (ps->p->sbb_idiom && !strcmp(m, "sbb") && n == 2 && o[0].kind == O_REG &&
	    o[1].kind == O_REG && o[0].reg == o[1].reg && !o[0].partial)
		rd = 0;
#undef REG
	if (f == F_PUSH || (f == F_JMP && d->imp_wr)) /* push, call */
		*store = true;
	if (f == F_POP || d->load)
		*load = true;
	if (d->flags & FL_R)
		rd |= flags_read(m);
	if (d->flags & FL_W) /* inc and dec leave the carry */
		wr |= strcmp(m, "inc") && strcmp(m, "dec") ? FLAG_REGS : 1ull << REG_FLAGS;
	rd |= d->imp_rd;
	wr |= d->imp_wr;
	/*
	 * The stack engine (every x86 core since the Pentium M): push, pop, call and ret move
	 * rsp in the front end, so rsp carries no latency from one of them to the next, nor
	 * into their addresses. (leave, which sets rsp from rbp, keeps its dependency.)
	 */
	if (f == F_PUSH || f == F_POP ||
	    ((f == F_JMP || f == F_IMP) && d->imp_wr == RSP && (d->imp_rd & RSP))) {
		rd &= ~RSP;
		wr &= ~RSP;
	}
	if (lock && (f != F_ALU && f != F_UNARY && f != F_XADD && f != F_CMPXCHG))
		return model_parse_fail(ps, mat, "'lock' cannot prefix '%s'", m);
	if (lock && o[0].kind != O_MEM)
		return model_parse_fail(ps, o[0].at, "'lock' needs a memory destination");
	in->reads = rd;
	in->writes = wr;
	return 0;
}

/*
 * stos and movs by their element's bytes (stosb 1 ... movsq 8; movs_d, the string movsd,
 * 4); 0 for anything else.
 */
static unsigned string_move_size(const char *m)
{
	static const char sizes[] = "bwdq";
	const char *at;

	if (!strcmp(m, "movs_d"))
		return 4;
	if ((strncmp(m, "stos", 4) && strncmp(m, "movs", 4)) || !m[4] || m[5])
		return 0;
	at = strchr(sizes, m[4]);
	return at ? 1u << (at - sizes) : 0;
}

/*
 * An instruction the table does not know (or whose operands it cannot read), in lenient
 * mode: one micro-op of latency 3 that reads every operand it can read and the flags (not
 * the carry alone: an approximated vphaddd after add, dec would wait for the add), writes
 * its first, loads from a memory operand and stores to a first one.
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
			end = model_lex_operand(ps, piece, &o);
			ps->line_start = line_start;
			*ps->err = saved;
			if (!end || *model_lex_space(end)) {
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
				in->addr_regs = mkey_regs(&o.key);
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

/*
 * The floating-point unit of the row named `base` (SSE names stand for their AVX forms):
 * FPU_ADD for add and subtract, FPU_MUL for multiply and FMA, else 0.
 */
static uint8_t fp_unit(const char *base)
{
	static const char *const adds[] = { "addps", "addpd", "addss", "addsd", "subps",
					    "subpd", "subss", "subsd", NULL };
	static const char *const muls[] = { "mulps", "mulpd", "mulss", "mulsd", NULL };

	if (!strncmp(base, "vfm", 3) || !strncmp(base, "vfnm", 4))
		return FPU_MUL;
	/* the table's own AVX rows (vaddpd, vmulpd) are their SSE forms' units too */
	if (base[0] == 'v')
		base++;
	if (model_insn_in_list(base, adds))
		return FPU_ADD;
	if (model_insn_in_list(base, muls))
		return FPU_MUL;
	return 0;
}

/*
 * What the renamer folds (add/sub reg, imm; with the profile's fold_lea inc, dec and lea
 * reg, [base + disp]; with fold_bits only into 64-bit registers and by offsets within its
 * bits), what cannot take a folded value as it is (shifts, rotates, bt, bswap, moves into
 * vector registers), and which flags are a logical operation's and who reads a condition.
 */
static void fold_and_flags(const struct ipcc_model_profile *p, const char *m,
			   const struct operand *o, int n, bool lock, struct minsn *in)
{
	static const char *const no_absorb[] = { "shl",	 "shr",	 "sar",	 "sal",	  "rol",
						 "ror",	 "rcl",	 "rcr",	 "shld",  "shrd",
						 "shlx", "shrx", "sarx", "rorx",  "bt",
						 "bts",	 "btr",	 "btc",	 "bswap", NULL };
	static const char *const logic[] = { "and", "or", "xor", "test", "andn", NULL };
	int64_t off = 0;
	int src = -1;
	bool fold = false;

	if (!lock && n >= 1 && o[0].kind == O_REG && o[0].reg < REG_VEC0 &&
	    (!p->fold_bits || o[0].wide)) {
		if ((!strcmp(m, "add") || !strcmp(m, "sub")) && n == 2 && o[1].kind == O_IMM) {
			fold = true;
			/* (negated as unsigned: any number a file writes, INT64_MIN too) */
			off = m[0] == 's' ? (int64_t)(0 - (uint64_t)o[1].imm) : o[1].imm;
		} else if (p->fold_lea && (!strcmp(m, "inc") || !strcmp(m, "dec")) && n == 1) {
			fold = true;
			off = m[0] == 'i' ? 1 : -1;
		} else if (p->fold_lea && !strcmp(m, "lea") && n == 2 && o[1].kind == O_MEM &&
			   o[1].key.base >= 0 && o[1].key.base < REG_VEC0 && o[1].key.index < 0 &&
			   !o[1].key.sym && !o[1].key.segment) {
			fold = true;
			off = (int64_t)o[1].key.disp;
			src = o[1].key.base;
		}
		if (p->fold_bits && (off < -((int64_t)1 << (p->fold_bits - 1)) ||
				     off >= (int64_t)1 << (p->fold_bits - 1)))
			fold = false;
	}
	in->fold = fold;
	in->fold_src = (int8_t)src;
	in->fold_off = fold ? (int32_t)off : 0;
	in->no_absorb = model_insn_in_list(m, no_absorb);
	/* a move into a vector register from a general one (movq xmm0, r8; pinsrq; cvtsi2sd) */
	for (int i = 1; i < n && !in->no_absorb; i++)
		in->no_absorb = o[0].kind == O_REG && o[0].reg >= REG_VEC0 &&
				o[0].reg < REG_FLAGS && o[i].kind == O_REG && o[i].reg < REG_VEC0;
	in->logic_flags = !in->zero && model_insn_in_list(m, logic);
	in->cond = (!strncmp(m, "set", 3) && model_insn_is_cond(m + 3)) ||
		   (!strncmp(m, "cmov", 4) && model_insn_is_cond(m + 4));
}

/* Whether an operand names a vector register or an x87 one (a store's data from those units). */
static bool vector_operand(const struct operand *o, int n)
{
	for (int i = 0; i < n; i++)
		if (o[i].kind == O_REG && o[i].reg >= REG_VEC0)
			return true;
	return false;
}

/*
 * Of Golden Cove's five ALU ports, the ones a register form of m runs on where they are not
 * any (alu_port_subsets; ALU_*, or 0): sign extensions and BMI1's andn, blsr, blsi, blsmsk
 * on 1, 5 and 10, bt and bswap (of 64 bits; bswap r32's is set with its latency) on 1.
 */
static unsigned alu_subset(const char *m, const struct operand *o, int n)
{
	static const char *const three[] = { "movsx", "movsxd", "cdqe", "cwde",	  "cbw",
					     "andn",  "blsr",	"blsi", "blsmsk", NULL };

	if (model_word_in(m, three))
		return ALU_SEXT;
	if (!strcmp(m, "bt") || (!strcmp(m, "bswap") && n == 1 && o[0].kind == O_REG))
		return ALU_PORT1;
	return 0;
}

/* Whether m with operands o is one of the two-micro-op forms on Intel's shift ports. */
static bool two_shift_uops(const char *m, const struct operand *o, int n)
{
	static const char *const rot[] = { "rol", "ror", NULL };
	static const char *const shifts[] = { "shl", "sal", "shr", "sar", "rol", "ror", NULL };

	static const char *const cf_zf[] = { "cmovbe", "cmova", "cmovna", "cmovnbe", "setbe",
					     "seta",   "setna", "setnbe", NULL };

	if (model_insn_in_list(m, cf_zf))
		return true;
	if (model_insn_in_list(m, rot) &&
	    (n == 1 || (n == 2 && o[1].kind == O_IMM && o[1].imm == 1)))
		return true;
	/* cl: register 1, as a byte */
	return model_insn_in_list(m, shifts) && n == 2 && o[1].kind == O_REG && o[1].reg == 1 &&
	       o[1].partial;
}

/* One instruction, s just after any label; c the comment (or ""). */
int model_parse_insn(struct parser *ps, const char *s, const char *c, unsigned times)
{
	const struct ipcc_model_profile *p = ps->p;
	struct minsn in = { 0 };
	struct operand o[4];
	struct op_def def;
	const char *base;
	char m[32];
	const char *mat, *start, *ops_at, *end;
	char label[sizeof(ps->jumps->label)] = ""; /* a jcc's label */
	bool lock = false, load = false, store = false, known, costed = false;
	int n = 0, ret = 0;

	s = model_lex_space(s);
	start = s;
	mat = s;
	s = model_lex_word(s, m, sizeof(m));
	bool rep = false;

	while (!strcmp(m, "lock") || model_insn_is_prefix(m)) {
		lock |= !strcmp(m, "lock");
		rep |= !strncmp(m, "rep", 3);
		s = model_lex_space(s);
		mat = s;
		s = model_lex_word(s, m, sizeof(m));
	}
	if (!*m)
		return model_parse_fail(ps, mat, "expected an instruction");
	/* movsd and cmpsd with no vector register: the string instructions, not SSE's */
	const char *row = m;

	if ((!strcmp(m, "movsd") || !strcmp(m, "cmpsd")) && !strstr(s, "mm"))
		row = m[0] == 'm' ? "movs_d" : "cmps_d";
	/* movhps, movlps (pd alike) into a register from memory: a merge, not a move */
	{
		const char *b = m + (m[0] == 'v');

		if ((!strcmp(b, "movhps") || !strcmp(b, "movhpd") || !strcmp(b, "movlps") ||
		     !strcmp(b, "movlpd")) &&
		    !strncmp(model_lex_space(s), "xmm", 3) && strchr(s, '['))
			row = b[3] == 'h' ? (b == m ? "movhps_load" : "vmovhps_load")
					  : (b == m ? "movlps_load" : "vmovlps_load");
	}
	known = model_insn_lookup(row, &def, &base);
	/* a string instruction without rep, microcoded: its operands are implicit */
	const bool string_op = known && def.form == F_IMP && (def.imp_rd & (RSI | RDI));

	/* rep lods, repe cmps, repne scas: rcx of them, stopping early; approximated */
	if (string_op && rep)
		known = false;
	/* cpuid's cycles are the host's (a trap in a guest): unknown where the profile lacks them */
	if (known && !strcmp(m, "cpuid") && !p->cpuid_cycles)
		known = false;
	/*
	 * rep stos and rep movs: rcx elements, in microcode. Approximated, unless the harness's
	 * values give rcx (model_mark_reps); movsd here is the string move, not SSE's.
	 */
	const unsigned rep_size = rep ? string_move_size(row) : 0;

	if (rep_size)
		known = false;
	if (!known && !ps->lenient)
		return model_parse_fail(ps, mat, "unknown instruction '%s'", m);
	s = model_lex_space(s);
	ops_at = s;
	end = s + strlen(s);
	if (string_op)
		s = end;
	if (known) {
		in.latency = !strcmp(m, "cpuid") ? p->cpuid_cycles : def.lat;
		in.uops = def.uops;
		if (p->width && in.uops > p->width)
			in.uops = p->width;
		if (p->retire && in.uops > p->retire)
			in.uops = p->retire;
		/*
		 * The core's own costs, from its profile (a later row wins): all it costs there,
		 * so not the table's microcode (aeskeygenassist: 14 cycles of Emerald Rapids'
		 * sequencer, none on Zen 5)
		 */
		for (unsigned i = 0; i < IPCC_MODEL_MAX_COSTS && p->cost[i].mnemonic[0]; i++)
			if (!strcmp(p->cost[i].mnemonic, m) || !strcmp(p->cost[i].mnemonic, base)) {
				in.latency = p->cost[i].latency;
				in.uops = p->cost[i].uops;
				costed = true;
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
				ret = model_parse_fail(ps, s, "too many operands");
				break;
			}
			s = model_lex_operand(ps, s, &o[n]);
			if (!s) {
				ret = IPCC_EINVAL;
				break;
			}
			n++;
			s = model_lex_space(s);
			if (*s == ',')
				s = model_lex_space(s + 1);
			else if (*s)
				ret =
				    model_parse_fail(ps, s, "expected ',' or the end of the line");
		}
		/*
		 * xchg with memory is locked without the prefix (the architecture's rule):
		 * xchg [rax], rbx 17.0 cycles a loop on a Granite Rapids-class core, lock add
		 * 18.0, where the table's xchg takes 2.
		 */
		if (ret == 0 && !strcmp(m, "xchg") && n == 2 &&
		    (o[0].kind == O_MEM || o[1].kind == O_MEM))
			lock = true;
		if (ret == 0)
			ret = semantics(ps, mat, m, &def, o, n, lock, &in, &load, &store);
		if (ret == 0 && def.form == F_JCC && n == 1 && o[0].kind == O_LABEL)
			model_lex_word(o[0].at, label, sizeof(label));
		if (ret != 0 && !(ret == IPCC_EINVAL && ps->lenient))
			return ret;
	}
	if (!known || ret != 0) {
		memset(ps->err, 0, sizeof(*ps->err));
		memset(&in, 0, sizeof(in));
		load = store = false;
		lock = false;
		approximate(ps, ops_at, &in, &load, &store);
		model_x87_approximate(p, mat, &in, &load, &store);
		in.rep_size = (uint8_t)rep_size;
		s = end;
	} else {
		/* Ports: one of each class the instruction uses (see model_int.h). */
		bool mem = load || store;

		in.move = def.port == PT_MOVE_ALU || def.port == PT_MOVE_VEC;

		if (def.port == PT_ALU || (def.port == PT_MOVE_ALU && !mem)) {
			const enum unit u = model_insn_unit(m);

			in.ports |= 1u << PORT_ALU;
			if (p->alu_port_subsets && !mem)
				in.alu_subset = alu_subset(m, o, n);
			if (u == U_SHIFT && p->branch_ports && model_insn_branches(m))
				in.ports |= 1u << PORT_BRANCH;
			else if (u == U_SHIFT && p->shift_ports && in.alu_subset != ALU_PORT1)
				in.ports |= 1u << PORT_SHIFT;
			/*
			 * Two micro-ops on the shift ports (Golden Cove, alike on both machines
			 * measured): cmovbe and cmova, setbe and seta (CF and ZF), a rotate by 1,
			 * a shift or rotate by cl (four cmovbe and the loop's branch 4.58 cycles,
			 * four rol reg, 1 4.55, three shl reg, cl 3.61, four seta 4.64 on Emerald
			 * Rapids, where one micro-op each gives 2.50 and 2.00; four sete 2.61)
			 */
			if (u == U_SHIFT && p->shift_ports >= 2 && !p->branch_ports && !mem &&
			    two_shift_uops(m, o, n)) {
				in.shift_twice = true;
				if (in.uops < 2 && p->width >= 2 && p->retire >= 2)
					in.uops = 2;
				/*
				 * cmova, cmovbe, seta, setbe: the flags' two bits a micro-op
				 * before the select, a cycle more from the flags than from the
				 * data (cmp eax, edx; cmova eax, edx; add eax, 1 4.00 cycles a
				 * loop on Emerald Rapids; two cmova chained through eax 2.61;
				 * cmp ecx, 1; seta cl 3.00), and no more after a logical
				 * operation in their group (test ecx, ecx; cmova ecx, edx and
				 * test ecx, ecx; setbe cl 3.00, as after cmp)
				 */
				if ((!strncmp(m, "cmov", 4) || !strncmp(m, "set", 3)) &&
				    !in.slow_regs) {
					in.slow_regs = FLAG_REGS;
					in.slow_extra = 1;
				}
			}
			if (u == U_MUL && p->mul_ports)
				in.ports |= 1u << PORT_MUL;
		}
		/*
		 * cmovcc on two or three flags (l, ge, le, g; a, be): its flags a cycle or more
		 * later than its data (the profile's); on one flag (e, ne, s, b ...) not (Zen 5:
		 * test r10, r10; cmove r10, rbx 2.00 cycles a loop, with cmovle 3.00)
		 */
		if (p->cmov_flags_late && !strncmp(m, "cmov", 4) && model_insn_is_cond(m + 4) &&
		    two_flag_cond(m + 4) && !in.slow_regs) {
			in.slow_regs = FLAG_REGS;
			in.slow_extra = p->cmov_flags_late;
		}
		if (def.port == PT_VEC || (def.port == PT_MOVE_VEC && !mem)) {
			bool to_gpr = false, from_gpr = false;

			for (int i = 0; i < n; i++)
				if (o[i].kind == O_REG && o[i].reg < REG_VEC0) {
					to_gpr |= i == 0;
					from_gpr |= i > 0 && o[0].kind == O_REG &&
						    o[0].reg >= REG_VEC0 && o[0].reg < REG_FLAGS;
				}
			const enum vunit v = p->vec_zen_pipes
						 ? model_insn_vunit_zen(base, to_gpr, from_gpr, mem)
						 : model_insn_vunit(base, to_gpr, from_gpr, mem);

			/*
			 * a general register's value into a vector register: the crossing's
			 * cycles from it (from_gpr_extra), not from a vector input it merges
			 */
			if (from_gpr && p->from_gpr_extra && !in.slow_regs) {
				for (int i = 1; i < n; i++)
					if (o[i].kind == O_REG && o[i].reg < REG_VEC0)
						in.slow_regs |= 1ull << o[i].reg;
				in.slow_extra = p->from_gpr_extra;
			}
			in.ports |= 1u << PORT_VEC;
			if (p->vec_zen_pipes) { /* pipes 0-1, 2-3, and the shuffles on 1 and 2 */
				if (v == V_MUL)
					in.ports |= 1u << PORT_VMUL | 1u << PORT_VMULMIX;
				else if (v == V_ADD)
					in.ports |= 1u << PORT_VADD | 1u << PORT_VADDMIX;
				else if (v == V_SHUF)
					in.ports |= 1u << PORT_VSHUF | 1u << PORT_VMULMIX |
						    1u << PORT_VADDMIX;
				else if (v == V_OUT && p->vec_out_ports)
					in.ports |= 1u << PORT_VOUT;
			} else {
				/* the out port is one of the multiplying ones, the shuffle one an adder */
				if (v == V_OUT && p->vec_out_ports)
					in.ports |= 1u << PORT_VOUT;
				if ((v == V_OUT || v == V_MUL) && p->vec_mul_ports)
					in.ports |= 1u << PORT_VMUL;
				if (v == V_SHUF && p->vec_shuffle_ports)
					in.ports |= 1u << PORT_VSHUF;
				if ((v == V_SHUF || v == V_ADD) && p->vec_add_ports)
					in.ports |= 1u << PORT_VADD;
				/* a conversion from a register: its second micro-op multiplies */
				if (v == V_SHUF && p->vec_shuffle_ports && p->vec_mul_ports &&
				    model_insn_is_conversion(base)) {
					in.ports |= 1u << PORT_VMUL;
					in.vec_twice = true;
				}
			}
			/* a general register's value in: where the profile counts such moves */
			if (from_gpr && p->vec_in_ports)
				in.ports |= 1u << PORT_VIN;
		}
		if (in.zero || in.eliminated) { /* at rename */
			in.ports = 0;
			in.latency = 0;
		}
	}
	if (load)
		in.ports |= 1u << PORT_LOAD;
	if (load && n > 0 && o[0].kind == O_REG && o[0].reg >= REG_VEC0) /* into a vector */
		in.ports |= 1u << PORT_VLOAD;
	if (store)
		in.ports |= 1u << PORT_STORE;
	if (load || store) /* one address, for a read-modify-write too */
		in.ports |= 1u << PORT_AGU;
	if ((in.mem & MEM_STORE) && in.key.index >= 0 && p->indexed_store_alu)
		in.ports |= 1u << PORT_ALU;
	if ((in.mem & MEM_STORE) && p->store_alu && !vector_operand(o, n))
		in.ports |= 1u << PORT_ALU;
	if (known && !in.approx)
		fold_and_flags(p, m, o, n, lock, &in);
	/*
	 * A memory source: the load's latency, the profile's load_latency (vector_load_latency
	 * into a vector register, where the profile gives one). A move from memory is the load
	 * alone; a load-op adds the operation's latency to it.
	 */
	if (load) {
		in.load_latency = p->vector_load_latency && (in.writes & VEC_REGS)
				      ? p->vector_load_latency
				      : p->load_latency;
		/* an index scaled, or beside a displacement: the profile's complex_load_latency */
		if ((in.mem & MEM_LOAD) && in.key.index >= 0 &&
		    (in.key.scale > 1 || in.key.disp != 0 || in.key.sym))
			in.load_latency += p->complex_load_latency;
		if (known && !in.approx && (def.port == PT_MOVE_ALU || def.port == PT_MOVE_VEC))
			in.latency = in.load_latency;
		else
			in.latency += in.load_latency;
		/* into a part of a general register: the merge after it (load_merge_latency) */
		if (n > 0 && o[0].kind == O_REG && o[0].partial && !p->partial_rename)
			in.latency += p->load_merge_latency;
	}
	/*
	 * a scalar operation of one vector source that keeps the upper part of another register:
	 * that register (merge_zero_upper)
	 */
	if (known && !in.approx &&
	    model_word_in(base, (const char *const[]){ "cvtsi2ss", "cvtsi2sd", "cvtss2sd",
						       "cvtsd2ss", "sqrtss", "sqrtsd", "roundss",
						       "roundsd", "rcpss", "rsqrtss", NULL })) {
		const int k = m[0] == 'v' ? 1 : 0; /* AVX: the first source; SSE: the destination */

		if (n > k + 1 && o[k].kind == O_REG && o[k].reg >= REG_VEC0 &&
		    !(o[k + 1].kind == O_REG && o[k + 1].reg == o[k].reg))
			in.merge_reg = (uint8_t)(o[k].reg + 1);
	}
	/*
	 * lea base + index + displacement: the profile's lea3_latency from the base, one cycle
	 * from the index (measured on Zen 4: lea rax, [rax + rcx + 8] 2.00 chained, lea rbx,
	 * [r12 + rbx + 8] 1.00). A base of rbp or r13 is encoded with a displacement even where
	 * it is 0, and counts as one (Zen 5: lea r13, [r13 + rax*2] 1.97, lea r13, [r13 + rax]
	 * 2.00 chained; lea r13, [rax + r13*2] 1.00)
	 */
	if (known && !in.approx && def.form == F_LEA &&
	    (p->lea3_latency > in.latency || p->lea3_alu_slots > 1) && n == 2 &&
	    o[1].kind == O_MEM && o[1].key.base >= 0 && o[1].key.index >= 0 &&
	    (o[1].key.disp != 0 || o[1].key.sym ||
	     (o[1].base >= 0 && 1ull << o[1].base & (RBP | R13)))) {
		/*
		 * and its throughput (Zen 5): 2, 3, 4, 6 and 8 independent ones with the loop's
		 * dec, jnz 1.00, 1.64, 2.33, 3.34 and 4.33 cycles a loop; two beside 2 and 3
		 * adds 1.67 and 1.84, four beside 2 2.68 (where a plain lea's six take 1.18)
		 */
		if (p->lea3_alu_slots > 1)
			in.alu_held = (uint8_t)(p->lea3_alu_slots - 1);
		bool slow = p->lea3_latency > in.latency; /* else its slots alone */

		if (slow && o[1].key.base != o[1].key.index && o[1].base >= 0) {
			in.slow_regs = 1ull << o[1].base;
			in.slow_extra = p->lea3_latency - in.latency;
		} else if (slow) { /* [rax + rax*1 + 8]: the base is the index too */
			in.latency = p->lea3_latency;
		}
	}
	/* lea with a scaled index: the profile's figure from every input (Golden Cove: 2) */
	if (known && !in.approx && def.form == F_LEA && p->lea_scale_latency && n == 2 &&
	    o[1].kind == O_MEM && o[1].key.index >= 0 && o[1].key.scale > 1) {
		in.latency = p->lea_scale_latency;
		if (p->alu_port_subsets)
			in.alu_subset = ALU_LEA_SCALED;
		in.slow_regs = 0;
		in.slow_extra = 0;
	}
	/*
	 * one-operand mul and imul: the profile's figure for rdx, the high half; rax has the
	 * operation's (a Granite Rapids-class core: mul r9; add r11, 4 chained through rax
	 * 3.00, imul rcx; mov rax, rdx 4.00)
	 */
	if (known && !in.approx && p->mul_high_latency && n == 1 &&
	    (def.form == F_IMUL || !strcmp(base, "mul"))) {
		unsigned op = in.latency - (load ? in.load_latency : 0);

		in.rdx_extra = p->mul_high_latency > op ? p->mul_high_latency - op : 0;
	}
	/*
	 * ah, bh, ch or dh read or written: the profile's high8_latency at least, after the load
	 * where there is one (Emerald Rapids: mov ch, [rax + 0x7f] 2.99 cycles a loop through
	 * rcx, mov ah, [rax] 7.94 through the address, 1.00 and 5.00 modelled before; or [rdi],
	 * ch 8.00 through memory, as before; not adc [rbp - 0x2e], bh: 5.99, 8 modelled)
	 */
	for (int i = 0; known && !in.approx && p->high8_latency && i < n; i++)
		if (o[i].kind == O_REG && o[i].partial && o[i].at && strchr("abcd", o[i].at[0]) &&
		    o[i].at[1] == 'h' && !isalnum((unsigned char)o[i].at[2])) {
			const unsigned ld = load ? in.load_latency : 0;

			if (in.latency < ld + p->high8_latency)
				in.latency = ld + p->high8_latency;
		}
	/* bswap of 32 bits: one micro-op of a cycle (bswap edx chained 1.00 cycle a loop on
	 * Emerald Rapids, bswap rdx 2.00, the table's two) */
	if (known && !in.approx && !strcmp(m, "bswap") && n == 1 && o[0].kind == O_REG &&
	    !o[0].wide) {
		in.latency = 1;
		in.uops = 1;
		if (p->alu_port_subsets)
			in.alu_subset = ALU_PORT1;
	}
	/*
	 * The dividers, not pipelined: div and idiv hold the integer one (divider_cycles, or
	 * divider_cycles_32 for 32 bits or less), the FP divides and square roots the other
	 * (fdiv_single_cycles, fdiv_double_cycles; twice that for 256 bits)
	 */
	if (known && !in.approx && (!strcmp(m, "div") || !strcmp(m, "idiv")) && n == 1) {
		const bool wide64 =
		    (o[0].kind == O_REG && o[0].wide) || (o[0].kind == O_MEM && in.size == 8);

		in.divides = DIV_INT;
		in.div_cycles = (uint16_t)(!wide64 && p->divider_cycles_32 ? p->divider_cycles_32
									   : p->divider_cycles);
	} else if (known && !in.approx && (!strncmp(base, "div", 3) || !strncmp(base, "sqrt", 4))) {
		const size_t bl = strlen(base);
		const bool sq = !strncmp(base, "sqrt", 4), single = bl > 2 && base[bl - 1] == 's';
		const bool dbl = bl > 2 && base[bl - 1] == 'd';
		unsigned occ = single ? p->fdiv_single_cycles : dbl ? p->fdiv_double_cycles : 0;

		if (sq && single && p->fsqrt_single_cycles)
			occ = p->fsqrt_single_cycles;
		if (sq && dbl && p->fsqrt_double_cycles)
			occ = p->fsqrt_double_cycles;
		in.divides = DIV_FP;
		in.div_cycles =
		    (uint16_t)(strstr(mat, "ymm") && !p->fdiv_full_width ? 2 * occ : occ);
	}
	if (lock) {
		in.latency = p->lock_latency;
		in.at_retire = true;
		in.drains = true;
	}
	/* microcoded: the sequencer's cycles, the last of them its own allocation's */
	if (known && !in.approx && def.fe_cycles && !costed)
		in.fe_stall = def.fe_cycles - 1u;
	if (known && !in.approx && def.form == F_FENCE) {
		in.at_retire = true;
		in.drains = strcmp(m, "lfence") != 0; /* mfence, sfence: the stores before */
	}
	/* Macro-fusion: a jcc right after a fusable op goes with it, in no slot of its own. */
	if (known && !in.approx && def.form == F_JCC && ps->prog->n > 0 && !ps->label_before &&
	    times == 1) {
		const char *prev = ps->prog->pool + ps->prog->insn[ps->prog->n - 1].text;
		const struct op_def *pr;
		char pm[32];

		model_lex_word(model_lex_space(prev), pm, sizeof(pm));
		pr = model_insn_row(pm);
		/* one op to the front end wherever the decoders pair them (opcache_line_ops) */
		in.fe_fused = pr && (pr->alu_fusable || pr->cmp_fusable) && !strstr(prev, "[");
		in.slot_free = p->alu_jcc_one_slot && pr && pr->alu_fusable && !strstr(prev, "[");
		if (pr &&
		    ((p->fuse_alu_jcc && pr->alu_fusable) ||
		     (p->fuse_cmp_jcc && pr->cmp_fusable)) &&
		    !strstr(prev, "[")) {
			/* one micro-op: the branch resolves with its pair, on a branch port */
			in.uops = 0;
			in.ports = 0;
			in.latency = 0;
			if (p->branch_ports)
				ps->prog->insn[ps->prog->n - 1].ports |= 1u << PORT_BRANCH;
			else if (p->shift_ports)
				ps->prog->insn[ps->prog->n - 1].ports |= 1u << PORT_SHIFT;
			/* the pair executes for its flags: a loop's dec, jnz is not folded */
			ps->prog->insn[ps->prog->n - 1].fold = false;
			/* whose flags reach a condition late (fused_flags_late) */
			ps->prog->insn[ps->prog->n - 1].fused_flags = true;
		}
	}
	/*
	 * A register move and a one-micro-op operation on its destination right after it: one
	 * slot, the move's (the profile's fuse_mov_alu); the operation keeps its port.
	 */
	if (known && !in.approx && p->fuse_mov_alu && ps->prog->n > 0 && !ps->label_before &&
	    times == 1 && !in.mem && in.uops == 1 && !in.shift_twice && !in.zero &&
	    (def.form == F_ALU || def.form == F_UNARY ||
	     (def.form == F_SHIFT && n == 2 && o[1].kind == O_IMM))) {
		const struct minsn *pr = &ps->prog->insn[ps->prog->n - 1];
		const uint64_t dst = pr->writes & 0xffffull;

		if (pr->whole_mov && !pr->mem && pr->uops == 1 && dst && (in.writes & dst) &&
		    (in.reads & dst))
			in.uops = 0;
	}
	/*
	 * A load into a whole register through base + displacement and an add, sub, and, or,
	 * xor of another register into it (or neg) right after: one slot, the load's, and the
	 * load not renamed (the profile's fuse_load_alu); the operation keeps its port.
	 */
	if (known && !in.approx && p->fuse_load_alu && ps->prog->n > 0 && !ps->label_before &&
	    times == 1 && !in.mem && in.uops == 1 && !in.zero && o[0].kind == O_REG &&
	    ((def.form == F_ALU && n == 2 && strcmp(m, "adc") && strcmp(m, "sbb") &&
	      o[1].kind == O_REG && o[1].reg < REG_VEC0 && o[1].reg != o[0].reg) ||
	     (def.form == F_UNARY && n == 1 && !strcmp(m, "neg")))) {
		struct minsn *pr = &ps->prog->insn[ps->prog->n - 1];
		const uint64_t dst = pr->writes & 0xffffull;

		if (pr->whole_mov && pr->mem == MEM_LOAD && pr->uops == 1 && pr->key.base >= 0 &&
		    pr->key.index < 0 && !pr->key.sym && !pr->key.segment && dst &&
		    (in.writes & dst) && (in.reads & dst)) {
			in.uops = 0;
			pr->renamable = false;
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
		in.text = model_pool_add(ps->prog, t, (size_t)(e - t));
		if (in.text == UINT32_MAX)
			return err_set(IPCC_ENOMEM, "model: out of memory");
	}
	ps->label_before = false;
	/* taken=F: the label's instruction, once it comes (parse.c), sets the skip */
	for (unsigned t = 0; in.taken && label[0] && t < times; t++) {
		if (ps->njumps == ps->jumps_cap) {
			unsigned cap = ps->jumps_cap ? 2 * ps->jumps_cap : 8;
			struct pending_jump *j = realloc(ps->jumps, cap * sizeof(*j));

			if (!j)
				return err_set(IPCC_ENOMEM, "model: out of memory");
			ps->jumps = j;
			ps->jumps_cap = cap;
		}
		ps->jumps[ps->njumps].at = ps->prog->n + t;
		memcpy(ps->jumps[ps->njumps++].label, label, sizeof(label));
	}
	return model_emit(ps, &in, times);
}

/*
 * Whether stores at a and b (b's base moved by `moved` since a's store) write one aligned
 * chunk of `bytes` (a power of two). Where the base keeps its alignment to `bytes` from
 * iteration to iteration (not written, or moved by a multiple of it), from their
 * displacements, the base's alignment assumed: of the rules tried on Zen 4's blocks this
 * one fits best (at most 16 bytes apart in one line fitted the hand-written stores better,
 * [rbp - 0x78] to [rbp - 0x60] pair, and the blocks worse: 6.0% against 5.8%). Where it
 * does not, they share a chunk in most iterations when they are less than half a chunk
 * apart (mov [rax], dl; mov [rax - 1], bh; sub rax, 1; mov [rax - 1], bl with rax 2 lower
 * each iteration: 2.00 cycles a loop on Emerald Rapids, three stores in two pairs; 3.00
 * modelled when [rax - 1] was the chunk below [rax]).
 */
static bool same_chunk(const struct mkey *a, int64_t moved, const struct mkey *b, unsigned bytes,
		       bool aligned)
{
	/*
	 * %harness: one physical page. Stores to two of its virtual addresses pair where the
	 * addresses' bits below 20 put them in one chunk (Emerald Rapids: [rbx] and [rdx + rdi],
	 * 0x20000000 apart, or [rdx + 0x100000], 1.00 cycle a loop; [rdx + 0x1000] or
	 * [rdx + 0x80000] 2.00): the store buffer compares virtual addresses so far.
	 */
	const uint64_t mask = ~(uint64_t)(bytes - 1) & (a->base == REG_HARNESS ? 0xfffff : ~0ull);
	const int64_t ad = a->disp - moved, d = ad - b->disp;

	if (!(a->sym == b->sym && a->base == b->base && a->index == b->index &&
	      a->scale == b->scale && a->segment == b->segment && a->base >= 0))
		return false;
	if (!aligned)
		return d > -(int64_t)bytes / 2 && d < (int64_t)bytes / 2;
	return ((uint64_t)ad & mask) == ((uint64_t)b->disp & mask);
}

/*
 * Whether register r keeps its alignment to `bytes` around the loop: not written, or only by
 * add or sub of immediates that sum to a multiple of bytes.
 */
static bool keeps_alignment(const struct ipcc_model_program *prog, int r, unsigned bytes)
{
	int64_t step = 0;

	if (r < 0 || r >= REG_FLAGS)
		return true;
	for (unsigned k = 0; k < prog->n; k++) {
		const struct minsn *in = &prog->insn[k];

		if (!(in->writes >> r & 1))
			continue;
		if (!in->fold || in->fold_src >= 0)
			return false;
		step += in->fold_off;
	}
	return step % (int64_t)bytes == 0;
}

/* Whether a load of the loop (not a read-modify-write's) reads any of store `st`'s bytes. */
static bool store_read(const struct ipcc_model_program *prog, const struct minsn *st)
{
	for (unsigned k = 0; k < prog->n; k++) {
		const struct minsn *in = &prog->insn[k];

		if ((in->mem & MEM_LOAD) && !(in->mem & MEM_STORE) &&
		    mkey_overlaps(&in->key, in->size, &st->key, st->size))
			return true;
	}
	return false;
}

void model_mark_store_chunks(struct ipcc_model_program *prog, const struct ipcc_model_profile *p)
{
	const unsigned n = prog->n, bytes = p->pair_store_bytes ? p->pair_store_bytes : 32;
	const bool wide = p->pair_wide_stores;
	unsigned first = 0, prev = n;
	int64_t moved = 0; /* how far the last store's base moved since, by add or sub */

	while (first < n && !(prog->insn[first].mem & MEM_STORE))
		first++;
	/* once around the loop from the first store, and on to it again */
	for (unsigned i = 0; first < n && i <= n; i++) {
		struct minsn *in = &prog->insn[(first + i) % n];

		if (!(in->mem & MEM_STORE)) {
			/* a write to the last store's address registers moves its chunk: by the
			 * immediate of an add or sub of its base, else out of reach */
			if (prev < n && (in->writes & mkey_regs(&prog->insn[prev].key))) {
				const struct mkey *pk = &prog->insn[prev].key;

				if (in->fold && in->fold_src < 0 && pk->index < 0 &&
				    (in->writes & ~FLAG_REGS) == 1ull << pk->base)
					moved += in->fold_off;
				else
					prev = n;
			}
			continue;
		}
		in->same_chunk =
		    prev < n && in->narrow_store && prog->insn[prev].narrow_store &&
		    (!p->pair_store_unread ||
		     (!store_read(prog, in) && !store_read(prog, &prog->insn[prev]))) &&
		    (wide || !(in->vector_store && prog->insn[prev].vector_store)) &&
		    same_chunk(&prog->insn[prev].key, moved, &in->key, bytes,
			       keeps_alignment(prog, in->key.base, bytes) &&
				   keeps_alignment(prog, in->key.index, bytes));
		prev = (first + i) % n;
		moved = 0;
	}
}

/*
 * Which registers hold a value computed from a load's, followed around the loop until nothing
 * changes (a value can reach an instruction before it only through the next iteration): each
 * load whose address reads one of them issues on one of the profile's dep_load_ports. On
 * Emerald Rapids a chain of d loads an iteration, each address from the load before, runs
 * at 1.00 (d = 2), 1.50-1.56 (4) and 2.08-2.13 cycles a loop (5), where as many independent
 * loads take d / 3 on the three load ports; an add or imul between two of the loads, or the
 * address loaded in the iteration before, counts alike (1.63, 1.70, 1.57 for four).
 */
void model_addresses_loaded(const struct ipcc_model_program *prog, bool *out)
{
	uint64_t loaded = 0, start; /* registers whose value comes from a load's */

	do { /* once more while the loop's end carries more such registers to its start */
		start = loaded;
		for (unsigned k = 0; k < prog->n; k++) {
			const struct minsn *in = &prog->insn[k];
			const bool from_load =
			    in->mem & MEM_LOAD || (!in->zero && (in->reads & loaded));

			out[k] = in->mem & MEM_LOAD && (in->addr_regs & loaded);
			loaded = from_load ? loaded | in->writes : loaded & ~in->writes;
		}
	} while (loaded != start);
}

void model_mark_dep_loads(struct ipcc_model_program *prog)
{
	bool *dep = malloc(prog->n * sizeof(*dep));

	if (!dep)
		return; /* out of memory: no load taken for one of the dep_load_ports */
	model_addresses_loaded(prog, dep);
	for (unsigned k = 0; k < prog->n; k++)
		if (dep[k])
			prog->insn[k].ports |= 1u << PORT_DEPLOAD;
	free(dep);
}

/* The bytes [disp, disp + size) of two accesses overlap, modulo a page where `page`. */
static bool overlaps(uint64_t a, unsigned asize, uint64_t b, unsigned bsize, bool page)
{
	if (page) {
		a &= 4095;
		b &= 4095;
	}
	return a - b < bsize || b - a < asize;
}

/*
 * A register a zero idiom cleared earlier in the iteration (xor eax, eax), and not written
 * since, adds nothing to an address: [rdx + rax*4] is [rdx] there, the address of the store
 * through it that the next iteration's load reads again.
 */
static void zero_keys(struct ipcc_model_program *prog)
{
	uint64_t zero = 0;

	for (unsigned k = 0; k < prog->n; k++) {
		struct minsn *in = &prog->insn[k];
		struct mkey *key = &in->key;

		if (in->mem && !key->sym && !key->segment) {
			if (key->index >= 0 && key->index < 16 && (zero >> key->index & 1)) {
				key->index = -1;
				key->scale = 0;
			}
			if (key->base >= 0 && key->base < 16 && (zero >> key->base & 1))
				key->base = -1;
			if (key->base < 0 && key->index >= 0 && key->scale == 1) {
				key->base = key->index;
				key->index = -1;
				key->scale = 0;
			}
		}
		zero = (zero & ~in->writes) | (in->zero ? in->writes & 0xffffull : 0);
	}
}

void model_harness_keys(struct ipcc_model_program *prog, const struct ipcc_model_profile *p)
{
	const uint64_t gprs = 0xffffull & ~RSP;
	uint64_t held = gprs; /* the registers holding the address */
	bool changed = true;

	if (p->forward_fail_latency)
		zero_keys(prog);

	while (changed) {
		/*
		 * Where forwarding failures are modelled (a wrong address costs 16 cycles there):
		 * a store of anything but a register that holds the address, 4 or 8 bytes into
		 * an aligned word, changes the words it writes, and a load from them returns
		 * something else (a block storing rbx + 16 and loading it back). The page
		 * offsets written, where the store's registers hold the address; any, else.
		 */
		struct {
			uint64_t at;
			unsigned size;
		} dirty[16];
		unsigned ndirty = 0;
		bool all_dirty = false;

		changed = false;
		for (unsigned k = 0; p->forward_fail_latency && k < prog->n; k++) {
			const struct minsn *in = &prog->insn[k];
			const struct mkey *key = &in->key;
			const uint64_t regs = mkey_regs(key);
			const bool known = !key->sym && !key->segment && regs && !(regs & ~held);

			if (!(in->mem & MEM_STORE) ||
			    (in->plain_store && in->data && !(in->data & ~held) &&
			     (in->size == 4 || in->size == 8) && known && !(key->disp & 7)))
				continue;
			if (!known || ndirty == sizeof(dirty) / sizeof(dirty[0])) {
				all_dirty = true;
			} else {
				dirty[ndirty].at = key->disp;
				dirty[ndirty++].size = in->size ? in->size : 8;
			}
		}
		for (unsigned k = 0; k < prog->n; k++) {
			const struct minsn *in = &prog->insn[k];
			const uint64_t regs = mkey_regs(&in->key);
			uint64_t lost = in->writes & held;
			bool stays = !all_dirty;
			bool keeps;

			if ((in->mem & MEM_LOAD) && ndirty && (!regs || (regs & ~held)))
				stays = false; /* from somewhere unknown, maybe a word written */
			for (unsigned d = 0; stays && (in->mem & MEM_LOAD) && d < ndirty; d++)
				stays = !overlaps(in->key.disp, in->size ? in->size : 8,
						  dirty[d].at, dirty[d].size, true);
			keeps = in->whole_mov && !in->approx &&
				((in->mem & MEM_LOAD)
				     ? stays
				     : (in->reads & gprs) && !(in->reads & gprs & ~held));

			if (lost && !keeps) {
				held &= ~lost;
				changed = true;
			}
		}
	}
	for (unsigned k = 0; k < prog->n; k++) {
		struct mkey *key = &prog->insn[k].key;
		const bool base = key->base >= 0 && key->base < 16 && (held >> key->base & 1);

		if (!prog->insn[k].mem || key->segment || key->sym)
			continue;
		if (base && key->index < 0) {
			key->base = REG_HARNESS;
		} else if (p->forward_fail_latency && key->index >= 0 && key->index < 16 &&
			   (held >> key->index & 1) && (base || key->base < 0)) {
			/*
			 * [rbp + rbx*8]: the address times 9, another virtual page of the one
			 * physical page (the address is page-aligned): one address per multiple,
			 * with the page offset of the displacement. Where forwarding failures are
			 * modelled only, as they are what such an alias costs.
			 */
			uint64_t times = (key->base >= 0) + key->scale;

			key->base = REG_HARNESS;
			key->index = -1;
			key->scale = 0;
			key->disp += (times - 1) << 32;
		}
		if (key->base == REG_HARNESS && p->alias_forwards)
			key->disp = model_physical(key->disp);
	}
}

void model_mark_forward_fails(struct ipcc_model_program *prog, const struct ipcc_model_profile *p)
{
	const unsigned n = prog->n;

	for (unsigned i = 0; i < n; i++) {
		struct minsn *in = &prog->insn[i];
		const struct mkey *key = &in->key;
		const uint64_t regs = mkey_regs(key) & 0xffffull;
		const bool harness = key->base == REG_HARNESS;

		if (!(in->mem & MEM_LOAD) || !in->size || in->at_retire || key->sym || key->segment)
			continue;
		/* back around the loop to the latest store that overlaps it */
		for (unsigned j = 1; j <= n; j++) {
			const struct minsn *st = &prog->insn[(i + n - j) % n];
			const struct mkey *sk = &st->key;

			if ((st->mem & MEM_STORE) && st->size && !sk->sym && !sk->segment &&
			    sk->base == key->base && sk->index == key->index &&
			    sk->scale == key->scale &&
			    overlaps(key->disp, in->size, sk->disp, st->size, harness)) {
				/*
				 * from where a narrower store starts: late, not blocked, where
				 * the profile says how late (forward_wide_latency); else it
				 * fails as any other (Zen 5: mov ecx, [rbp - 0x3e8]; mov [rdx],
				 * ecx; mov r8, [r14]; and r8d, 1 14.0 cycles a loop, r8 unused)
				 */
				bool wide = p->forward_wide_latency && key->disp == sk->disp &&
					    in->size > st->size;

				if (!wide && !mkey_within(key, in->size, sk, st->size)) {
					in->forward_fails = true;
					in->fail_back = j;
					in->at_retire = true;
					in->latency += p->forward_fail_latency - in->load_latency;
				}
				break;
			}
			if (st->writes & regs) /* its address moved: no longer comparable */
				break;
		}
	}
}
