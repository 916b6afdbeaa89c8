/*
 * report_int.h - the report's inputs as the page writers see them (private to src/report/).
 *
 *   report.c   the inputs: JSON checked and kept, a recording's functions and code lines
 *   page.c     the page: head, machine, split, cycle tree, benchmarks, foot
 *   samples.c  the recording's sections: functions table, flame graph, hot loops, footprint
 *   html.c     escaping, numbers, bars, absent figures
 *   assets.c   the page's style sheet and script
 */
#ifndef IPCC_REPORT_INT_H
#define IPCC_REPORT_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ipcc/report.h"

struct rpt_json {
	char *name;
	json_t *root;
};

/* One value of a machine fact, with every source that gave it ("; " between them). */
struct rpt_fact {
	char *fact, *value, *sources;
};

/* A function of the recording, or the code of a file that no symbol covers (name NULL). */
struct rpt_func {
	const char *file;
	const char *name; /* demangled where it can be */
	uint64_t start, size;
	uint64_t samples;
};

/* A file of the recording: its functions are funcs[first .. first + n), hottest first. */
struct rpt_file {
	const char *file;
	uint64_t samples;
	size_t first, n;
};

/* The active code footprint: the hottest 64-byte lines. */
struct rpt_footprint {
	uint64_t *samples; /* per line, hottest first */
	size_t *functions; /* distinct functions among the first i + 1 lines */
	size_t n;
};

struct ipcc_report {
	char *title, *generator;
	unsigned top;
	struct rpt_json *in[3]; /* by enum ipcc_report_input */
	size_t nin[3];
	struct rpt_fact *facts;
	size_t nfacts;
	char *absent[IPCC_REPORT_NSECTIONS];

	/* The recording, with what the page draws of it. */
	char *rec_name;
	const struct ipcc_recording *rec;
	struct ipcc_symbols *syms;
	struct rpt_func *funcs; /* hottest first */
	size_t nfuncs;
	struct rpt_func *byfile; /* the same, by file (hottest file first), then hottest first */
	struct rpt_file *files;
	size_t nfiles;
	struct rpt_footprint fp;
	uint64_t first_ns, last_ns;

	const struct ipcc_explain *x;
};

/* html.c */
void rpt_esc(FILE *f, const char *s);		      /* text and attribute values */
void rpt_escn(FILE *f, const char *s, size_t n);      /* the first n bytes of s */
void rpt_count(FILE *f, uint64_t v);		      /* 1 234 567 (narrow spaces) */
void rpt_khz(FILE *f, double khz);		      /* 2 096 018 kHz (2.10 GHz) */
void rpt_pct(FILE *f, double share);		      /* 12.3% */
void rpt_absent(FILE *f, const char *why);	      /* a paragraph: absent, and why */
void rpt_na(FILE *f, const char *why);		      /* a table cell: n/a, why on hover */
void rpt_bar(FILE *f, const char *cls, double share); /* a cell's share as a bar and number */
const char *rpt_base(const char *path);
const char *rpt_absent_reason(const struct ipcc_report *r, enum ipcc_report_section s);

/* assets.c */
extern const char rpt_css[];
extern const char rpt_js[];

/* page.c */
void rpt_section_open(FILE *f, const char *id, const char *title);

/* samples.c */
void rpt_write_functions(const struct ipcc_report *r, FILE *f);
void rpt_write_loops(const struct ipcc_report *r, FILE *f);
void rpt_write_footprint(const struct ipcc_report *r, FILE *f);

#endif
