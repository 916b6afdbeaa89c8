/*
 * model/operands.c - the lexer: words, numbers, register names and operands (registers,
 * immediates, [base + index*scale + disp] with an optional size and segment, labels), with
 * every address normalised into a key.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_int.h"
#include "parse_int.h"

/* ---- registers ------------------------------------------------------------------------- */

static int lex_gpr(const char *s)
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

/* Whether s names an 8- or 16-bit part of a general register (al, ah, ax, r8b, r8w). */
static bool lex_gpr_partial(const char *s)
{
	size_t n = strlen(s);

	if (lex_gpr(s) < 0)
		return false;
	if (s[0] == 'r' && isdigit((unsigned char)s[1]))
		return s[n - 1] == 'b' || s[n - 1] == 'w';
	return n == 2 ? s[0] != 'e' && s[0] != 'r' : !strcmp(s + 1, "pl") || !strcmp(s + 1, "il");
}

/* Whether s names a whole 64-bit general register (rax, rsp, r8; not eax, r8d). */
static bool lex_gpr_wide(const char *s)
{
	size_t n = strlen(s);

	return lex_gpr(s) >= 0 && s[0] == 'r' &&
	       (isdigit((unsigned char)s[1]) ? isdigit((unsigned char)s[n - 1]) : n == 3);
}

/* A register's bit number, or -1. */
static int lex_reg_id(const char *s)
{
	char *end;
	long n;

	if (lex_gpr(s) >= 0)
		return lex_gpr(s);
	if ((!strncmp(s, "xmm", 3) || !strncmp(s, "ymm", 3) || !strncmp(s, "zmm", 3)) &&
	    isdigit((unsigned char)s[3])) {
		n = strtol(s + 3, &end, 10);
		if (!*end && n >= 0 && n < 32)
			return REG_VEC0 + (int)n;
	}
	return -1;
}

const char *model_lex_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

bool model_word_in(const char *w, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(w, *list))
			return true;
	return false;
}

/* An identifier or number token [A-Za-z0-9_.$@]+, lower-cased into buf. */
const char *model_lex_word(const char *s, char *buf, size_t len)
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

/* A number token's value (is_number: decimal, 0x hex, NASM's 10h). */
static uint64_t number_value(const char *w)
{
	size_t n = strlen(w);

	if (n > 1 && w[n - 1] == 'h' && (w[0] != '0' || (w[1] != 'x' && w[1] != 'b')))
		return strtoull(w, NULL, 16);
	return strtoull(w, NULL, 0);
}

/* A symbol's hash (FNV-1a), never 0. */
static uint32_t symbol_hash(const char *w)
{
	uint32_t h = 2166136261u;

	while (*w)
		h = (h ^ (unsigned char)*w++) * 16777619u;
	return h ? h : 1;
}

/*
 * The address key of a memory operand with `nregs` registers regs[] (scales[]): one with
 * scale 1 alone is a base; two of scale 1 are ordered by register number.
 */
static void make_key(struct mkey *k, int nregs, const int *regs, const int *scales)
{
	int b = -1, x = -1, sc = 0;

	if (nregs == 1 && scales[0] == 1) {
		b = regs[0];
	} else if (nregs == 1) {
		x = regs[0], sc = scales[0];
	} else if (nregs == 2) {
		int i = scales[0] > 1 && scales[1] == 1 ? 1 : 0; /* the base */

		if (scales[0] == 1 && scales[1] == 1 && regs[1] < regs[0])
			i = 1;
		b = regs[i], x = regs[1 - i], sc = scales[1 - i];
	}
	k->base = (int8_t)b;
	k->index = (int8_t)x;
	k->scale = (uint8_t)sc;
}

/* [base + index*scale + disp] starting at '[': fills o, returns the character after ']'. */
static const char *parse_mem(struct parser *ps, const char *s, struct operand *o)
{
	int nregs = 0, regs[2], scales[2];
	bool want_term = true, minus = false;

	o->kind = O_MEM;
	o->addr_regs = 0;
	o->key.disp = 0;
	o->key.sym = 0;
	s = model_lex_space(s + 1);
	for (;;) {
		char w[64];
		const char *at = s;

		if (*s == ']') {
			if (want_term)
				return model_parse_fail(ps, at,
							"expected a register or number before ']'"),
				       NULL;
			make_key(&o->key, nregs, regs, scales);
			o->base = nregs > 0 && scales[0] == 1	? regs[0]
				  : nregs > 1 && scales[1] == 1 ? regs[1]
								: -1;
			return s + 1;
		}
		if (!want_term) {
			if (*s != '+' && *s != '-')
				return model_parse_fail(
					   ps, at, "expected '+', '-' or ']' in a memory operand"),
				       NULL;
			minus = *s == '-';
			s = model_lex_space(s + 1);
			want_term = true;
			continue;
		}
		s = model_lex_word(s, w, sizeof(w));
		if (!*w)
			return model_parse_fail(ps, at, "unexpected '%c' in a memory operand",
						*at ? *at : ' '),
			       NULL;
		s = model_lex_space(s);
		if (lex_reg_id(w) >= 0) {
			if (lex_reg_id(w) >= REG_VEC0)
				return model_parse_fail(ps, at, "'%s' cannot address memory", w),
				       NULL;
			if (++nregs > 2)
				return model_parse_fail(ps, at,
							"more than two registers in an address"),
				       NULL;
			o->addr_regs |= 1ull << lex_reg_id(w);
			regs[nregs - 1] = lex_reg_id(w);
			scales[nregs - 1] = 1;
			if (*s == '*') {
				char sc[16];
				const char *sat = model_lex_space(s + 1);

				s = model_lex_space(model_lex_word(sat, sc, sizeof(sc)));
				if (strcmp(sc, "1") && strcmp(sc, "2") && strcmp(sc, "4") &&
				    strcmp(sc, "8"))
					return model_parse_fail(ps, sat,
								"scale must be 1, 2, 4 or 8"),
					       NULL;
				scales[nregs - 1] = sc[0] - '0';
			}
		} else if (is_number(w) && *s == '*') {
			/* scale*reg */
			char r[16];
			const char *rat = model_lex_space(s + 1);

			if (strcmp(w, "1") && strcmp(w, "2") && strcmp(w, "4") && strcmp(w, "8"))
				return model_parse_fail(ps, at, "scale must be 1, 2, 4 or 8"), NULL;
			s = model_lex_space(model_lex_word(rat, r, sizeof(r)));
			if (lex_reg_id(r) < 0 || lex_reg_id(r) >= REG_VEC0)
				return model_parse_fail(ps, rat,
							"expected an index register after '*'"),
				       NULL;
			if (++nregs > 2)
				return model_parse_fail(ps, rat,
							"more than two registers in an address"),
				       NULL;
			o->addr_regs |= 1ull << lex_reg_id(r);
			regs[nregs - 1] = lex_reg_id(r);
			scales[nregs - 1] = w[0] - '0';
		} else if (is_number(w)) { /* numbers and symbols are displacements */
			uint64_t v = number_value(w);

			o->key.disp += minus ? 0 - v : v;
		} else if (isalpha((unsigned char)w[0]) || w[0] == '_' || w[0] == '.') {
			uint32_t h = symbol_hash(w);

			o->key.sym += minus ? 0 - h : h;
		} else {
			return model_parse_fail(ps, at, "bad displacement '%s'", w), NULL;
		}
		want_term = false;
		minus = false;
	}
}

/*
 * After a segment override (fs:, cs: ...) at s, or s; *seg: its number + 1 for fs and gs,
 * else kept. In 64-bit mode cs, ds, es and ss have base 0: ds:[rdi] is [rdi] (four movdqa
 * [rdi + 16*k], xmm0, the first with a ds prefix, 2.00 cycles a loop on Emerald Rapids, as
 * without it; 3.00 modelled when the prefix made its address another).
 */
static const char *skip_segment(const char *s, uint8_t *seg)
{
	static const char *const segs[] = { "cs", "ds", "es", "fs", "gs", "ss", NULL };
	char w[8];
	const char *e = model_lex_word(s, w, sizeof(w));

	for (int i = 0; segs[i]; i++)
		if (!strcmp(w, segs[i]) && *e == ':') {
			if (w[0] == 'f' || w[0] == 'g')
				*seg = (uint8_t)(i + 1);
			return model_lex_space(e + 1);
		}
	return s;
}

/* One operand at s; returns the character after it. */
const char *model_lex_operand(struct parser *ps, const char *s, struct operand *o)
{
	static const char *const sizes[] = { "byte",  "word",	 "dword",   "qword",   "tword",
					     "oword", "xmmword", "ymmword", "zmmword", NULL };
	char w[64];
	const char *at;
	uint8_t seg = 0;

	s = skip_segment(model_lex_space(s), &seg);
	o->at = s;
	if (*s == '[') {
		s = parse_mem(ps, s, o);
		o->key.segment = seg;
		return s;
	}
	at = s;
	if (*s == '-' || *s == '+') {
		s = model_lex_space(s + 1);
		s = model_lex_word(s, w, sizeof(w));
		if (!is_number(w))
			return model_parse_fail(ps, at, "expected a number after '%c'", *at), NULL;
		o->kind = O_IMM;
		o->imm = (int64_t)(*at == '-' ? 0 - number_value(w) : number_value(w));
		return s;
	}
	s = model_lex_word(s, w, sizeof(w));
	if (!*w)
		return model_parse_fail(ps, at, "expected an operand"), NULL;
	for (int i = 0; sizes[i]; i++)
		if (!strcmp(w, sizes[i])) {
			char p[8];
			const char *after = model_lex_space(s);
			const char *next = model_lex_word(after, p, sizeof(p));

			if (!strcmp(p, "ptr"))
				after = model_lex_space(next);
			after = skip_segment(after, &seg);
			if (*after != '[')
				return model_parse_fail(ps, after, "expected '[' after '%s'",
							sizes[i]),
				       NULL;
			after = parse_mem(ps, after, o);
			o->key.segment = seg;
			return after;
		}
	if (lex_reg_id(w) >= 0) {
		o->kind = O_REG;
		o->reg = lex_reg_id(w);
		o->partial = lex_gpr_partial(w);
		o->wide = lex_gpr_wide(w);
		return s;
	}
	if (is_number(w)) {
		o->kind = O_IMM;
		o->imm = (int64_t)number_value(w);
		return s;
	}
	if (isalpha((unsigned char)w[0]) || w[0] == '_' || w[0] == '.') {
		o->kind = O_LABEL;
		return s;
	}
	return model_parse_fail(ps, at, "bad operand '%s'", w), NULL;
}
