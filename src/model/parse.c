/*
 * parse.c - x86-64 Intel-syntax assembly text into the model's instructions.
 *
 * One instruction per line, as pasted from a listing: an optional label, an optional `lock`
 * prefix, the mnemonic, operands (registers, immediates, [base + index*scale + disp] with an
 * optional size such as `qword ptr`, labels for jumps). `;` or `#` starts a comment, whose
 * words may override the table: lat=N, uops=N, fe_stall=N, mispredict, at_retire. NASM's
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

enum form {
	F_MOV,	   /* dst = src */
	F_ALU,	   /* dst op= src, flags */
	F_UNARY,   /* inc/dec/neg/not dst */
	F_CMP,	   /* cmp/test a, b: flags only */
	F_LEA,	   /* dst = address */
	F_IMUL,	   /* imul dst, src [, imm] */
	F_NOP,	   /* nop [operand] */
	F_JCC,	   /* conditional branch: reads flags */
	F_JMP,	   /* jmp */
	F_XADD,	   /* (lock) xadd m/r, r */
	F_CMPXCHG, /* (lock) cmpxchg m/r, r: also rax and flags */
	F_FENCE,   /* lfence, mfence */
	F_VEC3,	   /* AVX dst, src1, src2 */
	F_FMA	   /* vfmadd231pd acc, src1, src2 */
};

struct op_def {
	const char *name;
	enum form form;
	unsigned lat, uops;
	bool alu_fusable; /* fuses with a following jcc where the profile fuses ALU ops */
	bool cmp_fusable; /* fuses where the profile fuses cmp/test */
};

/* Latencies in cycles (Skylake's; per-profile differences below), for register operands. */
static const struct op_def ops[] = {
	{ "mov", F_MOV, 1, 1, false, false },	      { "movzx", F_MOV, 1, 1, false, false },
	{ "movsx", F_MOV, 1, 1, false, false },	      { "movsxd", F_MOV, 1, 1, false, false },
	{ "lea", F_LEA, 1, 1, false, false },	      { "add", F_ALU, 1, 1, true, false },
	{ "sub", F_ALU, 1, 1, true, false },	      { "and", F_ALU, 1, 1, true, false },
	{ "or", F_ALU, 1, 1, false, false },	      { "xor", F_ALU, 1, 1, false, false },
	{ "adc", F_ALU, 1, 1, false, false },	      { "inc", F_UNARY, 1, 1, true, false },
	{ "dec", F_UNARY, 1, 1, true, false },	      { "neg", F_UNARY, 1, 1, false, false },
	{ "not", F_UNARY, 1, 1, false, false },	      { "cmp", F_CMP, 1, 1, true, true },
	{ "test", F_CMP, 1, 1, true, true },	      { "imul", F_IMUL, 3, 1, false, false },
	{ "nop", F_NOP, 0, 1, false, false },	      { "jmp", F_JMP, 1, 1, false, false },
	{ "xadd", F_XADD, 3, 3, false, false },	      { "cmpxchg", F_CMPXCHG, 5, 5, false, false },
	{ "lfence", F_FENCE, 4, 2, false, false },    { "mfence", F_FENCE, 33, 3, false, false },
	{ "vpmulld", F_VEC3, 10, 2, false, false },   { "vpaddd", F_VEC3, 1, 1, false, false },
	{ "vaddpd", F_VEC3, 4, 1, false, false },     { "vmulpd", F_VEC3, 4, 1, false, false },
	{ "vfmadd231pd", F_FMA, 4, 1, false, false },
};

static const char *const jccs[] = { "jo",  "jno", "jb",	 "jnae", "jc",	 "jnb", "jae",	"jnc",
				    "jz",  "je",  "jnz", "jne",	 "jbe",	 "jna", "jnbe", "ja",
				    "js",  "jns", "jp",	 "jpe",	 "jnp",	 "jpo", "jl",	"jnge",
				    "jnl", "jge", "jle", "jng",	 "jnle", "jg",	NULL };

/* Per-profile differences: {profile, mnemonic, latency, uops}; lock adds its own row. */
static const struct {
	const char *profile, *name;
	unsigned lat, uops;
} overrides[] = {
	{ "zen3", "vpmulld", 3, 1 },	    { "zen4", "vpmulld", 3, 1 },
	{ "zen3", "vaddpd", 3, 1 },	    { "zen4", "vaddpd", 3, 1 },
	{ "zen3", "vmulpd", 3, 1 },	    { "zen4", "vmulpd", 3, 1 },
	{ "zen3", "mfence", 7, 1 },	    { "zen4", "mfence", 7, 1 },
	{ "zen5", "vpmulld", 3, 1 },	    { "zen5", "vaddpd", 3, 1 },
	{ "zen5", "vmulpd", 3, 1 },	    { "zen5", "mfence", 7, 1 },
	{ "neoverse-n2", "vpmulld", 4, 1 },
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
	uint64_t addr_regs; /* O_MEM: base and index */
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

/* [base + index*scale + disp] starting at '[': fills o, returns the character after ']'. */
static const char *parse_mem(struct parser *ps, const char *s, struct operand *o)
{
	int nregs = 0;
	bool want_term = true;

	o->kind = O_MEM;
	o->addr_regs = 0;
	s = skip_space(s + 1);
	for (;;) {
		char w[64];
		const char *at = s;

		if (*s == ']') {
			if (want_term)
				return fail(ps, at, "expected a register or number before ']'"),
				       NULL;
			return s + 1;
		}
		if (!want_term) {
			if (*s != '+' && *s != '-')
				return fail(ps, at, "expected '+', '-' or ']' in a memory operand"),
				       NULL;
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
			if (*s == '*') {
				char sc[16];
				const char *sat = skip_space(s + 1);

				s = skip_space(word(sat, sc, sizeof(sc)));
				if (strcmp(sc, "1") && strcmp(sc, "2") && strcmp(sc, "4") &&
				    strcmp(sc, "8"))
					return fail(ps, sat, "scale must be 1, 2, 4 or 8"), NULL;
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
		} else if (!is_number(w) &&
			   !(isalpha((unsigned char)w[0]) || w[0] == '_' || w[0] == '.')) {
			return fail(ps, at, "bad displacement '%s'", w), NULL;
		} /* numbers and symbols are displacements */
		want_term = false;
	}
}

/* One operand at s; returns the character after it. */
static const char *parse_operand(struct parser *ps, const char *s, struct operand *o)
{
	static const char *const sizes[] = { "byte",  "word",	 "dword",   "qword",   "tword",
					     "oword", "xmmword", "ymmword", "zmmword", NULL };
	char w[64];
	const char *at;

	s = skip_space(s);
	o->at = s;
	if (*s == '[')
		return parse_mem(ps, s, o);
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
			if (*after != '[')
				return fail(ps, after, "expected '[' after '%s'", sizes[i]), NULL;
			return parse_mem(ps, after, o);
		}
	if (reg_id(w) >= 0) {
		o->kind = O_REG;
		o->reg = reg_id(w);
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

/* The comment's overrides: lat=N uops=N fe_stall=N mispredict at_retire. */
static int annotations(struct parser *ps, const char *c, struct minsn *in)
{
	while (*c) {
		char w[64];

		while (*c && !isalpha((unsigned char)*c) && *c != '_')
			c++;
		if (!*c)
			break;
		c = word(c, w, sizeof(w));
		if (!strcmp(w, "mispredict")) {
			in->mispredict = true;
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

static bool is_jcc(const char *m)
{
	for (int i = 0; jccs[i]; i++)
		if (!strcmp(m, jccs[i]))
			return true;
	return false;
}

/* Operands read and written, by form; `n` operands in o[]. */
static int semantics(struct parser *ps, const char *mat, const char *m, enum form f,
		     struct operand *o, int n, bool lock, struct minsn *in, bool *load, bool *store)
{
	static const int want[][2] = {
		[F_MOV] = { 2, 2 },  [F_ALU] = { 2, 2 },     [F_UNARY] = { 1, 1 },
		[F_CMP] = { 2, 2 },  [F_LEA] = { 2, 2 },     [F_IMUL] = { 2, 3 },
		[F_NOP] = { 0, 1 },  [F_JCC] = { 1, 1 },     [F_JMP] = { 1, 1 },
		[F_XADD] = { 2, 2 }, [F_CMPXCHG] = { 2, 2 }, [F_FENCE] = { 0, 0 },
		[F_VEC3] = { 3, 3 }, [F_FMA] = { 3, 3 },
	};
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
			rd |= o[i].addr_regs;
			/* Only lea's address is not an access; stores are handled below. */
			if (f != F_LEA && !(i == 0 && (f == F_MOV)))
				*load = true;
			/* A memory destination is written: mov, read-modify-writes. */
			if (i == 0 && (f == F_MOV || f == F_ALU || f == F_UNARY || f == F_XADD ||
				       f == F_CMPXCHG))
				*store = true;
		}
		if (o[i].kind == O_LABEL && f != F_JCC && f != F_JMP)
			return fail(ps, o[i].at, "'%s' does not take a label", m);
	}
#define REG(i) (o[i].kind == O_REG ? 1ull << o[i].reg : 0)
	switch (f) {
	case F_MOV:
		if (o[0].kind != O_REG && o[0].kind != O_MEM)
			return fail(ps, o[0].at, "cannot write to this operand");
		if (o[0].kind == O_MEM && o[1].kind == O_MEM)
			return fail(ps, o[1].at, "two memory operands");
		wr |= REG(0);
		rd |= REG(1);
		break;
	case F_ALU:
		if (o[0].kind != O_REG && o[0].kind != O_MEM)
			return fail(ps, o[0].at, "cannot write to this operand");
		if (o[0].kind == O_MEM && o[1].kind == O_MEM)
			return fail(ps, o[1].at, "two memory operands");
		/* xor r, r and sub r, r: a zero idiom, which depends on nothing */
		if ((!strcmp(m, "xor") || !strcmp(m, "sub")) && o[0].kind == O_REG &&
		    o[1].kind == O_REG && o[0].reg == o[1].reg)
			rd &= ~REG(0);
		else
			rd |= REG(0) | REG(1);
		wr |= REG(0) | 1ull << REG_FLAGS;
		if (!strcmp(m, "adc"))
			rd |= 1ull << REG_FLAGS;
		break;
	case F_UNARY:
		if (o[0].kind == O_IMM || o[0].kind == O_LABEL)
			return fail(ps, o[0].at, "cannot write to this operand");
		rd |= REG(0);
		wr |= REG(0) | 1ull << REG_FLAGS;
		break;
	case F_CMP:
		rd |= REG(0) | REG(1);
		wr |= 1ull << REG_FLAGS;
		break;
	case F_LEA:
		if (o[0].kind != O_REG || o[1].kind != O_MEM)
			return fail(ps, o[0].at, "lea takes a register and a memory operand");
		wr |= REG(0);
		break;
	case F_IMUL:
		if (o[0].kind != O_REG)
			return fail(ps, o[0].at, "imul writes a register");
		rd |= REG(1) | (n == 2 ? REG(0) : 0);
		wr |= REG(0) | 1ull << REG_FLAGS;
		break;
	case F_NOP:
	case F_FENCE:
		break;
	case F_JCC:
		rd |= 1ull << REG_FLAGS;
		break;
	case F_JMP:
		rd |= REG(0);
		break;
	case F_XADD:
		rd |= REG(0) | REG(1);
		wr |= REG(0) | REG(1) | 1ull << REG_FLAGS;
		break;
	case F_CMPXCHG:
		rd |= REG(0) | REG(1) | 1ull << 0; /* rax */
		wr |= REG(0) | 1ull << 0 | 1ull << REG_FLAGS;
		break;
	case F_VEC3:
		if (o[0].kind != O_REG || o[0].reg < REG_VEC0)
			return fail(ps, o[0].at, "'%s' writes a vector register", m);
		rd |= REG(1) | REG(2);
		wr |= REG(0);
		break;
	case F_FMA:
		if (o[0].kind != O_REG || o[0].reg < REG_VEC0)
			return fail(ps, o[0].at, "'%s' writes a vector register", m);
		rd |= REG(0) | REG(1) | REG(2);
		wr |= REG(0);
		break;
	}
#undef REG
	if (lock && (f != F_ALU && f != F_UNARY && f != F_XADD && f != F_CMPXCHG))
		return fail(ps, mat, "'lock' cannot prefix '%s'", m);
	if (lock && o[0].kind != O_MEM)
		return fail(ps, o[0].at, "'lock' needs a memory destination");
	in->reads = rd;
	in->writes = wr;
	return 0;
}

/* One instruction, s just after any label; c the comment (or ""). */
static int parse_insn(struct parser *ps, const char *s, const char *c, unsigned times)
{
	const struct ipcc_model_profile *p = ps->p;
	struct minsn in = { 0 };
	struct operand o[4];
	const struct op_def *def = NULL;
	enum form form;
	char m[32];
	const char *mat, *start;
	bool lock = false, load = false, store = false;
	int n = 0, ret;

	s = skip_space(s);
	start = s;
	mat = s;
	s = word(s, m, sizeof(m));
	if (!strcmp(m, "lock")) {
		lock = true;
		s = skip_space(s);
		mat = s;
		s = word(s, m, sizeof(m));
	}
	if (!*m)
		return fail(ps, mat, "expected an instruction");
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(m, ops[i].name))
			def = &ops[i];
	if (def) {
		form = def->form;
		in.latency = def->lat;
		in.uops = def->uops;
	} else if (is_jcc(m)) {
		form = F_JCC;
		in.latency = 1;
		in.uops = 1;
	} else {
		return fail(ps, mat, "unknown instruction '%s'", m);
	}
	for (size_t i = 0; i < sizeof(overrides) / sizeof(overrides[0]); i++)
		if (!strcmp(overrides[i].profile, table_of(p)) && !strcmp(overrides[i].name, m)) {
			in.latency = overrides[i].lat;
			in.uops = overrides[i].uops;
		}
	if (form == F_IMUL && p->mul_latency)
		in.latency = p->mul_latency;
	s = skip_space(s);
	while (*s) {
		if (n == 4)
			return fail(ps, s, "too many operands");
		s = parse_operand(ps, s, &o[n]);
		if (!s)
			return IPCC_EINVAL;
		n++;
		s = skip_space(s);
		if (*s == ',')
			s = skip_space(s + 1);
		else if (*s)
			return fail(ps, s, "expected ',' or the end of the line");
	}
	ret = semantics(ps, mat, m, form, o, n, lock, &in, &load, &store);
	if (ret)
		return ret;
	/* Ports: one of each class the instruction uses (see model_int.h). */
	if (form == F_VEC3 || form == F_FMA)
		in.ports |= 1u << PORT_VEC;
	else if (form != F_NOP && form != F_FENCE && !(form == F_MOV && (load || store)))
		in.ports |= 1u << PORT_ALU;
	if (load)
		in.ports |= 1u << PORT_LOAD;
	if (store)
		in.ports |= 1u << PORT_STORE;
	/* add/sub reg, imm: what immediate folding folds */
	in.fold = (!strcmp(m, "add") || !strcmp(m, "sub")) && !lock && n == 2 &&
		  o[0].kind == O_REG && o[1].kind == O_IMM;
	if (load)
		in.latency += p->load_latency;
	if (lock) {
		in.latency = lock_latency(p);
		in.at_retire = true;
	}
	if (form == F_FENCE)
		in.at_retire = true;
	/* Macro-fusion: a jcc right after a fusable op goes with it, in no slot of its own. */
	if (form == F_JCC && ps->prog->n > 0 && !ps->label_before && times == 1) {
		const char *prev = ps->prog->pool + ps->prog->insn[ps->prog->n - 1].text;
		char pm[32];

		word(skip_space(prev), pm, sizeof(pm));
		for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
			if (!strcmp(pm, ops[i].name) &&
			    ((p->fuse_alu_jcc && ops[i].alu_fusable) ||
			     (p->fuse_cmp_jcc && ops[i].cmp_fusable)) &&
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
	struct ipcc_model_program *prog = calloc(1, sizeof(*prog));
	struct parser ps = { .p = p, .prog = prog, .err = err };
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
