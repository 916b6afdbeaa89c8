/*
 * test_counters.c - counter sets, end to end: libpfm4 encoding (every family libpfm4 4.13
 * can be forced to), the fake kernel's ABI (seqlock, rdpmc, 48-bit counters, index 0,
 * multiplexing, errors), intervals, and on this machine the time backend for real.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>

#include "fake_kernel.h"
#include "ipcc/breakdown.h"
#include "ipcc/counters.h"
#include "ipcc/error.h"
#include "pmu_int.h"
#include "recipe_cases.h"
#include "recipes_int.h"
#include "test.h"

/* A fake machine whose libpfm4 PMU is `pmu`: the fake kernel, and a sysfs with a cpu PMU. */
static const struct perf_sys_ops *use_fake(const char *pmu)
{
	return fake_use(pmu, test_data("sysfs-cpu-pmu"));
}

static void use_real(const struct perf_sys_ops *old)
{
	fake_unuse(old);
}

static const struct ipcc_counters_opts self_perf = { .backend = IPCC_BACKEND_PERF };

static uint64_t config_of(const char *recipe, const char *event)
{
	const struct recipe *r = recipe_by_name(recipe);

	for (unsigned i = 0; i < r->nev; i++)
		if (strcmp(r->ev[i].name, event) == 0)
			return r->ev[i].config;
	return 0;
}

TEST(every_recipe_end_to_end_on_the_fake_kernel)
{
	struct recipe_case cases[32];
	int n = recipe_cases_load(test_data("recipes.txt"), cases, 32), ran = 0;

	for (int k = 0; k < n; k++) {
		const struct recipe_case *c = &cases[k];
		const struct perf_sys_ops *old;
		struct ipcc_counter_set *set;
		struct ipcc_reading a, b;
		struct ipcc_interval iv;
		int before = test_failures;

		if (!*c->pmu)
			continue; /* libpfm4 4.13 cannot encode this family: test_recipes has it */
		old = use_fake(c->pmu);
		if (strstr(c->recipe, "-smt")) {
			/* The SMT variants: SMT on, and AnyThread events allowed. */
			setenv("IPCC_SYSFS_ROOT", test_data("sysfs-smt-on"), 1);
			setenv("IPCC_PROCFS_ROOT", test_data("procfs-paranoid-0"), 1);
		}
		CHECK_EQ(int, ipcc_counters_open(&self_perf, &set), 0);
		unsetenv("IPCC_PROCFS_ROOT");
		if (!set) {
			fprintf(stderr, "  recipes.txt:%d: %s\n", c->line, ipcc_last_error());
			use_real(old);
			continue;
		}
		CHECK_STR(ipcc_counters_recipe(set), c->recipe);
		CHECK(ipcc_counters_backend(set) == IPCC_BACKEND_PERF);
		CHECK_EQ(int, ipcc_read(set, &a), 0);
		for (unsigned e = 0; e < c->nev; e++)
			fake_add(PERF_TYPE_RAW, config_of(c->recipe, c->event[e]), c->delta[e]);
		CHECK_EQ(int, ipcc_read(set, &b), 0);
		CHECK_EQ(int, ipcc_interval(set, &a, &b, &iv), 0);
		CHECK_EQ(int, iv.via_read, 0); /* all through rdpmc */
		CHECK_CMP(u64, fake.rdpmc_calls, >, 0);
		CHECK_EQ(u64, iv.width, c->width);
		for (int s = 0; s < 4; s++)
			CHECK_EQ(i64, iv.value[IPCC_SLOTS_TOTAL + s], c->slots[s]);
		if (c->has_smt)
			CHECK_EQ(i64, iv.value[IPCC_SLOTS_SMT], c->slots[4]);
		CHECK(!!(iv.valid & (1u << IPCC_SLOTS_SMT)) == c->has_smt);
		CHECK(iv.valid & (1u << IPCC_INSTRUCTIONS));
		CHECK_EQ(i64, iv.value[IPCC_INSTRUCTIONS], (int64_t)c->delta[1]);
		/* The approximation is said wherever the recipe is one. */
		CHECK(!!ipcc_counters_approximation(set) ==
		      !!strstr(c->recipe, "zen2") + !!strstr(c->recipe, "zen3"));
		/* So is a difference from the kernel's level 1 (none here but Zen 2/3's). */
		CHECK(!!ipcc_counters_differs_from_kernel(set) ==
		      !!strstr(c->recipe, "zen2") + !!strstr(c->recipe, "zen3"));
		ipcc_counters_free(set);
		CHECK_EQ(int, fake.open_fds, 0);
		CHECK_EQ(int, fake.mapped_pages, 0);
		use_real(old);
		if (test_failures > before)
			fprintf(stderr, "  ... in the row at recipes.txt:%d (%s)\n", c->line,
				c->recipe);
		ran++;
	}
	CHECK_CMP(int, ran, >=, 7);
	return TEST_OK;
}

/*
 * The CPU table picks the recipe, whatever libpfm4 detects: its 4.13 tables know neither
 * Zen 5 nor Emerald Rapids. Every event still goes to the kernel in the vendor's encoding.
 */
TEST(recipe_follows_the_cpu_table)
{
	static const struct {
		const char *cpu, *recipe;
	} cases[] = {
		{ "AuthenticAMD 26 2", "amd-zen5" },   { "GenuineIntel 6 207", "intel-spr" },
		{ "GenuineIntel 6 143", "intel-spr" }, { "AuthenticAMD 25 1", "amd-zen3" },
		{ "AuthenticAMD 25 17", "amd-zen4" },  { "GenuineIntel 6 85", "intel-skl" },
		{ "GenuineIntel 6 63", "intel-snb" },  { "0x41 0xd40", "arm-neoverse-v1" },
		{ "0x41 0xd49", "arm-neoverse-n2" },   { "0x41 0xd4f", "arm-neoverse" },
		{ "0x41 0xd8e", "arm-neoverse-n3" },   { "0x41 0xd84", "arm-neoverse-v3" },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct perf_sys_ops *old = use_fake("");
		const struct recipe *r = recipe_by_name(cases[k].recipe);
		struct ipcc_counter_set *set;

		unsetenv("LIBPFM_FORCE_PMU");
		test_cpuinfo(cases[k].cpu);
		pmu_reset();
		CHECK_EQ(int, ipcc_counters_open(&self_perf, &set), 0);
		if (set) {
			CHECK_STR(ipcc_counters_recipe(set), cases[k].recipe);
			CHECK_STR(ipcc_counters_cpu_recipe(set), cases[k].recipe);
			for (unsigned i = 0; r && i < r->nev; i++)
				CHECK(fake_fd(PERF_TYPE_RAW, r->ev[i].config) >= 0);
			ipcc_counters_free(set);
		}
		test_cpuinfo_done();
		use_real(old);
	}
	return TEST_OK;
}

/* No PMU: the reason quotes the kernel's own line where its log has one, and only then. */
TEST(no_pmu_reason_quotes_the_kernel_log)
{
	static const struct {
		const char *log, *quote;
	} cases[] = {
		{ "kmsg-amd-kvm.txt", "its log says 'Performance Events: PMU not available due to "
				      "virtualization, using software events only.'" },
		{ "kmsg-intel-kvm.txt",
		  "its log says 'Performance Events: unsupported CPU family 6 "
		  "model 207 no PMU driver, software events only.'" },
		{ "kmsg-no-pmu-line.txt", NULL },
		{ "no-such-log", NULL },
	};
	char why[256];

	setenv("IPCC_SYSFS_ROOT", test_data("sysfs-no-pmu"), 1);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		setenv("IPCC_KMSG", test_data(cases[i].log), 1);
		pmu_open_reason(ENOENT, "cycles", false, why, sizeof(why));
		CHECK(strncmp(why, "no hardware PMU: ", 17) == 0);
		if (cases[i].quote)
			CHECK(strstr(why, cases[i].quote) != NULL);
		else
			CHECK(strstr(why, "log") == NULL && strstr(why, "'") == NULL);
		if (test_failures)
			fprintf(stderr, "  %s: %s\n", cases[i].log, why);
	}
	unsetenv("IPCC_KMSG");
	unsetenv("IPCC_SYSFS_ROOT");
	return TEST_OK;
}

/* -e names: a typo is an error with the nearest names; a real event is fine, PMU or not. */
TEST(event_names_are_checked_against_the_cpus_table)
{
	const struct perf_sys_ops *old = use_fake("skl");

	CHECK_EQ(int, ipcc_event_check("UOPS_ISSUED:ANY"), 0);
	CHECK_EQ(int, ipcc_event_check("skl::UOPS_ISSUED:ANY"), 0);
	CHECK_EQ(int, ipcc_event_check("UOPS_ISSUD:ANY"), IPCC_EINVAL);
	CHECK(strstr(ipcc_last_error(), "no event 'UOPS_ISSUD:ANY' in libpfm4's skl table") !=
	      NULL);
	CHECK(strstr(ipcc_last_error(), "nearest: UOPS_ISSUED") != NULL);
	CHECK_EQ(int, ipcc_event_check("UOPS_ISSUED:NOPE"), IPCC_EINVAL);
	CHECK(strstr(ipcc_last_error(), "UOPS_ISSUED:ANY") != NULL); /* its unit masks */
	use_real(old);
	return TEST_OK;
}

/*
 * No PMU, a CPU newer than libpfm4 4.13: Zen 5's names are looked up in Zen 4's table, and
 * perf's generic names still work. (A case of its own: libpfm4 4.13 keeps a PMU forced
 * earlier in the process marked present.)
 */
TEST(event_names_without_a_pmu_use_the_closest_table)
{
	const struct perf_sys_ops *old = use_fake("");

	unsetenv("LIBPFM_FORCE_PMU");
	setenv("IPCC_SYSFS_ROOT", test_data("sysfs-no-pmu"), 1);
	test_cpuinfo("AuthenticAMD 26 2");
	pmu_reset();
	/* forced (a note says so), or detected by libpfm4 itself, as on a Zen 4 host */
	if (*pmu_detected() && *pmu_table_note()) {
		CHECK_STR(pmu_detected(), "amd64_fam19h_zen4");
		CHECK_EQ(int, ipcc_event_check("RETIRED_OPS"), 0);
		CHECK_EQ(int, ipcc_event_check("RETIRED_INSTRUCTONS"), IPCC_EINVAL);
		CHECK(strstr(ipcc_last_error(), "nearest: RETIRED_INSTRUCTIONS") != NULL);
		CHECK(strstr(ipcc_last_error(), "closest it has to this CPU") != NULL);
		CHECK_EQ(int, ipcc_event_check("cycles"), 0);
		CHECK_EQ(int, ipcc_event_check("perf::PERF_COUNT_HW_BRANCH_MISSES"), 0);
	} else {
		/*
		 * libpfm4 detected a PMU of its own on this machine (from the CPU itself, not the
		 * test's cpuinfo), so nothing was forced: its own table answers, generic names
		 * work, and a wrong name says the nearest ones.
		 */
		printf("libpfm4 detects %s here: its own table answers\n", pmu_detected());
		CHECK(*pmu_detected() != '\0');
		CHECK_STR(pmu_table_note(), "");
		CHECK_EQ(int, ipcc_event_check("cycles"), 0);
		CHECK_EQ(int, ipcc_event_check("perf::PERF_COUNT_HW_BRANCH_MISSES"), 0);
		CHECK_EQ(int, ipcc_event_check("NO_SUCH_EVENT_ANYWHERE"), IPCC_EINVAL);
		CHECK(strstr(ipcc_last_error(), "nearest: ") != NULL);
	}
	test_cpuinfo_done();
	use_real(old);
	return TEST_OK;
}

/* The kernel log's line is kept for the boot: a kept line for this boot is used, others not. */
TEST(kernel_log_line_is_kept_for_the_boot)
{
	char dir[] = "/tmp/ipcc-cache-XXXXXX", path[256], boot[64] = "", line[256];
	FILE *f;

	f = fopen("/proc/sys/kernel/random/boot_id", "r");
	if (!f || !fgets(boot, sizeof(boot), f) || !mkdtemp(dir)) {
		if (f)
			fclose(f);
		SKIP("no boot id or no temporary folder");
	}
	fclose(f);
	boot[strcspn(boot, "\n")] = '\0';
	unsetenv("IPCC_KMSG");
	setenv("IPCC_CACHE_DIR", dir, 1);
	snprintf(path, sizeof(path), "%s/kmsg", dir);
	f = fopen(path, "w");
	fprintf(f, "ipcc-kmsg-1 %s\nPerformance Events: a kept line\n", boot);
	fclose(f);
	CHECK_EQ(int, pmu_kernel_log_line(line, sizeof(line)), 0);
	CHECK_STR(line, "Performance Events: a kept line");
	/* Kept as "no such line" for this boot. */
	f = fopen(path, "w");
	fprintf(f, "ipcc-kmsg-1 %s\n\n", boot);
	fclose(f);
	CHECK_EQ(int, pmu_kernel_log_line(line, sizeof(line)), -1);
	/* Another boot's: read afresh (whatever this machine's log says), never the kept one. */
	f = fopen(path, "w");
	fprintf(f, "ipcc-kmsg-1 00000000-0000-0000-0000-000000000000\nPerformance Events: old\n");
	fclose(f);
	line[0] = '\0';
	pmu_kernel_log_line(line, sizeof(line));
	CHECK(strcmp(line, "Performance Events: old") != 0);
	unlink(path);
	rmdir(dir);
	unsetenv("IPCC_CACHE_DIR");
	return TEST_OK;
}

TEST(libpfm_misencoding_is_corrected_and_said)
{
	const struct perf_sys_ops *old = use_fake("icl");
	struct ipcc_counter_set *set;

	CHECK_EQ(int, ipcc_counters_open(&self_perf, &set), 0);
	/* libpfm4 4.13 gives TOPDOWN:BACKEND_BOUND_SLOTS event 0x00; intel/perfmon says 0xa4. */
	CHECK(fake_fd(PERF_TYPE_RAW, 0x2a4) >= 0);
	CHECK(fake_fd(PERF_TYPE_RAW, 0x200) < 0);
	if (strstr(ipcc_counters_notes(set), "0x200"))
		CHECK(strstr(ipcc_counters_notes(set), "0x2a4") != NULL);
	ipcc_counters_free(set);
	use_real(old);
	return TEST_OK;
}

TEST(reader_retries_when_the_page_changes_mid_read)
{
	const struct perf_sys_ops *old = use_fake("skl");
	struct ipcc_counter_set *set;
	struct ipcc_reading a, b;
	struct ipcc_interval iv;
	unsigned calls;

	CHECK_EQ(int, ipcc_counters_open(&self_perf, &set), 0);
	ipcc_read(set, &a);
	fake_add(PERF_TYPE_RAW, 0xc0, 1000);
	calls = fake.rdpmc_calls;
	fake.lock_bumps = 1; /* the first rdpmc of this reading races with an update */
	ipcc_read(set, &b);
	ipcc_interval(set, &a, &b, &iv);
	/* The update added 5 events to the first counter read (cycles, event 0). */
	CHECK_EQ(i64, iv.value[IPCC_CYCLES], 5);
	CHECK_EQ(i64, iv.value[IPCC_INSTRUCTIONS], 1000);
	/* one rdpmc per event, plus the one that had to be repeated */
	CHECK_EQ(u64, fake.rdpmc_calls - calls, 7 + 1);
	ipcc_counters_free(set);
	use_real(old);
	return TEST_OK;
}

TEST(counter_wraps_at_48_bits_and_is_sign_extended)
{
	const struct perf_sys_ops *old = use_fake("skl");
	struct ipcc_counter_set *set;
	struct ipcc_reading a, b;
	struct ipcc_interval iv;
	int fd;

	CHECK_EQ(int, ipcc_counters_open(&self_perf, &set), 0);
	fd = fake_fd(PERF_TYPE_RAW, 0xc0);
	/* The hardware counter just below 2^48: as a 48-bit signed value, -16. */
	fake_add(PERF_TYPE_RAW, 0xc0, 100);
	fake_set_hw(fd, (1ull << 48) - 16);
	ipcc_read(set, &a);
	CHECK_EQ(u64, a.raw[1], 100); /* event 1 is INSTRUCTION_RETIRED */
	/* 40 more: the 48-bit counter wraps past 0 while the 64-bit count goes on. */
	fake_add(PERF_TYPE_RAW, 0xc0, 40);
	ipcc_read(set, &b);
	ipcc_interval(set, &a, &b, &iv);
	CHECK_EQ(i64, iv.value[IPCC_INSTRUCTIONS], 40);
	/* And a kernel overflow update folding 2^48 into the offset changes nothing. */
	fake_set_hw(fd, 24);
	ipcc_read(set, &a);
	CHECK_EQ(u64, a.raw[1], 140);
	ipcc_counters_free(set);
	use_real(old);
	return TEST_OK;
}

TEST(index_zero_falls_back_to_read)
{
	const struct perf_sys_ops *old = use_fake("skl");
	struct ipcc_counter_set *set;
	struct ipcc_reading a, b;
	struct ipcc_interval iv;
	unsigned reads;

	CHECK_EQ(int, ipcc_counters_open(&self_perf, &set), 0);
	ipcc_read(set, &a);
	CHECK_EQ(u64, a.via_read, 0);
	fake_add(PERF_TYPE_RAW, 0xc0, 777);
	fake_schedule(fake_fd(PERF_TYPE_RAW, 0xc0), false);
	reads = fake.read_calls;
	ipcc_read(set, &b);
	CHECK_EQ(u64, b.via_read, 1u << 1);
	CHECK_EQ(u64, fake.read_calls - reads, 1);
	ipcc_interval(set, &a, &b, &iv);
	CHECK(iv.via_read);
	CHECK_EQ(i64, iv.value[IPCC_INSTRUCTIONS], 777);
	ipcc_counters_free(set);
	use_real(old);
	return TEST_OK;
}

TEST(multiplexed_counts_are_scaled_and_covered)
{
	const struct perf_sys_ops *old = use_fake("skl");
	/* Extra events are in the group that is not pinned: they may be multiplexed. */
	const char *extra[] = { "BR_MISP_RETIRED:ALL_BRANCHES" };
	struct ipcc_counters_opts o = { .backend = IPCC_BACKEND_PERF, .extra = extra, .nextra = 1 };
	struct ipcc_counter_set *set;
	struct ipcc_reading a, b;
	struct ipcc_interval iv;
	int fd;

	CHECK_EQ(int, ipcc_counters_open(&o, &set), 0);
	fd = fake_fd(PERF_TYPE_RAW, 0xc5);
	fake_time(fd, 1000, 1000);
	ipcc_read(set, &a);
	/* Counted for a quarter of the interval: 250 seen stand for 1000. */
	fake_add(PERF_TYPE_RAW, 0xc5, 250);
	fake_add(PERF_TYPE_RAW, 0xc0, 100);
	fake_time(fd, 4000, 1000);
	ipcc_read(set, &b);
	ipcc_interval(set, &a, &b, &iv);
	CHECK_EQ(u64, iv.extra_valid, 1);
	CHECK_EQ(u64, iv.extra[0], 1000);
	CHECK_CMP(dbl, fabs(iv.extra_coverage[0] - 0.25), <, 1e-12);
	/* The pinned recipe group is counted all the time. */
	CHECK_EQ(i64, iv.value[IPCC_INSTRUCTIONS], 100);
	CHECK_CMP(dbl, iv.coverage[IPCC_INSTRUCTIONS], ==, 1.0);
	/* Never scheduled during the interval: absent, not 0. */
	ipcc_read(set, &a);
	fake_time(fd, 1000, 0);
	ipcc_read(set, &b);
	ipcc_interval(set, &a, &b, &iv);
	CHECK_EQ(u64, iv.extra_valid, 0);
	ipcc_counters_free(set);

	/* read() readings (inherited counters) carry the times: the same scaling. */
	fake_reset();
	o.inherit = true;
	CHECK_EQ(int, ipcc_counters_open(&o, &set), 0);
	fd = fake_fd(PERF_TYPE_RAW, 0xc5);
	ipcc_read(set, &a);
	fake_add(PERF_TYPE_RAW, 0xc5, 500);
	fake_time(fd, 2000, 1000);
	ipcc_read(set, &b);
	ipcc_interval(set, &a, &b, &iv);
	CHECK_EQ(u64, iv.extra[0], 1000);
	CHECK_CMP(dbl, fabs(iv.extra_coverage[0] - 0.5), <, 1e-12);
	ipcc_counters_free(set);
	use_real(old);
	return TEST_OK;
}

TEST(open_errors_name_the_reason)
{
	const struct perf_sys_ops *old = use_fake("skl");
	struct ipcc_counters_opts o = { .backend = IPCC_BACKEND_AUTO, .software = true };
	struct ipcc_counter_set *set;
	const char *why;

	/* No PMU at all, and sysfs has no core PMU device either. */
	setenv("IPCC_SYSFS_ROOT", test_data("sysfs-no-pmu"), 1);
	fake.has_pmu = false;
	CHECK_EQ(int, ipcc_counters_open(&o, &set), 0);
	CHECK(ipcc_counters_backend(set) == IPCC_BACKEND_TIME);
	why = ipcc_counters_absent(set, IPCC_INSTRUCTIONS);
	CHECK(why && strstr(why, "no hardware PMU"));
	why = ipcc_counters_absent(set, IPCC_SLOTS_RETIRED);
	CHECK(why && strstr(why, "no hardware PMU"));
	CHECK(ipcc_counters_absent(set, IPCC_PAGE_FAULTS) == NULL);
	ipcc_counters_free(set);
	CHECK_EQ(int, fake.open_fds, 0);
	/* Asked for perf explicitly: an error, not a silent fallback. */
	CHECK_EQ(int, ipcc_counters_open(&self_perf, &set), IPCC_ENOTSUP);
	CHECK(set == NULL);
	CHECK(strstr(ipcc_last_error(), "no hardware PMU") != NULL);

	/* Permission: perf_event_paranoid. */
	fake_reset();
	fake.fail[0].type = PERF_TYPE_RAW, fake.fail[0].config = 0x3c, fake.fail[0].err = EACCES;
	fake.nfail = 1;
	CHECK_EQ(int, ipcc_counters_open(&self_perf, &set), IPCC_EACCES);
	CHECK(strstr(ipcc_last_error(), "perf_event_paranoid") != NULL);

	/* One member the PMU cannot count: only what depends on it is absent. */
	fake_reset();
	fake.fail[0].type = PERF_TYPE_RAW, fake.fail[0].config = 0x19c, fake.fail[0].err = EINVAL;
	fake.fail[1].type = PERF_TYPE_RAW, fake.fail[1].config = 0x10d,
	fake.fail[1].err = EOPNOTSUPP;
	fake.nfail = 2;
	CHECK_EQ(int, ipcc_counters_open(&self_perf, &set), 0);
	why = ipcc_counters_absent(set, IPCC_SLOTS_FILLED);
	CHECK(why && strstr(why, "IDQ_UOPS_NOT_DELIVERED") && strstr(why, "EINVAL"));
	why = ipcc_counters_absent(set, IPCC_SLOTS_ISSUED);
	CHECK(why && strstr(why, "INT_MISC:RECOVERY_CYCLES") && strstr(why, "EOPNOTSUPP"));
	CHECK(ipcc_counters_absent(set, IPCC_SLOTS_TOTAL) == NULL);
	CHECK(ipcc_counters_absent(set, IPCC_SLOTS_RETIRED) == NULL);
	CHECK(ipcc_counters_absent(set, IPCC_INSTRUCTIONS) == NULL);
	ipcc_counters_free(set);

	/* Kernel-mode counting at perf_event_paranoid 2. */
	fake_reset();
	setenv("IPCC_PROCFS_ROOT", test_data("procfs-paranoid-2"), 1);
	o.backend = IPCC_BACKEND_PERF;
	o.kernel = true;
	CHECK_EQ(int, ipcc_counters_open(&o, &set), 0);
	why = ipcc_counters_absent(set, IPCC_INSTRUCTIONS_K);
	CHECK(why && strstr(why, "perf_event_paranoid is 2"));
	/* context switches happen in kernel mode: absent rather than a 0 that looks like data */
	why = ipcc_counters_absent(set, IPCC_CONTEXT_SWITCHES);
	CHECK(why && strstr(why, "paranoid"));
	CHECK(ipcc_counters_absent(set, IPCC_TASK_CLOCK_NS) == NULL);
	ipcc_counters_free(set);
	CHECK_EQ(int, fake.open_fds, 0);

	unsetenv("IPCC_PROCFS_ROOT");
	use_real(old);
	return TEST_OK;
}

TEST(pinned_group_that_cannot_be_scheduled_is_absent)
{
	const struct perf_sys_ops *old = use_fake("skl");
	struct ipcc_counters_opts o = { .backend = IPCC_BACKEND_PERF, .inherit = true };
	struct ipcc_counter_set *set;
	struct ipcc_reading a, b;
	struct ipcc_interval iv;

	/* inherit: no mmap, every reading is a read() */
	CHECK_EQ(int, ipcc_counters_open(&o, &set), 0);
	CHECK_EQ(int, fake.mapped_pages, 0);
	ipcc_read(set, &a);
	for (int i = 0; i < FAKE_MAX_FDS; i++)
		fake.ev[i].unschedulable = fake.ev[i].open;
	ipcc_read(set, &b);
	ipcc_interval(set, &a, &b, &iv);
	CHECK_EQ(u64, iv.valid & (1u << IPCC_INSTRUCTIONS | 0xfu << IPCC_SLOTS_TOTAL), 0);
	ipcc_counters_free(set);
	use_real(old);
	return TEST_OK;
}

TEST(extra_events_by_libpfm4_name)
{
	const struct perf_sys_ops *old = use_fake("skl");
	const char *extra[] = { "BR_MISP_RETIRED:ALL_BRANCHES", "NO_SUCH_EVENT" };
	struct ipcc_counters_opts o = { .backend = IPCC_BACKEND_PERF, .extra = extra, .nextra = 2 };
	struct ipcc_counter_set *set;
	struct ipcc_reading a, b;
	struct ipcc_interval iv;

	CHECK_EQ(int, ipcc_counters_open(&o, &set), 0);
	CHECK_EQ(u64, ipcc_counters_nextra(set), 2);
	CHECK(ipcc_counters_extra_absent(set, 0) == NULL);
	CHECK(strstr(ipcc_counters_extra_absent(set, 1), "NO_SUCH_EVENT") != NULL);
	ipcc_read(set, &a);
	fake_add(PERF_TYPE_RAW, 0xc5, 42); /* BR_MISP_RETIRED.ALL_BRANCHES */
	ipcc_read(set, &b);
	ipcc_interval(set, &a, &b, &iv);
	CHECK_EQ(u64, iv.extra_valid, 1);
	CHECK_EQ(u64, iv.extra[0], 42);
	ipcc_counters_free(set);
	CHECK_EQ(int, fake.open_fds, 0);
	use_real(old);
	return TEST_OK;
}

/* ---- this machine, for real ------------------------------------------------------------ */

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

TEST(this_machine_counts_time_and_software_events)
{
	struct ipcc_counters_opts o = { .backend = IPCC_BACKEND_AUTO, .software = true };
	struct ipcc_counter_set *set;
	struct ipcc_reading a, b;
	struct ipcc_interval iv;
	uint64_t sink = 0;

	CHECK_EQ(int, ipcc_counters_open(&o, &set), 0);
	if (!set)
		return TEST_OK;
	printf("backend %s, recipe %s\n", ipcc_backend_name(ipcc_counters_backend(set)),
	       ipcc_counters_recipe(set) ? ipcc_counters_recipe(set) : "none");
	ipcc_read(set, &a);
	for (int i = 0; i < 3000000; i++)
		__asm__ volatile("" : "+r"(sink) : "r"((uint64_t)i));
	ipcc_read(set, &b);
	CHECK_EQ(int, ipcc_interval(set, &a, &b, &iv), 0);
	CHECK_CMP(u64, iv.elapsed_ns, >, 0);
	CHECK(iv.valid & (1u << IPCC_TASK_CLOCK_NS));
	CHECK_CMP(i64, iv.value[IPCC_TASK_CLOCK_NS], >, 0);
	if (ipcc_counters_backend(set) == IPCC_BACKEND_TIME) {
		/* Every hardware counter is absent, with a reason, and not in the interval. */
		for (int c = IPCC_INSTRUCTIONS; c <= IPCC_CYCLES_K; c++) {
			CHECK(ipcc_counters_absent(set, c) != NULL);
			CHECK(!(iv.valid & (1u << c)));
		}
		printf("instructions: %s\n", ipcc_counters_absent(set, IPCC_INSTRUCTIONS));
	}
	ipcc_counters_free(set);
	return TEST_OK;
}

TEST(open_and_free_leave_no_fd_or_mapping)
{
	struct ipcc_counters_opts o = { .backend = IPCC_BACKEND_AUTO,
					.software = true,
					.kernel = true };
	int before = count_fds();
	const struct perf_sys_ops *old;

	for (int i = 0; i < 200; i++) {
		struct ipcc_counter_set *set;

		CHECK_EQ(int, ipcc_counters_open(&o, &set), 0);
		ipcc_counters_free(set);
	}
	CHECK_EQ(int, count_fds(), before);
	ipcc_counters_free(NULL);

	/* The same on the fake kernel's hardware path, mappings included. */
	old = use_fake("amd64_fam19h_zen4");
	o.backend = IPCC_BACKEND_PERF;
	o.kernel = false;
	for (int i = 0; i < 50; i++) {
		struct ipcc_counter_set *set;

		CHECK_EQ(int, ipcc_counters_open(&o, &set), 0);
		CHECK_CMP(int, fake.mapped_pages, >, 0);
		ipcc_counters_free(set);
		CHECK_EQ(int, fake.open_fds, 0);
		CHECK_EQ(int, fake.mapped_pages, 0);
	}
	use_real(old);
	return TEST_OK;
}

/* The model backend counts whole programs under Valgrind: a set opened in-process says so. */
TEST(model_backend_is_refused_in_process_with_where_it_runs)
{
	struct ipcc_counters_opts o = { .backend = IPCC_BACKEND_MODEL };
	struct ipcc_counter_set *set;

	CHECK_EQ(int, ipcc_counters_open(&o, &set), IPCC_ENOTSUP);
	CHECK(set == NULL);
	CHECK(strstr(ipcc_last_error(), "ipcc stat --backend model") != NULL);
	return TEST_OK;
}
