/*
 * test_procfs.c - reading /proc/cpuinfo fields, from recorded files.
 */
#include <stdlib.h>

#include "ipcc/error.h"
#include "procfs_int.h"
#include "test.h"

TEST(reads_first_field_of_recorded_cpuinfo)
{
	char buf[64];

	setenv("IPCC_PROC_CPUINFO", test_data("cpuinfo-zen3-kvm.txt"), 1);
	CHECK_EQ(int, procfs_cpuinfo_field("vendor_id", buf, sizeof(buf)), 0);
	CHECK_STR(buf, "AuthenticAMD");
	CHECK_EQ(int, procfs_cpuinfo_field("cpu MHz", buf, sizeof(buf)), 0);
	CHECK_STR(buf, "2445.406");
	/* "model" must not match "model name", nor the other way round */
	CHECK_EQ(int, procfs_cpuinfo_field("model", buf, sizeof(buf)), 0);
	CHECK_STR(buf, "1");
	CHECK_EQ(int, procfs_cpuinfo_field("model name", buf, sizeof(buf)), 0);
	CHECK_STR(buf, "AMD EPYC");
	/* truncated to the buffer, still terminated */
	CHECK_EQ(int, procfs_cpuinfo_field("vendor_id", buf, 5), 0);
	CHECK_STR(buf, "Auth");
	unsetenv("IPCC_PROC_CPUINFO");
	return TEST_OK;
}

TEST(missing_field_and_missing_file_are_errors)
{
	char buf[64];

	setenv("IPCC_PROC_CPUINFO", test_data("cpuinfo-zen3-kvm.txt"), 1);
	CHECK_EQ(int, procfs_cpuinfo_field("no such field", buf, sizeof(buf)), IPCC_ENOTSUP);
	setenv("IPCC_PROC_CPUINFO", test_data("no-such-file"), 1);
	CHECK_EQ(int, procfs_cpuinfo_field("vendor_id", buf, sizeof(buf)), IPCC_ESYS);
	CHECK(strstr(ipcc_last_error(), "no-such-file") != NULL);
	unsetenv("IPCC_PROC_CPUINFO");
	return TEST_OK;
}

TEST(has_word_matches_whole_words_only)
{
	const char *flags = "fpu tsc constant_tsc rdtscp nonstop_tsc";

	CHECK(procfs_has_word(flags, "tsc"));
	CHECK(procfs_has_word(flags, "fpu"));
	CHECK(procfs_has_word(flags, "nonstop_tsc"));
	CHECK(!procfs_has_word(flags, "constant"));
	CHECK(!procfs_has_word(flags, "rdtsc"));
	CHECK(!procfs_has_word(flags, "tsc_known_freq"));
	CHECK(!procfs_has_word("", "tsc"));
	return TEST_OK;
}
