/*
 * pprof.c - a profile file as a gzip-compressed pprof Profile: the messages of
 * src/export/profile.proto (google/pprof's, compiled by protoc-c at build time) filled in
 * and packed by protobuf-c, then compressed by zlib.
 *
 * Samples are resolved with src/symbols.c and grouped three ways, each by sorting: by
 * (mapping, address) into locations, by function into functions, and by (location, process,
 * thread) into pprof samples. Every string is in the string table once.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "error_int.h"
#include "ipcc/pprof.h"
#include "profile.pb-c.h"

/* The string table, with an open-addressing index of it (slots hold index + 1, 0 empty). */
struct strtab {
	char **s;
	size_t n, cap;
	size_t *slot;
	size_t nslots;
};

static uint64_t hash(const char *s)
{
	uint64_t h = 14695981039346656037ull; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int grow(struct strtab *t)
{
	size_t nslots = t->nslots ? 2 * t->nslots : 256;
	size_t *slot = calloc(nslots, sizeof(*slot));
	char **s = realloc(t->s, nslots / 2 * sizeof(*s));

	if (!slot || !s) {
		free(slot);
		if (s)
			t->s = s;
		return -1;
	}
	t->s = s;
	t->cap = nslots / 2;
	for (size_t i = 0; i < t->n; i++) {
		size_t k = hash(t->s[i]) & (nslots - 1);

		while (slot[k])
			k = (k + 1) & (nslots - 1);
		slot[k] = i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->nslots = nslots;
	return 0;
}

/* The index of string s in the table, added if new; -1 if out of memory. */
static int64_t str(struct strtab *t, const char *s)
{
	size_t k;

	if (t->n == t->cap && grow(t))
		return -1;
	k = hash(s) & (t->nslots - 1);
	while (t->slot[k]) {
		if (!strcmp(t->s[t->slot[k] - 1], s))
			return (int64_t)(t->slot[k] - 1);
		k = (k + 1) & (t->nslots - 1);
	}
	if (!(t->s[t->n] = strdup(s)))
		return -1;
	t->slot[k] = ++t->n;
	return (int64_t)(t->n - 1);
}

static void strtab_release(struct strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->slot);
}

/* What one recorded sample resolved to, and where it goes. */
struct place {
	const struct ipcc_sample *s;
	struct ipcc_symbol y;
	uint64_t mapping;  /* pprof mapping id, 0: none */
	uint64_t location; /* pprof location id */
};

static int by_address(const void *a, const void *b)
{
	const struct place *x = *(const struct place *const *)a,
			   *y = *(const struct place *const *)b;

	if (x->mapping != y->mapping)
		return x->mapping < y->mapping ? -1 : 1;
	return x->s->ip < y->s->ip ? -1 : x->s->ip > y->s->ip;
}

static int by_thread(const void *a, const void *b)
{
	const struct place *x = *(const struct place *const *)a,
			   *y = *(const struct place *const *)b;

	if (x->location != y->location)
		return x->location < y->location ? -1 : 1;
	if (x->s->pid != y->s->pid)
		return x->s->pid < y->s->pid ? -1 : 1;
	return x->s->tid < y->s->tid ? -1 : x->s->tid > y->s->tid;
}

static int by_function(const void *a, const void *b)
{
	const char *x = (*(const struct place *const *)a)->y.function;
	const char *y = (*(const struct place *const *)b)->y.function;

	return x == y ? 0 : (uintptr_t)x < (uintptr_t)y ? -1 : 1;
}

static bool is_clock(const char *event)
{
	return !strcmp(event, "task-clock") || !strcmp(event, "cpu-clock");
}

/*
 * The events one sample stands for, or 0 where the kernel chose the period (--freq of a
 * counting event). A clock event with a frequency has the fixed period 10^9/freq ns, and a
 * clock fires at most every 10 us (the kernel's perf_swevent_start_hrtimer()).
 */
static uint64_t sample_period(const struct ipcc_recording_summary *s)
{
	uint64_t period = s->period;

	if (!is_clock(s->event))
		return period;
	if (!period && s->freq)
		period = 1000000000u / s->freq;
	return period && period < 10000 ? 10000 : period;
}

/* Everything the Profile message points at. */
struct build {
	struct strtab st;
	struct place *pl, **order;
	uint64_t *map_of; /* per recorded mapping: its pprof mapping id, 0 if unused */
	Perftools__Profiles__ValueType vt[2], *vtp[2];
	Perftools__Profiles__Mapping *map, **mapp;
	Perftools__Profiles__Location *loc, **locp;
	Perftools__Profiles__Line *line, **linep;
	Perftools__Profiles__Function *fn, **fnp;
	Perftools__Profiles__Sample *smp, **smpp;
	Perftools__Profiles__Label *lab, **labp;
	uint64_t *locid;
	int64_t *val, comment[4];
	size_t nmap, nloc, nfn, nsmp;
};

static void build_release(struct build *b)
{
	strtab_release(&b->st);
	free(b->pl);
	free(b->order);
	free(b->map_of);
	free(b->map);
	free(b->mapp);
	free(b->loc);
	free(b->locp);
	free(b->line);
	free(b->linep);
	free(b->fn);
	free(b->fnp);
	free(b->smp);
	free(b->smpp);
	free(b->lab);
	free(b->labp);
	free(b->locid);
	free(b->val);
}

/*
 * One mapping per distinct recorded mapping (address, length, offset, file) with samples, and
 * the first recorded one first.
 */
static int add_mappings(struct build *b, const struct ipcc_recording *p, struct ipcc_symbols *syms)
{
	size_t n = p->nsamples;

	/* The first recorded mapping is the command's executable: pprof's main binary. */
	if (p->nmmaps)
		b->map_of[0] = 1;
	for (size_t i = 0; i < n; i++)
		if (b->pl[i].y.mmap)
			b->map_of[b->pl[i].y.mmap - p->mmaps] = 1;
	for (size_t i = 0; i < p->nmmaps; i++) {
		const struct ipcc_recording_mmap *m = &p->mmaps[i];
		Perftools__Profiles__Mapping *g;
		const char *id;
		size_t k;

		if (!b->map_of[i])
			continue;
		for (k = 0; k < b->nmap; k++)
			if (b->map[k].memory_start == m->addr &&
			    b->map[k].memory_limit == m->addr + m->len &&
			    b->map[k].file_offset == m->pgoff &&
			    !strcmp(b->st.s[b->map[k].filename], m->filename))
				break;
		b->map_of[i] = k + 1;
		if (k < b->nmap)
			continue;
		g = &b->map[b->nmap];
		perftools__profiles__mapping__init(g);
		g->id = ++b->nmap;
		g->memory_start = m->addr;
		g->memory_limit = m->addr + m->len;
		g->file_offset = m->pgoff;
		g->filename = str(&b->st, m->filename);
		id = ipcc_symbols_build_id(syms, m->filename);
		g->build_id = id ? str(&b->st, id) : 0;
		if (g->filename < 0 || g->build_id < 0)
			return -1;
		b->mapp[k] = g;
	}
	for (size_t i = 0; i < n; i++) {
		struct place *q = &b->pl[i];

		q->mapping = q->y.mmap ? b->map_of[q->y.mmap - p->mmaps] : 0;
		/* Symbols resolve functions: pprof need not look them up again. */
		if (q->y.function && q->mapping)
			b->map[q->mapping - 1].has_functions = 1;
	}
	return 0;
}

/* One location per (mapping, address); one function per symbol with samples. */
static int add_locations(struct build *b, size_t n)
{
	qsort(b->order, n, sizeof(*b->order), by_address);
	for (size_t i = 0; i < n; i++) {
		struct place *q = b->order[i], *prev = i ? b->order[i - 1] : NULL;
		Perftools__Profiles__Location *l;

		if (prev && by_address(&prev, &b->order[i]) == 0) {
			q->location = prev->location;
			continue;
		}
		l = &b->loc[b->nloc];
		perftools__profiles__location__init(l);
		l->id = ++b->nloc;
		l->mapping_id = q->mapping;
		l->address = q->s->ip;
		b->locp[b->nloc - 1] = l;
		q->location = l->id;
	}
	/* Functions, by the symbol's name string: one pointer per function of a file. */
	qsort(b->order, n, sizeof(*b->order), by_function);
	for (size_t i = 0; i < n; i++) {
		struct place *q = b->order[i];
		Perftools__Profiles__Location *l = &b->loc[q->location - 1];
		Perftools__Profiles__Line *ln = &b->line[q->location - 1];

		if (!q->y.function || l->n_line)
			continue;
		if (!i || by_function(&b->order[i - 1], &b->order[i]) != 0) {
			Perftools__Profiles__Function *f = &b->fn[b->nfn];

			perftools__profiles__function__init(f);
			f->id = ++b->nfn;
			f->name = str(&b->st, q->y.demangled);
			f->system_name = str(&b->st, q->y.function);
			if (f->name < 0 || f->system_name < 0)
				return -1;
			b->fnp[b->nfn - 1] = f;
		}
		perftools__profiles__line__init(ln);
		ln->function_id = b->nfn;
		b->linep[q->location - 1] = ln;
		l->n_line = 1;
		l->line = &b->linep[q->location - 1];
	}
	return 0;
}

/* One pprof sample per (location, process, thread), labelled with the pid and tid. */
static int add_samples(struct build *b, size_t n, size_t nval, uint64_t period)
{
	int64_t pid = str(&b->st, "pid"), tid = str(&b->st, "tid");

	if (pid < 0 || tid < 0)
		return -1;
	qsort(b->order, n, sizeof(*b->order), by_thread);
	for (size_t i = 0; i < n; i++) {
		struct place *q = b->order[i];
		Perftools__Profiles__Sample *s;
		Perftools__Profiles__Label *l;

		if (i && by_thread(&b->order[i - 1], &b->order[i]) == 0) {
			s = &b->smp[b->nsmp - 1];
			s->value[0]++;
			if (nval > 1)
				s->value[1] += (int64_t)period;
			continue;
		}
		s = &b->smp[b->nsmp];
		perftools__profiles__sample__init(s);
		s->n_location_id = 1;
		s->location_id = &b->locid[b->nsmp];
		s->location_id[0] = q->location;
		s->n_value = nval;
		s->value = &b->val[nval * b->nsmp];
		s->value[0] = 1;
		if (nval > 1)
			s->value[1] = (int64_t)period;
		l = &b->lab[2 * b->nsmp];
		perftools__profiles__label__init(&l[0]);
		perftools__profiles__label__init(&l[1]);
		l[0].key = pid;
		l[0].num = q->s->pid;
		l[1].key = tid;
		l[1].num = q->s->tid;
		b->labp[2 * b->nsmp] = &l[0];
		b->labp[2 * b->nsmp + 1] = &l[1];
		s->n_label = 2;
		s->label = &b->labp[2 * b->nsmp];
		b->smpp[b->nsmp++] = s;
	}
	return 0;
}

/* The summary as comments; the sample types; the period. */
static int describe(struct build *b, const struct ipcc_recording *p, uint64_t period,
		    Perftools__Profiles__Profile *pr)
{
	const struct ipcc_recording_summary *s = &p->summary;
	bool clock = p->has_summary && is_clock(s->event);
	char buf[4][256];
	size_t nc = 0;

	perftools__profiles__value_type__init(&b->vt[0]);
	perftools__profiles__value_type__init(&b->vt[1]);
	b->vt[0].type = str(&b->st, "samples");
	b->vt[0].unit = str(&b->st, "count");
	b->vt[1].type = str(&b->st, clock ? "cpu" : p->has_summary ? s->event : "");
	b->vt[1].unit = str(&b->st, clock ? "nanoseconds" : "count");
	b->vtp[0] = &b->vt[0];
	b->vtp[1] = &b->vt[1];
	pr->sample_type = b->vtp;
	pr->n_sample_type = period ? 2 : 1;
	if (period) {
		pr->period_type = &b->vt[1];
		pr->period = (int64_t)period;
	}
	if (p->has_summary) {
		snprintf(buf[nc++], sizeof(buf[0]), "ipcc record: %s, %s %" PRIu64 "%s", s->event,
			 s->period ? "period" : "freq", s->period ? s->period : s->freq,
			 s->period ? "" : " Hz");
		snprintf(buf[nc++], sizeof(buf[0]),
			 "%" PRIu64 " samples, %" PRIu64 " lost, throttled %" PRIu64 " times",
			 s->samples, s->lost, s->throttles);
		if (period)
			snprintf(buf[nc++], sizeof(buf[0]), "one sample per %" PRIu64 " %s", period,
				 clock ? "ns of CPU time" : "events");
		else
			snprintf(buf[nc++], sizeof(buf[0]),
				 "the kernel chose each sample's period (freq): event counts "
				 "unknown, samples only");
	} else {
		snprintf(buf[nc++], sizeof(buf[0]), "ipcc record: no summary (interrupted?)");
	}
	snprintf(buf[nc++], sizeof(buf[0]),
		 "functions from ELF symbol tables; no source lines; no call stacks");
	for (size_t i = 0; i < nc; i++)
		if ((b->comment[i] = str(&b->st, buf[i])) < 0)
			return -1;
	pr->comment = b->comment;
	pr->n_comment = nc;
	return b->vt[0].type < 0 || b->vt[0].unit < 0 || b->vt[1].type < 0 || b->vt[1].unit < 0 ? -1
												: 0;
}

static int alloc_build(struct build *b, const struct ipcc_recording *p, size_t nval)
{
	size_t n = p->nsamples + 1, m = p->nmmaps + 1;

	memset(b, 0, sizeof(*b));
	return !(b->pl = calloc(n, sizeof(*b->pl))) || !(b->order = calloc(n, sizeof(*b->order))) ||
		       !(b->map_of = calloc(m, sizeof(*b->map_of))) ||
		       !(b->map = calloc(m, sizeof(*b->map))) ||
		       !(b->mapp = calloc(m, sizeof(*b->mapp))) ||
		       !(b->loc = calloc(n, sizeof(*b->loc))) ||
		       !(b->locp = calloc(n, sizeof(*b->locp))) ||
		       !(b->line = calloc(n, sizeof(*b->line))) ||
		       !(b->linep = calloc(n, sizeof(*b->linep))) ||
		       !(b->fn = calloc(n, sizeof(*b->fn))) ||
		       !(b->fnp = calloc(n, sizeof(*b->fnp))) ||
		       !(b->smp = calloc(n, sizeof(*b->smp))) ||
		       !(b->smpp = calloc(n, sizeof(*b->smpp))) ||
		       !(b->lab = calloc(2 * n, sizeof(*b->lab))) ||
		       !(b->labp = calloc(2 * n, sizeof(*b->labp))) ||
		       !(b->locid = calloc(n, sizeof(*b->locid))) ||
		       !(b->val = calloc(nval * n, sizeof(*b->val))) || str(&b->st, "") != 0
		   ? -1
		   : 0;
}

/* gzip (RFC 1952) the n bytes at in into a new buffer. */
static int gzip(const void *in, size_t n, void **out, size_t *len)
{
	z_stream z = { 0 };
	unsigned char *buf;
	uLong cap;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return err_set(IPCC_ESYS, "zlib: %s", z.msg ? z.msg : "deflateInit2 failed");
	cap = deflateBound(&z, (uLong)n) + 32;
	if (!(buf = malloc(cap))) {
		deflateEnd(&z);
		return err_set(IPCC_ENOMEM, "pprof: %zu bytes", (size_t)cap);
	}
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)n;
	z.next_out = buf;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&z);
		free(buf);
		return err_set(IPCC_ESYS, "zlib: deflate did not finish");
	}
	*len = z.total_out;
	*out = buf;
	deflateEnd(&z);
	return 0;
}

int ipcc_pprof_encode(const struct ipcc_recording *p, struct ipcc_symbols *syms,
		      const struct ipcc_pprof_opts *o, void **out, size_t *len)
{
	Perftools__Profiles__Profile pr = PERFTOOLS__PROFILES__PROFILE__INIT;
	uint64_t period = p->has_summary ? sample_period(&p->summary) : 0;
	size_t nval = period ? 2 : 1, n = p->nsamples, packed_len;
	uint64_t first = UINT64_MAX, last = 0;
	struct build b;
	uint8_t *packed = NULL;
	int ret;

	*out = NULL;
	*len = 0;
	if (alloc_build(&b, p, nval))
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		b.pl[i].s = &p->samples[i];
		ipcc_symbols_resolve(syms, &p->samples[i], &b.pl[i].y);
		b.order[i] = &b.pl[i];
		if (p->samples[i].time_ns < first)
			first = p->samples[i].time_ns;
		if (p->samples[i].time_ns > last)
			last = p->samples[i].time_ns;
	}
	if (add_mappings(&b, p, syms) || add_locations(&b, n) || add_samples(&b, n, nval, period) ||
	    describe(&b, p, period, &pr))
		goto nomem;
	pr.n_mapping = b.nmap;
	pr.mapping = b.mapp;
	pr.n_location = b.nloc;
	pr.location = b.locp;
	pr.n_function = b.nfn;
	pr.function = b.fnp;
	pr.n_sample = b.nsmp;
	pr.sample = b.smpp;
	pr.n_string_table = b.st.n;
	pr.string_table = b.st.s;
	pr.duration_nanos = n > 1 ? (int64_t)(last - first) : 0;
	pr.time_nanos = o ? o->time_nanos : 0;
	packed_len = perftools__profiles__profile__get_packed_size(&pr);
	if (!(packed = malloc(packed_len ? packed_len : 1)))
		goto nomem;
	perftools__profiles__profile__pack(&pr, packed);
	ret = gzip(packed, packed_len, out, len);
	free(packed);
	build_release(&b);
	return ret;
nomem:
	build_release(&b);
	return err_set(IPCC_ENOMEM, "pprof: out of memory for %zu samples", n);
}

int ipcc_pprof_write(const struct ipcc_recording *p, struct ipcc_symbols *syms,
		     const struct ipcc_pprof_opts *o, const char *path)
{
	size_t plen = strlen(path), len, done = 0;
	char *tmp = malloc(plen + 32);
	void *data;
	int fd = -1, ret;
	bool direct = false;
	struct stat st;

	if (!tmp)
		return err_set(IPCC_ENOMEM, "pprof: %s", path);
	ret = ipcc_pprof_encode(p, syms, o, &data, &len);
	if (ret) {
		free(tmp);
		return ret;
	}
	/*
	 * A name of our own beside the file: the same file system, so rename() replaces it;
	 * but a device, a FIFO or a symbolic link (/dev/null, /dev/stdout) is written straight
	 * to, where a rename would put a regular file in its place.
	 */
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		direct = true;
		fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC); /* a link's target: no old tail */
	}
	for (unsigned k = 0; k < 100 && fd < 0 && !direct; k++) {
		snprintf(tmp, plen + 32, "%s.tmp%ld.%u", path, (long)getpid(), k);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		ret = err_sys("cannot write %s", path);
		goto out;
	}
	while (done < len) {
		ssize_t w = write(fd, (char *)data + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	if (done < len || close(fd)) {
		ret = err_sys("writing %s", path);
		if (done < len)
			close(fd);
		if (!direct)
			unlink(tmp);
		goto out;
	}
	if (!direct && rename(tmp, path)) {
		ret = err_sys("cannot write %s", path);
		unlink(tmp);
	}
out:
	free(data);
	free(tmp);
	return ret;
}
