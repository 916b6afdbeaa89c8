/*
 * model/parse.c - x86-64 Intel-syntax assembly text into the model's program: lines,
 * labels and comments, the directives, the program and its accessors. One instruction
 * line is parse_insn.c's; its operands are operands.c's.
 *
 * One instruction per line, as pasted from a listing: an optional label, an optional `lock`
 * prefix, the mnemonic, operands (registers, immediates, [base + index*scale + disp] with an
 * optional size such as `qword ptr`, labels for jumps). `;` or `#` starts a comment, whose
 * words may override the table: lat=N, uops=N, fe_stall=N, mispredict[=F], taken=F,
 * at_retire (taken=F on a jump to a later label: where a taken one's samples land). NASM's
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
#include "insn_int.h"
#include "parse_int.h"

int model_parse_fail(struct parser *ps, const char *at, const char *fmt, ...)
{
	va_list ap;

	ps->err->line = ps->line;
	ps->err->column = at ? (unsigned)(at - ps->line_start) + 1 : 1;
	va_start(ap, fmt);
	vsnprintf(ps->err->message, sizeof(ps->err->message), fmt, ap);
	va_end(ap);
	return err_set(IPCC_EINVAL, "%u:%u: %s", ps->err->line, ps->err->column, ps->err->message);
}

uint32_t model_pool_add(struct ipcc_model_program *prog, const char *s, size_t len)
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

int model_emit(struct parser *ps, const struct minsn *in, unsigned times)
{
	struct ipcc_model_program *prog = ps->prog;

	if ((uint64_t)prog->n + times > MODEL_MAX_INSNS)
		return model_parse_fail(ps, NULL, "the block expands to more than %d instructions",
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

#define MAX_REP_DEPTH 16

/*
 * The profile's merge_zero_upper: each scalar operation that keeps another register's upper
 * part (minsn.merge_reg) stops reading it where that register's last writer before it in the
 * loop (around the loop's branch) leaves its upper part zero: a scalar operation, a zero idiom,
 * movd or movq. One with no writer in the loop reads what came before it, which no iteration
 * waits for.
 */
static void mark_zero_upper_merges(struct ipcc_model_program *prog)
{
	const unsigned n = prog->n;

	for (unsigned k = 0; k < n; k++) {
		struct minsn *in = &prog->insn[k];
		const uint64_t merge = in->merge_reg ? 1ull << (in->merge_reg - 1) : 0;

		if (!(in->reads & merge))
			continue;
		for (unsigned j = 1; j <= n; j++) {
			const struct minsn *w = &prog->insn[(k + n - j) % n];
			char wm[32];
			size_t wl;

			if (!(w->writes & merge))
				continue;
			model_lex_word(model_lex_space(prog->pool + w->text), wm, sizeof(wm));
			wl = strlen(wm);
			if (w->zero ||
			    (wl >= 4 &&
			     (!strcmp(wm + wl - 2, "ss") || !strcmp(wm + wl - 2, "sd"))) ||
			    model_word_in(wm, (const char *const[]){ "movd", "movq", "vmovd",
								     "vmovq", NULL }))
				in->reads &= ~merge;
			break;
		}
	}
}

int ipcc_model_parse(const char *text, const struct ipcc_model_profile *p,
		     struct ipcc_model_program **out, struct ipcc_model_error *err)
{
	return ipcc_model_parse_mode(text, p, IPCC_MODEL_STRICT, out, err);
}

int ipcc_model_parse_mode(const char *text, const struct ipcc_model_profile *p,
			  enum ipcc_model_mode mode, struct ipcc_model_program **out,
			  struct ipcc_model_error *err)
{
	struct ipcc_model_program *prog = calloc(1, sizeof(*prog));
	struct parser ps = {
		.p = p, .prog = prog, .err = err, .lenient = mode == IPCC_MODEL_LENIENT
	};
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
				ret = model_parse_fail(&ps, line + strlen(line),
						       "a NUL byte in the text");
				break;
			}
		}
		comment = line + strcspn(line, ";#");
		c = *comment ? comment + 1 : comment;
		*comment = '\0';
		{
			const char *t = model_lex_space(line);
			char w[64];
			const char *after = model_lex_word(t, w, sizeof(w));

			/* label: the jumps with taken=F that wait for it skip to here */
			if (*w && *after == ':') {
				for (unsigned j = 0; j < ps.njumps;) {
					if (strcmp(ps.jumps[j].label, w)) {
						j++;
						continue;
					}
					prog->insn[ps.jumps[j].at].skip =
					    prog->n - ps.jumps[j].at - 1;
					ps.jumps[j] = ps.jumps[--ps.njumps];
				}
				ps.label_before = true;
				t = model_lex_space(after + 1);
				after = model_lex_word(t, w, sizeof(w));
			}
			if (!*t)
				continue;
			if (*t == '%') {
				char d[16];
				const char *dat = t;

				after = model_lex_word(t + 1, d, sizeof(d));
				if (!strcmp(d, "rep")) {
					char num[32];
					const char *nat = model_lex_space(after);
					char *end;
					unsigned long v;

					model_lex_word(nat, num, sizeof(num));
					errno = 0;
					v = strtoul(num, &end, 0);
					if (!*num || *end || errno || v > MODEL_MAX_INSNS) {
						ret = model_parse_fail(&ps, nat,
								       "%%rep needs a count");
						break;
					}
					if (depth == MAX_REP_DEPTH) {
						ret = model_parse_fail(&ps, dat,
								       "%%rep nested too deep");
						break;
					}
					rep[depth].start = prog->n;
					rep[depth].count = (unsigned)v;
					rep[depth].line = ps.line;
					depth++;
				} else if (!strcmp(d, "harness")) {
					prog->harness = true;
				} else if (!strcmp(d, "endrep")) {
					unsigned start, count, body;

					if (depth == 0) {
						ret = model_parse_fail(&ps, dat,
								       "%%endrep without %%rep");
						break;
					}
					depth--;
					start = rep[depth].start;
					count = rep[depth].count;
					body = prog->n - start;
					if (count == 0) {
						prog->n = start;
					} else if ((uint64_t)body * count > MODEL_MAX_INSNS) {
						ret = model_parse_fail(
						    &ps, dat,
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

								ret = model_emit(&ps, &copy, 1);
							}
					}
				} else {
					ret = model_parse_fail(&ps, dat, "unknown directive '%%%s'",
							       d);
				}
				if (*model_lex_space(after) && ret == 0 && strcmp(d, "rep") != 0)
					ret = model_parse_fail(&ps, model_lex_space(after),
							       "unexpected text after "
							       "the directive");
				continue;
			}
			if (!strcmp(w, "times")) {
				char num[32];
				const char *nat = model_lex_space(after);
				char *end;
				unsigned long v;

				after = model_lex_word(nat, num, sizeof(num));
				errno = 0;
				v = strtoul(num, &end, 0);
				if (!*num || *end || errno || v > MODEL_MAX_INSNS) {
					ret = model_parse_fail(&ps, nat, "'times' needs a count");
					break;
				}
				ret = model_parse_insn(&ps, after, c, (unsigned)v);
				continue;
			}
			ret = model_parse_insn(&ps, t, c, 1);
		}
	}
	free(buf);
	free(ps.jumps);
	if (ret == 0 && depth > 0) {
		ps.line = rep[depth - 1].line;
		ps.line_start = NULL;
		ret = model_parse_fail(&ps, NULL, "%%rep without %%endrep");
	}
	if (ret == 0 && prog->n == 0) {
		ps.line = ps.line ? ps.line : 1;
		ret = model_parse_fail(&ps, NULL, "no instructions");
	}
	if (ret) {
		ipcc_model_program_free(prog);
		return ret;
	}
	if (prog->harness) {
		struct mkey *keys = malloc(prog->n * sizeof(*keys));

		for (unsigned k = 0; keys && k < prog->n; k++)
			keys[k] = prog->insn[k].key;
		model_harness_keys(prog, p);
		if (keys && p->forward_fail_latency)
			model_harness_values(prog, keys, p);
		free(keys);
		model_mark_x87_faults(prog, p);
		model_mark_splits(prog, p);
		model_mark_reps(prog, p);
		if (p->fp_assist_cycles)
			model_mark_fp_assists(prog);
	}
	model_mark_store_chunks(prog, p);
	if (p->merge_zero_upper)
		mark_zero_upper_merges(prog);
	if (p->dep_load_ports)
		model_mark_dep_loads(prog);
	if (p->forward_fail_latency)
		model_mark_forward_fails(prog, p);
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

bool ipcc_model_program_approximate(const struct ipcc_model_program *prog, unsigned i)
{
	return i < prog->n && prog->insn[i].approx;
}

/* The mnemonic of an instruction's text, with its prefixes: "rep stosq". */
static size_t mnemonic_len(const char *t)
{
	const char *s = model_lex_space(t);
	char w[32];

	for (;;) {
		const char *e = model_lex_word(s, w, sizeof(w));

		if (!*w)
			return (size_t)(s - t);
		if (strcmp(w, "lock") && !model_insn_is_prefix(w))
			return (size_t)(e - t);
		s = model_lex_space(e);
	}
}

unsigned ipcc_model_program_approximated(const struct ipcc_model_program *prog, char *names,
					 size_t len)
{
	unsigned count = 0;
	size_t used = 0;

	if (names && len)
		names[0] = '\0';
	for (unsigned i = 0; i < prog->n; i++) {
		const char *t = prog->pool + prog->insn[i].text;
		size_t ml = mnemonic_len(t);
		bool seen = false;

		if (!prog->insn[i].approx)
			continue;
		count++;
		for (unsigned k = 0; k < i && !seen; k++) {
			const char *u = prog->pool + prog->insn[k].text;

			seen = prog->insn[k].approx && mnemonic_len(u) == ml && !strncmp(u, t, ml);
		}
		if (seen || !names || !len)
			continue;
		{
			int w = snprintf(names + used, len - used, "%s%.*s", used ? ", " : "",
					 (int)ml, t);

			if (w < 0 || (size_t)w >= len - used) {
				/* cut: end with "..." where it fits */
				if (len >= 4)
					memcpy(names + len - 4, "...", 4);
				used = len - 1;
			} else {
				used += (size_t)w;
			}
		}
	}
	return count;
}
