/*
 * annotate_output.c - ipcc annotate --model's output: each hot loop the pipeline model
 * explains, as text, as JSON, and as an SVG of the shares per instruction.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "annotate_int.h"
#include "cli.h"

const char *annotate_base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "?";
}

/* The profile --model used: a built-in's name, or "NAME (from FILE)". */
static void profile_label(const struct annotate_opts *o, char *buf, size_t len)
{
	const char *asked = o->profile ? o->profile : "auto";

	if (!strcmp(asked, "auto") || !strcmp(asked, o->prof.name))
		snprintf(buf, len, "%s", o->prof.name);
	else
		snprintf(buf, len, "%s (from %s)", o->prof.name, asked);
}

/* The verdict on a loop (ipcc_skid_judge, one threshold: IPCC_SKID_MATCH_DISTANCE), in words. */
static const char *verdict(const struct ipcc_explain_loop *e)
{
	switch (e->verdict) {
	case IPCC_SKID_UNJUDGED:
		return "too few samples for a verdict";
	case IPCC_SKID_NO_VERDICT:
		return "no verdict: the samples' halves differ more than they differ from the "
		       "model";
	case IPCC_SKID_MATCHES:
		return "the model explains the samples";
	default:
		return "the model does not explain the samples";
	}
}

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%#" PRIx64, v);
	return json_string(buf);
}

void annotate_model_json(const struct annotate_opts *o, const struct ipcc_explain *x)
{
	json_t *root = json_object(), *loops = json_array();
	char label[4200];

	profile_label(o, label, sizeof(label));
	json_object_set_new(root, "profile", json_string(label));
	json_object_set_new(root, "covered", json_real(x->loops.covered));
	for (size_t k = 0; k < x->n; k++) {
		const struct ipcc_explain_loop *e = &x->loop[k];
		json_t *j = json_object(), *rows = json_array(), *approx = json_array();
		char names[sizeof(e->approximated)], *save = NULL;

		json_object_set_new(j, "function", json_string(e->loop.function));
		json_object_set_new(j, "file", json_string(e->loop.file));
		json_object_set_new(j, "start", hex(e->loop.start));
		json_object_set_new(j, "end", hex(e->loop.end));
		json_object_set_new(j, "samples", json_integer((json_int_t)e->loop.samples));
		json_object_set_new(j, "share", json_real(e->loop.share));
		json_object_set_new(j, "inner_loops", json_integer(e->inner));
		if (e->inner) {
			json_t *inner = json_array();

			for (size_t i = 0; i < x->loops.n; i++)
				if (x->loops.loop[i].parent == (int)e->index)
					json_array_append_new(
					    inner, json_pack("{s:o,s:o,s:I}", "start",
							     hex(x->loops.loop[i].start), "end",
							     hex(x->loops.loop[i].end), "samples",
							     (json_int_t)x->loops.loop[i].samples));
			json_object_set_new(j, "inner", inner);
		}
		if (e->status) {
			json_object_set_new(j, "error", json_string(e->why));
			json_array_append_new(loops, j);
			json_decref(rows);
			json_decref(approx);
			continue;
		}
		json_object_set_new(j, "cycles_per_iteration",
				    real_or_null(e->cycles_per_iteration));
		json_object_set_new(j, "ipc", real_or_null(e->ipc));
		json_object_set_new(j, "bound", json_string(e->bound_text));
		{
			static const char *const keys[IPCC_LIMITS] = {
				[IPCC_LIMIT_CHAIN] = "chain",
				[IPCC_LIMIT_FRONTEND] = "front_end",
				[IPCC_LIMIT_RETIRE] = "retire",
				[IPCC_LIMIT_ALU] = "alu_ports",
				[IPCC_LIMIT_LOAD] = "load_ports",
				[IPCC_LIMIT_STORE] = "store_ports",
				[IPCC_LIMIT_VECTOR] = "vector_ports",
				[IPCC_LIMIT_COMMIT] = "store_commits",
				[IPCC_LIMIT_AGU] = "address_generation",
				[IPCC_LIMIT_SHIFT] = "shift_ports",
				[IPCC_LIMIT_MUL] = "mul_ports",
				[IPCC_LIMIT_VMUL] = "vec_mul_ports",
				[IPCC_LIMIT_VADD] = "vec_add_ports",
				[IPCC_LIMIT_VOUT] = "vec_out_ports",
				[IPCC_LIMIT_VSHUF] = "vec_shuffle_ports",
				[IPCC_LIMIT_DEPLOAD] = "dep_load_ports",
				[IPCC_LIMIT_VLOAD] = "vec_load_ports",
				[IPCC_LIMIT_VIN] = "vec_in_ports",
				[IPCC_LIMIT_VMULMIX] = "vec_mul_mix_ports",
				[IPCC_LIMIT_VADDMIX] = "vec_add_mix_ports",
				[IPCC_LIMIT_BRANCH] = "branch_ports",
				[IPCC_LIMIT_MISPREDICT] = "mispredicts",
				[IPCC_LIMIT_TAGS] = "virtual_tags",
			};
			json_t *lim = json_object(), *chain = json_array();

			for (int l = 0; l < IPCC_LIMITS; l++)
				json_object_set_new(lim, keys[l], json_real(e->bound.limit[l]));
			json_object_set_new(j, "limits", lim);
			for (unsigned c = 0; c < e->bound.nchain; c++)
				if (e->bound.chain[c] < e->nrows)
					json_array_append_new(
					    chain, hex(e->rows[e->bound.chain[c]].address));
			json_object_set_new(j, "chain", chain);
		}
		snprintf(names, sizeof(names), "%s", e->approximated);
		for (char *t = strtok_r(names, ",", &save); t; t = strtok_r(NULL, ",", &save))
			json_array_append_new(approx, json_string(t + (*t == ' ')));
		json_object_set_new(j, "approximated", approx);
		json_object_set_new(j, "mispredicts", json_string(e->mispredicts));
		json_object_set_new(j, "distance", real_or_null(e->distance));
		json_object_set_new(j, "halves", real_or_null(e->halves));
		json_object_set_new(j, "verdict", json_string(verdict(e)));
		json_object_set_new(j, "deskid_moved", json_real(e->deskid_moved));
		json_object_set_new(j, "unplaced", json_integer((json_int_t)e->unplaced));
		for (unsigned r = 0; r < e->nrows; r++) {
			const struct ipcc_explain_row *w = &e->rows[r];

			json_array_append_new(
			    rows,
			    json_pack("{s:o,s:s,s:s,s:I,s:f,s:f,s:f,s:b,s:b}", "address",
				      hex(w->address), "line", w->line, "text", w->text, "samples",
				      (json_int_t)w->samples, "measured", w->measured, "predicted",
				      w->predicted, "deskid", w->deskid, "selected", w->selected,
				      "approximated", w->approximated));
		}
		json_object_set_new(j, "rows", rows);
		json_array_append_new(loops, j);
	}
	json_object_set_new(root, "loops", loops);
	json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
	putchar('\n');
	json_decref(root);
}

void annotate_model_text(const struct annotate_opts *o, const struct ipcc_explain *x)
{
	char label[4200];

	profile_label(o, label, sizeof(label));
	printf("%zu loops chosen of %zu: %.2f%% of the samples; model profile %s (placement "
	       "%s)\n",
	       x->n, x->loops.n, 100 * x->loops.covered, label,
	       o->prof.placement == IPCC_MODEL_PLACE_OLDEST ? "oldest" : "next");
	for (size_t k = 0; k < x->n; k++) {
		const struct ipcc_explain_loop *e = &x->loop[k];

		printf("\nloop %zu: %s+%#" PRIx64 "-%#" PRIx64 " (%s), %" PRIu64
		       " samples, %.2f%%%s\n",
		       k + 1, e->loop.function, e->loop.start - e->loop.function_start,
		       e->loop.end - e->loop.function_start, annotate_base(e->loop.file),
		       e->loop.samples, 100 * e->loop.share,
		       e->inner ? "; holds inner loops, modelled as running once an iteration"
				: "");
		for (size_t i = 0; i < x->loops.n; i++)
			if (x->loops.loop[i].parent == (int)e->index)
				printf("  inner loop %s+%#" PRIx64 "-%#" PRIx64 ", %" PRIu64
				       " samples\n",
				       e->loop.function,
				       x->loops.loop[i].start - e->loop.function_start,
				       x->loops.loop[i].end - e->loop.function_start,
				       x->loops.loop[i].samples);
		if (e->status) {
			printf("  not modelled: %s\n", e->why);
			continue;
		}
		printf("  predicted %.2f cycles/iteration (IPC %.2f)\n", e->cycles_per_iteration,
		       e->ipc);
		if (e->bound_text[0])
			printf("  bound: %s\n", e->bound_text);
		printf("  limits, cycles/iteration each alone: chain %.2f, front end %.2f, retire "
		       "%.2f, ports ALU %.2f load %.2f store %.2f vector %.2f, mispredicts %.2f\n",
		       e->bound.limit[IPCC_LIMIT_CHAIN], e->bound.limit[IPCC_LIMIT_FRONTEND],
		       e->bound.limit[IPCC_LIMIT_RETIRE], e->bound.limit[IPCC_LIMIT_ALU],
		       e->bound.limit[IPCC_LIMIT_LOAD], e->bound.limit[IPCC_LIMIT_STORE],
		       e->bound.limit[IPCC_LIMIT_VECTOR], e->bound.limit[IPCC_LIMIT_MISPREDICT]);
		if (e->nmispredicts)
			printf("  mispredicts: %s (where the samples landed shows it mispredicts; "
			       "no branch-miss counter says how often: random data's 50%%, an "
			       "upper bound)\n",
			       e->mispredicts);
		if (e->napproximated)
			printf("  %u instructions approximated: %s\n", e->napproximated,
			       e->approximated);
		printf("  distance measured-predicted %.3f, between halves %.3f: %s\n", e->distance,
		       e->halves, verdict(e));
		printf("  de-skidding moved %.1f%% of the samples%s\n", 100 * e->deskid_moved,
		       e->unplaced ? "" : "");
		if (e->unplaced)
			printf("  %" PRIu64 " samples inside an instruction, not at its start\n",
			       e->unplaced);
		printf("  %8s  %-20s %8s %8s %8s %8s  %s\n", "address", "line", "samples",
		       "measured", "model", "deskid", "instruction");
		for (unsigned r = 0; r < e->nrows; r++) {
			const struct ipcc_explain_row *w = &e->rows[r];

			printf("  %8" PRIx64 "  %-20s %8" PRIu64
			       " %7.2f%% %7.2f%% %7.2f%% %c%c%s\n",
			       w->address, w->line[0] ? w->line : "-", w->samples,
			       100 * w->measured, 100 * w->predicted, 100 * w->deskid,
			       w->selected ? '*' : ' ', w->approximated ? '~' : ' ', w->text);
		}
	}
	printf("\n* selected: held retirement in the model; ~ approximated\n");
}

/* s into f with XML's five special characters escaped (C++ names hold < and >). */
static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
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
			fputs("&apos;", f);
			break;
		default:
			fputc(*s, f);
		}
}

/* --svg with --model: per loop, three bars per instruction: measured, predicted, de-skidded. */
int annotate_model_svg(const char *path, const struct ipcc_explain *x)
{
	static const char *const colour[3] = { "steelblue", "darkorange", "seagreen" };
	static const char *const what[3] = { "measured", "predicted", "de-skidded" };
	const double panel = 240, width = 720;
	FILE *f = fopen(path, "w");

	if (!f)
		return cli_error("annotate", "cannot write %s: %s", path, strerror(errno));
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n",
		width, 40 + panel * (double)(x->n ? x->n : 1));
	for (int c = 0; c < 3; c++)
		fprintf(f,
			"<rect x=\"%d\" y=\"12\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"22\">%s share</text>\n",
			60 + 170 * c, colour[c], 76 + 170 * c, what[c]);
	for (size_t k = 0; k < x->n; k++) {
		const struct ipcc_explain_loop *e = &x->loop[k];
		const double top = 40 + panel * (double)k, base = top + panel - 40;
		const double step = e->nrows ? (width - 80) / e->nrows : 0;

		fprintf(f, "<text x=\"60\" y=\"%.0f\">loop %zu: ", top + 16, k + 1);
		xml_text(f, e->loop.function);
		fprintf(f,
			"+%#" PRIx64 "-%#" PRIx64 ", %.2f cycles/iteration predicted</text>\n"
			"<line x1=\"60\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n",
			e->loop.start - e->loop.function_start,
			e->loop.end - e->loop.function_start, e->cycles_per_iteration, base,
			width - 20, base);
		for (unsigned r = 0; r < e->nrows; r++) {
			const double v[3] = { e->rows[r].measured, e->rows[r].predicted,
					      e->rows[r].deskid };

			for (int c = 0; c < 3; c++) {
				fprintf(
				    f,
				    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				    "fill=\"%s\"><title>%" PRIx64 " ",
				    60 + step * r + step * c / 3.5, base - 170 * v[c], step / 3.5,
				    170 * v[c], colour[c], e->rows[r].address);
				xml_text(f, e->rows[r].text);
				fprintf(f, ": %s %.1f%%</title></rect>\n", what[c], 100 * v[c]);
			}
		}
	}
	fprintf(f, "</svg>\n");
	if (fclose(f))
		return cli_error("annotate", "writing %s: %s", path, strerror(errno));
	return EXIT_OK;
}
