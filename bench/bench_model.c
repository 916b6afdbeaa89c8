/*
 * bench_model.c - how fast the pipeline model runs: simulated instructions per second on a
 * long run (no trace: memory stays O(ROB + program)), for a few loop bodies and profiles.
 *
 *   model [ITERATIONS]    iterations per run (4 000 000; the test suite runs it short)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ipcc/model.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name, *text;
	} loops[] = {
		{ "pointer chase + nops", "mov rax, [rax]\nnop\nnop\nnop\nadd rax, 0\n" },
		{ "fma, 4 accumulators",
		  "vfmadd231pd ymm0, ymm8, ymm9\nvfmadd231pd ymm1, ymm8, ymm9\n"
		  "vfmadd231pd ymm2, ymm8, ymm9\nvfmadd231pd ymm3, ymm8, ymm9\n"
		  "dec rcx\njnz top\n" },
		{ "mispredicted branch",
		  "top:\nmov rax, [rbx]\ncmp rax, 0\njne top ; mispredict\n" },
	};
	static const char *const profiles[] = { "skylake", "zen4" };
	uint64_t iterations = argc > 1 ? strtoull(argv[1], NULL, 10) : 4000000;

	if (iterations == 0) {
		fprintf(stderr, "usage: model [ITERATIONS > 0]\n");
		return 2;
	}

	printf("simulated instructions per second (one core; goal >= 20 million)\n");
	for (size_t i = 0; i < sizeof(loops) / sizeof(loops[0]); i++)
		for (size_t k = 0; k < 2; k++) {
			struct ipcc_model_profile p;
			struct ipcc_model_program *prog;
			struct ipcc_model_error err;
			struct ipcc_model_result res;
			struct ipcc_model_opts o = { .iterations = iterations, .warmup = 1000 };
			double t0, t1, best = 1e9;
			uint64_t insns = 0;

			ipcc_model_profile(profiles[k], &p);
			if (ipcc_model_parse(loops[i].text, &p, &prog, &err)) {
				fprintf(stderr, "bench: %s does not parse: %s\n", loops[i].name,
					err.message);
				return 1;
			}
			for (int rep = 0; rep < 3; rep++) {
				t0 = now();
				ipcc_model_run(prog, &p, &o, &res);
				t1 = now();
				insns = o.iterations * ipcc_model_program_size(prog);
				best = t1 - t0 < best ? t1 - t0 : best;
				ipcc_model_result_release(&res);
			}
			printf("  %-24s %-8s %8.1f million/s  (%llu instructions in %.3f s)\n",
			       loops[i].name, profiles[k], insns / best / 1e6,
			       (unsigned long long)insns, best);
			ipcc_model_program_free(prog);
		}
	return 0;
}
