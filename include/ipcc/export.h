/*
 * export.h - writers for the engines people already run.
 *
 * OpenMetrics: the text exposition (https://openmetrics.io) that Prometheus scrapes and
 * node_exporter's textfile collector reads. A writer is a heap object on the caller's FILE;
 * the caller declares a family (name, type, unit, help), then writes its samples, family
 * after family, and ends with ipcc_openmetrics_end(), which writes "# EOF":
 *
 *     struct ipcc_openmetrics *w = ipcc_openmetrics_new(out);
 *     struct ipcc_om_label l[] = { { "command", "make -j8" } };
 *
 *     ipcc_openmetrics_family(w, "ipcc_elapsed_seconds", IPCC_OM_GAUGE, "seconds", "...");
 *     ipcc_openmetrics_sample(w, l, 1, 1.25);
 *     ret = ipcc_openmetrics_end(w);
 *     ipcc_openmetrics_free(w);
 *
 * The writer checks names (metric and label names, a unit that is the name's suffix, a
 * counter's "_total", an info metric's "_info", each family once) and escapes label values
 * and help texts (backslash, double quote, newline; bytes that are not UTF-8 become '?').
 * A family's TYPE, UNIT and HELP lines are written with its first sample: a family with no
 * sample writes nothing. A NaN sample is absent and left out, never written as 0.
 *
 * Counters and info metrics are named as the Prometheus text format names them, which is
 * what node_exporter's textfile collector and `promtool check metrics` parse: a counter's
 * TYPE and HELP carry its "_total" (OpenMetrics 1.0 names the family without it; Prometheus's
 * OpenMetrics parser reads both), and an info metric is a gauge of value 1 whose name ends in
 * "_info" (the text format has no info type). Units are written in a UNIT line for gauges.
 */
#ifndef IPCC_EXPORT_H
#define IPCC_EXPORT_H

#include <stdio.h>

enum ipcc_om_type {
	IPCC_OM_GAUGE,	 /* a value now */
	IPCC_OM_COUNTER, /* a count; the name ends in _total */
	IPCC_OM_INFO	 /* labels that describe something; value 1, the name ends in _info */
};

struct ipcc_om_label {
	const char *name;  /* [a-zA-Z_][a-zA-Z0-9_]*, not starting with "__" */
	const char *value; /* any text; NULL is written as "" */
};

struct ipcc_openmetrics;

/* A writer on `out` (which stays the caller's), or NULL when out of memory. */
struct ipcc_openmetrics *ipcc_openmetrics_new(FILE *out);
void ipcc_openmetrics_free(struct ipcc_openmetrics *w);

/*
 * Labels added to every sample after this call (copied), before each sample's own. 0, or
 * IPCC_EINVAL for a bad label name.
 */
int ipcc_openmetrics_labels(struct ipcc_openmetrics *w, const struct ipcc_om_label *labels,
			    unsigned n);

/*
 * Start family `name`. `unit` (NULL for none) must be the name's last word ("seconds" for
 * ipcc_elapsed_seconds; for a counter, the word before "_total"). IPCC_EINVAL for a bad or
 * repeated name.
 */
int ipcc_openmetrics_family(struct ipcc_openmetrics *w, const char *name, enum ipcc_om_type type,
			    const char *unit, const char *help);

/* One sample of the current family. A NaN value writes nothing. IPCC_EINVAL for bad labels. */
int ipcc_openmetrics_sample(struct ipcc_openmetrics *w, const struct ipcc_om_label *labels,
			    unsigned n, double value);

/* Write "# EOF" and flush. 0, or IPCC_ESYS when any write failed. */
int ipcc_openmetrics_end(struct ipcc_openmetrics *w);

#endif
