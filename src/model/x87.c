/*
 * model/x87.c - x87 stack faults in the block harness (%harness).
 *
 * The harness starts a block with an empty x87 stack. A loop whose x87 instructions push
 * more than they pop fills the stack, and every push after that overflows; one that reads
 * or pops a register nothing was pushed into underflows. The x87 masks both (a QNaN takes
 * the place of the value) but takes a microcode assist each time: ipcc bench --block on
 * Emerald Rapids and on a Granite Rapids-class core alike, cycles an iteration: fldz 373
 * and 371 (full: every push overflows), fstp st(0) 372 and 376 (empty: every pop
 * underflows), fucomi st(1) 400 and 400, three fldz 1113 and 1113. The profile's
 * x87_assist_cycles is that figure; the faulting instruction executes at retirement and
 * takes that many cycles more.
 *
 * Where a masked fault leaves the stack (Intel SDM vol. 1, 8.5.1.1): an overflowing push
 * still pushes (the new top holds the QNaN); an instruction that reads an empty register
 * writes the QNaN to its register destination, which then holds a value, and pops as it
 * would. The pass follows the stack through the loop from empty until it repeats, and
 * marks the instructions that fault in the repeating iteration.
 */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "parse_int.h"

/* What an x87 instruction does to the stack. */
struct x87_op {
	unsigned reads; /* bit i: st(i) read before the push or pop */
	int dest;	/* the register it writes, -1: none (or memory) */
	unsigned pops;	/* after */
	bool push;	/* before writing the new st(0) */
	bool clear;	/* fninit, ffree: what `dest` names is emptied (fninit: all) */
	bool arith;	/* computes on what it reads: a QNaN read takes an assist */
	bool swap;	/* fxch: st(0) and `dest` trade values */
};

/* st(i) operands of `ops` (comma-separated), into st[] (-1 for a memory or other operand). */
static unsigned st_operands(const char *ops, int st[3])
{
	unsigned n = 0;

	while (*ops && n < 3) {
		while (*ops == ' ')
			ops++;
		if (!strncmp(ops, "st(", 3) && isdigit((unsigned char)ops[3]) && ops[4] == ')')
			st[n++] = ops[3] - '0';
		else if (!strncmp(ops, "st", 2) && (ops[2] == 0 || ops[2] == ',' || ops[2] == ' '))
			st[n++] = 0;
		else if (*ops)
			st[n++] = -1;
		while (*ops && *ops != ',')
			ops++;
		if (*ops == ',')
			ops++;
	}
	return n;
}

/*
 * The stack effect of instruction `text`: 1 when it is an x87 one, 0 when it is not, -1
 * when it is one this pass does not know (then nothing is marked).
 */
static int x87_effect(const char *text, struct x87_op *x)
{
	static const char *const pushes[] = { "fld1",	"fldz",	  "fldpi", "fldl2e", "fldl2t",
					      "fldlg2", "fldln2", "fild",  "fbld",   NULL };
	static const char *const unary[] = { "fchs", "fabs",  "fsqrt", "frndint", "fsin",
					     "fcos", "f2xm1", "ftst",  "fxam",	  NULL };
	static const char *const st01_to_st1_pop[] = { "fyl2x", "fyl2xp1", "fpatan", NULL };
	static const char *const st01_to_st0[] = { "fscale", "fprem", "fprem1", NULL };
	static const char *const none[] = { "fnstsw",  "fstsw",	 "fnstcw", "fstcw",  "fldcw",
					    "fwait",   "wait",	 "fnop",   "fnclex", "fclex",
					    "fnstenv", "fstenv", "fldenv", NULL };
	static const char *const arith[] = { "fadd",  "fsub",	"fsubr", "fmul",   "fdiv",
					     "fdivr", "fiadd",	"fisub", "fisubr", "fimul",
					     "fidiv", "fidivr", NULL };
	static const char *const arith_p[] = { "faddp", "fsubp",  "fsubrp", "fmulp",
					       "fdivp", "fdivrp", NULL };
	char m[16];
	int st[3] = { -1, -1, -1 };
	const char *ops = model_lex_word(model_lex_space(text), m, sizeof(m));

	if (m[0] != 'f' || !strcmp(m, "femms"))
		return 0;
	unsigned n = st_operands(ops, st);

	memset(x, 0, sizeof(*x));
	x->dest = -1;
	if (model_word_in(m, pushes) || ((!strcmp(m, "fld")) && (n != 1 || st[0] < 0))) {
		x->push = true; /* from memory, or a constant */
		x->dest = 0;
	} else if (!strcmp(m, "fld")) { /* fld st(i) */
		x->reads = 1u << st[0];
		x->push = true;
		x->dest = 0;
	} else if (model_word_in(m, unary)) {
		x->reads = 1;
		/* fchs and fabs change the sign bit alone: no assist on a QNaN */
		x->arith = !model_word_in(
		    m, (const char *const[]){ "ftst", "fxam", "fchs", "fabs", NULL });
		x->dest = strcmp(m, "ftst") && strcmp(m, "fxam") ? 0 : -1;
		if (!strcmp(m, "fxam"))
			x->reads = 0; /* it classifies an empty register without a fault */
	} else if (model_word_in(m, st01_to_st1_pop)) {
		x->reads = 3;
		x->dest = 1;
		x->pops = 1;
		x->arith = true;
	} else if (model_word_in(m, st01_to_st0)) {
		x->reads = 3;
		x->dest = 0;
		x->arith = true;
	} else if (!strcmp(m, "fxch")) {
		int i = n >= 1 && st[n - 1] >= 0 ? st[n - 1] : 1;

		x->reads = 1u | 1u << i; /* both hold a value after, faulted or not */
		x->dest = i;
		x->swap = true;
	} else if (model_word_in(m, (const char *const[]){ "fst", "fist", NULL })) {
		x->reads = 1;
		x->dest = n == 1 && st[0] >= 0 ? st[0] : -1;
	} else if (model_word_in(
		       m, (const char *const[]){ "fstp", "fistp", "fisttp", "fbstp", NULL })) {
		x->reads = 1;
		x->dest = n == 1 && st[0] >= 0 ? st[0] : -1;
		x->pops = 1;
	} else if (model_word_in(m, (const char *const[]){ "fcom", "fucom", "fcomi", "fucomi",
							   "ficom", NULL })) {
		x->reads = 1u | (n >= 1 && st[n - 1] > 0 ? 1u << st[n - 1] : n == 0 ? 2u : 0u);
	} else if (model_word_in(m, (const char *const[]){ "fcomp", "fucomp", "fcomip", "fucomip",
							   "ficomp", NULL })) {
		x->reads = 1u | (n >= 1 && st[n - 1] > 0 ? 1u << st[n - 1] : n == 0 ? 2u : 0u);
		x->pops = 1;
	} else if (model_word_in(m, (const char *const[]){ "fcompp", "fucompp", NULL })) {
		x->reads = 3;
		x->pops = 2;
	} else if (!strncmp(m, "fcmov", 5)) {
		x->reads = 1u | (n >= 1 && st[n - 1] >= 0 ? 1u << st[n - 1] : 0u);
		x->dest = 0;
	} else if (model_word_in(m, arith)) {
		x->arith = true;
		if (n == 2 && st[0] >= 0 && st[1] >= 0) { /* fadd st(i), st(0) or st(0), st(i) */
			x->reads = 1u << st[0] | 1u << st[1];
			x->dest = st[0];
		} else if (n == 1 && st[0] >= 0) { /* fadd st(i): st(0) = st(0) op st(i) */
			x->reads = 1u | 1u << st[0];
			x->dest = 0;
		} else { /* a memory operand */
			x->reads = 1;
			x->dest = 0;
		}
	} else if (model_word_in(m, arith_p)) {
		int i = n >= 1 && st[0] > 0 ? st[0] : 1;

		x->reads = 1u | 1u << i;
		x->dest = i;
		x->pops = 1;
		x->arith = true;
	} else if (!strcmp(m, "ffree")) {
		x->dest = n == 1 && st[0] >= 0 ? st[0] : -1;
		x->clear = x->dest >= 0;
	} else if (!strcmp(m, "fninit") || !strcmp(m, "finit")) {
		x->clear = true;
	} else if (model_word_in(m, none)) {
		/* no register */
	} else {
		return -1;
	}
	return 1;
}

/*
 * The stack: bit r of valid, register r holds a value, of nan, that value is the QNaN a
 * masked fault left (or one computed from it); st(i) is (top + i) % 8.
 */
struct x87_stack {
	unsigned valid, nan, top;
};

/*
 * Instruction x on the stack: whether it faults; *nan_read, whether it computes on a QNaN
 * (one that moves or changes its sign takes no assist: fchs on it 1.00 cycles a loop;
 * fadd st(0), st(0) 410). What it writes holds a QNaN where it faulted or read one.
 */
static bool x87_step(const struct x87_op *x, struct x87_stack *s, bool *nan_read)
{
	bool fault = false, nan = false;

	for (unsigned i = 0; i < 8; i++)
		if (x->reads >> i & 1) {
			const unsigned r = (s->top + i) & 7;

			if (!(s->valid >> r & 1))
				fault = true;
			else if (s->nan >> r & 1)
				nan = true;
		}
	*nan_read = nan && x->arith;
	if (x->clear) {
		if (x->dest >= 0) {
			s->valid &= ~(1u << ((s->top + (unsigned)x->dest) & 7));
			s->nan &= ~(1u << ((s->top + (unsigned)x->dest) & 7));
		} else {
			s->valid = s->nan = s->top = 0;
		}
		return false;
	}
	if (x->push) {
		s->top = (s->top + 7) & 7;
		if (s->valid >> s->top & 1)
			fault = true;
	}
	if (x->dest >= 0) {
		const unsigned d = (s->top + (unsigned)x->dest) & 7, t = s->top;

		if (x->swap) { /* an empty one faulted and took the QNaN; then they trade */
			const unsigned qd = (s->nan >> d & 1) | !(s->valid >> d & 1),
				       qt = (s->nan >> t & 1) | !(s->valid >> t & 1);

			s->valid |= 1u << d | 1u << t;
			s->nan = (s->nan & ~(1u << d | 1u << t)) | qt << d | qd << t;
		} else {
			s->valid |= 1u << d;
			s->nan = (s->nan & ~(1u << d)) | (fault || nan ? 1u << d : 0);
		}
	}
	for (unsigned q = 0; q < x->pops; q++) {
		s->valid &= ~(1u << s->top);
		s->nan &= ~(1u << s->top);
		s->top = (s->top + 1) & 7;
	}
	return fault;
}

/*
 * Assists an x87 instruction takes for a double it reads from the harness's memory, which
 * holds DATA_ADDR in every eight bytes: a subnormal double, which the x87 converts with an
 * assist. ipcc bench --block on Emerald Rapids, cycles an iteration: fld qword ptr [rsi];
 * fstp st(0) 222 (one assist); fld1; fadd (fmul, fdiv) qword ptr [rsi]; fstp st(0) 412, 413
 * and 426, fdivr 302, fld1; fcomp qword ptr [rsi] 599 (the conversion's and the operation's
 * on a denormal operand: two). fild, and loads of other sizes (single precision reads
 * 0x20000000, a normal number: fld dword ptr [rsi]; fstp st(0) 1.00), none.
 */
static unsigned x87_denormal_assists(const char *text)
{
	static const char *const ops[] = { "fadd",  "fsub", "fsubr", "fmul", "fdiv",
					   "fdivr", "fcom", "fcomp", NULL };
	char m[16];
	const char *rest = model_lex_word(model_lex_space(text), m, sizeof(m));

	if (!strstr(rest, "qword ptr"))
		return 0;
	return !strcmp(m, "fld") ? 1 : model_word_in(m, ops) ? 2 : 0;
}

/*
 * Each instruction's assists per iteration, averaged over the iterations from `first` to
 * `it` (the period), onto its latency, at retirement: a stack fault's x87_assist_cycles, and
 * the larger of its reads of the harness's subnormal doubles (den[k] conversions) and a
 * computation on a QNaN (x87_nan_cycles).
 */
static void x87_charge(struct ipcc_model_program *prog, const struct ipcc_model_profile *p,
		       const unsigned *den, const uint64_t *cycles, unsigned period)
{
	for (unsigned k = 0; k < prog->n; k++) {
		const uint64_t c = cycles ? cycles[k] : (uint64_t)den[k] * p->x87_denormal_cycles;

		if (c) {
			prog->insn[k].at_retire = true;
			prog->insn[k].latency += (unsigned)((c + period / 2) / period);
		}
	}
}

void model_mark_x87_faults(struct ipcc_model_program *prog, const struct ipcc_model_profile *p)
{
	enum { MAX = 256, ROUNDS = 40 };
	struct x87_op op[MAX];
	bool x87[MAX], any = false;
	const unsigned n = prog->n;
	unsigned seen[ROUNDS], den[MAX] = { 0 };
	uint64_t cycles[MAX] = { 0 };
	struct x87_stack st = { 0, 0, 0 };
	bool nan;

	if (n > MAX)
		return;
	for (unsigned k = 0; p->x87_denormal_cycles && k < n; k++) {
		const struct minsn *in = &prog->insn[k];

		den[k] = in->mem & MEM_LOAD && in->key.base == REG_HARNESS
			     ? x87_denormal_assists(prog->pool + in->text)
			     : 0;
	}
	for (unsigned k = 0; k < n; k++) {
		int e = x87_effect(prog->pool + prog->insn[k].text, &op[k]);

		if (e < 0) { /* an x87 instruction this pass does not know: no stack followed */
			x87_charge(prog, p, den, NULL, 1);
			return;
		}
		x87[k] = e == 1;
		any |= x87[k];
	}
	if (!any)
		return;
	if (!p->x87_assist_cycles && !p->x87_nan_cycles) {
		x87_charge(prog, p, den, NULL, 1);
		return;
	}
	/* From empty, iteration by iteration, until the state at an iteration's start repeats. */
	for (unsigned it = 0; it < ROUNDS; it++) {
		unsigned first = it;

		seen[it] = st.nan << 11 | st.valid << 3 | st.top;
		for (unsigned j = 0; j < it; j++)
			if (seen[j] == seen[it])
				first = j;
		if (first == it) {
			for (unsigned k = 0; k < n; k++)
				if (x87[k])
					x87_step(&op[k], &st, &nan);
			continue;
		}
		/* iterations first .. it - 1 repeat for ever: the steady state's assists */
		st = (struct x87_stack){ seen[first] >> 3 & 0xff, seen[first] >> 11,
					 seen[first] & 7 };
		for (unsigned r = first; r < it; r++)
			for (unsigned k = 0; k < n; k++) {
				const uint64_t d = (uint64_t)den[k] * p->x87_denormal_cycles;

				if (!x87[k]) {
					cycles[k] += d;
					continue;
				}
				/* a fault's assist takes a QNaN operand's with it (fld st(0);
				 * fmul st(0), st(1); fstp st(0), both faulting: 769 cycles a
				 * loop), not a subnormal's (fcomp qword ptr [rdx + 0xa] on the
				 * empty stack 803) */
				if (x87_step(&op[k], &st, &nan))
					cycles[k] += p->x87_assist_cycles + d;
				else
					cycles[k] +=
					    nan && p->x87_nan_cycles > d ? p->x87_nan_cycles : d;
			}
		x87_charge(prog, p, den, cycles, it - first);
		return;
	}
	x87_charge(prog, p, den, NULL, 1); /* no period in ROUNDS iterations */
}

void model_x87_approximate(const struct ipcc_model_profile *p, const char *text, struct minsn *in,
			   bool *load, bool *store)
{
	static const char *const stores[] = { "fst",	 "fstp",   "fist",   "fistp",  "fisttp",
					      "fbstp",	 "fnstcw", "fstcw",  "fnstsw", "fstsw",
					      "fnstenv", "fstenv", "fnsave", "fsave",  NULL };
	static const char *const compares[] = { "fcomi", "fucomi", "fcomip", "fucomip", NULL };
	struct x87_op x;
	char m[16];

	if (x87_effect(text, &x) != 1)
		return;
	model_lex_word(model_lex_space(text), m, sizeof(m));
	uint64_t rd = in->mem ? in->addr_regs : 0, wr = 0;

	if (x.reads || x.arith || x.swap || model_word_in(m, stores))
		rd |= 1ull << REG_ST;
	if (!strncmp(m, "fcmov", 5))
		rd |= FLAG_REGS;
	if (x.dest >= 0) /* a push too: its value a new one (fld1; faddp 6.00 not seen) */
		wr |= 1ull << REG_ST;
	if (model_word_in(m, compares))
		wr |= FLAG_REGS;
	in->reads = rd;
	in->writes = wr;
	if (in->mem) {
		const bool st = model_word_in(m, stores);

		in->mem = st ? MEM_STORE : MEM_LOAD;
		*load = !st;
		*store = st;
	}
	in->ports = 1u << PORT_VEC;
	for (unsigned i = 0; i < IPCC_MODEL_MAX_COSTS && p->cost[i].mnemonic[0]; i++)
		if (!strcmp(p->cost[i].mnemonic, m)) {
			in->latency = p->cost[i].latency;
			in->uops = p->cost[i].uops ? p->cost[i].uops : 1;
		}
}
