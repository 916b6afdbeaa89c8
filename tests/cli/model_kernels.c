/*
 * model_kernels.c: the model backend's kernel check (model_kernels.sh) drives ipcc's
 * microkernels with it.
 *   model_kernels --list          every kernel's name, its entry point and the range that
 *                                 holds its code and callees (hex, to find their symbols),
 *                                 and its expected counts per iteration: instructions
 *                                 loads stores branches mispredicts (- if not fixed)
 *   model_kernels KERNEL N [SIZE] run KERNEL once for N iterations, as ipcc bench sets it up
 *                                 (sized kernels on SIZE bytes, 1 MiB by default): two runs
 *                                 under ipcc stat --backend model, at N and 2N, differ by
 *                                 exactly N iterations' counts.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcc/kernels.h"

static void expect(double v)
{
	if (isnan(v))
		printf(" -");
	else
		printf(" %g", v);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (unsigned i = 0; i < ipcc_kernel_count(); i++) {
			const struct ipcc_kernel *k = ipcc_kernel_at(i);
			const void *entry, *start, *end;

			ipcc_kernel_code(k, &entry, &start, &end);
			printf("%s %lx %lx %lx", k->name, (unsigned long)(uintptr_t)entry,
			       (unsigned long)(uintptr_t)start, (unsigned long)(uintptr_t)end);
			expect(k->expect.instructions);
			expect(k->expect.loads);
			expect(k->expect.stores);
			expect(k->expect.branches);
			expect(k->expect.mispredicts);
			printf("\n");
		}
		return 0;
	}
	const struct ipcc_kernel *k = argc == 3 || argc == 4 ? ipcc_kernel_find(argv[1]) : NULL;
	size_t size = argc == 4 ? strtoull(argv[3], NULL, 10) : (size_t)1 << 20;

	if (!k || !size) {
		fprintf(stderr, "usage: model_kernels --list | KERNEL N [SIZE]\n");
		return 2;
	}
	return ipcc_kernel_call(k, strtoull(argv[2], NULL, 10), size) ? 1 : 0;
}
