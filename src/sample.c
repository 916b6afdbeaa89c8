/*
 * sample.c - interrupt sampling through perf_event_open and the mmap ring buffer.
 *
 * The ring protocol (include/uapi/linux/perf_event.h, perf_event_open(2)): the first page is
 * the perf_event_mmap_page; the data area follows at data_offset, data_size bytes, a power of
 * two. The kernel writes records at data_head and only advances it; the reader loads
 * data_head with acquire order, reads the records between data_tail and data_head, then
 * stores data_tail with release order to give the space back. A writable mapping is what
 * tells the kernel the reader moves data_tail (a read-only one would overwrite). A record
 * may wrap around the end of the data area: it is copied out before it is parsed.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "error_int.h"
#include "ipcc/sample.h"
#include "perf_sys_int.h"
#include "pmu_int.h"

#define DEFAULT_RING_PAGES 64
#define MAX_RINGS	   1024

#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

struct ring {
	int fd;
	struct perf_event_mmap_page *page; /* NULL: not mapped */
	unsigned char *data;
	uint64_t size; /* of the data area, a power of two */
};

struct ipcc_sampler {
	size_t map_len;
	unsigned nrings;
	struct ipcc_sampler_stats stats;
	struct ring ring[];
};

/* The kernel's own names for its generic events, then libpfm4 for the rest. */
static int encode(const char *name, struct perf_event_attr *attr)
{
	static const struct {
		const char *name;
		uint32_t type;
		uint64_t config;
	} generic[] = {
		{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
		{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
		{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	};

	if (!name)
		name = "task-clock";
	for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
		if (!strcmp(name, generic[i].name)) {
			memset(attr, 0, sizeof(*attr));
			attr->size = sizeof(*attr);
			attr->type = generic[i].type;
			attr->config = generic[i].config;
			return 0;
		}
	return pmu_encode(name, false, attr);
}

uint64_t ipcc_sample_max_rate(void)
{
	const char *root = getenv("IPCC_PROCFS_ROOT");
	char path[512];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/sys/kernel/perf_event_max_sample_rate",
		 root ? root : "");
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

static int open_failed(const struct perf_event_attr *attr, const char *event, int err)
{
	uint64_t max = ipcc_sample_max_rate();

	if (err == EINVAL && attr->freq && max && attr->sample_freq > max)
		return err_set(IPCC_EINVAL,
			       "%llu samples/s is above the kernel's limit, "
			       "perf_event_max_sample_rate = %llu",
			       (unsigned long long)attr->sample_freq, (unsigned long long)max);
	if (err == EACCES || err == EPERM)
		return err_set(IPCC_EACCES, "perf_event_open(%s): %s (perf_event_paranoid?)", event,
			       strerror(err));
	if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)
		return err_set(IPCC_ENOTSUP, "perf_event_open(%s): %s (no PMU for it here?)", event,
			       strerror(err));
	errno = err;
	return err_sys("perf_event_open(%s)", event);
}

static int map_ring(struct ring *r, size_t len)
{
	void *p = perf_sys->mmap_ring(len, r->fd);

	if (p == MAP_FAILED)
		return err_sys("mmap of the sample ring (%zu bytes)", len);
	r->page = p;
	/* data_offset and data_size exist from Linux 4.1; before, the data follows page 0. */
	if (r->page->data_size) {
		r->data = (unsigned char *)p + r->page->data_offset;
		r->size = r->page->data_size;
	} else {
		r->data = (unsigned char *)p + (size_t)sysconf(_SC_PAGESIZE);
		r->size = len - (size_t)sysconf(_SC_PAGESIZE);
	}
	return 0;
}

int ipcc_sampler_new(const struct ipcc_sampler_opts *o, struct ipcc_sampler **out)
{
	const char *event = o->event ? o->event : "task-clock";
	unsigned pages = o->ring_pages ? o->ring_pages : DEFAULT_RING_PAGES;
	long page_size = sysconf(_SC_PAGESIZE);
	long ncpu = o->inherit ? sysconf(_SC_NPROCESSORS_CONF) : 1;
	struct perf_event_attr attr;
	struct ipcc_sampler *s;
	int ret;

	*out = NULL;
	if (pages & (pages - 1))
		return err_set(IPCC_EINVAL, "ring pages %u is not a power of two", pages);
	if (ncpu < 1 || ncpu > MAX_RINGS)
		return err_set(IPCC_ENOTSUP, "cannot sample on %ld CPUs", ncpu);
	ret = encode(event, &attr);
	if (ret)
		return ret;
	attr.sample_type = SAMPLE_TYPE;
	if (o->period) {
		attr.sample_period = o->period;
	} else {
		attr.freq = 1;
		attr.sample_freq = o->freq ? o->freq : IPCC_SAMPLE_DEFAULT_FREQ;
	}
	attr.disabled = 1;
	attr.enable_on_exec = o->enable_on_exec;
	attr.inherit = o->inherit;
	attr.exclude_hv = 1;
	attr.exclude_kernel = 1; /* needs only perf_event_paranoid <= 2 */
	attr.mmap = o->mmaps;
	attr.mmap2 = o->mmaps;
	attr.comm = o->mmaps;
	attr.sample_id_all = 1;
	attr.watermark = 1;
	attr.wakeup_watermark = (uint32_t)((uint64_t)pages * (uint64_t)page_size / 2);

	s = calloc(1, sizeof(*s) + (size_t)ncpu * sizeof(s->ring[0]));
	if (!s)
		return err_set(IPCC_ENOMEM, "sampler for %ld CPUs", ncpu);
	s->map_len = (size_t)(pages + 1) * (size_t)page_size;
	for (long cpu = 0; cpu < ncpu; cpu++) {
		struct ring *r = &s->ring[s->nrings];

		r->fd = perf_sys->perf_event_open(&attr, o->pid, o->inherit ? (int)cpu : -1, -1,
						  PERF_FLAG_FD_CLOEXEC);
		if (r->fd < 0) {
			/* A CPU the kernel lists but has not brought online: no ring there. */
			if (o->inherit && errno == ENODEV)
				continue;
			ret = open_failed(&attr, event, errno);
			goto fail;
		}
		s->nrings++;
		ret = map_ring(r, s->map_len);
		if (ret)
			goto fail;
	}
	if (!s->nrings) {
		ret = err_set(IPCC_ENOTSUP, "no online CPU to sample on");
		goto fail;
	}
	*out = s;
	return 0;
fail:
	ipcc_sampler_free(s);
	return ret;
}

void ipcc_sampler_free(struct ipcc_sampler *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->nrings; i++) {
		if (s->ring[i].page)
			perf_sys->munmap(s->ring[i].page, s->map_len);
		perf_sys->close(s->ring[i].fd);
	}
	free(s);
}

static int ioctl_all(struct ipcc_sampler *s, unsigned long req, const char *what)
{
	for (unsigned i = 0; i < s->nrings; i++)
		if (perf_sys->ioctl(s->ring[i].fd, req, 0) < 0)
			return err_sys("%s the sampling event", what);
	return 0;
}

int ipcc_sampler_enable(struct ipcc_sampler *s)
{
	return ioctl_all(s, PERF_EVENT_IOC_ENABLE, "enable");
}

int ipcc_sampler_disable(struct ipcc_sampler *s)
{
	return ioctl_all(s, PERF_EVENT_IOC_DISABLE, "disable");
}

unsigned ipcc_sampler_nfds(const struct ipcc_sampler *s)
{
	return s->nrings;
}

int ipcc_sampler_fd(const struct ipcc_sampler *s, unsigned i)
{
	return i < s->nrings ? s->ring[i].fd : -1;
}

const struct ipcc_sampler_stats *ipcc_sampler_stats(const struct ipcc_sampler *s)
{
	return &s->stats;
}

/* A record's fields, read in order from its body. */
struct cursor {
	const unsigned char *p, *end;
};

static bool take(struct cursor *c, void *dst, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return false;
	memcpy(dst, c->p, n);
	c->p += n;
	return true;
}

static bool parse_sample(struct cursor *c, uint16_t misc, struct ipcc_sample *smp)
{
	uint32_t cpu_res[2];

	/* In sample_type bit order: IP, TID, TIME, CPU. */
	if (!take(c, &smp->ip, 8) || !take(c, &smp->pid, 4) || !take(c, &smp->tid, 4) ||
	    !take(c, &smp->time_ns, 8) || !take(c, cpu_res, 8))
		return false;
	smp->cpu = cpu_res[0];
	smp->user = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER;
	return true;
}

static bool parse_mmap2(struct cursor *c, struct ipcc_sample_mmap *m)
{
	uint32_t maj_min[2], prot_flags[2];
	uint64_t ino[2];
	const unsigned char *nul;

	if (!take(c, &m->pid, 4) || !take(c, &m->tid, 4) || !take(c, &m->addr, 8) ||
	    !take(c, &m->len, 8) || !take(c, &m->pgoff, 8) || !take(c, maj_min, 8) ||
	    !take(c, ino, 16) || !take(c, prot_flags, 8))
		return false;
	/* The file name is NUL-terminated and padded to 8 bytes; sample_id follows. */
	nul = memchr(c->p, '\0', (size_t)(c->end - c->p));
	if (!nul)
		return false;
	m->filename = (const char *)c->p;
	return true;
}

/* Parse one whole record; false if it is too short for its type. */
static bool dispatch(struct ipcc_sampler *s, const struct perf_event_header *hdr,
		     const struct ipcc_sample_handler *h)
{
	struct cursor c = { (const unsigned char *)(hdr + 1),
			    (const unsigned char *)hdr + hdr->size };
	struct ipcc_sample smp;
	struct ipcc_sample_mmap m;
	uint64_t lost[2];

	switch (hdr->type) {
	case PERF_RECORD_SAMPLE:
		if (!parse_sample(&c, hdr->misc, &smp))
			return false;
		s->stats.samples++;
		if (h && h->sample)
			h->sample(h->arg, &smp);
		return true;
	case PERF_RECORD_MMAP2:
		if (!parse_mmap2(&c, &m))
			return false;
		if (h && h->mmap)
			h->mmap(h->arg, &m);
		return true;
	case PERF_RECORD_LOST:
		if (!take(&c, lost, sizeof(lost))) /* id, lost */
			return false;
		s->stats.lost += lost[1];
		return true;
	case PERF_RECORD_THROTTLE:
		s->stats.throttles++;
		return true;
	case PERF_RECORD_UNTHROTTLE:
		s->stats.unthrottles++;
		return true;
	default: /* COMM, EXIT, FORK, ...: not needed */
		return true;
	}
}

static int drain_ring(struct ipcc_sampler *s, struct ring *r, const struct ipcc_sample_handler *h)
{
	/* Large enough for any record: header.size is 16 bits. */
	static _Thread_local uint64_t copy[65536 / 8];
	uint64_t head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->page->data_tail;
	uint64_t mask = r->size - 1;
	int ret = 0;

	while (tail < head) {
		uint64_t off = tail & mask;
		struct perf_event_header hdr;
		const struct perf_event_header *rec;

		/*
		 * The kernel only moves data_head past whole records whose sizes are multiples
		 * of 8, so a header cannot straddle the end: only a corrupt size could do that,
		 * and one is caught here.
		 */
		memset(&hdr, 0, sizeof(hdr));
		for (size_t i = 0; i < sizeof(hdr) && i < head - tail; i++)
			((unsigned char *)&hdr)[i] = r->data[(off + i) & mask];
		if (hdr.size < sizeof(hdr) || hdr.size % 8 || hdr.size > head - tail) {
			/* The stream cannot be followed past this: give the rest back. */
			s->stats.corrupt++;
			ret = err_set(IPCC_EINVAL, "corrupt sample ring: a record of %u bytes",
				      hdr.size);
			tail = head;
			break;
		}
		if (off + hdr.size <= r->size) {
			rec = (const struct perf_event_header *)(r->data + off);
		} else {
			size_t first = (size_t)(r->size - off);

			memcpy(copy, r->data + off, first);
			memcpy((unsigned char *)copy + first, r->data, hdr.size - first);
			rec = (const struct perf_event_header *)copy;
		}
		if (!dispatch(s, rec, h))
			s->stats.corrupt++;
		tail += hdr.size;
	}
	__atomic_store_n(&r->page->data_tail, tail, __ATOMIC_RELEASE);
	return ret;
}

int ipcc_sampler_drain(struct ipcc_sampler *s, const struct ipcc_sample_handler *h)
{
	uint64_t before = s->stats.samples;
	int ret = 0;

	for (unsigned i = 0; i < s->nrings; i++) {
		int r = drain_ring(s, &s->ring[i], h);

		if (r && !ret)
			ret = r;
	}
	return ret ? ret : (int)(s->stats.samples - before);
}
