/*
 * report.h - one HTML page that a person opens: what ipcc measured and modelled, drawn.
 *
 * A report gathers inputs, then writes one self-contained page (inline SVG and CSS, a small
 * script that only sorts, zooms and expands; no network, no external script or font):
 *   machine    the CPU, its recipe and model profile, TCFREQ and the core frequency, each with
 *              where it came from
 *   split      where the issue slots went, one bar per run or region, measured or modelled
 *   cycles     the cycle tree of `ipcc metrics --format json` output
 *   functions  a recording's functions, hottest first, and its flame graph
 *   loops      the model's explanation of the recording's hot loops (explain.h)
 *   footprint  the cumulative share of samples over the hottest 64-byte code lines
 *   bench      `ipcc bench --format json` figures
 * A section without its input, or a figure its input holds as absent (JSON null), is written
 * as absent with the reason; nothing absent is drawn as 0.
 *
 * Ownership: the report copies the JSON inputs it parses and the strings it is given. The
 * recording, its symbols and an explanation are used where they are, not copied: they must
 * outlive ipcc_report_write(). The caller frees the report with ipcc_report_free().
 */
#ifndef IPCC_REPORT_H
#define IPCC_REPORT_H

#include <stddef.h>
#include <stdio.h>

struct ipcc_recording;
struct ipcc_symbols;
struct ipcc_explain;

enum ipcc_report_section {
	IPCC_REPORT_MACHINE,
	IPCC_REPORT_SPLIT,
	IPCC_REPORT_CYCLES,
	IPCC_REPORT_FUNCTIONS,
	IPCC_REPORT_LOOPS,
	IPCC_REPORT_FOOTPRINT,
	IPCC_REPORT_BENCH,
	IPCC_REPORT_NSECTIONS
};

/* What a JSON input is the output of. */
enum ipcc_report_input {
	IPCC_REPORT_STAT_JSON,	  /* ipcc stat --format json (any backend; "model": modelled) */
	IPCC_REPORT_METRICS_JSON, /* ipcc metrics --format json */
	IPCC_REPORT_BENCH_JSON	  /* ipcc bench --format json */
};

struct ipcc_report_opts {
	const char *title;     /* NULL: made from the inputs */
	const char *generator; /* who wrote it, for the page's foot ("ipcc 0.1.0"); NULL: "ipcc" */
	unsigned top;	       /* functions in the table (0: 50) */
};

struct ipcc_report;

int ipcc_report_new(const struct ipcc_report_opts *o, struct ipcc_report **out);

/* ipcc_report_free(NULL) does nothing. */
void ipcc_report_free(struct ipcc_report *r);

/*
 * Add the JSON `text` (len bytes) of kind `kind`, named `name` on the page (a file name).
 * IPCC_EINVAL, with the reason in ipcc_last_error(), when it is not JSON or not that command's
 * output; IPCC_ENOMEM.
 */
int ipcc_report_parse(struct ipcc_report *r, enum ipcc_report_input kind, const char *name,
		      const char *text, size_t len);

/* The same for the file at `path`, named by its path; IPCC_ESYS when it cannot be read. */
int ipcc_report_load(struct ipcc_report *r, enum ipcc_report_input kind, const char *path);

/*
 * The recording p (named `name`), with symbols made for it: its functions, flame graph and
 * footprint. One recording a report. Returns 0, IPCC_EINVAL (a second one), IPCC_ENOMEM.
 */
int ipcc_report_add_recording(struct ipcc_report *r, const char *name,
			      const struct ipcc_recording *p, struct ipcc_symbols *syms);

/* The model's explanation of the recording's hot loops (ipcc_explain() over it). */
int ipcc_report_add_explain(struct ipcc_report *r, const struct ipcc_explain *x);

/*
 * A fact about the machine from elsewhere than the inputs: `fact` is "CPU", "recipe",
 * "model profile", "TCFREQ" or "core frequency"; `value` as people read it, `source` where it
 * came from. Facts with the same value are shown once, with each source.
 */
int ipcc_report_add_fact(struct ipcc_report *r, const char *fact, const char *value,
			 const char *source);

/* Why section s is absent when no input fills it (each has a default reason). */
int ipcc_report_absent(struct ipcc_report *r, enum ipcc_report_section s, const char *why);

/* Write the page to f. IPCC_ESYS when writing fails. */
int ipcc_report_write(struct ipcc_report *r, FILE *f);

#endif
