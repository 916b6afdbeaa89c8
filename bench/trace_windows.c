/*
 * trace_windows.c - the pipeline model over windows of a program's real order of segments,
 * beside each segment alone as a loop, which is how the model backend models it (account.c,
 * before its loops, contexts and floors). A diagnostic: how much of what the backend charges
 * a segment is the chains it carries into its own next pass, which the program never runs.
 *
 *   bench/trace_windows [--profile P] COUNTS TRACE
 *
 * COUNTS is the tool's file of a process (ipcc-vg.PID: its segments, the S lines, and their
 * instructions, the I lines) and TRACE the order its segments ran in (ipcc-trace.PID: a
 * window a line, the S lines' numbers; vg_tool.c's --ipcc-trace). bench/trace_windows.py runs
 * a command under the tool and this on each of its processes.
 *
 * Each window is lifted whole, in order (every direct branch's target is the instruction
 * after it, as the program went), and run as a loop of three passes, the second and third
 * counted: its cycles a pass. Each of its segments is lifted alone, as a loop (its last
 * direct branch back to its start), as the backend does, and its steady state's cycles a
 * pass summed over the window's entries. Prints a line a window and their totals: cycles an
 * instruction both ways, their ratio, and taken branches an instruction (a segment entered
 * anywhere but after its predecessor's last instruction).
 */
#include <capstone/capstone.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcc/model.h"

struct seg {
	unsigned n;	/* instructions */
	uint64_t *addr; /* each instruction's address */
	unsigned *len;	/* and length */
	unsigned char *bytes;
	double alone; /* cycles a pass alone, once modelled */
	bool modelled;
};

struct text {
	char *s;
	size_t len, cap;
};

static bool append(struct text *t, const char *s)
{
	size_t n = strlen(s);

	if (t->len + n + 1 > t->cap) {
		size_t cap = (t->len + n + 1) * 2;
		char *p = realloc(t->s, cap);

		if (!p)
			return false;
		t->s = p, t->cap = cap;
	}
	memcpy(t->s + t->len, s, n + 1);
	t->len += n;
	return true;
}

/*
 * s's instructions as the model's text: a rip-relative address as the address it is, a
 * direct branch's target a label, the instruction after it (alone: the last one's the
 * loop's start).
 */
static bool lift(csh cs, const struct seg *s, bool alone, unsigned *label, struct text *t)
{
	size_t off = 0;

	for (unsigned i = 0; i < s->n; off += s->len[i], i++) {
		cs_insn *in = NULL;
		char line[512], ops[320];

		if (cs_disasm(cs, s->bytes + off, s->len[i], s->addr[i], 1, &in) != 1) {
			if (!append(t, "nop\n"))
				return false;
			continue;
		}
		const cs_x86 *x = &in->detail->x86;
		bool jump =
		    cs_insn_group(cs, in, CS_GRP_JUMP) || cs_insn_group(cs, in, CS_GRP_CALL);
		bool direct = jump && x->op_count == 1 && x->operands[0].type == X86_OP_IMM;
		const char *op = in->op_str, *at = strstr(op, "[rip"),
			   *end = at ? strchr(at, ']') : NULL;

		for (unsigned k = 0; at && end && k < x->op_count; k++)
			if (x->operands[k].type == X86_OP_MEM &&
			    x->operands[k].mem.base == X86_REG_RIP) {
				snprintf(ops, sizeof(ops), "%.*s[0x%" PRIx64 "]%s", (int)(at - op),
					 op,
					 in->address + in->size + (uint64_t)x->operands[k].mem.disp,
					 end + 1);
				op = ops;
			}
		if (direct && alone && i + 1 == s->n)
			snprintf(line, sizeof(line), "%s .Lloop\n", in->mnemonic);
		else if (direct) {
			snprintf(line, sizeof(line), "%s .L%u\n.L%u:\n", in->mnemonic, *label,
				 *label);
			++*label;
		} else
			snprintf(line, sizeof(line), "%s%s%s\n", in->mnemonic, op[0] ? " " : "",
				 op);
		cs_free(in, 1);
		if (!append(t, line))
			return false;
	}
	return true;
}

/* The text's cycles a pass in its steady state (passes, the first warmup left out); -1. */
static double cycles(const char *text, const struct ipcc_model_profile *p, uint64_t passes,
		     uint64_t warmup)
{
	struct ipcc_model_program *prog = NULL;
	struct ipcc_model_error err;
	struct ipcc_model_result res = { 0 };
	double c = -1;

	if (ipcc_model_parse_mode(text, p, IPCC_MODEL_LENIENT, &prog, &err))
		return -1;
	if (!ipcc_model_run(prog, p,
			    &(struct ipcc_model_opts){ .iterations = passes, .warmup = warmup },
			    &res) &&
	    res.summary.iterations)
		c = res.summary.cycles_per_iteration;
	ipcc_model_result_release(&res);
	ipcc_model_program_free(prog);
	return c;
}

/* The COUNTS file's segments, in order (the S lines' numbers are 1, 2, ...). */
static struct seg *read_segments(const char *path, size_t *nsegs)
{
	FILE *f = fopen(path, "r");
	struct seg *segs = NULL;
	size_t n = 0, cap = 0, nbytes = 0;
	char *line = NULL;
	size_t lcap = 0;

	if (!f) {
		perror(path);
		return NULL;
	}
	while (getline(&line, &lcap, f) > 0) {
		if (!strncmp(line, "S ", 2)) {
			if (n == cap) {
				cap = cap ? 2 * cap : 4096;
				struct seg *p = realloc(segs, cap * sizeof(*segs));

				if (!p)
					goto fail;
				segs = p;
			}
			memset(&segs[n++], 0, sizeof(*segs));
			nbytes = 0;
		} else if (!strncmp(line, "I ", 2) && n) {
			struct seg *s = &segs[n - 1];
			uint64_t a;
			char hex[64];

			if (sscanf(line + 2, "%" SCNx64 " %63s", &a, hex) != 2)
				continue;
			unsigned l = (unsigned)strlen(hex) / 2;
			uint64_t *addr = realloc(s->addr, (s->n + 1) * sizeof(*addr));
			unsigned *len = realloc(s->len, (s->n + 1) * sizeof(*len));
			unsigned char *bytes = realloc(s->bytes, nbytes + l);

			if (addr)
				s->addr = addr;
			if (len)
				s->len = len;
			if (bytes)
				s->bytes = bytes;
			if (!addr || !len || !bytes)
				goto fail;
			for (unsigned k = 0; k < l; k++) {
				unsigned v;

				sscanf(hex + 2 * k, "%2x", &v);
				s->bytes[nbytes + k] = (unsigned char)v;
			}
			s->addr[s->n] = a;
			s->len[s->n++] = l;
			nbytes += l;
		}
	}
	free(line);
	fclose(f);
	*nsegs = n;
	return segs;
fail:
	fprintf(stderr, "trace_windows: out of memory\n");
	free(line);
	fclose(f);
	for (size_t i = 0; i < n; i++)
		free(segs[i].addr), free(segs[i].len), free(segs[i].bytes);
	free(segs);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *profile = "auto";
	struct ipcc_model_profile prof;
	int a = 1;

	if (a + 1 < argc && !strcmp(argv[a], "--profile"))
		profile = argv[a + 1], a += 2;
	if (argc - a != 2) {
		fprintf(stderr, "usage: trace_windows [--profile P] COUNTS TRACE\n");
		return 2;
	}
	/* a built-in's name (auto: the one closest to this CPU), else a profile file */
	if (ipcc_model_profile(profile, &prof) && ipcc_model_profile_load(profile, &prof)) {
		fprintf(stderr, "trace_windows: no profile '%s'\n", profile);
		return 2;
	}
	size_t nsegs = 0;
	struct seg *segs = read_segments(argv[a], &nsegs);
	FILE *tf = fopen(argv[a + 1], "r");
	csh cs;

	if (!segs || !tf || cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		if (!tf)
			perror(argv[a + 1]);
		return 1;
	}
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	/*
	 * The front end's floors over the windows' fetch blocks (the instructions from one
	 * taken branch to the next): each at the profile's width a cycle, as from the op cache
	 * at one taken branch a cycle, and each at four a cycle, as one Zen 5 thread's decoders
	 * give (stop 63: 4.0 instructions a cycle past the op cache). Neither is in the model.
	 */
	double fe_width = 0, fe_decode = 0;
	double all_trace = 0, all_alone = 0, all_taken = 0, all_insns = 0;
	unsigned windows = 0;
	char *line = NULL;
	size_t lcap = 0;
	int ret = 0;
	struct text t = { 0 };

	printf("profile %s\n", prof.name);
	while (!ret && getline(&line, &lcap, tf) > 0) {
		size_t *ids = NULL, n = 0, cap = 0;
		char *p = line, *e;

		for (unsigned long v; (v = strtoul(p, &e, 10)), e != p; p = e) {
			if (v < 1 || v > nsegs) {
				fprintf(stderr, "trace_windows: segment %lu is not in %s\n", v,
					argv[a]);
				ret = 1;
				break;
			}
			if (n == cap) {
				cap = cap ? 2 * cap : 4096;
				size_t *q = realloc(ids, cap * sizeof(*ids));

				if (!q) {
					ret = 1;
					break;
				}
				ids = q;
			}
			ids[n++] = v - 1;
		}
		if (ret || !n) {
			free(ids);
			continue;
		}
		unsigned label = 0;
		double insns = 0, alone = 0, taken = 0, block = 0, fw = 0, fd = 0;

		t.len = 0;
		bool ok = append(&t, ".Lloop:\n");

		for (size_t k = 0; ok && k < n; k++) {
			const struct seg *s = &segs[ids[k]];

			ok = lift(cs, s, false, &label, &t);
			insns += s->n;
			block += s->n;
			if (k + 1 == n ||
			    (s->n && segs[ids[k + 1]].n &&
			     s->addr[s->n - 1] + s->len[s->n - 1] != segs[ids[k + 1]].addr[0])) {
				/* a fetch block ends: at the width a cycle, and at the decoders' 4 */
				taken += k + 1 < n;
				fw += ceil(block / prof.width);
				fd += ceil(block / 4);
				block = 0;
			}
		}
		ok = ok && append(&t, "jmp .Lloop\n");
		double trace = ok ? cycles(t.s, &prof, 3, 1) : -1;

		for (size_t k = 0; trace >= 0 && k < n; k++) {
			struct seg *s = &segs[ids[k]];

			if (!s->modelled) {
				uint64_t passes = 1000 / (s->n + 1);

				passes = passes < 16 ? 16 : passes > 400 ? 400 : passes;
				t.len = 0;
				label = 0;
				s->alone = append(&t, ".Lloop:\n") && lift(cs, s, true, &label, &t)
					       ? cycles(t.s, &prof, passes, passes / 2)
					       : -1;
				s->modelled = true;
			}
			alone += s->alone > 0 ? s->alone : 0;
		}
		free(ids);
		if (trace < 0 || insns == 0) {
			fprintf(stderr, "trace_windows: window %u not modelled\n", windows);
			windows++;
			continue;
		}
		printf(
		    "window %u: %.0f instructions, %zu segments, %.0f taken: the real order %.0f "
		    "cycles (%.3f an instruction), each segment alone %.0f (%.3f), ratio %.3f\n",
		    windows, insns, n, taken, trace, trace / insns, alone, alone / insns,
		    alone > 0 ? trace / alone : 0);
		windows++;
		all_trace += trace, all_alone += alone, all_taken += taken, all_insns += insns;
		fe_width += fw, fe_decode += fd;
	}
	if (all_insns > 0)
		printf(
		    "all %u windows, %.0f instructions: the real order %.3f cycles an instruction, "
		    "each segment alone %.3f, ratio %.3f; taken branches %.3f an instruction; "
		    "fetch blocks at %u a cycle %.3f, at 4 a cycle %.3f\n",
		    windows, all_insns, all_trace / all_insns, all_alone / all_insns,
		    all_alone > 0 ? all_trace / all_alone : 0, all_taken / all_insns, prof.width,
		    fe_width / all_insns, fe_decode / all_insns);
	else if (!ret)
		printf("no window\n");
	free(line);
	free(t.s);
	fclose(tf);
	cs_close(&cs);
	for (size_t i = 0; i < nsegs; i++)
		free(segs[i].addr), free(segs[i].len), free(segs[i].bytes);
	free(segs);
	return ret;
}
