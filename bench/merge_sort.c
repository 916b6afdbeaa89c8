/*
 * merge_sort.c - a merge sort of N pointers to 32-byte records, by the double each holds: the
 * shape of perl's numeric sort, where the model backend is furthest over this machine
 * (docs/internals/model-backend.md, stop 57). Each compare loads two records that L1, L2 or
 * the LLC serves, by N, and branches on their values; bench/merge_sort.py times it natively
 * and under the model backend.
 *
 *   bench/merge_sort N ORDER FORM ROUNDS
 *
 * ORDER: random (the values in random order: the branch goes each way about half the time)
 * or sorted (in order: it is predicted). FORM: branch (the merge's branch picks a record) or
 * select (the compare's result picks it, with no branch on the values). The records lie
 * shuffled over memory either way, and every round sorts the same values again, inside an
 * ipcc region named "sort". Prints the compares a round.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ipcc/region.h>

struct rec {
	long pad;
	double v;
	long pad2[2];
};

static long compares;

/* Merge a[0..h) and a[h..n) into t, by branches on the values. */
static void merge_branch(struct rec **a, struct rec **t, size_t h, size_t n)
{
	size_t i = 0, j = h, k = 0;

	while (i < h && j < n) {
		compares++;
		/*
		 * An empty asm of its own in each arm keeps gcc and clang from turning the branch
		 * into a select (neither may run an arm's asm where the arm does not run).
		 */
		if (a[i]->v <= a[j]->v) {
			t[k++] = a[i++];
			__asm__ volatile("" : "+r"(i));
		} else {
			t[k++] = a[j++];
			__asm__ volatile("" : "+r"(j));
		}
	}
	while (i < h)
		t[k++] = a[i++];
	while (j < n)
		t[k++] = a[j++];
}

/* The same merge, each step's record picked by the compare's result (no branch on it). */
static void merge_select(struct rec **a, struct rec **t, size_t h, size_t n)
{
	size_t i = 0, j = h, k = 0;

	while (i < h && j < n) {
		struct rec *x = a[i], *y = a[j];
		uintptr_t c = x->v <= y->v, m = -c;

		compares++;
		t[k++] = (struct rec *)(((uintptr_t)x & m) | ((uintptr_t)y & ~m));
		i += c;
		j += 1 - c;
	}
	while (i < h)
		t[k++] = a[i++];
	while (j < n)
		t[k++] = a[j++];
}

static void sort(struct rec **a, struct rec **t, size_t n, int select)
{
	if (n < 2)
		return;
	size_t h = n / 2;

	sort(a, t, h, select);
	sort(a + h, t, n - h, select);
	if (select)
		merge_select(a, t, h, n);
	else
		merge_branch(a, t, h, n);
	memcpy(a, t, n * sizeof *a);
}

/* xorshift64: the same values in every run */
static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int main(int argc, char **argv)
{
	char *end;
	long n = argc == 5 ? strtol(argv[1], &end, 10) : 0;
	long rounds = argc == 5 ? strtol(argv[4], NULL, 10) : 0;
	int sorted = argc == 5 && !strcmp(argv[2], "sorted");
	int select = argc == 5 && !strcmp(argv[3], "select");

	if (argc != 5 || n < 2 || *end || rounds < 1 || (!sorted && strcmp(argv[2], "random")) ||
	    (!select && strcmp(argv[3], "branch"))) {
		fprintf(stderr, "usage: merge_sort N random|sorted branch|select ROUNDS\n");
		return 2;
	}
	struct rec *r = malloc((size_t)n * sizeof *r);
	struct rec **a = malloc((size_t)n * sizeof *a), **t = malloc((size_t)n * sizeof *t);
	size_t *perm = malloc((size_t)n * sizeof *perm);
	uint64_t s = 0x9E3779B97F4A7C15ull;

	if (!r || !a || !t || !perm) {
		fprintf(stderr, "merge_sort: out of memory\n");
		return 1;
	}
	for (long i = 0; i < n; i++)
		perm[i] = (size_t)i;
	for (long i = n - 1; i > 0; i--) {
		size_t j = next(&s) % (uint64_t)(i + 1), x = perm[i];

		perm[i] = perm[j];
		perm[j] = x;
	}
	long per_round = 0;

	for (long q = 0; q < rounds; q++) {
		uint64_t v = 12345;

		for (long i = 0; i < n; i++) {
			r[perm[i]].v = sorted ? (double)i : (double)(next(&v) >> 11);
			a[i] = &r[perm[i]];
		}
		compares = 0;
		ipcc_region_begin("sort");
		sort(a, t, (size_t)n, select);
		ipcc_region_end("sort");
		per_round = compares;
	}
	for (long i = 1; i < n; i++)
		if (a[i - 1]->v > a[i]->v) {
			fprintf(stderr, "merge_sort: not sorted\n");
			return 1;
		}
	printf("compares %ld\n", per_round);
	free(perm);
	free(t);
	free(a);
	free(r);
	return 0;
}
