/*
 * formula.c - the metric language: lexer, recursive-descent parser, AST, evaluator, dump.
 *
 * Grammar, loosest first:
 *     expr    := cmp [ 'if' cmp 'else' expr ]
 *     cmp     := sum [ ('<' | '<=' | '>' | '>=' | '==' | '!=') sum ]
 *     sum     := product { ('+' | '-') product }
 *     product := unary { ('*' | '/') unary }
 *     unary   := '-' unary | primary
 *     primary := NUMBER | IDENT | ('min' | 'max') '(' expr { ',' expr } ')' | '(' expr ')'
 * IDENT is [A-Za-z_][A-Za-z0-9_.:]* where '=' also counts inside a name when a letter or a
 * digit follows it (UOPS_ISSUED.ANY:c=1), so `a==b` is still a comparison.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_int.h"
#include "ipcc/formula.h"

#define MAX_DEPTH 200 /* nesting, so that deep input cannot exhaust the stack */

enum node_kind { N_NUM, N_VAR, N_NEG, N_BIN, N_CMP, N_IF, N_CALL };
enum op {
	OP_ADD,
	OP_SUB,
	OP_MUL,
	OP_DIV,
	OP_LT,
	OP_LE,
	OP_GT,
	OP_GE,
	OP_EQ,
	OP_NE,
	OP_MIN,
	OP_MAX
};

struct node {
	enum node_kind kind;
	enum op op;
	double num;   /* N_NUM */
	unsigned var; /* N_VAR */
	struct node **kids;
	unsigned nkids;
};

struct ipcc_formula {
	struct node *root;
	char **vars;
	unsigned nvars;
};

/* ---- lexer ----------------------------------------------------------------------------- */

enum tok { T_END, T_NUM, T_IDENT, T_OP, T_LPAREN, T_RPAREN, T_COMMA, T_BAD };

struct lexer {
	const char *text, *p;
	enum tok tok;
	const char *start; /* of the current token */
	size_t len;
	double num;
	struct ipcc_formula_error *err;
	int depth;
};

static bool ident_start(int c)
{
	return isalpha(c) || c == '_';
}

static bool ident_char(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == ':';
}

static void position(const struct lexer *lx, const char *at, unsigned *line, unsigned *col)
{
	*line = 1;
	*col = 1;
	for (const char *q = lx->text; q < at && *q; q++) {
		if (*q == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

static int fail(struct lexer *lx, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct lexer *lx, const char *at, const char *fmt, ...)
{
	va_list ap;

	if (lx->err->message[0])
		return IPCC_EINVAL; /* keep the first error */
	position(lx, at, &lx->err->line, &lx->err->column);
	va_start(ap, fmt);
	vsnprintf(lx->err->message, sizeof(lx->err->message), fmt, ap);
	va_end(ap);
	return err_set(IPCC_EINVAL, "%u:%u: %s", lx->err->line, lx->err->column, lx->err->message);
}

static void next(struct lexer *lx)
{
	const char *p = lx->p;

	while (isspace((unsigned char)*p))
		p++;
	lx->start = p;
	if (!*p) {
		lx->tok = T_END;
	} else if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
		char *end;

		errno = 0;
		lx->num = strtod(p, &end);
		/* hex floats and the like are not numbers here */
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
			unsigned long long v = strtoull(p, &end, 16);

			lx->num = (double)v;
		}
		lx->tok = ident_char((unsigned char)*end) ? T_BAD : T_NUM;
		p = end;
		if (lx->tok == T_BAD)
			while (ident_char((unsigned char)*p))
				p++;
	} else if (ident_start((unsigned char)*p)) {
		while (ident_char((unsigned char)*p) ||
		       (*p == '=' && p[1] != '=' && isalnum((unsigned char)p[1])))
			p++;
		lx->tok = T_IDENT;
	} else if (*p == '(' || *p == ')' || *p == ',') {
		lx->tok = *p == '(' ? T_LPAREN : *p == ')' ? T_RPAREN : T_COMMA;
		p++;
	} else if (strchr("+-*/", *p)) {
		lx->tok = T_OP;
		p++;
	} else if ((*p == '<' || *p == '>') || ((*p == '=' || *p == '!') && p[1] == '=')) {
		lx->tok = T_OP;
		p += p[1] == '=' ? 2 : 1;
	} else {
		lx->tok = T_BAD;
		p++;
	}
	lx->len = (size_t)(p - lx->start);
	lx->p = p;
}

static bool is(const struct lexer *lx, enum tok t, const char *s)
{
	return lx->tok == t && (!s || (strlen(s) == lx->len && !strncmp(lx->start, s, lx->len)));
}

/* ---- parser ---------------------------------------------------------------------------- */

static struct node *mk(enum node_kind kind, enum op op, unsigned nkids)
{
	struct node *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->kind = kind;
	n->op = op;
	if (nkids) {
		n->kids = calloc(nkids, sizeof(*n->kids));
		if (!n->kids) {
			free(n);
			return NULL;
		}
	}
	n->nkids = nkids;
	return n;
}

static void node_free(struct node *n)
{
	if (!n)
		return;
	for (unsigned i = 0; i < n->nkids; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n);
}

static struct node *expr(struct lexer *lx, struct ipcc_formula *f);

static int var_index(struct ipcc_formula *f, const char *name, size_t len)
{
	char **v;

	for (unsigned i = 0; i < f->nvars; i++)
		if (strlen(f->vars[i]) == len && !strncmp(f->vars[i], name, len))
			return (int)i;
	v = realloc(f->vars, (f->nvars + 1) * sizeof(*v));
	if (!v)
		return -1;
	f->vars = v;
	f->vars[f->nvars] = strndup(name, len);
	if (!f->vars[f->nvars])
		return -1;
	return (int)f->nvars++;
}

static struct node *oom(struct lexer *lx)
{
	fail(lx, lx->start, "out of memory");
	return NULL;
}

static struct node *primary(struct lexer *lx, struct ipcc_formula *f)
{
	struct node *n;

	if (lx->tok == T_NUM) {
		n = mk(N_NUM, 0, 0);
		if (!n)
			return oom(lx);
		n->num = lx->num;
		next(lx);
		return n;
	}
	if (is(lx, T_IDENT, "min") || is(lx, T_IDENT, "max")) {
		enum op op = is(lx, T_IDENT, "min") ? OP_MIN : OP_MAX;
		const char *at = lx->start;
		struct node *args[64];
		unsigned na = 0;

		next(lx);
		if (lx->tok != T_LPAREN)
			return fail(lx, lx->start, "expected '(' after '%s'",
				    op == OP_MIN ? "min" : "max"),
			       NULL;
		do {
			next(lx);
			if (na == 64) {
				fail(lx, lx->start, "more than 64 arguments");
				goto bad;
			}
			args[na] = expr(lx, f);
			if (!args[na])
				goto bad;
			na++;
		} while (lx->tok == T_COMMA);
		if (lx->tok != T_RPAREN) {
			fail(lx, lx->start, "expected ',' or ')'");
			goto bad;
		}
		next(lx);
		n = mk(N_CALL, op, na);
		if (!n) {
			oom(lx);
			goto bad;
		}
		memcpy(n->kids, args, na * sizeof(*args));
		(void)at;
		return n;
	bad:
		while (na)
			node_free(args[--na]);
		return NULL;
	}
	if (lx->tok == T_IDENT) {
		int v;

		if (is(lx, T_IDENT, "if") || is(lx, T_IDENT, "else"))
			return fail(lx, lx->start, "unexpected '%.*s'", (int)lx->len, lx->start),
			       NULL;
		v = var_index(f, lx->start, lx->len);
		n = v < 0 ? NULL : mk(N_VAR, 0, 0);
		if (!n)
			return oom(lx);
		n->var = (unsigned)v;
		next(lx);
		return n;
	}
	if (lx->tok == T_LPAREN) {
		next(lx);
		n = expr(lx, f);
		if (!n)
			return NULL;
		if (lx->tok != T_RPAREN) {
			fail(lx, lx->start, "expected ')'");
			node_free(n);
			return NULL;
		}
		next(lx);
		return n;
	}
	if (lx->tok == T_END)
		return fail(lx, lx->start, "unexpected end of formula"), NULL;
	return fail(lx, lx->start, "unexpected '%.*s'", (int)lx->len, lx->start), NULL;
}

static struct node *unary(struct lexer *lx, struct ipcc_formula *f)
{
	struct node *n, *k;

	if (!is(lx, T_OP, "-"))
		return primary(lx, f);
	if (++lx->depth > MAX_DEPTH)
		return fail(lx, lx->start, "nested too deep"), NULL;
	next(lx);
	k = unary(lx, f);
	lx->depth--;
	if (!k)
		return NULL;
	n = mk(N_NEG, 0, 1);
	if (!n) {
		node_free(k);
		return oom(lx);
	}
	n->kids[0] = k;
	return n;
}

static struct node *binary(struct lexer *lx, enum node_kind kind, enum op op, struct node *l,
			   struct node *r)
{
	struct node *n;

	if (!r) {
		node_free(l);
		return NULL;
	}
	n = mk(kind, op, 2);
	if (!n) {
		node_free(l);
		node_free(r);
		return oom(lx);
	}
	n->kids[0] = l;
	n->kids[1] = r;
	return n;
}

static struct node *product(struct lexer *lx, struct ipcc_formula *f)
{
	struct node *n = unary(lx, f);

	while (n && (is(lx, T_OP, "*") || is(lx, T_OP, "/"))) {
		enum op op = is(lx, T_OP, "*") ? OP_MUL : OP_DIV;

		next(lx);
		n = binary(lx, N_BIN, op, n, unary(lx, f));
	}
	return n;
}

static struct node *sum(struct lexer *lx, struct ipcc_formula *f)
{
	struct node *n = product(lx, f);

	while (n && (is(lx, T_OP, "+") || is(lx, T_OP, "-"))) {
		enum op op = is(lx, T_OP, "+") ? OP_ADD : OP_SUB;

		next(lx);
		n = binary(lx, N_BIN, op, n, product(lx, f));
	}
	return n;
}

static struct node *cmp(struct lexer *lx, struct ipcc_formula *f)
{
	static const struct {
		const char *s;
		enum op op;
	} ops[] = { { "<", OP_LT },  { "<=", OP_LE }, { ">", OP_GT },
		    { ">=", OP_GE }, { "==", OP_EQ }, { "!=", OP_NE } };
	struct node *n = sum(lx, f);

	for (size_t i = 0; n && i < sizeof(ops) / sizeof(ops[0]); i++)
		if (is(lx, T_OP, ops[i].s)) {
			next(lx);
			return binary(lx, N_CMP, ops[i].op, n, sum(lx, f));
		}
	return n;
}

static struct node *expr(struct lexer *lx, struct ipcc_formula *f)
{
	struct node *then, *cond, *other, *n;

	if (++lx->depth > MAX_DEPTH)
		return fail(lx, lx->start, "nested too deep"), NULL;
	then = cmp(lx, f);
	if (then && is(lx, T_IDENT, "if")) {
		next(lx);
		cond = cmp(lx, f);
		if (!cond) {
			node_free(then);
			lx->depth--;
			return NULL;
		}
		if (!is(lx, T_IDENT, "else")) {
			fail(lx, lx->start, "expected 'else'");
			node_free(then);
			node_free(cond);
			lx->depth--;
			return NULL;
		}
		next(lx);
		other = expr(lx, f);
		n = other ? mk(N_IF, 0, 3) : NULL;
		if (!n) {
			if (other)
				oom(lx);
			node_free(then);
			node_free(cond);
			node_free(other);
			lx->depth--;
			return NULL;
		}
		n->kids[0] = cond;
		n->kids[1] = then;
		n->kids[2] = other;
		then = n;
	}
	lx->depth--;
	return then;
}

int ipcc_formula_parse(const char *text, struct ipcc_formula **out, struct ipcc_formula_error *err)
{
	struct ipcc_formula *f = calloc(1, sizeof(*f));
	struct lexer lx = { .text = text, .p = text, .err = err };

	*out = NULL;
	memset(err, 0, sizeof(*err));
	if (!f)
		return err_set(IPCC_ENOMEM, "formula: out of memory");
	next(&lx);
	f->root = expr(&lx, f);
	if (f->root && lx.tok != T_END)
		fail(&lx, lx.start, "unexpected '%.*s' after the formula", (int)lx.len, lx.start);
	if (!f->root || err->message[0]) {
		ipcc_formula_free(f);
		if (!err->message[0])
			fail(&lx, lx.start, "bad formula");
		return IPCC_EINVAL;
	}
	*out = f;
	return 0;
}

void ipcc_formula_free(struct ipcc_formula *f)
{
	if (!f)
		return;
	node_free(f->root);
	for (unsigned i = 0; i < f->nvars; i++)
		free(f->vars[i]);
	free(f->vars);
	free(f);
}

unsigned ipcc_formula_nvars(const struct ipcc_formula *f)
{
	return f->nvars;
}

const char *ipcc_formula_var(const struct ipcc_formula *f, unsigned i)
{
	return i < f->nvars ? f->vars[i] : NULL;
}

/* ---- evaluation ------------------------------------------------------------------------ */

static double eval(const struct node *n, const double *v, unsigned *flags)
{
	double a, b;

	switch (n->kind) {
	case N_NUM:
		return n->num;
	case N_VAR:
		if (isnan(v[n->var]))
			*flags |= IPCC_FORMULA_MISSING;
		return v[n->var];
	case N_NEG:
		return -eval(n->kids[0], v, flags);
	case N_IF:
		a = eval(n->kids[0], v, flags);
		return a != 0 && !isnan(a) ? eval(n->kids[1], v, flags)
					   : eval(n->kids[2], v, flags);
	case N_CALL:
		a = eval(n->kids[0], v, flags);
		for (unsigned i = 1; i < n->nkids; i++) {
			b = eval(n->kids[i], v, flags);
			if (isnan(b) || (n->op == OP_MIN ? b < a : b > a))
				a = b;
		}
		return a;
	case N_BIN:
	case N_CMP:
		a = eval(n->kids[0], v, flags);
		b = eval(n->kids[1], v, flags);
		switch (n->op) {
		case OP_ADD:
			return a + b;
		case OP_SUB:
			return a - b;
		case OP_MUL:
			return a * b;
		case OP_DIV:
			if (b == 0) {
				*flags |= IPCC_FORMULA_DIV0;
				return NAN;
			}
			return a / b;
		case OP_LT:
			return isnan(a) || isnan(b) ? NAN : a < b;
		case OP_LE:
			return isnan(a) || isnan(b) ? NAN : a <= b;
		case OP_GT:
			return isnan(a) || isnan(b) ? NAN : a > b;
		case OP_GE:
			return isnan(a) || isnan(b) ? NAN : a >= b;
		case OP_EQ:
			return isnan(a) || isnan(b) ? NAN : a == b;
		case OP_NE:
			return isnan(a) || isnan(b) ? NAN : a != b;
		default:
			break;
		}
	}
	return NAN;
}

double ipcc_formula_eval(const struct ipcc_formula *f, const double *values, unsigned *flags)
{
	unsigned fl = 0;
	double r = eval(f->root, values, &fl);

	if (flags)
		*flags = fl;
	return r;
}

/* ---- dump ------------------------------------------------------------------------------ */

struct buf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n >= 0 && b->s && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = b->cap ? b->cap * 2 : 128;
		char *s;

		while (cap <= b->len + (size_t)n)
			cap *= 2;
		s = realloc(b->s, cap);
		if (!s) {
			b->oom = true;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
}

static void dump(const struct ipcc_formula *f, const struct node *n, struct buf *b)
{
	static const char *const ops[] = { "+", "-",  "*",  "/",  "<",	 "<=",
					   ">", ">=", "==", "!=", "min", "max" };

	switch (n->kind) {
	case N_NUM:
		put(b, "%.17g", n->num);
		return;
	case N_VAR:
		put(b, "%s", f->vars[n->var]);
		return;
	case N_NEG:
		put(b, "(neg ");
		break;
	case N_IF:
		put(b, "(if ");
		break;
	default:
		put(b, "(%s ", ops[n->op]);
	}
	for (unsigned i = 0; i < n->nkids; i++) {
		if (i)
			put(b, " ");
		dump(f, n->kids[i], b);
	}
	put(b, ")");
}

char *ipcc_formula_dump(const struct ipcc_formula *f)
{
	struct buf b = { 0 };

	dump(f, f->root, &b);
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}
