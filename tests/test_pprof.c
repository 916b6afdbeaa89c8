/*
 * test_pprof.c - profiles as pprof (src/export/pprof.c): a profile of this test's own code,
 * encoded, gunzipped and decoded again with protobuf-c: the sample types and period, samples
 * grouped by place and thread, one location per address, one function per symbol, the
 * mapping with its file and build ID, the summary as comments; a write to a bad path leaves
 * nothing behind, a good one leaves the file alone.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "ipcc/error.h"
#include "ipcc/pprof.h"
#include "ipcc/recording.h"
#include "profile.pb-c.h"
#include "test.h"

__attribute__((noinline, used)) static int spin_a(int n)
{
	volatile int x = 0;

	for (int i = 0; i < n; i++)
		x = x + i;
	return x;
}

__attribute__((noinline, used)) static int spin_b(int n)
{
	volatile int x = 1;

	for (int i = 0; i < n; i++)
		x = x * 3 + i;
	return x;
}

static char exe[4096];

/* This program's executable mapping, as ipcc record would have recorded it. */
static bool own_mapping(struct ipcc_recording_mmap *m)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4400], perms[8], path[4096];
	unsigned long long lo, hi, off;
	uintptr_t at = (uintptr_t)&spin_a;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	bool found = false;

	if (!f || n <= 0) {
		if (f)
			fclose(f);
		return false;
	}
	exe[n] = '\0';
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &lo, &hi, perms, &off,
			   path) == 5 &&
		    perms[2] == 'x' && at >= lo && at < hi && !strcmp(path, exe)) {
			*m = (struct ipcc_recording_mmap){ 42, lo, hi - lo, off, exe };
			found = true;
		}
	fclose(f);
	return found;
}

/* Five samples: two at one address of spin_a, one at another in another thread, one in spin_b,
 * one in the kernel (no mapping). */
static void fill(struct ipcc_recording *p, struct ipcc_recording_mmap *m, struct ipcc_sample *s,
		 const char *event, uint64_t freq)
{
	uint64_t a = (uintptr_t)&spin_a, b = (uintptr_t)&spin_b;

	s[0] = (struct ipcc_sample){ a + 1, 1000, 42, 42, 0, true };
	s[1] = (struct ipcc_sample){ a + 1, 2000, 42, 42, 0, true };
	s[2] = (struct ipcc_sample){ a + 2, 3000, 42, 43, 1, true };
	s[3] = (struct ipcc_sample){ b + 1, 4000, 42, 42, 0, true };
	s[4] = (struct ipcc_sample){ 0xffffffff81000010ull, 5000500, 42, 42, 0, false };
	memset(p, 0, sizeof(*p));
	p->mmaps = m;
	p->nmmaps = 1;
	p->samples = s;
	p->nsamples = 5;
	p->has_summary = 1;
	p->summary = (struct ipcc_recording_summary){ 5, 2, 1, 0, freq, "" };
	snprintf(p->summary.event, sizeof(p->summary.event), "%s", event);
}

/* Encode p, gunzip and decode it; NULL on failure. */
static Perftools__Profiles__Profile *round_trip(const struct ipcc_recording *p)
{
	struct ipcc_symbols *syms = NULL;
	struct ipcc_pprof_opts o = { 1700000000000000000 };
	Perftools__Profiles__Profile *pr = NULL;
	unsigned char *raw = NULL;
	void *gz = NULL;
	size_t len = 0;
	z_stream z = { 0 };

	if (ipcc_symbols_new(p, &syms) || ipcc_pprof_encode(p, syms, &o, &gz, &len)) {
		fprintf(stderr, "%s\n", ipcc_last_error());
		goto out;
	}
	CHECK(len > 18 && ((unsigned char *)gz)[0] == 0x1f && ((unsigned char *)gz)[1] == 0x8b);
	raw = malloc(1 << 20);
	if (!raw || inflateInit2(&z, 15 + 32) != Z_OK)
		goto out;
	z.next_in = gz;
	z.avail_in = (uInt)len;
	z.next_out = raw;
	z.avail_out = 1 << 20;
	if (inflate(&z, Z_FINISH) == Z_STREAM_END)
		pr = perftools__profiles__profile__unpack(NULL, z.total_out, raw);
	inflateEnd(&z);
out:
	free(raw);
	free(gz);
	ipcc_symbols_free(syms);
	return pr;
}

static const char *s_at(const Perftools__Profiles__Profile *pr, int64_t i)
{
	return i >= 0 && (size_t)i < pr->n_string_table ? pr->string_table[i] : "(out of range)";
}

static bool has_comment(const Perftools__Profiles__Profile *pr, const char *text)
{
	for (size_t i = 0; i < pr->n_comment; i++)
		if (strstr(s_at(pr, pr->comment[i]), text))
			return true;
	return false;
}

TEST(task_clock_round_trip)
{
	struct ipcc_recording_mmap m;
	struct ipcc_sample s[5];
	struct ipcc_recording p;
	Perftools__Profiles__Profile *pr;
	int64_t total[2] = { 0, 0 };
	size_t named = 0;

	/* every Linux process maps its own text: no line for it is a failure, not a skip */
	if (!own_mapping(&m)) {
		CHECK(!"this program's text mapping in /proc/self/maps");
		return TEST_OK;
	}
	fill(&p, &m, s, "task-clock", 1000);
	pr = round_trip(&p);
	CHECK(pr != NULL);
	if (!pr)
		return TEST_OK;
	CHECK(pr->n_string_table > 0 && !strcmp(pr->string_table[0], ""));
	CHECK_EQ(u64, pr->n_sample_type, 2);
	CHECK(!strcmp(s_at(pr, pr->sample_type[0]->type), "samples"));
	CHECK(!strcmp(s_at(pr, pr->sample_type[0]->unit), "count"));
	CHECK(!strcmp(s_at(pr, pr->sample_type[1]->type), "cpu"));
	CHECK(!strcmp(s_at(pr, pr->sample_type[1]->unit), "nanoseconds"));
	CHECK(pr->period_type && !strcmp(s_at(pr, pr->period_type->unit), "nanoseconds"));
	CHECK_EQ(i64, pr->period, 1000000);
	CHECK_EQ(i64, pr->duration_nanos, 5000500 - 1000);
	CHECK_EQ(i64, pr->time_nanos, 1700000000000000000);
	/* (spin_a+1, 42), (spin_a+2, 43), (spin_b+1, 42), (kernel, 42) */
	CHECK_EQ(u64, pr->n_sample, 4);
	CHECK_EQ(u64, pr->n_location, 4);
	CHECK_EQ(u64, pr->n_function, 2);
	CHECK_EQ(u64, pr->n_mapping, 1);
	for (size_t i = 0; i < pr->n_sample; i++) {
		CHECK_EQ(u64, pr->sample[i]->n_value, 2);
		CHECK_EQ(u64, pr->sample[i]->n_location_id, 1);
		CHECK_EQ(u64, pr->sample[i]->n_label, 2);
		total[0] += pr->sample[i]->value[0];
		total[1] += pr->sample[i]->value[1];
		CHECK_EQ(i64, pr->sample[i]->value[1], pr->sample[i]->value[0] * 1000000);
	}
	CHECK_EQ(i64, total[0], 5);
	CHECK_EQ(i64, total[1], 5000000);
	for (size_t i = 0; i < pr->n_function; i++) {
		const char *name = s_at(pr, pr->function[i]->name);

		named += !strcmp(name, "spin_a") || !strcmp(name, "spin_b");
		CHECK(!strcmp(name, s_at(pr, pr->function[i]->system_name)));
	}
	CHECK_EQ(u64, named, 2);
	if (pr->n_mapping == 1) {
		const Perftools__Profiles__Mapping *g = pr->mapping[0];

		CHECK_EQ(u64, g->memory_start, m.addr);
		CHECK_EQ(u64, g->memory_limit, m.addr + m.len);
		CHECK_EQ(u64, g->file_offset, m.pgoff);
		CHECK(!strcmp(s_at(pr, g->filename), exe));
		CHECK(g->has_functions);
	}
	for (size_t i = 0; i < pr->n_location; i++) {
		const Perftools__Profiles__Location *l = pr->location[i];

		/* The kernel address: no mapping, no function; the others have both. */
		CHECK_EQ(u64, l->n_line, l->mapping_id ? 1 : 0);
		CHECK(l->mapping_id || l->address == 0xffffffff81000010ull);
	}
	CHECK(has_comment(pr, "task-clock, freq 1000 Hz"));
	CHECK(has_comment(pr, "5 samples, 2 lost, throttled 1 times"));
	perftools__profiles__profile__free_unpacked(pr, NULL);
	return TEST_OK;
}

TEST(adaptive_period_has_samples_only)
{
	struct ipcc_recording_mmap m;
	struct ipcc_sample s[5];
	struct ipcc_recording p;
	Perftools__Profiles__Profile *pr;

	/* every Linux process maps its own text: no line for it is a failure, not a skip */
	if (!own_mapping(&m)) {
		CHECK(!"this program's text mapping in /proc/self/maps");
		return TEST_OK;
	}
	fill(&p, &m, s, "cycles", 4000);
	pr = round_trip(&p);
	CHECK(pr != NULL);
	if (!pr)
		return TEST_OK;
	CHECK_EQ(u64, pr->n_sample_type, 1);
	CHECK(pr->period_type == NULL);
	CHECK_EQ(i64, pr->period, 0);
	for (size_t i = 0; i < pr->n_sample; i++)
		CHECK_EQ(u64, pr->sample[i]->n_value, 1);
	CHECK(has_comment(pr, "cycles, freq 4000 Hz"));
	perftools__profiles__profile__free_unpacked(pr, NULL);
	/* With a period, the events: cycles/count. */
	p.summary.freq = 0;
	p.summary.period = 100003;
	pr = round_trip(&p);
	CHECK(pr != NULL);
	if (!pr)
		return TEST_OK;
	CHECK_EQ(u64, pr->n_sample_type, 2);
	if (pr->n_sample_type == 2) {
		CHECK(!strcmp(s_at(pr, pr->sample_type[1]->type), "cycles"));
		CHECK(!strcmp(s_at(pr, pr->sample_type[1]->unit), "count"));
	}
	CHECK_EQ(i64, pr->period, 100003);
	perftools__profiles__profile__free_unpacked(pr, NULL);
	return TEST_OK;
}

static size_t entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

TEST(write_whole_or_nothing)
{
	char dir[] = "/tmp/ipcc-test-pprof-XXXXXX", path[64], bad[80];
	struct ipcc_recording_mmap m;
	struct ipcc_sample s[5];
	struct ipcc_recording p;
	struct ipcc_symbols *syms = NULL;
	struct stat st;

	/* every Linux process maps its own text: no line for it is a failure, not a skip */
	if (!own_mapping(&m)) {
		CHECK(!"this program's text mapping in /proc/self/maps");
		return TEST_OK;
	}
	fill(&p, &m, s, "task-clock", 1000);
	CHECK(mkdtemp(dir) != NULL);
	CHECK(ipcc_symbols_new(&p, &syms) == 0);
	snprintf(path, sizeof(path), "%s/p.pb.gz", dir);
	snprintf(bad, sizeof(bad), "%s/no/such/folder/p.pb.gz", dir);
	CHECK(ipcc_pprof_write(&p, syms, NULL, path) == 0);
	CHECK(stat(path, &st) == 0 && st.st_size > 18);
	CHECK_EQ(u64, entries(dir), 1);
	CHECK(ipcc_pprof_write(&p, syms, NULL, bad) == IPCC_ESYS);
	CHECK(strstr(ipcc_last_error(), "no/such/folder") != NULL);
	CHECK_EQ(u64, entries(dir), 1);
	ipcc_symbols_free(syms);
	unlink(path);
	rmdir(dir);
	return TEST_OK;
}
