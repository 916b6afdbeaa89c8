/*
 * sample.h - interrupt sampling: where the program was when the sampling event overflowed.
 *
 * A sampler opens one sampling event (task-clock by default: a software event, so it works
 * without a PMU) on a thread, or on a task and its children, and maps the kernel's ring
 * buffer for it (one ring per CPU for an inherited event: the kernel refuses to mmap a
 * per-task inherited one). ipcc_sampler_drain() hands each record in the rings to the
 * caller's handler -- samples (IP, pid/tid, time, CPU) and, when asked for, executable
 * mappings -- and keeps the counts the caller must see: samples, samples the kernel lost
 * because a ring was full, and throttling (the kernel lowering the rate because sampling
 * took more CPU than perf_cpu_time_max_percent allows).
 *
 * The caller owns the sampler and frees it with ipcc_sampler_free(); the records handed to
 * the handler live only for the call.
 */
#ifndef IPCC_SAMPLE_H
#define IPCC_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Samples per second when neither a period nor a rate is asked for (perf record's too). */
#define IPCC_SAMPLE_DEFAULT_FREQ 4000

struct ipcc_sampler_opts {
	/*
	 * NULL or "task-clock" (software, ns on a CPU), "cpu-clock" (software, wall ns),
	 * "cycles" or "instructions" (the kernel's generic hardware events), or a libpfm4 name.
	 */
	const char *event;
	uint64_t period;     /* events between samples (ns for the clocks); 0: use freq */
	uint64_t freq;	     /* samples per second when period is 0; 0: the default */
	pid_t pid;	     /* 0: the calling thread; otherwise that task */
	bool inherit;	     /* the task's threads and children too: one ring per CPU */
	bool enable_on_exec; /* start when the task calls exec (otherwise: disabled) */
	bool mmaps;	     /* report executable mappings (PERF_RECORD_MMAP2) */
	unsigned ring_pages; /* data pages per ring, a power of two; 0: 64 */
};

/* One sample. */
struct ipcc_sample {
	uint64_t ip;
	uint64_t time_ns; /* the kernel's perf clock (CLOCK_MONOTONIC-like) */
	uint32_t pid, tid;
	uint32_t cpu;
	bool user; /* the IP is in user space */
};

/* An executable mapping: `filename` mapped at [addr, addr + len) from file offset pgoff. */
struct ipcc_sample_mmap {
	uint64_t addr, len, pgoff;
	uint32_t pid, tid;
	const char *filename;
};

struct ipcc_sample_handler {
	void (*sample)(void *arg, const struct ipcc_sample *s);
	void (*mmap)(void *arg, const struct ipcc_sample_mmap *m); /* NULL: not wanted */
	void *arg;
};

struct ipcc_sampler_stats {
	uint64_t samples;     /* handed to the handler */
	uint64_t lost;	      /* lost by the kernel: a ring was full */
	uint64_t throttles;   /* times the kernel throttled the event */
	uint64_t unthrottles; /* ... and let it go again */
	uint64_t corrupt;     /* records too short for their type, skipped */
};

struct ipcc_sampler;

/*
 * Open a sampler, disabled unless enable_on_exec. On failure *out is NULL and
 * ipcc_last_error() says why (a rate above perf_event_max_sample_rate is named as such).
 */
int ipcc_sampler_new(const struct ipcc_sampler_opts *opts, struct ipcc_sampler **out);

/* Unmap the rings, close the events, free. NULL is a no-op. */
void ipcc_sampler_free(struct ipcc_sampler *s);

int ipcc_sampler_enable(struct ipcc_sampler *s);
int ipcc_sampler_disable(struct ipcc_sampler *s);

/*
 * Hand every record now in the rings to `h` and give the space back to the kernel.
 * Returns the number of samples handed over, or a negative IPCC_E* code.
 */
int ipcc_sampler_drain(struct ipcc_sampler *s, const struct ipcc_sample_handler *h);

/* The fds of the sampling events, to poll() for "a ring is filling up". */
unsigned ipcc_sampler_nfds(const struct ipcc_sampler *s);
int ipcc_sampler_fd(const struct ipcc_sampler *s, unsigned i);

/* The counts so far. */
const struct ipcc_sampler_stats *ipcc_sampler_stats(const struct ipcc_sampler *s);

/* The kernel's perf_event_max_sample_rate in Hz, or 0 if it cannot be read. */
uint64_t ipcc_sample_max_rate(void);

#endif
