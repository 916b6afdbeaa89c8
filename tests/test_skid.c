/*
 * test_skid.c - measured against modelled interrupt placement: the loop text, the comparison
 * and the retire-width fit on measurements the model itself generates (so the right answer
 * is known), the verdicts, and on this machine a sampled run of skid.adds.
 */
#include <math.h>
#include <time.h>
#include <unistd.h>

#include "ipcc/error.h"
#include "ipcc/skid.h"
#include "test.h"

/* A "measurement" that is exactly what profile p predicts, 100000 samples in all. */
static int synthetic(const char *text, const struct ipcc_model_profile *p,
		     struct ipcc_skid_result *r)
{
	struct ipcc_model_program *prog;
	struct ipcc_model_error err;
	struct ipcc_model_result res;

	memset(r, 0, sizeof(*r));
	if (ipcc_model_parse(text, p, &prog, &err))
		return -1;
	if (ipcc_model_run(prog, p, &(struct ipcc_model_opts){ .iterations = 1000 }, &res)) {
		ipcc_model_program_free(prog);
		return -1;
	}
	r->nrows = res.nrows;
	r->rows = calloc(r->nrows, sizeof(*r->rows));
	for (unsigned i = 0; i < r->nrows; i++) {
		r->rows[i].samples = (uint64_t)llround(res.rows[i].share * 100000);
		r->rows[i].measured = res.rows[i].share;
		r->samples += r->rows[i].samples;
	}
	ipcc_model_result_release(&res);
	ipcc_model_program_free(prog);
	return 0;
}

static bool is_min(const struct ipcc_skid_result *r)
{
	for (unsigned w = 1; w <= IPCC_SKID_MAX_RETIRE; w++)
		if (r->distance_at[w] < r->distance_at[r->best_retire_width])
			return false;
	return true;
}

TEST(loop_text_is_ten_bodies_then_the_branch)
{
	char text[4096];

	CHECK_EQ(int, ipcc_skid_loop_text(ipcc_kernel_find("skid.adds"), text, sizeof(text)), 0);
	CHECK_STR(text, "top:\n%rep 10\nadd rax, 1\nadd rax, 2\nadd rsi, 3\nadd rdi, 4\n"
			"%endrep\nsub rcx, 1\njnz top\n");
	CHECK_EQ(int, ipcc_skid_loop_text(ipcc_kernel_find("chain.add"), text, sizeof(text)),
		 IPCC_EINVAL);
	CHECK_EQ(int, ipcc_skid_loop_text(ipcc_kernel_find("skid.adds"), text, 20), IPCC_EINVAL);
	return TEST_OK;
}

/*
 * The comparison itself, not the model: placements the model made are at distance 0 from
 * the model, under its own profile and retire width. Whether the model is right about a
 * machine is builtin_profiles_reproduce_measured_placements' question, on measured data.
 */
TEST(what_the_model_predicts_is_at_distance_zero)
{
	static const char *const kernels[] = { "skid.adds", "skid.load_nops", "skid.load_nops_add",
					       "skid.vpmulld_lock", "skid.mov_imm" };
	struct ipcc_model_profile p;
	char text[4096];

	ipcc_model_profile("zen3", &p);
	for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++) {
		struct ipcc_skid_result r;

		ipcc_skid_loop_text(ipcc_kernel_find(kernels[k]), text, sizeof(text));
		CHECK_EQ(int, synthetic(text, &p, &r), 0);
		CHECK_EQ(int, ipcc_skid_compare(&r, text, &p), 0);
		CHECK_CMP(dbl, r.distance, <, 1e-9);
		CHECK_CMP(dbl, r.explained, >, 1 - 1e-9);
		CHECK_STR(ipcc_skid_result_verdict(&r), "matches");
		CHECK_STR(r.profile, "zen3");
		/* The profile's own width fits exactly; the fit may find a tie below it. */
		CHECK_CMP(dbl, r.distance_at[p.retire], <, 1e-9);
		CHECK_CMP(dbl, r.distance_at[r.best_retire_width], <, 1e-9);
		CHECK(is_min(&r));
		ipcc_skid_result_release(&r);
	}
	return TEST_OK;
}

TEST(fit_recovers_the_retire_width_that_made_the_measurement)
{
	struct ipcc_model_profile p, q;
	char text[4096];

	ipcc_model_profile("zen3", &p);
	ipcc_skid_loop_text(ipcc_kernel_find("skid.mov_imm"), text, sizeof(text));
	/*
	 * mov_imm retires in groups of R. The loop is 82 instructions, so groups shift phase
	 * from one iteration to the next and some widths alias (R = 4 samples every other
	 * instruction, as R = 2 does): the fit reports the smallest width that explains the
	 * measurement exactly, never a larger one.
	 */
	for (unsigned w = 1; w <= 8; w++) {
		struct ipcc_skid_result r;

		q = p;
		q.retire = w;
		CHECK_EQ(int, synthetic(text, &q, &r), 0);
		CHECK_EQ(int, ipcc_skid_compare(&r, text, &p), 0);
		CHECK_CMP(int, (int)r.best_retire_width, <=, (int)w);
		CHECK_CMP(dbl, r.distance_at[r.best_retire_width], <, 1e-9);
		CHECK_CMP(dbl, r.distance_at[w], <, 1e-9);
		CHECK(is_min(&r));
		ipcc_skid_result_release(&r);
	}
	return TEST_OK;
}

TEST(widths_the_model_cannot_run_are_left_out_of_the_fit)
{
	struct ipcc_model_profile p;
	struct ipcc_skid_result r;
	char text[4096];

	/* lock add is 2 micro-ops: R = 1 cannot retire it. */
	ipcc_model_profile("skylake", &p);
	ipcc_skid_loop_text(ipcc_kernel_find("skid.vpmulld_lock"), text, sizeof(text));
	CHECK_EQ(int, synthetic(text, &p, &r), 0);
	CHECK_EQ(int, ipcc_skid_compare(&r, text, &p), 0);
	CHECK(isnan(r.distance_at[1]));
	CHECK(r.best_retire_width >= 2);
	ipcc_skid_result_release(&r);
	return TEST_OK;
}

TEST(rows_unlike_the_model_loop_are_an_error)
{
	struct ipcc_model_profile p;
	struct ipcc_skid_row rows[3] = { { 0 } };
	struct ipcc_skid_result r = { .rows = rows, .nrows = 3 };
	char text[4096];

	ipcc_model_profile("zen3", &p);
	ipcc_skid_loop_text(ipcc_kernel_find("skid.adds"), text, sizeof(text));
	CHECK_EQ(int, ipcc_skid_compare(&r, text, &p), IPCC_EINVAL);
	CHECK(strstr(ipcc_last_error(), "cannot be compared") != NULL);
	return TEST_OK;
}

#define VERDICT(explained, distance) \
	ipcc_skid_verdict_name(ipcc_skid_judge(explained, distance, NAN))

TEST(verdicts_weigh_place_and_proportion)
{
	CHECK_STR(VERDICT(0.99, 0.05), "matches");
	CHECK_STR(VERDICT(0.99, IPCC_SKID_MATCH_DISTANCE), "matches");
	CHECK_STR(VERDICT(0.99, IPCC_SKID_MATCH_DISTANCE + 0.001), "same-places");
	CHECK_STR(VERDICT(1.0, 0.49), "same-places");
	CHECK_STR(VERDICT(0.8, 0.2), "partly");
	CHECK_STR(VERDICT(0.38, 0.6), "differs");
	CHECK_EQ(int, ipcc_skid_judge(1, NAN, 0.01), IPCC_SKID_UNJUDGED);
	CHECK(VERDICT(1, NAN) == NULL);
	return TEST_OK;
}

/* The one distance: total variation of two weightings, each normalised by its own sum. */
TEST(distance_is_total_variation_of_normalised_weights)
{
	static const double a[] = { 1, 1, 0, 0 }, b[] = { 0, 0, 5, 5 }, c[] = { 10, 10, 0, 0 },
			    d[] = { 3, 1, 0, 0 }, z[] = { 0, 0, 0, 0 };

	CHECK_EQ(dbl, ipcc_skid_tv(a, a, 4), 0.0);
	CHECK_EQ(dbl, ipcc_skid_tv(a, c, 4), 0.0); /* counts and shares alike */
	CHECK_EQ(dbl, ipcc_skid_tv(a, b, 4), 1.0); /* no row in common */
	CHECK_EQ(dbl, ipcc_skid_tv(a, d, 4), 0.25);
	CHECK_EQ(dbl, ipcc_skid_tv(d, a, 4), 0.25);
	CHECK(isnan(ipcc_skid_tv(a, z, 4)));
	return TEST_OK;
}

/* The real kernel: task-clock sampling works here without a PMU. */
TEST(sampled_skid_adds_lands_on_its_loop)
{
	const struct ipcc_kernel *k = ipcc_kernel_find("skid.adds");
	struct ipcc_skid_opts o = { .period_ns = 100000, .seconds = 0.3 };
	struct ipcc_skid_result r;
	struct timespec c0, c1;
	double cpu;
	int ret;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	ret = ipcc_skid_measure(k, &o, &r);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	cpu = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-9;

	/* task-clock is a software event every Linux has: only a refusal is a real absence */
	if (ret == IPCC_EACCES)
		SKIP("%s", ipcc_last_error());
	CHECK_EQ(int, ret, 0);
	if (ret)
		return TEST_OK;
	printf("%" PRIu64 " samples on the loop, %" PRIu64 " outside, %" PRIu64 " lost\n",
	       r.samples, r.outside, r.lost);
	/* Found in the machine code: 10 x 4 adds, then sub and jne. */
	CHECK_EQ(int, (int)r.nrows, 42);
	CHECK_STR(r.rows[0].text, "add rax, 1");
	CHECK(!strncmp(r.rows[41].text, "jne ", 4));
	CHECK_EQ(int, (int)r.rows[1].offset, 4);
	/* one sample per 100 us of this thread's CPU time, within a factor of 2; none lost */
	CHECK_CMP(dbl, (double)(r.samples + r.outside), >=, 0.5 * cpu / 100e-6);
	CHECK_CMP(dbl, (double)(r.samples + r.outside), <=, 2.0 * cpu / 100e-6);
	CHECK_EQ(u64, r.lost, 0);
	CHECK_STR(r.kernel, "skid.adds");
	CHECK(r.cpu >= 0);
	/* every sample is in one half or the other */
	for (unsigned i = 0; i < r.nrows; i++)
		CHECK_EQ(u64, r.rows[i].half[0] + r.rows[i].half[1], r.rows[i].samples);
	CHECK(isnan(r.repeat_distance) || (r.repeat_distance >= 0 && r.repeat_distance <= 1));
	/*
	 * Preemption cannot move samples out of the loop, but the code around it takes its
	 * share of them: a ratio bound (96 of 1,530 outside, 6.3%, once in the sanitizer build
	 * with stress-ng on both CPUs of a Zen 5 guest, where 5% was the bound).
	 */
	CHECK_CMP(dbl, (double)r.samples, >=, 0.90 * (double)(r.samples + r.outside));
	ipcc_skid_result_release(&r);
	return TEST_OK;
}

/* The held-out checks: measured placements (tests/data/skid-measured, each file says where
 * it comes from) against the built-in profiles, total-variation distance <= 0.10. */
TEST(builtin_profiles_reproduce_measured_placements)
{
	/*
	 * A profile is a built-in's name or a file under tests/data. Every case is held out:
	 * the zen5 built-in's placement and zen5-adds.profile (for skid.adds, the one Zen 5
	 * kernel the built-in does not reproduce: 0.52) were fitted to zen5-kvm.json and are
	 * checked here on zen5-kvm-heldout.json, measured later on the same machine for this.
	 */
	static const struct {
		const char *file, *kernel, *profile;
	} cases[] = {
		{ "skid-measured/zen3-docs.json", "skid.adds", "zen3" },
		{ "skid-measured/zen5-kvm-heldout.json", "skid.vpmulld_lock", "zen5" },
		{ "skid-measured/zen5-kvm-heldout.json", "skid.load_nops", "zen5" },
		{ "skid-measured/zen5-kvm-heldout.json", "skid.adds",
		  "profiles/zen5-adds.profile" },
		{ "skid-measured/emerald-rapids-issue.json", "skid.adds", "goldencove" },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct ipcc_skid_result *r;
		struct ipcc_model_profile p;
		unsigned n;
		char text[4096];
		bool found = false;

		CHECK_EQ(int, ipcc_skid_load(test_data(cases[c].file), &r, &n), 0);
		if (strchr(cases[c].profile, '/'))
			CHECK_EQ(int, ipcc_model_profile_load(test_data(cases[c].profile), &p), 0);
		else
			CHECK_EQ(int, ipcc_model_profile(cases[c].profile, &p), 0);
		for (unsigned k = 0; k < n; k++) {
			double d = 1;

			if (strcmp(r[k].kernel, cases[c].kernel))
				continue;
			found = true;
			ipcc_skid_loop_text(ipcc_kernel_find(r[k].kernel), text, sizeof(text));
			CHECK_EQ(int, ipcc_skid_distance(&r[k], text, &p, &d), 0);
			printf("%s %s under %s: distance %.3f\n", cases[c].file, cases[c].kernel,
			       cases[c].profile, d);
			CHECK_CMP(dbl, d, <=, 0.10);
		}
		CHECK(found);
		ipcc_skid_results_free(r, n);
	}
	return TEST_OK;
}

/* What ipcc skid --format json writes reads back; bad files are refused with a reason. */
TEST(measurements_load_from_json)
{
	static const unsigned rows[] = { 82, 42, 112, 72, 32 };
	struct ipcc_skid_result *r;
	unsigned n = 0;
	char path[] = "/tmp/ipcc-skid-XXXXXX";
	int fd;
	FILE *f;

	CHECK_EQ(int, ipcc_skid_load(test_data("skid-measured/zen5-kvm.json"), &r, &n), 0);
	CHECK_EQ(int, (int)n, 5);
	for (unsigned k = 0; k < n && k < 5; k++) {
		double sum = 0;

		CHECK_EQ(int, (int)r[k].nrows, (int)rows[k]);
		for (unsigned i = 0; i < r[k].nrows; i++)
			sum += r[k].rows[i].measured;
		CHECK_CMP(dbl, fabs(sum - 1), <, 1e-9);
		CHECK(r[k].repeat_distance >= 0 && r[k].repeat_distance < 0.2);
	}
	CHECK_STR(r[1].kernel, "skid.adds");
	CHECK_STR(r[1].rows[1].text, "add rax, 2");
	ipcc_skid_results_free(r, n);

	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return TEST_OK;
	close(fd);
	{
		static const char *const bad[] = {
			"not json",
			"{\"kernels\": []}",
			"{\"kernels\": [{\"name\": \"skid.adds\", \"rows\": [{\"offset\": 0}]}]}",
			("{\"kernels\": [{\"name\": \"skid.adds\", \"rows\": [{\"offset\": 0, "
			 "\"samples\": 0}]}]}"),
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			f = fopen(path, "w");
			fputs(bad[i], f);
			fclose(f);
			CHECK_EQ(int, ipcc_skid_load(path, &r, &n), IPCC_EINVAL);
			CHECK(r == NULL && n == 0);
		}
	}
	/* halves: the same distribution twice is 0 apart */
	f = fopen(path, "w");
	fputs("{\"kernels\": [{\"name\": \"skid.adds\", \"rows\": ["
	      "{\"offset\": 0, \"samples\": 30, \"half\": [10, 20]},"
	      "{\"offset\": 4, \"samples\": 90, \"half\": [30, 60]}]}]}",
	      f);
	fclose(f);
	CHECK_EQ(int, ipcc_skid_load(path, &r, &n), 0);
	if (n == 1) {
		CHECK_CMP(dbl, r[0].repeat_distance, <, 1e-12);
		CHECK_CMP(dbl, r[0].rows[1].measured, ==, 0.75);
	}
	ipcc_skid_results_free(r, n);
	unlink(path);
	return TEST_OK;
}

/*
 * No verdict when the run's halves differ more than the threshold and more than the model
 * does: the measurement does not repeat well enough to judge the model.
 */
TEST(no_verdict_when_halves_disagree_more_than_the_model)
{
	struct ipcc_skid_result r = { .explained = 1, .distance = 0.05, .repeat_distance = 0.02 };

	CHECK_STR(ipcc_skid_result_verdict(&r), "matches");
	r.repeat_distance = 0.08; /* noisier than the model, but within the threshold */
	CHECK_STR(ipcc_skid_result_verdict(&r), "matches");
	r.repeat_distance = IPCC_SKID_MATCH_DISTANCE + 0.05;
	CHECK(ipcc_skid_result_verdict(&r) == NULL);
	CHECK_EQ(int, ipcc_skid_judge(1, 0.05, r.repeat_distance), IPCC_SKID_NO_VERDICT);
	r.distance = 0.5; /* the model is further off than the halves: judged */
	CHECK_STR(ipcc_skid_result_verdict(&r), "same-places");
	r.distance = 0.05;
	r.repeat_distance = NAN; /* halves unknown: judged on the distance alone */
	CHECK_STR(ipcc_skid_result_verdict(&r), "matches");
	return TEST_OK;
}

/*
 * The fit on measurements a known profile generates: it finds a profile at distance 0, never
 * does worse than the stock profile, and the leave-one-out distances are reported.
 */
TEST(fit_finds_the_profile_that_made_the_measurements)
{
	static const char *const kernels[] = { "skid.adds", "skid.load_nops_add", "skid.mov_imm" };
	struct ipcc_model_profile base, truth;
	struct ipcc_skid_result r[3];
	char texts[3][4096];
	const char *tp[3];
	struct ipcc_skid_fit fit;

	ipcc_model_profile("zen3", &base);
	truth = base;
	truth.sample_retire = 3;
	truth.placement = IPCC_MODEL_PLACE_OLDEST;
	for (int k = 0; k < 3; k++) {
		ipcc_skid_loop_text(ipcc_kernel_find(kernels[k]), texts[k], sizeof(texts[k]));
		tp[k] = texts[k];
		CHECK_EQ(int, synthetic(texts[k], &truth, &r[k]), 0);
		snprintf(r[k].kernel, sizeof(r[k].kernel), "%s", kernels[k]);
	}
	CHECK_EQ(int, ipcc_skid_fit(r, tp, 3, &base, &fit), 0);
	CHECK_EQ(int, (int)fit.nkernels, 3);
	CHECK(fit.candidates > 100);
	CHECK_CMP(dbl, fit.total, <, 0.01);
	CHECK_CMP(dbl, fit.total, <=, fit.stock_total);
	CHECK_STR(fit.profile.name, "zen3-fit");
	/* timing keeps zen3's retire width; the fitted width only places samples */
	CHECK_EQ(int, (int)fit.profile.retire, 8);
	for (int k = 0; k < 3; k++) {
		CHECK_CMP(dbl, fit.fitted[k], <, 0.01);
		CHECK(fit.held_out[k] >= 0 && fit.held_out[k] <= 1);
		printf("%s: stock %.3f fitted %.3f held out %.3f\n", kernels[k], fit.stock[k],
		       fit.fitted[k], fit.held_out[k]);
	}
	/* the fitted profile writes and reads back, and gives the same distances */
	{
		char text[4096];
		struct ipcc_model_profile q;
		struct ipcc_model_error err;
		double d;

		CHECK_EQ(int, ipcc_model_profile_format(&fit.profile, text, sizeof(text)), 0);
		CHECK_EQ(int, ipcc_model_profile_parse(text, &q, &err), 0);
		CHECK(ipcc_model_profile_equal(&q, &fit.profile));
		CHECK_EQ(int, ipcc_skid_distance(&r[0], tp[0], &q, &d), 0);
		CHECK_CMP(dbl, d, <, 0.01);
	}
	for (int k = 0; k < 3; k++)
		ipcc_skid_result_release(&r[k]);
	return TEST_OK;
}
