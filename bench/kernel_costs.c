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
 * the page cache holds: the faults are counted), a page that read() faults in and the
 * program's first touch of it after (kernel_page_touch_cycles: a PVM guest's second fault,
 * which the guest does not count), a system call that does nothing (getppid),
 * one that looks up a path (newfstatat), a mapping made and undone (mmap and munmap, two
 * calls), read() from the page cache in 64 KiB calls (bytes a cycle), and a process's whole
 * life as ipcc stat starts one: posix_spawn of a program that only exits (a static ELF of one
 * page that kernel_costs writes beside its file: no loader, no libc, one fault and one
 * system call of its own), then waitpid; on this CPU (the child inherits kernel_costs'
 * affinity, pinned for it), and where the scheduler puts it (on a guest, another vCPU's
 * wake-up is most of it): process_cycles, and the file page's fault file_fault_cycles.
 */
#include <elf.h>
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

/*
 * Pages that read() faults in (fresh anonymous ones, the kernel's copy their first touch):
 * ns a page for the kernel's faults, beyond what the same read() into pages touched before
 * takes; *touch, ns a page for the program's first touch of them after. On most kernels that
 * touch is a TLB miss; where the kernel's mapping is not yet the program's (a PVM guest
 * fills its shadow page table for user mode there), it is a fault the guest never counts.
 */
static double kernel_write_fault(int fd, double *touch)
{
	enum { PAGES = 4096 };
	const size_t size = (size_t)PAGES * 4096;
	volatile char *p =
	    mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char sum = 0;

	if (p == MAP_FAILED)
		return -1;
	uint64_t t[4];

	for (int pass = 0; pass < 2; pass++) {
		t[2 * pass] = ipcc_now_ns();
		for (size_t o = 0; o < size; o += 1 << 16)
			if (pread(fd, (char *)p + o, 1 << 16, (off_t)(o % MAPPED)) != 1 << 16) {
				munmap((void *)p, size);
				return -1;
			}
		t[2 * pass + 1] = ipcc_now_ns();
		if (pass == 0) {
			uint64_t t0 = ipcc_now_ns();

			for (size_t o = 0; o < size; o += 4096)
				sum += p[o];
			*touch = (double)(ipcc_now_ns() - t0) / PAGES;
		}
	}
	munmap((void *)p, size);
	__asm__ volatile("" : : "r"(sum));
	double fresh = (double)(t[1] - t[0]), warm = (double)(t[3] - t[2]);

	return fresh > warm ? (fresh - warm) / PAGES : -1;
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

/*
 * A static x86-64 ELF of one page whose code exits: mov eax, 60 (exit); xor edi, edi;
 * syscall. Written to path; 0, or -1 where it could not be.
 */
static int write_exit_program(const char *path)
{
	static const unsigned char code[] = { 0xb8, 0x3c, 0, 0, 0, 0x31, 0xff, 0x0f, 0x05 };
	struct exit_image {
		Elf64_Ehdr e;
		Elf64_Phdr ph;
		unsigned char code[sizeof(code)];
	} img = { 0 };
	const Elf64_Addr base = 0x400000;

	memcpy(img.e.e_ident, ELFMAG, SELFMAG);
	img.e.e_ident[EI_CLASS] = ELFCLASS64;
	img.e.e_ident[EI_DATA] = ELFDATA2LSB;
	img.e.e_ident[EI_VERSION] = EV_CURRENT;
	img.e.e_type = ET_EXEC;
	img.e.e_machine = EM_X86_64;
	img.e.e_version = EV_CURRENT;
	img.e.e_entry = base + offsetof(struct exit_image, code);
	img.e.e_phoff = offsetof(struct exit_image, ph);
	img.e.e_ehsize = sizeof(Elf64_Ehdr);
	img.e.e_phentsize = sizeof(Elf64_Phdr);
	img.e.e_phnum = 1;
	img.ph.p_type = PT_LOAD;
	img.ph.p_flags = PF_R | PF_X;
	img.ph.p_vaddr = img.ph.p_paddr = base;
	img.ph.p_filesz = img.ph.p_memsz = sizeof(img);
	img.ph.p_align = 4096;
	memcpy(img.code, code, sizeof(code));
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0700);

	if (fd < 0)
		return -1;
	int ok = write(fd, &img, sizeof(img)) == (ssize_t)sizeof(img);

	return close(fd) == 0 && ok ? 0 : -1;
}

/*
 * A process spawned, run and reaped: ns each, over 100 of them, on the CPU kernel_costs runs
 * on (here) or wherever the scheduler puts it; -1 where it failed.
 */
static double process(const char *path, int here)
{
	const int n = 100;
	char *argv[] = { (char *)path, NULL }, *envp[] = { NULL };
	cpu_set_t all, one;
	int cpu = sched_getcpu();

	if (sched_getaffinity(0, sizeof(all), &all) != 0 || cpu < 0)
		return -1;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (here && sched_setaffinity(0, sizeof(one), &one) != 0)
		return -1;
	uint64_t t0 = ipcc_now_ns();

	for (int i = 0; i < n; i++) {
		pid_t pid;
		int status;

		if (posix_spawn(&pid, path, NULL, NULL, argv, envp) != 0 ||
		    waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
			sched_setaffinity(0, sizeof(all), &all);
			return -1;
		}
	}
	double ns = (double)(ipcc_now_ns() - t0) / n;

	sched_setaffinity(0, sizeof(all), &all);
	return ns;
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
	double anon = 0, freed = 0, file = 0, pages = 0, nop = 0, stat = 0, map = 0, byte = 0,
	       proc = 0, proc_any = 0, kfault = 0, ktouch = 0;
	char exe[sizeof(path) + 5];

	snprintf(exe, sizeof(exe), "%s.exit", path);
	int have_exe = write_exit_program(exe) == 0;

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
		double kt = 0;

		keep_least(&kfault, kernel_write_fault(fd, &kt));
		keep_least(&ktouch, kt);
		if (have_exe) {
			keep_least(&proc, process(exe, 1));
			keep_least(&proc_any, process(exe, 0));
		}
	}
	close(fd);
	if (have_exe)
		unlink(exe);
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
	printf("  %-44s %8.0f ns %8.0f cycles\n", "a page read() faults in, the fault", kfault,
	       kfault * ghz);
	printf("  %-44s %8.0f ns %8.0f cycles\n", "and the program's first touch of it", ktouch,
	       ktouch * ghz);
	printf("  %-44s %8.0f ns %8.0f cycles\n", "system call: getppid", nop, nop * ghz);
	printf("  %-44s %8.0f ns %8.0f cycles\n", "system call: newfstatat", stat, stat * ghz);
	printf("  %-44s %8.0f ns %8.0f cycles\n", "system call: mmap or munmap", map, map * ghz);
	printf("  %-44s %8.3f ns %8.2f bytes a cycle\n", "read() from the page cache, a byte", byte,
	       byte > 0 ? 1 / (byte * ghz) : 0);
	if (proc > 0 && proc_any > 0) {
		printf("  %-44s %8.0f ns %8.0f cycles\n", "a process: spawned, exits, reaped", proc,
		       proc * ghz);
		printf("  %-44s %8.0f ns %8.0f cycles\n", "... the child on any CPU", proc_any,
		       proc_any * ghz);
	} else {
		printf("  %-44s %s\n", "a process: spawned, exits, reaped",
		       "n/a (the program could not be written or run here)");
	}
	return 0;
}
