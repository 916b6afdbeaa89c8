/*
 * counts.c - event name -> value tables, read from ipcc stat's JSON or perf stat -x, CSV.
 */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_int.h"
#include "formula_int.h"

struct ipcc_counts {
	struct {
		char *name;
		double value;
	} * e;
	unsigned n, cap;
};

bool formula_names_match(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		int x = tolower((unsigned char)*a), y = tolower((unsigned char)*b);

		if (x == ':')
			x = '.';
		if (y == ':')
			y = '.';
		if (x != y)
			return false;
	}
	return *a == *b;
}

struct ipcc_counts *ipcc_counts_new(void)
{
	return calloc(1, sizeof(struct ipcc_counts));
}

void ipcc_counts_free(struct ipcc_counts *c)
{
	if (!c)
		return;
	for (unsigned i = 0; i < c->n; i++)
		free(c->e[i].name);
	free(c->e);
	free(c);
}

int ipcc_counts_set(struct ipcc_counts *c, const char *name, double value)
{
	for (unsigned i = 0; i < c->n; i++)
		if (formula_names_match(c->e[i].name, name)) {
			c->e[i].value = value;
			return 0;
		}
	if (c->n == c->cap) {
		unsigned cap = c->cap ? c->cap * 2 : 32;
		void *e = realloc(c->e, cap * sizeof(*c->e));

		if (!e)
			return err_set(IPCC_ENOMEM, "counts: out of memory");
		c->e = e;
		c->cap = cap;
	}
	c->e[c->n].name = strdup(name);
	if (!c->e[c->n].name)
		return err_set(IPCC_ENOMEM, "counts: out of memory");
	c->e[c->n++].value = value;
	return 0;
}

static int find(const struct ipcc_counts *c, const char *name)
{
	for (unsigned i = 0; c && i < c->n; i++)
		if (formula_names_match(c->e[i].name, name))
			return (int)i;
	return -1;
}

double ipcc_counts_get(const struct ipcc_counts *c, const char *name)
{
	int i = find(c, name);

	return i < 0 ? NAN : c->e[i].value;
}

bool ipcc_counts_has(const struct ipcc_counts *c, const char *name)
{
	return find(c, name) >= 0;
}

static bool is_rate(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && strcmp(name + n - 4, "_khz") == 0;
}

int ipcc_counts_add(struct ipcc_counts *into, const struct ipcc_counts *from, unsigned merged)
{
	int ret = 0;

	/* A name an earlier table lacks was not measured there: the sum is unknown. */
	for (unsigned i = 0; merged && i < into->n; i++)
		if (!ipcc_counts_has(from, into->e[i].name))
			into->e[i].value = NAN;
	for (unsigned i = 0; i < from->n && !ret; i++) {
		const char *name = from->e[i].name;
		double v = from->e[i].value;
		int j = find(into, name);

		if (j < 0)
			ret = ipcc_counts_set(into, name, merged ? NAN : v);
		else if (is_rate(name))
			into->e[j].value = (into->e[j].value * merged + v) / (merged + 1);
		else
			into->e[j].value += v;
	}
	return ret;
}

/* One name of ipcc_counts_get_any's list: a count, or a sum NAME+NAME+... of counts. */
static double get_sum(const struct ipcc_counts *c, const char *name, size_t len)
{
	char part[256];
	double sum = 0;

	for (const char *p = name, *end = name + len; p < end;) {
		size_t n = strcspn(p, "+");

		if (n > (size_t)(end - p))
			n = (size_t)(end - p);
		if (n == 0 || n >= sizeof(part))
			return NAN;
		memcpy(part, p, n);
		part[n] = '\0';
		if (!ipcc_counts_has(c, part))
			return NAN;
		sum += ipcc_counts_get(c, part);
		p += n + 1;
	}
	return sum;
}

double ipcc_counts_get_any(const struct ipcc_counts *c, const char *names)
{
	for (const char *p = names; *p;) {
		size_t n = strcspn(p, " ");
		double v = n ? get_sum(c, p, n) : NAN;

		if (!isnan(v))
			return v;
		p += n;
		p += strspn(p, " ");
	}
	return NAN;
}

/* The numbers of a JSON object (null -> NaN: named but not measured). */
static int json_numbers(struct ipcc_counts *c, json_t *obj)
{
	const char *key;
	json_t *v;
	int ret = 0;

	json_object_foreach(obj, key, v)
	{
		if (json_is_number(v))
			ret = ipcc_counts_set(c, key, json_number_value(v));
		else if (json_is_null(v))
			ret = ipcc_counts_set(c, key, NAN);
		if (ret)
			return ret;
	}
	return 0;
}

static int load_json(struct ipcc_counts *c, const char *text, const char *path,
		     struct ipcc_formula_error *err)
{
	static const char *const top[] = { "elapsed_ns", "tcfreq_khz", "core_khz", "user_ns",
					   "sys_ns" };
	json_error_t je;
	json_t *root = json_loads(text, 0, &je);
	int ret = 0;

	if (!root) {
		err->line = (unsigned)je.line;
		err->column = (unsigned)je.column;
		snprintf(err->message, sizeof(err->message), "%s", je.text);
		return err_set(IPCC_EINVAL, "%s:%d:%d: %s", path, je.line, je.column, je.text);
	}
	if (!json_is_object(json_object_get(root, "counters"))) {
		err->line = 1;
		err->column = 1;
		snprintf(err->message, sizeof(err->message),
			 "not the JSON of ipcc stat (no \"counters\" object)");
		json_decref(root);
		return err_set(IPCC_EINVAL, "%s: %s", path, err->message);
	}
	ret = json_numbers(c, json_object_get(root, "counters"));
	if (!ret && json_is_object(json_object_get(root, "extra")))
		ret = json_numbers(c, json_object_get(root, "extra"));
	for (size_t i = 0; !ret && i < sizeof(top) / sizeof(top[0]); i++) {
		json_t *v = json_object_get(root, top[i]);

		if (json_is_number(v))
			ret = ipcc_counts_set(c, top[i], json_number_value(v));
	}
	if (!ret && ipcc_counts_has(c, "elapsed_ns") && ipcc_counts_has(c, "tcfreq_khz"))
		ret = ipcc_counts_set(c, "tsc_ticks",
				      ipcc_counts_get(c, "elapsed_ns") *
					  ipcc_counts_get(c, "tcfreq_khz") / 1e6);
	json_decref(root);
	return ret;
}

/* perf stat -x, : value,unit,event,run time,percentage[,...] per line; '#' comments. */
static int load_csv(struct ipcc_counts *c, char *text, const char *path,
		    struct ipcc_formula_error *err)
{
	unsigned lineno = 0, rows = 0;
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *field[4] = { NULL }, *p = line, *end;
		unsigned nf = 0;
		double v;
		size_t len;

		lineno++;
		line[strcspn(line, "\r")] = '\0';
		if (!*line || *line == '#')
			continue;
		while (nf < 4) {
			field[nf++] = p;
			p = strchr(p, ',');
			if (!p)
				break;
			*p++ = '\0';
		}
		if (nf < 3 || !*field[2]) {
			err->line = lineno;
			err->column = 1;
			snprintf(err->message, sizeof(err->message),
				 "expected perf stat -x, fields: value,unit,event,...");
			return err_set(IPCC_EINVAL, "%s:%u: %s", path, lineno, err->message);
		}
		if (field[0][0] == '<') {
			v = NAN; /* <not counted>, <not supported> */
		} else {
			errno = 0;
			v = strtod(field[0], &end);
			if (end == field[0] || *end || errno) {
				err->line = lineno;
				err->column = 1;
				snprintf(err->message, sizeof(err->message), "bad count '%s'",
					 field[0]);
				return err_set(IPCC_EINVAL, "%s:%u: %s", path, lineno,
					       err->message);
			}
		}
		if (ipcc_counts_set(c, field[2], v))
			return IPCC_ENOMEM;
		/* also without the PMU of perf's "cpu_atom/EVENT/" (a hybrid CPU's events) */
		len = strlen(field[2]);
		if (len > 2 && field[2][len - 1] == '/' &&
		    strchr(field[2], '/') < field[2] + len - 1) {
			char *inner = strchr(field[2], '/') + 1;

			field[2][len - 1] = '\0';
			if (*inner && !ipcc_counts_has(c, inner) && ipcc_counts_set(c, inner, v))
				return IPCC_ENOMEM;
			field[2] = inner;
		}
		/* also without a :u / :k / :uk modifier */
		len = strlen(field[2]);
		for (const char *m = ":u\0:k\0:uk\0:ku\0"; *m; m += strlen(m) + 1) {
			size_t ml = strlen(m);

			if (len > ml && !strcmp(field[2] + len - ml, m)) {
				field[2][len - ml] = '\0';
				if (!ipcc_counts_has(c, field[2]) &&
				    ipcc_counts_set(c, field[2], v))
					return IPCC_ENOMEM;
				break;
			}
		}
		rows++;
	}
	if (!rows) {
		err->line = 1;
		err->column = 1;
		snprintf(err->message, sizeof(err->message), "no counts in the file");
		return err_set(IPCC_EINVAL, "%s: %s", path, err->message);
	}
	return 0;
}

int ipcc_counts_load(struct ipcc_counts *c, const char *path, struct ipcc_formula_error *err)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *text = NULL;
	size_t len = 0, cap = 0;
	const char *p;
	int ret;

	memset(err, 0, sizeof(*err));
	if (!f)
		return err_sys("cannot open %s", path);
	for (;;) {
		size_t n;

		if (len + 4096 + 1 > cap) {
			char *t = realloc(text, cap = cap ? cap * 2 : 65536);

			if (!t || cap > (256u << 20)) {
				free(t ? t : text);
				if (f != stdin)
					fclose(f);
				return err_set(IPCC_ENOMEM, "%s: too large", path);
			}
			text = t;
		}
		n = fread(text + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	if (f != stdin)
		fclose(f);
	text[len] = '\0';
	if (strlen(text) != len) {
		free(text);
		err->line = err->column = 1;
		snprintf(err->message, sizeof(err->message), "a NUL byte: not a counts file");
		return err_set(IPCC_EINVAL, "%s: %s", path, err->message);
	}
	for (p = text; isspace((unsigned char)*p); p++)
		;
	ret = *p == '{' ? load_json(c, text, path, err) : load_csv(c, text, path, err);
	free(text);
	return ret;
}
