/*
 * fuzz_model_parse.c - a libFuzzer target for the model's parser: any bytes in, a program
 * or an error out, and a short run and the bound of whatever parses. Build and run (clang):
 *     make fuzz        (builds build-fuzz/fuzz_model_parse and runs it for 60 s)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ipcc/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ipcc_model_profile p;
	struct ipcc_model_program *prog;
	struct ipcc_model_error err;
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	ipcc_model_profile(size % 2 ? "skylake" : "zen4", &p);
	if (ipcc_model_parse(text, &p, &prog, &err) == 0) {
		struct ipcc_model_opts o = { .iterations = 2 };
		struct ipcc_model_result res;
		struct ipcc_model_bound b;

		if (ipcc_model_run(prog, &p, &o, &res) == 0)
			ipcc_model_result_release(&res);
		ipcc_model_bound(prog, &p, &b);
		ipcc_model_program_free(prog);
	}
	free(text);
	return 0;
}
