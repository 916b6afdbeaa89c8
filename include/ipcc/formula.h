/*
 * formula.h - cycle accounting: the metric language, metric files, counts, the cycle tree.
 *
 * A formula is text in a small language: numbers (1, 2.5, 1e9), identifiers (aliases such
 * as `a`, or event names such as UOPS_ISSUED.ANY:c1, which may hold `.`, `:` and `=`),
 * + - * /, unary minus, parentheses, min(x, y, ...), max(x, y, ...), comparisons
 * (< <= > >= == !=, giving 1 or 0) and `x if cond else y`. It is lexed and parsed into an
 * AST that can be printed, and evaluated in double precision: division by zero gives NaN and
 * a flag, never a crash. Errors carry line and column.
 *
 * A metric is a name, a unit, an optional parent, event aliases and a formula, as in the
 * XML of Levinthal's cycle-accounting text:
 *     <metric name="..." parent="..." unit="cycles|fraction|...">
 *       <event alias="a">CPU_CLK_UNHALTED.THREAD</event>
 *       <formula>(d/b)</formula>
 *     </metric>
 * An <event> may name other names of the same count, `also="cycles cpu-cycles"`: when the
 * counts lack the event's own name, the first of those they hold is used (A+B: a sum).
 * A file holds any number of them, and <note> elements beside them (parsed with expat). Metrics with unit "cycles" or
 * "fraction" (of the cycles of the tree's root) form the cycle tree.
 *
 * Counts are event name -> value; names match without regard to case, and `.` matches `:`.
 * Ownership: _new returns what _free releases; _free(NULL) is a no-op; strings returned by
 * ipcc_formula_dump() are released with free().
 */
#ifndef IPCC_FORMULA_H
#define IPCC_FORMULA_H

#include <stdbool.h>
#include <stddef.h>

/* Where a formula or a metric file went wrong. */
struct ipcc_formula_error {
	unsigned line, column; /* 1-based */
	char message[192];
};

/* Flags of an evaluation. */
enum {
	IPCC_FORMULA_DIV0 = 1 << 0,    /* a division by zero: the value is NaN */
	IPCC_FORMULA_MISSING = 1 << 1, /* a variable had no value: the value is NaN */
};

struct ipcc_formula;

int ipcc_formula_parse(const char *text, struct ipcc_formula **out, struct ipcc_formula_error *err);
void ipcc_formula_free(struct ipcc_formula *f);

/* The formula's distinct variables, in order of first appearance. */
unsigned ipcc_formula_nvars(const struct ipcc_formula *f);
const char *ipcc_formula_var(const struct ipcc_formula *f, unsigned i);

/*
 * Evaluate with values[i] for variable i (NaN: no value). *flags (if not NULL) receives
 * IPCC_FORMULA_* bits.
 */
double ipcc_formula_eval(const struct ipcc_formula *f, const double *values, unsigned *flags);

/* The AST as an S-expression, e.g. "(/ (+ b c) a)". Free it with free(). */
char *ipcc_formula_dump(const struct ipcc_formula *f);

/* ---- counts ---------------------------------------------------------------------------- */

struct ipcc_counts;

struct ipcc_counts *ipcc_counts_new(void);
void ipcc_counts_free(struct ipcc_counts *c);

/* Set (or replace) a count. NaN records the name as present but unmeasured. */
int ipcc_counts_set(struct ipcc_counts *c, const char *name, double value);

/* A count by name, or NaN when it is not there. */
double ipcc_counts_get(const struct ipcc_counts *c, const char *name);
bool ipcc_counts_has(const struct ipcc_counts *c, const char *name);

/*
 * The count of the first of `names` (space-separated) that the counts hold, or NaN. A name
 * may be a sum, A+B: the sum of the two counts, when both are there.
 */
double ipcc_counts_get_any(const struct ipcc_counts *c, const char *names);

/*
 * Read counts from a file: ipcc stat's JSON (counters, extra events, elapsed_ns, tcfreq_khz,
 * and tsc_ticks = elapsed_ns x tcfreq_khz / 10^6), or perf stat -x, CSV (value, unit, event,
 * ...; "<not counted>" and "<not supported>" are left out). On error err says where.
 */
int ipcc_counts_load(struct ipcc_counts *c, const char *path, struct ipcc_formula_error *err);

/*
 * Add the counts of `from` to `into`, which holds the sum of `merged` tables so far (0: it
 * is empty): counts are summed, rates (names ending in _khz) averaged; a name that one of
 * the tables lacks or holds as NaN is NaN in the sum (not measured everywhere: unknown).
 */
int ipcc_counts_add(struct ipcc_counts *into, const struct ipcc_counts *from, unsigned merged);

/* ---- metrics --------------------------------------------------------------------------- */

struct ipcc_metric_set;

struct ipcc_metric_set *ipcc_metric_set_new(void);
void ipcc_metric_set_free(struct ipcc_metric_set *set);

/* Add the metrics of an XML file (or of `text`, named `name` in errors). */
int ipcc_metrics_load(struct ipcc_metric_set *set, const char *path,
		      struct ipcc_formula_error *err);
int ipcc_metrics_load_text(struct ipcc_metric_set *set, const char *text, size_t len,
			   const char *name, struct ipcc_formula_error *err);

unsigned ipcc_metrics_count(const struct ipcc_metric_set *set);

/* The event names the metrics use (their aliases' events), each once; NULL past the end. */
const char *ipcc_metrics_event(const struct ipcc_metric_set *set, unsigned i);

/*
 * The files' notes, <note>text</note> beside the metrics (where the metrics differ from
 * another definition of the same quantities, ...), in order; NULL past the end.
 */
const char *ipcc_metrics_note(const struct ipcc_metric_set *set, unsigned i);

/* A metric's value and its place in the cycle tree. */
struct ipcc_metric_value {
	const char *name, *unit, *parent; /* parent: NULL at the top */
	int parent_index;		  /* -1 at the top */
	unsigned depth;
	double value;		/* in `unit`; NaN when absent */
	double cycles;		/* its cycles in the tree, or NaN (not a cycle metric, absent) */
	double share_of_parent; /* cycles / the parent's cycles, or NaN */
	double share_of_total;	/* cycles / the root's cycles, or NaN */
	char missing[1024];	/* the events it needs that the counts lack, space-separated */
	unsigned flags;		/* IPCC_FORMULA_* and IPCC_METRIC_* */
	const char *formula;	/* its text */
};

enum {
	IPCC_METRIC_CHILDREN_EXCEED = 1 << 8, /* its children's cycles sum to more than its own */
	IPCC_METRIC_NEGATIVE = 1 << 9,	      /* a cycle metric came out below 0 */
	IPCC_METRIC_NO_PARENT = 1 << 10,      /* its parent attribute names no metric */
};

/*
 * Evaluate every metric over `counts` (and `bindings`: more names -> values, e.g. constants
 * given on the command line; may be NULL) into out[0..ipcc_metrics_count()), in tree order:
 * each parent before its children, siblings in file order.
 */
int ipcc_metrics_eval(const struct ipcc_metric_set *set, const struct ipcc_counts *counts,
		      const struct ipcc_counts *bindings, struct ipcc_metric_value *out);

#endif
