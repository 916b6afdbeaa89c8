/*
 * export/openmetrics.c - the OpenMetrics text exposition (see include/ipcc/export.h).
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "error_int.h"
#include "ipcc/export.h"

#define OM_MAX_LABELS 16

struct ipcc_openmetrics {
	FILE *out;
	struct ipcc_om_label base[OM_MAX_LABELS]; /* copies, owned */
	unsigned nbase;
	char **names; /* every family declared, owned */
	unsigned nnames;
	/* the current family, its header written with its first sample */
	const char *name;
	enum ipcc_om_type type;
	char *unit, *help;
	bool header_done;
	bool failed;
};

struct ipcc_openmetrics *ipcc_openmetrics_new(FILE *out)
{
	struct ipcc_openmetrics *w = calloc(1, sizeof(*w));

	if (w)
		w->out = out;
	return w;
}

static void clear_base(struct ipcc_openmetrics *w)
{
	for (unsigned i = 0; i < w->nbase; i++) {
		free((char *)w->base[i].name);
		free((char *)w->base[i].value);
	}
	w->nbase = 0;
}

void ipcc_openmetrics_free(struct ipcc_openmetrics *w)
{
	if (!w)
		return;
	clear_base(w);
	for (unsigned i = 0; i < w->nnames; i++)
		free(w->names[i]);
	free(w->names);
	free(w->unit);
	free(w->help);
	free(w);
}

static bool name_char(char c, bool first, bool colon)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (colon && c == ':') || (!first && c >= '0' && c <= '9');
}

static bool valid_name(const char *s, bool colon)
{
	if (!s || !*s)
		return false;
	for (const char *p = s; *p; p++)
		if (!name_char(*p, p == s, colon))
			return false;
	return true;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && strcmp(s + n - m, suffix) == 0;
}

static bool valid_labels(const struct ipcc_om_label *l, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!valid_name(l[i].name, false) || strncmp(l[i].name, "__", 2) == 0)
			return false;
	return true;
}

int ipcc_openmetrics_labels(struct ipcc_openmetrics *w, const struct ipcc_om_label *labels,
			    unsigned n)
{
	if (n > OM_MAX_LABELS || !valid_labels(labels, n))
		return err_set(IPCC_EINVAL, "openmetrics: bad label name");
	clear_base(w);
	for (unsigned i = 0; i < n; i++) {
		w->base[i].name = strdup(labels[i].name);
		w->base[i].value = strdup(labels[i].value ? labels[i].value : "");
		w->nbase = i + 1;
		if (!w->base[i].name || !w->base[i].value)
			return err_set(IPCC_ENOMEM, "openmetrics: out of memory");
	}
	return 0;
}

int ipcc_openmetrics_family(struct ipcc_openmetrics *w, const char *name, enum ipcc_om_type type,
			    const char *unit, const char *help)
{
	char **names;
	char want[128];

	if (!valid_name(name, true))
		return err_set(IPCC_EINVAL, "openmetrics: bad metric name '%s'", name ? name : "");
	if (type == IPCC_OM_COUNTER && !ends_with(name, "_total"))
		return err_set(IPCC_EINVAL, "openmetrics: counter '%s' does not end in _total",
			       name);
	if (type != IPCC_OM_COUNTER && ends_with(name, "_total"))
		return err_set(IPCC_EINVAL, "openmetrics: '%s' ends in _total but is no counter",
			       name);
	if (type == IPCC_OM_INFO && !ends_with(name, "_info"))
		return err_set(IPCC_EINVAL, "openmetrics: info metric '%s' does not end in _info",
			       name);
	if (unit) {
		snprintf(want, sizeof(want), "_%s%s", unit,
			 type == IPCC_OM_COUNTER ? "_total" : "");
		if (!valid_name(unit, false) || !ends_with(name, want))
			return err_set(IPCC_EINVAL, "openmetrics: '%s' does not end in its unit %s",
				       name, unit);
	}
	for (unsigned i = 0; i < w->nnames; i++)
		if (strcmp(w->names[i], name) == 0)
			return err_set(IPCC_EINVAL, "openmetrics: family '%s' twice", name);
	names = realloc(w->names, (w->nnames + 1) * sizeof(*names));
	if (!names)
		return err_set(IPCC_ENOMEM, "openmetrics: out of memory");
	w->names = names;
	if (!(names[w->nnames] = strdup(name)))
		return err_set(IPCC_ENOMEM, "openmetrics: out of memory");
	w->name = names[w->nnames++];
	w->type = type;
	free(w->unit);
	free(w->help);
	w->unit = unit ? strdup(unit) : NULL;
	w->help = help ? strdup(help) : NULL;
	w->header_done = false;
	if ((unit && !w->unit) || (help && !w->help))
		return err_set(IPCC_ENOMEM, "openmetrics: out of memory");
	return 0;
}

/*
 * The length of the valid UTF-8 sequence at s (1 to 4), or 0 when the bytes there are not
 * one (overlong forms, surrogates and values past U+10FFFF included).
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0], n, cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (unsigned i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* Backslash, double quote and newline escaped; what is not UTF-8 as '?'. */
static void put_escaped(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	while (*p) {
		size_t n = utf8_len(p);

		if (n == 0) {
			fputc('?', out);
			p++;
		} else if (*p == '\\') {
			fputs("\\\\", out), p++;
		} else if (*p == '"') {
			fputs("\\\"", out), p++;
		} else if (*p == '\n') {
			fputs("\\n", out), p++;
		} else {
			fwrite(p, 1, n, out);
			p += n;
		}
	}
}

static void put_labels(FILE *out, const struct ipcc_om_label *l, unsigned n, bool *first)
{
	for (unsigned i = 0; i < n; i++) {
		fprintf(out, "%s%s=\"", *first ? "{" : ",", l[i].name);
		put_escaped(out, l[i].value);
		fputc('"', out);
		*first = false;
	}
}

/* The shortest of %.15g to %.17g that reads back as the same double. */
static void put_double(FILE *out, double v)
{
	char buf[32];

	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, out);
}

int ipcc_openmetrics_sample(struct ipcc_openmetrics *w, const struct ipcc_om_label *labels,
			    unsigned n, double value)
{
	static const char *const types[] = { "gauge", "counter", "gauge" };
	bool first = true;

	if (!w->name)
		return err_set(IPCC_EINVAL, "openmetrics: a sample before any family");
	if (!valid_labels(labels, n))
		return err_set(IPCC_EINVAL, "openmetrics: bad label name in %s", w->name);
	if (isnan(value))
		return 0;
	if (w->type == IPCC_OM_INFO)
		value = 1;
	if (!w->header_done) {
		fprintf(w->out, "# TYPE %s %s\n", w->name, types[w->type]);
		if (w->unit && w->type != IPCC_OM_COUNTER)
			fprintf(w->out, "# UNIT %s %s\n", w->name, w->unit);
		if (w->help) {
			fprintf(w->out, "# HELP %s ", w->name);
			put_escaped(w->out, w->help);
			fputc('\n', w->out);
		}
		w->header_done = true;
	}
	fputs(w->name, w->out);
	put_labels(w->out, w->base, w->nbase, &first);
	put_labels(w->out, labels, n, &first);
	fputs(first ? " " : "} ", w->out);
	if (isinf(value))
		fputs(value > 0 ? "+Inf" : "-Inf", w->out);
	else if (value == floor(value) && fabs(value) < 9007199254740992.0)
		fprintf(w->out, "%.0f", value);
	else
		put_double(w->out, value);
	if (fputc('\n', w->out) == EOF)
		w->failed = true;
	return 0;
}

int ipcc_openmetrics_end(struct ipcc_openmetrics *w)
{
	fputs("# EOF\n", w->out);
	if (fflush(w->out) != 0 || ferror(w->out) || w->failed)
		return err_sys("openmetrics: writing failed");
	return 0;
}
