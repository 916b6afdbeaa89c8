/*
 * html.c - the pieces every section of the page is written with: escaped text, numbers as
 * people read them, share bars, and absent figures with their reason.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report_int.h"

void rpt_escn(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++)
		switch (s[i]) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fputc(s[i], f);
		}
}

void rpt_esc(FILE *f, const char *s)
{
	rpt_escn(f, s ? s : "", SIZE_MAX);
}

/* Groups of three digits apart by a narrow no-break space, as the README writes figures. */
void rpt_count(FILE *f, uint64_t v)
{
	char d[24];
	int n = snprintf(d, sizeof(d), "%" PRIu64, v);

	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			fputs("&#8239;", f);
		fputc(d[i], f);
	}
}

void rpt_khz(FILE *f, double khz)
{
	rpt_count(f, (uint64_t)llround(khz));
	fprintf(f, " kHz (%.2f GHz)", khz / 1e6);
}

void rpt_pct(FILE *f, double share)
{
	fprintf(f, share >= 0.1 || share == 0 ? "%.1f%%" : "%.2f%%", 100 * share);
}

void rpt_absent(FILE *f, const char *why)
{
	fputs("<p class=\"absent\"><strong>Absent:</strong> ", f);
	rpt_esc(f, why);
	fputs("</p>\n", f);
}

void rpt_na(FILE *f, const char *why)
{
	fputs("<td class=\"na\" title=\"", f);
	rpt_esc(f, why);
	fputs("\">n/a</td>", f);
}

void rpt_bar(FILE *f, const char *cls, double share)
{
	double w = share < 0 ? 0 : share > 1 ? 100 : 100 * share;

	fprintf(f,
		"<td class=\"bar\" data-v=\"%.6f\"><span class=\"track\"><span class=\"b %s\" "
		"style=\"width:%.1f%%\"></span></span> ",
		share, cls, w);
	rpt_pct(f, share);
	fputs("</td>", f);
}

const char *rpt_base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "?";
}

static const char *const default_reason[IPCC_REPORT_NSECTIONS] = {
	[IPCC_REPORT_MACHINE] = "no input says",
	[IPCC_REPORT_SPLIT] = "no ipcc stat --format json output among the inputs",
	[IPCC_REPORT_CYCLES] = "no ipcc metrics --format json output among the inputs",
	[IPCC_REPORT_FUNCTIONS] = "no recording (ipcc record) among the inputs",
	[IPCC_REPORT_LOOPS] = "the model was not run over the recording's hot loops",
	[IPCC_REPORT_FOOTPRINT] = "no recording (ipcc record) among the inputs",
	[IPCC_REPORT_BENCH] = "no ipcc bench --format json output among the inputs",
};

const char *rpt_absent_reason(const struct ipcc_report *r, enum ipcc_report_section s)
{
	return r->absent[s] ? r->absent[s] : default_reason[s];
}
