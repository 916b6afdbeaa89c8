/*
 * perf_sys.c - the real kernel behind the perf seam in perf_sys_int.h.
 */
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch_int.h"
#include "perf_sys_int.h"

static int linux_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
				 unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static int linux_ioctl(int fd, unsigned long request, unsigned long arg)
{
	return ioctl(fd, request, arg);
}

static void *linux_mmap(size_t length, int fd)
{
	return mmap(NULL, length, PROT_READ, MAP_SHARED, fd, 0);
}

static void *linux_mmap_ring(size_t length, int fd)
{
	return mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
}

static uint64_t linux_rdpmc(uint32_t counter)
{
	return arch_rdpmc(counter);
}

const struct perf_sys_ops perf_sys_linux = {
	.perf_event_open = linux_perf_event_open,
	.ioctl = linux_ioctl,
	.read = read,
	.mmap = linux_mmap,
	.mmap_ring = linux_mmap_ring,
	.munmap = munmap,
	.close = close,
	.rdpmc = linux_rdpmc,
};

const struct perf_sys_ops *perf_sys = &perf_sys_linux;

const struct perf_sys_ops *perf_sys_set(const struct perf_sys_ops *ops)
{
	const struct perf_sys_ops *old = perf_sys;

	perf_sys = ops ? ops : &perf_sys_linux;
	return old;
}
