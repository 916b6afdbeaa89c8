/*
 * bench_explain.c - how fast ipcc annotate --model is: a profile of this program's own 20
 * loops, SAMPLES samples spread over them (the hottest with the most), explained with the
 * zen4 profile; the best of 3 runs of ipcc_explain(), against the goal of 1 s for 100 000
 * samples and 20 loops.
 *
 *   explain [SAMPLES]     samples in the profile (100000; the test suite runs it small)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ipcc/error.h"
#include "ipcc/explain.h"
#include "ipcc/recording.h"
#include "own_text.h"

#define NLOOPS 20

/* Twenty loops, each its own function, with a little of everything the model prices. */
#define LOOP(k)                                                                           \
	__attribute__((noinline)) uint64_t bench_loop_##k(const uint64_t *a, uint64_t n); \
	__attribute__((noinline)) uint64_t bench_loop_##k(const uint64_t *a, uint64_t n)  \
	{                                                                                 \
		uint64_t s = k, t = 1;                                                    \
		for (uint64_t i = 0; i < n; i++) {                                        \
			s += a[i] * (k + 3);                                              \
			t ^= s >> (k % 7 + 1);                                            \
			if (a[i] & (1u << (k % 5)))                                       \
				s -= t;                                                   \
		}                                                                         \
		return s + t;                                                             \
	}
/* clang-format off */
LOOP(0) LOOP(1) LOOP(2) LOOP(3) LOOP(4) LOOP(5) LOOP(6) LOOP(7) LOOP(8) LOOP(9)
LOOP(10) LOOP(11) LOOP(12) LOOP(13) LOOP(14) LOOP(15) LOOP(16) LOOP(17) LOOP(18) LOOP(19)
    /* clang-format on */

    static uint64_t (*const loops[NLOOPS])(const uint64_t *, uint64_t) = {
	    bench_loop_0,  bench_loop_1,  bench_loop_2,	 bench_loop_3,	bench_loop_4,
	    bench_loop_5,  bench_loop_6,  bench_loop_7,	 bench_loop_8,	bench_loop_9,
	    bench_loop_10, bench_loop_11, bench_loop_12, bench_loop_13, bench_loop_14,
	    bench_loop_15, bench_loop_16, bench_loop_17, bench_loop_18, bench_loop_19,
    };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A profile of n samples on the loops' functions, loop k weighted 20 - k. */
static struct ipcc_recording *make_profile(size_t n)
{
	struct ipcc_recording *p = NULL,
			      *bare = test_own_recording((uint64_t)(uintptr_t)loops[0], NULL, 0);
	struct ipcc_symbols *syms = NULL;
	uint64_t start[NLOOPS], size[NLOOPS], rng = 42, *at = calloc(n, sizeof(*at));
	char name[32];
	int ok = bare && at && !ipcc_symbols_new(bare, &syms);

	/* The functions' sizes from the symbol table, through a profile of the mapping alone. */
	for (int k = 0; k < NLOOPS && ok; k++) {
		snprintf(name, sizeof(name), "bench_loop_%d", k);
		ok = !ipcc_symbols_find(syms, bare->mmaps[0].filename, name, &start[k], &size[k]) &&
		     size[k];
	}
	for (size_t i = 0; i < n && ok; i++) {
		unsigned k = 0, w;

		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		/* weight 20 - k: pick w in [0, 210) and walk down the weights */
		w = (unsigned)((rng >> 33) % 210);
		while (w >= (unsigned)(NLOOPS - k))
			w -= NLOOPS - k++;
		at[i] = (uint64_t)(uintptr_t)loops[k] + (rng >> 13) % size[k];
	}
	if (ok)
		p = test_own_recording((uint64_t)(uintptr_t)loops[0], at, n);
	ipcc_symbols_free(syms);
	ipcc_recording_free(bare);
	free(at);
	return p;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	struct ipcc_model_profile prof;
	struct ipcc_recording *p;
	double best = 1e9;
	size_t explained = 0;

	if (!n || ipcc_model_profile("zen4", &prof)) {
		fprintf(stderr, "usage: explain [SAMPLES > 0]\n");
		return 2;
	}
	p = make_profile(n);
	if (!p) {
		fprintf(stderr, "explain: cannot make a profile of this program's loops\n");
		return 1;
	}
	for (int r = 0; r < 3; r++) {
		struct ipcc_symbols *syms;
		struct ipcc_explain x;
		double t0 = now(), t;

		if (ipcc_symbols_new(p, &syms) ||
		    ipcc_explain(p, syms, &(struct ipcc_explain_opts){ NLOOPS, 1.0, &prof, 0 },
				 &x)) {
			fprintf(stderr, "explain: %s\n", ipcc_last_error());
			return 1;
		}
		explained = x.n;
		ipcc_explain_release(&x);
		ipcc_symbols_free(syms);
		t = now() - t0;
		best = t < best ? t : best;
	}
	printf("annotate --model: %zu samples, %zu loops explained: %.1f ms (best of 3; goal: "
	       "under 1000 ms for 100000 samples and 20 loops)\n",
	       p->nsamples, explained, 1000 * best);
	ipcc_recording_free(p);
	return 0;
}
