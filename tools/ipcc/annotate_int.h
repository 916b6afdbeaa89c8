/*
 * annotate_int.h - what ipcc annotate's parts share: the options cmd_annotate.c parses, and
 * the model's output (annotate_output.c: --model as text, JSON and SVG).
 */
#ifndef IPCC_ANNOTATE_INT_H
#define IPCC_ANNOTATE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "ipcc/explain.h"
#include "ipcc/model.h"

enum unknown_mode { UNKNOWN_ADDRESS, UNKNOWN_LINE, UNKNOWN_FILE };

struct annotate_opts {
	const char *input, *symbol, *svg, *output;
	char range_file[4096]; /* --symbol FILE+0xSTART-0xEND: FILE, or "" */
	uint64_t lo, hi;
	uint64_t top, loops;
	double cover;
	enum unknown_mode unknown;
	bool folded, footprint, raw_names, pprof, model, json;
	const char *profile;
	struct ipcc_model_profile prof;
	char profile_note[320]; /* which profile --profile auto chose (cli_parse_profile) */
};

/* The file name of a path ("?" for none). */
const char *annotate_base(const char *path);

/* --model: each explained loop as text, or as JSON, on stdout. */
void annotate_model_text(const struct annotate_opts *o, const struct ipcc_explain *x);
void annotate_model_json(const struct annotate_opts *o, const struct ipcc_explain *x);

/* --model --svg FILE: per loop, measured, predicted and de-skidded shares; EXIT_FAIL, printed. */
int annotate_model_svg(const char *path, const struct ipcc_explain *x);

#endif
