/*
 * nested_loops.c - a sampled workload for ipcc annotate --loops: nearly all its time in the
 * inner loop of work(), a loop nest of two (three once the compiler vectorises it).
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static double work(const double *a, int n, int reps)
{
	double s = 0;

	for (int r = 0; r < reps; r++)
		for (int i = 0; i < n; i++)
			s += a[i] * (r + 1);
	return s;
}

int main(void)
{
	int n = 4096;
	double *a = malloc((size_t)n * sizeof(*a));

	if (!a)
		return 1;
	for (int i = 0; i < n; i++)
		a[i] = i;
	printf("%g\n", work(a, n, 40000));
	free(a);
	return 0;
}
