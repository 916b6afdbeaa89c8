/*
 * perf_sys_int.h - the one seam between ipcc and the kernel's perf interface (private to src/).
 *
 * Every perf_event_open, ioctl, read, mmap (of a page or a sample ring), munmap and close of
 * a perf event goes through `perf_sys`, so the tests can put a fake kernel that follows the
 * documented ABI in place of the real one. Each operation behaves like the libc call it
 * stands for: -1 (or MAP_FAILED) with errno set on failure. `rdpmc` is the user-space
 * counter read that the mmap page's `index` refers to; the real one is the instruction
 * (arch_int.h), which the counter read path inlines when the real kernel is in use.
 */
#ifndef IPCC_PERF_SYS_INT_H
#define IPCC_PERF_SYS_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct perf_event_attr;

struct perf_sys_ops {
	int (*perf_event_open)(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			       unsigned long flags);
	int (*ioctl)(int fd, unsigned long request, unsigned long arg);
	ssize_t (*read)(int fd, void *buf, size_t count);
	/* mmap(NULL, length, PROT_READ, MAP_SHARED, fd, 0): how perf pages are mapped */
	void *(*mmap)(size_t length, int fd);
	/* mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0): a sample ring */
	void *(*mmap_ring)(size_t length, int fd);
	int (*munmap)(void *addr, size_t length);
	int (*close)(int fd);
	/* the counter the mmap page's index names (index - 1), as the rdpmc instruction reads it */
	uint64_t (*rdpmc)(uint32_t counter);
};

/* The kernel in use: the real one unless a test has swapped in a fake. */
extern const struct perf_sys_ops *perf_sys;

/* The real kernel. */
extern const struct perf_sys_ops perf_sys_linux;

/* Use `ops` from now on (NULL: the real kernel); returns the one in use before. */
const struct perf_sys_ops *perf_sys_set(const struct perf_sys_ops *ops);

#endif
