/*
 * fuzz_formula.c - a libFuzzer target for the metric language: any bytes in, a formula or
 * an error out; what parses is dumped and evaluated. CTest runs it for a bounded time in the
 * sanitizer build (fuzz.formula); make fuzz runs it longer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ipcc/formula.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ipcc_formula *f;
	struct ipcc_formula_error err;
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (ipcc_formula_parse(text, &f, &err) == 0) {
		double *v = calloc(ipcc_formula_nvars(f) + 1, sizeof(*v));
		char *d = ipcc_formula_dump(f);

		if (v)
			ipcc_formula_eval(f, v, NULL);
		free(v);
		free(d);
		ipcc_formula_free(f);
	}
	free(text);
	return 0;
}
