/*
 * model_regions.c - regions under the model backend (stat_model_regions.sh): `model_regions
 * N K` calls counted(N) once outside every region, then K times inside region "inner", each
 * call its own, all inside one "outer".
 */
#include <stdlib.h>

#include <ipcc/region.h>

#include "counted.h"

int main(int argc, char **argv)
{
	static long cell[2] = { 1, 0 };
	long n = argc > 1 ? atol(argv[1]) : 100000, k = argc > 2 ? atol(argv[2]) : 3, sum;

	sum = counted(n, cell);
	ipcc_region_begin("outer");
	for (long i = 0; i < k; i++) {
		ipcc_region_begin("inner");
		sum += counted(n, cell);
		ipcc_region_end("inner");
	}
	ipcc_region_end("outer");
	return sum == (k + 1) * n ? 0 : 1;
}
