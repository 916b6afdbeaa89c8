/*
 * regions.c - an example workload instrumented with ipcc regions.
 *
 * It fills an array with pseudo-random numbers, sorts it, and looks numbers up in it from
 * two threads, each phase in its own region, all inside "total". Run it under
 *
 *     ipcc stat --regions -- build/examples/regions
 *
 * to see the whole run's counters and a table of the regions.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <ipcc/region.h>

#define N	(1 << 20)
#define LOOKUPS 2000000

static uint32_t *data;

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
		for (int i = 0; i < LOOKUPS; i++) {
			uint32_t key;

			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			key = (uint32_t)(seed >> 32);
			found += bsearch(&key, data, N, sizeof(*data), cmp) != NULL;
		}
	}
	return (void *)(uintptr_t)found;
}

int main(void)
{
	pthread_t other;
	void *found[2];
	uint64_t seed = 42;

	data = malloc(sizeof(*data) * N);
	if (!data)
		return 1;
	ipcc_region_begin("total");
	IPCC_REGION("fill")
	{
		for (int i = 0; i < N; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			data[i] = (uint32_t)(seed >> 32);
		}
	}
	IPCC_REGION("sort")
	{
		qsort(data, N, sizeof(*data), cmp);
	}
	pthread_create(&other, NULL, lookups, (void *)7);
	found[0] = lookups((void *)11);
	pthread_join(other, &found[1]);
	ipcc_region_end("total");
	printf("sorted %d numbers, found %lu + %lu of %d keys\n", N,
	       (unsigned long)(uintptr_t)found[0], (unsigned long)(uintptr_t)found[1], 2 * LOOKUPS);
	free(data);
	return 0;
}
