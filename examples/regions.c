/*
 * regions.c - an example workload instrumented with ipcc regions.
 *
 * It fills an array with pseudo-random numbers, sorts it, and looks numbers up in it from
 * two threads, each phase in its own region, all inside "total". Run it under
 *
 *     ipcc stat --regions -- build/examples/regions
 *
 * to see the whole run's counters and a table of the regions. `regions N` sorts N numbers
 * (default 2^20) and looks up 2N (a smaller N for tests that start many of it).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <ipcc/region.h>

#define N (1 << 20)

static uint32_t *data;
static int n = N;

static int cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static void *lookups(void *arg)
{
	uint64_t seed = (uintptr_t)arg, found = 0;

	IPCC_REGION("lookup")
	{
		for (int i = 0; i < 2 * n; i++) {
			uint32_t key;

			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			key = (uint32_t)(seed >> 32);
			found += bsearch(&key, data, (size_t)n, sizeof(*data), cmp) != NULL;
		}
	}
	return (void *)(uintptr_t)found;
}

int main(int argc, char **argv)
{
	pthread_t other;
	void *found[2];
	uint64_t seed = 42;

	if (argc > 1 && (n = atoi(argv[1])) < 1)
		n = N;
	data = malloc(sizeof(*data) * (size_t)n);
	if (!data)
		return 1;
	ipcc_region_begin("total");
	IPCC_REGION("fill")
	{
		for (int i = 0; i < n; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			data[i] = (uint32_t)(seed >> 32);
		}
	}
	IPCC_REGION("sort")
	{
		qsort(data, (size_t)n, sizeof(*data), cmp);
	}
	pthread_create(&other, NULL, lookups, (void *)7);
	found[0] = lookups((void *)11);
	pthread_join(other, &found[1]);
	ipcc_region_end("total");
	printf("sorted %d numbers, found %lu + %lu of %d keys\n", n,
	       (unsigned long)(uintptr_t)found[0], (unsigned long)(uintptr_t)found[1], 4 * n);
	free(data);
	return 0;
}
