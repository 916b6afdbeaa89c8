/*
 * fuzz_sample_ring.c - a libFuzzer target for the sample ring reader: any bytes in the
 * fake kernel's ring (the first two choose where in the ring they start, so records
 * straddle its end), drained; records, mappings and corrupt sizes must never crash,
 * read outside the ring, or loop. CTest runs it for a bounded time in the sanitizer build
 * (fuzz.sample_ring).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fake_kernel.h"
#include "ipcc/sample.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_sample(void *arg, const struct ipcc_sample *s)
{
	*(uint64_t *)arg += s->ip;
}

static void on_mmap(void *arg, const struct ipcc_sample_mmap *m)
{
	*(uint64_t *)arg += strlen(m->filename) + m->addr;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ipcc_sampler_opts o = { .period = 1000, .ring_pages = 1, .mmaps = true };
	struct ipcc_sampler *s = NULL;
	struct perf_event_mmap_page *pg;
	unsigned char *ring;
	uint64_t sink = 0, start;
	struct ipcc_sample_handler h = { on_sample, on_mmap, &sink };

	if (size < 2)
		return 0;
	start = (uint64_t)data[0] << 8 | data[1];
	data += 2, size -= 2;
	fake_reset();
	perf_sys_set(&fake_ops);
	if (ipcc_sampler_new(&o, &s) == 0) {
		pg = fake_ring_page(ipcc_sampler_fd(s, 0));
		if (size > pg->data_size)
			size = (size_t)pg->data_size;
		ring = (unsigned char *)pg + pg->data_offset;
		start &= ~7ull; /* the kernel keeps records 8-byte aligned */
		for (size_t i = 0; i < size; i++)
			ring[(start + i) & (pg->data_size - 1)] = data[i];
		pg->data_tail = start;
		pg->data_head = start + size;
		ipcc_sampler_drain(s, &h);
		if (pg->data_tail != pg->data_head)
			abort(); /* the reader must give every byte back */
	}
	ipcc_sampler_free(s);
	perf_sys_set(NULL);
	return 0;
}
