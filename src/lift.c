/*
 * lift.c - the hot loops of a recording (lift.h): backward branches found with Capstone in
 * the functions that hold samples.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_int.h"
#include "ipcc/lift.h"
#include "ipcc/recording.h"
#include "recording/disasm_int.h"

/* The largest function disassembled; bigger ones are counted as unreadable. */
#define MAX_FUNCTION (4u << 20)

/* Whether hit h is in loop l's body. */
#define IN_LOOP(h, l)                                                               \
	(!strcmp((h)->file, (l)->file) && (h)->func_start == (l)->function_start && \
	 (h)->addr >= (l)->start && (h)->addr < (l)->end)

/* One sample, resolved. */
struct hit {
	const char *file, *function;
	uint64_t func_start, func_size, addr;
	size_t index; /* in the recording */
};

static int by_function(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;
	int c = strcmp(x->file, y->file);

	if (c)
		return c;
	if (x->func_start != y->func_start)
		return x->func_start < y->func_start ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int by_samples(const void *a, const void *b)
{
	const struct ipcc_loop *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;
}

static int push(struct ipcc_loops *l, size_t *cap, const struct ipcc_loop *loop)
{
	if (l->n == *cap) {
		size_t n = *cap ? 2 * *cap : 64;
		struct ipcc_loop *p = realloc(l->loop, n * sizeof(*p));

		if (!p)
			return err_set(IPCC_ENOMEM, "out of memory for %zu loops", n);
		l->loop = p;
		*cap = n;
	}
	l->loop[l->n++] = *loop;
	return 0;
}

/*
 * The loops of insn[0..n), a function's code from proto->function_start: every backward
 * branch with an immediate target inside the function closes the loop that starts at its
 * target; branches to one target make one loop, to the end of the last of them. Each is a
 * copy of proto with its start, end and branches, added to l after l->loop[first].
 */
static int branch_loops(csh cs, const cs_insn *insn, size_t n, const struct ipcc_loop *proto,
			struct ipcc_loops *l, size_t *cap, size_t first)
{
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		const cs_insn *in = &insn[i];
		const cs_x86 *x = &in->detail->x86;
		uint64_t target, end = in->address + in->size;
		bool merged = false;

		if (!cs_insn_group(cs, in, CS_GRP_JUMP) || x->op_count != 1 ||
		    x->operands[0].type != X86_OP_IMM)
			continue;
		target = (uint64_t)x->operands[0].imm;
		if (target > in->address || target < proto->function_start)
			continue;
		for (size_t k = first; k < l->n; k++)
			if (l->loop[k].start == target) {
				if (end > l->loop[k].end)
					l->loop[k].end = end;
				l->loop[k].branches++;
				merged = true;
			}
		if (!merged) {
			struct ipcc_loop lp = *proto;

			lp.start = target;
			lp.end = end;
			lp.branches = 1;
			ret = push(l, cap, &lp);
		}
	}
	return ret;
}

/* The loops of one function: its hits are h[0..n), sorted by address. */
static int function_loops(struct ipcc_symbols *syms, csh cs, const struct hit *h, size_t n,
			  struct ipcc_loops *l, size_t *cap)
{
	size_t len = (size_t)h[0].func_size, first = l->n, ninsn;
	unsigned char *code;
	cs_insn *insn = NULL;
	int ret;

	if (!len || len > MAX_FUNCTION || !(code = malloc(len))) {
		l->nunreadable++;
		return 0;
	}
	if (ipcc_symbols_read(syms, h[0].file, h[0].func_start, code, &len)) {
		free(code);
		l->nunreadable++;
		return 0;
	}
	l->nfunctions++;
	ninsn = cs_disasm(cs, code, len, h[0].func_start, 0, &insn);
	ret = branch_loops(cs, insn, ninsn,
			   &(struct ipcc_loop){ h[0].file, h[0].function, h[0].func_start, 0, 0, 0,
						0, 0, -1, 0, 0 },
			   l, cap, first);
	/* Each loop's samples; a loop without any is dropped. */
	for (size_t k = first; k < l->n;) {
		struct ipcc_loop *lp = &l->loop[k];

		for (size_t i = 0; i < n; i++)
			lp->samples += h[i].addr >= lp->start && h[i].addr < lp->end;
		if (lp->samples)
			k++;
		else
			l->loop[k] = l->loop[--l->n];
	}
	cs_free(insn, ninsn);
	free(code);
	return ret;
}

/* The innermost loop holding loop i (same function, a body around its body), or -1. */
static int parent_of(const struct ipcc_loops *l, size_t i)
{
	const struct ipcc_loop *a = &l->loop[i];
	int best = -1;

	for (size_t k = 0; k < l->n; k++) {
		const struct ipcc_loop *b = &l->loop[k];

		if (k == i || strcmp(b->file, a->file) || b->function_start != a->function_start ||
		    b->start > a->start || b->end < a->end ||
		    (b->start == a->start && b->end == a->end))
			continue;
		if (best < 0 || b->end - b->start < l->loop[best].end - l->loop[best].start)
			best = (int)k;
	}
	return best;
}

/*
 * Choose loops greedily: each time the loop that holds the most samples no chosen loop
 * holds yet, until they hold `cover` of the samples or `max` are chosen.
 */
static int choose(struct ipcc_loops *l, const struct hit *h, size_t nh, double cover, unsigned max)
{
	bool *taken = calloc(nh ? nh : 1, sizeof(*taken));
	uint64_t covered = 0;

	if (!taken)
		return err_set(IPCC_ENOMEM, "out of memory");
	while (l->nselected < max && l->nsamples && (double)covered < cover * (double)l->nsamples) {
		uint64_t best_new = 0;
		size_t best = 0;

		for (size_t k = 0; k < l->n; k++) {
			uint64_t fresh = 0;

			if (l->loop[k].selected)
				continue;
			for (size_t i = 0; i < nh; i++)
				fresh += !taken[i] && IN_LOOP(&h[i], &l->loop[k]);
			if (fresh > best_new)
				best_new = fresh, best = k;
		}
		if (!best_new)
			break;
		/*
		 * An inner loop that holds nearly all of it (95%) is the one to explain: the
		 * deepest such, so that a loop nest is chosen by its innermost hot loop.
		 */
		for (size_t k = 0; k < l->n; k++) {
			uint64_t fresh = 0;

			if (l->loop[k].selected || l->loop[k].depth <= l->loop[best].depth ||
			    strcmp(l->loop[k].file, l->loop[best].file) ||
			    l->loop[k].function_start != l->loop[best].function_start ||
			    l->loop[k].start < l->loop[best].start ||
			    l->loop[k].end > l->loop[best].end)
				continue;
			for (size_t i = 0; i < nh; i++)
				fresh += !taken[i] && IN_LOOP(&h[i], &l->loop[k]);
			if ((double)fresh >= 0.95 * (double)best_new)
				best = k;
		}
		l->loop[best].selected = 1;
		l->nselected++;
		for (size_t i = 0; i < nh; i++)
			if (!taken[i] && IN_LOOP(&h[i], &l->loop[best]))
				taken[i] = true, covered++;
	}
	l->covered = l->nsamples ? (double)covered / (double)l->nsamples : 0;
	free(taken);
	return 0;
}

int ipcc_loops_find(const struct ipcc_recording *p, struct ipcc_symbols *syms,
		    const struct ipcc_loops_opts *o, struct ipcc_loops *out)
{
	struct hit *h = calloc(p->nsamples ? p->nsamples : 1, sizeof(*h));
	size_t nh = 0, cap = 0;
	int ret = 0;
	csh cs;

	memset(out, 0, sizeof(*out));
	out->nsamples = p->nsamples;
	if (!h)
		return err_set(IPCC_ENOMEM, "out of memory for %zu samples", p->nsamples);
	ret = disasm_open(&cs);
	if (ret) {
		free(h);
		return ret;
	}
	for (size_t i = 0; i < p->nsamples; i++) {
		struct ipcc_symbol y;

		ipcc_symbols_resolve(syms, &p->samples[i], &y);
		if (y.file && y.function)
			h[nh++] =
			    (struct hit){ y.file,	y.demangled ? y.demangled : y.function,
					  y.func_start, y.func_size,
					  y.elf_addr,	i };
	}
	qsort(h, nh, sizeof(*h), by_function);
	for (size_t a = 0, b; a < nh && !ret; a = b) {
		for (b = a + 1;
		     b < nh && !strcmp(h[b].file, h[a].file) && h[b].func_start == h[a].func_start;
		     b++)
			;
		ret = function_loops(syms, cs, &h[a], b - a, out, &cap);
	}
	cs_close(&cs);
	if (!ret) {
		qsort(out->loop, out->n, sizeof(*out->loop), by_samples);
		for (size_t k = 0; k < out->n; k++) {
			out->loop[k].share = (double)out->loop[k].samples / (double)out->nsamples;
			out->loop[k].parent = parent_of(out, k);
		}
		for (size_t k = 0; k < out->n; k++)
			for (int q = out->loop[k].parent; q >= 0; q = out->loop[q].parent)
				out->loop[k].depth++;
		ret = choose(out, h, nh, o && o->cover > 0 ? o->cover : 0.9,
			     o && o->max_loops ? o->max_loops : 10);
	}
	free(h);
	if (ret)
		ipcc_loops_release(out);
	return ret;
}

void ipcc_loops_release(struct ipcc_loops *l)
{
	free(l->loop);
	memset(l, 0, sizeof(*l));
}

/* ---- lifting a loop into the model's text ---------------------------------------------- */

/* Append the printf-formatted text to *buf (length *len, capacity *cap). */
static int append(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int append(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(*buf ? *buf + *len : NULL, *buf ? *cap - *len : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return err_set(IPCC_EINVAL, "lift: cannot format an instruction");
		if (*buf && *len + (size_t)n < *cap)
			break;
		{
			size_t c = *cap ? *cap * 2 : 4096;
			char *b;

			while (c <= *len + (size_t)n)
				c *= 2;
			b = realloc(*buf, c);
			if (!b)
				return err_set(IPCC_ENOMEM, "lift: out of memory");
			*buf = b;
			*cap = c;
		}
	}
	*len += (size_t)n;
	return 0;
}

/* The innermost loop: the first by address whose body holds no other loop's. */
static const struct ipcc_loop *innermost(const struct ipcc_loops *l)
{
	const struct ipcc_loop *best = NULL;

	for (size_t k = 0; k < l->n; k++) {
		const struct ipcc_loop *a = &l->loop[k];
		bool holds = false;

		for (size_t j = 0; j < l->n && !holds; j++)
			holds = j != k && l->loop[j].start >= a->start &&
				l->loop[j].end <= a->end &&
				!(l->loop[j].start == a->start && l->loop[j].end == a->end);
		if (!holds && (!best || a->start < best->start))
			best = a;
	}
	return best;
}

/*
 * Lift [start, end) of `path` (symbols from syms), or with symbol set and no range, that
 * function's innermost loop; fstart is the function's start then.
 */
static int lift(struct ipcc_symbols *syms, const char *path, const char *symbol, uint64_t fstart,
		uint64_t start, uint64_t end, bool innermost_loop, struct ipcc_lifted *out)
{
	struct ipcc_loops loops = { 0 };
	unsigned char *code = NULL;
	cs_insn *insn = NULL;
	size_t ninsn = 0, len, cap = 0, tlen = 0, tcap = 0;
	csh cs;
	int ret;

	if (end - start > MAX_FUNCTION)
		return err_set(IPCC_EINVAL, "lift: the range is over %u bytes", MAX_FUNCTION);
	len = (size_t)(end - start);
	code = malloc(len ? len : 1);
	if (!code)
		return err_set(IPCC_ENOMEM, "lift: out of memory");
	ret = ipcc_symbols_read(syms, path, start, code, &len);
	if (ret)
		goto out;
	ret = disasm_open(&cs);
	if (ret)
		goto out;
	ninsn = cs_disasm(cs, code, len, start, 0, &insn);
	if (innermost_loop) {
		const struct ipcc_loop *lp;

		ret = branch_loops(
		    cs, insn, ninsn,
		    &(struct ipcc_loop){ path, symbol, fstart, 0, 0, 0, 0, 0, -1, 0, 0 }, &loops,
		    &cap, 0);
		lp = ret ? NULL : innermost(&loops);
		out->nloops = (unsigned)loops.n;
		if (!ret && !lp)
			ret = err_set(IPCC_EINVAL, "%s: function '%s' has no loop", path, symbol);
		if (!ret) {
			start = lp->start;
			end = lp->end;
		}
	}
	if (!ret && ninsn && !(out->address = malloc(ninsn * sizeof(*out->address))))
		ret = err_set(IPCC_ENOMEM, "lift: out of memory");
	for (size_t i = 0; i < ninsn && !ret; i++) {
		const cs_insn *in = &insn[i];
		const cs_x86 *x = &in->detail->x86;

		if (in->address < start || in->address >= end)
			continue;
		if (!out->ninsns)
			ret = append(&out->text, &tlen, &tcap, ".Lloop:\n");
		if (!ret && cs_insn_group(cs, in, CS_GRP_JUMP) && x->op_count == 1 &&
		    x->operands[0].type == X86_OP_IMM) {
			uint64_t t = (uint64_t)x->operands[0].imm;

			if (t == start)
				ret = append(&out->text, &tlen, &tcap, "%s .Lloop", in->mnemonic);
			else
				ret = append(&out->text, &tlen, &tcap, "%s .L%" PRIx64,
					     in->mnemonic, t);
		} else if (!ret) {
			ret = append(&out->text, &tlen, &tcap, "%s%s%s", in->mnemonic,
				     in->op_str[0] ? " " : "", in->op_str);
		}
		if (!ret)
			ret = append(&out->text, &tlen, &tcap, "    ; %#" PRIx64 "\n", in->address);
		out->address[out->ninsns++] = in->address;
	}
	if (!ret && !out->ninsns)
		ret = err_set(IPCC_EINVAL, "%s: no instructions in [%#" PRIx64 ", %#" PRIx64 ")",
			      path, start, end);
	out->start = start;
	out->end = end;
	cs_free(insn, ninsn);
	cs_close(&cs);
out:
	free(code);
	ipcc_loops_release(&loops);
	if (ret)
		ipcc_lifted_release(out);
	return ret;
}

int ipcc_lift_elf(const char *path, const struct ipcc_lift_opts *o, struct ipcc_lifted *out)
{
	struct ipcc_recording_mmap mm = { 0, 0, UINT64_MAX, 0, (char *)path };
	struct ipcc_recording prof = { .mmaps = &mm, .nmmaps = 1 };
	struct ipcc_symbols *syms = NULL;
	uint64_t fstart = 0, fsize = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	{
		FILE *f = fopen(path, "rb");

		if (!f)
			return err_sys("cannot open %s", path);
		fclose(f);
	}
	ret = ipcc_symbols_new(&prof, &syms);
	if (ret)
		return ret;
	if (o->symbol) {
		ret = ipcc_symbols_find(syms, path, o->symbol, &fstart, &fsize);
		if (!ret && (!fsize || fsize > MAX_FUNCTION))
			ret = err_set(IPCC_EINVAL, "%s: function '%s' has no size we can read",
				      path, o->symbol);
		if (!ret)
			snprintf(out->function, sizeof(out->function), "%s", o->symbol);
	}
	if (!ret && o->end > o->start)
		ret = lift(syms, path, o->symbol, fstart, o->start, o->end, false, out);
	else if (!ret && o->symbol)
		ret = lift(syms, path, o->symbol, fstart, fstart, fstart + fsize, true, out);
	else if (!ret)
		ret = err_set(IPCC_EINVAL, "lift: neither a function nor a range");
	ipcc_symbols_free(syms);
	return ret;
}

int ipcc_lift_range(struct ipcc_symbols *syms, const char *file, uint64_t start, uint64_t end,
		    struct ipcc_lifted *out)
{
	memset(out, 0, sizeof(*out));
	if (end <= start)
		return err_set(IPCC_EINVAL, "lift: an empty range");
	return lift(syms, file, NULL, 0, start, end, false, out);
}

void ipcc_lifted_release(struct ipcc_lifted *l)
{
	free(l->text);
	free(l->address);
	memset(l, 0, sizeof(*l));
}
