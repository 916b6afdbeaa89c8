/*
 * nested_loops.c - a sampled workload for ipcc annotate --loops: all its time in work(), a
 * loop nest of two (three once the compiler vectorises it) whose inner loop is short (4
 * iterations, read from a volatile so that no compiler unrolls it away), so that the outer
 * loop's own instructions hold a good share of the samples too.
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
	volatile int len = 4;
	int n = len;
	double *a = malloc((size_t)n * sizeof(*a));

	if (!a)
		return 1;
	for (int i = 0; i < n; i++)
		a[i] = i;
	printf("%g\n", work(a, n, 50000000));
	free(a);
	return 0;
}
