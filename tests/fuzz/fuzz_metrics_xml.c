/*
 * fuzz_metrics_xml.c - a libFuzzer target for the metric-file loader (expat, the formula
 * parser, the tree): any bytes in, metrics or an error out; what loads is evaluated.
 */
#include <stdint.h>
#include <stdlib.h>

#include "ipcc/formula.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ipcc_metric_set *set = ipcc_metric_set_new();
	struct ipcc_counts *c = ipcc_counts_new();
	struct ipcc_formula_error err;

	if (set && c && ipcc_metrics_load_text(set, (const char *)data, size, "fuzz", &err) == 0) {
		struct ipcc_metric_value *v = calloc(ipcc_metrics_count(set) + 1, sizeof(*v));

		ipcc_counts_set(c, "a", 3);
		if (v)
			ipcc_metrics_eval(set, c, NULL, v);
		free(v);
	}
	ipcc_counts_free(c);
	ipcc_metric_set_free(set);
	return 0;
}
