/*
 * model_regions.c - regions under the model backend (stat_model_regions.sh): `model_regions
 * N K [P]` calls counted(N) once outside every region, then K times inside region "inner",
 * each call its own, all inside one "outer"; each inner call also maps P anonymous pages,
 * writes a byte of each and unmaps them (P page faults, two system calls).
 */
#include <stdlib.h>
#include <sys/mman.h>

#include <ipcc/region.h>

#include "counted.h"

int main(int argc, char **argv)
{
	static long cell[2] = { 1, 0 };
	long n = argc > 1 ? atol(argv[1]) : 100000, k = argc > 2 ? atol(argv[2]) : 3, sum;
	size_t pages = argc > 3 ? (size_t)atol(argv[3]) : 0;

	sum = counted(n, cell);
	ipcc_region_begin("outer");
	for (long i = 0; i < k; i++) {
		ipcc_region_begin("inner");
		sum += counted(n, cell);
		if (pages) {
			char *p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				return 1;
			for (size_t o = 0; o < pages * 4096; o += 4096)
				p[o] = 1;
			munmap(p, pages * 4096);
		}
		ipcc_region_end("inner");
	}
	ipcc_region_end("outer");
	return sum == (k + 1) * n ? 0 : 1;
}
