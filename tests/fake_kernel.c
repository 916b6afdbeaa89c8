/*
 * fake_kernel.c - the fake perf kernel (see fake_kernel.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fake_kernel.h"
#include "pmu_int.h"

struct fake_kernel fake;

static struct fake_event *get(int fd)
{
	int i = fd - FAKE_FD_BASE;

	if (i < 0 || i >= FAKE_MAX_FDS || !fake.ev[i].open)
		return NULL;
	return &fake.ev[i];
}

static bool is_hw(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_RAW;
}

/* The kernel's page update: lock is odd while it writes, even when it is done. */
static void page_update(struct fake_event *e, uint64_t offset)
{
	struct perf_event_mmap_page *pg = e->page;

	if (!pg)
		return;
	pg->lock++;
	pg->offset = (int64_t)offset;
	pg->time_enabled = e->enabled_ns;
	pg->time_running = e->running_ns;
	pg->lock++;
}

/* The hardware counter an rdpmc would read now. */
static uint64_t hw_value(const struct fake_event *e)
{
	return (e->count - (uint64_t)e->page->offset) & FAKE_PMC_MASK;
}

void fake_reset(void)
{
	for (int i = 0; i < FAKE_MAX_FDS; i++) {
		free(fake.ev[i].page);
		free(fake.ev[i].ring);
	}
	memset(&fake, 0, sizeof(fake));
	fake.has_pmu = true;
	fake.paranoid = 2;
}

static int fake_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group, unsigned long fl)
{
	struct fake_event *e = NULL, *leader = NULL;
	int i;

	(void)pid, (void)fl;
	if (attr->size != sizeof(*attr))
		return errno = E2BIG, -1;
	for (int f = 0; f < fake.nfail; f++)
		if (fake.fail[f].type == attr->type && fake.fail[f].config == attr->config)
			return errno = fake.fail[f].err, -1;
	if (attr->freq && fake.max_sample_rate && attr->sample_freq > fake.max_sample_rate)
		return errno = EINVAL, -1;
	if (is_hw(attr) && !fake.has_pmu)
		return errno = ENOENT, -1;
	if (!attr->exclude_kernel && fake.paranoid > 1)
		return errno = EACCES, -1;
	if (group != -1) {
		leader = get(group);
		if (!leader || leader->leader != group)
			return errno = EINVAL, -1;
	}
	for (i = 0; i < FAKE_MAX_FDS; i++)
		if (!fake.ev[i].open)
			break;
	if (i == FAKE_MAX_FDS)
		return errno = EMFILE, -1;
	e = &fake.ev[i];
	free(e->page);
	free(e->ring);
	memset(e, 0, sizeof(*e));
	e->open = true;
	e->cpu = cpu;
	e->attr = *attr;
	e->leader = group == -1 ? FAKE_FD_BASE + i : group;
	e->enabled = !attr->disabled && (!leader || leader->enabled);
	e->page = aligned_alloc(4096, 4096);
	memset(e->page, 0, 4096);
	e->page->version = 0;
	e->page->cap_user_rdpmc = is_hw(attr);
	e->page->index = is_hw(attr) ? (uint32_t)i + 1 : 0; /* software: never rdpmc */
	e->page->pmc_width = 48;
	/*
	 * The count starts at 0 with the hardware counter at an arbitrary value H, so
	 * offset = -H and offset + pmc really is needed.
	 */
	e->count = 0;
	page_update(e, 0 - (1000000 + 17 * (uint64_t)i));
	fake.open_fds++;
	return FAKE_FD_BASE + i;
}

static int fake_ioctl(int fd, unsigned long req, unsigned long arg)
{
	struct fake_event *e = get(fd);

	if (!e)
		return errno = EBADF, -1;
	for (int i = 0; i < FAKE_MAX_FDS; i++) {
		struct fake_event *m = &fake.ev[i];

		if (!m->open || (m != e && !(arg & PERF_IOC_FLAG_GROUP && m->leader == fd)))
			continue;
		if (req == PERF_EVENT_IOC_ENABLE)
			m->enabled = true;
		else if (req == PERF_EVENT_IOC_DISABLE)
			m->enabled = false;
		else if (req == PERF_EVENT_IOC_RESET) {
			uint64_t hw = hw_value(m);

			m->count = 0;
			page_update(m, 0 - hw);
		} else
			return errno = ENOTTY, -1;
	}
	return 0;
}

static ssize_t fake_read(int fd, void *buf, size_t n)
{
	struct fake_event *e = get(fd);
	uint64_t v[3];

	fake.read_calls++;
	if (!e)
		return errno = EBADF, -1;
	if (fake.on_read)
		fake.on_read(e);
	if (e->unschedulable)
		return 0;
	if (n < sizeof(v))
		return errno = ENOSPC, -1;
	v[0] = e->count;
	v[1] = e->enabled_ns;
	v[2] = e->running_ns;
	memcpy(buf, v, sizeof(v));
	return sizeof(v);
}

static void *fake_mmap(size_t len, int fd)
{
	struct fake_event *e = get(fd);

	if (!e || len < 4096)
		return errno = EINVAL, MAP_FAILED;
	/* As the kernel does for an inherited per-task event: mmap refuses. */
	if (e->attr.inherit)
		return errno = EINVAL, MAP_FAILED;
	e->mapped = true;
	fake.mapped_pages++;
	return e->page;
}

static void *fake_mmap_ring(size_t len, int fd)
{
	struct fake_event *e = get(fd);
	size_t data = len - 4096;

	/* One page, then a power of two of pages; per-task inherited events cannot map. */
	if (!e || len < 2 * 4096 || data & (data - 1) || e->ring)
		return errno = EINVAL, MAP_FAILED;
	if (e->attr.inherit && e->cpu == -1)
		return errno = EINVAL, MAP_FAILED;
	e->ring = aligned_alloc(4096, len);
	memset(e->ring, 0, len);
	e->ring_len = len;
	((struct perf_event_mmap_page *)e->ring)->data_offset = 4096;
	((struct perf_event_mmap_page *)e->ring)->data_size = data;
	fake.mapped_pages++;
	return e->ring;
}

static int fake_munmap(void *addr, size_t len)
{
	for (int i = 0; i < FAKE_MAX_FDS; i++)
		if (fake.ev[i].ring == addr && fake.ev[i].ring_len == len) {
			free(fake.ev[i].ring);
			fake.ev[i].ring = NULL;
			fake.mapped_pages--;
			return 0;
		}
	for (int i = 0; i < FAKE_MAX_FDS; i++)
		if (fake.ev[i].page == addr && fake.ev[i].mapped) {
			fake.ev[i].mapped = false;
			fake.mapped_pages--;
			return 0;
		}
	return errno = EINVAL, -1;
}

static int fake_close(int fd)
{
	struct fake_event *e = get(fd);

	if (!e)
		return errno = EBADF, -1;
	e->open = false;
	fake.open_fds--;
	return 0;
}

static uint64_t fake_rdpmc(uint32_t counter)
{
	/* Event i's page names counter i: like a register file, one load. */
	struct fake_event *e = counter < FAKE_MAX_FDS ? &fake.ev[counter] : NULL;

	fake.rdpmc_calls++;
	if (!e || !e->open || e->page->index != counter + 1)
		return 0xdeadbeef; /* the hardware would return garbage, or fault */
	if (fake.on_read)
		fake.on_read(e);
	if (fake.lock_bumps > 0) {
		/*
		 * The kernel updates the page while the reader is between its reads: it
		 * folds the hardware counter into the offset and restarts the counter at 0.
		 * A reader that used the old offset with this rdpmc would be off.
		 */
		fake.lock_bumps--;
		e->count += 5;
		page_update(e, e->count);
	}
	return hw_value(e);
}

const struct perf_sys_ops fake_ops = {
	.perf_event_open = fake_open,
	.ioctl = fake_ioctl,
	.read = fake_read,
	.mmap = fake_mmap,
	.mmap_ring = fake_mmap_ring,
	.munmap = fake_munmap,
	.close = fake_close,
	.rdpmc = fake_rdpmc,
};

int fake_fd(uint32_t type, uint64_t config)
{
	for (int i = 0; i < FAKE_MAX_FDS; i++)
		if (fake.ev[i].open && fake.ev[i].attr.type == type &&
		    fake.ev[i].attr.config == config)
			return FAKE_FD_BASE + i;
	return -1;
}

const struct perf_sys_ops *fake_use(const char *pmu, const char *sysfs_root)
{
	setenv("LIBPFM_FORCE_PMU", pmu, 1);
	setenv("IPCC_SYSFS_ROOT", sysfs_root, 1);
	unsetenv("IPCC_RECIPE");
	pmu_reset();
	fake_reset();
	return perf_sys_set(&fake_ops);
}

void fake_unuse(const struct perf_sys_ops *old)
{
	perf_sys_set(old);
	unsetenv("LIBPFM_FORCE_PMU");
	unsetenv("IPCC_SYSFS_ROOT");
	pmu_reset();
}

void fake_add(uint32_t type, uint64_t config, uint64_t delta)
{
	for (int i = 0; i < FAKE_MAX_FDS; i++) {
		struct fake_event *e = &fake.ev[i];

		if (e->open && e->enabled && e->attr.type == type && e->attr.config == config)
			e->count += delta;
	}
}

void fake_set_hw(int fd, uint64_t hw)
{
	struct fake_event *e = get(fd);

	/* count = offset + sign_extend(hw): move the offset, keep the count. */
	uint64_t ext = hw & (1ull << 47) ? hw | ~FAKE_PMC_MASK : hw;

	page_update(e, e->count - ext);
}

void fake_time(int fd, uint64_t enabled_ns, uint64_t running_ns)
{
	struct fake_event *e = get(fd);

	e->enabled_ns += enabled_ns;
	e->running_ns += running_ns;
	page_update(e, (uint64_t)e->page->offset);
}

void fake_schedule(int fd, bool on_pmu)
{
	struct fake_event *e = get(fd);

	e->page->lock++;
	e->page->index = on_pmu ? (uint32_t)(fd - FAKE_FD_BASE) + 1 : 0;
	e->page->lock++;
}

struct perf_event_mmap_page *fake_ring_page(int fd)
{
	struct fake_event *e = get(fd);

	return e ? (struct perf_event_mmap_page *)e->ring : NULL;
}

/* Copy a record in at data_head, wrapping; false (and nothing written) if it does not fit. */
static bool ring_write(struct fake_event *e, const void *rec, size_t size)
{
	struct perf_event_mmap_page *pg = (struct perf_event_mmap_page *)e->ring;
	unsigned char *data = e->ring + pg->data_offset;
	uint64_t head = pg->data_head, tail = __atomic_load_n(&pg->data_tail, __ATOMIC_ACQUIRE);

	if (head - tail + size > pg->data_size)
		return false;
	for (size_t i = 0; i < size; i++)
		data[(head + i) & (pg->data_size - 1)] = ((const unsigned char *)rec)[i];
	__atomic_store_n(&pg->data_head, head + size, __ATOMIC_RELEASE);
	return true;
}

void fake_ring_put(int fd, const struct perf_event_header *rec)
{
	struct fake_event *e = get(fd);

	if (e->ring_lost) {
		struct {
			struct perf_event_header h;
			uint64_t id, lost;
		} lost = { { PERF_RECORD_LOST, 0, sizeof(lost) }, 0, e->ring_lost };

		if (!ring_write(e, &lost, sizeof(lost))) {
			e->ring_lost++;
			return;
		}
		e->ring_lost = 0;
	}
	if (!ring_write(e, rec, rec->size))
		e->ring_lost++;
}

void fake_ring_sample(int fd, uint64_t ip, uint32_t pid, uint32_t tid, uint64_t time, uint32_t cpu)
{
	struct {
		struct perf_event_header h;
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time;
		uint32_t cpu, res;
	} r = {
		{ PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(r) }, ip, pid, tid, time, cpu, 0
	};

	fake_ring_put(fd, &r.h);
}
