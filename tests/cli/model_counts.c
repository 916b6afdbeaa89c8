/*
 * model_counts.c - a program whose counts in one function are known exactly, for the model
 * backend's test (stat_model.sh): counted(n, p) runs 3 + 4n instructions, n + 1 loads (the
 * ret's among them), n stores, n conditional branches (n - 1 taken) and one return.
 * `model_counts N rep` runs rep_runs(N, buf) instead: N passes of 6 instructions, one of
 * them a rep stosb of 1,000 bytes (one instruction however many bytes it stores).
 * `model_counts N fork` and `model_counts N dep` take N steps of a random walk over 2^20
 * nodes (a byte each, and a pair of 32-bit links: 9 MiB): each step loads the node's byte
 * and a link, and the next node is the link mixed with the step's count. fork: the link is
 * the pair's first, both loads addressed by the node alone (the core overlaps their
 * misses); dep: the byte picks the link, whose load waits for it (walk_fork, walk_dep);
 * branch: a branch on the byte picks the link, half the time mispredicted, and either way
 * the link's load reads the line the other path's would (walk_branch).
 * pick: no link; each step reads the byte of a node an LCG picks (its address from no load;
 * 1 MiB: L2 holds them, L1 does not) and a branch on it, half the time mispredicted, skips
 * an add (walk_pick): a branch on a missed value waits for the miss.
 * split: the link alone, every other step among the first 1,024 nodes (8 KiB: L1 holds
 * them), and a never-taken branch between the link's load and the next node's computation,
 * so that no segment of the loop alone chases (walk_split): each far step's miss comes
 * from a near step's hit, and still the loop waits for it.
 * `model_counts N chase` and `model_counts N chain` take N steps along a list of 2^18
 * nodes of 32 bytes (8 MiB) in a fixed random order: chase reads each node's link alone;
 * chain reads its key (at 24) and then its link, in the line the key's miss is fetching,
 * as a hash chain's walk does (list_chase, list_chain); slow reads the link alone after 512
 * additions that depend on nothing (list_slow: the chase with time between its loads); call
 * reads the link in a function of its own, called each step (list_call).
 * `model_counts N parray` and `model_counts N iarray` take N steps in series over an array of
 * 2^18 records of 32 bytes (8 MiB) in a fixed random order, each step's index hanging on the
 * key the step before loaded: through an array of pointers to the records, read in order
 * (parray), or of their 32-bit indices (iarray) (arrays()).
 * `model_counts N up` and `model_counts N down` take N steps of list_chase along 2^19 nodes
 * of a line each (32 MiB), each linked to the next line up, or down (lines()).
 * `model_counts N kernel` maps N anonymous pages, writes a byte of each, unmaps them and
 * does it again (2N faults); maps N more and reads a byte of each before it writes it (2N
 * faults: the zero page mapped, then the copy; N where the kernel maps no zero page), and
 * prints the faults that part took (getrusage: natively, the kernel's own); maps N more, writes them, moves them with
 * mremap to a mapping of 2N pages (they keep their frames) and writes all 2N (2N faults); makes N getppid calls; and reads N bytes of /dev/zero into a fresh
 * mapping (kernel()).
 * `model_counts N filemap` writes N pages to a file, maps it read-only and reads the first
 * byte of each page (read_pages()), then maps N anonymous pages and writes the first byte of
 * each (write_pages()): a file's page is mapped from the page cache untouched, an anonymous
 * one is zeroed through the caches (filemap()).
 * `model_counts N touch` reads N pages of /dev/zero into a fresh mapping (the kernel faults
 * each in), then reads the first byte of each in touch_pages(), timing each touch, and
 * prints the median: a TLB miss on most kernels, a fault the guest does not count on some
 * (touch()).
 * `model_counts N pages` runs N laps of a chain of 384 jmps, each a page (4,163 bytes) past
 * the one before: every jmp a code page that a first-level instruction TLB of 256 pages
 * misses and a second level of 2,048 holds (page_chain).
 * `model_counts N forked` runs counted(N), then forks a child that runs it again: 2 (3 +
 * 4N) instructions there, the child's counts its own from the fork on.
 * `model_counts N exec` runs counted(N) and then execs itself to run it again: 2 (3 + 4N)
 * instructions there, half of them in the image the exec replaced.
 * `model_counts N clock` asks for two sleeps at an address the kernel cannot read (EFAULT),
 * reads CLOCK_MONOTONIC until N microseconds of it have passed, sleeps 10 ms (nanosleep),
 * then to a deadline 10 ms on (clock_nanosleep, TIMER_ABSTIME), and prints how many reads
 * the wait took, the sleeps' time on the clock in microseconds, the CPU time it read
 * (CLOCK_PROCESS_CPUTIME_ID) and how far into its second the monotonic clock was (clocks()).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "counted.h"

long rep_runs(long n, char *buf);

__asm__(".text\n"
	".globl rep_runs\n"
	".type rep_runs, @function\n"
	"rep_runs:\n"
	"	mov %rdi, %r8\n"
	"1:	mov %rsi, %rdi\n"
	"	mov $1000, %ecx\n"
	"	xor %eax, %eax\n"
	"	rep stosb\n"
	"	dec %r8\n"
	"	jnz 1b\n"
	"	ret\n"
	".size rep_runs, .-rep_runs\n");

long walk_fork(long n, const unsigned char *bytes, const unsigned *links);
long walk_dep(long n, const unsigned char *bytes, const unsigned *links);
long walk_branch(long n, const unsigned char *bytes, const unsigned *links);
long walk_split(long n, const unsigned char *bytes, const unsigned *links);
long walk_pick(long n, const unsigned char *bytes, const unsigned *links);

/* rdi: steps; rsi: the bytes; ecx: the node; r9d: the LCG */
__asm__(".text\n.globl walk_pick\n.type walk_pick, @function\nwalk_pick:\n"
	"\txor %ecx, %ecx\n"
	"\txor %r9d, %r9d\n"
	"\txor %r11d, %r11d\n"
	"1:\tmovzbl (%rsi,%rcx), %eax\n"
	"\tcmp $128, %eax\n"
	"\tjb 2f\n"
	"\tadd $1, %r11\n"
	"2:\timul $1103515245, %r9d, %r9d\n"
	"\tadd $12345, %r9d\n"
	"\tmov %r9d, %ecx\n"
	"\tshr $12, %ecx\n"
	"\tdec %rdi\n"
	"\tjnz 1b\n"
	"\tmov %r11, %rax\n"
	"\tret\n"
	".size walk_pick, .-walk_pick\n");

/* rdi: steps; rsi: the bytes; rdx: the links; ecx: the node; r9d: the step's mix */
#define WALK(name, load_link)                                            \
	".text\n.globl " name "\n.type " name ", @function\n" name ":\n" \
	"\txor %ecx, %ecx\n"                                             \
	"\txor %r9d, %r9d\n"                                             \
	"\txor %r11d, %r11d\n"                                           \
	"1:\tmovzbl (%rsi,%rcx), %eax\n" load_link "\txor %r9d, %r10d\n" \
	"\tand $0xfffff, %r10d\n"                                        \
	"\tmov %r10d, %ecx\n"                                            \
	"\tadd $0x9e3779b1, %r9d\n"                                      \
	"\tdec %rdi\n"                                                   \
	"\tjnz 1b\n"                                                     \
	"\tmov %r11, %rax\n"                                             \
	"\tret\n"                                                        \
	".size " name ", .-" name "\n"
__asm__(WALK("walk_fork", "\tmov (%rdx,%rcx,8), %r10d\n\tadd %rax, %r11\n"));
__asm__(WALK("walk_dep",
	     "\tshr $7, %eax\n\tlea (%rax,%rcx,2), %rax\n\tmov (%rdx,%rax,4), %r10d\n"));
__asm__(WALK("walk_branch", "\tcmp $128, %eax\n\tjb 2f\n\tmov 4(%rdx,%rcx,8), %r10d\n"
			    "\tjmp 3f\n2:\tmov (%rdx,%rcx,8), %r10d\n3:\n"));

/* rdi: steps; rdx: the links; ecx: the node; r9d: the step's mix; r8d: 0, for the branch */
__asm__(".text\n.globl walk_split\n.type walk_split, @function\nwalk_split:\n"
	"\txor %ecx, %ecx\n"
	"\txor %r9d, %r9d\n"
	"\txor %r8d, %r8d\n"
	"1:\tmov (%rdx,%rcx,8), %r10d\n"
	"\ttest %r8d, %r8d\n"
	"\tjnz 2f\n"
	"\txor %r9d, %r10d\n"
	"\tmov %edi, %eax\n"
	"\tand $1, %eax\n"
	"\tneg %eax\n"
	"\tor $0x3ff, %eax\n"
	"\tand $0xfffff, %eax\n"
	"\tand %eax, %r10d\n"
	"\tmov %r10d, %ecx\n"
	"\tadd $0x9e3779b1, %r9d\n"
	"\tdec %rdi\n"
	"\tjnz 1b\n"
	"2:\tmov %rcx, %rax\n"
	"\tret\n"
	".size walk_split, .-walk_split\n");

long list_chase(long n, const void *first);
long list_chain(long n, const void *first);
long list_slow(long n, const void *first);

/* rdi: steps; rsi: the node */
#define LIST(name, key)                                                  \
	".text\n.globl " name "\n.type " name ", @function\n" name ":\n" \
	"\txor %eax, %eax\n"                                             \
	"1:" key "\tmov (%rsi), %rsi\n"                                  \
	"\tdec %rdi\n"                                                   \
	"\tjnz 1b\n"                                                     \
	"\tret\n"                                                        \
	".size " name ", .-" name "\n"
__asm__(LIST("list_chase", ""));
__asm__(LIST("list_chain", "\tcmpq $-1, 24(%rsi)\n\tadc $0, %rax\n"));
__asm__(LIST("list_slow", "\t.rept 128\n\tadd $1, %r8\n\tadd $1, %r9\n\tadd $1, %r10\n"
			  "\tadd $1, %r11\n\t.endr\n"));

long list_call(long n, const void *first);

/* list_chase with each step's load in a function of its own: the link reaches the next load
 * through a return, the end of a superblock that no branch leaves early (on_sb_end). */
__asm__(".text\n.globl list_call\n.type list_call, @function\nlist_call:\n"
	"\txor %eax, %eax\n"
	"1:\tcall list_next\n"
	"\tdec %rdi\n"
	"\tjnz 1b\n"
	"\tret\n"
	".size list_call, .-list_call\n"
	".type list_next, @function\nlist_next:\n"
	"\tmov (%rsi), %rsi\n"
	"\tret\n"
	".size list_next, .-list_next\n");

long array_ptr(long n, void *const *a, long zero, long mask);
long array_idx(long n, const unsigned *ix, long zero, long mask, const void *recs);

/*
 * i = (i + 1 + (key & zero)) & mask: the next index waits for the key (zero is 0). KEY loads
 * the key of record i into r9.
 */
#define ARRAY(name, key)                                                 \
	".text\n.globl " name "\n.type " name ", @function\n" name ":\n" \
	"\txor %eax, %eax\n"                                             \
	"1:" key "\tand %rdx, %r9\n"                                     \
	"\tlea 1(%rax,%r9), %rax\n"                                      \
	"\tand %rcx, %rax\n"                                             \
	"\tdec %rdi\n"                                                   \
	"\tjnz 1b\n"                                                     \
	"\tret\n"                                                        \
	".size " name ", .-" name "\n"
__asm__(ARRAY("array_ptr", "\tmov (%rsi,%rax,8), %r8\n\tmov (%r8), %r9\n"));
__asm__(ARRAY("array_idx", "\tmov (%rsi,%rax,4), %r9d\n\tshl $5, %r9\n\tmov (%r8,%r9), %r9\n"));

/* 2^18 records in an order a fixed xorshift shuffles, reached through pointers or indices. */
static int arrays(long n, int pointers)
{
	const size_t nodes = (size_t)1 << 18;
	long *recs = aligned_alloc(64, nodes * 32);
	void **a = malloc(nodes * sizeof(void *));
	unsigned *ix = malloc(nodes * sizeof(unsigned));
	unsigned long long x = 88172645463325252ull;
	volatile long zero = 0;

	if (!recs || !a || !ix) {
		free(recs);
		free(a);
		free(ix);
		return 1;
	}
	for (size_t i = 0; i < nodes; i++)
		ix[i] = (unsigned)i;
	for (size_t i = nodes - 1; i > 0; i--) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t j = x % i;
		unsigned t = ix[i];

		ix[i] = ix[j];
		ix[j] = t;
	}
	for (size_t i = 0; i < nodes; i++) {
		a[i] = &recs[ix[i] * 4];
		recs[i * 4] = (long)i;
	}
	long r = pointers ? array_ptr(n, a, zero, (long)nodes - 1)
			  : array_idx(n, ix, zero, (long)nodes - 1, recs);
	free(recs);
	free(a);
	free(ix);
	return r < 0;
}

/* The list's 2^18 nodes in an order a fixed xorshift shuffles. */
static int list(long n, long (*walk)(long, const void *))
{
	const size_t nodes = (size_t)1 << 18;
	void **a = aligned_alloc(64, nodes * 32);
	size_t *order = malloc(nodes * sizeof(size_t));
	unsigned long long x = 88172645463325252ull;

	if (!a || !order) {
		free(a);
		free(order);
		return 1;
	}
	for (size_t i = 0; i < nodes; i++)
		order[i] = i;
	for (size_t i = nodes - 1; i > 0; i--) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t j = x % i, t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (size_t i = 0; i < nodes; i++) {
		a[order[i] * 4] = &a[order[(i + 1) % nodes] * 4];
		a[order[i] * 4 + 3] = NULL;
	}
	walk(n, &a[order[0] * 4]);
	free(a);
	free(order);
	return 0;
}

/* 2^19 nodes of a line each, the first at the bottom linked up, or at the top linked down. */
static int lines(long n, int down)
{
	const size_t nodes = (size_t)1 << 19;
	void **a = aligned_alloc(64, nodes * 64);

	if (!a)
		return 1;
	for (size_t i = 0; i < nodes; i++)
		a[i * 8] = &a[(down ? i + nodes - 1 : i + 1) % nodes * 8];
	list_chase(n, &a[down ? (nodes - 1) * 8 : 0]);
	free(a);
	return 0;
}

static long clock_ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return t.tv_sec * 1000000000L + t.tv_nsec;
}

static int clocks(long n)
{
	/* Asked with a time the kernel cannot read: EFAULT, no sleep (nor a tool that reads it). */
	if (syscall(SYS_nanosleep, (void *)8, NULL) == 0 ||
	    syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, (void *)8, NULL) == 0)
		return 1;
	long start = clock_ns(CLOCK_MONOTONIC), reads = 0;

	while (clock_ns(CLOCK_MONOTONIC) < start + n * 1000)
		reads++;
	long before = clock_ns(CLOCK_MONOTONIC);

	nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	struct timespec to;

	clock_gettime(CLOCK_MONOTONIC, &to);
	to.tv_nsec += 10000000;
	if (to.tv_nsec >= 1000000000) {
		to.tv_sec++;
		to.tv_nsec -= 1000000000;
	}
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &to, NULL);
	long now = clock_ns(CLOCK_MONOTONIC);

	printf("%ld reads, slept %ld us, cpu %ld us, %ld ns into a second\n", reads,
	       (now - before) / 1000, clock_ns(CLOCK_PROCESS_CPUTIME_ID) / 1000, now % 1000000000);
	return 0;
}

static int kernel(long n)
{
	size_t size = (size_t)n * 4096;

	for (int pass = 0; pass < 2; pass++) {
		char *p =
		    mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		for (size_t o = 0; o < size; o += 4096)
			p[o] = 1;
		munmap(p, size);
	}
	volatile char *q =
	    mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct rusage before, after;
	char sum = 0;

	if (q == MAP_FAILED)
		return 1;
	getrusage(RUSAGE_SELF, &before);
	for (size_t o = 0; o < size; o += 4096)
		sum += q[o];
	for (size_t o = 0; o < size; o += 4096)
		q[o] = sum;
	getrusage(RUSAGE_SELF, &after);
	munmap((void *)q, size);
	printf("read, then written: %ld faults\n", after.ru_minflt - before.ru_minflt);
	char *r = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (r == MAP_FAILED)
		return 1;
	for (size_t o = 0; o < size; o += 4096)
		r[o] = 1;
	/* Moved, to a place of its own: mremap may otherwise grow it where it is. */
	void *to = mmap(NULL, 2 * size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (to == MAP_FAILED)
		return 1;
	r = mremap(r, size, 2 * size, MREMAP_MAYMOVE | MREMAP_FIXED, to);
	if (r == MAP_FAILED)
		return 1;
	for (size_t o = 0; o < 2 * size; o += 4096)
		r[o] = 2;
	munmap(r, 2 * size);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	char *buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open("/dev/zero", O_RDONLY);

	if (buf == MAP_FAILED || fd < 0 || read(fd, buf, (size_t)n) != n)
		return 1;
	close(fd);
	munmap(buf, size);
	return 0;
}

/* The first byte of each of n pages at p, read (write: written), in functions of their own. */
__attribute__((noinline)) static long read_pages(const volatile char *p, long n)
{
	long sum = 0;

	for (long i = 0; i < n; i++)
		sum += p[i * 4096];
	return sum;
}

__attribute__((noinline)) static void write_pages(volatile char *p, long n)
{
	for (long i = 0; i < n; i++)
		p[i * 4096] = 1;
}

static int filemap(long n)
{
	size_t size = (size_t)n * 4096;
	char path[] = "/tmp/model_counts.XXXXXX", page[4096];
	int fd = mkstemp(path);

	if (fd < 0)
		return 1;
	unlink(path);
	memset(page, 'x', sizeof(page));
	for (long i = 0; i < n; i++)
		if (write(fd, page, sizeof(page)) != (ssize_t)sizeof(page))
			return 1;
	char *f = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0),
	     *a = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	close(fd);
	if (f == MAP_FAILED || a == MAP_FAILED || read_pages(f, n) != n * 'x')
		return 1;
	write_pages(a, n);
	munmap(f, size);
	munmap(a, size);
	return 0;
}

/* The first byte of each of n pages at p, read; each read's nanoseconds into ns. */
__attribute__((noinline)) static long touch_pages(const volatile char *p, long n, long *ns)
{
	long sum = 0;

	for (long i = 0; i < n; i++) {
		long t0 = clock_ns(CLOCK_MONOTONIC);

		sum += p[i * 4096];
		ns[i] = clock_ns(CLOCK_MONOTONIC) - t0;
	}
	return sum;
}

static int by_value(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

static int touch(long n)
{
	size_t size = (size_t)n * 4096;
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long *ns = calloc((size_t)n, sizeof(long));
	int fd = open("/dev/zero", O_RDONLY);

	if (p == MAP_FAILED || !ns || fd < 0 || read(fd, p, size) != (ssize_t)size ||
	    touch_pages(p, n, ns) != 0)
		return 1;
	close(fd);
	qsort(ns, (size_t)n, sizeof(long), by_value);
	printf("a touch after the kernel's fault: %ld ns (the median of %ld)\n", ns[n / 2], n);
	free(ns);
	munmap(p, size);
	return 0;
}

long page_chain(long n);

__asm__(".text\n.globl page_chain\n.type page_chain, @function\n.p2align 12\npage_chain:\n"
	"1:\n.rept 384\n\tjmp 2f\n\t.skip 4158, 0x90\n2:\n.endr\n"
	"\tdec %rdi\n\tjnz 1b\n\tret\n.size page_chain, .-page_chain\n");

/* The walk's 2^20 nodes, drawn by a fixed xorshift. */
static int walk(long n, long (*step)(long, const unsigned char *, const unsigned *))
{
	const size_t nodes = (size_t)1 << 20;
	unsigned char *bytes = malloc(nodes);
	unsigned *links = malloc(2 * nodes * sizeof(unsigned));
	unsigned long long x = 88172645463325252ull;

	if (!bytes || !links) {
		free(bytes);
		free(links);
		return 1;
	}
	for (size_t i = 0; i < nodes; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		bytes[i] = (unsigned char)x;
		links[2 * i] = (unsigned)(x >> 16) & (nodes - 1);
		links[2 * i + 1] = (unsigned)(x >> 40) & (nodes - 1);
	}
	step(n, bytes, links);
	free(bytes);
	free(links);
	return 0;
}

int main(int argc, char **argv)
{
	static long cell[2] = { 1, 0 };
	static char buf[1000];
	long n = argc > 1 ? atol(argv[1]) : 100000;

	static const struct {
		const char *name;
		long (*step)(long, const void *);
	} lists[] = { { "chase", list_chase },
		      { "chain", list_chain },
		      { "slow", list_slow },
		      { "call", list_call } };
	static const struct {
		const char *name;
		long (*step)(long, const unsigned char *, const unsigned *);
	} walks[] = { { "fork", walk_fork },
		      { "dep", walk_dep },
		      { "branch", walk_branch },
		      { "split", walk_split },
		      { "pick", walk_pick } };
	const char *mode = argc > 2 ? argv[2] : "";

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		if (!strcmp(mode, lists[i].name))
			return list(n, lists[i].step);
	for (size_t i = 0; i < sizeof(walks) / sizeof(walks[0]); i++)
		if (!strcmp(mode, walks[i].name))
			return walk(n, walks[i].step);
	if (!strcmp(mode, "parray") || !strcmp(mode, "iarray"))
		return arrays(n, mode[0] == 'p');
	if (!strcmp(mode, "up") || !strcmp(mode, "down"))
		return lines(n, !strcmp(mode, "down"));
	if (!strcmp(mode, "kernel"))
		return kernel(n);
	if (!strcmp(mode, "clock"))
		return clocks(n);
	if (!strcmp(mode, "pages"))
		return (int)page_chain(n);
	if (!strcmp(mode, "filemap"))
		return filemap(n);
	if (!strcmp(mode, "touch"))
		return touch(n);
	if (!strcmp(mode, "rep"))
		return (int)rep_runs(n, buf);
	/* counted(n), then a fork whose child runs it again: 2 (3 + 4n) there, not 3 */
	if (!strcmp(mode, "forked")) {
		if (counted(n, cell) != n)
			return 1;

		pid_t child = fork();

		if (child == 0)
			_exit(counted(n, cell) == n ? 0 : 1);
		int status = 1;

		return child > 0 && waitpid(child, &status, 0) == child && status == 0 ? 0 : 1;
	}
	/* counted(n) in this image, then again in the image an exec of this program starts */
	if (!strcmp(mode, "exec")) {
		if (counted(n, cell) != n)
			return 1;
		execlp(argv[0], argv[0], argv[1],
		       (char *)NULL); /* not /proc/self/exe: Valgrind's own */
		return 127;
	}
	return counted(n, cell) == n ? 0 : 1;
}
