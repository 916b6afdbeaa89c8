/*
 * bench/kernel_costs.c - what the kernel's part of a run costs on this machine, for a model
 * profile's fault_cycles, syscall_cycles and syscall_bytes_per_cycle (the model backend
 * charges a run's page faults, system calls and the bytes they move with them).
 *
 * usage: kernel_costs [--rounds N]
 *
 * Each figure is the fewest nanoseconds of N rounds (default 5), and in cycles at the core
 * frequency ipcc measures: a first touch of an anonymous page (a fault, the page zeroed) and
 * the page's freeing when it is unmapped (as every page is, at the latest at exit), a
 * read of a file's page through a private mapping (a fault maps the pages around it that
 * the page cache holds: the faults are counted), a system call that does nothing (getppid),
 * one that looks up a path (newfstatat), a mapping made and undone (mmap and munmap, two
 * calls), and read() from the page cache in 64 KiB calls (bytes a cycle).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ipcc/clock.h"

#define MAPPED (64u << 20)

static long minor_faults(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return r.ru_minflt;
}

/* The anonymous pages' first touches: ns a fault; *freed, ns a page to unmap them. */
static double anon_fault(double *freed)
{
	char *p = mmap(NULL, MAPPED, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	long f0 = minor_faults();
	uint64_t t0 = ipcc_now_ns();

	for (size_t o = 0; o < MAPPED; o += 4096)
		p[o] = 1;
	uint64_t t1 = ipcc_now_ns();
	long n = minor_faults() - f0;

	munmap(p, MAPPED);
	*freed = (double)(ipcc_now_ns() - t1) / (double)(MAPPED / 4096);
	return n > 0 ? (double)(t1 - t0) / (double)n : -1;
}

/* A file's pages read through a private mapping: ns a fault, and pages a fault. */
static double file_fault(int fd, double *pages_a_fault)
{
	volatile char *p = mmap(NULL, MAPPED, PROT_READ, MAP_PRIVATE, fd, 0);
	char sum = 0;

	if (p == MAP_FAILED)
		return -1;
	long f0 = minor_faults();
	uint64_t t0 = ipcc_now_ns();

	for (size_t o = 0; o < MAPPED; o += 4096)
		sum += p[o];
	uint64_t t1 = ipcc_now_ns();
	long n = minor_faults() - f0;

	munmap((void *)p, MAPPED);
	__asm__ volatile("" : : "r"(sum));
	*pages_a_fault = n > 0 ? (double)(MAPPED / 4096) / (double)n : 0;
	return n > 0 ? (double)(t1 - t0) / (double)n : -1;
}

static double calls(int which, const char *path)
{
	const int n = 20000;
	struct stat st;
	uint64_t t0 = ipcc_now_ns();

	for (int i = 0; i < n; i++) {
		if (which == 0) {
			syscall(SYS_getppid);
		} else if (which == 1) {
			fstatat(AT_FDCWD, path, &st, 0);
		} else {
			void *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p != MAP_FAILED)
				munmap(p, 1 << 20);
		}
	}
	return (double)(ipcc_now_ns() - t0) / n / (which == 2 ? 2 : 1);
}

/* read() from the page cache, 64 KiB a call: ns a byte. */
static double read_bytes(int fd)
{
	static char buf[1 << 16];
	size_t total = 0;
	ssize_t got;
	uint64_t t0 = ipcc_now_ns();

	lseek(fd, 0, SEEK_SET);
	while ((got = read(fd, buf, sizeof(buf))) > 0)
		total += (size_t)got;
	return total ? (double)(ipcc_now_ns() - t0) / (double)total : -1;
}

static void keep_least(double *best, double v)
{
	if (v > 0 && (*best <= 0 || v < *best))
		*best = v;
}

int main(int argc, char **argv)
{
	int rounds = 5;

	if (argc == 3 && !strcmp(argv[1], "--rounds") && atoi(argv[2]) > 0)
		rounds = atoi(argv[2]);
	else if (argc != 1) {
		fprintf(stderr, "usage: kernel_costs [--rounds N]\n");
		return 2;
	}
	char path[] = "/tmp/ipcc-kernel-costs.XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0) {
		perror("kernel_costs: mkstemp");
		return 1;
	}
	unlink(path);
	/* The file in the page cache: written, so that every page is there. */
	static char block[1 << 16];

	memset(block, 'x', sizeof(block));
	for (size_t o = 0; o < MAPPED; o += sizeof(block))
		if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block)) {
			perror("kernel_costs: write");
			return 1;
		}
	double anon = 0, freed = 0, file = 0, pages = 0, nop = 0, stat = 0, map = 0, byte = 0;

	for (int r = 0; r < rounds; r++) {
		double pg = 0, f = file_fault(fd, &pg), fr = 0;

		keep_least(&anon, anon_fault(&fr));
		keep_least(&freed, fr);
		if (f > 0 && (file <= 0 || f < file))
			file = f, pages = pg;
		keep_least(&nop, calls(0, NULL));
		keep_least(&stat, calls(1, "/usr/bin/env"));
		keep_least(&map, calls(2, NULL));
		keep_least(&byte, read_bytes(fd));
	}
	close(fd);
	double ghz = (double)ipcc_corefreq_khz(NULL) / 1e6;

	printf("kernel costs, the fewest of %d round%s, cycles at %.3f GHz (ipcc's core "
	       "frequency):\n",
	       rounds, rounds == 1 ? "" : "s", ghz);
	printf("  %-44s %8.0f ns %8.0f cycles\n", "anonymous page, first touch (a fault)", anon,
	       anon * ghz);
	printf("  %-44s %8.0f ns %8.0f cycles\n", "and its freeing (munmap), a page", freed,
	       freed * ghz);
	printf("  %-44s %8.0f ns %8.0f cycles  (%.0f pages a fault)\n",
	       "file page read through a mapping, a fault", file, file * ghz, pages);
	printf("  %-44s %8.0f ns %8.0f cycles\n", "system call: getppid", nop, nop * ghz);
	printf("  %-44s %8.0f ns %8.0f cycles\n", "system call: newfstatat", stat, stat * ghz);
	printf("  %-44s %8.0f ns %8.0f cycles\n", "system call: mmap or munmap", map, map * ghz);
	printf("  %-44s %8.3f ns %8.2f bytes a cycle\n", "read() from the page cache, a byte", byte,
	       byte > 0 ? 1 / (byte * ghz) : 0);
	return 0;
}
