/*
 * page.c - ipcc_report_write(): the page's head and foot, and the sections drawn from JSON
 * inputs: the machine, the four-way split of each run and region, the cycle tree, and the
 * benchmark figures. The recording's sections are samples.c's.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error_int.h"
#include "ipcc/breakdown.h"
#include "ipcc/clock.h"
#include "ipcc/counters.h"
#include "ipcc/recording.h"
#include "report_int.h"

/* The four slot classes: names, colours (Okabe-Ito; report assets.c), text on each. */
static const char *const part_name[4] = { "front end", "back end", "speculation", "retiring" };
static const char *const part_colour[4] = { "#E69F00", "#0072B2", "#CC79A7", "#009E73" };
static const char *const part_text[4] = { "dark", "", "dark", "" };

void rpt_section_open(FILE *f, const char *id, const char *title)
{
	fprintf(f, "<section id=\"%s\">\n<h2>", id);
	rpt_esc(f, title);
	fputs("</h2>\n", f);
}

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* "2 096 018 kHz (2.10 GHz)", with narrow no-break spaces. */
static void khz_text(char *buf, size_t len, double khz)
{
	char d[24];
	int n = snprintf(d, sizeof(d), "%" PRIu64, (uint64_t)llround(khz));
	size_t at = 0;

	for (int i = 0; i < n && at + 4 < len; i++) {
		if (i && (n - i) % 3 == 0)
			at += (size_t)snprintf(buf + at, len - at, "\u202f");
		buf[at++] = d[i];
	}
	snprintf(buf + at, len - at, " kHz (%.2f GHz)", khz / 1e6);
}

/* A frequency source's name as ipcc writes it, with clock.h's line about it. */
static void source_text(char *buf, size_t len, const char *name, const char *where)
{
	for (int s = IPCC_FREQ_NONE; s <= IPCC_FREQ_CACHED; s++)
		if (name && !strcmp(ipcc_freq_source_name((enum ipcc_freq_source)s), name)) {
			snprintf(buf, len, "%s: %s; %s", name,
				 ipcc_freq_source_text((enum ipcc_freq_source)s), where);
			return;
		}
	snprintf(buf, len, "%s%s%s", name ? name : "", name ? "; " : "", where);
}

/* The facts the JSON inputs state, added to those the caller gave. */
static int collect_facts(struct ipcc_report *r)
{
	char value[256], source[1200], where[600];
	int ret = 0;

	for (size_t i = 0; i < r->nin[IPCC_REPORT_STAT_JSON] && !ret; i++) {
		json_t *s = r->in[IPCC_REPORT_STAT_JSON][i].root;
		const char *name = r->in[IPCC_REPORT_STAT_JSON][i].name, *recipe = str(s, "recipe");

		snprintf(where, sizeof(where), "%s (ipcc stat, backend %s)", name,
			 str(s, "backend"));
		if (str(s, "cpu"))
			ret = ipcc_report_add_fact(r, "CPU", str(s, "cpu"), where);
		if (!ret && (recipe || str(s, "cpu_recipe"))) {
			if (recipe)
				snprintf(value, sizeof(value), "%s", recipe);
			else
				snprintf(value, sizeof(value),
					 "%s (the CPU table's; not counted with: backend %s)",
					 str(s, "cpu_recipe"), str(s, "backend"));
			if (str(s, "approximation"))
				snprintf(value + strlen(value), sizeof(value) - strlen(value),
					 "; an approximation: %s", str(s, "approximation"));
			ret = ipcc_report_add_fact(r, "recipe", value, where);
		}
		/* The model backend's profile: what every modelled figure of the run came from. */
		json_t *model = json_object_get(s, "model");

		if (!ret && str(model, "profile"))
			ret =
			    ipcc_report_add_fact(r, "model profile", str(model, "profile"), where);
		if (!ret && isfinite(num(s, "tcfreq_khz")) && num(s, "tcfreq_khz") > 0) {
			khz_text(value, sizeof(value), num(s, "tcfreq_khz"));
			source_text(source, sizeof(source), str(s, "tcfreq_source"), where);
			ret = ipcc_report_add_fact(r, "TCFREQ", value, source);
		}
		if (!ret && isfinite(num(s, "core_khz")) && num(s, "core_khz") > 0) {
			khz_text(value, sizeof(value), num(s, "core_khz"));
			source_text(source, sizeof(source), str(s, "core_source"), where);
			if (isfinite(num(s, "core_check_khz")))
				snprintf(source + strlen(source), sizeof(source) - strlen(source),
					 "; an imul chain read %.2f GHz",
					 num(s, "core_check_khz") / 1e6);
			ret = ipcc_report_add_fact(r, "core frequency", value, source);
		}
	}
	for (size_t i = 0; i < r->nin[IPCC_REPORT_BENCH_JSON] && !ret; i++) {
		json_t *b = r->in[IPCC_REPORT_BENCH_JSON][i].root;

		snprintf(where, sizeof(where), "%s (ipcc bench)",
			 r->in[IPCC_REPORT_BENCH_JSON][i].name);
		if (isfinite(num(b, "tcfreq_khz")) && num(b, "tcfreq_khz") > 0) {
			khz_text(value, sizeof(value), num(b, "tcfreq_khz"));
			ret = ipcc_report_add_fact(r, "TCFREQ", value, where);
		}
		if (!ret && isfinite(num(b, "core_khz")) && num(b, "core_khz") > 0) {
			khz_text(value, sizeof(value), num(b, "core_khz"));
			source_text(source, sizeof(source), str(b, "core_source"), where);
			ret = ipcc_report_add_fact(r, "core frequency", value, source);
		}
	}
	return ret;
}

static void write_machine(struct ipcc_report *r, FILE *f)
{
	static const char *const facts[] = { "CPU", "recipe", "model profile", "TCFREQ",
					     "core frequency" };
	static const char *const why[] = {
		"no input names it",
		"no ipcc stat --format json output among the inputs names one",
		"no model was run for this report",
		"no ipcc stat or ipcc bench --format json output among the inputs",
		"no ipcc stat or ipcc bench --format json output among the inputs",
	};

	rpt_section_open(f, "machine", "The machine");
	fputs("<table class=\"facts\">\n<thead><tr><th>fact</th><th>value</th><th>where it came "
	      "from</th></tr></thead>\n<tbody>\n",
	      f);
	for (size_t k = 0; k < sizeof(facts) / sizeof(facts[0]); k++) {
		bool any = false;

		for (size_t i = 0; i < r->nfacts; i++) {
			if (strcmp(r->facts[i].fact, facts[k]))
				continue;
			fputs("<tr><th>", f);
			rpt_esc(f, facts[k]);
			fputs("</th><td>", f);
			rpt_esc(f, r->facts[i].value);
			fputs("</td><td class=\"src\">", f);
			rpt_esc(f, r->facts[i].sources);
			fputs("</td></tr>\n", f);
			any = true;
		}
		if (!any) {
			fputs("<tr><th>", f);
			rpt_esc(f, facts[k]);
			fputs("</th>", f);
			rpt_na(f, why[k]);
			fputs("<td class=\"src\">absent: ", f);
			rpt_esc(f, why[k]);
			fputs("</td></tr>\n", f);
		}
	}
	fputs("</tbody></table>\n</section>\n", f);
}

/* ---- the split ------------------------------------------------------------------------- */

struct split {
	bool valid;
	double part[4];
	double smt; /* NAN: not counted */
	uint32_t flags;
};

/* The split of slot counters read by get(ctx, counter name); invalid when one is absent. */
static struct split split_of(json_t *counters, bool totals)
{
	static const enum ipcc_counter slot[] = { IPCC_SLOTS_TOTAL, IPCC_SLOTS_FILLED,
						  IPCC_SLOTS_ISSUED, IPCC_SLOTS_RETIRED,
						  IPCC_SLOTS_SMT };
	struct ipcc_interval iv = { 0 };
	struct ipcc_breakdown bd;
	struct split s = { .smt = NAN };

	for (size_t i = 0; i < sizeof(slot) / sizeof(slot[0]); i++) {
		json_t *v = json_object_get(counters, ipcc_counter_name(slot[i]));

		if (totals)
			v = json_object_get(v, "total");
		if (json_is_number(v)) {
			iv.value[slot[i]] = (int64_t)llround(json_number_value(v));
			iv.valid |= 1u << slot[i];
		}
	}
	if (ipcc_breakdown(&iv, &bd) || !bd.valid)
		return s;
	s = (struct split){
		true, { bd.frontend, bd.backend, bd.speculation, bd.retiring }, bd.smt, bd.flags
	};
	return s;
}

/* A run's split: the "breakdown" ipcc stat wrote, or else one made from its slot counters. */
static struct split split_of_run(json_t *stat)
{
	json_t *bd = json_object_get(stat, "breakdown");
	static const char *const key[4] = { "frontend", "backend", "speculation", "retiring" };
	struct split s = { .smt = NAN };

	if (!json_is_object(bd))
		return split_of(json_object_get(stat, "counters"), false);
	for (int i = 0; i < 4; i++) {
		s.part[i] = num(bd, key[i]);
		if (!isfinite(s.part[i]))
			return split_of(json_object_get(stat, "counters"), false);
	}
	s.valid = true;
	s.smt = num(bd, "smt");
	s.flags = (uint32_t)num(bd, "flags");
	return s;
}

/* Why a stat file's split is absent: its reason for the first absent slot counter. */
static const char *split_absent(json_t *stat)
{
	static const char *const slots[] = { "slots_total", "slots_filled", "slots_issued",
					     "slots_retired" };
	json_t *absent = json_object_get(stat, "absent");

	for (size_t i = 0; i < 4; i++)
		if (str(absent, slots[i]))
			return str(absent, slots[i]);
	return NULL;
}

static void write_split_bar(FILE *f, const struct split *s, bool modelled)
{
	double x = 0;

	fputs("<svg class=\"split\" role=\"img\" aria-label=\"", f);
	for (int i = 0; i < 4; i++)
		fprintf(f, "%s%s %.1f%%", i ? ", " : "", part_name[i], 100 * s->part[i]);
	fputs("\">", f);
	for (int i = 0; i < 4; i++) {
		double w = 100 * s->part[i];

		if (w > 0)
			fprintf(f,
				"<rect x=\"%.3f%%\" y=\"0\" width=\"%.3f%%\" height=\"30\" "
				"fill=\"%s\"/>",
				x, w, part_colour[i]);
		x += w;
	}
	if (modelled)
		fputs("<rect x=\"0\" y=\"0\" width=\"100%\" height=\"30\" fill=\"url(#hatch)\"/>",
		      f);
	x = 0;
	for (int i = 0; i < 4; i++) {
		double w = 100 * s->part[i];

		if (w >= 14)
			fprintf(f,
				"<text x=\"%.3f%%\" y=\"19\" text-anchor=\"middle\" class=\"%s\">"
				"%s %.1f%%</text>",
				x + w / 2, part_text[i], part_name[i], w);
		else if (w >= 5)
			fprintf(f,
				"<text x=\"%.3f%%\" y=\"19\" text-anchor=\"middle\" class=\"%s\">"
				"%.0f%%</text>",
				x + w / 2, part_text[i], w);
		x += w;
	}
	fputs("</svg>\n<div class=\"parts\">", f);
	for (int i = 0; i < 4; i++)
		fprintf(f, "<span><i class=\"sw\" style=\"background:%s\"></i>%s %.1f%%</span>",
			part_colour[i], part_name[i], 100 * s->part[i]);
	if (isfinite(s->smt))
		fprintf(f, "<span>of the back end, lost to the SMT sibling %.1f%%</span>",
			100 * s->smt);
	if (s->flags)
		fputs("<span>the raw slot counters disagree: clamped into range</span>", f);
	fputs("</div>\n", f);
}

/* One run or region: its name, measured or modelled, its figures and its bar. */
static void write_run(FILE *f, const char *name, const char *meta, bool modelled,
		      const struct split *s, const char *why)
{
	fputs("<div class=\"run\">\n<div class=\"run-head\"><span class=\"name\">", f);
	rpt_esc(f, name);
	fprintf(f, "</span><span class=\"tag %s\">%s</span><span class=\"meta\">",
		modelled ? "modelled" : "measured", modelled ? "modelled" : "measured");
	fputs(meta, f); /* already escaped */
	fputs("</span></div>\n", f);
	if (s->valid)
		write_split_bar(f, s, modelled);
	else
		rpt_absent(f, why);
	fputs("</div>\n", f);
}

/* A figure of a run: "IPC 1.23", or "IPC n/a" with the reason on hover. */
static void meta_figure(char *meta, size_t len, const char *what, double v, const char *fmt,
			const char *why)
{
	size_t at = strlen(meta);

	if (at >= len)
		return;
	if (isfinite(v)) {
		at += (size_t)snprintf(meta + at, len - at, "%s%s ", at ? " · " : "", what);
		if (at < len)
			snprintf(meta + at, len - at, fmt, v);
	} else {
		snprintf(meta + at, len - at,
			 "%s%s <span class=\"na\" title=\"absent: %s\">n/a</span>", at ? " · " : "",
			 what, why);
	}
}

/* s with HTML's special characters escaped, into buf (cut short where it does not fit). */
static const char *escaped(char *buf, size_t len, const char *s)
{
	size_t at = 0;

	for (; s && *s && at + 7 < len; s++) {
		const char *e = *s == '<'    ? "&lt;"
				: *s == '>'  ? "&gt;"
				: *s == '&'  ? "&amp;"
				: *s == '"'  ? "&quot;"
				: *s == '\'' ? "&#39;"
					     : NULL;

		if (e)
			at += (size_t)snprintf(buf + at, len - at, "%s", e);
		else
			buf[at++] = *s;
	}
	buf[at] = '\0';
	return buf;
}

/*
 * A run's IPC and IPCC: as ipcc stat wrote them, or where the output lacks the keys (an
 * older or hand-made file), from its counters as ipcc stat computes them.
 */
static void run_metrics(json_t *s, double *ipc, double *ipcc)
{
	json_t *ctr = json_object_get(s, "counters");
	struct ipcc_interval iv = { 0 };
	struct ipcc_metrics m;
	double tc = num(s, "tcfreq_khz"), el = num(s, "elapsed_ns");

	*ipc = num(s, "ipc");
	*ipcc = num(s, "ipcc");
	if (json_object_get(s, "ipc") && json_object_get(s, "ipcc"))
		return;
	for (int c = 0; c < IPCC_NCOUNTERS; c++) {
		json_t *v = json_object_get(ctr, ipcc_counter_name((enum ipcc_counter)c));

		if (json_is_number(v)) {
			iv.value[c] = (int64_t)llround(json_number_value(v));
			iv.coverage[c] = 1;
			iv.valid |= 1u << c;
		}
	}
	iv.elapsed_ns = el > 0 ? (uint64_t)llround(el) : 0;
	ipcc_metrics(&iv, tc > 0 ? (uint64_t)llround(tc) : 0, &m);
	if (!json_object_get(s, "ipc"))
		*ipc = m.ipc;
	if (!json_object_get(s, "ipcc"))
		*ipcc = m.ipcc;
}

/* "thread 12 · 3 calls · 4.5 ms in all" (the model backend's regions: "all threads") */
static void region_meta(char *meta, size_t len, json_t *reg)
{
	json_t *el = json_object_get(
	    json_object_get(json_object_get(reg, "counters"), "elapsed_ns"), "total");
	double calls = num(reg, "calls");

	if (json_is_number(json_object_get(reg, "thread")))
		snprintf(meta, len, "thread %.0f · ", num(reg, "thread"));
	else
		snprintf(meta, len, "all threads · ");
	snprintf(meta + strlen(meta), len - strlen(meta), "%.0f call%s", calls,
		 calls == 1 ? "" : "s");
	if (json_is_number(el))
		snprintf(meta + strlen(meta), len - strlen(meta), " · %.6g ms in all",
			 json_number_value(el) / 1e6);
}

static void write_stat(FILE *f, const struct rpt_json *in)
{
	json_t *s = in->root, *cmd = json_object_get(s, "command"), *arg;
	json_t *regions = json_object_get(json_object_get(s, "regions"), "regions"), *reg;
	const char *backend = str(s, "backend"), *why = split_absent(s);
	const char *rb = str(json_object_get(s, "regions"), "backend");
	const char *ins_why = str(json_object_get(s, "absent"), "instructions");
	bool modelled = backend && !strcmp(backend, "model"), any = false;
	struct split sp = split_of_run(s);
	char name[512] = "", meta[2048] = "", reason[1024], esc[1100], bk[64];
	double ipc, ipcc;
	size_t i;

	json_array_foreach(cmd, i, arg)
	{
		size_t at = strlen(name);

		if (at < sizeof(name))
			snprintf(name + at, sizeof(name) - at, "%s%s", i ? " " : "",
				 json_string_value(arg) ? json_string_value(arg) : "");
	}
	if (!json_is_array(cmd))
		snprintf(name, sizeof(name), "process %.0f", num(s, "pid"));
	fputs("<h3>", f);
	rpt_esc(f, in->name);
	fputs("</h3>\n", f);
	snprintf(reason, sizeof(reason), "%s",
		 why ? why : "the four slot counters are not in this output");
	escaped(esc, sizeof(esc), ins_why ? ins_why : "not in this output");
	snprintf(meta, sizeof(meta), "backend %s", escaped(bk, sizeof(bk), backend));
	if (isfinite(num(s, "elapsed_ns")))
		snprintf(meta + strlen(meta), sizeof(meta) - strlen(meta), " · %.6g ms",
			 num(s, "elapsed_ns") / 1e6);
	run_metrics(s, &ipc, &ipcc);
	meta_figure(meta, sizeof(meta), "IPC", ipc, "%.2f", esc);
	meta_figure(meta, sizeof(meta), "IPCC", ipcc, "%.2f", esc);
	write_run(f, name, meta, modelled, &sp, reason);
	json_array_foreach(json_object_get(s, "notes"), i, arg)
	{
		fputs("<p class=\"note\">", f);
		rpt_esc(f, json_string_value(arg));
		fputs("</p>\n", f);
	}
	if (!rb)
		rb = backend;
	snprintf(reason, sizeof(reason), "the regions' slot counters are absent (backend %s)%s%s",
		 rb, why ? ": " : "", why ? why : "");
	json_array_foreach(regions, i, reg) any |=
	    split_of(json_object_get(reg, "counters"), true).valid;
	if (json_array_size(regions) && !any) {
		/* No region has a split: their times in one table, the reason once. */
		fputs("<table class=\"regions\"><thead><tr><th>region</th><th>times</th></tr>"
		      "</thead><tbody>\n",
		      f);
		json_array_foreach(regions, i, reg)
		{
			region_meta(meta, sizeof(meta), reg);
			fputs("<tr><td>", f);
			rpt_esc(f, str(reg, "name"));
			fprintf(f, "</td><td>%s</td></tr>\n", meta);
		}
		fputs("</tbody></table>\n", f);
		rpt_absent(f, reason);
		return;
	}
	json_array_foreach(regions, i, reg)
	{
		struct split rs = split_of(json_object_get(reg, "counters"), true);
		char rname[300];

		snprintf(rname, sizeof(rname), "region %s",
			 str(reg, "name") ? str(reg, "name") : "?");
		region_meta(meta, sizeof(meta), reg);
		write_run(f, rname, meta, !strcmp(rb, "model"), &rs, reason);
	}
}

static void write_split(struct ipcc_report *r, FILE *f)
{
	rpt_section_open(f, "split", "Where the issue slots went");
	if (!r->nin[IPCC_REPORT_STAT_JSON]) {
		rpt_absent(f, rpt_absent_reason(r, IPCC_REPORT_SPLIT));
		fputs("</section>\n", f);
		return;
	}
	fputs("<p class=\"legend\">", f);
	for (int i = 0; i < 4; i++)
		fprintf(f, "<span><i class=\"sw\" style=\"background:%s\"></i>%s</span>",
			part_colour[i], part_name[i]);
	fputs("<span><svg width=\"22\" height=\"12\" aria-hidden=\"true\"><rect width=\"22\" "
	      "height=\"12\" fill=\"#7f7f7f\"/><rect width=\"22\" height=\"12\" "
	      "fill=\"url(#hatch)\"/></svg> hatched: modelled (the pipeline model's count), not "
	      "measured</span></p>\n"
	      "<p class=\"note\">Every issue slot is one of four: the front end delivered nothing "
	      "into it, the back end could not take what was delivered, the work was issued and "
	      "thrown away (speculation), or it retired.</p>\n",
	      f);
	for (size_t i = 0; i < r->nin[IPCC_REPORT_STAT_JSON]; i++)
		write_stat(f, &r->in[IPCC_REPORT_STAT_JSON][i]);
	fputs("</section>\n", f);
}

/* ---- the cycle tree -------------------------------------------------------------------- */

/* A metric's value as people read it: cycles and slots as counts, kHz, shares, ratios. */
static void write_value(FILE *f, double v, const char *unit)
{
	if (!unit)
		unit = "";
	if (!strcmp(unit, "kHz"))
		rpt_khz(f, v);
	else if (!strcmp(unit, "fraction"))
		rpt_pct(f, v);
	else if ((!strcmp(unit, "cycles") || !strcmp(unit, "slots") || !strcmp(unit, "count")) &&
		 fabs(v) < 1e18 && v == floor(v) && v >= 0)
		rpt_count(f, (uint64_t)v), fputc(' ', f), rpt_esc(f, unit);
	else
		fprintf(f, "%.4g ", v), rpt_esc(f, unit);
}

static void write_missing(FILE *f, json_t *m)
{
	json_t *missing = json_object_get(m, "missing"), *e;
	size_t i;

	if (!json_array_size(missing))
		return;
	fputs(" <span class=\"missing\">absent: events not in the counts: ", f);
	json_array_foreach(missing, i, e)
	{
		if (i == 6) {
			fprintf(f, " and %zu more", json_array_size(missing) - 6);
			break;
		}
		fputs(i ? ", " : "", f);
		rpt_esc(f, json_string_value(e));
	}
	fputs("</span>", f);
}

static void write_flags(FILE *f, json_t *m)
{
	json_t *flags = json_object_get(m, "flags"), *e;
	size_t i;

	json_array_foreach(flags, i, e)
	{
		const char *s = json_string_value(e);

		if (s && strcmp(s, "missing_events")) {
			fputs("<span class=\"flag\">", f);
			rpt_esc(f, s);
			fputs("</span>", f);
		}
	}
}

/* Metric k and, below it, its children (depth-limited: a parent loop cannot recurse). */
static void write_node(FILE *f, json_t *metrics, size_t k, const char *unit, int depth)
{
	json_t *m = json_array_get(metrics, k), *c;
	const char *name = str(m, "name");
	double cycles = num(m, "cycles"), share = num(m, "share_of_parent");
	bool children = false;
	size_t i;

	json_array_foreach(metrics, i, c)
	{
		const char *parent = str(c, "parent");

		children |= parent && name && i != k && !strcmp(parent, name);
	}
	children &= depth < 12;
	fputs(children ? "<details open><summary>" : "<div class=\"leaf\">", f);
	fputs("<span class=\"nm\">", f);
	rpt_esc(f, name);
	fputs("</span><span class=\"val\">", f);
	if (isfinite(cycles))
		write_value(f, cycles, unit);
	else if (isfinite(num(m, "value")))
		write_value(f, num(m, "value"), str(m, "unit"));
	else
		fputs("<span class=\"na\">n/a</span>", f);
	fputs("</span>", f);
	if (isfinite(share)) {
		double w = share < 0 ? 0 : share > 1 ? 100 : 100 * share;

		fprintf(f,
			"<span class=\"track\" title=\"share of its parent\"><span class=\"b m\" "
			"style=\"width:%.1f%%\"></span></span> ",
			w);
		rpt_pct(f, share);
		fputs(" of its parent", f);
	}
	write_missing(f, m);
	write_flags(f, m);
	if (!children) {
		fputs("</div>\n", f);
		return;
	}
	fputs("</summary>\n", f);
	json_array_foreach(metrics, i, c)
	{
		const char *parent = str(c, "parent");

		if (parent && i != k && !strcmp(parent, name))
			write_node(f, metrics, i, unit, depth + 1);
	}
	fputs("</details>\n", f);
}

static bool has_children(json_t *metrics, size_t k)
{
	const char *name = str(json_array_get(metrics, k), "name");
	json_t *c;
	size_t i;

	json_array_foreach(metrics, i, c) if (i != k && name && str(c, "parent") &&
					      !strcmp(str(c, "parent"), name)) return true;
	return false;
}

/* Whether metric k's parent is among the metrics. */
static bool parent_known(json_t *metrics, size_t k)
{
	const char *parent = str(json_array_get(metrics, k), "parent");
	json_t *c;
	size_t i;

	json_array_foreach(metrics, i, c) if (parent && str(c, "name") && i != k &&
					      !strcmp(str(c, "name"), parent)) return true;
	return false;
}

static void write_cycles(struct ipcc_report *r, FILE *f)
{
	rpt_section_open(f, "cycles", "The cycle tree");
	if (!r->nin[IPCC_REPORT_METRICS_JSON])
		rpt_absent(f, rpt_absent_reason(r, IPCC_REPORT_CYCLES));
	else
		fputs("<div class=\"tools\" hidden><button type=\"button\" data-open=\"1\" "
		      "data-for=\"cycles\">expand all</button><button type=\"button\" "
		      "data-open=\"0\" data-for=\"cycles\">collapse all</button></div>\n",
		      f);
	for (size_t n = 0; n < r->nin[IPCC_REPORT_METRICS_JSON]; n++) {
		json_t *root = r->in[IPCC_REPORT_METRICS_JSON][n].root, *metrics, *m, *note;
		size_t i, others = 0, trees = 0;

		metrics = json_object_get(root, "metrics");
		fputs("<h3>", f);
		rpt_esc(f, r->in[IPCC_REPORT_METRICS_JSON][n].name);
		fputs("</h3>\n<div class=\"tree\">\n", f);
		json_array_foreach(metrics, i, m)
		{
			if (parent_known(metrics, i))
				continue;
			if (has_children(metrics, i)) {
				write_node(f, metrics, i, str(m, "unit"), 0);
				trees++;
			} else {
				others++;
			}
		}
		fputs("</div>\n", f);
		if (!trees)
			rpt_absent(f, "no metric of this file has children: there is no tree");
		if (others) {
			fputs("<table><thead><tr><th>other metrics</th><th class=\"n\">value</th>"
			      "<th>unit</th></tr></thead><tbody>\n",
			      f);
			json_array_foreach(metrics, i, m)
			{
				if (parent_known(metrics, i) || has_children(metrics, i))
					continue;
				fputs("<tr><td>", f);
				rpt_esc(f, str(m, "name"));
				write_missing(f, m);
				write_flags(f, m);
				fputs("</td>", f);
				if (isfinite(num(m, "value"))) {
					fputs("<td class=\"n\">", f);
					write_value(f, num(m, "value"), "");
					fputs("</td>", f);
				} else {
					rpt_na(f, json_array_size(json_object_get(m, "missing"))
						      ? "events not in the counts"
						      : "not computed");
				}
				fputs("<td>", f);
				rpt_esc(f, str(m, "unit"));
				fputs("</td></tr>\n", f);
			}
			fputs("</tbody></table>\n", f);
		}
		json_array_foreach(json_object_get(root, "notes"), i, note)
		{
			fputs("<p class=\"note\">", f);
			rpt_esc(f, json_string_value(note));
			fputs("</p>\n", f);
		}
	}
	fputs("</section>\n", f);
}

/* ---- benchmarks ------------------------------------------------------------------------ */

/* The top of an axis from 0 that holds v, in 4 steps of 1, 2, 2.5 or 5 times a power of 10. */
static double nice_top(double v)
{
	static const double steps[] = { 1, 2, 2.5, 5, 10 };
	double p = pow(10, floor(log10(v / 4)));

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (4 * steps[i] * p >= v)
			return 4 * steps[i] * p;
	return 40 * p;
}

/* A swept kernel's value against the size, on a log-2 axis of sizes. */
static void write_sweep(FILE *f, json_t *k)
{
	json_t *points = json_object_get(k, "points"), *p;
	const double W = 560, H = 220, L = 64, T = 30, B = 40;
	double xmin = INFINITY, xmax = -INFINITY, ymax = 0;
	size_t i;

	json_array_foreach(points, i, p)
	{
		double x = num(p, "size_bytes"), y = num(p, "value");

		if (!(x > 0) || !isfinite(y))
			continue;
		xmin = fmin(xmin, log2(x));
		xmax = fmax(xmax, log2(x));
		ymax = fmax(ymax, y);
	}
	if (!(xmax > xmin) || !(ymax > 0))
		return;
	ymax = nice_top(ymax);
	fprintf(f,
		"<svg class=\"chart\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"role=\"img\" aria-label=\"",
		W + L + 16, H + T + B, W + L + 16, H + T + B);
	rpt_esc(f, str(k, "name"));
	fprintf(f,
		" against the size\"><line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" "
		"stroke=\"#1d1d1f\"/><line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" "
		"stroke=\"#1d1d1f\"/>",
		L, T + H, L + W, T + H, L, T, L, T + H);
	for (int t = 0; t <= 4; t++)
		fprintf(f,
			"<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.4g</text><line "
			"x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#dcdce1\"/>",
			L - 4, T + H - H * t / 4 + 4, ymax * t / 4, L + 1, T + H - H * t / 4, L + W,
			T + H - H * t / 4);
	for (double e = ceil(xmin); e <= xmax; e += xmax - xmin > 12 ? 2 : 1) {
		double x = L + W * (e - xmin) / (xmax - xmin), bytes = exp2(e);

		fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">", x, T + H + 14);
		if (bytes >= 1 << 30)
			fprintf(f, "%.0fG", bytes / (1 << 30));
		else if (bytes >= 1 << 20)
			fprintf(f, "%.0fM", bytes / (1 << 20));
		else if (bytes >= 1024)
			fprintf(f, "%.0fK", bytes / 1024);
		else
			fprintf(f, "%.0f", bytes);
		fputs("</text>", f);
	}
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">size (bytes)</text>",
		L + W / 2, T + H + 32);
	fprintf(f, "<text x=\"%.0f\" y=\"16\" font-weight=\"600\">", L);
	rpt_esc(f, str(k, "name"));
	fputs(": ", f);
	rpt_esc(f, str(k, "unit"));
	fputs(" against the size</text><polyline fill=\"none\" stroke=\"#0072B2\" "
	      "stroke-width=\"2\" points=\"",
	      f);
	json_array_foreach(points, i, p)
	{
		double x = num(p, "size_bytes"), y = num(p, "value");

		if (x > 0 && isfinite(y))
			fprintf(f, "%.1f,%.1f ", L + W * (log2(x) - xmin) / (xmax - xmin),
				T + H - H * y / ymax);
	}
	fputs("\"/>", f);
	json_array_foreach(points, i, p)
	{
		double x = num(p, "size_bytes"), y = num(p, "value");

		if (x > 0 && isfinite(y))
			fprintf(f,
				"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#0072B2\"><title>"
				"%.0f bytes: %.4g</title></circle>",
				L + W * (log2(x) - xmin) / (xmax - xmin), T + H - H * y / ymax, x,
				y);
	}
	fputs("</svg>\n", f);
}

static void write_size(FILE *f, double bytes)
{
	if (!(bytes > 0))
		fputs("&ndash;", f);
	else if (bytes >= 1 << 20 && fmod(bytes, 1 << 20) == 0)
		fprintf(f, "%.0f MiB", bytes / (1 << 20));
	else if (bytes >= 1024 && fmod(bytes, 1024) == 0)
		fprintf(f, "%.0f KiB", bytes / 1024);
	else
		fprintf(f, "%.0f B", bytes);
}

static void write_bench(struct ipcc_report *r, FILE *f)
{
	rpt_section_open(f, "bench", "Benchmark figures");
	if (!r->nin[IPCC_REPORT_BENCH_JSON])
		rpt_absent(f, rpt_absent_reason(r, IPCC_REPORT_BENCH));
	for (size_t n = 0; n < r->nin[IPCC_REPORT_BENCH_JSON]; n++) {
		json_t *kernels = json_object_get(r->in[IPCC_REPORT_BENCH_JSON][n].root, "kernels"),
		       *k;
		const char *validation = NULL;
		size_t i, j;

		fputs("<h3>", f);
		rpt_esc(f, r->in[IPCC_REPORT_BENCH_JSON][n].name);
		fputs("</h3>\n<table class=\"sortable\"><thead><tr><th>kernel</th><th "
		      "class=\"n\">size</th><th class=\"n\">value</th><th>unit</th><th "
		      "class=\"n\">ns/iteration</th><th class=\"n\">cycles/iteration</th><th "
		      "class=\"n\">spread</th><th class=\"n\">runs</th></tr></thead><tbody>\n",
		      f);
		json_array_foreach(kernels, i, k)
		{
			json_t *p;

			if (!validation && str(k, "validation_absent"))
				validation = str(k, "validation_absent");
			if (str(k, "error")) {
				fputs("<tr><td>", f);
				rpt_esc(f, str(k, "name"));
				fputs("</td><td class=\"na\" colspan=\"7\">absent: ", f);
				rpt_esc(f, str(k, "error"));
				fputs("</td></tr>\n", f);
				continue;
			}
			json_array_foreach(json_object_get(k, "points"), j, p)
			{
				static const char *const cols[] = { "value", "ns_per_iter",
								    "cycles_per_iter" };

				fputs("<tr><td>", f);
				rpt_esc(f, str(k, "name"));
				if (num(k, "threads") > 1)
					fprintf(f, " (%.0f threads)", num(k, "threads"));
				fprintf(f, "</td><td class=\"n\" data-v=\"%.0f\">",
					isfinite(num(p, "size_bytes")) ? num(p, "size_bytes") : 0);
				write_size(f, num(p, "size_bytes"));
				fputs("</td>", f);
				for (int c = 0; c < 3; c++) {
					if (isfinite(num(p, cols[c])))
						fprintf(f, "<td class=\"n\">%.4g</td>",
							num(p, cols[c]));
					else
						rpt_na(f, "not in the output");
					if (c == 0) {
						fputs("<td>", f);
						rpt_esc(f, str(k, "unit"));
						fputs("</td>", f);
					}
				}
				if (isfinite(num(p, "spread")))
					fprintf(f, "<td class=\"n\">%.1f%%</td>",
						100 * num(p, "spread"));
				else
					rpt_na(f, "not in the output");
				fprintf(f, "<td class=\"n\">%.0f</td></tr>\n", num(p, "reps"));
			}
		}
		fputs("</tbody></table>\n", f);
		if (validation) {
			fputs("<p class=\"note\">Counts per iteration checked against the PMU: "
			      "absent: ",
			      f);
			rpt_esc(f, validation);
			fputs("</p>\n", f);
		}
		json_array_foreach(kernels, i,
				   k) if (json_array_size(json_object_get(k, "points")) > 2)
		    write_sweep(f, k);
	}
	fputs("</section>\n", f);
}

/* ---- the page -------------------------------------------------------------------------- */

static void write_title(const struct ipcc_report *r, FILE *f)
{
	json_t *cmd;

	if (r->title) {
		rpt_esc(f, r->title);
		return;
	}
	fputs("ipcc report", f);
	if (r->rec_name) {
		fputs(": ", f);
		rpt_esc(f, rpt_base(r->rec_name));
	} else if (r->nin[IPCC_REPORT_STAT_JSON] &&
		   json_is_array(
		       cmd = json_object_get(r->in[IPCC_REPORT_STAT_JSON][0].root, "command"))) {
		fputs(": ", f);
		rpt_esc(f, json_string_value(json_array_get(cmd, 0)));
	}
}

static const struct {
	const char *id, *title;
} nav[] = {
	{ "machine", "Machine" },     { "split", "Issue slots" }, { "cycles", "Cycle tree" },
	{ "functions", "Functions" }, { "loops", "Hot loops" },	  { "footprint", "Footprint" },
	{ "bench", "Benchmarks" },
};

int ipcc_report_write(struct ipcc_report *r, FILE *f)
{
	static const char *const kind[3] = { "ipcc stat", "ipcc metrics", "ipcc bench" };
	char when[64] = "";
	time_t now = time(NULL);
	struct tm tm;
	bool first = true;
	int ret = collect_facts(r);

	if (ret)
		return ret;
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"",
	      f);
	rpt_esc(f, r->generator);
	fputs("\">\n<title>", f);
	write_title(r, f);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", rpt_css);
	/* The hatching of modelled bars, for every SVG of the page. */
	fputs(
	    "<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\">"
	    "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
	    "patternTransform=\"rotate(45)\"><rect width=\"2.5\" height=\"6\" fill=\"#fff\" "
	    "fill-opacity=\"0.55\"/></pattern></defs></svg>\n<header>\n<h1>",
	    f);
	write_title(r, f);
	fputs("</h1>\n<p class=\"sub\">Written ", f);
	rpt_esc(f, when);
	fputs(" by ", f);
	rpt_esc(f, r->generator);
	fputs(" from ", f);
	if (r->rec_name) {
		fputs("the recording <code>", f);
		rpt_esc(f, r->rec_name);
		fputs("</code>", f);
		first = false;
	}
	for (int k = 0; k < 3; k++)
		for (size_t i = 0; i < r->nin[k]; i++) {
			fputs(first ? "" : ", ", f);
			fputs("<code>", f);
			rpt_esc(f, r->in[k][i].name);
			fprintf(f, "</code> (%s)", kind[k]);
			first = false;
		}
	if (first)
		fputs("no inputs", f);
	fputs(".</p>\n<nav>", f);
	for (size_t i = 0; i < sizeof(nav) / sizeof(nav[0]); i++)
		fprintf(f, "<a href=\"#%s\">%s</a>", nav[i].id, nav[i].title);
	fputs("</nav>\n</header>\n<main>\n", f);
	write_machine(r, f);
	write_split(r, f);
	write_cycles(r, f);
	rpt_write_functions(r, f);
	rpt_write_loops(r, f);
	rpt_write_footprint(r, f);
	write_bench(r, f);
	fputs("</main>\n<footer>Figures carry their units: time in ns, frequencies in kHz, shares "
	      "of samples or slots in per cent. A figure that could not be measured or modelled "
	      "is said to be absent, with the reason; it is never drawn as 0. The page needs no "
	      "network; its script only sorts tables, zooms the flame graph and expands the "
	      "cycle tree.</footer>\n<script>\n",
	      f);
	fputs(rpt_js, f);
	fputs("</script>\n</body>\n</html>\n", f);
	if (ferror(f))
		return err_set(IPCC_ESYS, "report: writing the page failed");
	return 0;
}
