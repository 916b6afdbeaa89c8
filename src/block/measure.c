/*
 * block/measure.c - the harness that times a basic block (block.h), after the published loop
 * method (nanoBench; uiCA's BHive_L).
 *
 * In a child process (a crash ends only that block):
 *
 *   code page:  push rbx, rbp, r12-r15
 *               vzeroall (pxor of xmm0-15 without AVX)     vector registers start at zero
 *               mov R, rdi                                 R: the loop's counter
 *               mov every other GPR but rsp, DATA_ADDR     pointers into the data pages
 *       .loop:  (64-byte aligned) the block's bytes
 *               dec R
 *               jnz .loop
 *               vzeroupper; cld; pop ...; ret
 *
 *   data pages: none are mapped before the block runs. A fault on an unmapped page in user
 *               space maps it (SIGSEGV handler, MAP_FIXED_NOREPLACE) from one memfd page, so
 *               every data page is the same physical page: loads hit L1. The page holds
 *               DATA_ADDR in every word, so a pointer chase stays on mapped pages; it is
 *               written afresh before every run, so every run touches the same pages.
 *
 *   timing:     n doubles until a run of n iterations takes opts.min_ns; each repetition
 *               then times n and 2n iterations in turn (the fewest ns of three runs each)
 *               and takes cycles/iteration = (t(2n) - t(n)) x f / n, f the higher of the core
 *               frequencies measured just before and just after it (a disturbed add chain
 *               only errs low). A repetition is taken again when it was preempted or when
 *               t(2n) is not 2 t(n) within 2%: a disturbance that slowed only one side's runs
 *               would otherwise make the difference, and so the best repetition, too small.
 *               The figure is the fewest cycles of the repetitions that another confirms
 *               within 1% (ipcc_block_figure: a lone repetition a few percent under the rest
 *               misread the frequency); the median is kept.
 *               A block whose addresses stride over more than MAX_L1_PAGES pages is not
 *               timed: the page walks (costly in a guest) would set its pace, not the core.
 *
 * The child writes its result to a pipe; a signal it cannot recover from (division error,
 * illegal instruction, a fault outside user space) writes the reason from the handler.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error_int.h"
#include "ipcc/block.h"
#include "ipcc/clock.h"

#define DATA_ADDR    0x20000000ull /* below 2^31: 32-bit copies of a pointer still point */
#define PAGE	     4096ull
#define MAX_PAGES    4096	       /* data pages a block may map */
#define MAX_L1_PAGES 64		       /* more than a first-level data TLB holds: no L1 timing */
#define LOW_LIMIT    0x10000ull	       /* vm.mmap_min_addr's default */
#define HIGH_LIMIT   0x7ffff0000000ull /* below the stack and the shared libraries */
#define CODE_SIZE    (IPCC_BLOCK_MAX + 4096)

/* ---- the code page ---------------------------------------------------------------------- */

struct emit {
	unsigned char *p;
	size_t n;
};

static void byte(struct emit *e, unsigned b)
{
	e->p[e->n++] = (unsigned char)b;
}

static void push_pop(struct emit *e, int r, unsigned op)
{
	if (r >= 8)
		byte(e, 0x41);
	byte(e, op + (unsigned)(r & 7));
}

static void mov_imm64(struct emit *e, int r, uint64_t v)
{
	byte(e, 0x48 | (r >= 8));
	byte(e, 0xb8 + (unsigned)(r & 7));
	for (int i = 0; i < 8; i++)
		byte(e, (unsigned)(v >> (8 * i)) & 0xff);
}

static bool have_avx(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx");
}

/* Assemble the loop around the block into `code`; returns the code's entry. */
static void assemble(const struct ipcc_block *b, unsigned char *code)
{
	static const int saved[] = { 3, 5, 12, 13, 14, 15 }; /* rbx rbp r12-r15 */
	struct emit e = { code, 0 };
	bool avx = have_avx();
	int R = b->counter;
	size_t loop;
	int32_t rel;

	for (int i = 0; i < 6; i++)
		push_pop(&e, saved[i], 0x50);
	if (avx) {
		byte(&e, 0xc5), byte(&e, 0xfc), byte(&e, 0x77); /* vzeroall */
	} else {
		for (int x = 0; x < 16; x++) { /* pxor xmmX, xmmX */
			byte(&e, 0x66);
			if (x >= 8)
				byte(&e, 0x45);
			byte(&e, 0x0f), byte(&e, 0xef);
			byte(&e, 0xc0 | (unsigned)(x & 7) << 3 | (unsigned)(x & 7));
		}
	}
	/* mov R, rdi */
	byte(&e, 0x48 | (R >= 8));
	byte(&e, 0x89);
	byte(&e, 0xc0 | 7u << 3 | (unsigned)(R & 7));
	for (int r = 0; r < 16; r++)
		if (r != 4 && r != R)
			mov_imm64(&e, r, DATA_ADDR);
	while (e.n % 64)
		byte(&e, 0x90);
	loop = e.n;
	memcpy(e.p + e.n, b->code, b->len);
	e.n += b->len;
	/* dec R */
	byte(&e, 0x48 | (R >= 8));
	byte(&e, 0xff);
	byte(&e, 0xc8 | (unsigned)(R & 7));
	/* jnz loop (rel32, from the end of the jump) */
	byte(&e, 0x0f), byte(&e, 0x85);
	rel = (int32_t)((long)loop - (long)(e.n + 4));
	memcpy(e.p + e.n, &rel, 4);
	e.n += 4;
	if (avx) {
		byte(&e, 0xc5), byte(&e, 0xf8), byte(&e, 0x77); /* vzeroupper */
	}
	byte(&e, 0xfc); /* cld: the block may have set the direction flag */
	for (int i = 5; i >= 0; i--)
		push_pop(&e, saved[i], 0x58);
	byte(&e, 0xc3);
}

/* ---- the child -------------------------------------------------------------------------- */

static struct ipcc_block_result *child_result;
static int child_fd = -1, child_memfd = -1;
static unsigned child_pages;

/* Async-signal-safe: "what at 0x..." into the result's why. */
static void say(const char *what, uint64_t addr, bool with_addr)
{
	char *w = child_result->why;
	size_t n = 0, cap = sizeof(child_result->why) - 1;

	while (*what && n < cap)
		w[n++] = *what++;
	if (with_addr && n + 21 < cap) {
		const char *at = " at 0x";

		while (*at)
			w[n++] = *at++;
		for (int s = 60; s >= 0; s -= 4) {
			unsigned d = (unsigned)(addr >> s) & 15;

			if (d || s == 0 || (n > 0 && w[n - 1] != 'x'))
				w[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
		}
	}
	w[n] = '\0';
}

static void finish_child(void)
{
	ssize_t left = (ssize_t)sizeof(*child_result);
	const char *p = (const char *)child_result;

	while (left > 0) {
		ssize_t w = write(child_fd, p, (size_t)left);

		if (w <= 0)
			break;
		p += w, left -= w;
	}
	_exit(0);
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	uint64_t addr = (uint64_t)(uintptr_t)si->si_addr, page = addr & ~(PAGE - 1);

	(void)uc;
	if (sig == SIGSEGV && si->si_code == SEGV_MAPERR && page >= LOW_LIMIT &&
	    page < HIGH_LIMIT && child_pages < MAX_PAGES) {
		void *p = mmap((void *)(uintptr_t)page, PAGE, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_FIXED_NOREPLACE, child_memfd, 0);

		if (p == (void *)(uintptr_t)page) {
			child_pages++;
			return; /* the instruction runs again, now mapped */
		}
	}
	switch (sig) {
	case SIGFPE:
		child_result->status = IPCC_BLOCK_DIVIDE;
		say("a division error", 0, false);
		break;
	case SIGILL:
		child_result->status = IPCC_BLOCK_ILLEGAL;
		say("an instruction this CPU does not have", 0, false);
		break;
	case SIGTRAP:
		child_result->status = IPCC_BLOCK_ILLEGAL;
		say("a trap instruction", 0, false);
		break;
	default:
		child_result->status = IPCC_BLOCK_FAULT;
		if (sig == SIGSEGV && si->si_code == SI_KERNEL)
			say("a general-protection fault (a non-canonical or misaligned address)", 0,
			    false);
		else if (child_pages >= MAX_PAGES)
			say("a fault past the data pages' limit", addr, true);
		else
			say("a fault outside what can be mapped", addr, true);
	}
	finish_child();
}

static double ticks_ns(void (*fn)(uint64_t), uint64_t n, const uint64_t *pattern, void *page)
{
	uint64_t t0, t1;

	memcpy(page, pattern, PAGE);
	t0 = ipcc_now_ns();
	fn(n);
	t1 = ipcc_now_ns();
	return (double)(t1 - t0);
}

/*
 * One repetition: runs of n and 2n iterations in turn, three of each, the fewest ns of each
 * into *t1 and *t2. Whether they agree: the fixed cost of a run is under 1% of t1, so
 * t2 = 2 t1 within 2% unless a disturbance (an interrupt, the host's other work) hit one
 * side's runs and not the other's; then their difference would be too small or too large.
 */
static bool timed_pair(void (*fn)(uint64_t), uint64_t n, const uint64_t *pattern, void *page,
		       double *t1, double *t2)
{
	*t1 = *t2 = INFINITY;
	for (int i = 0; i < 3; i++) {
		*t1 = fmin(*t1, ticks_ns(fn, n, pattern, page));
		*t2 = fmin(*t2, ticks_ns(fn, 2 * n, pattern, page));
	}
	return *t2 > 1.96 * *t1 && *t2 < 2.02 * *t1;
}

/* The fewest ns of three runs of n iterations. */
static double best_of_3(void (*fn)(uint64_t), uint64_t n, const uint64_t *pattern, void *page)
{
	double best = ticks_ns(fn, n, pattern, page);

	for (int i = 0; i < 2; i++) {
		double t = ticks_ns(fn, n, pattern, page);

		best = t < best ? t : best;
	}
	return best;
}

static long preemptions(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_nivcsw : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void run_child(const struct ipcc_block *b, const struct ipcc_block_opts *o, int fd,
		      struct ipcc_block_result *r)
{
	static uint64_t pattern[PAGE / 8];
	static unsigned char altstack[1 << 16];
	unsigned reps = o->reps ? o->reps : 5, tries = 0, got = 0, preempted = 0;
	double min_ns = o->min_ns > 0 ? o->min_ns : 20000, cyc[64], khz[64];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_ONSTACK };
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP };
	unsigned char *code;
	void *page;
	void (*fn)(uint64_t);
	uint64_t n = 16, start;
	unsigned warm_pages;

	child_result = r;
	child_fd = fd;
	reps = reps > 64 ? 64 : reps;
	for (size_t i = 0; i < PAGE / 8; i++)
		pattern[i] = DATA_ADDR;
	child_memfd = memfd_create("ipcc-block-data", MFD_CLOEXEC);
	page = child_memfd < 0 || ftruncate(child_memfd, PAGE)
		   ? MAP_FAILED
		   : mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, child_memfd, 0);
	code = mmap(NULL, CODE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED || code == MAP_FAILED) {
		r->status = IPCC_BLOCK_CRASH;
		snprintf(r->why, sizeof(r->why), "no memory for the harness: %s", strerror(errno));
		finish_child();
	}
	assemble(b, code);
	if (mprotect(code, CODE_SIZE, PROT_READ | PROT_EXEC)) {
		r->status = IPCC_BLOCK_CRASH;
		snprintf(r->why, sizeof(r->why), "cannot make the code executable: %s",
			 strerror(errno));
		finish_child();
	}
	fn = (void (*)(uint64_t))(uintptr_t)code;
	sigaltstack(&ss, NULL);
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);

	/* Warm up (maps the pages), then find n: a run of at least min_ns. */
	ticks_ns(fn, n, pattern, page);
	while (n < (1ull << 32) && best_of_3(fn, n, pattern, page) < min_ns)
		n *= 2;
	ticks_ns(fn, 2 * n, pattern, page);
	r->iterations[0] = n;
	r->iterations[1] = 2 * n;
	warm_pages = child_pages;
	/*
	 * 8 tries a repetition; on a host busy enough that they all fail (seen on a CI guest:
	 * 40 of 40 on a chain of adds another pass timed cleanly), more, for up to 250 ms, as
	 * a quiet moment comes; the parent's timeout (2 s) is far above that.
	 */
	start = ipcc_now_ns();
	while (got < reps &&
	       (tries < 8 * reps || (tries < 64 * reps && ipcc_now_ns() - start < 250000000))) {
		long p0 = preemptions();
		double f0 = (double)ipcc_corefreq_khz(NULL), t1, t2;
		bool agree = timed_pair(fn, n, pattern, page, &t1, &t2);
		double f1 = (double)ipcc_corefreq_khz(NULL), f = f0 > f1 ? f0 : f1;

		tries++;
		if (preemptions() != p0) {
			preempted++;
			continue;
		}
		if (!agree)
			continue;
		khz[got] = f;
		cyc[got++] = (t2 - t1) * f / 1e6 / (double)n;
	}
	r->reps = got;
	if (!got) {
		r->status = IPCC_BLOCK_NOISY;
		snprintf(r->why, sizeof(r->why),
			 "no repetition of %u had runs of n and 2n iterations that agree (%u "
			 "preempted)",
			 tries, preempted);
		finish_child();
	}
	r->pages = child_pages;
	if (child_pages != warm_pages) {
		/* Its addresses move from run to run: the timing would be the page faults'. */
		r->status = IPCC_BLOCK_FAULT;
		snprintf(
		    r->why, sizeof(r->why),
		    "its addresses move from run to run (%u data pages mapped during the timed "
		    "runs)",
		    child_pages - warm_pages);
		finish_child();
	}
	if (child_pages > MAX_L1_PAGES) {
		r->status = IPCC_BLOCK_PAGES;
		snprintf(
		    r->why, sizeof(r->why),
		    "its addresses stride over %u data pages: page walks, not the core, set its "
		    "pace",
		    child_pages);
		finish_child();
	}
	{
		unsigned best = 0;

		r->cycles = ipcc_block_figure(cyc, got);
		while (best + 1 < got && cyc[best] != r->cycles)
			best++;
		r->core_khz = khz[best];
	}
	qsort(cyc, got, sizeof(cyc[0]), cmp_double);
	r->cycles_median = cyc[got / 2];
	r->status = IPCC_BLOCK_OK;
	finish_child();
}

/* ---- the parent ------------------------------------------------------------------------- */

int ipcc_block_measure(const struct ipcc_block *b, const struct ipcc_block_opts *o,
		       struct ipcc_block_result *r)
{
	unsigned timeout = o->timeout_ms ? o->timeout_ms : 2000;
	struct ipcc_block_result got = { 0 };
	size_t have = 0;
	int fds[2], status = 0, ret;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->cycles = r->cycles_median = NAN;
	if (b->status != IPCC_BLOCK_OK) {
		r->status = b->status;
		snprintf(r->why, sizeof(r->why), "%s", b->why);
		return 0;
	}
	ret = ipcc_clock_init();
	if (ret)
		return ret;
	if (pipe2(fds, O_CLOEXEC))
		return err_sys("a pipe for the block's child");
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return err_sys("fork for the block's child");
	}
	if (pid == 0) {
		close(fds[0]);
		run_child(b, o, fds[1], &got);
		_exit(0);
	}
	close(fds[1]);
	for (;;) {
		struct pollfd p = { fds[0], POLLIN, 0 };
		int k = poll(&p, 1, (int)timeout);
		ssize_t n;

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			kill(pid, SIGKILL);
			r->status = IPCC_BLOCK_TIMEOUT;
			snprintf(r->why, sizeof(r->why), "still running after %u ms", timeout);
			break;
		}
		n = read(fds[0], (char *)&got + have, sizeof(got) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		if (have == sizeof(got))
			break;
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (r->status == IPCC_BLOCK_TIMEOUT)
		return 0;
	if (have == sizeof(got)) {
		*r = got;
		if (r->status != IPCC_BLOCK_OK)
			r->cycles = r->cycles_median = NAN;
		return 0;
	}
	r->status = IPCC_BLOCK_CRASH;
	if (WIFSIGNALED(status))
		snprintf(r->why, sizeof(r->why), "the child died of signal %d (%s)",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(r->why, sizeof(r->why), "the child exited %d without a result",
			 WEXITSTATUS(status));
	return 0;
}
