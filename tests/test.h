/*
 * test.h - the in-tree unit-test harness: one executable per module, one TEST() per case.
 *
 *   TEST(name) { CHECK(x == 1); CHECK_EQ(u64, got, 42); return TEST_OK; }
 *
 * A case returns TEST_OK, or SKIP("why") when the machine lacks what it needs; CHECK* record
 * a failure (file:line and the values) and carry on. `test_<module> NAME` runs one case (how
 * CTest runs them: tests/CMakeLists.txt registers every TEST( line it finds), no argument
 * runs all. Exit status: 0 passed, 1 failed, 77 skipped (CTest's SKIP_RETURN_CODE).
 *
 * Shared helpers, here once: table rows tagged with their source line (ROW, test_row),
 * temporary folders (test_tmpdir_make, test_tmp_path, test_tmpdir_remove), test data paths
 * (test_data), a written /proc/cpuinfo (test_cpuinfo), a deterministic generator (test_rand).
 */
#ifndef IPCC_TEST_H
#define IPCC_TEST_H

#include <ftw.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TEST_OK	       0
#define TEST_SKIPPED   77
#define TEST_MAX_CASES 96

struct test_case {
	const char *name;
	int (*fn)(void);
};

static struct test_case test_cases[TEST_MAX_CASES];
static int test_ncases;
static int test_failures;

/*
 * Row tags: a table's row carries the line it is written on (`{ ROW, ... }`); a loop over the
 * rows sets test_row to the row's line, and every failed CHECK names that row as well as its
 * own line. 0: no row.
 */
#define ROW __LINE__
static int test_row;

static inline void test_fail_row(void)
{
	if (test_row)
		fprintf(stderr, "  (in the table's row at line %d)\n", test_row);
	test_failures++;
}

static inline void test_register(const char *name, int (*fn)(void))
{
	if (test_ncases == TEST_MAX_CASES) {
		fprintf(stderr, "test.h: more than %d cases\n", TEST_MAX_CASES);
		abort();
	}
	test_cases[test_ncases++] = (struct test_case){ name, fn };
}

#define TEST(name)                                                          \
	static int test_##name(void);                                       \
	__attribute__((constructor)) static void test_register_##name(void) \
	{                                                                   \
		test_register(#name, test_##name);                          \
	}                                                                   \
	static int test_##name(void)

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
			test_fail_row();                                                         \
		}                                                                                \
	} while (0)

/* CHECK_CMP(u64, a, <=, b): prints both values when the comparison fails. */
#define TEST_FMT_u64  "%" PRIu64
#define TEST_FMT_i64  "%" PRId64
#define TEST_FMT_int  "%d"
#define TEST_FMT_dbl  "%.9g"
#define TEST_TYPE_u64 uint64_t
#define TEST_TYPE_i64 int64_t
#define TEST_TYPE_int int
#define TEST_TYPE_dbl double
#define CHECK_CMP(type, a, op, b)                                                 \
	do {                                                                      \
		TEST_TYPE_##type test_a = (a), test_b = (b);                      \
		if (!(test_a op test_b)) {                                        \
			fprintf(stderr,                                           \
				"%s:%d: CHECK(%s %s %s) failed: " TEST_FMT_##type \
				" vs " TEST_FMT_##type "\n",                      \
				__FILE__, __LINE__, #a, #op, #b, test_a, test_b); \
			test_fail_row();                                          \
		}                                                                 \
	} while (0)
#define CHECK_EQ(type, a, b) CHECK_CMP(type, a, ==, b)

#define CHECK_STR(a, b)                                                                        \
	do {                                                                                   \
		const char *test_sa = (a), *test_sb = (b);                                     \
		if (strcmp(test_sa, test_sb) != 0) {                                           \
			fprintf(stderr, "%s:%d: CHECK_STR(%s, %s) failed: \"%s\" vs \"%s\"\n", \
				__FILE__, __LINE__, #a, #b, test_sa, test_sb);                 \
			test_fail_row();                                                       \
		}                                                                              \
	} while (0)

/* A deterministic generator for property and mutation tests (an LCG): 0 <= result < n. */
static inline unsigned test_rand(unsigned n)
{
	static uint64_t state = 12345;

	state = state * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)(state >> 33) % n;
}

/*
 * The path of the test data file `name` (tests/data/NAME). The data is looked for where it
 * is at run time, not only where it was at build time, so that test programs copied to
 * another machine (../shared/tools/device-bundle) and run from a checkout's root find it:
 * $IPCC_TEST_DATA if set, else the source tree's tests/data as built, else ./tests/data.
 * A missing folder is a failure that says where it looked, never a silent skip.
 */
static inline const char *test_data(const char *name)
{
	static char bufs[4][1024];
	static unsigned next;
	static const char *dir;
	char *buf = bufs[next++ % 4];

	if (!dir) {
		const char *env = getenv("IPCC_TEST_DATA");
		const char *tries[] = { env, IPCC_TEST_DATA, "tests/data" };
		FILE *probe;

		for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]) && !dir; i++) {
			char path[1024];

			if (!tries[i] || !*tries[i])
				continue;
			snprintf(path, sizeof(path), "%s/recipes.txt", tries[i]);
			if ((probe = fopen(path, "r")) != NULL) {
				fclose(probe);
				dir = tries[i];
			}
		}
		if (!dir) {
			fprintf(stderr,
				"test.h: no test data: not in $IPCC_TEST_DATA, %s or ./tests/data "
				"(run from the checkout's root, or set IPCC_TEST_DATA)\n",
				IPCC_TEST_DATA);
			exit(1);
		}
	}
	snprintf(buf, sizeof(bufs[0]), "%s/%s", dir, name);
	return buf;
}

/*
 * A temporary folder for a test: test_tmpdir_make("lines") makes /tmp/ipcc-test-lines.XXXXXX
 * (false when it cannot), test_tmp_path("prog.c") names a file in it (four at a time stay
 * valid), test_tmpdir_remove() removes it with everything in it.
 */
static char test_tmpdir[256];

static inline bool test_tmpdir_make(const char *tag)
{
	snprintf(test_tmpdir, sizeof(test_tmpdir), "/tmp/ipcc-test-%s.XXXXXX", tag);
	return mkdtemp(test_tmpdir) != NULL;
}

static inline const char *test_tmp_path(const char *name)
{
	static char bufs[4][512];
	static unsigned next;
	char *b = bufs[next++ % 4];

	snprintf(b, sizeof(bufs[0]), "%s/%s", test_tmpdir, name);
	return b;
}

static inline int test_remove_one(const char *path, const struct stat *st, int flag,
				  struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static inline void test_tmpdir_remove(void)
{
	if (*test_tmpdir)
		nftw(test_tmpdir, test_remove_one, 16, FTW_DEPTH | FTW_PHYS);
	test_tmpdir[0] = '\0';
}

/*
 * Describe a CPU through a written /proc/cpuinfo: `spec` is "vendor family model [flag]"
 * (decimal, as the kernel prints x86; the flag joins the flags line) or "implementer part"
 * (Arm, 0x...). Sets IPCC_PROC_CPUINFO to
 * a file that test_cpuinfo_done() removes.
 */
static char test_cpuinfo_path[64];

static inline void test_cpuinfo(const char *spec)
{
	char a[32] = "", b[32] = "", c[32] = "", d[64] = "";
	FILE *f;

	if (!*test_cpuinfo_path) {
		int fd;

		snprintf(test_cpuinfo_path, sizeof(test_cpuinfo_path), "/tmp/ipcc-cpuinfo-XXXXXX");
		fd = mkstemp(test_cpuinfo_path);
		if (fd < 0) {
			perror("test.h: mkstemp");
			exit(1);
		}
		close(fd);
	}
	f = fopen(test_cpuinfo_path, "w");
	if (!f) {
		perror(test_cpuinfo_path);
		exit(1);
	}
	if (sscanf(spec, "%31s %31s %31s %63s", a, b, c, d) >= 3)
		fprintf(f,
			"processor\t: 0\nvendor_id\t: %s\ncpu family\t: %s\nmodel\t\t: %s\n"
			"model name\t: test\nflags\t\t: fpu sse2 %s\n",
			a, b, c, d);
	else
		fprintf(f,
			"processor\t: 0\nCPU implementer\t: %s\nCPU architecture: 8\n"
			"CPU part\t: %s\n",
			a, b);
	fclose(f);
	setenv("IPCC_PROC_CPUINFO", test_cpuinfo_path, 1);
}

static inline void test_cpuinfo_done(void)
{
	unsetenv("IPCC_PROC_CPUINFO");
	if (*test_cpuinfo_path)
		unlink(test_cpuinfo_path);
	test_cpuinfo_path[0] = '\0';
}

#define SKIP(...)                    \
	do {                         \
		printf("skipped: "); \
		printf(__VA_ARGS__); \
		printf("\n");        \
		return TEST_SKIPPED; \
	} while (0)

int main(int argc, char **argv)
{
	int ran = 0, skipped = 0, failed = 0;

	for (int i = 0; i < test_ncases; i++) {
		int before = test_failures, r;

		if (argc > 1 && strcmp(argv[1], test_cases[i].name) != 0)
			continue;
		ran++;
		r = test_cases[i].fn();
		if (test_failures > before) {
			printf("FAIL %s\n", test_cases[i].name);
			failed++;
		} else if (r == TEST_SKIPPED) {
			printf("SKIP %s\n", test_cases[i].name);
			skipped++;
		} else {
			printf("ok   %s\n", test_cases[i].name);
		}
	}
	if (ran == 0) {
		fprintf(stderr, "no test case named '%s'\n", argc > 1 ? argv[1] : "");
		return 1;
	}
	if (failed)
		return 1;
	return skipped == ran ? TEST_SKIPPED : 0;
}

#endif
