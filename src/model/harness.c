/*
 * model/harness.c - the values of ipcc bench --block's harness (%harness), followed.
 *
 * The harness starts every general register but rsp and the loop's counter at one address,
 * DATA_ADDR (0x20000000, page-aligned), and every virtual page the block touches is the one
 * physical page, which holds DATA_ADDR in every eight bytes (src/block/measure.c). So the
 * block's addresses are numbers the model can know: [r15 + rax*8] after sub eax, r12d is
 * DATA_ADDR itself, another virtual address than [r15 + r14*8] (DATA_ADDR * 9) and the same
 * physical bytes. A load from the bytes a store wrote through another virtual address cannot
 * take its data from the store (model_mark_forward_fails: 16 cycles on Golden Cove), and
 * model_harness_keys, which follows only the registers that keep DATA_ADDR itself, misses it.
 *
 * This pass runs the block's integer instructions and vector moves on concrete values,
 * iteration after iteration from the harness's start: general registers, xmm0-15 / ymm0-15
 * (zero at the start), and the page's 4096 bytes (each register and byte known or not). An
 * instruction it does not follow makes what it writes unknown. An
 * access whose address comes out the same in the last iterations gets the key of that address
 * (REG_HARNESS, its offset from DATA_ADDR), comparable with every other such access; one
 * whose address moves from one iteration to the next keeps its key, unless it is a load that
 * reads, in each of the last iterations, bytes a store wrote earlier in the same iteration:
 * then the two get keys of their own (REG_TAGGED), so the load waits for the store's data
 * whatever registers computed the two addresses (mov [rdi], rax; add rdi, 8; add rsi, 8;
 * mov rax, [rsi - 8]: 5.0 cycles on Emerald Rapids, the store forwarded; 1.0 modelled before).
 */
#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "insn_int.h"
#include "parse_int.h"

#define DATA_ADDR  0x20000000ull
#define ITERATIONS 8 /* the last two must agree */

struct val {
	uint64_t v;
	bool known;
};

struct state {
	struct val r[16];
	uint8_t mem[4096];
	bool mem_known[4096];
	uint8_t x[16][32]; /* xmm0-15 / ymm0-15, byte by byte */
	bool x_known[16][32];
};

/* A general register's name: its number, size in bytes, and whether it is ah, ch, dh, bh. */
static int gpr(const char *s, unsigned *size, bool *high)
{
	static const char *const r64[] = { "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi" };
	static const char *const r32[] = { "eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi" };
	static const char *const r16[] = { "ax", "cx", "dx", "bx", "sp", "bp", "si", "di" };
	static const char *const r8[] = { "al", "cl", "dl", "bl", "spl", "bpl", "sil", "dil" };
	static const char *const r8h[] = { "ah", "ch", "dh", "bh" };

	*high = false;
	for (int i = 0; i < 8; i++) {
		if (!strcmp(s, r64[i]))
			return *size = 8, i;
		if (!strcmp(s, r32[i]))
			return *size = 4, i;
		if (!strcmp(s, r16[i]))
			return *size = 2, i;
		if (!strcmp(s, r8[i]))
			return *size = 1, i;
	}
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, r8h[i]))
			return *size = 1, *high = true, i;
	if (s[0] == 'r' && isdigit((unsigned char)s[1])) {
		char *end;
		long n = strtol(s + 1, &end, 10);

		if (n < 8 || n > 15)
			return -1;
		*size = !*end		    ? 8
			: !strcmp(end, "d") ? 4
			: !strcmp(end, "w") ? 2
			: !strcmp(end, "b") ? 1
					    : 0;
		return *size ? (int)n : -1;
	}
	return -1;
}

/* A vector register's name (xmm0-15, ymm0-15): its number and bytes; -1 if not one. */
static int vreg(const char *s, unsigned *size)
{
	char *end;
	long n;

	if ((s[0] != 'x' && s[0] != 'y') || strncmp(s + 1, "mm", 2) ||
	    !isdigit((unsigned char)s[3]))
		return -1;
	n = strtol(s + 3, &end, 10);
	if (*end || n > 15)
		return -1;
	*size = s[0] == 'x' ? 16 : 32;
	return (int)n;
}

/* One operand as this pass reads it. */
struct hop {
	enum { H_NONE, H_REG, H_IMM, H_MEM, H_VEC } kind;
	int reg;
	unsigned size;
	bool high;
	int64_t imm;
};

/* The operands of `ops` (after the mnemonic), at most three. */
static unsigned operands(const char *ops, struct hop o[3])
{
	unsigned n = 0;

	while (*ops && n < 3) {
		char w[64];
		unsigned len = 0;

		while (*ops == ' ')
			ops++;
		if (!*ops)
			break;
		while (*ops && *ops != ',' && len + 1 < sizeof(w))
			w[len++] = *ops++;
		w[len] = 0;
		while (len && w[len - 1] == ' ')
			w[--len] = 0;
		if (*ops == ',')
			ops++;
		memset(&o[n], 0, sizeof(o[n]));
		if (strchr(w, '[')) {
			o[n].kind = H_MEM;
		} else if ((o[n].reg = gpr(w, &o[n].size, &o[n].high)) >= 0) {
			o[n].kind = H_REG;
		} else if ((o[n].reg = vreg(w, &o[n].size)) >= 0) {
			o[n].kind = H_VEC;
		} else {
			char *end;
			bool neg = w[0] == '-';
			uint64_t v = strtoull(w + neg, &end, 0);

			if (*end || end == w + neg)
				o[n].kind = H_NONE;
			else {
				o[n].kind = H_IMM;
				o[n].imm = neg ? (int64_t)(0 - v) : (int64_t)v;
			}
		}
		n++;
	}
	return n;
}

static uint64_t mask_of(unsigned size)
{
	return size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;
}

static struct val reg_get(const struct state *s, const struct hop *o)
{
	struct val v = s->r[o->reg];

	v.v = o->high ? (v.v >> 8) & 0xff : v.v & mask_of(o->size);
	return v;
}

static void reg_set(struct state *s, const struct hop *o, struct val v)
{
	struct val *r = &s->r[o->reg];

	if (o->size == 4 || o->size == 8) { /* a 32-bit write clears the upper half */
		r->v = v.v & mask_of(o->size);
		r->known = v.known;
	} else if (o->high) {
		r->v = (r->v & ~0xff00ull) | (v.v & 0xff) << 8;
		r->known = r->known && v.known;
	} else {
		r->v = (r->v & ~mask_of(o->size)) | (v.v & mask_of(o->size));
		r->known = r->known && v.known;
	}
}

/* lea's operand, [base + index*scale + disp] as Capstone prints it: into *k; false if not. */
static bool lea_key(const char *text, struct mkey *k)
{
	const char *p = strchr(text, '[');
	bool minus = false;

	memset(k, 0, sizeof(*k));
	k->base = k->index = -1;
	if (!p || strchr(text, ':'))
		return false;
	for (p++; *p && *p != ']';) {
		char w[32];
		unsigned len = 0, size;
		bool high;

		while (*p == ' ')
			p++;
		if (*p == '+' || *p == '-') {
			minus = *p == '-';
			p++;
			continue;
		}
		while (*p && (isalnum((unsigned char)*p) || *p == '*') && len + 1 < sizeof(w))
			w[len++] = *p++;
		w[len] = 0;
		if (!len)
			return false;
		char *star = strchr(w, '*');
		unsigned scale = 1;

		if (star) {
			*star = 0;
			scale = (unsigned)strtoul(star + 1, NULL, 10);
		}
		int r = gpr(w, &size, &high);

		if (r >= 0 && size == 8 && !minus) {
			if (k->base < 0 && scale == 1 && !star)
				k->base = (int8_t)r;
			else if (k->index < 0)
				k->index = (int8_t)r, k->scale = (uint8_t)scale;
			else
				return false;
		} else if (isdigit((unsigned char)w[0])) {
			uint64_t v = strtoull(w, NULL, 0);

			k->disp += minus ? 0 - v : v;
		} else {
			return false; /* rip, a label, a 32-bit register */
		}
		minus = false;
	}
	return true;
}

/* The address of instruction in's memory operand (its key as parsed), or unknown. */
static struct val address(const struct state *s, const struct mkey *k)
{
	struct val a = { k->disp, true };

	if (k->sym || k->segment)
		return (struct val){ 0, false };
	if (k->base >= 0) {
		if (k->base >= 16 || !s->r[k->base].known)
			return (struct val){ 0, false };
		a.v += s->r[k->base].v;
	}
	if (k->index >= 0) {
		if (k->index >= 16 || !s->r[k->index].known)
			return (struct val){ 0, false };
		a.v += s->r[k->index].v * k->scale;
	}
	return a;
}

static struct val mem_get(const struct state *s, struct val a, unsigned size)
{
	struct val v = { 0, a.known && size >= 1 && size <= 8 };

	for (unsigned i = 0; v.known && i < size; i++) {
		unsigned at = (unsigned)((a.v + i) & 4095);

		v.known = s->mem_known[at];
		v.v |= (uint64_t)s->mem[at] << (8 * i);
	}
	return v;
}

static void mem_set(struct state *s, struct val a, unsigned size, struct val v)
{
	if (!a.known) { /* somewhere: every byte may have changed */
		memset(s->mem_known, 0, sizeof(s->mem_known));
		return;
	}
	for (unsigned i = 0; i < size && i < 64; i++) {
		unsigned at = (unsigned)((a.v + i) & 4095);

		s->mem[at] = i < 8 ? (uint8_t)(v.v >> (8 * i)) : 0;
		s->mem_known[at] = v.known && i < 8;
	}
}

/*
 * rep stos or rep movs of `size`-byte elements, rcx of them, the direction flag clear: rdi
 * (and rsi) move on, rcx ends at zero, and the bytes written take rax's (stos) or the
 * source's (movs) where both are known.
 */
static void rep_step(struct state *s, unsigned size, bool movs)
{
	const struct val n = s->r[1], di = s->r[7], si = s->r[6], ax = s->r[0];
	const bool known = n.known && di.known && (!movs || si.known) && n.v <= 4096 / size;
	const uint64_t bytes = known ? n.v * size : 0;

	if (!known) {
		memset(s->mem_known, 0, sizeof(s->mem_known));
		s->r[1].known = s->r[7].known = false;
		s->r[6].known = s->r[6].known && !movs;
		return;
	}
	for (uint64_t i = 0; i < bytes; i++) {
		const unsigned to = (unsigned)((di.v + i) & 4095);
		const unsigned from = (unsigned)((si.v + i) & 4095);

		/* a copy in order: a byte written before is read back where they overlap */
		s->mem[to] = movs ? s->mem[from] : (uint8_t)(ax.v >> (8 * (i % size)));
		s->mem_known[to] = movs ? s->mem_known[from] : ax.known;
	}
	s->r[1].v = 0;
	s->r[7].v += bytes;
	if (movs)
		s->r[6].v += bytes;
}

/*
 * The vector moves this pass follows, byte by byte: whole-register moves between registers
 * and memory, the scalar and integer moves' low parts (zeroing the rest, as from memory and
 * from general registers), and the xor of a register with itself. True if in is one.
 */
static bool vec_step(struct state *s, const char *m, unsigned n, const struct hop *o,
		     struct val addr)
{
	static const char *const whole[] = { "movdqu",	"movdqa",  "movups",  "movaps",	 "movupd",
					     "movapd",	"lddqu",   "vmovdqu", "vmovdqa", "vmovups",
					     "vmovaps", "vmovupd", "vmovapd", "vlddqu",	 NULL };
	static const char *const low[] = { "movq",  "movd",   "movsd",	"movss", "vmovq",
					   "vmovd", "vmovsd", "vmovss", NULL };
	static const char *const zero[] = { "pxor",   "xorps",	"xorpd", "vpxor",
					    "vxorps", "vxorpd", NULL };
	const bool vex = m[0] == 'v';

	if (n == 2 && model_word_in(m, whole)) {
		const unsigned sz = o[0].kind == H_VEC ? o[0].size : o[1].size;

		if (o[0].kind == H_VEC && (o[1].kind == H_VEC || o[1].kind == H_MEM)) {
			uint8_t b[32];
			bool k[32];

			for (unsigned i = 0; i < sz; i++) {
				const unsigned at = (unsigned)((addr.v + i) & 4095);

				b[i] = o[1].kind == H_VEC ? s->x[o[1].reg][i] : s->mem[at];
				k[i] = o[1].kind == H_VEC ? s->x_known[o[1].reg][i]
							  : addr.known && s->mem_known[at];
			}
			memcpy(s->x[o[0].reg], b, sz);
			memcpy(s->x_known[o[0].reg], k, sz);
			for (unsigned i = sz; vex && i < 32; i++) { /* VEX zeroes the rest */
				s->x[o[0].reg][i] = 0;
				s->x_known[o[0].reg][i] = true;
			}
			return true;
		}
		if (o[0].kind == H_MEM && o[1].kind == H_VEC) {
			if (!addr.known) {
				memset(s->mem_known, 0, sizeof(s->mem_known));
				return true;
			}
			for (unsigned i = 0; i < sz; i++) {
				const unsigned at = (unsigned)((addr.v + i) & 4095);

				s->mem[at] = s->x[o[1].reg][i];
				s->mem_known[at] = s->x_known[o[1].reg][i];
			}
			return true;
		}
		return false;
	}
	if (n == 2 && model_word_in(m, low)) {
		const unsigned sz = !strcmp(m + vex, "movd") || !strcmp(m + vex, "movss") ? 4 : 8;

		if (o[0].kind == H_VEC && (o[1].kind == H_MEM || o[1].kind == H_REG)) {
			const struct val v =
			    o[1].kind == H_REG ? reg_get(s, &o[1]) : (struct val){ 0, false };

			for (unsigned i = 0; i < (vex ? 32u : 16u); i++) {
				const unsigned at = (unsigned)((addr.v + i) & 4095);

				s->x[o[0].reg][i] = i >= sz		 ? 0
						    : o[1].kind == H_REG ? (uint8_t)(v.v >> (8 * i))
									 : s->mem[at];
				s->x_known[o[0].reg][i] = i >= sz ? true
							  : o[1].kind == H_REG
							      ? v.known
							      : addr.known && s->mem_known[at];
			}
			return true;
		}
		if (o[1].kind == H_VEC && (o[0].kind == H_MEM || o[0].kind == H_REG)) {
			struct val v = { 0, true };

			for (unsigned i = 0; i < sz; i++) {
				v.v |= (uint64_t)s->x[o[1].reg][i] << (8 * i);
				v.known = v.known && s->x_known[o[1].reg][i];
			}
			if (o[0].kind == H_REG)
				reg_set(s, &o[0], v);
			else
				mem_set(s, addr, sz, v);
			return true;
		}
		return false; /* movsd xmm, xmm merges: not followed */
	}
	if (model_word_in(m, zero) && o[0].kind == H_VEC &&
	    ((n == 2 && o[1].kind == H_VEC && o[1].reg == o[0].reg) ||
	     (n == 3 && o[1].kind == H_VEC && o[2].kind == H_VEC && o[1].reg == o[2].reg))) {
		for (unsigned i = 0; i < (vex ? 32u : o[0].size); i++) {
			s->x[o[0].reg][i] = 0;
			s->x_known[o[0].reg][i] = true;
		}
		return true;
	}
	return false;
}

/* Instruction k on state s; its access's address into *addr (unknown when none). */
static void step(struct state *s, const struct ipcc_model_program *prog, unsigned k,
		 const struct mkey *key, struct val *addr)
{
	const struct minsn *in = &prog->insn[k];
	const char *text = prog->pool + in->text;
	char m[16];
	unsigned n;
	struct hop o[3];
	bool done = false;

	*addr = (struct val){ 0, false };
	if (in->rep_size) {
		rep_step(s, in->rep_size, strstr(text, "movs") != NULL);
		return;
	}
	n = operands(model_lex_word(model_lex_space(text), m, sizeof(m)), o);
	if (in->mem)
		*addr = address(s, key);
	unsigned msize = in->size ? in->size : 8;
	/* the value of operand i (a register, an immediate, or the memory operand) */
#define VAL(i)                                                           \
	(o[i].kind == H_REG   ? reg_get(s, &o[i])                        \
	 : o[i].kind == H_IMM ? (struct val){ (uint64_t)o[i].imm, true } \
	 : o[i].kind == H_MEM ? mem_get(s, *addr, msize)                 \
			      : (struct val){ 0, false })
	unsigned dsize = n && o[0].kind == H_REG ? o[0].size : msize;
	uint64_t dm = mask_of(dsize);

	if (n == 2 && (!strcmp(m, "mov") || !strcmp(m, "movabs"))) {
		struct val v = VAL(1);

		if (o[0].kind == H_REG)
			reg_set(s, &o[0], v);
		else if (o[0].kind == H_MEM)
			mem_set(s, *addr, msize, v);
		done = o[0].kind == H_REG || o[0].kind == H_MEM;
	} else if (n == 2 && o[0].kind == H_REG &&
		   model_word_in(m, (const char *const[]){ "movzx", "movsx", "movsxd", NULL })) {
		unsigned from = o[1].kind == H_REG ? o[1].size : msize;
		struct val v = VAL(1);

		v.v &= mask_of(from);
		if (strcmp(m, "movzx") && from < 8 && (v.v >> (8 * from - 1) & 1))
			v.v |= ~mask_of(from);
		reg_set(s, &o[0], v);
		done = true;
	} else if (n == 2 && o[0].kind == H_REG && !strcmp(m, "lea")) {
		struct mkey lk;

		if (lea_key(text, &lk)) {
			reg_set(s, &o[0], address(s, &lk));
			done = true;
		}
	} else if (n == 2 && (o[0].kind == H_REG || o[0].kind == H_MEM) &&
		   model_word_in(m, (const char *const[]){ "add", "sub", "and", "or", "xor", "shl",
							   "shr", "sar", "imul", NULL })) {
		struct val a = VAL(0), b = VAL(1), r = { 0, a.known && b.known };
		unsigned c = (unsigned)(b.v & (dsize == 8 ? 63 : 31));

		/* xor r, r and sub r, r: zero, whatever r holds */
		if ((!strcmp(m, "xor") || !strcmp(m, "sub")) && o[0].kind == H_REG &&
		    o[1].kind == H_REG && o[0].reg == o[1].reg && o[0].size == o[1].size)
			r = (struct val){ 0, true };
		else if (!strcmp(m, "add"))
			r.v = a.v + b.v;
		else if (!strcmp(m, "sub"))
			r.v = a.v - b.v;
		else if (!strcmp(m, "and"))
			r.v = a.v & b.v;
		else if (!strcmp(m, "or"))
			r.v = a.v | b.v;
		else if (!strcmp(m, "xor"))
			r.v = a.v ^ b.v;
		else if (!strcmp(m, "imul"))
			r.v = a.v * b.v;
		else if (!strcmp(m, "shl"))
			r.v = a.v << c;
		else if (!strcmp(m, "shr"))
			r.v = (a.v & dm) >> c;
		else { /* sar */
			int64_t x = (int64_t)(a.v << (64 - 8 * dsize)) >> (64 - 8 * dsize);

			r.v = (uint64_t)(x >> c);
		}
		if (o[0].kind == H_REG)
			reg_set(s, &o[0], r);
		else
			mem_set(s, *addr, msize, r);
		done = true;
	} else if (n == 3 && o[0].kind == H_REG && o[2].kind == H_REG &&
		   model_word_in(m, (const char *const[]){ "shlx", "shrx", "sarx", NULL })) {
		/* BMI2's shifts: the count from a register, masked to the size; no flags */
		struct val a = VAL(1), b = VAL(2), r = { 0, a.known && b.known };
		unsigned c = (unsigned)(b.v & (dsize == 8 ? 63 : 31));

		if (!strcmp(m, "shlx"))
			r.v = a.v << c;
		else if (!strcmp(m, "shrx"))
			r.v = (a.v & dm) >> c;
		else
			r.v =
			    (uint64_t)((int64_t)(a.v << (64 - 8 * dsize)) >> (64 - 8 * dsize) >> c);
		reg_set(s, &o[0], r);
		done = true;
	} else if (n == 3 && o[0].kind == H_REG && !strcmp(m, "imul") && o[2].kind == H_IMM) {
		struct val a = VAL(1);

		reg_set(s, &o[0], (struct val){ a.v * (uint64_t)o[2].imm, a.known });
		done = true;
	} else if (n == 1 && (o[0].kind == H_REG || o[0].kind == H_MEM) &&
		   model_word_in(m, (const char *const[]){ "inc", "dec", "neg", "not", NULL })) {
		struct val a = VAL(0);

		a.v = !strcmp(m, "inc")	  ? a.v + 1
		      : !strcmp(m, "dec") ? a.v - 1
		      : !strcmp(m, "neg") ? 0 - a.v
					  : ~a.v;
		if (o[0].kind == H_REG)
			reg_set(s, &o[0], a);
		else
			mem_set(s, *addr, msize, a);
		done = true;
	} else if (n == 1 && (o[0].kind == H_REG || o[0].kind == H_MEM) && !strcmp(m, "div") &&
		   (dsize == 4 || dsize == 8)) {
		/* rdx:rax / the operand (edx:eax for 32 bits); 64 bits only where rdx is 0 */
		const struct val d = VAL(0), lo = s->r[0], hi = s->r[2];
		const uint64_t dv = d.v & dm;
		const bool known = d.known && lo.known && hi.known && dv != 0 &&
				   (dsize == 4 ? (hi.v & dm) < dv : hi.v == 0);
		const uint64_t x = dsize == 4 ? (hi.v & dm) << 32 | (lo.v & dm) : lo.v;
		const struct hop rax = { H_REG, 0, dsize, false, 0 },
				 rdx = { H_REG, 2, dsize, false, 0 };

		reg_set(s, &rax, (struct val){ known ? x / dv : 0, known });
		reg_set(s, &rdx, (struct val){ known ? x % dv : 0, known });
		done = true;
	} else if (n == 2 && o[0].kind == H_REG && !strncmp(m, "cmov", 4)) {
		/* the flags are not followed: known only where both values are the same */
		struct val a = VAL(0), b = VAL(1);
		uint64_t vm = mask_of(o[0].size);

		reg_set(s, &o[0],
			(struct val){ b.v, a.known && b.known && (a.v & vm) == (b.v & vm) });
		done = true;
	} else if (n == 0 && !strcmp(m, "cdqe")) {
		s->r[0].v = (uint64_t)(int64_t)(int32_t)s->r[0].v;
		done = true;
	} else if (n == 0 && !strcmp(m, "cwde")) {
		s->r[0].v = (uint64_t)(uint32_t)(int32_t)(int16_t)s->r[0].v;
		done = true;
	} else if (n == 2 && o[0].kind == H_REG && o[1].kind == H_REG && !strcmp(m, "xchg") &&
		   o[0].size == o[1].size) {
		struct val a = VAL(0), b = VAL(1);

		reg_set(s, &o[0], b);
		reg_set(s, &o[1], a);
		done = true;
	} else if (model_word_in(m, (const char *const[]){ "cmp", "test", "nop", "jmp", NULL }) ||
		   (m[0] == 'j' && (in->writes & 0xffffull) == 0)) {
		done = true; /* flags and control only */
	} else {
		done = vec_step(s, m, n, o, *addr);
	}
#undef VAL
	if (done)
		return;
	/* Not followed: what it writes is unknown. */
	for (unsigned r = 0; r < 16; r++)
		if (in->writes >> r & 1)
			s->r[r].known = false;
	for (unsigned r = 0; r < 16; r++)
		if (in->writes >> (REG_VEC0 + r) & 1)
			memset(s->x_known[r], 0, sizeof(s->x_known[r]));
	if (in->mem & MEM_STORE)
		mem_set(s, *addr, msize, (struct val){ 0, false });
}

/*
 * The store before the access k of iteration `it` (it >= 1) that it reads from: the latest to
 * overlap its bytes, earlier in the iteration or, *prev set, later in the one before; its
 * index if it holds them all, else -1 (none, or one that holds only part).
 */
static int store_before(const struct ipcc_model_program *prog, const struct val *seen, unsigned it,
			unsigned k, bool *prev)
{
	const unsigned n = prog->n;
	const struct val a = seen[(size_t)it * n + k];
	const unsigned size = prog->insn[k].size;

	for (unsigned back = n; back-- > 0;) { /* k - 1 down to 0, then n - 1 down to k */
		const unsigned j = (k + back) % n;
		const unsigned at = j < k ? it : it - 1;
		const struct minsn *st = &prog->insn[j];
		const struct val s = seen[(size_t)at * n + j];

		*prev = at != it;

		if (st->rep_size)
			return -1; /* a run of stores: not one to forward from */
		if (!(st->mem & MEM_STORE))
			continue;
		if (!st->size || !s.known)
			return -1;			      /* a store that may be anywhere */
		if (a.v - s.v < st->size || s.v - a.v < size) /* they overlap */
			return s.v <= a.v && a.v + size <= s.v + st->size ? (int)j : -1;
	}
	return -1;
}

/*
 * Tags a moving load and the store it reads (REG_TAGGED): one earlier in the iteration, or
 * one later in the iteration before (movzx ecx, byte ptr [rsi + rax - 1]; xor [rdx + rax],
 * cl; add rax, 1, with rsi = rdx: 7.27 cycles a loop on Emerald Rapids, each load the last
 * xor's byte; 1.00 modelled before, the keys apart).
 */
static void tag_forwards(struct ipcc_model_program *prog, const struct val *seen)
{
	const unsigned n = prog->n, last = ITERATIONS - 1;

	for (unsigned k = 0; k < n; k++) {
		struct minsn *in = &prog->insn[k];
		const struct val a = seen[(size_t)(last - 1) * n + k],
				 b = seen[(size_t)last * n + k];
		int s1, s2;
		bool p1, p2;

		if (!(in->mem & MEM_LOAD) || in->rep_size || !in->size || !a.known || !b.known ||
		    a.v == b.v || in->key.base == REG_TAGGED)
			continue;
		s1 = store_before(prog, seen, last - 1, k, &p1);
		s2 = store_before(prog, seen, last, k, &p2);
		if (s1 < 0 || s1 != s2 || p1 != p2)
			continue;
		/*
		 * One in the iteration before: the same store, as far, in every iteration seen (a
		 * byte pointer sweeping the page meets other stores' bytes a few iterations and
		 * then none: 2.58 cycles a loop of zlib's, 3.0 modelled with a forward each time)
		 */
		bool stable = true;

		for (unsigned it = 1; p2 && stable && it < last; it++) {
			bool p;
			const int s = store_before(prog, seen, it, k, &p);

			stable = s == s2 && p &&
				 seen[(size_t)it * n + k].v -
					 seen[(size_t)(it - 1) * n + (unsigned)s].v ==
				     b.v - seen[(size_t)(last - 1) * n + (unsigned)s2].v;
		}
		if (!stable)
			continue;
		struct minsn *st = &prog->insn[s1];
		/* the keys as they are say so already: the same registers, not written between */
		uint64_t written = 0;

		for (unsigned j = (unsigned)s1 + 1; j != k; j = (j + 1) % n)
			written |= prog->insn[j].writes;
		if (mkey_within(&in->key, in->size, &st->key, st->size) &&
		    !(written & mkey_regs(&st->key)))
			continue;
		const uint64_t at = seen[(size_t)(p2 ? last - 1 : last) * n + (unsigned)s1].v;
		const uint64_t tag = (uint64_t)(s1 + 1) << 48;
		const bool indexed = in->key.index >= 0 || st->key.index >= 0;

		st->key = (struct mkey){ .base = REG_TAGGED, .index = -1, .disp = tag };
		in->key =
		    (struct mkey){ .base = REG_TAGGED, .index = -1, .disp = tag + (b.v - at) };
		/*
		 * the renamer pairs them across iterations where neither address has an index
		 * (movzx ecx, byte ptr [rsi - 1]; xor [rdx], cl; add rsi, 1; add rdx, 1 1.06
		 * cycles a loop; with [rsi + rax - 1] and [rdx + rax] 7.27), never within one
		 */
		if (!p2 || indexed)
			in->renamable = false;
	}
}

/*
 * Loads that read bytes a store last wrote through another virtual address of the one
 * physical page, in some iterations or in all: a store whose address moves through the page
 * meets them now and then (mov eax, [rbx + 0x18]; lea ecx, [rax + 1]; mov [rbx + 0x18],
 * ecx; mov [rdx + rax*8 + 8], rsi: the last store, on another virtual page, overwrites the
 * counter every third iteration; 12.1 cycles a loop on Emerald Rapids, 2 modelled without
 * this). Runs the block ALIAS_ITERATIONS times from the harness's start and, past the first
 * ITERATIONS, counts each load's such iterations: its alias_rate, and the store's distance
 * back in dynamic instructions (fail_back), however many iterations back it was: the model
 * fails an instance only while that store is in flight (ipcc_model_run); a load whose
 * failures all read one write (the first iteration's store through a pointer that then moves
 * off) gets none. One that fails so in every iteration gets a rate of all: where the two
 * addresses move, the keys do not show the meeting to model_mark_forward_fails (mov r8d,
 * [rax]; mov r10d, [rax + rdx*4]; mov [rax], r10d; mov [rax + rdx*4 + 4], r8d; add rax, 4:
 * 17.0 cycles a loop on Emerald Rapids, 2 modelled before, 17 now).
 */
/*
 * 1,024 past the first ITERATIONS: a store whose pointer walks the page a byte an iteration
 * meets a load's bytes in a few iterations of every 4,096 (mov byte ptr [rax], 0x1a; mov
 * ecx, [r14 + 0x38]; add rax, 1 1.02 cycles a loop on Zen 5), not in a quarter of 64 (2.14
 * modelled with 64); 4,104 changes no figure of 7,874 blocks and takes 3.4 times as long.
 */
#define ALIAS_ITERATIONS 1032
/*
 * A load that reads its bytes from one store in most iterations and from another in some
 * (a counter in memory that the store of an array it indexes overwrites: mov eax, [rbx +
 * 0x1c]; mov rdx, [rbx]; lea ecx, [rax + 1]; mov [rbx + 0x1c], ecx; mov [rdx + rax*8], rdi,
 * the array's store meeting the counter every 4, 8, 16, 32 or 64 iterations) runs 10.0-15.9
 * cycles a loop on Zen 5, however rarely they meet, down to one in 64; one in 512 or 1,024
 * 3.5 and 2.8: the predictor holds it, not renamed, for some hundred iterations after each
 * meeting. Held (alias_unrenamed) where the store it reads changes this often in the 1,024
 * iterations, a meeting in 128 or more often.
 */
#define SWITCHES_HELD 8

static void mark_alias_rates(struct ipcc_model_program *prog, const struct mkey *keys,
			     struct state *s, bool physical, bool unrenamed)
{
	const unsigned n = prog->n;
	int16_t writer[4096];	/* the store that last wrote each byte of the page; -1: none */
	uint64_t written[4096]; /* ... through this virtual address */
	uint64_t when[4096];	/* ... as dynamic instruction it * n + k */
	unsigned *fails = calloc(n, sizeof(*fails)), *back = calloc(n, sizeof(*back));
	uint64_t *first = calloc(n, sizeof(*first));	   /* the write the first failure read */
	bool *renewed = calloc(n, sizeof(*renewed));	   /* a later failure read another */
	int16_t *source = malloc(n * sizeof(*source));	   /* the store its bytes came from */
	unsigned *switched = calloc(n, sizeof(*switched)); /* ... then another's: how often */

	if (!fails || !back || !first || !renewed || !source || !switched || n > INT16_MAX) {
		free(source);
		free(switched);
		free(fails);
		free(back);
		free(first);
		free(renewed);
		return;
	}
	memset(writer, 0xff, sizeof(writer));
	memset(when, 0, sizeof(when));
	memset(source, 0xff, n * sizeof(*source));
	for (unsigned it = 0; it < ALIAS_ITERATIONS; it++)
		for (unsigned k = 0; k < n; k++) {
			const struct minsn *in = &prog->insn[k];
			struct val a;

			step(s, prog, k, &keys[k], &a);
			if (in->rep_size || (in->mem & MEM_STORE && (!a.known || !in->size))) {
				memset(writer, 0xff, sizeof(writer)); /* bytes anywhere */
				continue;
			}
			if (!a.known || !in->size)
				continue;
			if (in->mem & MEM_LOAD && it >= ITERATIONS && !(in->mem & MEM_STORE)) {
				const uint64_t first_when = when[a.v & 4095];
				const int first_writer = writer[a.v & 4095];

				if (first_writer >= 0) {
					if (source[k] >= 0 && source[k] != first_writer)
						switched[k]++;
					source[k] = (int16_t)first_writer;
				}

				for (unsigned b = 0; b < in->size; b++) {
					const unsigned off = (unsigned)((a.v + b) & 4095);
					const int w = writer[off];

					/* alias_forwards: bytes of two stores, or of one and the page */
					if (physical
						? (w >= 0 || first_writer >= 0) &&
						      (w != first_writer || when[off] != first_when)
						: w >= 0 && written[off] != a.v + b) {
						const uint64_t at = w >= 0 ? when[off] : first_when;
						const uint64_t d = (uint64_t)it * n + k - at;

						if (!fails[k]++)
							first[k] = at;
						else if (at != first[k])
							renewed[k] = true;
						back[k] = d < UINT_MAX ? (unsigned)d : UINT_MAX;
						break;
					}
				}
			}
			if (in->mem & MEM_STORE)
				for (unsigned b = 0; b < in->size; b++) {
					const unsigned off = (unsigned)((a.v + b) & 4095);

					writer[off] = (int16_t)k;
					written[off] = a.v + b;
					when[off] = (uint64_t)it * n + k;
				}
		}
	for (unsigned k = 0; k < n; k++) {
		struct minsn *in = &prog->insn[k];
		const unsigned of = ALIAS_ITERATIONS - ITERATIONS;

		/* not where every failure read one write, long ago: it does not recur */
		if (fails[k] && (renewed[k] || fails[k] == 1)) {
			in->alias_rate = (uint32_t)((uint64_t)fails[k] * MISPREDICT_ALL / of);
			in->fail_back = back[k];
			/* caught some iterations, not all: held for the store (alias_unrenamed) */
			if (unrenamed && in->alias_rate < MISPREDICT_ALL)
				in->renamable = false;
		}
		if (unrenamed && switched[k] >= SWITCHES_HELD)
			in->renamable = false;
	}
	free(source);
	free(switched);
	free(fails);
	free(back);
	free(first);
	free(renewed);
}

/*
 * The virtual tag an AMD L1 keeps beside a line, from the address's bits 12-31: on Zen 5
 * two loads of one line through [rsi] and [rsi + rcx] alias (1.48 cycles a loop for two
 * pairs, 1.00 where they do not) for rcx any one bit from 12 to 31, not from 32 to 46, and
 * not for bits 12 and 27, 13 and 26, 14 and 25, 15 and 20, 16 and 21, 17 and 22, 18 and
 * 23, 19 and 24 together (each pair folded into one bit: the hash Lipp et al. found on
 * Zen and Zen 2, "Take A Way", 2020), while 28 to 31 pair with none.
 */
static unsigned utag(uint64_t va)
{
	static const unsigned char pair[8][2] = { { 12, 27 }, { 13, 26 }, { 14, 25 }, { 15, 20 },
						  { 16, 21 }, { 17, 22 }, { 18, 23 }, { 19, 24 } };
	unsigned t = (unsigned)(va >> 28 & 15) << 8;

	for (unsigned i = 0; i < 8; i++)
		t |= (unsigned)((va >> pair[i][0] ^ va >> pair[i][1]) & 1) << i;
	return t;
}

/*
 * A line reached through several virtual tags (utag_alias_first): the harness maps every
 * page to one physical page, so an address's line is its bits 6-11. Each load (a
 * read-modify-write's too) of a known, unmoving address gets the cost of its line's count
 * of tags, the stores' among them (a store through a third page between two loads: mov eax,
 * [rsi]; mov [rsi + 0x1000], ebx; mov ecx, [rsi + 0x2000] 1.47 cycles a loop on Zen 5,
 * where two loads alone take 1.00). Stores are not held (four through four pages 2.00, the
 * store ports' rate).
 */
/* Whether load j's value reaches instruction k's address, around the loop (j == k: once round). */
static bool feeds(const struct ipcc_model_program *prog, unsigned j, unsigned k)
{
	uint64_t from = prog->insn[j].writes; /* registers that carry j's value */

	for (unsigned d = 1; d <= prog->n; d++) {
		const struct minsn *in = &prog->insn[(j + d) % prog->n];

		if ((j + d) % prog->n == k)
			return (in->addr_regs & from) != 0;
		from = !in->zero && (in->reads & from) ? from | in->writes : from & ~in->writes;
	}
	return false;
}

static void mark_utag_aliases(struct ipcc_model_program *prog, const struct val *seen,
			      const struct ipcc_model_profile *p)
{
	enum { TAGS = 16 };
	const unsigned n = prog->n;
	unsigned tags[64][TAGS];
	unsigned count[64] = { 0 };
	bool aliased = false, *dep;
	int *tag_of; /* each access's tag, of a known, unmoving address; -1: none */

	if (!p->utag_alias_first || !(dep = malloc(n * sizeof(*dep))))
		return;
	if (!(tag_of = malloc(n * sizeof(*tag_of)))) {
		free(dep);
		return;
	}
	model_addresses_loaded(prog, dep);
	for (unsigned pass = 0; pass < 2; pass++)
		for (unsigned k = 0; k < n; k++) {
			struct minsn *in = &prog->insn[k];
			const struct val a = seen[(size_t)(ITERATIONS - 2) * n + k],
					 b = seen[(size_t)(ITERATIONS - 1) * n + k];

			tag_of[k] = -1;
			if (!in->mem || !a.known || !b.known || a.v != b.v || in->rep_size)
				continue;
			const unsigned line = (unsigned)(b.v >> 6 & 63);
			const unsigned tag = utag(b.v);
			unsigned i = 0;

			tag_of[k] = (int)(tag << 6 | line);

			while (i < count[line] && tags[line][i] != tag)
				i++;
			if (pass == 0) {
				if (i == count[line] && i < TAGS)
					tags[line][count[line]++] = tag;
			} else if (in->mem & MEM_LOAD && count[line] >= 2) {
				const unsigned c = p->utag_alias_first +
						   (count[line] - 2) * p->utag_alias_step +
						   (dep[k] ? p->utag_alias_dep : 0);

				in->utag_cost = (uint16_t)(c < UINT16_MAX ? c : UINT16_MAX);
				aliased = true;
			}
		}
	/*
	 * a load whose line the access before it, around the loop, reached through another tag
	 * waits for the line to be tagged anew (utag_retag_latency)
	 */
	for (unsigned k = 0; aliased && p->utag_retag_latency && k < n; k++) {
		struct minsn *in = &prog->insn[k];

		if (!(in->mem & MEM_LOAD) || tag_of[k] < 0)
			continue;
		for (unsigned d = 1; d <= n; d++) {
			const unsigned j = (k + n - d) % n;
			const int t = tag_of[j];

			if (t < 0 || (t & 63) != (tag_of[k] & 63))
				continue;
			if (t != tag_of[k] && prog->insn[j].mem & MEM_LOAD && feeds(prog, j, k) &&
			    feeds(prog, k, j)) {
				in->latency += p->utag_retag_latency;
				in->load_latency += p->utag_retag_latency;
			}
			break;
		}
	}
	/* the loop's other loads take their turn too (utag_alias_plain) */
	for (unsigned k = 0; aliased && k < n; k++)
		if (prog->insn[k].mem & MEM_LOAD && !prog->insn[k].utag_cost)
			prog->insn[k].utag_cost = (uint16_t)p->utag_alias_plain;
	free(tag_of);
	free(dep);
}

/* The harness's start: registers and the page as src/block/measure.c sets them. */
static void harness_start(const struct ipcc_model_program *prog, struct state *s)
{
	for (unsigned r = 0; r < 16; r++)
		s->r[r] = (struct val){ DATA_ADDR, r != 4 }; /* rsp: the harness's own */
	/* the loop's counter: the register the closing dec writes */
	for (unsigned k = prog->n; k-- > 0;)
		if (!strncmp(prog->pool + prog->insn[k].text, "dec ", 4)) {
			for (unsigned r = 0; r < 16; r++)
				if (prog->insn[k].writes >> r & 1)
					s->r[r].known = false;
			break;
		}
	for (unsigned i = 0; i < 4096; i += 8) {
		for (unsigned b = 0; b < 8; b++)
			s->mem[i + b] = (uint8_t)(DATA_ADDR >> (8 * b));
	}
	memset(s->mem_known, 1, sizeof(s->mem_known));
	memset(s->x, 0, sizeof(s->x)); /* vector registers start at zero */
	memset(s->x_known, 1, sizeof(s->x_known));
}

void model_harness_values(struct ipcc_model_program *prog, const struct mkey *keys,
			  const struct ipcc_model_profile *p)
{
	const unsigned n = prog->n;
	struct state *s = malloc(sizeof(*s));
	struct val *seen = calloc((size_t)n * ITERATIONS, sizeof(*seen));

	if (!s || !seen) {
		free(s);
		free(seen);
		return;
	}
	harness_start(prog, s);
	for (unsigned it = 0; it < ITERATIONS; it++)
		for (unsigned k = 0; k < n; k++) {
			struct val *at = &seen[(size_t)it * n + k];

			if (prog->insn[k].rep_size)
				*at = s->r[1]; /* a rep's count, rcx, before it runs */
			step(s, prog, k, &keys[k],
			     prog->insn[k].rep_size ? &(struct val){ 0 } : at);
		}
	for (unsigned k = 0; k < n; k++) {
		struct minsn *in = &prog->insn[k];
		const struct val a = seen[(size_t)(ITERATIONS - 2) * n + k],
				 b = seen[(size_t)(ITERATIONS - 1) * n + k];

		if (in->rep_size) { /* the same count in the last iterations */
			in->rep_known = a.known && b.known && a.v == b.v && a.v <= UINT32_MAX;
			in->rep_count = in->rep_known ? (uint32_t)a.v : 0;
			continue;
		}
		if (!in->mem || !a.known || !b.known || a.v != b.v)
			continue;
		/*
		 * As model_harness_keys writes an address of t times DATA_ADDR plus an offset:
		 * the offset, plus t - 1 in the upper half
		 */
		uint64_t t = (a.v + DATA_ADDR / 2) / DATA_ADDR;

		in->key.base = REG_HARNESS;
		in->key.index = -1;
		in->key.scale = 0;
		in->key.disp = (a.v - t * DATA_ADDR) + ((t - 1) << 32);
		if (p->alias_forwards)
			in->key.disp = model_physical(in->key.disp);
		in->key.sym = 0;
		in->key.segment = 0;
	}
	tag_forwards(prog, seen);
	mark_utag_aliases(prog, seen, p);
	harness_start(prog, s);
	mark_alias_rates(prog, keys, s, p->alias_forwards, p->alias_unrenamed);
	free(seen);
	free(s);
}

void model_mark_reps(struct ipcc_model_program *prog, const struct ipcc_model_profile *p)
{
	for (unsigned k = 0; k < prog->n; k++) {
		struct minsn *in = &prog->insn[k];
		const bool movs = strstr(prog->pool + in->text, "movs") != NULL;
		const double cycles =
		    in->rep_size && in->rep_known
			? ipcc_model_rep_cycles(p, in->rep_size,
						(double)in->rep_count * in->rep_size)
			: 0;

		if (cycles <= 0)
			continue;
		/* microcode, one run at a time: as a fence of the run's cycles */
		in->approx = false;
		in->latency = (unsigned)(cycles + 0.5);
		in->uops = p->width && p->width < 4 ? p->width : 4;
		in->at_retire = true;
		in->mem = 0;
		in->reads = RCX | RDI | (movs ? RSI : RAX);
		in->writes = RCX | RDI | (movs ? RSI : 0);
	}
}

void model_mark_splits(struct ipcc_model_program *prog, const struct ipcc_model_profile *p)
{
	for (unsigned k = 0; k < prog->n; k++) {
		struct minsn *in = &prog->insn[k];
		/* the page offset: DATA_ADDR and its multiples are page-aligned */
		const uint64_t off = (uint64_t)in->key.disp & 0xfff;
		const bool store = in->mem & MEM_STORE;
		unsigned cycles, kind;

		if (!in->mem || !in->size || in->key.base != REG_HARNESS || in->key.index >= 0)
			continue;
		if (in->mem & MEM_LOAD && p->loads_per_bank)
			in->bank = (uint8_t)(1 + (off >> 2 & 15));
		if (off + in->size > 4096) {
			kind = store ? SPLIT_STORE_PAGE : SPLIT_LOAD_PAGE;
			cycles = store ? p->page_split_store_cycles : p->page_split_load_cycles;
		} else if ((off & 63) + in->size > 64 ||
			   (store && p->split_store_bytes &&
			    (off & (p->split_store_bytes - 1)) + in->size > p->split_store_bytes)) {
			kind = store ? SPLIT_STORE_LINE : SPLIT_LOAD_LINE;
			cycles = store ? p->split_store_cycles : p->split_load_cycles;
		} else {
			continue;
		}
		if (cycles) {
			in->split = (uint8_t)kind;
			in->split_cycles = (uint16_t)cycles;
		}
	}
}

/*
 * Subnormal operands. The harness's memory holds DATA_ADDR in every eight bytes: read as a
 * double, a subnormal (2.65e-315); its vector registers start at zero; an integer converted
 * (cvtsi2sd) is a normal number. On a Granite Rapids-class core a double-precision
 * multiply, fused multiply-add, divide or square root with a subnormal operand and a
 * nonzero other one takes a microcode assist (vmulsd of such a load and a converted
 * integer: 125 cycles a loop), where the product of two subnormals (zero, flushed) does not,
 * nor does an addition (vaddsd 4.2), a conversion (vcvtsd2ss 1.0) or a fused multiply-add
 * of zero and a subnormal; a fused multiply-add of two subnormals and a subnormal does
 * (d * d + d: 129). This pass follows each vector register's class, as a double, through the
 * block's iterations from the harness's start, and marks the operations that assist.
 * Single precision is not followed: the harness's bytes read as floats are 0x20000000 (a
 * normal number) and 0, neither of them subnormal.
 */
enum fpc { FP_UNKNOWN, FP_ZERO, FP_SUB, FP_NORMAL };

/* An operand: a vector register (its number), a memory operand, or something else. */
struct fop {
	enum { F_OTHER, F_VEC, F_MEM } kind;
	unsigned reg;
	unsigned size; /* a memory operand's bytes (0: not given) */
};

static unsigned fp_operands(const char *ops, struct fop o[4])
{
	unsigned n = 0;

	while (*ops && n < 4) {
		const char *end = strchr(ops, ',');
		size_t len = end ? (size_t)(end - ops) : strlen(ops);
		char t[64];

		while (len && isspace((unsigned char)*ops))
			ops++, len--;
		if (len >= sizeof(t))
			len = sizeof(t) - 1;
		memcpy(t, ops, len);
		t[len] = 0;
		o[n] = (struct fop){ F_OTHER, 0, 0 };
		if ((t[0] == 'x' || t[0] == 'y' || t[0] == 'z') && !strncmp(t + 1, "mm", 2) &&
		    isdigit((unsigned char)t[3])) {
			o[n].kind = F_VEC;
			o[n].reg = (unsigned)atoi(t + 3) & 31;
		} else if (strchr(t, '[')) {
			o[n].kind = F_MEM;
			o[n].size = !strncmp(t, "byte", 4)    ? 1
				    : !strncmp(t, "word", 4)  ? 2
				    : !strncmp(t, "dword", 5) ? 4
				    : !strncmp(t, "qword", 5) ? 8
							      : 16; /* xmmword and wider */
		}
		n++;
		if (!end)
			break;
		ops = end + 1;
	}
	return n;
}

/* A mnemonic without its VEX v, where the rest is an SSE one (vmulsd: mulsd). */
static const char *sse_name(const char *m)
{
	static const char *const vex_only[] = { "vbroadcastsd", "vfmadd",  "vfmsub",
						"vfnmadd",	"vfnmsub", NULL };

	for (unsigned i = 0; vex_only[i]; i++)
		if (!strncmp(m, vex_only[i], strlen(vex_only[i])))
			return m;
	return m[0] == 'v' ? m + 1 : m;
}

static enum fpc fp_product(enum fpc a, enum fpc b)
{
	if (a == FP_ZERO || b == FP_ZERO || (a == FP_SUB && b == FP_SUB))
		return FP_ZERO;
	if (a == FP_UNKNOWN || b == FP_UNKNOWN)
		return FP_UNKNOWN;
	return FP_NORMAL;
}

static enum fpc fp_sum(enum fpc a, enum fpc b)
{
	if (a == FP_ZERO)
		return b;
	if (b == FP_ZERO)
		return a;
	if (a == FP_UNKNOWN || b == FP_UNKNOWN)
		return FP_UNKNOWN;
	return a == FP_SUB && b == FP_SUB ? FP_SUB : FP_NORMAL;
}

void model_mark_fp_assists(struct ipcc_model_program *prog)
{
	enum fpc v[32];

	for (unsigned r = 0; r < 32; r++)
		v[r] = FP_ZERO;
	for (unsigned it = 0; it < 3; it++)
		for (unsigned k = 0; k < prog->n; k++) {
			struct minsn *in = &prog->insn[k];
			const char *text = prog->pool + in->text;
			char mm[24];
			struct fop o[4];
			unsigned n = fp_operands(
			    model_lex_space(model_lex_word(model_lex_space(text), mm, sizeof(mm))),
			    o);
			const char *m = sse_name(mm);
			size_t ml = strlen(m);
			bool pd =
			    ml > 2 && (!strcmp(m + ml - 2, "sd") || !strcmp(m + ml - 2, "pd"));
			bool vex = m != mm || mm[0] == 'v';
			enum fpc c[4] = { FP_UNKNOWN, FP_UNKNOWN, FP_UNKNOWN, FP_UNKNOWN },
				 res = FP_UNKNOWN;
			bool assist = false;

			if (!n || o[0].kind != F_VEC)
				continue; /* writes no vector register (a store, a compare into flags) */
			for (unsigned i = 0; i < n; i++)
				c[i] = o[i].kind == F_VEC		      ? v[o[i].reg]
				       : o[i].kind == F_MEM && o[i].size >= 8 ? FP_SUB
									      : FP_UNKNOWN;
			/* the sources: (dst, src) for SSE's two operands, (src1, src2) for VEX */
			enum fpc a = vex && n >= 3 ? c[1] : c[0], b = vex && n >= 3 ? c[2] : c[1];

			if (n == 2 && model_word_in(m, (const char *const[]){
							   "movsd", "movapd", "movupd", "movaps",
							   "movups", "movdqa", "movdqu", "movq",
							   "movddup", "vbroadcastsd", NULL })) {
				res = c[1];
			} else if (n >= 2 &&
				   model_word_in(m, (const char *const[]){ "xorps", "xorpd", "pxor",
									   NULL })) {
				const struct fop *x = &o[n - 2], *y = &o[n - 1];

				res = x->kind == F_VEC && y->kind == F_VEC && x->reg == y->reg
					  ? FP_ZERO
					  : FP_UNKNOWN;
			} else if (!strcmp(m, "cvtsi2sd")) {
				res = FP_NORMAL;
			} else if (pd && (!strncmp(m, "mul", 3) || !strncmp(m, "div", 3))) {
				assist = (a == FP_SUB && b == FP_NORMAL) ||
					 (a == FP_NORMAL && b == FP_SUB);
				res = m[0] == 'm'			 ? fp_product(a, b)
				      : a == FP_NORMAL || b == FP_NORMAL ? FP_NORMAL
									 : FP_UNKNOWN;
			} else if (pd && !strncmp(m, "sqrt", 4)) {
				assist = c[n - 1] == FP_SUB;
				res = c[n - 1] == FP_SUB ? FP_NORMAL : c[n - 1];
			} else if (pd && (!strncmp(m, "add", 3) || !strncmp(m, "sub", 3))) {
				res = fp_sum(a, b);
			} else if (pd && n == 3 && !strncmp(m, "vf", 2) && strlen(m) > 8) {
				/* vfmadd231sd d, s2, s3: s2 * s3 + d; 213: s2 * d + s3; 132: d * s3 + s2 */
				const char *form = m + ml - 5;
				enum fpc p1 = c[1], p2 = c[2], add = c[0];

				if (!strncmp(form, "213", 3))
					p2 = c[0], add = c[2];
				else if (!strncmp(form, "132", 3))
					p1 = c[0], add = c[1];
				const bool nz1 = p1 == FP_SUB || p1 == FP_NORMAL,
					   nz2 = p2 == FP_SUB || p2 == FP_NORMAL;

				assist = ((p1 == FP_SUB && nz2) || (p2 == FP_SUB && nz1)) &&
					 !(p1 == FP_SUB && p2 == FP_SUB &&
					   (add == FP_ZERO || add == FP_UNKNOWN));
				res = fp_sum(p1 == FP_SUB && p2 == FP_SUB ? FP_ZERO
									  : fp_product(p1, p2),
					     add);
			}
			v[o[0].reg] = res;
			if (it == 2)
				in->assist = assist;
		}
}
