/*
 * samples.c - the recording's sections of the page: its functions as a sortable table and
 * a flame graph, the model's explanation of its hot loops, and its active code footprint.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ipcc/explain.h"
#include "ipcc/recording.h"
#include "report_int.h"

/* The flame graph's width in SVG units and its rows' height. */
#define FLAME_W	  1200.0
#define FLAME_ROW 22.0
/* Boxes narrower than this (SVG units) are merged, per file, into one. */
#define FLAME_MIN 0.6
/* Text of 11 px: about this many units a character. */
#define FLAME_CHAR 6.4

static const char *func_name(const struct rpt_func *fn)
{
	return fn->name ? fn->name : "[unknown: no symbol covers it]";
}

static void write_recording_line(const struct ipcc_report *r, FILE *f)
{
	const struct ipcc_recording *p = r->rec;

	fputs("<p>The recording <code>", f);
	rpt_esc(f, r->rec_name);
	fputs("</code> holds ", f);
	rpt_count(f, p->nsamples);
	fputs(" samples", f);
	if (p->has_summary) {
		fputs(" of <code>", f);
		rpt_esc(f, p->summary.event);
		fputs("</code>", f);
		if (p->summary.freq)
			fprintf(f, " at %" PRIu64 " Hz", p->summary.freq);
		else if (p->summary.period)
			fprintf(f, " every %" PRIu64 " events", p->summary.period);
		fputs(", ", f);
		rpt_count(f, p->summary.lost);
		fprintf(f, " lost, throttled %" PRIu64 " times", p->summary.throttles);
	}
	if (p->nsamples > 1)
		fprintf(f, ", over %.3f s", (double)(r->last_ns - r->first_ns) / 1e9);
	fprintf(f, ", in %zu function%s of %zu file%s.</p>\n", r->nfuncs, r->nfuncs == 1 ? "" : "s",
		r->nfiles, r->nfiles == 1 ? "" : "s");
}

static void write_table(const struct ipcc_report *r, FILE *f)
{
	const double total = (double)r->rec->nsamples;
	size_t shown = r->nfuncs < r->top ? r->nfuncs : r->top;
	uint64_t rest = 0;

	fputs("<table class=\"sortable\" id=\"functions-table\">\n<thead><tr><th class=\"n\">#</th>"
	      "<th class=\"n\">samples</th><th class=\"num\">share</th><th>function</th>"
	      "<th>file</th></tr></thead>\n<tbody>\n",
	      f);
	for (size_t i = 0; i < shown; i++) {
		const struct rpt_func *fn = &r->funcs[i];

		fprintf(f, "<tr><td class=\"n\">%zu</td><td class=\"n\" data-v=\"%" PRIu64 "\">",
			i + 1, fn->samples);
		rpt_count(f, fn->samples);
		fputs("</td>", f);
		rpt_bar(f, "m", (double)fn->samples / total);
		fputs("<td class=\"mono\">", f);
		rpt_esc(f, func_name(fn));
		fputs("</td><td class=\"mono\" title=\"", f);
		rpt_esc(f, fn->file ? fn->file : "in no recorded mapping");
		fputs("\">", f);
		rpt_esc(f, fn->file ? rpt_base(fn->file) : "?");
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody>\n", f);
	for (size_t i = shown; i < r->nfuncs; i++)
		rest += r->funcs[i].samples;
	if (shown < r->nfuncs) {
		fprintf(f, "<tfoot><tr><td colspan=\"5\">%zu more functions hold ",
			r->nfuncs - shown);
		rpt_count(f, rest);
		fputs(" samples (", f);
		rpt_pct(f, (double)rest / total);
		fputs(").</td></tr></tfoot>\n", f);
	}
	fputs("</table>\n", f);
}

/* c mixed with white by t (0: c, 1: white), as #rrggbb. */
static void tint(char out[8], unsigned c, double t)
{
	unsigned rgb[3] = { c >> 16 & 255, c >> 8 & 255, c & 255 };

	for (int i = 0; i < 3; i++)
		rgb[i] = (unsigned)lround(rgb[i] + (255 - rgb[i]) * t);
	snprintf(out, 8, "#%02x%02x%02x", rgb[0] & 255, rgb[1] & 255, rgb[2] & 255);
}

/* One box of the flame graph; x and w are shares of the whole. */
static void flame_box(FILE *f, double x, double w, int row, const char *fill, const char *name,
		      uint64_t samples, uint64_t total)
{
	double px = x * FLAME_W, pw = w * FLAME_W;
	size_t fit = pw > 6 ? (size_t)((pw - 6) / FLAME_CHAR) : 0, len = strlen(name);

	fprintf(f, "<g class=\"f\" data-x=\"%.7f\" data-w=\"%.7f\" data-n=\"", x, w);
	rpt_esc(f, name);
	fputs("\"><title>", f);
	rpt_esc(f, name);
	fputs(": ", f);
	rpt_count(f, samples);
	fputs(" samples, ", f);
	rpt_pct(f, (double)samples / (double)total);
	fprintf(f,
		"</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"/>"
		"<text x=\"%.2f\" y=\"%.0f\">",
		px, (2 - row) * FLAME_ROW, pw, FLAME_ROW, fill, px + 3, (2 - row) * FLAME_ROW + 15);
	if (len <= fit)
		rpt_esc(f, name);
	else if (fit >= 3)
		rpt_escn(f, name, fit - 1), fputs("\u2026", f);
	fputs("</text></g>\n", f);
}

/*
 * The flame graph of a recording without call stacks: all, then each file, then each of its
 * functions, widths in proportion to samples, the root at the bottom.
 */
static void write_flame(const struct ipcc_report *r, FILE *f)
{
	static const unsigned hue[] = { 0xE69F00, 0x56B4E9, 0x009E73, 0xF0E442,
					0x0072B2, 0xD55E00, 0xCC79A7 };
	const uint64_t total = r->rec->nsamples;
	double x = 0;
	char all[64];

	fprintf(f,
		"<div class=\"figure\"><button type=\"button\" class=\"reset\" hidden>whole "
		"graph</button>\n<svg class=\"flame\" id=\"flame\" data-width=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"flame graph: all, files, "
		"functions\">\n",
		FLAME_W, FLAME_W, 3 * FLAME_ROW);
	snprintf(all, sizeof(all), "all (%" PRIu64 " samples)", total);
	flame_box(f, 0, 1, 0, "#c9c9d1", all, total, total);
	for (size_t i = 0; i < r->nfiles; i++) {
		const struct rpt_file *file = &r->files[i];
		double w = (double)file->samples / (double)total, fx = x;
		char fill[8], name[64];
		uint64_t small = 0;
		size_t nsmall = 0;

		tint(fill, hue[i % 7], 0.35);
		flame_box(f, x, w, 1, fill, file->file ? rpt_base(file->file) : "[unknown]",
			  file->samples, total);
		for (size_t j = 0; j < file->n; j++) {
			const struct rpt_func *fn = &r->byfile[file->first + j];
			double fw = (double)fn->samples / (double)total;

			if (fw * FLAME_W < FLAME_MIN) {
				small += fn->samples;
				nsmall++;
				continue;
			}
			tint(fill, hue[i % 7], j % 2 ? 0.72 : 0.58);
			flame_box(f, fx, fw, 2, fill, func_name(fn), fn->samples, total);
			fx += fw;
		}
		if (nsmall) {
			snprintf(name, sizeof(name), "%zu smaller functions", nsmall);
			flame_box(f, fx, (double)small / (double)total, 2, "#e4e4e8", name, small,
				  total);
		}
		x += w;
	}
	fputs("</svg></div>\n", f);
}

void rpt_write_functions(const struct ipcc_report *r, FILE *f)
{
	rpt_section_open(f, "functions", "Functions");
	if (!r->rec) {
		rpt_absent(f, rpt_absent_reason(r, IPCC_REPORT_FUNCTIONS));
		fputs("</section>\n", f);
		return;
	}
	write_recording_line(r, f);
	if (!r->rec->nsamples) {
		rpt_absent(f, "the recording holds no samples");
		fputs("</section>\n", f);
		return;
	}
	write_table(r, f);
	fputs("<h3>Flame graph</h3>\n<p class=\"note\">The recording holds no call stacks "
	      "(<code>ipcc record</code> samples the instruction pointer alone), so the graph is "
	      "all &rarr; file &rarr; function, a box as wide as its samples. A click on a box "
	      "zooms into it.</p>\n",
	      f);
	write_flame(r, f);
	fputs("</section>\n", f);
}

/* ---- hot loops ------------------------------------------------------------------------- */

/*
 * The verdict on a loop, in ipcc annotate --model's words (tools/ipcc/cmd_annotate.c,
 * verdict()): none where the samples' two halves differ more than the model does and by
 * more than 0.10, else whether the model is within 0.10.
 */
static const char *loop_verdict(const struct ipcc_explain_loop *e)
{
	if (isnan(e->halves) || isnan(e->distance))
		return "too few samples for a verdict";
	if (e->halves > 0.10 && e->halves > e->distance)
		return "no verdict: the samples' halves differ more than they differ from the "
		       "model";
	return e->distance <= 0.10 ? "the model explains the samples"
				   : "the model does not explain the samples";
}

static void write_loop(const struct ipcc_explain *x, size_t k, FILE *f)
{
	const struct ipcc_explain_loop *e = &x->loop[k];
	const struct ipcc_loop *l = &e->loop;

	fprintf(f, "<article class=\"loop\" id=\"loop-%zu\">\n<h3>Loop %zu: <code>", k + 1, k + 1);
	rpt_esc(f, l->function);
	fprintf(f, "+%#" PRIx64 "&ndash;%#" PRIx64 "</code> <span class=\"note\">",
		l->start - l->function_start, l->end - l->function_start);
	rpt_esc(f, rpt_base(l->file));
	fputs("</span></h3>\n<p>", f);
	rpt_count(f, l->samples);
	fputs(" samples, ", f);
	rpt_pct(f, l->share);
	fputs(" of the recording", f);
	if (e->inner)
		fprintf(f, "; holds %u inner loop%s, modelled as running once an iteration",
			e->inner, e->inner > 1 ? "s" : "");
	fputs(".</p>\n", f);
	if (e->status) {
		fputs("<p class=\"absent\"><strong>Not modelled:</strong> ", f);
		rpt_esc(f, e->why);
		fputs("</p>\n</article>\n", f);
		return;
	}
	fprintf(f, "<p>The model predicts <strong>%.2f cycles an iteration</strong> (IPC %.2f). ",
		e->cycles_per_iteration, e->ipc);
	if (e->bound_text[0]) {
		fputs("<span class=\"bound\">Bound: ", f);
		rpt_esc(f, e->bound_text);
		fputs(".</span>", f);
	}
	fputs("</p>\n", f);
	if (e->nmispredicts) {
		fputs("<p class=\"note\">Mispredicts: ", f);
		rpt_esc(f, e->mispredicts);
		fputs(
		    " (where the samples landed shows it mispredicts; no branch-miss counter says "
		    "how often: random data's 50%, an upper bound).</p>\n",
		    f);
	}
	if (e->napproximated) {
		fprintf(f, "<p class=\"note\">%u instructions approximated by the model: ",
			e->napproximated);
		rpt_esc(f, e->approximated);
		fputs(".</p>\n", f);
	}
	fprintf(f,
		"<p class=\"note\">Distance between the measured and predicted shares %.3f, "
		"between the samples' two halves in time %.3f: %s. De-skidding moved %.1f%% of "
		"the samples",
		e->distance, e->halves, loop_verdict(e), 100 * e->deskid_moved);
	if (e->unplaced)
		fprintf(f, "; %" PRIu64 " samples fell inside an instruction, not at its start",
			e->unplaced);
	fputs(".</p>\n<table class=\"shares\"><thead><tr><th>address</th><th>source line</th>"
	      "<th>instruction</th><th class=\"n\">samples</th><th>measured</th><th>predicted</th>"
	      "<th>de-skidded</th></tr></thead>\n<tbody>\n",
	      f);
	for (unsigned i = 0; i < e->nrows; i++) {
		const struct ipcc_explain_row *w = &e->rows[i];

		fprintf(f, "<tr%s><td class=\"mono\">%" PRIx64 "</td><td class=\"mono\">",
			w->selected ? " class=\"sel\"" : "", w->address);
		rpt_esc(f, w->line[0] ? w->line : "\u2013");
		fputs("</td><td class=\"mono\">", f);
		rpt_esc(f, w->text);
		if (w->approximated)
			fputs(" <span class=\"flag\">approximated</span>", f);
		fprintf(f, "</td><td class=\"n\">%" PRIu64 "</td>", w->samples);
		rpt_bar(f, "m", w->measured);
		rpt_bar(f, "p", w->predicted);
		rpt_bar(f, "d", w->deskid);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n</article>\n", f);
}

void rpt_write_loops(const struct ipcc_report *r, FILE *f)
{
	const struct ipcc_explain *x = r->x;

	rpt_section_open(f, "loops", "Hot loops, explained by the model");
	if (!x) {
		rpt_absent(f, rpt_absent_reason(r, IPCC_REPORT_LOOPS));
		fputs("</section>\n", f);
		return;
	}
	fprintf(f, "<p>%zu loops chosen of %zu found: ", x->n, x->loops.n);
	rpt_pct(f, x->loops.covered);
	fputs(" of the samples. Each loop's machine code is lifted into the pipeline model, which "
	      "predicts its cycles an iteration and names what bounds it; each sample is moved "
	      "back from where the interrupt landed to the instruction that held retirement "
	      "(de-skidded).</p>\n<p class=\"legend\"><span><i class=\"sw\" "
	      "style=\"background:#0072B2\"></i>measured share of the loop's samples</span>"
	      "<span><i class=\"sw\" style=\"background:#E69F00\"></i>predicted by the model</span>"
	      "<span><i class=\"sw\" style=\"background:#009E73\"></i>de-skidded</span>"
	      "<span>* held retirement in the model</span></p>\n",
	      f);
	if (!x->lines)
		rpt_absent(f, "source lines: no file of the recording has DWARF line tables "
			      "(build with -g)");
	if (!x->n)
		rpt_absent(f, "no loop was found in the sampled code");
	for (size_t k = 0; k < x->n; k++)
		write_loop(x, k, f);
	fputs("</section>\n", f);
}

/* ---- footprint ------------------------------------------------------------------------- */

void rpt_write_footprint(const struct ipcc_report *r, FILE *f)
{
	static const double shares[] = { 0.50, 0.75, 0.90, 0.99 };
	const struct rpt_footprint *fp = &r->fp;
	const double W = 620, H = 240, L = 56, T = 14, B = 44;
	size_t at[4], i = 0;
	uint64_t cum = 0, total;
	bool logx;

	rpt_section_open(f, "footprint", "Active code footprint");
	if (!r->rec || !r->rec->nsamples) {
		rpt_absent(f, r->rec ? "the recording holds no samples"
				     : rpt_absent_reason(r, IPCC_REPORT_FOOTPRINT));
		fputs("</section>\n", f);
		return;
	}
	total = r->rec->nsamples;
	for (size_t s = 0; s < 4; s++) {
		while (i < fp->n && (double)cum < shares[s] * (double)total)
			cum += fp->samples[i++];
		at[s] = i;
	}
	fputs("<p>How many of the hottest 64-byte code lines hold each share of the samples "
	      "(as <code>ipcc annotate --footprint</code> counts them).</p>\n"
	      "<table id=\"footprint-table\"><thead><tr><th class=\"n\">share</th><th "
	      "class=\"n\">lines</th><th class=\"n\">bytes</th><th class=\"n\">functions</th>"
	      "</tr></thead><tbody>\n",
	      f);
	for (size_t s = 0; s < 4; s++)
		fprintf(f,
			"<tr><td class=\"n\">%.0f%%</td><td class=\"n\">%zu</td><td "
			"class=\"n\">%zu</td><td class=\"n\">%zu</td></tr>\n",
			100 * shares[s], at[s], at[s] * 64, at[s] ? fp->functions[at[s] - 1] : 0);
	fputs("</tbody></table>\n", f);
	/* The curve: x the number of hottest lines (log scale past 20), y the share. */
	logx = fp->n >= 20;
#define XPOS(k)                                                   \
	(logx ? L + W * log10((double)(k)) / log10((double)fp->n) \
	      : L + W * (double)(k) / (double)fp->n)
#define YPOS(s) (T + H - H * (s))
	fprintf(f,
		"<svg class=\"chart\" id=\"footprint-curve\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"cumulative share of samples "
		"against the hottest lines\">",
		W + L + 20, H + T + B, W + L + 20, H + T + B);
	for (int t = 0; t <= 4; t++)
		fprintf(f,
			"<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#dcdce1\"/>"
			"<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%d%%</text>",
			L, YPOS(t / 4.0), L + W, YPOS(t / 4.0), L - 4, YPOS(t / 4.0) + 4, 25 * t);
	if (logx) {
		for (double d = 1; d <= (double)fp->n; d *= 10)
			fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.0f</text>",
				XPOS(d), T + H + 14, d);
	} else {
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">0</text>", L,
			T + H + 14);
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%zu</text>", L + W,
			T + H + 14, fp->n);
	}
	fprintf(f,
		"<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#1d1d1f\"/>"
		"<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#1d1d1f\"/>"
		"<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">hottest 64-byte lines (%zu in "
		"all%s)</text>",
		L, T + H, L + W, T + H, L, T, L, T + H, L + W / 2, T + H + 34, fp->n,
		logx ? ", log scale" : "");
	fputs("<polyline fill=\"none\" stroke=\"#0072B2\" stroke-width=\"2\" points=\"", f);
	if (!logx)
		fprintf(f, "%.1f,%.1f ", L, YPOS(0.0));
	cum = 0;
	for (size_t k = 0; k < fp->n; k++) {
		cum += fp->samples[k];
		/* One point a pixel column, its last: a curve of 100 000 lines stays small. */
		if (k + 1 < fp->n && (size_t)XPOS(k + 2) == (size_t)XPOS(k + 1))
			continue;
		fprintf(f, "%.1f,%.1f ", XPOS(k + 1), YPOS((double)cum / (double)total));
	}
	fputs("\"/>", f);
	for (size_t s = 0; s < 4; s++)
		if (at[s])
			fprintf(f,
				"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"#D55E00\"/>"
				"<text x=\"%.1f\" y=\"%.1f\">%.0f%%: %zu line%s</text>",
				XPOS(at[s]), YPOS(shares[s]), XPOS(at[s]) + 6, YPOS(shares[s]) + 12,
				100 * shares[s], at[s], at[s] > 1 ? "s" : "");
#undef XPOS
#undef YPOS
	fputs("</svg>\n</section>\n", f);
}
