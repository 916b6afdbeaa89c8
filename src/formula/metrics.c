/*
 * metrics.c - metric files (XML, read with expat), their evaluation over counts, and the
 * cycle tree.
 */
#include <expat.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_int.h"
#include "formula_int.h"

#define MAX_ALIASES 32

struct metric {
	char *name, *unit, *parent, *formula_text;
	struct {
		char *alias, *event;
		char *also; /* other names of the event, space-separated, or NULL */
	} ev[MAX_ALIASES];
	unsigned nev;
	struct ipcc_formula *formula;
};

struct ipcc_metric_set {
	struct metric *m;
	unsigned n, cap;
	char **events; /* distinct event names */
	unsigned nevents;
	char **notes; /* the files' <note> texts */
	unsigned nnotes;
};

struct ipcc_metric_set *ipcc_metric_set_new(void)
{
	return calloc(1, sizeof(struct ipcc_metric_set));
}

static void metric_release(struct metric *m)
{
	free(m->name);
	free(m->unit);
	free(m->parent);
	free(m->formula_text);
	for (unsigned i = 0; i < m->nev; i++) {
		free(m->ev[i].alias);
		free(m->ev[i].event);
		free(m->ev[i].also);
	}
	ipcc_formula_free(m->formula);
}

void ipcc_metric_set_free(struct ipcc_metric_set *set)
{
	if (!set)
		return;
	for (unsigned i = 0; i < set->n; i++)
		metric_release(&set->m[i]);
	free(set->m);
	for (unsigned i = 0; i < set->nevents; i++)
		free(set->events[i]);
	free(set->events);
	for (unsigned i = 0; i < set->nnotes; i++)
		free(set->notes[i]);
	free(set->notes);
	free(set);
}

unsigned ipcc_metrics_count(const struct ipcc_metric_set *set)
{
	return set->n;
}

const char *ipcc_metrics_event(const struct ipcc_metric_set *set, unsigned i)
{
	return i < set->nevents ? set->events[i] : NULL;
}

const char *ipcc_metrics_note(const struct ipcc_metric_set *set, unsigned i)
{
	return i < set->nnotes ? set->notes[i] : NULL;
}

/* ---- reading the XML ------------------------------------------------------------------- */

enum where { IN_NOTHING, IN_METRIC, IN_EVENT, IN_FORMULA, IN_NOTE };

struct reader {
	XML_Parser xp;
	struct ipcc_metric_set *set;
	struct ipcc_formula_error *err;
	const char *name;
	unsigned col_shift; /* the wrapper's length, on line 1 */
	enum where where;
	struct metric cur;
	char *text; /* character data of the current event or formula */
	size_t text_len;
	unsigned text_line, text_col; /* where the current element's character data starts */
	char *formula_raw;	      /* the formula as written, for error positions */
	bool failed;
};

static void fail(struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(struct reader *rd, const char *fmt, ...)
{
	va_list ap;
	unsigned line = (unsigned)XML_GetCurrentLineNumber(rd->xp);
	unsigned col = (unsigned)XML_GetCurrentColumnNumber(rd->xp) + 1;

	if (rd->failed)
		return;
	rd->failed = true;
	if (line == 1)
		col = col > rd->col_shift ? col - rd->col_shift : 1;
	rd->err->line = line;
	rd->err->column = col;
	va_start(ap, fmt);
	vsnprintf(rd->err->message, sizeof(rd->err->message), fmt, ap);
	va_end(ap);
	XML_StopParser(rd->xp, XML_FALSE);
}

/* Fail and leave the handler. */
#define FAIL(...)                  \
	do {                       \
		fail(__VA_ARGS__); \
		return;            \
	} while (0)

static const char *attr(const char **atts, const char *name)
{
	for (int i = 0; atts[i]; i += 2)
		if (!strcmp(atts[i], name))
			return atts[i + 1];
	return NULL;
}

static void on_start(void *data, const char *el, const char **atts)
{
	struct reader *rd = data;

	if (rd->failed)
		return;
	if (!strcmp(el, "ipcc-wrapper") || !strcmp(el, "metrics"))
		return;
	if (!strcmp(el, "metric")) {
		const char *name = attr(atts, "name");

		if (rd->where != IN_NOTHING)
			FAIL(rd, "<metric> inside <metric>");
		if (!name || !*name)
			FAIL(rd, "<metric> without a name");
		memset(&rd->cur, 0, sizeof(rd->cur));
		rd->cur.name = strdup(name);
		rd->cur.unit = strdup(attr(atts, "unit") ? attr(atts, "unit") : "");
		rd->cur.parent = attr(atts, "parent") ? strdup(attr(atts, "parent")) : NULL;
		rd->where = IN_METRIC;
		return;
	}
	if (!strcmp(el, "note")) {
		if (rd->where != IN_NOTHING)
			FAIL(rd, "<note> inside <metric>");
		rd->where = IN_NOTE;
		free(rd->text);
		rd->text = NULL;
		rd->text_len = 0;
		rd->text_line = 0;
		return;
	}
	if (!strcmp(el, "event") || !strcmp(el, "formula")) {
		if (rd->where != IN_METRIC)
			FAIL(rd, "<%s> outside a <metric>", el);
		if (!strcmp(el, "event")) {
			const char *alias = attr(atts, "alias");

			if (!alias || !*alias)
				FAIL(rd, "<event> without an alias");
			if (rd->cur.nev == MAX_ALIASES)
				FAIL(rd, "more than %d events in a metric", MAX_ALIASES);
			/* Counted at once, so that a document cut short cannot leak it. */
			rd->cur.ev[rd->cur.nev].also =
			    attr(atts, "also") ? strdup(attr(atts, "also")) : NULL;
			rd->cur.ev[rd->cur.nev++].alias = strdup(alias);
			rd->where = IN_EVENT;
		} else {
			if (rd->cur.formula_text)
				FAIL(rd, "a second <formula> in metric '%s'", rd->cur.name);
			rd->where = IN_FORMULA;
		}
		free(rd->text);
		rd->text = NULL;
		rd->text_len = 0;
		rd->text_line = 0;
		return;
	}
	fail(rd, "unknown element <%s>", el);
}

static void on_text(void *data, const char *s, int len)
{
	struct reader *rd = data;
	char *t;

	if (rd->failed ||
	    (rd->where != IN_EVENT && rd->where != IN_FORMULA && rd->where != IN_NOTE))
		return;
	if (rd->text_len == 0) {
		rd->text_line = (unsigned)XML_GetCurrentLineNumber(rd->xp);
		rd->text_col = (unsigned)XML_GetCurrentColumnNumber(rd->xp) + 1;
		if (rd->text_line == 1)
			rd->text_col -= rd->col_shift;
	}
	t = realloc(rd->text, rd->text_len + (size_t)len + 1);
	if (!t)
		FAIL(rd, "out of memory");
	memcpy(t + rd->text_len, s, (size_t)len);
	rd->text_len += (size_t)len;
	t[rd->text_len] = '\0';
	rd->text = t;
}

/* The text without surrounding white space, as a new string. */
static char *trimmed(const char *s)
{
	const char *e;

	s = s ? s : "";
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		e--;
	return strndup(s, (size_t)(e - s));
}

static int add_event_name(struct ipcc_metric_set *set, const char *name)
{
	char **e;

	for (unsigned i = 0; i < set->nevents; i++)
		if (formula_names_match(set->events[i], name))
			return 0;
	e = realloc(set->events, (set->nevents + 1) * sizeof(*e));
	if (!e)
		return IPCC_ENOMEM;
	set->events = e;
	set->events[set->nevents] = strdup(name);
	return set->events[set->nevents++] ? 0 : IPCC_ENOMEM;
}

static void on_end(void *data, const char *el)
{
	struct reader *rd = data;
	struct ipcc_formula_error ferr;

	if (rd->failed)
		return;
	if (rd->where == IN_NOTE && !strcmp(el, "note")) {
		char *note = trimmed(rd->text), **notes;

		rd->where = IN_NOTHING;
		if (!note || !*note) {
			free(note);
			return;
		}
		notes = realloc(rd->set->notes, (rd->set->nnotes + 1) * sizeof(*notes));
		if (!notes) {
			free(note);
			FAIL(rd, "out of memory");
		}
		rd->set->notes = notes;
		rd->set->notes[rd->set->nnotes++] = note;
	} else if (rd->where == IN_EVENT && !strcmp(el, "event")) {
		char *ev = trimmed(rd->text);

		if (!ev || !*ev) {
			free(ev);
			FAIL(rd, "an empty <event> in metric '%s'", rd->cur.name);
		}
		rd->cur.ev[rd->cur.nev - 1].event = ev;
		rd->where = IN_METRIC;
	} else if (rd->where == IN_FORMULA && !strcmp(el, "formula")) {
		rd->cur.formula_text = trimmed(rd->text);
		free(rd->formula_raw);
		rd->formula_raw = strdup(rd->text ? rd->text : "");
		rd->where = IN_METRIC;
	} else if (rd->where == IN_METRIC && !strcmp(el, "metric")) {
		struct metric *m;

		if (!rd->cur.formula_text)
			FAIL(rd, "metric '%s' has no <formula>", rd->cur.name);
		/* Parse the formula as written, so its error points into the file. */
		if (ipcc_formula_parse(rd->formula_raw ? rd->formula_raw : "", &rd->cur.formula,
				       &ferr)) {
			unsigned line = rd->text_line + ferr.line - 1;
			unsigned col =
			    ferr.line == 1 ? rd->text_col + ferr.column - 1 : ferr.column;

			if (!rd->text_line) { /* an empty <formula/> */
				line = (unsigned)XML_GetCurrentLineNumber(rd->xp);
				col = 1;
			}
			fail(rd, "metric '%s': %s", rd->cur.name, ferr.message);
			rd->err->line = line;
			rd->err->column = col;
			return;
		}
		/* Every identifier is an alias of this metric, or an event or binding by name. */
		for (unsigned v = 0; v < ipcc_formula_nvars(rd->cur.formula); v++) {
			const char *id = ipcc_formula_var(rd->cur.formula, v);
			const char *event = id;

			for (unsigned a = 0; a < rd->cur.nev; a++)
				if (!strcmp(rd->cur.ev[a].alias, id))
					event = rd->cur.ev[a].event;
			if (add_event_name(rd->set, event))
				FAIL(rd, "out of memory");
		}
		if (rd->set->n == rd->set->cap) {
			unsigned cap = rd->set->cap ? rd->set->cap * 2 : 16;
			struct metric *mm = realloc(rd->set->m, cap * sizeof(*mm));

			if (!mm)
				FAIL(rd, "out of memory");
			rd->set->m = mm;
			rd->set->cap = cap;
		}
		m = &rd->set->m[rd->set->n++];
		*m = rd->cur;
		memset(&rd->cur, 0, sizeof(rd->cur));
		rd->where = IN_NOTHING;
	}
}

int ipcc_metrics_load_text(struct ipcc_metric_set *set, const char *text, size_t len,
			   const char *name, struct ipcc_formula_error *err)
{
	static const char open[] = "<ipcc-wrapper>", close[] = "</ipcc-wrapper>";
	struct reader rd = { .set = set, .err = err, .name = name, .col_shift = sizeof(open) - 1 };
	char *body = malloc(len + 1);
	char *decl;
	int ok;

	memset(err, 0, sizeof(*err));
	if (!body)
		return err_set(IPCC_ENOMEM, "metrics: out of memory");
	memcpy(body, text, len);
	body[len] = '\0';
	/* Several <metric> elements at the top, as the text writes them: wrap them in one root.
	 * An XML declaration must come first, so it is blanked (newlines kept for the lines). */
	decl = strstr(body, "<?xml");
	if (decl && decl == body + strspn(body, " \t\r\n")) {
		char *e = strstr(decl, "?>");

		for (char *q = decl; q && e && q < e + 2; q++)
			if (*q != '\n')
				*q = ' ';
	}
	rd.xp = XML_ParserCreate("UTF-8");
	if (!rd.xp) {
		free(body);
		return err_set(IPCC_ENOMEM, "metrics: out of memory");
	}
	XML_SetUserData(rd.xp, &rd);
	XML_SetElementHandler(rd.xp, on_start, on_end);
	XML_SetCharacterDataHandler(rd.xp, on_text);
	ok = XML_Parse(rd.xp, open, sizeof(open) - 1, XML_FALSE) != XML_STATUS_ERROR &&
	     XML_Parse(rd.xp, body, (int)len, XML_FALSE) != XML_STATUS_ERROR &&
	     XML_Parse(rd.xp, close, sizeof(close) - 1, XML_TRUE) != XML_STATUS_ERROR;
	if (!ok && !rd.failed) {
		unsigned line = (unsigned)XML_GetCurrentLineNumber(rd.xp);
		unsigned col = (unsigned)XML_GetCurrentColumnNumber(rd.xp) + 1;

		err->line = line;
		err->column = line == 1 && col > rd.col_shift ? col - rd.col_shift : col;
		snprintf(err->message, sizeof(err->message), "%s",
			 XML_ErrorString(XML_GetErrorCode(rd.xp)));
		rd.failed = true;
	}
	XML_ParserFree(rd.xp);
	metric_release(&rd.cur);
	free(rd.text);
	free(rd.formula_raw);
	free(body);
	if (rd.failed)
		return err_set(IPCC_EINVAL, "%s:%u:%u: %s", name, err->line, err->column,
			       err->message);
	return 0;
}

int ipcc_metrics_load(struct ipcc_metric_set *set, const char *path, struct ipcc_formula_error *err)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	int ret;

	memset(err, 0, sizeof(*err));
	if (!f)
		return err_sys("cannot open %s", path);
	do {
		if (len + 4096 > cap) {
			char *t = realloc(text, cap = cap ? cap * 2 : 16384);

			if (!t || cap > (64u << 20)) {
				free(t ? t : text);
				fclose(f);
				return err_set(IPCC_ENOMEM, "%s: too large", path);
			}
			text = t;
		}
		n = fread(text + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	ret = ipcc_metrics_load_text(set, text ? text : "", len, path, err);
	free(text);
	return ret;
}

/* ---- evaluation and the tree ------------------------------------------------------------ */

static bool is_quantity(const char *unit)
{
	return !strcmp(unit, "cycles") || !strcmp(unit, "slots");
}

static int find_metric(const struct ipcc_metric_set *set, const char *name)
{
	for (unsigned i = 0; i < set->n; i++)
		if (!strcmp(set->m[i].name, name))
			return (int)i;
	return -1;
}

/* Tree order: each root in file order, then its children depth-first. */
static void order(const struct ipcc_metric_set *set, const int *parent, int node, unsigned depth,
		  unsigned *seq, unsigned *out_idx, unsigned *out_depth, bool *placed)
{
	for (unsigned i = 0; i < set->n; i++) {
		if (placed[i] || parent[i] != node)
			continue;
		placed[i] = true;
		out_idx[*seq] = i;
		out_depth[*seq] = depth;
		(*seq)++;
		order(set, parent, (int)i, depth + 1, seq, out_idx, out_depth, placed);
	}
}

int ipcc_metrics_eval(const struct ipcc_metric_set *set, const struct ipcc_counts *counts,
		      const struct ipcc_counts *bindings, struct ipcc_metric_value *out)
{
	unsigned n = set->n, seq = 0;
	int *parent = calloc(n ? n : 1, sizeof(*parent));
	unsigned *idx = calloc(n ? n : 1, sizeof(*idx)), *depth = calloc(n ? n : 1, sizeof(*depth));
	bool *placed = calloc(n ? n : 1, sizeof(*placed));
	struct ipcc_metric_value *v = calloc(n ? n : 1, sizeof(*v));
	int *pos = calloc(n ? n : 1, sizeof(*pos));

	if (!parent || !idx || !depth || !placed || !v || !pos) {
		free(parent), free(idx), free(depth), free(placed), free(v), free(pos);
		return err_set(IPCC_ENOMEM, "metrics: out of memory");
	}
	/* Parents by name; a chain that loops is cut (and flagged) where it closes. */
	for (unsigned i = 0; i < n; i++) {
		parent[i] = set->m[i].parent ? find_metric(set, set->m[i].parent) : -1;
		if (set->m[i].parent && parent[i] < 0)
			v[i].flags |= IPCC_METRIC_NO_PARENT;
	}
	for (unsigned i = 0; i < n; i++) {
		int p = parent[i];

		for (unsigned hops = 0; p >= 0 && hops <= n; hops++)
			p = parent[p];
		if (p >= 0) { /* more hops than metrics: a loop */
			parent[i] = -1;
			v[i].flags |= IPCC_METRIC_NO_PARENT;
		}
	}
	/* Values. */
	for (unsigned i = 0; i < n; i++) {
		const struct metric *m = &set->m[i];
		unsigned nv = ipcc_formula_nvars(m->formula), fl = 0;
		double vals[64];
		size_t mlen = 0;

		v[i].name = m->name;
		v[i].unit = m->unit;
		v[i].parent = m->parent;
		v[i].formula = m->formula_text;
		for (unsigned k = 0; k < nv && k < 64; k++) {
			const char *id = ipcc_formula_var(m->formula, k), *event = id, *also = NULL;

			for (unsigned a = 0; a < m->nev; a++)
				if (!strcmp(m->ev[a].alias, id)) {
					event = m->ev[a].event;
					also = m->ev[a].also;
				}
			vals[k] = NAN;
			if (bindings && ipcc_counts_has(bindings, id))
				vals[k] = ipcc_counts_get(bindings, id);
			else if (bindings && ipcc_counts_has(bindings, event))
				vals[k] = ipcc_counts_get(bindings, event);
			else if (ipcc_counts_has(counts, event))
				vals[k] = ipcc_counts_get(counts, event);
			else if (also)
				vals[k] = ipcc_counts_get_any(counts, also);
			if (isnan(vals[k]) && mlen + strlen(event) + 5 < sizeof(v[i].missing))
				mlen += (size_t)snprintf(v[i].missing + mlen,
							 sizeof(v[i].missing) - mlen, "%s%s",
							 mlen ? " " : "", event);
			else if (isnan(vals[k]) && !strstr(v[i].missing, "..."))
				strcat(v[i].missing, " ...");
		}
		v[i].value = nv > 64 ? NAN : ipcc_formula_eval(m->formula, vals, &fl);
		v[i].flags |= fl;
		if (v[i].missing[0])
			v[i].value = NAN;
		v[i].cycles = v[i].share_of_parent = v[i].share_of_total = NAN;
	}
	/* The tree: quantities (cycles, slots) at the roots; fractions of the root below. */
	order(set, parent, -1, 0, &seq, idx, depth, placed);
	for (unsigned s = 0; s < n; s++)
		pos[idx[s]] = (int)s;
	for (unsigned s = 0; s < n; s++) {
		unsigned i = idx[s];
		int root = (int)i;

		while (parent[root] >= 0)
			root = parent[root];
		if (is_quantity(set->m[i].unit))
			v[i].cycles = v[i].value;
		else if (!strcmp(set->m[i].unit, "fraction") && is_quantity(set->m[root].unit))
			v[i].cycles = v[i].value * v[root].value;
		if (!isnan(v[i].cycles) && v[i].cycles < 0)
			v[i].flags |= IPCC_METRIC_NEGATIVE;
		if (parent[i] >= 0 && v[parent[i]].cycles > 0)
			v[i].share_of_parent = v[i].cycles / v[parent[i]].cycles;
		if (root != (int)i && v[root].cycles > 0)
			v[i].share_of_total = v[i].cycles / v[root].cycles;
		else if (root == (int)i && !isnan(v[i].cycles))
			v[i].share_of_total = 1.0;
	}
	for (unsigned i = 0; i < n; i++) {
		double sum = 0;
		bool any = false;

		for (unsigned k = 0; k < n; k++)
			if (parent[k] == (int)i && !isnan(v[k].cycles)) {
				sum += v[k].cycles;
				any = true;
			}
		if (any && !isnan(v[i].cycles) && sum > v[i].cycles * (1 + 1e-9) + 1e-9)
			v[i].flags |= IPCC_METRIC_CHILDREN_EXCEED;
	}
	for (unsigned s = 0; s < n; s++) {
		unsigned i = idx[s];

		out[s] = v[i];
		out[s].depth = depth[s];
		out[s].parent_index = parent[i] >= 0 ? pos[parent[i]] : -1;
	}
	free(parent), free(idx), free(depth), free(placed), free(v), free(pos);
	return 0;
}
