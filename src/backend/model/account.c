/*
 * account.c - from the Valgrind tool's files to counters: read each process's segments,
 * lift each segment's machine code and run the pipeline model over it in its steady state,
 * then add the cycles that caches and branches cost.
 *
 * A segment's steady state is the model run over it as a loop body (its last branch closing
 * the loop): cycles per pass and the four slot counters per pass. Times its executions, that
 * is what the segment costs when its loads hit L1 and its branches are predicted. On top:
 * - a data load that misses L1 and hits L2 costs l2_latency - load_latency cycles, one that
 *   hits the LLC llc_latency - load_latency, one that goes to memory dram_latency -
 *   load_latency; a load that misses the first-level TLB costs stlb_latency more where the
 *   second holds the page, walk_latency more where it does not. Only the misses that stall
 *   are charged: a store's, or one that an earlier independent miss overlaps, costs nothing
 *   (the epoch model, vg_tool.c's miss_stalls()). Their slots are back-end stalls (filled,
 *   not issued);
 * - an instruction fetch that misses L2 costs the latency of where it hit, as front-end
 *   stall (not filled); one that hits L2 is hidden by the decoupled front end's prefetch;
 * - a mispredicted branch costs the cycles it waits for its inputs and runs (from a start
 *   with every input ready), a cycle, and then `recovery`; their slots were issued and not
 *   retired:
 *   wasted speculation;
 * - fetch follows taken_per_cycle taken branches a cycle (loop_taken_per_cycle in a small
 *   loop the loop buffer holds), one branch once a cycle, and an
 *   indirect call every indirect_call_cycles: a segment's taken branches and indirect calls
 *   set a floor under its cycles, or under its loop's where it takes a share of one
 *   (front-end stall); so do its lines between L1 and L2 at
 *   l2_bytes_per_cycle (written lines back at l2_wb_bytes_per_cycle) with those L2 takes
 *   from the LLC at llc_bytes_per_cycle, and its streaming
 *   stores at nt_bytes_per_cycle (back-end stall).
 * Where a segment lies on a hot loop of segments (the tool's successor counts), the steady
 * state is the loop's, modelled whole, and the segment takes its share (trace_loop()); a
 * hot segment on no loop takes its share of its usual neighbours' (trace_context()).
 * docs/internals/model-backend.md gives the figures this leaves out and what that costs in
 * accuracy.
 */
#include <ctype.h>
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "error_int.h"
#include "ipcc/error.h"
#include "ipcc/model_backend.h"
#include "recording/disasm_int.h"

/* What a segment counted: in all, or under one region path. */
struct seg_counts {
	uint64_t execs;
	uint64_t l1d, l2, llc, l1i, l2i, llci;
	uint64_t cond, taken, cond_miss, ind, ind_miss, ret, ret_miss;
	uint64_t stall_l2, stall_llc, stall_mem; /* load misses that stall (vg_tool.c) */
	uint64_t rep_iters, rep_runs; /* a rep movs/stos: iterations, runs begun before */
	uint64_t dtlb, walk, stall_stlb, stall_walk; /* data TLB misses, walks; stalling */
	uint64_t wb;				     /* written lines L1d evicted */
	uint64_t btb;				     /* taken branches the BTB missed */
	uint64_t btb2;				     /* ... and its second level too */
	uint64_t btb_restart; /* taken branches just after a mispredict, not recent */
	uint64_t fe_slow,
	    fe_full;	      /* taken branches past a line's limits (vg_tool.c fe_refresh()) */
	uint64_t itlb, iwalk; /* instruction TLB misses; of them, walks */
	uint64_t faults, syscalls, bytes; /* the kernel's part its runs caused */
	uint64_t file_faults;		  /* of the faults, a file's page read */
	/* of the stalls, those whose address no earlier miss gave (vg_tool.c miss_stalls()) */
	uint64_t lone_l2, lone_llc, lone_mem, lone_stlb, lone_walk;
	uint64_t l2i_restart; /* fetches after a mispredict that missed L1i and hit L2 */
	uint64_t decoded;     /* runs the op cache did not hold (vg_tool.c op cache) */
	uint64_t touches;     /* first touches of pages a system call faulted in (kernel_wrote()) */
};

/* One segment of one process, as the tool wrote it. */
struct seg {
	struct seg_counts c;
	unsigned ninsns, loads, stores;
	char *fn, *obj;
	uint64_t *addr;
	unsigned char *bytes; /* the instructions' bytes, in order */
	unsigned char *len;
	size_t nbytes;
};

static void seg_free(struct seg *s)
{
	free(s->fn);
	free(s->obj);
	free(s->addr);
	free(s->bytes);
	free(s->len);
}

static int hexval(int c)
{
	return isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
}

/* ---- the steady state of one segment ------------------------------------------------------ */

enum { FETCH_BLOCKS = 6 };

struct steady {
	double cycles; /* per pass */
	double total, filled, issued, retired;
	unsigned branches;   /* jumps, calls and returns among its instructions */
	unsigned always;     /* of them, those always taken (jmp, call, ret) */
	bool self_loop;	     /* its last instruction jumps to its first: a loop of one segment */
	unsigned nt_bytes;   /* bytes its non-temporal stores (movnt*) write a pass */
	unsigned ind_calls;  /* calls through a register or memory */
	unsigned calls_rets; /* calls, direct or not, and returns */
	double resolve;	     /* cycles from its last instruction's allocation to its completion,
			    * in one pass from a start with every input ready */
	unsigned rep_size;   /* a rep movs/stos alone: its element's bytes; 0: not one */
	unsigned approximated;
	bool unmodelled;
	bool floor_in; /* cycles hold the fetch floor already: its loop's (trace_run()) */
	bool apart;    /* the next branch after it falls through is in its line's other half */
	bool load_fed; /* a load's address computed from a loaded value (chased_loads()) */
	/*
	 * Its fetch blocks, for the decoders (charge()): the instructions of each that an
	 * always-taken branch ends (at most FETCH_BLOCKS: the rest are the last one's), and of
	 * the tail after them, which a conditional branch ends where tail_cond.
	 */
	unsigned char fb[FETCH_BLOCKS], nfb, tail;
	bool tail_cond;
};

static int append(char **t, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int append(char **t, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(*t + *len, *cap - *len, fmt, ap);
		va_end(ap);
		if (n < 0)
			return err_set(IPCC_EINVAL, "lifting a segment: bad format");
		if ((size_t)n < *cap - *len)
			break;
		char *g = realloc(*t, *cap * 2 + (size_t)n);

		if (!g)
			return err_set(IPCC_ENOMEM, "lifting a segment: out of memory");
		*t = g;
		*cap = *cap * 2 + (size_t)n;
	}
	*len += (size_t)n;
	return 0;
}

/*
 * in's operands, with a rip-relative address written as the address it is ([rip + 0x2d43]
 * at 0x40132d, 7 bytes: [0x404077]), so that two instructions reading or writing one global
 * name one address, and a profile that renames absolute addresses renames it
 * (rename_absolute). Into buf; in->op_str where it has none.
 */
static const char *absolute_ops(const cs_insn *in, char *buf, size_t n)
{
	const cs_x86 *x = &in->detail->x86;
	const char *at = strstr(in->op_str, "[rip"), *end = at ? strchr(at, ']') : NULL;

	for (unsigned k = 0; at && end && k < x->op_count; k++)
		if (x->operands[k].type == X86_OP_MEM && x->operands[k].mem.base == X86_REG_RIP &&
		    x->operands[k].mem.index == X86_REG_INVALID) {
			uint64_t addr = in->address + in->size + (uint64_t)x->operands[k].mem.disp;
			int w = snprintf(buf, n, "%.*s[0x%" PRIx64 "]%s", (int)(at - in->op_str),
					 in->op_str, addr, end + 1);

			return w > 0 && (size_t)w < n ? buf : in->op_str;
		}
	return in->op_str;
}

/*
 * The model's text for a segment, appended to *text (len, cap): each instruction as Capstone
 * prints it (a rip-relative address as its address: absolute_ops()), a direct jump or call's target replaced by a label (the last one's by the
 * loop's start, so that the pass repeats as the program repeats it; in a trace, `part` of
 * one that is not the last (`close` false), by the next part's start). Where the front end
 * fetches from elsewhere it says where in its line (at=N: the op cache's lines, sim.c): at
 * the loop's start, after a direct jump or call, and at a part that does not start where
 * the part before it ended (`after`: that one's end; 0, none), the branch between them
 * taken. A part that the branch before it fell through to goes on in the same fetch.
 */
static int lift_part(csh cs, const struct seg *s, char **text, size_t *plen, size_t *pcap,
		     struct steady *st, unsigned part, bool close, uint64_t after)
{
	size_t off = 0;
	int ret = 0;
	/* fetched from elsewhere: the loop's start, the target of a jump or a taken branch */
	bool moved = part == 0 || !s->ninsns || s->addr[0] != after;

	st->branches = st->always = st->nt_bytes = st->ind_calls = st->calls_rets = 0;
	st->self_loop = false;
	st->nfb = st->tail = 0;
	st->tail_cond = false;
	if (part == 0)
		ret = append(text, plen, pcap, ".Lloop:\n");
	for (unsigned i = 0; i < s->ninsns && !ret; off += s->len[i], i++) {
		cs_insn *in = NULL;
		bool last = i + 1 == s->ninsns;

		if (cs_disasm(cs, s->bytes + off, s->len[i], s->addr[i], 1, &in) != 1) {
			ret = append(text, plen, pcap, "nop ; undecodable\n");
			continue;
		}
		bool jump =
		    cs_insn_group(cs, in, CS_GRP_JUMP) || cs_insn_group(cs, in, CS_GRP_CALL);
		bool direct = jump && in->detail->x86.op_count == 1 &&
			      in->detail->x86.operands[0].type == X86_OP_IMM;

		if (jump || cs_insn_group(cs, in, CS_GRP_RET))
			st->branches++;
		if (cs_insn_group(cs, in, CS_GRP_CALL) && !direct)
			st->ind_calls++;
		if (cs_insn_group(cs, in, CS_GRP_CALL) || cs_insn_group(cs, in, CS_GRP_RET))
			st->calls_rets++;
		/* A non-temporal store: the bytes it writes (movnti, movntps, vmovntdq, ...; not
		 * movntdqa, a load). */
		if ((!strncmp(in->mnemonic, "movnt", 5) || !strncmp(in->mnemonic, "vmovnt", 6)) &&
		    !strstr(in->mnemonic, "ntdqa") && in->detail->x86.op_count &&
		    in->detail->x86.operands[0].type == X86_OP_MEM)
			st->nt_bytes += in->detail->x86.operands[0].size;
		/* A conditional branch ends its segment: the others are always taken. */
		bool always = (jump && !last) || (jump && in->id == X86_INS_JMP) ||
			      cs_insn_group(cs, in, CS_GRP_CALL) ||
			      cs_insn_group(cs, in, CS_GRP_RET);

		st->always += always;
		st->tail += st->tail < 255;
		if (always && st->nfb < FETCH_BLOCKS) {
			st->fb[st->nfb++] = st->tail;
			st->tail = 0;
		} else if (always) {
			unsigned n = st->fb[FETCH_BLOCKS - 1] + st->tail;

			st->fb[FETCH_BLOCKS - 1] = (unsigned char)(n < 255 ? n : 255);
			st->tail = 0;
		}
		st->tail_cond = last && jump && !always;
		if (direct && last && !cs_insn_group(cs, in, CS_GRP_CALL))
			st->self_loop = (uint64_t)in->detail->x86.operands[0].imm == s->addr[0];
		/* its length, and where in its line the part starts (the op cache's lines) */
		char len[32], ops[192];

		if (moved)
			snprintf(len, sizeof(len), " ; bytes=%u at=%u", (unsigned)s->len[i],
				 (unsigned)(s->addr[i] & 63));
		else
			snprintf(len, sizeof(len), " ; bytes=%u", (unsigned)s->len[i]);
		moved = direct && !last;
		if (direct && last && close)
			ret = append(text, plen, pcap, "%s .Lloop%s\n", in->mnemonic, len);
		else if (direct && last)
			ret = append(text, plen, pcap, "%s .Lp%u%s\n.Lp%u:\n", in->mnemonic,
				     part + 1, len, part + 1);
		else if (direct)
			ret = append(text, plen, pcap, "%s .Lj%u_%u%s\n.Lj%u_%u:\n", in->mnemonic,
				     part, i, len, part, i);
		else
			ret = append(text, plen, pcap, "%s%s%s%s\n", in->mnemonic,
				     in->op_str[0] ? " " : "", absolute_ops(in, ops, sizeof(ops)),
				     len);
		cs_free(in, 1);
	}
	return ret;
}

/* The general register that reg is part of (rax 0 ... r15 15), or -1 for any other. */
static int gpr_family(csh cs, unsigned reg)
{
	static const char *const names[16][4] = {
		{ "rax", "eax", "ax", "al" },	   { "rcx", "ecx", "cx", "cl" },
		{ "rdx", "edx", "dx", "dl" },	   { "rbx", "ebx", "bx", "bl" },
		{ "rsp", "esp", "sp", "spl" },	   { "rbp", "ebp", "bp", "bpl" },
		{ "rsi", "esi", "si", "sil" },	   { "rdi", "edi", "di", "dil" },
		{ "r8", "r8d", "r8w", "r8b" },	   { "r9", "r9d", "r9w", "r9b" },
		{ "r10", "r10d", "r10w", "r10b" }, { "r11", "r11d", "r11w", "r11b" },
		{ "r12", "r12d", "r12w", "r12b" }, { "r13", "r13d", "r13w", "r13b" },
		{ "r14", "r14d", "r14w", "r14b" }, { "r15", "r15d", "r15w", "r15b" },
	};
	const char *n = cs_reg_name(cs, reg);

	if (!n)
		return -1;
	if (!strcmp(n, "ah") || !strcmp(n, "ch") || !strcmp(n, "dh") || !strcmp(n, "bh"))
		return n[0] == 'a' ? 0 : n[0] == 'c' ? 1 : n[0] == 'd' ? 2 : 3;
	for (int r = 0; r < 16; r++)
		for (int k = 0; k < 4; k++)
			if (!strcmp(n, names[r][k]))
				return r;
	return -1;
}

/*
 * Whether one of the loads of segments segs[0..n), run in turn as a loop, takes its address
 * from a loaded value: through the general registers, from a load before it or one of the
 * pass before (a chase). Where none does, a load's miss keeps nothing after it waiting but
 * its own users, and the core goes on past it while its reorder buffer has room (charge()).
 */
static bool chased_loads(csh cs, const struct seg *const *segs, unsigned n)
{
	unsigned fed = 0; /* registers that hold a value computed from a load */

	for (unsigned pass = 0; pass < 2 * n; pass++) {
		const struct seg *s = segs[pass % n];
		size_t off = 0;

		for (unsigned i = 0; i < s->ninsns; off += s->len[i], i++) {
			cs_insn *in = NULL;

			if (cs_disasm(cs, s->bytes + off, s->len[i], s->addr[i], 1, &in) != 1)
				continue;
			const cs_x86 *x = &in->detail->x86;
			bool lea = in->id == X86_INS_LEA, loads = false, from = false;

			for (unsigned k = 0; k < x->op_count; k++) {
				const cs_x86_op *o = &x->operands[k];
				int b, ix;

				if (o->type != X86_OP_MEM || lea)
					continue;
				b = o->mem.base ? gpr_family(cs, o->mem.base) : -1;
				ix = o->mem.index ? gpr_family(cs, o->mem.index) : -1;
				if ((o->access & CS_AC_READ) &&
				    ((b >= 0 && fed >> b & 1) || (ix >= 0 && fed >> ix & 1))) {
					cs_free(in, 1);
					return true;
				}
				loads |= (o->access & CS_AC_READ) != 0;
			}
			cs_regs rd, wr;
			uint8_t nrd = 0, nwr = 0;

			if (cs_regs_access(cs, in, rd, &nrd, wr, &nwr)) {
				cs_free(in, 1);
				continue;
			}
			for (unsigned k = 0; k < nrd && !from; k++) {
				int r = gpr_family(cs, rd[k]);

				from = r >= 0 && fed >> r & 1;
			}
			/* xor or sub of a register with itself: zero, whatever it held */
			if ((in->id == X86_INS_XOR || in->id == X86_INS_SUB) && x->op_count == 2 &&
			    x->operands[0].type == X86_OP_REG &&
			    x->operands[1].type == X86_OP_REG &&
			    x->operands[0].reg == x->operands[1].reg)
				from = false;
			for (unsigned k = 0; k < nwr; k++) {
				int r = gpr_family(cs, wr[k]);

				if (r >= 0)
					fed = loads || from ? fed | 1u << r : fed & ~(1u << r);
			}
			cs_free(in, 1);
		}
	}
	return false;
}

/* The model's text for a segment alone, as a loop (lift_part). */
static int lift(csh cs, const struct seg *s, char **text, struct steady *st)
{
	size_t len = 0, cap = 256;
	int ret;

	*text = malloc(cap);
	if (!*text)
		return err_set(IPCC_ENOMEM, "lifting a segment: out of memory");
	ret = lift_part(cs, s, text, &len, &cap, st, 0, true, 0);
	st->load_fed = chased_loads(cs, &s, 1);
	if (ret) {
		free(*text);
		*text = NULL;
	}
	return ret;
}

/* A rep movs or rep stos: its element's bytes (1, 2, 4, 8); 0 for anything else. */
static unsigned rep_move_size(const unsigned char *p, size_t len)
{
	const unsigned char *end = p + len;
	bool rep = false, wide = false, half = false;

	for (; p < end && (*p == 0xf3 || *p == 0x66 || (*p >= 0x40 && *p <= 0x4f)); p++) {
		rep |= *p == 0xf3;
		half |= *p == 0x66;
		wide = *p >= 0x48 && *p <= 0x4f;
	}
	if (!rep || p + 1 != end)
		return 0;
	if (*p == 0xa4 || *p == 0xaa)
		return 1;
	if (*p == 0xa5 || *p == 0xab)
		return wide ? 8 : half ? 2 : 4;
	return 0;
}

/* Adds the comma-separated names in `more` to `names`, each once; "..." where they overflow. */
static void add_names(char *names, size_t names_len, const char *more)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", more);
	for (char *tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		char key[64], have[300];
		size_t used = strlen(names);

		snprintf(key, sizeof(key), " %s,", tok);
		snprintf(have, sizeof(have), " %s,", names);
		if (strstr(have, key))
			continue;
		if (used + strlen(tok) + 6 >= names_len) {
			if (!strstr(names, "..."))
				strcat(names, used ? ", ..." : "...");
			break;
		}
		if (used)
			strcat(names, ", ");
		strcat(names, tok);
	}
}

static void model_segment(csh cs, const struct seg *s, const struct ipcc_model_profile *p,
			  struct steady *st, char *names, size_t names_len)
{
	struct ipcc_model_program *prog = NULL;
	struct ipcc_model_error err;
	struct ipcc_model_result res = { 0 };
	char *text = NULL;
	/*
	 * About 1,000 dynamic instructions, twice a reorder buffer, 16 passes at least: the
	 * steady state of a segment alone (loops are modelled whole, trace_loop()). The figures
	 * depend on the segment's instructions and the profile alone, not on its counts, so that
	 * a segment is modelled the same while the program runs (the stream) as after it. 3,000
	 * gave bench/model_backend's programs the same cycles within 0.03% in a third more time.
	 */
	uint64_t iters = 1000 / (s->ninsns + 1);

	memset(st, 0, sizeof(*st));
	st->rep_size = s->ninsns == 1 ? rep_move_size(s->bytes, s->nbytes) : 0;
	iters = iters < 16 ? 16 : iters > 400 ? 400 : iters;
	if (lift(cs, s, &text, st) ||
	    ipcc_model_parse_mode(text, p, IPCC_MODEL_LENIENT, &prog, &err) ||
	    ipcc_model_run(prog, p,
			   &(struct ipcc_model_opts){ .iterations = iters, .warmup = iters / 2 },
			   &res) ||
	    res.summary.iterations == 0) {
		/* Not even leniently: one instruction a cycle slot, every slot retiring. */
		st->unmodelled = true;
		st->cycles = (double)s->ninsns / p->width;
		st->total = st->filled = st->issued = st->retired = s->ninsns;
		st->approximated = s->ninsns;
	} else {
		double n = (double)res.summary.iterations;
		size_t used = strlen(names);

		st->cycles = res.summary.cycles_per_iteration;
		st->total = (double)res.summary.total / n;
		st->filled = (double)res.summary.filled / n;
		st->issued = (double)res.summary.issued / n;
		st->retired = (double)res.summary.retired / n;
		/* The slots follow the cycles: the summary counts whole allocation cycles. */
		if (st->total > 0) {
			double k = st->cycles * p->width / st->total;

			st->total *= k, st->filled *= k, st->issued *= k, st->retired *= k;
		}
		/*
		 * A mispredicted branch is found out when it completes: the time it waits for
		 * its inputs and runs (a load and a test: 6 cycles), and the cycle after it
		 * (allocation resumes then), come before the profile's recovery, as the
		 * pipeline model charges it (ipcc_fit_profile fits recovery so).
		 * One pass from a cold start: the steady state's figure would hold the queueing
		 * of a loop that the program does not run (charged where the segment mispredicts).
		 */
		struct ipcc_model_result once = { 0 };

		if (!ipcc_model_run(prog, p, &(struct ipcc_model_opts){ .iterations = 1 }, &once) &&
		    once.nrows) {
			const struct ipcc_model_row *b = &once.rows[once.nrows - 1];

			st->resolve =
			    b->complete > b->scheduled ? (double)(b->complete - b->scheduled) : 0;
		}
		ipcc_model_result_release(&once);
		st->approximated = ipcc_model_program_approximated(prog, NULL, 0);
		if (st->approximated && used + 2 < names_len) {
			char more[256];

			ipcc_model_program_approximated(prog, more, sizeof(more));
			add_names(names, names_len, more);
		}
	}
	ipcc_model_result_release(&res);
	ipcc_model_program_free(prog);
	free(text);
}

/* ---- adding up ------------------------------------------------------------------------- */

/*
 * The fetch floor under a segment's cycles, over the executions s counts. Fetch follows
 * taken_per_cycle taken branches a cycle, but one branch once a cycle at most: a segment
 * takes at least its taken branches' cycles (a small loop, a chain of calls), and a loop of
 * one segment a cycle each time it jumps back to its start; a taken branch past
 * fe_line_branches in its 64-byte line fe_line_cycles more (vg_tool.c fe_refresh()). A
 * conditional branch that goes both ways: branch_mixed_cycles each time it runs, at most
 * branch_rare_cycles each time it goes its rarer way, on the floor too; a mispredicted one
 * is refetched from its right target, which the recovery pays for: only the predicted
 * count (the rarer way's share of them as of all). Charged on every run, branch.random took
 * 16.5 cycles an iteration where it measures 14.9. Where the next branch on its fall-through
 * path ends in the other 32-byte half of its line (st->apart, tseg_apart()), the profile's
 * branch_mixed_apart percent of that is saved. An indirect call comes
 * indirect_call_cycles after the one before, at the soonest. Calls and returns have a
 * floor of their own, call_floor(): a segment alone takes the larger of the two, a loop of
 * segments the larger of their sums (trace_run()).
 */
static double fetch_floor(const struct ipcc_model_profile *p, const struct seg_counts *s,
			  const struct steady *st, double per_taken, double *ind_out)
{
	double floor = 0;

	if (per_taken) {
		floor = ((double)s->execs * st->always + (double)s->taken) * per_taken;
		if (st->self_loop) {
			double back = st->always ? (double)s->execs : (double)s->taken;

			floor = back > floor ? back : floor;
		}
		floor += (double)s->fe_slow * p->fe_line_cycles;
	}
	if (s->cond > s->cond_miss && (p->branch_mixed_cycles || p->branch_rare_cycles)) {
		uint64_t rare = s->taken < s->cond - s->taken ? s->taken : s->cond - s->taken;
		double hit = (double)(s->cond - s->cond_miss) / (double)s->cond;
		double mixed = (double)(s->cond - s->cond_miss) * p->branch_mixed_cycles,
		       turns = (double)rare * hit * p->branch_rare_cycles;

		double both = mixed < turns ? mixed : turns;

		if (st->apart)
			both *= 1 - p->branch_mixed_apart / 100.0;
		floor += both;
	}
	double ind = (double)s->execs * st->ind_calls * p->indirect_call_cycles;

	if (ind_out) { /* the two apart: a loop's are summed apart (trace_run()) */
		*ind_out = ind;
		return floor;
	}
	return ind > floor ? ind : floor;
}

/*
 * What a run through the decoders takes past its own cycles: each fetch block that an
 * always-taken branch ends ceil(n / decode_width) cycles, decode_block_cycles at the least;
 * the tail n / decode_width, or as a block where its conditional branch is taken (the
 * fraction of its runs s counts). A segment can hold several fetch blocks (VEX follows
 * direct jumps): bench/op_cache's 448 blocks of 13 instructions, two a segment, took 3.5
 * cycles a block with the decoders charged once a segment, 4.0 with each block's (natively
 * 4.0-4.5).
 */
static double decoder_cycles(const struct ipcc_model_profile *p, const struct seg_counts *s,
			     const struct steady *st)
{
	unsigned w = p->decode_width, least = p->decode_block_cycles;
	double run = 0;

	for (unsigned k = 0; k < st->nfb; k++) {
		unsigned c = (st->fb[k] + w - 1) / w;

		run += c > least ? c : least;
	}
	if (st->tail) {
		double taken = st->tail_cond && s->execs ? (double)s->taken / (double)s->execs : 0;
		unsigned c = (st->tail + w - 1) / w;

		taken = taken < 1 ? taken : 1;
		run += taken * (c > least ? c : least) + (1 - taken) * st->tail / w;
	}
	return run > st->cycles ? run - st->cycles : 0;
}

/*
 * Cycles a taken branch takes in a loop whose pass takes `taken` of them and mispredicts
 * `misp` times: 1 / taken_per_cycle (0: no limit), but 1 / loop_taken_per_cycle where the
 * loop buffer holds the loop (at most loop_buffer_taken a pass), on the passes it feeds: a
 * mispredict empties the buffer, and the next loop_buffer_relock passes are fetched anew.
 */
static double taken_cycles(const struct ipcc_model_profile *p, double taken, double misp)
{
	double out = p->taken_per_cycle ? 1.0 / p->taken_per_cycle : 0;

	if (p->loop_taken_per_cycle && out && taken <= p->loop_buffer_taken) {
		double out_of = misp * p->loop_buffer_relock, in = out_of < 1 ? 1 - out_of : 0;

		out = in / p->loop_taken_per_cycle + (1 - in) * out;
	}
	return out;
}

/* Taken branches a pass of a segment takes (over the runs s counts). */
static double pass_taken(const struct seg_counts *s, const struct steady *st)
{
	return st->always + (s->execs ? (double)s->taken / (double)s->execs : 0);
}

/* ... and mispredicts */
static double pass_misp(const struct seg_counts *s)
{
	uint64_t m = s->cond_miss + s->ind_miss + s->ret_miss;

	return s->execs ? (double)m / (double)s->execs : 0;
}

/* A call or a return every call_ret_cycles / 2 at the soonest, over the executions s counts. */
static double call_floor(const struct ipcc_model_profile *p, const struct seg_counts *s,
			 const struct steady *st)
{
	return (double)s->execs * st->calls_rets * p->call_ret_cycles / 2;
}

static void charge(struct ipcc_mb_counts *c, const struct seg *seg, const struct seg_counts *s,
		   const struct steady *st, const struct ipcc_model_profile *p)
{
	double e = (double)s->execs, w = p->width;
	unsigned l1 = p->load_latency;
	double l2 = p->l2_latency > l1 ? p->l2_latency - l1 : 0;
	double l3 = p->llc_latency > l1 ? p->llc_latency - l1 : 0;
	double mem = p->dram_latency > l1 ? p->dram_latency - l1 : 0;
	uint64_t misp = s->cond_miss + s->ind_miss + s->ret_miss;

	c->instructions += s->execs * seg->ninsns;
	c->loads += s->execs * seg->loads;
	c->stores += s->execs * seg->stores;
	c->branches += s->execs * st->branches;
	c->cond_branches += s->cond;
	c->cond_taken += s->taken;
	c->indirect += s->ind;
	c->returns += s->ret;
	c->mispredicts += misp;
	c->l1d_misses += s->l1d;
	c->l2_misses += s->l2;
	c->llc_misses += s->llc;
	c->stalling_misses += s->stall_l2 + s->stall_llc + s->stall_mem;
	c->l1i_misses += s->l1i;
	c->l2i_misses += s->l2i;
	c->llci_misses += s->llci;
	c->l1i_restarts += s->l2i_restart;
	c->decoded += s->decoded;
	c->dtlb_misses += s->dtlb;
	c->btb_misses += s->btb + s->fe_full;
	c->btb2_misses += s->btb2;
	c->btb_restarts += s->btb_restart;
	c->page_walks += s->walk;
	c->itlb_misses += s->itlb;
	c->itlb_walks += s->iwalk;
	c->approximated += s->execs * st->approximated;

	double core = e * st->cycles, fe_extra = 0;
	double st_total = e * st->total, st_filled = e * st->filled, st_issued = e * st->issued,
	       st_retired = e * st->retired;
	/*
	 * Only the misses that stall: a store's, or one overlapped by an earlier, costs none.
	 * A lone one (its address from no earlier miss) in a segment none of whose loads chases
	 * (chased_loads()) keeps nothing waiting but its own users: the core goes on past it
	 * until its reorder buffer fills behind it, rob / IPC cycles at the segment's pace, and
	 * the miss costs what is left of its latency after them (the first-order model of
	 * Karkhanis and Smith, ISCA 2004). One that waited for another, or a chase's, costs
	 * its whole latency.
	 */
	double slack = !st->load_fed && seg->ninsns && st->cycles > 0
			   ? (double)p->rob * st->cycles / seg->ninsns
			   : 0;
#define COST(all, lone, lat) \
	((double)(all) * (lat) - (double)(lone) * ((double)(lat) < slack ? (double)(lat) : slack))
	double dl2 = COST(s->stall_l2, s->lone_l2, l2), dl3 = COST(s->stall_llc, s->lone_llc, l3),
	       dmem = COST(s->stall_mem, s->lone_mem, mem);
	/* A stalling load's translation, on top of where its line is served. */
	double dtlb = COST(s->stall_stlb, s->lone_stlb, p->stlb_latency) +
		      COST(s->stall_walk, s->lone_walk, p->walk_latency);
#undef COST
	/*
	 * A rep movs or stos alone: the fast-string microcode's cost per run (the profile's
	 * measured figures, by the runs' mean length), not its iterations one by one; the lines
	 * it brings in cost the bandwidth of where they come from, as back-end stall.
	 */
	double runs = (double)(s->execs + s->rep_runs);

	if (st->rep_size && p->rep_bytes_per_cycle && runs > 0) {
		double bytes = (double)(s->rep_iters + s->execs) * st->rep_size / runs;

		core = runs * ipcc_model_rep_cycles(p, st->rep_size, bytes);
		/* The microcode's micro-ops fill every slot of its cycles, and retire. */
		st_total = st_filled = st_issued = st_retired = w * core;
		dl2 = p->rep_l2_bytes_per_cycle
			  ? (double)(s->l1d - s->l2) * 64 / p->rep_l2_bytes_per_cycle
			  : 0;
		dl3 = p->rep_llc_bytes_per_cycle ? (double)s->l2 * 64 / p->rep_llc_bytes_per_cycle
						 : 0;
		dmem = 0;
	}
	/*
	 * Bandwidth: the lines L1 fills cross from L2 at l2_bytes_per_cycle, the written lines
	 * it evicts at l2_wb_bytes_per_cycle (or as fills, where a profile has none;
	 * --fit-profile measures the two apart), and the lines L2 takes from the LLC keep it
	 * busy for 64 / llc_bytes_per_cycle cycles more each (bandwidth.triad streamed from
	 * the LLC on Zen 5: its L1 lines' 4.57 cycles an iteration and 0.89 a line L2 misses,
	 * from 1.25 to 4 MiB; the two at once, not the slower alone); non-temporal
	 * stores leave for memory at nt_bytes_per_cycle; a
	 * segment takes at least their cycles, the extra on the misses' account (L2's, the
	 * LLC's or memory's), as back-end stall. (A rep movs or stos has its own figures above.)
	 */
	double paid = core + dl2 + dl3 + dmem + dtlb;

	if (p->l2_bytes_per_cycle && !st->rep_size) {
		unsigned wb_rate =
		    p->l2_wb_bytes_per_cycle ? p->l2_wb_bytes_per_cycle : p->l2_bytes_per_cycle;
		double bw =
		    (double)s->l1d * 64 / p->l2_bytes_per_cycle + (double)s->wb * 64 / wb_rate;
		/* A non-temporal store's line never comes into L2 (the tool's caches take it as
		 * a store's): bandwidth.triad_nt 4.50 cycles an iteration at 1 MiB natively. */
		double nt_lines = e * st->nt_bytes / 64, fills = (double)s->l2;
		double bw3 = p->llc_bytes_per_cycle ? (fills > nt_lines ? fills - nt_lines : 0) *
							  64 / p->llc_bytes_per_cycle
						    : 0;

		if (bw + bw3 > paid) {
			double extra = bw + bw3 - paid, from_llc = extra < bw3 ? extra : bw3;

			dl3 += from_llc;
			dl2 += extra - from_llc;
			paid = bw + bw3;
		}
	}
	if (p->nt_bytes_per_cycle && st->nt_bytes) {
		double bw = e * st->nt_bytes / p->nt_bytes_per_cycle;

		if (bw > paid)
			dmem += bw - paid;
	}
	/*
	 * The fetch floor: a segment alone takes at least its own (front-end stall); one that
	 * takes a share of its loop's cycles has the loop's in them (trace_run()).
	 */
	double floor = 0;

	if (!st->floor_in) {
		double calls = call_floor(p, s, st);

		/* a loop of one segment alone may run from the loop buffer, nothing else */
		double per =
		    taken_cycles(p, st->self_loop ? pass_taken(s, st) : INFINITY, pass_misp(s));

		floor = fetch_floor(p, s, st, per, NULL);
		floor = calls > floor ? calls : floor;
	}

	if (floor > core) {
		fe_extra = floor - core;
		core = floor;
	}
	/*
	 * An instruction fetch that hits L2 is mostly hidden: the decoupled front end prefetches
	 * along the predicted path (fitted on xz, gzip, bzip2 and sqlite3: charging it
	 * l2_latency put sqlite3's cycles 70% over); what it does not hide is l1i_l2_cycles a
	 * line. One that misses L2 costs where it is served, and so does the next line the
	 * L1i prefetcher asks L2 for and L2 misses, used or not (vg_tool.c fetch_line(): a
	 * rule), which l2i counts beside the fetches that missed L1i.
	 */
	double ic = (double)(s->l2i - s->llci) * p->llc_latency + (double)s->llci * p->dram_latency;
	uint64_t from_l2 = s->l1i > s->l2i ? s->l1i - s->l2i : 0;

	from_l2 = from_l2 > s->l2i_restart ? from_l2 - s->l2i_restart : 0;
	double from_l2_cycles = (double)from_l2 * p->l1i_l2_cycles;

	/*
	 * Except where it restarts after a mispredict: nothing fetched that line ahead, and the
	 * refill waits for L2 where it would have had L1i (vg_tool.c on_enter()). A call through
	 * a table at random, to 1,024 functions 128 bytes apart (128 KiB of code), on Zen 5:
	 * 7-8 cycles a call more than to 256 (32 KiB), three of four calls missing L1i.
	 */
	ic += (double)s->l2i_restart * l2;

	/*
	 * A run the op cache did not hold comes through the decoders (decoder_cycles(): each
	 * fetch block's). What that takes past the run's own cycles is front-end stall; the
	 * lines L2 serves it meanwhile cost no more (bench/op_cache on Zen 5: 1,024 blocks of
	 * eight ops, a line each, past L1i and the op cache, 2.0 cycles a block).
	 */
	double dec = 0;

	if (s->decoded && p->decode_width && s->execs)
		dec = (double)s->decoded * decoder_cycles(p, s, st);
	ic += from_l2_cycles > dec ? from_l2_cycles - dec : 0;

	/*
	 * A code page the instruction TLB misses stops the fetch until the second level, or a
	 * walk, gives its translation: the front end cannot run ahead of it as it does of a
	 * line from L2.
	 */
	ic += (double)(s->itlb - s->iwalk) * p->itlb_miss_cycles +
	      (double)s->iwalk * p->itlb_walk_cycles;
	double bad = (double)misp * (p->recovery + st->resolve + 1);
	/*
	 * A taken branch whose target the branch-target buffer missed, or that has no entry in
	 * it (past fe_half_branches in its 32 bytes): front-end stall.
	 */
	double btb = (double)(s->btb + s->btb_restart) * p->btb_miss_cycles +
		     (double)s->fe_full * p->fe_half_cycles + (double)s->btb2 * p->btb2_miss_cycles;

	c->core_cycles += core;
	c->l2_hit_cycles += dl2;
	c->llc_hit_cycles += dl3;
	c->memory_cycles += dmem;
	c->tlb_cycles += dtlb;
	c->icache_cycles += ic;
	c->decode_cycles += dec;
	c->btb_cycles += btb;
	c->mispredict_cycles += bad;
	c->cycles += core + dl2 + dl3 + dmem + dtlb + ic + dec + btb + bad;
	/* Slots: the steady state's, then each penalty's cycles where they belong. */
	c->slots_total +=
	    st_total + w * (dl2 + dl3 + dmem + dtlb + ic + dec + btb + bad + fe_extra);
	c->slots_filled += st_filled + w * (dl2 + dl3 + dmem + dtlb + bad);
	c->slots_issued += st_issued + w * bad;
	c->slots_retired += st_retired;
}

/* The functions met so far: r->fn's room, and an index of it by name and object. */
struct fn_table {
	size_t cap;
	unsigned *slot; /* an index into r->fn, plus one; 0: empty (open addressing) */
	size_t nslot;	/* a power of two, over twice the functions */
};

static size_t fn_hash(const char *name, const char *obj)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a over both, the NUL between them too */

	for (const char *c = name;; c++) {
		h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
		if (!*c)
			break;
	}
	for (const char *c = obj; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
	return (size_t)h;
}

/* Where (name, obj) is or would go in t->slot. */
static size_t fn_probe(const struct ipcc_mb_result *r, const struct fn_table *t, const char *name,
		       const char *obj)
{
	size_t h = fn_hash(name, obj) & (t->nslot - 1);

	while (t->slot[h]) {
		const struct ipcc_mb_function *f = &r->fn[t->slot[h] - 1];

		if (!strcmp(f->name, name) && !strcmp(f->object, obj))
			break;
		h = (h + 1) & (t->nslot - 1);
	}
	return h;
}

/* The index of (name, obj) in r->fn, added where new; -1: out of memory. */
static int fn_index(struct ipcc_mb_result *r, struct fn_table *t, const char *name, const char *obj)
{
	if (2 * (r->nfn + 1) > t->nslot) {
		size_t n = t->nslot ? t->nslot * 2 : 1024;
		unsigned *old = t->slot;
		size_t nold = t->nslot;

		if (!(t->slot = calloc(n, sizeof(*t->slot)))) {
			t->slot = old;
			return -1;
		}
		t->nslot = n;
		for (size_t i = 0; i < nold; i++)
			if (old[i])
				t->slot[fn_probe(r, t, r->fn[old[i] - 1].name,
						 r->fn[old[i] - 1].object)] = old[i];
		free(old);
	}
	size_t h = fn_probe(r, t, name, obj);

	if (t->slot[h])
		return (int)t->slot[h] - 1;
	if (r->nfn == t->cap) {
		size_t n = t->cap ? t->cap * 2 : 64;
		struct ipcc_mb_function *g = realloc(r->fn, n * sizeof(*g));

		if (!g)
			return -1;
		r->fn = g;
		t->cap = n;
	}
	struct ipcc_mb_function *f = &r->fn[r->nfn];

	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	f->object = strdup(obj);
	if (!f->name || !f->object) {
		free(f->name);
		free(f->object);
		return -1;
	}
	t->slot[h] = (unsigned)++r->nfn;
	return (int)r->nfn - 1;
}

/* ---- reading one file ------------------------------------------------------------------ */

static int parse_cache(const char *line, struct ipcc_mb_caches *c)
{
	char name[8];
	uint64_t size;
	unsigned assoc, ln;
	struct ipcc_mb_cache *k = NULL;

	if (sscanf(line, "cache %7s %" SCNu64 " %u %u", name, &size, &assoc, &ln) != 4)
		return -1;
	if (!strcmp(name, "l1d"))
		k = &c->l1d;
	else if (!strcmp(name, "l1i"))
		k = &c->l1i;
	else if (!strcmp(name, "l2"))
		k = &c->l2;
	else if (!strcmp(name, "ll"))
		k = &c->llc;
	else if (!strcmp(name, "dtlb"))
		k = &c->dtlb;
	else if (!strcmp(name, "stlb"))
		k = &c->stlb;
	else if (!strcmp(name, "itlb"))
		k = &c->itlb;
	else if (!strcmp(name, "btb"))
		k = &c->btb;
	else if (!strcmp(name, "btb2"))
		k = &c->btb2;
	if (!k)
		return -1;
	k->size = size, k->assoc = assoc, k->line = ln;
	return 0;
}

/* A segment's events, in the tool's order (execs are read before). */
static int read_counts(const char *p, struct seg_counts *c)
{
	uint64_t *v[] = { &c->l1d,	  &c->l2,	   &c->llc,	    &c->l1i,
			  &c->l2i,	  &c->llci,	   &c->cond,	    &c->taken,
			  &c->cond_miss,  &c->ind,	   &c->ind_miss,    &c->ret,
			  &c->ret_miss,	  &c->stall_l2,	   &c->stall_llc,   &c->stall_mem,
			  &c->rep_iters,  &c->rep_runs,	   &c->dtlb,	    &c->walk,
			  &c->stall_stlb, &c->stall_walk,  &c->wb,	    &c->btb,
			  &c->fe_slow,	  &c->fe_full,	   &c->btb2,	    &c->itlb,
			  &c->iwalk,	  &c->faults,	   &c->syscalls,    &c->bytes,
			  &c->lone_l2,	  &c->lone_llc,	   &c->lone_mem,    &c->lone_stlb,
			  &c->lone_walk,  &c->l2i_restart, &c->btb_restart, &c->file_faults,
			  &c->decoded,	  &c->touches };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char *end;

		while (*p == ' ')
			p++;
		if (!isdigit((unsigned char)*p))
			return -1;
		*v[i] = strtoull(p, &end, 10);
		p = end;
	}
	return 0;
}

static int read_seg_line(char *line, struct seg *s)
{
	char *tab = strchr(line, '\t'), *tab2;

	if (!tab || !(tab2 = strchr(tab + 1, '\t')))
		return -1;
	*tab = *tab2 = 0;
	tab2[strcspn(tab2 + 1, "\n") + 1] = 0;
	int used = 0;

	if (sscanf(line, "S %" SCNu64 " %u %u %u %n", &s->c.execs, &s->ninsns, &s->loads,
		   &s->stores, &used) != 4 ||
	    !used || read_counts(line + used, &s->c) || s->ninsns == 0 || s->ninsns > 4096)
		return -1;
	s->fn = strdup(tab + 1);
	s->obj = strdup(tab2 + 1);
	s->addr = calloc(s->ninsns, sizeof(*s->addr));
	s->len = calloc(s->ninsns, 1);
	s->bytes = malloc((size_t)s->ninsns * 16);
	return s->fn && s->obj && s->addr && s->len && s->bytes ? 0 : -2;
}

static int read_insn_line(const char *line, struct seg *s, unsigned i)
{
	char *end;
	const char *h;
	size_t n = 0;

	if (strncmp(line, "I ", 2))
		return -1;
	s->addr[i] = strtoull(line + 2, &end, 16);
	if (*end != ' ')
		return -1;
	for (h = end + 1; isxdigit((unsigned char)h[0]) && isxdigit((unsigned char)h[1]); h += 2)
		s->bytes[s->nbytes + n++] = (unsigned char)(hexval(h[0]) * 16 + hexval(h[1]));
	if (n == 0 || n > 15)
		return -1;
	s->len[i] = (unsigned char)n;
	s->nbytes += n;
	return 0;
}

/* The region paths of one file: path id -> its parent and its region. */
struct paths {
	struct {
		unsigned parent;
		size_t region;
	} * p;
	size_t n; /* ids 1 .. n-1 are known */
};

static int region_index(struct ipcc_mb_result *r, const char *name)
{
	for (size_t i = 0; i < r->nregion; i++)
		if (!strcmp(r->region[i].name, name))
			return (int)i;
	struct ipcc_mb_region *g = realloc(r->region, (r->nregion + 1) * sizeof(*g));

	if (!g)
		return -1;
	r->region = g;
	memset(&g[r->nregion], 0, sizeof(*g));
	if (!(g[r->nregion].name = strdup(name)))
		return -1;
	return (int)r->nregion++;
}

/* "region ID PARENT CALLS<TAB>NAME": a path, after its parent's. */
static int read_region_line(char *line, struct ipcc_mb_result *r, struct paths *ps)
{
	unsigned id, parent;
	uint64_t calls;
	char *tab = strchr(line, '\t');
	int k;

	if (!tab || sscanf(line, "region %u %u %" SCNu64, &id, &parent, &calls) != 3 ||
	    id != ps->n || parent >= id || id > 1u << 20)
		return -1;
	tab[1 + strcspn(tab + 1, "\n")] = 0;
	if ((k = region_index(r, tab + 1)) < 0)
		return -2;
	void *g = realloc(ps->p, (id + 1) * sizeof(*ps->p));

	if (!g)
		return -2;
	ps->p = g;
	ps->p[id].parent = parent;
	ps->p[id].region = (size_t)k;
	ps->n = id + 1;
	r->region[k].calls += calls;
	return 0;
}

/*
 * A process's or a region's kernel part: the counts, and their cycles at p's costs (a
 * file's fault, which maps the 64 KiB around its page, at file_fault_cycles where the
 * profile has them; the program's first touch of a page a system call faulted in, at
 * kernel_page_touch_cycles, where the tool counted them: --ipcc-kernel-touch).
 */
static void kernel_add(struct ipcc_mb_kernel *k, const struct ipcc_model_profile *p,
		       uint64_t faults, uint64_t file_faults, uint64_t calls, uint64_t bytes,
		       uint64_t touches)
{
	unsigned file_cost = p->file_fault_cycles ? p->file_fault_cycles : p->fault_cycles;

	file_faults = file_faults < faults ? file_faults : faults;
	k->faults += faults;
	k->file_faults += file_faults;
	k->syscalls += calls;
	k->bytes += bytes;
	k->touches += touches;
	if (p->fault_cycles)
		k->cycles +=
		    (double)touches * p->kernel_page_touch_cycles +
		    (double)(faults - file_faults) * p->fault_cycles +
		    (double)file_faults * file_cost + (double)calls * p->syscall_cycles +
		    (p->syscall_bytes_per_cycle ? (double)bytes / p->syscall_bytes_per_cycle : 0);
}

/*
 * "kernel FAULTS SYSCALLS BYTES FILE_FAULTS TOUCHES": the process's kernel part, added to k; and, in
 * the file of a process's last image (not one an exec replaced: exec), its start and end
 * (a fork or spawn, the exec, the exit and the wake-up of the parent that reaps it).
 */
static int read_kernel_line(const char *line, const struct ipcc_model_profile *p,
			    struct ipcc_mb_kernel *k, bool exec)
{
	uint64_t faults, calls, bytes, file, touches;

	if (sscanf(line, "kernel %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, &faults,
		   &calls, &bytes, &file, &touches) != 5)
		return -1;
	kernel_add(k, p, faults, file, calls, bytes, touches);
	if (!exec) {
		k->processes++;
		if (p->fault_cycles)
			k->cycles += p->process_cycles;
	}
	return 0;
}

/*
 * The regions on path id, each once (a region inside itself, by recursion, is on its path
 * more than once): their indexes in out, how many.
 */
static size_t path_regions(const struct paths *ps, unsigned id, size_t out[64])
{
	size_t n = 0;

	for (unsigned q = id; q && n < 64; q = ps->p[q].parent) {
		size_t k = ps->p[q].region, i;

		for (i = 0; i < n && out[i] != k; i++)
			;
		if (i == n)
			out[n++] = k;
	}
	return n;
}

/*
 * "RK ID FAULTS SYSCALLS BYTES FILE_FAULTS TOUCHES": the kernel's part while path ID was the
 * innermost open.
 */
static int read_region_kernel(const char *line, const struct ipcc_model_profile *p,
			      struct ipcc_mb_result *r, const struct paths *ps)
{
	size_t on[64];
	unsigned id;
	uint64_t f, c, b, ff, t;

	if (sscanf(line, "RK %u %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, &id, &f,
		   &c, &b, &ff, &t) != 6 ||
	    id == 0 || id >= ps->n)
		return -1;
	for (size_t i = 0, n = path_regions(ps, id, on); i < n; i++)
		kernel_add(&r->region[on[i]].kernel, p, f, ff, c, b, t);
	return 0;
}

/* "R ID EXECS EVENTS...": what the segment before counted under path ID, each region's. */
static int read_path_counts(const char *line, const struct seg *s, const struct steady *st,
			    const struct ipcc_model_profile *p, struct ipcc_mb_result *r,
			    const struct paths *ps)
{
	struct seg_counts c = { 0 };
	size_t on[64];
	unsigned id;
	int used = 0;

	if (sscanf(line, "R %u %" SCNu64 " %n", &id, &c.execs, &used) != 2 || !used ||
	    read_counts(line + used, &c) || id == 0 || id >= ps->n)
		return -1;
	for (size_t i = 0, n = path_regions(ps, id, on); i < n; i++)
		charge(&r->region[on[i]].c, s, &c, st, p);
	return 0;
}

/* ---- traces: a segment in its hot loop ------------------------------------------------ */

/* One segment of a file, for the traces: its code and where the program went after it. */
struct tseg {
	struct seg s;
	unsigned succ[2]; /* ids (1, 2, ... in file order); 0: none */
	uint64_t succ_n[2];
	unsigned pred[2]; /* the segments it was entered from most often */
	uint64_t pred_n[2];
	bool apart;  /* the next branch on its fall-through path: tseg_apart() */
	bool done;   /* its loop was looked for */
	bool looped; /* ... and found, or its context modelled: the figures below are its share */
	bool fed;    /* a loop it is on chases (chased_loads()) */
	double cycles, total, filled, issued, retired; /* a pass, its share of the loop's */
};

struct traces {
	struct tseg *t;
	size_t n;
};

static void traces_free(struct traces *tr)
{
	for (size_t i = 0; i < tr->n; i++)
		seg_free(&tr->t[i].s);
	free(tr->t);
	tr->t = NULL;
	tr->n = 0;
}

/*
 * Whether the next branch after segment t's last instruction, where it falls through, ends in
 * the other 32-byte half of the line that holds that instruction's last byte: the fall-through
 * successor's last instruction (the tool cuts segments at branches). A branch that goes both
 * ways costs the front end less there (fetch_floor()): one jz on a pattern beside the loop's
 * jnz, taken every other iteration, ran at 2.50 cycles an iteration with both in one half
 * and 1.83-2.00 with them in two halves of a line, at every start of the loop in its line
 * (bench/front_end.c; docs/internals/model-backend.md, stop 51).
 */
static bool tseg_apart(const struct traces *tr, const struct tseg *t)
{
	const struct seg *s = &t->s;

	if (!s->ninsns)
		return false;
	uint64_t end = s->addr[s->ninsns - 1] + s->len[s->ninsns - 1];

	for (int j = 0; j < 2; j++) {
		if (!t->succ[j] || t->succ[j] > tr->n)
			continue;
		const struct seg *f = &tr->t[t->succ[j] - 1].s;

		if (!f->ninsns || f->addr[0] != end)
			continue;
		uint64_t b = end - 1, q = f->addr[f->ninsns - 1] + f->len[f->ninsns - 1] - 1;

		return b >> 6 == q >> 6 && b >> 5 != q >> 5;
	}
	return false;
}

/*
 * Every segment of the file, its successors and predecessors (the tool's N lines); none
 * where the file is malformed (account_file's reading reports it).
 */
static int traces_read(const char *path, struct traces *tr)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, room = 0;
	ssize_t n;
	int ret = 0;

	if (!f)
		return err_sys("cannot read '%s'", path);
	while (!ret && (n = getline(&line, &cap, f)) > 0) {
		if (!strncmp(line, "S ", 2)) {
			if (tr->n == room) {
				room = room ? 2 * room : 1024;
				struct tseg *g = realloc(tr->t, room * sizeof(*g));

				if (!g) {
					ret = -2;
					break;
				}
				tr->t = g;
			}
			struct tseg *t = &tr->t[tr->n++];

			memset(t, 0, sizeof(*t));
			ret = read_seg_line(line, &t->s);
			for (unsigned i = 0; !ret && i < t->s.ninsns; i++)
				if (getline(&line, &cap, f) <= 0 || read_insn_line(line, &t->s, i))
					ret = -1;
		} else if (!strncmp(line, "N ", 2) && tr->n) {
			struct tseg *t = &tr->t[tr->n - 1];

			if (sscanf(line,
				   "N %u %" SCNu64 " %u %" SCNu64 " %u %" SCNu64 " %u %" SCNu64,
				   &t->succ[0], &t->succ_n[0], &t->succ[1], &t->succ_n[1],
				   &t->pred[0], &t->pred_n[0], &t->pred[1], &t->pred_n[1]) != 8)
				ret = -1;
		}
	}
	free(line);
	fclose(f);
	if (ret == -2)
		return err_set(IPCC_ENOMEM, "reading '%s': out of memory", path);
	if (ret)
		traces_free(tr); /* no traces: the reading proper says what is wrong */
	for (size_t i = 0; i < tr->n; i++)
		tr->t[i].apart = tseg_apart(tr, &tr->t[i]);
	return 0;
}

/*
 * How far a walk goes for a segment's loop or context. 8 left a hot segment of a loop of
 * more segments alone, carrying its chains into its own next pass: glibc memcmp's last
 * segment (tzcnt eax, eax; byte loads from [rsi + rax] and [rdi + rax]; sub; ret) at 9
 * cycles a call in python3's sort, whose eax comes fresh from the segment before it;
 * tests/cli/model_traces.c (13 segments; model_branches.sh) 15.5 cycles an iteration under
 * goldencove, 8.5 now, 6.75 natively. The eight programs of bench/model_backend gain nothing
 * past 64.
 */
#define TRACE_MAX	  64
#define CONTEXT_MIN_EXECS 1000 /* colder segments keep their own steady state */

/* A loop of segments' model: a pass's cycles and four slot counters (ok: it ran). */
struct trace_result {
	bool ok;
	bool fed; /* one of the loop's loads chases (chased_loads()) */
	double cycles, total, filled, issued, retired; /* a pass, the pipeline's */
	unsigned insns;
	double floor[TRACE_MAX]; /* each segment's fetch floor, over all its runs */
};

/* The pipeline model over segments ids[0..len) as one loop: a pass's figures into out. */
static void trace_run(csh cs, const struct ipcc_model_profile *p, const struct traces *tr,
		      const unsigned *ids, unsigned len, struct trace_result *out)
{
	size_t tlen = 0, cap = 1024;
	char *text = malloc(cap);
	struct steady sts[TRACE_MAX];
	unsigned insns = 0;
	int ret = text ? 0 : -1;
	double calls[TRACE_MAX], inds[TRACE_MAX], fetch = 0, call = 0, ind = 0, taken = 0, misp = 0;

	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < len && !ret; i++) {
		const struct seg *s = &tr->t[ids[i] - 1].s;

		const struct seg *prev = i ? &tr->t[ids[i - 1] - 1].s : NULL;
		uint64_t after = prev && prev->ninsns
				     ? prev->addr[prev->ninsns - 1] + prev->len[prev->ninsns - 1]
				     : 0;

		ret = lift_part(cs, s, &text, &tlen, &cap, &sts[i], i, i + 1 == len, after);
		sts[i].apart = tr->t[ids[i] - 1].apart;
		insns += s->ninsns;
		taken += pass_taken(&s->c, &sts[i]);
		misp += pass_misp(&s->c);
	}
	/* The loop runs from the loop buffer, or not, as a whole (taken_cycles()). */
	double per = taken_cycles(p, taken, misp);

	for (unsigned i = 0; i < len && !ret; i++) {
		const struct seg *s = &tr->t[ids[i] - 1].s;

		out->floor[i] = fetch_floor(p, &s->c, &sts[i], per, &inds[i]);
		calls[i] = call_floor(p, &s->c, &sts[i]);
		fetch += out->floor[i];
		call += calls[i];
		ind += inds[i];
	}
	const struct seg *segs[TRACE_MAX];

	for (unsigned i = 0; i < len; i++)
		segs[i] = &tr->t[ids[i] - 1].s;
	out->fed = !ret && chased_loads(cs, segs, len);
	/*
	 * The loop's floor: its taken branches', its indirect calls' or its calls' and
	 * returns', whichever binds, spread as they lie (ipcc bench call.pointer: the call
	 * through a register 4 cycles after the one before, its return and the loop's branch
	 * in them).
	 */
	for (unsigned i = 0; i < len && !ret && (call > fetch || ind > fetch); i++)
		out->floor[i] = call > ind ? calls[i] : inds[i];
	struct ipcc_model_program *prog = NULL;
	struct ipcc_model_error err;
	struct ipcc_model_result res = { 0 };
	uint64_t iters = 3000 / (insns + 1);

	iters = iters < 16 ? 16 : iters > 400 ? 400 : iters;
	if (!ret && !ipcc_model_parse_mode(text, p, IPCC_MODEL_LENIENT, &prog, &err) &&
	    !ipcc_model_run(prog, p,
			    &(struct ipcc_model_opts){ .iterations = iters, .warmup = iters / 2 },
			    &res) &&
	    res.summary.iterations && res.summary.total) {
		double n = (double)res.summary.iterations, c = res.summary.cycles_per_iteration;
		double kk = c * p->width / ((double)res.summary.total / n);

		out->ok = true;
		out->insns = insns;
		out->cycles = c;
		out->total = (double)res.summary.total / n * kk;
		out->filled = (double)res.summary.filled / n * kk;
		out->issued = (double)res.summary.issued / n * kk;
		out->retired = (double)res.summary.retired / n * kk;
	}
	ipcc_model_result_release(&res);
	ipcc_model_program_free(prog);
	free(text);
}

/*
 * Each segment of the loop takes its share of r by its instructions (`only`: that one
 * alone), unless a loop stored before gave it one. The fetch floor (fetch_floor()) is the
 * loop's, not each segment's under its share, which would leave out that the loop's other
 * segments' work overlaps it: perl's dispatch (runops, `call [rax+16]` and three more
 * instructions) took its two cycles an indirect call on top of every op's. Where the
 * segments that take their shares here have floors above their cycles in all, each takes
 * the difference by its floor, as front-end stall (slots total, none filled); `only` is
 * measured by its loop's pass (each segment's floor a run of it) against the pass's cycles.
 */
static void trace_store(struct traces *tr, const unsigned *ids, unsigned len, unsigned only,
			const struct trace_result *r, unsigned width)
{
	double floor = 0, cycles = 0, pass = 0;
	bool mine[TRACE_MAX] = { false }; /* its share is this loop's */

	for (unsigned i = 0; r->ok && i < len; i++) {
		struct tseg *t = &tr->t[ids[i] - 1];
		double share = (double)t->s.ninsns / r->insns;

		if (t->s.c.execs)
			pass += r->floor[i] / (double)t->s.c.execs;
		if (!only || ids[i] == only)
			t->fed |= r->fed;
		if ((only && ids[i] != only) || t->looped) /* only: others' are theirs */
			continue;
		t->done = t->looped = mine[i] = true;
		t->cycles = r->cycles * share;
		t->total = r->total * share;
		t->filled = r->filled * share;
		t->issued = r->issued * share;
		t->retired = r->retired * share;
		floor += r->floor[i];
		cycles += t->cycles * (double)t->s.c.execs;
	}
	if (!r->ok)
		return;
	for (unsigned i = 0; i < len; i++) {
		struct tseg *t = &tr->t[ids[i] - 1];
		double extra;

		if (only) {
			if (ids[i] != only || pass <= r->cycles)
				continue;
			extra = (pass - r->cycles) * t->s.ninsns / r->insns;
		} else {
			if (floor <= cycles || !mine[i] || !t->s.c.execs)
				continue;
			extra = (floor - cycles) * r->floor[i] / floor / (double)t->s.c.execs;
		}
		t->cycles += extra;
		t->total += extra * width;
	}
}

/*
 * The pipeline model over segments ids[0..len) as one loop; each of them (only, where
 * nonzero: just that one) takes a share of the loop's cycles and slots by its instructions,
 * unless a loop found before gave it one.
 */
static void trace_model(csh cs, const struct ipcc_model_profile *p, struct traces *tr,
			const unsigned *ids, unsigned len, unsigned only)
{
	struct trace_result r;

	trace_run(cs, p, tr, ids, len, &r);
	trace_store(tr, ids, len, only, &r, p->width);
}

/*
 * Segment k (1-based) in its hot loop. A segment modelled alone as a loop keeps the
 * dependency chains it carries from one pass to the next, and none of its neighbours' work
 * overlaps them: a loop of two segments that carries a one-cycle chain in one of them and
 * other work in the other costs both under that model (ipcc bench branch.always: 1.58
 * cycles modelled, 1.08-1.10 measured). Where the program's most frequent successors from
 * k (each taken at least half the time) come back to k within TRACE_MAX segments, the
 * pipeline model runs that loop whole, and each of its segments takes a share of the
 * loop's cycles and slots by its instructions; the loop is run once for all of them.
 */
static unsigned trace_walk(struct traces *tr, unsigned k, unsigned *ids)
{
	unsigned len = 1;
	struct tseg *me = &tr->t[k - 1];

	if (me->done)
		return 0;
	ids[0] = k;
	me->done = true;
	for (unsigned c = k;;) {
		const struct tseg *t = &tr->t[c - 1];
		unsigned next = t->succ[0];
		bool seen = false;

		if (!next || next > tr->n || 2 * t->succ_n[0] < t->s.c.execs)
			return 0;
		/* back to k by the other successor, taken a third of the time or more */
		if (next == k || (t->succ[1] == k && 3 * t->succ_n[1] >= t->s.c.execs))
			break;
		for (unsigned i = 0; i < len; i++)
			seen |= ids[i] == next;
		/*
		 * Back into the loop elsewhere: the other successor, taken a third of the
		 * time or more, may lead back to k (k itself was tried above)
		 */
		if (seen && t->succ[1] && t->succ[1] <= tr->n && 3 * t->succ_n[1] >= t->s.c.execs) {
			next = t->succ[1];
			seen = false;
			for (unsigned i = 0; i < len; i++)
				seen |= ids[i] == next;
		}
		if (seen || len == TRACE_MAX)
			return 0;
		ids[len++] = c = next;
	}
	return len >= 2 ? len : 0;
}

static void trace_loop(csh cs, const struct ipcc_model_profile *p, struct traces *tr, unsigned k)
{
	unsigned ids[TRACE_MAX], len = trace_walk(tr, k, ids);

	if (len)
		trace_model(cs, p, tr, ids, len, 0);
}

static int parallel(size_t n, int (*fn)(csh, size_t, void *), void *arg);

/* The loops found, for their models in parallel (trace_loops()). */
struct loops {
	const struct ipcc_model_profile *p;
	struct traces *tr;
	unsigned *ids; /* each loop's segments, one loop after another */
	size_t *first; /* where each loop's begin in ids */
	unsigned *len;
	struct trace_result *res;
	size_t n, cap, nids, idcap;
};

static int loop_one(csh cs, size_t i, void *arg)
{
	struct loops *l = arg;

	trace_run(cs, l->p, l->tr, l->ids + l->first[i], l->len[i], &l->res[i]);
	return !l->res[i].ok;
}

static bool loops_add(struct loops *l, const unsigned *ids, unsigned len)
{
	if (l->n == l->cap) {
		size_t n = l->cap ? l->cap * 2 : 256;
		size_t *first = realloc(l->first, n * sizeof(*first));
		unsigned *lens = first ? realloc(l->len, n * sizeof(*lens)) : NULL;

		if (first)
			l->first = first;
		if (lens)
			l->len = lens;
		if (!first || !lens)
			return false;
		l->cap = n;
	}
	if (l->nids + len > l->idcap) {
		size_t n = (l->idcap + len) * 2;
		unsigned *g = realloc(l->ids, n * sizeof(*g));

		if (!g)
			return false;
		l->ids = g;
		l->idcap = n;
	}
	memcpy(l->ids + l->nids, ids, len * sizeof(*ids));
	l->first[l->n] = l->nids;
	l->len[l->n++] = len;
	l->nids += len;
	return true;
}

/*
 * Every segment's loop (trace_loop()) in the file's order, as one after another would find
 * and store them, the models run in parallel: a walk depends on the loops before it only
 * through the segments they took, all of theirs where each model runs. Where one does not
 * (or memory runs out), the loops are found and modelled again one after another.
 */
static void trace_loops(csh cs, const struct ipcc_model_profile *p, struct traces *tr)
{
	struct loops l = { .p = p, .tr = tr };
	bool ok = true;

	for (unsigned k = 1; k <= tr->n && ok; k++) {
		unsigned ids[TRACE_MAX], len = trace_walk(tr, k, ids);

		if (len && (ok = loops_add(&l, ids, len)))
			for (unsigned i = 0; i < len; i++)
				tr->t[ids[i] - 1].done = true;
	}
	ok = ok && (l.res = calloc(l.n ? l.n : 1, sizeof(*l.res))) != NULL &&
	     !(l.n && parallel(l.n, loop_one, &l));
	if (ok)
		for (size_t i = 0; i < l.n; i++)
			trace_store(tr, l.ids + l.first[i], l.len[i], 0, &l.res[i], p->width);
	else {
		for (size_t k = 0; k < tr->n; k++)
			tr->t[k].done = tr->t[k].looped = false;
		for (unsigned k = 1; k <= tr->n; k++)
			trace_loop(cs, p, tr, k);
	}
	free(l.ids);
	free(l.first);
	free(l.len);
	free(l.res);
}

/* Whether segment s ends with a call through a register or memory (ff /2, after prefixes). */
static bool seg_icall(const struct seg *s)
{
	if (!s->ninsns)
		return false;
	size_t off = s->nbytes - s->len[s->ninsns - 1];
	const unsigned char *b = s->bytes + off, *e = s->bytes + s->nbytes;

	while (b < e && ((*b >= 0x40 && *b <= 0x4f) || *b == 0x66 || *b == 0x67 || *b == 0x2e ||
			 *b == 0x3e || *b == 0xf2 || *b == 0x64 || *b == 0x65))
		b++;
	return b + 1 < e && b[0] == 0xff && ((b[1] >> 3) & 7) == 2;
}

static bool among(const unsigned *ids, unsigned n, unsigned id)
{
	for (unsigned i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/*
 * A hot segment on no loop of segments (no successor taken half the time leads back to it):
 * its most likely loop, modelled for it alone. From k the walk follows each segment's most
 * frequent successor, however rarely taken, and closes where it reaches the segment k is
 * most often entered from (at least half its entries) or one whose two most frequent
 * successors hold k, within TRACE_MAX segments; k takes its share of that loop. Alone as a
 * loop, a segment carries its chains from one pass into the next with nothing to overlap
 * them: an indirect call to one of eight functions (bench/branch_patterns indirect, each
 * callee a segment that adds to a sum in memory) was modelled at 10.7 cycles an
 * iteration, 7.7 measured; so, 7.0. A walk that has passed a call through a register or
 * memory (an interpreter's dispatch, whose callees outnumber the two successors the tool
 * keeps) closes where it meets itself, as the loop of one op: perl's ops otherwise came
 * back to runops, met it, and were modelled alone, carrying chains that each op starts
 * anew (tests/cli/model_traces.c interp: 16.0 cycles an iteration alone, 3.95 so, 7.2
 * natively; perl +17.7% -> +12.6%, python3 +6.6% -> -0.3%, gcc -8.6% -> -10.4%, stop 51).
 * Through an indirect jmp (a switch's table: sqlite3's VDBE) the same closure took sqlite3
 * 18% under (stop 50): those walks do not close. Where no loop is found, k keeps its own.
 */
static void trace_context(csh cs, const struct ipcc_model_profile *p, struct traces *tr, unsigned k)
{
	unsigned ids[TRACE_MAX], len = 1;
	const struct tseg *me = &tr->t[k - 1];
	unsigned from = 2 * me->pred_n[0] >= me->s.c.execs ? me->pred[0] : 0;

	if (me->looped || me->s.c.execs < CONTEXT_MIN_EXECS)
		return;
	ids[0] = k;
	bool icall = false;
	for (unsigned c = k;;) {
		const struct tseg *t = &tr->t[c - 1];

		icall |= seg_icall(&t->s);
		if (c == from || t->succ[0] == k || t->succ[1] == k)
			break;
		/* through a call through a register or memory: closed where it meets itself */
		if (icall && t->succ[0] && t->succ[0] <= tr->n && among(ids, len, t->succ[0]))
			break;
		if (!t->succ[0] || t->succ[0] > tr->n || among(ids, len, t->succ[0]) ||
		    len == TRACE_MAX)
			return;
		ids[len++] = c = t->succ[0];
	}
	if (len >= 2)
		trace_model(cs, p, tr, ids, len, k);
}

/* Segment k's steady state: its share of its loop or context, where it has one. */
static void trace_apply(const struct traces *tr, unsigned k, struct steady *st)
{
	const struct tseg *me = k && k <= tr->n ? &tr->t[k - 1] : NULL;

	st->apart = me && me->apart;
	/* a loop through it chases: its misses keep the loop's next steps waiting too */
	st->load_fed |= me && me->fed;
	if (me && me->looped && !st->unmodelled && !st->rep_size) {
		st->floor_in = true;
		st->cycles = me->cycles;
		st->total = me->total, st->filled = me->filled;
		st->issued = me->issued, st->retired = me->retired;
	}
}

/* ---- segments modelled while the program runs ------------------------------------------- */

/*
 * The tool writes each segment to ipcc-defs.PID as it first runs (vg_tool.c's define()): a
 * line "D N", then its N instructions as the counts file's I lines. A thread follows those
 * files while the program runs and models each segment it has not seen, keyed by its
 * instructions' addresses and bytes (what makes a segment the tool's); the accounting
 * takes the figures from there. A record is taken only once all its lines have ended.
 */
#define STREAM_POLL_NS 5000000 /* the wait when a pass over the files found nothing new */

struct pre_entry {
	uint64_t hash; /* 0: an empty slot */
	struct seg s;  /* the key: its instructions' addresses and bytes */
	struct steady st;
	char *names; /* its approximated mnemonics; NULL: none */
};

struct defs_file {
	char name[64];
	long off;  /* where its next record starts; -1: malformed, followed no more */
	ino_t ino; /* the file it followed: an exec moves it away and a new one takes the name */
};

struct ipcc_mb_stream {
	char dir[4096];
	struct ipcc_model_profile p;
	pthread_t th;
	atomic_bool stop;
	struct pre_entry *tab; /* open addressing, cap a power of two */
	size_t cap, n;
	struct defs_file *files;
	size_t nfiles;
};

static uint64_t seg_hash(const struct seg *s)
{
	uint64_t h = 0xcbf29ce484222325ull ^ s->ninsns;

	for (unsigned i = 0; i < s->ninsns; i++)
		h = (h ^ s->addr[i]) * 0x100000001b3ull;
	for (size_t i = 0; i < s->nbytes; i++)
		h = (h ^ s->bytes[i]) * 0x100000001b3ull;
	return h ? h : 1;
}

static bool seg_same(const struct seg *a, const struct seg *b)
{
	return a->ninsns == b->ninsns && a->nbytes == b->nbytes &&
	       !memcmp(a->addr, b->addr, a->ninsns * sizeof(*a->addr)) &&
	       !memcmp(a->len, b->len, a->ninsns) && !memcmp(a->bytes, b->bytes, a->nbytes);
}

static struct pre_entry *pre_find(const struct ipcc_mb_stream *m, const struct seg *s, uint64_t h)
{
	if (!m || !m->cap)
		return NULL;
	for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct pre_entry *e = &m->tab[i];

		if (!e->hash)
			return NULL;
		if (e->hash == h && seg_same(&e->s, s))
			return e;
	}
}

/* Takes s's arrays and names; false where out of memory (the caller frees them then). */
static bool pre_add(struct ipcc_mb_stream *m, struct seg *s, uint64_t h, const struct steady *st,
		    char *names)
{
	if (2 * (m->n + 1) > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 4096;
		struct pre_entry *tab = calloc(cap, sizeof(*tab));

		if (!tab)
			return false;
		for (size_t i = 0; i < m->cap; i++)
			if (m->tab[i].hash) {
				size_t j = m->tab[i].hash & (cap - 1);

				while (tab[j].hash)
					j = (j + 1) & (cap - 1);
				tab[j] = m->tab[i];
			}
		free(m->tab);
		m->tab = tab;
		m->cap = cap;
	}
	size_t j = h & (m->cap - 1);

	while (m->tab[j].hash)
		j = (j + 1) & (m->cap - 1);
	m->tab[j] = (struct pre_entry){ .hash = h, .s = *s, .st = *st, .names = names };
	m->n++;
	return true;
}

/* A whole line (ended by its newline) into *line; false at the end of what is written. */
static bool whole_line(FILE *f, char **line, size_t *cap)
{
	ssize_t n = getline(line, cap, f);

	return n > 0 && (*line)[n - 1] == '\n';
}

/* The records of file d written since the last pass: each segment not seen, modelled. */
static size_t follow(struct ipcc_mb_stream *m, csh cs, struct defs_file *d)
{
	char path[4200], *line = NULL;
	size_t cap = 0, got = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", m->dir, d->name);
	if (d->off < 0 || !(f = fopen(path, "r")))
		return 0;

	struct stat fs;

	if (fstat(fileno(f), &fs) == 0) {
		if (fs.st_ino != d->ino) /* a new image's file under the name: from its start */
			d->off = 0;
		d->ino = fs.st_ino;
	}
	if (d->off == 0) {
		if (whole_line(f, &line, &cap))
			d->off = strcmp(line, "ipcc-defs 1\n") ? -1 : ftell(f);
	} else if (fseek(f, d->off, SEEK_SET)) {
		d->off = -1;
	}
	while (d->off > 0 && !atomic_load(&m->stop) && whole_line(f, &line, &cap)) {
		struct seg s = { 0 };
		unsigned n = 0, i = 0;
		bool whole = true;

		if (sscanf(line, "D %u", &n) != 1 || n == 0 || n > 4096 ||
		    !(s.addr = calloc(n, sizeof(*s.addr))) || !(s.len = calloc(n, 1)) ||
		    !(s.bytes = malloc((size_t)n * 16))) {
			seg_free(&s);
			d->off = -1; /* malformed, or no memory: the accounting models the rest */
			break;
		}
		s.ninsns = n;
		for (; i < n && (whole = whole_line(f, &line, &cap)); i++)
			if (read_insn_line(line, &s, i))
				break;
		if (!whole) { /* the rest is not written yet: from this record, next pass */
			seg_free(&s);
			break;
		}
		if (i < n) {
			seg_free(&s);
			d->off = -1;
			break;
		}
		d->off = ftell(f);
		got++;

		uint64_t h = seg_hash(&s);
		char names[256] = "";
		struct steady st;

		if (pre_find(m, &s, h)) {
			seg_free(&s);
			continue;
		}
		model_segment(cs, &s, &m->p, &st, names, sizeof(names));
		char *kept = *names ? strdup(names) : NULL;

		if ((*names && !kept) || !pre_add(m, &s, h, &st, kept)) {
			free(kept);
			seg_free(&s);
			d->off = -1;
			break;
		}
	}
	free(line);
	fclose(f);
	return got;
}

static int defs_file(const struct dirent *d)
{
	return !strncmp(d->d_name, "ipcc-defs.", 10);
}

/* One pass over the folder's files (new ones added): how many records it read. */
static size_t stream_pass(struct ipcc_mb_stream *m, csh cs)
{
	DIR *dir = opendir(m->dir);
	struct dirent *e;
	size_t got = 0;

	while (dir && (e = readdir(dir)) != NULL) {
		size_t k = 0;

		if (!defs_file(e) || strlen(e->d_name) >= sizeof(m->files[0].name))
			continue;
		while (k < m->nfiles && strcmp(m->files[k].name, e->d_name))
			k++;
		if (k == m->nfiles) {
			struct defs_file *g = realloc(m->files, (m->nfiles + 1) * sizeof(*g));

			if (!g)
				continue;
			m->files = g;
			snprintf(g[k].name, sizeof(g[k].name), "%s", e->d_name);
			g[k].off = 0;
			g[k].ino = 0;
			m->nfiles++;
		}
		got += follow(m, cs, &m->files[k]);
	}
	if (dir)
		closedir(dir);
	return got;
}

static void *stream_main(void *arg)
{
	struct ipcc_mb_stream *m = arg;
	csh cs;

	if (disasm_open(&cs))
		return NULL;
	while (!atomic_load(&m->stop))
		if (!stream_pass(m, cs))
			nanosleep(&(struct timespec){ 0, STREAM_POLL_NS }, NULL);
	cs_close(&cs);
	return NULL;
}

int ipcc_mb_stream_start(const char *dir, const struct ipcc_model_profile *p,
			 struct ipcc_mb_stream **out)
{
	struct ipcc_mb_stream *m = calloc(1, sizeof(*m));

	*out = NULL;
	if (!m)
		return err_set(IPCC_ENOMEM, "out of memory");
	snprintf(m->dir, sizeof(m->dir), "%s", dir);
	m->p = *p;
	atomic_init(&m->stop, false);
	if (pthread_create(&m->th, NULL, stream_main, m)) {
		free(m);
		return err_set(IPCC_ENOMEM, "cannot start a thread to model the segments");
	}
	*out = m;
	return 0;
}

void ipcc_mb_stream_stop(struct ipcc_mb_stream *m)
{
	if (!m || atomic_exchange(&m->stop, true))
		return;
	pthread_join(m->th, NULL);
}

void ipcc_mb_stream_free(struct ipcc_mb_stream *m)
{
	if (!m)
		return;
	ipcc_mb_stream_stop(m);
	for (size_t i = 0; i < m->cap; i++)
		if (m->tab[i].hash) {
			seg_free(&m->tab[i].s);
			free(m->tab[i].names);
		}
	free(m->tab);
	free(m->files);
	free(m);
}

/* ---- every segment's steady state, in parallel ------------------------------------------ */

#define PREMODEL_MAX_THREADS 8

/*
 * fn(cs, i, arg) for every i < n: one thread a CPU (up to PREMODEL_MAX_THREADS), each with
 * a disassembler of its own, takes every nt-th i. fn returns nonzero on failure (out of
 * memory); so does this, or where no disassembler opens.
 */
struct parallel_part {
	size_t n, first, step;
	int (*fn)(csh, size_t, void *);
	void *arg;
	int failed;
};

static void *parallel_part(void *a)
{
	struct parallel_part *m = a;
	csh cs;

	if (disasm_open(&cs)) {
		m->failed = 1;
		return NULL;
	}
	for (size_t i = m->first; i < m->n && !m->failed; i += m->step)
		m->failed |= m->fn(cs, i, m->arg);
	cs_close(&cs);
	return NULL;
}

static int parallel(size_t n, int (*fn)(csh, size_t, void *), void *arg)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nt = cpus < 1			  ? 1
		    : cpus > PREMODEL_MAX_THREADS ? PREMODEL_MAX_THREADS
						  : (size_t)cpus;
	struct parallel_part part[PREMODEL_MAX_THREADS];
	pthread_t th[PREMODEL_MAX_THREADS];
	bool started[PREMODEL_MAX_THREADS] = { false };
	int failed = 0;

	if (nt > n)
		nt = n ? n : 1;
	for (size_t t = 0; t < nt; t++) {
		part[t] = (struct parallel_part){ n, t, nt, fn, arg, 0 };
		/* the others in threads; where one cannot start, its part runs here below */
		if (t > 0)
			started[t] = pthread_create(&th[t], NULL, parallel_part, &part[t]) == 0;
	}
	parallel_part(&part[0]);
	for (size_t t = 1; t < nt; t++) {
		if (started[t])
			pthread_join(th[t], NULL);
		else
			parallel_part(&part[t]);
	}
	for (size_t t = 0; t < nt; t++)
		failed |= part[t].failed;
	return failed;
}

struct premodel_arg {
	const struct ipcc_model_profile *p;
	const struct traces *tr;
	struct steady *st;
	char **names; /* each segment's approximated mnemonics (NULL: none) */
	struct ipcc_mb_stream *pre;
};

static int premodel_one(csh cs, size_t i, void *arg)
{
	struct premodel_arg *m = arg;
	const struct seg *s = &m->tr->t[i].s;
	const struct pre_entry *e = pre_find(m->pre, s, m->pre ? seg_hash(s) : 0);
	char names[256] = "";

	if (e) { /* modelled while the program ran */
		m->st[i] = e->st;
		return e->names && !(m->names[i] = strdup(e->names));
	}
	model_segment(cs, s, m->p, &m->st[i], names, sizeof(names));
	return *names && !(m->names[i] = strdup(names));
}

/*
 * Every segment's steady state, before the file is read for its counts: from `pre` where the
 * stream modelled it, else here. The segments are independent and the tool has ended, so
 * they are modelled in parallel (parallel()); the approximated mnemonics are added in the
 * file's order, so the result is the same on any number of CPUs. NULL where that cannot be
 * done (out of memory, no disassembler): each segment is then modelled as it is read.
 */
static struct steady *premodel(const struct ipcc_model_profile *p, const struct traces *tr,
			       struct ipcc_mb_stream *pre, char *names, size_t names_len)
{
	struct steady *st = calloc(tr->n, sizeof(*st));
	char **seg_names = calloc(tr->n, sizeof(*seg_names));
	int failed = !st || !seg_names;

	if (!failed)
		failed = parallel(tr->n, premodel_one,
				  &(struct premodel_arg){ p, tr, st, seg_names, pre });
	for (size_t i = 0; seg_names && i < tr->n; i++) {
		if (!failed && seg_names[i])
			add_names(names, names_len, seg_names[i]);
		free(seg_names[i]);
	}
	free(seg_names);
	if (failed) {
		free(st);
		return NULL;
	}
	return st;
}

struct context_arg {
	const struct ipcc_model_profile *p;
	struct traces *tr;
};

/* Each context changes its own segment's figures alone: they are modelled in parallel. */
static int context_one(csh cs, size_t i, void *arg)
{
	struct context_arg *m = arg;

	trace_context(cs, m->p, m->tr, (unsigned)i + 1);
	return 0;
}

static int account_file(const char *path, csh cs, const struct ipcc_model_profile *p,
			struct ipcc_mb_stream *stream, struct ipcc_mb_result *r,
			struct fn_table *fns)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int ret = 0, lineno = 0;
	bool header = false, ended = false, have_seg = false, execd = false;
	struct seg s = { 0 };
	struct steady st;
	struct paths ps = { .n = 1 };
	struct traces tr = { 0 };
	unsigned id = 0; /* the segment's, as the tool numbered them */

	if (!f)
		return err_sys("cannot read '%s'", path);
	ret = traces_read(path, &tr);
	struct steady *pre = !ret && tr.n ? premodel(p, &tr, stream, r->approximated_names,
						     sizeof(r->approximated_names))
					  : NULL;

	/* Loops first, in the file's order; then the hot segments on none, in context. */
	trace_loops(cs, p, &tr);
	if (tr.n && parallel(tr.n, context_one, &(struct context_arg){ p, &tr }))
		for (unsigned k = 1; k <= tr.n; k++) /* no disassembler there: here, in turn */
			trace_context(cs, p, &tr, k);
	while (!ret && (n = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (lineno == 1) {
			if (strcmp(line, "ipcc-vg 18\n"))
				ret = err_set(IPCC_EINVAL, "%s: not a file of ipcc's Valgrind tool",
					      path);
			header = true;
			continue;
		}
		if (!strncmp(line, "threads ", 8)) {
			unsigned t = (unsigned)strtoul(line + 8, NULL, 10);

			/* the thread that execs goes on in the new image, counted there */
			r->threads += execd && t ? t - 1 : t;
		} else if (!strcmp(line, "exec\n")) {
			execd =
			    true; /* an image an exec replaced: its process goes on in another */
		} else if (!strncmp(line, "exit ", 5)) {
			if (r->processes == 0)
				r->exit_status = atoi(line + 5);
		} else if (!strncmp(line, "kernel ", 7)) {
			if (read_kernel_line(line, p, &r->kernel, execd))
				ret =
				    err_set(IPCC_EINVAL, "%s:%d: a bad kernel line", path, lineno);
		} else if (!strncmp(line, "cache ", 6)) {
			if (parse_cache(line, &r->caches))
				ret = err_set(IPCC_EINVAL, "%s:%d: a bad cache line", path, lineno);
		} else if (!strncmp(line, "region ", 7)) {
			ret = read_region_line(line, r, &ps);
			if (ret == -2)
				ret = err_set(IPCC_ENOMEM, "reading '%s': out of memory", path);
			else if (ret)
				ret = err_set(IPCC_EINVAL, "%s:%d: a bad region", path, lineno);
		} else if (!strncmp(line, "RK ", 3)) {
			if (read_region_kernel(line, p, r, &ps))
				ret = err_set(IPCC_EINVAL, "%s:%d: a bad region's kernel line",
					      path, lineno);
		} else if (!strncmp(line, "R ", 2)) {
			if (!have_seg || read_path_counts(line, &s, &st, p, r, &ps))
				ret =
				    err_set(IPCC_EINVAL, "%s:%d: a bad region count", path, lineno);
		} else if (!strncmp(line, "S ", 2)) {
			seg_free(&s);
			memset(&s, 0, sizeof(s));
			have_seg = false;
			ret = read_seg_line(line, &s);
			for (unsigned i = 0; !ret && i < s.ninsns; i++) {
				if ((n = getline(&line, &cap, f)) <= 0 ||
				    read_insn_line(line, &s, i))
					ret = -1;
				lineno++;
			}
			if (ret == -2)
				ret = err_set(IPCC_ENOMEM, "reading '%s': out of memory", path);
			else if (ret)
				ret = err_set(IPCC_EINVAL, "%s:%d: a bad segment", path, lineno);
			if (!ret) {
				if (pre && id < tr.n)
					st = pre[id];
				else
					model_segment(cs, &s, p, &st, r->approximated_names,
						      sizeof(r->approximated_names));
				trace_apply(&tr, ++id, &st);
				r->segments++;
				r->unmodelled += st.unmodelled;
				charge(&r->total, &s, &s.c, &st, p);
				int k = fn_index(r, fns, s.fn, s.obj);

				if (k < 0) {
					ret = err_set(IPCC_ENOMEM, "out of memory");
				} else {
					charge(&r->fn[k].c, &s, &s.c, &st, p);
					kernel_add(&r->fn[k].kernel, p, s.c.faults, s.c.file_faults,
						   s.c.syscalls, s.c.bytes, s.c.touches);
				}
				have_seg = true;
			}
		} else if (!strcmp(line, "end\n")) {
			ended = true;
		}
	}
	seg_free(&s);
	free(pre);
	traces_free(&tr);
	free(ps.p);
	free(line);
	fclose(f);
	if (!ret && (!header || !ended))
		ret = err_set(IPCC_EINVAL, "%s: cut short (the run did not end)", path);
	if (!ret && !execd)
		r->processes++;
	return ret;
}

static int by_cycles(const void *a, const void *b)
{
	const struct ipcc_mb_function *x = a, *y = b;

	if (x->c.cycles != y->c.cycles)
		return x->c.cycles < y->c.cycles ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int tool_file(const struct dirent *d)
{
	return !strncmp(d->d_name, "ipcc-vg.", 8);
}

int ipcc_mb_account(const char *dir, const struct ipcc_model_profile *p, struct ipcc_mb_stream *pre,
		    struct ipcc_mb_result *out)
{
	struct dirent **names = NULL;
	struct fn_table fns = { 0 };
	csh cs;
	int n, ret;

	memset(out, 0, sizeof(*out));
	/* A stream still running, or one that modelled with another profile, is not used. */
	if (pre && (!atomic_load(&pre->stop) || !ipcc_model_profile_equal(&pre->p, p)))
		pre = NULL;
	snprintf(out->profile, sizeof(out->profile), "%s", p->name);
	out->width = p->width;
	out->port_binding = p->port_binding;
	out->branch_limits = (p->fe_line_branches && p->fe_half_branches) ||
			     p->branch_mixed_cycles || p->branch_rare_cycles;
	out->op_cache =
	    p->opcache_entries && p->opcache_line_ops ? 1 + (p->opcache_capacity >= 8) : 0;
	out->llc_share = p->llc_share_mib != 0;
	out->kernel_costed = p->fault_cycles != 0;
	out->process_costed = p->fault_cycles && p->process_cycles;
	out->touch_costed = p->fault_cycles && p->kernel_page_touch_cycles;
	n = scandir(dir, &names, tool_file, by_name);
	if (n < 0)
		return err_sys("cannot read the folder '%s'", dir);
	if (n == 0) {
		free(names);
		return err_set(IPCC_EINVAL, "the program left no counts (Valgrind could not run "
					    "it, or it was killed before it ended)");
	}
	int opened = disasm_open(&cs);

	ret = opened;
	for (int i = 0; i < n; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (!ret)
			ret = account_file(path, cs, p, pre, out, &fns);
		free(names[i]);
	}
	free(names);
	free(fns.slot);
	if (!opened)
		cs_close(&cs);
	if (ret) {
		ipcc_mb_result_release(out);
		return ret;
	}
	qsort(out->fn, out->nfn, sizeof(*out->fn), by_cycles);
	return 0;
}

void ipcc_mb_result_release(struct ipcc_mb_result *r)
{
	for (size_t i = 0; i < r->nfn; i++) {
		free(r->fn[i].name);
		free(r->fn[i].object);
	}
	free(r->fn);
	r->fn = NULL;
	r->nfn = 0;
	for (size_t i = 0; i < r->nregion; i++)
		free(r->region[i].name);
	free(r->region);
	r->region = NULL;
	r->nregion = 0;
}
