/*
 * engine.c - the model backend's engine: where valgrind and ipcc's tool are, the caches the
 * tool models (this machine's, from sysfs), and the command line that runs a program under it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "boot_cache_int.h"
#include "error_int.h"
#include "ipcc/clock.h"
#include "ipcc/error.h"
#include "ipcc/model_backend.h"
#include "predictor.h" /* TAGE_LOG, TAGE_BASE_LOG: the tool's default sizes */

/* Zen 5's, the machine ipcc was first modelled on: taken only where sysfs says nothing. */
static const struct ipcc_mb_caches fallback = {
	.l1d = { 48 * 1024, 12, 64 },
	.l1i = { 32 * 1024, 8, 64 },
	.l2 = { 1024 * 1024, 16, 64 },
	.llc = { 32 * 1024 * 1024, 16, 64 },
	.zero_page = true,
};

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static uint64_t size_of(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 10);

	if (*end == 'K')
		v *= 1024;
	else if (*end == 'M')
		v *= 1024 * 1024;
	return v;
}

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* AMD's legacy leaves' associativity codes (0x80000006): the ways each stands for. */
static unsigned amd_ways(unsigned code)
{
	static const unsigned ways[16] = { 0, 1, 2, 3, 4, 0, 8, 0, 16, 0, 32, 48, 64, 96, 128, 0 };

	return code == 5 ? 6 : ways[code & 15];
}

/*
 * The levels that *have (bit 0 L1d, 1 L1i, 2 L2, 3 the LLC) lacks, from CPUID: the
 * deterministic cache leaf (Intel's 4, AMD's 0x8000001D; one format), else, for the first
 * two levels only, AMD's legacy 0x80000005/6 (a guest's 0x8000001D can be empty; its legacy
 * L3 is the host socket's, no guide to what the guest gets). Returns the levels it filled.
 */
static unsigned from_cpuid(struct ipcc_mb_caches *c, unsigned have)
{
	struct ipcc_mb_cache *lv[4] = { &c->l1d, &c->l1i, &c->l2, &c->llc };
	unsigned a, b, cx, d, got = 0, leaf = 4;

	if (!__get_cpuid(0, &a, &b, &cx, &d))
		return 0;
	if (b == 0x68747541) /* "Auth"enticAMD */
		leaf = 0x8000001d;
	if ((unsigned)__get_cpuid_max(leaf & 0x80000000, NULL) >= leaf)
		for (unsigned i = 0; i < 16; i++) {
			__cpuid_count(leaf, i, a, b, cx, d);
			unsigned type = a & 31, level = (a >> 5) & 7;
			int k = level == 1 && type == 1	  ? 0
				: level == 1 && type == 2 ? 1
				: level == 2		  ? 2
				: level == 3		  ? 3
							  : -1;

			if (!type)
				break;
			if (k < 0 || (have | got) & 1u << k)
				continue;
			struct ipcc_mb_cache m = { (uint64_t)((b >> 22) + 1) *
						       (((b >> 12) & 1023) + 1) * ((b & 4095) + 1) *
						       (cx + 1),
						   (b >> 22) + 1, (b & 4095) + 1 };

			*lv[k] = m;
			got |= 1u << k;
		}
	if (leaf == 0x8000001d && (unsigned)__get_cpuid_max(0x80000000, NULL) >= 0x80000006) {
		__cpuid(0x80000005, a, b, cx, d);
		struct ipcc_mb_cache l1[2] = {
			{ (uint64_t)(cx >> 24) << 10, (cx >> 16) & 255, cx & 255 },
			{ (uint64_t)(d >> 24) << 10, (d >> 16) & 255, d & 255 }
		};
		__cpuid(0x80000006, a, b, cx, d);
		struct ipcc_mb_cache l2 = { (uint64_t)(cx >> 16) << 10, amd_ways(cx >> 12),
					    cx & 255 };

		for (int k = 0; k < 3; k++) {
			struct ipcc_mb_cache m = k < 2 ? l1[k] : l2;

			if (!((have | got) & 1u << k) && m.size && m.assoc && m.line) {
				*lv[k] = m;
				got |= 1u << k;
			}
		}
	}
	return got;
}
#else
static unsigned from_cpuid(struct ipcc_mb_caches *c, unsigned have)
{
	(void)c, (void)have;
	return 0;
}
#endif

int ipcc_mb_caches(struct ipcc_mb_caches *c)
{
	static const char *const names[4] = { "L1d", "L1i", "L2", "LLC" };
	const char *root = getenv("IPCC_SYSFS_CPU");
	struct ipcc_mb_cache *lv[4] = { &c->l1d, &c->l1i, &c->l2, &c->llc };
	unsigned sysfs = 0, cpuid = 0;

	*c = fallback;
	for (int i = 0; i < 8; i++) {
		char path[512], level[16], type[32], size[32], ways[16], line[16];
		struct ipcc_mb_cache k;
		int to = -1;

#define FIELD(name, buf)                                             \
	(snprintf(path, sizeof(path), "%s/cpu0/cache/index%d/" name, \
		  root ? root : "/sys/devices/system/cpu", i),       \
	 read_line(path, buf, sizeof(buf)))
		if (FIELD("level", level) || FIELD("type", type) || FIELD("size", size) ||
		    FIELD("ways_of_associativity", ways) || FIELD("coherency_line_size", line))
			continue;
#undef FIELD
		k.size = size_of(size);
		k.assoc = (unsigned)atoi(ways);
		k.line = (unsigned)atoi(line);
		/* A geometry the tool can keep: whole sets of whole lines. */
		if (!k.size || !k.assoc || !k.line || k.size % ((uint64_t)k.assoc * k.line))
			continue;
		if (!strcmp(level, "1") && !strcmp(type, "Data"))
			to = 0;
		else if (!strcmp(level, "1") && !strcmp(type, "Instruction"))
			to = 1;
		else if (!strcmp(level, "2"))
			to = 2;
		else if (!strcmp(level, "3"))
			to = 3;
		if (to >= 0) {
			*lv[to] = k;
			sysfs |= 1u << to;
		}
	}
	/*
	 * What sysfs lacks (a KVM guest's can have no cache folder at all), from CPUID: not
	 * where IPCC_SYSFS_CPU names a folder, whose geometry is all a test wants.
	 */
	if (sysfs != 15 && !root) {
		struct ipcc_mb_caches m = *c;
		const struct ipcc_mb_cache *mv[4] = { &m.l1d, &m.l1i, &m.l2, &m.llc };

		cpuid = from_cpuid(&m, sysfs);
		for (int k = 0; k < 4; k++)
			if (cpuid & 1u << k) {
				const struct ipcc_mb_cache *from = mv[k];

				/* whole sets, and a line the tool's others share: else not taken */
				if (from->size % ((uint64_t)from->assoc * from->line) ||
				    from->line != 64)
					cpuid &= ~(1u << k);
				else
					*lv[k] = *from;
			}
	}
	c->guessed = 15 & ~(sysfs | cpuid);
	if (sysfs == 15) {
		snprintf(c->source, sizeof(c->source), "sysfs (cpu0)");
		return 0;
	}
	/* e.g. "CPUID (L1d L1i L2), typical Zen 5 (LLC)" */
	size_t n = 0;
	const unsigned from[3] = { sysfs, cpuid, c->guessed };
	const char *const what[3] = { "sysfs", "CPUID", "typical Zen 5" };

	c->source[0] = 0;
	for (int w = 0; w < 3; w++) {
		if (!from[w])
			continue;
		n += (size_t)snprintf(c->source + n, sizeof(c->source) - n, "%s%s (", n ? ", " : "",
				      what[w]);
		for (int k = 0, first = 1; k < 4 && n < sizeof(c->source); k++)
			if (from[w] & 1u << k) {
				n += (size_t)snprintf(c->source + n, sizeof(c->source) - n, "%s%s",
						      first ? "" : " ", names[k]);
				first = 0;
			}
		if (n < sizeof(c->source))
			n += (size_t)snprintf(c->source + n, sizeof(c->source) - n, ")");
		if (n >= sizeof(c->source))
			break;
	}
	return 0;
}

static int find_on_path(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");

	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return access(out, X_OK);
	}
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(out, len, "%.*s/%s", (int)n, path, name);
		if (n && access(out, X_OK) == 0)
			return 0;
		path += n + (path[n] == ':');
	}
	return -1;
}

int ipcc_mb_engine(struct ipcc_mb_engine *e)
{
	const char *vg = getenv("IPCC_VALGRIND"), *lib = getenv("IPCC_VALGRIND_LIB");
	char tool[600];

	memset(e, 0, sizeof(*e));
	if (find_on_path(vg && *vg ? vg : "valgrind", e->valgrind, sizeof(e->valgrind)))
		return err_set(IPCC_ENOTSUP,
			       "no valgrind%s%s: the model backend runs programs under it "
			       "(Debian: apt-get install valgrind; 'make deps' installs it)",
			       vg && *vg ? " at " : "", vg && *vg ? vg : " on PATH");
	if (lib && *lib) {
		snprintf(e->lib, sizeof(e->lib), "%s", lib);
	} else {
		char self[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n <= 0)
			return err_sys("cannot find the ipcc executable");
		self[n] = 0;
		*strrchr(self, '/') = 0;
		snprintf(e->lib, sizeof(e->lib), "%.500s/valgrind", self);
	}
	snprintf(tool, sizeof(tool), "%s/ipcc-amd64-linux", e->lib);
	if (access(tool, X_OK))
		return err_set(IPCC_ENOTSUP,
			       "no ipcc Valgrind tool at %s (it is built with ipcc where "
			       "Valgrind's headers are installed; IPCC_VALGRIND_LIB names "
			       "another folder)",
			       tool);
	return 0;
}

void ipcc_mb_tlbs(struct ipcc_mb_caches *c, const struct ipcc_model_profile *p)
{
	const uint64_t page = 4096;

	c->dtlb = c->stlb = c->itlb = c->btb = c->btb2 = c->btb_restart =
	    (struct ipcc_mb_cache){ 0, 0, 0 };
	c->btb_restart_window = c->btb_restart_sites = 0;
	c->fe_line = c->fe_half = 0;
	c->opcache = c->opcache_ops = 0;
	if (p->opcache_capacity >= 8 && p->opcache_line_ops)
		c->opcache = p->opcache_capacity & ~7u, c->opcache_ops = p->opcache_line_ops;
	/* The predictor's sizes: the profile's, or predictor.h's defaults where it gives none. */
	c->tage = p->tage_entries ? p->tage_entries : 1u << TAGE_LOG;
	c->tage_base = p->tage_base_entries ? p->tage_base_entries : 1u << TAGE_BASE_LOG;
	c->llc_share = (uint64_t)p->llc_share_mib << 20;
	c->l2_fold = p->l2_fold_bits;
	/*
	 * The tool's clock for the other tenants' lines: a quarter of a cycle an instruction
	 * (the pipeline's part of xz's modelled cycles is 0.23 an instruction), a stalling
	 * miss what account.c charges it, and a mispredict its recovery and a typical wait for
	 * its inputs (a load and a test).
	 */
	c->llc_foreign = p->llc_share_mib ? p->llc_foreign : 0;
	c->pointer_prefetch = p->pointer_prefetch;
	c->clock[0] = 250;
	c->clock[1] = p->l2_latency > p->load_latency ? p->l2_latency - p->load_latency : 0;
	c->clock[2] = p->llc_latency > p->load_latency ? p->llc_latency - p->load_latency : 0;
	c->clock[3] = p->dram_latency > p->load_latency ? p->dram_latency - p->load_latency : 0;
	c->clock[4] = p->recovery + 7;
	if (p->fe_line_branches && p->fe_half_branches)
		c->fe_line = p->fe_line_branches, c->fe_half = p->fe_half_branches;
	if (p->btb_entries >= 8)
		c->btb = (struct ipcc_mb_cache){ (uint64_t)(p->btb_entries & ~7u) * 8, 8, 8 };
	if (c->btb.size && p->btb2_entries >= 8)
		c->btb2 = (struct ipcc_mb_cache){ (uint64_t)(p->btb2_entries & ~7u) * 8, 8, 8 };
	if (c->btb.size && p->btb_restart_entries >= 8 && p->btb_restart_window &&
	    p->btb_restart_sites >= 8) {
		c->btb_restart =
		    (struct ipcc_mb_cache){ (uint64_t)(p->btb_restart_entries & ~7u) * 8, 8, 8 };
		c->btb_restart_window = p->btb_restart_window;
		c->btb_restart_sites = p->btb_restart_sites;
	}
	if (!p->dtlb_entries || !p->stlb_entries)
		return;
	/*
	 * The first level 6-way where its entries allow (Golden Cove's is), else 8- or 4-way:
	 * a fully associative LRU of 96 entries, searched on every access, made the tool a
	 * third slower.
	 */
	unsigned n = p->dtlb_entries, ways = n % 6 == 0 ? 6 : n % 8 == 0 ? 8 : n % 4 == 0 ? 4 : n;

	c->dtlb = (struct ipcc_mb_cache){ n * page, ways, page };
	c->stlb = (struct ipcc_mb_cache){ p->stlb_entries * page,
					  p->stlb_entries % 16 ? p->stlb_entries : 16, page };
	if (p->itlb_entries)
		c->itlb = (struct ipcc_mb_cache){ p->itlb_entries * page,
						  p->itlb_entries % 8 ? p->itlb_entries : 8, page };
}

bool ipcc_mb_zero_page(void)
{
	/* Eight pages, so that a fault of ipcc's own between the two counts cannot decide it. */
	enum { PAGES = 8 };
	long page = sysconf(_SC_PAGESIZE);
	size_t size = (size_t)(page > 0 ? page : 4096) * PAGES;
	volatile char *p =
	    mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct rusage before, after;
	char sum = 0;

	if (p == MAP_FAILED)
		return true;
	for (size_t o = 0; o < size; o += size / PAGES)
		sum += p[o];
	getrusage(RUSAGE_THREAD, &before);
	for (size_t o = 0; o < size; o += size / PAGES)
		p[o] = (char)(sum + 1);
	getrusage(RUSAGE_THREAD, &after);
	munmap((void *)p, size);
	return after.ru_minflt - before.ru_minflt >= PAGES / 2;
}

static int64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

bool ipcc_mb_kernel_touch(void)
{
	/*
	 * Eight fresh pages that read() from /dev/zero faults in, then the program's touch of
	 * each, timed: a TLB miss on most kernels (well under a microsecond with the clock's
	 * own read), 5 us on the PVM guest of stop 72. The median, so that an interrupt or a
	 * preemption in one touch cannot decide it.
	 */
	enum { PAGES = 8 };
	long page = sysconf(_SC_PAGESIZE);
	size_t step = (size_t)(page > 0 ? page : 4096), size = step * PAGES;
	int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	int64_t ns[PAGES];
	char sum = 0;

	if (fd < 0)
		return false;
	volatile char *p =
	    mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bool got = p != MAP_FAILED && read(fd, (char *)p, size) == (ssize_t)size;

	close(fd);
	if (p == MAP_FAILED)
		return false;
	for (size_t i = 0; got && i < PAGES; i++) {
		int64_t t0 = mono_ns();

		sum += p[i * step];
		ns[i] = mono_ns() - t0;
	}
	munmap((void *)p, size);
	__asm__ volatile("" : : "r"(sum));
	if (!got)
		return false;
	qsort(ns, PAGES, sizeof(ns[0]), by_value);
	return ns[PAGES / 2] >= 1500;
}

int ipcc_mb_argv(const struct ipcc_mb_engine *e, const struct ipcc_mb_caches *c, unsigned window,
		 const char *outdir, char *const *cmd, char ***argv)
{
	enum { NOPT = 22 }; /* --ipcc-out to --ipcc-defs below, each at most once */
	char opt[NOPT][640];
	size_t ncmd = 0, bytes = 0, n = 0;
	const char *fixed[] = { e->valgrind, "--tool=ipcc", "-q", "--trace-children=yes",
				"--child-silent-after-fork=yes" };
	const size_t nfixed = sizeof(fixed) / sizeof(fixed[0]);

	while (cmd[ncmd])
		ncmd++;
	snprintf(opt[0], sizeof(opt[0]), "--ipcc-out=%s/ipcc-vg.%%p", outdir);
#define GEOMETRY(i, name, k)                                                                       \
	snprintf(opt[i], sizeof(opt[i]), "--ipcc-" name "=%" PRIu64 ",%u,%u", (k).size, (k).assoc, \
		 (k).line)
	GEOMETRY(1, "l1d", c->l1d);
	GEOMETRY(2, "l1i", c->l1i);
	GEOMETRY(3, "l2", c->l2);
	if (c->l2_fold) /* the fourth field: L2's index fold */
		snprintf(opt[3] + strlen(opt[3]), sizeof(opt[3]) - strlen(opt[3]), ",%u",
			 c->l2_fold);
	GEOMETRY(4, "ll", c->llc);
	snprintf(opt[5], sizeof(opt[5]), "--ipcc-window=%u", window);
	size_t nopt = 6;

	if (c->dtlb.size && c->stlb.size) {
		GEOMETRY(6, "dtlb", c->dtlb);
		GEOMETRY(7, "stlb", c->stlb);
		nopt = 8;
		if (c->itlb.size)
			GEOMETRY(nopt++, "itlb", c->itlb);
	}
	if (c->btb.size) {
		GEOMETRY(nopt, "btb", c->btb);
		nopt++;
	}
	if (c->btb2.size) {
		GEOMETRY(nopt, "btb2", c->btb2);
		nopt++;
	}
	if (c->btb_restart.size)
		snprintf(opt[nopt++], sizeof(opt[0]), "--ipcc-btb-restart=%" PRIu64 ",%u,%u",
			 c->btb_restart.size / 8, c->btb_restart_window, c->btb_restart_sites);
	if (c->fe_line)
		snprintf(opt[nopt++], sizeof(opt[0]), "--ipcc-fe=%u,%u", c->fe_line, c->fe_half);
	if (c->opcache)
		snprintf(opt[nopt++], sizeof(opt[0]), "--ipcc-opcache=%u,16,%u", c->opcache,
			 c->opcache_ops);
	snprintf(opt[nopt++], sizeof(opt[0]), "--ipcc-tage=%u,%u", c->tage, c->tage_base);
	if (c->llc_share)
		snprintf(opt[nopt++], sizeof(opt[0]), "--ipcc-llc-share=%" PRIu64, c->llc_share);
	if (c->llc_share && c->llc_foreign) {
		snprintf(opt[nopt++], sizeof(opt[0]), "--ipcc-llc-foreign=%u", c->llc_foreign);
		snprintf(opt[nopt++], sizeof(opt[0]), "--ipcc-llc-clock=%u,%u,%u,%u,%u",
			 c->clock[0], c->clock[1], c->clock[2], c->clock[3], c->clock[4]);
	}
#undef GEOMETRY
	if (c->pointer_prefetch)
		snprintf(opt[nopt++], sizeof(opt[0]), "--ipcc-pointer-prefetch=yes");
	if (!c->zero_page)
		snprintf(opt[nopt++], sizeof(opt[0]), "--ipcc-zero-page=no");
	if (c->kernel_touch)
		snprintf(opt[nopt++], sizeof(opt[0]), "--ipcc-kernel-touch=yes");
	snprintf(opt[nopt++], sizeof(opt[0]), "--ipcc-defs=%s/ipcc-defs.%%p", outdir);
	for (size_t i = 0; i < nfixed; i++)
		bytes += strlen(fixed[i]) + 1;
	for (size_t i = 0; i < nopt; i++)
		bytes += strlen(opt[i]) + 1;
	for (size_t i = 0; i < ncmd; i++)
		bytes += strlen(cmd[i]) + 1;

	size_t slots = nfixed + nopt + ncmd + 1;
	char **v = malloc(slots * sizeof(char *) + bytes), *p;

	if (!v)
		return err_set(IPCC_ENOMEM, "out of memory");
	p = (char *)(v + slots);
#define PUT(s) (v[n++] = strcpy(p, s), p += strlen(s) + 1)
	for (size_t i = 0; i < nfixed; i++)
		PUT(fixed[i]);
	for (size_t i = 0; i < nopt; i++)
		PUT(opt[i]);
	for (size_t i = 0; i < ncmd; i++)
		PUT(cmd[i]);
#undef PUT
	v[n] = NULL;
	*argv = v;
	return 0;
}

#define CORE_MAGIC "ipcc-model-corefreq-1"

int ipcc_mb_core_khz(struct ipcc_freq *f)
{
	char path[512], boot[64], line[256], want[128];
	FILE *in;

	memset(f, 0, sizeof(*f));
	if (boot_cache_id(boot, sizeof(boot)) == 0 &&
	    boot_cache_path("model-corefreq", path, sizeof(path)) == 0 &&
	    (in = fopen(path, "re")) != NULL) {
		uint64_t khz = 0;

		snprintf(want, sizeof(want), CORE_MAGIC " %s khz=%%" SCNu64, boot);
		if (fgets(line, sizeof(line), in) && sscanf(line, want, &khz) == 1 && khz >= 1000 &&
		    khz <= 100000000) {
			fclose(in);
			f->khz = khz;
			f->hz = (double)khz * 1e3;
			f->source = IPCC_FREQ_CACHED;
			return 0;
		}
		fclose(in);
	}
	/* The fastest of a few measurements: the least disturbed by other work. */
	for (int i = 0; i < 7; i++) {
		struct ipcc_freq t;

		if (ipcc_corefreq_khz(&t) && t.khz > f->khz)
			*f = t;
	}
	if (!f->khz)
		return err_set(IPCC_ENOTSUP, "the core frequency cannot be measured here");
	if (boot_cache_id(boot, sizeof(boot)) == 0) {
		snprintf(line, sizeof(line), CORE_MAGIC " %s khz=%" PRIu64 "\n", boot, f->khz);
		boot_cache_replace("model-corefreq", line);
	}
	return 0;
}
