/*
 * test_sample.c - the sampler: the ring protocol against the fake kernel (records, wrap
 * around the end, lost records, throttling, mappings, corrupt sizes, one ring per CPU,
 * errors), and on this machine task-clock sampling of a hot loop for real.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fake_kernel.h"
#include "ipcc/error.h"
#include "ipcc/sample.h"
#include "kernels/kernels_int.h"
#include "test.h"

#define MAX_SEEN 2048

/* What the handler saw. */
struct seen {
	unsigned n, nmmap;
	struct ipcc_sample s[MAX_SEEN];
	char filename[64];
	uint64_t mmap_addr, mmap_len;
};

static void on_sample(void *arg, const struct ipcc_sample *s)
{
	struct seen *w = arg;

	if (w->n < MAX_SEEN)
		w->s[w->n] = *s;
	w->n++;
}

static void on_mmap(void *arg, const struct ipcc_sample_mmap *m)
{
	struct seen *w = arg;

	w->nmmap++;
	snprintf(w->filename, sizeof(w->filename), "%s", m->filename);
	w->mmap_addr = m->addr;
	w->mmap_len = m->len;
}

static struct ipcc_sampler *fake_sampler(const struct ipcc_sampler_opts *o)
{
	struct ipcc_sampler *s = NULL;

	fake_reset();
	perf_sys_set(&fake_ops);
	if (ipcc_sampler_new(o, &s))
		fprintf(stderr, "ipcc_sampler_new: %s\n", ipcc_last_error());
	return s;
}

static void done(struct ipcc_sampler *s)
{
	ipcc_sampler_free(s);
	CHECK_EQ(int, fake.open_fds, 0);
	CHECK_EQ(int, fake.mapped_pages, 0);
	perf_sys_set(NULL);
}

TEST(samples_reach_the_handler_and_the_space_goes_back)
{
	struct ipcc_sampler_opts o = { .freq = 1000 };
	struct ipcc_sampler *s = fake_sampler(&o);
	struct ipcc_sample_handler h = { on_sample, on_mmap, NULL };
	struct seen w = { 0 };
	int fd;

	CHECK(s != NULL);
	if (!s)
		return TEST_OK;
	h.arg = &w;
	fd = ipcc_sampler_fd(s, 0);
	CHECK_EQ(int, (int)ipcc_sampler_nfds(s), 1);
	/* The event as the kernel was asked for it: task-clock, disabled, user only. */
	CHECK_EQ(u64, fake.ev[fd - FAKE_FD_BASE].attr.config, PERF_COUNT_SW_TASK_CLOCK);
	CHECK(fake.ev[fd - FAKE_FD_BASE].attr.disabled);
	CHECK(fake.ev[fd - FAKE_FD_BASE].attr.freq);
	CHECK_EQ(u64, fake.ev[fd - FAKE_FD_BASE].attr.sample_freq, 1000);
	CHECK_EQ(int, fake.ev[fd - FAKE_FD_BASE].cpu, -1);
	CHECK_EQ(int, ipcc_sampler_enable(s), 0);
	CHECK(fake.ev[fd - FAKE_FD_BASE].enabled);

	fake_ring_sample(fd, 0x401000, 10, 11, 5000, 1);
	fake_ring_sample(fd, 0x401004, 10, 12, 6000, 0);
	fake_ring_sample(fd, 0x401008, 10, 11, 7000, 1);
	CHECK_EQ(int, ipcc_sampler_drain(s, &h), 3);
	CHECK_EQ(int, (int)w.n, 3);
	CHECK_EQ(u64, w.s[1].ip, 0x401004);
	CHECK_EQ(u64, w.s[1].time_ns, 6000);
	CHECK_EQ(int, (int)w.s[1].tid, 12);
	CHECK_EQ(int, (int)w.s[2].cpu, 1);
	CHECK(w.s[0].user);
	CHECK_EQ(u64, fake_ring_page(fd)->data_tail, fake_ring_page(fd)->data_head);
	/* Drained: nothing more. */
	CHECK_EQ(int, ipcc_sampler_drain(s, &h), 0);
	CHECK_EQ(u64, ipcc_sampler_stats(s)->samples, 3);
	CHECK_EQ(u64, ipcc_sampler_stats(s)->lost, 0);
	done(s);
	return TEST_OK;
}

TEST(record_across_the_ring_end_arrives_whole)
{
	struct ipcc_sampler_opts o = { .period = 100000, .ring_pages = 1 };
	struct ipcc_sampler *s = fake_sampler(&o);
	struct seen w = { 0 };
	struct ipcc_sample_handler h = { on_sample, NULL, &w };
	unsigned wrapped = 0;
	int fd;

	CHECK(s != NULL);
	if (!s)
		return TEST_OK;
	fd = ipcc_sampler_fd(s, 0);
	/* 40-byte records in a 4096-byte ring: every so often one straddles the end. */
	for (unsigned i = 0; i < 400; i++) {
		uint64_t head = fake_ring_page(fd)->data_head;

		if ((head & 4095) + 40 > 4096)
			wrapped++;
		fake_ring_sample(fd, 0x500000 + i, 1, 1, i, 0);
		if (i % 7 == 6)
			ipcc_sampler_drain(s, &h);
	}
	ipcc_sampler_drain(s, &h);
	CHECK(wrapped >= 2);
	CHECK_EQ(int, (int)w.n, 400);
	for (unsigned i = 0; i < 400 && i < MAX_SEEN; i++)
		CHECK_EQ(u64, w.s[i].ip, 0x500000 + i);
	CHECK_EQ(u64, ipcc_sampler_stats(s)->corrupt, 0);
	done(s);
	return TEST_OK;
}

TEST(a_full_ring_reports_the_samples_it_lost)
{
	struct ipcc_sampler_opts o = { .period = 100000, .ring_pages = 1 };
	struct ipcc_sampler *s = fake_sampler(&o);
	struct seen w = { 0 };
	struct ipcc_sample_handler h = { on_sample, NULL, &w };
	int fd;

	CHECK(s != NULL);
	if (!s)
		return TEST_OK;
	fd = ipcc_sampler_fd(s, 0);
	/* 4096 / 40 = 102 fit; the other 98 are lost while nobody drains. */
	for (unsigned i = 0; i < 200; i++)
		fake_ring_sample(fd, i, 1, 1, i, 0);
	CHECK_EQ(int, ipcc_sampler_drain(s, &h), 102);
	CHECK_EQ(u64, ipcc_sampler_stats(s)->lost, 0);
	/* With room again, the kernel says how many it lost before the next sample. */
	fake_ring_sample(fd, 999, 1, 1, 999, 0);
	CHECK_EQ(int, ipcc_sampler_drain(s, &h), 1);
	CHECK_EQ(u64, ipcc_sampler_stats(s)->lost, 98);
	CHECK_EQ(u64, ipcc_sampler_stats(s)->samples, 103);
	CHECK_EQ(u64, w.s[102].ip, 999);
	done(s);
	return TEST_OK;
}

TEST(throttling_and_mappings_are_reported)
{
	struct ipcc_sampler_opts o = { .freq = 4000, .mmaps = true };
	struct ipcc_sampler *s = fake_sampler(&o);
	struct seen w = { 0 };
	struct ipcc_sample_handler h = { on_sample, on_mmap, &w };
	struct {
		struct perf_event_header h;
		uint64_t time, id, stream_id;
	} thr = { { PERF_RECORD_THROTTLE, 0, sizeof(thr) }, 1, 2, 3 },
	  unthr = { { PERF_RECORD_UNTHROTTLE, 0, sizeof(thr) }, 4, 2, 3 };
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		uint32_t maj, min;
		uint64_t ino, ino_generation;
		uint32_t prot, flags;
		char filename[24];
	} map = { { PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, sizeof(map) },
		  7,
		  7,
		  0x400000,
		  0x2000,
		  0,
		  8,
		  1,
		  1234,
		  0,
		  5,
		  2,
		  "/usr/bin/true" };
	struct perf_event_header comm = { PERF_RECORD_COMM, 0, 16 };
	unsigned char comm_rec[16] = { 0 };
	int fd;

	CHECK(s != NULL);
	if (!s)
		return TEST_OK;
	fd = ipcc_sampler_fd(s, 0);
	CHECK(fake.ev[fd - FAKE_FD_BASE].attr.mmap2);
	memcpy(comm_rec, &comm, sizeof(comm));
	fake_ring_put(fd, &map.h);
	fake_ring_put(fd, (const struct perf_event_header *)comm_rec); /* not needed: skipped */
	fake_ring_put(fd, &thr.h);
	fake_ring_sample(fd, 0x400123, 7, 7, 10, 0);
	fake_ring_put(fd, &unthr.h);
	CHECK_EQ(int, ipcc_sampler_drain(s, &h), 1);
	CHECK_EQ(int, (int)w.nmmap, 1);
	CHECK_STR(w.filename, "/usr/bin/true");
	CHECK_EQ(u64, w.mmap_addr, 0x400000);
	CHECK_EQ(u64, w.mmap_len, 0x2000);
	CHECK_EQ(u64, ipcc_sampler_stats(s)->throttles, 1);
	CHECK_EQ(u64, ipcc_sampler_stats(s)->unthrottles, 1);
	CHECK_EQ(u64, ipcc_sampler_stats(s)->corrupt, 0);
	done(s);
	return TEST_OK;
}

TEST(corrupt_record_sizes_are_errors_not_hangs)
{
	struct ipcc_sampler_opts o = { .period = 100000, .ring_pages = 1 };
	struct ipcc_sampler *s = fake_sampler(&o);
	struct seen w = { 0 };
	struct ipcc_sample_handler h = { on_sample, NULL, &w };
	struct perf_event_header short_sample = { PERF_RECORD_SAMPLE, 0, 16 };
	unsigned char rec[16] = { 0 };
	struct perf_event_mmap_page *pg;
	struct perf_event_header *hdr;
	int fd;

	CHECK(s != NULL);
	if (!s)
		return TEST_OK;
	fd = ipcc_sampler_fd(s, 0);
	pg = fake_ring_page(fd);
	/* A sample too short for its fields: skipped and counted, the next one still read. */
	memcpy(rec, &short_sample, sizeof(short_sample));
	fake_ring_put(fd, (const struct perf_event_header *)rec);
	fake_ring_sample(fd, 0x42, 1, 1, 1, 0);
	CHECK_EQ(int, ipcc_sampler_drain(s, &h), 1);
	CHECK_EQ(u64, ipcc_sampler_stats(s)->corrupt, 1);
	CHECK_EQ(u64, w.s[0].ip, 0x42);

	/* A size of 0 (or beyond data_head) cannot be followed: an error, the ring freed. */
	fake_ring_sample(fd, 0x43, 1, 1, 2, 0);
	hdr = (struct perf_event_header *)((unsigned char *)pg + pg->data_offset +
					   (pg->data_tail & (pg->data_size - 1)));
	hdr->size = 0;
	CHECK_EQ(int, ipcc_sampler_drain(s, &h), IPCC_EINVAL);
	CHECK(strstr(ipcc_last_error(), "corrupt") != NULL);
	CHECK_EQ(u64, pg->data_tail, pg->data_head);
	fake_ring_sample(fd, 0x44, 1, 1, 3, 0);
	hdr = (struct perf_event_header *)((unsigned char *)pg + pg->data_offset +
					   (pg->data_tail & (pg->data_size - 1)));
	hdr->size = 4096;
	CHECK_EQ(int, ipcc_sampler_drain(s, &h), IPCC_EINVAL);
	/* Off the kernel's 8-byte grid (found by fuzz_sample_ring): the next would be misaligned. */
	fake_ring_sample(fd, 0x45, 1, 1, 4, 0);
	fake_ring_sample(fd, 0x46, 1, 1, 5, 0);
	hdr = (struct perf_event_header *)((unsigned char *)pg + pg->data_offset +
					   (pg->data_tail & (pg->data_size - 1)));
	hdr->size = 36;
	CHECK_EQ(int, ipcc_sampler_drain(s, &h), IPCC_EINVAL);
	CHECK_EQ(u64, ipcc_sampler_stats(s)->corrupt, 4);
	CHECK_EQ(u64, pg->data_tail, pg->data_head);
	CHECK_EQ(int, (int)w.n, 1);
	done(s);
	return TEST_OK;
}

TEST(inherited_sampling_maps_one_ring_per_cpu)
{
	struct ipcc_sampler_opts o = { .pid = 4242, .inherit = true, .enable_on_exec = true };
	struct ipcc_sampler *s = fake_sampler(&o);
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	CHECK(s != NULL);
	if (!s)
		return TEST_OK;
	CHECK_EQ(int, (int)ipcc_sampler_nfds(s), (int)ncpu);
	for (unsigned i = 0; i < ipcc_sampler_nfds(s); i++) {
		const struct fake_event *e = &fake.ev[ipcc_sampler_fd(s, i) - FAKE_FD_BASE];

		CHECK_EQ(int, e->cpu, (int)i);
		CHECK(e->attr.inherit && e->attr.enable_on_exec);
		CHECK(e->ring != NULL);
	}
	CHECK_EQ(int, ipcc_sampler_fd(s, (unsigned)ncpu), -1);
	done(s);
	return TEST_OK;
}

TEST(a_rate_above_the_kernel_limit_is_named)
{
	struct ipcc_sampler_opts o = { .freq = 5000 };
	struct ipcc_sampler *s = NULL;

	fake_reset();
	fake.max_sample_rate = 1000;
	perf_sys_set(&fake_ops);
	setenv("IPCC_PROCFS_ROOT", test_data("procfs-max-rate-1000"), 1);
	CHECK_EQ(u64, ipcc_sample_max_rate(), 1000);
	CHECK_EQ(int, ipcc_sampler_new(&o, &s), IPCC_EINVAL);
	CHECK(s == NULL);
	CHECK(strstr(ipcc_last_error(), "perf_event_max_sample_rate = 1000") != NULL);
	unsetenv("IPCC_PROCFS_ROOT");
	done(NULL);
	return TEST_OK;
}

TEST(bad_options_and_missing_pmu_fail_clearly)
{
	struct ipcc_sampler_opts pages = { .ring_pages = 3 };
	struct ipcc_sampler_opts cycles = { .event = "cycles" };
	struct ipcc_sampler_opts bogus = { .event = "no_such_event_xyz" };
	struct ipcc_sampler *s = NULL;

	fake_reset();
	fake.has_pmu = false;
	perf_sys_set(&fake_ops);
	CHECK_EQ(int, ipcc_sampler_new(&pages, &s), IPCC_EINVAL);
	CHECK(strstr(ipcc_last_error(), "power of two") != NULL);
	CHECK_EQ(int, ipcc_sampler_new(&cycles, &s), IPCC_ENOTSUP);
	CHECK(strstr(ipcc_last_error(), "cycles") != NULL);
	CHECK(ipcc_sampler_new(&bogus, &s) < 0);
	CHECK(strstr(ipcc_last_error(), "no_such_event_xyz") != NULL);
	CHECK(s == NULL);
	done(NULL);
	return TEST_OK;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* This thread's CPU time, seconds. */
static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The real kernel: task-clock works without a PMU, so this runs here. */
TEST(task_clock_samples_land_in_the_hot_loop)
{
	struct ipcc_sampler_opts o = { .period = 250000 }; /* every 250 us on the CPU */
	struct ipcc_sampler *s = NULL;
	struct seen w = { 0 };
	struct ipcc_sample_handler h = { on_sample, NULL, &w };
	uint64_t word, lo = (uint64_t)(uintptr_t)k_skid_adds;
	uint64_t hi = (uint64_t)(uintptr_t)k_skid_adds_end;
	unsigned in = 0, mine = 0, counted = 0;
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	int ret;
	double t0, cpu0, cpu;

	perf_sys_set(NULL);
	ret = ipcc_sampler_new(&o, &s);
	/* task-clock is a software event every Linux has: only a refusal is a real absence */
	if (ret == IPCC_EACCES)
		SKIP("%s", ipcc_last_error());
	CHECK_EQ(int, ret, 0);
	if (ret)
		return TEST_OK;
	CHECK(ipcc_sample_max_rate() > 0);
	word = (uint64_t)(uintptr_t)&word;
	CHECK_EQ(int, ipcc_sampler_enable(s), 0);
	/* About 0.3 s on the CPU: some 1200 samples, drained as they come (the ring holds
	 * 6500). */
	t0 = now_s();
	cpu0 = thread_cpu_s();
	while (now_s() - t0 < 0.3) {
		k_skid_adds(200000, &word);
		ipcc_sampler_drain(s, &h);
	}
	cpu = thread_cpu_s() - cpu0;
	CHECK_EQ(int, ipcc_sampler_disable(s), 0);
	CHECK(ipcc_sampler_drain(s, &h) >= 0);
	for (unsigned i = 0; i < w.n && i < MAX_SEEN; i++) {
		counted++;
		mine += w.s[i].tid == tid;
		in += w.s[i].ip >= lo && w.s[i].ip < hi;
	}
	printf("%u samples (%u examined), %u in k_skid_adds, %u from this thread, lost %" PRIu64
	       "\n",
	       w.n, counted, in, mine, ipcc_sampler_stats(s)->lost);
	/*
	 * One sample per 250 us of this thread's CPU time (preemption takes CPU time away and
	 * samples with it, never moves them out of the loop): within a factor of 2 of that, and
	 * none lost (the ring is drained as it fills).
	 */
	printf("%.3f s on the CPU: %.0f samples expected\n", cpu, cpu / 250e-6);
	CHECK_CMP(dbl, (double)w.n, >=, 0.5 * cpu / 250e-6);
	CHECK_CMP(dbl, (double)w.n, <=, 2.0 * cpu / 250e-6);
	CHECK_EQ(u64, ipcc_sampler_stats(s)->lost, 0);
	CHECK_EQ(int, (int)mine, (int)counted);
	CHECK_CMP(dbl, (double)in, >=, 0.95 * counted);
	ipcc_sampler_free(s);
	return TEST_OK;
}
