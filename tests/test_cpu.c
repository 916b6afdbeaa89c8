/*
 * test_cpu.c - CPU identification: every row of tests/data/cpus.txt through a written
 * /proc/cpuinfo, and on this machine CPUID against the kernel's /proc/cpuinfo.
 */
#include <stdlib.h>

#include "ipcc/cpu.h"
#include "ipcc/error.h"
#include "procfs_int.h"
#include "test.h"

static char *trim(char *s)
{
	char *e;

	s += strspn(s, " \t");
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

TEST(every_known_core_maps_to_its_pmu_table_and_profile)
{
	FILE *f = fopen(test_data("cpus.txt"), "r");
	char line[256];
	int rows = 0;

	CHECK(f != NULL);
	if (!f)
		return TEST_OK;
	while (fgets(line, sizeof(line), f)) {
		char *col[5], *save = NULL;
		struct ipcc_cpu cpu;
		int n = 0;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		for (char *t = strtok_r(line, "|", &save); t && n < 5;
		     t = strtok_r(NULL, "|", &save))
			col[n++] = trim(t);
		CHECK_EQ(int, n, 5);
		if (n != 5)
			continue;
		test_cpuinfo(col[0]);
		CHECK_EQ(int, ipcc_cpu_identify(&cpu), 0);
		if (strcmp(col[1], "-") == 0) {
			/* Not in the table: identified, but nothing mapped. */
			CHECK_STR(cpu.name, "");
			CHECK_STR(cpu.pmu, "");
			CHECK_STR(cpu.profile, "");
		} else {
			CHECK(cpu.name[0] != '\0');
			CHECK_STR(cpu.pmu, col[1]);
			CHECK_STR(cpu.pfm_table, col[2]);
			CHECK_STR(cpu.profile, col[3]);
			CHECK_EQ(int, cpu.profile_approx[0] != '\0',
				 !strcmp(col[4], "profile") || !strcmp(col[4], "both"));
			CHECK_EQ(int, cpu.table_approx[0] != '\0',
				 !strcmp(col[4], "table") || !strcmp(col[4], "both"));
		}
		rows++;
	}
	fclose(f);
	test_cpuinfo_done();
	CHECK(rows >= 20);
	return TEST_OK;
}

TEST(description_names_family_model_and_core)
{
	struct ipcc_cpu cpu = { .vendor = IPCC_CPU_INTEL, .family = 6, .model = 0xcf };
	char buf[128];

	ipcc_cpu_lookup(&cpu);
	ipcc_cpu_describe(&cpu, buf, sizeof(buf));
	CHECK_STR(buf, "Intel family 0x6 model 0xcf (Emerald Rapids (Raptor Cove))");
	cpu = (struct ipcc_cpu){ .vendor = IPCC_CPU_ARM, .family = 0x41, .model = 0xd40 };
	ipcc_cpu_lookup(&cpu);
	ipcc_cpu_describe(&cpu, buf, sizeof(buf));
	CHECK_STR(buf, "Arm part 0xd40 (Neoverse V1)");
	cpu = (struct ipcc_cpu){ .vendor = IPCC_CPU_AMD, .family = 0x1a, .model = 2 };
	ipcc_cpu_lookup(&cpu);
	CHECK(strstr(cpu.table_approx, "Zen 4") != NULL);
	CHECK_STR(cpu.profile_approx, "");
	return TEST_OK;
}

TEST(unreadable_cpuinfo_is_an_error)
{
	struct ipcc_cpu cpu;

	setenv("IPCC_PROC_CPUINFO", "/nonexistent/cpuinfo", 1);
	CHECK_EQ(int, ipcc_cpu_identify(&cpu), IPCC_ENOTSUP);
	CHECK(strstr(ipcc_last_error(), "/nonexistent/cpuinfo") != NULL);
	unsetenv("IPCC_PROC_CPUINFO");
	return TEST_OK;
}

/* This machine: what CPUID says is what the kernel printed in /proc/cpuinfo. */
TEST(cpuid_agrees_with_the_kernels_cpuinfo)
{
	struct ipcc_cpu mine, kernels;

	unsetenv("IPCC_PROC_CPUINFO");
	CHECK_EQ(int, ipcc_cpu_identify(&mine), 0);
	setenv("IPCC_PROC_CPUINFO", "/proc/cpuinfo", 1);
	if (ipcc_cpu_identify(&kernels) != 0) {
		unsetenv("IPCC_PROC_CPUINFO");
		SKIP("/proc/cpuinfo: %s", ipcc_last_error());
	}
	unsetenv("IPCC_PROC_CPUINFO");
	CHECK_EQ(int, (int)mine.vendor, (int)kernels.vendor);
	CHECK_EQ(int, (int)mine.family, (int)kernels.family);
	CHECK_EQ(int, (int)mine.model, (int)kernels.model);
	CHECK_STR(mine.pmu, kernels.pmu);
	return TEST_OK;
}
