/*
 * test_predictor.c - the model backend's branch predictors (src/backend/model/predictor.h),
 * fed branch streams whose answers are known: patterns they must learn, within the capacity
 * measured on real cores (bench/branch_patterns.py), and patterns no predictor can.
 */
#include "backend/model/predictor.h"
#include "test.h"

static Predictor pred;

/* The pattern of period n the bench uses: bit 63 (cond) or bits 61-63 (indirect) of an LCG. */
static void pattern(unsigned char *p, unsigned n, int indirect)
{
	uint64_t x = 12345;

	for (unsigned i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		p[i] = (unsigned char)(indirect ? x >> 61 : x >> 63);
	}
}

/*
 * A loop of `iters` iterations: the branch under test (conditional on the pattern, or an
 * indirect call to one of eight targets), then the loop's own branch, always taken. The
 * data branch's mispredicts an iteration over the second half.
 */
static double miss_rate(unsigned period, int indirect, long iters)
{
	unsigned char *p = malloc(period);
	long miss = 0, n = 0;

	pattern(p, period, indirect);
	predictor_init(&pred, 0, 0);
	for (long i = 0; i < iters; i++) {
		unsigned j = (unsigned)(i % period);
		int m = indirect ? predict_indirect(&pred, 0x401234, 0x402000 + 16u * p[j])
				 : predict_cond(&pred, 0x401234, p[j]);

		predict_cond(&pred, 0x401240, 1);
		if (i >= iters / 2) {
			miss += m;
			n++;
		}
	}
	free(p);
	return (double)miss / (double)n;
}

TEST(always_taken_branch_is_predicted)
{
	predictor_init(&pred, 0, 0);
	int miss = 0;

	for (int i = 0; i < 10000; i++)
		miss += predict_cond(&pred, 0x400100, 1);
	CHECK_CMP(int, miss, <=, 1);
	return TEST_OK;
}

/* A gshare over 16 branches of history (the backend's before TAGE) missed 16% at 128. */
TEST(periodic_pattern_up_to_4096_is_learned)
{
	CHECK_CMP(dbl, miss_rate(64, 0, 400000), <, 0.001);
	CHECK_CMP(dbl, miss_rate(1024, 0, 1000000), <, 0.01);
	CHECK_CMP(dbl, miss_rate(4096, 0, 3000000), <, 0.06);
	return TEST_OK;
}

/* Granite Rapids-class core: about half at 65536, a quarter already at 8192. */
TEST(pattern_beyond_capacity_is_missed)
{
	CHECK_CMP(dbl, miss_rate(65536, 0, 3000000), >, 0.35);
	return TEST_OK;
}

TEST(random_branch_misses_half)
{
	predictor_init(&pred, 0, 0);
	long miss = 0, n = 200000;

	for (long i = 0; i < n; i++)
		miss += predict_cond(&pred, 0x400200, (int)test_rand(2));
	CHECK_CMP(dbl, (double)miss / (double)n, >, 0.45);
	CHECK_CMP(dbl, (double)miss / (double)n, <, 0.55);
	return TEST_OK;
}

/* An inner loop of 12 iterations: its exit is in the history's reach. */
TEST(loop_exit_with_fixed_trip_count_is_learned)
{
	predictor_init(&pred, 0, 0);
	long miss = 0;

	for (int outer = 0; outer < 20000; outer++)
		for (int i = 0; i < 12; i++) {
			int m = predict_cond(&pred, 0x400300, i < 11);

			if (outer >= 10000)
				miss += m;
		}
	CHECK_CMP(i64, (int64_t)miss, <, 120);
	return TEST_OK;
}

/* A last-target BTB (before ITTAGE) missed 7/8 of a random sequence of any period. */
TEST(indirect_target_sequence_up_to_512_is_learned)
{
	CHECK_CMP(dbl, miss_rate(64, 1, 400000), <, 0.001);
	CHECK_CMP(dbl, miss_rate(512, 1, 1000000), <, 0.01);
	return TEST_OK;
}

TEST(indirect_sequence_beyond_capacity_is_missed)
{
	CHECK_CMP(dbl, miss_rate(65536, 1, 2000000), >, 0.75);
	return TEST_OK;
}

/*
 * bench/branch_patterns many: `sites` branches in a row, each taken where bit (i mod 4) of
 * a pattern of its own is set, over `iters` iterations; the mispredicts a branch over the
 * second half, with tagged tables of 1 << log entries and a base of 1 << base_log.
 */
static double many_rate(long sites, long iters, unsigned log, unsigned base_log)
{
	unsigned char *word = malloc((size_t)sites);
	long miss = 0, n = 0;

	for (long k = 0; k < sites; k++)
		do
			word[k] = (unsigned char)test_rand(16);
		while (word[k] == 0 || word[k] == 15);
	predictor_init(&pred, log, base_log);
	for (long i = 0; i < iters; i++) {
		for (long k = 0; k < sites; k++) {
			int m = predict_cond(&pred, 0x500000 + 12 * (uint64_t)k,
					     word[k] >> (i & 3) & 1);

			if (i >= iters / 2) {
				miss += m;
				n++;
			}
		}
		predict_cond(&pred, 0x400ff0, 1);
	}
	free(word);
	return (double)miss / (double)n;
}

/*
 * A Zen 5 guest (bench/branch_patterns.py): 1.0-1.3 cycles a branch up to 12,288 such
 * branches, 5.1 at 16,384, 12.4 at 32,768. The default tables (1,024 entries) lose them
 * from about 1,024 on; zen5's (tage_entries 16,384, base 65,536) hold 8,192.
 */
TEST(many_branches_fill_the_tables_by_their_size)
{
	double small = many_rate(4096, 60, 0, 0), large = many_rate(4096, 60, 14, 16);

	CHECK_CMP(dbl, small, >, 0.10);
	CHECK_CMP(dbl, large, <, 0.01);
	CHECK_CMP(dbl, many_rate(256, 200, 0, 0), <, 0.01);
	return TEST_OK;
}

TEST(same_stream_gives_same_predictions)
{
	static Predictor a, b;
	long differ = 0;

	predictor_init(&a, 0, 0);
	predictor_init(&b, 0, 0);
	for (long i = 0; i < 100000; i++) {
		uint64_t pc = 0x400000 + 4 * test_rand(64);
		int taken = (int)test_rand(2);

		differ += predict_cond(&a, pc, taken) != predict_cond(&b, pc, taken);
	}
	CHECK_EQ(i64, (int64_t)differ, 0);
	return TEST_OK;
}
