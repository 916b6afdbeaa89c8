/*
 * skid/explain.c - a recording's hot loops through the pipeline model (explain.h): lift each chosen
 * loop, run the model, set the measured shares beside the predicted ones, and move each
 * sample back to the instruction that held retirement when it was taken.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_int.h"
#include "ipcc/explain.h"
#include "ipcc/skid.h"
#include "ipcc/lines.h"
#include "ipcc/recording.h"
#include "recording/disasm_int.h"

/* Conditional forward branches inside a body tried as mispredicting, at most. */
#define MAX_TWO_WAY 4

/*
 * The mispredict rates tried for each: random data's (0.5, the most a predictor misses)
 * alone. Where samples land shows whether a branch mispredicts, not how often: 10%, 25% and
 * 50% give one shape, and which fitted best was noise (a random branch's loop came out at 10%
 * in two runs of six on Zen 5).
 */
static const double rates[] = { 0.5 };

/* A fit must beat the one before it by this much total-variation distance. */
#define FIT_MARGIN 0.05

/* One of a loop's samples: the row it landed on (or UINT32_MAX) and when. */
struct landing {
	uint64_t time;
	uint32_t row;
};

static int by_time(const void *a, const void *b)
{
	const struct landing *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

/* The row at address a (rows sorted by address), or UINT32_MAX. */
static uint32_t row_at(const struct ipcc_explain_row *r, unsigned n, uint64_t a)
{
	unsigned lo = 0, hi = n;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (r[mid].address < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && r[lo].address == a ? lo : UINT32_MAX;
}

/*
 * The share of a two-way branch's instances taken, with each rate of rates[]: random data's
 * half. The model runs both sides of the branch; where a taken one's samples land follows
 * its target (docs/internals/model.md, `taken=F`).
 */
#define TAKEN 0.5

/* Insert `add` into *text (replaced by a new string) at offset `at`. */
static int insert(char **text, size_t at, const char *add)
{
	size_t len = strlen(*text), alen = strlen(add);
	char *s = malloc(len + alen + 1);

	if (!s)
		return err_set(IPCC_ENOMEM, "explain: out of memory");
	memcpy(s, *text, at);
	memcpy(s + at, add, alen);
	memcpy(s + at + alen, *text + at, len - at + 1);
	free(*text);
	*text = s;
	return 0;
}

/*
 * Append " mispredict=RATE taken=TAKEN" to the comment of the branch at address a in the
 * lifted text *text (replaced by a new string), and put its label (the lifter's name, .LADDR)
 * before the instruction at its target `to`.
 */
static int mark_mispredict(char **text, uint64_t a, uint64_t to, double rate)
{
	char tag[40], add[64];
	const char *at;
	int ret;

	snprintf(tag, sizeof(tag), "; %#" PRIx64 "\n", a);
	at = strstr(*text, tag);
	if (!at)
		return 0;
	snprintf(add, sizeof(add), " mispredict=%.2f taken=%.2f", rate, TAKEN);
	ret = insert(text, (size_t)(at - *text) + strlen(tag) - 1, add); /* before the newline */
	snprintf(tag, sizeof(tag), "; %#" PRIx64 "\n", to);
	at = ret ? NULL : strstr(*text, tag);
	if (!at)
		return ret;
	while (at > *text && at[-1] != '\n')
		at--;
	snprintf(add, sizeof(add), ".L%" PRIx64 ":\n", to);
	return insert(text, (size_t)(at - *text), add);
}

/* The loop's rows from Capstone: each instruction's address and disassembly. */
static int disassemble(csh cs, struct ipcc_symbols *syms, struct ipcc_explain_loop *e)
{
	const struct ipcc_loop *lp = &e->loop;
	size_t len = (size_t)(lp->end - lp->start), ninsn;
	unsigned char *code = malloc(len ? len : 1);
	cs_insn *insn = NULL;
	int ret = 0;

	if (!code)
		return err_set(IPCC_ENOMEM, "explain: out of memory");
	if (ipcc_symbols_read(syms, lp->file, lp->start, code, &len)) {
		free(code);
		return IPCC_EINVAL;
	}
	ninsn = cs_disasm(cs, code, len, lp->start, 0, &insn);
	e->rows = calloc(ninsn ? ninsn : 1, sizeof(*e->rows));
	if (!e->rows) {
		ret = err_set(IPCC_ENOMEM, "explain: out of memory");
		goto out;
	}
	for (size_t i = 0; i < ninsn; i++) {
		struct ipcc_explain_row *r = &e->rows[e->nrows++];

		r->address = insn[i].address;
		snprintf(r->text, sizeof(r->text), "%s%s%s", insn[i].mnemonic,
			 insn[i].op_str[0] ? " " : "", insn[i].op_str);
	}
out:
	cs_free(insn, ninsn);
	free(code);
	return ret;
}

/*
 * The two-way branches: conditional jumps forward to a target inside the body, the first
 * MAX_TWO_WAY of them (addresses in at[], targets in to[], mnemonics in name[]). Their count.
 */
static unsigned two_way_branches(csh cs, struct ipcc_symbols *syms, const struct ipcc_loop *lp,
				 uint64_t *at, uint64_t *to, char (*name)[32])
{
	size_t len = (size_t)(lp->end - lp->start), ninsn;
	unsigned char *code = malloc(len ? len : 1);
	cs_insn *insn = NULL;
	unsigned n = 0;

	if (!code || ipcc_symbols_read(syms, lp->file, lp->start, code, &len)) {
		free(code);
		return 0;
	}
	ninsn = cs_disasm(cs, code, len, lp->start, 0, &insn);
	for (size_t i = 0; i < ninsn && n < MAX_TWO_WAY; i++) {
		const cs_insn *in = &insn[i];
		const cs_x86 *x = &in->detail->x86;
		uint64_t target;

		if (!cs_insn_group(cs, in, CS_GRP_JUMP) || in->id == X86_INS_JMP ||
		    x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
			continue;
		target = (uint64_t)x->operands[0].imm;
		if (target <= in->address + in->size || target >= lp->end)
			continue;
		at[n] = in->address;
		to[n] = target;
		snprintf(name[n++], sizeof(name[0]), "%s", in->mnemonic);
	}
	cs_free(insn, ninsn);
	free(code);
	return n;
}

/*
 * Each row's source line, from the line tables of the loop's file: opened once per file
 * (the tables of files[0..*nfiles), their names in names[]).
 */
#define MAX_LINE_FILES 16

struct line_files {
	const char *name[MAX_LINE_FILES];
	struct ipcc_lines *lines[MAX_LINE_FILES];
	unsigned n;
};

static void source_lines(struct line_files *lf, struct ipcc_explain_loop *e, bool *any)
{
	struct ipcc_lines *l = NULL;
	unsigned k;

	for (k = 0; k < lf->n && strcmp(lf->name[k], e->loop.file); k++)
		;
	if (k < lf->n) {
		l = lf->lines[k];
	} else if (lf->n < MAX_LINE_FILES && !ipcc_lines_open(e->loop.file, &l)) {
		lf->name[lf->n] = e->loop.file;
		lf->lines[lf->n++] = l;
	}
	if (!l)
		return;
	for (unsigned r = 0; r < e->nrows; r++)
		*any |= ipcc_lines_find(l, e->rows[r].address, e->rows[r].line,
					sizeof(e->rows[r].line));
}

/* Whether sample y is in loop lp's body. */
static bool in_loop(const struct ipcc_symbol *y, const struct ipcc_loop *lp)
{
	return y->file && y->function && y->func_start == lp->function_start &&
	       y->elf_addr >= lp->start && y->elf_addr < lp->end && !strcmp(y->file, lp->file);
}

/* The measured side: samples per row, unplaced ones, and the two halves' distance. */
static int measure(const struct ipcc_recording *p, const struct ipcc_symbol *sym,
		   struct ipcc_explain_loop *e)
{
	struct landing *l = malloc((e->loop.samples + 1) * sizeof(*l));
	double *half[2];
	size_t n = 0;

	half[0] = calloc(e->nrows + 1, sizeof(double));
	half[1] = calloc(e->nrows + 1, sizeof(double));
	if (!l || !half[0] || !half[1]) {
		free(l), free(half[0]), free(half[1]);
		return err_set(IPCC_ENOMEM, "explain: out of memory");
	}
	for (size_t i = 0; i < p->nsamples; i++) {
		uint32_t r;

		if (!in_loop(&sym[i], &e->loop))
			continue;
		r = row_at(e->rows, e->nrows, sym[i].elf_addr);
		if (r == UINT32_MAX) {
			e->unplaced++;
			continue;
		}
		e->rows[r].samples++;
		e->samples++;
		if (n <= e->loop.samples)
			l[n++] = (struct landing){ p->samples[i].time_ns, r };
	}
	for (unsigned k = 0; k < e->nrows; k++)
		e->rows[k].measured =
		    e->samples ? (double)e->rows[k].samples / (double)e->samples : 0;
	qsort(l, n, sizeof(*l), by_time);
	for (size_t i = 0; i < n; i++)
		half[i >= n / 2][l[i].row] += 1;
	e->halves = ipcc_skid_tv(half[0], half[1], e->nrows);
	free(l), free(half[0]), free(half[1]);
	return 0;
}

/*
 * The lifted text with the branches at[k] (targets to[k]) marked mispredicted at rate[k] > 0
 * (a new string).
 */
static char *marked(const char *text, const uint64_t *at, const uint64_t *to, const double *rate,
		    unsigned n)
{
	char *t = strdup(text);

	for (unsigned k = 0; k < n && t; k++)
		if (rate[k] > 0 && mark_mispredict(&t, at[k], to[k], rate[k])) {
			free(t);
			t = NULL;
		}
	return t;
}

/*
 * Parse and run `text`; on success *res and *prog are the caller's and the distance to the
 * measured shares is returned in *d.
 */
static int run(const char *text, const struct ipcc_explain_opts *o, struct ipcc_explain_loop *e,
	       struct ipcc_model_program **prog, struct ipcc_model_result *res, double *d)
{
	uint64_t iters = o->iterations ? o->iterations : 200;
	struct ipcc_model_opts mo = { iters, iters / 2, true };
	struct ipcc_model_error perr;
	double *m = calloc(e->nrows + 1, sizeof(*m)), *q = calloc(e->nrows + 1, sizeof(*q));
	int ret = m && q ? 0 : err_set(IPCC_ENOMEM, "explain: out of memory");

	*prog = NULL;
	memset(res, 0, sizeof(*res));
	if (!ret)
		ret = ipcc_model_parse_mode(text, o->profile, IPCC_MODEL_LENIENT, prog, &perr);
	if (!ret && ipcc_model_program_size(*prog) != e->nrows)
		ret = err_set(IPCC_EINVAL, "%u instructions lifted, %u modelled", e->nrows,
			      ipcc_model_program_size(*prog));
	if (!ret)
		ret = ipcc_model_run(*prog, o->profile, &mo, res);
	if (!ret) {
		for (unsigned k = 0; k < e->nrows; k++)
			m[k] = e->rows[k].measured, q[k] = res->rows[k].share;
		*d = ipcc_skid_tv(m, q, e->nrows);
	} else {
		ipcc_model_program_free(*prog);
		*prog = NULL;
	}
	free(m);
	free(q);
	return ret;
}

/* A limit within this share of the bound's is named beside it: as long. */
#define TIE 0.02

/*
 * The bound in words: its name and cycles per iteration, for a chain its instructions, and
 * the limits as long as it ("dependency chain, 1.00 cycles/iteration: add rax, 1; as long:
 * store ports").
 */
static void describe_bound(struct ipcc_explain_loop *e)
{
	const struct ipcc_model_bound *b = &e->bound;
	const double top = b->limit[b->bound];
	size_t len = (size_t)snprintf(e->bound_text, sizeof(e->bound_text),
				      "%s, %.2f cycles/iteration", b->name, top);
	unsigned ties = 0;

	for (unsigned k = 0; b->bound == IPCC_LIMIT_CHAIN && k < b->nchain; k++)
		if (b->chain[k] < e->nrows && len < sizeof(e->bound_text))
			len +=
			    (size_t)snprintf(e->bound_text + len, sizeof(e->bound_text) - len,
					     "%s%s", k ? " -> " : ": ", e->rows[b->chain[k]].text);
	for (int l = 0; l < IPCC_LIMITS && top > 0; l++)
		if (l != (int)b->bound && b->limit[l] >= (1 - TIE) * top &&
		    len < sizeof(e->bound_text))
			len += (size_t)snprintf(e->bound_text + len, sizeof(e->bound_text) - len,
						"%s%s", ties++ ? ", " : "; as long: ",
						ipcc_model_limit_name((enum ipcc_model_limit)l));
}

/*
 * The model's side: lift, parse leniently, run; predicted shares, selected instructions,
 * cycles per iteration. Each two-way branch is tried mispredicting at each of rates[], one
 * branch after the other, and a rate kept when it brings the prediction closer to where the
 * samples landed (by FIT_MARGIN) than the best so far. A failure is the loop's (status, why), not the call's,
 * unless it is out of memory.
 */
static int model(struct ipcc_symbols *syms, csh cs, const struct ipcc_explain_opts *o,
		 struct ipcc_explain_loop *e)
{
	struct ipcc_lifted lifted;
	struct ipcc_model_program *prog = NULL;
	struct ipcc_model_result res = { 0 };
	uint64_t at[MAX_TWO_WAY], to[MAX_TWO_WAY];
	char name[MAX_TWO_WAY][32];
	double rate[MAX_TWO_WAY] = { 0 }, best = NAN, *w = NULL;
	unsigned nb;
	char *text = NULL;
	int ret = ipcc_lift_range(syms, e->loop.file, e->loop.start, e->loop.end, &lifted);

	if (ret) {
		e->status = ret;
		snprintf(e->why, sizeof(e->why), "cannot lift its code: %s", ipcc_last_error());
		return ret == IPCC_ENOMEM ? ret : 0;
	}
	nb = two_way_branches(cs, syms, &e->loop, at, to, name);
	ret = run(lifted.text, o, e, &prog, &res, &best);
	for (unsigned k = 0; k < nb && !ret && e->samples; k++)
		for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]) && !ret; r++) {
			struct ipcc_model_program *tp;
			struct ipcc_model_result tr;
			double d, keep = rate[k];

			rate[k] = rates[r];
			text = marked(lifted.text, at, to, rate, nb);
			ret = text ? run(text, o, e, &tp, &tr, &d)
				   : err_set(IPCC_ENOMEM, "explain: out of memory");
			free(text);
			if (ret)
				break;
			if (d < best - FIT_MARGIN) {
				best = d;
				ipcc_model_result_release(&res);
				ipcc_model_program_free(prog);
				res = tr;
				prog = tp;
			} else {
				rate[k] = keep;
				ipcc_model_result_release(&tr);
				ipcc_model_program_free(tp);
			}
		}
	if (ret) {
		e->status = ret;
		snprintf(e->why, sizeof(e->why), "the model cannot run it: %s", ipcc_last_error());
		goto out;
	}
	for (unsigned k = 0, len = 0; k < nb; k++)
		if (rate[k] > 0 && len < sizeof(e->mispredicts)) {
			e->nmispredicts++;
			len +=
			    (unsigned)snprintf(e->mispredicts + len, sizeof(e->mispredicts) - len,
					       "%s%s %#" PRIx64 " at %.0f%%", len ? ", " : "",
					       name[k], at[k], 100 * rate[k]);
		}
	e->napproximated =
	    ipcc_model_program_approximated(prog, e->approximated, sizeof(e->approximated));
	ret = ipcc_model_bound(prog, o->profile, &e->bound);
	if (ret) {
		e->status = ret;
		snprintf(e->why, sizeof(e->why), "no bound: %s", ipcc_last_error());
		goto out;
	}
	describe_bound(e);
	e->cycles_per_iteration = res.summary.cycles_per_iteration;
	e->ipc = res.summary.ipc;
	w = calloc(e->nrows, sizeof(*w));
	if (!w) {
		ret = err_set(IPCC_ENOMEM, "explain: out of memory");
		goto out;
	}
	/* Selected: ever the oldest unretired instruction in the counted iterations. */
	for (uint64_t t = 0; t < res.ntrace; t++)
		if (res.trace[t].iteration >= res.ntrace / e->nrows - res.summary.iterations &&
		    res.trace[t].selected)
			w[res.trace[t].index] += (double)res.trace[t].weight;
	for (unsigned k = 0; k < e->nrows; k++) {
		e->rows[k].predicted = res.rows[k].share;
		e->rows[k].selected = w[k] > 0;
		e->rows[k].approximated = ipcc_model_program_approximate(prog, k);
	}
out:
	free(w);
	ipcc_model_result_release(&res);
	ipcc_model_program_free(prog);
	ipcc_lifted_release(&lifted);
	return ret == IPCC_ENOMEM ? ret : 0;
}

/*
 * Move each row's samples to the instruction that held retirement when they were taken: the
 * nearest selected row before it (placement next), or at or before it (oldest), cyclically.
 */
static void deskid(const struct ipcc_model_profile *prof, struct ipcc_explain_loop *e)
{
	const unsigned n = e->nrows;
	const bool oldest = prof->placement == IPCC_MODEL_PLACE_OLDEST;
	uint64_t moved = 0;
	double *to = calloc(n ? n : 1, sizeof(*to));
	double *m = calloc(n ? n : 1, sizeof(*m)), *q = calloc(n ? n : 1, sizeof(*q));

	if (!to || !m || !q)
		goto out;
	for (unsigned t = 0; t < n; t++) {
		unsigned c = oldest ? t : (t + n - 1) % n, steps = 0;

		if (!e->rows[t].samples)
			continue;
		while (!e->rows[c].selected && steps++ < n)
			c = (c + n - 1) % n;
		if (!e->rows[c].selected)
			c = t; /* nothing selected: nowhere to move it */
		to[c] += (double)e->rows[t].samples;
		moved += c != t ? e->rows[t].samples : 0;
	}
	e->explained = 0;
	for (unsigned k = 0; k < n; k++) {
		e->rows[k].deskid = e->samples ? to[k] / (double)e->samples : 0;
		m[k] = e->rows[k].measured;
		q[k] = e->rows[k].predicted;
		if (q[k] > 0)
			e->explained += m[k];
	}
	e->deskid_moved = e->samples ? (double)moved / (double)e->samples : 0;
	e->distance = ipcc_skid_tv(m, q, n);
	e->verdict = ipcc_skid_judge(e->explained, e->distance, e->halves);
out:
	free(to);
	free(m);
	free(q);
}

int ipcc_explain(const struct ipcc_recording *p, struct ipcc_symbols *syms,
		 const struct ipcc_explain_opts *o, struct ipcc_explain *out)
{
	struct ipcc_symbol *sym = calloc(p->nsamples + 1, sizeof(*sym));
	struct line_files lf = { 0 };
	csh cs;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!sym)
		return err_set(IPCC_ENOMEM, "explain: out of memory for %zu samples", p->nsamples);
	ret = ipcc_loops_find(p, syms, &(struct ipcc_loops_opts){ o->max_loops, o->cover },
			      &out->loops);
	if (ret) {
		free(sym);
		return ret;
	}
	ret = disasm_open(&cs);
	if (ret) {
		free(sym);
		ipcc_loops_release(&out->loops);
		return ret;
	}
	for (size_t i = 0; i < p->nsamples; i++)
		ipcc_symbols_resolve(syms, &p->samples[i], &sym[i]);
	out->loop = calloc(out->loops.nselected + 1, sizeof(*out->loop));
	if (!out->loop)
		ret = err_set(IPCC_ENOMEM, "explain: out of memory");
	for (size_t k = 0; k < out->loops.n && !ret; k++) {
		struct ipcc_explain_loop *e;

		if (!out->loops.loop[k].selected)
			continue;
		e = &out->loop[out->n++];
		e->loop = out->loops.loop[k];
		e->index = k;
		for (size_t j = 0; j < out->loops.n; j++)
			e->inner += out->loops.loop[j].parent == (int)k;
		ret = disassemble(cs, syms, e);
		if (ret == IPCC_EINVAL) {
			e->status = ret;
			snprintf(e->why, sizeof(e->why), "its code cannot be read");
			ret = 0;
			continue;
		}
		source_lines(&lf, e, &out->lines);
		if (!ret)
			ret = measure(p, sym, e);
		if (!ret)
			ret = model(syms, cs, o, e);
		if (!ret && !e->status)
			deskid(o->profile, e);
	}
	cs_close(&cs);
	free(sym);
	for (unsigned k = 0; k < lf.n; k++)
		ipcc_lines_close(lf.lines[k]);
	if (ret)
		ipcc_explain_release(out);
	return ret;
}

void ipcc_explain_release(struct ipcc_explain *e)
{
	for (size_t k = 0; k < e->n; k++)
		free(e->loop[k].rows);
	free(e->loop);
	ipcc_loops_release(&e->loops);
	memset(e, 0, sizeof(*e));
}
