/*
 * engine.c - the model backend's engine: where valgrind and ipcc's tool are, the caches the
 * tool models (this machine's, from sysfs), and the command line that runs a program under it.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot_cache_int.h"
#include "error_int.h"
#include "ipcc/clock.h"
#include "ipcc/error.h"
#include "ipcc/model_backend.h"

/* Zen 5's, the machine ipcc was first modelled on: taken only where sysfs says nothing. */
static const struct ipcc_mb_caches fallback = {
	.l1d = { 48 * 1024, 12, 64 },
	.l1i = { 32 * 1024, 8, 64 },
	.l2 = { 1024 * 1024, 16, 64 },
	.llc = { 32 * 1024 * 1024, 16, 64 },
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

int ipcc_mb_caches(struct ipcc_mb_caches *c)
{
	const char *root = getenv("IPCC_SYSFS_CPU");
	unsigned found = 0;

	*c = fallback;
	if (!root)
		root = "/sys/devices/system/cpu";
	for (int i = 0; i < 8; i++) {
		char path[512], level[16], type[32], size[32], ways[16], line[16];
		struct ipcc_mb_cache k;
		struct ipcc_mb_cache *to = NULL;

#define FIELD(name, buf)                                                       \
	(snprintf(path, sizeof(path), "%s/cpu0/cache/index%d/" name, root, i), \
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
			to = &c->l1d;
		else if (!strcmp(level, "1") && !strcmp(type, "Instruction"))
			to = &c->l1i;
		else if (!strcmp(level, "2"))
			to = &c->l2;
		else if (!strcmp(level, "3"))
			to = &c->llc;
		if (to) {
			*to = k;
			found++;
		}
	}
	if (found == 4)
		snprintf(c->source, sizeof(c->source), "sysfs (cpu0)");
	else
		snprintf(c->source, sizeof(c->source),
			 "%s: Zen 5's where sysfs gave none (%u of 4 from sysfs)",
			 found ? "partly sysfs" : "typical", found);
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

	c->dtlb = c->stlb = c->btb = c->btb2 = (struct ipcc_mb_cache){ 0, 0, 0 };
	c->fe_line = c->fe_half = 0;
	c->llc_share = (uint64_t)p->llc_share_mib << 20;
	if (p->fe_line_branches && p->fe_half_branches)
		c->fe_line = p->fe_line_branches, c->fe_half = p->fe_half_branches;
	if (p->btb_entries >= 8)
		c->btb = (struct ipcc_mb_cache){ (uint64_t)(p->btb_entries & ~7u) * 8, 8, 8 };
	if (c->btb.size && p->btb2_entries >= 8)
		c->btb2 = (struct ipcc_mb_cache){ (uint64_t)(p->btb2_entries & ~7u) * 8, 8, 8 };
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
}

int ipcc_mb_argv(const struct ipcc_mb_engine *e, const struct ipcc_mb_caches *c, unsigned window,
		 const char *outdir, char *const *cmd, char ***argv)
{
	enum { NOPT = 13 };
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
	GEOMETRY(4, "ll", c->llc);
	snprintf(opt[5], sizeof(opt[5]), "--ipcc-window=%u", window);
	size_t nopt = 6;

	if (c->dtlb.size && c->stlb.size) {
		GEOMETRY(6, "dtlb", c->dtlb);
		GEOMETRY(7, "stlb", c->stlb);
		nopt = 8;
	}
	if (c->btb.size) {
		GEOMETRY(nopt, "btb", c->btb);
		nopt++;
	}
	if (c->btb2.size) {
		GEOMETRY(nopt, "btb2", c->btb2);
		nopt++;
	}
	if (c->fe_line)
		snprintf(opt[nopt++], sizeof(opt[0]), "--ipcc-fe=%u,%u", c->fe_line, c->fe_half);
	if (c->llc_share)
		snprintf(opt[nopt++], sizeof(opt[0]), "--ipcc-llc-share=%" PRIu64, c->llc_share);
#undef GEOMETRY
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
