/*
 * block/block.c - a basic block read from hex, decoded (Capstone), lifted into the model's
 * text with the harness's loop closure, and the agreement of two series of figures (block.h).
 * The harness that runs a block is block/measure.c.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_int.h"
#include "ipcc/block.h"
#include "recording/disasm_int.h"

static const char *const gpr_names[16] = { "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
					   "r8",  "r9",	 "r10", "r11", "r12", "r13", "r14", "r15" };

const char *ipcc_block_status_name(enum ipcc_block_status s)
{
	static const char *const names[] = {
		[IPCC_BLOCK_OK] = "ok",
		[IPCC_BLOCK_UNDECODABLE] = "undecodable",
		[IPCC_BLOCK_STACK] = "stack",
		[IPCC_BLOCK_NO_REGISTER] = "no-register",
		[IPCC_BLOCK_PRIVILEGED] = "privileged",
		[IPCC_BLOCK_ILLEGAL] = "illegal",
		[IPCC_BLOCK_DIVIDE] = "divide-error",
		[IPCC_BLOCK_FAULT] = "fault",
		[IPCC_BLOCK_PAGES] = "pages",
		[IPCC_BLOCK_TIMEOUT] = "timeout",
		[IPCC_BLOCK_NOISY] = "noisy",
		[IPCC_BLOCK_CRASH] = "crash",
	};

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

const char *ipcc_block_kind_name(enum ipcc_block_kind k)
{
	static const char *const names[] = { "scalar", "memory", "vector", "division" };

	return (unsigned)k < IPCC_BLOCK_NKINDS ? names[k] : "?";
}

static int hexval(int c)
{
	return isdigit(c) ? c - '0' : isxdigit(c) ? tolower(c) - 'a' + 10 : -1;
}

int ipcc_block_parse_hex(const char *hex, struct ipcc_block *b)
{
	int hi = -1;

	memset(b, 0, sizeof(*b));
	b->counter = -1;
	for (const char *s = hex; *s && *s != ',' && *s != '\n'; s++) {
		int v;

		if (isspace((unsigned char)*s))
			continue;
		v = hexval((unsigned char)*s);
		if (v < 0)
			return err_set(IPCC_EINVAL, "'%c' is no hex digit", *s);
		if (hi < 0) {
			hi = v;
			continue;
		}
		if (b->len < IPCC_BLOCK_MAX)
			b->code[b->len] = (unsigned char)(hi << 4 | v);
		b->len++;
		hi = -1;
	}
	if (hi >= 0)
		return err_set(IPCC_EINVAL, "an odd number of hex digits");
	if (!b->len)
		return err_set(IPCC_EINVAL, "an empty block");
	if (b->len > IPCC_BLOCK_MAX) {
		snprintf(b->why, sizeof(b->why), "%zu bytes, over the harness's %d", b->len,
			 IPCC_BLOCK_MAX);
		b->len = 0;
		b->status = IPCC_BLOCK_UNDECODABLE;
		return 0;
	}
	return ipcc_block_analyse(b);
}

/* The general register a Capstone register name is part of (0-15), 16 for rip, else -1. */
static int gpr_of(const char *name)
{
	static const struct {
		const char *name;
		int reg;
	} low[] = {
		{ "al", 0 },  { "ah", 0 },  { "ax", 0 }, { "eax", 0 }, { "cl", 1 },   { "ch", 1 },
		{ "cx", 1 },  { "ecx", 1 }, { "dl", 2 }, { "dh", 2 },  { "dx", 2 },   { "edx", 2 },
		{ "bl", 3 },  { "bh", 3 },  { "bx", 3 }, { "ebx", 3 }, { "spl", 4 },  { "sp", 4 },
		{ "esp", 4 }, { "bpl", 5 }, { "bp", 5 }, { "ebp", 5 }, { "sil", 6 },  { "si", 6 },
		{ "esi", 6 }, { "dil", 7 }, { "di", 7 }, { "edi", 7 }, { "rip", 16 }, { "eip", 16 },
	};

	for (int r = 0; r < 16; r++)
		if (!strcmp(name, gpr_names[r]))
			return r;
	for (size_t i = 0; i < sizeof(low) / sizeof(low[0]); i++)
		if (!strcmp(name, low[i].name))
			return low[i].reg;
	/* r8d, r8w, r8b */
	if (name[0] == 'r' && isdigit((unsigned char)name[1])) {
		char *end;
		long r = strtol(name + 1, &end, 10);

		if (r >= 8 && r <= 15 &&
		    (!*end || !strcmp(end, "d") || !strcmp(end, "w") || !strcmp(end, "b")))
			return (int)r;
	}
	return -1;
}

/* A division or square root (scalar or vector, not the rsqrt/rcp approximations). */
static bool is_division(const char *m)
{
	if (*m == 'v')
		m++;
	return !strncmp(m, "div", 3) || !strncmp(m, "idiv", 4) || !strncmp(m, "sqrt", 4);
}

static void refuse(struct ipcc_block *b, enum ipcc_block_status s, const cs_insn *in,
		   const char *what)
{
	if (b->status != IPCC_BLOCK_OK)
		return;
	b->status = s;
	snprintf(b->why, sizeof(b->why), "%s: %s%s%.96s", what, in->mnemonic,
		 in->op_str[0] ? " " : "", in->op_str);
}

int ipcc_block_analyse(struct ipcc_block *b)
{
	cs_insn *insn = NULL;
	size_t n, decoded = 0;
	bool vector = false, memory = false, division = false;
	csh cs;
	int ret = disasm_open(&cs);

	if (ret)
		return ret;
	b->status = IPCC_BLOCK_OK;
	b->why[0] = '\0';
	b->uses = 0;
	b->counter = -1;
	n = cs_disasm(cs, b->code, b->len, 0, 0, &insn);
	for (size_t i = 0; i < n; i++) {
		const cs_insn *in = &insn[i];
		cs_regs rd, wr;
		uint8_t nrd = 0, nwr = 0;

		decoded += in->size;
		if (cs_insn_group(cs, in, CS_GRP_JUMP) || cs_insn_group(cs, in, CS_GRP_CALL) ||
		    cs_insn_group(cs, in, CS_GRP_RET) || cs_insn_group(cs, in, CS_GRP_IRET))
			refuse(b, IPCC_BLOCK_UNDECODABLE, in, "a branch inside the block");
		if (cs_insn_group(cs, in, CS_GRP_PRIVILEGE) || cs_insn_group(cs, in, CS_GRP_INT))
			refuse(b, IPCC_BLOCK_PRIVILEGED, in, "a system instruction");
		if (is_division(in->mnemonic))
			division = true;
		for (uint8_t k = 0; k < in->detail->x86.op_count; k++)
			if (in->detail->x86.operands[k].type == X86_OP_MEM)
				memory = true;
		if (cs_regs_access(cs, in, rd, &nrd, wr, &nwr) != CS_ERR_OK)
			continue;
		for (int side = 0; side < 2; side++)
			for (uint8_t k = 0; k < (side ? nwr : nrd); k++) {
				const char *name = cs_reg_name(cs, side ? wr[k] : rd[k]);
				int r = name ? gpr_of(name) : -1;

				if (name && (name[0] == 'x' || name[0] == 'y' || name[0] == 'z') &&
				    !strncmp(name + 1, "mm", 2))
					vector = true;
				if (r == 4)
					refuse(b, IPCC_BLOCK_STACK, in, "uses the stack pointer");
				else if (r == 16)
					refuse(b, IPCC_BLOCK_STACK, in, "uses rip");
				else if (r >= 0)
					b->uses |= (uint16_t)(1u << r);
			}
	}
	b->ninsns = (unsigned)n;
	if (n == 0 || decoded != b->len) {
		b->status = IPCC_BLOCK_UNDECODABLE;
		snprintf(b->why, sizeof(b->why), "byte %zu starts no x86-64 instruction", decoded);
	}
	b->kind = division ? IPCC_BLOCK_DIVISION
		  : vector ? IPCC_BLOCK_VECTOR
		  : memory ? IPCC_BLOCK_MEMORY
			   : IPCC_BLOCK_SCALAR;
	for (int r = 15; r >= 0 && b->counter < 0; r--)
		if (r != 4 && !(b->uses & (1u << r)))
			b->counter = r;
	if (b->status == IPCC_BLOCK_OK && b->counter < 0) {
		b->status = IPCC_BLOCK_NO_REGISTER;
		snprintf(b->why, sizeof(b->why), "no general register left for the loop's counter");
	}
	cs_free(insn, n);
	cs_close(&cs);
	return 0;
}

int ipcc_block_lift(const struct ipcc_block *b, char **text)
{
	cs_insn *insn = NULL;
	size_t n, len = 0, cap;
	char *t;
	csh cs;
	int ret;

	*text = NULL;
	if (b->status != IPCC_BLOCK_OK)
		return err_set(IPCC_EINVAL, "%s", b->why);
	ret = disasm_open(&cs);
	if (ret)
		return ret;
	n = cs_disasm(cs, b->code, b->len, 0, 0, &insn);
	cap = 64 + n * 240;
	t = malloc(cap);
	if (!t) {
		ret = err_set(IPCC_ENOMEM, "lifting a block: out of memory");
		goto out;
	}
	/* the harness's registers and memory: one data address (model_int.h) */
	len += (size_t)snprintf(t + len, cap - len, "%%harness\n.Lloop:\n");
	/* each with its length (the op cache's lines); the harness's dec is 3 bytes, its jnz 6 */
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(t + len, cap - len, "%s%s%s ; bytes=%u\n", insn[i].mnemonic,
					insn[i].op_str[0] ? " " : "", insn[i].op_str,
					(unsigned)insn[i].size);
	snprintf(t + len, cap - len, "dec %s ; bytes=3\njne .Lloop ; bytes=6\n",
		 gpr_names[b->counter]);
	*text = t;
out:
	cs_free(insn, n);
	cs_close(&cs);
	return ret;
}

/* ---- agreement ------------------------------------------------------------------------- */

static int cmp_cycles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double ipcc_block_figure(const double *cycles, unsigned n)
{
	double s[16];

	if (!n)
		return NAN;
	n = n < 16 ? n : 16;
	memcpy(s, cycles, n * sizeof(s[0]));
	qsort(s, n, sizeof(s[0]), cmp_cycles);
	for (unsigned i = 0; i + 1 < n; i++)
		if (s[i + 1] <= s[i] * 1.01) /* confirmed: the fewest such */
			return s[0] * 1.25 > s[i] ? s[i] : s[0];
	return s[0];
}

static double binned(double v, double bin)
{
	return bin > 0 ? round(v / bin) * bin : v;
}

static int sign(double d)
{
	return (d > 0) - (d < 0);
}

void ipcc_block_agree(const double *a, const double *b, size_t n, double bin,
		      struct ipcc_block_agreement *out)
{
	double *x = malloc((n + 1) * sizeof(*x)), *y = malloc((n + 1) * sizeof(*y)), ape = 0;
	size_t m = 0;
	/* tau-b = (concordant - discordant) / sqrt((n0 - ties in x) (n0 - ties in y)) */
	double conc = 0, disc = 0, tx = 0, ty = 0;

	out->mape = out->tau_b = NAN;
	out->n_used = 0;
	if (!x || !y) {
		free(x), free(y);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(a[i]) || !isfinite(b[i]) || !(a[i] > 0))
			continue;
		ape += fabs(b[i] - a[i]) / a[i];
		x[m] = binned(a[i], bin);
		y[m++] = binned(b[i], bin);
	}
	for (size_t i = 0; i < m; i++)
		for (size_t j = i + 1; j < m; j++) {
			int sx = sign(x[i] - x[j]), sy = sign(y[i] - y[j]);

			if (!sx)
				tx++;
			if (!sy)
				ty++;
			if (sx && sy)
				*(sx == sy ? &conc : &disc) += 1;
		}
	out->n_used = m;
	if (m) {
		double n0 = (double)m * (double)(m - 1) / 2;

		out->mape = ape / (double)m;
		if (n0 > tx && n0 > ty)
			out->tau_b = (conc - disc) / sqrt((n0 - tx) * (n0 - ty));
	}
	free(x);
	free(y);
}
