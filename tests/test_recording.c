/*
 * test_recording.c - recordings: a round trip, every truncation and corruption an error
 * (never a crash), unknown records skipped, and symbols resolved for this test's own code.
 */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "ipcc/error.h"
#include "ipcc/recording.h"
#include "own_text.h"
#include "test.h"

/* Write a small recording into memory; returns its size. */
static size_t write_recording(char **buf)
{
	size_t len = 0;
	FILE *f = open_memstream(buf, &len);
	struct ipcc_sample_mmap m = { 0x400000, 0x3000, 0x1000, 42, 42, "/usr/bin/true" };
	struct ipcc_sample s1 = { 0x401234, 1000, 42, 43, 1, true };
	struct ipcc_sample s2 = { 0xffffffff81000000ull, 2000, 42, 42, 0, false };
	struct ipcc_recording_summary sum = { 2, 5, 1, 0, 4000, "task-clock" };

	ipcc_recording_write_header(f);
	ipcc_recording_write_mmap(f, &m);
	ipcc_recording_write_sample(f, &s1);
	ipcc_recording_write_sample(f, &s2);
	ipcc_recording_write_summary(f, &sum);
	fclose(f);
	return len;
}

TEST(recordings_round_trip)
{
	char *buf = NULL;
	size_t len = write_recording(&buf);
	struct ipcc_recording *p;

	CHECK_EQ(int, (int)(len % 8), 0);
	CHECK_EQ(int, ipcc_recording_parse(buf, len, &p), 0);
	if (!p) {
		free(buf);
		return TEST_OK;
	}
	CHECK_EQ(u64, p->nmmaps, 1);
	CHECK_STR(p->mmaps[0].filename, "/usr/bin/true");
	CHECK_EQ(u64, p->mmaps[0].addr, 0x400000);
	CHECK_EQ(u64, p->mmaps[0].len, 0x3000);
	CHECK_EQ(u64, p->mmaps[0].pgoff, 0x1000);
	CHECK_EQ(u64, p->nsamples, 2);
	CHECK_EQ(u64, p->samples[0].ip, 0x401234);
	CHECK_EQ(int, (int)p->samples[0].tid, 43);
	CHECK(p->samples[0].user && !p->samples[1].user);
	CHECK_EQ(u64, p->samples[1].time_ns, 2000);
	CHECK(p->has_summary);
	CHECK_EQ(u64, p->summary.lost, 5);
	CHECK_EQ(u64, p->summary.freq, 4000);
	CHECK_STR(p->summary.event, "task-clock");
	ipcc_recording_free(p);
	free(buf);
	return TEST_OK;
}

TEST(every_truncation_is_an_error)
{
	char *buf = NULL;
	size_t len = write_recording(&buf);
	unsigned errors = 0;

	for (size_t cut = 0; cut < len; cut++) {
		struct ipcc_recording *p = (struct ipcc_recording *)1;
		int ret = ipcc_recording_parse(buf, cut, &p);

		/* Cutting at a record boundary leaves a shorter, valid recording. */
		if (ret) {
			CHECK_EQ(int, ret, IPCC_EINVAL);
			CHECK(p == NULL);
			errors++;
		} else {
			ipcc_recording_free(p);
		}
	}
	CHECK_CMP(u64, errors, >=, len - 5);
	CHECK(ipcc_recording_parse(buf, len - 3, &(struct ipcc_recording *){ 0 }) == IPCC_EINVAL);
	CHECK(strstr(ipcc_last_error(), "truncated") != NULL);
	free(buf);
	return TEST_OK;
}

TEST(corrupt_headers_and_records_are_errors)
{
	char *buf = NULL;
	size_t len = write_recording(&buf);
	struct ipcc_recording *p;
	uint32_t v;

	memcpy(buf, "NOTAPROF", 8);
	CHECK_EQ(int, ipcc_recording_parse(buf, len, &p), IPCC_EINVAL);
	CHECK(strstr(ipcc_last_error(), "not an ipcc recording") != NULL);
	memcpy(buf, "IPCCPROF", 8);
	v = 99;
	memcpy(buf + 8, &v, 4);
	CHECK_EQ(int, ipcc_recording_parse(buf, len, &p), IPCC_EINVAL);
	CHECK(strstr(ipcc_last_error(), "version 99") != NULL);
	v = IPCC_RECORDING_VERSION;
	memcpy(buf + 8, &v, 4);
	/* The mapping's size, made odd: off the 8-byte grid. */
	v = 44;
	memcpy(buf + 20, &v, 4);
	CHECK_EQ(int, ipcc_recording_parse(buf, len, &p), IPCC_EINVAL);
	CHECK(strstr(ipcc_last_error(), "corrupt") != NULL);
	free(buf);
	buf = NULL;
	len = write_recording(&buf);
	/* The mapping's name without its NUL: the padding overwritten. */
	memset(buf + 16 + 8 + 32, 'x', 16);
	CHECK_EQ(int, ipcc_recording_parse(buf, len, &p), IPCC_EINVAL);
	CHECK(strstr(ipcc_last_error(), "no name") != NULL);
	free(buf);
	return TEST_OK;
}

TEST(unknown_record_types_are_skipped)
{
	char *buf = NULL;
	size_t len = write_recording(&buf);
	char *more = malloc(len + 16);
	uint32_t rec[4] = { 77, 16, 0xdead, 0xbeef };
	struct ipcc_recording *p;

	memcpy(more, buf, 16);
	memcpy(more + 16, rec, 16);
	memcpy(more + 32, buf + 16, len - 16);
	CHECK_EQ(int, ipcc_recording_parse(more, len + 16, &p), 0);
	if (p)
		CHECK_EQ(u64, p->nsamples, 2);
	ipcc_recording_free(p);
	free(more);
	free(buf);
	return TEST_OK;
}

TEST(missing_file_is_a_system_error)
{
	struct ipcc_recording *p;

	CHECK_EQ(int, ipcc_recording_load("/nonexistent/ipcc.profile", &p), IPCC_ESYS);
	CHECK(strstr(ipcc_last_error(), "/nonexistent/ipcc.profile") != NULL);
	CHECK(p == NULL);
	return TEST_OK;
}

__attribute__((noinline, used)) static int recording_test_marker(int x)
{
	return x * 3 + 1;
}

TEST(samples_resolve_to_this_programs_functions)
{
	struct ipcc_sample_mmap m;
	char path[400], *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct ipcc_sample s = {
		(uint64_t)(uintptr_t)recording_test_marker + 2, 0, (uint32_t)getpid(), 0, 0, true
	};
	struct ipcc_sample outside = { 0x10, 0, (uint32_t)getpid(), 0, 0, true };
	struct ipcc_recording *p;
	struct ipcc_symbols *syms;
	struct ipcc_symbol y;
	unsigned char code[4];

	/* every Linux process maps its own text: no line for it is a failure, not a skip */
	if (!test_own_text((uint64_t)(uintptr_t)recording_test_marker, &m, path, sizeof(path))) {
		CHECK(!"this program's text mapping in /proc/self/maps");
		return TEST_OK;
	}
	ipcc_recording_write_header(f);
	ipcc_recording_write_mmap(f, &m);
	ipcc_recording_write_sample(f, &s);
	fclose(f);
	CHECK_EQ(int, ipcc_recording_parse(buf, len, &p), 0);
	CHECK_EQ(int, ipcc_symbols_new(p, &syms), 0);
	ipcc_symbols_resolve(syms, &p->samples[0], &y);
	CHECK(y.file && !strcmp(y.file, path));
	CHECK(y.function && !strcmp(y.function, "recording_test_marker"));
	CHECK_EQ(u64, y.elf_addr - y.func_start, 2);
	/* The bytes read from the file are the bytes in memory. */
	size_t code_len = sizeof(code);

	CHECK_EQ(int, ipcc_symbols_read(syms, y.file, y.func_start, code, &code_len), 0);
	CHECK_EQ(u64, code_len, sizeof(code));
	CHECK(!memcmp(code, (const void *)recording_test_marker, sizeof(code)));
	ipcc_symbols_resolve(syms, &outside, &y);
	CHECK(y.file == NULL && y.function == NULL);
	ipcc_symbols_free(syms);
	ipcc_recording_free(p);
	free(buf);
	return TEST_OK;
}
