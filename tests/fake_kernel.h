/*
 * fake_kernel.h - a fake perf kernel for the tests, behind the seam of src/kernel_int.h.
 *
 * It follows the documented perf_event_open ABI (include/uapi/linux/perf_event.h and the
 * perf_event_open(2) page) closely enough to exercise the hardware path on machines without
 * a PMU:
 * - perf_event_open checks attr.size, the group leader, exclude_kernel against
 *   perf_event_paranoid, and returns ENOENT for hardware events when there is no PMU, or the
 *   errno a test planted for a config;
 * - each event has a true count; its mmap page has cap_user_rdpmc, an index, a 48-bit
 *   pmc_width and an offset, so that count = offset + sign_extend_48(rdpmc(index - 1));
 *   every change to the page bumps `lock` by 2, as the kernel's update does;
 * - read() returns {value, time_enabled, time_running}; 0 bytes for a pinned group the
 *   "kernel" could not schedule;
 * - fake_rdpmc can update the page under a reader (the lock changes mid-read);
 * - a sampling event's ring (mmap_ring) is written as the kernel writes it: records at
 *   data_head, wrapping around the end of the data area, never over data_tail; a record
 *   that does not fit is lost and a PERF_RECORD_LOST with the count goes in first when
 *   there is room again. A per-task (cpu -1) inherited event cannot be mapped.
 */
#ifndef IPCC_FAKE_KERNEL_H
#define IPCC_FAKE_KERNEL_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#include "perf_sys_int.h"

#define FAKE_MAX_FDS  64
#define FAKE_FD_BASE  1000
#define FAKE_PMC_MASK ((1ull << 48) - 1)

struct fake_event {
	bool open;
	struct perf_event_attr attr;
	int leader; /* fd of the group leader (itself if leader) */
	bool enabled;
	uint64_t count; /* the true count */
	uint64_t enabled_ns, running_ns;
	struct perf_event_mmap_page *page; /* allocated on open; mapped by mmap */
	bool mapped;
	bool unschedulable;  /* read() returns 0 bytes */
	int cpu;	     /* as opened: -1 is per task */
	unsigned char *ring; /* the sample ring, when mapped: page 0, then the data */
	size_t ring_len;
	uint64_t ring_lost; /* records lost since the last PERF_RECORD_LOST */
};

struct fake_kernel {
	bool has_pmu; /* without one, hardware and raw events fail with ENOENT */
	int paranoid; /* kernel-mode counting needs paranoid <= 1 */
	struct {
		uint32_t type;
		uint64_t config;
		int err;
	} fail[8]; /* perf_event_open of this event fails with err */
	int nfail;
	uint64_t max_sample_rate; /* a higher sample_freq fails with EINVAL; 0: no limit */
	int lock_bumps;		  /* the next N rdpmc calls find the page updated under them */
	unsigned rdpmc_calls, read_calls;
	int open_fds, mapped_pages;
	struct fake_event ev[FAKE_MAX_FDS];
	/*
	 * Called as an event is read (read() or rdpmc), before its count is taken: a test that
	 * adds there what its code counts makes the fake a PMU that counts that code.
	 */
	void (*on_read)(struct fake_event *e);
};

extern struct fake_kernel fake;
extern const struct perf_sys_ops fake_ops;

/* Forget everything: a PMU, perf_event_paranoid 2, no fds. Frees the pages. */
void fake_reset(void);

/*
 * Count with the fake kernel as CPU family `pmu` (libpfm4's name: skl, icl, amd64_fam19h_zen4,
 * ...; LIBPFM_FORCE_PMU) whose sysfs is `sysfs_root` (tests/data/sysfs-cpu-pmu): resets the
 * fake and returns the kernel that was in use, for fake_unuse().
 */
const struct perf_sys_ops *fake_use(const char *pmu, const char *sysfs_root);
void fake_unuse(const struct perf_sys_ops *old);

/* The fd of the first open event with this type and config, or -1. */
int fake_fd(uint32_t type, uint64_t config);

/* Count `delta` more events on every enabled event with this type and config. */
void fake_add(uint32_t type, uint64_t config, uint64_t delta);

/* Put event fd's hardware counter at `hw` (48 bits), keeping its count: offset moves. */
void fake_set_hw(int fd, uint64_t hw);

/* Advance event fd's enabled and running time. */
void fake_time(int fd, uint64_t enabled_ns, uint64_t running_ns);

/* Take the event off the PMU (page index 0) or put it back. */
void fake_schedule(int fd, bool on_pmu);

/* Write one record (its header's size says how long) into event fd's sample ring. */
void fake_ring_put(int fd, const struct perf_event_header *rec);

/* Write a PERF_RECORD_SAMPLE of sample_type IP | TID | TIME | CPU, from user mode. */
void fake_ring_sample(int fd, uint64_t ip, uint32_t pid, uint32_t tid, uint64_t time, uint32_t cpu);

/* Event fd's sample ring page (NULL if not mapped). */
struct perf_event_mmap_page *fake_ring_page(int fd);

#endif
